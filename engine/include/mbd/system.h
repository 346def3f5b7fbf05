/* mbd — coordinate-level systems (paper 004): n named generalized coordinates q, a constant mass
 * matrix M, applied forces F(q, q̇, t), holonomic constraints h(q, t) = 0 and nonholonomic
 * constraints r(q, q̇, t) = 0 (linear in q̇) given as symbolic expressions.  A and b of A q̈ = b
 * (eq 4) are derived exactly with mbd_sym_diff (holonomic: differentiated twice; nonholonomic:
 * once) and compiled to one tape; the motion is the Udwadia–Kalaba equation (eq 5, 11)
 *
 *   q̈ = a + M^(−1/2) (A M^(−1/2))⁺ (b* − A a),   a = M⁻¹F,
 *   b* = b − S Ḣ − T H on the holonomic rows, b − L R on the nonholonomic ones,
 *
 * with ⁺ the Moore–Penrose inverse by SVD, so redundant constraints are fine.
 * The paper's error measures E1, E2 (RMS of each constraint and of its rate over the run) are
 * integrated over the accepted steps and stored in the run (mbd_run_E1/E2). */
#ifndef MBD_SYSTEM_H
#define MBD_SYSTEM_H

#include "mbd/analysis.h"
#include "mbd/model.h"
#include "mbd/sym.h"

typedef struct mbd_system mbd_system;

/* message templates (tests match these) */
#define MBD_MSG_SYS_DEGENERATE                                                                    \
  "%s constraint %d (%s): its row of A and its b vanish where the constraint holds, so A q̈ = b "  \
  "reads 0 = 0 and cannot constrain the motion (paper 004 section 5: the square of a constraint "  \
  "differentiates to nothing); write it unsquared%s%s"
#define MBD_MSG_SYS_UNSTABLE                                                                      \
  "stabilization %s is not stable: an eigenvalue of %s has real part %g > 0, so constraint "      \
  "errors grow (check with mbd.stability)"

/* a force function: F (n entries) at time t for coordinates q and velocities qd.  0 ok, < 0 stops
 * the run (err filled). */
typedef int (*mbd_sys_force_fn)(void *ud, double t, const double *q, const double *qd, double *F,
                                mbd_error *err);

/* a new system of n coordinates named names[0..n) in the symbolic context ctx (not owned: it must
 * outlive every call that adds constraints or forces, and simulate).  Makes the variables
 * names[i] (coordinates) and "<name>_dot" (velocities); time is the variable "t".  Default mass:
 * identity; default force: zero.  NULL with err on bad names or no memory. */
mbd_system *mbd_system_new(mbd_sym_ctx *ctx, const char *name, int n, const char *const *names,
                           mbd_error *err);
void mbd_system_free(mbd_system *s);

int mbd_system_ncoord(const mbd_system *s);
const char *mbd_system_name(const mbd_system *s);
const char *mbd_system_coord_name(const mbd_system *s, int i);
/* the symbolic coordinate, velocity and time variables */
mbd_sym_id mbd_system_q(const mbd_system *s, int i);
mbd_sym_id mbd_system_qd(const mbd_system *s, int i);
mbd_sym_id mbd_system_t(const mbd_system *s);

/* mass matrix: full n×n column-major (full = 1) or its diagonal (full = 0, n entries).  Must be
 * symmetric positive definite (MBD_E_INPUT otherwise, naming the smallest eigenvalue). */
int mbd_system_set_mass(mbd_system *s, const double *M, int full, mbd_error *err);

/* applied force: constant (n values), symbolic (n expressions of q, q̇, t) or a function */
int mbd_system_set_force_const(mbd_system *s, const double *F, mbd_error *err);
int mbd_system_set_force_sym(mbd_system *s, const mbd_sym_id *F, mbd_error *err);
int mbd_system_set_force_fn(mbd_system *s, mbd_sys_force_fn fn, void *ud, mbd_error *err);

/* add a holonomic constraint h(q, t) = 0 / a nonholonomic r(q, q̇, t) = 0 (linear in q̇).  Returns
 * its index among all constraints (0-based, in the order added) or a negative status: an
 * expression of the wrong kind, a variable that is not a coordinate, velocity or t, a power
 * f^k (k > 1) of a constraint (MBD_MSG_SYS_DEGENERATE, suggesting f). */
