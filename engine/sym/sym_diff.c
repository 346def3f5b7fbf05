/* symbolic expressions: exact differentiation, substitution, Jacobians */
#include <stdlib.h>
#include <string.h>

#include "sym_impl.h"
#include "sym_msg.h"

/* ---- differentiation ---------------------------------------------------------------------------
 */

typedef struct diff_state {
  mbd_sym_ctx *ctx;
  mbd_sym_id var; /* the variable */
  int32_t *memo;  /* memo[id] = derivative of node id (< n0), -1 not yet known */
  int n0;         /* number of nodes when the call started */
} diff_state;

static mbd_sym_id d(diff_state *D, mbd_sym_id e);

static int is_zero(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  return ctx->nodes[e].op == MBD_SYM_CONST && ctx->nodes[e].value == 0.0;
}

/* derivative of a product: sum over i of f_i' · prod_{j != i} f_j */
static mbd_sym_id d_mul(diff_state *D, mbd_sym_id e) {
  mbd_sym_ctx *ctx = D->ctx;
  int n = NODE(ctx, e)->nargs;
  int32_t *terms = malloc(sizeof *terms * (size_t)n);
  int32_t *f = malloc(sizeof *f * (size_t)n);
  mbd_sym_id r = MBD_SYM_NONE;
  if (!terms || !f) {
    SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
    goto done;
  }
  int nt = 0;
  for (int i = 0; i < n; i++) {
    mbd_sym_id di = d(D, ARG(ctx, e, i));
    if (di < 0) {
      goto done;
    }
    if (is_zero(ctx, di)) {
      continue;
    }
    for (int j = 0; j < n; j++) {
      f[j] = j == i ? di : ARG(ctx, e, j);
    }
    terms[nt] = mbd_sym_mul_n(ctx, n, f);
    if (terms[nt] < 0) {
      goto done;
    }
    nt++;
  }
  r = mbd_sym_add_n(ctx, nt, terms);
done:
  free(terms);
  free(f);
  return r;
}

/* derivative of base^exponent */
static mbd_sym_id d_pow(diff_state *D, mbd_sym_id e) {
  mbd_sym_ctx *ctx = D->ctx;
  mbd_sym_id b = ARG(ctx, e, 0), x = ARG(ctx, e, 1);
  mbd_sym_id db = d(D, b), dx = d(D, x);
  if (db < 0 || dx < 0) {
    return MBD_SYM_NONE;
  }
  if (is_zero(ctx, dx)) {
    if (is_zero(ctx, db)) {
      return mbd_sym_const(ctx, 0.0);
    }
    /* n · b^(n-1) · b' (n constant or independent of the variable) */
    mbd_sym_id f[3] = {x, mbd_sym_pow(ctx, b, mbd_sym_add(ctx, x, mbd_sym_const(ctx, -1.0))), db};
    return mbd_sym_mul_n(ctx, 3, f);
  }
  /* b^x · (x' log b + x b'/b) */
  mbd_sym_id t1 = mbd_sym_mul(ctx, dx, mbd_sym_log(ctx, b));
  mbd_sym_id f[3] = {x, db, mbd_sym_powc(ctx, b, -1.0)};
  mbd_sym_id t2 = is_zero(ctx, db) ? mbd_sym_const(ctx, 0.0) : mbd_sym_mul_n(ctx, 3, f);
  return mbd_sym_mul(ctx, e, mbd_sym_add(ctx, t1, t2));
}

