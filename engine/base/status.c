/* status codes and error values (see mbd/status.h) */
#include "mbd/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mbd_status_name(int code) {
  switch (code) {
#define MBD_STATUS_CASE(name, value, text) \
  case value:                              \
    return #name;
    MBD_STATUS_LIST(MBD_STATUS_CASE)
#undef MBD_STATUS_CASE
  }
  return "MBD_UNKNOWN";
}

const char *mbd_status_text(int code) {
  switch (code) {
#define MBD_STATUS_CASE(name, value, text) \
  case value:                              \
    return text;
    MBD_STATUS_LIST(MBD_STATUS_CASE)
#undef MBD_STATUS_CASE
  }
  return "unknown status";
}

int mbd_error_set(mbd_error *err, int code, const char *func, int line, const char *fmt, ...) {
  if (err) {
    err->code = code;
    err->func = func;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

void mbd_error_clear(mbd_error *err) {
  if (err) {
    err->code = 0;
    err->msg[0] = '\0';
    err->func = NULL;
    err->line = 0;
  }
}
