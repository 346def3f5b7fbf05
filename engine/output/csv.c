/* CSV files (see mbd/output.h): a header line, then one row per sample, %.17g numbers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output_impl.h"

/* write one header field, quoted (RFC 4180) when it holds a comma, quote or line break */
static int put_name(FILE *f, const char *name) {
  if (strpbrk(name, ",\"\r\n") == NULL) {
    return fputs(name, f) < 0 ? -1 : 0;
  }
  // quoted field: embedded quotes are doubled
  if (fputc('"', f) == EOF) {
    return -1;
  }
  for (const char *c = name; *c; c++) {
    if ((*c == '"' && fputc('"', f) == EOF) || fputc(*c, f) == EOF) {
      return -1;
    }
  }
  return fputc('"', f) == EOF ? -1 : 0;
}

/* the comment text as lines that each start with "# " */
static int put_comment(FILE *f, const char *text) {
  const char *p = text;
  while (*p) {
    size_t n = strcspn(p, "\n");
    if (fprintf(f, "# %.*s\n", (int)n, p) < 0) {
      return -1;
    }
    p += n;
    p += *p == '\n';
  }
  return 0;
}

int mbd_csv_write(const char *file, int ncols, const char *const *names, const double *const *cols,
                  int nrows, mbd_error *err) {
  return mbd_csv_write_commented(file, NULL, ncols, names, cols, nrows, err);
}

int mbd_csv_write_commented(const char *file, const char *comment, int ncols,
                            const char *const *names, const double *const *cols, int nrows,
                            mbd_error *err) {
  // validate the arguments before touching the file system
  if (file == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "csv", "file name");
  }
  if (ncols < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_COUNT, "csv", "number of columns", "at least 1",
                    ncols);
  }
  if (nrows < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_COUNT, "csv", "number of rows", "0 or more", nrows);
  }
  if (names == NULL || (nrows > 0 && cols == NULL)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "csv", names == NULL ? "names" : "cols");
  }
  for (int j = 0; j < ncols; j++) {
    if (names[j] == NULL || (nrows > 0 && cols[j] == NULL)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "csv",
                      names[j] == NULL ? "a column name" : "a column");
    }
  }

  // open the temporary sibling; errno is read at once so the message names the real cause
  char part[4096];
  if (out_part_name(file, part, sizeof part) != 0) {
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_NAME, "csv", file);
  }
  FILE *f = fopen(part, "w");
  if (f == NULL) {
    int e = errno;
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_OPEN, "csv", file, strerror(e));
  }

  // comment lines, header line, then rows; %.17g round-trips every double (nan and inf read
  // back with strtod)
  int bad = comment && put_comment(f, comment) != 0;
  for (int j = 0; j < ncols && !bad; j++) {
    bad = (j > 0 && fputc(',', f) == EOF) || put_name(f, names[j]) != 0;
  }
  bad = bad || fputc('\n', f) == EOF;
  for (int i = 0; i < nrows && !bad; i++) {
    for (int j = 0; j < ncols && !bad; j++) {
      bad = fprintf(f, j > 0 ? ",%.17g" : "%.17g", cols[j][i]) < 0;
    }
    bad = bad || fputc('\n', f) == EOF;
  }

  // a full disk often shows only when the buffer is flushed: check fclose as well
  int e = bad ? errno : 0;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    out_commit(part, file, 0, "csv", err);
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_WRITE, "csv", file, strerror(e));
  }
  return out_commit(part, file, 1, "csv", err);
}

int out_part_name(const char *file, char *part, size_t cap) {
  int k = snprintf(part, cap, "%s.part-%ld", file, (long)getpid());
  return (k < 0 || (size_t)k >= cap) ? -1 : 0;
}

int out_commit(const char *part, const char *file, int ok, const char *kind, mbd_error *err) {
  if (!ok) {
    remove(part);
    return MBD_OK;
  }
  if (rename(part, file) != 0) {
    int e = errno;
    remove(part);
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_RENAME, kind, file, strerror(e));
  }
  return MBD_OK;
}
