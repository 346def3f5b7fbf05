/* coordinate-level systems (paper 004): A and b derived from symbolic constraints, the
 * Udwadia–Kalaba motion with stabilization, E1/E2 against closed forms, degenerate constraints,
 * stability verdicts. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/system/system_msg.h"
#include "mbd/integrators.h"
#include "mbd/system.h"
#include "mbd_test.h"

static mbd_sym_ctx *ctx;

static int setup(void **state) {
  (void)state;
  ctx = mbd_sym_ctx_new();
  return ctx ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  mbd_sym_ctx_free(ctx);
  return 0;
}

static mbd_sym_id C(double v) { return mbd_sym_const(ctx, v); }

/* paper 004 example 1: planar pendulum in (x, y), y down, L = 1, g = 9.8, released from angle
 * th0 at rest */
static mbd_system *pendulum(double th0, int twice) {
  mbd_error err;
  const char *names[2] = {"x", "y"};
  mbd_system *s = mbd_system_new(ctx, "pendulum", 2, names, &err);
  assert_non_null(s);
  double F[2] = {0, 9.8};
  assert_int_equal(mbd_system_set_force_const(s, F, &err), MBD_OK);
  mbd_sym_id x = mbd_system_q(s, 0), y = mbd_system_q(s, 1);
  mbd_sym_id f = mbd_sym_sub(ctx, mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2), mbd_sym_powc(ctx, y, 2)),
                             C(1));
  assert_int_equal(mbd_system_add_holonomic(s, f, &err), 0);
  if (twice) {
    // the same constraint again, scaled: a redundant row
    assert_int_equal(mbd_system_add_holonomic(s, mbd_sym_mul(ctx, C(2), f), &err), 1);
  }
  double q0[2] = {sin(th0), cos(th0)}, qd0[2] = {0, 0};
  assert_int_equal(mbd_system_set_initial(s, q0, qd0, &err), MBD_OK);
  return s;
}

static mbd_run *simulate(mbd_system *s, double t_end, const double *S, const double *T,
                         const double *L, double every) {
  mbd_sys_opts o;
  mbd_sys_opts_default(&o);
  o.t_end = t_end;
  o.output_every = every;
  o.S = S;
  o.T = T;
  o.L = L;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_system_simulate(s, &o, &r, &err) != MBD_OK) {
    fail_msg("simulate: %s", err.msg);
  }
  return r;
}

/* time of the k-th upward zero crossing of channel c (linear interpolation between samples) */
static double crossing(const mbd_run *r, int c, int k) {
  const double *t = mbd_run_times(r);
  for (int i = 1; i < mbd_run_nsample(r); i++) {
    double a = mbd_run_sample(r, c, i - 1), b = mbd_run_sample(r, c, i);
    if (a < 0 && b >= 0 && --k == 0) {
      return t[i - 1] + (t[i] - t[i - 1]) * (-a) / (b - a);
    }
  }
  fail_msg("no crossing");
  return 0;
}

/* the pendulum's period against the closed form T0 (1 + θ0²/16 + 11θ0⁴/3072), T0 = 2π√(L/g).
 * θ0 = 0.1: the next term of the series is ~θ0⁶/1e4 ≈ 1e-10 relative.  Crossings interpolated
 * linearly on a 1e-3 s grid near x's zero, where x is nearly straight: error ≲ h²|x''|/|x'| ~
 * 1e-7 s here, so the tolerance is 1e-6 s. */
static void test_pendulum_period(void **state) {
  (void)state;
  double th0 = 0.1;
  mbd_system *s = pendulum(th0, 0);
  mbd_run *r = simulate(s, 5, NULL, NULL, NULL, 1e-3);
  int cx = mbd_run_find(r, "x");
  assert_true(cx >= 0);
  assert_true(mbd_run_find(r, "y_dot") >= 0 && mbd_run_find(r, "constraint1_dot") >= 0);
  double period = crossing(r, cx, 2) - crossing(r, cx, 1);
  double T0 = 2 * 3.14159265358979323846 * sqrt(1 / 9.8);
  MBD_ASSERT_NEAR(period, T0 * (1 + th0 * th0 / 16 + 11 * pow(th0, 4) / 3072), 1e-6);
  // the constraint holds to the integrator's tolerance
  assert_true(mbd_run_get_stats(r)->max_position_violation < 1e-8);
  assert_int_equal(mbd_run_nerrors(r), 1);
  mbd_run_free(r);
  mbd_system_free(s);
}

