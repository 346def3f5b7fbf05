/* kinematic analysis of a fully driven mechanism (0 degrees of freedom): position, velocity and
 * acceleration analyses at each output time (paper 000 eq 10–13 with every coordinate
 * dependent), and the reactions and drive efforts by inverse dynamics */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../kinematics/kinematics.h"
#include "mbd/formulation.h"
#include "run_impl.h"
#include "sim_msg.h"

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
    mbd_assembly_opts ao = {fmin(tol, 1e-10), 50};
    rc = mbd_model_assemble_for_run(m, &ao, o->poll, o->poll_ud, err);
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
  mbd_run *run;
  mbd_data *d;
  if ((rc = mbd_kin_start(m, o, &run, &d, err)) < 0) {
    return rc;
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
      mbd_stage_touch(d, MBD_STAGE_NONE);
    }
    rc = mbd_kin_analyse(m, d, t, tol, maxit, err);
    if (rc == MBD_OK) {
      rc = mbd_inverse_dynamics(m, d, err);
    }
    if (rc < 0) {
      break;
    }
    rc = mbd_kin_output(o, t, run, m, d, &maxp, &maxv, err);
  }
  mbd_kin_stats(run, w0, c0, hstep, d->newton_iterations, maxp, maxv);
  mbd_sim_warn_start(m, run);
  m->running--;
  mbd_run_finish(run, rc, err);
  mbd_data_free(d);
  *out = run;
  return rc;
}
