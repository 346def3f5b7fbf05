/* the Udwadia–Kalaba formulation (paper 004 eq 5) on rigid-body models: agreement with the
 * augmented formulation (planar and spatial), redundant constraints, stabilization matrices;
 * the Moore–Penrose inverse it relies on (its four defining conditions). */
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations_msg.h"
#include "mbd/integrators.h"
#include "mbd/linalg.h"
#include "model_build.h"

/* paper 000 example 1: the double pendulum (DIGEST.md), no gravity; dup adds a second pin at O
 * (two redundant rows) */
static mbd_model *double_pendulum(int dup) {
  mbd_error err;
  int l1, l2;
  mbd_model *m = paper000_pendulum_links(&l1, &l2);
  if (dup) {
    mbd_joint_spec o2 = {.name = "O2", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = l1,
                         .at2 = {-1, 0, 0}};
    assert_true(mbd_model_add_joint(m, &o2, &err) >= 0);
  }
  mbd_force_spec t = {.body = l1, .value = {10}};
  mbd_force_spec f = {.body = l2, .at = {1, 0, 0}, .value = {8, 7}};
  assert_true(mbd_model_add_torque(m, &t, &err) >= 0);
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

static mbd_run *run_with(mbd_model *m, int form, double alpha, double beta) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 10;
  o.formulation = form;
  o.ode.kind = MBD_INT_RK45;
  o.ode.rtol = o.ode.atol = 1e-10;
  o.alpha = alpha;
  o.beta = beta;
  o.output_every = 0.05;
  return test_simulate(m, &o);
}

/* UK and augmented agree on the double pendulum over 10 s, with and without stabilization.
 * Tolerance: both runs at rtol = atol = 1e-10 carry a global error ~1e-8 in θ2 over 10 s of this
 * smooth motion; 1e-6 leaves room for the different step sequences.  Reactions: 1e-5 relative
 * (λ from least squares on M(q̈ − a) vs from the augmented solve). */
static void test_uk_vs_augmented(void **state) {
  (void)state;
  mbd_model *m = double_pendulum(0);
  mbd_run *ra = run_with(m, MBD_FORM_AUGMENTED, 0, 0);
  double stab[2][2] = {{0, 0}, {10, 100}};
  for (int k = 0; k < 2; k++) {
    mbd_run *ru = run_with(m, MBD_FORM_UK, stab[k][0], stab[k][1]);
    assert_string_equal(mbd_run_formulation(ru), "udwadia_kalaba");
    for (double t = 1; t <= 10; t += 3) {
      MBD_ASSERT_NEAR(test_value(ru, "link2.theta", t), test_value(ra, "link2.theta", t), 1e-6);
      MBD_ASSERT_NEAR(test_value(ru, "link1.x", t), test_value(ra, "link1.x", t), 1e-6);
      double fx = test_value(ra, "A.fx", t);
      MBD_ASSERT_NEAR(test_value(ru, "A.fx", t), fx, 1e-5 * (1 + fabs(fx)));
    }
    // the constraints hold: position drift at the integrator's tolerance level
    assert_true(mbd_run_get_stats(ru)->max_position_violation < 1e-7);
    mbd_run_free(ru);
  }
  mbd_run_free(ra);
  mbd_model_free(m);
}

/* a duplicated pin (two redundant rows, all used by UK through the pseudo-inverse) gives the
 * motion of the plain model; same tolerance argument */
static void test_uk_redundant(void **state) {
  (void)state;
  mbd_model *m1 = double_pendulum(0), *m2 = double_pendulum(1);
  mbd_run *r1 = run_with(m1, MBD_FORM_UK, 10, 100);
  mbd_run *r2 = run_with(m2, MBD_FORM_UK, 10, 100);
  mbd_model_info info;
  mbd_model_get_info(m2, &info);
  assert_int_equal(info.nredundant, 2);
  for (double t = 1; t <= 10; t += 3) {
    MBD_ASSERT_NEAR(test_value(r2, "link2.theta", t), test_value(r1, "link2.theta", t), 1e-6);
  }
  mbd_run_free(r1);
  mbd_run_free(r2);
  mbd_model_free(m1);
  mbd_model_free(m2);
}

/* full S, T equal to alpha I, beta I give the same run bit for bit; wrong sizes are rejected */
static void test_uk_matrices(void **state) {
  (void)state;
  mbd_model *m = double_pendulum(0);
  mbd_run *r1 = run_with(m, MBD_FORM_UK, 10, 100);
  double S[16] = {0}, T[16] = {0};
  for (int i = 0; i < 4; i++) {
    S[i * 5] = 10;
    T[i * 5] = 100;
  }
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 10;
  o.formulation = MBD_FORM_UK;
  o.ode.kind = MBD_INT_RK45;
  o.ode.rtol = o.ode.atol = 1e-10;
  o.output_every = 0.05;
  o.stab_S = S;
  o.stab_T = T;
  o.stab_n = 4;
  mbd_run *r2 = NULL;
  mbd_error err;
  assert_int_equal(mbd_simulate(m, &o, &r2, &err), MBD_OK);
  assert_true(test_value(r2, "link2.theta", 10) == test_value(r1, "link2.theta", 10));
  mbd_run_free(r2);
  o.stab_n = 3;
  r2 = NULL;
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r2, &err), &err, MBD_E_INPUT, MSG_FORM_UK_STAB, 3, 3,
                   "double pendulum", 4);
  mbd_run_free(r2);
  mbd_run_free(r1);
  mbd_model_free(m);
}

