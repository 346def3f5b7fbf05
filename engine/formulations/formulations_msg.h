/* mbd — message templates of the formulations (formulations/): option checks, singular
 * matrices, failed analyses.  One place for the text the user sees; the tests match these
 * templates, not copies of the text. */
#ifndef MBD_FORMULATIONS_MSG_H
#define MBD_FORMULATIONS_MSG_H

/* an allocation failed: who ("simulate", "partitioning", "udwadia_kalaba") */
#define MSG_FORM_NOMEM "%s: out of memory"

/* ---- options --------------------------------------------------------------------------------- */

/* position_tol not positive: the value */
#define MSG_FORM_POSITION_TOL "simulate: position_tol must be positive, got %g"
/* partitioning on coordinates whose rates are not their velocities: model, positions, velocities */
#define MSG_FORM_PART_COORDS                                                              \
  "simulate: coordinate partitioning needs coordinates whose rates are their velocities " \
  "(model '%s' has %d positions and %d velocities)"
/* stabilization matrices of the wrong size: their size (twice), model, constraint rows */
#define MSG_FORM_UK_STAB \
  "simulate: stabilization matrices are %d×%d but model '%s' has %d constraint rows"

/* relative: a solver it does not offer: its name */
#define MSG_FORM_REL_SOLVER \
  "simulate: formulation 'relative' solves with augmented, baumgarte, gcp or kane, not '%s'"
/* relative and generated code do not take contacts: the formulation's name, model */
#define MSG_FORM_REL_CONTACTS "simulate: formulation '%s' does not handle contacts (model '%s')"
/* relative: a cut joint the model does not have: name, model */
#define MSG_FORM_REL_CUT "simulate: cut joint '%s' is not a joint of model '%s'"
/* relative: a code number outside the list: the number */
#define MSG_FORM_REL_CODE "simulate: unknown code %d (numeric, tape, compiled)"
/* relative: a linear solver it does not offer: its name */
#define MSG_FORM_REL_LINSOLVE \
  "simulate: formulation 'relative' solves with linear_solver 'dense' or 'recursive', not '%s'"
/* relative: the recursive solve asked for with generated code: the code's name */
#define MSG_FORM_REL_RECURSIVE_CODE                                                     \
  "simulate: linear_solver 'recursive' runs on code 'numeric' (the generated equations of " \
  "code '%s' form M̄ densely): use linear_solver 'dense' or code 'numeric'"

/* a linear_solver a Cartesian formulation does not take (the binding's test, the table's
 * linear_solver_refused): the solver's name ("recursive") */
#define MSG_FORM_LINSOLVE_CARTESIAN                                                              \
  "simulate: linear_solver '%s' is for formulation 'relative' (joint coordinates on a spanning " \
  "tree)"
/* linear_solver: a number outside the list */
#define MSG_FORM_LINSOLVE \
  "simulate: unknown linear_solver %d (auto, dense, sparse, recursive)"
/* linear_solver "recursive" asked of a Cartesian formulation: its name */
#define MSG_FORM_RECURSIVE_CARTESIAN                                                             \
  "linear_solver 'recursive' is for formulation 'relative' (joint coordinates on a spanning "    \
  "tree), not %s"
/* linear_solver 'sparse' where the sparse solve is not written: what and why */
#define MSG_FORM_SPARSE_REFUSED \
  "simulate: linear_solver 'sparse' is not written for %s; use linear_solver 'dense' or 'auto'"

/* ---- warnings of a run that succeeded (the table's drift and near_singular: table.c) ------- */

/* warning: the constraints drifted beyond position_tol (augmented): the largest violation,
 * position_tol */
#define MSG_FORM_DRIFT_AUGMENTED                                                            \
  "the constraints drifted by up to %.3g during the run (position_tol = %g): augmented "    \
  "integrates every coordinate without projecting them back; use formulation kane or gcp, " \
  "baumgarte stabilization, or tighter rtol and atol"
/* warning: the same for baumgarte: the largest violation, position_tol, alpha, beta */
#define MSG_FORM_DRIFT_BAUMGARTE                                                             \
  "the constraints drifted by up to %.3g during the run (position_tol = %g): stabilization " \
  "(alpha = %g, beta = %g) damps drift without removing it; use formulation kane or gcp, "   \
  "tighter rtol and atol, or larger alpha and beta"
/* the same for the default's fallback to baumgarte (kane and gcp do not serve the model) */
#define MSG_FORM_DRIFT_BAUMGARTE_DEFAULT                                                           \
  "the constraints drifted by up to %.3g during the run (position_tol = %g): stabilization "       \
  "(alpha = %g, beta = %g) damps drift without removing it; use tighter rtol and atol, or larger " \
  "alpha and beta"
/* warning: augmented or baumgarte came near a singular configuration: formulation, time, the
 * relative pivot ratio */
#define MSG_FORM_NEAR_SINGULAR                                                                   \
  "%s passed near a singular configuration at t = %.6g (the leading matrix's pivot ratio fell "  \
  "to %.1e of its start) without its passage in partitioned coordinates (a model with contacts " \
  "or more than 300 coordinates): there it may leave the motion's branch unseen; kane and gcp "  \
  "pass singular configurations on their branch"

/* ---- LAPACK rejected an argument (MBD_E_LAPACK, a bug) --------------------------------------- */

/* the augmented leading matrix: its size (twice), time */
#define MSG_FORM_LAPACK_LEADING \
  "internal error: LAPACK rejected the leading matrix (%d×%d) at t = %g"
