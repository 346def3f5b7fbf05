/* status codes and error values (see mbd/status.h) */
#include "mbd/status.h"

#include <ctype.h>
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

/* printf writes a not-a-number as "nan" or "-nan" (its sign bit): messages say "NaN" */
static void tidy_nan(char *msg) {
  for (char *p = msg; (p = strstr(p, "nan")) != NULL;) {
    int word_start = p == msg || !isalnum((unsigned char)p[-1]) || p[-1] == '-';
    int word_end = !isalnum((unsigned char)p[3]);
    if (!(word_start && word_end)) {
      p += 3;
      continue;
    }
    char *from = (p > msg && p[-1] == '-') ? p - 1 : p;
    memcpy(from, "NaN", 3);
    memmove(from + 3, p + 3, strlen(p + 3) + 1);
    p = from + 3;
  }
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
    tidy_nan(err->msg);
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
