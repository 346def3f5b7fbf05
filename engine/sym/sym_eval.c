/* symbolic expressions: evaluation on the DAG and on a flat instruction tape
 *
 * Evaluation recipe of each node (one definition for the tree evaluator, the tape and generated C):
 *   sum      acc = t0; acc = acc + t_i ... where a term (-1)·f is computed as -f and then
 *            subtracted (bit-identical: multiplication by -1 is exact and a + (-f) is a - f);
 *   product  acc = product of the factors that are not reciprocals, left to right (1 when none),
 *            then acc = acc / f for each factor f^-1, left to right;
 *   power    b^n for integer |n| <= SYM_POWI_MAX by sym_powi, else libm pow;
 *   others   the libm function; sign is sym_signf; ifelse(c, a, b) is c > 0 ? a : b. */
#include <stdlib.h>
#include <string.h>

#include "sym_impl.h"
#include "sym_msg.h"

/* ---- plans -------------------------------------------------------------------------------------
 */

int sym_recipe_refs(const mbd_sym_ctx *ctx, mbd_sym_id id, int32_t *refs) {
  const sym_node *n = NODE(ctx, id);
  int k;
  double e;
  switch (n->op) {
    case MBD_SYM_CONST:
    case MBD_SYM_VAR:
      return 0;
    case MBD_SYM_ADD:
      for (int i = 0; i < n->nargs; i++) {
        mbd_sym_id t = ARG(ctx, id, i), f;
        refs[i] = sym_is_negation(ctx, t, &f) ? f : t;
      }
      return n->nargs;
    case MBD_SYM_MUL:
      for (int i = 0; i < n->nargs; i++) {
        mbd_sym_id t = ARG(ctx, id, i), f;
        refs[i] = sym_is_reciprocal(ctx, t, &f) ? f : t;
      }
      return n->nargs;
    case MBD_SYM_POW:
      refs[0] = ARG(ctx, id, 0);
      if (mbd_sym_is_const(ctx, ARG(ctx, id, 1), &e) && sym_small_int(e, &k)) {
        return 1; /* the integer exponent is part of the instruction */
      }
      refs[1] = ARG(ctx, id, 1);
      return 2;
    default:
      for (int i = 0; i < n->nargs; i++) {
        refs[i] = ARG(ctx, id, i);
      }
      return n->nargs;
  }
}

void sym_plan_free(sym_plan *plan) {
  free(plan->order);
  free(plan->uses);
  free(plan->slot);
  memset(plan, 0, sizeof *plan);
}

