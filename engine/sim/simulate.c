/* the simulation driver: a formulation (looked up by its number: formulations/formulations.h),
 * an integrator (the lifecycle of mbd/integrators.h) and a recorder, run in segments between
 * events.
 *
 * The state's path: the integrator's y → ops->eval on the integration data d (y unpacked, poses,
 * rows, forces, accelerations) → ops->deriv → y'.  After each accepted step ops->step may change
 * y (a re-partition) and restart the integrator.  Samples and root functions are evaluated on a
 * second data ds that starts from a copy of d, so recording never touches the integration state:
 * the trajectory does not depend on output_every.  The default sampling (output_every 0) follows
 * the motion: every t_end/500 and, between those, at the accepted steps at least
 * t_end/MBD_SIM_STEP_SAMPLES apart (a pendulum over 1000 s: about 20 samples a period, where
 * t_end/500 alone gave one every 2 s for a 2.1 s period).  The default formulation
 * (MBD_FORM_DEFAULT) is resolved here, on the assembled model: kane, or baumgarte with a note.  Root functions (the formulation's own and the
 * user's stop_when) end a segment exactly at their zero; the driver then records, switches or
 * stops, and restarts the integrator (with a new state size if the formulation changed it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formulations/formulations.h"
#include "mbd/formulation.h"
#include "mbd/integrators.h"
#include "run_impl.h"
#include "sim_msg.h"

void mbd_sim_opts_default(mbd_sim_opts *o) {
  memset(o, 0, sizeof *o);
  o->t_end = 1;
  o->formulation = MBD_FORM_DEFAULT;
  // the integrators' defaults (atol looser than theirs: coordinates of order one)
  mbd_ode_opts_default(&o->ode, MBD_INT_ADAMS);
  o->ode.atol = 1e-6;
  o->position_tol = 1e-8;
  o->max_newton = 25;
  o->alpha = 5;
  o->beta = 5;
  o->output_every = 0;  // 0: every t_end / 500 and at the accepted steps
  // joint coordinates: the table's solver (closed loops by partitioning)
  o->solver = mbd_formulation_info_of(mbd_formulation_with(MBD_FCAP_JOINT_COORDS))->solver;
  o->code = MBD_CODE_NUMERIC;
}

typedef struct sim {
  const mbd_model *m;
  const mbd_sim_opts *o;
  const mbd_form_ops *ops;
  void *self;   /* the formulation's run state */
  mbd_data *d;  /* the integration's state */
  mbd_data *ds; /* samples and root functions: a copy of d's state, d never touched */
  mbd_run *run;
  mbd_error *err;
  int ny;         /* integrated state size */
  int nroot_form; /* the formulation's root functions (first in g), then stop_when */
  int *found;     /* nroot_form + 1: which root functions crossed zero at a root return */
  double max_pos, max_vel;
  double stall_t; /* the time where the current window of accepted steps began */
  long stall_n;   /* accepted steps in that window */
  double t_last;  /* the last sample's time (−∞ before the first) */
  double h_step;  /* default sampling: accepted steps at least this far apart are recorded (0: off) */
  /* what ds holds: its evaluation at (tkey, ykey) with flags fkey, copied from d when d had made
   * gen evaluations (gkey); key_ok 0: nothing to reuse (eval_sampling) */
  long gen;       /* evaluations of d and changes of the formulation's state so far */
  double *ykey;   /* ny */
  double tkey;
  int fkey, key_ok;
  long gkey;
  long reused;    /* sampling evaluations kept (a step's sample after its root functions) */
  long nsample_eval; /* sampling evaluations done */
} sim;

/* a stalled integration: SIM_STALL_STEPS accepted steps that together advance t by less than
 * SIM_STALL_SPAN·t_end (average steps below 5e-11·t_end).  Near a singular configuration the
 * rounding errors of an evaluation grow like 1/σ² and, below some distance, exceed a tight
 * tolerance: the integrator then creeps toward the configuration with ever shorter accepted
 * steps for hours.  The run stops with a message instead. */
