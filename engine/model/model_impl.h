/* mbd — the model and its data: private structures of model/, kinematics/, formulations/, sim/.
 *
 * The model (struct mbd_model) describes the mechanism.  It is built object by object, then
 * assembled (coordinate blocks and constraint rows numbered, the rank test, the initial position
 * and velocity analyses); after assembly it is read only: every engine function of a run takes a
 * `const mbd_model *`.  What changes during a run — coordinates, the body-pose cache, the active
 * constraint rows, angle memos, workspaces, counters — lives in an mbd_data (data.c), one per
 * run (and one more for sampling, so recording never touches the integration state).
 *
 * Coordinates are not bodies.  The model owns coordinate blocks: contiguous ranges of the
 * position vector q (nq entries) and of the velocity vector v (nv entries), each owned by one
 * element (today: a rigid body; later a flexible body's modal block, a contact's surface
 * parameters, a joint tree).  nq ≠ nv is allowed; a block maps its v to q̇.  Every body has
 * Cartesian pose coordinates Y (planar x y θ; spatial r, Euler parameters p) computed from its
 * block into the pose cache together with the Jacobian ∂Ẏ/∂v_block and the quadratic term
 * (Ÿ = J v̇ + h).  Constraints and forces are written in Y (local rows over the two bodies of a
 * joint) and scattered through those Jacobians; for rigid bodies in Cartesian coordinates Y is
 * the block itself (J = I, h = 0). */
#ifndef MBD_MODEL_IMPL_H
#define MBD_MODEL_IMPL_H

#include "mbd/linalg.h"
#include "mbd/model.h"
#include "mbd/rot.h"
#include "mbd/sparse.h"
#include "contact_records.h"

#define MBD_NAME_MAX 64
#define MBD_MAX_WARNINGS 32
#define MBD_NY_MAX 7                /* pose coordinates Y of one body (spatial: r, p) */
#define MBD_NLOC (2 * MBD_NY_MAX)   /* local columns of a two-body row: (Y1 | Y2) */
#define MBD_JOINT_MAXROW 6          /* rows of the largest joint (spatial fixed) */

/* ------------------------------------------------------------------------------------------ */
/* bodies and their kinds                                                                      */

typedef enum mbd_body_kind {
  MBD_BODY_GROUND2 = 0, /* the ground of a planar model: fixed, θ = 0, no block */
  MBD_BODY_GROUND3,    /* the ground of a spatial model: fixed, p = (1, 0, 0, 0), no block */
  MBD_BODY_RIGID2,     /* planar rigid body, block (x, y, θ | ẋ, ẏ, θ̇) */
  MBD_BODY_RIGID3,     /* spatial rigid body, block (r, p | ṙ, ṗ), pᵀp = 1 in the constraints */
  MBD_BODY_FLEX2,      /* planar flexible body (flex_impl.h), block (x, y, θ, a | ẋ, ẏ, θ̇, ȧ) */
  MBD_BODY_FLEX3,      /* spatial flexible body, block (r, p, a | ṙ, ṗ, ȧ) */
  MBD_BODY_NODE2,      /* a node of a planar flexible body: pose from its owner's block */
  MBD_BODY_NODE3,      /* a node of a spatial flexible body */
  MBD_BODY_NKINDS
} mbd_body_kind;

typedef struct mbd_body {
  char name[MBD_NAME_MAX]; /* unique name */
  int kind;                /* mbd_body_kind */
  double mass;             /* kg */
  double inertia[9];       /* 3×3 inertia about the CM in the body frame, row-major; planar: [8]=Izz */
  double q0[7];            /* initial pose as given: planar x y θ; spatial x y z e0..e3 */
  double v0[6];            /* initial velocity as given: vx vy vz wx wy wz (planar: vx vy ω) */
  int block;               /* its coordinate block, −1 for ground (set by assembly) */
  int nmode;               /* block coordinates after the kind's: a flexible body's modes */
  struct mbd_flex *flex;   /* a flexible body's or a node's data (flex_impl.h), else NULL */
  int node;                /* a node body's node number (from 1), else 0 */
  int copy;                /* the macro copy it belongs to (index into copy[]), 0 for none */
  int vgiven;              /* velocities the user gave: 1 vel, 2 omega (assembly keeps them) */
} mbd_body;

/* a copy of a macro element (paper 002, section 4): a sub-mechanism placed by a rigid transform */
typedef struct mbd_copy {
  char shape[MBD_NAME_MAX];  /* the macro's name: copies of one shape share derived equations */
  char name[MBD_NAME_MAX];   /* the copy's name (prefix of its objects' names) */
  double origin[3];          /* placement: global position of the copy's frame */
  double rot[4];             /* its orientation: Euler parameters (planar: rot[0] = angle) */
} mbd_copy;

/* the pose of one body, filled from its block by the kinematics stage (kinematics/poses.c) */
typedef struct mbd_pose {
  double r[3], rd[3];      /* CM position and velocity, global (planar: z = 0) */
  double p[4], pd[4];      /* orientation coordinates and rates: spatial e0..e3; planar p[0] = θ */
  double A[9];             /* rotation body → global, row-major 3×3 (planar: about z) */
  double w[3];             /* angular velocity, global (planar: (0, 0, θ̇)) */
  int vadr;                /* first velocity column of the owning block, −1 for the ground */
  int ny;                  /* pose coordinates of its kind (0 for the ground) */
  const double *J;         /* ny × nv_block ∂Ẏ/∂v (column-major), NULL: Y is the block (J = I) */
  int nv;                  /* nv_block: the columns of J (a node's: its flexible body's block) */
  double h[MBD_NY_MAX];    /* quadratic term Ÿ = J v̇ + h (zero when J is NULL) */
} mbd_pose;

