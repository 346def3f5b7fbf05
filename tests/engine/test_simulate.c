/* the simulation driver (engine/sim/simulate.c): recording that never steers the integration, a
 * model shared by runs, stop_when located by root finding, every formulation through one table */
#include <stdlib.h>
#include <string.h>

#include "mbd/integrators.h"
#include "mbd/model.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* a planar slider-crank under gravity: kane and gcp integrate only the independent coordinate */
static mbd_model *slider_crank(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("slider crank", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  double r = 0.3, l = 0.8, th = 0.7853981633974483;
  double bx = r * cos(th) + sqrt(l * l - r * sin(th) * r * sin(th)), ph = -asin(r * sin(th) / l);
  mbd_body_spec c = {.name = "crank", .mass = 2, .inertia = {0.015},
                     .pos = {r / 2 * cos(th), r / 2 * sin(th)}, .angle = th};
  mbd_body_spec o = {.name = "rod", .mass = 1.5, .inertia = {0.08},
                     .pos = {r * cos(th) + l / 2 * cos(ph), r * sin(th) / 2}, .angle = ph};
  mbd_body_spec s = {.name = "slider", .mass = 1, .inertia = {0.001}, .pos = {bx, 0}};
  int bc = mbd_model_add_body(m, &c, &err), bo = mbd_model_add_body(m, &o, &err),
      bs = mbd_model_add_body(m, &s, &err);
  mbd_joint_spec j[4] = {
      {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = bc, .at2 = {-r / 2}},
      {.name = "A", .type = MBD_JOINT_REVOLUTE, .body1 = bc, .at1 = {r / 2}, .body2 = bo,
       .at2 = {-l / 2}},
      {.name = "B", .type = MBD_JOINT_REVOLUTE, .body1 = bo, .at1 = {l / 2}, .body2 = bs},
      {.name = "S", .type = MBD_JOINT_TRANSLATIONAL, .body1 = 0, .body2 = bs, .axis1 = {1, 0},
       .has_axis1 = 1}};
  for (int k = 0; k < 4; k++) {
    assert_true(mbd_model_add_joint(m, &j[k], &err) >= 0);
  }
  return m;
}

static mbd_run *run(const mbd_model *m, int form, double every) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 2;
  o.formulation = form;
  o.output_every = every;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_sim_run(m, &o, &r, &err) != MBD_OK) {
    fail_msg("%s: %s", mbd_formulation_name(form), err.msg);
  }
  return r;
}

static double last(const mbd_run *r, const char *ch) {
  return mbd_run_sample(r, mbd_run_find(r, ch), mbd_run_nsample(r) - 1);
}

/* recording never steers the integration: sampled every 0.5 s or every 0.01 s, a gcp or kane
 * run takes the same steps and ends in the same state, to the last bit (before the driver kept
 * samples on their own data, the dependent coordinates' Newton started from the last sample and
 * the two differed by 9e-9 rad).  Two runs on one model give the same numbers too. */
