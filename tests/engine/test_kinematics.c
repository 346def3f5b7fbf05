/* the kinematics stages: rows and forces scattered through a pose Jacobian that is not the
 * identity (the chain rule relative coordinates and flexible bodies build on) */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
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

/* the planar revolute joints written out (kinematics/constraints.c) give the generic rows' Φ,
 * Φq, γ and local rows to the bit: a double pendulum hung from the ground (a ground side and a
 * body–body joint, points off the axes), moving, through the full and the γ-only evaluation */
static void test_planar_revolute_direct(void **state) {
  (void)state;
  mbd_error err;
  mbd_model *m = mbd_model_new("double pendulum", 2, &err);
  mbd_body_spec s1 = {.name = "l1", .mass = 5, .inertia = {10}, .pos = {0.86, 0.5},
                      .angle = 0.5236};
  mbd_body_spec s2 = {.name = "l2", .mass = 7, .inertia = {20}, .pos = {2.43, 1.71},
                      .angle = 0.7854};
  int b1 = mbd_model_add_body(m, &s1, &err), b2 = mbd_model_add_body(m, &s2, &err);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = b1,
                      .at1 = {0.1, -0.2}, .at2 = {-1, 0.05}};
  mbd_joint_spec a = {.name = "A", .type = MBD_JOINT_REVOLUTE, .body1 = b1, .body2 = b2,
                      .at1 = {1, 0.02}, .at2 = {-1, -0.03}};
  assert_true(mbd_model_add_joint(m, &o, &err) >= 0);
  assert_true(mbd_model_add_joint(m, &a, &err) >= 0);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_data *dd = mbd_data_alloc(m, &err), *dg = mbd_data_alloc(m, &err);
  assert_non_null(dd);
  assert_non_null(dg);
  mbd_data_reset(m, dd);
  mbd_data_reset(m, dg);
  dg->direct_rows = 0;
  // a state off the constraints, moving
  static const double dq[6] = {0.013, -0.021, 0.3, 0.007, 0.011, -0.4};
  static const double v[6] = {0.7, -1.1, 2.3, -0.4, 0.9, -1.7};
  for (int i = 0; i < 6; i++) {
    dd->q[i] = dg->q[i] = dd->q[i] + dq[i];
    dd->v[i] = dg->v[i] = v[i];
  }
  size_t mr = (size_t)m->mrow, nv = (size_t)m->nv;
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      for (int i = 0; i < 6; i++) {
        dd->v[i] = dg->v[i] = 0.5 * v[5 - i];  // only the velocities move: the γ pass
      }
      mbd_stage_touch(dd, MBD_STAGE_POSITION);
      mbd_stage_touch(dg, MBD_STAGE_POSITION);
    } else {
      mbd_stage_touch(dd, MBD_STAGE_NONE);
      mbd_stage_touch(dg, MBD_STAGE_NONE);
    }
    assert_int_equal(mbd_eval_to(m, dd, MBD_STAGE_VELOCITY, &err), MBD_OK);
    assert_int_equal(mbd_eval_to(m, dg, MBD_STAGE_VELOCITY, &err), MBD_OK);
    assert_memory_equal(dd->phi, dg->phi, mr * sizeof(double));
    assert_memory_equal(dd->gamma, dg->gamma, mr * sizeof(double));
    assert_memory_equal(dd->phiq, dg->phiq, mr * nv * sizeof(double));
    assert_memory_equal(dd->rowJ, dg->rowJ, mr * MBD_NLOC * sizeof(double));
    assert_memory_equal(dd->gamma_a, dg->gamma_a, (size_t)dd->ma * sizeof(double));
  }
  mbd_data_free(dd);
  mbd_data_free(dg);
  mbd_model_free(m);
}


/* the evaluation's stages (kinematics/stages.c): mbd_eval_to realizes each stage once per state,
 * a change of v alone keeps the positions' stage, and what the shorter path gives is the same
 * to the bit as every stage from the start (the same operations on the same numbers) */
static void count_stage(void *ud, const mbd_model *m, const mbd_data *d, int stage) {
  (void)m, (void)d;
  ((int *)ud)[stage]++;
}

