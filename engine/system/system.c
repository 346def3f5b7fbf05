/* coordinate-level systems (paper 004): symbolic constraints, their A and b, the Udwadia–Kalaba
 * equation with stabilization, the error measures E1 and E2, and the stability check.
 *
 * Everything symbolic happens when a constraint is added (exact derivatives) and once at the
 * start of a run (one tape for forces and all constraint pieces); the integration loop only runs
 * the tape and small dense algebra in workspaces sized at the start. */
#include "mbd/system.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/run_impl.h"
#include "mbd/integrators.h"
#include "mbd/linalg.h"

#define SYS_NAME_MAX 64
#define SYS_MAX_WARNINGS 16

enum { FORCE_ZERO, FORCE_CONST, FORCE_SYM, FORCE_FN };

/* one constraint: the expression and its symbolic pieces (node ids in the context) */
typedef struct sys_con {
  int holo;            /* 1 holonomic, 0 nonholonomic */
  mbd_sym_id e;        /* h(q, t) or r(q, q̇, t) */
  mbd_sym_id dval;     /* holonomic: ḣ = Σ ∂h/∂q_j q̇_j + ∂h/∂t; nonholonomic: unused (0) */
  mbd_sym_id b;        /* right-hand side of A q̈ = b without stabilization */
  mbd_sym_id *A;       /* n entries of its row of A */
} sys_con;

struct mbd_system {
  char name[SYS_NAME_MAX];
  mbd_sym_ctx *ctx;                 /* not owned */
  int n;                            /* coordinates */
  char (*names)[SYS_NAME_MAX];      /* n coordinate names */
  mbd_sym_id *qv, *qdv, tv;         /* variables: coordinates, velocities, time */
  double *M, *Minv, *Mih;           /* n×n: mass, its inverse, M^(−1/2) (column-major) */
  int force_kind;                   /* FORCE_* */
  double *Fc;                       /* n constant force */
  mbd_sym_id *Fs;                   /* n symbolic force */
  mbd_sys_force_fn ffn;
  void *fud;
  int nc, cc;                       /* constraints and capacity */
  sys_con *con;
  double *q0, *qd0;                 /* n initial state */
  int nwarning;
  char warning[SYS_MAX_WARNINGS][256];
};

/* ------------------------------------------------------------------------------------------ */
/* building                                                                                    */

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) >= SYS_NAME_MAX - 4 || !(isalpha((unsigned char)*s) || *s == '_')) {
    return 0;
  }
  for (const char *p = s; *p; p++) {
    if (!(isalnum((unsigned char)*p) || *p == '_')) {
      return 0;
    }
  }
  return 1;
}

static void sys_warn(mbd_system *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sys_warn(mbd_system *s, const char *fmt, ...) {
  if (s->nwarning >= SYS_MAX_WARNINGS) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->warning[s->nwarning++], sizeof s->warning[0], fmt, ap);
  va_end(ap);
}

mbd_system *mbd_system_new(mbd_sym_ctx *ctx, const char *name, int n, const char *const *names,
                           mbd_error *err) {
  if (!ctx || n < 1) {
    MBD_FAIL(err, MBD_E_INPUT, "system: needs at least one coordinate");
    return NULL;
  }
  // names: identifiers, unique, not t, and no name is another's velocity name
  for (int i = 0; i < n; i++) {
    if (!valid_name(names[i])) {
      MBD_FAIL(err, MBD_E_INPUT, "system: coordinate %d: '%s' is not a valid name (letters, digits, _)",
               i + 1, names[i] ? names[i] : "(null)");
      return NULL;
    }
    if (strcmp(names[i], "t") == 0) {
      MBD_FAIL(err, MBD_E_INPUT, "system: coordinate %d: 't' is the time; choose another name", i + 1);
      return NULL;
    }
    for (int k = 0; k < n; k++) {
      size_t lk = strlen(names[k]);
      if (k != i && strcmp(names[i], names[k]) == 0) {
        MBD_FAIL(err, MBD_E_INPUT, "system: coordinate '%s' is named twice", names[i]);
        return NULL;
      }
      if (strncmp(names[i], names[k], lk) == 0 && strcmp(names[i] + lk, "_dot") == 0) {
        MBD_FAIL(err, MBD_E_INPUT,
                 "system: coordinate '%s' clashes with the velocity of '%s'; choose another name",
                 names[i], names[k]);
        return NULL;
      }
    }
  }
  mbd_system *s = calloc(1, sizeof *s);
  if (!s) {
    MBD_FAIL(err, MBD_E_NOMEM, "system: out of memory");
    return NULL;
  }
  snprintf(s->name, sizeof s->name, "%s", name && *name ? name : "system");
  s->ctx = ctx;
  s->n = n;
  size_t nn = (size_t)n;
  s->names = calloc(nn, sizeof *s->names);
  s->qv = calloc(nn, sizeof(mbd_sym_id));
  s->qdv = calloc(nn, sizeof(mbd_sym_id));
  s->M = calloc(nn * nn, sizeof(double));
  s->Minv = calloc(nn * nn, sizeof(double));
  s->Mih = calloc(nn * nn, sizeof(double));
  s->Fc = calloc(nn, sizeof(double));
  s->Fs = calloc(nn, sizeof(mbd_sym_id));
  s->q0 = calloc(nn, sizeof(double));
  s->qd0 = calloc(nn, sizeof(double));
  if (!s->names || !s->qv || !s->qdv || !s->M || !s->Minv || !s->Mih || !s->Fc || !s->Fs ||
      !s->q0 || !s->qd0) {
    mbd_system_free(s);
    MBD_FAIL(err, MBD_E_NOMEM, "system: out of memory");
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    char vn[SYS_NAME_MAX + 8];
    snprintf(s->names[i], sizeof s->names[i], "%s", names[i]);
    s->qv[i] = mbd_sym_var(ctx, names[i], -1);
    snprintf(vn, sizeof vn, "%s_dot", names[i]);
    s->qdv[i] = mbd_sym_var(ctx, vn, -1);
    MBD_AT(s->M, n, i, i) = MBD_AT(s->Minv, n, i, i) = MBD_AT(s->Mih, n, i, i) = 1;
  }
  s->tv = mbd_sym_var(ctx, "t", -1);
  for (int i = 0; i < n; i++) {
    if (s->qv[i] < 0 || s->qdv[i] < 0 || s->tv < 0) {
      const mbd_error *e = mbd_sym_ctx_error(ctx);
      MBD_FAIL(err, MBD_E_INPUT, "system: %s", e->code ? e->msg : "cannot make the variables");
      mbd_system_free(s);
      return NULL;
    }
  }
  return s;
}

