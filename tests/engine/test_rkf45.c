/* tests of engine/integrators/rkf45.c: what makes it MATLAB 4's ode45 — the first and largest
 * steps, the step update, the scalar max-norm test tau = max(rtol ||y||_inf, atol), Fehlberg's
 * fifth-order solution carried on — and its evaluation count.  The lifecycle (outputs, roots,
 * restarts, reinit, failures) is tested with the other kinds in test_integrators.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbd/integrators.h"
#include "mbd_test.h"

/* the message templates, so expected errors are matched against the template */
#include "../../engine/integrators/integrators_impl.h"

#define MAXSTEP 4096

// what the callbacks see: the step sizes taken
typedef struct rec {
  int nstep;              /* accepted steps seen by the step callback */
  double tstep[MAXSTEP];  /* their end times */
} rec;

static int on_step(double t, double *y, void *ud) {
  rec *r = ud;
  (void)y;
  if (r->nstep < MAXSTEP) {
    r->tstep[r->nstep] = t;
  }
  r->nstep++;
  return 0;
}

// y' = 0
static int zero_rhs(double t, const double *y, double *yd, void *ud) {
  (void)t, (void)y, (void)ud;
  yd[0] = 0.0;
  return 0;
}

// y' = y
static int grow_rhs(double t, const double *y, double *yd, void *ud) {
  (void)t, (void)ud;
  yd[0] = y[0];
  return 0;
}

// y' = cos t (a smooth, slow solution: the error test never binds at tol 1e-2)
static int cos_rhs(double t, const double *y, double *yd, void *ud) {
  (void)y, (void)ud;
  yd[0] = cos(t);
  return 0;
}

// the unit oscillator (x, v)
static int osc_rhs(double t, const double *y, double *yd, void *ud) {
  (void)t, (void)ud;
  yd[0] = y[1];
  yd[1] = -y[0];
  return 0;
}

// the same, and in a third component a constant 0 (no error, |y| never the largest)
static int osc3_rhs(double t, const double *y, double *yd, void *ud) {
  osc_rhs(t, y, yd, ud);
  yd[2] = 0.0;
  return 0;
}

static mbd_ode_opts rkf_opts(double rtol, double atol) {
  mbd_ode_opts o;
  assert_int_equal(mbd_ode_opts_default(&o, MBD_INT_RKF45), MBD_OK);
  o.rtol = rtol;
  o.atol = atol;
  return o;
}

/* MATLAB 4: h = hmax/8 = (tf - t0)/128 at the start, and h changes only when delta != 0.  For
 * y' = 0 every error estimate is exactly 0: 128 equal steps over [0, 2], none rejected, and the
 * evaluations are the first point's f, then five stages and the end's f per step: 1 + 6 * 128 */
static void test_first_step_and_zero_error(void **state) {
  (void)state;
  rec *r = calloc(1, sizeof *r);
  assert_non_null(r);
  double tout[1] = {2.0}, y[1] = {3.0};
  mbd_ode_opts o = rkf_opts(1e-6, 1e-6);
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(1, 0.0, y, tout, 1, &o, zero_rhs, NULL, on_step, r, &st, NULL),
                   MBD_OK);
  assert_int_equal(st.steps, 128);
  assert_int_equal(st.rejected, 0);
  assert_int_equal(st.nfev, 1 + 6 * 128);
  // every step 2/128 (exact in binary, so the times are exact)
  for (int k = 0; k < 128; k++) {
    MBD_ASSERT_NEAR(r->tstep[k], 2.0 * (k + 1) / 128.0, 0);
  }
  MBD_ASSERT_NEAR(y[0], 3.0, 0);
  free(r);
}

/* MATLAB 4: hmax = (tf - t0)/16.  y' = cos t at tol 1e-2: after the first step (1/128 of the
 * span) the update 0.8 h (tau/delta)^(1/5) exceeds hmax at once (delta ~ h^5 / 1e3 is far below
 * tau), so the steps are 1/128, then fifteen of 1/16, then the rest, 1/16 - 1/128: 17 steps */
