/* mbd — message templates of the contact library (contact/): surfaces, contacts, joint friction
 * and the contact kinematics.  One place for the text the user sees; the tests match these
 * templates, not copies of the text. */
#ifndef MBD_CONTACT_MSG_H
#define MBD_CONTACT_MSG_H

/* ---- building -------------------------------------------------------------------------------- */

/* an allocation failed: who ("surface", "contact", "joint friction") */
#define MSG_CONTACT_NOMEM "%s: out of memory"
/* an empty or too long name: kind ("surface", "contact"), the longest length allowed */
#define MSG_CONTACT_NAME_LEN "%s: name must have 1 to %d characters"
/* a '.' in a name: kind, name */
#define MSG_CONTACT_NAME_DOT "%s '%s': a name cannot contain '.'"
/* a name that is not UTF-8: kind, the name escaped (\xNN), the offset of the first bad byte */
#define MSG_CONTACT_NAME_UTF8 \
  "%s '%s': a name must be UTF-8 text (byte %ld is not); save the script as UTF-8"
/* a second object of the same name: kind, name */
#define MSG_CONTACT_DUP "%s '%s': one with this name already exists"
/* drawing a surface that does not exist: index, count */
#define MSG_SURF_DRAW_INDEX "surface %d: no such surface (the model has %d)"
/* drawing a surface in a window that is empty or not finite: surface */
#define MSG_SURF_DRAW_WINDOW "surface '%s': the drawing's window must be finite and not inverted"
/* a surface on a body outside the model: surface */
#define MSG_SURF_BODY "surface '%s': body index out of range"
/* an unknown shape number: surface, number */
#define MSG_SURF_SHAPE "surface '%s': unknown shape %d"
/* a shape of the other dimension: surface, shape, "planar"/"spatial", the model's
 * "planar"/"spatial" */
#define MSG_SURF_DIM "surface '%s': shape '%s' is %s, the model is %s"
/* a NaN or infinity in a surface's numbers: surface */
#define MSG_SURF_FINITE "surface '%s': its numbers must be finite"
/* a zero direction or normal: surface, field ("direction", "normal") */
#define MSG_SURF_ZERO "surface '%s': %s is zero"
/* a line's direction off the plane of a planar model: surface */
#define MSG_SURF_PLANAR_DIR "surface '%s': direction must lie in the plane (z = 0)"
/* a radius or wavelength not positive: surface, field, value */
#define MSG_SURF_POSITIVE "surface '%s': %s must be positive, got %g"
/* a range with lo ≥ hi: surface, parameter, lo, hi */
#define MSG_SURF_RANGE "surface '%s': range of %s must have lo < hi, got {%g, %g}"
/* a symbolic shape without its expression: surface, shape, field */
#define MSG_SURF_EXPR "surface '%s': shape '%s' needs a symbolic expression '%s'"
/* a symbolic shape's parameter that is not a variable: surface, which ("u", "v", ...) */
#define MSG_SURF_VAR "surface '%s': parameter %s must be a symbolic variable"
/* an expression of a variable that is not a parameter: surface, field, variable, the parameters */
#define MSG_SURF_FOREIGN "surface '%s': %s depends on '%s', which is not a parameter (%s)"
/* the symbolic derivatives or the tape could not be built: surface, the reason */
#define MSG_SURF_TAPE "surface '%s': %s"
/* the surface has no normal where it was evaluated at building: surface, parameters */
#define MSG_SURF_BAD_AT \
  "surface '%s': no normal at %s (a zero tangent, parallel tangents or ∇f = 0)"

/* a contact's surface outside the model: contact, field ("surface1", "surface2") */
#define MSG_CONTACT_SURFACE "contact '%s': %s is out of range"
/* both surfaces on one body: contact, body */
#define MSG_CONTACT_SAME_BODY "contact '%s': both surfaces are on body '%s'"
/* unknown friction law: contact, number */
#define MSG_CONTACT_FRICTION "contact '%s': unknown friction law %d"
/* friction coefficients: contact, mu, mu_static */
#define MSG_CONTACT_MU \
  "contact '%s': mu must be finite and not negative and mu_static at least mu, got %g and %g"
/* regularized friction slope: contact, slope */
#define MSG_CONTACT_SLOPE "contact '%s': slope must be positive, got %g"
/* restitution outside [0, 1]: contact, value */
#define MSG_CONTACT_RESTITUTION "contact '%s': restitution must be in [0, 1], got %g"

/* joint friction on a joint outside the model */
#define MSG_JFRIC_JOINT "joint friction: joint index out of range"
/* joint friction on a joint of another type: joint type, joint */
#define MSG_JFRIC_TYPE "%s '%s': friction is for revolute and translational joints"
/* joint friction values: joint, mu, radius */
#define MSG_JFRIC_VALUES                                                                       \
  "joint '%s': friction needs mu finite and not negative and (revolute) radius positive, got " \
  "mu = %g, radius = %g"

/* ---- kinematics ------------------------------------------------------------------------------ */

/* the contact point could not be found: contact, time, iterations, residual */
#define MSG_CONTACT_NEWTON                                                                   \
  "contact '%s': the contact point was not found at t = %g (%d Newton iterations, residual " \
  "%.3g m): the surfaces are too far apart or do not face each other"
/* a surface's normal vanished: contact, time, surface, its parameters */
#define MSG_CONTACT_ZERO_NORMAL \
  "contact '%s': at t = %g surface '%s' has no normal at its contact point (%s)"
/* a parameter left its range: contact, time, surface, parameter, value, lo, hi */
#define MSG_CONTACT_RANGE \
  "contact '%s': at t = %g the contact point left surface '%s': %s = %g is outside {%g, %g}"
/* planar: the surfaces are too curved to touch at one point: contact, time, concave surface, its
 * radius, the other surface, its radius (or "flat") */
#define MSG_CONTACT_CURVATURE                                                                   \
  "contact '%s': at t = %g surface '%s' is concave with curvature radius %.4g m, smaller than " \
  "the %s of surface '%s': the surfaces cannot touch at a single point"
/* planar: both surfaces are straight at the contact point (two lines): contact, time, surfaces */
#define MSG_CONTACT_FLAT                                                                        \
  "contact '%s': at t = %g surfaces '%s' and '%s' are both straight there: two straight lines " \
  "cannot touch at a single point (they cross or lie along each other); make one of them "      \
  "curved (a circle, a sine, a curve)"
/* spatial: both surfaces are flat at the contact point (two planes): contact, time, surfaces */
#define MSG_CONTACT_FLAT3                                                                  \
  "contact '%s': at t = %g surfaces '%s' and '%s' are both flat there: two planes cannot " \
  "touch at a single point (they meet along a line or lie on each other); make one of "    \
  "them curved (a sphere, a surface of revolution)"
/* spatial: the relative curvature is not positive definite: contact, time, surfaces, the least
 * relative curvature */
#define MSG_CONTACT_CURVATURE3                                                            \
  "contact '%s': at t = %g surfaces '%s' and '%s' cannot touch at a single point: their " \
  "relative curvature is %.4g 1/m along a tangent (a concave surface more curved than the other)"

#endif
