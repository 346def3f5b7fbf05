/* symbolic expressions: exact differentiation, substitution, Jacobians */
#include <stdlib.h>
#include <string.h>

#include "sym_impl.h"
#include "sym_msg.h"

/* ---- differentiation ---------------------------------------------------------------------------
 */

/* The differentiator is iterative: an explicit stack of frames, one per node whose derivative is
 * being built, visits the arguments in the order the recursive definition would (so the nodes it
 * creates are those of the recursive definition, in the same order) without using the C stack:
 * an expression 10⁵ deep differentiates like a shallow one.
 *
 * Linear size.  Many derivatives are a factor times the derivative of one argument ("links"):
 * f(u)' = f'(u)·u', (b^n)' = n b^(n−1)·b', (c·u)' = c·u', (u + c)' = u'.  Multiplied out at every
 * level, a chain of k links gives a flattened product of k factors at each level, a quadratic
 * number of operands for a deep chain (sin(sin(...)), sqrt(e² + c) repeated).  So a link whose
 * argument's derivative is itself a link stays lazy (its factor and the argument) and the chain
 * is multiplied out once, as one product, where a node that is not a link (or the caller) needs
 * it.  The derivative is then linear in the size of the expression; a chain of one link is
 * multiplied out at once, exactly as before. */

#define D_UNKNOWN (-1) /* memo: not differentiated yet */
#define D_LAZY (-2)    /* memo: a lazy link fac[e]·d(child[e]) */

typedef struct dframe {
  mbd_sym_id e;    /* the node being differentiated */
  int k;           /* its next argument to differentiate */
  int32_t *t;      /* ADD: the terms' derivatives; MUL: the product rule's terms so far */
  int32_t *f;      /* MUL: scratch factors of one term */
  int nt;          /* MUL: terms in t */
  int lazy_k;      /* MUL: the argument whose derivative came lazy, −1 none */
  int only;        /* ADD, MUL: the one argument that depends on the variable, −1 none or several */
  mbd_sym_id r[2]; /* POW, ATAN2, IFELSE, one-argument functions: the arguments' derivatives */
} dframe;

typedef struct diff_state {
  mbd_sym_ctx *ctx;
  mbd_sym_id var;  /* the variable */
  int32_t *memo;   /* memo[id]: derivative of node id, D_UNKNOWN or D_LAZY */
  int32_t *fac;    /* fac[id]: the factor of a link, MBD_SYM_NONE for 1 */
  int32_t *child;  /* child[id]: the argument of a link */
  uint8_t *link;   /* link[id]: 1 when node id's derivative is a link (lazy or multiplied out) */
  uint8_t *dep;    /* dep[id]: 1 when node id depends on the variable */
  int n0;          /* number of nodes when the call started (the only ones differentiated) */
} diff_state;

static int is_zero(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  return e >= 0 && ctx->nodes[e].op == MBD_SYM_CONST && ctx->nodes[e].value == 0.0;
}

static int is_fn1(int op) { return op >= MBD_SYM_SIN && op <= MBD_SYM_ABS; }

/* 1 when argument k of frame f's node may receive a lazy derivative: the node builds a link on
 * it (for a sum or a product, when it is the only argument that depends on the variable: then
 * nothing is built between its derivative and the node's, as in the recursive definition) */
static int takes_lazy(const mbd_sym_ctx *ctx, const dframe *f, int k) {
  int op = NODE(ctx, f->e)->op;
  return (is_fn1(op) && k == 0) || (op == MBD_SYM_POW && k == 0) ||
         ((op == MBD_SYM_ADD || op == MBD_SYM_MUL) && f->only == k);
}

