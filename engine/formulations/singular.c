/* accelerations by Gauss's principle where the augmented system is (nearly) singular
 *
 * At a singular configuration the constraint Jacobian loses rank (a parallelogram four-bar flat
 * on its ground line: the instantaneous degrees of freedom jump) and the leading matrix
 * [M Φqᵀ; Φq 0] of paper 000 eq 13 becomes singular: the multipliers are no longer unique.  The
 * accelerations still are: v̇ minimizes (v̇ − a)ᵀ M (v̇ − a), a = M⁻¹Q, subject to Φq v̇ = γ (Gauss's
 * principle, paper 004 eq 5), which the Moore–Penrose inverse gives for any rank:
 *
 *   v̇ = a + M^(−1/2) (Φq M^(−1/2))⁺ (γ − Φq a)
 *
 * Near the configuration the LU of the leading matrix squares the conditioning (its smallest
 * pivot is about σ², σ the vanishing singular value of Φq M^(−1/2)); the SVD sees σ itself.  gcp
 * (whose state is consistent: partition.c's analyses) uses this in place of the LU there.
 * Spatial bodies: M is singular along the Euler parameters p; as in udwadia_kalaba.c, s (2p)(2p)ᵀ
 * is added to M and s (2p)(−2ṗᵀṗ) to Q, which changes the constraint force but not the motion. */
#include <math.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* singular values of Φq M^(−1/2) below this (relative to the largest) are taken as zero */
#define GAUSS_RANK_TOL 1e-10

int mbd_gauss_applies(const mbd_model *m) {
  // M block-diagonal of rigid bodies (diagonal planar, 7×7 spatial): flexible bodies are not
  // written here, they keep the LU and its singular-configuration stop
  for (int b = 1; b < m->nbody; b++) {
    int k = m->body[b].kind;
    if (k != MBD_BODY_RIGID2 && k != MBD_BODY_RIGID3) {
      return 0;
    }
  }
  return 1;
}

int mbd_dynamics_gauss(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                       mbd_error *err) {
  int n = m->nv, ma = d->ma;
  int drc = mbd_data_dense(m, d, err);
  if (drc < 0) {
    return drc;
  }
  // workspace: L (n×n, spatial) at the head of aug, then B (ma×n) and X (n×ma)
  double *L = d->aug, *B = d->aug + (size_t)n * n, *X = B + (size_t)ma * n;
  double *a = d->augrhs, *res = d->augrhs + n;
  int spatial = 0;
  for (int b = 1; b < m->nbody; b++) {
    spatial |= mbd_body_kind_get(m->body[b].kind)->nnorm > 0;
  }
  mbd_uk_root S = {NULL, NULL, NULL};
  memcpy(a, d->Q, (size_t)n * sizeof(double));
  if (!spatial) {
    // M is diagonal (planar rigid bodies): a = M⁻¹Q, M^(−1/2) entry by entry (in tmp_n)
    for (int i = 0; i < n; i++) {
      double mi = MBD_AT(d->M, n, i, i);
      a[i] /= mi;
      d->tmp_n[i] = 1.0 / sqrt(mi);
    }
    S.sdiag = d->tmp_n;
  } else {
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
      char what[96];
      mbd_model_coord_name(m, piv > 0 ? piv - 1 : 0, what, sizeof what);
      return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_UK_MASS, d->t, what);
    }
    mbd_chol_solve(n, L, n, a, 1);
    S.lchol = L;
  }
  // res = γ* − Φq a, then v̇ = a + S (Φq S)⁺ res
  memcpy(res, gamma_star, (size_t)ma * sizeof(double));
  mbd_gemv(0, ma, n, -1.0, d->phiq_a, ma, a, 1.0, res);
  int rc = mbd_uk_solve(ma, n, d->phiq_a, &S, a, res, GAUSS_RANK_TOL, B, X, d->tmp_m, &d->lsq,
                        d->vdot);
  d->lu_factorizations++;
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_GAUSS_SVD, d->t);
  }
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
  d->have_dynamics = 1;
  return MBD_OK;
}
