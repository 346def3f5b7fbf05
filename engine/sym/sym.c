/* symbolic expressions: the context, hash-consing and the simplifying constructors */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym_impl.h"
#include "sym_msg.h"

/* ---- context -----------------------------------------------------------------------------------
 */

mbd_sym_ctx *mbd_sym_ctx_new(void) {
  mbd_sym_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    return NULL;
  }
  ctx->ctable = 256;
  ctx->table = malloc(sizeof *ctx->table * (size_t)ctx->ctable);
  if (!ctx->table) {
    free(ctx);
    return NULL;
  }
  memset(ctx->table, 0xff, sizeof *ctx->table * (size_t)ctx->ctable);
  ctx->limit = mbd_memory_limit();
  mbd_error_clear(&ctx->err);
  return ctx;
}

void mbd_sym_ctx_free(mbd_sym_ctx *ctx) {
  if (!ctx) {
    return;
  }
  free(ctx->nodes);
  free(ctx->args);
  free(ctx->table);
  free(ctx->names);
  free(ctx);
}

const mbd_error *mbd_sym_ctx_error(const mbd_sym_ctx *ctx) { return &ctx->err; }

void mbd_sym_ctx_clear_error(mbd_sym_ctx *ctx) { mbd_error_clear(&ctx->err); }

int mbd_sym_count(const mbd_sym_ctx *ctx) { return ctx->nnodes; }

mbd_sym_id sym_fail(mbd_sym_ctx *ctx, int code, const char *func, int line, const char *fmt, ...) {
  ctx->err.code = code;
  ctx->err.func = func;
  ctx->err.line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->err.msg, sizeof ctx->err.msg, fmt, ap);
  va_end(ap);
  return MBD_SYM_NONE;
}

/* grow *p (element size sz, capacity *cap) to hold need elements; 0 ok, -1 out of memory */
static int grow(void **p, int *cap, int need, size_t sz) {
  if (need <= *cap) {
    return 0;
  }
  int c = *cap ? *cap : 64;
  while (c < need) {
    c *= 2;
  }
  void *q = realloc(*p, sz * (size_t)c);
  if (!q) {
    return -1;
  }
  *p = q;
  *cap = c;
  return 0;
}

/* ---- hash-consing ------------------------------------------------------------------------------
 */

static uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t hash_key(int op, int nargs, const int32_t *args, double value, const char *name) {
  uint32_t h = mix(2166136261u, (uint32_t)op);
  h = mix(h, (uint32_t)nargs);
  for (int i = 0; i < nargs; i++) {
    h = mix(h, (uint32_t)args[i]);
  }
  if (op == MBD_SYM_CONST) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    h = mix(h, (uint32_t)bits);
    h = mix(h, (uint32_t)(bits >> 32));
  }
  if (name) {
    for (const char *s = name; *s; s++) {
      h = mix(h, (uint8_t)*s);
    }
  }
  /* avalanche (MurmurHash3's finalizer): keys that differ only in a small argument id (sin of
   * consecutive nodes) would otherwise get neighbouring hashes, and linear probing would scan
   * ever longer clusters — quadratic building of a deep expression */
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

static int same_key(const mbd_sym_ctx *ctx, const sym_node *n, int op, int nargs,
                    const int32_t *args, double value, const char *name) {
  if (n->op != op || n->nargs != nargs) {
    return 0;
  }
  if (op == MBD_SYM_CONST) {
    return memcmp(&n->value, &value, sizeof value) == 0;
  }
  if (op == MBD_SYM_VAR) {
    return strcmp(ctx->names + n->adr, name) == 0;
  }
  return nargs == 0 || memcmp(ctx->args + n->adr, args, sizeof *args * (size_t)nargs) == 0;
}

/* slot of the key in the table: the node's id if present (returned in *found), else the empty slot
 */
static int probe(const mbd_sym_ctx *ctx, uint32_t h, int op, int nargs, const int32_t *args,
                 double value, const char *name, mbd_sym_id *found) {
  uint32_t mask = (uint32_t)ctx->ctable - 1;
  for (uint32_t i = h & mask;; i = (i + 1) & mask) {
    int32_t id = ctx->table[i];
    if (id < 0) {
      *found = MBD_SYM_NONE;
      return (int)i;
    }
    const sym_node *n = &ctx->nodes[id];
    if (n->hash == h && same_key(ctx, n, op, nargs, args, value, name)) {
      *found = id;
      return (int)i;
    }
  }
}