/* the derivative of node e as a node: a lazy chain multiplied out (and remembered) */
static mbd_sym_id materialize(diff_state *D, mbd_sym_id e) {
  mbd_sym_ctx *ctx = D->ctx;
  if (D->memo[e] != D_LAZY) {
    return D->memo[e];
  }
  int n = 0;
  for (mbd_sym_id u = e; D->memo[u] == D_LAZY; u = D->child[u]) {
    n++;
  }
  int32_t *f = malloc(sizeof *f * (size_t)(n + 1));
  if (!f) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
  }
  int nf = 0;
  mbd_sym_id u = e;
  for (; D->memo[u] == D_LAZY; u = D->child[u]) {
    if (D->fac[u] != MBD_SYM_NONE) {
      f[nf++] = D->fac[u];
    }
  }
  f[nf++] = D->memo[u];
  mbd_sym_id r = nf == 1 ? f[0] : mbd_sym_mul_n(ctx, nf, f);
  free(f);
  if (r >= 0) {
    D->memo[e] = r;
  }
  return r;
}

/* node e's derivative is fac · d(c): a link, lazy when d(c) is lazy or itself a link (so the
 * chain is multiplied out once); otherwise multiplied out now.  D_LAZY or the node. */
static mbd_sym_id link_to(diff_state *D, mbd_sym_id e, mbd_sym_id fac, mbd_sym_id c,
                          mbd_sym_id dc) {
  D->link[e] = 1;
  if (dc == D_LAZY || D->link[c]) {
    D->fac[e] = fac;
    D->child[e] = c;
    D->memo[e] = D_LAZY;
    return D_LAZY;
  }
  return fac == MBD_SYM_NONE ? dc : mbd_sym_mul(D->ctx, fac, dc);
}

/* f'(u) of a one-argument function node e = f(u) */
static mbd_sym_id d_fn1(diff_state *D, mbd_sym_id e, int op) {
  mbd_sym_ctx *ctx = D->ctx;
  mbd_sym_id u = ARG(ctx, e, 0);
  switch (op) {
    case MBD_SYM_SIN:
      return mbd_sym_cos(ctx, u);
    case MBD_SYM_COS:
      return mbd_sym_neg(ctx, mbd_sym_sin(ctx, u));
    case MBD_SYM_TAN: /* 1 + tan^2 shares the tan node */
      return mbd_sym_add(ctx, mbd_sym_const(ctx, 1.0), mbd_sym_powc(ctx, e, 2.0));
    case MBD_SYM_EXP:
      return e;
    case MBD_SYM_LOG:
      return mbd_sym_powc(ctx, u, -1.0);
    case MBD_SYM_SQRT: /* 0.5 / sqrt(u) shares the sqrt node */
      return mbd_sym_mul(ctx, mbd_sym_const(ctx, 0.5), mbd_sym_powc(ctx, e, -1.0));
    case MBD_SYM_ABS:
      return mbd_sym_sign(ctx, u);
    default:
      return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_DIFF_KIND, op);
  }
}

/* the derivative of base^exponent from those of its base (db, possibly lazy) and exponent (dx) */
static mbd_sym_id d_pow(diff_state *D, mbd_sym_id e, mbd_sym_id db, mbd_sym_id dx) {
  mbd_sym_ctx *ctx = D->ctx;
  mbd_sym_id b = ARG(ctx, e, 0), x = ARG(ctx, e, 1);
  if (is_zero(ctx, dx)) {
    if (is_zero(ctx, db)) {
      return mbd_sym_const(ctx, 0.0);
    }
    /* n · b^(n-1) · b' (n constant or independent of the variable) */
    mbd_sym_id f[3] = {x, mbd_sym_pow(ctx, b, mbd_sym_add(ctx, x, mbd_sym_const(ctx, -1.0))), db};
    if (db == D_LAZY || D->link[b]) {
      return link_to(D, e, mbd_sym_mul_n(ctx, 2, f), b, db);
    }
    D->link[e] = 1;
    return mbd_sym_mul_n(ctx, 3, f);
  }
  if (db == D_LAZY) {
    db = materialize(D, b);
    if (db < 0) {
      return db;
    }
  }
  /* b^x · (x' log b + x b'/b) */
  mbd_sym_id t1 = mbd_sym_mul(ctx, dx, mbd_sym_log(ctx, b));
  mbd_sym_id f[3] = {x, db, mbd_sym_powc(ctx, b, -1.0)};
  mbd_sym_id t2 = is_zero(ctx, db) ? mbd_sym_const(ctx, 0.0) : mbd_sym_mul_n(ctx, 3, f);
  return mbd_sym_mul(ctx, e, mbd_sym_add(ctx, t1, t2));
}

