/* mbd — contact between body surfaces (paper 001), private to engine/contact, kinematics/,
 * formulations/ and sim/.
 *
 *   surface.c        the geometry of each shape: point, tangents, unit normal and their
 *                    derivatives in the surface parameters, curvature data, a first guess of the
 *                    point nearest to a given point
 *   contact_model.c  building: mbd_model_add_surface / _contact, validation, symbolic tapes
 *   contact_kin.c    the contact kinematics of one evaluation: the surface parameters (Newton on
 *                    point coincidence and opposite normals, eq 1–8), their rates, the gap row
 *                    (eq 16) and the rolling rows (eq 18–19) over (Y1 | Y2), channels
 *   contact_force.c  friction forces and the joints' friction from the multipliers
 *
 * The modes (slip, stick, open) and their switches are the formulations' (formulations/contact_dynamics.c):
 * this library evaluates, for a given mode, what the formulations need. */
#ifndef MBD_CONTACT_IMPL_H
#define MBD_CONTACT_IMPL_H

#include "../model/model_impl.h"
#include "mbd/contact.h"

/* ------------------------------------------------------------------------------------------ */
/* surface.c                                                                                   */

/* the geometry of a surface at parameters u (body frame) */
typedef struct mbd_surf_geo {
  double s[3];                  /* the point */
  double S[3][MBD_SURF_NP_MAX]; /* ∂s/∂u_k (implicit: the identity) */
  double n[3];                  /* unit normal, out of the body's material */
  double N[3][MBD_SURF_NP_MAX]; /* ∂n/∂u_k */
  double f;                     /* implicit: f(s')/|∇f|, the surface equation in metres; else 0 */
  double fg[3];                 /* implicit: ∇f/|∇f| (its gradient, |∇f| held fixed) */
  double II[MBD_SURF_NP_MAX][MBD_SURF_NP_MAX]; /* curvature data: parametric −n·∂²s/∂u_a∂u_b;
                              implicit ±H/|∇f| (H the Hessian of f), convex positive */
} mbd_surf_geo;

/* evaluate surface sf at u: MBD_OK, or MBD_E_SINGULAR when the normal is zero there (a tangent
 * of zero length, parallel tangents, ∇f = 0) or the shape's expressions are not finite */
int mbd_surface_eval(const mbd_surface *sf, const double *u, mbd_surf_geo *g);
/* u of a point of sf near the body-frame point X: the start of the contact point's search */
void mbd_surface_guess(const mbd_surface *sf, const double *X, double *u);
/* planar: the signed curvature of sf at g (convex positive); spatial: the normal curvature along
 * the unit body-frame tangent e */
double mbd_surface_curvature(const mbd_surface *sf, const mbd_surf_geo *g, const double *e);
/* index of parameter k of sf outside its range, or −1 */
int mbd_surface_out_of_range(const mbd_surface *sf, const double *u);
/* surface of revolution: the squared radius P = ρ² of its profile at axial coordinate z (from its
 * axis point): MBD_OK, or MBD_E_SINGULAR where the profile is not finite */
int mbd_surface_profile2(const mbd_surface *sf, double z, double *P);
/* the names of the parameters of sf ("u"; "u", "v"; "x", "y", "z") */
const char *mbd_surface_param_name(const mbd_surface *sf, int k);

/* ------------------------------------------------------------------------------------------ */
/* contact_kin.c                                                                               */

/* surface parameters of contact c: the two counts */
int mbd_contact_np(const mbd_model *m, int c, int *np1, int *np2);
/* assembly: the contacts' parameter blocks appended after the bodies' blocks (q[nqi..nq), no
 * velocities; m->block has room for them), their number of rows, and their rows numbered from
 * `row` on in the row table (returns the next free row) */
void mbd_contact_blocks(mbd_model *m);
int mbd_contact_nrows(const mbd_model *m);
int mbd_contact_number_rows(mbd_model *m, int row);
/* assembly: the first guess of every contact's parameters from the given poses (d->q of the
 * bodies set, poses evaluated) */
void mbd_contact_guess(const mbd_model *m, mbd_data *d);
/* assembly, before the position analysis (contact rows evaluated at the given poses): a contact
 * with a restitution whose surfaces are apart by more than MBD_CONTACT_OPEN_GAP starts open */
#define MBD_CONTACT_OPEN_GAP 1e-6
/* an open contact's root function is its gap less gap_off = min(gap at the opening, 0) −
 * MBD_CONTACT_GAP_EPS·(1 + the bodies' distance from the origin in metres, the gap's rounding):
 * it starts above zero (a root function that starts at zero is not watched until it leaves zero,
 * which a flight shorter than the integrator's first step may never show) and the impact is found
 * 1e-12 m into the surface near the origin.  A zero of it where the surfaces neither approach nor
 * accelerate towards each other is no impact: the flight goes on (formulations/contact_dynamics.c) */
#define MBD_CONTACT_GAP_EPS 1e-12
void mbd_contact_open0(mbd_model *m, mbd_data *d);
/* every contact's parameters within their ranges: MBD_OK or MBD_E_STATE naming the contact */
int mbd_contact_check_ranges(const mbd_model *m, const mbd_data *d, mbd_error *err);
/* assembly, after the position analysis and the given velocities: each contact's first mode
 * (sticking when its slip speed is zero within 1e-9 of the speeds at the contact) */