static int rehash(mbd_sym_ctx *ctx) {
  int c = ctx->ctable * 2;
  int32_t *t = malloc(sizeof *t * (size_t)c);
  if (!t) {
    return -1;
  }
  memset(t, 0xff, sizeof *t * (size_t)c);
  uint32_t mask = (uint32_t)c - 1;
  for (int id = 0; id < ctx->nnodes; id++) {
    uint32_t i = ctx->nodes[id].hash & mask;
    while (t[i] >= 0) {
      i = (i + 1) & mask;
    }
    t[i] = id;
  }
  free(ctx->table);
  ctx->table = t;
  ctx->ctable = c;
  return 0;
}

/* the node with this key, created when new (no simplification here) */
static mbd_sym_id intern(mbd_sym_ctx *ctx, int op, int nargs, const int32_t *args, double value,
                         const char *name, int index) {
  uint32_t h = hash_key(op, nargs, args, value, name);
  mbd_sym_id found;
  int slot = probe(ctx, h, op, nargs, args, value, name, &found);
  if (found >= 0) {
    return found;
  }
  /* the context's tables after this node, counted at twice their size (growth by doubling and
   * the copy while reallocating): refuse beyond the memory limit or the int counters' range */
  double bytes = 2.0 * ((double)(ctx->nnodes + 1) * (sizeof *ctx->nodes + 2 * sizeof *ctx->table) +
                        (double)(ctx->nargs + nargs) * sizeof *ctx->args);
  if ((ctx->limit > 0 && bytes > ctx->limit) || ctx->nnodes >= INT32_MAX / 4 ||
      (double)ctx->nargs + nargs >= INT32_MAX / 4) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_TOO_LARGE, bytes / 1e9, ctx->nnodes, ctx->nargs,
                    ctx->limit / 1e9);
  }
  /* args may point into ctx->args, which may move when it grows */
  ptrdiff_t inside = -1;
  if (args && ctx->args && args >= ctx->args && args < ctx->args + ctx->nargs) {
    inside = args - ctx->args;
  }
  if (grow((void **)&ctx->nodes, &ctx->cnodes, ctx->nnodes + 1, sizeof *ctx->nodes) ||
      grow((void **)&ctx->args, &ctx->cargs, ctx->nargs + nargs, sizeof *ctx->args)) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM_NODES, ctx->nnodes);
  }
  sym_node *n = &ctx->nodes[ctx->nnodes];
  n->op = (uint8_t)op;
  n->nargs = nargs;
  n->index = -1;
  n->value = op == MBD_SYM_CONST ? value : 0.0;
  n->hash = h;
  n->adr = ctx->nargs;
  if (op == MBD_SYM_VAR && name) {
    int len = (int)strlen(name) + 1;
    if (grow((void **)&ctx->names, &ctx->cnames, ctx->nnames + len, 1)) {
      return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM_TABLE, "variable names");
    }
    memcpy(ctx->names + ctx->nnames, name, (size_t)len);
    n->adr = ctx->nnames;
    n->index = index;
    ctx->nnames += len;
  } else if (nargs > 0) {
    if (inside >= 0) {
      args = ctx->args + inside;
    }
    memcpy(ctx->args + ctx->nargs, args, sizeof *args * (size_t)nargs);
    ctx->nargs += nargs;
  }
  mbd_sym_id id = ctx->nnodes++;
  ctx->table[slot] = id;
  if (ctx->nnodes * 2 > ctx->ctable && rehash(ctx)) {
    ctx->nnodes--;
    ctx->nargs -= op == MBD_SYM_VAR ? 0 : nargs;
    ctx->table[slot] = -1;
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM_TABLE, "hash table");
  }
  return id;
}

/* ---- constants and variables -------------------------------------------------------------------
 */

mbd_sym_id mbd_sym_const(mbd_sym_ctx *ctx, double value) {
  if (isnan(value)) {
    value = NAN;
  } else if (value == 0.0) {
    value = 0.0; /* -0.0 becomes 0.0 */
  }
  return intern(ctx, MBD_SYM_CONST, 0, NULL, value, NULL, -1);
}

mbd_sym_id mbd_sym_find_var(const mbd_sym_ctx *ctx, const char *name) {
  if (!name) {
    return MBD_SYM_NONE;
  }
  mbd_sym_id found;
  probe(ctx, hash_key(MBD_SYM_VAR, 0, NULL, 0.0, name), MBD_SYM_VAR, 0, NULL, 0.0, name, &found);
  return found;
}

mbd_sym_id mbd_sym_var(mbd_sym_ctx *ctx, const char *name, int index) {
  if (!name || !*name) {
    return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_VAR_EMPTY);
  }
  mbd_sym_id id = mbd_sym_find_var(ctx, name);
  if (id >= 0) {
    if (index >= 0 && NODE(ctx, id)->index != index) {
      return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_VAR_INDEX, name, NODE(ctx, id)->index, index);
    }
    return id;
  }
  if (index < 0) {
    index = ctx->nslots;
  }
  id = intern(ctx, MBD_SYM_VAR, 0, NULL, 0.0, name, index);
  if (id >= 0 && index + 1 > ctx->nslots) {
    ctx->nslots = index + 1;
  }
  return id;
}