void mbd_system_free(mbd_system *s) {
  if (!s) {
    return;
  }
  for (int k = 0; k < s->nc; k++) {
    free(s->con[k].A);
  }
  free(s->con);
  free(s->names);
  free(s->qv);
  free(s->qdv);
  free(s->M);
  free(s->Minv);
  free(s->Mih);
  free(s->Fc);
  free(s->Fs);
  free(s->q0);
  free(s->qd0);
  free(s);
}

int mbd_system_ncoord(const mbd_system *s) { return s->n; }
const char *mbd_system_name(const mbd_system *s) { return s->name; }
const char *mbd_system_coord_name(const mbd_system *s, int i) {
  return (i >= 0 && i < s->n) ? s->names[i] : NULL;
}
mbd_sym_id mbd_system_q(const mbd_system *s, int i) {
  return (i >= 0 && i < s->n) ? s->qv[i] : MBD_SYM_NONE;
}
mbd_sym_id mbd_system_qd(const mbd_system *s, int i) {
  return (i >= 0 && i < s->n) ? s->qdv[i] : MBD_SYM_NONE;
}
mbd_sym_id mbd_system_t(const mbd_system *s) { return s->tv; }
int mbd_system_nconstraint(const mbd_system *s) { return s->nc; }
int mbd_system_is_holonomic(const mbd_system *s, int i) {
  return (i >= 0 && i < s->nc) ? s->con[i].holo : 0;
}
const char *mbd_system_warning(const mbd_system *s, int i) {
  return (i >= 0 && i < s->nwarning) ? s->warning[i] : NULL;
}

// mass: symmetric positive definite; M⁻¹ and M^(−1/2) from its eigen-decomposition M = V W Vᵀ
int mbd_system_set_mass(mbd_system *s, const double *M, int full, mbd_error *err) {
  int n = s->n;
  size_t nn = (size_t)n * (size_t)n;
  double *V = calloc(nn, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
  if (!V || !w) {
    free(V);
    free(w);
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  double big = 0;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double v = full ? MBD_AT(M, n, i, j) : (i == j ? M[i] : 0.0);
      if (!isfinite(v)) {
        free(V);
        free(w);
        return MBD_FAIL(err, MBD_E_INPUT, "system '%s': mass entry (%d, %d) is %g", s->name, i + 1,
                        j + 1, v);
      }
      MBD_AT(V, n, i, j) = v;
      big = fmax(big, fabs(v));
    }
  }
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < j; i++) {
      if (fabs(MBD_AT(V, n, i, j) - MBD_AT(V, n, j, i)) > 1e-12 * big) {
        free(V);
        free(w);
        return MBD_FAIL(err, MBD_E_INPUT,
                        "system '%s': the mass matrix is not symmetric (entries (%d, %d) and (%d, "
                        "%d) differ)",
                        s->name, i + 1, j + 1, j + 1, i + 1);
      }
    }
  }
  memcpy(s->M, V, nn * sizeof(double));
  int rc = mbd_eig_sym(n, V, n, w);
  if (rc != MBD_OK || !(w[0] > 1e-14 * big)) {
    double w0 = w[0];
    free(V);
    free(w);
    if (rc != MBD_OK) {
      return MBD_FAIL(err, rc, "system '%s': eigenvalues of the mass matrix failed", s->name);
    }
    return MBD_FAIL(err, MBD_E_INPUT,
                    "system '%s': the mass matrix must be positive definite (smallest eigenvalue "
                    "%g)",
                    s->name, w0);
  }
  // Minv = V W⁻¹ Vᵀ, Mih = V W^(−1/2) Vᵀ
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double a = 0, b = 0;
      for (int k = 0; k < n; k++) {
        double vv = MBD_AT(V, n, i, k) * MBD_AT(V, n, j, k);
        a += vv / w[k];
        b += vv / sqrt(w[k]);
      }
      MBD_AT(s->Minv, n, i, j) = a;
      MBD_AT(s->Mih, n, i, j) = b;
    }
  }
  free(V);
  free(w);
  return MBD_OK;
}

int mbd_system_set_force_const(mbd_system *s, const double *F, mbd_error *err) {
  for (int i = 0; i < s->n; i++) {
    if (!isfinite(F[i])) {
      return MBD_FAIL(err, MBD_E_INPUT, "system '%s': force entry %d is %g", s->name, i + 1, F[i]);
    }
  }
  memcpy(s->Fc, F, (size_t)s->n * sizeof(double));
  s->force_kind = FORCE_CONST;
  return MBD_OK;
}

/* check that e uses only the system's variables (coordinates, velocities and t; with
 * allow_qd = 0 not the velocities).  what names e in messages. */
