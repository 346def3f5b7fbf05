/* mbd — private model and data structures shared by model/, kinematics/ and formulations/ */
#ifndef MBD_MODEL_IMPL_H
#define MBD_MODEL_IMPL_H

#include "mbd/linalg.h"
#include "mbd/model.h"

#define MBD_NAME_MAX 64
#define MBD_MAX_WARNINGS 32

typedef struct mbd_body {
  char name[MBD_NAME_MAX]; /* unique name */
  double mass;             /* kg */
  double inertia[9];       /* 3×3 inertia about the CM in the body frame, row-major; planar: [8]=Izz */
  double q0[7];            /* initial pose as given: planar x y θ; spatial x y z e0..e3 */
  double v0[6];            /* initial velocity as given: vx vy vz wx wy wz (planar: vx vy ω) */
  int qadr;                /* first coordinate in q, −1 for ground */
} mbd_body;

typedef struct mbd_joint {
  char name[MBD_NAME_MAX];
  int type;                /* mbd_joint_type */
  int body1, body2;
  double at1[3], at2[3];   /* points in body frames */
  double axis1[3], axis2[3]; /* unit axes in body frames */
  double ref1[3], ref2[3]; /* spatial: unit reference axes ⟂ axis, for relative angles */
  double angle0;           /* planar translational/fixed: locked relative angle θ2−θ1 */
  double angle_memo;       /* spatial: last continuous relative angle (unwrapping memo, rad) */
  int row0, nrow;          /* rows in the full constraint vector */
  int drive;               /* drive index or −1 */
  int rspring;             /* rotational spring index or −1 */
} mbd_joint;

typedef struct mbd_drive {
  int joint;               /* driven joint */
  int row;                 /* its constraint row */
  mbd_time_fn fn;
  void *ud;
} mbd_drive;

typedef enum { FORCE_POINT, FORCE_TORQUE } force_kind;

typedef struct mbd_force {
  int kind;                /* force_kind */
  int body;
  double at[3];
  double value[3];
  mbd_vec_fn fn;
  void *ud;
} mbd_force;

typedef struct mbd_spring {
  char name[MBD_NAME_MAX];
  int body1, body2;
  double at1[3], at2[3];
  double k, c, length;
} mbd_spring;

typedef struct mbd_rspring {
  int joint;
  double k, c, angle;
} mbd_rspring;

/* recorded channel kinds */
typedef enum {
  CH_Q,        /* body coordinate: index = body, comp = coordinate offset */
  CH_V,        /* body velocity: comp 0..2 = vx vy vz */
  CH_W,        /* body angular velocity: planar ω (comp 0), spatial wx wy wz global */
  CH_JCOORD,   /* joint angle / displacement */
  CH_JFORCE,   /* joint reaction on body2, global, comp 0..2 */
  CH_JEFFORT,  /* drive effort (torque or force) on body2 */
  CH_JTORQUE,  /* spatial joint reaction torque on body2 about its joint point, global, comp 0..2 */
  CH_ENERGY,
  CH_VIOLATION
} channel_kind;

typedef struct mbd_channel {
  char name[MBD_NAME_MAX + 16];
  int kind;                /* channel_kind */
  int index;               /* body or joint */
  int comp;
  int dynamic;             /* needs accelerations / multipliers */
} mbd_channel;

struct mbd_model {
  char name[MBD_NAME_MAX];
  int dim;                 /* 2 or 3 */
  int nc;                  /* coordinates per body: 3 or 7 */
  double gravity[3];

  int nbody, cbody;        /* bodies (ground = 0) and capacity */
  mbd_body *body;
  int njoint, cjoint;
  mbd_joint *joint;
  int ndrive, cdrive;
  mbd_drive *drive;
  int nforce, cforce;
  mbd_force *force;
  int nspring, cspring;
  mbd_spring *spring;
  int nrspring, crspring;
  mbd_rspring *rspring;

