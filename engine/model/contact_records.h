/* mbd — the model's and the data's records of surfaces and contacts (paper 001), in the model's
 * room like the flexible bodies' (flex_impl.h): the model owns its surfaces and contacts and a
 * run's data holds their state; the functions that work on them are in contact/contact_impl.h. */
#ifndef MBD_CONTACT_RECORDS_H
#define MBD_CONTACT_RECORDS_H

#include "mbd/sym.h"

#define MBD_SURF_NP_MAX 3 /* surface parameters of one surface (implicit: the point s') */
#define MBD_CONTACT_NP_MAX (2 * MBD_SURF_NP_MAX) /* parameters of one contact */

/* a surface fixed in a body (mbd_shape) */
typedef struct mbd_surface {
  char name[64];
  int body;                    /* body index */
  int shape;                   /* mbd_shape */
  int np;                      /* parameters: 1 (planar), 2 (plane, parametric), 3 (implicit: s') */
  int implicit;                /* 1: the parameters are the point s' itself, with f(s') = 0 */
  double at[3];                /* point / centre / origin, body frame */
  double e1[3], e2[3], nrm[3]; /* line: e1 direction, nrm its left normal; plane: e1 × e2 = nrm */
  double radius, amplitude, wavenumber; /* circle, sphere; sine: A, 2π/λ */
  double sign;                          /* +1, −1 when `inner` turned the normal over */
  double lo[2], hi[2];                  /* parameter ranges (−inf, inf when none) */
  double u0[2];       /* where the search for the contact point starts (no range) */
  mbd_sym_tape *tape; /* symbolic shapes: point and derivatives (surface.c), else NULL */
} mbd_surface;

/* contact modes */
typedef enum mbd_contact_mode {
  MBD_CMODE_SLIP = 0, /* closed, sliding: gap row active (coulomb kinetic, regularized, none) */
  MBD_CMODE_STICK,    /* closed, rolling without slip: gap and rolling rows active */
  MBD_CMODE_OPEN      /* separated: no row active, the gap watched */
} mbd_contact_mode;

/* a contact between two surfaces */
typedef struct mbd_contact {
  char name[64];
  int s1, s2;            /* surfaces (1: side 0 of its rows, 2: side 1) */
  int b1, b2;            /* their bodies */
  int friction;          /* mbd_friction */
  double mu, mu_s, beta; /* kinetic, static coefficients; regularized slope N·s/m */
  int has_e;             /* restitution given: the contact may open and close by impact */
  double e;              /* Newton's restitution coefficient */
  /* set by assembly */
  int block;      /* its parameter block */
  int qadr;       /* its parameters q[qadr .. qadr + np1 + np2) */
  int row0;       /* its gap row; the rolling rows follow (nroll of them) */
  int nroll;      /* dim − 1 */
  int mode0;      /* mode at the assembled initial state */
  double dir0[3]; /* slip direction there (global), for the first slip */
  double sgn0;    /* planar: its sign along the tangent */
} mbd_contact;

/* the state of one contact in a run's data: the contact kinematics of the last evaluation and
 * the friction regime */
typedef struct mbd_contact_state {
  int mode;            /* mbd_contact_mode */
  double dir[3];       /* slip direction of this slip segment (global unit), the friction's
                          direction while the slip speed is zero */
  double sgn;          /* planar: the slip's sign along the tangent in this slip segment */
  double N;            /* normal force on body 2 along n (compression > 0), last solve */
  double Ft[3];        /* friction force on body 2 (global), last solve */
  double gap;          /* signed distance along n (> 0 apart) */
  double gap_off;      /* open: the gap where the contact opened, when below 0 */
  double n[3];         /* unit normal of surface 1 at the contact (global) */
  double t[2][3];      /* unit tangents (planar: t[0] only) */
  double P[3];         /* contact point (on surface 1), global */
  double vrel[3];      /* velocity of body 2's point at P relative to body 1's, global */
  double s1[3], s2[3]; /* the contact point in each body's frame */
  double udot[MBD_CONTACT_NP_MAX]; /* parameter rates */
  double t_eval;                   /* time of the kinematics above (the predictor's base) */
  double nturn;    /* how fast the surfaces' normals turn in their bodies as the contact point
                      moves, rad/s (the larger of the two): the predictor's reach */
  double kappa[2]; /* planar: signed curvatures of the two surfaces at the contact */
} mbd_contact_state;

/* a contact event in a run's log: its time, contact and kind (mbd_contact_event_kind) */
typedef struct mbd_contact_event_rec {
  double t;
  int contact;
  int kind;
} mbd_contact_event_rec;
#define MBD_EVLOG_MAX 4096 /* events kept per run (the counters go on beyond) */

/* Coulomb friction of a joint from its reaction (joint friction, paper 001) */
typedef struct mbd_joint_friction {
  int joint;         /* revolute or translational (planar) */
  double mu, radius; /* coefficient, pin radius (revolute; 1 for translational) */
  int row;           /* its lock row (set by assembly) */
  int mode0;         /* MBD_CMODE_SLIP or MBD_CMODE_STICK at the assembled state */
  double sgn0;       /* the sign of the relative rate there */
} mbd_joint_friction;

/* the regime of a frictional joint in a run */
typedef struct mbd_jfric_state {
  int mode;    /* MBD_CMODE_SLIP or MBD_CMODE_STICK */
  double sgn;  /* slipping: the sign of the relative rate in this segment */
  double R;    /* the reaction's magnitude (revolute) or its normal part, last solve */
  double T;    /* the friction torque/force on body 2 along the joint coordinate */
  double rate; /* the joint coordinate's rate at the last evaluation */
} mbd_jfric_state;

#endif