/* a vector of the global frame as a function of the two bodies' pose coordinates: a point
 * r + A s', an axis A a', a separation.  Value, rate, Jacobian over (Y1 | Y2), and the quadratic
 * term h = J̇ Ẏ of its second derivative (v̈ = J Ÿ + h). */
typedef struct mbd_vec {
  double v[3], vd[3];
  double J[3][MBD_NLOC];
  double h[3];
} mbd_vec;

/* a scalar equation over (Y1 | Y2): Φ, Φ̇ without Φt, ∂Φ/∂Y, and h: Φ̈ = J Ÿ + h, so γ = −h */
typedef struct mbd_row {
  double val, rate;
  double J[MBD_NLOC];
  double h;
} mbd_row;

/* what a body kind knows (model/body_kinds.c): the dispatch that replaces `dim == 3` forks */
typedef struct mbd_body_kind_desc {
  const char *name;        /* "planar rigid body" */
  int ny;                  /* pose coordinates Y: 3 or 7 */
  int npos;                /* position coordinates at the head of Y: 2 or 3 */
  int nq, nv;              /* size of its own coordinate block */
  int nnorm;               /* normalization rows of the block (spatial: pᵀp − 1 = 0) */
  const char *const *coord; /* names of its q coordinates ("x", "theta", "e0", …) */
  int nw, w0;              /* angular-velocity channels: nw components of pose.w from w0 */
  const char *const *wname; /* their names ("omega"; "wx", "wy", "wz") */
  /* the pose from the block's q and v */
  void (*pose)(const double *q, const double *v, mbd_pose *ps);
  /* the pose's rates (ṙ, ṗ, ω) from the block's v, its positions unchanged since `pose` (only
   * the velocities moved: γ after a velocity analysis); NULL: `pose` again */
  void (*rates)(const double *v, mbd_pose *ps);
  /* o += sign·(A a) (an axis) or sign·(r + A a) (point = 1) of this body as side `side` of a row
   * (local columns side·MBD_NY_MAX …): value, rate, Jacobian over Y, quadratic term */
  void (*vec_add)(const mbd_pose *ps, const double *a, double sign, int side, int point,
                  mbd_vec *o);
  int const_inertia;       /* 1: M_Y and the Q_Y of `inertia` do not depend on the pose */
  /* M_Y (ny×ny, ld ldm, zeroed by the caller) and Q_Y += gravity and velocity-quadratic terms */
  void (*inertia)(const mbd_body *b, const double *g, const mbd_pose *ps, double *M, int ldm,
                  double *Q);
  /* Q_Y += a global force F at body point s' / a global torque T (planar: T[2]) */
  void (*point_force)(const mbd_pose *ps, const double *s, const double *F, double *Q);
  void (*torque)(const mbd_pose *ps, const double *T, double *Q);
  /* kinetic energy plus the potential of gravity g (zero at the origin) */
  double (*energy)(const mbd_body *b, const double *g, const mbd_pose *ps);
  /* the given initial velocity v0 as block velocities (after the position analysis) */
  void (*velocity0)(const mbd_body *b, const double *q, double *v);
  /* moment about the CM (global) of a generalized force Q_rot on the orientation coordinates */
  void (*moment)(const mbd_pose *ps, const double *Qrot, double *n);
  /* kinds whose pose needs more than their own block (a flexible body's node), may be NULL:
   * the whole pose with its Jacobian J and quadratic term h (replaces `pose`) */
  void (*pose_model)(const mbd_model *m, mbd_data *d, int b, mbd_pose *ps);
  /* kinds with a mass matrix over their whole block (flexible bodies), may be NULL: M and Q of
   * the block written into d (replaces `inertia`); 0 or < 0 with err */
  int (*block_inertia)(const mbd_model *m, mbd_data *d, int b, mbd_error *err);
  /* kinetic and potential energy of such a kind (replaces `energy`), may be NULL */
  double (*block_energy)(const mbd_model *m, const mbd_data *d, int b);
} mbd_body_kind_desc;

/* the table of body kinds (body_kinds.c), read through mbd_body_kind_get: inline, since every
 * stage of an evaluation asks it for each body */
extern const mbd_body_kind_desc mbd_body_kinds[];
static inline const mbd_body_kind_desc *mbd_body_kind_get(int kind) {
  return &mbd_body_kinds[(kind >= 0 && kind < MBD_BODY_NKINDS) ? kind : MBD_BODY_GROUND2];
}

/* ------------------------------------------------------------------------------------------ */
/* coordinate blocks                                                                           */

typedef enum mbd_block_kind {
  MBD_BLOCK_BODY = 0,      /* a rigid body's own coordinates (its kind gives the layout) */
  MBD_BLOCK_SURFACE,       /* a contact's surface parameters: positions only (nv = 0), solved
                              from the bodies' poses at every evaluation (paper 001 eq 1–8) */
  MBD_BLOCK_TREE,          /* the joint coordinates of a spanning tree (paper 002, tree_impl.h) */
} mbd_block_kind;

typedef struct mbd_block {
  int kind;                /* mbd_block_kind */
  int owner;               /* body index (MBD_BLOCK_BODY), contact index (MBD_BLOCK_SURFACE) */
  int qadr, nq;            /* positions q[qadr .. qadr + nq) */
  int vadr, nv;            /* velocities v[vadr .. vadr + nv) */
} mbd_block;

