/* no allocation inside the integration loop (DESIGN.md "Engine rules", STYLE.md #4).
 *
 * The test is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, so every allocation made
 * by the engine's static libraries goes through the counters below.  A force callback, called
 * inside every right-hand-side evaluation, samples the counter: from the second call on it must
 * never change, for each formulation and each integrator.  (The first call may come before the
 * run's set-up is complete: a system's start-up check evaluates its equations once.)  The
 * same holds for every formulation (udwadia_kalaba included) on a planar and a spatial model, and
 * for a coordinate-level system (paper 004) through its force function.  (SUNDIALS and OpenBLAS are
 * shared libraries and are not counted; SUNDIALS allocates its memory before the first step.) */
#include <stdlib.h>
#include <string.h>

#include "mbd/integrators.h"
#include "mbd/model.h"
#include "mbd/system.h"
#include "mbd_test.h"

static long allocations = 0;

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n) {
  allocations++;
  return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
  allocations++;
  return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
  allocations++;
  return __real_realloc(p, n);
}

typedef struct probe {
  long first;   /* allocations seen at the first call, −1 before it */
  long changed; /* calls that saw a different count */
  long calls;
} probe;

/* sample the allocation counter: from the second call on it must not move */
static void sample(probe *p) {
  if (p->calls == 1) {
    p->first = allocations;
  } else if (p->calls > 1 && allocations != p->first) {
    p->changed++;
  }
  p->calls++;
}

/* a force that samples the allocation counter and returns a constant */
static int sampling_force(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                          mbd_error *err) {
  (void)t, (void)m, (void)d, (void)err;
  sample(ud);
  out[0] = 8;
  out[1] = 7;
  out[2] = 0;
  return 0;
}

static mbd_model *double_pendulum(probe *p) {
  mbd_error err;
  mbd_model *m = mbd_model_new("double pendulum", 2, &err);
  double th1 = 0.5236, th2 = 0.7854;
  mbd_body_spec b1 = {.name = "link1", .mass = 5, .inertia = {10}, .angle = th1};
  b1.pos[0] = cos(th1);
  b1.pos[1] = sin(th1);
  mbd_body_spec b2 = {.name = "link2", .mass = 7, .inertia = {20}, .angle = th2};
  b2.pos[0] = 2 * cos(th1) + cos(th2);
  b2.pos[1] = 2 * sin(th1) + sin(th2);
  int l1 = mbd_model_add_body(m, &b1, &err), l2 = mbd_model_add_body(m, &b2, &err);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = l1,
                      .at2 = {-1}};
  mbd_joint_spec a = {.name = "A", .type = MBD_JOINT_REVOLUTE, .body1 = l1, .body2 = l2,
                      .at1 = {1}, .at2 = {-1}};
  mbd_model_add_joint(m, &o, &err);
  mbd_model_add_joint(m, &a, &err);
  mbd_force_spec f = {.body = l2, .at = {1}, .fn = sampling_force, .ud = p};
  mbd_model_add_force(m, &f, &err);
  return m;
}

/* a spatial double pendulum: a spherical joint to the ground, a revolute between the links */
static mbd_model *spatial_pendulum(probe *p) {
  mbd_error err;
  mbd_model *m = mbd_model_new("spatial pendulum", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_body_spec b1 = {.name = "a", .mass = 1, .inertia = {0.1, 0.1, 0.02}, .pos = {0.5, 0, 0},
                      .rot = {1, 0, 0, 0}, .omega = {0, 0, 1}};
  mbd_body_spec b2 = {.name = "b", .mass = 2, .inertia = {0.2, 0.2, 0.05}, .pos = {1.5, 0, 0},
                      .rot = {1, 0, 0, 0}};
  int a = mbd_model_add_body(m, &b1, &err), b = mbd_model_add_body(m, &b2, &err);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_SPHERICAL, .body1 = 0, .body2 = a,
                      .at2 = {-0.5}};
  mbd_joint_spec r = {.name = "R", .type = MBD_JOINT_REVOLUTE, .body1 = a, .body2 = b,
                      .at1 = {0.5}, .at2 = {-0.5}, .axis1 = {0, 1, 0}, .axis2 = {0, 1, 0},
                      .has_axis1 = 1, .has_axis2 = 1};
  mbd_model_add_joint(m, &o, &err);
  mbd_model_add_joint(m, &r, &err);
  mbd_force_spec f = {.body = b, .at = {0.5}, .fn = sampling_force, .ud = p};
  mbd_model_add_force(m, &f, &err);
  return m;
}

static void run_model(mbd_model *(*make)(probe *), const char *what) {
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_UK};
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  for (int fi = 0; fi < 5; fi++) {
    for (int ii = 0; ii < 4; ii++) {
      probe p = {-1, 0, 0};
      mbd_model *m = make(&p);
      mbd_sim_opts o;
      mbd_sim_opts_default(&o);
      o.t_end = 5;
      o.formulation = forms[fi];
      o.integrator = ints[ii];
      o.step = 0.01;
      o.output_every = 0.01;
      mbd_run *r = NULL;
      mbd_error err;
      mbd_error_clear(&err);
      if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
        fail_msg("%s, %s + %s: %s", what, mbd_formulation_name(forms[fi]),
                 mbd_integrator_name(ints[ii]), err.msg);
      }
      // hundreds of evaluations, and not one allocation between the first and the last
      assert_true(p.calls > 100);
      if (p.changed != 0) {
        fail_msg("%s, %s + %s: %ld of %ld force calls saw new allocations", what,
                 mbd_formulation_name(forms[fi]), mbd_integrator_name(ints[ii]), p.changed,
                 p.calls);
      }
      mbd_run_free(r);
      mbd_model_free(m);
    }
  }
}

