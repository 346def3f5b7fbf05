/* mbd — the mechanism model: bodies, joints, drives, forces; assembly; simulation and results.
 *
 * A model is built object by object (mbd_model_add_*), then assembled (coordinates numbered,
 * initial position and velocity analysis, rank test of the constraint Jacobian), then simulated
 * or analysed kinematically.  Adding an object after assembly marks the model for re-assembly,
 * which starts again from the poses the user gave.
 *
 * Coordinates: a planar body has (x, y, θ) of its centre of mass; a spatial body (x, y, z, e0..e3)
 * with Euler parameters and their normalization constraint in the constraint set.  Units SI.
 * After assembly the model is read only: every run keeps its changing state in its own data
 * (mbd_data), which force functions receive. */
#ifndef MBD_MODEL_H
#define MBD_MODEL_H

#include <stddef.h>

#include "mbd/integrators.h"
#include "mbd/status.h"

typedef struct mbd_model mbd_model;
typedef struct mbd_data mbd_data;
typedef struct mbd_run mbd_run;

/* ------------------------------------------------------------------------------------------ */
/* building                                                                                    */

/* a new empty model with its ground body (index 0, named "ground").  dim = 2 or 3.
 * Returns NULL with err filled on bad input or no memory. */
mbd_model *mbd_model_new(const char *name, int dim, mbd_error *err);
void mbd_model_free(mbd_model *m);

int mbd_model_dim(const mbd_model *m);
const char *mbd_model_name(const mbd_model *m);

/* gravity vector (dim entries, m/s²) */
void mbd_model_set_gravity(mbd_model *m, const double *g);

typedef struct mbd_body_spec {
  const char *name;     /* unique among bodies; NULL → "body<N>" */
  double mass;          /* kg, > 0 */
  double inertia[6];    /* planar: inertia[0] = Izz about the CM; spatial: Ixx Iyy Izz Ixy Iyz Izx */
  double pos[3];        /* initial position estimate of the CM, global */
  double angle;         /* planar: initial angle estimate, rad */
  double rot[4];        /* spatial: initial Euler parameters e0..e3 (normalized with a warning) */
  double vel[3];        /* initial velocity estimate of the CM, global */
  double omega[3];      /* initial angular velocity estimate: planar omega[0]; spatial global */
  int vel_given;        /* 1: vel is the user's (assembly keeps it when the joints allow) */
  int omega_given;      /* 1: omega is the user's (likewise); 0: an estimate assembly may change */
} mbd_body_spec;

/* add a body; returns its index (≥ 1) or a negative status with err naming the body */
int mbd_model_add_body(mbd_model *m, const mbd_body_spec *s, mbd_error *err);

typedef enum mbd_joint_type {
  MBD_JOINT_REVOLUTE = 0,
  MBD_JOINT_TRANSLATIONAL,
  MBD_JOINT_FIXED,
  MBD_JOINT_SPHERICAL,
  MBD_JOINT_UNIVERSAL,
  MBD_JOINT_CYLINDRICAL,
  MBD_JOINT_SCREW,  /* spatial: a cylindrical whose advance along the axis is pitch per turn */
  MBD_JOINT_PLANAR, /* spatial: body2 slides and turns in body1's plane normal to axis1 */
  MBD_JOINT_NTYPES
} mbd_joint_type;

typedef struct mbd_joint_spec {
  const char *name;     /* unique among joints; NULL → "<type><N>" */
  int type;             /* mbd_joint_type */
  int body1, body2;     /* body indices (0 = ground), different */
  double at1[3], at2[3];     /* joint point in each body's frame */
  double axis1[3], axis2[3]; /* joint axis in each body's frame (types that need it) */
  int has_axis1, has_axis2;  /* whether the axes were given */
  double pitch;              /* screw: advance along axis1 per turn of body2 about it (length;
                                positive: right-handed); required for a screw, unused otherwise */
  int has_pitch;
  double ref1[3];            /* planar: the direction of its x coordinate in body1's frame (its
                                part ⟂ axis1 is taken); optional, unused by the other types */
  int has_ref1;
} mbd_joint_spec;