/* the arguments of node e whose derivatives its own needs, in order: how many; the k-th's index */
static int nwanted(int op, int nargs) {
  switch (op) {
    case MBD_SYM_CONST:
    case MBD_SYM_VAR:
    case MBD_SYM_SIGN: /* piecewise constant */
      return 0;
    case MBD_SYM_ADD:
    case MBD_SYM_MUL:
      return nargs;
    case MBD_SYM_POW:
    case MBD_SYM_ATAN2:
    case MBD_SYM_IFELSE:
      return 2;
    default:
      return 1;
  }
}
static int wanted_arg(int op, int k) { return op == MBD_SYM_IFELSE ? k + 1 : k; }

/* the product rule's term for factor k with derivative dk (a node) */
static mbd_sym_id mul_term(diff_state *D, dframe *f, int k, mbd_sym_id dk) {
  mbd_sym_ctx *ctx = D->ctx;
  const int n = NODE(ctx, f->e)->nargs;
  for (int j = 0; j < n; j++) {
    f->f[j] = j == k ? dk : ARG(ctx, f->e, j);
  }
  return mbd_sym_mul_n(ctx, n, f->f);
}

/* frame f received the derivative dk of its wanted argument k (a node, or D_LAZY where
 * takes_lazy): record it; the product rule builds its term now, as the recursive definition
 * did (a lazy one waits for the end: it may be the only one).  0 or MBD_SYM_NONE. */
static mbd_sym_id receive(diff_state *D, dframe *f, int k, mbd_sym_id dk) {
  mbd_sym_ctx *ctx = D->ctx;
  const int op = NODE(ctx, f->e)->op;
  if (op == MBD_SYM_ADD) {
    f->t[k] = dk;
  } else if (op == MBD_SYM_MUL) {
    if (is_zero(ctx, dk)) {
      return 0;
    }
    if (dk == D_LAZY) {
      f->lazy_k = k;  // the only factor that depends: a link at the end
      return 0;
    }
    f->t[f->nt] = mul_term(D, f, k, dk);
    if (f->t[f->nt] < 0) {
      return MBD_SYM_NONE;
    }
    f->nt++;
  } else {
    f->r[k] = dk;
  }
  return 0;
}

/* every wanted argument of frame f differentiated: its node's derivative (memo set; D_LAZY for a
 * lazy link) */