/* ------------------------------------------------------------------------------------------ */
/* joints and their types                                                                      */

/* a joint's relative coordinates: the angle about axis1 from ref1 to ref2 (planar: θ2 − θ1), the
 * displacement of the joint points along axis1, and a planar joint's displacements along ref1 (x)
 * and along axis1 × ref1 (y) */
typedef enum mbd_coord_kind {
  MBD_COORD_ANGLE = 0,
  MBD_COORD_DISPLACEMENT,
  MBD_COORD_X,
  MBD_COORD_Y,
  MBD_COORD_NKINDS
} mbd_coord_kind;
/* the channel name of a coordinate kind ("angle", "displacement", "x", "y") */
const char *mbd_coord_name(int kind);
#define MBD_JOINT_MAXCOORD 3 /* relative coordinates of the largest joint (spatial planar) */

typedef struct mbd_joint {
  char name[MBD_NAME_MAX];
  int type;                /* mbd_joint_type */
  int body1, body2;
  double at1[3], at2[3];   /* points in body frames */
  double axis1[3], axis2[3]; /* unit axes in body frames */
  double ref1[3], ref2[3]; /* spatial: unit reference axes ⟂ axis, for relative angles */
  double angle0;           /* planar translational/fixed: locked relative angle θ2−θ1 */
  double lead;             /* screw: advance along axis1 per radian (pitch / 2π) */
  double disp0;            /* screw: the displacement along axis1 in the given poses */
  int row0, nrow;          /* its rows in the constraint vector (set by assembly) */
  int drive;               /* drive index or −1 */
  int rspring;             /* rotational spring index or −1 */
  int copy;                /* the macro copy it belongs to, 0 for none */
} mbd_joint;

/* a joint's rows are made of the vectors of its joint frame (Haug ch. 9): the separation d of
 * the joint points, body1's f1 = A1 ref1, g1 = A1 (axis1 × ref1), h1 = A1 axis1, body2's
 * f2 = A2 ref2, h2 = A2 axis2, and in planar models n1 = A1 R90 axis1 */
typedef enum mbd_joint_vec {
  MBD_JV_D = 0,
  MBD_JV_F1,
  MBD_JV_G1,
  MBD_JV_H1,
  MBD_JV_F2,
  MBD_JV_H2,
  MBD_JV_N1,
  MBD_JV_N
} mbd_joint_vec;

/* one row of a joint: a component b of d (MBD_JR_COMP), a dot product a·b of two vectors
 * (MBD_JR_DOT), the planar relative angle held at its given value, θ2 − θ1 − angle0
 * (MBD_JR_LOCK), the screw's advance h1·d − disp0 − lead θ with θ the relative angle about axis1
 * (MBD_JR_SCREW) */
typedef enum mbd_joint_row_op {
  MBD_JR_NONE = 0,
  MBD_JR_COMP,
  MBD_JR_DOT,
  MBD_JR_LOCK,
  MBD_JR_SCREW
} mbd_joint_row_op;
typedef struct mbd_joint_row_def {
  unsigned char op, a, b; /* mbd_joint_row_op; vectors (mbd_joint_vec) or d's component */
} mbd_joint_row_def;

/* how a joint moves its child in a spanning tree (relative coordinates, paper 002; tree_impl.h):
 * a rotation — none, about axis1 by one angle, by two angles (about axis1, then axis2: the
 * universal), by the relative Euler parameters (spherical) — and displacements along directions
 * of body1, each per unit of its coordinate: axis1, axis1 times the lead (a screw: the
 * displacement's coordinate is the angle's), ref1, axis1 × ref1 */
typedef enum mbd_tree_rot {
  MBD_TROT_NONE = 0,
  MBD_TROT_AXIS,
  MBD_TROT_TWO_AXES,
  MBD_TROT_EULER
} mbd_tree_rot;
typedef enum mbd_tree_dir { MBD_TDIR_AXIS = 0, MBD_TDIR_LEAD, MBD_TDIR_REF1, MBD_TDIR_G1 } mbd_tree_dir;
typedef struct mbd_tree_motion {
  int nq;                 /* the joint's coordinates in a tree */
  int rot, rot_at;        /* mbd_tree_rot and its first coordinate */
  int ndisp, disp_at;     /* displacements and the first one's coordinate (the next follow) */
  int dir[2];             /* their directions, mbd_tree_dir */
  const char *name[4];    /* the coordinates' names ("angle", "e0" ...) */
} mbd_tree_motion;

/* what a joint type knows (model/joint_types.c), per model dimension [0] planar, [1] spatial */
typedef struct mbd_joint_type_desc {
  const char *name;        /* "revolute" */
  int nrow[2];             /* constraint rows; 0: not available in that dimension */
  int need_axis[2];        /* 1: axis1 required (spatial: axis1 and axis2) */
  int ncoord[2];           /* relative coordinates (channels, drives, springs) */
  int coord[2][MBD_JOINT_MAXCOORD]; /* their mbd_coord_kind */
  int follows[2];          /* bit c: coordinate c follows the others (a screw's displacement
                              is its angle's; holding the joint holds the others alone) */
  int drive_coord[2];      /* the coordinate a drive prescribes (index into coord), −1: none */
  int angle_coord[2];      /* the coordinate a rotational spring acts on, −1: none */
  int friction_coord[2];   /* the coordinate joint friction (paper 001) opposes the rate of,
                              −1: the type takes none; an angle's friction is a moment, its
                              arm the joint's radius */
  mbd_tree_motion tree[2]; /* how it moves its child in a spanning tree */
  /* its rows, written once as data: the numeric evaluation (mbd_joint_rows) and the symbolic
   * one of the code generator (codegen/derive.c) both read them */
  mbd_joint_row_def row[2][MBD_JOINT_MAXROW];
} mbd_joint_type_desc;

