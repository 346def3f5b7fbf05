/* tests of the symbolic engine (engine/sym/, mbd/sym.h) */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/sym/sym_msg.h"
#include "mbd/sym.h"
#include "mbd_test.h"

/* ---- helpers -----------------------------------------------------------------------------------
 */

typedef struct fixture {
  mbd_sym_ctx *c;
  mbd_sym_id x, y, z;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->c = mbd_sym_ctx_new();
  f->x = mbd_sym_var(f->c, "x", -1);
  f->y = mbd_sym_var(f->c, "y", -1);
  f->z = mbd_sym_var(f->c, "z", -1);
  *state = f;
  return f->c ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  mbd_sym_ctx_free(f->c);
  free(f);
  return 0;
}

#define K(v) mbd_sym_const(c, (v))

/* evaluate e at (x, y, z) on the DAG */
static double ev(mbd_sym_ctx *c, mbd_sym_id e, double x, double y, double z) {
  double v[3] = {x, y, z}, out = 0;
  assert_int_equal(mbd_sym_eval(c, e, v, &out, NULL), MBD_OK);
  return out;
}

static void assert_text(mbd_sym_ctx *c, mbd_sym_id e, const char *want) {
  char *s = mbd_sym_to_string(c, e);
  assert_non_null(s);
  char got[256];
  snprintf(got, sizeof got, "%s", s);
  free(s);
  if (strcmp(got, want) != 0) {
    fail_msg("printed '%s', expected '%s'", got, want);
  }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ---- hash-consing ------------------------------------------------------------------------------
 */

static void test_hash_consing(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id a = mbd_sym_sin(c, mbd_sym_mul(c, f->x, mbd_sym_add(c, f->y, K(2))));
  int n = mbd_sym_count(c);
  mbd_sym_id b = mbd_sym_sin(c, mbd_sym_mul(c, mbd_sym_add(c, K(2), f->y), f->x));
  assert_int_equal(a, b);
  assert_int_equal(mbd_sym_count(c), n); /* nothing new was created */
  assert_int_equal(mbd_sym_var(c, "x", -1), f->x);
  assert_int_equal(mbd_sym_var(c, "x", 0), f->x);
  assert_int_equal(mbd_sym_find_var(c, "y"), f->y);
  assert_int_equal(mbd_sym_find_var(c, "nope"), MBD_SYM_NONE);
  assert_int_equal(K(2.5), K(2.5));
  assert_int_equal(K(-0.0), K(0.0));
  assert_int_equal(K(NAN), K(-NAN));
  assert_int_equal(mbd_sym_add(c, f->x, f->y), mbd_sym_add(c, f->y, f->x));
  assert_int_equal(mbd_sym_var_index(c, f->z), 2);
  assert_string_equal(mbd_sym_var_name(c, f->y), "y");
  assert_int_equal(mbd_sym_nslots(c), 3);
}

/* ---- simplification ----------------------------------------------------------------------------
 */

static void test_simplify(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y;
  double v;
  assert_int_equal(mbd_sym_add(c, x, K(0)), x);       /* x + 0 */
  assert_int_equal(mbd_sym_mul(c, x, K(1)), x);       /* x·1 */
  assert_int_equal(mbd_sym_mul(c, x, K(0)), K(0));    /* x·0 */
  assert_int_equal(mbd_sym_sub(c, x, x), K(0));       /* x − x */
  assert_int_equal(mbd_sym_div(c, x, x), K(1));       /* x / x, x ≠ 0 */
  assert_int_equal(mbd_sym_pow(c, x, K(0)), K(1));    /* x^0 */
  assert_int_equal(mbd_sym_pow(c, x, K(1)), x);       /* x^1 */
  assert_int_equal(mbd_sym_pow(c, K(1), y), K(1));    /* 1^y */
  assert_int_equal(mbd_sym_add(c, K(2), K(3)), K(5)); /* folding */
  assert_int_equal(mbd_sym_pow(c, K(2), K(3)), K(8));
  assert_int_equal(mbd_sym_sin(c, K(0)), K(0));
  assert_int_equal(mbd_sym_cos(c, K(0)), K(1));
  assert_int_equal(mbd_sym_exp(c, K(0)), K(1));
  assert_int_equal(mbd_sym_log(c, K(1)), K(0));
  assert_int_equal(mbd_sym_sqrt(c, K(4)), K(2));
  assert_int_equal(mbd_sym_atan2(c, K(0), K(1)), K(0));
  /* like terms and factors */
  mbd_sym_id x2 = mbd_sym_powc(c, x, 2);
  assert_int_equal(mbd_sym_add(c, mbd_sym_mul(c, K(2), x), mbd_sym_mul(c, K(3), x)),
                   mbd_sym_mul(c, K(5), x));
  assert_int_equal(mbd_sym_add(c, x, x), mbd_sym_mul(c, K(2), x));
  assert_int_equal(mbd_sym_mul(c, x, x), x2);
  assert_int_equal(mbd_sym_div(c, mbd_sym_powc(c, x, 3), x), x2);
  assert_int_equal(mbd_sym_mul(c, mbd_sym_mul(c, K(2), x), mbd_sym_mul(c, K(3), y)),
                   mbd_sym_mul(c, K(6), mbd_sym_mul(c, x, y)));
  assert_int_equal(mbd_sym_powc(c, x2, 3), mbd_sym_powc(c, x, 6)); /* (x^2)^3 */
  assert_int_equal(mbd_sym_powc(c, mbd_sym_mul(c, x, y), 2),       /* (xy)^2 */
                   mbd_sym_mul(c, x2, mbd_sym_powc(c, y, 2)));
  assert_int_equal(mbd_sym_powc(c, x, 0.5), mbd_sym_sqrt(c, x));
  /* a constant factor is distributed; negation of a difference */
  mbd_sym_id s = mbd_sym_add(c, x, y);
  assert_int_equal(mbd_sym_mul(c, K(2), s),
                   mbd_sym_add(c, mbd_sym_mul(c, K(2), x), mbd_sym_mul(c, K(2), y)));
  assert_int_equal(mbd_sym_neg(c, mbd_sym_sub(c, x, y)), mbd_sym_sub(c, y, x));
  assert_int_equal(mbd_sym_sub(c, s, s), K(0));
  assert_int_equal(mbd_sym_neg(c, mbd_sym_neg(c, x)), x);
  /* functions */
  assert_int_equal(mbd_sym_log(c, mbd_sym_exp(c, x)), x);
  assert_int_equal(mbd_sym_abs(c, mbd_sym_abs(c, x)), mbd_sym_abs(c, x));
  assert_int_equal(mbd_sym_ifelse(c, K(1), x, y), x);
  assert_int_equal(mbd_sym_ifelse(c, K(-1), x, y), y);
  assert_int_equal(mbd_sym_ifelse(c, K(NAN), x, y), y);
  assert_int_equal(mbd_sym_ifelse(c, y, x, x), x);
  /* degenerate constants (documented): NaN, never a crash */
  assert_true(mbd_sym_is_const(c, mbd_sym_div(c, K(1), K(0)), &v) && isnan(v));
  assert_true(mbd_sym_is_const(c, mbd_sym_log(c, K(-1)), &v) && isnan(v));
  assert_true(mbd_sym_is_const(c, mbd_sym_div(c, x, K(0)), &v) && isnan(v));
  assert_true(mbd_sym_is_const(c, mbd_sym_add(c, x, K(NAN)), &v) && isnan(v));
  /* no unsafe rewrites: sqrt(x)^2, exp(log(x)), (x^2)^0.5 stay */
  assert_int_not_equal(mbd_sym_powc(c, mbd_sym_sqrt(c, x), 2), x);
  assert_int_not_equal(mbd_sym_exp(c, mbd_sym_log(c, x)), x);
  assert_int_not_equal(mbd_sym_powc(c, x2, 0.5), x);
  assert_int_equal(mbd_sym_op_of(c, mbd_sym_powc(c, x2, 0.5)), MBD_SYM_SQRT);
}

/* ---- printing ----------------------------------------------------------------------------------
 */

static void test_print(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y, L = mbd_sym_var(c, "L", -1);
  mbd_sym_id circle = mbd_sym_sub(c, mbd_sym_add(c, mbd_sym_powc(c, x, 2), mbd_sym_powc(c, y, 2)),
                                  mbd_sym_powc(c, L, 2));
  assert_text(c, circle, "x^2 + y^2 - L^2");
  assert_text(c, mbd_sym_div(c, mbd_sym_mul(c, K(2), mbd_sym_mul(c, x, y)), f->z), "2*x*y/z");
  assert_text(c, mbd_sym_powc(c, mbd_sym_sin(c, x), 2), "sin(x)^2");
  assert_text(c, mbd_sym_neg(c, x), "-x");
  assert_text(c, mbd_sym_div(c, K(1), x), "1/x");
  assert_text(c, mbd_sym_add(c, mbd_sym_neg(c, x), y), "y - x");
  assert_text(c, mbd_sym_add(c, x, K(-1.5)), "x - 1.5");
  assert_text(c, mbd_sym_powc(c, mbd_sym_add(c, x, K(1)), 3), "(x + 1)^3");
  assert_text(c, mbd_sym_mul(c, x, mbd_sym_add(c, y, K(1))), "x*(y + 1)");
  assert_text(c, mbd_sym_div(c, x, mbd_sym_mul(c, y, f->z)), "x/(y*z)");
  assert_text(c, mbd_sym_pow(c, x, mbd_sym_neg(c, y)), "x^(-y)");
  assert_text(c, mbd_sym_ifelse(c, x, y, K(0.1)), "ifelse(x, y, 0.1)");
  assert_text(c, mbd_sym_atan2(c, y, x), "atan2(y, x)");
  char buf[4];
  assert_int_equal(mbd_sym_print(c, circle, buf, sizeof buf), strlen("x^2 + y^2 - L^2"));
  assert_string_equal(buf, "x^2");
}

/* ---- derivatives -------------------------------------------------------------------------------
 */

/* Central difference (f(x+h) - f(x-h)) / 2h: truncation h²|f'''|/6 and roundoff about
 * ε|f|/h.  With h = 1e-5·max(1, |x|) and the test functions below (|f|, |f'''| < 100 at the
 * chosen points) that is < 2e-8 + 2e-9; tolerance 1e-6·(1 + |f'|) leaves a margin of 50 while any
 * wrong rule gives an O(1) error. */
static void check_fd(mbd_sym_ctx *c, mbd_sym_id e, mbd_sym_id var, int k, const double *p,
                     const char *what) {
  mbd_sym_id de = mbd_sym_diff(c, e, var);
  assert_true(de >= 0);
  double v[3] = {p[0], p[1], p[2]}, d, fp, fm;
  assert_int_equal(mbd_sym_eval(c, de, v, &d, NULL), MBD_OK);
  double h = 1e-5 * fmax(1.0, fabs(p[k]));
  v[k] = p[k] + h;
  mbd_sym_eval(c, e, v, &fp, NULL);
  v[k] = p[k] - h;
  mbd_sym_eval(c, e, v, &fm, NULL);
  double fd = (fp - fm) / (2 * h);
  if (!(fabs(d - fd) <= 1e-6 * (1 + fabs(d)))) {
    fail_msg("%s at (%g, %g, %g) d/d%d: exact %.17g, finite difference %.17g", what, p[0], p[1],
             p[2], k, d, fd);
  }
}

static void test_diff_fd(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y, z = f->z;
  /* an inner function so the chain rule is exercised everywhere: u = 0.3x² + 0.2y + 0.5 > 0 */
  mbd_sym_id u = mbd_sym_add(c, mbd_sym_mul(c, K(0.3), mbd_sym_powc(c, x, 2)),
                             mbd_sym_add(c, mbd_sym_mul(c, K(0.2), y), K(0.5)));
  struct {
    const char *name;
    mbd_sym_id e;
  } cases[] = {
      {"sin", mbd_sym_sin(c, u)},
      {"cos", mbd_sym_cos(c, u)},
      {"tan", mbd_sym_tan(c, mbd_sym_mul(c, K(0.5), u))},
      {"exp", mbd_sym_exp(c, u)},
      {"log", mbd_sym_log(c, u)},
      {"sqrt", mbd_sym_sqrt(c, u)},
      {"abs", mbd_sym_abs(c, mbd_sym_sub(c, x, y))},
      {"atan2", mbd_sym_atan2(c, mbd_sym_add(c, y, z), mbd_sym_sub(c, x, K(3)))},
      {"x^3", mbd_sym_powc(c, u, 3)},
      {"x^-3", mbd_sym_powc(c, u, -3)},
      {"x^2.5", mbd_sym_powc(c, u, 2.5)},
      {"x^y", mbd_sym_pow(c, u, mbd_sym_mul(c, y, z))},
      {"2^x", mbd_sym_pow(c, K(2), mbd_sym_mul(c, x, y))},
      {"div", mbd_sym_div(c, mbd_sym_sin(c, x), mbd_sym_add(c, u, z))},
      {"product", mbd_sym_mul_n(c, 3, (mbd_sym_id[]){x, mbd_sym_exp(c, y), mbd_sym_cos(c, z)})},
      {"ifelse",
       mbd_sym_ifelse(c, mbd_sym_sub(c, x, y), mbd_sym_powc(c, x, 2), mbd_sym_mul(c, y, z))},
      {"sign", mbd_sym_mul(c, mbd_sym_sign(c, mbd_sym_sub(c, x, K(10))), u)},
  };
  const double pts[][3] = {{0.7, -0.4, 1.3}, {1.9, 0.8, -0.6}, {-1.2, 1.1, 0.9}, {2.5, 2.0, 0.4}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_true(cases[i].e >= 0);
    for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
      for (int k = 0; k < 3; k++) {
        check_fd(c, cases[i].e, k == 0 ? x : (k == 1 ? y : z), k, pts[p], cases[i].name);
      }
    }
  }
}

