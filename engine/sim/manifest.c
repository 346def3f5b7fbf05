/* the manifest of a run (mbd/manifest.h): ordered key/value text pairs kept with the run */
#include "mbd/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_impl.h"

/* a key of letters, digits, '_' and '.' that fits */
static int good_key(const char *key) {
  size_t n = key ? strlen(key) : 0;
  if (n == 0 || n >= MBD_MANIFEST_KEY) {
    return 0;
  }
  for (const char *c = key; *c; c++) {
    int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '.';
    if (!ok) {
      return 0;
    }
  }
  return 1;
}

int mbd_run_set_manifest(mbd_run *r, const char *key, const char *value) {
  if (!r || !good_key(key)) {
    return MBD_E_INPUT;
  }
  if (!r->mf) {
    r->mf = calloc(MBD_MANIFEST_MAX, sizeof *r->mf);
    if (!r->mf) {
      return MBD_E_NOMEM;
    }
  }
  // the entry of that key, else a new one at the end
  int i = 0;
  while (i < r->nmf && strcmp(r->mf[i].key, key) != 0) {
    i++;
  }
  if (i == r->nmf) {
    if (r->nmf == MBD_MANIFEST_MAX) {
      return MBD_E_INPUT;
    }
    memcpy(r->mf[i].key, key, strlen(key) + 1);  // (good_key: it fits)
    r->nmf++;
  }
  // one line of text: cut at the first line break, and at the value's size
  const char *v = value ? value : "";
  size_t n = strcspn(v, "\r\n");
  n = n < sizeof r->mf[i].value - 1 ? n : sizeof r->mf[i].value - 1;
  memcpy(r->mf[i].value, v, n);
  r->mf[i].value[n] = '\0';
  return MBD_OK;
}

int mbd_run_manifest_count(const mbd_run *r) { return r ? r->nmf : 0; }

const char *mbd_run_manifest_key(const mbd_run *r, int i) {
  return r && i >= 0 && i < r->nmf ? r->mf[i].key : NULL;
}

const char *mbd_run_manifest_value(const mbd_run *r, int i) {
  return r && i >= 0 && i < r->nmf ? r->mf[i].value : NULL;
}

