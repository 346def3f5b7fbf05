/* symbolic expressions: readable infix text ("x^2 + y^2 - L^2")
 *
 * Precedence, loosest first: sum (1), product and quotient (2), unary minus (3), power (4, right
 * associative), atoms and function calls (5).  A product prints its coefficient first, then the
 * factors with non-negative exponents, then "/" and the factors with negative constant exponents.
 * A sum prints its positive terms, then its negative ones as "- term", then its constant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym_impl.h"

#define PRINT_LIMIT (1u << 20) /* longest text produced before "..." */

typedef struct sbuf {
  char *p;
  size_t n, cap;
  int full; /* the limit was reached */
  int nomem;
  const int32_t *key; /* key[id]: smallest variable index in node id (print order of operands) */
} sbuf;

/* operands of node e in print order: stable by the smallest variable index they contain, so
 * x^2 + y^2 prints in the order the variables were made, whatever order the terms were */
static int32_t *print_order(const mbd_sym_ctx *ctx, const sbuf *b, mbd_sym_id e, int32_t *small,
                            int nsmall) {
  int m = NODE(ctx, e)->nargs;
  int32_t *o = m <= nsmall ? small : malloc(sizeof *o * (size_t)m);
  if (!o) {
    return NULL;
  }
  for (int i = 0; i < m; i++) {
    int32_t t = ARG(ctx, e, i);
    int j = i;
    /* a constant (a product's coefficient) stays first */
    while (j > 0 && NODE(ctx, o[j - 1])->op != MBD_SYM_CONST && b->key[o[j - 1]] > b->key[t]) {
      o[j] = o[j - 1];
      j--;
    }
    o[j] = t;
  }
  return o;
}

static void put(sbuf *b, const char *s) {
  size_t len = strlen(s);
  if (b->full || b->nomem) {
    return;
  }
  if (b->n + len > PRINT_LIMIT) {
    b->full = 1;
    return;
  }
  if (b->n + len + 1 > b->cap) {
    size_t c = b->cap ? b->cap : 64;
    while (c < b->n + len + 1) {
      c *= 2;
    }
    char *q = realloc(b->p, c);
    if (!q) {
      b->nomem = 1;
      return;
    }
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, s, len + 1);
  b->n += len;
}