static mbd_sym_id finish(diff_state *D, dframe *f) {
  mbd_sym_ctx *ctx = D->ctx;
  mbd_sym_id e = f->e;
  const int op = NODE(ctx, e)->op, n = NODE(ctx, e)->nargs;
  mbd_sym_id r = MBD_SYM_NONE;
  switch (op) {
    case MBD_SYM_CONST:
    case MBD_SYM_SIGN:
      r = mbd_sym_const(ctx, 0.0);
      break;
    case MBD_SYM_VAR:
      r = mbd_sym_const(ctx, e == D->var ? 1.0 : 0.0);
      break;
    case MBD_SYM_ADD:
      // one term depends on the variable: a link with no factor
      if (f->only >= 0 && (f->t[f->only] == D_LAZY || D->link[ARG(ctx, e, f->only)])) {
        r = link_to(D, e, MBD_SYM_NONE, ARG(ctx, e, f->only), f->t[f->only]);
        break;
      }
      r = mbd_sym_add_n(ctx, n, f->t);
      break;
    case MBD_SYM_MUL:
      if (f->lazy_k >= 0) {
        // the other factors times the lazy derivative of the one that depends
        for (int j = 0, i = 0; j < n; j++) {
          if (j != f->lazy_k) {
            f->f[i++] = ARG(ctx, e, j);
          }
        }
        mbd_sym_id fac = n == 2 ? f->f[0] : mbd_sym_mul_n(ctx, n - 1, f->f);
        r = fac < 0 ? fac : link_to(D, e, fac, ARG(ctx, e, f->lazy_k), D_LAZY);
        break;
      }
      // one factor depends: the single term is a link (multiplied out, as before)
      D->link[e] = f->only >= 0 && f->nt == 1;
      r = mbd_sym_add_n(ctx, f->nt, f->t);
      break;
    case MBD_SYM_POW:
      r = d_pow(D, e, f->r[0], f->r[1]);
      break;
    case MBD_SYM_ATAN2: {
      /* d atan2(y, x) = (x y' - y x') / (x^2 + y^2) */
      mbd_sym_id y = ARG(ctx, e, 0), x = ARG(ctx, e, 1), dy = f->r[0], dx = f->r[1];
      if (is_zero(ctx, dy) && is_zero(ctx, dx)) {
        r = mbd_sym_const(ctx, 0.0);
        break;
      }
      mbd_sym_id num = mbd_sym_sub(ctx, mbd_sym_mul(ctx, x, dy), mbd_sym_mul(ctx, y, dx));
      mbd_sym_id den = mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2.0), mbd_sym_powc(ctx, y, 2.0));
      r = mbd_sym_div(ctx, num, den);
      break;
    }
    case MBD_SYM_IFELSE:
      r = mbd_sym_ifelse(ctx, ARG(ctx, e, 0), f->r[0], f->r[1]);
      break;
    default: {
      /* one-argument functions: f'(u) · u' */
      mbd_sym_id du = f->r[0];
      if (is_zero(ctx, du)) {
        r = du;
        break;
      }
      mbd_sym_id fp = d_fn1(D, e, op);
      r = fp < 0 ? fp : link_to(D, e, fp, ARG(ctx, e, 0), du);
      break;
    }
  }
  if (r >= 0) {
    D->memo[e] = r;
  }
  return r;
}

/* the derivative of e: frames pushed for arguments not yet differentiated, results handed to the
 * frame below (multiplied out where that frame takes no lazy link) */
static mbd_sym_id d_iter(diff_state *D, mbd_sym_id e) {
  mbd_sym_ctx *ctx = D->ctx;
  int cap = 64, sp = 0;
  dframe *st = malloc(sizeof *st * (size_t)cap);
  if (!st) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
  }
  mbd_sym_id result = MBD_SYM_NONE;
  mbd_sym_id next = e; /* a node to open a frame for, or MBD_SYM_NONE */
  for (;;) {
    if (next != MBD_SYM_NONE) {
      if (sp == cap) {
        dframe *q = realloc(st, sizeof *st * (size_t)(2 * cap));
        if (!q) {
          SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
          goto fail;
        }
        st = q;
        cap *= 2;
      }
      dframe *f = &st[sp++];
      memset(f, 0, sizeof *f);
      f->e = next;
      f->lazy_k = -1;
      f->only = -1;
      const int op = NODE(ctx, next)->op, n = NODE(ctx, next)->nargs;
      if (op == MBD_SYM_ADD || op == MBD_SYM_MUL) {
        for (int i = 0, ndep = 0; i < n; i++) {
          if (D->dep[ARG(ctx, next, i)]) {
            f->only = ndep++ ? -1 : i;
          }
        }
      }
      if (op == MBD_SYM_ADD || op == MBD_SYM_MUL) {
        f->t = malloc(sizeof *f->t * (size_t)n);
        f->f = op == MBD_SYM_MUL ? malloc(sizeof *f->f * (size_t)n) : NULL;
        if (!f->t || (op == MBD_SYM_MUL && !f->f)) {
          SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
          goto fail;
        }
      }
      next = MBD_SYM_NONE;
    }
    dframe *f = &st[sp - 1];
    const int op = NODE(ctx, f->e)->op;
    mbd_sym_id r;
    if (f->k < nwanted(op, NODE(ctx, f->e)->nargs)) {
      mbd_sym_id a = ARG(ctx, f->e, wanted_arg(op, f->k));
      if (D->memo[a] == D_UNKNOWN) {
        next = a;  // differentiate the argument first
        continue;
      }
      r = D->memo[a];
      if (r == D_LAZY && !takes_lazy(ctx, f, f->k)) {
        r = materialize(D, a);
      }
      if ((r < 0 && r != D_LAZY) || receive(D, f, f->k, r) < 0) {
        goto fail;
      }
      f->k++;
      continue;
    }
    // every argument done: this node's derivative, handed to the frame below
    mbd_sym_id done = f->e;
    r = finish(D, f);
    free(f->t);
    free(f->f);
    sp--;
    if (r < 0 && r != D_LAZY) {
      goto fail;
    }
    if (sp == 0) {
      result = materialize(D, e);
      break;
    }
    dframe *below = &st[sp - 1];
    if (r == D_LAZY && !takes_lazy(ctx, below, below->k)) {
      r = materialize(D, done);
    }
    if (r < 0 && r != D_LAZY) {
      goto fail;
    }
    if (receive(D, below, below->k, r) < 0) {
      goto fail;
    }
    below->k++;
  }
  free(st);
  return result;
