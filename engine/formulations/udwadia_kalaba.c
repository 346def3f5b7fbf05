/* formulation "udwadia_kalaba": the generalized-inverse method (paper 004 eq 5, 9–11)
 *
 *   v̇ = a + M^(−1/2) (Φq M^(−1/2))⁺ (b* − Φq a),   a = M⁻¹Q,   b* = γ − S Φ̇ − T Φ
 *
 * on ALL constraint rows (also those the assembly's rank test set aside): the Moore–Penrose
 * inverse (SVD, mbd_pinv) gives the same motion for redundant rows.  S, T are α I, β I (the
 * paper's α, β, not Baumgarte's 2α, β²) or full matrices.  Planar models: M is diagonal, so
 * M^(−1/2) is taken entry by entry.  The multipliers for the reaction channels come from the
 * constraint force M(q̈ − a) = −Φqᵀλ by least squares.
 *
 * Spatial models: the Euler-parameter block 4GᵀJ'G of M is singular along p, and the method needs
 * a positive definite M.  Since every motion obeys the normalization's acceleration equation
 * 2pᵀp̈ = −2ṗᵀṗ, adding s·(2p)(2p)ᵀ to M and s·(2p)(−2ṗᵀṗ) to Q changes the constraint force but
 * not the motion (Udwadia & Phohomsiri's augmentation for singular mass matrices); s = mean of
 * the body's principal moments makes the new eigenvalue 4s, of the size of the others (4 J_i).
 * Any square root of M̃ serves in Gauss's principle: with M̃ = L Lᵀ (Cholesky),
 *   v̇ = a + L⁻ᵀ (Φq L⁻ᵀ)⁺ (b* − Φq a),   a = M̃⁻¹ Q̃. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* the core, shared with coordinate-level systems (engine/system)                              */