/* the table of joint types (joint_types.c), NULL for an unknown type */
extern const mbd_joint_type_desc mbd_joint_types[];
static inline const mbd_joint_type_desc *mbd_joint_type_get(int type) {
  return (type >= 0 && type < MBD_JOINT_NTYPES) ? &mbd_joint_types[type] : NULL;
}
/* index in [0, 2) of the model's dimension for the tables above */
#define MBD_DIMX(m) ((m)->dim == 3 ? 1 : 0)

typedef struct mbd_tree mbd_tree; /* the spanning tree of the relative formulation (tree_impl.h) */

/* generated equations (paper 002, engine/codegen/): a model carrying them evaluates its rows and
 * forces through them instead of the numeric stages (kinematics/constraints.c, forces.c) */
typedef struct mbd_eqs_hook {
  /* Φ, Φq, Φt, γ of every row at d->t, d->q, d->v (flags as mbd_constraints_eval) */
  int (*rows)(void *ud, const mbd_model *m, mbd_data *d, int flags, mbd_error *err);
  /* M and Q at the state of d */
  int (*forces)(void *ud, const mbd_model *m, mbd_data *d, mbd_error *err);
  void *ud;
  int need_poses;          /* 1: the pose stage still runs (numeric forces read the poses) */
  /* an open tree (no rows, every force in the code): d's t, q, v, M and Q from y = [q; q̇]
   * straight, the forces stage's values without its layers; NULL when the code is not that */
  void (*open)(void *ud, const mbd_model *m, mbd_data *d, double t, const double *y);
} mbd_eqs_hook;

typedef struct mbd_drive {
  int joint;               /* driven joint */
  int coord;               /* the joint coordinate it prescribes (mbd_coord_kind) */
  int row;                 /* its constraint row (set by assembly) */
  mbd_time_fn fn;          /* position f(t), f'(t), f''(t) */
  void *ud;                /* passed to fn */
} mbd_drive;

typedef enum { FORCE_POINT, FORCE_TORQUE } force_kind;

typedef struct mbd_force {
  int kind;                /* force_kind */
  int body;                /* body it acts on (≥ 1) */
  double at[3];            /* application point, body frame (forces) */
  double value[3];         /* constant value, global frame, when fn is NULL */
  mbd_vec_fn fn;           /* value as a function of time and state, or NULL */
  void *ud;                /* passed to fn */
} mbd_force;

typedef struct mbd_spring {
  char name[MBD_NAME_MAX];
  int body1, body2;
  double at1[3], at2[3];   /* attachment points, body frames */
  double k, c, length;     /* N/m, N·s/m, m */
} mbd_spring;

typedef struct mbd_rspring {
  int joint;               /* revolute (or spatial cylindrical) joint */
  double k, c, angle;      /* N·m/rad, N·m·s/rad, free angle rad */
} mbd_rspring;

/* ------------------------------------------------------------------------------------------ */
/* constraint rows                                                                             */

typedef enum mbd_row_owner {
  MBD_ROW_JOINT = 0,
  MBD_ROW_DRIVE,
  MBD_ROW_BODY,
  MBD_ROW_CONTACT,         /* a contact's gap row (local 0) and rolling rows (1, 2) */
  MBD_ROW_JFRIC,           /* a frictional joint's lock (velocity level, while it sticks) */
  MBD_ROW_TREE             /* pᵀp − 1 of a tree joint's Euler parameters: index = their q address,
                              local = the joint (a floating joint: −1 − its body) */
} mbd_row_owner;
typedef enum mbd_row_level {
  MBD_ROW_POSITION = 0,    /* holonomic Φ(q, t) = 0: position analysis, Φ̇, Φ̈ */
  MBD_ROW_VELOCITY         /* nonholonomic J v + Φt = 0 (rolling): no Φ, no position analysis */
} mbd_row_level;

typedef struct mbd_rowinfo {
  int owner;               /* mbd_row_owner */
  int index;               /* joint, drive or body index */
  int local;               /* row within its owner (0-based) */
  int level;               /* mbd_row_level */
} mbd_rowinfo;

/* ------------------------------------------------------------------------------------------ */
/* recorded channels                                                                           */

typedef enum {
  CH_Q,        /* body pose coordinate: index = body, comp = Y offset */
  CH_V,        /* body velocity: comp 0..2 = vx vy vz */
  CH_W,        /* body angular velocity: planar ω (comp 2), spatial wx wy wz global */
  CH_JCOORD,   /* joint relative coordinate: comp = index into its type's coord list */
  CH_JFORCE,   /* joint reaction on body2, global, comp 0..2 */
  CH_JEFFORT,  /* drive effort (torque or force) on body2 */
  CH_JTORQUE,  /* spatial joint reaction torque on body2 about its joint point, global */
  CH_ENERGY,
  CH_VIOLATION,
  CH_CONTACT,  /* contact quantity: index = contact, comp = mbd_contact_channel (contact_impl.h) */
  CH_JFRIC,    /* joint friction: index = its record, comp 0 the friction, 1 sticking */
  CH_MODAL,    /* a flexible body's modal coordinate: index = body, comp = mode */
  CH_MODALRATE, /* its rate */
  CH_NODEROT   /* a node's small rotation Θ = Ψ a (body axes): index = node body, comp 0..2 */
} channel_kind;

