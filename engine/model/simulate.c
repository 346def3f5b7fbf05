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

/* CPU time of the calling thread: clock() ticks too coarsely (milliseconds here) for runs this
 * short, and process time also counts OpenBLAS's idle worker spinning after a LAPACK call at
 * assembly (it doubled the CPU time of millisecond runs); the engine computes on this thread */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
  double *gstar;      /* ma: corrected γ (baumgarte) */
  mbd_part *part;     /* gcp and kane: the coordinate partition, else NULL */
  mbd_uk *uk;         /* udwadia_kalaba: its workspace, else NULL */
  double max_pos, max_vel;
} sim;

/* set the state from the integrator's y and compute q̈ (and λ when want_lambda) with the chosen
 * formulation.  y = [q; q̇] for augmented and baumgarte, [q_i; q̇_i] for gcp and kane.
 * Returns 0, > 0 when a position analysis failed (retry with a smaller step), < 0 on error. */
static int dynamics(sim *s, double t, const double *y, int want_lambda) {
  mbd_model *m = s->m;
  mbd_data *d = s->d;
  int n = m->n, rc;
  if (s->part) {
    rc = mbd_part_state(s->part, m, d, t, y, s->o->position_tol, s->o->max_newton, s->err);
    if (rc != 0) {
      return rc;
    }
    rc = mbd_forces_eval(m, d, s->err);
    if (rc < 0) {
      return rc;
    }
    if (s->o->formulation == MBD_FORM_GCP) {
      return mbd_gcp_accel(m, d, s->err);
    }
    return mbd_part_accel_kane(s->part, m, d, want_lambda, s->err);
  }
  d->t = t;
  d->have_dynamics = 0;
  memcpy(d->q, y, (size_t)n * sizeof(double));
  memcpy(d->qd, y + n, (size_t)n * sizeof(double));
  rc = mbd_constraints_eval(m, d, 1, s->err);
  if (rc < 0) {
    return rc;
  }
  mbd_constraints_gather(m, d);
  rc = mbd_forces_eval(m, d, s->err);
  if (rc < 0) {
    return rc;
  }
  if (s->uk) {
    return mbd_uk_accel(s->uk, m, d, want_lambda, s->err);
  }
  const double *g = d->gamma_a;
  if (s->o->formulation == MBD_FORM_BAUMGARTE) {
    mbd_baumgarte_gamma(m, d, s->o->alpha, s->o->beta, s->gstar);
    g = s->gstar;
  }
  rc = mbd_dynamics_augmented(m, d, g, s->err);
  if (rc == MBD_RESELECTED) {
    // the active rows were chosen again: the stabilized γ* follows the new rows
    mbd_baumgarte_gamma(m, d, s->o->alpha, s->o->beta, s->gstar);
    rc = mbd_dynamics_augmented(m, d, s->gstar, s->err);
  }
  return rc;
}

static int rhs(double t, const double *y, double *ydot, void *ud) {
  sim *s = ud;
  mbd_data *d = s->d;
  int n = s->m->n;
  int rc = dynamics(s, t, y, 0);
  if (rc != 0) {
    return rc;
  }
  int ny = n;
  if (s->part) {
    // only the independent coordinates are integrated
    const int *perm = mbd_part_perm(s->part);
    int f = mbd_part_nindep(s->part), ma = s->m->ma;
    for (int k = 0; k < f; k++) {
      ydot[k] = d->qd[perm[ma + k]];
      ydot[f + k] = d->qdd[perm[ma + k]];
    }
    ny = f;
  } else {
    memcpy(ydot, d->qd, (size_t)n * sizeof(double));
    memcpy(ydot + n, d->qdd, (size_t)n * sizeof(double));
  }
  for (int i = 0; i < 2 * ny; i++) {
    if (!isfinite(ydot[i])) {
      char what[96];
      int c = i % ny;
      if (s->part) {
        c = mbd_part_perm(s->part)[s->m->ma + c];
      }
      mbd_model_coord_name(s->m, c, what, sizeof what);
      return MBD_FAIL(s->err, MBD_E_NAN, "the %s of %s became %g at t = %g: the run was stopped",
                      i < ny ? "velocity" : "acceleration", what, ydot[i], t);
    }
  }
  return 0;
}

static int output(double t, const double *y, void *ud) {
  sim *s = ud;
  int rc = dynamics(s, t, y, 1);
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
  s->max_pos = fmax(s->max_pos, mbd_position_violation(s->m, s->d));
  s->max_vel = fmax(s->max_vel, mbd_velocity_violation(s->m, s->d));
  return mbd_run_record(s->run, s->m, s->d, s->err);
}

/* after every accepted step: re-partition when the dependent block has degraded or a clearly
 * better-conditioned choice exists (gcp, kane) */
