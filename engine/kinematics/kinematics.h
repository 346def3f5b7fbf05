/* mbd — the kinematics stages (private to kinematics/, formulations/, sim/): the pose cache, the
 * constraint rows and their Jacobians, position and velocity analyses, the rank test and the
 * re-selection of active rows, channels, assembly.
 *
 * The state's path inside one evaluation, as stages (mbd_eval_to, stages.c): d->q, d->v →
 * mbd_kin_poses (the pose cache) → mbd_constraints_eval (every row in pose coordinates,
 * scattered through the pose Jacobians into Φq over v) → mbd_constraints_gather (the active
 * rows) → mbd_forces_eval (model/forces.c) → a formulation's solve. */
#ifndef MBD_KINEMATICS_H
#define MBD_KINEMATICS_H

#include "../model/model_impl.h"

/* the poses of every body from d->q and d->v (kinematics/poses.c) */
void mbd_kin_poses(const mbd_model *m, mbd_data *d);
/* the poses' rates (ṙ, ṗ, ω, and what depends on v) from d->v, the positions d->q unchanged
 * since the last mbd_kin_poses: the same pose cache at a fraction of its cost */
void mbd_kin_rates(const mbd_model *m, mbd_data *d);
/* q̇ from v through the blocks' maps (rigid bodies: q̇ = v) */
void mbd_kin_qdot(const mbd_model *m, const double *q, const double *v, double *qdot);
/* q ← q ⊕ dv: a change of the velocity coordinates applied to the positions (rigid: q += dv) */
void mbd_kin_move(const mbd_model *m, double *q, const double *dv);

/* Φ, Φq, Φt, γ of all rows at the cached poses and d->t (kinematics/constraints.c); the spatial
 * angle memos follow the motion.  flags = MBD_EVAL_GAMMA when only v changed since the last
 * evaluation: γ is recomputed and Φq, Φt left as they are. */
#define MBD_EVAL_GAMMA 2
/* flags = MBD_EVAL_POSITION: a Newton iteration of a position analysis, which reads Φ, Φq and Φt
 * only; γ (and what generated equations give with it: M̄, ḡ) may be left stale until an update
 * with MBD_EVAL_GAMMA or 0 at the same positions (the numeric stage leaves γ, the contacts'
 * moving-point terms and parameter rates; the poses' rates are computed) */
#define MBD_EVAL_POSITION 4
int mbd_constraints_eval(const mbd_model *m, mbd_data *d, int flags, mbd_error *err);
/* copy the active rows into phi_a, phiq_a, gamma_a, phit_a */
void mbd_constraints_gather(const mbd_model *m, mbd_data *d);
/* bring d up to `stage` (mbd_stage, model_impl.h) for the state it holds, doing only what is not
 * realized yet (kinematics/stages.c): MBD_STAGE_POSITION (poses, Φ, Φq, Φt, gathered),
 * MBD_STAGE_VELOCITY (with the poses' rates and γ) or MBD_STAGE_FORCES (with M and Q).  The
 * acceleration stage is a formulation's solve.  (mbd_eval_realize: the stages missing below
 * `stage`, called when one is.) */
int mbd_eval_realize(const mbd_model *m, mbd_data *d, int stage, mbd_error *err);
static inline int mbd_eval_to(const mbd_model *m, mbd_data *d, int stage, mbd_error *err) {
  if (mbd_stage_has(m, d, stage)) {
    return MBD_OK;
  }
  if (stage == MBD_STAGE_FORCES && d->stage == MBD_STAGE_VELOCITY) {
    // (an evaluation's last step, written here: a formulation's state has just realized the rest)
    int rc = mbd_forces_eval(m, d, err);
    if (rc == MBD_OK) {
      mbd_stage_reached(m, d, MBD_STAGE_FORCES);
    }
    return rc;
  }
  return mbd_eval_realize(m, d, stage, err);
}
/* the same from the state alone, every stage again: for a caller that wrote t, q or v itself */
static inline int mbd_eval_anew(const mbd_model *m, mbd_data *d, int stage, mbd_error *err) {
  mbd_stage_touch(d, MBD_STAGE_NONE);
  return mbd_eval_to(m, d, stage, err);
}

/* max |Φ| over the position-level rows, max |Φq v + Φt| over all rows (every row, also those
 * set aside as redundant: constraints evaluated) */
