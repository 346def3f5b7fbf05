/* mbd — analyses beyond time integration: the static equilibrium of a constrained mechanism and
 * its linearization about a state (state-space matrices, eigenvalues, natural frequencies,
 * damping ratios, mode shapes and their participation factors).
 *
 * Both work on the reduced equations of a partition (paper 000 eq 10–23, as gcp and kane use
 * it): the independent coordinates q_i of the constraint Jacobian's null space and their rates,
 * the dependent ones found by the position and velocity analyses.  The state is
 * x = (q_i, v_i), and a formulation's right-hand side at consistent states is ẋ = f(t, x, u);
 * the linearization is ẋ = A x + B u, y = C x + D u about the operating point (x and u are the
 * deviations from it).  Matrices are column-major. */
#ifndef MBD_LINEAR_H
#define MBD_LINEAR_H

#include "mbd/model.h"

#define MBD_LIN_NAME 96 /* bytes of a coordinate's or a body's name */

/* how the derivatives of the right-hand side are found */
typedef enum mbd_lin_method {
  MBD_LIN_DIFFERENCES = 0, /* central differences of the formulation's right-hand side */
  MBD_LIN_ANALYTIC,        /* exact derivatives of the generated equations (paper 002's symbolic
                              derivation on the model's tree, every joint cut for the Cartesian
                              formulations): rigid bodies, no contacts, no forces given as
                              functions, no macro copies */
  MBD_LIN_NMETHODS
} mbd_lin_method;

const char *mbd_lin_method_name(int method);
int mbd_lin_method_from_name(const char *name); /* −1 for unknown */

/* an input u_k: a generalized force acting at the operating point with value u_k (0 there) */
typedef enum mbd_lin_input_kind {
  MBD_LIN_IN_FORCE = 0, /* a force of 1 N along dir (global) at point `at` of body */
  MBD_LIN_IN_TORQUE,    /* a torque of 1 N·m on body (spatial: about dir, global) */
  MBD_LIN_IN_JOINT      /* a revolute's (cylindrical's) torque or a translational's force along
                           its relative coordinate: on body2, the reaction on body1 */
} mbd_lin_input_kind;

typedef struct mbd_lin_input {
  int kind;      /* mbd_lin_input_kind */
  int body;      /* FORCE, TORQUE: a moving body (a flexible body's node too) */
  int joint;     /* JOINT: the joint */
  int coord;     /* JOINT: its coordinate (mbd_coord_kind: 0 angle, 1 displacement) */
  double at[3];  /* FORCE: point in the body's frame */
  double dir[3]; /* FORCE: direction, global (normalized); TORQUE (spatial): axis, global */
} mbd_lin_input;

/* a symmetry of a steady motion: the linearization about that motion is taken in the frame that
 * moves with it (its rate fitted from the operating point's velocities), where the steady motion
 * is an equilibrium */
typedef struct mbd_lin_steady {
  int body; /* −1: the whole model turns about `axis` through `at` (global); ≥ 1: that body
               spins about its own `axis` (body frame, through its centre of mass: an
               axisymmetric body) */
  double axis[3]; /* unit axis (planar: ignored, the rotation is about z) */
  double at[3];   /* a point of the axis, global (whole-model rotation) */
} mbd_lin_steady;

typedef struct mbd_lin_opts {
  int formulation;     /* mbd_formulation: the right-hand side f (default kane); relative:
                          joint coordinates of the spanning tree */
  int method;          /* mbd_lin_method */
  const double *q, *v; /* the operating state of the model (nq, nv), or NULL: the assembled
                          initial state; made consistent by the position and velocity
                          analyses */
  const double *memo;  /* njoint spatial angle memos of that state, or NULL */
  double t;            /* its time (drives, forces given as functions of time) */
  int ninput;          /* inputs u (B, D) */
  const mbd_lin_input *input;
  int noutput; /* outputs y: channels of the model by name (C, D) */
  const char *const *output;
  int nsteady; /* symmetries of a steady motion (0: about rest or along a motion) */
  const mbd_lin_steady *steady;
  const char *const *cut; /* relative: the joints to cut (ncut names), NULL for the default */
  int ncut;
  int (*poll)(void *ud, double t, mbd_error *err); /* asked between evaluations (an interrupt):
                                                      a negative status stops with it */
  void *poll_ud;
} mbd_lin_opts;

