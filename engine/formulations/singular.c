/* accelerations by Gauss's principle where the augmented system is (nearly) singular
 *
 * At a singular configuration the constraint Jacobian loses rank (a parallelogram four-bar flat
 * on its ground line: the instantaneous degrees of freedom jump) and the leading matrix
 * [M Φqᵀ; Φq 0] of paper 000 eq 13 becomes singular: the multipliers are no longer unique.  The
 * accelerations still are: v̇ minimizes (v̇ − a)ᵀ M (v̇ − a), a = M⁻¹Q, subject to Φq v̇ = γ (Gauss's
 * principle, paper 004 eq 5), which the Moore–Penrose inverse gives for any rank:
 *
 *   v̇ = a + S (Φq S)⁺ (γ − Φq a),   S Sᵀ = M⁻¹
 *
 * Near the configuration the LU of the leading matrix squares the conditioning (its smallest
 * pivot is about σ², σ the vanishing singular value of Φq S); the SVD sees σ itself.  augmented,
 * baumgarte and gcp use this in place of the LU there (augmented_solve.c), so that all of them
 * follow the motion through the configuration on its branch, whatever the round-off.
 *
 * The right-hand side γ* of augmented.c is split into its exact part γ and the stabilization
 * γ* − γ (baumgarte's −2αΦ̇ − β²Φ).  The exact part goes through the pseudo-inverse, dropping
 * singular values below GAUSS_RANK_TOL σ₁; the stabilization through the Tikhonov filter
 * σ/(σ² + μ²), μ = GAUSS_STAB_MU σ₁ — as 1/σ along well-conditioned directions, bounded by
 * 1/(2μ) along a vanishing one, where a drift of Φ would otherwise ask for an acceleration
 * growing like 1/σ and throw the mechanism onto the other branch of the configuration (the same
 * filter as udwadia_kalaba's).  Error bound: the filter changes the stabilization's acceleration
 * along direction k by the factor μ²/(σ_k² + μ²) ≤ 1, i.e. by at most the stabilization term
 * itself (β²|Φ| + 2α|Φ̇|, of the size of the run's drift), and only while σ_k < 10 μ.
 *
 * Spatial bodies (and the frames of flexible bodies): M is singular along the Euler parameters p;
 * s (2p)(2p)ᵀ is added to M and s (2p)(−2ṗᵀṗ) to Q (Udwadia & Phohomsiri's augmentation, as in
 * udwadia_kalaba.c), which changes the constraint force but not the motion; S = L⁻ᵀ with
 * M̃ = L Lᵀ (Cholesky).
 *
 * A mechanism that is locked — its acceleration equations inconsistent where Φq has lost rank
 * (a drive pushing a crank through its dead centre) — has no motion to follow: the part of
 * γ − Φq a outside the range of Φq stays of the size of γ itself, where a passage (consistent
 * up to the drift of the run) leaves only the drift.  The run stops when that part exceeds
 * GAUSS_LOCK_REL of the right-hand side's scale: a margin of many orders over round-off (1e-16)
 * and over a drift within the run's tolerances. */
#include <math.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* singular values of Φq S below this (relative to the largest) are taken as zero */
#define GAUSS_RANK_TOL 1e-10
/* μ of the stabilization's Tikhonov filter, relative to the largest singular value */
#define GAUSS_STAB_MU 1e-3
/* a rank-deficient Φq whose acceleration equations miss by more than this part of their scale:
 * a locked mechanism */
#define GAUSS_LOCK_REL 1e-3