#define SIM_STALL_STEPS 20000
/* the relative pivot ratio of the augmented LU below which a run is warned of a singular
 * configuration it passed (about σ ~ 1e-2 of a vanishing singular value) */
#define SIM_NEAR_SINGULAR 1e-4
/* default samples wider on average than this many of the integrator's average steps (a run of
 * more steps than the default keeps): the recorded motion may alias */
#define SIM_ALIAS_STEPS 10
/* the default sampling's budget of recorded values (samples × channels) at the accepted steps:
 * 32 MB, so that a model of many channels takes fewer step samples instead of failing to fit */
#define SIM_STEP_VALUES 4e6
#define SIM_STALL_SPAN 1e-6

/* y' = f(t, y) on the integration data.  0, > 0 retry a smaller step, < 0 stop. */
static int rhs(double t, const double *y, double *ydot, void *ud) {
  sim *s = ud;
  s->gen++;
  int rc = s->ops->eval(s->self, s->m, s->d, t, y, 0, s->err);
  if (rc != 0) {
    return rc;
  }
  s->ops->deriv(s->self, s->m, s->d, ydot);
  for (int i = 0; i < s->ny; i++) {
    if (!isfinite(ydot[i])) {
      char what[96];
      int accel = 0;
      // the coordinates y holds may be the formulation's own (relative: joint coordinates)
      const mbd_model *ym = s->ops->ymodel ? s->ops->ymodel(s->self) : s->m;
      mbd_model_coord_name(ym, s->ops->ycoord(s->self, ym, i, &accel), what, sizeof what);
      return MBD_FAIL(s->err, MBD_E_NAN, MSG_SIM_STATE_NAN, accel ? "acceleration" : "velocity",
                      what, ydot[i], t);
    }
  }
  return 0;
}

/* the sampling data ds evaluated at (t, y) with flags from a copy of the integration data d —
 * or kept as it is when its last evaluation was that one: the same t, y and flags, and d not
 * evaluated since it was copied (a step's root functions, then that step's sample, at the step's
 * end).  The same evaluation of the same copy: the same numbers, one evaluation less. */
static int eval_sampling(sim *s, double t, const double *y, int flags) {
  if (s->key_ok && s->tkey == t && s->fkey == flags && s->gkey == s->gen &&
      memcmp(s->ykey, y, (size_t)s->ny * sizeof(double)) == 0) {
    s->reused++;
    return 0;
  }
  s->nsample_eval++;
  s->key_ok = 0;
  mbd_data_copy_state(s->m, s->ds, s->d);
  int rc = s->ops->eval(s->self, s->m, s->ds, t, y, flags, s->err);
  if (rc == 0) {
    memcpy(s->ykey, y, (size_t)s->ny * sizeof(double));
    s->tkey = t;
    s->fkey = flags;
    s->gkey = s->gen;
    s->key_ok = 1;
  }
  return rc;
}

/* a sample at (t, y): evaluated with multipliers on the sampling data, recorded */
static int sample(sim *s, double t, const double *y) {
  int rc = eval_sampling(s, t, y, MBD_DERIV_LAMBDA | MBD_DERIV_SAMPLE);
  if (rc > 0) {
    return s->err->code < 0 ? s->err->code : MBD_E_NEWTON;  // no retry for an output sample
  }
  if (rc < 0) {
    return rc;
  }
  if (s->o->poll) {
    rc = s->o->poll(s->o->poll_ud, t, s->err);
    if (rc < 0) {
      return rc;
    }
  }
  s->max_pos = fmax(s->max_pos, mbd_position_violation(s->m, s->ds));
  s->max_vel = fmax(s->max_vel, mbd_velocity_violation(s->m, s->ds));
  s->t_last = t;
  return mbd_run_record(s->run, s->m, s->ds, s->err);
}

/* a sample of the grid, unless the default sampling took one at that time already (the step
 * that ends on a grid time is recorded before the grid's output there) */
static int output(double t, const double *y, void *ud) {
  sim *s = ud;
  return t > s->t_last ? sample(s, t, y) : 0;
}