static int check_vars(mbd_system *s, mbd_sym_id e, int allow_qd, const char *what, mbd_error *err) {
  int nv = mbd_sym_vars(s->ctx, e, 0, NULL);
  if (nv < 0) {
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  mbd_sym_id *vs = calloc((size_t)(nv ? nv : 1), sizeof *vs);
  if (!vs) {
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  mbd_sym_vars(s->ctx, e, nv, vs);
  int rc = MBD_OK;
  for (int k = 0; k < nv && rc == MBD_OK; k++) {
    int known = vs[k] == s->tv, isqd = 0;
    for (int i = 0; i < s->n && !known; i++) {
      known = vs[k] == s->qv[i];
      if (vs[k] == s->qdv[i]) {
        known = isqd = 1;
      }
    }
    if (!known) {
      rc = MBD_FAIL(err, MBD_E_INPUT,
                    "system '%s': %s uses the variable '%s', which is not one of its coordinates, "
                    "velocities or t",
                    s->name, what, mbd_sym_var_name(s->ctx, vs[k]));
    } else if (isqd && !allow_qd) {
      rc = MBD_FAIL(err, MBD_E_INPUT,
                    "system '%s': %s depends on the velocity '%s': a holonomic constraint is a "
                    "function of the coordinates and t (use s:nonholonomic for velocity "
                    "constraints)",
                    s->name, what, mbd_sym_var_name(s->ctx, vs[k]));
    }
  }
  free(vs);
  return rc;
}

int mbd_system_set_force_sym(mbd_system *s, const mbd_sym_id *F, mbd_error *err) {
  for (int i = 0; i < s->n; i++) {
    char what[48];
    snprintf(what, sizeof what, "force entry %d", i + 1);
    if (F[i] < 0) {
      return MBD_FAIL(err, MBD_E_INPUT, "system '%s': %s is not an expression", s->name, what);
    }
    int rc = check_vars(s, F[i], 1, what, err);
    if (rc < 0) {
      return rc;
    }
  }
  memcpy(s->Fs, F, (size_t)s->n * sizeof(mbd_sym_id));
  s->force_kind = FORCE_SYM;
  return MBD_OK;
}

int mbd_system_set_force_fn(mbd_system *s, mbd_sys_force_fn fn, void *ud, mbd_error *err) {
  if (!fn) {
    return MBD_FAIL(err, MBD_E_INPUT, "system '%s': force function is NULL", s->name);
  }
  s->ffn = fn;
  s->fud = ud;
  s->force_kind = FORCE_FN;
  return MBD_OK;
}

/* short infix text of e for messages */
static void expr_text(mbd_sym_ctx *ctx, mbd_sym_id e, char *buf, size_t cap) {
  size_t len = mbd_sym_print(ctx, e, buf, cap);
  if (len >= cap && cap > 4) {
    memcpy(buf + cap - 4, "...", 4);
  }
}

/* Σ_k ∂f/∂q_k q̇_k + ∂f/∂t : the time derivative of f(q, t) (f may hold q̇ too; then it is the part
 * without q̈) */
static mbd_sym_id total_rate(mbd_system *s, mbd_sym_id f) {
  mbd_sym_ctx *c = s->ctx;
  mbd_sym_id acc = mbd_sym_diff(c, f, s->tv);
  for (int k = 0; k < s->n; k++) {
    acc = mbd_sym_add(c, acc, mbd_sym_mul(c, mbd_sym_diff(c, f, s->qv[k]), s->qdv[k]));
  }
  return acc;
}

static int add_constraint(mbd_system *s, mbd_sym_id e, int holo, mbd_error *err) {
  const char *kind = holo ? "holonomic" : "nonholonomic";
  int idx = s->nc;
  char what[64];
  snprintf(what, sizeof what, "%s constraint %d", kind, idx + 1);
  if (e < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, "system '%s': %s is not an expression", s->name, what);
  }
  int rc = check_vars(s, e, !holo, what, err);
  if (rc < 0) {
    return rc;
  }
  mbd_sym_ctx *c = s->ctx;
  // paper 004 section 5: f^k (k > 1) vanishes to first order where f = 0
  double k = 0;
  if (mbd_sym_op_of(c, e) == MBD_SYM_POW && mbd_sym_is_const(c, mbd_sym_arg(c, e, 1), &k) && k > 1) {
    char et[160], bt[160];
    expr_text(c, e, et, sizeof et);
    expr_text(c, mbd_sym_arg(c, e, 0), bt, sizeof bt);
    return MBD_FAIL(err, MBD_E_INPUT, MBD_MSG_SYS_DEGENERATE, kind, idx + 1, et, ": ", bt);
  }
  if (s->nc == s->cc) {
    int nc = s->cc ? 2 * s->cc : 4;
    sys_con *p = realloc(s->con, (size_t)nc * sizeof *p);
    if (!p) {
      return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
    }
    s->con = p;
    s->cc = nc;
  }
  sys_con *sc = &s->con[idx];
  memset(sc, 0, sizeof *sc);
  sc->A = calloc((size_t)s->n, sizeof(mbd_sym_id));
  if (!sc->A) {
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  sc->holo = holo;
  sc->e = e;
  if (holo) {
    // ḣ = Σ ∂h/∂q_j q̇_j + ∂h/∂t; ḧ = Σ ∂h/∂q_j q̈_j + (rate of ḣ at fixed q̇): A = ∂h/∂q, b = −rate
    sc->dval = total_rate(s, e);
    for (int j = 0; j < s->n; j++) {
      sc->A[j] = mbd_sym_diff(c, e, s->qv[j]);
    }
    sc->b = mbd_sym_neg(c, total_rate(s, sc->dval));
  } else {
    // ṙ = Σ ∂r/∂q̇_j q̈_j + Σ ∂r/∂q_j q̇_j + ∂r/∂t: A = ∂r/∂q̇ (free of q̇), b = −the rest
    int any = 0;
    for (int j = 0; j < s->n; j++) {
      sc->A[j] = mbd_sym_diff(c, e, s->qdv[j]);
      double v = 0;
      if (!(mbd_sym_is_const(c, sc->A[j], &v) && v == 0)) {
        any = 1;
      }
      for (int l = 0; l < s->n && sc->A[j] >= 0; l++) {
        if (mbd_sym_depends(c, sc->A[j], s->qdv[l]) == 1) {
          free(sc->A);
          return MBD_FAIL(err, MBD_E_INPUT,
                          "system '%s': %s is not linear in the velocities (its derivative by "
                          "'%s' depends on '%s')",
                          s->name, what, mbd_sym_var_name(c, s->qdv[j]),
                          mbd_sym_var_name(c, s->qdv[l]));
        }
      }
    }
    if (!any) {
      free(sc->A);
      return MBD_FAIL(err, MBD_E_INPUT,
                      "system '%s': %s does not depend on the velocities: write it with "
                      "s:holonomic",
                      s->name, what);
    }
    sc->dval = mbd_sym_const(c, 0);
    sc->b = mbd_sym_neg(c, total_rate(s, e));
  }
  int bad = sc->b < 0 || sc->dval < 0;
  for (int j = 0; j < s->n; j++) {
    bad |= sc->A[j] < 0;
  }
  if (bad) {
    const mbd_error *ce = mbd_sym_ctx_error(c);
    free(sc->A);
    return MBD_FAIL(err, MBD_E_INPUT, "system '%s': %s: %s", s->name, what,
                    ce->code ? ce->msg : "differentiation failed");
  }
  s->nc++;
  return idx;
}

int mbd_system_add_holonomic(mbd_system *s, mbd_sym_id h, mbd_error *err) {
  return add_constraint(s, h, 1, err);
}

int mbd_system_add_nonholonomic(mbd_system *s, mbd_sym_id r, mbd_error *err) {
  return add_constraint(s, r, 0, err);
}

int mbd_system_set_initial(mbd_system *s, const double *q, const double *qd, mbd_error *err) {
  for (int i = 0; i < s->n; i++) {
    if ((q && !isfinite(q[i])) || (qd && !isfinite(qd[i]))) {
      return MBD_FAIL(err, MBD_E_INPUT, "system '%s': initial value of '%s' is not finite",
                      s->name, s->names[i]);
    }
  }
  if (q) {
    memcpy(s->q0, q, (size_t)s->n * sizeof(double));
  }
  if (qd) {
    memcpy(s->qd0, qd, (size_t)s->n * sizeof(double));
  }
  return MBD_OK;
}

void mbd_sys_opts_default(mbd_sys_opts *o) {
  memset(o, 0, sizeof *o);
  o->t_end = 1;
  o->integrator = MBD_INT_RK45;
  o->rtol = 1e-10;
  o->atol = 1e-10;
}

/* ------------------------------------------------------------------------------------------ */
/* stability (paper 004 eq 28, 37)                                                             */

int mbd_stability(int h, const double *S, const double *T, const double *L, double *re, double *im,
                  double *max_re, mbd_error *err) {
  *max_re = -INFINITY;
  if (h <= 0) {
    return MBD_OK;
  }
  int N = L ? h : 2 * h;
  double *C = calloc((size_t)N * (size_t)N, sizeof(double));
  if (!C) {
    return MBD_FAIL(err, MBD_E_NOMEM, "stability: out of memory");
  }
  if (L) {
    // λI + L = 0: eigenvalues of −L
    for (int j = 0; j < h; j++) {
      for (int i = 0; i < h; i++) {
        MBD_AT(C, N, i, j) = -MBD_AT(L, h, i, j);
      }
    }
  } else {
    // λ²I + λS + T = 0: the companion matrix [0 I; −T −S] acting on (U, λU)
    for (int i = 0; i < h; i++) {
      MBD_AT(C, N, i, h + i) = 1;
      for (int j = 0; j < h; j++) {
        MBD_AT(C, N, h + i, j) = T ? -MBD_AT(T, h, i, j) : 0;
        MBD_AT(C, N, h + i, h + j) = S ? -MBD_AT(S, h, i, j) : 0;
      }
    }
  }
  int rc = mbd_eig_general(N, C, N, re, im);
  free(C);
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc, "stability: the eigenvalue computation failed (%s)",
                    mbd_status_text(rc));
  }
  for (int i = 0; i < N; i++) {
    *max_re = fmax(*max_re, re[i]);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the run: workspaces sized once                                                              */

typedef struct sysrun {
  mbd_system *s;
  const mbd_sys_opts *o;
  int n, m, nh, nr;     /* coordinates, constraints, holonomic, nonholonomic */
  int stride;           /* tape outputs per constraint: value, rate, b, A row (n) */
  int fofs;             /* first constraint output in the tape (n with a symbolic force) */
  mbd_sym_tape *tape;
  double *v;            /* 2n+1 tape input: q, q̇, t */
  double *out;          /* tape outputs */
  double *F, *a, *tmp_n, *qdd;  /* n */
  double *A, *B;        /* m×n (ld m) */
  double *X;            /* n×m Moore–Penrose inverse of B */
  double *bs, *r;       /* m: stabilized b, b* − A a */
  double *H, *Hd, *R;   /* nh, nh, nr */
  double *S, *T, *L;    /* nh×nh, nh×nh, nr×nr (zero when not given) */
  int *hrow, *rrow;     /* constraint index of each holonomic / nonholonomic row */
  double *val, *rate;   /* m: constraint values and their time derivatives at the last evaluation */
  double *acc;          /* m: second derivatives A q̈ − b (holonomic; nonholonomic: = rate) */
  double tprev;         /* time of the last accepted step (E1, E2 quadrature) */
  double *fprev;        /* 4m: h², d(h²)/dt, ḣ², d(ḣ²)/dt at tprev per constraint */
  double *sum;          /* 2m: ∫h², ∫ḣ² up to tprev */
  double *rec;          /* channel values of one sample */
  mbd_lsq_ws lsq;       /* SVD workspace, m×n */
  mbd_run *run;
  mbd_error *err;
  double max_pos, max_vel;
} sysrun;

static void sr_free(sysrun *r) {
  mbd_sym_tape_free(r->tape);
  void *ps[] = {r->v, r->out, r->F, r->a, r->tmp_n, r->qdd, r->A, r->B, r->X, r->bs, r->r,
                r->H, r->Hd, r->R, r->S, r->T, r->L, r->hrow, r->rrow, r->val, r->rate, r->rec,
                r->acc, r->fprev, r->sum};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&r->lsq);
}

static int sr_init(sysrun *r, mbd_system *s, const mbd_sys_opts *o, mbd_error *err) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->o = o;
  r->err = err;
  int n = s->n, m = s->nc;
  r->n = n;
  r->m = m;
  for (int k = 0; k < m; k++) {
    if (s->con[k].holo) {
      r->nh++;
    } else {
      r->nr++;
    }
  }
  r->stride = n + 3;
  r->fofs = s->force_kind == FORCE_SYM ? n : 0;
  int nout = r->fofs + m * r->stride;
  size_t nn = (size_t)n, mm = (size_t)(m ? m : 1), hh = (size_t)(r->nh ? r->nh : 1),
         rr = (size_t)(r->nr ? r->nr : 1);
  r->v = calloc(2 * nn + 1, sizeof(double));
  r->out = calloc((size_t)(nout ? nout : 1), sizeof(double));
  r->F = calloc(nn, sizeof(double));
  r->a = calloc(nn, sizeof(double));
  r->tmp_n = calloc(nn, sizeof(double));
  r->qdd = calloc(nn, sizeof(double));
  r->A = calloc(mm * nn, sizeof(double));
  r->B = calloc(mm * nn, sizeof(double));
  r->X = calloc(mm * nn, sizeof(double));
  r->bs = calloc(mm, sizeof(double));
  r->r = calloc(mm, sizeof(double));
  r->H = calloc(hh, sizeof(double));
  r->Hd = calloc(hh, sizeof(double));
  r->R = calloc(rr, sizeof(double));
  r->S = calloc(hh * hh, sizeof(double));
  r->T = calloc(hh * hh, sizeof(double));
  r->L = calloc(rr * rr, sizeof(double));
  r->hrow = calloc(hh, sizeof(int));
  r->rrow = calloc(rr, sizeof(int));
  r->val = calloc(mm, sizeof(double));
  r->rate = calloc(mm, sizeof(double));
  r->rec = calloc(2 * nn + 2 * mm, sizeof(double));
  r->acc = calloc(mm, sizeof(double));
  r->fprev = calloc(4 * mm, sizeof(double));
  r->sum = calloc(2 * mm, sizeof(double));
  if (!r->v || !r->out || !r->F || !r->a || !r->tmp_n || !r->qdd || !r->A || !r->B || !r->X ||
      !r->bs || !r->r || !r->H || !r->Hd || !r->R || !r->S || !r->T || !r->L || !r->hrow ||
      !r->rrow || !r->val || !r->rate || !r->rec || !r->acc || !r->fprev || !r->sum) {
    sr_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  int rc = mbd_lsq_alloc(&r->lsq, m ? m : 1, n, err);
  if (rc < 0) {
    sr_free(r);
    return rc;
  }
  for (int k = 0, ih = 0, ir = 0; k < m; k++) {
    if (s->con[k].holo) {
      r->hrow[ih++] = k;
    } else {
      r->rrow[ir++] = k;
    }
  }
  if (o) {
    if (o->S && r->nh) {
      memcpy(r->S, o->S, hh * hh * sizeof(double));
    }
    if (o->T && r->nh) {
      memcpy(r->T, o->T, hh * hh * sizeof(double));
    }
    if (o->L && r->nr) {
      memcpy(r->L, o->L, rr * rr * sizeof(double));
    }
  }
  // one tape: [force (n, symbolic only)] then per constraint: value, rate, b, A row
  mbd_sym_id *ex = calloc((size_t)(nout ? nout : 1), sizeof *ex);
  mbd_sym_id *vars = calloc(2 * nn + 1, sizeof *vars);
  if (!ex || !vars) {
    free(ex);
    free(vars);
    sr_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, "system '%s': out of memory", s->name);
  }
  for (int i = 0; i < r->fofs; i++) {
    ex[i] = s->Fs[i];
  }
  for (int k = 0; k < m; k++) {
    mbd_sym_id *e = ex + r->fofs + k * r->stride;
    e[0] = s->con[k].e;
    e[1] = s->con[k].dval;
    e[2] = s->con[k].b;
    memcpy(e + 3, s->con[k].A, nn * sizeof(mbd_sym_id));
  }
  memcpy(vars, s->qv, nn * sizeof(mbd_sym_id));
  memcpy(vars + n, s->qdv, nn * sizeof(mbd_sym_id));
  vars[2 * n] = s->tv;
  rc = nout ? mbd_sym_tape_new(s->ctx, nout, ex, 2 * n + 1, vars, &r->tape, err) : MBD_OK;
  free(ex);
  free(vars);
  if (rc < 0) {
    sr_free(r);
    return rc;
  }
  return MBD_OK;
}

