/* mbd — generated equations of the relative formulation (paper 002), private to codegen/,
 * formulations/ and sim/.
 *
 * derive.c derives, with the symbolic engine (mbd/sym.h, mbd/sym_rot.h), every equation a run on
 * joint coordinates evaluates: the body poses outward (eq 1–4, the same composition as
 * kinematics/tree.c), the velocity transformation B and (Bq̇)_q q̇ by the chain rule (eq 5), M̄ and
 * ḡ (eq 9–10), the cut joints' Φ, Φq and γ by symbolic differentiation (eq 6–8), the drives' and
 * the norms' rows.  The outputs are one list of expressions of v = (q, q̇); common subexpressions
 * are shared nodes of the DAG, named temporaries in the emitted C.
 *
 * code.c evaluates that list — on the in-process tape, or as C compiled by the system compiler and
 * cached by a hash of the model (a missing compiler, a failed compile or an unwritable cache fall
 * back to the tape with a warning) — and plugs it into the model's constraint and force stages
 * (mbd_eqs_hook of model_impl.h). */
#ifndef MBD_CODEGEN_H
#define MBD_CODEGEN_H

#include <stdint.h>

#include "../kinematics/tree.h"
#include "codegen_msg.h"
#include "mbd/sym.h"

typedef struct mbd_eqs_macros mbd_eqs_macros;

/* where each output lives in the list (offsets into out[]) */
typedef struct mbd_eqs_layout {
  int n;     /* joint coordinates */
  int mrow;  /* rows of the tree model */
  int oM;    /* M̄, upper triangle by rows: (i, j ≥ i), n(n+1)/2 entries */
  int og;    /* ḡ, n */
  int ophi;  /* Φ, mrow (a drive's row: its joint coordinate c(q)) */
  int ophiq; /* Φq, mrow × n by rows (a drive's: ∂c/∂q) */
  int ogam;  /* γ, mrow (a drive's: the quadratic part (c_q q̇)_q q̇ of c̈) */
  int oang;  /* raw relative angles of cut joints with an angle coordinate (memos) */
  int nang;
  int *ang_joint;         /* nang model joints */
  int nout;               /* outputs in all */
  char *force_numeric;    /* nforce: 1 for a force the code does not hold (a callback) */
  char *rspring_numeric;  /* nrspring: 1 for a spring on a cut joint's angle */
  int need_poses;         /* 1 when a numeric force needs the body poses at every evaluation */
  mbd_eqs_macros *macros; /* macro copies with equations of their own (macro.c), or NULL */
  int nvin;               /* the inputs: v = (q, q̇) and, with copies, their bodies' outputs */
} mbd_eqs_layout;

/* macro.c: the shapes of a model's macro copies and how each copy maps onto the model; each
 * tree joint of a shape has MBD_EQS_TJ_PAR parameters: c (4), d0 (3), w (3), l (4) */
#define MBD_EQS_TJ_PAR 14
typedef struct mbd_eqs_shape {
  mbd_model *local; /* the first copy of the shape as a tree model in the copy's frame */
  mbd_eqs_layout L; /* the layout of its outputs (its rows: internal cut joints and norms) */
  int npar;     /* its parameters after (q, q̇): per tree joint c, d0, w, l, then R (9), g (3) */
  int ny;       /* pose coordinates of a body (7 spatial, 3 planar) */
  int obody;    /* where its bodies' outputs start: per body Y (ny), B (ny × n), h (ny) */
  int nout;     /* outputs in all */
  uint64_t key; /* a hash of its description (the compiled cache) */
} mbd_eqs_shape;

typedef struct mbd_eqs_copy {
  int shape;      /* index into the shapes */
  int model_copy; /* the model's copy (m->copy[]) */
  int *qmap;      /* the shape's coordinates → the model's */
  int *rowmap;    /* the shape's rows → the model's */
  int *bodymap;   /* the shape's bodies (1..) → the model's */
  double *par;    /* its parameter values */
  int vslot;      /* its bodies' outputs in the model function's inputs, from here */
} mbd_eqs_copy;