void mbd_contact_modes0(mbd_model *m, mbd_data *d);
/* contact c's regime at the evaluated kinematics (d->cstate: normal, relative velocity): open,
 * or closed — sticking when stick > 0, sliding when stick == 0, decided as at the start when
 * stick < 0 (sticking, coulomb friction, when the slip speed is zero within 1e-9 of the speeds at
 * the contact) — a sliding one along its slip velocity */
void mbd_contact_set_mode(const mbd_model *m, mbd_data *d, int c, int open, int stick);
/* frictional joint k's regime: sticking when stick > 0, slipping (the sign of its rate) when 0,
 * sticking when the rate is nil within 1e-9 of the bodies' speeds when stick < 0 */
void mbd_jfric_set_mode(const mbd_model *m, mbd_data *d, int k, int stick);

/* the rows of contact c at the current poses: solves its parameters (Gauss–Newton from d->q with
 * a Taylor predictor from the last evaluation, again from the geometric first guess where that
 * fails or moved far; a circle's parameter as ψ − θ), their rates, and fills rows[0] (gap, position
 * level) and rows[1..nroll] (rolling, velocity level: val = 0) over (Y1 | Y2), and the contact's
 * state in d->cstate.  gamma = 0 (a Newton iteration of a position analysis, MBD_EVAL_POSITION):
 * the values and Jacobians only — the parameters' rates, the rows' h (the moving-point terms) and
 * cs->udot, cs->nturn are left as they were, for an evaluation with gamma = 1 at the converged
 * positions.  MBD_OK, or < 0 with err naming the contact, the time and the reason. */
int mbd_contact_rows(const mbd_model *m, mbd_data *d, int c, int gamma, mbd_row *rows,
                     mbd_error *err);
/* frictional joint k's lock row over (Y1 | Y2): its joint coordinate's rate (velocity level,
 * val = 0); records the rate in d->jfstate[k] */
void mbd_jfric_row(const mbd_model *m, mbd_data *d, int k, mbd_row *row);
/* a speed scale of contact c: the speeds of the two bodies' centres and of their rotations at
 * the contact point (|ṙ1| + |ṙ2| + |ω1||P − r1| + |ω2||P − r2|), for deciding relative to it
 * whether a slip speed is nil (never zero for moving bodies, unlike the contact points' speeds) */
double mbd_contact_speed_scale(const mbd_model *m, const mbd_data *d, int c);
/* whether row r (a contact's) is enabled in the contact's current mode */
int mbd_contact_row_enabled(const mbd_model *m, const mbd_data *d, int r);
/* d->active rebuilt for the contacts' modes: the rows that are not contact rows as they are,
 * then every enabled contact row (kept increasing); constraints gathered again */
void mbd_contact_activate(const mbd_model *m, mbd_data *d);

/* channels of a contact (channel comp) */
typedef enum mbd_contact_channel {
  MBD_CCH_NORMAL = 0, /* N, compression > 0 */
  MBD_CCH_NX,         /* normal force vector on body 2: x, y, z */
  MBD_CCH_NY,
  MBD_CCH_NZ,
  MBD_CCH_FRICTION, /* |F_t| (planar: signed along the tangent) */
  MBD_CCH_FX,       /* friction force vector on body 2: x, y, z */
  MBD_CCH_FY,
  MBD_CCH_FZ,
  MBD_CCH_SLIP,     /* slip speed (planar: signed along the tangent) */
  MBD_CCH_STICKING, /* 1 while rolling without slip, else 0 */
  MBD_CCH_GAP,      /* the gap (0 while closed) */
  MBD_CCH_PX,       /* the contact point, global */
  MBD_CCH_PY,
  MBD_CCH_PZ,
  MBD_CCH_PARAM /* + k: surface parameter k of the contact (surface 1's, then 2's) */
} mbd_contact_channel;
/* add the channels of every contact; −1 when out of memory */
int mbd_contact_channels(mbd_model *m,
                         int (*add)(mbd_model *m, int *cap, const char *base, const char *field,
                                    int kind, int index, int comp, int dynamic),
                         int *cap);
double mbd_contact_channel_value(const mbd_model *m, const mbd_data *d, int c, int comp);
/* a frictional joint's channel: comp 0 its friction, 1 sticking */
double mbd_jfric_channel_value(const mbd_model *m, const mbd_data *d, int k, int comp);

/* ------------------------------------------------------------------------------------------ */
/* contact_force.c                                                                             */

/* N (and, sticking, F_t) of contact c from the multipliers into its state (open: zero) */
void mbd_contact_read_forces(const mbd_model *m, mbd_data *d, int c);
/* whether contact c applies a friction force that depends on N (sliding with friction) */
int mbd_contact_needs_n(const mbd_model *m, const mbd_data *d, int c);
/* Q += the friction forces of the sliding contacts for the normal forces in d->cstate[c].N and
 * of the slipping joints for their reactions in d->jfstate[k].R */
void mbd_contact_add_friction(const mbd_model *m, mbd_data *d);
/* frictional joint k: its reaction's magnitude R from the joint's multipliers (revolute: the
 * force's; translational: its part normal to the axis) and, sticking, the lock's torque/force T */
void mbd_jfric_read_forces(const mbd_model *m, mbd_data *d, int k);
/* whether joint friction k depends on the reaction (slipping with mu > 0) */
int mbd_jfric_needs_r(const mbd_model *m, const mbd_data *d, int k);

#endif
