/* mbd — the manifest of a run: how it was made, as ordered key/value text pairs (mbd version,
 * model name and hash, formulation, integrator, tolerances, date …).  The interpreter fills it
 * when a run ends; mbd_run_write_csv writes it as comment lines ("# key: value") above the
 * header, and plots carry it in their metadata (mbd/output.h: mbd_plot_meta). */
#ifndef MBD_MANIFEST_H
#define MBD_MANIFEST_H

#include "mbd/model.h"

#define MBD_MANIFEST_MAX 32     /* entries a run holds */
#define MBD_MANIFEST_KEY 32     /* longest key, bytes with the terminator */
#define MBD_MANIFEST_VALUE 160  /* longest value, bytes with the terminator (longer is cut) */

/* set key to value in r's manifest (an existing key keeps its place and takes the new value).
 * Keys are non-empty, at most MBD_MANIFEST_KEY − 1 bytes of letters, digits, '_' and '.';
 * values are cut at MBD_MANIFEST_VALUE − 1 bytes and at their first line break.  Returns MBD_OK,
 * MBD_E_INPUT (bad key, or the manifest is full) or MBD_E_NOMEM; no message is recorded. */
int mbd_run_set_manifest(mbd_run *r, const char *key, const char *value);

/* entries in order: count, key and value of entry i (NULL outside 0 .. count − 1) */
int mbd_run_manifest_count(const mbd_run *r);
const char *mbd_run_manifest_key(const mbd_run *r, int i);
const char *mbd_run_manifest_value(const mbd_run *r, int i);

#endif