int sym_plan_build(mbd_sym_ctx *ctx, int nexpr, const mbd_sym_id *exprs, int nvars,
                   const mbd_sym_id *vars, int ngiven, const mbd_sym_id *given, sym_plan *plan,
                   mbd_error *err) {
  memset(plan, 0, sizeof *plan);
  for (int i = 0; i < nexpr; i++) {
    if (!sym_valid(ctx, exprs[i])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_EXPR_INVALID, i + 1, (int)exprs[i]);
    }
  }
  size_t nn = (size_t)ctx->nnodes + 1;
  int maxargs = 1;
  for (int i = 0; i < ctx->nnodes; i++) {
    maxargs = ctx->nodes[i].nargs > maxargs ? ctx->nodes[i].nargs : maxargs;
  }
  plan->order = malloc(sizeof(int32_t) * nn);
  plan->uses = calloc(nn, sizeof(int32_t));
  plan->slot = malloc(sizeof(int32_t) * nn);
  uint8_t *seen = calloc(nn, 1);
  int32_t *stack = malloc(sizeof(int32_t) * 2 * nn);
  int32_t *refs = malloc(sizeof(int32_t) * (size_t)maxargs);
  int status = MBD_OK;
  if (!plan->order || !plan->uses || !plan->slot || !seen || !stack || !refs) {
    status = MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM_PLAN, nexpr);
    goto done;
  }
  memset(plan->slot, 0xff, sizeof(int32_t) * nn);
  if (vars) {
    for (int j = 0; j < nvars; j++) {
      if (!sym_valid(ctx, vars[j]) || NODE(ctx, vars[j])->op != MBD_SYM_VAR) {
        status = MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_VARLIST, j + 1);
        goto done;
      }
      if (plan->slot[vars[j]] < 0) {
        plan->slot[vars[j]] = j;
      }
    }
    plan->nslots = nvars;
  }
  /* given nodes: leaves read after the variables (their recipes are not scheduled) */
  for (int k = 0; k < ngiven; k++) {
    if (!sym_valid(ctx, given[k])) {
      status = MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_GIVEN_INVALID, k + 1, (int)given[k]);
      goto done;
    }
    if (plan->slot[given[k]] < 0) {
      plan->slot[given[k]] = nvars + k;
    }
  }
  plan->nslots += ngiven;
  /* depth-first post-order over recipe operands */
  for (int r = 0; r < nexpr; r++) {
    if (seen[exprs[r]]) {
      continue;
    }
    seen[exprs[r]] = 1;
    stack[0] = exprs[r];
    stack[1] = 0;
    int sp = 1;
    while (sp > 0) {
      int32_t id = stack[2 * (sp - 1)], k = stack[2 * (sp - 1) + 1];
      int nr = plan->slot[id] >= 0 ? 0 : sym_recipe_refs(ctx, id, refs);
      if (k < nr) {
        stack[2 * (sp - 1) + 1] = k + 1;
        int32_t c = refs[k];
        plan->uses[c]++;
        if (!seen[c]) {
          seen[c] = 1;
          stack[2 * sp] = c;
          stack[2 * sp + 1] = 0;
          sp++;
        }
        continue;
      }
      sp--;
      plan->order[plan->n++] = id;
      if (NODE(ctx, id)->op == MBD_SYM_VAR) {
        if (!vars) {
          plan->slot[id] = NODE(ctx, id)->index;
          plan->nslots = plan->slot[id] + 1 > plan->nslots ? plan->slot[id] + 1 : plan->nslots;
        } else if (plan->slot[id] < 0) {
          status = MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_VAR_MISSING, ctx->names + NODE(ctx, id)->adr,
                            nvars);
          goto done;
        }
      }
    }
  }
done:
  free(seen);
  free(stack);
  free(refs);
  if (status) {
    sym_plan_free(plan);
  }
  return status;
}

/* a call of a math function worth taking from another function: sin, cos, tan, exp, log, sqrt,
 * atan2, a power with an exponent that is not a small integer */
static int sym_is_call(const mbd_sym_ctx *ctx, mbd_sym_id id) {
  double e;
  int k;
  switch (NODE(ctx, id)->op) {
    case MBD_SYM_SIN:
    case MBD_SYM_COS:
    case MBD_SYM_TAN:
    case MBD_SYM_EXP:
    case MBD_SYM_LOG:
    case MBD_SYM_SQRT:
    case MBD_SYM_ATAN2:
      return 1;
    case MBD_SYM_POW:
      return !(mbd_sym_is_const(ctx, ARG(ctx, id, 1), &e) && sym_small_int(e, &k));
    default:
      return 0;
  }
}

/* depth-first over recipe operands from exprs[0..n): mark[id] |= bit for every node reached; with
 * stop, a call that has stop's bit is not entered and is written to out (at most cap) and
 * counted; returns that count, or -1 when out of memory */
static int sym_reach(const mbd_sym_ctx *ctx, int n, const mbd_sym_id *exprs, uint8_t *mark,
                     uint8_t bit, uint8_t stop, int cap, mbd_sym_id *out) {
  size_t nn = (size_t)ctx->nnodes + 1;
  int maxargs = 1;
  for (int i = 0; i < ctx->nnodes; i++) {
    maxargs = ctx->nodes[i].nargs > maxargs ? ctx->nodes[i].nargs : maxargs;
  }
  int32_t *stack = malloc(sizeof(int32_t) * nn), *refs = malloc(sizeof(int32_t) * (size_t)maxargs);
  int count = 0;
  if (!stack || !refs) {
    count = -1;
    goto done;
  }
  for (int r = 0; r < n; r++) {
    if (mark[exprs[r]] & bit) {
      continue;
    }
    mark[exprs[r]] |= bit;
    int sp = 0;
    stack[sp++] = exprs[r];
    while (sp > 0) {
      mbd_sym_id id = stack[--sp];
      if (stop && (mark[id] & stop) && sym_is_call(ctx, id)) {
        if (count < cap) {
          out[count] = id;
        }
        count++;
        continue;
      }
      int nr = sym_recipe_refs(ctx, id, refs);
      for (int k = 0; k < nr; k++) {
        if (!(mark[refs[k]] & bit)) {
          mark[refs[k]] |= bit;
          stack[sp++] = refs[k];
        }
      }
    }
  }
done:
  free(stack);
  free(refs);
  return count;
}