static void test_diff_closed_forms(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y;
  mbd_sym_id x2 = mbd_sym_powc(c, x, 2);
  /* canonical forms make a closed form the very same node */
  assert_int_equal(mbd_sym_diff(c, mbd_sym_sin(c, x2), x),
                   mbd_sym_mul_n(c, 3, (mbd_sym_id[]){K(2), x, mbd_sym_cos(c, x2)}));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_powc(c, x, 3), x), mbd_sym_mul(c, K(3), x2));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_log(c, x), x), mbd_sym_div(c, K(1), x));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_exp(c, mbd_sym_mul(c, K(2), x)), x),
                   mbd_sym_mul(c, K(2), mbd_sym_exp(c, mbd_sym_mul(c, K(2), x))));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_sqrt(c, x), x),
                   mbd_sym_div(c, K(0.5), mbd_sym_sqrt(c, x)));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_cos(c, x), x), mbd_sym_neg(c, mbd_sym_sin(c, x)));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_mul(c, x, y), y), x);
  assert_int_equal(mbd_sym_diff(c, y, x), K(0));
  assert_int_equal(mbd_sym_diff(c, x, x), K(1));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_abs(c, x), x), mbd_sym_sign(c, x));
  /* second derivative of the circle constraint */
  mbd_sym_id circ = mbd_sym_add(c, x2, mbd_sym_powc(c, y, 2));
  assert_int_equal(mbd_sym_diff(c, mbd_sym_diff(c, circ, x), x), K(2));
  /* numerically, d/dx sin(x^2) = 2x cos(x^2) */
  mbd_sym_id d = mbd_sym_diff(c, mbd_sym_sin(c, x2), x);
  for (double t = -2; t <= 2; t += 0.37) {
    MBD_ASSERT_NEAR(ev(c, d, t, 0, 0), 2 * t * cos(t * t), 4e-16 * (1 + fabs(t)));
  }
  /* differentiating by a non-variable is an error value */
  mbd_sym_ctx_clear_error(c);
  assert_int_equal(mbd_sym_diff(c, x2, x2), MBD_SYM_NONE);
  assert_int_equal(mbd_sym_ctx_error(c)->code, MBD_E_INPUT);
  MBD_ASSERT_MSG(mbd_sym_ctx_error(c)->msg, MSG_SYM_DIFF_VAR);
  assert_int_equal(mbd_sym_sin(c, MBD_SYM_NONE), MBD_SYM_NONE); /* propagates */
}