/* the Udwadia–Kalaba acceleration at (t, q, q̇) (paper 004 eq 5, 11, 31): also leaves the
 * constraint values and rates in r->val, r->rate.  0 ok, < 0 with err. */
static int sr_eval(sysrun *r, double t, const double *q, const double *qd) {
  mbd_system *s = r->s;
  int n = r->n, m = r->m;
  memcpy(r->v, q, (size_t)n * sizeof(double));
  memcpy(r->v + n, qd, (size_t)n * sizeof(double));
  r->v[2 * n] = t;
  if (r->tape) {
    mbd_sym_tape_eval(r->tape, r->v, r->out);
  }
  // free motion a = M⁻¹F (eq 2)
  switch (s->force_kind) {
    case FORCE_CONST:
      memcpy(r->F, s->Fc, (size_t)n * sizeof(double));
      break;
    case FORCE_SYM:
      memcpy(r->F, r->out, (size_t)n * sizeof(double));
      break;
    case FORCE_FN: {
      int rc = s->ffn(s->fud, t, q, qd, r->F, r->err);
      if (rc < 0) {
        return rc;
      }
      break;
    }
    default:
      memset(r->F, 0, (size_t)n * sizeof(double));
  }
  mbd_gemv(0, n, n, 1.0, s->Minv, n, r->F, 0.0, r->a);
  if (m == 0) {
    memcpy(r->qdd, r->a, (size_t)n * sizeof(double));
    return MBD_OK;
  }
  // A, b and the constraint values H, Ḣ (holonomic) and R (nonholonomic)
  for (int k = 0; k < m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    r->val[k] = o[0];
    r->bs[k] = o[2];
    for (int j = 0; j < n; j++) {
      MBD_AT(r->A, m, k, j) = o[3 + j];
    }
  }
  for (int i = 0; i < r->nh; i++) {
    const double *o = r->out + r->fofs + r->hrow[i] * r->stride;
    r->H[i] = o[0];
    r->Hd[i] = o[1];
  }
  for (int i = 0; i < r->nr; i++) {
    r->R[i] = r->val[r->rrow[i]];
  }
  // stabilization: b* = b − SḢ − TH (eq 10), b − LR (eq 31)
  for (int i = 0; i < r->nh; i++) {
    double c = 0;
    for (int j = 0; j < r->nh; j++) {
      c += MBD_AT(r->S, r->nh, i, j) * r->Hd[j] + MBD_AT(r->T, r->nh, i, j) * r->H[j];
    }
    r->bs[r->hrow[i]] -= c;
  }
  for (int i = 0; i < r->nr; i++) {
    double c = 0;
    for (int j = 0; j < r->nr; j++) {
      c += MBD_AT(r->L, r->nr, i, j) * r->R[j];
    }
    r->bs[r->rrow[i]] -= c;
  }
  // B = A M^(−1/2), residual b* − A a, X = B⁺ (SVD), q̈ = a + M^(−1/2) X (b* − A a)
  mbd_gemm(0, 0, m, n, n, 1.0, r->A, m, s->Mih, n, 0.0, r->B, m);
  memcpy(r->r, r->bs, (size_t)m * sizeof(double));
  mbd_gemv(0, m, n, -1.0, r->A, m, r->a, 1.0, r->r);
  double rcond = r->o && r->o->pinv_rcond > 0 ? r->o->pinv_rcond : 1e-12;
  if (mbd_pinv(&r->lsq, m, n, r->B, m, r->X, n, rcond, NULL) != MBD_OK) {
    return MBD_FAIL(r->err, MBD_E_SINGULAR,
                    "system '%s': the SVD of A M^(-1/2) did not converge at t = %g", s->name, t);
  }
  mbd_gemv(0, n, m, 1.0, r->X, n, r->r, 0.0, r->tmp_n);
  memcpy(r->qdd, r->a, (size_t)n * sizeof(double));
  mbd_gemv(0, n, n, 1.0, s->Mih, n, r->tmp_n, 1.0, r->qdd);
  // A q̈ − b (b without stabilization): ḧ of a holonomic constraint, ṙ of a nonholonomic one;
  // rates: holonomic ḣ, nonholonomic ṙ
  for (int k = 0; k < m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    double c = -o[2];
    for (int j = 0; j < n; j++) {
      c += o[3 + j] * r->qdd[j];
    }
    r->acc[k] = c;
    r->rate[k] = s->con[k].holo ? o[1] : c;
  }
  return MBD_OK;
}

