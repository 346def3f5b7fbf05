/* the augmented solve: the index-1 Lagrange-multiplier system of formulation "augmented"
 * (augmented.c) factored and solved, dense or by KLU, with Gauss's principle near a singular
 * configuration, and the watch of the leading matrix's pivot ratio.  Apart from the formulation
 * because every Cartesian formulation and the contacts' fixed point and impulses (contact_dynamics.c) call
 * it: it calls nothing of formulations/ back, and the formulations built on it stand above. */
#include <math.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* build [M Φqᵀ; Φq 0] on the active rows and factor it; returns the LU status (0, the pivot, or
 * MBD_E_LAPACK) and the pivot ratio min|U_kk| / max|U_kk| in *ratio, the least pivot in *kmin.
 * The sparse form (formulations/linear_solver.c): KLU's factorization of the same matrix, its pivot ratio
 * and least pivot read the same way (a failure other than a singular matrix fills err). */
static int factor(const mbd_model *m, mbd_data *d, double *ratio, int *kmin, mbd_error *err) {
  if (mbd_sparse_on(d)) {
    d->lu_factorizations++;
    return mbd_kkt_factor(m, d, 0, ratio, kmin, err);
  }
  int n = m->nv, ma = d->ma, N = n + ma;
  int rc = mbd_data_dense(m, d, err);
  if (rc < 0) {
    return rc;
  }
  double *A = d->aug;
  // leading matrix: M in the top-left block, Φq below it and Φqᵀ beside it
  if (ma == 0) {
    memcpy(A, d->M, (size_t)n * n * sizeof(double));  // M alone (an open tree): one copy
  }
  for (int j = 0; j < n && ma > 0; j++) {
    memcpy(A + (size_t)j * N, d->M + (size_t)j * n, (size_t)n * sizeof(double));
    for (int i = 0; i < ma; i++) {
      double v = MBD_AT(d->phiq_a, ma, i, j);
      MBD_AT(A, N, n + i, j) = v;
      MBD_AT(A, N, j, n + i) = v;
    }
  }
  for (int j = n; j < N; j++) {
    for (int i = n; i < N; i++) {
      MBD_AT(A, N, i, j) = 0;
    }
  }
  int piv = mbd_lu_factor(N, A, N, d->ipiv);
  d->lu_factorizations++;
  // the pivot ratio: the conditioning the re-selection and the singular stop watch
  double lo = INFINITY, hi = 0;
  *kmin = 0;
  for (int k = 0; k < N; k++) {
    double u = fabs(MBD_AT(A, N, k, k));
    if (u < lo) {
      lo = u;
      *kmin = k;
    }
    hi = u > hi ? u : hi;
  }
  *ratio = hi > 0 ? lo / hi : 0;
  return piv;
}

/* below AUG_GAUSS_REL times the run's first pivot ratio the accelerations come from Gauss's
 * principle by SVD (singular.c), which sees σ where the LU sees σ² (σ a vanishing singular value
 * of Φq M^(−1/2)): every Cartesian formulation follows the motion through a singular
 * configuration on its branch.  Where the switch falls does not matter: above it the LU's
 * v̇ carries at least 12 digits (its error grows like ε/ratio, ratio ≥ 1e-4 of the start) and
 * both solves give the same v̇ to that accuracy, baumgarte's stabilization term aside, which
 * the SVD filters along vanishing directions (singular.c states the bound) */
#define AUG_GAUSS_REL 1e-4
/* and below this pivot ratio whatever the start (a run that starts at a singular configuration
 * has no regular baseline); a regular but badly scaled leading matrix gets the same v̇ from the SVD
 */
#define AUG_GAUSS_ABS 1e-12

double mbd_pivot_watch(mbd_data *d, int piv, double ratio) {
  d->aug_ratio = piv > 0 ? 0 : ratio;
  if (d->aug_ratio0 == 0 && piv == 0) {
    d->aug_ratio0 = ratio;
  }
  // the scale of the singular-configuration tests: the run's first pivot ratio (a re-selection of
  // rows, which takes a new baseline, must not hide a configuration growing singular)
  if (d->aug_ratio_start == 0 && piv == 0) {
    d->aug_ratio_start = ratio;
  }
  double start = d->aug_ratio_start > 0 ? d->aug_ratio_start : ratio;
  // how near a singular configuration the run comes (the integration's evaluations)
  if (ratio < d->sing_ratio * start) {
    d->sing_ratio = ratio / start;
    d->sing_t = d->t;
  }
  return start;
}

/* the solution [v̇; λ_a] of the leading system in d->augrhs into v̇ and λ (the inactive rows' 0):
 * the acceleration stage */