typedef struct mbd_channel {
  char name[MBD_NAME_MAX + 16];
  int kind;                /* channel_kind */
  int index;               /* body or joint */
  int comp;
  int dynamic;             /* needs accelerations / multipliers */
} mbd_channel;

/* ------------------------------------------------------------------------------------------ */
/* the model                                                                                   */

struct mbd_model {
  char name[MBD_NAME_MAX];
  int dim;                 /* 2 or 3 */
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
  int nsurface, csurface;  /* surfaces and contacts (paper 001, engine/contact) */
  mbd_surface *surface;
  int ncontact, ccontact;
  mbd_contact *contact;
  int njfric, cjfric;      /* joints with friction */
  mbd_joint_friction *jfric;
  int nflex, cflex;        /* flexible bodies (flex_body.c) and capacity */
  struct mbd_flex **flex;
  size_t flexws;           /* doubles of their workspace in each data */
  int ncopy, ccopy;        /* macro copies: copy[0] unused (index 0 is "none") */
  mbd_copy *copy;
  int open_copy;           /* the copy objects are added to now, 0 for none */

  /* set by assembly (kinematics/assemble.c); read only afterwards */
  int assembled;
  int running;             /* runs of this model in progress (mbd_simulate, mbd_kinematics): while
                              > 0 nothing may change it or assemble it again; every builder
                              function starts with mbd_model_check_idle */
  int nblock;              /* coordinate blocks */
  mbd_block *block;        /* nblock */
  int nq, nv;              /* positions, velocities */
  int nqi;                 /* positions of the blocks with velocities (integrated); the surface
                              parameters of contacts follow them at q[nqi .. nq) */
  int mrow;                /* constraint rows, all */
  mbd_rowinfo *row;        /* mrow: owner and level of each row */
  int rank;                /* rank of the Jacobian at the assembled pose */
  int ma0;                 /* rows kept by the rank test (a run starts with these active) */
  int *active0;            /* ma0 row indices, increasing */
  double *q_asm, *v_asm;   /* nq, nv: the assembled initial state */
  double *memo_asm;        /* njoint: spatial angle memos at the assembled state */
  int nchannel;
  mbd_channel *channel;
  double assembly_tol;
  double *drive0;          /* 3 ndrive: each drive's f, f', f'' at t = 0 as assembly took them */
  int nwarning_asm;        /* the warnings once assembled (a run's own come after them) */
  long nassembled;         /* assemblies done (a run reuses the last one while it stands) */
  double moved;            /* largest change assembly made to a given coordinate */
  int moved_body;          /* the body it belongs to, −1 for none */
  double moved_dist;       /* largest distance assembly moved a body's centre of mass [m] */
  int moved_dist_body;     /* that body, −1 for none */
  double moved_angle;      /* largest angle assembly turned a body [rad] */
  int moved_angle_body;    /* that body, −1 for none */
  double size;             /* the model's size [m]: its largest position or joint point, ≥ 1e-3 */
  struct mbd_tree *tree;   /* relative joint coordinates: the spanning tree (tree_impl.h), or NULL */
  const mbd_eqs_hook *eqs; /* generated equations in place of the numeric stages, or NULL */
  double vmoved;           /* largest change assembly made to a velocity the user gave */
  int vmoved_body;         /* the body it belongs to, −1 for none */

  /* diagnostics of building and assembly */
  int nwarning;
  char warning[MBD_MAX_WARNINGS][256];
};

/* ------------------------------------------------------------------------------------------ */
/* the data of a run                                                                           */

/* the sparse form of the constraint Jacobian and of the leading matrix (model/sparse_pattern.c; the
 * formulations' sparse solve, formulations/linear_solver.c).  A row of a joint, drive, contact or
 * frictional joint has the columns of its two bodies' blocks (a node's: its flexible body's
 * whole block), a norm row the four of its Euler parameters: the pattern is fixed when the data
 * is made, and an evaluation writes O(nnz) values where the dense Φq costs mrow × nv.  M is
 * block diagonal: the nonzero entries of each block.  The leading matrix [M Φqᵀ; Φq 0] of the
 * active rows is kept in compressed columns with maps from M and Φq into it, made again (and its
 * symbolic analysis) only when the active rows change. */
