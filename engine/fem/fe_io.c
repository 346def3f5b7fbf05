/* files of the FE layer: the mode file (modes computed by mbd or by another FE program, with the
 * nodes' lumped masses and rotary inertias), Matrix Market mass and stiffness matrices with a CSV
 * node table (the export of CalculiX, Code_Aster, ANSYS), and their writers.  The formats are
 * described for users in docs/paper003.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbd/fileout.h"

#include "fem_impl.h"
#include "fem_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* a line reader: the next line that is not empty nor a comment ('#', or '%' for Matrix Market)   */

typedef struct reader {
  FILE *f;
  const char *file;
  int line;
  char buf[4096];
  char cmt; /* comment character */
} reader;

static char *next_line(reader *r) {
  while (fgets(r->buf, sizeof r->buf, r->f)) {
    r->line++;
    char *s = r->buf;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
      s++;
    }
    if (*s && *s != r->cmt) {
      return s;
    }
  }
  return NULL;
}

/* parse exactly n numbers from s (separated by blanks or commas); 1 when it did */
static int numbers(const char *s, double *v, int n) {
  for (int i = 0; i < n; i++) {
    while (*s == ' ' || *s == '\t' || *s == ',') {
      s++;
    }
    char *end = NULL;
    errno = 0;
    v[i] = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v[i])) {
      return 0;
    }
    s = end;
  }
  while (*s == ' ' || *s == '\t' || *s == ',' || *s == '\r' || *s == '\n') {
    s++;
  }
  return *s == '\0';
}

static int is_int(double v) { return v == floor(v) && fabs(v) < 1e9; }

static int open_fail(mbd_error *err, const char *what, const char *file) {
  return MBD_FAIL(err, MBD_E_IO, MSG_FEM_OPEN, what, file, strerror(errno));
}

/* ------------------------------------------------------------------------------------------ */
/* the mode file                                                                               */