fail:
  for (int i = 0; i < sp; i++) {
    free(st[i].t);
    free(st[i].f);
  }
  free(st);
  return MBD_SYM_NONE;
}

mbd_sym_id mbd_sym_diff(mbd_sym_ctx *ctx, mbd_sym_id e, mbd_sym_id var) {
  if (e == MBD_SYM_NONE || var == MBD_SYM_NONE) {
    return MBD_SYM_NONE;
  }
  if (!sym_valid(ctx, e)) {
    return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_BAD_ID, "diff", (int)e);
  }
  if (!sym_valid(ctx, var) || NODE(ctx, var)->op != MBD_SYM_VAR) {
    return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_DIFF_VAR);
  }
  size_t nn = (size_t)ctx->nnodes + 1;
  diff_state D = {ctx,
                  var,
                  malloc(sizeof(int32_t) * nn),
                  malloc(sizeof(int32_t) * nn),
                  malloc(sizeof(int32_t) * nn),
                  calloc(nn, 1),
                  calloc(nn, 1),
                  ctx->nnodes};
  mbd_sym_id r = MBD_SYM_NONE;
  int32_t *order = NULL;
  int norder = D.memo && D.fac && D.child && D.link && D.dep ? sym_topo(ctx, 1, &e, &order) : -1;
  if (norder < 0) {
    r = SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
  } else {
    // which nodes depend on the variable (arguments before their users)
    for (int i = 0; i < norder; i++) {
      mbd_sym_id id = order[i];
      uint8_t dp = id == var;
      for (int k = 0; k < NODE(ctx, id)->nargs && !dp && NODE(ctx, id)->op != MBD_SYM_VAR; k++) {
        dp = D.dep[ARG(ctx, id, k)];
      }
      D.dep[id] = dp;
    }
    memset(D.memo, 0xff, sizeof(int32_t) * (size_t)D.n0);
    r = d_iter(&D, e);
  }
  free(order);
  free(D.memo);
  free(D.fac);
  free(D.child);
  free(D.link);
  free(D.dep);
  return r;
}

/* ---- substitution ------------------------------------------------------------------------------
 */

typedef struct subs_state {
  mbd_sym_ctx *ctx;
  int32_t *memo; /* memo[id]: result for node id (< n0), -1 unknown; preset for substituted vars */
  int n0;
} subs_state;