/* y = [q, q̇] */
static int sys_rhs(double t, const double *y, double *ydot, void *ud) {
  sysrun *r = ud;
  int n = r->n;
  int rc = sr_eval(r, t, y, y + n);
  if (rc < 0) {
    return rc;
  }
  memcpy(ydot, y + n, (size_t)n * sizeof(double));
  memcpy(ydot + n, r->qdd, (size_t)n * sizeof(double));
  for (int i = 0; i < 2 * n; i++) {
    if (!isfinite(ydot[i])) {
      return MBD_FAIL(r->err, MBD_E_NAN,
                      "system '%s': the %s of '%s' became %g at t = %g: the run was stopped",
                      r->s->name, i < n ? "velocity" : "acceleration", r->s->names[i % n], ydot[i],
                      t);
    }
  }
  return 0;
}

static int sys_output(double t, const double *y, void *ud) {
  sysrun *r = ud;
  int n = r->n, m = r->m;
  int rc = sr_eval(r, t, y, y + n);
  if (rc < 0) {
    return rc;
  }
  if (r->o->poll) {
    rc = r->o->poll(r->o->poll_ud, t, r->err);
    if (rc < 0) {
      return rc;
    }
  }
  memcpy(r->rec, y, 2 * (size_t)n * sizeof(double));
  for (int k = 0; k < m; k++) {
    r->rec[2 * n + 2 * k] = r->val[k];
    r->rec[2 * n + 2 * k + 1] = r->rate[k];
    if (r->s->con[k].holo) {
      r->max_pos = fmax(r->max_pos, fabs(r->val[k]));
      r->max_vel = fmax(r->max_vel, fabs(r->rate[k]));
    } else {
      r->max_vel = fmax(r->max_vel, fabs(r->val[k]));
    }
  }
  return mbd_run_record_values(r->run, t, r->rec, r->err);
}