int mbd_modes_save(const mbd_modes *mo, const char *file, mbd_error *err) {
  // whole or not at all (mbd/fileout.h); a write error is kept by the stream for the commit
  mbd_out o;
  int rc = mbd_out_open(&o, "modes:save", file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  FILE *f = o.f;
  int N = mo->nnode;
  fprintf(f, "# mbd modes file, version 1: nodes (position, lumped mass, rotary inertias),\n");
  fprintf(f, "# clamped nodes, beam elements, then each mode: frequency (Hz), kind, generalized\n");
  fprintf(f, "# mass, and per node ux uy uz rx ry rz\n");
  fprintf(f, "nodes %d\n", N);
  for (int i = 0; i < N; i++) {
    fprintf(f, "%d %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", i + 1, mo->xyz[3 * i],
            mo->xyz[3 * i + 1], mo->xyz[3 * i + 2], mo->mass[i], mo->rot[3 * i], mo->rot[3 * i + 1],
            mo->rot[3 * i + 2]);
  }
  fprintf(f, "fixed %d", mo->nfixed);
  for (int k = 0; k < mo->nfixed; k++) {
    fprintf(f, " %d", mo->fixed[k]);
  }
  fprintf(f, "\nelements %d\n", mo->nelem);
  for (int e = 0; e < mo->nelem; e++) {
    fprintf(f, "%d %d\n", mo->elem[2 * e], mo->elem[2 * e + 1]);
  }
  fprintf(f, "modes %d\n", mo->nmode);
  for (int k = 0; k < mo->nmode; k++) {
    fprintf(f, "mode %d %.17g %s %.17g\n", k + 1, mo->freq[k], mbd_mode_kind_name(mo->kind[k]),
            mo->gmass[k]);
    const double *phi = mo->shape + (size_t)k * 6 * N;
    for (int i = 0; i < N; i++) {
      fprintf(f, "%d", i + 1);
      for (int d = 0; d < 6; d++) {
        fprintf(f, " %.17g", phi[6 * i + d]);
      }
      fprintf(f, "\n");
    }
  }
  return mbd_out_commit(&o, err);
}

/* "<keyword> <count>" on a line: the count, or −1 */
static int keyword_count(const char *s, const char *key) {
  size_t n = strlen(key);
  if (strncmp(s, key, n) != 0 || (s[n] != ' ' && s[n] != '\t')) {
    return -1;
  }
  char *end = NULL;
  long v = strtol(s + n, &end, 10);
  while (end && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) {
    end++;
  }
  return (end && *end == '\0' && v >= 0 && v < 100000000) ? (int)v : -1;
}

int mbd_modes_load(const char *file, mbd_modes **out, mbd_error *err) {
  *out = NULL;
  reader r = {.f = fopen(file, "r"), .file = file, .cmt = '#'};
  if (!r.f) {
    return open_fail(err, "fem.load", file);
  }
  mbd_modes *mo = NULL;
  int rc = MBD_OK, N = -1;
  char *s = next_line(&r);
#define PARSE_FAIL(what)                                                   \
  do {                                                                     \
    rc = s ? MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, file, r.line, what) \
           : MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_EOF, file, what);          \
    goto done;                                                             \
  } while (0)
  if (!s || (N = keyword_count(s, "nodes")) < 1) {
    PARSE_FAIL("expected 'nodes <count>' (at least one node)");
  }
  // the nodes first (the counts of the other sections follow): read them into a temporary
  double *nd = malloc((size_t)N * 7 * sizeof(double));
  if (!nd) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.load");
    goto done;
  }
  for (int i = 0; i < N; i++) {
    double v[8];
    s = next_line(&r);
    if (!s || !numbers(s, v, 8) || v[0] != i + 1) {
      free(nd);
      PARSE_FAIL("expected a node line 'k x y z mass Jxx Jyy Jzz' with k = 1, 2, ... in order");
    }
    if (v[4] < 0 || v[5] < 0 || v[6] < 0 || v[7] < 0) {
      free(nd);
      PARSE_FAIL("a node's mass and rotary inertias must not be negative");
    }
    memcpy(nd + 7 * i, v + 1, 7 * sizeof(double));
  }
  // clamped nodes: "fixed n k1 .. kn" (optional)
  int nfixed = 0, fixed[64];
  s = next_line(&r);
  if (s && strncmp(s, "fixed", 5) == 0) {
    char *p = s + 5, *end = NULL;
    long c = strtol(p, &end, 10);
    if (end == p || c < 0 || c > 64) {
      free(nd);
      PARSE_FAIL("expected 'fixed <count> <node> ...' (at most 64 nodes)");
    }
    nfixed = (int)c;
    for (int k = 0; k < nfixed; k++) {
      p = end;
      long v = strtol(p, &end, 10);
      if (end == p || v < 1 || v > N) {
        free(nd);
        PARSE_FAIL("a clamped node that is not a node of the file");
      }
      fixed[k] = (int)v;
    }
    s = next_line(&r);
  }
  // beam elements: "elements n" then n lines "a b" (optional)
  int nelem = 0;
  int *elem = NULL;
  if (s && (nelem = keyword_count(s, "elements")) >= 0) {
    elem = malloc(2 * (size_t)(nelem ? nelem : 1) * sizeof(int));
    if (!elem) {
      free(nd);
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.load");
      goto done;
    }
    for (int e = 0; e < nelem; e++) {
      double v[2];
      s = next_line(&r);
      if (!s || !numbers(s, v, 2) || !is_int(v[0]) || !is_int(v[1]) || v[0] < 1 || v[0] > N ||
          v[1] < 1 || v[1] > N) {
        free(nd);
        free(elem);
        PARSE_FAIL("expected an element line 'a b' of two node numbers");
      }
      elem[2 * e] = (int)v[0];
      elem[2 * e + 1] = (int)v[1];
    }
    s = next_line(&r);
  } else {
    nelem = 0;
  }
  int K = s ? keyword_count(s, "modes") : -1;
  if (K < 1) {
    free(nd);
    free(elem);
    PARSE_FAIL("expected 'modes <count>' (at least one mode)");
  }
  mo = mbd_modes_alloc(N, K, nfixed, nelem);
  if (!mo) {
    free(nd);
    free(elem);
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.load");
    goto done;
  }
  for (int i = 0; i < N; i++) {
    memcpy(mo->xyz + 3 * i, nd + 7 * i, 3 * sizeof(double));
    mo->mass[i] = nd[7 * i + 3];
    memcpy(mo->rot + 3 * i, nd + 7 * i + 4, 3 * sizeof(double));
  }
  memcpy(mo->fixed, fixed, (size_t)nfixed * sizeof(int));
  if (nelem) {
    memcpy(mo->elem, elem, 2 * (size_t)nelem * sizeof(int));
  }
  free(nd);
  free(elem);
  for (int k = 0; k < K; k++) {
    // "mode k frequency kind [generalized mass]"
    s = next_line(&r);
    char kind[32] = "";
    int idx = 0, used = 0;
    double fr = 0, gm = 1;
    if (!s || sscanf(s, "mode %d %lf %31s %n", &idx, &fr, kind, &used) < 3 || idx != k + 1 ||
        !(fr >= 0) || !isfinite(fr)) {
      PARSE_FAIL("expected 'mode <k> <frequency Hz> <kind> [<generalized mass>]', k = 1, 2, ...");
    }
    if (s[used] && !numbers(s + used, &gm, 1)) {
      PARSE_FAIL("the generalized mass must be a number");
    }
    if (!(gm > 0)) {
      PARSE_FAIL("the generalized mass must be positive");
    }
    int kd = mbd_mode_kind_from_name(kind);
    if (kd < 0) {
      PARSE_FAIL("the kind must be rigid, axial, bending-y, bending-z or torsion");
    }
    mo->freq[k] = fr;
    mo->kind[k] = kd;
    mo->gmass[k] = gm;
    double *phi = mo->shape + (size_t)k * 6 * N;
    for (int i = 0; i < N; i++) {
      double v[7];
      s = next_line(&r);
      if (!s || !numbers(s, v, 7) || v[0] != i + 1) {
        PARSE_FAIL("expected a shape line 'k ux uy uz rx ry rz' with k = 1, 2, ... in order");
      }
      memcpy(phi + 6 * i, v + 1, 6 * sizeof(double));
    }
  }
  if ((s = next_line(&r)) != NULL) {
    PARSE_FAIL("unexpected text after the last mode");
  }
  *out = mo;
  mo = NULL;