int mbd_sym_shared_calls(mbd_sym_ctx *ctx, int na, const mbd_sym_id *a, int nb,
                         const mbd_sym_id *b, int cap, mbd_sym_id *out) {
  for (int i = 0; i < na + nb; i++) {
    if (!sym_valid(ctx, i < na ? a[i] : b[i - na])) {
      SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_EXPR_INVALID, i + 1, (int)(i < na ? a[i] : b[i - na]));
      return -1;
    }
  }
  uint8_t *mark = calloc((size_t)ctx->nnodes + 1, 1);
  int count = -1;
  if (mark && sym_reach(ctx, na, a, mark, 1, 0, 0, NULL) >= 0) {
    count = sym_reach(ctx, nb, b, mark, 2, 1, cap, out);
  }
  free(mark);
  if (count < 0) {
    SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
  }
  return count;
}

/* ---- evaluation on the DAG ---------------------------------------------------------------------
 */

static double eval_node(const mbd_sym_ctx *ctx, mbd_sym_id id, const double *val,
                        const double *vars) {
  const sym_node *n = NODE(ctx, id);
  const int32_t *a = ctx->args ? ctx->args + n->adr : NULL;  // (no arguments yet: leaves only)
  int k;
  switch ((mbd_sym_op)n->op) {
    case MBD_SYM_CONST:
      return n->value;
    case MBD_SYM_VAR:
      return vars[n->index];
    case MBD_SYM_ADD: {
      double acc = val[a[0]];
      for (int i = 1; i < n->nargs; i++) {
        acc = acc + val[a[i]];
      }
      return acc;
    }
    case MBD_SYM_MUL: {
      double acc = 1.0;
      int first = 1;
      mbd_sym_id f;
      for (int i = 0; i < n->nargs; i++) {
        if (!sym_is_reciprocal(ctx, a[i], &f)) {
          acc = first ? val[a[i]] : acc * val[a[i]];
          first = 0;
        }
      }
      for (int i = 0; i < n->nargs; i++) {
        if (sym_is_reciprocal(ctx, a[i], &f)) {
          acc = acc / val[f];
        }
      }
      return acc;
    }
    case MBD_SYM_POW: {
      double e = val[a[1]];
      if (NODE(ctx, a[1])->op == MBD_SYM_CONST && sym_small_int(e, &k)) {
        return sym_powi(val[a[0]], k);
      }
      return pow(val[a[0]], e);
    }
    case MBD_SYM_SIN:
      return sin(val[a[0]]);
    case MBD_SYM_COS:
      return cos(val[a[0]]);
    case MBD_SYM_TAN:
      return tan(val[a[0]]);
    case MBD_SYM_EXP:
      return exp(val[a[0]]);
    case MBD_SYM_LOG:
      return log(val[a[0]]);
    case MBD_SYM_SQRT:
      return sqrt(val[a[0]]);
    case MBD_SYM_ABS:
      return fabs(val[a[0]]);
    case MBD_SYM_SIGN:
      return sym_signf(val[a[0]]);
    case MBD_SYM_ATAN2:
      return atan2(val[a[0]], val[a[1]]);
    case MBD_SYM_IFELSE:
      return val[a[0]] > 0 ? val[a[1]] : val[a[2]];
    case MBD_SYM_NOPS:
      break;
  }
  return NAN;
}