double mbd_position_violation(const mbd_model *m, const mbd_data *d);
double mbd_velocity_violation(const mbd_model *m, const mbd_data *d);
/* max |Φ| over the active rows, from the gathered copy (the Newton residual) */
double mbd_active_residual(const mbd_model *m, const mbd_data *d);

/* position analysis on the active rows: minimum-norm Newton from d->q, every coordinate free
 * (kinematics/analysis.c).  MBD_OK or MBD_E_NEWTON naming the row of the largest residual. */
int mbd_position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                          mbd_error *err);
/* the same, refined near singular configurations: Newton goes on below tol to the rounding
 * level of the coordinates while its step still shrinks quadratically (dense) */
int mbd_position_project(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                         mbd_error *err);
/* Newton at the rounding floor of its rows (analysis.c): the residual res has stopped falling
 * (above 0.9 of the last, from the third iteration on) while below MBD_NEWTON_FLOOR_REL of the
 * coordinates' size qmax — the constraints cannot be met more closely there (a contact's gap is
 * solved to 1e-13 of the bodies' distance from the origin, a far scene's rows round at ε·|q|).
 * 1: accept it, counted on d (the run warns once); 0: go on (or fail as before). */
#define MBD_NEWTON_FLOOR_REL 1e-9
int mbd_newton_floor(mbd_data *d, int it, double res, double res_prev, double qmax);
/* velocity analysis: minimum-norm correction of d->v so that Φq v + Φt = 0 on the active rows
 * (constraints evaluated and gathered) */
int mbd_velocity_analysis(const mbd_model *m, mbd_data *d, mbd_error *err);
/* position, velocity and acceleration analyses of a fully driven mechanism at t (d->q the
 * starting guess): MBD_OK or the failing analysis' status */
int mbd_kin_analyse(const mbd_model *m, mbd_data *d, double t, double tol, int maxit,
                    mbd_error *err);
/* choose the active rows again at the current state when some were set aside: 1 when the set
 * changed (rows gathered again), 0 when kept, < 0 on error */
int mbd_reselect_rows(const mbd_model *m, mbd_data *d, mbd_error *err);

/* the sparse form of Φq (model_impl.h, mbd_sparse; kinematics/constraints.c).  Row r of Φq
 * times x.  The dense d->phiq and d->phiq_a from the sparse values (rows evaluated and gathered):
 * for the rare steps written densely only (re-selecting rows, Gauss's principle, a contact
 * event's projections).  The form switched on or off for d: off, the dense arrays are filled from
 * the sparse values first, so an evaluation can go on densely where it stands. */
double mbd_sparse_row_dot(const mbd_data *d, int r, const double *x);
void mbd_sparse_densify(const mbd_model *m, mbd_data *d);
void mbd_sparse_set(const mbd_model *m, mbd_data *d, int on);

/* the leading matrix [M Φqᵀ; Φq 0] of the active rows in the sparse form (kinematics/kkt.c), M
 * and the rows evaluated — identity = 1: [I Φqᵀ; Φq 0], whose solution with [0; r] is the
 * minimum-norm Δv of Φq Δv = r — written and factored: a new pattern and its symbolic analysis
 * when the active rows changed, else a refactorization.  0, k > 0 singular (k − 1 the column: a
 * coordinate below nv, else active row k − 1 − nv), < 0 with err.  *ratio the pivot ratio, *kmin
 * the column of the smallest pivot.  Then solves with it, rhs of nv + ma entries overwritten. */
int mbd_kkt_factor(const mbd_model *m, mbd_data *d, int identity, double *ratio, int *kmin,
                   mbd_error *err);
void mbd_kkt_solve(mbd_data *d, double *rhs);

/* the model's channels (kinematics/channels.c), built by assembly */
int mbd_channels_build(mbd_model *m, mbd_error *err);

/* the rank test of assembly on Φq in d (all rows evaluated): m->active0, ma0, rank; redundant
 * rows named in warnings (kinematics/assemble.c) */
int mbd_kin_rank_test(mbd_model *m, const mbd_data *d, mbd_error *err);
/* whether an assembly of m keeps Φq in its sparse form from the start (d->sp on): a large model
 * whose analyses go through it (analysis.c), no contacts or frictional joints (their stages read
 * the dense Φq); the dense arrays are written only where a step needs them (a redundant row's
 * SVD, a singular start) */
int mbd_kin_sparse_assembly(const mbd_model *m, const mbd_data *d);

#endif
