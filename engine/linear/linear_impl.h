/* mbd — the equilibrium and the linearization (linear/), private: the reduced system both work on.
 *
 * A lin_sys is a model at an operating point, in the coordinates of a working model w — the
 * model itself (Cartesian coordinates) or its spanning tree (joint coordinates: formulation
 * relative, and the generated equations of the analytic method) — with a partition of w's
 * coordinates into dependent and independent ones (partition.c of the formulations: QR with
 * column pivoting, here of the columns weighted so that lengths become dependent before angles
 * and modal coordinates, which then name the state), and a formulation's evaluation on w.  Its
 * state is x = (q_i, v_i); lin_sys_rhs is ẋ = f(t, x): the position and velocity analyses of the
 * partition complete (q, v), and the formulation solves for the accelerations. */
#ifndef MBD_LINEAR_IMPL_H
#define MBD_LINEAR_IMPL_H

#include "../codegen/codegen.h"
#include "../formulations/formulations.h"
#include "linear_msg.h"
#include "mbd/linear.h"

/* a coordinate's kind, for its scale and its place in the partition */
enum { LIN_LENGTH = 0, LIN_ANGLE, LIN_MODAL };

typedef struct lin_sys {
  const mbd_model *m;      /* the model (Cartesian coordinates) */
  mbd_model *tree;         /* the working model in joint coordinates (owned), or NULL */
  const mbd_model *w;      /* the working model: m or tree */
  mbd_gencode *code;       /* the tree's generated equations (the analytic method), or NULL */
  int form;                /* the formulation evaluated on w (mbd_formulation, never relative) */
  const mbd_form_ops *ops; /* its table */
  void *self;              /* its run state on w */
  mbd_sim_opts so;         /* its options */
  mbd_part *p;             /* the partition: the formulation's own (gcp, kane) or ours */
  int own_p;               /* 1: p is ours to free */
  int partitioned;         /* 1: the formulation's state is x itself (gcp, kane) */
  mbd_data *dm;            /* m at the operating point: consistent, rows evaluated */
  mbd_data *d0;            /* w at the operating point: consistent, forces evaluated */
  mbd_data *d;             /* w: scratch */
  mbd_data *dc;            /* m: scratch (states of w as states of m) */
  int n, f;                /* w's coordinates, independent ones */
  double t;                /* the operating point's time */
  int *ckind;              /* n: LIN_LENGTH, LIN_ANGLE, LIN_MODAL */
  double *scale;           /* n: m (the model's size), rad (1), a modal coordinate's scale */
  double *colw;            /* n: the partition's column weights */
  double *x0;              /* 2f: the operating point */
  double *y;               /* a Cartesian formulation's state [q; v] (nq + nv) */
  double *tmp;             /* scratch: 4 (n + the model's nq + nv) */
  int (*poll)(void *ud, double t, mbd_error *err); /* an interrupt, asked per derivative */
  void *poll_ud;
} lin_sys;

/* the model m at (q, v, memo, t) — NULL q: its assembled initial state — made consistent, in the
 * working model for formulation form (relative: the spanning tree, cut as given; tree = 1 for
 * every joint cut: Cartesian coordinates on a tree model, which generated equations serve),
 * with the partition and the formulation's state there.  code: MBD_CODE_NUMERIC, or
 * MBD_CODE_TAPE for the generated equations.  MBD_OK or an error naming the cause; s is closed
 * by lin_sys_close in every case. */
int lin_sys_open(lin_sys *s, const char *fn, const mbd_model *m, const double *q, const double *v,
                 const double *memo, double t, int form, int tree, int code, const char *const *cut,
                 int ncut, mbd_error *err);
void lin_sys_close(lin_sys *s);

/* ẋ = f(t, x) (2f entries); the state of w evaluated in s->d.  MBD_OK or an error */
int lin_sys_rhs(lin_sys *s, const double *x, double *xdot, mbd_error *err);
/* only the consistent state of w at x in s->d (positions and velocities, rows evaluated) */
int lin_sys_complete(lin_sys *s, const double *x, mbd_error *err);
/* the state of w in dw as a state of m in dc (rows evaluated) */
int lin_sys_cartesian(lin_sys *s, mbd_data *dw, mbd_data *dc, mbd_error *err);
/* the poses of w in d (a tree with generated equations skips them in its evaluations) */
void lin_sys_poses(const lin_sys *s, mbd_data *d);
/* the name of independent coordinate k into buf */
void lin_sys_coord_name(const lin_sys *s, int k, char *buf, size_t len);
/* w's coordinate behind independent coordinate k */
int lin_sys_icoord(const lin_sys *s, int k);
/* the central-difference step of x's component k: for a position ε^(1/5) of the coordinate's
 * scale (lin_sys_derivative extrapolates two of them: truncation ~ (h/scale)⁴ = 3e-13 against
 * rounding ε·scale/h = 3e-13); for a velocity 1e-3 of the larger of its scale per second and its
 * value — the right-hand side is quadratic in the velocities (velocity-quadratic terms, linear
 * dampers), so a central difference is exact there and a larger step only lowers rounding */
double lin_sys_step(const lin_sys *s, int k);
/* a vector function of the state (n entries into out) */
typedef int (*lin_vecfn)(lin_sys *s, const double *x, double *out, void *ctx, mbd_error *err);
/* the derivative of fn (n entries) along x's component k at the operating point, into d: a
 * central difference for a velocity, Richardson's extrapolation (4 D(h/2) − D(h)) / 3 of central
 * differences for a position */
int lin_sys_derivative(lin_sys *s, int k, lin_vecfn fn, void *ctx, int n, double *d,
                       mbd_error *err);
/* the partition's B (n × f): v = B v_i at the operating point, into out (ld n) */
int lin_sys_partial_velocities(lin_sys *s, double *out, mbd_error *err);

/* analytic.c: A (2f × 2f) from the exact derivatives of the generated equations of s's tree
 * model (s opened with code MBD_CODE_TAPE): SymPy's Linearizer's elimination — the operating
 * point's accelerations and multipliers, the dependent coordinates and velocities through the
 * constraint Jacobian and the derivative of Φq v — and the augmented system solved for δv̇.
 * MBD_OK, MBD_E_INPUT (what it cannot derive), MBD_E_NOMEM, the symbolic engine's errors. */
int lin_analytic_A(lin_sys *s, double *A, mbd_error *err);
/* whether the analytic method serves m (no flexible bodies, contacts, forces given as functions,
 * springs on cut joints' angles, macro copies): NULL, or why not */
const char *lin_analytic_refusal(const mbd_model *m);

/* vibration_modes.c: eigenvalues, modes and their participation for l (A, M, K filled; s at the operating
 * point) */
int lin_modes(lin_sys *s, mbd_linear *l, mbd_error *err);

/* the generalized force of input u (unit value) on w's coordinates at the state of d (poses
 * evaluated), into Q (n entries) */
void lin_input_force(const mbd_model *w, mbd_data *d, const mbd_lin_input *u, double *Q);

#endif
