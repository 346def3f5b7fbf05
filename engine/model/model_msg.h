/* mbd — message templates of the model library (model/): building, the model's data, forces.
 * One place for the text the user sees; the tests match these templates, not copies of the text.
 * Each template is a string literal, so the compiler checks the arguments of every MBD_FAIL. */
#ifndef MBD_MODEL_MSG_H
#define MBD_MODEL_MSG_H

/* ---- the model ------------------------------------------------------------------------------- */

/* mbd_model_new with a dimension other than 2 or 3: model name, dim */
#define MSG_MODEL_DIM "model '%s': dim must be 2 or 3, got %d"
/* an allocation failed: who ("model", "drive", "spring", "rotational_spring", "force", "torque") */
#define MSG_MODEL_NOMEM "%s: out of memory"
/* an allocation for a named object failed: kind ("body" or the joint type), name */
#define MSG_MODEL_OBJ_NOMEM "%s '%s': out of memory"
/* the model's data could not be allocated: model name */
#define MSG_MODEL_DATA_NOMEM "model '%s': out of memory for its data"
/* the model's data could not be allocated: model name, coordinates, constraint rows */
#define MSG_MODEL_DATA_SIZE_NOMEM "model '%s': out of memory (%d coordinates, %d constraints)"

/* a change to a model while it runs (from its own force, drive or stop_when function): model,
 * what was tried ("adding a body") */
#define MSG_MODEL_RUNNING                                                                     \
  "model '%s' is running: %s is not allowed during its run (change the model before or after " \
  "m:simulate, or build another model)"

/* the model's dense workspaces would not fit: model, coordinates, constraint rows, GB needed,
 * GB allowed */
#define MSG_MODEL_DATA_TOO_LARGE                                                                \
  "model '%s' is too large for mbd's dense linear algebra: %d coordinates and %d constraints "   \
  "need %.3g GB for each copy of the run's workspaces, more than the %.3g GB allowed (a "       \
  "quarter of the memory, or MBD_MAX_WORKSPACE_GB)"
/* the dense workspaces a step asked for would not fit: model, coordinates, constraint rows, GB
 * needed, GB allowed */
#define MSG_MODEL_DATA_DENSE_TOO_LARGE                                                           \
  "model '%s' is too large for mbd's dense linear algebra: %d coordinates and %d constraints "   \
  "need %.3g GB for each copy of the run's workspaces, more than the %.3g GB allowed (a "       \
  "quarter of the memory, or MBD_MAX_WORKSPACE_GB); its sparse form runs without them (linear_" \
  "solver = \"sparse\" with augmented, baumgarte, gcp or kane), but this step needs them (a "     \
  "dense solve, or a rank test or least-squares analysis of Φq)"

/* ---- names ----------------------------------------------------------------------------------- */

/* an empty or too long name: kind, the longest length allowed */
#define MSG_MODEL_NAME_LEN "%s: name must have 1 to %d characters"
/* a '.' in a name (channel names are <name>.<field>): kind, name */
#define MSG_MODEL_NAME_DOT "%s '%s': a name cannot contain '.'"
/* a name that is not UTF-8 (plots, CSV headers and pages show names as text): kind, the name
 * with its malformed bytes as \xNN, the offset of the first */
#define MSG_MODEL_NAME_UTF8 \
  "%s '%s': a name must be UTF-8 text (byte %ld is not); save the script as UTF-8"

/* ---- macro copies (paper 002) ----------------------------------------------------------------- */

/* a copy opened while another is open: the new one, the open one */
#define MSG_MODEL_COPY_OPEN "macro copy '%s': copy '%s' is still being built"
/* two copies with one name: the name */
#define MSG_MODEL_COPY_DUP "macro copy '%s': a copy of that name exists"
/* a placement with a NaN or a zero rotation: the copy */
#define MSG_MODEL_COPY_PLACE "macro copy '%s': origin and rot must be finite (rot not zero)"

/* ---- bodies ---------------------------------------------------------------------------------- */

/* a spatial inertia tensor that is not positive definite: body */
#define MSG_MODEL_INERTIA_PD "body '%s': inertia tensor is not positive definite"
/* principal moments that break the triangle inequality: body, the three principal moments */
#define MSG_MODEL_INERTIA_TRIANGLE                                                        \
  "body '%s': inertia violates the triangle inequality: principal moments {%g, %g, %g}, " \
  "and each must not exceed the sum of the other two"
/* a second body of the same name: body */
#define MSG_MODEL_BODY_DUP "body '%s': a body with this name already exists"
/* mass not positive: body, mass */
#define MSG_MODEL_MASS "body '%s': mass must be positive, got %g"
/* a NaN or infinity in the body's pose, velocity or inertia: body, the field (pos, vel, omega,
 * inertia, angle, rot) */