int mbd_sym_eval(mbd_sym_ctx *ctx, mbd_sym_id e, const double *vals, double *out, mbd_error *err) {
  if (!sym_valid(ctx, e)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_BAD_ID, "eval", (int)e);
  }
  int32_t *order;
  int n = sym_topo(ctx, 1, &e, &order);
  double *val = malloc(sizeof *val * ((size_t)ctx->nnodes + 1));
  if (n < 0 || !val) {
    if (n >= 0) {
      free(order);
    }
    free(val);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.eval");
  }
  for (int i = 0; i < n; i++) {
    val[order[i]] = eval_node(ctx, order[i], val, vals);
  }
  *out = val[e];
  free(order);
  free(val);
  return MBD_OK;
}

/* ---- the tape ----------------------------------------------------------------------------------
 */

enum {
  OP_LOAD,  /* r[d] = v[a] */
  OP_STORE, /* out[d] = r[a] */
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_NEG,
  OP_RECIP, /* r[d] = 1 / r[a] */
  OP_SQR,   /* r[d] = r[a] * r[a] (sym_powi for n = 2) */
  OP_POWI,  /* r[d] = sym_powi(r[a], b) */
  OP_POW,
  OP_SIN,
  OP_COS,
  OP_TAN,
  OP_EXP,
  OP_LOG,
  OP_SQRT,
  OP_ABS,
  OP_SIGN,
  OP_ATAN2,
  OP_IFELSE, /* r[d] = r[a] > 0 ? r[b] : r[c] */
  /* a sum's term that is a product used nowhere else, its last multiplication fused with the sum:
   * the product is rounded, then added (two roundings, as apart: never a fused multiply-add) */
  OP_MULADD,  /* r[d] = r[c] + r[a] * r[b] */
  OP_MULSUB,  /* r[d] = r[c] - r[a] * r[b] */
  OP_MULSUBR, /* r[d] = r[a] * r[b] - r[c] */
  OP_END      /* the last instruction */
};

typedef struct sym_instr {
  int32_t op, d, a, b, c; /* operation, destination, operands (register numbers) */
} sym_instr;

struct mbd_sym_tape {
  sym_instr *code; /* code[ncode] */
  int ncode;
  double *reg; /* reg[nreg]: constants in [0, nconst), then temporaries */
  int nreg, nconst;
  int nout;  /* outputs */
  int nvars; /* length of v read */
};

/* tape builder */
typedef struct tape_b {
  sym_instr *code;
  int ncode, ccode;
  int32_t *reg;   /* reg[id]: register of node id, -1 none */
  int32_t *free_; /* free temporary registers (stack) */
  int nfree;
  int nreg;
  const uint8_t *fuse; /* fuse[id]: a product computed inside the sum that uses it (no register) */
} tape_b;

static int emit(tape_b *B, int op, int d, int a, int b, int c) {
  if (B->ncode == B->ccode) {
    int cc = B->ccode ? 2 * B->ccode : 256;
    sym_instr *p = realloc(B->code, sizeof *p * (size_t)cc);
    if (!p) {
      return -1;
    }
    B->code = p;
    B->ccode = cc;
  }
  B->code[B->ncode++] = (sym_instr){op, d, a, b, c};
  return 0;
}

static int new_reg(tape_b *B) { return B->nfree > 0 ? B->free_[--B->nfree] : B->nreg++; }

/* a fused product f0·f1·…·fk of a sum's term: the registers x, y of its last multiplication, the
 * leading factors multiplied left to right into a temporary register *tmp (-1 when k = 1, else
 * the caller gives it back after the sum's instruction) — the same roundings as the product
 * computed on its own */
static int fused_factors(const mbd_sym_ctx *ctx, tape_b *B, mbd_sym_id t, int *x, int *y,
                         int *tmp) {
  const sym_node *n = NODE(ctx, t);
  int err = 0;
  *tmp = -1;
  *x = B->reg[ARG(ctx, t, 0)];
  for (int i = 1; i < n->nargs - 1; i++) {
    if (*tmp < 0) {
      *tmp = new_reg(B);
    }
    err |= emit(B, OP_MUL, *tmp, *x, B->reg[ARG(ctx, t, i)], 0);
    *x = *tmp;
  }
  *y = B->reg[ARG(ctx, t, n->nargs - 1)];
  return err;
}

