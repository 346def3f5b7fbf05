/* mbd — the evaluation as stages (model_impl.h, mbd_stage): mbd_eval_to brings an mbd_data up to
 * a stage for the state (t, q, v) it holds, doing only what is not realized yet.
 *
 *   NONE → POSITION      the pose cache (mbd_kin_poses), Φ, Φq, Φt of every row without γ
 *                        (mbd_constraints_eval, MBD_EVAL_POSITION), the active rows gathered
 *   NONE → VELOCITY      the same pass with γ (every row formed once): the common case
 *   POSITION → VELOCITY  the poses' rates and γ only (MBD_EVAL_GAMMA): Φ, Φq, Φt stand
 *   VELOCITY → FORCES    M and Q (model/forces.c)
 *
 * The acceleration stage (v̇, λ) is a formulation's solve; it marks it with mbd_stage_reached.
 * Each stage realized is passed to d's recorder when it has one (m:explain's). */
#include "kinematics.h"

int mbd_eval_realize(const mbd_model *m, mbd_data *d, int stage, mbd_error *err) {
  int have = d->stage, rc;
#ifndef NDEBUG
  mbd_stage_check(m, d, have);  // (what is realized stands for the state in d)
#endif
  if (have < MBD_STAGE_POSITION) {
    // every row formed once: with γ unless only the positions are asked for (a Newton step)
    mbd_kin_poses(m, d);
    rc = mbd_constraints_eval(m, d, stage == MBD_STAGE_POSITION ? MBD_EVAL_POSITION : 0, err);
    if (rc != MBD_OK) {
      return rc;
    }
    mbd_constraints_gather(m, d);
    mbd_stage_reached(m, d, MBD_STAGE_POSITION);
    if (stage == MBD_STAGE_POSITION) {
      return MBD_OK;
    }
    mbd_stage_reached(m, d, MBD_STAGE_VELOCITY);
  } else if (have < MBD_STAGE_VELOCITY) {
    // only v moved: the poses' rates, then γ (Φ, Φq, Φt and their copies stand)
    mbd_kin_rates(m, d);
    rc = mbd_constraints_eval(m, d, MBD_EVAL_GAMMA, err);
    if (rc != MBD_OK) {
      return rc;
    }
    for (int k = 0; k < d->ma; k++) {
      d->gamma_a[k] = d->gamma[d->active[k]];
    }
    mbd_stage_reached(m, d, MBD_STAGE_VELOCITY);
  }
  if (stage >= MBD_STAGE_FORCES) {
    rc = mbd_forces_eval(m, d, err);
    if (rc != MBD_OK) {
      return rc;
    }
    mbd_stage_reached(m, d, MBD_STAGE_FORCES);
  }
  return MBD_OK;
}