/* ---- helpers -----------------------------------------------------------------------------------
 */

static int is_const(const mbd_sym_ctx *ctx, mbd_sym_id e, double *v) {
  if (ctx->nodes[e].op == MBD_SYM_CONST) {
    *v = ctx->nodes[e].value;
    return 1;
  }
  return 0;
}

/* check ids: MBD_SYM_NONE propagates silently, any other bad id is recorded */
static int check_ids(mbd_sym_ctx *ctx, int n, const mbd_sym_id *ids, const char *what) {
  for (int i = 0; i < n; i++) {
    if (ids[i] == MBD_SYM_NONE) {
      return -1;
    }
    if (!sym_valid(ctx, ids[i])) {
      SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_BAD_ID, what, (int)ids[i]);
      return -1;
    }
  }
  return 0;
}

/* a (base or term, coefficient or exponent) pair */
typedef struct pair {
  int32_t id;
  double c;
} pair;

/* the room of a flattened sum or product: the pairs of its cap operands (in small when they
 * fit) and the interned operands out (cap + 1); pairs_alloc returns 0, or −1 holding nothing */
static void pairs_free(pair *small, pair *p, int32_t *out) {
  if (p != small) {
    free(p);
  }
  free(out);
}

static int pairs_alloc(int cap, pair *small, pair **p, int32_t **out) {
  *p = cap <= 32 ? small : malloc(sizeof **p * (size_t)(cap > 0 ? cap : 1));
  *out = malloc(sizeof **out * (size_t)(cap + 1));
  if (!*p || !*out) {
    pairs_free(small, *p, *out);
    *p = NULL;
    *out = NULL;
    return -1;
  }
  return 0;
}

static int cmp_pair(const void *a, const void *b) {
  int32_t x = ((const pair *)a)->id, y = ((const pair *)b)->id;
  return (x > y) - (x < y);
}