  /* set by assembly */
  int assembled;
  int n;                   /* coordinates */
  int mrow;                /* constraint rows, all */
  int ma;                  /* active rows (after the rank test) */
  int *active;             /* ma row indices into the full list */
  int *row_owner;          /* mrow: joint index, or −1−drive for drive rows, −1000−body for norm */
  int rank;
  int nchannel;
  mbd_channel *channel;
  mbd_data *data;          /* state and workspaces, sized at assembly */
  double assembly_tol;
  double moved;            /* largest change assembly made to a given coordinate */
  int moved_body;          /* the body it belongs to, −1 for none */

  int nwarning;
  char warning[MBD_MAX_WARNINGS][256];
};

struct mbd_data {
  double t;
  double *q, *qd, *qdd;    /* n */
  double *phi;             /* mrow, all rows */
  double *phiq;            /* mrow × n, column-major, ld = mrow */
  double *phit;            /* mrow */
  double *gamma;           /* mrow */
  double *lambda;          /* mrow multipliers (0 for inactive rows) */
  double *M;               /* n × n mass matrix */
  double *Q;               /* n generalized applied forces (incl. gravity, quadratic terms) */
  /* active-row copies used by the formulations */
  double *phi_a, *phiq_a, *gamma_a, *phit_a; /* ma, ma×n (ld = ma), ma, ma */
  double *aug;             /* (n+ma)² augmented matrix */
  double *augrhs;          /* n+ma */
  int *ipiv;               /* n+ma */
  double *work;            /* 4(n+mrow) scratch */
  int *iwork;              /* n+mrow scratch */
  double *tmp_n;           /* n scratch */
  double *tmp_m;           /* mrow scratch */
  mbd_lsq_ws lsq;          /* least squares, mrow × n */
  int have_dynamics;       /* qdd and lambda valid for the current state */
  long newton_iterations;
  long lu_factorizations;
  long row_reselections;   /* active rows chosen again during the run */
  double aug_ratio0;       /* pivot ratio of the first augmented LU of the run, 0 before it */
};

/* warnings (printf-style), kept on the model */
void mbd_model_warn(mbd_model *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* body pose helpers (planar): rotation matrix entries of θ */
void mbd_body_state(const mbd_model *m, const mbd_data *d, int b, double *r, double *theta,
                    double *v, double *omega);

/* constraints: Φ, Φq, Φt, γ for all rows at d->t, d->q, d->qd (model/constraints.c).
 * want_gamma = MBD_EVAL_GAMMA when only q̇ changed since the last call: γ is recomputed and Φq
 * left as it is (planar; spatial models evaluate everything) */
#define MBD_EVAL_GAMMA 2
int mbd_constraints_eval(const mbd_model *m, mbd_data *d, int want_gamma, mbd_error *err);
/* copy active rows into phi_a, phiq_a, gamma_a, phit_a */
void mbd_constraints_gather(const mbd_model *m, mbd_data *d);
/* joint relative coordinate (angle/displacement) and its rate */
void mbd_joint_coord(const mbd_model *m, const mbd_data *d, int j, double *value, double *rate);

/* mass matrix and applied forces (model/forces.c) */
int mbd_forces_eval(const mbd_model *m, mbd_data *d, mbd_error *err);
double mbd_energy(const mbd_model *m, const mbd_data *d);

/* position analysis on the active rows: minimum-norm Newton from d->q, every coordinate free
 * (kinematics/assemble.c).  Returns MBD_OK or MBD_E_NEWTON with the row of the largest residual
 * named. */
int mbd_position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                          mbd_error *err);
/* velocity analysis: min-norm correction of d->qd so that Φq q̇ + Φt = 0 on active rows */
int mbd_velocity_analysis(const mbd_model *m, mbd_data *d, mbd_error *err);
/* max |Φ| and max |Φq q̇ + Φt| over all rows (constraints must be evaluated) */
double mbd_position_violation(const mbd_model *m, const mbd_data *d);
double mbd_velocity_violation(const mbd_model *m, const mbd_data *d);
/* max |Φ| over the active rows, from the gathered copy (Newton residual) */
double mbd_active_residual(const mbd_model *m, const mbd_data *d);
/* re-choose the active rows at the current state when some were set aside (assemble.c);
 * 1 when the set changed, 0 when kept, < 0 on error.  The active set is run state: it lives in
 * the model next to the workspaces because every formulation reads it there. */
