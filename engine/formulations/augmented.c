/* formulation "augmented": the index-1 Lagrange-multiplier system (paper 000 eq 1 and 13)
 *
 *   [ M   Φqᵀ ] [ v̇ ]   [ Q  ]
 *   [ Φq  0   ] [ λ  ] = [ γ* ]
 *
 * with γ* = γ (no correction; drift grows) or the Baumgarte-stabilized γ (baumgarte.c).
 * The reaction of a joint on a body is −Φqᵀλ restricted to that body's coordinates. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* build [M Φqᵀ; Φq 0] on the active rows and factor it; returns the LU status (0, the pivot, or
 * MBD_E_LAPACK) and the pivot ratio min|U_kk| / max|U_kk| in *ratio, the least pivot in *kmin.
 * The sparse form (formulations/sparse.c): KLU's factorization of the same matrix, its pivot ratio
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
  for (int j = 0; j < n; j++) {
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

/* a leading matrix whose pivot ratio has fallen below AUG_SINGULAR_REL times the run's first
 * one is nearly singular: σ² of a vanishing singular value σ of Φq M^(−1/2) (the run stops with
 * the singular-configuration message before the solve turns into rounding noise or NaN) */
#define AUG_SINGULAR_REL 1e-8
/* gcp leaves the LU for Gauss's principle (singular.c) below AUG_GAUSS_REL times that ratio */
#define AUG_GAUSS_REL 1e-4

double mbd_pivot_watch(mbd_data *d, int piv, double ratio) {
  if (d->aug_ratio0 == 0 && piv == 0) {
    d->aug_ratio0 = ratio;
  }
  // the scale of the singular-configuration tests: the run's first pivot ratio (a re-selection of
  // rows, which takes a new baseline, must not hide a configuration growing singular)
  if (d->aug_ratio_start == 0 && piv == 0) {
    d->aug_ratio_start = ratio;
  }
  double start = d->aug_ratio_start > 0 ? d->aug_ratio_start : ratio;
  // how near a singular configuration the run comes (the integration's evaluations: the driver
  // warns after a run that came near one without stopping)
  if (ratio < d->sing_ratio * start) {
    d->sing_ratio = ratio / start;
    d->sing_t = d->t;
  }
  return start;
}

/* the solve of eq 13, or for gcp (gauss = 1) Gauss's principle near a singular configuration */
static int dynamics(const mbd_model *m, mbd_data *d, const double *gamma_star, int gauss,
                    int want_lambda, mbd_error *err) {
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
    if (rs > 0) {
      if (gamma_star != d->gamma_a) {
        return MBD_RESELECTED;  // γ* was built from the old rows (baumgarte): the caller rebuilds
      }
      piv = factor(m, d, &ratio, &kmin, err);
      if (piv < 0) {
        return piv;
      }
    }
  }
  double start = mbd_pivot_watch(d, piv, ratio);
  // gcp's state is consistent (its analyses): near a singular configuration its accelerations
  // come from the SVD, which sees σ where the LU sees σ²
  d->gauss_solved = 0;
  if (gauss && mbd_gauss_applies(m) && (piv > 0 || ratio < AUG_GAUSS_REL * start)) {
    d->gauss_solved = 1;
    if (mbd_sparse_on(d)) {
      mbd_sparse_densify(m, d);  // the SVD of Gauss's principle is dense (near singularities only)
    }
    return mbd_dynamics_gauss(m, d, gamma_star, want_lambda, err);
  }
  // numerically singular: a pivot below 64 ε of the largest carries no digits, and a pivot ratio
  // fallen by AUG_SINGULAR_REL leaves no trustworthy ones; stop with the configuration named
  // rather than let the solve return noise or NaN
  char how[64];
  snprintf(how, sizeof how, "zero pivot");
  if (piv == 0 && ratio < 64 * DBL_EPSILON) {
    piv = kmin + 1;
    snprintf(how, sizeof how, "no significant digits in the pivot");
  } else if (piv == 0 && ratio < AUG_SINGULAR_REL * start) {
    piv = kmin + 1;
    snprintf(how, sizeof how, "pivot ratio %.1e, %.1e at the start,", ratio, start);
  }
  if (piv > 0) {
    char what[160];
    if (piv <= n) {
      mbd_model_coord_name(m, piv - 1, what, sizeof what);
    } else {
      mbd_model_row_name(m, d->active[piv - 1 - n], what, sizeof what);
    }
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_LEADING, d->t, how, what);
  }
  // paper 000 eq 13: one solve gives the accelerations and the multipliers of the active rows
  int N = n + d->ma;
  memcpy(d->augrhs, d->Q, (size_t)n * sizeof(double));
  memcpy(d->augrhs + n, gamma_star, (size_t)d->ma * sizeof(double));
  double rhs_max = 0;  // NaN stays NaN: then the overflow is the input's, not the matrix's
  for (int i = 0; i < N; i++) {
    rhs_max = fmax(rhs_max, fabs(d->augrhs[i])) + (isnan(d->augrhs[i]) ? NAN : 0);
  }
  if (mbd_sparse_on(d)) {
    mbd_kkt_solve(d, d->augrhs);
  } else {
    mbd_lu_solve(N, d->aug, N, d->ipiv, d->augrhs, 1);
  }
  // a solve that overflowed to NaN or infinity from a moderate right-hand side (the leading
  // matrix nearly singular in a way the pivot ratio did not show): the singular-configuration
  // stop, not a NaN in the state.  A force of 1e308 is left to the state's own check.
  for (int i = 0; i < N && rhs_max < 1e150; i++) {
    if (!isfinite(d->augrhs[i])) {
      char what[160];
      if (kmin < n) {
        mbd_model_coord_name(m, kmin, what, sizeof what);
      } else {
        mbd_model_row_name(m, d->active[kmin - n], what, sizeof what);
      }
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_LEADING, d->t,
                      "the solve overflowed, smallest pivot", what);
    }
  }
  memcpy(d->vdot, d->augrhs, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < d->ma; k++) {
    d->lambda[d->active[k]] = d->augrhs[n + k];
  }
  d->have_dynamics = 1;
  return MBD_OK;
}