struct mbd_eqs_macros {
  int nshape;
  mbd_eqs_shape *shape;
  int ncopy;
  mbd_eqs_copy *copy;
  int *body_copy;     /* nbody: the copy (index above) a body belongs to, −1 for none */
  char *row_internal; /* mrow: 1 for a row a copy's equations give */
  int nvin;           /* the model function's input length */
};

int mbd_eqs_macros_make(const mbd_model *m, mbd_eqs_macros **out, mbd_error *err);
void mbd_eqs_macros_free(mbd_eqs_macros *P);

/* the equations of a shape (its local model with parameters): variables (q, q̇, parameters),
 * outputs in the shape's layout plus its bodies' poses, pose Jacobians and quadratic terms */
int mbd_eqs_derive_shape(const mbd_eqs_shape *sh, mbd_sym_ctx **ctx, mbd_sym_id **vars,
                         mbd_sym_id **outs, mbd_error *err);

/* the layout of the outputs for the tree model m (cheap: no derivation) */
int mbd_eqs_layout_make(const mbd_model *m, mbd_eqs_layout *L, mbd_error *err);
void mbd_eqs_layout_free(mbd_eqs_layout *L);

/* the derived equations of tree model m in a new context: *ctx, the 2n variables (q0.., v0..) and
 * the L->nout output expressions (malloc'd, caller frees both arrays and the context).  MBD_OK,
 * MBD_E_NOMEM, or the symbolic engine's error. */
int mbd_eqs_derive(const mbd_model *m, const mbd_eqs_layout *L, mbd_sym_ctx **ctx,
                   mbd_sym_id **vars, mbd_sym_id **outs, mbd_error *err);

/* the run-time side (code.c) ---------------------------------------------------------------- */

typedef struct mbd_gencode mbd_gencode;

typedef struct mbd_code_info {
  int code;            /* the code that runs (mbd_code): a failed compile runs the tape */
  double derive_time;  /* s of symbolic derivation (0 when a cached compile skipped it) */
  double compile_time; /* s of emitting, compiling and loading (tape: building it) */
  int cache_hit;       /* 1 when the compiled equations came from the cache */
  char warning[640];   /* why compiled code fell back to the tape; empty otherwise */
  long nodes;          /* nodes of the derived DAG (0 when not derived) */
  long instructions;   /* tape instructions (0 for compiled code) */
} mbd_code_info;

/* the equations of tree model m as code of kind `kind` (MBD_CODE_TAPE or MBD_CODE_COMPILED), with
 * the hook that makes m's constraint and force stages evaluate them (install it as m->eqs).  A
 * compiled request that fails falls back to the tape and says why in info->warning.  MBD_OK or
 * an error (out of memory, a failed derivation). */
int mbd_code_new(const mbd_model *m, int kind, mbd_gencode **out, mbd_code_info *info,
                 mbd_error *err);
const mbd_eqs_hook *mbd_code_hook(const mbd_gencode *c);
void mbd_code_free(mbd_gencode *c);

/* the name of the equations' function in exported C */
#define EQS_EXPORT_NAME "mbd_model_eqs"

/* export.c: the standalone program of tree model m into o->dir (model.h, equations.c, main.c,
 * Makefile); its stabilization o->alpha, o->beta as given (mbd_model_export_c, sim/export_run.c,
 * gives 0 for a solver the table does not stabilize) */
int mbd_code_export(const mbd_model *m, const mbd_export_opts *o, mbd_error *err);

/* the C source of the equations of tree model m, a function `void name(const double *v, double
 * *out)` with the layout L (for export); *src malloc'd */
int mbd_code_source(const mbd_model *m, const char *name, char **src, mbd_eqs_layout *L,
                    mbd_error *err);

#endif
