/* what both kinematic analyses (driven.c on the model's coordinates,
 * driven_relative.c on a spanning tree's) do at each output and at the end: the reactions and
 * drive efforts by inverse dynamics, and the run's counters */
#include <math.h>
#include <string.h>

#include "../kinematics/kinematics.h"
#include "../kinematics/kinematics_msg.h"
#include "run_impl.h"
#include "sim_msg.h"

/* inverse dynamics: Φqᵀλ = Q − M v̇ (least squares; exact when the mechanism is fully driven) */
int mbd_inverse_dynamics(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv, ma = d->ma;
  int rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
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
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

void mbd_kin_stats(mbd_run *run, double w0, double c0, double hstep, long newton, double maxp,
                   double maxv) {
  run->stats.wall_time = mbd_clock_wall() - w0;
  run->stats.cpu_time = mbd_clock_cpu() - c0;
  run->stats.steps = run->nsamp > 0 ? run->nsamp - 1 : 0;
  run->stats.avg_step = hstep;
  run->stats.newton_iterations = newton;
  run->stats.max_position_violation = maxp;
  run->stats.max_velocity_violation = maxv;
}

int mbd_kin_start(const mbd_model *m, const mbd_kin_opts *o, mbd_run **run, mbd_data **d,
                  mbd_error *err) {
  *run = NULL;
  *d = NULL;
  int fits = mbd_run_fits(m->nchannel, o->steps + 1, "kinematics", "take fewer steps", err);
  if (fits < 0) {
    return fits;
  }
  *run = mbd_run_alloc(m, o->steps + 1);
  *d = *run ? mbd_data_alloc(m, err) : NULL;
  if (!*d) {
    mbd_run_free(*run);
    *run = NULL;
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "kinematics");
  }
  return MBD_OK;
}

int mbd_kin_output(const mbd_kin_opts *o, double t, mbd_run *run, const mbd_model *m,
                   const mbd_data *d, double *maxp, double *maxv, mbd_error *err) {
  if (o->poll) {
    int rc = o->poll(o->poll_ud, t, err);
    if (rc < 0) {
      return rc;
    }
  }
  *maxp = fmax(*maxp, mbd_position_violation(m, d));
  *maxv = fmax(*maxv, mbd_velocity_violation(m, d));
  return mbd_run_record(run, m, d, err);
}
