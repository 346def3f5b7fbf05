/* formulation "baumgarte": constraint stabilization (paper 000 eq 5–9)
 *
 *   Φ̈ + 2α Φ̇ + β² Φ = 0   ⇒   Φq v̇ = γ − 2α(Φq v + Φt) − β² Φ
 *
 * solved with the augmented system of augmented_solve.c.  α, β ≥ 0 are the user's choice (the
 * paper: 1..10); α = β = 0 is the plain augmented formulation. */
#include <stdlib.h>

#include "formulations.h"
#include "formulations_msg.h"

typedef struct baumgarte {
  mbd_aug_pass pass; /* singular configurations (augmented.c; first: the shared ops read it) */
  double alpha, beta;
  double *gstar;          /* mrow: the corrected γ* of the active rows */
  mbd_form_solver solver; /* dense or sparse (formulations/linear_solver.c) */
} baumgarte;

/* γ* = γ − 2α Φ̇ − β² Φ on the active rows (constraints evaluated and gathered) */
static void stabilized_gamma(const mbd_model *m, const mbd_data *d, double alpha, double beta,
                             double *gstar) {
  int n = m->nv;
  for (int k = 0; k < d->ma; k++) {
    double phidot = d->phit_a[k];
    if (mbd_sparse_on(d)) {
      phidot += mbd_sparse_row_dot(d, d->active[k], d->v);
    } else {
      for (int c = 0; c < n; c++) {
        phidot += MBD_AT(d->phiq_a, d->ma, k, c) * d->v[c];
      }
    }
    gstar[k] = d->gamma_a[k] - 2 * alpha * phidot - beta * beta * d->phi_a[k];
  }
}

static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  baumgarte *b = calloc(1, sizeof *b);
  double *g = calloc((size_t)(m->mrow ? m->mrow : 1), sizeof(double));
  if (!b || !g) {
    free(b);
    free(g);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "simulate");
  }
  b->alpha = o->alpha;
  b->beta = o->beta;
  b->gstar = g;
  int rc = mbd_form_solver_init(&b->solver, m, d, o, MBD_FORM_BAUMGARTE, err);
  if (rc == MBD_OK) {
    rc = mbd_aug_pass_init(&b->pass, m, d, o, &b->solver, err);
  }
  if (rc < 0) {
    free(g);
    free(b);
    return rc;
  }
  *self = b;
  return MBD_OK;
}

static void stats(const void *self, mbd_run_stats *st) {
  const baumgarte *b = self;
  mbd_form_solver_stats(&b->solver, st);
  mbd_aug_stats(self, st);
}

static void destroy(void *self) {
  baumgarte *b = self;
  if (b) {
    mbd_aug_pass_free(&b->pass);
    free(b->gstar);
    free(b);
  }
}

/* v̇ and λ at an evaluated state (contacts: again with new friction forces, reuse = 1) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)want_lambda;
  baumgarte *b = self;
  if (reuse) {
    return mbd_dynamics_augmented_again(m, d, b->gstar, err);
  }
  stabilized_gamma(m, d, b->alpha, b->beta, b->gstar);
  int rc = mbd_dynamics_augmented(m, d, b->gstar, err);
  if (rc == MBD_RESELECTED) {
    // the active rows were chosen again: the stabilized γ* follows the new rows
    stabilized_gamma(m, d, b->alpha, b->beta, b->gstar);
    rc = mbd_dynamics_augmented(m, d, b->gstar, err);
  }
  return rc;
}

static int eval_base(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  int solve = 0;
  int rc = mbd_aug_prepare(self, m, d, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_DERIV_LAMBDA, err);
}

static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
                mbd_error *err) {
  return mbd_aug_eval(self, eval_base, m, d, t, y, flags, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
                 mbd_error *err) {
  mbd_aug_pass *ps = self;
  if (found && ps->p) {
    return mbd_aug_pass_switch(ps, m, d, t, err);  // (no contacts beside a passage)
  }
  // written densely, as augmented's (augmented.c)
  int on = mbd_sparse_on(d);
  mbd_sparse_set(m, d, 0);
  int rc = mbd_contact_event(&mbd_form_baumgarte, self, solve_fn, NULL, m, d, t, y, found, err);
  mbd_sparse_set(m, d, on);
  return rc;
}

const mbd_form_ops mbd_form_baumgarte = {.name = "baumgarte",
                                         .create = create,
                                         .ny = mbd_aug_ny,
                                         .pack = mbd_aug_pack,
                                         .eval = eval,
                                         .deriv = mbd_aug_deriv,
                                         .ycoord = mbd_aug_ycoord,
                                         .step = mbd_aug_step,
                                         .nroot = mbd_aug_nroot,
                                         .roots = mbd_aug_roots,
                                         .roots_kinematic = mbd_aug_roots_kinematic,
                                         .event = event,
                                         .stats = stats,
                                         .destroy = destroy};