/* node e with its arguments replaced by their memo (every argument done): the result for e */
static mbd_sym_id subs_node(subs_state *S, mbd_sym_id e) {
  mbd_sym_ctx *ctx = S->ctx;
  const sym_node *n = NODE(ctx, e);
  if (n->op == MBD_SYM_CONST || n->op == MBD_SYM_VAR) {
    return e;
  }
  int m = n->nargs;
  int32_t small[8];
  int32_t *a = m <= 8 ? small : malloc(sizeof *a * (size_t)m);
  if (!a) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.subs");
  }
  int changed = 0;
  for (int i = 0; i < m; i++) {
    mbd_sym_id ai = ARG(ctx, e, i);
    a[i] = S->memo[ai];
    changed |= a[i] != ai;
  }
  mbd_sym_id r = changed ? mbd_sym_apply(ctx, (mbd_sym_op)NODE(ctx, e)->op, m, a) : e;
  if (a != small) {
    free(a);
  }
  return r;
}

/* the substitution over the nodes below e in post-order (arguments first, as a recursive walk
 * would create them), iteratively: no depth limit */
static mbd_sym_id s(subs_state *S, mbd_sym_id e) {
  mbd_sym_ctx *ctx = S->ctx;
  int32_t *order = NULL;
  int n = sym_topo(ctx, 1, &e, &order);
  if (n < 0) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.subs");
  }
  mbd_sym_id r = MBD_SYM_NONE;
  for (int i = 0; i < n; i++) {
    mbd_sym_id id = order[i];
    if (S->memo[id] >= 0) {
      continue;  // a substituted variable
    }
    r = subs_node(S, id);
    if (r < 0) {
      free(order);
      return r;
    }
    S->memo[id] = r;
  }
  r = S->memo[e];
  free(order);
  return r;
}

mbd_sym_id mbd_sym_subs(mbd_sym_ctx *ctx, mbd_sym_id e, int n, const mbd_sym_id *vars,
                        const mbd_sym_id *repl) {
  if (e == MBD_SYM_NONE) {
    return e;
  }
  if (!sym_valid(ctx, e)) {
    return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_BAD_ID, "subs", (int)e);
  }
  for (int i = 0; i < n; i++) {
    if (repl[i] == MBD_SYM_NONE || vars[i] == MBD_SYM_NONE) {
      return MBD_SYM_NONE;
    }
    if (!sym_valid(ctx, vars[i]) || NODE(ctx, vars[i])->op != MBD_SYM_VAR) {
      return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_SUBS_VAR, i + 1);
    }
    if (!sym_valid(ctx, repl[i])) {
      return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_SUBS_ID, (int)repl[i]);
    }
  }
  subs_state S = {ctx, malloc(sizeof(int32_t) * ((size_t)ctx->nnodes + 1)), ctx->nnodes};
  if (!S.memo) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.subs");
  }
  memset(S.memo, 0xff, sizeof(int32_t) * (size_t)S.n0);
  for (int i = 0; i < n; i++) {
    S.memo[vars[i]] = repl[i];
  }
  mbd_sym_id r = s(&S, e);
  free(S.memo);
  return r;
}

/* ---- Jacobian ----------------------------------------------------------------------------------
 */

int mbd_sym_jacobian(mbd_sym_ctx *ctx, int nf, const mbd_sym_id *f, int nv, const mbd_sym_id *v,
                     mbd_sym_id *J, mbd_error *err) {
  for (int i = 0; i < nf; i++) {
    for (int j = 0; j < nv; j++) {
      J[i * nv + j] = mbd_sym_diff(ctx, f[i], v[j]);
      if (J[i * nv + j] < 0) {
        const mbd_error *ce = mbd_sym_ctx_error(ctx);
        return MBD_FAIL(err, ce->code ? ce->code : MBD_E_INPUT, MSG_SYM_JACOBIAN, i + 1, j + 1,
                        ce->code ? ce->msg : "invalid expression");
      }
    }
  }
  return MBD_OK;
}