int mbd_system_add_holonomic(mbd_system *s, mbd_sym_id h, mbd_error *err);
int mbd_system_add_nonholonomic(mbd_system *s, mbd_sym_id r, mbd_error *err);
int mbd_system_nconstraint(const mbd_system *s);
/* 1 for holonomic constraint i, 0 for nonholonomic */
int mbd_system_is_holonomic(const mbd_system *s, int i);

/* initial coordinates and velocities (n each) */
int mbd_system_set_initial(mbd_system *s, const double *q, const double *qd, mbd_error *err);

typedef struct mbd_sys_opts {
  double t_end;         /* s, > 0 */
  mbd_ode_opts ode;     /* the integrator, as in mbd_sim_opts */
  double output_every;  /* sampling interval, 0 = t_end/500 */
  double pinv_rcond;    /* singular values below rcond·s_max are dropped, 0 = 1e-12 */
  /* stabilization (paper 004 eq 9–11, 30–31): h×h matrices S, T over the holonomic constraints
   * and r×r L over the nonholonomic ones, column-major in the order the constraints were added;
   * NULL = zero (the plain equation 5) */
  const double *S, *T, *L;
  int (*poll)(void *ud, double t, mbd_error *err); /* as in mbd_sim_opts, may be NULL */
  void *poll_ud;
} mbd_sys_opts;

/* defaults: rk45, rtol = atol = 1e-10 (paper 004), no stabilization, output t_end/500 */
void mbd_sys_opts_default(mbd_sys_opts *o);

/* simulate.  Channels: each coordinate by name, "<name>_dot", "constraint<i>" and
 * "constraint<i>_dot" (i from 1).  *out gets the run (NULL only on MBD_E_NOMEM or when the input
 * is rejected before the start); E1, E2 are set also when the run stopped early (over the
 * time reached).  Rejects degenerate constraints (MBD_MSG_SYS_DEGENERATE) and warns on unstable
 * stabilization (MBD_MSG_SYS_UNSTABLE) and on an inconsistent initial state. */
int mbd_system_simulate(mbd_system *s, const mbd_sys_opts *o, mbd_run **out, mbd_error *err);

/* warnings raised by the last simulate; i from 0; NULL past the end */
const char *mbd_system_warning(const mbd_system *s, int i);

/* the Udwadia–Kalaba equation at one state, every term of it (s:explain): paper 004 eq 2, 5 */
#define MBD_SYS_EXPLAIN_TEXT 256
typedef struct mbd_system_explain {
  double t;
  int n, m;             /* coordinates, constraints */
  double *q, *qd;       /* n: the state */
  double *M;            /* n × n mass matrix (column-major) */
  double *F;            /* n applied force */
  double *a;            /* n free motion a = M⁻¹F (eq 2) */
  double *A;            /* m × n (ld m): A q̈ = b */
  double *b;            /* m: b (no stabilization) */
  double *resid;        /* m: b − A a, what the free motion fails by */
  double *qdd;          /* n: q̈ = a + M^(−1/2) (A M^(−1/2))⁺ (b − A a) (eq 5) */
  double *qc;           /* n: the constraint force M (q̈ − a) */
  double *val, *rate;   /* m: h and ḣ (holonomic) or r and its rate (nonholonomic) */
  double *acc;          /* m: A q̈ − b (zero when the constraints are consistent) */
  int *holo;            /* m: 1 holonomic, 0 nonholonomic */
  char (*coord)[MBD_SYS_EXPLAIN_TEXT]; /* n coordinate names */
  char (*con)[MBD_SYS_EXPLAIN_TEXT];   /* m constraint expressions as printed ("..." when long) */
} mbd_system_explain;

/* the terms of eq 5 at (t, q, q̇) — q and q̇ NULL: the initial state — without stabilization;
 * *out freed by mbd_system_explain_free.  MBD_OK, or < 0 with err (the force function or the
 * SVD failed, out of memory). */
int mbd_system_explain_state(mbd_system *s, double t, const double *q, const double *qd,
                             mbd_system_explain **out, mbd_error *err);
void mbd_system_explain_free(mbd_system_explain *e);

/* a hash of the system's description for run manifests (mbd/hash.h): coordinate names, M, the
 * applied force (its values, its printed expressions, or that it is a function), every
 * constraint's kind and printed expression (constants print so that they read back exactly),
 * the initial state.  A force function's body is not seen: two systems differing only there
 * hash alike. */
void mbd_system_hash(const mbd_system *s, char out[17]);

#endif