static mbd_sym_id d_node(diff_state *D, mbd_sym_id e) {
  mbd_sym_ctx *ctx = D->ctx;
  /* copy what is needed: creating nodes may move ctx->nodes */
  const int op = NODE(ctx, e)->op, nargs = NODE(ctx, e)->nargs;
  switch (op) {
    case MBD_SYM_CONST:
      return mbd_sym_const(ctx, 0.0);
    case MBD_SYM_VAR:
      return mbd_sym_const(ctx, e == D->var ? 1.0 : 0.0);
    case MBD_SYM_ADD: {
      int m = nargs;
      int32_t *t = malloc(sizeof *t * (size_t)m);
      if (!t) {
        return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
      }
      mbd_sym_id r = MBD_SYM_NONE;
      int ok = 1;
      for (int i = 0; i < m && ok; i++) {
        t[i] = d(D, ARG(ctx, e, i));
        ok = t[i] >= 0;
      }
      if (ok) {
        r = mbd_sym_add_n(ctx, m, t);
      }
      free(t);
      return r;
    }
    case MBD_SYM_MUL:
      return d_mul(D, e);
    case MBD_SYM_POW:
      return d_pow(D, e);
    case MBD_SYM_SIGN:
      return mbd_sym_const(ctx, 0.0); /* piecewise constant */
    case MBD_SYM_ATAN2: {
      /* d atan2(y, x) = (x y' - y x') / (x^2 + y^2) */
      mbd_sym_id y = ARG(ctx, e, 0), x = ARG(ctx, e, 1);
      mbd_sym_id dy = d(D, y), dx = d(D, x);
      if (dy < 0 || dx < 0) {
        return MBD_SYM_NONE;
      }
      if (is_zero(ctx, dy) && is_zero(ctx, dx)) {
        return mbd_sym_const(ctx, 0.0);
      }
      mbd_sym_id num = mbd_sym_sub(ctx, mbd_sym_mul(ctx, x, dy), mbd_sym_mul(ctx, y, dx));
      mbd_sym_id den = mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2.0), mbd_sym_powc(ctx, y, 2.0));
      return mbd_sym_div(ctx, num, den);
    }
    case MBD_SYM_IFELSE: {
      mbd_sym_id da = d(D, ARG(ctx, e, 1)), db = d(D, ARG(ctx, e, 2));
      return mbd_sym_ifelse(ctx, ARG(ctx, e, 0), da, db);
    }
    default:
      break;
  }
  /* one-argument functions: f'(u) · u' */
  mbd_sym_id u = ARG(ctx, e, 0);
  mbd_sym_id du = d(D, u);
  if (du < 0 || is_zero(ctx, du)) {
    return du;
  }
  mbd_sym_id fp = MBD_SYM_NONE;
  switch (op) {
    case MBD_SYM_SIN:
      fp = mbd_sym_cos(ctx, u);
      break;
    case MBD_SYM_COS:
      fp = mbd_sym_neg(ctx, mbd_sym_sin(ctx, u));
      break;
    case MBD_SYM_TAN: /* 1 + tan^2 shares the tan node */
      fp = mbd_sym_add(ctx, mbd_sym_const(ctx, 1.0), mbd_sym_powc(ctx, e, 2.0));
      break;
    case MBD_SYM_EXP:
      fp = e;
      break;
    case MBD_SYM_LOG:
      fp = mbd_sym_powc(ctx, u, -1.0);
      break;
    case MBD_SYM_SQRT: /* 0.5 / sqrt(u) shares the sqrt node */
      fp = mbd_sym_mul(ctx, mbd_sym_const(ctx, 0.5), mbd_sym_powc(ctx, e, -1.0));
      break;
    case MBD_SYM_ABS:
      fp = mbd_sym_sign(ctx, u);
      break;
    default:
      return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_DIFF_KIND, op);
  }
  return mbd_sym_mul(ctx, fp, du);
}

static mbd_sym_id d(diff_state *D, mbd_sym_id e) {
  if (e < D->n0 && D->memo[e] >= 0) {
    return D->memo[e];
  }
  mbd_sym_id r = d_node(D, e);
  if (r >= 0 && e < D->n0) {
    D->memo[e] = r;
  }
  return r;
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
  diff_state D = {ctx, var, malloc(sizeof(int32_t) * ((size_t)ctx->nnodes + 1)), ctx->nnodes};
  if (!D.memo) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.diff");
  }
  memset(D.memo, 0xff, sizeof(int32_t) * (size_t)D.n0);
  mbd_sym_id r = d(&D, e);
  free(D.memo);
  return r;
}

/* ---- substitution ------------------------------------------------------------------------------
 */

typedef struct subs_state {
  mbd_sym_ctx *ctx;
  int32_t *memo; /* memo[id]: result for node id (< n0), -1 unknown; preset for substituted vars */
  int n0;
} subs_state;

static mbd_sym_id s(subs_state *S, mbd_sym_id e) {
  mbd_sym_ctx *ctx = S->ctx;
  if (S->memo[e] >= 0) {
    return S->memo[e];
  }
  const sym_node *n = NODE(ctx, e);
  mbd_sym_id r = e;
  if (n->op != MBD_SYM_CONST && n->op != MBD_SYM_VAR) {
    int m = n->nargs;
    int32_t small[8];
    int32_t *a = m <= 8 ? small : malloc(sizeof *a * (size_t)m);
    if (!a) {
      return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.subs");
    }
    int changed = 0;
    for (int i = 0; i < m; i++) {
      mbd_sym_id ai = ARG(ctx, e, i);
      a[i] = s(S, ai);
      if (a[i] < 0) {
        r = MBD_SYM_NONE;
        break;
      }
      changed |= a[i] != ai;
    }
    if (r >= 0 && changed) {
      r = mbd_sym_apply(ctx, (mbd_sym_op)NODE(ctx, e)->op, m, a);
    }
    if (a != small) {
      free(a);
    }
  }
  if (r >= 0) {
    S->memo[e] = r;
  }
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