/* after every accepted step: the default sampling's sample, the stall watch, then the
 * formulation's hook (gcp, kane: re-partition; the sample is taken before it, in the partition
 * y was integrated in) */
static int step(double t, double *y, void *ud) {
  sim *s = ud;
  if (s->h_step > 0 && t >= s->t_last + s->h_step && t < s->o->t_end) {
    int rc = sample(s, t, y);
    if (rc < 0) {
      return rc;
    }
  }
  if (++s->stall_n >= SIM_STALL_STEPS) {
    if (t - s->stall_t < SIM_STALL_SPAN * s->o->t_end) {
      return MBD_FAIL(s->err, MBD_E_INTEGRATOR, MSG_SIM_STALLED, t, (long)SIM_STALL_STEPS,
                      t - s->stall_t, s->o->ode.rtol, s->o->ode.atol);
    }
    s->stall_t = t;
    s->stall_n = 0;
  }
  s->gen++;  // (a re-partition changes what y means)
  return s->ops->step ? s->ops->step(s->self, s->m, s->d, t, y, s->err) : 0;
}

/* root functions on the sampling data: the formulation's own, then stop_when */
static int roots(double t, const double *y, double *g, void *ud) {
  sim *s = ud;
  int dyn = s->nroot_form && !(s->ops->roots_kinematic && s->ops->roots_kinematic(s->self, s->m));
  int flags = MBD_DERIV_SAMPLE | (dyn ? MBD_DERIV_LAMBDA : MBD_DERIV_KINEMATIC);
  int rc = eval_sampling(s, t, y, flags);
  if (rc != 0) {
    return rc < 0 ? rc : (s->err->code < 0 ? s->err->code : MBD_E_NEWTON);
  }
  if (s->nroot_form) {
    rc = s->ops->roots(s->self, s->m, s->ds, t, g, s->err);
    if (rc < 0) {
      return rc;
    }
  }
  if (s->o->stop_fn) {
    double *gs = g + s->nroot_form;
    rc = s->o->stop_fn(s->o->stop_ud, t, s->m, s->ds, gs, s->err);
    if (rc < 0) {
      return rc;
    }
    if (!isfinite(*gs)) {
      return MBD_FAIL(s->err, MBD_E_NAN, MSG_SIM_STOP_NAN, *gs, t);
    }
  }
  return 0;
}

int mbd_sim_default_formulation(const mbd_model *m, char *why, size_t len) {
  why[0] = 0;
  // kane keeps the constraints (its position and velocity analyses hold them to position_tol at
  // every evaluation) and takes the fewest evaluations on closed loops; baumgarte holds them by
  // stabilization where kane does not serve: nothing to integrate in a fully driven model,
  // coordinates it cannot partition, and redundant rows (a parallelogram with a third crank:
  // kane and gcp stop where the rows kept at assembly lie flat, at rtol 1e-8 and 1e-10;
  // baumgarte passes).  Flexible bodies: kane (partition.c keeps their modal coordinates
  // independent, PART_MODAL_WEIGHT)
  mbd_model_info in;
  mbd_model_get_info(m, &in);
  if (in.dof <= 0) {
    snprintf(why, len, MSG_SIM_DEFAULT_NO_DOF, m->name);
  } else if (in.nredundant > 0) {
    snprintf(why, len, MSG_SIM_DEFAULT_REDUNDANT, m->name, in.nredundant);
  } else if (m->nqi != m->nv) {
    snprintf(why, len, MSG_SIM_DEFAULT_COORDS, m->name);
  } else {
    return mbd_formulation_with(MBD_FCAP_DEFAULT);
  }
  return mbd_formulation_with(MBD_FCAP_FALLBACK);
}

