/* formulation "augmented": the index-1 Lagrange-multiplier system (paper 000 eq 1 and 13)
 *
 *   [ M   Φqᵀ ] [ v̇ ]   [ Q  ]
 *   [ Φq  0   ] [ λ  ] = [ γ* ]
 *
 * with γ* = γ (no correction; drift grows) or the Baumgarte-stabilized γ (baumgarte.c).
 * The reaction of a joint on a body is −Φqᵀλ restricted to that body's coordinates.  The solve
 * of that system, which the other Cartesian formulations and the contacts call too, is
 * augmented_solve.c; here are the formulation's ops, the passage of singular configurations and
 * the ops augmented and baumgarte share. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* the passage of singular configurations                                                      */

/* augmented and baumgarte integrate every coordinate, so their state y drifts off the constraints
 * by the integration error δ.  Near a crossing of two branches of a singular configuration the
 * level set Φ(q) = δ does not cross: it turns from one branch onto the other within about √δ
 * of the configuration, and accelerations that hold Φ̈ = 0 follow it — which branch, hangs on the
 * sign of round-off (paper 000's "CS drifts away there").  Projecting y back does not cure it: at
 * the configuration the velocities' projection divides round-off by σ², and an integrator
 * holding every coordinate to rtol creeps there.  So the passage is made as gcp makes it: when
 * the least singular value of Φq (relative to its largest) falls below AUG_ENTER_REL of its value
 * at the start (a root function, located by the integrator), the state is projected onto the
 * constraints and the integration goes on in the independent coordinates of a partition
 * (partition.c, gcp's accelerations), re-partitioned as gcp does; when it is back above
 * AUG_LEAVE_REL of the start, every coordinate is integrated again from the consistent state.
 * The entry leaves the integrator, which restarts there at order one, room to grow its steps
 * before the configuration (at AUG_ENTER_REL = 1e-2 it crept at the configuration itself).  The
 * singular values are computed only where the leading matrix's pivot ratio has fallen below
 * AUG_PREFILTER_REL of the run's first (it falls about as σ: a generous filter).  Away from
 * singular configurations the formulations keep their own character (augmented's drift,
 * baumgarte's damping).  Models with contacts or many coordinates keep every coordinate (the rows
 * change with the contact modes; assumption: contact runs and models of more than AUG_PASS_MAX_NV
 * coordinates do not pass singular configurations of their joints); their accelerations near a
 * singular configuration still come from Gauss's principle. */
#define AUG_ENTER_REL 1e-1
#define AUG_LEAVE_REL 2e-1
#define AUG_PREFILTER_REL 0.3
#define AUG_KEEP_REL 0.05
/* the passage is made for models of up to this many coordinates (the SVD of its test costs
 * O(nv³) where the filter lets it through) */
#define AUG_PASS_MAX_NV 300

/* σ_min / σ_max of the active rows of Φq (rows evaluated; the sparse form's copied out densely),
 * in the passage's workspace */
static double sv_ratio(mbd_aug_pass *ps, const mbd_data *d, int n) {
  const double *U = NULL, *Vt = NULL;
  int ma = d->ma, mn = ma < n ? ma : n;
  const double *J = d->phiq_a;
  if (mbd_sparse_on(d)) {
    const mbd_sparse *sp = d->sp;
    memset(ps->J, 0, (size_t)ma * n * sizeof(double));
    for (int k = 0; k < ma; k++) {
      for (int e = sp->rp[d->active[k]]; e < sp->rp[d->active[k] + 1]; e++) {
        MBD_AT(ps->J, ma, k, sp->ci[e]) = sp->val[e];
      }
    }
    J = ps->J;
  }
  if (mn == 0 || mbd_svd(&ps->lsq, ma, n, J, ma, &U, &Vt) != MBD_OK) {
    return 1;
  }
  return ps->lsq.s[0] > 0 ? ps->lsq.s[mn - 1] / ps->lsq.s[0] : 0;
}