/* operand order inside sums and products: constants first (placed by the caller), then by id */
static int cmp_id(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* ---- sums --------------------------------------------------------------------------------------
 */

/* split term t into coefficient · base (base without constant factor) */
static mbd_sym_id split_term(mbd_sym_ctx *ctx, mbd_sym_id t, double *c) {
  const sym_node *n = NODE(ctx, t);
  double v;
  if (n->op == MBD_SYM_MUL && is_const(ctx, ARG(ctx, t, 0), &v)) {
    *c = v;
    if (n->nargs == 2) {
      return ARG(ctx, t, 1);
    }
    /* the remaining factors are already canonical: intern them directly */
    return intern(ctx, MBD_SYM_MUL, n->nargs - 1, ctx->args + n->adr + 1, 0.0, NULL, -1);
  }
  *c = 1.0;
  return t;
}

/* c · base for a non-constant base without coefficient, c not 0, 1 or NaN */
static mbd_sym_id scale(mbd_sym_ctx *ctx, double c, mbd_sym_id base) {
  mbd_sym_id k = mbd_sym_const(ctx, c);
  if (k < 0) {
    return k;
  }
  const sym_node *n = NODE(ctx, base);
  if (n->op == MBD_SYM_MUL) {
    int m = n->nargs;
    int32_t small[16];
    int32_t *a = m + 1 <= 16 ? small : malloc(sizeof *a * (size_t)(m + 1));
    if (!a) {
      return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
    }
    a[0] = k;
    memcpy(a + 1, ctx->args + n->adr, sizeof *a * (size_t)m);
    mbd_sym_id r = intern(ctx, MBD_SYM_MUL, m + 1, a, 0.0, NULL, -1);
    if (a != small) {
      free(a);
    }
    return r;
  }
  int32_t a[2] = {k, base};
  return intern(ctx, MBD_SYM_MUL, 2, a, 0.0, NULL, -1);
}

/* 1 when node e (a sum or a product) has an operand of kind op: a long sum (product) kept whole
 * inside it (SYM_FLAT_MAX) */
static int has_nested(const mbd_sym_ctx *ctx, mbd_sym_id e, int op) {
  for (int j = 0; j < NODE(ctx, e)->nargs; j++) {
    if (NODE(ctx, ARG(ctx, e, j))->op == op) {
      return 1;
    }
  }
  return 0;
}

/* the operands term t brings into a sum: a sum S of at most SYM_FLAT_MAX operands, or c·S (built
 * instead of distributing c when S holds a long sum, so that S − S still cancels), gives S's
 * operands, each times *c; returns their count with *s = S, or 0 when t enters as itself */
static int sum_parts(const mbd_sym_ctx *ctx, mbd_sym_id t, double *c, mbd_sym_id *s) {
  const sym_node *n = NODE(ctx, t);
  double v;
  *c = 1.0;
  *s = t;
  if (n->op == MBD_SYM_ADD && n->nargs <= SYM_FLAT_MAX) {
    return n->nargs;
  }
  if (n->op == MBD_SYM_MUL && n->nargs == 2 && is_const(ctx, ARG(ctx, t, 0), &v)) {
    mbd_sym_id b = ARG(ctx, t, 1);
    if (NODE(ctx, b)->op == MBD_SYM_ADD && NODE(ctx, b)->nargs <= SYM_FLAT_MAX) {
      *c = v;
      *s = b;
      return NODE(ctx, b)->nargs;
    }
  }
  return 0;
}

mbd_sym_id mbd_sym_add_n(mbd_sym_ctx *ctx, int n, const mbd_sym_id *terms) {
  if (check_ids(ctx, n, terms, "add")) {
    return MBD_SYM_NONE;
  }
  /* flatten nested sums (up to SYM_FLAT_MAX operands); count first */
  int cap = 0;
  for (int i = 0; i < n; i++) {
    double c;
    mbd_sym_id S;
    int k = sum_parts(ctx, terms[i], &c, &S);
    cap += k > 0 ? k : 1;
  }
  pair small[32], *p;
  int32_t *out;
  if (pairs_alloc(cap, small, &p, &out)) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
  }
  double csum = 0.0;
  int np = 0;
  mbd_sym_id r = MBD_SYM_NONE;
  for (int i = 0; i < n; i++) {
    mbd_sym_id t = terms[i], S;
    double c;
    int k = sum_parts(ctx, t, &c, &S);
    for (int j = 0; j < (k > 0 ? k : 1); j++) {
      mbd_sym_id u = k > 0 ? ARG(ctx, S, j) : t;
      double v;
      if (is_const(ctx, u, &v)) {
        csum += c * v;
        continue;
      }
      p[np].id = split_term(ctx, u, &p[np].c);
      if (p[np].id < 0) {
        goto done;
      }
      p[np].c *= c;
      np++;
    }
  }
  /* combine like terms */
  qsort(p, (size_t)np, sizeof *p, cmp_pair);
  int nout = 0, nan = isnan(csum);
  for (int i = 0; i < np;) {
    double c = p[i].c;
    int j = i + 1;
    while (j < np && p[j].id == p[i].id) {
      c += p[j++].c;
    }
    nan |= isnan(c);
    if (c != 0.0) {
      out[nout] = c == 1.0 ? p[i].id : scale(ctx, c, p[i].id);
      if (out[nout] < 0) {
        goto done;
      }
      nout++;
    }
    i = j;
  }
  if (nan) {
    r = mbd_sym_const(ctx, NAN);
    goto done;
  }
  qsort(out, (size_t)nout, sizeof *out, cmp_id);
  if (csum != 0.0) {
    /* the constant goes first */
    memmove(out + 1, out, sizeof *out * (size_t)nout);
    out[0] = mbd_sym_const(ctx, csum);
    if (out[0] < 0) {
      goto done;
    }
    nout++;
  }
  if (nout == 0) {
    r = mbd_sym_const(ctx, 0.0);
  } else if (nout == 1) {
    r = out[0];
  } else {
    r = intern(ctx, MBD_SYM_ADD, nout, out, 0.0, NULL, -1);
  }
done:
  pairs_free(small, p, out);
  return r;
}

/* ---- products ----------------------------------------------------------------------------------
 */

/* 1 when e is an integer exponent for which (x·y)^e = x^e·y^e is applied (mbd_sym_pow) */
static int int_exponent(double e) { return e == floor(e) && fabs(e) < 1e15; }

/* the factors t brings into a product: a product P of at most SYM_FLAT_MAX factors, or P^e for an
 * integer e (built instead of distributing e when P holds a long product, so that P/P still
 * cancels), gives P's factors, each to the power *e; returns their count with *s = P, or 0 when t
 * enters as itself */
static int prod_parts(const mbd_sym_ctx *ctx, mbd_sym_id t, double *e, mbd_sym_id *s) {
  const sym_node *n = NODE(ctx, t);
  double v;
  *e = 1.0;
  *s = t;
  if (n->op == MBD_SYM_MUL && n->nargs <= SYM_FLAT_MAX) {
    return n->nargs;
  }
  if (n->op == MBD_SYM_POW && is_const(ctx, ARG(ctx, t, 1), &v) && int_exponent(v)) {
    mbd_sym_id b = ARG(ctx, t, 0);
    if (NODE(ctx, b)->op == MBD_SYM_MUL && NODE(ctx, b)->nargs <= SYM_FLAT_MAX) {
      *e = v;
      *s = b;
      return NODE(ctx, b)->nargs;
    }
  }
  return 0;
}