static int check_opts(const mbd_model *m, const mbd_sim_opts *o, const mbd_form_ops **ops,
                      mbd_error *err) {
  if (!(o->t_end > 0) || !isfinite(o->t_end)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_T_END, o->t_end);
  }
  // generated code (paper 002) runs through the relative formulation's machinery, also for the
  // Cartesian formulations (the tree with every joint cut has their coordinates and rows); the
  // default is checked as kane before assembly, then as what it resolves to (mbd_sim_run)
  int f =
      o->formulation == MBD_FORM_DEFAULT ? mbd_formulation_with(MBD_FCAP_DEFAULT) : o->formulation;
  *ops = mbd_form_lookup(o->code != MBD_CODE_NUMERIC ? mbd_formulation_with(MBD_FCAP_JOINT_COORDS)
                                                     : f);
  if (!*ops) {
    const char *nm = mbd_formulation_name(o->formulation);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_FORMULATION, nm ? nm : "?", m->name);
  }
  if (mbd_integrator_name(o->ode.kind) == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_INTEGRATOR, o->ode.kind);
  }
  if (o->output_every < 0 || !isfinite(o->output_every)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_OUTPUT_EVERY, o->output_every);
  }
  if ((m->ncontact > 0 || m->njfric > 0) && !(*ops)->event) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_CONTACTS, (*ops)->name, m->name);
  }
  if ((*ops)->check) {
    mbd_sim_opts oc = *o;
    oc.formulation = f;
    int rc = (*ops)->check(m, &oc, err);
    if (rc < 0) {
      return rc;
    }
  }
  if (!(o->alpha >= 0) || !(o->beta >= 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_BAUMGARTE);
  }
  return MBD_OK;
}

int mbd_simulate(mbd_model *m, const mbd_sim_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  const mbd_form_ops *ops = NULL;
  int rc = check_opts(m, o, &ops, err);
  if (rc < 0) {
    return rc;
  }
  // a run started from inside a run of the same model (a force function calling m:simulate):
  // the model is assembled and read only; the nested run has its own data
  if (m->running > 0) {
    return mbd_sim_run(m, o, out, err);
  }
  // the assembled state of the poses the user gave: again only when the model or a drive's
  // values at t = 0 changed since
  mbd_assembly_opts ao = {o->position_tol > 0 ? fmin(o->position_tol, 1e-10) : 1e-10, 50};
  rc = mbd_model_assemble_for_run(m, &ao, o->poll, o->poll_ud, err);
  if (rc < 0) {
    return rc;
  }
  // while it runs, the model refuses changes (its callbacks may try: MSG_MODEL_RUNNING)
  m->running++;
  rc = mbd_sim_run(m, o, out, err);
  m->running--;
  // a warning of the run (compiled code that fell back to the tape) joins the model's, shown once
  if (*out && (*out)->stats.code_warning[0]) {
    mbd_model_warn(m, MSG_SIM_RUN_WARNING, (*out)->stats.code_warning);
  }
  return rc;
}

/* integrate segment by segment until t_end, stop_when, or a failure */
static int run_segments(sim *s, mbd_ode *ode, double **y) {
  const mbd_sim_opts *o = s->o;
  int nroot = s->nroot_form + (o->stop_fn ? 1 : 0);
  int *found = s->found;
  for (;;) {
    double t = 0;
    int rc = mbd_ode_integrate_until(ode, o->t_end, &t, *y, s->err);
    if (rc != MBD_ROOT) {
      return rc;
    }
    mbd_ode_roots_found(ode, found);
    if (o->stop_fn && found[nroot - 1] != 0) {
      // stop_when: the last sample exactly at the zero
      s->run->t_stop = t;
      return sample(s, t, *y);
    }
    // the formulation's switch at t, on the integration data evaluated there
    s->gen++;
    rc = s->ops->eval(s->self, s->m, s->d, t, *y, MBD_DERIV_LAMBDA, s->err);
    if (rc != 0) {
      return rc < 0 ? rc : (s->err->code < 0 ? s->err->code : MBD_E_NEWTON);
    }
    rc = s->ops->event(s->self, s->m, s->d, t, *y, found, s->err);
    if (rc < 0) {
      return rc;
    }
    if (rc == MBD_EVENT_RESIZED) {
      int ny = s->ops->ny(s->self, s->m);
      double *ny_buf = realloc(*y, (size_t)(ny ? ny : 1) * sizeof(double));
      if (ny_buf) {
        *y = ny_buf;
      }
      double *key_buf = ny_buf ? realloc(s->ykey, (size_t)(ny ? ny : 1) * sizeof(double)) : NULL;
      if (!key_buf) {
        return MBD_FAIL(s->err, MBD_E_NOMEM, MSG_SIM_NOMEM_AT, t);
      }
      s->ykey = key_buf;
      s->ny = ny;
      s->ops->pack(s->self, s->m, s->d, *y);
    }
    rc = mbd_ode_reinit(ode, s->ny, t, *y, s->err);
    if (rc < 0) {
      return rc;
    }
  }
}