static void test_sampling_does_not_steer(void **state) {
  (void)state;
  mbd_model *m = slider_crank();
  mbd_error err;
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  int forms[] = {MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_AUGMENTED};
  for (int f = 0; f < 3; f++) {
    mbd_run *coarse = run(m, forms[f], 0.5), *fine = run(m, forms[f], 0.01);
    mbd_run *again = run(m, forms[f], 0.5);
    assert_int_equal(mbd_run_get_stats(coarse)->nfev, mbd_run_get_stats(fine)->nfev);
    assert_int_equal(mbd_run_get_stats(coarse)->steps, mbd_run_get_stats(fine)->steps);
    assert_int_equal(mbd_run_nsample(coarse), 5);
    assert_int_equal(mbd_run_nsample(fine), 201);
    MBD_ASSERT_NEAR(last(coarse, "crank.theta"), last(fine, "crank.theta"), 0);
    MBD_ASSERT_NEAR(last(coarse, "slider.x"), last(fine, "slider.x"), 0);
    MBD_ASSERT_NEAR(last(coarse, "crank.theta"), last(again, "crank.theta"), 0);
    MBD_ASSERT_NEAR(last(coarse, "O.fx"), last(again, "O.fx"), 0);
    mbd_run_free(coarse);
    mbd_run_free(fine);
    mbd_run_free(again);
  }
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* stop_when                                                                                   */

static double agm(double a, double b) {
  for (int i = 0; i < 60; i++) {
    double m = 0.5 * (a + b);
    b = sqrt(a * b);
    a = m;
  }
  return a;
}

/* g = θ + π/2: the rod passes the vertical */
static int vertical(void *ud, double t, const mbd_model *m, const mbd_data *d, double *g,
                    mbd_error *err) {
  (void)t, (void)err;
  int ok = 0, *calls = ud;
  (*calls)++;
  *g = mbd_channel_value(m, d, mbd_channel_find(m, "rod.theta"), &ok) + M_PI / 2;
  return ok ? 0 : -1;
}

/* the message of the failing stop function below (the test's own text, passed through) */
#define STOP_FAILED "stop_when: boom at t = %g"

static int failing(void *ud, double t, const mbd_model *m, const mbd_data *d, double *g,
                   mbd_error *err) {
  (void)ud, (void)m, (void)d, (void)g;
  return MBD_FAIL(err, MBD_E_CALLBACK, STOP_FAILED, t);
}

/* a compound pendulum released at rest θ0 = 1.2 rad from the vertical reaches it after a quarter
 * of its exact period T = T0 / agm(1, cos(θ0/2)) (T0 = 2π√(I_O/(m g d))).  stop_when ends the run
 * there; the root is located on the integrator's dense output, so its error is the trajectory's:
 * with rtol = atol = 1e-12 an error of ~1e-12 rad in θ at ω ≈ 4 rad/s is ~1e-12 s — tolerance
 * 1e-10 s (the figure the engine promises).  rk4 (h = 1e-3) brackets the sign change over a step
 * and bisects by re-taking it: its error is the method's, ~h⁴ ≈ 1e-12 relative over a quarter
 * period — the same tolerance holds; rkf45 bisects the same way on its own steps. */
static void test_stop_when_quarter_period(void **state) {
  (void)state;
  double mass = 1.5, L = 1.2, d = L / 2, g = 9.81, J = mass * L * L / 12;
  double IO = J + mass * d * d, T0 = 2 * M_PI * sqrt(IO / (mass * g * d));
  double th0 = 1.2, T = T0 / agm(1, cos(th0 / 2));
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_UK};
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4, MBD_INT_RKF45};
  for (int fi = 0; fi < 5; fi++) {
    for (int ii = 0; ii < 5; ii++) {
      mbd_error err;
      mbd_model *m = mbd_model_new("pendulum", 2, &err);
      double gv[2] = {0, -g}, th = -M_PI / 2 + th0;
      mbd_model_set_gravity(m, gv);
      mbd_body_spec s = {.name = "rod", .mass = mass, .inertia = {J},
                         .pos = {d * cos(th), d * sin(th)}, .angle = th};
      int b = mbd_model_add_body(m, &s, &err);
      mbd_joint_spec j = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b,
                          .at2 = {-d}};
      assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
      mbd_sim_opts o;
      mbd_sim_opts_default(&o);
      o.t_end = T;  // the run would end a quarter period later without the stop
      o.formulation = forms[fi];
      o.ode.kind = ints[ii];
      o.ode.rtol = o.ode.atol = 1e-12;
      o.position_tol = 1e-12;
      o.alpha = o.beta = 0;
      o.ode.step = 1e-3;
      o.output_every = 0.01;
      int calls = 0;
      o.stop_fn = vertical;
      o.stop_ud = &calls;
      mbd_run *r = NULL;
      if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
        fail_msg("%s + %s: %s", mbd_formulation_name(forms[fi]), mbd_integrator_name(ints[ii]),
                 err.msg);
      }
      double ts = mbd_run_stop_time(r);
      int n = mbd_run_nsample(r);
      const double *t = mbd_run_times(r);
      print_message("%-14s %-5s stop at %.13f s, T/4 = %.13f s, error %.2g s, %d root calls\n",
                    mbd_formulation_name(forms[fi]), mbd_integrator_name(ints[ii]), ts, T / 4,
                    ts - T / 4, calls);
      MBD_ASSERT_NEAR(ts, T / 4, 1e-10);
      // the last sample is the stop, the one before it the last grid point before it
      MBD_ASSERT_NEAR(t[n - 1], ts, 0);
      assert_true(t[n - 2] < ts && t[n - 2] > ts - 0.01 - 1e-12);
      MBD_ASSERT_NEAR(mbd_run_sample(r, mbd_run_find(r, "rod.theta"), n - 1), -M_PI / 2, 1e-10);
      assert_true(calls > 0);
      mbd_run_free(r);
      mbd_model_free(m);
    }
  }
}

/* no crossing: the run reaches t_end and stop_time is NaN; a failing function stops the run with
 * its message and keeps what was recorded */