mbd_sym_id mbd_sym_mul_n(mbd_sym_ctx *ctx, int n, const mbd_sym_id *factors) {
  if (check_ids(ctx, n, factors, "mul")) {
    return MBD_SYM_NONE;
  }
  int cap = 0;
  for (int i = 0; i < n; i++) {
    double e;
    mbd_sym_id P;
    int k = prod_parts(ctx, factors[i], &e, &P);
    cap += k > 0 ? k : 1;
  }
  pair small[32], *p;
  int32_t *out;
  if (pairs_alloc(cap, small, &p, &out)) {
    return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
  }
  double coef = 1.0;
  int np = 0;
  mbd_sym_id r = MBD_SYM_NONE;
  /* flatten nested products into (base, exponent) pairs */
  for (int i = 0; i < n; i++) {
    mbd_sym_id t = factors[i], P;
    double e;
    int k = prod_parts(ctx, t, &e, &P);
    for (int j = 0; j < (k > 0 ? k : 1); j++) {
      mbd_sym_id u = k > 0 ? ARG(ctx, P, j) : t;
      double v;
      int ki;
      if (is_const(ctx, u, &v)) {
        coef *= e == 1.0 ? v : (sym_small_int(e, &ki) ? sym_powi(v, ki) : pow(v, e));
        continue;
      }
      if (NODE(ctx, u)->op == MBD_SYM_POW && is_const(ctx, ARG(ctx, u, 1), &v)) {
        p[np].id = ARG(ctx, u, 0);
        p[np].c = v * e;
      } else {
        p[np].id = u;
        p[np].c = e;
      }
      np++;
    }
  }
  if (isnan(coef)) {
    r = mbd_sym_const(ctx, NAN);
    goto done;
  }
  if (coef == 0.0) {
    r = mbd_sym_const(ctx, 0.0); /* x·0 = 0 (x assumed finite) */
    goto done;
  }
  /* combine like factors by adding exponents (x/x = 1 assumes x != 0) */
  qsort(p, (size_t)np, sizeof *p, cmp_pair);
  int nout = 0;
  for (int i = 0; i < np;) {
    double e = p[i].c;
    int j = i + 1;
    while (j < np && p[j].id == p[i].id) {
      e += p[j++].c;
    }
    if (e != 0.0) {
      mbd_sym_id f = e == 1.0 ? p[i].id : mbd_sym_powc(ctx, p[i].id, e);
      if (f < 0) {
        goto done;
      }
      double v;
      if (is_const(ctx, f, &v)) { /* cannot happen for non-constant bases, kept for safety */
        coef *= v;
      } else {
        out[nout++] = f;
      }
    }
    i = j;
  }
  for (int i = 0; i < nout; i++) {
    if (NODE(ctx, out[i])->op == MBD_SYM_MUL && NODE(ctx, out[i])->nargs <= SYM_FLAT_MAX) {
      /* (x·y)^a·(x·y)^b gave back a product: flatten it once more */
      out[nout] = mbd_sym_const(ctx, coef);
      r = out[nout] < 0 ? MBD_SYM_NONE : mbd_sym_mul_n(ctx, nout + 1, out);
      goto done;
    }
  }
  if (nout == 0) {
    r = mbd_sym_const(ctx, coef);
    goto done;
  }
  if (coef == 1.0 && nout == 1) {
    r = out[0];
    goto done;
  }
  if (nout == 1 && NODE(ctx, out[0])->op == MBD_SYM_ADD && !has_nested(ctx, out[0], MBD_SYM_ADD)) {
    /* a constant factor is distributed over a sum (not over one holding a long sum: c·S stays,
     * and sums flatten it back, sum_parts) */
    mbd_sym_id s = out[0];
    int m = NODE(ctx, s)->nargs;
    int32_t *t = malloc(sizeof *t * (size_t)m);
    if (!t) {
      r = SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
      goto done;
    }
    mbd_sym_id k = mbd_sym_const(ctx, coef);
    for (int j = 0; j < m && k >= 0; j++) {
      int32_t pr[2] = {k, ARG(ctx, s, j)};
      t[j] = mbd_sym_mul_n(ctx, 2, pr);
      if (t[j] < 0) {
        k = MBD_SYM_NONE;
      }
    }
    r = k < 0 ? MBD_SYM_NONE : mbd_sym_add_n(ctx, m, t);
    free(t);
    goto done;
  }
  qsort(out, (size_t)nout, sizeof *out, cmp_id);
  if (coef != 1.0) {
    memmove(out + 1, out, sizeof *out * (size_t)nout);
    out[0] = mbd_sym_const(ctx, coef);
    if (out[0] < 0) {
      goto done;
    }
    nout++;
  }
  r = intern(ctx, MBD_SYM_MUL, nout, out, 0.0, NULL, -1);
done:
  pairs_free(small, p, out);
  return r;
}

