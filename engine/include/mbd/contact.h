/* mbd — contact between body surfaces (paper 001): surfaces fixed in bodies, contacts between two
 * of them with Coulomb or regularized friction, and Coulomb friction in revolute and translational
 * joints from their reactions.
 *
 * A surface (planar: a curve) is fixed in a body and given by parameters u (parametric shapes:
 * planar line, circle, sine, curve; spatial plane and r(u, v)) or by an equation f(s') = 0 of its
 * body-frame points (spatial sphere, revolution, implicit).  Its normal points out of the body's
 * material; `inner` turns it over (a ring, a bowl: the body lies on the other side).
 *
 * A contact keeps two surfaces touching at one point.  The contact point's surface parameters
 * are intermediate coordinates (paper 001 eq 1–8): a coordinate block without velocities, solved
 * at every evaluation from the bodies' poses (points coincide, normals opposite).  The contact
 * adds one holonomic row (no penetration: the gap between the surfaces along the normal) and,
 * while the surfaces roll without slipping, dim − 1 velocity-level rows (tangential relative
 * velocity zero: eq 18–19).  Coulomb friction switches between sticking (rolling rows active,
 * friction from their multipliers, held while |F_t| ≤ μ_s N) and slipping (kinetic friction
 * μ N against the slip, eq 30), each switch located by the integrator's root finding.
 *
 * Symbolic shapes are given as expressions of a symbolic context (mbd/sym.h); the engine takes
 * their exact first and second derivatives and compiles them to a tape when the surface is added
 * (the context may be freed afterwards). */
#ifndef MBD_CONTACT_H
#define MBD_CONTACT_H

#include "mbd/model.h"
#include "mbd/sym.h"

typedef enum mbd_shape {
  MBD_SHAPE_LINE = 0,   /* planar: at + u·direction; normal to the left of direction */
  MBD_SHAPE_CIRCLE,     /* planar: at + radius (cos u, sin u); normal outward */
  MBD_SHAPE_SINE,       /* planar: at + (u, amplitude sin(2πu/wavelength)); normal up (+y) */
  MBD_SHAPE_CURVE,      /* planar: (x(u), y(u)) symbolic; normal to the left of increasing u */
  MBD_SHAPE_PLANE,      /* spatial: at + u e1 + v e2 with e1 × e2 = normal */
  MBD_SHAPE_SPHERE,     /* spatial: |s' − at| = radius; normal outward */
  MBD_SHAPE_REVOLUTION, /* spatial: about the body z axis through at, radius profile(z) (symbolic);
                           normal away from the axis */
  MBD_SHAPE_IMPLICIT,   /* spatial: f(x, y, z) = 0 (symbolic); normal along ∇f */
  MBD_SHAPE_PARAMETRIC, /* spatial: (x(u, v), y(u, v), z(u, v)) symbolic; normal r_u × r_v */
  MBD_SHAPE_N
} mbd_shape;

/* name of a shape ("line"), NULL for an unknown number; shape from a name, −1 when unknown */
const char *mbd_shape_name(int shape);
int mbd_shape_from_name(const char *name);
/* 2 or 3: the model dimension a shape belongs to (0 for an unknown shape) */
int mbd_shape_dim(int shape);

typedef struct mbd_surface_spec {
  const char *name;    /* for messages and channels; NULL → "surface<N>" */
  int body;            /* body index (0 = ground) */
  int shape;           /* mbd_shape */
  double at[3];        /* line: a point; circle, sphere: centre; sine: origin; plane: a point;
                          revolution: a point of the axis (body frame) */
  double direction[3]; /* line: its direction (planar, not zero) */
  double normal[3];    /* plane: its outward normal (not zero) */
  double radius;       /* circle, sphere: > 0 */
  double amplitude;    /* sine: m */
  double wavelength;   /* sine: m, > 0 */
  int inner;           /* 1: the normal turned over (the body lies on the other side) */
  int nrange;          /* parameters with a range (0: every parameter unbounded) */
  double range[2][2];  /* [k] = {lo, hi} of parameter k (u, v) */
  double u0[2];        /* curve, parametric: the parameter values where the first search for the
                          contact point starts when no range is given */
  /* symbolic shapes: the context and expressions (curve: x, y of var[0]; parametric: x, y, z of
   * var[0], var[1]; implicit: f of var[0..2] = x, y, z; revolution: radius of var[0], the axial
   * coordinate, or a constant) */
  mbd_sym_ctx *ctx;
  mbd_sym_id expr[3];
  mbd_sym_id var[3];
} mbd_surface_spec;

/* add a surface; returns its index (≥ 0) or a negative status with err naming the surface */
int mbd_model_add_surface(mbd_model *m, const mbd_surface_spec *s, mbd_error *err);