/* add a joint; returns its index (≥ 0) or a negative status with err naming the joint */
int mbd_model_add_joint(mbd_model *m, const mbd_joint_spec *s, mbd_error *err);

/* a scalar function of time with its first two derivatives: out[0] = f(t), out[1] = f'(t),
 * out[2] = f''(t).  Returns 0, or < 0 with err filled (the run stops with that message). */
typedef int (*mbd_time_fn)(void *ud, double t, double out[3], mbd_error *err);

/* prescribe a joint's relative coordinate (revolute: angle θ2−θ1; translational: displacement
 * along axis1) as fn(t).  Spatial: a revolute's angle about axis1, zero in the poses the user
 * gave and compared modulo 2π (so fn may run through any number of turns); a translational's or a
 * cylindrical's displacement along axis1 (a linear actuator: the cylindrical's rotation stays
 * free).  Returns the drive index or a negative status. */
int mbd_model_add_drive(mbd_model *m, int joint, mbd_time_fn fn, void *ud, mbd_error *err);

/* a force/torque function: out gets dim entries (force) or 1 (planar torque) / 3 (spatial torque)
 * at time t for the current state in d (read it with mbd_channel_value).  0 ok, < 0 with err. */
typedef int (*mbd_vec_fn)(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                          mbd_error *err);

typedef struct mbd_force_spec {
  int body;             /* body index ≥ 1 */
  double at[3];         /* application point in the body frame (forces only) */
  double value[3];      /* constant value (global frame) when fn is NULL */
  mbd_vec_fn fn;        /* or a function of time and state */
  void *ud;             /* passed to fn */
} mbd_force_spec;

int mbd_model_add_force(mbd_model *m, const mbd_force_spec *s, mbd_error *err);
int mbd_model_add_torque(mbd_model *m, const mbd_force_spec *s, mbd_error *err);

typedef struct mbd_spring_spec {
  const char *name;
  int body1, body2;
  double at1[3], at2[3];
  double k, c, length;  /* stiffness N/m, damping N·s/m, free length m */
} mbd_spring_spec;

int mbd_model_add_spring(mbd_model *m, const mbd_spring_spec *s, mbd_error *err);

/* rotational spring-damper on a revolute joint's relative angle (spatial: also a cylindrical's;
 * the angle is zero in the poses the user gave): torque on body2 −k(θ−angle) − c θ̇, the
 * opposite on body1 */
int mbd_model_add_rotational_spring(mbd_model *m, int joint, double k, double c, double angle,
                                    mbd_error *err);

/* macro elements (paper 002, section 4): a copy of a sub-mechanism, of the shape `shape`, named
 * `name` and placed at origin (dim entries) with rotation rot (spatial: Euler parameters;
 * planar: rot[0] is the angle).  While a copy is open every body and joint added belongs to it
 * (their names may then hold '.', as "<copy>.<name>"); the relative formulation keeps each copy's
 * joints in its tree, cuts the joints between copies, and derives the equations of a shape once
 * for all its copies.  Returns the copy's index (≥ 1) or a negative status (a copy already open,
 * a bad name or placement). */
int mbd_model_open_copy(mbd_model *m, const char *shape, const char *name, const double *origin,
                        const double *rot, mbd_error *err);
/* close the open copy (no-op when none is open) */
void mbd_model_close_copy(mbd_model *m);

/* lookups: index or −1 */
int mbd_model_find_body(const mbd_model *m, const char *name);
int mbd_model_find_joint(const mbd_model *m, const char *name);
const char *mbd_model_body_name(const mbd_model *m, int body);
const char *mbd_model_joint_name(const mbd_model *m, int joint);
int mbd_model_joint_type(const mbd_model *m, int joint);
/* the name of joint's relative coordinate k ("angle", "displacement", "x", "y": its channel's
 * field), NULL past its last; the name of the coordinate its friction acts along (an angle: a
 * moment, whose arm is the friction's radius), NULL when its type takes no friction */
