/* coordinate-level systems (paper 004): building a system — coordinates, mass, forces — and its
 * symbolic constraints with A and b of A q̈ = b derived exactly (eq 4); the run is system_run.c.
 *
 * Everything symbolic happens when a constraint is added (exact derivatives); a run compiles it
 * once into a tape. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbd/hash.h"
#include "mbd/integrators.h"
#include "mbd/linalg.h"
#include "mbd/text.h"
#include "system_impl.h"
#include "system_msg.h"

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

void mbd_system_warn(mbd_system *s, const char *fmt, ...) {
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
    MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NO_COORDS);
    return NULL;
  }
  long bad = name ? mbd_text_utf8_error(name) : -1;
  if (bad >= 0) {
    char shown[256];
    mbd_text_escape(shown, sizeof shown, name);
    MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NAME_UTF8, shown, bad);
    return NULL;
  }
  // names: identifiers, unique, not t, and no name is another's velocity name
  for (int i = 0; i < n; i++) {
    if (!valid_name(names[i])) {
      MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_COORD_NAME, i + 1, names[i] ? names[i] : "(null)");
      return NULL;
    }
    if (strcmp(names[i], "t") == 0) {
      MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_COORD_T, i + 1);
      return NULL;
    }
    for (int k = 0; k < n; k++) {
      size_t lk = strlen(names[k]);
      if (k != i && strcmp(names[i], names[k]) == 0) {
        MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_COORD_TWICE, names[i]);
        return NULL;
      }
      if (strncmp(names[i], names[k], lk) == 0 && strcmp(names[i] + lk, "_dot") == 0) {
        MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_COORD_CLASH, names[i], names[k]);
        return NULL;
      }
    }
  }
  mbd_system *s = calloc(1, sizeof *s);
  if (!s) {
    MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM_PLAIN);
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
    MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM_PLAIN);
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
      MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_VARS, e->code ? e->msg : "cannot make the variables");
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

int mbd_system_check_idle(const mbd_system *s, const char *what, mbd_error *err) {
  if (s->running > 0) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_SYS_RUNNING, s->name, what);
  }
  return MBD_OK;
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
  int busy = mbd_system_check_idle(s, "setting its mass", err);
  if (busy) {
    return busy;
  }
  int n = s->n;
  size_t nn = (size_t)n * (size_t)n;
  double *V = calloc(nn, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
  if (!V || !w) {
    free(V);
    free(w);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
  }
  double big = 0;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double v = full ? MBD_AT(M, n, i, j) : (i == j ? M[i] : 0.0);
      if (!isfinite(v)) {
        free(V);
        free(w);
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_MASS_ENTRY, s->name, i + 1, j + 1, v);
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
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_MASS_SYMMETRIC, s->name, i + 1, j + 1, j + 1,
                        i + 1);
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
      return MBD_FAIL(err, rc, MSG_SYS_MASS_EIG, s->name);
    }
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_MASS_PD, s->name, w0);
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
  int busy = mbd_system_check_idle(s, "setting its force", err);
  if (busy) {
    return busy;
  }
  for (int i = 0; i < s->n; i++) {
    if (!isfinite(F[i])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_FORCE_ENTRY, s->name, i + 1, F[i]);
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
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
  }
  mbd_sym_id *vs = calloc((size_t)(nv ? nv : 1), sizeof *vs);
  if (!vs) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
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
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_FOREIGN_VAR, s->name, what,
                    mbd_sym_var_name(s->ctx, vs[k]));
    } else if (isqd && !allow_qd) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_HOLO_VELOCITY, s->name, what,
                    mbd_sym_var_name(s->ctx, vs[k]));
    }
  }
  free(vs);
  return rc;
}

int mbd_system_set_force_sym(mbd_system *s, const mbd_sym_id *F, mbd_error *err) {
  int busy = mbd_system_check_idle(s, "setting its force", err);
  if (busy) {
    return busy;
  }
  for (int i = 0; i < s->n; i++) {
    char what[48];
    snprintf(what, sizeof what, "force entry %d", i + 1);
    if (F[i] < 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NOT_EXPR, s->name, what);
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
  int busy = mbd_system_check_idle(s, "setting its force", err);
  if (busy) {
    return busy;
  }
  if (!fn) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_FORCE_NULL, s->name);
  }
  s->ffn = fn;
  s->fud = ud;
  s->force_kind = FORCE_FN;
  return MBD_OK;
}

/* short infix text of e for messages */
void mbd_system_expr_text(mbd_sym_ctx *ctx, mbd_sym_id e, char *buf, size_t cap) {
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
  int busy = mbd_system_check_idle(s, "adding a constraint", err);
  if (busy) {
    return busy;
  }
  const char *kind = holo ? "holonomic" : "nonholonomic";
  int idx = s->nc;
  char what[64];
  snprintf(what, sizeof what, "%s constraint %d", kind, idx + 1);
  if (e < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NOT_EXPR, s->name, what);
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
    mbd_system_expr_text(c, e, et, sizeof et);
    mbd_system_expr_text(c, mbd_sym_arg(c, e, 0), bt, sizeof bt);
    return MBD_FAIL(err, MBD_E_INPUT, MBD_MSG_SYS_DEGENERATE, kind, idx + 1, et, ": ", bt);
  }
  if (s->nc == s->cc) {
    int nc = s->cc ? 2 * s->cc : 4;
    sys_con *p = realloc(s->con, (size_t)nc * sizeof *p);
    if (!p) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
    }
    s->con = p;
    s->cc = nc;
  }
  sys_con *sc = &s->con[idx];
  memset(sc, 0, sizeof *sc);
  sc->A = calloc((size_t)s->n, sizeof(mbd_sym_id));
  if (!sc->A) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
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
          return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NONLINEAR, s->name, what,
                          mbd_sym_var_name(c, s->qdv[j]), mbd_sym_var_name(c, s->qdv[l]));
        }
      }
    }
    if (!any) {
      free(sc->A);
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_NO_VELOCITY, s->name, what);
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
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_DIFF, s->name, what,
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
  int busy = mbd_system_check_idle(s, "setting its initial state", err);
  if (busy) {
    return busy;
  }
  for (int i = 0; i < s->n; i++) {
    if ((q && !isfinite(q[i])) || (qd && !isfinite(qd[i]))) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_INITIAL, s->name, s->names[i]);
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
  mbd_ode_opts_default(&o->ode, MBD_INT_RK45);
  o->ode.rtol = 1e-10;
  o->ode.atol = 1e-10;
}