static void test_diff_shared(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y;
  /* u_{k+1} = sin(u_k)·y + u_k: 40 levels, a tree of 2^40 leaves but a DAG of ~120 nodes */
  mbd_sym_id u = x;
  for (int k = 0; k < 40; k++) {
    u = mbd_sym_add(c, mbd_sym_mul(c, mbd_sym_sin(c, u), y), u);
  }
  int before = mbd_sym_count(c);
  mbd_sym_id du = mbd_sym_diff(c, u, x);
  assert_true(du >= 0);
  assert_true(mbd_sym_count(c) - before < 40 * 12); /* memoized: linear, not exponential */
  const double p[3] = {0.3, 0.2, 0};
  check_fd(c, u, x, 0, p, "shared chain");
  check_fd(c, u, y, 1, p, "shared chain");
  /* d/dx of e = w^2 + exp(w) with w = sin(x)·y shared: 2 w w' + exp(w) w' */
  mbd_sym_id w = mbd_sym_mul(c, mbd_sym_sin(c, x), y);
  mbd_sym_id e = mbd_sym_add(c, mbd_sym_powc(c, w, 2), mbd_sym_exp(c, w));
  mbd_sym_id de = mbd_sym_diff(c, e, x);
  for (double t = -1; t <= 1; t += 0.25) {
    double wv = sin(t) * 0.7, wp = cos(t) * 0.7;
    MBD_ASSERT_NEAR(ev(c, de, t, 0.7, 0), 2 * wv * wp + exp(wv) * wp, 1e-15 * 8);
  }
}

