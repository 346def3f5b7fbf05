/* formulation "augmented": the index-1 Lagrange-multiplier system (paper 000 eq 1 and 13)
 *
 *   [ M   Φqᵀ ] [ q̈ ]   [ Q  ]
 *   [ Φq  0   ] [ λ  ] = [ γ* ]
 *
 * with γ* = γ (no correction; drift grows) or the Baumgarte-stabilized γ (baumgarte.c).
 * The reaction of a joint on a body is −Φqᵀλ restricted to that body's coordinates. */
#include <math.h>
#include <string.h>

#include "model_impl.h"

int mbd_dynamics_augmented(const mbd_model *m, mbd_data *d, const double *gamma_star,
                           mbd_error *err) {
  int n = m->n, ma = m->ma, N = n + ma;
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
  memcpy(d->augrhs, d->Q, (size_t)n * sizeof(double));
  memcpy(d->augrhs + n, gamma_star, (size_t)ma * sizeof(double));
  int piv = mbd_lu_factor(N, A, N, d->ipiv);
  d->lu_factorizations++;
  if (piv > 0) {
    char what[160];
    if (piv <= n) {
      mbd_model_coord_name(m, piv - 1, what, sizeof what);
    } else {
      mbd_model_row_name(m, m->active[piv - 1 - n], what, sizeof what);
    }
    return MBD_FAIL(err, MBD_E_SINGULAR,
                    "the leading matrix [M Φqᵀ; Φq 0] is singular at t = %g (zero pivot at %s): "
                    "the mechanism is in a singular configuration or a constraint is redundant",
                    d->t, what);
  }
  mbd_lu_solve(N, A, N, d->ipiv, d->augrhs, 1);
  memcpy(d->qdd, d->augrhs, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < ma; k++) {
    d->lambda[m->active[k]] = d->augrhs[n + k];
  }
  d->have_dynamics = 1;
  return MBD_OK;
}
