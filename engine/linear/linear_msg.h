/* mbd — message templates of the equilibrium and the linearization (linear/).  One place for the
 * text the user sees; the tests match these templates. */
#ifndef MBD_LINEAR_MSG_H
#define MBD_LINEAR_MSG_H

/* an allocation failed: what */
#define MSG_LIN_NOMEM "%s: out of memory"
/* the model is not assembled (MBD_E_STATE): function, model */
#define MSG_LIN_NOT_ASSEMBLED "%s: model '%s' is not assembled"
/* contacts or joint friction: function, model */
#define MSG_LIN_CONTACTS                                                                       \
  "%s: model '%s' has contacts or joints with friction, whose regimes switch: not linearized " \
  "(remove them, or study the motion with simulate)"
/* no degree of freedom: function, model */
#define MSG_LIN_NO_DOF \
  "%s: model '%s' has no degree of freedom left (its joints and drives fix every coordinate)"
/* a formulation that has none of the reduced equations: function, name */
#define MSG_LIN_FORMULATION "%s: formulation '%s' is not available here"
/* the operating point could not be made consistent: function, t, the engine's message */
#define MSG_LIN_STATE "%s: the state at t = %g: %s"
/* the right-hand side failed at a perturbed state: function, coordinate, the engine's message */
#define MSG_LIN_RHS "%s: the equations failed near the operating point (moving '%s'): %s"
/* a singular configuration: function, t, pivot ratio */
#define MSG_LIN_SINGULAR                                                                      \
  "%s: singular configuration at t = %g: the constraint Jacobian has lost rank (pivot ratio " \
  "%.2g), the independent coordinates are not defined there"
/* an output channel that the model does not have: channel, model */
#define MSG_LIN_OUTPUT "linearize: output '%s' is not a channel of model '%s'"
/* a bad input: index (1-based), why */
#define MSG_LIN_INPUT "linearize: input %d: %s"
/* a symmetry of a steady motion on model in joint coordinates (relative) or analytic method */
#define MSG_LIN_STEADY_TREE                                                                   \
  "linearize: steady = {...} needs Cartesian coordinates (formulation kane, gcp, augmented, " \
  "baumgarte or udwadia_kalaba) and method 'differences'"
/* a bad symmetry: index (1-based), why */
#define MSG_LIN_STEADY "linearize: steady %d: %s"
/* the analytic method on a model it does not serve: why */
#define MSG_LIN_ANALYTIC "linearize: method 'analytic' needs generated equations: %s"
/* an eigenvalue solve failed: what, the status */
#define MSG_LIN_EIG "%s: eigenvalues: %s"
/* the model changed since the linearization (mode runs): model */
#define MSG_LIN_CHANGED \
  "linearize: model '%s' changed since the linearization (bodies, joints or coordinates differ)"
/* a mode index out of range: k (1-based), count */
#define MSG_LIN_MODE "linearize: mode %d does not exist (%d modes)"
/* a state that is not an equilibrium (a warning): t, the residual, the coordinate */
#define MSG_LIN_NOT_EQUILIBRIUM                                                                \
  "the state at t = %g is not an equilibrium (|xdot| = %.3g of the system's rates, on '%s'): " \
  "A is the Jacobian along the motion and its eigenvalues are not frequencies of that motion " \
  "(linearize about an equilibrium, or give the symmetries of a steady motion: steady = {...})"
/* a steady motion the symmetries do not explain (a warning): residual, coordinate */
#define MSG_LIN_NOT_STEADY                                                                   \
  "the state is not a steady motion of the given symmetries (|xdot - rate g| = %.3g of the " \
  "system's rates, on '%s'): the frame that moves with them does not hold it at rest"
/* a writer's format */
#define MSG_LIN_WRITE_FORMAT "linearize: write: unknown format %d"

/* equilibrium: a joint in fixed = {...} that has no relative coordinate: joint, type */
#define MSG_EQ_FIXED                                                                  \
  "equilibrium: fixed joint '%s' (%s) has no relative coordinate to hold (revolute, " \
  "translational or cylindrical)"
/* equilibrium: the options: what */
#define MSG_EQ_OPTS "equilibrium: %s"
/* a neutral direction: model, coordinate */
#define MSG_EQ_NEUTRAL                                                                       \
  "equilibrium: model '%s' has a neutral direction along '%s': nothing restores it (a free " \
  "motion, a rigid-body mode); hold it by a joint or a spring, or list a joint in fixed = {...}"
/* no equilibrium along a free direction: model, force, coordinate */
#define MSG_EQ_UNBALANCED                                                                    \
  "equilibrium: model '%s' has no equilibrium: a generalized force %.4g acts along '%s', a " \
  "direction nothing restores (the motion accelerates forever)"
/* no convergence: iterations, residual, coordinate, why */
#define MSG_EQ_NO_CONVERGENCE                                                                \
  "equilibrium: no equilibrium found after %d iterations: a generalized force %.4g is left " \
  "on '%s' (%s); start nearer to it (the bodies' poses), or hold joints with fixed = {...}"
/* the line search found no decrease: why */
#define MSG_EQ_STALLED "the residual stopped decreasing"
/* the iteration cap */
#define MSG_EQ_MAX_ITER "the iteration limit was reached"
/* the rows with the fixed joints lose rank: t */
#define MSG_EQ_SINGULAR                                                                    \
  "equilibrium: singular configuration: the constraints (with the joints held) have lost " \
  "rank at the pose reached (rows %d of %d independent)"
/* the position analysis failed at an iterate: the engine's message */
#define MSG_EQ_COMPLETE "equilibrium: the constraints could not be met at an iterate: %s"

#endif