int mbd_gauss_free_motion(const mbd_model *m, const mbd_data *d, double *L, double *diag, double *a,
                          mbd_uk_root *S) {
  int n = m->nv;
  int dense = 0;
  for (int b = 1; b < m->nbody; b++) {
    // planar rigid bodies have a diagonal M; everything else (Euler parameters, modes) is dense
    dense |= mbd_body_kind_get(m->body[b].kind)->nnorm > 0 || m->body[b].nmode > 0;
  }
  memcpy(a, d->Q, (size_t)n * sizeof(double));
  S->sfull = NULL;
  if (!dense) {
    // M is diagonal: a = M⁻¹Q, M^(−1/2) entry by entry
    for (int i = 0; i < n; i++) {
      double mi = MBD_AT(d->M, n, i, i);
      a[i] /= mi;
      diag[i] = 1.0 / sqrt(mi);
    }
    S->sdiag = diag;
    S->lchol = NULL;
    return 0;
  }
  memcpy(L, d->M, (size_t)n * n * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    if (mbd_body_kind_get(m->body[b].kind)->nnorm == 0) {
      continue;
    }
    int k = m->block[m->body[b].block].vadr + 3;
    const double *p = d->q + m->block[m->body[b].block].qadr + 3, *pd = d->v + k,
                 *J = m->body[b].inertia;
    double s = (J[0] + J[4] + J[8]) / 3,
           gn = -2 * (pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        MBD_AT(L, n, k + i, k + j) += s * 4 * p[i] * p[j];
      }
      a[k + i] += s * 2 * p[i] * gn;
    }
  }
  int piv = mbd_chol_factor(n, L, n);
  if (piv != 0) {
    return piv;
  }
  mbd_chol_solve(n, L, n, a, 1);
  S->sdiag = NULL;
  S->lchol = L;
  return 0;
}

void mbd_gauss_filter(int mr, int mn, const double *U, const double *sv, const double *res,
                      const double *rs, double rank_tol, double mu_rel, double *w) {
  double s1 = mn > 0 ? sv[0] : 0, cut = rank_tol * s1, mu2 = mu_rel * s1;
  mu2 *= mu2;
  for (int k = 0; k < mn; k++) {
    double y = 0;
    if (sv[k] > cut && sv[k] > 0) {
      double c = 0;
      for (int i = 0; i < mr; i++) {
        c += MBD_AT(U, mr, i, k) * res[i];
      }
      y = c / sv[k];
    }
    if (rs && sv[k] > 0) {  // (all rows zero: every contact open, σ₁ = μ = 0)
      double c = 0;
      for (int i = 0; i < mr; i++) {
        c += MBD_AT(U, mr, i, k) * rs[i];
      }
      y += c * sv[k] / (sv[k] * sv[k] + mu2);
    }
    w[k] = y;
  }
}

void mbd_gauss_apply(int n, const mbd_uk_root *S, const double *a, double *x, double *vdot) {
  memcpy(vdot, a, (size_t)n * sizeof(double));
  if (S->sdiag) {
    for (int i = 0; i < n; i++) {
      vdot[i] += S->sdiag[i] * x[i];
    }
  } else {
    mbd_tri_solve_lt(n, S->lchol, n, x);
    for (int i = 0; i < n; i++) {
      vdot[i] += x[i];
    }
  }
}

void mbd_gauss_scale(int mr, int n, const double *C, const mbd_uk_root *S, double *B) {
  if (S->sdiag) {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < mr; i++) {
        MBD_AT(B, mr, i, j) = MBD_AT(C, mr, i, j) * S->sdiag[j];
      }
    }
  } else {
    memcpy(B, C, (size_t)mr * n * sizeof(double));
    mbd_tri_right_solve_lt(mr, n, S->lchol, n, B, mr);
  }
}

/* the largest entry of the part of res outside the range of U's columns kept (σ_k above the
 * rank cut), and the row where it is; res itself is not changed (r is scratch of mr) */
static double inconsistency(int mr, int mn, const double *U, const double *sv, const double *res,
                            double *r, int *where) {
  memcpy(r, res, (size_t)mr * sizeof(double));
  double cut = mn > 0 ? GAUSS_RANK_TOL * sv[0] : 0;
  for (int k = 0; k < mn; k++) {
    if (!(sv[k] > cut && sv[k] > 0)) {
      continue;
    }
    double c = 0;
    for (int i = 0; i < mr; i++) {
      c += MBD_AT(U, mr, i, k) * res[i];
    }
    for (int i = 0; i < mr; i++) {
      r[i] -= c * MBD_AT(U, mr, i, k);
    }
  }
  double big = 0;
  *where = 0;
  for (int i = 0; i < mr; i++) {
    if (fabs(r[i]) > big) {
      big = fabs(r[i]);
      *where = i;
    }
  }
  return big;
}