int mbd_reselect_rows(mbd_model *m, mbd_data *d, mbd_error *err);

/* channels (model/channels.c) */
int mbd_channels_build(mbd_model *m, mbd_error *err);

/* augmented dynamics: q̈ and λ from [M Φqᵀ; Φq 0] with the given right-hand side γ* (ma) */
int mbd_dynamics_augmented(const mbd_model *m, mbd_data *d, const double *gamma_star,
                           mbd_error *err);

/* ------------------------------------------------------------------------------------------ */
/* spatial bodies (model/spatial.c, model/forces3.c): q = (r, p), p = (e0, e1, e2, e3)         */

/* Euler-parameter matrices (Nikravesh ch. 6; Haug ch. 9), all row-major:
 * A = E Gᵀ (3×3), E = [−e, ẽ + e0 I] and G = [−e, −ẽ + e0 I] (3×4), ω = 2Eṗ (global),
 * ω' = 2Gṗ (body frame); B(p, a) = ∂(A(p) a)/∂p (3×4), exact also off the unit sphere */
void mbd_ep_A(const double *p, double *A);
void mbd_ep_E(const double *p, double *E);
void mbd_ep_G(const double *p, double *G);
void mbd_ep_B(const double *p, const double *a, double *B);
/* eigenvalues of a symmetric 3×3 (row-major), ascending */
void mbd_sym3_eigenvalues(const double *S, double *ev);

/* check a spatial joint's axes in the given poses and choose its reference axes (ref2 so that the
 * relative angle is 0 in the poses the user gave; fixed: the relative frame of those poses) */
int mbd_spatial_joint_init(const mbd_model *m, mbd_joint *j, mbd_error *err);
/* before the assembly's position analysis: reset the angle memos */
void mbd_spatial_reset(mbd_model *m);
/* after it: ṗ = ½ Eᵀω from the given global angular velocities, ṙ as given */
void mbd_spatial_velocity0(const mbd_model *m, mbd_data *d);
/* Φ, Φq, Φt, γ of spatial joints, drives and Euler-parameter norms (Φq, Φt zeroed by caller) */
int mbd_constraints_eval3(const mbd_model *m, mbd_data *d, mbd_error *err);
/* joint angle (which = 0, revolute/cylindrical, continuous) or displacement along axis1
 * (which = 1, translational/cylindrical) and its rate */
void mbd_spatial_joint_coord(const mbd_model *m, const mbd_data *d, int j, int which,
                             double *value, double *rate);
/* the same coordinate as a row: value, rate, ∂/∂q over (body1 | body2) coordinates (J, 14
 * entries, may be NULL) and the quadratic part h of the coordinate's second derivative
 * (coordinate¨ = J q̈ + h; may be NULL) */
void mbd_spatial_coord_row(const mbd_model *m, const mbd_data *d, int j, int which, double *value,
                           double *rate, double *J, double *h);
/* global angular velocity component of body b */
double mbd_spatial_omega(const mbd_model *m, const mbd_data *d, int b, int comp);
/* reaction torque of joint j on body2 about its joint point (global), needs λ */
double mbd_spatial_reaction_torque(const mbd_model *m, const mbd_data *d, int j, int comp);

/* M = diag(m I₃, 4GᵀJ'G), Q = [m g + ΣF; 2Gᵀn' + 8ĠᵀJ'Ġp] and the energy of spatial models
 * (model/forces3.c) */
int mbd_forces_eval3(const mbd_model *m, mbd_data *d, mbd_error *err);
double mbd_energy3(const mbd_model *m, const mbd_data *d);

#endif