void mbd_dynamics_augmented_again(const mbd_model *m, mbd_data *d, const double *gamma_star) {
  int n = m->nv, N = n + d->ma;
  memcpy(d->augrhs, d->Q, (size_t)n * sizeof(double));
  memcpy(d->augrhs + n, gamma_star, (size_t)d->ma * sizeof(double));
  if (mbd_sparse_on(d)) {
    mbd_kkt_solve(d, d->augrhs);
  } else {
    mbd_lu_solve(N, d->aug, N, d->ipiv, d->augrhs, 1);
  }
  memcpy(d->vdot, d->augrhs, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < d->ma; k++) {
    d->lambda[d->active[k]] = d->augrhs[n + k];
  }
  d->have_dynamics = 1;
}

int mbd_dynamics_augmented(const mbd_model *m, mbd_data *d, const double *gamma_star,
                           mbd_error *err) {
  return dynamics(m, d, gamma_star, 0, 1, err);
}

int mbd_dynamics_gcp(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                     mbd_error *err) {
  return dynamics(m, d, gamma_star, 1, want_lambda, err);
}

/* ------------------------------------------------------------------------------------------ */
/* the formulation                                                                             */

/* v̇ and λ at an evaluated state (contacts: again with new friction forces, reuse = 1) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)self, (void)want_lambda;
  if (reuse) {
    mbd_dynamics_augmented_again(m, d, d->gamma_a);
    return MBD_OK;
  }
  return mbd_dynamics_augmented(m, d, d->gamma_a, err);
}

/* its run state: only the linear solver chosen (everything else lives in the data) */
static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  *self = NULL;
  mbd_form_solver *s = calloc(1, sizeof *s);
  if (!s) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "simulate");
  }
  int rc = mbd_form_solver_init(s, m, d, o, MBD_FORM_AUGMENTED, err);
  if (rc < 0) {
    free(s);
    return rc;
  }
  *self = s;
  return MBD_OK;
}

static void destroy(void *self) { free(self); }

static void stats(const void *self, mbd_run_stats *st) { mbd_form_solver_stats(self, st); }

static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                int flags, mbd_error *err) {
  (void)self;
  int solve = 0;
  int rc = mbd_form_prepare(m, d, NULL, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_FORM_LAMBDA, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y,
                 const int *found, mbd_error *err) {
  // the switch's projections and impulses are written densely (rare): the sparse form steps
  // aside meanwhile, and the next evaluation analyses the new active rows
  int on = mbd_sparse_on(d);
  mbd_sparse_set(m, d, 0);
  int rc = mbd_contact_event(&mbd_form_augmented, self, solve_fn, NULL, m, d, t, y, found, err);
  mbd_sparse_set(m, d, on);
  return rc;
}

const mbd_form_ops mbd_form_augmented = {.name = "augmented",
                                         .create = create,
                                         .ny = mbd_cart_ny,
                                         .pack = mbd_cart_pack,
                                         .eval = eval,
                                         .deriv = mbd_cart_deriv,
                                         .ycoord = mbd_cart_ycoord,
                                         .nroot = mbd_contact_nroot,
                                         .roots = mbd_contact_roots,
                                         .event = event,
                                         .stats = stats,
                                         .destroy = destroy};