static void assert_same_stages(const mbd_model *m, const mbd_data *a, const mbd_data *b) {
  size_t mr = (size_t)m->mrow, nv = (size_t)m->nv;
  assert_memory_equal(a->phi, b->phi, mr * sizeof(double));
  assert_memory_equal(a->phiq, b->phiq, mr * nv * sizeof(double));
  assert_memory_equal(a->phit, b->phit, mr * sizeof(double));
  assert_memory_equal(a->gamma, b->gamma, mr * sizeof(double));
  assert_memory_equal(a->gamma_a, b->gamma_a, (size_t)a->ma * sizeof(double));
  assert_memory_equal(a->M, b->M, nv * nv * sizeof(double));
  assert_memory_equal(a->Q, b->Q, nv * sizeof(double));
}

static void test_stages(void **state) {
  (void)state;
  mbd_model *m = pendulum();
  mbd_error err;
  mbd_data *d = mbd_data_alloc(m, &err), *ref = mbd_data_alloc(m, &err);
  assert_non_null(d);
  assert_non_null(ref);
  mbd_data_reset(m, d);
  mbd_data_reset(m, ref);
  int n[5] = {0, 0, 0, 0, 0};
  d->record = (mbd_stage_recorder){count_stage, n};
  // from the state alone: each stage once, then nothing again at the same state
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_int_equal(d->stage, MBD_STAGE_FORCES);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_POSITION, &err), MBD_OK);
  assert_true(n[MBD_STAGE_POSITION] == 1 && n[MBD_STAGE_VELOCITY] == 1 && n[MBD_STAGE_FORCES] == 1);
  // only v moves: the velocity and forces stages again, the rows' values stand
  d->v[2] += 0.7;
  ref->v[2] += 0.7;
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_true(n[MBD_STAGE_POSITION] == 1 && n[MBD_STAGE_VELOCITY] == 2 && n[MBD_STAGE_FORCES] == 2);
  assert_int_equal(mbd_eval_anew(m, ref, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_same_stages(m, d, ref);
  // q moves: the position stage alone (a Newton iteration), then γ at the same positions
  d->q[0] += 0.01;
  ref->q[0] += 0.01;
  mbd_stage_touch(d, MBD_STAGE_NONE);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_POSITION, &err), MBD_OK);
  assert_int_equal(d->stage, MBD_STAGE_POSITION);
  assert_true(n[MBD_STAGE_POSITION] == 2 && n[MBD_STAGE_VELOCITY] == 2);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_true(n[MBD_STAGE_POSITION] == 2 && n[MBD_STAGE_VELOCITY] == 3 && n[MBD_STAGE_FORCES] == 3);
  assert_int_equal(mbd_eval_anew(m, ref, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_same_stages(m, d, ref);
  // the forces' inputs alone (Q changed by hand): the forces stage again, nothing before it
  d->Q[0] = 1e6;
  mbd_stage_touch(d, MBD_STAGE_VELOCITY);
  assert_int_equal(mbd_eval_to(m, d, MBD_STAGE_FORCES, &err), MBD_OK);
  assert_true(n[MBD_STAGE_VELOCITY] == 3 && n[MBD_STAGE_FORCES] == 4);
  assert_same_stages(m, d, ref);
  // the accelerations are a formulation's: marked, then lowered by a new time
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  assert_int_equal(n[MBD_STAGE_ACCELERATION], 1);
  d->t = 0.1;
  mbd_stage_touch(d, MBD_STAGE_NONE);
  assert_int_equal(d->stage, MBD_STAGE_NONE);
  mbd_data_free(d);
  mbd_data_free(ref);
  mbd_model_free(m);
}


#ifndef NDEBUG
/* checking builds (no NDEBUG: the ASan/UBSan build of CI): a write of the state without
 * mbd_stage_touch stops the program at the next mbd_eval_to, instead of skipping the stages on
 * stale values (a child process does it; the parent sees its SIGABRT) */
static void test_stage_check(void **state) {
  (void)state;
  mbd_model *m = pendulum();
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    mbd_error err;
    mbd_data *d = mbd_data_alloc(m, &err);
    mbd_data_reset(m, d);
    mbd_eval_to(m, d, MBD_STAGE_VELOCITY, &err);
    d->q[0] += 0.1;  // (no mbd_stage_touch)
    freopen("/dev/null", "w", stderr);
    mbd_eval_to(m, d, MBD_STAGE_VELOCITY, &err);
    _exit(0);  // not reached in a checking build
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  mbd_model_free(m);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pose_jacobian_scatter),
      cmocka_unit_test(test_planar_revolute_direct),
      cmocka_unit_test(test_stages),
#ifndef NDEBUG
      cmocka_unit_test(test_stage_check),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