static int step(double t, double *y, void *ud) {
  sim *s = ud;
  if (!s->part || !mbd_part_better(s->part, s->m, s->d)) {
    return 0;
  }
  int rc = mbd_part_state(s->part, s->m, s->d, t, y, s->o->position_tol, s->o->max_newton,
                          s->err);
  if (rc != 0) {
    return rc < 0 ? rc : 0;  // keep the partition; the next evaluation will tell
  }
  return mbd_part_maybe_repartition(s->part, s->m, s->d, y, s->err);
}

static int check_opts(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err) {
  if (!(o->t_end > 0) || !isfinite(o->t_end)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: t_end must be positive, got %g", o->t_end);
  }
  if (o->formulation != MBD_FORM_AUGMENTED && o->formulation != MBD_FORM_BAUMGARTE &&
      o->formulation != MBD_FORM_GCP && o->formulation != MBD_FORM_KANE &&
      o->formulation != MBD_FORM_UK) {
    const char *nm = mbd_formulation_name(o->formulation);
    return MBD_FAIL(err, MBD_E_INPUT,
                    "simulate: formulation '%s' is not available for model '%s' yet "
                    "(available: augmented, baumgarte, gcp, kane, udwadia_kalaba)",
                    nm ? nm : "?", m->name);
  }
  if (mbd_integrator_name(o->integrator) == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: unknown integrator %d", o->integrator);
  }
  if (o->output_every < 0 || !isfinite(o->output_every)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: output_every must be positive, got %g",
                    o->output_every);
  }
  if ((o->formulation == MBD_FORM_GCP || o->formulation == MBD_FORM_KANE) &&
      !(o->position_tol > 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, "simulate: position_tol must be positive, got %g",
                    o->position_tol);
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
  mbd_part *part = NULL;
  mbd_uk *uk = NULL;
  int partitioned = o->formulation == MBD_FORM_GCP || o->formulation == MBD_FORM_KANE;
  if (!run || !y || !gstar || (partitioned && mbd_part_alloc(&part, m, err) < 0) ||
      (o->formulation == MBD_FORM_UK && (rc = mbd_uk_alloc(&uk, m, o, err)) < 0)) {
    free(grid);
    free(y);
    free(gstar);
    mbd_run_free(run);
    mbd_part_free(part);
    return rc == MBD_E_INPUT ? rc : MBD_FAIL(err, MBD_E_NOMEM, "simulate: out of memory");
  }
  const char *fname = mbd_formulation_name(o->formulation);
  const char *iname = mbd_integrator_name(o->integrator);
  snprintf(run->formulation, sizeof run->formulation, "%s", fname ? fname : "?");
  snprintf(run->integrator, sizeof run->integrator, "%s", iname ? iname : "?");
  run->t_end = o->t_end;
  mbd_data *d = m->data;
  int ny = n;
  if (partitioned) {
    // the first partition, from Φq at the assembled pose
    rc = mbd_constraints_eval(m, d, 1, err);
    if (rc == MBD_OK) {
      mbd_constraints_gather(m, d);
      rc = mbd_part_choose(part, m, d, err);
    }
    if (rc < 0) {
      free(grid);
      free(y);
      free(gstar);
      mbd_part_free(part);
      mbd_run_free(run);
      return rc;
    }
    ny = mbd_part_nindep(part);
    mbd_part_pack(part, d, y);
  } else {
    memcpy(y, d->q, (size_t)n * sizeof(double));
    memcpy(y + n, d->qd, (size_t)n * sizeof(double));
  }
  d->newton_iterations = 0;
  d->lu_factorizations = 0;
  d->row_reselections = 0;
  d->aug_ratio0 = 0;
  sim s = {m, d, o, run, err, gstar, part, uk, 0, 0};
  mbd_ode_opts io = {o->integrator, o->rtol, o->atol, o->step, o->max_step, 0};
  mbd_ode_stats st;
  memset(&st, 0, sizeof st);
  double w0 = wall_now(), c0 = cpu_now();
  if (ny == 0) {
    rc = MBD_FAIL(err, MBD_E_INPUT,
                  "simulate: model '%s' has no degree of freedom left; use m:kinematics for a "
                  "fully driven mechanism",
                  m->name);
  } else {
    rc = mbd_ode_solve(2 * ny, 0.0, y, grid, nout, &io, rhs, output, partitioned ? step : NULL, &s,
                       &st, err);
  }
  run->stats.wall_time = wall_now() - w0;
  run->stats.cpu_time = cpu_now() - c0;
  run->stats.nfev = st.nfev;
  run->stats.steps = st.steps;
  run->stats.rejected = st.rejected;
  run->stats.avg_step = st.avg_step;
  run->stats.newton_iterations = d->newton_iterations;
  run->stats.max_position_violation = s.max_pos;
  run->stats.max_velocity_violation = s.max_vel;
  run->stats.repartitions = part ? mbd_part_repartitions(part) : 0;
  run->stats.lu_factorizations = d->lu_factorizations;
  run->stats.repartitions += d->row_reselections;
  mbd_part_free(part);
  mbd_uk_free(uk);
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
    rc = mbd_position_analysis(m, d, tol, maxit, err);
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