/* ---- substitution ------------------------------------------------------------------------------
 */

static void test_subs(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y;
  mbd_sym_id e = mbd_sym_add(c, mbd_sym_powc(c, x, 2), mbd_sym_sin(c, y));
  mbd_sym_id yp1 = mbd_sym_add(c, y, K(1));
  mbd_sym_id r = mbd_sym_subs(c, e, 1, &x, &yp1);
  assert_int_equal(r, mbd_sym_add(c, mbd_sym_powc(c, yp1, 2), mbd_sym_sin(c, y)));
  /* numbers fold the whole expression */
  mbd_sym_id vs[2] = {x, y}, rs[2] = {K(3), K(0)};
  double v;
  assert_true(mbd_sym_is_const(c, mbd_sym_subs(c, e, 2, vs, rs), &v));
  assert_true(v == 9.0);
  /* simultaneous: x <-> y */
  mbd_sym_id sw[2] = {y, x};
  assert_int_equal(mbd_sym_subs(c, mbd_sym_sub(c, x, y), 2, vs, sw), mbd_sym_sub(c, y, x));
  /* untouched expressions are returned as they are */
  assert_int_equal(mbd_sym_subs(c, e, 1, &f->z, &x), e);
  /* x - x after substitution simplifies */
  mbd_sym_id d = mbd_sym_sub(c, x, y);
  assert_int_equal(mbd_sym_subs(c, d, 1, &y, &x), K(0));
  /* replacing a non-variable is an error */
  assert_int_equal(mbd_sym_subs(c, e, 1, &yp1, &x), MBD_SYM_NONE);
}