/* shortest text that reads back as v */
static void put_num(sbuf *b, double v) {
  char s[40];
  if (isnan(v)) {
    put(b, "nan");
    return;
  }
  if (isinf(v)) {
    put(b, v > 0 ? "inf" : "-inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 1e15) {
    snprintf(s, sizeof s, "%.0f", v);
  } else {
    for (int p = 1; p <= 17; p++) {
      snprintf(s, sizeof s, "%.*g", p, v);
      if (strtod(s, NULL) == v) {
        break;
      }
    }
  }
  put(b, s);
}

/* The printer is iterative: a stack of pending pieces (text, a number, a node to print with the
 * precedence its place needs, a product to print with a sign), so the depth of an expression
 * (sin(sin(...)) 10⁵ deep) never reaches the C stack.  Expanding a node pushes its pieces in
 * reverse order; each piece is printed when popped. */
typedef enum { PIECE_STR, PIECE_NUM, PIECE_NODE, PIECE_MUL } piece_kind;

typedef struct piece {
  uint8_t kind;       /* piece_kind */
  int8_t prec;        /* PIECE_NODE: the least precedence printed without parentheses */
  mbd_sym_id id;      /* PIECE_NODE, PIECE_MUL */
  double num;         /* PIECE_NUM: the value; PIECE_MUL: the sign of the coefficient */
  const char *str;    /* PIECE_STR: static text or a variable's name (the context is not changed) */
} piece;

typedef struct pstack {
  piece *p;
  size_t n, cap;
} pstack;

static void push(sbuf *b, pstack *st, piece pc) {
  if (b->nomem) {
    return;
  }
  if (st->n == st->cap) {
    size_t c = st->cap ? 2 * st->cap : 256;
    piece *q = realloc(st->p, c * sizeof *q);
    if (!q) {
      b->nomem = 1;
      return;
    }
    st->p = q;
    st->cap = c;
  }
  st->p[st->n++] = pc;
}

static void push_str(sbuf *b, pstack *st, const char *s) {
  push(b, st, (piece){.kind = PIECE_STR, .str = s});
}
static void push_num(sbuf *b, pstack *st, double v) {
  push(b, st, (piece){.kind = PIECE_NUM, .num = v});
}
static void push_node(sbuf *b, pstack *st, mbd_sym_id e, int prec) {
  push(b, st, (piece){.kind = PIECE_NODE, .id = e, .prec = (int8_t)prec});
}
static void push_mul(sbuf *b, pstack *st, mbd_sym_id e, double sgn) {
  push(b, st, (piece){.kind = PIECE_MUL, .id = e, .num = sgn});
}

/* the pieces pushed since `from` were pushed in reading order: reverse them so they pop so */
static void reverse_from(pstack *st, size_t from) {
  for (size_t i = from, j = st->n; i + 1 < j; i++, j--) {
    piece t = st->p[i];
    st->p[i] = st->p[j - 1];
    st->p[j - 1] = t;
  }
}

static int is_neg_term(const mbd_sym_ctx *ctx, mbd_sym_id t) {
  const sym_node *n = NODE(ctx, t);
  if (n->op == MBD_SYM_CONST) {
    return n->value < 0;
  }
  return n->op == MBD_SYM_MUL && NODE(ctx, ARG(ctx, t, 0))->op == MBD_SYM_CONST &&
         NODE(ctx, ARG(ctx, t, 0))->value < 0;
}

/* 1 when factor f of a product goes below the fraction bar (constant negative exponent) */
static int is_den(const mbd_sym_ctx *ctx, mbd_sym_id f, double *e) {
  const sym_node *n = NODE(ctx, f);
  if (n->op == MBD_SYM_POW && NODE(ctx, ARG(ctx, f, 1))->op == MBD_SYM_CONST) {
    *e = NODE(ctx, ARG(ctx, f, 1))->value;
    return *e < 0;
  }
  return 0;
}

/* the pieces of a product (or a lone power with negative exponent when e is not a product), its
 * coefficient multiplied by sgn, in reading order */
static void expand_mul(const mbd_sym_ctx *ctx, sbuf *b, pstack *st, mbd_sym_id e, double sgn) {
  const sym_node *n = NODE(ctx, e);
  int m = n->op == MBD_SYM_MUL ? n->nargs : 1;
  int32_t small[16];
  const int32_t *a = &e;
  if (n->op == MBD_SYM_MUL) {
    a = print_order(ctx, b, e, small, 16);
    if (!a) {
      b->nomem = 1;
      return;
    }
  }
  double coef = 1.0, ex;
  int i0 = 0;
  if (NODE(ctx, a[0])->op == MBD_SYM_CONST) {
    coef = NODE(ctx, a[0])->value;
    i0 = 1;
  }
  coef *= sgn;
  int nnum = 0, nden = 0;
  for (int i = i0; i < m; i++) {
    if (is_den(ctx, a[i], &ex)) {
      nden++;
    } else {
      nnum++;
    }
  }
  int started = 0;
  if (coef == -1.0 && nnum > 0) {
    push_str(b, st, "-");
  } else if (coef != 1.0 || nnum == 0) {
    push_num(b, st, coef);
    started = 1;
  }
  for (int i = i0; i < m; i++) {
    if (!is_den(ctx, a[i], &ex)) {
      if (started) {
        push_str(b, st, "*");
      }
      push_node(b, st, a[i], 3);
      started = 1;
    }
  }
  if (nden > 0) {
    push_str(b, st, "/");
    if (nden > 1) {
      push_str(b, st, "(");
    }
    int k = 0;
    for (int i = i0; i < m; i++) {
      if (is_den(ctx, a[i], &ex)) {
        if (k++) {
          push_str(b, st, "*");
        }
        mbd_sym_id base = ARG(ctx, a[i], 0);
        if (ex == -1.0) {
          push_node(b, st, base, nden > 1 ? 3 : 5);
        } else {
          push_node(b, st, base, 5);
          push_str(b, st, "^");
          push_num(b, st, -ex);
        }
      }
    }
    if (nden > 1) {
      push_str(b, st, ")");
    }
  }
  if (a != &e && a != small) {
    free((void *)a);
  }
}

/* the pieces of a sum in reading order */
static void expand_add(const mbd_sym_ctx *ctx, sbuf *b, pstack *st, mbd_sym_id e) {
  const sym_node *n = NODE(ctx, e);
  int32_t small[16];
  int32_t *a = print_order(ctx, b, e, small, 16);
  if (!a) {
    b->nomem = 1;
    return;
  }
  int first = 1;
  /* pass 0: positive terms, pass 1: negative terms, pass 2: the constant */
  for (int pass = 0; pass < 3; pass++) {
    for (int i = 0; i < n->nargs; i++) {
      mbd_sym_id t = a[i];
      int isc = NODE(ctx, t)->op == MBD_SYM_CONST, neg = is_neg_term(ctx, t);
      if ((pass == 2) != isc || (pass < 2 && neg != (pass == 1))) {
        continue;
      }
      if (neg) {
        push_str(b, st, first ? "-" : " - ");
        if (isc) {
          push_num(b, st, -NODE(ctx, t)->value);
        } else {
          push_mul(b, st, t, -1.0);
        }
      } else {
        if (!first) {
          push_str(b, st, " + ");
        }
        push_node(b, st, t, 2);
      }
      first = 0;
    }
  }
  if (a != small) {
    free(a);
  }
}

static int prec_of(const mbd_sym_ctx *ctx, mbd_sym_id e) {
  const sym_node *n = NODE(ctx, e);
  double ex;
  switch (n->op) {
    case MBD_SYM_CONST:
      return n->value < 0 ? 3 : 5;
    case MBD_SYM_ADD:
      return 1;
    case MBD_SYM_MUL:
      return 2;
    case MBD_SYM_POW:
      return is_den(ctx, e, &ex) ? 2 : 4;
    default:
      return 5;
  }
}

/* the pieces of node e printed where precedence minprec is needed, in reading order */
static void expand_node(const mbd_sym_ctx *ctx, sbuf *b, pstack *st, mbd_sym_id e, int minprec) {
  static const char *fname[MBD_SYM_NOPS] = {
      [MBD_SYM_SIN] = "sin",      [MBD_SYM_COS] = "cos",   [MBD_SYM_TAN] = "tan",
      [MBD_SYM_EXP] = "exp",      [MBD_SYM_LOG] = "log",   [MBD_SYM_SQRT] = "sqrt",
      [MBD_SYM_ABS] = "abs",      [MBD_SYM_SIGN] = "sign", [MBD_SYM_ATAN2] = "atan2",
      [MBD_SYM_IFELSE] = "ifelse"};
  const sym_node *n = NODE(ctx, e);
  int paren = prec_of(ctx, e) < minprec;
  double ex;
  if (paren) {
    push_str(b, st, "(");
  }
  switch (n->op) {
    case MBD_SYM_CONST:
      push_num(b, st, n->value);
      break;
    case MBD_SYM_VAR:
      push_str(b, st, ctx->names + n->adr);
      break;
    case MBD_SYM_ADD:
      expand_add(ctx, b, st, e);
      break;
    case MBD_SYM_MUL:
      expand_mul(ctx, b, st, e, 1.0);
      break;
    case MBD_SYM_POW:
      if (is_den(ctx, e, &ex)) {
        expand_mul(ctx, b, st, e, 1.0);
      } else {
        push_node(b, st, ARG(ctx, e, 0), 5);
        push_str(b, st, "^");
        push_node(b, st, ARG(ctx, e, 1), 5);
      }
      break;
    default:
      push_str(b, st, fname[n->op]);
      push_str(b, st, "(");
      for (int i = 0; i < n->nargs; i++) {
        if (i) {
          push_str(b, st, ", ");
        }
        push_node(b, st, ARG(ctx, e, i), 0);
      }
      push_str(b, st, ")");
      break;
  }
  if (paren) {
    push_str(b, st, ")");
  }
}

/* print e: pop a piece, print it or expand it into its pieces, until none is left */
static void pr(const mbd_sym_ctx *ctx, sbuf *b, mbd_sym_id e) {
  pstack st = {0};
  push_node(b, &st, e, 0);
  while (st.n > 0 && !b->full && !b->nomem) {
    piece pc = st.p[--st.n];
    size_t from = st.n;
    switch (pc.kind) {
      case PIECE_STR:
        put(b, pc.str);
        break;
      case PIECE_NUM:
        put_num(b, pc.num);
        break;
      case PIECE_NODE:
        expand_node(ctx, b, &st, pc.id, pc.prec);
        reverse_from(&st, from);
        break;
      default:
        expand_mul(ctx, b, &st, pc.id, pc.num);
        reverse_from(&st, from);
        break;
    }
  }
  free(st.p);
}

char *mbd_sym_to_string(mbd_sym_ctx *ctx, mbd_sym_id e) {
  sbuf b = {0};
  if (!sym_valid(ctx, e)) {
    put(&b, "<invalid>");
  } else {
    /* print keys: smallest variable index below each node (constants last) */
    int32_t *order, *key = malloc(sizeof *key * ((size_t)ctx->nnodes + 1));
    int n = sym_topo(ctx, 1, &e, &order);
    if (n < 0 || !key) {
      free(key);
      if (n >= 0) {
        free(order);
      }
      return NULL;
    }
    for (int i = 0; i < n; i++) {
      const sym_node *nd = NODE(ctx, order[i]);
      int32_t k = nd->op == MBD_SYM_VAR ? nd->index : INT32_MAX;
      for (int j = 0; j < nd->nargs && nd->op != MBD_SYM_VAR; j++) {
        int32_t kj = key[ARG(ctx, order[i], j)];
        k = kj < k ? kj : k;
      }
      key[order[i]] = k;
    }
    free(order);
    b.key = key;
    pr(ctx, &b, e);
    free(key);
  }
  if (b.full) {
    b.full = 0;
    put(&b, "...");
  }
  if (b.nomem || !b.p) {
    free(b.p);
    return b.nomem ? NULL : calloc(1, 1);
  }
  return b.p;
}

size_t mbd_sym_print(mbd_sym_ctx *ctx, mbd_sym_id e, char *buf, size_t cap) {
  char *s = mbd_sym_to_string(ctx, e);
  if (!s) {
    if (cap) {
      buf[0] = '\0';
    }
    return 0;
  }
  size_t len = strlen(s);
  if (cap) {
    size_t k = len < cap - 1 ? len : cap - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
  }
  free(s);
  return len;
}
