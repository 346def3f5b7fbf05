/* private structures of the symbolic engine (see mbd/sym.h) */
#ifndef MBD_SYM_IMPL_H
#define MBD_SYM_IMPL_H

#include <math.h>
#include <stdint.h>

#include "mbd/sym.h"

/* one node of the DAG */
typedef struct sym_node {
  uint8_t op;    /* mbd_sym_op */
  int32_t nargs; /* number of arguments */
  int32_t adr;   /* first argument in ctx->args; VAR: offset of its name in ctx->names */
  int32_t index; /* VAR: slot in the evaluation vector; else -1 */
  double value;  /* CONST: the value; else 0 */
  uint32_t hash; /* structural hash */
} sym_node;

struct mbd_sym_ctx {
  sym_node *nodes; /* nodes[nnodes] */
  int nnodes, cnodes;
  int32_t *args; /* argument ids, nodes[i].adr .. + nargs */
  int nargs, cargs;
  int32_t *table; /* open-addressing hash table of node ids, -1 empty; size ctable (power of 2) */
  int ctable;
  char *names; /* variable names, NUL-terminated, back to back */
  int nnames, cnames;
  int nslots;       /* one more than the largest variable index */
  int32_t *scratch; /* scratch ids for the n-ary constructors */
  double *scratchv; /* scratch values (coefficients, exponents) */
  int cscratch;
  double limit;   /* bytes the context may take (mbd_memory_limit at creation; 0: none) */
  mbd_error err; /* last error */
};

/* a nested sum (product) with more operands than this stays one operand of the sum (product)
 * it enters instead of being flattened into it: a sum built term by term then costs memory and
 * time linear in its length (flattening every step copied the whole sum: 1e5 terms took minutes
 * and gigabytes); like terms are still combined within each level */
#define SYM_FLAT_MAX 256

/* non-failing accessors for valid ids */
#define NODE(ctx, id) (&(ctx)->nodes[(id)])
#define ARG(ctx, id, i) ((ctx)->args[(ctx)->nodes[(id)].adr + (i)])

/* integer powers |n| <= SYM_POWI_MAX are repeated squaring; others go through libm pow */
#define SYM_POWI_MAX 8

/* record an out-of-memory or input error in the context; returns MBD_SYM_NONE */
mbd_sym_id sym_fail(mbd_sym_ctx *ctx, int code, const char *func, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define SYM_FAIL(ctx, code, ...) sym_fail((ctx), (code), __func__, __LINE__, __VA_ARGS__)

/* 1 when id names a node of ctx */
static inline int sym_valid(const mbd_sym_ctx *ctx, mbd_sym_id id) {
  return id >= 0 && id < ctx->nnodes;
}

/* integer exponent of a constant power node usable by sym_powi (sets *n), else 0 */
static inline int sym_small_int(double e, int *n) {
  if (e == floor(e) && fabs(e) <= SYM_POWI_MAX) {
    *n = (int)e;
    return 1;
  }
  return 0;
}

/* x^n by repeated squaring; the one definition used by the tree evaluator, the tape and (as text,
 * SYM_POWI_SOURCE) by generated C, so all three agree bit for bit */
static inline double sym_powi(double x, int n) {
  unsigned k = (unsigned)(n < 0 ? -n : n);
  double r = 1.0;
  while (k) {
    if (k & 1u) {
      r *= x;
    }
    k >>= 1;
    if (k) {
      x *= x;
    }
  }
  return n < 0 ? 1.0 / r : r;
}

#define SYM_POWI_SOURCE                          \
  "static double mbd_powi(double x, int n) {\n"  \
  "  unsigned k = (unsigned)(n < 0 ? -n : n);\n" \
  "  double r = 1.0;\n"                          \
  "  while (k) {\n"                              \
  "    if (k & 1u) {\n"                          \
  "      r *= x;\n"                              \
  "    }\n"                                      \
  "    k >>= 1;\n"                               \
  "    if (k) {\n"                               \
  "      x *= x;\n"                              \
  "    }\n"                                      \
  "  }\n"                                        \
  "  return n < 0 ? 1.0 / r : r;\n"              \
  "}\n"

/* sign as used everywhere: -1, 0, 1 (0 for NaN) */
static inline double sym_signf(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

/* the role of an operand inside a sum or product, for the shared evaluation order:
 * a sum term (-1)*f is subtracted, a product factor f^-1 divides */
static inline int sym_is_negation(const mbd_sym_ctx *ctx, mbd_sym_id t, mbd_sym_id *f) {
  const sym_node *n = NODE(ctx, t);
  if (n->op == MBD_SYM_MUL && n->nargs == 2) {
    const sym_node *c = NODE(ctx, ARG(ctx, t, 0));
    if (c->op == MBD_SYM_CONST && c->value == -1.0) {
      *f = ARG(ctx, t, 1);
      return 1;
    }
  }
  return 0;
}
static inline int sym_is_reciprocal(const mbd_sym_ctx *ctx, mbd_sym_id t, mbd_sym_id *f) {
  const sym_node *n = NODE(ctx, t);
  if (n->op == MBD_SYM_POW) {
    const sym_node *c = NODE(ctx, ARG(ctx, t, 1));
    if (c->op == MBD_SYM_CONST && c->value == -1.0) {
      *f = ARG(ctx, t, 0);
      return 1;
    }
  }
  return 0;
}

/* nodes reachable from roots in post-order (arguments before users), each once.
 * *order is malloc'd (caller frees); returns the count or -1 on out of memory. */
int sym_topo(const mbd_sym_ctx *ctx, int nroots, const mbd_sym_id *roots, int32_t **order);

/* an evaluation plan shared by the tape and the C emitter: the nodes needed by a list of
 * expressions in evaluation order, following the operands of each node's evaluation recipe
 * (a subtracted term's f rather than (-1)·f, a dividing factor's f rather than f^-1) */
typedef struct sym_plan {
  int n;          /* number of scheduled nodes */
  int32_t *order; /* order[n]: node ids, operands before users */
  int32_t *uses;  /* uses[id]: how many recipe operands of scheduled nodes refer to node id */
  int32_t *slot;  /* slot[id]: position in the evaluation vector of a variable or given node, -1 */
  int nslots;     /* length of the evaluation vector read */
} sym_plan;

/* the operands of node id's recipe, written to refs (at most nargs); returns their count */
int sym_recipe_refs(const mbd_sym_ctx *ctx, mbd_sym_id id, int32_t *refs);

/* build / free a plan (see mbd_sym_tape_new for nvars and vars; given: nodes read as leaves at
 * slots nvars + k, see mbd_sym_emit_c_given) */
int sym_plan_build(mbd_sym_ctx *ctx, int nexpr, const mbd_sym_id *exprs, int nvars,
                   const mbd_sym_id *vars, int ngiven, const mbd_sym_id *given, sym_plan *plan,
                   mbd_error *err);
void sym_plan_free(sym_plan *plan);

#endif