/* ---- tape --------------------------------------------------------------------------------------
 */

/* a list of expressions using every operation, negated terms, divisions and shared parts */
static int make_exprs(mbd_sym_ctx *c, mbd_sym_id x, mbd_sym_id y, mbd_sym_id z, mbd_sym_id *e) {
  mbd_sym_id s = mbd_sym_add(c, mbd_sym_mul(c, x, y), mbd_sym_cos(c, z)); /* shared */
  int n = 0;
  e[n++] = mbd_sym_sub(c, mbd_sym_add(c, mbd_sym_powc(c, x, 2), mbd_sym_powc(c, y, 2)), K(1.7));
  e[n++] = mbd_sym_div(c, mbd_sym_sin(c, s), mbd_sym_add(c, mbd_sym_powc(c, s, 2), K(1)));
  e[n++] =
      mbd_sym_mul(c, mbd_sym_exp(c, mbd_sym_neg(c, s)), mbd_sym_tan(c, mbd_sym_mul(c, K(0.3), z)));
  e[n++] = mbd_sym_add(c, mbd_sym_log(c, mbd_sym_add(c, mbd_sym_powc(c, z, 2), K(2))),
                       mbd_sym_sqrt(c, mbd_sym_abs(c, x)));
  e[n++] = mbd_sym_atan2(c, mbd_sym_sub(c, y, x), mbd_sym_add(c, z, K(0.1)));
  e[n++] = mbd_sym_ifelse(c, mbd_sym_sub(c, x, y), mbd_sym_powc(c, x, 5), mbd_sym_powc(c, y, -3));
  e[n++] = mbd_sym_pow(c, mbd_sym_add(c, mbd_sym_powc(c, x, 2), K(0.5)), mbd_sym_mul(c, y, K(0.7)));
  e[n++] = mbd_sym_sub(c, mbd_sym_neg(c, x), mbd_sym_div(c, y, mbd_sym_mul(c, x, z)));
  e[n++] = mbd_sym_mul(c, mbd_sym_sign(c, y), mbd_sym_powc(c, mbd_sym_add(c, x, z), 2.5));
  e[n++] = mbd_sym_div(c, K(1), mbd_sym_mul(c, mbd_sym_sub(c, x, K(5)), mbd_sym_add(c, y, K(5))));
  e[n++] = s;       /* also an output */
  e[n++] = K(4.25); /* a constant */
  e[n++] = z;       /* a variable */
  e[n++] = mbd_sym_powc(c, mbd_sym_sub(c, mbd_sym_add(c, x, K(1)), mbd_sym_mul(c, y, z)), 12);
  /* sums whose later terms are products used once (the tape fuses their last multiplication into
   * the sum): -z + 2xy - 1.3y, and -e^x - 0.7z */
  e[n++] = mbd_sym_add_n(
      c, 3,
      (mbd_sym_id[]){mbd_sym_neg(c, z), mbd_sym_mul_n(c, 3, (mbd_sym_id[]){K(2), x, y}),
                     mbd_sym_neg(c, mbd_sym_mul(c, y, K(1.3)))});
  e[n++] = mbd_sym_sub(c, mbd_sym_neg(c, mbd_sym_exp(c, x)), mbd_sym_mul(c, z, K(0.7)));
  return n;
}

static void test_tape_matches_tree(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id e[16];
  int n = make_exprs(c, f->x, f->y, f->z, e);
  mbd_sym_tape *t;
  assert_int_equal(mbd_sym_tape_new(c, n, e, 0, NULL, &t, NULL), MBD_OK);
  assert_int_equal(mbd_sym_tape_nout(t), n);
  assert_int_equal(mbd_sym_tape_nvars(t), 3);
  /* Both follow one recipe per node (same operations, same order, same libm calls), so the
   * results must agree bit for bit, not just within an ulp. */
  double out[16];
  for (int i = 0; i < 50; i++) {
    double v[3] = {-2 + 0.083 * i, 1.5 - 0.061 * i, 0.3 + 0.047 * i};
    mbd_sym_tape_eval(t, v, out);
    for (int j = 0; j < n; j++) {
      double want = 0;
      mbd_sym_eval(c, e[j], v, &want, NULL);
      if (!same_bits(out[j], want)) {
        fail_msg("expression %d at point %d: tape %.17g, tree %.17g", j, i, out[j], want);
      }
    }
  }
  /* shared subexpressions are computed once: fewer instructions than a tree walk would need */
  assert_true(mbd_sym_tape_ninstr(t) < 120);
  mbd_sym_tape_free(t);
}