typedef enum mbd_friction {
  MBD_FRICTION_NONE = 0,   /* frictionless */
  MBD_FRICTION_COULOMB,    /* stick (|F_t| ≤ μ_s N) and slip (μ N against the slip) as events */
  MBD_FRICTION_REGULARIZED /* |F_t| = min(β |v_slip|, μ N) against the slip (paper 001 Fig. 11) */
} mbd_friction;

typedef struct mbd_contact_spec {
  const char *name;       /* unique among contacts; NULL → "contact<N>" */
  int surface1, surface2; /* surface indices, on different bodies */
  int friction;           /* mbd_friction */
  double mu;              /* kinetic coefficient, ≥ 0 */
  double mu_static;       /* static coefficient (coulomb), ≥ mu */
  double slope;           /* regularized: β, N·s/m, > 0 */
  int has_restitution;    /* 1: the contact may open when N reaches 0 and closes by an impact */
  double restitution;     /* Newton's coefficient e in [0, 1] */
} mbd_contact_spec;

/* add a contact; returns its index (≥ 0) or a negative status with err naming the contact */
int mbd_model_add_contact(mbd_model *m, const mbd_contact_spec *s, mbd_error *err);

int mbd_model_ncontact(const mbd_model *m);
int mbd_model_nsurface(const mbd_model *m);
int mbd_model_find_contact(const mbd_model *m, const char *name);
const char *mbd_model_contact_name(const mbd_model *m, int c);
const char *mbd_model_surface_name(const mbd_model *m, int s);
int mbd_model_surface_body(const mbd_model *m, int s);
/* the two surfaces of contact c (surface 1 carries the normal): MBD_OK, or MBD_E_INPUT and −1 */
int mbd_model_contact_surfaces(const mbd_model *m, int c, int *s1, int *s2);

/* a surface as the model holds it, for drawings and reports (run:animate) */
typedef struct mbd_surface_desc {
  const char *name;    /* valid while the model lives */
  int body;            /* body index (0 = ground) */
  int shape;           /* mbd_shape */
  int inner;           /* 1: the normal turned over */
  int np;              /* parameters: 1 (planar), 2 (plane, parametric), 3 (implicit: the point) */
  double at[3];        /* point, centre, origin or axis point (body frame) */
  double e1[3], e2[3]; /* line: e1 its unit direction; plane: unit e1, e2 with e1 × e2 = normal */
  double normal[3];    /* plane: its unit normal as given */
  double radius;       /* circle, sphere */
  double amplitude, wavelength; /* sine */
  double range[2][2];  /* [k] = {lo, hi} of parameter k (−inf, inf when unbounded) */
} mbd_surface_desc;

/* surface s into out: MBD_OK or MBD_E_INPUT for an index out of range */
int mbd_model_describe_surface(const mbd_model *m, int s, mbd_surface_desc *out);

/* a drawing of a surface in its body's frame (mbd_surface_draw); owned by the caller */
typedef struct mbd_surface_drawing {
  int dim;     /* 2: a polyline (planar shapes); 3: a triangle mesh */
  int npoint;  /* points of the polyline, vertices of the mesh */
  double *xyz; /* 3 × npoint, body frame */
  double *nrm; /* planar: 3 × npoint unit normals out of the material; spatial: NULL */
  int ntri;    /* spatial: triangles */
  int *tri;    /* 3 × ntri vertex indices from 0 */
  int closed;  /* planar: a closed loop (circle, a curve whose ends meet); the last point repeats
                  the first */
} mbd_surface_drawing;

/* sample surface s once for a drawing, in its body's frame: planar shapes as a polyline with
 * normals, spatial ones as a triangle mesh (surface_draw.c tells how each shape is sampled).  The
 * body-frame box lo..hi is the window that cuts unbounded shapes (line, sine, plane; the axial
 * range of a surface of revolution) and the cube an implicit surface is meshed in; want_lo and
 * want_hi (2 each, or NULL) are parameter values a curve or parametric surface without a range
 * must cover (the contact points of a run), besides u0 ± 5.  MBD_OK, MBD_E_INPUT (no such
 * surface, a window not finite) or MBD_E_NOMEM; free with mbd_surface_drawing_free. */
int mbd_surface_draw(const mbd_model *m, int s, const double lo[3], const double hi[3],
                     const double *want_lo, const double *want_hi, mbd_surface_drawing *out,
                     mbd_error *err);
void mbd_surface_drawing_free(mbd_surface_drawing *d);

/* Coulomb friction in a joint from its reaction (paper 001's closing remark): revolute, a
 * friction torque μ |F| r against the relative rotation (F the reaction force, r the pin radius);
 * translational, a friction force μ |F_n| against the sliding (F_n the reaction normal to the
 * axis).  The joint slides or turns all the time (no sticking).  mu ≥ 0, radius > 0 (revolute). */
int mbd_model_set_joint_friction(mbd_model *m, int joint, double mu, double radius, mbd_error *err);

#endif
