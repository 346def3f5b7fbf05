/* the formulations of paper 000 against each other: augmented, baumgarte, gcp, kane.
 * Mechanisms are built inline through the public engine API. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations.h"
#include "mbd/integrators.h"
#include "model_build.h"

/* paper 000 example 1: the double pendulum (DIGEST.md), no gravity, with a torque on link 1 and
 * a force at link 2's tip */
static mbd_model *double_pendulum(void) {
  mbd_error err;
  int l1, l2;
  mbd_model *m = paper000_pendulum_links(&l1, &l2);
  mbd_force_spec t = {.body = l1, .value = {10}};
  mbd_force_spec f = {.body = l2, .at = {1, 0, 0}, .value = {8, 7}};
  assert_true(mbd_model_add_torque(m, &t, &err) >= 0);
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

/* paper 000 example 2, case II: four-bar, l0 = 1.9, θ1 = 1.1036, spring K = 100 at 0.524,
 * force (80, 70) at the coupler's CM; links 2 m, CM in the middle */
static mbd_model *fourbar_case2(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("four-bar II", 2, &err);
  double l0 = 1.9, th1 = 1.1036;
  double A[2] = {2 * cos(th1), 2 * sin(th1)}, D[2] = {l0, 0};
  double dx = D[0] - A[0], dy = D[1] - A[1], d = hypot(dx, dy), h = sqrt(4 - d * d / 4);
  double B[2] = {A[0] + dx / 2 - h * dy / d, A[1] + dy / 2 + h * dx / d};
  if (A[1] + dy / 2 - h * dx / d > B[1]) {
    B[0] = A[0] + dx / 2 + h * dy / d;
    B[1] = A[1] + dy / 2 - h * dx / d;
  }
  const double *P[3][2] = {{(double[]){0, 0}, A}, {A, B}, {D, B}};
  double mass[3] = {5, 7, 9}, J[3] = {10, 20, 25};
  const char *names[3] = {"link1", "link2", "link3"};
  int b[3];
  for (int i = 0; i < 3; i++) {
    mbd_body_spec s = {.name = names[i], .mass = mass[i], .inertia = {J[i]}};
    s.pos[0] = (P[i][0][0] + P[i][1][0]) / 2;
    s.pos[1] = (P[i][0][1] + P[i][1][1]) / 2;
    s.angle = atan2(P[i][1][1] - P[i][0][1], P[i][1][0] - P[i][0][0]);
    b[i] = mbd_model_add_body(m, &s, &err);
  }
  mbd_joint_spec js[4] = {
      {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b[0], .at2 = {-1}},
      {.name = "A", .type = MBD_JOINT_REVOLUTE, .body1 = b[0], .at1 = {1}, .body2 = b[1],
       .at2 = {-1}},
      {.name = "B", .type = MBD_JOINT_REVOLUTE, .body1 = b[1], .at1 = {1}, .body2 = b[2],
       .at2 = {1}},
      {.name = "D", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .at1 = {l0}, .body2 = b[2],
       .at2 = {-1}}};
  for (int i = 0; i < 4; i++) {
    assert_true(mbd_model_add_joint(m, &js[i], &err) >= 0);
  }
  assert_true(mbd_model_add_rotational_spring(m, 0, 100, 0, 0.524, &err) >= 0);
  mbd_force_spec f = {.body = b[1], .value = {80, 70}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

static mbd_run *run_with(mbd_model *m, int form, double t_end, double tol, double pos_tol) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = t_end;
  o.formulation = form;
  o.ode.rtol = o.ode.atol = tol;
  o.position_tol = pos_tol;
  o.output_every = 0.05;
  return test_simulate(m, &o);
}

/* the four formulations agree on the double pendulum over 10 s.  Tolerance: with rtol = atol =
 * 1e-10 each run's global error in θ2 over 10 s of this smooth, non-chaotic motion is ~1e-8
 * (measured differences are ~1e-9); 1e-6 leaves room for CVODE's step choices. */
static void test_double_pendulum_agree(void **state) {
  (void)state;
  mbd_model *m = double_pendulum();
  int forms[4] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE};
  double th[4], fx[4];
  for (int i = 0; i < 4; i++) {
    mbd_run *r = run_with(m, forms[i], 10, 1e-10, 1e-12);
    th[i] = test_value(r, "link2.theta", 10);
    fx[i] = test_value(r, "A.fx", 7.5);
    mbd_run_free(r);
  }
  for (int i = 1; i < 4; i++) {
    MBD_ASSERT_NEAR(th[i], th[0], 1e-6);
    // reaction forces: kane's come from one back substitution with the LU of Φ_qd (eq 31–34)
    MBD_ASSERT_NEAR(fx[i], fx[0], 1e-5 * (1 + fabs(fx[0])));
  }
  mbd_model_free(m);
}

/* paper 000 case II: the three methods of the paper agree on x2 over 10 s (same argument) */
static void test_fourbar_agree(void **state) {
  (void)state;
  mbd_model *m = fourbar_case2();
  mbd_run *k = run_with(m, MBD_FORM_KANE, 10, 1e-10, 1e-12);
  mbd_run *g = run_with(m, MBD_FORM_GCP, 10, 1e-10, 1e-12);
  mbd_run *c = run_with(m, MBD_FORM_BAUMGARTE, 10, 1e-10, 1e-12);
  for (double t = 0; t <= 10; t += 2.5) {
    double xk = test_value(k, "link2.x", t);
    MBD_ASSERT_NEAR(test_value(g, "link2.x", t), xk, 1e-6);
    MBD_ASSERT_NEAR(test_value(c, "link2.x", t), xk, 1e-6);
  }
  mbd_run_free(k);
  mbd_run_free(g);
  mbd_run_free(c);
  mbd_model_free(m);
}

/* over 50 s, gcp and kane keep |Φ| below position_tol at every sample (they solve the position
 * analysis to it), while baumgarte's and augmented's violation is only reported */
static void test_constraints_kept(void **state) {
  (void)state;
  mbd_model *m = double_pendulum();
  double tol = 1e-8;
  mbd_run *k = run_with(m, MBD_FORM_KANE, 50, 1e-6, tol);
  mbd_run *g = run_with(m, MBD_FORM_GCP, 50, 1e-6, tol);
  mbd_run *a = run_with(m, MBD_FORM_AUGMENTED, 50, 1e-6, tol);
  assert_true(mbd_run_get_stats(k)->max_position_violation <= tol);
  assert_true(mbd_run_get_stats(g)->max_position_violation <= tol);
  // the unstabilized index-1 system drifts: far above the Newton tolerance after 50 s
  assert_true(mbd_run_get_stats(a)->max_position_violation > 100 * tol);
  assert_true(mbd_run_get_stats(k)->newton_iterations > 0);
  mbd_run_free(k);
  mbd_run_free(g);
  mbd_run_free(a);
  mbd_model_free(m);
}

/* B spans the null space of Φq (paper 000 eq 22–23), and the state completed from the
 * independent coordinates follows it: at a pose moved along the motion, Φq B = 0 and the velocity
 * analysis gives v = B v_i (no drives: C = 0) */
static void test_partial_velocities(void **state) {
  (void)state;
  mbd_model *m = fourbar_case2();
  mbd_error err;
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_data *d = mbd_data_alloc(m, &err);
  assert_non_null(d);
  mbd_data_reset(m, d);
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.position_tol = 1e-12;
  mbd_part *p = NULL;
  assert_int_equal(mbd_part_alloc(&p, m, d, &o, &err), MBD_OK);
  assert_int_equal(mbd_part_choose(p, m, d, &err), MBD_OK);
  int n = m->nv, ma = d->ma, f = p->f;
  assert_int_equal(f, 1);
  // move the independent coordinate by 0.05 and give it a unit rate; Newton finds the rest
  double y[2];
  mbd_part_pack(p, d, y);
  y[0] += 0.05;
  y[1] = 1.0;
  assert_int_equal(mbd_part_state(p, m, d, 0.0, y, 0, &err), 0);
  MBD_ASSERT_NEAR(d->q[p->perm[ma]], y[0], 0);  // the independent coordinate is taken as given
  MBD_ASSERT_NEAR(mbd_active_residual(m, d), 0, 1e-12);  // the position tolerance
  mbd_part_partial_velocities(p, d);
  // Φq B = 0 to round-off: entries of Φq and B are O(1), so |Φq B| ~ n·eps
  double bmax = 0;
  for (int r = 0; r < ma; r++) {
    double s = 0;
    for (int c = 0; c < n; c++) {
      s += MBD_AT(d->phiq_a, ma, r, c) * MBD_AT(p->B, n, c, 0);
    }
    MBD_ASSERT_NEAR(s, 0, 1e-12);
  }
  // v = B v_i: the velocity analysis and the null space agree (same LU, round-off only)
  for (int c = 0; c < n; c++) {
    MBD_ASSERT_NEAR(d->v[c], MBD_AT(p->B, n, c, 0) * y[1], 1e-12);
    if (c != p->perm[ma]) {
      bmax = fmax(bmax, fabs(MBD_AT(p->B, n, c, 0)));
    }
  }
  assert_true(bmax > 0.1);  // the dependent coordinates do move with the independent one
  mbd_part_free(p);
  mbd_data_free(d);
  mbd_model_free(m);
}

/* a pendulum released horizontally swings through the bottom.  With the pivot 2 m from the CM,
 * the θ column of Φq = [I, B s'] has norm 2, so QR with column pivoting makes θ and x dependent
 * and y independent — a choice that is singular where y is extremal (the bottom).  The run must
 * re-partition there, and still agree with the augmented formulation (tolerance as in the double
 * pendulum test) */
static void test_repartition(void **state) {
  (void)state;
  mbd_error err;
  mbd_model *m = mbd_model_new("pendulum", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_body_spec s = {.name = "link", .mass = 1, .inertia = {4.0 / 3}, .pos = {2, 0}};
  int b = mbd_model_add_body(m, &s, &err);
  mbd_joint_spec j = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b,
                      .at2 = {-2}};
  assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
  mbd_run *k = run_with(m, MBD_FORM_KANE, 5, 1e-10, 1e-12);
  mbd_run *g2 = run_with(m, MBD_FORM_GCP, 5, 1e-10, 1e-12);
  mbd_run *a = run_with(m, MBD_FORM_AUGMENTED, 5, 1e-10, 1e-12);
  assert_true(mbd_run_get_stats(k)->repartitions >= 1);
  assert_true(mbd_run_get_stats(g2)->repartitions >= 1);
  for (double t = 0; t <= 5; t += 0.5) {
    MBD_ASSERT_NEAR(test_value(k, "link.theta", t), test_value(a, "link.theta", t), 1e-6);
    MBD_ASSERT_NEAR(test_value(g2, "link.theta", t), test_value(a, "link.theta", t), 1e-6);
  }
  mbd_run_free(k);
  mbd_run_free(g2);
  mbd_run_free(a);
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_pendulum_agree), cmocka_unit_test(test_fourbar_agree),
      cmocka_unit_test(test_constraints_kept),      cmocka_unit_test(test_partial_velocities),
      cmocka_unit_test(test_repartition),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