/* spatial models: the Euler-parameter mass block is singular; the augmentation by the
 * normalization rows (udwadia_kalaba.c) must give the motion of the augmented formulation.  A
 * heavy asymmetric body on a spherical joint, spinning and swinging for 3 s, rtol = atol = 1e-10:
 * both solve the same ODE, so they agree to the integration error (measured ~1e-11 m); 1e-7 m
 * leaves room for CVODE's different step choices.  The reaction at the joint agrees as well. */
static void test_uk_spatial(void **state) {
  (void)state;
  mbd_error err;
  mbd_model *m = mbd_model_new("gyro pendulum", 3, &err);
  double g[3] = {0, -9.81, 0};
  mbd_model_set_gravity(m, g);
  mbd_body_spec b = {.name = "b", .mass = 2, .inertia = {0.3, 0.2, 0.4}, .pos = {1, 0, 0},
                     .rot = {1, 0, 0, 0}, .vel = {0, 0, 1}, .omega = {5, 0, 1}};
  int bi = mbd_model_add_body(m, &b, &err);
  mbd_joint_spec j = {.name = "O", .type = MBD_JOINT_SPHERICAL, .body1 = 0, .body2 = bi,
                      .at2 = {-1, 0, 0}};
  assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
  mbd_run *r[2];
  int forms[2] = {MBD_FORM_AUGMENTED, MBD_FORM_UK};
  for (int k = 0; k < 2; k++) {
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 3;
    o.formulation = forms[k];
    o.ode.rtol = o.ode.atol = 1e-10;
    o.alpha = o.beta = 0;
    o.output_every = 0.05;
    r[k] = NULL;
    mbd_error_clear(&err);
    if (mbd_simulate(m, &o, &r[k], &err) != MBD_OK) {
      fail_msg("%s: %s", mbd_formulation_name(forms[k]), err.msg);
    }
  }
  const char *ch[] = {"b.x", "b.y", "b.z", "b.e1", "b.wx", "O.fy"};
  for (int c = 0; c < 6; c++) {
    int ca = mbd_run_find(r[0], ch[c]), cu = mbd_run_find(r[1], ch[c]);
    for (int i = 0; i < mbd_run_nsample(r[0]); i++) {
      double tol = c == 5 ? 1e-6 : 1e-7;  // the reaction is O(20 N): relative 5e-8
      MBD_ASSERT_NEAR(mbd_run_sample(r[1], cu, i), mbd_run_sample(r[0], ca, i), tol);
    }
  }
  mbd_run_free(r[0]);
  mbd_run_free(r[1]);
  mbd_model_free(m);
}

/* the Moore–Penrose inverse of a random 5×4 matrix of rank 2 (and of its transpose) satisfies
 * A A⁺ A = A, A⁺ A A⁺ = A⁺, (A A⁺)ᵀ = A A⁺, (A⁺ A)ᵀ = A⁺ A.  Tolerance 1e-12: entries are O(1)
 * and the SVD is backward stable (errors ~ 10 ε ‖A‖ ‖A⁺‖ with ‖A⁺‖ ~ 1 here). */
static void check_pinv(int m, int n, const double *A) {
  mbd_lsq_ws ws;
  mbd_error err;
  assert_int_equal(mbd_lsq_alloc(&ws, m, n, &err), MBD_OK);
  double X[64], AX[64], XA[64], AXA[64], XAX[64];
  int rank = 0;
  assert_int_equal(mbd_pinv(&ws, m, n, A, m, X, n, 1e-12, &rank), MBD_OK);
  assert_int_equal(rank, 2);
  mbd_gemm(0, 0, m, m, n, 1.0, A, m, X, n, 0.0, AX, m);   // m×m
  mbd_gemm(0, 0, n, n, m, 1.0, X, n, A, m, 0.0, XA, n);   // n×n
  mbd_gemm(0, 0, m, n, m, 1.0, AX, m, A, m, 0.0, AXA, m); // m×n
  mbd_gemm(0, 0, n, m, n, 1.0, XA, n, X, n, 0.0, XAX, n); // n×m
  for (int i = 0; i < m * n; i++) {
    MBD_ASSERT_NEAR(AXA[i], A[i], 1e-12);
    MBD_ASSERT_NEAR(XAX[i], X[i], 1e-12);
  }
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < m; j++) {
      MBD_ASSERT_NEAR(AX[i + m * j], AX[j + m * i], 1e-12);
    }
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      MBD_ASSERT_NEAR(XA[i + n * j], XA[j + n * i], 1e-12);
    }
  }
  mbd_lsq_free(&ws);
}

static void test_pinv_conditions(void **state) {
  (void)state;
  srand(4);
  double U[10], V[8], A[20], At[20];
  for (int i = 0; i < 10; i++) {
    U[i] = 2.0 * rand() / RAND_MAX - 1;
  }
  for (int i = 0; i < 8; i++) {
    V[i] = 2.0 * rand() / RAND_MAX - 1;
  }
  mbd_gemm(0, 0, 5, 4, 2, 1.0, U, 5, V, 2, 0.0, A, 5);  // 5×4 of rank 2
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 4; j++) {
      At[j + 4 * i] = A[i + 5 * j];
    }
  }
  check_pinv(5, 4, A);
  check_pinv(4, 5, At);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uk_vs_augmented),   cmocka_unit_test(test_uk_redundant),
      cmocka_unit_test(test_uk_matrices),       cmocka_unit_test(test_uk_spatial),
      cmocka_unit_test(test_pinv_conditions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
