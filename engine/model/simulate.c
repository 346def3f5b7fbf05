/* dynamic simulation and kinematic analysis: the driver that ties a formulation to an integrator
 * and a recorder */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../formulations/formulations.h"
#include "mbd/integrators.h"
#include "model_impl.h"
#include "run_impl.h"

static const char *const form_names[MBD_FORM_N] = {"augmented", "baumgarte",      "gcp",
                                                   "kane",      "udwadia_kalaba", "relative"};

const char *mbd_formulation_name(int f) {
  return (f >= 0 && f < MBD_FORM_N) ? form_names[f] : NULL;
}

int mbd_formulation_from_name(const char *name) {
  for (int f = 0; f < MBD_FORM_N; f++) {
    if (strcmp(name, form_names[f]) == 0) {
      return f;
    }
  }
  return -1;
}

void mbd_sim_opts_default(mbd_sim_opts *o) {
  memset(o, 0, sizeof *o);
  o->t_end = 1;
  o->formulation = MBD_FORM_AUGMENTED;
  o->integrator = MBD_INT_ADAMS;
  o->rtol = 1e-6;
  o->atol = 1e-6;
  o->position_tol = 1e-8;
  o->max_newton = 25;
  o->alpha = 5;
  o->beta = 5;
  o->output_every = 0;  // 0: t_end / 500
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* output grid 0, h, 2h, …, t_end (t_end always included); returns the count or −1 */
static int make_grid(double t_end, double h, double **out) {
  double cnt = floor(t_end / h + 1e-9);
  if (cnt > 1e7) {
    return -1;
  }
  int n = (int)cnt + 1;
  int extra = fabs(cnt * h - t_end) > 1e-9 * t_end ? 1 : 0;
  double *g = malloc((size_t)(n + extra) * sizeof(double));
  if (!g) {
    return -1;
  }
  for (int i = 0; i < n; i++) {
    g[i] = i * h;
  }
  if (extra) {
    g[n] = t_end;
  } else {
    g[n - 1] = t_end;
  }
  *out = g;
  return n + extra;
}

typedef struct sim {
  mbd_model *m;
  mbd_data *d;
  const mbd_sim_opts *o;
  mbd_run *run;
  mbd_error *err;
  double *gstar;      /* ma: corrected γ */
  double max_pos, max_vel;
} sim;

/* set the state from y = [q; q̇] and compute q̈, λ with the chosen formulation */
static int dynamics(sim *s, double t, const double *y) {
  mbd_model *m = s->m;
  mbd_data *d = s->d;
  int n = m->n;
  d->t = t;
  d->have_dynamics = 0;
  memcpy(d->q, y, (size_t)n * sizeof(double));
  memcpy(d->qd, y + n, (size_t)n * sizeof(double));
  int rc = mbd_constraints_eval(m, d, 1, s->err);
  if (rc < 0) {
    return rc;
  }
  mbd_constraints_gather(m, d);
  rc = mbd_forces_eval(m, d, s->err);
  if (rc < 0) {
    return rc;
  }
  const double *g = d->gamma_a;
  if (s->o->formulation == MBD_FORM_BAUMGARTE) {
    mbd_baumgarte_gamma(m, d, s->o->alpha, s->o->beta, s->gstar);
    g = s->gstar;
  }
  return mbd_dynamics_augmented(m, d, g, s->err);
}

static int rhs(double t, const double *y, double *ydot, void *ud) {
  sim *s = ud;
  int n = s->m->n;
  int rc = dynamics(s, t, y);
  if (rc < 0) {
    return rc;
  }
  memcpy(ydot, s->d->qd, (size_t)n * sizeof(double));
  memcpy(ydot + n, s->d->qdd, (size_t)n * sizeof(double));
  for (int i = 0; i < 2 * n; i++) {
    if (!isfinite(ydot[i])) {
      char what[96];
      mbd_model_coord_name(s->m, i % n, what, sizeof what);
      return MBD_FAIL(s->err, MBD_E_NAN, "the %s of %s became %g at t = %g: the run was stopped",
                      i < n ? "velocity" : "acceleration", what, ydot[i], t);
    }
  }
  return 0;
}

static int output(double t, const double *y, void *ud) {
  sim *s = ud;
  int rc = dynamics(s, t, y);
  if (rc < 0) {
    return rc;
  }
  if (s->o->poll) {
    rc = s->o->poll(s->o->poll_ud, t, s->err);
    if (rc < 0) {
      return rc;
    }
  }
  s->max_pos = fmax(s->max_pos, mbd_position_violation(s->m, s->d));
  s->max_vel = fmax(s->max_vel, mbd_velocity_violation(s->m, s->d));
  return mbd_run_record(s->run, s->m, s->d, s->err);
}

static int check_opts(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err) {
  if (!(o->t_end > 0) || !isfinite(o->t_end)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: t_end must be positive, got %g", o->t_end);
  }
  if (o->formulation != MBD_FORM_AUGMENTED && o->formulation != MBD_FORM_BAUMGARTE) {
    const char *nm = mbd_formulation_name(o->formulation);
    return MBD_FAIL(err, MBD_E_INPUT,
                    "simulate: formulation '%s' is not available for model '%s' yet "
                    "(available: augmented, baumgarte)",
                    nm ? nm : "?", m->name);
  }
  if (mbd_integrator_name(o->integrator) == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: unknown integrator %d", o->integrator);
  }
  if (o->output_every < 0 || !isfinite(o->output_every)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: output_every must be positive, got %g",
                    o->output_every);
  }
  if (!(o->alpha >= 0) || !(o->beta >= 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: Baumgarte alpha and beta must not be negative");
  }
  return MBD_OK;
}

static void finish_run(mbd_run *run, int rc, const mbd_error *err) {
  run->status = rc;
  if (rc < 0 && err) {
    snprintf(run->message, sizeof run->message, "%s", err->msg);
  }
}

int mbd_simulate(mbd_model *m, const mbd_sim_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  int rc = check_opts(m, o, err);
  if (rc < 0) {
    return rc;
  }
  // always start from the poses the user gave
  mbd_model_clear_warnings(m);
  mbd_assembly_opts ao = {o->position_tol > 0 ? fmin(o->position_tol, 1e-10) : 1e-10, 50};
  rc = mbd_model_assemble(m, &ao, err);
  if (rc < 0) {
    return rc;
  }
  double h = o->output_every > 0 ? o->output_every : o->t_end / 500;
  double *grid = NULL;
  int nout = make_grid(o->t_end, h, &grid);
  if (nout < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: output_every %g gives too many samples", h);
  }
  mbd_run *run = mbd_run_alloc(m, nout);
  int n = m->n;
  double *y = calloc((size_t)2 * n, sizeof(double));
  double *gstar = calloc((size_t)(m->ma ? m->ma : 1), sizeof(double));
  if (!run || !y || !gstar) {
    free(grid);
    free(y);
    free(gstar);
    mbd_run_free(run);
    return MBD_FAIL(err, MBD_E_NOMEM, "simulate: out of memory");
  }
  snprintf(run->formulation, sizeof run->formulation, "%s", mbd_formulation_name(o->formulation));
  snprintf(run->integrator, sizeof run->integrator, "%s", mbd_integrator_name(o->integrator));
  run->t_end = o->t_end;
  mbd_data *d = m->data;
  memcpy(y, d->q, (size_t)n * sizeof(double));
  memcpy(y + n, d->qd, (size_t)n * sizeof(double));
  d->newton_iterations = 0;
  d->lu_factorizations = 0;
  sim s = {m, d, o, run, err, gstar, 0, 0};
  mbd_ode_opts io = {o->integrator, o->rtol, o->atol, o->step, o->max_step, 0};
  mbd_ode_stats st;
  memset(&st, 0, sizeof st);
  double w0 = wall_now(), c0 = cpu_now();
  rc = mbd_ode_solve(2 * n, 0.0, y, grid, nout, &io, rhs, output, NULL, &s, &st, err);
  run->stats.wall_time = wall_now() - w0;
  run->stats.cpu_time = cpu_now() - c0;
  run->stats.nfev = st.nfev;
  run->stats.steps = st.steps;
  run->stats.rejected = st.rejected;
  run->stats.avg_step = st.avg_step;
  run->stats.newton_iterations = d->newton_iterations;
  run->stats.max_position_violation = s.max_pos;
  run->stats.max_velocity_violation = s.max_vel;
  run->stats.repartitions = 0;
  run->stats.lu_factorizations = d->lu_factorizations;
  finish_run(run, rc, err);
  free(grid);
  free(y);
  free(gstar);
  *out = run;
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* kinematic analysis of a fully driven mechanism                                              */

/* inverse dynamics: Φqᵀλ = Q − M q̈ (least squares; exact when the mechanism is fully driven) */
static int inverse_dynamics(mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->n, ma = m->ma;
  int rc = mbd_forces_eval(m, d, err);
  if (rc < 0) {
    return rc;
  }
  // tmp_n = Q − M q̈
  memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
  mbd_gemv(0, n, n, -1.0, d->M, n, d->qdd, 1.0, d->tmp_n);
  // Φq_aᵀ (n × ma) into aug as scratch
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < ma; k++) {
      MBD_AT(d->aug, n, i, k) = MBD_AT(d->phiq_a, ma, k, i);
    }
  }
  rc = mbd_lsq_solve(&d->lsq, n, ma, d->aug, n, d->tmp_n, d->tmp_m, 1e-12, NULL);
  if (rc) {
    return MBD_FAIL(err, MBD_E_SINGULAR, "inverse dynamics at t = %g: SVD did not converge", d->t);
  }
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < ma; k++) {
    d->lambda[m->active[k]] = d->tmp_m[k];
  }
  d->have_dynamics = 1;
  return MBD_OK;
}