int mbd_uk_solve(int mc, int n, const double *C, const mbd_uk_root *S, const double *a,
                 double *res, double rcond, double *B, double *X, double *tmp, mbd_lsq_ws *lsq,
                 double *vdot) {
  // B = C S (the constraint matrix in the metric of M: paper 004 eq 5)
  if (S->sdiag) {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < mc; i++) {
        MBD_AT(B, mc, i, j) = MBD_AT(C, mc, i, j) * S->sdiag[j];
      }
    }
  } else if (S->sfull) {
    mbd_gemm(0, 0, mc, n, n, 1.0, C, mc, S->sfull, n, 0.0, B, mc);
  } else {
    memcpy(B, C, (size_t)mc * n * sizeof(double));
    mbd_tri_right_solve_lt(mc, n, S->lchol, n, B, mc);
  }
  // X = B⁺ by SVD: redundant rows give the same motion
  int rc = mbd_pinv(lsq, mc, n, B, mc, X, n, rcond, NULL);
  if (rc != MBD_OK) {
    return rc;
  }
  // v̇ = a + S X (b* − C a)
  mbd_gemv(0, n, mc, 1.0, X, n, res, 0.0, tmp);
  memcpy(vdot, a, (size_t)n * sizeof(double));
  if (S->sdiag) {
    for (int i = 0; i < n; i++) {
      vdot[i] += S->sdiag[i] * tmp[i];
    }
  } else if (S->sfull) {
    mbd_gemv(0, n, n, 1.0, S->sfull, n, tmp, 1.0, vdot);
  } else {
    mbd_tri_solve_lt(n, S->lchol, n, tmp);
    for (int i = 0; i < n; i++) {
      vdot[i] += tmp[i];
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the formulation for models                                                                  */

typedef struct mbd_uk {
  int n, m;             /* coordinates, constraint rows (all) */
  double *mih;          /* n: diagonal of M^(−1/2) (planar) */
  double *a;            /* n: free acceleration M⁻¹Q */
  double *B, *X;        /* m×n Φq M^(−1/2) (ld m) and n×m its Moore–Penrose inverse (ld n) */
  double *r;            /* max(m, n) scratch */
  double *res;          /* m: b* − Φq a */
  double *S, *T;        /* m×m stabilization (ld m) */
  double *L;            /* spatial: n×n Cholesky factor of M̃ = M + Σ s (2p)(2p)ᵀ, else NULL */
  double *Qt;           /* spatial: n, Q̃ = Q + Σ s (2p) γ_norm */
  mbd_lsq_ws lsq;       /* SVD workspace, max(m, n) square */
} mbd_uk;

static void destroy(void *self) {
  mbd_uk *u = self;
  if (!u) {
    return;
  }
  void *ps[] = {u->mih, u->a, u->B, u->X, u->r, u->res, u->S, u->T, u->L, u->Qt};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&u->lsq);
  free(u);
}

static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  (void)d;
  *self = NULL;
  mbd_uk *u = calloc(1, sizeof *u);
  if (!u) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
  }
  u->n = m->nv;
  u->m = m->mrow;
  size_t n = (size_t)(u->n ? u->n : 1), mr = (size_t)(u->m ? u->m : 1);
  u->mih = calloc(n, sizeof(double));
  u->a = calloc(n, sizeof(double));
  u->B = calloc(mr * n, sizeof(double));
  u->X = calloc(mr * n, sizeof(double));
  u->r = calloc(mr > n ? mr : n, sizeof(double));
  u->res = calloc(mr, sizeof(double));
  u->S = calloc(mr * mr, sizeof(double));
  u->T = calloc(mr * mr, sizeof(double));
  int spatial = 0;
  for (int b = 1; b < m->nbody; b++) {
    // flexible bodies: M is not diagonal in a planar model either (the Cholesky path serves)
    spatial |= mbd_body_kind_get(m->body[b].kind)->nnorm > 0 || m->body[b].nmode > 0;
  }
  if (spatial) {
    u->L = calloc(n * n, sizeof(double));
    u->Qt = calloc(n, sizeof(double));
    if (!u->L || !u->Qt) {
      destroy(u);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
    }
  }
  int big = (int)(mr > n ? mr : n);
  if (!u->mih || !u->a || !u->B || !u->X || !u->r || !u->res || !u->S || !u->T ||
      mbd_lsq_alloc(&u->lsq, big, big, err) < 0) {
    destroy(u);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
  }
  // S, T: full matrices when given, else α I and β I
  if (o->stab_S || o->stab_T) {
    if (o->stab_n != u->m) {
      int rows = u->m;
      destroy(u);
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_UK_STAB, o->stab_n, o->stab_n, m->name, rows);
    }
    if (o->stab_S) {
      memcpy(u->S, o->stab_S, mr * mr * sizeof(double));
    }
    if (o->stab_T) {
      memcpy(u->T, o->stab_T, mr * mr * sizeof(double));
    }
  } else {
    for (int i = 0; i < u->m; i++) {
      MBD_AT(u->S, u->m, i, i) = o->alpha;
      MBD_AT(u->T, u->m, i, i) = o->beta;
    }
  }
  *self = u;
  return MBD_OK;
}

/* spatial: M̃ = L Lᵀ and a = M̃⁻¹ Q̃ (see the header) */
static int spatial_free_motion(mbd_uk *u, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = u->n;
  memcpy(u->L, d->M, (size_t)n * n * sizeof(double));
  memcpy(u->Qt, d->Q, (size_t)n * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    if (mbd_body_kind_get(m->body[b].kind)->nnorm == 0) {
      continue;
    }
    int a = m->block[m->body[b].block].vadr + 3;
    const double *p = d->q + m->block[m->body[b].block].qadr + 3, *pd = d->v + a,
                 *J = m->body[b].inertia;
    double s = (J[0] + J[4] + J[8]) / 3, gn = -2 * (pd[0] * pd[0] + pd[1] * pd[1] +
                                                    pd[2] * pd[2] + pd[3] * pd[3]);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        MBD_AT(u->L, n, a + i, a + j) += s * 4 * p[i] * p[j];
      }
      u->Qt[a + i] += s * 2 * p[i] * gn;
    }
  }
  int piv = mbd_chol_factor(n, u->L, n);
  if (piv != 0) {
    char what[96];
    mbd_model_coord_name(m, piv - 1, what, sizeof what);
    return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_UK_MASS, d->t, what);
  }
  memcpy(u->a, u->Qt, (size_t)n * sizeof(double));
  mbd_chol_solve(n, u->L, n, u->a, 1);
  return MBD_OK;
}