/* E1, E2 (paper 004 eq 17–18, 34–35): ∫c² and ∫ċ² over the integrator's accepted steps — the
 * solution points themselves — by the trapezoid rule with the Hermite end correction
 * (Δ/2)(f0 + f1) + (Δ²/12)(f0' − f1'), fourth order, using f' = 2cċ and 2ċc̈ (c̈ = A q̈ − b is known
 * for holonomic constraints; the rate of a nonholonomic one has no derivative here: plain
 * trapezoid).  Why not quadrature components in the ODE: c is of the size of the local truncation
 * error, and the Runge–Kutta stages, less accurate than the step ends, dominate such an integral
 * (it even came out negative).  Why not the output grid: it would tie E to output_every and to
 * the interpolant's own error. */
static void quad_point(sysrun *r, double t, int first) {
  for (int k = 0; k < r->m; k++) {
    int holo = r->s->con[k].holo;
    double c = r->val[k], cd = r->rate[k];
    double f[4] = {c * c, 2 * c * cd, cd * cd, holo ? 2 * cd * r->acc[k] : 0};
    double *fp = r->fprev + 4 * k;
    if (!first) {
      double d = t - r->tprev;
      r->sum[2 * k] += 0.5 * d * (fp[0] + f[0]) + d * d / 12 * (fp[1] - f[1]);
      r->sum[2 * k + 1] += 0.5 * d * (fp[2] + f[2]) + (holo ? d * d / 12 * (fp[3] - f[3]) : 0);
    }
    memcpy(fp, f, sizeof f);
  }
  r->tprev = t;
}