int mbd_kinematics(mbd_model *m, const mbd_kin_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  if (!(o->t_end > 0) || !isfinite(o->t_end) || o->steps < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, "kinematics: t_end must be positive and steps at least 1");
  }
  mbd_model_clear_warnings(m);
  double tol = o->position_tol > 0 ? o->position_tol : 1e-10;
  int maxit = o->max_newton > 0 ? o->max_newton : 25;
  mbd_assembly_opts ao = {fmin(tol, 1e-10), 50};
  int rc = mbd_model_assemble(m, &ao, err);
  if (rc < 0) {
    return rc;
  }
  int dof = m->n - m->rank;
  if (dof != 0) {
    return MBD_FAIL(err, MBD_E_INPUT,
                    "kinematics: model '%s' has %d degree%s of freedom left; kinematic analysis "
                    "needs a fully driven mechanism (add drives, or use simulate)",
                    m->name, dof, dof == 1 ? "" : "s");
  }
  mbd_run *run = mbd_run_alloc(m, o->steps + 1);
  if (!run) {
    return MBD_FAIL(err, MBD_E_NOMEM, "kinematics: out of memory");
  }
  snprintf(run->formulation, sizeof run->formulation, "kinematics");
  snprintf(run->integrator, sizeof run->integrator, "none");
  run->t_end = o->t_end;
  mbd_data *d = m->data;
  int n = m->n, ma = m->ma;
  d->newton_iterations = 0;
  double w0 = wall_now(), c0 = cpu_now(), maxp = 0, maxv = 0;
  double hstep = o->t_end / o->steps;
  for (int k = 0; k <= o->steps && rc == MBD_OK; k++) {
    double t = k == o->steps ? o->t_end : k * hstep;
    // predictor: second-order Taylor step from the previous solution
    if (k > 0) {
      for (int c = 0; c < n; c++) {
        d->q[c] += hstep * d->qd[c] + 0.5 * hstep * hstep * d->qdd[c];
      }
    }
    d->t = t;
    d->have_dynamics = 0;
    rc = mbd_position_analysis(m, d, tol, maxit, 0, err);
    if (rc < 0) {
      break;
    }
    // velocity Φq q̇ = −Φt and acceleration Φq q̈ = γ (square and regular when fully driven)
    rc = mbd_constraints_eval(m, d, 1, err);
    if (rc < 0) {
      break;
    }
    mbd_constraints_gather(m, d);
    for (int i = 0; i < ma; i++) {
      d->tmp_m[i] = -d->phit_a[i];
    }
    rc = mbd_lsq_solve(&d->lsq, ma, n, d->phiq_a, ma, d->tmp_m, d->qd, 1e-12, NULL);
    if (rc == MBD_OK) {
      rc = mbd_constraints_eval(m, d, 1, err);  // γ depends on q̇
    }
    if (rc == MBD_OK) {
      mbd_constraints_gather(m, d);
      rc = mbd_lsq_solve(&d->lsq, ma, n, d->phiq_a, ma, d->gamma_a, d->qdd, 1e-12, NULL);
    }
    if (rc != MBD_OK) {
      rc = rc < 0 && err && err->code ? rc
                                      : MBD_FAIL(err, MBD_E_SINGULAR,
                                                 "kinematics at t = %g: SVD did not converge", t);
      break;
    }
    rc = inverse_dynamics(m, d, err);
    if (rc < 0) {
      break;
    }
    if (o->poll) {
      rc = o->poll(o->poll_ud, t, err);
      if (rc < 0) {
        break;
      }
    }
    maxp = fmax(maxp, mbd_position_violation(m, d));
    maxv = fmax(maxv, mbd_velocity_violation(m, d));
    rc = mbd_run_record(run, m, d, err);
  }
  run->stats.wall_time = wall_now() - w0;
  run->stats.cpu_time = cpu_now() - c0;
  run->stats.steps = run->nsamp > 0 ? run->nsamp - 1 : 0;
  run->stats.avg_step = hstep;
  run->stats.newton_iterations = d->newton_iterations;
  run->stats.max_position_violation = maxp;
  run->stats.max_velocity_violation = maxv;
  finish_run(run, rc, err);
  *out = run;
  return rc;
}