/* Gauss's principle at the state of d (rows and forces evaluated): res = γ − Φq a of the active
 * rows, the stabilization rs (ma entries, or NULL) filtered */
static int gauss_at_state(const mbd_model *m, mbd_data *d, const double *rs, int want_lambda,
                          mbd_error *err) {
  int n = m->nv, ma = d->ma, mn = ma < n ? ma : n;
  int drc = mbd_data_dense(m, d, err);
  if (drc < 0) {
    return drc;
  }
  // workspace: L (n×n) at the head of aug, then B (ma×n) and the least-squares matrix X (n×ma)
  double *L = d->aug, *B = d->aug + (size_t)n * n, *X = B + (size_t)ma * n;
  double *a = d->augrhs, *res = d->augrhs + n;
  mbd_uk_root S;
  int piv = mbd_gauss_free_motion(m, d, L, d->tmp_n, a, &S);
  if (piv != 0) {
    char what[96];
    mbd_model_coord_name(m, piv > 0 ? piv - 1 : 0, what, sizeof what);
    return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_GAUSS_MASS, d->t, what);
  }
  // the exact part res = γ − Φq a
  memcpy(res, d->gamma_a, (size_t)ma * sizeof(double));
  mbd_gemv(0, ma, n, -1.0, d->phiq_a, ma, a, 1.0, res);
  mbd_gauss_scale(ma, n, d->phiq_a, &S, B);
  const double *U = NULL, *Vt = NULL;
  int rc = mbd_svd(&d->lsq, ma, n, B, ma, &U, &Vt);
  d->lu_factorizations++;
  d->gauss_evaluations++;
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_GAUSS_SVD, d->t);
  }
  const double *sv = d->lsq.s;
  // a locked mechanism: the acceleration equations inconsistent beyond any drift (see the top)
  if (mn > 0 && sv[mn - 1] <= GAUSS_RANK_TOL * sv[0]) {
    double scale = 0;
    for (int k = 0; k < ma; k++) {
      scale = fmax(scale, fabs(d->gamma_a[k]));
    }
    for (int k = 0; k < ma; k++) {
      scale = fmax(scale, fabs(res[k]));
    }
    int where = 0;
    double miss = inconsistency(ma, mn, U, sv, res, X, &where);
    if (miss > GAUSS_LOCK_REL * scale && miss > 0) {
      char what[160];
      mbd_model_row_name(m, d->active[where], what, sizeof what);
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_LOCKED, d->t, what, miss / scale);
    }
  }
  // v̇ = a + S V y (y: the pseudo-inverse on res, the filter on rs)
  double *w = X, *x = X + mn;
  mbd_gauss_filter(ma, mn, U, sv, res, rs, GAUSS_RANK_TOL, GAUSS_STAB_MU, w);
  mbd_gemv(1, mn, n, 1.0, Vt, mn, w, 0.0, x);
  mbd_gauss_apply(n, &S, a, x, d->vdot);
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  if (want_lambda && ma > 0) {
    // Φqᵀ λ = Q − M v̇ by least squares: the minimum-norm multipliers (not unique here)
    memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
    mbd_gemv(0, n, n, -1.0, d->M, n, d->vdot, 1.0, d->tmp_n);
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < ma; k++) {
        MBD_AT(X, n, i, k) = MBD_AT(d->phiq_a, ma, k, i);
      }
    }
    if (mbd_lsq_solve(&d->lsq, n, ma, X, n, d->tmp_n, d->tmp_m, GAUSS_RANK_TOL, NULL) != MBD_OK) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_GAUSS_SVD, d->t);
    }
    for (int k = 0; k < ma; k++) {
      d->lambda[d->active[k]] = d->tmp_m[k];
    }
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

int mbd_dynamics_gauss(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                       mbd_error *err) {
  int drc = mbd_data_dense(m, d, err);
  if (drc < 0) {
    return drc;
  }
  // the stabilization γ* − γ (baumgarte), filtered apart from the exact part
  double *rs = NULL;
  if (gamma_star != d->gamma_a) {
    rs = d->grs;
    for (int k = 0; k < d->ma; k++) {
      rs[k] = gamma_star[k] - d->gamma_a[k];
    }
  }
  return gauss_at_state(m, d, rs, want_lambda, err);
}