/* ---- binary shorthands -------------------------------------------------------------------------
 */

mbd_sym_id mbd_sym_add(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b) {
  int32_t t[2] = {a, b};
  return mbd_sym_add_n(ctx, 2, t);
}

mbd_sym_id mbd_sym_mul(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b) {
  int32_t t[2] = {a, b};
  return mbd_sym_mul_n(ctx, 2, t);
}

mbd_sym_id mbd_sym_neg(mbd_sym_ctx *ctx, mbd_sym_id a) {
  if (a == MBD_SYM_NONE) {
    return a;
  }
  return mbd_sym_mul(ctx, mbd_sym_const(ctx, -1.0), a);
}

mbd_sym_id mbd_sym_sub(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b) {
  return mbd_sym_add(ctx, a, mbd_sym_neg(ctx, b));
}

mbd_sym_id mbd_sym_div(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b) {
  return mbd_sym_mul(ctx, a, mbd_sym_powc(ctx, b, -1.0));
}

/* ---- powers ------------------------------------------------------------------------------------
 */

mbd_sym_id mbd_sym_pow(mbd_sym_ctx *ctx, mbd_sym_id base, mbd_sym_id exponent) {
  int32_t a[2] = {base, exponent};
  if (check_ids(ctx, 2, a, "pow")) {
    return MBD_SYM_NONE;
  }
  double e, b;
  if (is_const(ctx, exponent, &e)) {
    if (e == 0.0) {
      return mbd_sym_const(ctx, 1.0); /* x^0 = 1, also 0^0 */
    }
    if (e == 1.0) {
      return base;
    }
    int k;
    if (is_const(ctx, base, &b)) {
      if (b == 0.0 && e < 0) {
        return mbd_sym_const(ctx, NAN); /* division by the constant 0 */
      }
      return mbd_sym_const(ctx, sym_small_int(e, &k) ? sym_powi(b, k) : pow(b, e));
    }
    if (e == 0.5) {
      return mbd_sym_sqrt(ctx, base);
    }
    const sym_node *bn = NODE(ctx, base);
    double a0;
    if (int_exponent(e)) {
      /* (x^a)^n = x^(a·n) for integer n */
      if (bn->op == MBD_SYM_POW && is_const(ctx, ARG(ctx, base, 1), &a0)) {
        return mbd_sym_powc(ctx, ARG(ctx, base, 0), a0 * e);
      }
      /* (x·y)^n = x^n·y^n for integer n (not over a product holding a long product: P^n stays,
       * and products flatten it back, prod_parts) */
      if (bn->op == MBD_SYM_MUL && !has_nested(ctx, base, MBD_SYM_MUL)) {
        int m = bn->nargs;
        int32_t *f = malloc(sizeof *f * (size_t)m);
        if (!f) {
          return SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
        }
        int ok = 1;
        for (int j = 0; j < m && ok; j++) {
          f[j] = mbd_sym_pow(ctx, ARG(ctx, base, j), exponent);
          ok = f[j] >= 0;
        }
        mbd_sym_id r = ok ? mbd_sym_mul_n(ctx, m, f) : MBD_SYM_NONE;
        free(f);
        return r;
      }
    }
  } else if (is_const(ctx, base, &b) && b == 1.0) {
    return base; /* 1^y = 1 */
  }
  return intern(ctx, MBD_SYM_POW, 2, a, 0.0, NULL, -1);
}

mbd_sym_id mbd_sym_powc(mbd_sym_ctx *ctx, mbd_sym_id base, double exponent) {
  if (base == MBD_SYM_NONE) {
    return base;
  }
  return mbd_sym_pow(ctx, base, mbd_sym_const(ctx, exponent));
}

/* ---- functions ---------------------------------------------------------------------------------
 */

static double fold1(int op, double x) {
  switch (op) {
    case MBD_SYM_SIN:
      return sin(x);
    case MBD_SYM_COS:
      return cos(x);
    case MBD_SYM_TAN:
      return tan(x);
    case MBD_SYM_EXP:
      return exp(x);
    case MBD_SYM_LOG:
      return log(x);
    case MBD_SYM_SQRT:
      return sqrt(x);
    case MBD_SYM_ABS:
      return fabs(x);
    default:
      return sym_signf(x);
  }
}

