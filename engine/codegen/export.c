/* standalone C of a model's equations (paper 002's generated program): the equations in joint
 * coordinates (derive.c, emitted by the symbolic engine), the model's data, a driver that
 * integrates them with CVODE exactly as `m:simulate{formulation = "relative"}` does — Adams with
 * fixed-point iteration, the augmented system with the paper's Baumgarte stabilization or without
 * it, the rows kept by the rank test — and a Makefile.  The program builds against Debian's
 * SUNDIALS alone and prints the joints' coordinates at the output times, the numbers of the
 * channels <joint>.angle / .displacement of the same run in mbd. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbd/fileout.h"

#include "codegen.h"
#include "codegen_msg.h"

/* the driver: everything but the model is here, the model is in model.h and equations.c */
static const char *const driver_c =
    "/* driver of the exported equations: y = [q; v], [M Phiq'; Phiq 0][vdot; lambda] =\n"
    " * [g; gamma - 2 alpha Phidot - beta^2 Phi] (paper 002 eq 11), CVODE Adams with fixed-point\n"
    " * iteration (as mbd's integrator \"adams\"), the coordinates printed at the output times */\n"
    "#include <math.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "\n"
    "#include <cvode/cvode.h>\n"
    "#include <nvector/nvector_serial.h>\n"
    "#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>\n"
    "\n"
    "#include \"model.h\"\n"
    "\n"
    "void " EQS_EXPORT_NAME
    "(const double *v, double *out);\n"
    "\n"
    "static double out[NOUT > 0 ? NOUT : 1], A[(N + NA) * (N + NA)], b[N + NA];\n"
    "\n"
    "/* LU with partial pivoting and the solve, in place (A column-major, order k) */\n"
    "static int solve(int k, double *a, double *x) {\n"
    "  for (int c = 0; c < k; c++) {\n"
    "    int p = c;\n"
    "    for (int i = c + 1; i < k; i++) {\n"
    "      if (fabs(a[c * k + i]) > fabs(a[c * k + p])) {\n"
    "        p = i;\n"
    "      }\n"
    "    }\n"
    "    if (a[c * k + p] == 0) {\n"
    "      return -1;\n"
    "    }\n"
    "    for (int j = 0; j < k; j++) {\n"
    "      double t = a[j * k + c];\n"
    "      a[j * k + c] = a[j * k + p];\n"
    "      a[j * k + p] = t;\n"
    "    }\n"
    "    double t = x[c];\n"
    "    x[c] = x[p];\n"
    "    x[p] = t;\n"
    "    for (int i = c + 1; i < k; i++) {\n"
    "      double f = a[c * k + i] / a[c * k + c];\n"
    "      for (int j = c; j < k; j++) {\n"
    "        a[j * k + i] -= f * a[j * k + c];\n"
    "      }\n"
    "      x[i] -= f * x[c];\n"
    "    }\n"
    "  }\n"
    "  for (int i = k - 1; i >= 0; i--) {\n"
    "    double s = x[i];\n"
    "    for (int j = i + 1; j < k; j++) {\n"
    "      s -= a[j * k + i] * x[j];\n"
    "    }\n"
    "    x[i] = s / a[i * k + i];\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *ud) {\n"
    "  (void)t;\n"
    "  (void)ud;\n"
    "  const double *y = N_VGetArrayPointer(yv);\n"
    "  double *yd = N_VGetArrayPointer(ydv);\n"
    "  " EQS_EXPORT_NAME
    "(y, out);\n"
    "  int K = N + NA;\n"
    "  memset(A, 0, sizeof A);\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    b[i] = out[OFF_G + i];\n"
    "    for (int j = i; j < N; j++) {\n"
    "      double m = out[OFF_M + i * N - i * (i - 1) / 2 + (j - i)];\n"
    "      A[j * K + i] = m;\n"
    "      A[i * K + j] = m;\n"
    "    }\n"
    "  }\n"
    "  for (int k = 0; k < NA; k++) {\n"
    "    int r = active[k];\n"
    "    double phidot = 0;\n"
    "    for (int c = 0; c < N; c++) {\n"
    "      double p = out[OFF_PHIQ + r * N + c];\n"
    "      A[c * K + N + k] = p;\n"
    "      A[(N + k) * K + c] = p;\n"
    "      phidot += p * y[N + c];\n"
    "    }\n"
    "    b[N + k] = out[OFF_GAMMA + r] - 2 * ALPHA * phidot - BETA * BETA * out[OFF_PHI + r];\n"
    "  }\n"
    "  if (solve(K, A, b) != 0) {\n"
    "    return -1;\n"
    "  }\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    yd[i] = y[N + i];\n"
    "    yd[N + i] = b[i];\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static void print_at(double t, const double *y) {\n"
    "  printf(\"%.17g\", t);\n"
    "  for (int c = 0; c < NCHAN; c++) {\n"
    "    printf(\" %.17g\", chan0[c] + chan_scale[c] * y[chan_coord[c]]);\n"
    "  }\n"
    "  printf(\"\\n\");\n"
    "}\n"
    "\n"
    "int main(void) {\n"
    "  SUNContext ctx;\n"
    "  if (SUNContext_Create(NULL, &ctx) != 0) {\n"
    "    return 1;\n"
    "  }\n"
    "  N_Vector y = N_VNew_Serial(2 * N, ctx);\n"
    "  double *yv = N_VGetArrayPointer(y);\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    yv[i] = q0[i];\n"
    "    yv[N + i] = v0[i];\n"
    "  }\n"
    "  void *mem = CVodeCreate(CV_ADAMS, ctx);\n"
    "  SUNNonlinearSolver nls = SUNNonlinSol_FixedPoint(y, 0, ctx);\n"
    "  if (!mem || !nls || CVodeInit(mem, rhs, 0.0, y) < 0 ||\n"
    "      CVodeSStolerances(mem, RTOL, ATOL) < 0 || CVodeSetNonlinearSolver(mem, nls) < 0 ||\n"
    "      CVodeSetMaxNumSteps(mem, 10000000L) < 0 || CVodeSetStopTime(mem, T_END) < 0 ||\n"
    "      CVodeSetMinStep(mem, 64.0 * 2.220446049250313e-16 * T_END) < 0) {\n"
    "    fprintf(stderr, \"model: CVODE set-up failed\\n\");\n"
    "    return 1;\n"
    "  }\n"
    "  printf(\"t\");\n"
    "  for (int c = 0; c < NCHAN; c++) {\n"
    "    printf(\" %s\", chan_name[c]);\n"
    "  }\n"
    "  printf(\"\\n\");\n"
    "  print_at(0, yv);\n"
    "  long steps = 0;\n"
    "  for (int k = 1; k < NOUTT; k++) {\n"
    "    double t = 0;\n"
    "    int flag = CVode(mem, tout[k], y, &t, CV_NORMAL);\n"
    "    if (flag < 0) {\n"
    "      fprintf(stderr, \"model: CVODE failed at t = %g (flag %d)\\n\", t, flag);\n"
    "      return 1;\n"
    "    }\n"
    "    print_at(tout[k], yv);\n"
    "  }\n"
    "  long nfe = 0;\n"
    "  CVodeGetNumSteps(mem, &steps);\n"
    "  CVodeGetNumRhsEvals(mem, &nfe);\n"
    "  fprintf(stderr, \"steps %ld, right-hand sides %ld\\n\", steps, nfe);\n"
    "  N_VDestroy(y);\n"
    "  SUNNonlinSolFree(nls);\n"
    "  CVodeFree(&mem);\n"
    "  SUNContext_Free(&ctx);\n"
    "  return 0;\n"
    "}\n";