static void test_tape_var_list(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  /* the tape reads z at v[0] and x at v[1] */
  mbd_sym_id e = mbd_sym_sub(c, mbd_sym_mul(c, K(10), f->x), f->z);
  mbd_sym_id vars[2] = {f->z, f->x};
  mbd_sym_tape *t;
  assert_int_equal(mbd_sym_tape_new(c, 1, &e, 2, vars, &t, NULL), MBD_OK);
  double v[2] = {1, 2}, out;
  mbd_sym_tape_eval(t, v, &out);
  assert_true(out == 19.0);
  mbd_sym_tape_free(t);
  /* a variable outside the list is an error that names it */
  mbd_error err;
  mbd_sym_id e2 = mbd_sym_add(c, e, f->y);
  MBD_EXPECT_ERROR(mbd_sym_tape_new(c, 1, &e2, 2, vars, &t, &err), &err, MBD_E_INPUT,
                   MSG_SYM_VAR_MISSING, "y", 2);
  assert_null(t);
}

static void test_jacobian(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_id x = f->x, y = f->y, z = f->z;
  mbd_sym_id F[3] = {mbd_sym_mul_n(c, 3, (mbd_sym_id[]){x, y, z}),
                     mbd_sym_add(c, mbd_sym_powc(c, x, 2), mbd_sym_sin(c, y)),
                     mbd_sym_div(c, mbd_sym_exp(c, z), x)};
  mbd_sym_id V[3] = {x, y, z}, J[9];
  assert_int_equal(mbd_sym_jacobian(c, 3, F, 3, V, J, NULL), MBD_OK);
  mbd_sym_tape *t;
  assert_int_equal(mbd_sym_tape_new(c, 9, J, 3, V, &t, NULL), MBD_OK);
  double v[3] = {1.3, -0.7, 0.4}, out[9];
  mbd_sym_tape_eval(t, v, out);
  double X = v[0], Y = v[1], Z = v[2];
  double want[9] = {Y * Z, X * Z, X * Y, 2 * X, cos(Y), 0, -exp(Z) / (X * X), 0, exp(Z) / X};
  for (int i = 0; i < 9; i++) {
    MBD_ASSERT_NEAR(out[i], want[i], 4e-16 * (1 + fabs(want[i]))); /* a few roundings */
  }
  mbd_sym_tape_free(t);
}

/* ---- C generation ------------------------------------------------------------------------------
 */

static char cache_dir[256];

static int have_cc(void) {
  const char *cc = getenv("CC");
  char cmd[300];
  snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc && *cc ? cc : "cc");
  return system(cmd) == 0;
}

static void clear_cache(void) {
  DIR *d = opendir(cache_dir);
  if (!d) {
    return;
  }
  struct dirent *de;
  char p[600];
  while ((de = readdir(d))) {
    if (de->d_name[0] != '.') {
      snprintf(p, sizeof p, "%s/%s", cache_dir, de->d_name);
      remove(p);
    }
  }
  closedir(d);
}