/* kane, differences, the initial state, no inputs, outputs or symmetries */
void mbd_lin_opts_default(mbd_lin_opts *o);

/* what a mode is */
typedef enum mbd_lin_mode_kind {
  MBD_MODE_OSCILLATORY = 0, /* a complex pair λ, λ̄: a vibration */
  MBD_MODE_REAL,            /* a real λ ≠ 0: decaying (overdamped) or diverging (unstable) */
  MBD_MODE_RIGID            /* λ = 0: a free motion (a neutral direction) */
} mbd_lin_mode_kind;

typedef struct mbd_lin_mode {
  int kind;       /* mbd_lin_mode_kind */
  int eig;        /* its eigenvalue (into re, im; the one with im ≥ 0) */
  double re, im;  /* λ, im ≥ 0 */
  double freq;    /* |λ| / 2π, Hz: the undamped natural frequency of an oscillatory mode */
  double damping; /* −Re λ / |λ| (0 for a rigid mode) */
} mbd_lin_mode;

typedef struct mbd_linear {
  int f;                       /* independent coordinates */
  int nx, nu, ny;              /* states (2f), inputs, outputs */
  double t;                    /* the operating point's time */
  int formulation;             /* the right-hand side used (mbd_formulation) */
  int method;                  /* mbd_lin_method */
  char (*coord)[MBD_LIN_NAME]; /* f: the independent coordinates ("rod.theta", "O.angle") */
  double *x0;                  /* nx: the operating point (q_i, v_i) */
  double *xdot0;               /* nx: f(t, x0): zero at an equilibrium */
  double *A, *B, *C, *D;       /* nx×nx, nx×nu, ny×nx, ny×nu (column-major) */
  double *M, *K, *Cv; /* f×f: the reduced mass BᵀMB, stiffness −M A_vq and damping (with the
                         gyroscopic terms) −M A_vv, with A = [0 I; A_vq A_vv] */
  double *re, *im;    /* nx eigenvalues of A, ascending |λ| */
  double *vre, *vim;  /* nx × nx eigenvectors (column k of λ_k), largest component 1 */
  int nmode;          /* modes: the oscillatory ones by frequency, then real, then rigid */
  mbd_lin_mode *mode;
  double *shape_re, *shape_im; /* f × nmode: each mode's shape over the coordinates */
  double *pkin, *ppot; /* f × nmode: its share of kinetic and potential energy per coordinate */
  int nbody;           /* moving bodies with coordinates of their own (nodes are not) */
  int *body;           /* nbody model body indices */
  char (*body_name)[MBD_LIN_NAME];
  double *bre, *bim; /* 6 × nbody × nmode: each body's motion per mode — displacement of its
                        centre of mass (x y z) and small rotation (rx ry rz, global; planar:
                        rz) */
  double *bkin;      /* nbody × nmode: its share of the mode's kinetic energy */
  int equilibrium;   /* 1: x0 is an equilibrium (or a steady motion with the symmetries) */
  double residual;   /* the largest |ẋ| there relative to the system's own rates (0 at an
                        exact equilibrium; see linearize.c) */
  char residual_coord[MBD_LIN_NAME]; /* the coordinate it is on */
  int nsteady; /* symmetries of the steady motion and their fitted rates (rad/s) */
  double *rate;
  int stable;    /* 1: every eigenvalue has Re λ ≤ 0 (to round-off) and no rigid mode
                    diverges; 0: not; −1: no verdict (not an equilibrium) */
  double max_re; /* the largest real part */
  /* the operating state of the model, for the modes' runs (mbd_linear_mode_run) */
  int nq, nv, njoint;
  double *q0, *v0, *memo0;
  mbd_lin_opts opts; /* the options (arrays not kept: input, output, steady, cut) */
  char (*cut)[64];   /* ncut joints cut (relative) */
  int nwarning;
  char warning[4][512]; /* a state that is not an equilibrium, an unused symmetry */
} mbd_linear;

