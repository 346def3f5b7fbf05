/* mbd — message templates of the finite elements (fem/): beam models, point masses, modes, mode
 * files and Matrix Market import.  One place for the text the user sees; the tests match these
 * templates, not copies of the text. */
#ifndef MBD_FEM_MSG_H
#define MBD_FEM_MSG_H

/* an allocation failed: what */
#define MSG_FEM_NOMEM "%s: out of memory"
/* a beam property not positive or not finite: the property, its value */
#define MSG_FEM_BEAM_VALUE "fem.beam: %s must be positive and finite, got %g"
/* too few or too many beam elements: the count */
#define MSG_FEM_BEAM_ELEMENTS "fem.beam: elements must be between 1 and 10000, got %d"
/* a node number outside the model: who ("add_mass", "modes"), the node, the number of nodes */
#define MSG_FEM_NODE "%s: node %d is not a node of the model (1 .. %d)"
/* a point mass or inertia negative or not finite: node */
#define MSG_FEM_MASS_VALUE "add_mass: node %d: mass and inertia must be finite and not negative"
/* an FE model from matrices without nodes: count */
#define MSG_FEM_NNODE "fem: an FE model needs at least one node, got %d"
/* a non-finite entry in a matrix given: which matrix, row, column (from 1) */
#define MSG_FEM_MATRIX_FINITE "fem: %s matrix entry (%d, %d) is not finite"
/* a mass matrix with a negative diagonal entry: row (from 1), node, DOF name */
#define MSG_FEM_MASS_DIAG "fem: mass matrix diagonal entry %d (node %d, %s) is negative"
/* modes: count out of range: count, free DOF */
#define MSG_FEM_MODES_COUNT "modes: count must be between 1 and %d (the free DOF), got %d"
/* modes: every DOF clamped */
#define MSG_FEM_MODES_NONE "modes: every node is clamped: there is nothing to vibrate"
/* modes: the mass matrix is not positive definite: node, DOF name */
#define MSG_FEM_MODES_MASS                                                                    \
  "modes: the mass matrix is not positive definite at node %d (%s): give that DOF a mass or " \
  "an inertia, or clamp the node"
/* modes: the eigensolver did not converge: count */
#define MSG_FEM_MODES_CONVERGE "modes: the eigensolver (dsygvd) did not converge (%d)"
/* modes: LAPACK argument error (a bug) */
#define MSG_FEM_LAPACK "modes: LAPACK argument error in dsygvd (a bug)"
/* file could not be opened: what, file, reason */
#define MSG_FEM_OPEN "%s: cannot open '%s': %s"
/* a file's content is malformed: file, line, what was expected */
#define MSG_FEM_PARSE "'%s', line %d: %s"
/* a file's content ended early: file, what was expected */
#define MSG_FEM_EOF "'%s': the file ends before %s"
/* Matrix Market sizes that do not fit the node table: file, rows, columns, expected DOF */
#define MSG_FEM_MTX_SIZE "'%s': a %d x %d matrix, but the node table gives %d DOF (6 per node)"
/* a node table missing a node: file, node */
#define MSG_FEM_NODES_MISSING "'%s': node %d is missing from the node table"
/* writing failed: file, reason */
#define MSG_FEM_WRITE "cannot write '%s': %s"
/* geometric stiffness needs a beam clamped at one node: what is missing */
#define MSG_FEM_GEOMETRIC \
  "geometric stiffening needs the modes of a beam along x clamped at one node: %s"
/* a selected mode out of range: the mode, the number of modes */
#define MSG_FEM_SELECT "flexible_body: select: mode %d is not one of the modes (1 .. %d)"
/* a negative or non-finite damping ratio: the mode */
#define MSG_FEM_DAMPING "flexible_body: damping of mode %d must be finite and not negative"

#endif