/* after every accepted step: the error measures' quadrature */
static int sys_step(double t, double *y, void *ud) {
  sysrun *r = ud;
  if (r->m == 0) {
    return 0;
  }
  int rc = sr_eval(r, t, y, y + r->n);
  if (rc < 0) {
    return rc;
  }
  quad_point(r, t, 0);
  return 0;
}

int mbd_system_accel(mbd_system *s, const mbd_sys_opts *o, double t, const double *q,
                     const double *qd, double *qdd, mbd_error *err) {
  sysrun r;
  int rc = sr_init(&r, s, o, err);
  if (rc < 0) {
    return rc;
  }
  rc = sr_eval(&r, t, q, qd);
  if (rc == MBD_OK) {
    memcpy(qdd, r.qdd, (size_t)s->n * sizeof(double));
  }
  sr_free(&r);
  return rc;
}

/* output grid 0, h, …, t_end; count or −1 */
static int make_grid(double t_end, double h, double **out) {
  double cnt = floor(t_end / h + 1e-9);
  if (cnt > 1e7) {
    return -1;
  }
  int n = (int)cnt + 1;
  int extra = fabs(cnt * h - t_end) > 1e-9 * t_end ? 1 : 0;
  double *g = malloc((size_t)(n + extra) * sizeof(double));
  if (!g) {
    return -1;
  }
  for (int i = 0; i < n; i++) {
    g[i] = i * h;
  }
  g[n + extra - 1] = t_end;
  *out = g;
  return n + extra;
}

/* CPU time of the calling thread (see engine/model/simulate.c) */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* checks at the initial state: degenerate constraints (rejected), inconsistency (warned) */
static int check_start(sysrun *r, mbd_error *err) {
  mbd_system *s = r->s;
  int rc = sr_eval(r, 0.0, s->q0, s->qd0);
  if (rc < 0) {
    return rc;
  }
  quad_point(r, 0.0, 1);
  int n = r->n;
  for (int k = 0; k < r->m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    double arow = 0;
    for (int j = 0; j < n; j++) {
      arow = fmax(arow, fabs(o[3 + j]));
    }
    int holo = s->con[k].holo;
    const char *kind = holo ? "holonomic" : "nonholonomic";
    if (arow <= 1e-12 && fabs(o[2]) <= 1e-12 && fabs(o[0]) <= 1e-8) {
      char et[200];
      expr_text(s->ctx, s->con[k].e, et, sizeof et);
      return MBD_FAIL(err, MBD_E_INPUT, MBD_MSG_SYS_DEGENERATE, kind, k + 1, et,
                      " (or in another form whose gradient does not vanish on the constraint)",
                      "");
    }
    if (fabs(o[0]) > 1e-8 || (holo && fabs(o[1]) > 1e-8)) {
      sys_warn(s,
               "system '%s': the initial state violates %s constraint %d (value %.3g%s%.3g); "
               "the stabilization, if any, pulls it back",
               s->name, kind, k + 1, o[0], holo ? ", rate " : "", holo ? o[1] : 0.0);
    }
  }
  return MBD_OK;
}