static const char *const makefile =
    "# builds the exported model against Debian's SUNDIALS (libsundials-dev)\n"
    "CC ?= cc\n"
    "CFLAGS ?= -O2 -ffp-contract=off\n"
    "LDLIBS = -lsundials_cvode -lsundials_sunnonlinsolfixedpoint -lsundials_nvecserial -lm\n"
    "\n"
    "model: main.c equations.c model.h\n"
    "\t$(CC) $(CFLAGS) -o model main.c equations.c $(LDLIBS)\n"
    "\n"
    "run: model\n"
    "\t./model\n"
    "\n"
    "clean:\n"
    "\trm -f model\n";

/* the files of the export, written as a set: each to its temporary, all finished (flushed and
 * synced), then all renamed; a failure anywhere leaves every file as it was (mbd/fileout.h) */
#define EXPORT_NFILES 4
static int write_set(const char *dir, const char *const *file, const char *const *text,
                     mbd_error *err) {
  mbd_out o[EXPORT_NFILES];
  int n = 0, rc = MBD_OK;
  for (; n < EXPORT_NFILES && rc == MBD_OK; n++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file[n]);
    rc = mbd_out_open(&o[n], "export_c", path, 0, err);
    if (rc == MBD_OK) {
      mbd_out_write(&o[n], text[n], strlen(text[n]));
      rc = mbd_out_finish(&o[n], err);
    }
  }
  // o[n - 1] was released by its failure; the others are whole and wait for their rename
  int whole = rc == MBD_OK ? n : n - 1;
  for (int i = 0; i < whole; i++) {
    if (rc == MBD_OK) {
      rc = mbd_out_commit(&o[i], err);
    } else {
      mbd_out_discard(&o[i]);
    }
  }
  return rc;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char tmp[4096];
  size_t len = strlen(path);
  if (len == 0 || len >= sizeof tmp) {
    return -1;
  }
  memcpy(tmp, path, len + 1);
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0755) && errno != EEXIST) {
        return -1;
      }
      *p = '/';
    }
  }
  return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* a growing text */