const char *mbd_model_joint_coord_name(const mbd_model *m, int joint, int k);
const char *mbd_model_joint_friction_coord(const mbd_model *m, int joint);
int mbd_model_nbody(const mbd_model *m);   /* including ground */
int mbd_model_njoint(const mbd_model *m);
const char *mbd_joint_type_name(int type);

/* ------------------------------------------------------------------------------------------ */
/* flexible bodies (paper 003)                                                                 */

/* a flexible body in a floating frame with modal coordinates: nnode lumped nodes (positions in
 * the body frame, masses, principal rotary inertias about the body axes), nmode deformation
 * shapes (6 per node: translations ux uy uz and small rotations rx ry rz, per unit modal
 * coordinate), the modal stiffness, damping and geometric stiffness in those coordinates.  The
 * body's frame is the FE model's frame (not its centre of mass): frame.pos and frame.rot/angle
 * place it; frame.vel and frame.omega are the frame's.  Arrays are copied. */
typedef struct mbd_flex_spec {
  mbd_body_spec frame;  /* name, pose and velocities of the frame (mass and inertia unused) */
  int nnode, nmode;     /* ≥ 1 nodes, 0 .. 500 modes */
  const double *xyz;    /* 3 × nnode node positions, body frame (planar: z = 0) */
  const double *mass;   /* nnode lumped masses, ≥ 0, not all zero */
  const double *rot;    /* 3 × nnode rotary inertias Jxx Jyy Jzz, ≥ 0; NULL: none */
  const double *shape;  /* 6nnode × nmode shapes, column-major (planar: in-plane ux uy rz only) */
  const double *kmodal; /* nmode × nmode modal stiffness, symmetric, each mode's entry > 0 */
  const double *dmodal; /* nmode × nmode modal damping, symmetric; NULL: none */
  const double *gmodal; /* nmode × nmode geometric stiffness per unit (ω'y² + ω'z²) (body-frame
                           angular velocity ω'): stress stiffening of a beam along x; NULL: none */
  const double *a0;     /* nmode initial modal coordinates, NULL: zero */
  const double *adot0;  /* nmode initial modal rates, NULL: zero */
  const char *const *label; /* nmode names for messages ("mode 3 (torsion, 738 Hz)"), or NULL */
  int nelem;            /* beam elements (drawings: the page of run:animate), 0 when unknown */
  const int *elem;      /* 2 × nelem node numbers from 1, or NULL */
} mbd_flex_spec;

/* add a flexible body and one body per node, named "<name>.node<k>" (usable in joints, forces
 * and springs like any body; their channels are the nodal positions).  Returns the flexible body's
 * index or a negative status with err naming the body (and the mode, for a singular modal mass). */
int mbd_model_add_flexible_body(mbd_model *m, const mbd_flex_spec *s, mbd_error *err);
/* the body index of node k (from 1) of flexible body `body`, or −1 */
int mbd_model_flex_node(const mbd_model *m, int body, int node);
/* the flexible body a node body belongs to, or −1 (not a node) */
int mbd_model_body_owner(const mbd_model *m, int body);
/* nodes and modes of a flexible body (0 for other bodies) */
int mbd_model_flex_nnode(const mbd_model *m, int body);
int mbd_model_flex_nmode(const mbd_model *m, int body);
/* the undeformed node positions of a flexible body (3 × nnode, body frame), NULL for other
 * bodies; valid while the model lives */
const double *mbd_model_flex_xyz(const mbd_model *m, int body);
/* the beam elements of a flexible body: their count (0 when unknown or not a flexible body) and,
 * in *elem, 2 × count node numbers from 1 */
int mbd_model_flex_elements(const mbd_model *m, int body, const int **elem);

