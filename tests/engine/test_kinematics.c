/* the kinematics stages and the driver's data path: rows and forces scattered through a pose
 * Jacobian that is not the identity (the chain rule relative coordinates and flexible bodies
 * build on), recording that never steers the integration, a model shared by runs */
#include <stdlib.h>
#include <string.h>

#include "../../engine/kinematics/kinematics.h"
#include "mbd/integrators.h"
#include "mbd/model.h"
#include "mbd_test.h"

/* a planar compound pendulum with a spring to the ground: rows, gravity and a spring force */
static mbd_model *pendulum(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("pendulum", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_body_spec s = {.name = "link", .mass = 2, .inertia = {0.3}, .pos = {0.4, -0.3},
                     .angle = -0.6435011087932844, .omega = {1.5}};
  int b = mbd_model_add_body(m, &s, &err);
  mbd_joint_spec j = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b,
                      .at2 = {-0.5, 0}};
  assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
  mbd_spring_spec k = {.name = "k", .body1 = b, .at1 = {0.5, 0}, .body2 = 0, .at2 = {1, 0.2},
                       .k = 40, .c = 0.5, .length = 0.3};
  assert_true(mbd_model_add_spring(m, &k, &err) >= 0);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  return m;
}

/* Φ_v = Φ_Y J, γ_v = γ_Y − Φ_Y h; M_v = Jᵀ M_Y J, Q_v = Jᵀ(Q_Y − M_Y h) for a body whose pose
 * coordinates depend on its block through a Jacobian J (3×3 here) and a quadratic term h.  Every
 * product is of O(1) numbers summed over 3 terms: round-off below 1e-14, tolerance 1e-12. */
static void test_pose_jacobian_scatter(void **state) {
  (void)state;
  mbd_model *m = pendulum();
  mbd_error err;
  mbd_data *d = mbd_data_alloc(m, &err);
  assert_non_null(d);
  mbd_data_reset(m, d);
  // identity: the pose coordinates are the block (today's rigid body)
  assert_int_equal(mbd_kin_update(m, d, 0, &err), MBD_OK);
  assert_int_equal(mbd_forces_eval(m, d, &err), MBD_OK);
  int n = m->nv, mr = m->mrow;
  assert_int_equal(n, 3);
  double PY[2 * 3], gY[2], MY[9], QY[3];
  memcpy(PY, d->phiq, sizeof PY);
  memcpy(gY, d->gamma, sizeof gY);
  memcpy(MY, d->M, sizeof MY);
  memcpy(QY, d->Q, sizeof QY);
  // the same pose reached through a block map: J (column-major 3×3) and h
  static const double J[9] = {0.9, 0.2, -0.1, 0.3, 1.1, 0.05, -0.2, 0.4, 0.8};
  static const double h[3] = {0.7, -0.4, 1.3};
  mbd_kin_poses(m, d);
  d->pose[1].J = J;
  memcpy(d->pose[1].h, h, sizeof h);
  assert_int_equal(mbd_constraints_eval(m, d, 0, &err), MBD_OK);
  assert_int_equal(mbd_forces_eval(m, d, &err), MBD_OK);
  for (int r = 0; r < mr; r++) {
    double ph = 0;
    for (int c = 0; c < n; c++) {
      double s = 0;
      for (int k = 0; k < 3; k++) {
        s += MBD_AT(PY, mr, r, k) * MBD_AT(J, 3, k, c);
      }
      MBD_ASSERT_NEAR(MBD_AT(d->phiq, mr, r, c), s, 1e-12);
      ph += MBD_AT(PY, mr, r, c) * h[c];
    }
    MBD_ASSERT_NEAR(d->gamma[r], gY[r] - ph, 1e-12);
  }
  for (int i = 0; i < n; i++) {
    double q = 0;
    for (int r = 0; r < 3; r++) {
      double mh = 0;
      for (int c = 0; c < 3; c++) {
        mh += MBD_AT(MY, 3, r, c) * h[c];
      }
      q += MBD_AT(J, 3, r, i) * (QY[r] - mh);
    }
    MBD_ASSERT_NEAR(d->Q[i], q, 1e-12);
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          s += MBD_AT(J, 3, r, i) * MBD_AT(MY, 3, r, c) * MBD_AT(J, 3, c, j);
        }
      }
      MBD_ASSERT_NEAR(MBD_AT(d->M, n, i, j), s, 1e-12);
    }
  }
  mbd_data_free(d);
  mbd_model_free(m);
}

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pose_jacobian_scatter),
      cmocka_unit_test(test_sampling_does_not_steer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