static mbd_sym_id fn1(mbd_sym_ctx *ctx, int op, mbd_sym_id a, const char *what) {
  if (check_ids(ctx, 1, &a, what)) {
    return MBD_SYM_NONE;
  }
  double v;
  if (is_const(ctx, a, &v)) {
    return mbd_sym_const(ctx, fold1(op, v));
  }
  const sym_node *n = NODE(ctx, a);
  if (op == MBD_SYM_LOG && n->op == MBD_SYM_EXP) {
    return ARG(ctx, a, 0); /* log(exp(x)) = x */
  }
  if ((op == MBD_SYM_ABS || op == MBD_SYM_SIGN) && n->op == op) {
    return a; /* abs(abs(x)) = abs(x), sign(sign(x)) = sign(x) */
  }
  return intern(ctx, op, 1, &a, 0.0, NULL, -1);
}

mbd_sym_id mbd_sym_sin(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_SIN, a, "sin"); }
mbd_sym_id mbd_sym_cos(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_COS, a, "cos"); }
mbd_sym_id mbd_sym_tan(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_TAN, a, "tan"); }
mbd_sym_id mbd_sym_exp(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_EXP, a, "exp"); }
mbd_sym_id mbd_sym_log(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_LOG, a, "log"); }
mbd_sym_id mbd_sym_sqrt(mbd_sym_ctx *ctx, mbd_sym_id a) {
  return fn1(ctx, MBD_SYM_SQRT, a, "sqrt");
}
mbd_sym_id mbd_sym_abs(mbd_sym_ctx *ctx, mbd_sym_id a) { return fn1(ctx, MBD_SYM_ABS, a, "abs"); }
mbd_sym_id mbd_sym_sign(mbd_sym_ctx *ctx, mbd_sym_id a) {
  return fn1(ctx, MBD_SYM_SIGN, a, "sign");
}

mbd_sym_id mbd_sym_atan2(mbd_sym_ctx *ctx, mbd_sym_id y, mbd_sym_id x) {
  int32_t a[2] = {y, x};
  if (check_ids(ctx, 2, a, "atan2")) {
    return MBD_SYM_NONE;
  }
  double vy, vx;
  if (is_const(ctx, y, &vy) && is_const(ctx, x, &vx)) {
    return mbd_sym_const(ctx, atan2(vy, vx));
  }
  return intern(ctx, MBD_SYM_ATAN2, 2, a, 0.0, NULL, -1);
}

mbd_sym_id mbd_sym_ifelse(mbd_sym_ctx *ctx, mbd_sym_id c, mbd_sym_id a, mbd_sym_id b) {
  int32_t t[3] = {c, a, b};
  if (check_ids(ctx, 3, t, "ifelse")) {
    return MBD_SYM_NONE;
  }
  double v;
  if (is_const(ctx, c, &v)) {
    return v > 0 ? a : b; /* NaN selects b */
  }
  if (a == b) {
    return a;
  }
  return intern(ctx, MBD_SYM_IFELSE, 3, t, 0.0, NULL, -1);
}

mbd_sym_id mbd_sym_apply(mbd_sym_ctx *ctx, mbd_sym_op op, int nargs, const mbd_sym_id *args) {
  static const int8_t arity[MBD_SYM_NOPS] = {
      [MBD_SYM_CONST] = -2, [MBD_SYM_VAR] = -2,  [MBD_SYM_ADD] = -1,  [MBD_SYM_MUL] = -1,
      [MBD_SYM_POW] = 2,    [MBD_SYM_SIN] = 1,   [MBD_SYM_COS] = 1,   [MBD_SYM_TAN] = 1,
      [MBD_SYM_EXP] = 1,    [MBD_SYM_LOG] = 1,   [MBD_SYM_SQRT] = 1,  [MBD_SYM_ABS] = 1,
      [MBD_SYM_SIGN] = 1,   [MBD_SYM_ATAN2] = 2, [MBD_SYM_IFELSE] = 3};
  if ((int)op < 0 || op >= MBD_SYM_NOPS || arity[op] == -2 ||
      (arity[op] >= 0 && arity[op] != nargs) || nargs < 0) {
    return SYM_FAIL(ctx, MBD_E_INPUT, MSG_SYM_BAD_OP, (int)op, nargs);
  }
  switch (op) {
    case MBD_SYM_ADD:
      return mbd_sym_add_n(ctx, nargs, args);
    case MBD_SYM_MUL:
      return mbd_sym_mul_n(ctx, nargs, args);
    case MBD_SYM_POW:
      return mbd_sym_pow(ctx, args[0], args[1]);
    case MBD_SYM_ATAN2:
      return mbd_sym_atan2(ctx, args[0], args[1]);
    case MBD_SYM_IFELSE:
      return mbd_sym_ifelse(ctx, args[0], args[1], args[2]);
    default:
      return fn1(ctx, op, args[0], "apply");
  }
}

/* ---- inspection --------------------------------------------------------------------------------
 */