/* another matrix: which ("reduced matrix", "dependent block"), time */
#define MSG_FORM_LAPACK "internal error: LAPACK rejected the %s at t = %g"

/* ---- singular matrices and failed analyses --------------------------------------------------- */

/* augmented: the leading matrix is singular: time, how it was found, where (row or coordinate) */
#define MSG_FORM_SINGULAR_LEADING                                                            \
  "the leading matrix [M Φqᵀ; Φq 0] is singular at t = %g (%s at %s): a body without mass or " \
  "inertia along a joint's coordinates, or a redundant constraint"
/* kane: the reduced matrix is singular: time, pivot */
#define MSG_FORM_SINGULAR_REDUCED "the reduced matrix [BᵀM; Φq] is singular at t = %g (pivot %d)"
/* partitioning: the constraint Jacobian lost rank: time, rank, active rows */
#define MSG_FORM_PART_RANK \
  "partitioning at t = %g: the constraint Jacobian has rank %d < %d (singular configuration)"
/* partitioning: the dependent block of the chosen partition is singular: time */
#define MSG_FORM_PART_DEPENDENT "partitioning at t = %g: dependent block is singular"
/* partitioned position analysis: the dependent block is singular: time, the pivot's coordinate */
#define MSG_FORM_PART_POS_SINGULAR \
  "position analysis at t = %g: the dependent block of Φq is singular (pivot at %s)"
/* partitioned position analysis: the residual is a NaN or infinity (MBD_E_NAN): time, residual */
#define MSG_FORM_PART_POS_NAN "position analysis at t = %g: the constraints became %g"
/* partitioned position analysis did not converge (MBD_E_NEWTON): time, iterations, residual,
 * tolerance */
#define MSG_FORM_PART_NEWTON                                                                 \
  "position analysis at t = %g did not converge in %d iterations (residual %.3g, tolerance " \
  "%.3g)"
/* udwadia_kalaba: the augmented mass matrix is not positive definite: time, where */
#define MSG_FORM_UK_MASS \
  "udwadia_kalaba: the augmented mass matrix is not positive definite at t = %g (at %s)"
/* udwadia_kalaba: the projection onto the constraints did not converge (MBD_E_NEWTON): time,
 * iterations, residual, tolerance */
#define MSG_FORM_UK_PROJECT                                                                  \
  "udwadia_kalaba: the projection onto the constraints at t = %g did not converge in %d " \
  "iterations (residual %.3g, tolerance %.3g)"
/* udwadia_kalaba: the SVD of the scaled constraint matrix did not converge: time */
#define MSG_FORM_UK_SVD "udwadia_kalaba: the SVD of Φq M^(-1/2) did not converge at t = %g"
/* near a singular configuration: the SVD of Gauss's principle did not converge: time */
#define MSG_FORM_GAUSS_SVD \
  "Gauss's principle near a singular configuration: the SVD of Φq M^(-1/2) did not converge at " \
  "t = %g"
/* Gauss's principle: the augmented mass matrix is not positive definite: time, where */
#define MSG_FORM_GAUSS_MASS \
  "the mass matrix (with the Euler parameters' augmentation) is not positive definite at t = %g " \
  "(at %s)"
/* the passage of a singular configuration could not start (no consistent state near): time */
#define MSG_FORM_PASSAGE \
  "a singular configuration at t = %g: no consistent state near the integrated one to pass it from"
/* the recursive solve chose the rows again three times in one evaluation: time */
#define MSG_FORM_ABA_RESELECT \
  "the cut joints' rows were chosen again three times at t = %g without a regular set: a " \
  "constraint is redundant along the motion"
/* a locked mechanism (MBD_E_SINGULAR): time, the row that misses most, by how much of the scale */
#define MSG_FORM_LOCKED                                                                          \
  "the mechanism locks at t = %g: Φq has lost rank and no acceleration meets the constraints " \
  "(%s misses by %.2g of the equations' scale): a drive or force pushes it through a dead "    \
  "centre, or the given velocities leave the constraints"
/* udwadia_kalaba: the SVD for the multipliers did not converge: time */
#define MSG_FORM_UK_MULT_SVD "udwadia_kalaba: multipliers: SVD did not converge at t = %g"

/* ---- contacts (contact_dynamics.c) ------------------------------------------------------------------- */

/* the fixed-point iteration on the normal forces did not converge: contact, time, iterations,
 * the last change of N */
#define MSG_FORM_CONTACT_FIXED_POINT                                                            \
  "contact '%s': the normal force did not converge at t = %g (%d fixed-point iterations, last " \
  "change %.3g N): the friction changes the normal force more than it is itself"
/* the normal force fell to zero where the contact may not open: contact, time, N */
#define MSG_FORM_CONTACT_SEPARATE                                                               \
  "contact '%s': the normal force fell to zero at t = %g (N = %.3g N): the bodies would "        \
  "separate; give the contact a restitution to let them fly and meet again"
/* the contact point reached the end of a surface's parameter range: contact, time, surface,
 * parameter, its value, lo, hi (the same text as contact/'s MSG_CONTACT_RANGE) */
#define MSG_FORM_CONTACT_RANGE \
  "contact '%s': at t = %g the contact point left surface '%s': %s = %g is outside {%g, %g}"
/* the impulse of an impact could not be found: contact, time */
#define MSG_FORM_CONTACT_IMPACT "contact '%s': the impact at t = %g has no impulse (singular)"

#endif