typedef struct mbd_sparse {
  int on;                  /* 1: this run evaluates Φq here; d->phiq and d->phiq_a are not written */
  int nnz;                 /* Φq entries of all rows */
  int *rp;                 /* mrow + 1: row r's entries are [rp[r], rp[r + 1]) */
  int *ci;                 /* nnz column indices, increasing within a row */
  double *val;             /* nnz values */
  int *soff;               /* 2 mrow: row r, side s: its first entry less rp[r], −1 for none */
  int *scol;               /* 2 mrow: the first column of that side's block */
  int nm;                  /* entries of M's blocks that may be nonzero */
  int *mi, *mj;            /* nm: their rows and columns, by columns */
  /* the leading matrix of the active rows (formulations/linear_solver.c) */
  int kma;                 /* active rows it was made for, −1: not made */
  int *kact;               /* mrow: those rows */
  int kn;                  /* its order nv + kma */
  int *kp, *ki;            /* column starts (nv + mrow + 1) and row indices (capacity knzmax) */
  double *kx;              /* values */
  int knzmax;              /* nm + 2 nnz */
  int *kmap_m;             /* nm: the place of each M entry in kx */
  int *kmap_lo, *kmap_up;  /* nnz: the places of a Φq entry of an active row below M and beside it
                              (−1 for a row not active) */
  mbd_splu *klu;           /* its factorization */
  long nanalyze;           /* symbolic analyses (the active rows changed) */
  /* gcp's and kane's dependent block Φ_qd (formulations/partition.c) */
  int *jcol;               /* nv: a coordinate's place among the dependent ones, −1 independent */
  int *jp, *ji;            /* its column starts (mrow + 1) and row indices (nnz) */
  double *jx;              /* its values */
  int *jmap;               /* nnz: a Φq entry's place in jx, −1 outside Φ_qd */
  int *jsrc;               /* nnz: the Φq entry of a place in jx (jmap's inverse) */
  int *jip, *jie;          /* mrow + 1, nnz: active row k's entries in independent columns are
                              jie[jip[k] .. jip[k + 1]) (the velocity analysis' right side) */
  int *jact, jma;          /* the active rows it was made for and their number (−1: none) */
  long jpid;               /* the partition it was made for */
  mbd_splu *jlu;           /* its factorization */
  int jok;                 /* 1: jlu is the factorization of jx as it stands, nonsingular (an
                              evaluation whose Φ_qd did not change keeps it) */
  double jratio;           /* that factorization's pivot ratio */
  int fresh_pivots;        /* 1: every factorization pivots anew — the data of samples, whose
                              values must not depend on which samples came before */
} mbd_sparse;

/* whether the constraint rows of m have the fixed block pattern of mbd_sparse (Cartesian
 * coordinates; not a joint tree, not generated equations) */
int mbd_sparse_applies(const mbd_model *m);
/* the pattern for the numbered model m (NULL with err on failure) */
mbd_sparse *mbd_sparse_new(const mbd_model *m, mbd_error *err);
void mbd_sparse_free(mbd_sparse *sp);

/* ------------------------------------------------------------------------------------------ */
/* the evaluation's stages                                                                     */

/* What an evaluation has realized for the state (t, q, v) in an mbd_data, in order: each stage
 * needs the ones before it (as MuJoCo's mj_fwdPosition … mj_fwdAcceleration and Simbody's
 * Stage).  mbd_eval_to (kinematics/stages.c) brings d up to a stage, doing only what is missing;
 * whoever writes the state lowers the stage (mbd_stage_touch):
 *   t or q changed, the active rows or a contact's mode changed  → MBD_STAGE_NONE
 *   only v changed (a velocity analysis, an impulse)              → MBD_STAGE_POSITION
 *   only the forces' inputs changed (friction of new normal forces) → MBD_STAGE_VELOCITY
 * A formulation's solve realizes MBD_STAGE_ACCELERATION (mbd_stage_reached): v̇ and λ. */
typedef enum mbd_stage {
  MBD_STAGE_NONE = 0,      /* the state alone */
  MBD_STAGE_POSITION,      /* the poses, Φ, Φq and Φt of every row, the active rows gathered:
                              what a Newton iteration reads */
  MBD_STAGE_VELOCITY,      /* the poses' rates and γ (gathered) */
  MBD_STAGE_FORCES,        /* M and Q */
  MBD_STAGE_ACCELERATION   /* v̇ and λ */
} mbd_stage;

/* a recorder of the stages: fn(ud, m, d, stage) after each stage is realized in d */
typedef struct mbd_stage_recorder {
  void (*fn)(void *ud, const mbd_model *m, const mbd_data *d, int stage);
  void *ud;
} mbd_stage_recorder;