#undef PARSE_FAIL
done:
  mbd_modes_free(mo);
  fclose(r.f);
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Matrix Market and the node table                                                            */

/* a dense n×n matrix from a Matrix Market file; *n gets the size (square) */
static int read_mtx(const char *file, double **out, int *nout, mbd_error *err) {
  *out = NULL;
  reader r = {.f = fopen(file, "r"), .file = file, .cmt = '%'};
  if (!r.f) {
    return open_fail(err, "fem.from_matrices", file);
  }
  int rc = MBD_OK;
  double *a = NULL;
  char *s = NULL;
  // the banner is a comment line for the reader: read it by hand
  char banner[256] = "";
  if (!fgets(banner, sizeof banner, r.f)) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_EOF, file, "the MatrixMarket banner");
    goto done;
  }
  r.line = 1;
  char obj[32], fmt[32], field[32], sym[32];
  for (char *c = banner; *c; c++) {
    *c = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
  }
  if (sscanf(banner, "%%%%matrixmarket %31s %31s %31s %31s", obj, fmt, field, sym) != 4 ||
      strcmp(obj, "matrix") != 0 || (strcmp(fmt, "coordinate") != 0 && strcmp(fmt, "array") != 0) ||
      (strcmp(field, "real") != 0 && strcmp(field, "integer") != 0 &&
       strcmp(field, "double") != 0) ||
      (strcmp(sym, "general") != 0 && strcmp(sym, "symmetric") != 0)) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, file, 1,
                  "expected '%MatrixMarket matrix coordinate|array real general|symmetric'");
    goto done;
  }
  int coord = strcmp(fmt, "coordinate") == 0, symm = strcmp(sym, "symmetric") == 0;
  s = next_line(&r);
  double sz[3] = {0, 0, 0};
  if (!s || !numbers(s, sz, coord ? 3 : 2) || !is_int(sz[0]) || !is_int(sz[1]) || sz[0] < 1 ||
      sz[0] != sz[1] || sz[0] > 60000) {
    rc = s ? MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, file, r.line,
                      "expected the sizes of a square matrix")
           : MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_EOF, file, "the sizes");
    goto done;
  }
  int n = (int)sz[0];
  a = calloc((size_t)n * n, sizeof(double));
  if (!a) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.from_matrices");
    goto done;
  }
  if (coord) {
    long nnz = (long)sz[2];
    for (long k = 0; k < nnz; k++) {
      double v[3];
      s = next_line(&r);
      if (!s || !numbers(s, v, 3) || !is_int(v[0]) || !is_int(v[1]) || v[0] < 1 || v[0] > n ||
          v[1] < 1 || v[1] > n) {
        rc = s ? MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, file, r.line,
                          "expected an entry 'row column value' inside the matrix")
               : MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_EOF, file, "the last entry");
        goto done;
      }
      int i = (int)v[0] - 1, j = (int)v[1] - 1;
      MBD_AT(a, n, i, j) += v[2];
      if (symm && i != j) {
        MBD_AT(a, n, j, i) += v[2];
      }
    }
  } else {
    // array: column by column; symmetric stores the lower triangle
    for (int j = 0; j < n; j++) {
      for (int i = symm ? j : 0; i < n; i++) {
        double v;
        s = next_line(&r);
        if (!s || !numbers(s, &v, 1)) {
          rc = s ? MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, file, r.line, "expected a number")
                 : MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_EOF, file, "the last entry");
          goto done;
        }
        MBD_AT(a, n, i, j) = v;
        MBD_AT(a, n, j, i) = symm ? v : MBD_AT(a, n, j, i);
      }
    }
  }
  *out = a;
  *nout = n;
  a = NULL;
