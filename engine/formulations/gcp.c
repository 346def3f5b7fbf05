/* formulation "gcp": generalized coordinate partitioning (Wehage–Haug; paper 000 eq 10–13)
 *
 * partition.c gives a consistent state (position and velocity analyses on the dependent
 * coordinates); the accelerations of all coordinates come from the full augmented system
 * [M Φqᵀ; Φq 0][v̇; λ] = [Q; γ] (eq 13), and only v̇_i is handed to the integrator.  Every op but
 * the solve is shared with kane (partition.c).  Near a singular configuration the accelerations
 * come from Gauss's principle by SVD (singular.c), the same v̇ computed without squaring the
 * conditioning. */
#include "formulations.h"

/* v̇ and λ at an evaluated state (contacts: again with new friction forces, reuse = 1: the LU
 * serves again unless the last solve was Gauss's principle, d->gauss_solved) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)self;
  if (reuse) {
    return mbd_dynamics_augmented_again(m, d, d->gamma_a, err);
  }
  return mbd_dynamics_gcp(m, d, d->gamma_a, want_lambda, err);
}

/* after a contact event: the partition of the new active rows */
static int rebase(void *self, const mbd_model *m, mbd_data *d, mbd_error *err) {
  return mbd_part_choose(self, m, d, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
                 mbd_error *err) {
  return mbd_contact_event(&mbd_form_gcp, self, solve_fn, rebase, m, d, t, y, found, err);
}

static int eval_base(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  int solve = 0;
  int rc = mbd_form_prepare(m, d, self, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_DERIV_LAMBDA, err);
}

/* (across the window of a singular configuration: partition.c) */
static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
                mbd_error *err) {
  return mbd_part_windowed(self, self, eval_base, m, d, t, y, flags, err);
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
                                   .nroot = mbd_contact_nroot,
                                   .roots = mbd_contact_roots,
                                   .event = event,
                                   .stats = mbd_partitioned_stats,
                                   .destroy = mbd_partitioned_destroy};