struct mbd_data {
  double t;
  double *q;               /* nq positions */
  double *v;               /* nv velocities */
  double *vdot;            /* nv accelerations */
  mbd_pose *pose;          /* nbody poses (ground included), kinematics/poses.c */
  double *angle_memo;      /* njoint: spatial relative angles, continuous (unwrapping memo, rad) */
  int ma;                  /* active rows */
  int *active;             /* mrow capacity: active row indices, increasing */
  double *flexws;          /* flexible bodies' node Jacobians and scratch (model->flexws) */
  double *phi;             /* mrow, all rows (0 for velocity-level rows) */
  double *phiq;            /* mrow × nv Jacobian ∂Φ̇/∂v, column-major, ld = mrow */
  double *phit;            /* mrow */
  double *gamma;           /* mrow: Φ̈ = Φq v̇ − γ */
  double *lambda;          /* mrow multipliers (0 for inactive rows) */
  double *rowJ;            /* mrow × MBD_NLOC local rows over (Y1 | Y2) of joints and drives */
  double *M;               /* nv × nv mass matrix */
  double *Q;               /* nv generalized applied forces (gravity, quadratic terms included) */
  /* active-row copies used by the formulations */
  double *phi_a, *phiq_a, *gamma_a, *phit_a; /* ma, ma×nv (ld = ma), ma, ma */
  double *aug;             /* (nv+mrow)² augmented matrix (with lsq: see mbd_data_dense) */
  double *augrhs;          /* nv+mrow */
  int *ipiv;               /* nv+mrow */
  double *work;            /* 4(nv+mrow) scratch */
  int *iwork;              /* nv+mrow scratch */
  double *tmp_n;           /* nv scratch */
  double *tmp_m;           /* nv+mrow scratch */
  mbd_lsq_ws lsq;          /* least squares, max(nv, mrow) square */
  int dense_ready;         /* aug and lsq allocated (mbd_data_dense) */
  int stage;               /* mbd_stage: what is realized for the state (t, q, v) in this data */
  mbd_stage_recorder record; /* called as each stage is realized (m:explain), or {NULL} */
  unsigned long stage_key[2]; /* (checking builds) the state each stage was realized for */
  long newton_iterations;
  long lu_factorizations;
  long row_reselections;   /* active rows chosen again during the run */
  int phiq_a_mixed;        /* 1 once the active copy held rows out of their order (constraints.c) */
  int (*poll)(void *ud, double t, mbd_error *err); /* assembly's interrupt poll, or NULL */
  void *poll_ud;
  double aug_ratio0;       /* pivot ratio of the first augmented LU of the run, 0 before it */
  /* contacts (engine/contact): their state, the applied forces without friction, counters */
  mbd_contact_state *cstate; /* ncontact */
  mbd_jfric_state *jfstate; /* njfric: the frictional joints' regimes */
  int *evwork;              /* 3 (ncontact + njfric): a switch's scratch (contact_dynamics.c) */
  double *Q0;              /* nv: Q before the friction forces (the normal-force iteration) */
  long contact_iterations; /* fixed-point iterations on the normal forces */
  long events[4];          /* contact events: stick, slip, separate, impact */
  mbd_contact_event_rec *evlog; /* MBD_EVLOG_MAX: the first contact events of the run */
  int nevlog;              /* events logged */
  double *poseJ;           /* tree models: nbody × MBD_NY_MAX × nv pose Jacobians, else NULL */
  double aug_ratio_start;  /* the same, never reset by a re-selection of rows: the scale of the
                              singular-configuration tests */
  double sing_ratio;       /* least pivot ratio of the augmented LU relative to aug_ratio_start (1 at
                              the start): how near a singular configuration the run came */
  double sing_t;           /* where it was */
  int gauss_solved;        /* the last solve was Gauss's principle (no LU to reuse) */
  long gauss_evaluations;  /* solves by Gauss's principle near singular configurations */
  long floor_n;            /* position analyses stopped at the rounding floor of their rows */
  double floor_res, floor_t; /* the largest such residual, and where it was first */
  double aug_ratio;        /* the pivot ratio of the last factorization of the leading matrix */
  double *grs;             /* mrow: the stabilization γ* − γ (with aug: mbd_data_dense) */
  mbd_sparse *sp;          /* the sparse form (model/sparse_pattern.c), NULL for models it does not fit */
  struct mbd_tree_rec *trec; /* tree models of the recursive solve: nbody records (tree_impl.h)
                                in place of poseJ, else NULL */
  struct mbd_pin_rec *pin;   /* tree models with pins (tree_impl.h, mbd_tree.pins): ntj records
                                of the pin sweeps, else NULL */
  int pin_yrec;              /* 1: the pose pass writes the pins' trec F, S, c even where the pin
                                sweeps alone read the poses (kinematics/tree.c) */
  /* a model whose mass matrix and the inertia part of Q are constant (planar rigid bodies in
   * their own coordinates): built at the first evaluation, kept in M and Qg (forces.c) */
  int inertia_const;       /* 1: the model is such (set at allocation) */
  int inertia_ready;       /* 1: M and Qg hold them */
  double *Qg;              /* nv: Q of gravity alone (the bodies' inertia stage) */
  /* drives: the last time each was evaluated at and f, f', f'' there (a drive is a function of
   * time: the stages of one evaluation ask at the same t several times) */
  double *drive_t;         /* ndrive, NaN before the first */
  double *drive_f;         /* 3·ndrive */
  int direct_rows;         /* 1 (default): planar revolute joints of rigid bodies written out
                              (kinematics/constraints.c); 0: through the generic rows (tests) */
};

/* lower d's realized stage to at most `stage` (the state's inputs of the next stages changed) */
static inline void mbd_stage_touch(mbd_data *d, int stage) {
  if (d->stage > stage) {
    d->stage = stage;
  }
}
/* d has realized `stage` (and every one before it): recorded, and in checking builds the state
 * it was realized for remembered (model/data.c) */
void mbd_stage_key(const mbd_model *m, mbd_data *d, int stage);
/* (checking builds) the realized stages stand for d's state as it is now: after a change the
 * stages do not depend on (the active rows gathered anew at the same state) */
void mbd_stage_rekey(const mbd_model *m, mbd_data *d);
static inline void mbd_stage_reached(const mbd_model *m, mbd_data *d, int stage) {
#ifndef NDEBUG
  mbd_stage_key(m, d, stage);
#endif
  d->stage = stage;
  if (d->record.fn) {
    d->record.fn(d->record.ud, m, d, stage);
  }
}
/* whether d has realized `stage`; in checking builds (no NDEBUG) a realized stage whose state
 * has changed since without mbd_stage_touch stops the program (a writer that forgot it) */
int mbd_stage_check(const mbd_model *m, const mbd_data *d, int stage);
static inline int mbd_stage_has(const mbd_model *m, const mbd_data *d, int stage) {
#ifndef NDEBUG
  return mbd_stage_check(m, d, stage);
#else
  (void)m;
  return d->stage >= stage;
#endif
}

/* whether d evaluates in the sparse form now */
static inline int mbd_sparse_on(const mbd_data *d) { return d->sp && d->sp->on; }

/* model/data.c: workspaces sized from the model's numbering (assembly numbers first), the
 * assembled initial state, copies for sampling */