/* a redundant copy of the constraint changes nothing (pseudo-inverse); same tolerance as a
 * difference of two runs at rtol 1e-10 over 5 s */
static void test_redundant(void **state) {
  (void)state;
  mbd_system *s1 = pendulum(0.5, 0), *s2 = pendulum(0.5, 1);
  double S2[4] = {5, 0, 0, 5}, T2[4] = {5, 0, 0, 5}, S1 = 5, T1 = 5;
  mbd_run *r1 = simulate(s1, 5, &S1, &T1, NULL, 0.01), *r2 = simulate(s2, 5, S2, T2, NULL, 0.01);
  int ok;
  for (double t = 1; t <= 5; t += 1) {
    MBD_ASSERT_NEAR(mbd_run_value(r2, 0, t, &ok), mbd_run_value(r1, 0, t, &ok), 1e-7);
  }
  mbd_run_free(r1);
  mbd_run_free(r2);
  mbd_system_free(s1);
  mbd_system_free(s2);
}

/* a full mass matrix: the pendulum in coordinates u = x + y, w = y (M = Jᵀ J for q = (u, w))
 * gives the same x(t) = u − w.  Tolerance: two runs at rtol 1e-10 */
static void test_full_mass(void **state) {
  (void)state;
  mbd_error err;
  const char *names[2] = {"u", "w"};
  mbd_system *s = mbd_system_new(ctx, "sheared", 2, names, &err);
  // x = u − w, y = w: T = ½(ẋ² + ẏ²) → M = [[1, −1], [−1, 2]]; F = Jᵀ (0, g) = (0, g)
  double M[4] = {1, -1, -1, 2}, F[2] = {0, 9.8};
  assert_int_equal(mbd_system_set_mass(s, M, 1, &err), MBD_OK);
  mbd_system_set_force_const(s, F, &err);
  mbd_sym_id u = mbd_system_q(s, 0), w = mbd_system_q(s, 1);
  mbd_sym_id x = mbd_sym_sub(ctx, u, w);
  mbd_sym_id f = mbd_sym_sub(ctx, mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2), mbd_sym_powc(ctx, w, 2)),
                             C(1));
  assert_int_equal(mbd_system_add_holonomic(s, f, &err), 0);
  double q0[2] = {sin(0.5) + cos(0.5), cos(0.5)}, qd0[2] = {0, 0};
  mbd_system_set_initial(s, q0, qd0, &err);
  mbd_system *p = pendulum(0.5, 0);
  mbd_run *r1 = simulate(s, 3, NULL, NULL, NULL, 0.01), *r2 = simulate(p, 3, NULL, NULL, NULL, 0.01);
  int ok;
  double t = 3;
  double xs = mbd_run_value(r1, 0, t, &ok) - mbd_run_value(r1, 1, t, &ok);
  MBD_ASSERT_NEAR(xs, mbd_run_value(r2, 0, t, &ok), 1e-7);
  // not positive definite: rejected
  double bad[4] = {1, 2, 2, 1};
  MBD_EXPECT_ERROR(mbd_system_set_mass(s, bad, 1, &err), &err, MBD_E_INPUT, MSG_SYS_MASS_PD,
                   "sheared", -1.0);
  mbd_run_free(r1);
  mbd_run_free(r2);
  mbd_system_free(s);
  mbd_system_free(p);
}

/* E1, E2 of a known error history.  One coordinate x, no force, h = x − sin t with x(0) = 1,
 * ẋ(0) = 1: A = 1 has full rank, so the stabilized equation ḧ + 3ḣ + 2h = 0 holds exactly and
 * h = 2e^(−t) − e^(−2t).  Over t_f = 10: ∫h² = 2 − 4/3 + 1/4 − O(e^(−20)), ∫ḣ² = 2 − 8/3 + 1.
 * Tolerance 1e-7 relative: E1, E2 come from the Hermite-corrected trapezoid rule over rk45 accepted
 * steps (fourth order; measured errors ~1e-8); the nonholonomic E2 uses the plain trapezoid (no
 * derivative of the rate is known), second order in the step: measured 2e-4, tolerance 1e-3. */