#define MSG_MODEL_BODY_FINITE "body '%s': field '%s' must be finite"
/* planar moment of inertia not positive: body, inertia */
#define MSG_MODEL_INERTIA "body '%s': inertia must be positive, got %g"
/* initial Euler parameters all zero: body */
#define MSG_MODEL_EULER_ZERO "body '%s': Euler parameters are all zero"
/* warning: initial Euler parameters were not of unit norm: body, their norm */
#define MSG_MODEL_EULER_NORM "body '%s': Euler parameters had norm %.6g; normalized"

/* ---- joints ---------------------------------------------------------------------------------- */

/* a joint type outside the list: type number */
#define MSG_MODEL_JOINT_TYPE "joint: unknown type %d"
/* a second joint of the same name: joint type, name */
#define MSG_MODEL_JOINT_DUP "%s '%s': a joint with this name already exists"
/* a body index outside the model: kind (the joint type, or "spring"), name */
#define MSG_MODEL_BODY_INDEX "%s '%s': body index out of range"
/* both ends on one body: kind (the joint type, or "spring"), name, the body */
#define MSG_MODEL_SAME_BODY "%s '%s': bodies are the same ('%s')"
/* a NaN or infinity in a joint's points or axes: joint type, name */
#define MSG_MODEL_JOINT_FINITE "%s '%s': points and axes must be finite"
/* a spatial joint type in a planar model: joint type, name */
#define MSG_MODEL_NOT_PLANAR \
  "%s '%s': not a planar joint (planar models have revolute, translational, fixed)"
/* a joint type that needs an axis was given none: joint type, name, field ("axis1", "axis2") */
#define MSG_MODEL_AXIS_MISSING "%s '%s': missing field '%s'"
/* a screw without its pitch: joint type, name */
#define MSG_MODEL_PITCH_MISSING \
  "%s '%s': missing field 'pitch' (the advance along axis1 per turn, in lengths per turn)"
/* a screw's pitch not finite: joint type, name, pitch */
#define MSG_MODEL_PITCH_FINITE "%s '%s': pitch must be a finite number, got %g"
/* a planar joint's ref1 zero, not finite or along axis1: joint type, name */
#define MSG_MODEL_REF1_AXIS \
  "%s '%s': ref1 must be a finite direction not along axis1 (x is its part in the plane)"
/* a zero axis: joint type, name, field ("axis1", "axis2") */
#define MSG_MODEL_AXIS_ZERO "%s '%s': %s is zero"
/* a universal joint whose axes are not crossed in the given poses: joint, angle in degrees */
#define MSG_MODEL_UNIVERSAL_AXES                                                                 \
  "universal '%s': axis1 and axis2 must be perpendicular (the arms of the cross); in the given " \
  "poses they are %.1f degrees apart"

/* ---- drives, forces, springs ----------------------------------------------------------------- */

/* a joint index outside the model: who ("drive", "rotational_spring") */
#define MSG_MODEL_JOINT_INDEX "%s: joint index out of range"
/* a drive on a joint type that cannot be driven: joint type, joint, " and cylindrical" in 3D or ""
 */
#define MSG_MODEL_DRIVE_TYPE "drive on %s '%s': only revolute, translational%s joints can be driven"
/* a second drive on one joint: joint */
#define MSG_MODEL_DRIVE_TWICE "drive on joint '%s': the joint is already driven"
/* a drive without its position function: joint */
#define MSG_MODEL_DRIVE_FN "drive on joint '%s': no position function"
/* a force or torque on the ground or outside the model: kind ("force", "torque") */
#define MSG_MODEL_FORCE_BODY "%s: body index out of range (the ground takes no force)"
/* a NaN or infinity in a constant force or torque: kind ("force", "torque"), body */
#define MSG_MODEL_FORCE_FINITE "%s on body '%s': values must be finite"
/* a force or torque function gave a NaN or infinity (MBD_E_NAN): kind, body, value, time */
#define MSG_MODEL_FORCE_VALUE "%s on body '%s': function returned %g at t = %g"
/* spring stiffness, damping or length negative or not finite: spring */
#define MSG_MODEL_SPRING_VALUES "spring '%s': k, c and length must be finite and not negative"
/* the two points of a spring met, so its direction is undefined (MBD_E_SINGULAR): spring, time */
#define MSG_MODEL_SPRING_COINCIDE \
  "spring '%s': the two points coincide at t = %g (direction undefined)"
/* a rotational spring on a joint without a relative angle: joint type, joint,
 * ", cylindrical, screw or planar" in 3D or "" */
#define MSG_MODEL_RSPRING_TYPE \
  "rotational_spring on %s '%s': only a revolute%s joint has a relative angle"
/* rotational spring stiffness or damping negative or not finite: joint */
#define MSG_MODEL_RSPRING_VALUES \
  "rotational_spring on joint '%s': k and c must be finite and not negative"

#endif