int mbd_aug_pass_init(mbd_aug_pass *ps, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                      const mbd_form_solver *solver, mbd_error *err) {
  memset(ps, 0, sizeof *ps);
  if (m->ncontact > 0 || m->njfric > 0 || d->ma == 0 || m->nv > AUG_PASS_MAX_NV) {
    return MBD_OK;
  }
  mbd_error e;
  mbd_error_clear(&e);
  int big = m->nv > m->mrow ? m->nv : m->mrow;
  if (mbd_part_alloc(&ps->p, m, d, o, &e) != MBD_OK) {
    // (a model partitioning cannot take: no passage, the accelerations by Gauss's principle)
    return e.code == MBD_E_NOMEM ? MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "simulate") : MBD_OK;
  }
  ps->J = calloc((size_t)big * big, sizeof(double));
  ps->w = calloc((size_t)(m->nv ? m->nv : 1), sizeof(double));
  if (!ps->J || !ps->w || mbd_lsq_alloc(&ps->lsq, big, big, err) != MBD_OK) {
    mbd_aug_pass_free(ps);
    memset(ps, 0, sizeof *ps);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "simulate");
  }
  ps->p->solver = *solver;
  ps->d_int = d;
  // the scale: Φq's conditioning at the start (rows evaluated); a start at a singular
  // configuration has no passage to make from there (its accelerations by Gauss's principle)
  ps->sv0 = sv_ratio(ps, d, m->nv);
  return MBD_OK;
}

void mbd_aug_pass_free(mbd_aug_pass *ps) {
  mbd_part_free(ps->p);
  mbd_lsq_free(&ps->lsq);
  free(ps->J);
  free(ps->w);
}

int mbd_aug_pass_switch(mbd_aug_pass *ps, const mbd_model *m, mbd_data *d, double t,
                        mbd_error *err) {
  (void)t;
  if (!ps->on) {
    // into the passage: the consistent state nearest y, then its partition
    int rc = mbd_position_project(m, d, ps->p->position_tol, ps->p->max_newton, err);
    if (rc == MBD_OK) {
      rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_velocity_analysis(m, d, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    }
    // the independent coordinates: those that move most (the QR's columns weighted by
    // 1 / (0.1 + |v_c| / max |v|), the moving ones last), so that the passage goes through the
    // configuration along them — a coordinate that turns back there would make the partitioned
    // equations singular (measured: the relative chain's passage crept with the QR's own choice)
    if (rc == MBD_OK) {
      double vmax = 0;
      for (int c = 0; c < m->nv; c++) {
        vmax = fmax(vmax, fabs(d->v[c]));
      }
      for (int c = 0; c < m->nv; c++) {
        ps->w[c] = 1.0 / (0.1 + (vmax > 0 ? fabs(d->v[c]) / vmax : 0));
      }
      ps->p->colw = ps->w;
      rc = mbd_part_choose(ps->p, m, d, err);
      ps->p->colw = NULL;
    }
    if (rc != MBD_OK) {
      return rc < 0 ? rc : MBD_FAIL(err, MBD_E_NEWTON, MSG_FORM_PASSAGE, t);
    }
    ps->on = 1;
    ps->passages++;
  } else {
    ps->on = 0;  // out of it: every coordinate from the consistent state of the partition
  }
  return MBD_EVENT_RESIZED;
}

/* ------------------------------------------------------------------------------------------ */
/* the formulation                                                                             */

/* the ops augmented and baumgarte share: their run state starts with its mbd_aug_pass */
int mbd_aug_ny(const void *self, const mbd_model *m) {
  const mbd_aug_pass *ps = self;
  return ps->on ? mbd_partitioned_ny(ps->p, m) : mbd_cart_ny(self, m);
}

void mbd_aug_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y) {
  const mbd_aug_pass *ps = self;
  if (ps->on) {
    mbd_partitioned_pack(ps->p, m, d, y);
  } else {
    mbd_cart_pack(self, m, d, y);
  }
}

void mbd_aug_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot) {
  const mbd_aug_pass *ps = self;
  if (ps->on) {
    mbd_partitioned_deriv(ps->p, m, d, ydot);
  } else {
    mbd_cart_deriv(self, m, d, ydot);
  }
}

int mbd_aug_ycoord(const void *self, const mbd_model *m, int i, int *accel) {
  const mbd_aug_pass *ps = self;
  return ps->on ? mbd_partitioned_ycoord(ps->p, m, i, accel) : mbd_cart_ycoord(self, m, i, accel);
}

/* re-partitioned as gcp does, but not within AUG_KEEP_REL of the start's σ ratio: near the
 * configuration every partition degrades alike, and a restart of the integrator there, at order
 * one, crept (the last root evaluation, at this step's end, holds the ratio) */