static void test_no_allocation(void **state) {
  (void)state;
  run_model(double_pendulum, "planar double pendulum");
  run_model(spatial_pendulum, "spatial double pendulum");
}

/* relative joint coordinates (paper 002): every solver on the joint coordinates, each integrator,
 * the numeric stages and the equations on the tape (compiled code runs the same path) */
static void test_no_allocation_relative(void **state) {
  (void)state;
  int solvers[] = {MBD_FORM_BAUMGARTE, MBD_FORM_AUGMENTED, MBD_FORM_GCP, MBD_FORM_KANE};
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  mbd_model *(*makes[2])(probe *) = {double_pendulum, spatial_pendulum};
  for (int ci = 0; ci < 2; ci++) {
  for (int mi = 0; mi < 2; mi++) {
    for (int si = 0; si < 4; si++) {
      for (int ii = 0; ii < 4; ii++) {
        probe p = {-1, 0, 0};
        mbd_model *m = makes[mi](&p);
        mbd_sim_opts o;
        mbd_sim_opts_default(&o);
        o.t_end = 2;
        o.formulation = MBD_FORM_RELATIVE;
        o.solver = solvers[si];
        o.code = ci ? MBD_CODE_TAPE : MBD_CODE_NUMERIC;
        o.integrator = ints[ii];
        o.step = 0.01;
        o.output_every = 0.01;
        mbd_run *r = NULL;
        mbd_error err;
        mbd_error_clear(&err);
        if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
          fail_msg("%s, relative %s + %s: %s", mbd_model_name(m), mbd_formulation_name(solvers[si]),
                   mbd_integrator_name(ints[ii]), err.msg);
        }
        assert_true(p.calls > 100);
        if (p.changed != 0) {
          fail_msg("%s, relative %s + %s: %ld of %ld force calls saw new allocations",
                   mbd_model_name(m), mbd_formulation_name(solvers[si]),
                   mbd_integrator_name(ints[ii]), p.changed, p.calls);
        }
        mbd_run_free(r);
        mbd_model_free(m);
      }
    }
  }
  }
}

/* the force of a coordinate-level system: gravity on a point mass */
static int system_force(void *ud, double t, const double *q, const double *qd, double *F,
                        mbd_error *err) {
  (void)t, (void)q, (void)qd, (void)err;
  sample(ud);
  F[0] = 0;
  F[1] = -9.81;
  return 0;
}

/* paper 004's pendulum as a coordinate-level system: x² + y² − 1 = 0, stabilized */
static void test_no_allocation_system(void **state) {
  (void)state;
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  for (int ii = 0; ii < 4; ii++) {
    mbd_sym_ctx *ctx = mbd_sym_ctx_new();
    const char *names[2] = {"x", "y"};
    mbd_error err;
    mbd_system *s = mbd_system_new(ctx, "pendulum", 2, names, &err);
    assert_non_null(s);
    mbd_sym_id x = mbd_system_q(s, 0), y = mbd_system_q(s, 1);
    mbd_sym_id f = mbd_sym_sub(ctx, mbd_sym_add(ctx, mbd_sym_powc(ctx, x, 2), mbd_sym_powc(ctx, y, 2)),
                               mbd_sym_const(ctx, 1));
    assert_int_equal(mbd_system_add_holonomic(s, f, &err), 0);
    double q0[2] = {1, 0}, qd0[2] = {0, 0}, S = 10, T = 25;
    assert_int_equal(mbd_system_set_initial(s, q0, qd0, &err), MBD_OK);
    probe p = {-1, 0, 0};
    assert_int_equal(mbd_system_set_force_fn(s, system_force, &p, &err), MBD_OK);
    mbd_sys_opts o;
    mbd_sys_opts_default(&o);
    o.t_end = 5;
    o.integrator = ints[ii];
    o.rtol = o.atol = 1e-8;
    o.step = 0.01;
    o.output_every = 0.01;
    o.S = &S;
    o.T = &T;
    mbd_run *r = NULL;
    assert_int_equal(mbd_system_simulate(s, &o, &r, &err), MBD_OK);
    assert_true(p.calls > 100);
    if (p.changed != 0) {
      fail_msg("system + %s: %ld of %ld force calls saw new allocations",
               mbd_integrator_name(ints[ii]), p.changed, p.calls);
    }
    mbd_run_free(r);
    mbd_system_free(s);
    mbd_sym_ctx_free(ctx);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_allocation),
                                     cmocka_unit_test(test_no_allocation_system),
                                     cmocka_unit_test(test_no_allocation_relative)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
