/* the kinematics stages: rows and forces scattered through a pose Jacobian that is not the
 * identity (the chain rule relative coordinates and flexible bodies build on) */
#include <stdlib.h>
#include <string.h>

#include "../../engine/kinematics/kinematics.h"
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pose_jacobian_scatter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