static void test_largest_step(void **state) {
  (void)state;
  rec *r = calloc(1, sizeof *r);
  assert_non_null(r);
  double tout[1] = {1.0}, y[1] = {0.0};
  mbd_ode_opts o = rkf_opts(1e-2, 1e-2);
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(1, 0.0, y, tout, 1, &o, cos_rhs, NULL, on_step, r, &st, NULL),
                   MBD_OK);
  assert_int_equal(st.steps, 17);
  MBD_ASSERT_NEAR(r->tstep[0], 1.0 / 128.0, 0);
  for (int k = 1; k < 16; k++) {
    // sums of binary fractions: exact
    MBD_ASSERT_NEAR(r->tstep[k] - r->tstep[k - 1], 1.0 / 16.0, 1e-15);
  }
  MBD_ASSERT_NEAR(r->tstep[16], 1.0, 0);
  // fifth order with steps of 1/16: sin 1 to ~h^5 / 1e3 per step, 1e-9 bounds the sum
  MBD_ASSERT_NEAR(y[0], sin(1.0), 1e-9);
  free(r);
}

// the error of one step h of y' = y from y(0) = 1 (the step forced: max_step = h, a loose tol)
static double one_step_error(double h) {
  double tout[1] = {h}, y[1] = {1.0};
  mbd_ode_opts o = rkf_opts(1.0, 1.0);
  o.step = h;
  o.max_step = h;
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(1, 0.0, y, tout, 1, &o, grow_rhs, NULL, NULL, NULL, &st, NULL),
                   MBD_OK);
  assert_int_equal(st.steps, 1);
  return fabs(y[0] - exp(h));
}

/* the solution carried on is the fifth-order one (local extrapolation): its local error is
 * O(h^6), so halving h divides it by 2^6 = 64.  From h = 0.2 the next term shifts the ratio by a
 * few percent (measured 61..63); [56, 72] separates it from a fourth-order solution (32) */
static void test_fifth_order_solution(void **state) {
  (void)state;
  double e1 = one_step_error(0.2), e2 = one_step_error(0.1), e3 = one_step_error(0.05);
  assert_true(e3 > 1e-14);  // far above round-off (measured 4e-11)
  double r1 = e1 / e2, r2 = e2 / e3;
  if (!(r1 > 56.0 && r1 < 72.0 && r2 > 56.0 && r2 < 72.0)) {
    fail_msg("one-step error ratios %g, %g (errors %g %g %g) not ~64", r1, r2, e1, e2, e3);
  }
}

/* the test is MATLAB 4's max norm: a third component with no error (and |y| below the others')
 * changes nothing, to the last bit (a root-mean-square norm over the components would loosen the
 * test by sqrt(3/2) and change the steps) */
static void test_max_norm(void **state) {
  (void)state;
  double tout[1] = {10.0};
  mbd_ode_opts o = rkf_opts(1e-8, 1e-8);
  mbd_ode_stats s2, s3;
  double y2[2] = {1.0, 0.0}, y3[3] = {1.0, 0.0, 0.0};
  assert_int_equal(mbd_ode_solve(2, 0.0, y2, tout, 1, &o, osc_rhs, NULL, NULL, NULL, &s2, NULL),
                   MBD_OK);
  assert_int_equal(mbd_ode_solve(3, 0.0, y3, tout, 1, &o, osc3_rhs, NULL, NULL, NULL, &s3, NULL),
                   MBD_OK);
  assert_int_equal(s2.steps, s3.steps);
  assert_int_equal(s2.rejected, s3.rejected);
  assert_true(y2[0] == y3[0] && y2[1] == y3[1]);
  // and the tolerance is met: a global error of a few hundred local ones (measured 4e-8)
  MBD_ASSERT_NEAR(y2[0], cos(10.0), 1e-6);
}

/* the acceptable error is tau = max(rtol ||y||_inf, atol), MATLAB 4's tol max(||y||_inf, 1) with
 * rtol = atol = tol.  On a state near 2000 (||y||_inf in [1999, 2001]):
 *   (1e-6, 1e-6) and (1e-6, 1e-3): rtol ||y|| ~ 2e-3 wins either way: the same steps and state to
 *     the last bit (a sum rtol ||y|| + atol would differ by half);
 *   (1e-9, 2e-3) and (1e-12, 2e-3): the floor atol = 2e-3 wins either way: the same again;
 *   (1e-6, 2e-2): tau = 2e-2, ten times looser: fewer steps */
