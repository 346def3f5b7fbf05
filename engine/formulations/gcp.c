/* formulation "gcp": generalized coordinate partitioning (Wehage–Haug; paper 000 eq 10–13)
 *
 * partition.c gives a consistent state (position and velocity analyses on the dependent
 * coordinates); the accelerations of all coordinates come from the full augmented system
 * [M Φqᵀ; Φq 0][v̇; λ] = [Q; γ] (eq 13), and only v̇_i is handed to the integrator.  Every op but
 * the solve is shared with kane (partition.c).  Near a singular configuration the accelerations
 * come from Gauss's principle by SVD (singular.c), the same v̇ computed without squaring the
 * conditioning. */
#include "formulations.h"

static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                int flags, mbd_error *err) {
  int solve = 0;
  int rc = mbd_form_prepare(m, d, self, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_dynamics_gcp(m, d, d->gamma_a, flags & MBD_FORM_LAMBDA, err);
}

const mbd_form_ops mbd_form_gcp = {.name = "gcp",
                                   .check = mbd_partitioned_check,
                                   .create = mbd_partitioned_create,
                                   .ny = mbd_partitioned_ny,
                                   .pack = mbd_partitioned_pack,
                                   .eval = eval,
                                   .deriv = mbd_partitioned_deriv,
                                   .ycoord = mbd_partitioned_ycoord,
                                   .step = mbd_partitioned_step,
                                   .stats = mbd_partitioned_stats,
                                   .destroy = mbd_partitioned_destroy};
