/* mbd — message templates of the kinematics library (kinematics/): analyses, the rank test,
 * assembly, channels, drives.  formulations/ and sim/ use the analysis templates too.  One place
 * for the text the user sees; the tests match these templates, not copies of the text. */
#ifndef MBD_KINEMATICS_MSG_H
#define MBD_KINEMATICS_MSG_H

/* an allocation failed: who ("rank test", "assembly", "channels") */
#define MSG_KIN_NOMEM "%s: out of memory"
/* the least-squares SVD did not converge (MBD_E_SINGULAR): stage ("position analysis",
 * "velocity analysis", "kinematics", "inverse dynamics"), time */
#define MSG_KIN_SVD "%s at t = %g: SVD did not converge"
/* a QR factorization was rejected: stage ("rank test", "partitioning"), time */
#define MSG_KIN_QR "%s at t = %g: QR factorization failed"
/* KLU failed on a matrix other than by a zero pivot (a bug): which, time */
#define MSG_KIN_KLU "internal error: KLU rejected the %s at t = %g"
/* Newton's position analysis did not converge (MBD_E_NEWTON): time, iterations, the worst row,
 * its residual, the tolerance */
#define MSG_KIN_NEWTON                                                                   \
  "position analysis at t = %g did not converge in %d iterations: %s has residual %.3g " \
  "(tolerance %.3g)"
/* warning: a constraint row removed by the rank test: the row */
#define MSG_KIN_REDUNDANT "%s is redundant (rank test of the constraint Jacobian): removed"
/* warning: the mechanism starts at a singular configuration: rank there, rows */
#define MSG_KIN_SINGULAR_START                                                                   \
  "the mechanism starts at a singular configuration: the constraint Jacobian has rank %d of %d " \
  "rows here but not on leaving it (along the given motion, or a generic one at rest): every row is kept"
/* assembly failed (MBD_E_ASSEMBLY): model, the analysis's message */
#define MSG_KIN_ASSEMBLY "model '%s' cannot be assembled: %s"
/* a contact without restitution starts apart: contact, gap */
#define MSG_KIN_CONTACT_APART                                                                   \
  "contact '%s' starts %.3g m apart (its surfaces' gap along the normal) and has no "          \
  "restitution: closing it would move the bodies onto each other at t = 0; place the surfaces " \
  "in contact, or give restitution = e to start it open (it closes by an impact)"
/* a model without bodies: model */
#define MSG_KIN_NO_BODIES "model '%s': no bodies to simulate (add one with m:body)"
/* a drive's position function gave a NaN or infinity (MBD_E_NAN): joint, value, time */
#define MSG_KIN_DRIVE_VALUE "drive on joint '%s': position function gave %g at t = %g"

/* ---- the spanning tree of the relative formulation (tree.c) ---------------------------------- */

/* a cut joint that the model does not have: the name, model */
#define MSG_KIN_TREE_CUT "relative: cut joint '%s' is not a joint of model '%s'"
/* the joint coordinates at zero miss the assembled state (a bug or a wild assembly): model, the
 * residual, the row */
#define MSG_KIN_TREE_START                                                                   \
  "relative: the joint coordinates of model '%s' do not reproduce its assembled state (residual " \
  "%.3g at %s)"

/* relative coordinates and generated code take rigid bodies and joints only: the object, what it
 * is, the model */
#define MSG_KIN_TREE_UNSUPPORTED                                                                  \
  "model '%s': %s '%s' cannot be written in relative joint coordinates or generated code yet; "  \
  "use formulation augmented, baumgarte, gcp, kane or udwadia_kalaba with code = \"numeric\""
/* warning: the initial velocity analysis changed velocities the user gave: the largest change,
 * its body */
#define MSG_KIN_VEL_CHANGED                                                                      \
  "assembly changed the given velocities by up to %.3g (body '%s'): they contradict the joints; " \
  "the run starts from the nearest consistent ones"

#endif