done:
  free(a);
  fclose(r.f);
  return rc;
}

mbd_fe *mbd_fe_read_matrices(const char *mass_file, const char *stiffness_file,
                             const char *nodes_file, mbd_error *err) {
  double *M = NULL, *K = NULL, *xyz = NULL;
  char *seen = NULL;
  int nm = 0, nk = 0, N = 0;
  mbd_fe *fe = NULL;
  if (read_mtx(mass_file, &M, &nm, err) < 0 || read_mtx(stiffness_file, &K, &nk, err) < 0) {
    goto done;
  }
  if (nk != nm) {
    MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MTX_SIZE, stiffness_file, nk, nk, nm);
    goto done;
  }
  reader r = {.f = fopen(nodes_file, "r"), .file = nodes_file, .cmt = '#'};
  if (!r.f) {
    open_fail(err, "fem.from_matrices", nodes_file);
    goto done;
  }
  // nodes: "k,x,y,z" lines, a header line that is not numbers skipped
  N = nm / 6;
  xyz = calloc(3 * (size_t)(N ? N : 1), sizeof(double));
  seen = calloc((size_t)(N ? N : 1), 1);
  int bad = !xyz || !seen;
  if (bad) {
    MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.from_matrices");
  }
  int count = 0;
  for (char *s = next_line(&r); s && !bad; s = next_line(&r)) {
    double v[4];
    if (!numbers(s, v, 4)) {
      if (count == 0 && r.line == 1) {
        continue;  // a header
      }
      MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, nodes_file, r.line,
               "expected a node line 'k,x,y,z'");
      bad = 1;
      break;
    }
    if (!is_int(v[0]) || v[0] < 1 || v[0] > N || seen[(int)v[0] - 1]) {
      MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_PARSE, nodes_file, r.line,
               "a node number out of the matrices' range (6 DOF per node) or given twice");
      bad = 1;
      break;
    }
    int k = (int)v[0] - 1;
    seen[k] = 1;
    memcpy(xyz + 3 * k, v + 1, 3 * sizeof(double));
    count++;
  }
  fclose(r.f);
  if (bad) {
    goto done;
  }
  if (nm % 6 != 0 || count != N) {
    if (nm % 6 == 0) {
      for (int k = 0; k < N; k++) {
        if (!seen[k]) {
          MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_NODES_MISSING, nodes_file, k + 1);
          goto done;
        }
      }
    }
    MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MTX_SIZE, mass_file, nm, nm, 6 * count);
    goto done;
  }
  fe = mbd_fe_from_matrices(N, xyz, M, K, err);
done:
  free(M);
  free(K);
  free(xyz);
  free(seen);
  return fe;
}

static int write_mtx(const char *file, const double *a, int n, mbd_error *err) {
  mbd_out o;
  int rc = mbd_out_open(&o, "write_matrices", file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  FILE *f = o.f;
  long nnz = 0;
  for (int j = 0; j < n; j++) {
    for (int i = j; i < n; i++) {
      nnz += MBD_AT(a, n, i, j) != 0;
    }
  }
  fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n");
  fprintf(f, "%% written by mbd: 6 DOF per node (ux uy uz rx ry rz), lower triangle\n");
  fprintf(f, "%d %d %ld\n", n, n, nnz);
  for (int j = 0; j < n; j++) {
    for (int i = j; i < n; i++) {
      if (MBD_AT(a, n, i, j) != 0) {
        fprintf(f, "%d %d %.17g\n", i + 1, j + 1, MBD_AT(a, n, i, j));
      }
    }
  }
  return mbd_out_commit(&o, err);
}

int mbd_fe_write_matrices(const mbd_fe *fe, const char *mass_file, const char *stiffness_file,
                          const char *nodes_file, mbd_error *err) {
  int rc = write_mtx(mass_file, fe->M, fe->ndof, err);
  if (rc == MBD_OK) {
    rc = write_mtx(stiffness_file, fe->K, fe->ndof, err);
  }
  if (rc != MBD_OK) {
    return rc;
  }
  mbd_out o;
  rc = mbd_out_open(&o, "write_matrices", nodes_file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  FILE *f = o.f;
  fprintf(f, "node,x,y,z\n");
  for (int i = 0; i < fe->nnode; i++) {
    fprintf(f, "%d,%.17g,%.17g,%.17g\n", i + 1, fe->xyz[3 * i], fe->xyz[3 * i + 1],
            fe->xyz[3 * i + 2]);
  }
  return mbd_out_commit(&o, err);
}