typedef struct buf {
  char *s;
  size_t n, cap;
  int bad;
} buf;

static void put(buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(buf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->bad = 1;
      return;
    }
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? 2 * b->cap : 4096;
    while (cap <= b->n + (size_t)k) {
      cap *= 2;
    }
    char *p = realloc(b->s, cap);
    if (!p) {
      b->bad = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
}

int mbd_code_export(const mbd_model *mr, const mbd_export_opts *o, mbd_error *err) {
  // what the generated equations cannot hold
  if (mr->ndrive > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CODE_EXPORT_DRIVE, mr->joint[mr->drive[0].joint].name);
  }
  for (int i = 0; i < mr->nforce; i++) {
    if (mr->force[i].fn) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_CODE_EXPORT_FORCE,
                      mr->force[i].kind == FORCE_TORQUE ? "torque" : "force",
                      mr->body[mr->force[i].body].name);
    }
  }
  for (int i = 0; i < mr->nrspring; i++) {
    if (mr->tree->joint_tj[mr->rspring[i].joint] < 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_CODE_EXPORT_RSPRING,
                      mr->joint[mr->rspring[i].joint].name);
    }
  }
  if (make_dirs(o->dir)) {
    return MBD_FAIL(err, MBD_E_IO, MSG_CODE_CACHE_WRITE, o->dir, strerror(errno));
  }
  char *src = NULL;
  mbd_eqs_layout L;
  int rc = mbd_code_source(mr, EQS_EXPORT_NAME, &src, &L, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (rc != MBD_OK) {
    return rc;
  }
  // the model's data: sizes, layout, the rows kept, the start, the channels, the run settings
  buf b = {0};
  int n = mr->nv;
  put(&b,
      "/* model '%s' exported by mbd: sizes, the layout of the equations' outputs, the rows "
      "kept\n * by the rank test, the assembled start, the printed channels and the run's "
      "settings */\n",
      mr->name);
  put(&b, "#define N %d\n#define NROW %d\n#define NA %d\n#define NOUT %d\n", n, mr->mrow, mr->ma0,
      L.nout);
  put(&b,
      "#define OFF_M %d\n#define OFF_G %d\n#define OFF_PHI %d\n#define OFF_PHIQ %d\n"
      "#define OFF_GAMMA %d\n",
      L.oM, L.og, L.ophi, L.ophiq, L.ogam);
  put(&b, "#define ALPHA %.17g\n#define BETA %.17g\n", o->alpha, o->beta);
  put(&b, "#define RTOL %.17g\n#define ATOL %.17g\n#define T_END %.17g\n", o->rtol, o->atol,
      o->t_end);
  put(&b, "static const int active[%d] = {", mr->ma0 > 0 ? mr->ma0 : 1);
  for (int k = 0; k < mr->ma0; k++) {
    put(&b, "%s%d", k ? ", " : "", mr->active0[k]);
  }
  put(&b, "%s};\n", mr->ma0 ? "" : "0");
  put(&b, "static const double q0[%d] = {", n > 0 ? n : 1);
  for (int k = 0; k < n; k++) {
    put(&b, "%s%.17g", k ? ", " : "", mr->q_asm[k]);
  }
  put(&b, "};\nstatic const double v0[%d] = {", n > 0 ? n : 1);
  for (int k = 0; k < n; k++) {
    put(&b, "%s%.17g", k ? ", " : "", mr->v_asm[k]);
  }
  put(&b, "};\n");
  // channels: each tree joint's angle and displacement, c0 + q
  const mbd_tree *t = mr->tree;
  int nch = 0;
  buf names = {0}, c0 = {0}, cc = {0}, cs = {0};
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (tj->joint < 0) {
      continue;
    }
    const mbd_joint_type_desc *jt = mbd_joint_type_get(mr->joint[tj->joint].type);
    int dx = MBD_DIMX(mr);
    for (int i = 0; i < jt->ncoord[dx]; i++) {
      // the angle, then the displacements in their order (a screw's is lead times its angle)
      int kind = jt->coord[dx][i];
      int col = tj->qadr + (kind == MBD_COORD_ANGLE ? tj->rot
                            : kind == MBD_COORD_Y   ? tj->disp + 1
                                                    : tj->disp);
      double scale = kind != MBD_COORD_ANGLE && tj->disp == tj->rot ? mr->joint[tj->joint].lead : 1;
      put(&names, "%s\"%s.%s\"", nch ? ", " : "", mr->joint[tj->joint].name,
          mbd_coord_name(kind));
      put(&c0, "%s%.17g", nch ? ", " : "", tj->coord0[i]);
      put(&cc, "%s%d", nch ? ", " : "", col);
      put(&cs, "%s%.17g", nch ? ", " : "", scale);
      nch++;
    }
  }
  put(&b, "#define NCHAN %d\n", nch);
  put(&b, "static const char *const chan_name[%d] = {%s};\n", nch ? nch : 1,
      nch ? names.s : "\"\"");
  put(&b, "static const double chan0[%d] = {%s};\n", nch ? nch : 1, nch ? c0.s : "0");
  put(&b, "static const int chan_coord[%d] = {%s};\n", nch ? nch : 1, nch ? cc.s : "0");
  put(&b, "static const double chan_scale[%d] = {%s};\n", nch ? nch : 1, nch ? cs.s : "1");
  // the output times of mbd's run: k h up to t_end, and t_end
  double h = o->output_every > 0 ? o->output_every : o->t_end / 500;
  double cnt = floor(o->t_end / h + 1e-9);
  int nt = (int)cnt + 1, extra = fabs(cnt * h - o->t_end) > 1e-9 * o->t_end ? 1 : 0;
  put(&b, "#define NOUTT %d\nstatic const double tout[%d] = {", nt + extra, nt + extra);
  for (int k = 0; k < nt; k++) {
    put(&b, "%s%.17g", k ? ", " : "", k * h);
  }
  if (extra) {
    put(&b, ", %.17g", o->t_end);
  }
  put(&b, "};\n");
  free(names.s);
  free(c0.s);
  free(cc.s);
  free(cs.s);
  mbd_eqs_layout_free(&L);
  if (b.bad || names.bad || c0.bad || cc.bad) {
    free(b.s);
    free(src);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "export");
  }
  static const char *const files[EXPORT_NFILES] = {"equations.c", "model.h", "main.c", "Makefile"};
  const char *texts[EXPORT_NFILES] = {src, b.s, driver_c, makefile};
  rc = write_set(o->dir, files, texts, err);
  free(b.s);
  free(src);
  return rc;
}