/* v̇ (and λ with want_lambda) at a state whose constraints (all rows) and forces are evaluated */
static int accel(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda, mbd_error *err) {
  int n = u->n, mr = u->m;
  if (u->L) {
    int rc = spatial_free_motion(u, m, d, err);
    if (rc < 0) {
      return rc;
    }
  } else {
    // free motion a = M⁻¹Q and M^(−1/2) (M diagonal in planar models)
    for (int i = 0; i < n; i++) {
      double mi = MBD_AT(d->M, n, i, i);
      u->a[i] = d->Q[i] / mi;
      u->mih[i] = 1.0 / sqrt(mi);
    }
  }
  memcpy(d->vdot, u->a, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  if (mr == 0) {
    d->have_dynamics = 1;
    return MBD_OK;
  }
  // b* − Φq a with b* = γ − S Φ̇ − T Φ (paper 004 eq 10), Φ̇ = Φq v + Φt
  double *phid = u->r;
  memcpy(phid, d->phit, (size_t)mr * sizeof(double));
  mbd_gemv(0, mr, n, 1.0, d->phiq, mr, d->v, 1.0, phid);
  double *res = u->res;
  memcpy(res, d->gamma, (size_t)mr * sizeof(double));
  mbd_gemv(0, mr, mr, -1.0, u->S, mr, phid, 1.0, res);
  mbd_gemv(0, mr, mr, -1.0, u->T, mr, d->phi, 1.0, res);
  mbd_gemv(0, mr, n, -1.0, d->phiq, mr, u->a, 1.0, res);
  // v̇ = a + M^(−1/2) (Φq M^(−1/2))⁺ res (spatial: L⁻ᵀ in place of M^(−1/2))
  mbd_uk_root S = {u->L ? NULL : u->mih, NULL, u->L};
  int rc = mbd_uk_solve(mr, n, d->phiq, &S, u->a, res, 1e-12, u->B, u->X, d->tmp_n, &u->lsq,
                        d->vdot);
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_UK_SVD, d->t);
  }
  if (want_lambda) {
    // Φqᵀ λ = Q − M v̇ (least squares, minimum norm over redundant rows)
    // (the true M and Q: the multipliers are those of the physical constraint forces)
    memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
    mbd_gemv(0, n, n, -1.0, d->M, n, d->vdot, 1.0, d->tmp_n);
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < mr; k++) {
        MBD_AT(u->X, n, i, k) = MBD_AT(d->phiq, mr, k, i);
      }
    }
    if (mbd_lsq_solve(&u->lsq, n, mr, u->X, n, d->tmp_n, d->lambda, 1e-12, NULL) != MBD_OK) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_UK_MULT_SVD, d->t);
    }
  }
  d->have_dynamics = 1;
  return MBD_OK;
}

/* v̇ and λ at an evaluated state (contacts: again with new friction forces; the SVD is taken
 * again, reuse is not used) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)reuse;
  return accel(self, m, d, want_lambda, err);
}

static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                int flags, mbd_error *err) {
  int solve = 0;
  int rc = mbd_form_prepare(m, d, NULL, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_FORM_LAMBDA, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y,
                 const int *found, mbd_error *err) {
  return mbd_contact_event(&mbd_form_udwadia_kalaba, self, solve_fn, NULL, m, d, t, y, found, err);
}

const mbd_form_ops mbd_form_udwadia_kalaba = {.name = "udwadia_kalaba",
                                              .create = create,
                                              .ny = mbd_cart_ny,
                                              .pack = mbd_cart_pack,
                                              .eval = eval,
                                              .deriv = mbd_cart_deriv,
                                              .ycoord = mbd_cart_ycoord,
                                              .nroot = mbd_contact_nroot,
                                              .roots = mbd_contact_roots,
                                              .event = event,
                                              .destroy = destroy};
