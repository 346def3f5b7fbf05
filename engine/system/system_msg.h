/* mbd — message templates of coordinate-level systems (system/).  Two more are public in
 * mbd/system.h (MBD_MSG_SYS_DEGENERATE, MBD_MSG_SYS_UNSTABLE), and the run options use the
 * templates of sim/sim_msg.h.  One place for the text the user sees; the tests match these
 * templates, not copies of the text. */
#ifndef MBD_SYSTEM_MSG_H
#define MBD_SYSTEM_MSG_H

/* an allocation failed for a named system: system */
#define MSG_SYS_NOMEM "system '%s': out of memory"
/* an allocation failed where the message names no system */
#define MSG_SYS_NOMEM_PLAIN "system: out of memory"

/* a change to a system while it runs (from its own force function): system, what was tried */
#define MSG_SYS_RUNNING                                                                        \
  "system '%s' is running: %s is not allowed during its run (change the system before or " \
  "after s:simulate)"

/* the initial state violates a holonomic constraint where its gradient is zero: system,
 * constraint (1-based), its value */
#define MSG_SYS_INITIAL_STUCK                                                                   \
  "system '%s': the initial state violates holonomic constraint %d (value %g) where its "      \
  "gradient is zero, so no motion can restore it; give a consistent initial state with "        \
  "s:initial { q = {...}, qd = {...} }"

/* ---- coordinates ----------------------------------------------------------------------------- */

/* a system without coordinates */
#define MSG_SYS_NO_COORDS "system: needs at least one coordinate"
/* a coordinate name that is not an identifier: 1-based index, name */
/* a system name that is not UTF-8: the name escaped (\xNN), the offset of the first bad byte */
#define MSG_SYS_NAME_UTF8 \
  "system '%s': a name must be UTF-8 text (byte %ld is not); save the script as UTF-8"
#define MSG_SYS_COORD_NAME "system: coordinate %d: '%s' is not a valid name (letters, digits, _)"
/* a coordinate named t: 1-based index */
#define MSG_SYS_COORD_T "system: coordinate %d: 't' is the time; choose another name"
/* two coordinates of one name: name */
#define MSG_SYS_COORD_TWICE "system: coordinate '%s' is named twice"
/* a coordinate named like another's velocity (<name>_dot): name, the other coordinate */
#define MSG_SYS_COORD_CLASH \
  "system: coordinate '%s' clashes with the velocity of '%s'; choose another name"
/* the symbolic variables could not be made: the symbolic context's message */
#define MSG_SYS_VARS "system: %s"

/* ---- mass and force -------------------------------------------------------------------------- */

/* a mass entry is NaN or infinite: system, 1-based row, column, value */
#define MSG_SYS_MASS_ENTRY "system '%s': mass entry (%d, %d) is %g"
/* an unsymmetric mass matrix: system, 1-based row and column of the entry, then of its mirror */
#define MSG_SYS_MASS_SYMMETRIC \
  "system '%s': the mass matrix is not symmetric (entries (%d, %d) and (%d, %d) differ)"
/* the eigenvalue computation of the mass matrix failed: system */
#define MSG_SYS_MASS_EIG "system '%s': eigenvalues of the mass matrix failed"
/* a mass matrix that is not positive definite: system, smallest eigenvalue */
#define MSG_SYS_MASS_PD \
  "system '%s': the mass matrix must be positive definite (smallest eigenvalue %g)"
/* a constant force entry is NaN or infinite: system, 1-based entry, value */
#define MSG_SYS_FORCE_ENTRY "system '%s': force entry %d is %g"
/* set_force_fn without a function: system */
#define MSG_SYS_FORCE_NULL "system '%s': force function is NULL"

/* ---- expressions and constraints ------------------------------------------------------------- */

/* an expression argument is not an expression: system, what ("force entry 2",
 * "holonomic constraint 1", ...) */
#define MSG_SYS_NOT_EXPR "system '%s': %s is not an expression"
/* an expression uses a variable that is not the system's: system, what, variable */
#define MSG_SYS_FOREIGN_VAR                                                                     \
  "system '%s': %s uses the variable '%s', which is not one of its coordinates, velocities or " \
  "t"
/* a holonomic constraint with a velocity in it: system, what, velocity */
#define MSG_SYS_HOLO_VELOCITY                                                                  \
  "system '%s': %s depends on the velocity '%s': a holonomic constraint is a function of the " \
  "coordinates and t (use s:nonholonomic for velocity constraints)"
/* a nonholonomic constraint not linear in the velocities: system, what, the velocity
 * differentiated by, the velocity its derivative depends on */
#define MSG_SYS_NONLINEAR \
  "system '%s': %s is not linear in the velocities (its derivative by '%s' depends on '%s')"
/* a nonholonomic constraint without velocities: system, what */
#define MSG_SYS_NO_VELOCITY \
  "system '%s': %s does not depend on the velocities: write it with s:holonomic"
/* the symbolic derivation failed: system, what, the symbolic context's message */
#define MSG_SYS_DIFF "system '%s': %s: %s"

/* ---- the run --------------------------------------------------------------------------------- */

/* an initial coordinate or velocity is NaN or infinite: system, coordinate */
#define MSG_SYS_INITIAL "system '%s': initial value of '%s' is not finite"
/* warning: the initial state violates a constraint: system, "holonomic" or "nonholonomic",
 * 1-based constraint, value, ", rate " or "", rate (0 for a nonholonomic constraint) */
#define MSG_SYS_INITIAL_VIOLATION                                                     \
  "system '%s': the initial state violates %s constraint %d (value %.3g%s%.3g); the " \
  "stabilization, if any, pulls it back"
/* the SVD of the scaled constraint matrix did not converge: system, time */
#define MSG_SYS_SVD "system '%s': the SVD of A M^(-1/2) did not converge at t = %g"
/* a state derivative became NaN or infinite (MBD_E_NAN): system, "velocity" or "acceleration",
 * coordinate, value, time */
#define MSG_SYS_STATE_NAN "system '%s': the %s of '%s' became %g at t = %g: the run was stopped"

#endif