static void test_errors_closed_form(void **state) {
  (void)state;
  mbd_error err;
  const char *names[1] = {"x"};
  mbd_system *s = mbd_system_new(ctx, "one", 1, names, &err);
  mbd_sym_id h = mbd_sym_sub(ctx, mbd_system_q(s, 0), mbd_sym_sin(ctx, mbd_system_t(s)));
  assert_int_equal(mbd_system_add_holonomic(s, h, &err), 0);
  double q0 = 1, qd0 = 1, S = 3, T = 2;
  mbd_system_set_initial(s, &q0, &qd0, &err);
  double tf = 10;
  mbd_run *r = simulate(s, tf, &S, &T, NULL, 0.01);
  // the inconsistent start is warned about
  assert_non_null(mbd_system_warning(s, 0));
  // h(0) = 1, ḣ(0) = ẋ − cos 0 = 0
  MBD_ASSERT_MSG(mbd_system_warning(s, 0), MSG_SYS_INITIAL_VIOLATION, "one", "holonomic", 1, 1.0,
                 ", rate ", 0.0);
  double e1 = sqrt((2 - 4.0 / 3 + 0.25) / tf), e2 = sqrt((2 - 8.0 / 3 + 1) / tf);
  MBD_ASSERT_NEAR(mbd_run_E1(r, 0), e1, 1e-7 * e1);
  MBD_ASSERT_NEAR(mbd_run_E2(r, 0), e2, 1e-7 * e2);
  int ok;
  double t = 2.5, hx = 2 * exp(-t) - exp(-2 * t);
  MBD_ASSERT_NEAR(mbd_run_value(r, mbd_run_find(r, "constraint1"), t, &ok), hx, 1e-8);
  mbd_run_free(r);
  mbd_system_free(s);

  // nonholonomic: r = ẋ − cos t, ẋ(0) = 2, L = 2: r = e^(−2t), ṙ = −2e^(−2t);
  // ∫r² = 1/4, ∫ṙ² = 1 (minus O(e^(−40)))
  s = mbd_system_new(ctx, "one", 1, names, &err);
  mbd_sym_id rr = mbd_sym_sub(ctx, mbd_system_qd(s, 0), mbd_sym_cos(ctx, mbd_system_t(s)));
  assert_int_equal(mbd_system_add_nonholonomic(s, rr, &err), 0);
  q0 = 0;
  qd0 = 2;
  double L = 2;
  mbd_system_set_initial(s, &q0, &qd0, &err);
  r = simulate(s, tf, NULL, NULL, &L, 0.01);
  MBD_ASSERT_NEAR(mbd_run_E1(r, 0), sqrt(0.25 / tf), 1e-7 * sqrt(0.25 / tf));
  MBD_ASSERT_NEAR(mbd_run_E2(r, 0), sqrt(1 / tf), 1e-3 * sqrt(1 / tf));
  mbd_run_free(r);
  mbd_system_free(s);
}

/* paper 004 section 5: the square of a constraint is rejected when added, naming the unsquared
 * form; a degenerate product is rejected at the start of the run */
static void test_degenerate(void **state) {
  (void)state;
  mbd_error err;
  const char *names[2] = {"x", "y"};
  mbd_system *s = mbd_system_new(ctx, "sq", 2, names, &err);
  mbd_sym_id x = mbd_system_q(s, 0), y = mbd_system_q(s, 1);
  mbd_sym_id f = mbd_sym_sub(ctx, mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2), mbd_sym_powc(ctx, y, 2)),
                             C(1));
  mbd_error_clear(&err);
  char et[200], bt[200];
  mbd_sym_print(ctx, mbd_sym_powc(ctx, f, 2), et, sizeof et);
  mbd_sym_print(ctx, f, bt, sizeof bt);
  assert_string_equal(bt, "x^2 + y^2 - 1");
  MBD_EXPECT_ERROR(mbd_system_add_holonomic(s, mbd_sym_powc(ctx, f, 2), &err), &err, MBD_E_INPUT,
                   MBD_MSG_SYS_DEGENERATE, "holonomic", 1, et, ": ", bt);
  // f²·(1 + x²) is not a power at the top, but its row of A vanishes on f = 0
  mbd_sym_id g = mbd_sym_mul(ctx, mbd_sym_powc(ctx, f, 2), mbd_sym_add(ctx, C(1), mbd_sym_powc(ctx, x, 2)));
  assert_int_equal(mbd_system_add_holonomic(s, g, &err), 0);
  double q0[2] = {1, 0}, qd0[2] = {0, 4};
  mbd_system_set_initial(s, q0, qd0, &err);
  mbd_sys_opts o;
  mbd_sys_opts_default(&o);
  mbd_run *r = NULL;
  mbd_error_clear(&err);
  assert_int_equal(mbd_system_simulate(s, &o, &r, &err), MBD_E_INPUT);
  assert_null(r);
  mbd_sym_print(ctx, g, et, sizeof et);
  MBD_ASSERT_MSG(err.msg, MBD_MSG_SYS_DEGENERATE, "holonomic", 1, et,
                 " (or in another form whose gradient does not vanish on the constraint)", "");
  // a holonomic constraint with a velocity, a nonlinear velocity constraint, a foreign variable
  // (each would be constraint 2: g is constraint 1)
  MBD_EXPECT_ERROR(mbd_system_add_holonomic(s, mbd_system_qd(s, 0), &err), &err, MBD_E_INPUT,
                   MSG_SYS_HOLO_VELOCITY, "sq", "holonomic constraint 2", "x_dot");
  MBD_EXPECT_ERROR(mbd_system_add_nonholonomic(
                       s, mbd_sym_mul(ctx, mbd_system_qd(s, 0), mbd_system_qd(s, 1)), &err),
                   &err, MBD_E_INPUT, MSG_SYS_NONLINEAR, "sq", "nonholonomic constraint 2", "x_dot",
                   "y_dot");
  MBD_EXPECT_ERROR(mbd_system_add_holonomic(s, mbd_sym_var(ctx, "zz", -1), &err), &err, MBD_E_INPUT,
                   MSG_SYS_FOREIGN_VAR, "sq", "holonomic constraint 2", "zz");
  mbd_system_free(s);
}

