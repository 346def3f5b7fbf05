/* kinematic analysis on relative joint coordinates (paper 002, section 2.5): the position
 * (Newton–Raphson), velocity and acceleration analyses on the joint coordinates of a spanning tree
 * — the cut joints', the drives' and the norms' rows, evaluated numerically, on the tape or by
 * compiled code —, then the multipliers by inverse dynamics on the joint coordinates (the cut
 * joints', the drives' and the norms'), each output written back as the Cartesian state of the
 * model, and the tree joints' reactions by the backward pass of the relative formulation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../kinematics/kinematics_msg.h"
#include "mbd/formulation.h"
#include "run_impl.h"
#include "sim_msg.h"

int mbd_kinematics_relative(mbd_model *m, const mbd_kin_opts *o, mbd_run **out, mbd_error *err) {
  double tol = o->position_tol > 0 ? o->position_tol : 1e-10;
  int maxit = o->max_newton > 0 ? o->max_newton : 25;
  mbd_run *run;
  mbd_data *d;
  int rc = mbd_kin_start(m, o, &run, &d, err);
  if (rc < 0) {
    return rc;
  }
  snprintf(run->formulation, sizeof run->formulation, "%s",
           mbd_formulation_has(o->formulation, MBD_FCAP_JOINT_COORDS) ? "relative kinematics"
                                                                      : "kinematics");
  snprintf(run->integrator, sizeof run->integrator, "none");
  run->t_end = o->t_end;
  // the tree from the assembled state, its code, its data
  mbd_data_reset(m, d);
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  mbd_model *mr = NULL;
  mbd_data *x = NULL;
  mbd_gencode *code = NULL;
  mbd_code_info info;
  memset(&info, 0, sizeof info);
  // Cartesian coordinates with generated code: every joint cut (each body floats)
  const char **all = NULL;
  if (rc == MBD_OK && !mbd_formulation_has(o->formulation, MBD_FCAP_JOINT_COORDS)) {
    all = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof *all);
    rc = all ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "kinematics");
    for (int j = 0; all && j < m->njoint; j++) {
      all[j] = m->joint[j].name;
    }
  }
  if (rc == MBD_OK) {
    rc = all ? mbd_tree_build(m, d, all, m->njoint, &mr, err)
             : mbd_tree_build(m, d, o->cut, o->ncut, &mr, err);
  }
  free(all);
  if (rc == MBD_OK && o->code != MBD_CODE_NUMERIC) {
    rc = mbd_code_new(mr, o->code, &code, &info, err);
    if (rc == MBD_OK) {
      mr->eqs = mbd_code_hook(code);
    }
  }
  if (rc == MBD_OK) {
    x = mbd_data_alloc(mr, err);
    rc = x ? MBD_OK : MBD_E_NOMEM;
  }
  if (rc < 0) {
    mbd_code_free(code);
    mbd_model_free(mr);
    mbd_data_free(d);
    mbd_run_free(run);
    return rc;
  }
  mbd_data_reset(mr, x);
  int n = mr->nv;
  double hstep = o->t_end / o->steps, maxp = 0, maxv = 0;
  double w0 = mbd_clock_wall(), c0 = mbd_clock_cpu();
  for (int k = 0; k <= o->steps && rc == MBD_OK; k++) {
    double t = k == o->steps ? o->t_end : k * hstep;
    // predictor: second-order Taylor step from the previous solution (joint coordinates)
    if (k > 0) {
      for (int c = 0; c < n; c++) {
        x->q[c] += hstep * x->v[c] + 0.5 * hstep * hstep * x->vdot[c];
      }
      mbd_stage_touch(x, MBD_STAGE_NONE);
    }
    rc = mbd_kin_analyse(mr, x, t, tol, maxit, err);
    if (rc < 0) {
      break;
    }
    // inverse dynamics on the joint coordinates (M̄ q̈ + Φqᵀλ = ḡ: the cut joints', drives' and
    // norms' multipliers), then the Cartesian state and the tree joints' reactions by the
    // backward pass
    rc = mbd_inverse_dynamics(mr, x, err);
    if (rc == MBD_OK) {
      mbd_tree_poses(mr, x);
      mbd_tree_to_cartesian(mr, x, m, d, 1);
      rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_tree_multipliers(mr, x, m, d, err);
    }
    if (rc == MBD_OK) {
      mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
    }
    if (rc < 0) {
      break;
    }
    rc = mbd_kin_output(o, t, run, m, d, &maxp, &maxv, err);
  }
  mbd_kin_stats(run, w0, c0, hstep, x->newton_iterations, maxp, maxv);
  run->stats.code = code ? info.code : MBD_CODE_NUMERIC;
  run->stats.derive_time = info.derive_time;
  run->stats.compile_time = info.compile_time;
  run->stats.cache_hit = info.cache_hit;
  snprintf(run->stats.code_warning, sizeof run->stats.code_warning, "%s", info.warning);
  if (info.warning[0]) {
    mbd_model_warn(m, MSG_SIM_RUN_WARNING, info.warning);
  }
  mbd_sim_warn_start(m, run);
  mbd_run_finish(run, rc, err);
  mbd_data_free(x);
  mbd_code_free(code);
  mbd_model_free(mr);
  mbd_data_free(d);
  *out = run;
  return rc;
}