int mbd_sim_run(const mbd_model *m, const mbd_sim_opts *o_in, mbd_run **out, mbd_error *err) {
  *out = NULL;
  if (!m->assembled) {
    const mbd_form_ops *ops0 = NULL;
    int rc0 = check_opts(m, o_in, &ops0, err);
    return rc0 < 0 ? rc0 : MBD_FAIL(err, MBD_E_STATE, MSG_SIM_NOT_ASSEMBLED, m->name);
  }
  // the default formulation, resolved on the assembled model (the run says so when it is not kane)
  mbd_sim_opts ro = *o_in;
  const mbd_sim_opts *o = &ro;
  char why[200];
  why[0] = 0;
  if (ro.formulation == MBD_FORM_DEFAULT) {
    ro.formulation = mbd_sim_default_formulation(m, why, sizeof why);
  }
  const mbd_form_ops *ops = NULL;
  int rc = check_opts(m, o, &ops, err);
  if (rc < 0) {
    return rc;
  }
  double h = o->output_every > 0 ? o->output_every : o->t_end / 500;
  double *grid = NULL;
  int nout = mbd_sim_grid(o->t_end, h, &grid);
  if (nout < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_TOO_MANY_SAMPLES, h, MBD_SIM_MAX_SAMPLES);
  }
  // the default sampling's samples at the accepted steps: at most MBD_SIM_STEP_SAMPLES, fewer
  // for a model of many channels (SIM_STEP_VALUES), none when that leaves fewer than the grid's
  int nstep = 0;
  if (o->output_every == 0) {
    nstep = (int)fmin(MBD_SIM_STEP_SAMPLES, SIM_STEP_VALUES / (m->nchannel + 1.0));
    nstep = nstep > nout ? nstep : 0;
  }
  rc = mbd_run_fits(m->nchannel, nout + (nstep ? nstep + 1 : 0) + 1, "simulate",
                    "sample less often (a larger output_every)", err);
  if (rc < 0) {
    free(grid);
    return rc;
  }
  sim s = {.m = m, .o = o, .ops = ops, .err = err, .t_last = -INFINITY};
  s.h_step = nstep > 0 ? o->t_end / nstep : 0;
  // one sample more than the grid and the steps' samples: where stop_when ends the run (the
  // steps' samples at least h_step apart below t_end: at most nstep + 1 of them)
  s.run = mbd_run_alloc(m, nout + (nstep ? nstep + 1 : 0) + 1);
  int rows_sparse = ops->rows_sparse && ops->rows_sparse(m, o);
  mbd_data *(*alloc)(const mbd_model *, mbd_error *) =
      rows_sparse ? mbd_data_alloc_sparse : mbd_data_alloc;
  s.d = s.run ? alloc(m, err) : NULL;
  s.ds = s.d ? alloc(m, err) : NULL;
  if (!s.ds) {
    free(grid);
    mbd_data_free(s.d);
    // (a data refused by size has said so: the model is named with the sizes)
    int named = s.run && err && err->code == MBD_E_NOMEM;
    mbd_run_free(s.run);
    return named ? MBD_E_NOMEM : MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
  }
  mbd_run *run = s.run;
  snprintf(run->formulation, sizeof run->formulation, "%s", ops->name);
  run->form = o->formulation;
  if (why[0]) {
    snprintf(run->note, sizeof run->note, MSG_SIM_DEFAULT_NOTE,
             mbd_formulation_name(o->formulation), why);
  }
  snprintf(run->integrator, sizeof run->integrator, "%s", mbd_integrator_name(o->ode.kind));
  run->t_end = o->t_end;
  // the assembled state, its rows evaluated, the formulation's own state (a first partition)
  mbd_data_reset(m, s.d);
  if (rows_sparse) {
    mbd_sparse_set(m, s.d, 1);
    mbd_sparse_set(m, s.ds, 1);
  }
  rc = mbd_eval_to(m, s.d, MBD_STAGE_VELOCITY, err);
  if (rc == MBD_OK) {
    rc = ops->create(&s.self, m, s.d, o, err);
  }
  // the dense workspaces, taken now where they fit, so that no evaluation allocates inside the
  // integration loop; a model too large for them runs without (a sparse solve, the recursive
  // one) until a step needs them, which then stops with the size (mbd_data_dense)
  if (rc == MBD_OK && mbd_data_dense(m, s.d, NULL) == MBD_OK) {
    mbd_data_dense(m, s.ds, NULL);
  }
  if (rc == MBD_OK && ops->display) {
    snprintf(run->formulation, sizeof run->formulation, "%s", ops->display(s.self));
  }
  double *y = NULL;
  mbd_ode *ode = NULL;
  double w0 = mbd_clock_wall(), c0 = mbd_clock_cpu();
  if (rc == MBD_OK) {
    s.d->newton_iterations = 0;
    s.d->lu_factorizations = 0;
    s.d->gauss_evaluations = 0;
    s.d->floor_n = 0;
    s.d->floor_res = 0;
    s.ny = ops->ny(s.self, m);
    s.nroot_form = ops->nroot ? ops->nroot(s.self, m) : 0;
    y = calloc((size_t)(s.ny ? s.ny : 1), sizeof(double));
    s.ykey = calloc((size_t)(s.ny ? s.ny : 1), sizeof(double));
    if (!y || !s.ykey) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
    } else if (s.ny == 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_NO_DOF, m->name);
    } else if (!(s.found = calloc((size_t)s.nroot_form + 1, sizeof(int)))) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
    }
  }
  if (rc == MBD_OK && s.nroot_form > 0) {
    // the formulation's modes checked at the start, before the first step (contacts: whether a
    // contact can stick, the sign of its normal force): the state size may change
    ops->pack(s.self, m, s.d, y);
    rc = ops->eval(s.self, m, s.d, 0, y, MBD_DERIV_LAMBDA, err);
    if (rc == MBD_OK) {
      rc = ops->event(s.self, m, s.d, 0, y, NULL, err);
    }
    if (rc == MBD_EVENT_RESIZED) {
      int ny = ops->ny(s.self, m);
      double *ny_buf = realloc(y, (size_t)(ny ? ny : 1) * sizeof(double));
      double *key_buf = realloc(s.ykey, (size_t)(ny ? ny : 1) * sizeof(double));
      rc = ny_buf && key_buf ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
      y = ny_buf ? ny_buf : y;
      s.ykey = key_buf ? key_buf : s.ykey;
      s.ny = ny;
      s.key_ok = 0;
    } else if (rc > 0) {
      rc = err->code < 0 ? err->code : MBD_E_NEWTON;
    }
  }
  if (rc == MBD_OK) {
    ops->pack(s.self, m, s.d, y);
    int nroot = s.nroot_form + (o->stop_fn ? 1 : 0);
    rc = mbd_ode_new(&ode, s.ny, 0.0, y, &o->ode, rhs, &s, err);
    if (rc == MBD_OK) {
      rc = mbd_ode_set_output(ode, grid, nout, output, err);
    }
    if (rc == MBD_OK) {
      mbd_ode_set_step_fn(ode, step);
    }
    if (rc == MBD_OK && nroot > 0) {
      rc = mbd_ode_set_roots(ode, nroot, roots, err);
    }
    if (rc == MBD_OK) {
      rc = run_segments(&s, ode, &y);
    }
  }
  // statistics: the integrator's counters over every segment, the integration data's work
  mbd_ode_stats st;
  memset(&st, 0, sizeof st);
  if (ode) {
    mbd_ode_get_stats(ode, &st);
  }
  run->stats.wall_time = mbd_clock_wall() - w0;
  run->stats.cpu_time = mbd_clock_cpu() - c0;
  run->stats.nfev = st.nfev;
  run->stats.sample_evaluations = s.nsample_eval;
  run->stats.samples_reused = s.reused;
  run->stats.steps = st.steps;
  run->stats.rejected = st.rejected;
  run->stats.avg_step = st.avg_step;
  run->stats.newton_iterations = s.d->newton_iterations;
  run->stats.max_position_violation = s.max_pos;
  run->stats.max_velocity_violation = s.max_vel;
  run->stats.lu_factorizations = s.d->lu_factorizations;
  run->stats.singular_evaluations = s.d->gauss_evaluations;
  run->stats.repartitions = s.d->row_reselections;
  run->stats.contact_iterations = s.d->contact_iterations;
  run->stats.stick_events = s.d->events[0];
  run->stats.slip_events = s.d->events[1];
  run->stats.separations = s.d->events[2];
  run->stats.impacts = s.d->events[3];
  if (mbd_run_set_events(run, m, s.d) != MBD_OK && rc == MBD_OK) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
  }
  if (s.self && ops->stats) {
    ops->stats(s.self, &run->stats);
  }
  // what the run did not say otherwise: the poses assembly moved, a tolerance too loose
  mbd_sim_warn_start(m, run);
  if (o->ode.rtol > SIM_LOOSE_RTOL) {
    mbd_run_warn(run, MSG_SIM_LOOSE_RTOL, o->ode.rtol, SIM_LOOSE_RTOL);
  }
  // silent inaccuracy of a run that succeeded: constraints left behind by a formulation that does
  // not project the state, and default samples far coarser than the motion the integrator saw
  const mbd_formulation_info *fi = mbd_formulation_info_of(o->formulation);
  if (rc == MBD_OK && fi && fi->drift && s.max_pos > o->position_tol) {
    // (the default's fallback: kane and gcp do not serve this model, the note said why)
    mbd_run_warn(run, why[0] && fi->drift_default ? fi->drift_default : fi->drift, s.max_pos,
                 o->position_tol, o->alpha, o->beta);
  }
  int ns = run->nsamp;
  double gap = ns > 1 ? (run->t[ns - 1] - run->t[0]) / (ns - 1) : 0;
  if (rc == MBD_OK && o->output_every == 0 && st.avg_step > 0 &&
      gap > SIM_ALIAS_STEPS * st.avg_step) {
    mbd_run_warn(run, MSG_SIM_ALIAS, gap, nstep > nout ? nstep : nout, st.avg_step);
  }
  // position analyses stopped at the rounding floor of the rows above position_tol
  if (rc == MBD_OK && s.d->floor_n > 0) {
    mbd_run_warn(run, MSG_SIM_NEWTON_FLOOR, s.d->floor_res, o->position_tol, s.d->floor_n,
                 s.d->floor_t);
  }
  // augmented and baumgarte near a singular configuration that they did not pass in partitioned
  // coordinates (formulations/augmented.c: models with contacts or many coordinates): closer than
  // SIM_NEAR_SINGULAR they may have left the motion's branch unseen (a run that stopped says why
  // in its error, e.g. the leading matrix is singular: not both)
  if (rc == MBD_OK && fi && fi->near_singular && run->stats.singular_passages == 0 &&
      s.d->sing_ratio < SIM_NEAR_SINGULAR) {
    mbd_run_warn(run, fi->near_singular, ops->name, s.d->sing_t, s.d->sing_ratio);
  }
  mbd_run_finish(run, rc, err);
  mbd_ode_free(ode);
  if (s.self && ops->destroy) {
    ops->destroy(s.self);
  }
  mbd_data_free(s.d);
  mbd_data_free(s.ds);
  free(grid);
  free(y);
  free(s.found);
  free(s.ykey);
  *out = run;
  return rc;
}
