/* mbd — message templates of flexible bodies (model/flex_body.c).  One place for the text the user
 * sees; the tests match these templates, not copies of the text. */
#ifndef MBD_FLEX_MSG_H
#define MBD_FLEX_MSG_H

/* sizes out of range: body, nodes, modes */
#define MSG_FLEX_SIZES \
  "flexible body '%s': needs 1 to 99999 nodes and 0 to 500 modes, got %d nodes and %d modes"
/* a NaN or infinity in the nodes, masses, shapes or matrices: body, what */
#define MSG_FLEX_FINITE "flexible body '%s': %s must be finite"
/* a negative nodal mass or rotary inertia: body, node */
#define MSG_FLEX_MASS "flexible body '%s': node %d has a negative mass or rotary inertia"
/* no mass at all: body */
#define MSG_FLEX_NO_MASS "flexible body '%s': its nodes carry no mass"
/* a planar model and a node off the plane: body, node, z */
#define MSG_FLEX_PLANE_NODE \
  "flexible body '%s': node %d is off the plane of a planar model (z = %g)"
/* a planar model and a mode that leaves the plane: body, mode label */
#define MSG_FLEX_PLANE_MODE \
  "flexible body '%s': %s moves out of the plane of a planar model (select in-plane modes)"
/* a mode whose shape moves no mass and no inertia: body, mode label */
#define MSG_FLEX_MODAL_MASS                                                                  \
  "flexible body '%s': %s has a singular modal mass: its shape moves no lumped mass and no " \
  "rotary inertia (a torsion mode needs rotary_inertia = true)"
/* modes whose shapes are dependent in the lumped mass: body, mode label */
#define MSG_FLEX_MODAL_DEPENDENT                                                          \
  "flexible body '%s': the modal mass matrix is singular at %s (the selected shapes are " \
  "dependent)"
/* a mode with no stiffness: body, mode label */
#define MSG_FLEX_RIGID_MODE                                                                      \
  "flexible body '%s': %s has no stiffness (a rigid-body mode): the floating frame carries the " \
  "rigid motion, select elastic modes"
/* a modal stiffness or damping that is not symmetric: body, which */
#define MSG_FLEX_SYMMETRIC "flexible body '%s': the modal %s matrix must be symmetric"
/* a spatial model with Euler parameters all zero: body */
#define MSG_FLEX_EULER_ZERO "flexible body '%s': Euler parameters are all zero"
/* a beam element with a node out of range: body, element, its nodes, node count */
#define MSG_FLEX_ELEMENT "flexible body '%s': element %d joins nodes %d and %d, outside 1 .. %d"
/* out of memory: body */
#define MSG_FLEX_NOMEM "flexible body '%s': out of memory"

#endif