/* an expression into the hash by its printed text (a heap buffer for a long one) */
static void hash_expr(mbd_hash *h, mbd_sym_ctx *ctx, mbd_sym_id e) {
  char small[512];
  size_t len = mbd_sym_print(ctx, e, small, sizeof small);
  if (len < sizeof small) {
    mbd_hash_str(h, small);
    return;
  }
  char *big = malloc(len + 1);
  if (!big) {
    mbd_hash_str(h, small);  // (out of memory: the first 511 characters)
    return;
  }
  mbd_sym_print(ctx, e, big, len + 1);
  mbd_hash_str(h, big);
  free(big);
}

void mbd_system_hash(const mbd_system *s, char out[17]) {
  mbd_hash h;
  mbd_hash_init(&h);
  mbd_hash_int(&h, s->n);
  for (int i = 0; i < s->n; i++) {
    mbd_hash_str(&h, s->names[i]);
  }
  mbd_hash_doubles(&h, s->M, s->n * s->n);
  mbd_hash_int(&h, s->force_kind);
  if (s->force_kind == FORCE_CONST) {
    mbd_hash_doubles(&h, s->Fc, s->n);
  } else if (s->force_kind == FORCE_SYM) {
    for (int i = 0; i < s->n; i++) {
      hash_expr(&h, s->ctx, s->Fs[i]);
    }
  }
  mbd_hash_int(&h, s->nc);
  for (int k = 0; k < s->nc; k++) {
    mbd_hash_int(&h, s->con[k].holo);
    hash_expr(&h, s->ctx, s->con[k].e);
  }
  mbd_hash_doubles(&h, s->q0, s->n);
  mbd_hash_doubles(&h, s->qd0, s->n);
  mbd_hash_hex(&h, out);
}