mbd_data *mbd_data_alloc(const mbd_model *m, mbd_error *err);
/* the same for a run or an assembly that keeps the rows in the sparse form (mbd_sparse_set on
 * before the first evaluation) when m has it: the dense Φq, its active copy and M are reserved
 * but not held against the memory limit here — a step that needs them calls mbd_data_dense
 * first, which is (every array then counted) */
mbd_data *mbd_data_alloc_sparse(const mbd_model *m, mbd_error *err);
/* the dense workspaces aug ((nv+mrow)²) and lsq (3·max(nv, mrow)²): a model that has the sparse
 * form (d->sp) gets them on the first use — a dense solve, a rank test or a least-squares analysis
 * that only the dense algebra does — so that a large model's sparse run never holds them; other
 * data have them from mbd_data_alloc.  MBD_OK, or MBD_E_NOMEM with a message naming the model and
 * the size when they would not fit mbd_memory_limit() or the allocation fails. */
int mbd_data_dense(const mbd_model *m, mbd_data *d, mbd_error *err);
void mbd_data_free(mbd_data *d);
/* the assembled initial state: t = 0, q, v, memos, the active rows of the rank test */
void mbd_data_reset(const mbd_model *m, mbd_data *d);
/* the run state of src into dst (t, q, v, v̇, memos, active rows, the augmented baseline): a
 * sample evaluated on dst starts where the integration is and never changes src */
void mbd_data_copy_state(const mbd_model *m, mbd_data *dst, const mbd_data *src);

/* warnings (printf-style), kept on the model: building and assembly */
void mbd_model_warn(mbd_model *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* MBD_OK when m may change; MBD_E_STATE naming m and what was tried ("adding a body") while a
 * run of m is going on (a force or drive function that changes its own model) */
int mbd_model_check_idle(const mbd_model *m, const char *what, mbd_error *err);
/* marks the model for re-assembly (structural change) */
void mbd_model_unassemble(mbd_model *m);

/* the kind (mbd_coord_kind) of the coordinate joint ji's friction acts along, −1 when its type
 * takes none; the arm of that friction, the joint's radius for an angle and 1 for a
 * displacement (the friction force μR times it is a moment or a force) */
int mbd_joint_friction_kind(const mbd_model *m, int ji);
double mbd_joint_friction_arm(const mbd_model *m, int ji, double radius);
/* model/joint_types.c: joint ji's rows at the poses of d (its type's row table, nrow of them) */
void mbd_joint_rows(const mbd_model *m, const mbd_data *d, int ji, mbd_row *rows);
/* model/joint_types.c: joint ji's relative coordinate of kind `kind` (mbd_coord_kind) as a row
 * over (Y1 | Y2); a spatial angle is continuous through d->angle_memo[ji] */
void mbd_joint_coord_row(const mbd_model *m, const mbd_data *d, int ji, int kind, mbd_row *o);
/* check a spatial joint's axes in the given poses and choose its reference axes */
int mbd_joint_init_axes(const mbd_model *m, mbd_joint *j, mbd_error *err);
/* the relative angle of spatial joint ji continued from its memo, cheaply (no derivatives) */
double mbd_joint_angle_value(const mbd_model *m, const mbd_data *d, int ji);

/* model/rows.c: vectors and rows over (Y1 | Y2) (Haug's dot constraints) */
void mbd_vec_axis(const mbd_model *m, const mbd_data *d, int body, int side, const double *a,
                  mbd_vec *o);
void mbd_vec_sep(const mbd_model *m, const mbd_data *d, int b1, const double *s1, int b2,
                 const double *s2, mbd_vec *o);
void mbd_row_dot(const mbd_vec *u, const mbd_vec *w, mbd_row *o);
void mbd_row_comp(const mbd_vec *v, int i, mbd_row *o);
void mbd_row_angle(const mbd_row *c, const mbd_row *s, double memo, mbd_row *o);
/* global position and velocity of a point s' (body frame) of body b */
void mbd_point_state(const mbd_model *m, const mbd_data *d, int b, const double *s, double *P,
                     double *V);

#include "flex_impl.h"

/* model/forces.c: M, Q at the current poses (mass, gravity, forces, springs); energy */
int mbd_forces_eval(const mbd_model *m, mbd_data *d, mbd_error *err);
/* where a body's applied generalized force Q_Y goes (b may be the ground) */
typedef void (*mbd_force_sink)(const mbd_model *m, mbd_data *d, int b, const double *QY);
/* forces.c: applied forces, springs and rotational springs handed body by body to sink */
int mbd_applied_forces(const mbd_model *m, mbd_data *d, mbd_force_sink sink, mbd_error *err);
double mbd_energy(const mbd_model *m, const mbd_data *d);
/* Q += the generalized force of a global force F at body point s' of body b (the ground: none) */
void mbd_forces_add_point(const mbd_model *m, mbd_data *d, int b, const double *s,
                          const double *F);
/* Q += T ∂c/∂Y of a scalar c given as a local row J over (Y1 | Y2) of bodies b1, b2 (a torque or
 * force along a joint coordinate) */
void mbd_forces_add_row(const mbd_model *m, mbd_data *d, int b1, int b2, const double *J, double T);

/* MBD_OK when name is UTF-8 text, else an MBD_E_INPUT error naming `what` and the name with its
 * malformed bytes as \xNN (model.c) */
int mbd_model_check_utf8(const char *name, const char *what, mbd_error *err);

#endif
