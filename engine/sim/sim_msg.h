/* mbd — message templates of the run drivers (sim/): options of simulate and kinematics, the
 * recorder, values that stop a run.  system/system_run.c checks the same run options and uses the
 * same templates.  One place for the text the user sees; the tests match these templates, not
 * copies of the text. */
#ifndef MBD_SIM_MSG_H
#define MBD_SIM_MSG_H

/* an allocation failed: who ("simulate", "kinematics", "write_csv") */
#define MSG_SIM_NOMEM "%s: out of memory"
/* an allocation failed during a run: time */
#define MSG_SIM_NOMEM_AT "simulate: out of memory at t = %g"

/* ---- simulate: options and the model --------------------------------------------------------- */

/* t_end not positive: t_end */
#define MSG_SIM_T_END "simulate: t_end must be positive, got %g"
/* a formulation this model does not have: formulation name, model */
#define MSG_SIM_FORMULATION                                                     \
  "simulate: formulation '%s' is not available for model '%s' yet (available: " \
  "augmented, baumgarte, gcp, kane, udwadia_kalaba, relative)"
/* an integrator number outside the list: the number */
#define MSG_SIM_INTEGRATOR "simulate: unknown integrator %d"
/* output_every not positive: output_every */
#define MSG_SIM_OUTPUT_EVERY "simulate: output_every must be positive, got %g"
/* output_every so small the sample count overflows: output_every, the largest count */
#define MSG_SIM_TOO_MANY_SAMPLES \
  "simulate: output_every %g gives too many samples (at most %d): sample less often"
/* the recorder would not fit: who ("simulate", "kinematics"), samples, channels, GB needed, GB
 * allowed, the remedy */
#define MSG_SIM_RECORDER_TOO_LARGE                                                             \
  "%s: %d samples of %d channels need %.3g GB to record, more than the %.3g GB allowed (a "    \
  "quarter of the memory, or MBD_MAX_WORKSPACE_GB): %s"
/* negative Baumgarte coefficients */
#define MSG_SIM_BAUMGARTE "simulate: Baumgarte alpha and beta must not be negative"
/* simulate on a model that is not assembled (MBD_E_STATE): model */
#define MSG_SIM_NOT_ASSEMBLED "simulate: model '%s' is not assembled"
/* simulate on a fully driven mechanism: model */
#define MSG_SIM_NO_DOF                                                                \
  "simulate: model '%s' has no degree of freedom left; use m:kinematics for a fully " \
  "driven mechanism"
/* more stop functions than the root mask holds */

/* warning: what a run's formulation reported (relative: compiled code fell back to the tape) */
#define MSG_SIM_RUN_WARNING "%s"
/* the integration stalled (MBD_E_INTEGRATOR): time, steps, the time they advanced, rtol, atol */
#define MSG_SIM_STALLED                                                                          \
  "simulate: the integration stalled at t = %.9g (%ld steps advanced it by %.3g s): the "        \
  "mechanism is probably at a singular configuration, where rounding errors exceed rtol = %g, " \
  "atol = %g; loosen the tolerances (1e-8 passes singular configurations)"

/* warning: assembly moved a body from the position it was given onto its joints (or contacts):
 * body, distance [m], the model's size [m] */
#define MSG_SIM_MOVED                                                                            \
  "assembly moved body '%s' by %.3g m from the position it was given (the model's size is %.3g " \
  "m) to satisfy its joints and contacts: the run starts from there; check the pose"
/* warning: assembly turned a body from the orientation it was given: body, angle in degrees */
#define MSG_SIM_TURNED                                                                           \
  "assembly turned body '%s' by %.3g degrees from the orientation it was given to satisfy its " \
  "joints: the run starts from there; check the pose (an angle in degrees instead of radians?)"
/* warning: a relative tolerance too loose to mean anything: rtol, the limit */
#define MSG_SIM_LOOSE_RTOL                                                                       \
  "rtol = %g is too loose to mean anything (above %g): the integrator may keep errors of that " \
  "size in every step; use rtol = 1e-6 or tighter"
/* warning: default samples (the accepted steps, thinned) still much wider than the integrator's
 * steps, on a run of very many steps: average sample spacing, the most samples, average step */
#define MSG_SIM_ALIAS                                                                            \
  "the samples are %.3g s apart on average (the default: the integrator's steps, thinned to at " \
  "most %d samples) while its steps averaged %.3g s: the recorded motion may be aliased; set "   \
  "output_every"
/* note: the default formulation did not serve the model: the formulation that ran, the reason */
#define MSG_SIM_DEFAULT_NOTE \
  "formulation %s (the default where kane does not serve: %s); give formulation to choose"
/* reasons of MSG_SIM_DEFAULT_NOTE: the model's name */
#define MSG_SIM_DEFAULT_NO_DOF \
  "model '%s' has no degree of freedom left, so kane would have no coordinate to integrate"
#define MSG_SIM_DEFAULT_REDUNDANT                                                              \
  "model '%s' has %d redundant constraint rows, where the rows kept at assembly can lie flat " \
  "while the mechanism moves on, and kane's partition stops there"
#define MSG_SIM_DEFAULT_COORDS \
  "model '%s' has coordinates whose rates are not its velocities, which kane cannot partition"
/* warning: position analyses stopped at their rounding floor: the largest residual, position_tol,
 * how many, the first time */
#define MSG_SIM_NEWTON_FLOOR                                                                      \
  "position analyses stopped at the rounding floor of the constraints, up to %.3g above "       \
  "position_tol = %g (%ld times, the first at t = %g): the constraints cannot be met more "     \
  "closely at the size of these coordinates; a larger position_tol, or the scene nearer the origin"

/* ---- kinematics: options and the model ------------------------------------------------------- */

/* t_end not positive or no steps */
#define MSG_SIM_KIN_OPTS "kinematics: t_end must be positive and steps at least 1"
/* more steps than samples allowed: steps, the limit */
#define MSG_SIM_KIN_STEPS "kinematics: steps = %d is too many (at most %d)"
/* kinematic analysis of a mechanism with free degrees of freedom: model, dof, "" or "s" */
#define MSG_SIM_KIN_DOF                                                                       \
  "kinematics: model '%s' has %d degree%s of freedom left; kinematic analysis needs a fully " \
  "driven mechanism (add drives, or use simulate)"

/* ---- during a run ---------------------------------------------------------------------------- */

/* a state derivative became NaN or infinite (MBD_E_NAN): "velocity" or "acceleration", the
 * coordinate, its value, time */
#define MSG_SIM_STATE_NAN "the %s of %s became %g at t = %g: the run was stopped"
/* a recorded channel became NaN or infinite (MBD_E_NAN): channel, value, time */
#define MSG_SIM_CHANNEL_NAN "channel '%s' became %g at t = %g: the run was stopped"
/* a stop_when function returned NaN or infinity (MBD_E_NAN): value, time */
#define MSG_SIM_STOP_NAN "stop_when: the function returned %g at t = %g"
/* more samples than the recorder was sized for (MBD_E_STATE, a bug): time, capacity */
#define MSG_SIM_RECORDER_FULL "recorder full at t = %g (%d samples)"

/* ---- after a run ----------------------------------------------------------------------------- */

/* write_csv asked for a channel the run does not have: channel */
#define MSG_SIM_NO_CHANNEL "write_csv: no channel '%s'"

/* contacts with a formulation that does not handle them: formulation, model */
#define MSG_SIM_CONTACTS "simulate: formulation '%s' does not handle contacts (model '%s')"

#endif