/* warn when the stabilization makes constraint errors grow (an eigenvalue with Re > 0) */
static int check_stability(sysrun *r, mbd_error *err) {
  int N = 2 * (r->nh > r->nr ? r->nh : r->nr);
  double *re = calloc((size_t)(N ? N : 1), sizeof(double)), *im = calloc((size_t)(N ? N : 1),
                                                                          sizeof(double));
  if (!re || !im) {
    free(re);
    free(im);
    return MBD_FAIL(err, MBD_E_NOMEM, "system: out of memory");
  }
  double mx = 0;
  int rc = MBD_OK;
  if (r->nh) {
    rc = mbd_stability(r->nh, r->S, r->T, NULL, re, im, &mx, err);
    if (rc == MBD_OK && mx > 1e-9) {
      sys_warn(r->s, MBD_MSG_SYS_UNSTABLE, "S, T", "lambda^2 I + lambda S + T", mx);
    }
  }
  if (rc == MBD_OK && r->nr) {
    rc = mbd_stability(r->nr, NULL, NULL, r->L, re, im, &mx, err);
    if (rc == MBD_OK && mx > 1e-9) {
      sys_warn(r->s, MBD_MSG_SYS_UNSTABLE, "L", "lambda I + L", mx);
    }
  }
  free(re);
  free(im);
  return rc;
}

int mbd_system_simulate(mbd_system *s, const mbd_sys_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  s->nwarning = 0;
  if (!(o->t_end > 0) || !isfinite(o->t_end)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: t_end must be positive, got %g", o->t_end);
  }
  if (mbd_integrator_name(o->integrator) == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: unknown integrator %d", o->integrator);
  }
  if (o->output_every < 0 || !isfinite(o->output_every)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: output_every must be positive, got %g",
                    o->output_every);
  }
  sysrun r;
  int rc = sr_init(&r, s, o, err);
  if (rc < 0) {
    return rc;
  }
  rc = check_start(&r, err);
  if (rc == MBD_OK) {
    rc = check_stability(&r, err);
  }
  double *grid = NULL, *y = NULL;
  int n = s->n, m = s->nc;
  int nout = 0;
  if (rc == MBD_OK) {
    double h = o->output_every > 0 ? o->output_every : o->t_end / 500;
    nout = make_grid(o->t_end, h, &grid);
    if (nout < 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, "simulate: output_every %g gives too many samples", h);
    }
  }
  // channels: q, q̇ by name, then constraint<i> and constraint<i>_dot
  int nch = 2 * n + 2 * m;
  char(*names)[80] = rc == MBD_OK ? calloc((size_t)nch, sizeof *names) : NULL;
  const char **np = rc == MBD_OK ? calloc((size_t)nch, sizeof *np) : NULL;
  y = rc == MBD_OK ? calloc(2 * (size_t)n, sizeof(double)) : NULL;
  if (rc == MBD_OK && (!names || !np || !y)) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, "simulate: out of memory");
  }
  if (rc == MBD_OK) {
    for (int i = 0; i < n; i++) {
      snprintf(names[i], sizeof names[i], "%s", s->names[i]);
      snprintf(names[n + i], sizeof names[i], "%s_dot", s->names[i]);
    }
    for (int k = 0; k < m; k++) {
      snprintf(names[2 * n + 2 * k], sizeof names[0], "constraint%d", k + 1);
      snprintf(names[2 * n + 2 * k + 1], sizeof names[0], "constraint%d_dot", k + 1);
    }
    for (int c = 0; c < nch; c++) {
      np[c] = names[c];
    }
    r.run = mbd_run_alloc_names(nch, np, nout);
    if (!r.run) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, "simulate: out of memory");
    }
  }
  free(names);
  free(np);
  if (rc < 0) {
    free(grid);
    free(y);
    sr_free(&r);
    return rc;
  }
  mbd_run *run = r.run;
  snprintf(run->formulation, sizeof run->formulation, "udwadia_kalaba");
  snprintf(run->integrator, sizeof run->integrator, "%s", mbd_integrator_name(o->integrator));
  run->t_end = o->t_end;
  memcpy(y, s->q0, (size_t)n * sizeof(double));
  memcpy(y + n, s->qd0, (size_t)n * sizeof(double));
  mbd_ode_opts io = {o->integrator, o->rtol, o->atol, o->step, o->max_step, 0};
  mbd_ode_stats st;
  memset(&st, 0, sizeof st);
  double w0 = wall_now(), c0 = cpu_now();
  rc = mbd_ode_solve(2 * n, 0.0, y, grid, nout, &io, sys_rhs, sys_output, sys_step, &r, &st, err);
  run->stats.wall_time = wall_now() - w0;
  run->stats.cpu_time = cpu_now() - c0;
  run->stats.nfev = st.nfev;
  run->stats.steps = st.steps;
  run->stats.rejected = st.rejected;
  run->stats.avg_step = st.avg_step;
  run->stats.max_position_violation = r.max_pos;
  run->stats.max_velocity_violation = r.max_vel;
  // E1, E2 over the time reached (eq 17–18, 34–35)
  double *E = calloc(2 * (size_t)(m ? m : 1), sizeof(double));
  if (E) {
    for (int k = 0; k < m; k++) {
      E[k] = r.tprev > 0 ? sqrt(fmax(r.sum[2 * k], 0) / r.tprev) : 0;
      E[m + k] = r.tprev > 0 ? sqrt(fmax(r.sum[2 * k + 1], 0) / r.tprev) : 0;
    }
    mbd_run_set_errors(run, m, E, E + m);
    free(E);
  }
  run->status = rc;
  if (rc < 0) {
    snprintf(run->message, sizeof run->message, "%s", err->msg);
  }
  free(grid);
  free(y);
  sr_free(&r);
  *out = run;
  return rc;
}
