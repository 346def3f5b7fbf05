/* formulation "baumgarte": constraint stabilization (paper 000 eq 5–9)
 *
 *   Φ̈ + 2α Φ̇ + β² Φ = 0   ⇒   Φq q̈ = γ − 2α(Φq q̇ + Φt) − β² Φ
 *
 * solved with the augmented system of augmented.c.  α, β ≥ 0 are the user's choice (the paper:
 * 1..10); α = β = 0 is the plain augmented formulation. */
#include "formulations.h"

void mbd_baumgarte_gamma(const mbd_model *m, const mbd_data *d, double alpha, double beta,
                         double *gstar) {
  int n = m->n;
  for (int k = 0; k < m->ma; k++) {
    double phidot = d->phit_a[k];
    for (int c = 0; c < n; c++) {
      phidot += MBD_AT(d->phiq_a, m->ma, k, c) * d->qd[c];
    }
    gstar[k] = d->gamma_a[k] - 2 * alpha * phidot - beta * beta * d->phi_a[k];
  }
}