/* ------------------------------------------------------------------------------------------ */
/* assembly                                                                                    */

typedef struct mbd_assembly_opts {
  double position_tol;  /* Newton tolerance on |Φ|∞, default 1e-10 */
  int max_iter;         /* Newton iterations, default 50 */
} mbd_assembly_opts;

/* number coordinates and constraints, size the workspaces, solve the initial position and
 * velocity analyses, and run the rank test.  Returns MBD_OK, MBD_E_ASSEMBLY (names the joint with
 * the largest residual), MBD_E_INPUT or MBD_E_NOMEM.  Warnings (redundant constraints removed,
 * poses moved) are kept: mbd_model_warning(). */
int mbd_model_assemble(mbd_model *m, const mbd_assembly_opts *opts, mbd_error *err);
/* the same, asking poll(ud, 0, err) between the steps of a long assembly (Newton iterations,
 * rows of the rank test): a negative status stops it (an interrupt, as in mbd_sim_opts) */
int mbd_model_assemble_polled(mbd_model *m, const mbd_assembly_opts *opts,
                              int (*poll)(void *ud, double t, mbd_error *err), void *ud,
                              mbd_error *err);
/* the assembly a run starts from (mbd_simulate, mbd_kinematics, mbd_equilibrium): kept when it
 * stands — m unchanged since it was assembled (every builder function undoes the assembly), the
 * same tolerance, and each drive function giving the values at t = 0 that assembly took — else
 * assembled again from the poses the user gave.  Its warnings stay, a previous run's go.  Status
 * as mbd_model_assemble_polled. */
int mbd_model_assemble_for_run(mbd_model *m, const mbd_assembly_opts *opts,
                               int (*poll)(void *ud, double t, mbd_error *err), void *ud,
                               mbd_error *err);
/* assemblies of m so far (a run that kept the last one did none) */
long mbd_model_assemblies(const mbd_model *m);
int mbd_model_is_assembled(const mbd_model *m);
/* > 0 while a run of m is going on (its force, drive and stop_when functions run inside it): the
 * model refuses changes and re-assembly then (MBD_E_STATE); a nested m:simulate runs on its own
 * data from the current assembly */
int mbd_model_running(const mbd_model *m);

/* warnings raised by the last assembly or run; i from 0; NULL past the end */
const char *mbd_model_warning(const mbd_model *m, int i);
void mbd_model_clear_warnings(mbd_model *m);

typedef struct mbd_model_info {
  int nbody;            /* moving bodies (without ground) */
  int njoint, ndrive, nforce;
  int ncoord;           /* n */
  int nconstraint;      /* all constraint equations (m) */
  int rank;             /* rank of Φq at the assembled pose */
  int dof;              /* n − rank (drives counted as constraints) */
  int nredundant;       /* rows removed by the rank test */
  double moved;         /* largest change assembly made to a given coordinate (m or rad) */
  int moved_body;       /* the body it belongs to, −1 for none */
  double vmoved;        /* largest change assembly made to a velocity the user gave (m/s, rad/s
                           as Euler-parameter rates in spatial models) */
  int vmoved_body;      /* the body it belongs to, −1 for none */
} mbd_model_info;

int mbd_model_get_info(const mbd_model *m, mbd_model_info *info);