/* the linearization of the assembled model m about the operating point of o.  MBD_OK with *out
 * (free with mbd_linear_free); MBD_E_STATE (not assembled), MBD_E_INPUT (no degree of freedom,
 * contacts, a bad input or output, an option the formulation does not take), MBD_E_SINGULAR (a
 * singular configuration), MBD_E_NEWTON, MBD_E_NOMEM, with err naming the cause. */
int mbd_linearize(const mbd_model *m, const mbd_lin_opts *o, mbd_linear **out, mbd_error *err);
void mbd_linear_free(mbd_linear *l);
/* the sizes of the model's positions and velocities (an operating state's q and v) */
void mbd_linear_state_size(const mbd_model *m, int *nq, int *nv);

/* the model's motion in mode k (0-based, into l->mode) as a run: the operating point plus
 * amplitude · Re(shape · e^{iωt}) over `cycles` periods (a real or rigid mode: a sine of period
 * 1 s), `steps` samples per period, every state made consistent by the position analysis, its
 * channels recorded (for run:animate).  amplitude ≤ 0: the largest coordinate moves by a tenth of
 * its scale; poll (may be NULL) is asked before each sample.  MBD_E_INPUT for a model changed
 * since (sizes differ), a bad k. */
int mbd_linear_mode_run(const mbd_model *m, const mbd_linear *l, int k, double amplitude,
                        double cycles, int steps, int (*poll)(void *ud, double t, mbd_error *err),
                        void *poll_ud, mbd_run **out, mbd_error *err);

/* the matrices into a file: format 0 Matrix Market (A, B, C, D one after another, each a
 * "%%MatrixMarket matrix array real general" block with a comment naming it and its rows and
 * columns), 1 CSV (one block per matrix: a header line "A", then rows with names).  Whole or not
 * at all (mbd/fileout.h). */
int mbd_linear_write(const mbd_linear *l, const char *file, int format,
                     const char *const *input_names, const char *const *output_names,
                     mbd_error *err);

/* ------------------------------------------------------------------------------------------ */
/* static equilibrium                                                                          */

typedef struct mbd_eq_opts {
  int formulation; /* the coordinates the Newton iteration runs in: kane (default), gcp,
                      augmented, baumgarte, udwadia_kalaba (Cartesian, partitioned);
                      relative (joint coordinates of the spanning tree) */
  double tol;      /* the last Newton step, relative to each coordinate's scale (the
                      model's size for lengths, 1 rad for angles), default 1e-10 */
  int max_iter;    /* Newton iterations, default 100 */
  int nfixed;      /* joints held at their relative coordinates during the search */
  const int *fixed;
  const char *const *cut; /* relative */
  int ncut;
  int (*poll)(void *ud, double t, mbd_error *err); /* asked between iterations (an interrupt) */
  void *poll_ud;
} mbd_eq_opts;

void mbd_eq_opts_default(mbd_eq_opts *o);

/* the static equilibrium of the model (gravity, springs at their free lengths and angles,
 * constant forces and torques, forces given as functions at t = 0 with zero velocities, drives
 * held at t = 0): the configuration where the generalized forces on the independent coordinates
 * vanish, found by Newton's method with a line search and a limited step, from the assembled pose
 * and on its assembly branch.  *out always receives a run (NULL only when the options are rejected
 * or memory is short): one sample at t = 0, the last iterate when the search failed; its
 * statistics hold the iterations, the residual and the verdict on stability (run.stats).  Returns
 * MBD_OK, MBD_E_NEWTON (no equilibrium found: the residual and the coordinate it is on),
 * MBD_E_SINGULAR (a neutral direction, named; a singular configuration), MBD_E_INPUT (no degree of
 * freedom, contacts, a joint in fixed without a coordinate), with err. */
int mbd_equilibrium(mbd_model *m, const mbd_eq_opts *o, mbd_run **out, mbd_error *err);

#endif