static void give_back(tape_b *B, int reg) {
  if (reg >= 0) {
    B->free_[B->nfree++] = reg;
  }
}

/* instructions computing node id into register d */
static int emit_node(const mbd_sym_ctx *ctx, tape_b *B, mbd_sym_id id, int d) {
  const sym_node *n = NODE(ctx, id);
  const int32_t *a = ctx->args ? ctx->args + n->adr : NULL;  // (no arguments yet: leaves only)
  int k, err = 0;
  double e;
  static const int fn_op[MBD_SYM_NOPS] = {
      [MBD_SYM_SIN] = OP_SIN, [MBD_SYM_COS] = OP_COS,   [MBD_SYM_TAN] = OP_TAN,
      [MBD_SYM_EXP] = OP_EXP, [MBD_SYM_LOG] = OP_LOG,   [MBD_SYM_SQRT] = OP_SQRT,
      [MBD_SYM_ABS] = OP_ABS, [MBD_SYM_SIGN] = OP_SIGN, [MBD_SYM_ATAN2] = OP_ATAN2};
  switch ((mbd_sym_op)n->op) {
    case MBD_SYM_ADD: {
      mbd_sym_id f0, f1;
      int neg0 = sym_is_negation(ctx, a[0], &f0), neg1 = sym_is_negation(ctx, a[1], &f1);
      mbd_sym_id t1 = neg1 ? f1 : a[1];
      int r0 = B->reg[neg0 ? f0 : a[0]];
      if (B->fuse[t1]) {
        /* the second term a product x·y: t0 + x·y, t0 - x·y, x·y - t0, or -t0 - x·y */
        int x, y, tmp;
        err |= fused_factors(ctx, B, t1, &x, &y, &tmp);
        if (!neg0) {
          err |= emit(B, neg1 ? OP_MULSUB : OP_MULADD, d, x, y, r0);
        } else if (!neg1) {
          err |= emit(B, OP_MULSUBR, d, x, y, r0);
        } else {
          err |= emit(B, OP_NEG, d, r0, 0, 0);
          err |= emit(B, OP_MULSUB, d, x, y, d);
        }
        give_back(B, tmp);
      } else {
        int r1 = B->reg[t1];
        if (!neg0) {
          err |= emit(B, neg1 ? OP_SUB : OP_ADD, d, r0, r1, 0);
        } else if (!neg1) {
          err |= emit(B, OP_SUB, d, r1, r0, 0); /* -a + b = b - a exactly */
        } else {
          err |= emit(B, OP_NEG, d, r0, 0, 0);
          err |= emit(B, OP_SUB, d, d, r1, 0);
        }
      }
      for (int i = 2; i < n->nargs; i++) {
        mbd_sym_id f;
        int neg = sym_is_negation(ctx, a[i], &f);
        mbd_sym_id t = neg ? f : a[i];
        if (B->fuse[t]) {
          int x, y, tmp;
          err |= fused_factors(ctx, B, t, &x, &y, &tmp);
          err |= emit(B, neg ? OP_MULSUB : OP_MULADD, d, x, y, d);
          give_back(B, tmp);
        } else {
          err |= emit(B, neg ? OP_SUB : OP_ADD, d, d, B->reg[t], 0);
        }
      }
      return err;
    }
    case MBD_SYM_MUL: {
      int have = 0, acc = -1; /* acc: register holding the running product when have == 1 */
      mbd_sym_id f;
      for (int i = 0; i < n->nargs; i++) {
        if (sym_is_reciprocal(ctx, a[i], &f)) {
          continue;
        }
        int r = B->reg[a[i]];
        if (!have) {
          acc = r;
          have = 1;
        } else {
          err |= emit(B, OP_MUL, d, acc, r, 0);
          acc = d;
        }
      }
      for (int i = 0; i < n->nargs; i++) {
        if (!sym_is_reciprocal(ctx, a[i], &f)) {
          continue;
        }
        int r = B->reg[f];
        if (!have) {
          err |= emit(B, OP_RECIP, d, r, 0, 0);
          have = 1;
        } else {
          err |= emit(B, OP_DIV, d, acc, r, 0);
        }
        acc = d;
      }
      return err;
    }
    case MBD_SYM_POW:
      if (mbd_sym_is_const(ctx, a[1], &e) && sym_small_int(e, &k)) {
        if (k == -1) {
          return emit(B, OP_RECIP, d, B->reg[a[0]], 0, 0);
        }
        return emit(B, k == 2 ? OP_SQR : OP_POWI, d, B->reg[a[0]], k, 0);
      }
      return emit(B, OP_POW, d, B->reg[a[0]], B->reg[a[1]], 0);
    case MBD_SYM_IFELSE:
      return emit(B, OP_IFELSE, d, B->reg[a[0]], B->reg[a[1]], B->reg[a[2]]);
    case MBD_SYM_ATAN2:
      return emit(B, OP_ATAN2, d, B->reg[a[0]], B->reg[a[1]], 0);
    case MBD_SYM_CONST:
    case MBD_SYM_VAR:
    case MBD_SYM_NOPS:
      return -1; /* handled by the caller */
    default:
      return emit(B, fn_op[n->op], d, B->reg[a[0]], 0, 0);
  }
}