static int offset_rhs2(double t, const double *y, double *yd, void *ud) {
  (void)t, (void)ud;
  yd[0] = y[1];
  yd[1] = -(y[0] - 2000.0);
  return 0;
}

static void test_scalar_tolerance(void **state) {
  (void)state;
  // 100 s: hmax = 6.25, so the steps (about 0.6 s at tau = 2e-3) are the error test's
  double tout[1] = {100.0};
  const double tol[5][2] = {{1e-6, 1e-6}, {1e-6, 1e-3}, {1e-9, 2e-3}, {1e-12, 2e-3}, {1e-6, 2e-2}};
  mbd_ode_stats st[5];
  double y[5][2];
  for (int k = 0; k < 5; k++) {
    mbd_ode_opts o = rkf_opts(tol[k][0], tol[k][1]);
    y[k][0] = 2001.0;
    y[k][1] = 0.0;
    assert_int_equal(
        mbd_ode_solve(2, 0.0, y[k], tout, 1, &o, offset_rhs2, NULL, NULL, NULL, &st[k], NULL),
        MBD_OK);
  }
  for (int k = 1; k < 4; k += 2) {
    assert_int_equal(st[k].steps, st[k - 1].steps);
    assert_true(y[k][0] == y[k - 1][0] && y[k][1] == y[k - 1][1]);
  }
  assert_true(st[0].steps > 100 && st[4].steps < st[0].steps);
}

/* evaluations: 5 per attempt, 1 for the end of each accepted step, 1 at the start */
static void test_evaluation_count(void **state) {
  (void)state;
  double tout[1] = {20.0}, y[3] = {1.0, 0.0, 0.0};
  mbd_ode_opts o = rkf_opts(1e-10, 1e-10);
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(3, 0.0, y, tout, 1, &o, osc3_rhs, NULL, NULL, NULL, &st, NULL),
                   MBD_OK);
  assert_true(st.steps > 100);
  assert_int_equal(st.nfev, 1 + 5 * (st.steps + st.rejected) + st.steps);
  MBD_ASSERT_NEAR(st.avg_step, 20.0 / (double)st.steps, 1e-12);
}

// y' = -y, but NaN from t = 1 on (a right-hand side that does not report its own failure)
static int nan_rhs(double t, const double *y, double *yd, void *ud) {
  (void)ud;
  yd[0] = t < 1.0 ? -y[0] : NAN;
  return 0;
}

/* a derivative that turns NaN: every attempt across t = 1 is rejected with a quarter of the step
 * (there is no error estimate to scale by) until the step no longer moves t: the run fails with
 * the underflow message just before t = 1, with the state there (it must not loop: fmin(hmax,
 * NaN) would give hmax back) */
static void test_nan_stage(void **state) {
  (void)state;
  double tout[1] = {2.0}, y[1] = {1.0};
  mbd_ode_opts o = rkf_opts(1e-8, 1e-8);
  mbd_ode_stats st;
  mbd_error err = {0};
  int rc = mbd_ode_solve(1, 0.0, y, tout, 1, &o, nan_rhs, NULL, NULL, NULL, &st, &err);
  assert_int_equal(rc, MBD_E_INTEGRATOR);
  MBD_ASSERT_FITS(err.msg, MSG_ODE_RKF_UNDERFLOW);
  assert_true(st.t_reached < 1.0 && st.t_reached > 1.0 - 1e-12);
  // the solution up to there: e^-t to the tolerance (a few local errors of 1e-8)
  MBD_ASSERT_NEAR(y[0], exp(-st.t_reached), 1e-7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_step_and_zero_error),
      cmocka_unit_test(test_largest_step),
      cmocka_unit_test(test_fifth_order_solution),
      cmocka_unit_test(test_max_norm),
      cmocka_unit_test(test_scalar_tolerance),
      cmocka_unit_test(test_evaluation_count),
      cmocka_unit_test(test_nan_stage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