static inline void unpack(const mbd_model *m, mbd_data *d) {
  int n = m->nv;
  // (loops, not memcpy and memset: a small model's two numbers cost less than the calls)
  for (int i = 0; i < n; i++) {
    d->vdot[i] = d->augrhs[i];
  }
  for (int r = 0; r < m->mrow; r++) {
    d->lambda[r] = 0;
  }
  for (int k = 0; k < d->ma; k++) {
    d->lambda[d->active[k]] = d->augrhs[n + k];
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
}

/* the solve of eq 13 on the LU of the leading matrix, or Gauss's principle near a singular
 * configuration (a zero pivot, a pivot ratio fallen by AUG_GAUSS_REL, a solve that overflowed) */
static int dynamics(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                    mbd_error *err) {
  int n = m->nv;
  double ratio = 0;
  int kmin = 0;
  int piv = factor(m, d, &ratio, &kmin, err);
  if (piv < 0) {
    // (the sparse form and a dense workspace too large for memory fill err themselves)
    return mbd_sparse_on(d) || piv == MBD_E_NOMEM
               ? piv
               : MBD_FAIL(err, MBD_E_LAPACK, MSG_FORM_LAPACK_LEADING, n + d->ma, n + d->ma, d->t);
  }
  // rows set aside at assembly may be needed on this part of the motion: when the leading matrix
  // has become singular or its pivots have fallen by 1e3, choose the active rows again.  The
  // rows are consistent, so v̇ does not change with the choice; γ* must be re-read for the new set.
  if (d->ma < m->mrow && (piv > 0 || (d->aug_ratio0 > 0 && ratio < 1e-3 * d->aug_ratio0))) {
    if (mbd_sparse_on(d)) {
      mbd_sparse_densify(m, d);  // the re-selection's QR is dense (rare: pivots fallen by 1e3)
    }
    int rs = mbd_reselect_rows(m, d, err);
    if (rs < 0) {
      return rs;
    }
    // the new baseline is taken at the next factorization (so a genuinely singular stretch does
    // not re-run the QR at every evaluation)
    d->aug_ratio0 = 0;
    if (rs > 0 && gamma_star != d->gamma_a) {
      return MBD_RESELECTED;  // γ* was built from the old rows (baumgarte): the caller rebuilds
    }
    // the new rows' matrix — or the same rows' again: the re-selection's QR took the dense
    // workspace that held the factorization
    piv = factor(m, d, &ratio, &kmin, err);
    if (piv < 0) {
      return piv;
    }
  }
  double start = mbd_pivot_watch(d, piv, ratio);
  d->gauss_solved = 0;
  int gauss = piv > 0 || ratio < AUG_GAUSS_REL * start || ratio < AUG_GAUSS_ABS;
  if (!gauss) {
    // paper 000 eq 13: one solve gives the accelerations and the multipliers of the active rows
    int N = n + d->ma;
    double *b = d->augrhs;
    for (int i = 0; i < n; i++) {
      b[i] = d->Q[i];
    }
    for (int i = 0; i < d->ma; i++) {
      b[n + i] = gamma_star[i];
    }
    double rhs_max = 0;  // NaN stays NaN: then the overflow is the input's, not the matrix's
    for (int i = 0; i < N; i++) {
      // fmax(rhs_max, |b_i|) without the call: a NaN argument yields the other one
      double a = fabs(b[i]);
      rhs_max = (rhs_max >= a || isnan(a)) ? rhs_max : a;
      rhs_max += isnan(b[i]) ? NAN : 0;
    }
    if (mbd_sparse_on(d)) {
      mbd_kkt_solve(d, d->augrhs);
    } else {
      mbd_lu_solve(N, d->aug, N, d->ipiv, d->augrhs, 1);
    }
    // a solve that overflowed to NaN or infinity from a moderate right-hand side: the leading
    // matrix nearly singular in a way the pivot ratio did not show.  A force of 1e308 is left to
    // the state's own check.
    for (int i = 0; i < N && rhs_max < 1e150 && !gauss; i++) {
      gauss = !isfinite(d->augrhs[i]);
    }
  }
  if (gauss) {
    d->gauss_solved = 1;
    if (mbd_sparse_on(d)) {
      mbd_sparse_densify(m, d);  // the SVD of Gauss's principle is dense (near singularities only)
    }
    return mbd_dynamics_gauss(m, d, gamma_star, want_lambda, err);
  }
  unpack(m, d);
  return MBD_OK;
}

int mbd_dynamics_augmented_again(const mbd_model *m, mbd_data *d, const double *gamma_star,
                                 mbd_error *err) {
  if (d->gauss_solved) {
    return mbd_dynamics_gauss(m, d, gamma_star, 1, err);  // no LU to reuse
  }
  int n = m->nv, N = n + d->ma;
  memcpy(d->augrhs, d->Q, (size_t)n * sizeof(double));
  memcpy(d->augrhs + n, gamma_star, (size_t)d->ma * sizeof(double));
  if (mbd_sparse_on(d)) {
    mbd_kkt_solve(d, d->augrhs);
  } else {
    mbd_lu_solve(N, d->aug, N, d->ipiv, d->augrhs, 1);
  }
  unpack(m, d);
  return MBD_OK;
}

int mbd_dynamics_augmented(const mbd_model *m, mbd_data *d, const double *gamma_star,
                           mbd_error *err) {
  return dynamics(m, d, gamma_star, 1, err);
}

int mbd_dynamics_gcp(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                     mbd_error *err) {
  return dynamics(m, d, gamma_star, want_lambda, err);
}