int mbd_sym_tape_new(mbd_sym_ctx *ctx, int nexpr, const mbd_sym_id *exprs, int nvars,
                     const mbd_sym_id *vars, mbd_sym_tape **tape, mbd_error *err) {
  *tape = NULL;
  sym_plan P;
  int status = sym_plan_build(ctx, nexpr, exprs, nvars, vars, 0, NULL, &P, err);
  if (status) {
    return status;
  }
  tape_b B = {0};
  size_t nn = (size_t)ctx->nnodes + 1;
  B.reg = malloc(sizeof(int32_t) * nn);
  B.free_ = malloc(sizeof(int32_t) * nn);
  int32_t *refs = malloc(sizeof(int32_t) * nn);
  uint8_t *fuse = calloc(nn, 1);
  mbd_sym_tape *t = calloc(1, sizeof *t);
  B.fuse = fuse;
  if (!B.reg || !B.free_ || !refs || !fuse || !t) {
    goto nomem;
  }
  /* products fused into the sum that uses them: a term after a sum's first that is a product of
   * plain factors (no divisor), used by nothing else and not an output itself */
  for (int i = 0; i < P.n; i++) {
    mbd_sym_id id = P.order[i];
    if (NODE(ctx, id)->op != MBD_SYM_ADD) {
      continue;
    }
    int nr = sym_recipe_refs(ctx, id, refs);
    for (int k = 1; k < nr; k++) {
      mbd_sym_id c = refs[k], f;
      const sym_node *cn = NODE(ctx, c);
      int plain = cn->op == MBD_SYM_MUL && P.uses[c] == 1;
      for (int q = 0; plain && q < cn->nargs; q++) {
        plain = !sym_is_reciprocal(ctx, ARG(ctx, c, q), &f);
      }
      fuse[c] = (uint8_t)plain;
    }
  }
  for (int j = 0; j < nexpr; j++) {
    fuse[exprs[j]] = 0;
  }
  memset(B.reg, 0xff, sizeof(int32_t) * nn);
  /* constants take the first registers */
  int nconst = 0;
  for (int i = 0; i < P.n; i++) {
    if (NODE(ctx, P.order[i])->op == MBD_SYM_CONST) {
      B.reg[P.order[i]] = nconst++;
    }
  }
  B.nreg = nconst;
  for (int i = 0; i < P.n; i++) {
    mbd_sym_id id = P.order[i];
    int op = NODE(ctx, id)->op;
    if (op == MBD_SYM_VAR) {
      B.reg[id] = new_reg(&B);
      if (emit(&B, OP_LOAD, B.reg[id], P.slot[id], 0, 0)) {
        goto nomem;
      }
    } else if (fuse[id]) {
      continue; /* computed by the sum that uses it */
    } else if (op != MBD_SYM_CONST) {
      B.reg[id] = new_reg(&B);
      if (emit_node(ctx, &B, id, B.reg[id])) {
        goto nomem;
      }
      /* operands whose last use this was give their registers back (a fused product's: its
       * factors') */
      int nr = sym_recipe_refs(ctx, id, refs);
      for (int k = 0; k < nr; k++) {
        mbd_sym_id c = refs[k];
        if (fuse[c]) {
          for (int q = 0; q < NODE(ctx, c)->nargs; q++) {
            mbd_sym_id x = ARG(ctx, c, q);
            if (--P.uses[x] == 0 && NODE(ctx, x)->op != MBD_SYM_CONST) {
              B.free_[B.nfree++] = B.reg[x];
            }
          }
        } else if (--P.uses[c] == 0 && NODE(ctx, c)->op != MBD_SYM_CONST) {
          B.free_[B.nfree++] = B.reg[c];
        }
      }
    }
    for (int j = 0; j < nexpr; j++) {
      if (exprs[j] == id && emit(&B, OP_STORE, j, B.reg[id], 0, 0)) {
        goto nomem;
      }
    }
    if (P.uses[id] == 0 && op != MBD_SYM_CONST) {
      B.free_[B.nfree++] = B.reg[id]; /* an output nobody else reads */
    }
  }
  t->reg = malloc(sizeof(double) * (size_t)(B.nreg > 0 ? B.nreg : 1));
  if (!t->reg || emit(&B, OP_END, 0, 0, 0, 0)) {
    goto nomem;
  }
  for (int i = 0; i < P.n; i++) {
    if (NODE(ctx, P.order[i])->op == MBD_SYM_CONST) {
      t->reg[B.reg[P.order[i]]] = NODE(ctx, P.order[i])->value;
    }
  }
  for (int i = nconst; i < B.nreg; i++) {
    t->reg[i] = 0.0;
  }
  t->code = B.code;
  t->ncode = B.ncode;
  t->nreg = B.nreg;
  t->nconst = nconst;
  t->nout = nexpr;
  t->nvars = P.nslots;
  *tape = t;
  free(B.reg);
  free(B.free_);
  free(refs);
  free(fuse);
  sym_plan_free(&P);
  return MBD_OK;
nomem:
  free(B.code);
  free(B.reg);
  free(B.free_);
  free(refs);
  free(fuse);
  if (t) {
    free(t->reg);
  }
  free(t);
  sym_plan_free(&P);
  return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM_TAPE, nexpr);
}

