/* formulation "gcp": generalized coordinate partitioning (Wehage–Haug; paper 000 eq 10–13)
 *
 * partition.c gives a consistent state (position and velocity analyses on the dependent
 * coordinates); the accelerations of all coordinates come from the full augmented system
 * [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ] (eq 13), and only q̈_i is handed to the integrator. */
#include "formulations.h"

int mbd_gcp_accel(const mbd_model *m, mbd_data *d, mbd_error *err) {
  return mbd_dynamics_augmented(m, d, d->gamma_a, err);
}