/* stability verdicts, checked by hand:
 *  S = 2I, T = I: (λ + 1)² = 0 → λ = −1 (four times): stable, max Re = −1;
 *  S = diag(−1, 2), T = I: λ² − λ + 1 → Re = +1/2: unstable;
 *  S = [[3, 1], [1, 3]], T = 2I (commuting, S's eigenvalues 2 and 4): λ² + 2λ + 2 → −1 ± i,
 *    λ² + 4λ + 2 → −2 ± √2: stable, max Re = −2 + √2;
 *  S = 0, T = [[1, 2], [2, 1]] (eigenvalues 3, −1): λ = ±i√3, ±1: unstable, max Re = 1;
 *  L = [[1, 2], [0, 1]]: λ = −1 (twice): stable; L = [[1, 3], [3, 1]]: λ = −4, 2: unstable.
 * Tolerance 1e-7: a double eigenvalue of a defective matrix is found to ~√ε. */
static void test_stability(void **state) {
  (void)state;
  double re[4], im[4], mx;
  mbd_error err;
  double S1[4] = {2, 0, 0, 2}, T1[4] = {1, 0, 0, 1};
  assert_int_equal(mbd_stability(2, S1, T1, NULL, re, im, &mx, &err), MBD_OK);
  MBD_ASSERT_NEAR(mx, -1, 1e-7);
  double S2[4] = {-1, 0, 0, 2};
  mbd_stability(2, S2, T1, NULL, re, im, &mx, &err);
  MBD_ASSERT_NEAR(mx, 0.5, 1e-12);
  double S3[4] = {3, 1, 1, 3}, T3[4] = {2, 0, 0, 2};
  mbd_stability(2, S3, T3, NULL, re, im, &mx, &err);
  MBD_ASSERT_NEAR(mx, -2 + sqrt(2), 1e-12);
  double T4[4] = {1, 2, 2, 1};
  mbd_stability(2, NULL, T4, NULL, re, im, &mx, &err);
  MBD_ASSERT_NEAR(mx, 1, 1e-12);
  double L1[4] = {1, 0, 2, 1}, L2[4] = {1, 3, 3, 1};
  mbd_stability(2, NULL, NULL, L1, re, im, &mx, &err);
  MBD_ASSERT_NEAR(mx, -1, 1e-7);
  mbd_stability(2, NULL, NULL, L2, re, im, &mx, &err);
  MBD_ASSERT_NEAR(mx, 2, 1e-12);
  // an unstable choice in a run is warned about
  mbd_system *s = pendulum(0.5, 0);
  double S = -1, T = 1;
  mbd_run *r = simulate(s, 0.5, &S, &T, NULL, 0.01);
  assert_non_null(mbd_system_warning(s, 0));
  // S = −1, T = 1: λ² − λ + 1 = 0, Re λ = 1/2
  MBD_ASSERT_MSG(mbd_system_warning(s, 0), MBD_MSG_SYS_UNSTABLE, "S, T",
                 "lambda^2 I + lambda S + T", 0.5);
  mbd_run_free(r);
  mbd_system_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum_period),    cmocka_unit_test(test_redundant),
      cmocka_unit_test(test_full_mass),          cmocka_unit_test(test_errors_closed_form),
      cmocka_unit_test(test_degenerate),         cmocka_unit_test(test_stability),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
