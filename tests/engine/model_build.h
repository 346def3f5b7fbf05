/* set-up helpers shared by the engine tests that build mechanisms through the public API: adding a
 * body or a joint so that a failure names it, a joint from optional 3-vectors, paper 000's double
 * pendulum, running a simulation and reading a channel. */
#ifndef MBD_MODEL_BUILD_H
#define MBD_MODEL_BUILD_H

#include <string.h>

#include "mbd/model.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* add the body s, failing the test with its name and the engine's message; returns its index */
static inline int test_add_body(mbd_model *m, const mbd_body_spec *s) {
  mbd_error err;
  mbd_error_clear(&err);
  int b = mbd_model_add_body(m, s, &err);
  if (b < 0) {
    fail_msg("body %s: %s", s->name, err.msg);
  }
  return b;
}

/* add the joint s, failing the test with its name and the engine's message; returns its index */
static inline int test_add_joint(mbd_model *m, const mbd_joint_spec *s) {
  mbd_error err;
  mbd_error_clear(&err);
  int j = mbd_model_add_joint(m, s, &err);
  if (j < 0) {
    fail_msg("joint %s: %s", s->name, err.msg);
  }
  return j;
}

/* a joint of the given type between b1 and b2; the points at1, at2 (body frames) and the axes ax1,
 * ax2 are 3-vectors, NULL for zero (points) or none given (axes); a screw's pitch is 0.15 */
static inline int test_joint(mbd_model *m, const char *name, int type, int b1, const double *at1,
                             int b2, const double *at2, const double *ax1, const double *ax2) {
  mbd_joint_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.type = type;
  s.body1 = b1;
  s.body2 = b2;
  if (at1) {
    memcpy(s.at1, at1, 3 * sizeof(double));
  }
  if (at2) {
    memcpy(s.at2, at2, 3 * sizeof(double));
  }
  if (ax1) {
    memcpy(s.axis1, ax1, 3 * sizeof(double));
    s.has_axis1 = 1;
  }
  if (ax2) {
    memcpy(s.axis2, ax2, 3 * sizeof(double));
    s.has_axis2 = 1;
  }
  if (type == MBD_JOINT_SCREW) {  // a pitch of the size of the test models' lengths
    s.pitch = 0.15;
    s.has_pitch = 1;
  }
  return test_add_joint(m, &s);
}

/* paper 000 example 1: the double pendulum's links and pins O and A (DIGEST.md), no gravity and
 * no forces yet; *l1, *l2 receive the links' indices */
static inline mbd_model *paper000_pendulum_links(int *l1, int *l2) {
  mbd_error err;
  mbd_error_clear(&err);
  mbd_model *m = mbd_model_new("double pendulum", 2, &err);
  assert_non_null(m);
  double th1 = 0.5236, th2 = 0.7854;
  mbd_body_spec b1 = {.name = "link1", .mass = 5, .inertia = {10}, .angle = th1};
  b1.pos[0] = cos(th1);
  b1.pos[1] = sin(th1);
  mbd_body_spec b2 = {.name = "link2", .mass = 7, .inertia = {20}, .angle = th2};
  b2.pos[0] = 2 * cos(th1) + cos(th2);
  b2.pos[1] = 2 * sin(th1) + sin(th2);
  *l1 = test_add_body(m, &b1);
  *l2 = test_add_body(m, &b2);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = *l1,
                      .at2 = {-1, 0, 0}};
  mbd_joint_spec a = {.name = "A", .type = MBD_JOINT_REVOLUTE, .body1 = *l1, .body2 = *l2,
                      .at1 = {1, 0, 0}, .at2 = {-1, 0, 0}};
  test_add_joint(m, &o);
  test_add_joint(m, &a);
  return m;
}

/* simulate m with the options o, failing the test with the formulation's name and the message */
static inline mbd_run *test_simulate(mbd_model *m, const mbd_sim_opts *o) {
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_simulate(m, o, &r, &err) != MBD_OK) {
    fail_msg("simulate %s: %s", mbd_formulation_name(o->formulation), err.msg);
  }
  return r;
}

/* the channel ch of the run r at time t (the channel must exist and t lie in the run) */
static inline double test_value(const mbd_run *r, const char *ch, double t) {
  int ok = 0;
  double v = mbd_run_value(r, mbd_run_find(r, ch), t, &ok);
  assert_true(ok);
  return v;
}

#endif