mbd_sym_op mbd_sym_op_of(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  return sym_valid(ctx, e) ? (mbd_sym_op)ctx->nodes[e].op : MBD_SYM_NOPS;
}

mbd_sym_id mbd_sym_arg(const mbd_sym_ctx *ctx, mbd_sym_id e, int i) {
  if (!sym_valid(ctx, e) || i < 0 || i >= ctx->nodes[e].nargs) {
    return MBD_SYM_NONE;
  }
  return ARG(ctx, e, i);
}

int mbd_sym_is_const(const mbd_sym_ctx *ctx, mbd_sym_id e, double *value) {
  if (!sym_valid(ctx, e) || ctx->nodes[e].op != MBD_SYM_CONST) {
    return 0;
  }
  if (value) {
    *value = ctx->nodes[e].value;
  }
  return 1;
}

const char *mbd_sym_var_name(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  if (!sym_valid(ctx, e) || ctx->nodes[e].op != MBD_SYM_VAR) {
    return NULL;
  }
  return ctx->names + ctx->nodes[e].adr;
}

int mbd_sym_var_index(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  if (!sym_valid(ctx, e) || ctx->nodes[e].op != MBD_SYM_VAR) {
    return -1;
  }
  return ctx->nodes[e].index;
}

int mbd_sym_nslots(const mbd_sym_ctx *ctx) { return ctx->nslots; }

int sym_topo(const mbd_sym_ctx *ctx, int nroots, const mbd_sym_id *roots, int32_t **order) {
  *order = NULL;
  uint8_t *seen = calloc((size_t)ctx->nnodes + 1, 1);
  int32_t *out = malloc(sizeof *out * ((size_t)ctx->nnodes + 1));
  /* explicit stack of (node, next argument) */
  int32_t *stack = malloc(sizeof *stack * 2 * ((size_t)ctx->nnodes + 1));
  if (!seen || !out || !stack) {
    free(seen);
    free(out);
    free(stack);
    return -1;
  }
  int n = 0;
  for (int r = 0; r < nroots; r++) {
    if (!sym_valid(ctx, roots[r]) || seen[roots[r]]) {
      continue;
    }
    int sp = 0;
    stack[0] = roots[r];
    stack[1] = 0;
    seen[roots[r]] = 1;
    sp = 1;
    while (sp > 0) {
      int32_t id = stack[2 * (sp - 1)];
      int32_t k = stack[2 * (sp - 1) + 1];
      const sym_node *nd = &ctx->nodes[id];
      if (nd->op != MBD_SYM_VAR && k < nd->nargs) {
        stack[2 * (sp - 1) + 1] = k + 1;
        int32_t c = ctx->args[nd->adr + k];
        if (!seen[c]) {
          seen[c] = 1;
          stack[2 * sp] = c;
          stack[2 * sp + 1] = 0;
          sp++;
        }
      } else {
        out[n++] = id;
        sp--;
      }
    }
  }
  free(seen);
  free(stack);
  *order = out;
  return n;
}

static int cmp_var_index(const void *a, const void *b, const mbd_sym_ctx *ctx) {
  int x = ctx->nodes[*(const int32_t *)a].index, y = ctx->nodes[*(const int32_t *)b].index;
  return (x > y) - (x < y);
}

int mbd_sym_vars(mbd_sym_ctx *ctx, mbd_sym_id e, int cap, mbd_sym_id *out) {
  if (!sym_valid(ctx, e)) {
    return 0;
  }
  int32_t *order;
  int n = sym_topo(ctx, 1, &e, &order);
  if (n < 0) {
    SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
    return -1;
  }
  int nv = 0;
  for (int i = 0; i < n; i++) {
    if (ctx->nodes[order[i]].op == MBD_SYM_VAR) {
      order[nv++] = order[i];
    }
  }
  /* insertion sort by index (variable lists are short) */
  for (int i = 1; i < nv; i++) {
    int32_t v = order[i];
    int j = i;
    while (j > 0 && cmp_var_index(&order[j - 1], &v, ctx) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = v;
  }
  for (int i = 0; i < nv && i < cap; i++) {
    out[i] = order[i];
  }
  free(order);
  return nv;
}

int mbd_sym_depends(mbd_sym_ctx *ctx, mbd_sym_id e, mbd_sym_id v) {
  if (!sym_valid(ctx, e) || !sym_valid(ctx, v)) {
    return 0;
  }
  int32_t *order;
  int n = sym_topo(ctx, 1, &e, &order);
  if (n < 0) {
    SYM_FAIL(ctx, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym");
    return -1;
  }
  int found = 0;
  for (int i = 0; i < n && !found; i++) {
    found = order[i] == v;
  }
  free(order);
  return found;
}