static void test_emit_and_compile(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  if (!have_cc()) {
    print_message("no C compiler: generated-code test skipped\n");
    skip();
  }
  mbd_sym_id e[16];
  int n = make_exprs(c, f->x, f->y, f->z, e);
  char *src;
  assert_int_equal(mbd_sym_emit_c(c, "sym_test_fn", n, e, 0, NULL, &src, NULL), MBD_OK);
  assert_non_null(strstr(src, "void sym_test_fn(const double *v, double *out)"));
  assert_non_null(strstr(src, "const double t")); /* the shared part became a temporary */
  free(src);
  mbd_sym_cfn fn;
  mbd_sym_lib *lib;
  int ran = -1;
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_sym_compile(c, "sym_test_fn", n, e, 0, NULL, &fn, &lib, &ran, &err), MBD_OK);
  assert_int_equal(ran, 1);
  mbd_sym_tape *t;
  assert_int_equal(mbd_sym_tape_new(c, n, e, 0, NULL, &t, NULL), MBD_OK);
  /* Same operations in the same order, compiled without -ffast-math and with
   * -ffp-contract=off (no fused multiply-add), calling the same libm: bit-identical. */
  double a[16], b[16];
  for (int i = 0; i < 40; i++) {
    double v[3] = {-1.7 + 0.09 * i, 1.2 - 0.07 * i, 0.2 + 0.05 * i};
    mbd_sym_tape_eval(t, v, a);
    fn(v, b);
    for (int j = 0; j < n; j++) {
      if (!same_bits(a[j], b[j])) {
        fail_msg("expression %d at point %d: tape %.17g, generated C %.17g", j, i, a[j], b[j]);
      }
    }
  }
  /* the second compile of the same source is a cache hit: no compiler run */
  mbd_sym_cfn fn2;
  mbd_sym_lib *lib2;
  assert_int_equal(mbd_sym_compile(c, "sym_test_fn", n, e, 0, NULL, &fn2, &lib2, &ran, &err),
                   MBD_OK);
  assert_int_equal(ran, 0);
  double v[3] = {0.4, 0.5, 0.6};
  fn2(v, b);
  mbd_sym_tape_eval(t, v, a);
  assert_memory_equal(a, b, sizeof(double) * (size_t)n);
  mbd_sym_lib_close(lib2);
  mbd_sym_lib_close(lib);
  mbd_sym_tape_free(t);
  /* a compile error or a missing compiler is a status, not a crash */
  assert_int_equal(mbd_sym_compile_c("this is not C", "f", &fn, &lib, &ran, &err), MBD_E_IO);
  assert_null(lib);
  MBD_ASSERT_FITS(err.msg, MSG_SYM_CC_FAILED);  // the compiler's name and its first line of output
  const char *old = getenv("CC");
  char saved[256] = "";
  if (old) {
    snprintf(saved, sizeof saved, "%s", old);
  }
  setenv("CC", "/nonexistent/mbd-cc", 1);
  assert_int_equal(
      mbd_sym_compile_c("void g(const double *v, double *o) {}", "g", &fn, &lib, &ran, &err),
      MBD_E_IO);
  // posix_spawnp reports the missing file; a spawn through a shell would exit 127 instead
  if (mbd_msg_fits(err.msg, MSG_SYM_CC_RUN)) {
    MBD_ASSERT_MSG(err.msg, MSG_SYM_CC_RUN, "/nonexistent/mbd-cc", strerror(ENOENT));
  } else {
    MBD_ASSERT_MSG(err.msg, MSG_SYM_CC_NOT_FOUND, "/nonexistent/mbd-cc");
  }
  if (old) {
    setenv("CC", saved, 1);
  } else {
    unsetenv("CC");
  }
  clear_cache();
}

/* a function given another's calls of math functions: the shared calls found (outermost only, not
 * the ones only one side makes), the given function makes none of them, and every output equals
 * the plain function's to the bit when it is given the other's values */
static void test_emit_given(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  if (!have_cc()) {
    print_message("no C compiler: generated-code test skipped\n");
    skip();
  }
  mbd_sym_id x = f->x, y = f->y, z = f->z;
  mbd_sym_id s = mbd_sym_sin(c, mbd_sym_add(c, x, y)), co = mbd_sym_cos(c, mbd_sym_add(c, x, y));
  mbd_sym_id ce = mbd_sym_cos(c, mbd_sym_exp(c, z));
  mbd_sym_id r = mbd_sym_sqrt(c, mbd_sym_add(c, mbd_sym_mul(c, x, x), K(1)));
  mbd_sym_id a[6] = {mbd_sym_mul(c, s, z), co, ce};
  mbd_sym_id b[3] = {
      mbd_sym_add(c, mbd_sym_mul(c, mbd_sym_mul(c, s, s), y), co), mbd_sym_mul(c, r, s),
      mbd_sym_add(c, mbd_sym_mul(c, ce, y),
                  mbd_sym_log(c, mbd_sym_add(c, mbd_sym_mul(c, y, y), K(2))))};
  mbd_sym_id vars[3] = {x, y, z}, given[8];
  // sin(x + y), cos(x + y) and cos(exp z): not exp z (inside one), not sqrt or log (b's alone)
  int ng = mbd_sym_shared_calls(c, 3, a, 3, b, 8, given);
  assert_int_equal(ng, 3);
  assert_int_equal(mbd_sym_shared_calls(c, 3, a, 3, b, 0, NULL), 3);
  int seen = 0;
  for (int k = 0; k < ng; k++) {
    seen |= given[k] == s ? 1 : given[k] == co ? 2 : given[k] == ce ? 4 : 8;
  }
  assert_int_equal(seen, 7);
  // a's function returns the calls after its outputs; b's reads them after the variables
  for (int k = 0; k < ng; k++) {
    a[3 + k] = given[k];
  }
  char *sa = NULL, *sb = NULL, *sp = NULL;
  assert_int_equal(mbd_sym_emit_c(c, "sym_given_a", 3 + ng, a, 3, vars, &sa, NULL), MBD_OK);
  assert_int_equal(mbd_sym_emit_c_given(c, "sym_given_b", 3, b, 3, vars, ng, given, &sb, NULL),
                   MBD_OK);
  assert_int_equal(mbd_sym_emit_c(c, "sym_plain_b", 3, b, 3, vars, &sp, NULL), MBD_OK);
  assert_null(strstr(sb, "sin(")); /* the given calls are read, not made */
  assert_null(strstr(sb, "exp("));
  assert_non_null(strstr(sb, "sqrt("));
  assert_non_null(strstr(sb, "log("));
  mbd_sym_cfn fa, fb, fp;
  mbd_sym_lib *la, *lb, *lp;
  int ran;
  mbd_error err;
  assert_int_equal(mbd_sym_compile_c(sa, "sym_given_a", &fa, &la, &ran, &err), MBD_OK);
  assert_int_equal(mbd_sym_compile_c(sb, "sym_given_b", &fb, &lb, &ran, &err), MBD_OK);
  assert_int_equal(mbd_sym_compile_c(sp, "sym_plain_b", &fp, &lp, &ran, &err), MBD_OK);
  for (int i = 0; i < 40; i++) {
    double v[6] = {-1.7 + 0.09 * i, 1.2 - 0.07 * i, 0.2 + 0.05 * i}, oa[6], ob[3], op[3];
    fa(v, oa);
    for (int k = 0; k < ng; k++) {
      v[3 + k] = oa[3 + k];
    }
    fb(v, ob);
    fp(v, op);
    for (int j = 0; j < 3; j++) {
      if (!same_bits(ob[j], op[j])) {
        fail_msg("output %d at point %d: given %.17g, plain %.17g", j, i, ob[j], op[j]);
      }
    }
  }
  mbd_sym_lib_close(la);
  mbd_sym_lib_close(lb);
  mbd_sym_lib_close(lp);
  free(sa);
  free(sb);
  free(sp);
  // given nodes need a variable list (their slots follow it), and must be nodes
  char *src;
  MBD_EXPECT_ERROR(mbd_sym_emit_c_given(c, "g", 3, b, 0, NULL, ng, given, &src, &err), &err,
                   MBD_E_INPUT, MSG_SYM_GIVEN_VARS);
  mbd_sym_id bad = 123456;
  MBD_EXPECT_ERROR(mbd_sym_emit_c_given(c, "g", 3, b, 3, vars, 1, &bad, &src, &err), &err,
                   MBD_E_INPUT, MSG_SYM_GIVEN_INVALID, 1, 123456);
  assert_int_equal(mbd_sym_shared_calls(c, 1, &bad, 3, b, 8, given), -1);
  clear_cache();
}