/* the interpreter: one case per operation; with GCC or Clang each operation jumps straight to the
 * next one's code (labels as values: one indirect jump per instruction instead of a switch's
 * bounds check and shared jump), else a switch in a loop.  The tape ends with OP_END. */
// the cases' layout, one line per operation whether in or out of the switch, is kept by hand
// clang-format off
#if defined(__GNUC__)
#define TAPE_THREADED 1
#define CASE(op) L_##op
#define NEXT goto *lab[(++p)->op]
#else
#define TAPE_THREADED 0
#define CASE(op) case op
#define NEXT break
#endif
void mbd_sym_tape_eval(mbd_sym_tape *tape, const double *v, double *out) {
  double *restrict r = tape->reg;
  const sym_instr *p = tape->code;
#if TAPE_THREADED
  static const void *const lab[] = {
      [OP_LOAD] = &&L_OP_LOAD,     [OP_STORE] = &&L_OP_STORE,     [OP_ADD] = &&L_OP_ADD,
      [OP_SUB] = &&L_OP_SUB,       [OP_MUL] = &&L_OP_MUL,         [OP_DIV] = &&L_OP_DIV,
      [OP_NEG] = &&L_OP_NEG,       [OP_RECIP] = &&L_OP_RECIP,     [OP_SQR] = &&L_OP_SQR,
      [OP_POWI] = &&L_OP_POWI,     [OP_POW] = &&L_OP_POW,         [OP_SIN] = &&L_OP_SIN,
      [OP_COS] = &&L_OP_COS,       [OP_TAN] = &&L_OP_TAN,         [OP_EXP] = &&L_OP_EXP,
      [OP_LOG] = &&L_OP_LOG,       [OP_SQRT] = &&L_OP_SQRT,       [OP_ABS] = &&L_OP_ABS,
      [OP_SIGN] = &&L_OP_SIGN,     [OP_ATAN2] = &&L_OP_ATAN2,     [OP_IFELSE] = &&L_OP_IFELSE,
      [OP_MULADD] = &&L_OP_MULADD, [OP_MULSUB] = &&L_OP_MULSUB,   [OP_MULSUBR] = &&L_OP_MULSUBR,
      [OP_END] = &&L_OP_END};
  goto *lab[p->op];
#else
  for (;; p++) {
    switch (p->op) {
#endif
  CASE(OP_LOAD): r[p->d] = v[p->a]; NEXT;
  CASE(OP_STORE): out[p->d] = r[p->a]; NEXT;
  CASE(OP_ADD): r[p->d] = r[p->a] + r[p->b]; NEXT;
  CASE(OP_SUB): r[p->d] = r[p->a] - r[p->b]; NEXT;
  CASE(OP_MUL): r[p->d] = r[p->a] * r[p->b]; NEXT;
  CASE(OP_DIV): r[p->d] = r[p->a] / r[p->b]; NEXT;
  CASE(OP_NEG): r[p->d] = -r[p->a]; NEXT;
  CASE(OP_RECIP): r[p->d] = 1.0 / r[p->a]; NEXT;
  CASE(OP_SQR): r[p->d] = r[p->a] * r[p->a]; NEXT;
  CASE(OP_POWI): r[p->d] = sym_powi(r[p->a], p->b); NEXT;
  CASE(OP_POW): r[p->d] = pow(r[p->a], r[p->b]); NEXT;
  CASE(OP_SIN): r[p->d] = sin(r[p->a]); NEXT;
  CASE(OP_COS): r[p->d] = cos(r[p->a]); NEXT;
  CASE(OP_TAN): r[p->d] = tan(r[p->a]); NEXT;
  CASE(OP_EXP): r[p->d] = exp(r[p->a]); NEXT;
  CASE(OP_LOG): r[p->d] = log(r[p->a]); NEXT;
  CASE(OP_SQRT): r[p->d] = sqrt(r[p->a]); NEXT;
  CASE(OP_ABS): r[p->d] = fabs(r[p->a]); NEXT;
  CASE(OP_SIGN): r[p->d] = sym_signf(r[p->a]); NEXT;
  CASE(OP_ATAN2): r[p->d] = atan2(r[p->a], r[p->b]); NEXT;
  CASE(OP_IFELSE): r[p->d] = r[p->a] > 0 ? r[p->b] : r[p->c]; NEXT;
  /* the product in a statement of its own: rounded before the sum (no contraction into a fused
   * multiply-add, which would change the last bit against the generated C) */
  CASE(OP_MULADD): { double x = r[p->a] * r[p->b]; r[p->d] = r[p->c] + x; } NEXT;
  CASE(OP_MULSUB): { double x = r[p->a] * r[p->b]; r[p->d] = r[p->c] - x; } NEXT;
  CASE(OP_MULSUBR): { double x = r[p->a] * r[p->b]; r[p->d] = x - r[p->c]; } NEXT;
  CASE(OP_END): return;
#if !TAPE_THREADED
      default:
        return;
    }
  }
#endif
}
#undef CASE
#undef NEXT
#undef TAPE_THREADED
// clang-format on

void mbd_sym_tape_free(mbd_sym_tape *tape) {
  if (tape) {
    free(tape->code);
    free(tape->reg);
    free(tape);
  }
}

int mbd_sym_tape_nout(const mbd_sym_tape *tape) { return tape->nout; }
int mbd_sym_tape_nvars(const mbd_sym_tape *tape) { return tape->nvars; }
int mbd_sym_tape_ninstr(const mbd_sym_tape *tape) { return tape->ncode; }
int mbd_sym_tape_nregs(const mbd_sym_tape *tape) { return tape->nreg; }
