/* kinematic analysis of a fully driven mechanism (0 degrees of freedom): position, velocity and
 * acceleration analyses at each output time (paper 000 eq 10–13 with every coordinate
 * dependent), and the reactions and drive efforts by inverse dynamics */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../kinematics/kinematics.h"
#include "../kinematics/kinematics_msg.h"
#include "mbd/formulation.h"
#include "run_impl.h"
#include "sim_msg.h"

/* inverse dynamics: Φqᵀλ = Q − M v̇ (least squares; exact when the mechanism is fully driven) */
static int inverse_dynamics(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv, ma = d->ma;
  int rc = mbd_forces_eval(m, d, err);
  if (rc < 0) {
    return rc;
  }
  // tmp_n = Q − M v̇
  memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
  mbd_gemv(0, n, n, -1.0, d->M, n, d->vdot, 1.0, d->tmp_n);
  // Φq_aᵀ (n × ma) into aug as scratch
  if ((rc = mbd_data_dense(m, d, err)) < 0) {
    return rc;
  }
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < ma; k++) {
      MBD_AT(d->aug, n, i, k) = MBD_AT(d->phiq_a, ma, k, i);
    }
  }
  rc = mbd_lsq_solve(&d->lsq, n, ma, d->aug, n, d->tmp_n, d->tmp_m, 1e-12, NULL);
  if (rc) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD, "inverse dynamics",
                    d->t);
  }
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < ma; k++) {
    d->lambda[d->active[k]] = d->tmp_m[k];
  }
  d->have_dynamics = 1;
  return MBD_OK;
}

void mbd_kin_run_stats(mbd_run *run, double w0, double c0, double hstep, long newton, double maxp,
                       double maxv) {
  run->stats.wall_time = mbd_clock_wall() - w0;
  run->stats.cpu_time = mbd_clock_cpu() - c0;
  run->stats.steps = run->nsamp > 0 ? run->nsamp - 1 : 0;
  run->stats.avg_step = hstep;
  run->stats.newton_iterations = newton;
  run->stats.max_position_violation = maxp;
  run->stats.max_velocity_violation = maxv;
}

int mbd_kinematics(mbd_model *m, const mbd_kin_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  if (!(o->t_end > 0) || !isfinite(o->t_end) || o->steps < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_KIN_OPTS);
  }
  if (o->steps >= MBD_SIM_MAX_SAMPLES) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_KIN_STEPS, o->steps, MBD_SIM_MAX_SAMPLES);
  }
  double tol = o->position_tol > 0 ? o->position_tol : 1e-10;
  int maxit = o->max_newton > 0 ? o->max_newton : 25;
  int rc = MBD_OK;
  // nested in a run of the same model (from a drive function): its current assembly, own data
  if (m->running == 0) {
    mbd_model_clear_warnings(m);
    mbd_assembly_opts ao = {fmin(tol, 1e-10), 50};
    rc = mbd_model_assemble_polled(m, &ao, o->poll, o->poll_ud, err);
    if (rc < 0) {
      return rc;
    }
  }
  int dof = m->nv - m->rank;
  if (dof != 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_KIN_DOF, m->name, dof, dof == 1 ? "" : "s");
  }
  if (mbd_formulation_has(o->formulation, MBD_FCAP_JOINT_COORDS) || o->code != MBD_CODE_NUMERIC) {
    // joint coordinates, or generated code on Cartesian coordinates (paper 002)
    return mbd_kinematics_relative(m, o, out, err);
  }
  int fits = mbd_run_fits(m->nchannel, o->steps + 1, "kinematics", "take fewer steps", err);
  if (fits < 0) {
    return fits;
  }
  mbd_run *run = mbd_run_alloc(m, o->steps + 1);
  mbd_data *d = run ? mbd_data_alloc(m, err) : NULL;
  if (!d) {
    mbd_run_free(run);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "kinematics");
  }
  snprintf(run->formulation, sizeof run->formulation, "kinematics");
  snprintf(run->integrator, sizeof run->integrator, "none");
  run->t_end = o->t_end;
  mbd_data_reset(m, d);
  m->running++;  // the drive functions run inside: the model refuses changes meanwhile
  int n = m->nv;
  double w0 = mbd_clock_wall(), c0 = mbd_clock_cpu(), maxp = 0, maxv = 0;
  double hstep = o->t_end / o->steps;
  for (int k = 0; k <= o->steps && rc == MBD_OK; k++) {
    double t = k == o->steps ? o->t_end : k * hstep;
    // predictor: second-order Taylor step from the previous solution
    if (k > 0) {
      for (int c = 0; c < n; c++) {
        d->tmp_n[c] = hstep * d->v[c] + 0.5 * hstep * hstep * d->vdot[c];
      }
      mbd_kin_move(m, d->q, d->tmp_n);
    }
    rc = mbd_kin_analyse(m, d, t, tol, maxit, err);
    if (rc == MBD_OK) {
      rc = inverse_dynamics(m, d, err);
    }
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
  mbd_kin_run_stats(run, w0, c0, hstep, d->newton_iterations, maxp, maxv);
  mbd_sim_warn_start(m, run);
  m->running--;
  mbd_run_finish(run, rc, err);
  mbd_data_free(d);
  *out = run;
  return rc;
}

int mbd_inverse_dynamics(const mbd_model *m, mbd_data *d, mbd_error *err) {
  return inverse_dynamics(m, d, err);
}