static void test_errors(void **state) {
  fixture *f = *state;
  mbd_sym_ctx *c = f->c;
  mbd_sym_ctx_clear_error(c);
  assert_int_equal(mbd_sym_var(c, "x", 5), MBD_SYM_NONE); /* x already has index 0 */
  assert_int_equal(mbd_sym_ctx_error(c)->code, MBD_E_INPUT);
  MBD_ASSERT_MSG(mbd_sym_ctx_error(c)->msg, MSG_SYM_VAR_INDEX, "x", 0, 5);
  assert_int_equal(mbd_sym_var(c, "", -1), MBD_SYM_NONE);
  assert_int_equal(mbd_sym_add(c, f->x, 123456), MBD_SYM_NONE);
  mbd_sym_id q = mbd_sym_var(c, "q", 10);
  assert_int_equal(mbd_sym_var_index(c, q), 10);
  assert_int_equal(mbd_sym_nslots(c), 11);
  assert_int_equal(mbd_sym_var_index(c, mbd_sym_var(c, "r", -1)), 11);
  mbd_sym_id vs[4];
  mbd_sym_id e = mbd_sym_add(c, mbd_sym_mul(c, q, f->y), f->x);
  assert_int_equal(mbd_sym_vars(c, e, 4, vs), 3);
  assert_int_equal(vs[0], f->x);
  assert_int_equal(vs[1], f->y);
  assert_int_equal(vs[2], q);
  assert_int_equal(mbd_sym_depends(c, e, f->z), 0);
  assert_int_equal(mbd_sym_depends(c, e, q), 1);
  char *src;
  mbd_error err;
  MBD_EXPECT_ERROR(mbd_sym_emit_c(c, "1bad", 1, &e, 0, NULL, &src, &err), &err, MBD_E_INPUT,
                   MSG_SYM_EMIT_NAME, "1bad");
}

int main(void) {
  snprintf(cache_dir, sizeof cache_dir, "%s", "/tmp/mbd-test-sym-XXXXXX");
  if (!mkdtemp(cache_dir)) {
    return 1;
  }
  setenv("MBD_CACHE", cache_dir, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_hash_consing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_simplify, setup, teardown),
      cmocka_unit_test_setup_teardown(test_print, setup, teardown),
      cmocka_unit_test_setup_teardown(test_diff_fd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_diff_closed_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_diff_shared, setup, teardown),
      cmocka_unit_test_setup_teardown(test_subs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tape_matches_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tape_var_list, setup, teardown),
      cmocka_unit_test_setup_teardown(test_jacobian, setup, teardown),
      cmocka_unit_test_setup_teardown(test_emit_and_compile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_emit_given, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  clear_cache();
  rmdir(cache_dir);
  return rc;
}