/* name of coordinate i ("crank.theta"), constraint row i ("joint 'O' row 1") into buf */
void mbd_model_coord_name(const mbd_model *m, int i, char *buf, size_t len);
void mbd_model_row_name(const mbd_model *m, int i, char *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* simulation                                                                                  */

typedef enum mbd_formulation {
  MBD_FORM_AUGMENTED = 0, /* index-1 Lagrange multiplier system (paper 000 eq 13) */
  MBD_FORM_BAUMGARTE,     /* constraint stabilization (paper 000 eq 8–9) */
  MBD_FORM_GCP,           /* generalized coordinate partitioning (paper 000 eq 10–13) */
  MBD_FORM_KANE,          /* Kane's partial velocities (paper 000 eq 46) */
  MBD_FORM_UK,            /* Udwadia–Kalaba (paper 004 eq 5) */
  MBD_FORM_RELATIVE,      /* relative joint coordinates (paper 002) */
  MBD_FORM_N
} mbd_formulation;

/* mbd_sim_opts.formulation when the user chose none: kane, which keeps the constraints (position
 * and velocity analyses at every evaluation), or, where it does not serve the model, baumgarte
 * with a note in the run saying why (mbd_sim_default_formulation) */
#define MBD_FORM_DEFAULT (-1)

/* the formulation the default (MBD_FORM_DEFAULT) runs on an assembled model: MBD_FORM_KANE, or
 * MBD_FORM_BAUMGARTE with the reason in why (a one-line text, "" for kane) */
int mbd_sim_default_formulation(const mbd_model *m, char *why, size_t len);

/* the paper's Baumgarte coefficients for the relative formulation (paper 002, section 3.2) */
#define MBD_RELATIVE_ALPHA 199.94
#define MBD_RELATIVE_BETA 282.8

/* how the relative formulation evaluates its equations (paper 002) */
typedef enum mbd_code {
  MBD_CODE_NUMERIC = 0, /* the tree pass and the scatter of rows and forces, numerically */
  MBD_CODE_TAPE,        /* the equations derived symbolically, evaluated on an in-process tape */
  MBD_CODE_COMPILED,    /* the same equations as C, compiled and cached (falls back to the tape) */
  MBD_CODE_N
} mbd_code;

const char *mbd_code_name(int code);
int mbd_code_from_name(const char *name); /* −1 for unknown */

/* how a formulation solves for the accelerations (linear_solver = ...).  The Cartesian
 * formulations: the leading matrix [M Φqᵀ; Φq 0] and gcp's and kane's dependent block Φ_qd dense
 * (LAPACK) or sparse (KLU).  relative: "dense" builds M̄ = BᵀMB (n×n) and solves the augmented
 * system with the cut-joint rows; "recursive" is the articulated-body recursion on the spanning
 * tree, O(n), with the cut-joint rows added through Φq M̄⁻¹ Φqᵀ (m×m).  auto chooses by size. */
typedef enum mbd_linear_solver {
  MBD_LINSOLVE_AUTO = 0,  /* by size and structure: dense for small models */
  MBD_LINSOLVE_DENSE,     /* dense matrices through LAPACK */
  MBD_LINSOLVE_SPARSE,    /* Cartesian: KLU (SuiteSparse) on the block-diagonal M and the sparse
                             Φq, the symbolic analysis once per set of active rows,
                             refactorization per evaluation */
  MBD_LINSOLVE_RECURSIVE, /* relative: the articulated-body recursion on the tree */
  MBD_LINSOLVE_N
} mbd_linear_solver;

const char *mbd_linear_solver_name(int s);
int mbd_linear_solver_from_name(const char *name); /* −1 for unknown */

const char *mbd_formulation_name(int f);
int mbd_formulation_from_name(const char *name); /* −1 for unknown */

/* a scalar function of the state (a root function): *g at time t for the state in d (read it with
 * mbd_channel_value: positions, velocities, joint coordinates, energy).  0 ok, < 0 with err. */
typedef int (*mbd_state_fn)(void *ud, double t, const mbd_model *m, const mbd_data *d, double *g,
                            mbd_error *err);

typedef struct mbd_sim_opts {
  double t_end;         /* s, > 0 */
  int formulation;      /* mbd_formulation */
  mbd_ode_opts ode;     /* the integrator: kind, rtol, atol, step, max_step, max_order as the
                           integrators take them (max_steps 0: the default) */
  double position_tol;  /* Newton tolerance of position analyses */
  int max_newton;       /* Newton iterations per analysis */
  double alpha, beta;   /* Baumgarte: γ − 2αΦ̇ − β²Φ; udwadia_kalaba: S = αI, T = βI (paper 004) */
  double output_every;  /* sampling interval of the recorded channels, s; 0: the default, every
                           t_end/500 and at the integrator's accepted steps (thinned to at most
                           MBD_SIM_STEP_SAMPLES), so that the samples follow the motion */
  /* called at every output sample (may be NULL): return 0 to go on, < 0 to stop the run with
   * that status and a message in err (an interrupt from the REPL, a time limit) */
  int (*poll)(void *ud, double t, mbd_error *err);
  void *poll_ud;
  /* udwadia_kalaba: full stabilization matrices of Φ̈ + SΦ̇ + TΦ = 0 over all constraint rows
   * (mrow × mrow, column-major, ld = stab_n), used instead of alpha, beta when not NULL; stab_n
   * must equal the model's number of constraint rows */
  const double *stab_S, *stab_T;
  int stab_n;
  /* stop_when: the run ends where g(t, state) changes sign, located by the integrator's root
   * finding (may be NULL); the last sample is taken there and mbd_run_stop_time gives the time */
  mbd_state_fn stop_fn;
  void *stop_ud;
  /* relative (paper 002): the joints to cut (ncut names; NULL: the tree that leaves the fewest
   * coordinates), the solution on the joint coordinates (MBD_FORM_KANE, the default: the rows of
   * cut joints and drives met by a position and velocity analysis at every evaluation; the paper's
   * MBD_FORM_BAUMGARTE with alpha and beta; MBD_FORM_AUGMENTED; MBD_FORM_GCP) and the code
   * (mbd_code) */
  const char *const *cut;
  int ncut;
  int solver;
  int code;
  /* the linear solve (mbd_linear_solver): MBD_LINSOLVE_AUTO lets the formulation choose;
   * relative takes dense or recursive (recursive with code numeric only) */
  int linear_solver;
} mbd_sim_opts;

/* defaults: formulation MBD_FORM_DEFAULT (kane where it serves), adams, rtol = atol = 1e-6,
 * position_tol 1e-8, alpha = beta = 5, output every t_end/500 and at the accepted steps
 * (output_every 0); relative: solver kane (closed loops by partitioning), code numeric; linear
 * solver auto */
void mbd_sim_opts_default(mbd_sim_opts *o);

/* run a dynamic simulation: assemble from the poses the user gave, then mbd_sim_run.  *out always
 * receives a run (NULL only when the options or the assembly are rejected, or on MBD_E_NOMEM)
 * holding what was recorded, also when the run failed mid-way; the status and the message are in
 * err and in the run. */
int mbd_simulate(mbd_model *m, const mbd_sim_opts *o, mbd_run **out, mbd_error *err);

/* the same on an assembled model, which it only reads (several runs may share one model);
 * MBD_E_STATE when the model is not assembled */
int mbd_sim_run(const mbd_model *m, const mbd_sim_opts *o, mbd_run **out, mbd_error *err);

typedef struct mbd_kin_opts {
  double t_end;         /* s */
  int steps;            /* number of intervals: outputs at t_end·k/steps, k = 0..steps */
  double position_tol;
  int max_newton;
  int (*poll)(void *ud, double t, mbd_error *err); /* as in mbd_sim_opts */
  void *poll_ud;
  /* MBD_FORM_RELATIVE: the analyses on the joint coordinates of a spanning tree (paper 002), with
   * the cut joints and the code of mbd_sim_opts; any other value: Cartesian coordinates */
  int formulation;
  const char *const *cut;
  int ncut;
  int code;
} mbd_kin_opts;

/* kinematic analysis of a fully driven mechanism (0 degrees of freedom): position, velocity,
 * acceleration at each output time, and the reactions and drive efforts by inverse dynamics. */
int mbd_kinematics(mbd_model *m, const mbd_kin_opts *o, mbd_run **out, mbd_error *err);

/* a standalone C program of the model's equations in relative joint coordinates (paper 002):
 * dir/equations.c (the generated equations), dir/model.h (the data), dir/main.c (a CVODE driver
 * integrating as m:simulate{formulation = "relative"} with the same options) and dir/Makefile.
 * The program prints the tree joints' angles and displacements at the output times.  Drives,
 * forces given as functions and springs on cut joints' angles cannot be exported (MBD_E_INPUT). */
typedef struct mbd_export_opts {
  const char *dir;      /* folder, made when missing */
  double t_end, rtol, atol, output_every; /* the run's (output_every 0: t_end/500) */
  int solver;           /* MBD_FORM_BAUMGARTE (with alpha, beta) or MBD_FORM_AUGMENTED */
  double alpha, beta;
  const char *const *cut; /* joints to cut (ncut names) or NULL */
  int ncut;
} mbd_export_opts;

int mbd_model_export_c(mbd_model *m, const mbd_export_opts *o, mbd_error *err);

/* the spanning tree the relative formulation would use with its default solver, kane (cut: ncut
 * joint names to cut, NULL for the automatic choice; with solver baumgarte or augmented the
 * automatic choice ignores the joints' speeds: kinematics/tree.h): the model is assembled, and *text receives a malloc'd description of the
 * tree joints with their coordinates, the cut joints and the constraint count (caller frees). */
int mbd_model_tree(mbd_model *m, const char *const *cut, int ncut, char **text, mbd_error *err);

/* ------------------------------------------------------------------------------------------ */
/* channels and results                                                                        */

/* channel by name ("crank.theta"), or −1.  Channels exist once the model is assembled. */
int mbd_channel_find(const mbd_model *m, const char *name);
int mbd_channel_count(const mbd_model *m);
const char *mbd_channel_name(const mbd_model *m, int ch);
/* the SI unit of channel ch, from its kind (a static string): "m", "rad", "m/s", "rad/s", "N",
 * "N m", "J"; "" for a number without one (Euler parameters, sticking, violation, a surface
 * parameter) and for ch out of range */
const char *mbd_channel_unit(const mbd_model *m, int ch);

/* value of a channel in the current state of d; channels that need accelerations or multipliers
 * (reactions, efforts) are only valid after a dynamics evaluation: *ok = 0 when not available. */
double mbd_channel_value(const mbd_model *m, const mbd_data *d, int ch, int *ok);

typedef struct mbd_run_stats {
  double wall_time;     /* s */
  double cpu_time;      /* s, process CPU */
  long nfev;            /* right-hand-side evaluations */
  long sample_evaluations; /* evaluations of the samples and root functions (on a copy) */
  long samples_reused;  /* of those, kept from the last one at the same state (a step's sample
                           after the root functions there) */
  long steps;           /* accepted steps */
  long rejected;        /* rejected steps */
  double avg_step;      /* s */
  long newton_iterations;
  double max_position_violation; /* max |Φ| over the samples */
  double max_velocity_violation; /* max |Φq q̇ + Φt| over the samples */
  long repartitions;
  long lu_factorizations;
  long singular_passages; /* augmented, baumgarte: singular configurations passed in the
                             independent coordinates of a partition (gcp's) */
  long singular_evaluations; /* evaluations near a singular configuration whose accelerations came
                               from Gauss's principle (a minimum-norm solve) instead of the LU */
  long contact_iterations; /* fixed-point iterations on contacts' normal forces (paper 001) */
  long stick_events;    /* contacts that stopped slipping (rolling without slip from then) */
  long slip_events;     /* contacts whose static friction gave way (or that turned back) */
  long separations;     /* contacts that opened (normal force reaching zero) */
  long impacts;         /* contacts closed again by an impact */
  /* relative (paper 002): the code that ran (mbd_code; a compiled run that fell back runs the
   * tape), the wall time of the symbolic derivation and of the compiler (or of building the tape),
   * 1 when the compiled equations came from the cache, and why compiled code fell back (empty
   * when it did not) */
  int code;
  double derive_time, compile_time;
  int cache_hit;
  char code_warning[640];
  int linear_solver;    /* the linear solve that ran (mbd_linear_solver; 0 before a run) */
  long symbolic_analyses; /* the sparse solve's symbolic analyses (one per set of active rows
                             and per partition) */
  /* a static equilibrium (mbd/linear.h, integrator "equilibrium"): its Newton iterations, the
   * largest generalized force left on an independent coordinate (N or N·m) and that coordinate,
   * the verdict on stability (1: the reduced stiffness is positive definite, 0: not) and the
   * least eigenvalue ω² (1/s²) of K x = ω² M x in the reduced coordinates */
  long iterations;
  double residual;
  char residual_coord[96];
  int stable;
  double min_omega2;
} mbd_run_stats;

int mbd_run_nchannel(const mbd_run *r);
const char *mbd_run_channel_name(const mbd_run *r, int c);
/* the unit of channel c (mbd_channel_unit of the model that made the run); "" when it has none
 * or is not known (the channels of an mbd.system's run) */
const char *mbd_run_channel_unit(const mbd_run *r, int c);
int mbd_run_find(const mbd_run *r, const char *name);
int mbd_run_nsample(const mbd_run *r);
const double *mbd_run_times(const mbd_run *r);
/* value of channel c at sample i */
double mbd_run_sample(const mbd_run *r, int c, int i);
/* channel c at time t, linearly interpolated between samples; *ok = 0 outside the recorded span */
double mbd_run_value(const mbd_run *r, int c, double t, int *ok);
/* copy channel c into out (nsample entries) */
void mbd_run_series(const mbd_run *r, int c, double *out);
const mbd_run_stats *mbd_run_get_stats(const mbd_run *r);
/* status of the run (MBD_OK or the failure) and its message */
int mbd_run_status(const mbd_run *r);
const char *mbd_run_message(const mbd_run *r);
/* warnings of the run (a singular configuration passed closely, defaults that lost accuracy,
 * corrections made to the given state); i from 0; NULL past the end */
const char *mbd_run_warning(const mbd_run *r, int i);
const char *mbd_run_formulation(const mbd_run *r);
/* the formulation that ran (mbd_formulation; the default resolved), −1 for other runs */
int mbd_run_formulation_kind(const mbd_run *r);
/* the note of a run that chose for the user (the default formulation's fallback and its
 * reason), NULL when there is none */
const char *mbd_run_note(const mbd_run *r);
/* the most samples the default sampling (output_every 0) takes at the integrator's steps */
#define MBD_SIM_STEP_SAMPLES 10000
const char *mbd_run_integrator(const mbd_run *r);
double mbd_run_t_end(const mbd_run *r);
/* where stop_when ended the run, NaN when it did not */
double mbd_run_stop_time(const mbd_run *r);
/* the contact events of the run in time order (the first 4096; run.stats counts them all):
 * event i's time, contact name and kind ("stick", "slip", "separate", "impact"); 0, or
 * MBD_E_INPUT for i out of range */
int mbd_run_nevent(const mbd_run *r);
int mbd_run_event(const mbd_run *r, int i, double *t, const char **contact, const char **kind);
/* paper 004's error measures of an mbd_system run, per constraint i (0-based): E1 = RMS of the
 * constraint's value over [0, t_f], E2 = RMS of its time derivative (eq 17–18, 34–35).  nerrors is 0
 * for model runs; E1/E2 give NaN outside 0..nerrors−1. */
int mbd_run_nerrors(const mbd_run *r);
double mbd_run_E1(const mbd_run *r, int i);
double mbd_run_E2(const mbd_run *r, int i);
void mbd_run_free(mbd_run *r);

/* CSV of the listed channels (all when names is NULL), first column "t" */
int mbd_run_write_csv(const mbd_run *r, const char *file, const char *const *names, int nnames,
                      mbd_error *err);

#endif
