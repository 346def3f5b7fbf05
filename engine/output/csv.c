/* CSV files (see mbd/output.h): a header line, then one row per sample, %.17g numbers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbd/fileout.h"

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

  // through the safe door (mbd/fileout.h): a temporary sibling renamed when whole, links
  // followed, FIFOs and devices written directly
  mbd_out o;
  int rc = mbd_out_open(&o, "csv", file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  FILE *f = o.f;

  // comment lines, header line, then rows; %.17g round-trips every double (nan and inf read
  // back with strtod); a write error is kept by the stream and reported by the commit
  int bad = comment && put_comment(f, comment) != 0;
  for (int j = 0; j < ncols && !bad; j++) {
    bad = (j > 0 && fputc(',', f) == EOF) || put_name(f, names[j]) != 0;
  }
  bad = bad || fputc('\n', f) == EOF;
  char num[32];
  for (int i = 0; i < nrows && !bad; i++) {
    for (int j = 0; j < ncols && !bad; j++) {
      mbd_csv_number(num, sizeof num, cols[j][i]);
      bad = (j > 0 && fputc(',', f) == EOF) || fputs(num, f) < 0;
    }
    bad = bad || fputc('\n', f) == EOF;
  }
  return mbd_out_commit(&o, err);
}

void mbd_csv_number(char *buf, size_t cap, double v) {
  // printf writes a NaN with its sign bit as "-nan": every NaN is "nan"
  if (isnan(v)) {
    snprintf(buf, cap, "nan");
  } else {
    snprintf(buf, cap, "%.17g", v);
  }
}
