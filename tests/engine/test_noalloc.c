/* no allocation inside the integration loop (DESIGN.md "Engine rules", STYLE.md #4).
 *
 * The test is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, so every allocation made
 * by the engine's static libraries goes through the counters below.  A force callback, called
 * inside every right-hand-side evaluation, samples the counter: from the second call on it must
 * never change, for each formulation and each integrator.  (The first call is the sample at t0,
 * delivered before the integrator sets up its workspace — rk4 allocates its stages then.)  (SUNDIALS and OpenBLAS are shared
 * libraries and are not counted; SUNDIALS allocates its memory before the first step.) */
#include <stdlib.h>
#include <string.h>

#include "mbd/integrators.h"
#include "mbd/model.h"
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

/* a force that samples the allocation counter and returns a constant */
static int sampling_force(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                          mbd_error *err) {
  (void)t, (void)m, (void)d, (void)err;
  probe *p = ud;
  if (p->calls == 1) {
    p->first = allocations;
  } else if (p->calls > 1 && allocations != p->first) {
    p->changed++;
  }
  p->calls++;
  out[0] = 8;
  out[1] = 7;
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

static void test_no_allocation(void **state) {
  (void)state;
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE};
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  for (int fi = 0; fi < 4; fi++) {
    for (int ii = 0; ii < 4; ii++) {
      probe p = {-1, 0, 0};
      mbd_model *m = double_pendulum(&p);
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
      assert_int_equal(mbd_simulate(m, &o, &r, &err), MBD_OK);
      // hundreds of evaluations, and not one allocation between the first and the last
      assert_true(p.calls > 100);
      if (p.changed != 0) {
        fail_msg("%s + %s: %ld of %ld force calls saw new allocations",
                 mbd_formulation_name(forms[fi]), mbd_integrator_name(ints[ii]), p.changed,
                 p.calls);
      }
      mbd_run_free(r);
      mbd_model_free(m);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_allocation)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