int mbd_aug_step(void *self, const mbd_model *m, mbd_data *d, double t, double *y, mbd_error *err) {
  mbd_aug_pass *ps = self;
  if (!ps->on || ps->sv_last < AUG_KEEP_REL * ps->sv0) {
    return 0;
  }
  return mbd_partitioned_step(ps->p, m, d, t, y, err);
}

int mbd_aug_prepare(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                    int flags, int *solve, mbd_error *err) {
  mbd_aug_pass *ps = self;
  return mbd_form_prepare(m, d, ps->on ? ps->p : NULL, t, y, flags, solve, err);
}

int mbd_aug_eval(void *self, mbd_part_base_fn base, const mbd_model *m, mbd_data *d, double t,
                 const double *y, int flags, mbd_error *err) {
  mbd_aug_pass *ps = self;
  return ps->on ? mbd_part_windowed(ps->p, self, base, m, d, t, y, flags, err)
                : base(self, m, d, t, y, flags, err);
}

int mbd_aug_roots_kinematic(const void *self, const mbd_model *m) {
  (void)self;
  return m->ncontact == 0 && m->njfric == 0;
}

int mbd_aug_nroot(const void *self, const mbd_model *m) {
  const mbd_aug_pass *ps = self;
  return mbd_contact_nroot(NULL, m) + (ps->p ? 1 : 0);
}

int mbd_aug_roots(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
                  mbd_error *err) {
  mbd_aug_pass *ps = self;
  int rc = mbd_contact_roots(self, m, d, t, g, err);
  if (rc < 0 || !ps->p) {
    return rc;
  }
  // log(σ ratio / (REL · its start)): negative inside the band of the passage; 1 where the
  // leading matrix is far from singular: its pivot ratio above the filter at the integration's
  // last evaluation (the roots of a model without contacts are evaluated on the kinematic state
  // only: roots_kinematic; the filter is generous, so which evaluation it reads does not matter)
  const mbd_data *di = ps->d_int;
  double *gp = g + mbd_contact_nroot(NULL, m), start = di->aug_ratio_start;
  *gp = 1;
  if (ps->sv0 > 0 && (ps->on || !(start > 0) || di->aug_ratio < AUG_PREFILTER_REL * start)) {
    double rel = ps->on ? AUG_LEAVE_REL : AUG_ENTER_REL;
    ps->sv_last = sv_ratio(ps, d, m->nv);
    *gp = log(fmax(ps->sv_last, 1e-300) / (rel * ps->sv0));
  }
  return MBD_OK;
}

void mbd_aug_stats(const void *self, mbd_run_stats *st) {
  const mbd_aug_pass *ps = self;
  st->singular_passages += ps->passages;
  if (ps->p) {
    st->repartitions += ps->p->repartitions;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the formulation                                                                             */

typedef struct augmented {
  mbd_aug_pass pass;      /* singular configurations (first: the shared ops read it) */
  mbd_form_solver solver; /* dense or sparse (formulations/linear_solver.c) */
} augmented;

/* v̇ and λ at an evaluated state (contacts: again with new friction forces, reuse = 1) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)self, (void)want_lambda;
  if (reuse) {
    return mbd_dynamics_augmented_again(m, d, d->gamma_a, err);
  }
  return mbd_dynamics_augmented(m, d, d->gamma_a, err);
}

/* its run state: the passage and the linear solver chosen (the rest is in the data) */
static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  *self = NULL;
  augmented *s = calloc(1, sizeof *s);
  if (!s) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "simulate");
  }
  int rc = mbd_form_solver_init(&s->solver, m, d, o, MBD_FORM_AUGMENTED, err);
  if (rc == MBD_OK) {
    rc = mbd_aug_pass_init(&s->pass, m, d, o, &s->solver, err);
  }
  if (rc < 0) {
    free(s);
    return rc;
  }
  *self = s;
  return MBD_OK;
}

static void destroy(void *self) {
  augmented *s = self;
  if (s) {
    mbd_aug_pass_free(&s->pass);
    free(s);
  }
}

static void stats(const void *self, mbd_run_stats *st) {
  const augmented *s = self;
  mbd_form_solver_stats(&s->solver, st);
  mbd_aug_stats(self, st);
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