static void test_stop_when_other_outcomes(void **state) {
  (void)state;
  mbd_error err;
  mbd_model *m = mbd_model_new("pendulum", 2, &err);
  double gv[2] = {0, -9.81};
  mbd_model_set_gravity(m, gv);
  mbd_body_spec s = {.name = "rod", .mass = 1, .inertia = {0.1}, .pos = {0, -0.5},
                     .angle = -M_PI / 2 + 0.1};
  int b = mbd_model_add_body(m, &s, &err);
  mbd_joint_spec j = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b,
                      .at2 = {-0.5}};
  assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 0.05;  // too short to reach the vertical (a quarter period is ~0.37 s)
  int calls = 0;
  o.stop_fn = vertical;
  o.stop_ud = &calls;
  mbd_run *r = NULL;
  assert_int_equal(mbd_simulate(m, &o, &r, &err), MBD_OK);
  assert_true(isnan(mbd_run_stop_time(r)));
  MBD_ASSERT_NEAR(mbd_run_times(r)[mbd_run_nsample(r) - 1], 0.05, 0);
  mbd_run_free(r);
  o.stop_fn = failing;
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_CALLBACK, STOP_FAILED, 0.0);
  assert_non_null(r);
  mbd_run_free(r);
  mbd_model_free(m);
}


/* a run keeps the model's assembly while it stands (issue 23, step 3): the same model simulated
 * again assembles nothing and gives the same numbers to the bit; a new tolerance, a builder call
 * or a drive function that now gives another value at t = 0 assembles it again, and the run
 * starts from the new assembled state */
static double drive_angle = 0.7853981633974483;

static int crank_drive(void *ud, double t, double out[3], mbd_error *err) {
  (void)ud, (void)err;
  out[0] = drive_angle + 2 * t;
  out[1] = 2;
  out[2] = 0;
  return 0;
}

static mbd_run *simulate(mbd_model *m, double position_tol) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 0.5;
  o.output_every = 0.1;
  o.formulation = MBD_FORM_KANE;
  if (position_tol > 0) {
    o.position_tol = position_tol;
  }
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
    fail_msg("simulate: %s", err.msg);
  }
  return r;
}

static void test_assembly_reuse(void **state) {
  (void)state;
  mbd_model *m = slider_crank();
  mbd_run *a = simulate(m, 0), *b = simulate(m, 0);
  assert_int_equal(mbd_model_assemblies(m), 1);
  double xa = last(a, "slider.x"), xb = last(b, "slider.x");
  assert_memory_equal(&xa, &xb, sizeof xa);
  mbd_run_free(b);
  b = simulate(m, 1e-11);  // another tolerance
  assert_int_equal(mbd_model_assemblies(m), 2);
  mbd_run_free(b);
  // a force changes no assembled quantity (positions, velocities, rows, channels): kept, and the
  // run has the force
  mbd_error err;
  mbd_force_spec f = {.body = 3, .value = {1, 0}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  b = simulate(m, 1e-11);
  assert_int_equal(mbd_model_assemblies(m), 2);
  assert_true(fabs(last(b, "slider.x") - xa) > 1e-6);
  mbd_run_free(b);
  // a body: new coordinates and channels, assembled again
  mbd_body_spec free_body = {.name = "free", .mass = 1, .inertia = {0.01}, .pos = {2, 1}};
  assert_true(mbd_model_add_body(m, &free_body, &err) >= 0);
  b = simulate(m, 1e-11);
  assert_int_equal(mbd_model_assemblies(m), 3);
  assert_true(mbd_run_find(b, "free.y") >= 0);
  mbd_run_free(a);
  mbd_run_free(b);
  mbd_model_free(m);
  // a driven crank (a kinematic run): the drive's value at t = 0 decides the assembled state
  m = slider_crank();
  int O = mbd_model_find_joint(m, "O");
  assert_true(O >= 0);
  assert_true(mbd_model_add_drive(m, O, crank_drive, NULL, &err) >= 0);
  mbd_kin_opts ko;
  memset(&ko, 0, sizeof ko);
  ko.t_end = 0.5;
  ko.steps = 5;
  long before = mbd_model_assemblies(m);
  for (int k = 0; k < 3; k++) {
    if (k == 2) {
      drive_angle = 1.0;  // the same function, another value
    }
    mbd_run *r = NULL;
    if (mbd_kinematics(m, &ko, &r, &err) != MBD_OK) {
      fail_msg("kinematics: %s", err.msg);
    }
    assert_int_equal(mbd_model_assemblies(m), before + (k == 2 ? 2 : 1));
    // the crank's angle at t = 0 is the drive's (Newton to 1e-10: the run's default tolerance)
    MBD_ASSERT_NEAR(mbd_run_sample(r, mbd_run_find(r, "crank.theta"), 0), drive_angle, 1e-9);
    mbd_run_free(r);
  }
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sampling_does_not_steer),
      cmocka_unit_test(test_stop_when_quarter_period),
      cmocka_unit_test(test_stop_when_other_outcomes),
      cmocka_unit_test(test_assembly_reuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
