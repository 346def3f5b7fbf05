/* the equilibrium and the linearization (engine/linear, mbd/linear.h) through the public engine
 * API: closed forms, every formulation's A, the analytic derivatives against the differences, the
 * frame of a steady motion, the writer, a mode's run, and the messages of bad input.
 *
 * Tolerances: the closed forms are exact to rounding; the differences (Richardson's extrapolation
 * of central differences, engine/linear/sys.c) leave ~1e-12 relative in A (measured 1e-13 ..
 * 5e-12 here, the same under the OpenBLAS kernels Prescott, Sandybridge and Haswell), the
 * equilibrium's Newton iteration ~1e-15 in the coordinates.  The checks use 1e-8 in coordinates
 * and 1e-6 relative in frequencies (the issue's), and 1e-9 of A's largest entry between
 * formulations and methods: each over 100× the measured errors and their spread. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/linear/linear_msg.h"
#include "mbd/explain.h"
#include "mbd/linear.h"
#include "mbd/model.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define G 9.81

/* a rod pendulum with a rotational spring-damper at its pin, released at angle th (from the
 * horizontal); gravity and the spring optional */
static mbd_model *pendulum(double th, int gravity, int spring) {
  mbd_error err;
  mbd_model *m = mbd_model_new("pendulum", 2, &err);
  double g[3] = {0, -G, 0};
  if (gravity) {
    mbd_model_set_gravity(m, g);
  }
  double M = 2, L = 1.2;
  mbd_body_spec b = {.name = "rod", .mass = M, .inertia = {M * L * L / 12}, .angle = th};
  b.pos[0] = L / 2 * cos(th);
  b.pos[1] = L / 2 * sin(th);
  int r = mbd_model_add_body(m, &b, &err);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body2 = r, .at2 = {-L / 2}};
  int j = mbd_model_add_joint(m, &o, &err);
  assert_true(j >= 0);
  if (spring) {
    assert_true(mbd_model_add_rotational_spring(m, j, 30, 0.4, 0, &err) >= 0);
  }
  return m;
}

/* a double pendulum of two rods from the ground at angles t1, t2 */
static mbd_model *double_pendulum(double t1, double t2) {
  mbd_error err;
  mbd_model *m = mbd_model_new("double", 2, &err);
  double g[3] = {0, -G, 0};
  mbd_model_set_gravity(m, g);
  double L1 = 1, L2 = 0.8;
  mbd_body_spec a = {.name = "link1", .mass = 2, .inertia = {2 * L1 * L1 / 12}, .angle = t1};
  a.pos[0] = L1 / 2 * cos(t1);
  a.pos[1] = L1 / 2 * sin(t1);
  mbd_body_spec b = {.name = "link2", .mass = 1, .inertia = {L2 * L2 / 12}, .angle = t2};
  b.pos[0] = L1 * cos(t1) + L2 / 2 * cos(t2);
  b.pos[1] = L1 * sin(t1) + L2 / 2 * sin(t2);
  int i = mbd_model_add_body(m, &a, &err), k = mbd_model_add_body(m, &b, &err);
  mbd_joint_spec p1 = {.name = "P1", .type = MBD_JOINT_REVOLUTE, .body2 = i, .at2 = {-L1 / 2}};
  mbd_joint_spec p2 = {.name = "P2",
                       .type = MBD_JOINT_REVOLUTE,
                       .body1 = i,
                       .at1 = {L1 / 2},
                       .body2 = k,
                       .at2 = {-L2 / 2}};
  assert_true(mbd_model_add_joint(m, &p1, &err) >= 0);
  assert_true(mbd_model_add_joint(m, &p2, &err) >= 0);
  return m;
}

/* the state of a run's only sample as an operating point */
typedef struct op {
  double q[64], v[64], memo[16];
} op;

static void op_of(const mbd_model *m, const mbd_run *r, op *o) {
  mbd_error err;
  mbd_error_clear(&err);
  int nq = 0, nv = 0;
  mbd_linear_state_size(m, &nq, &nv);
  assert_true(nq <= 64 && nv <= 64);
  assert_int_equal(mbd_run_state_at(m, r, 0, o->q, o->v, o->memo, &err), MBD_OK);
}

static double value(const mbd_run *r, const char *ch) {
  int ok = 0;
  double v = mbd_run_value(r, mbd_run_find(r, ch), 0, &ok);
  assert_true(ok);
  return v;
}

static mbd_linear *linearize(const mbd_model *m, const op *o, int form, int method) {
  mbd_lin_opts lo;
  mbd_lin_opts_default(&lo);
  if (o) {
    lo.q = o->q;
    lo.v = o->v;
    lo.memo = o->memo;
  }
  lo.formulation = form;
  lo.method = method;
  mbd_linear *l = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  int rc = mbd_linearize(m, &lo, &l, &err);
  if (rc != MBD_OK) {
    fail_msg("linearize %s: %s", mbd_formulation_name(form), err.msg);
  }
  return l;
}

static mbd_run *equilibrium(mbd_model *m) {
  mbd_eq_opts eo;
  mbd_eq_opts_default(&eo);
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  int rc = mbd_equilibrium(m, &eo, &r, &err);
  if (rc != MBD_OK) {
    fail_msg("equilibrium: %s", err.msg);
  }
  return r;
}

static double amax(const mbd_linear *l) {
  double a = 0;
  for (int i = 0; i < l->nx * l->nx; i++) {
    a = fmax(a, fabs(l->A[i]));
  }
  return a;
}

/* k θ + m g (L/2) cos θ = 0 and the damped eigenvalues −ζω ± iω√(1 − ζ²) */
static void test_pendulum(void **state) {
  (void)state;
  mbd_model *m = pendulum(0.9, 1, 1);
  mbd_run *r = equilibrium(m);
  double lo = -M_PI / 2, hi = 0;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (30 * mid + 2 * G * 0.6 * cos(mid) > 0) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  double th = 0.5 * (lo + hi);
  MBD_ASSERT_NEAR(value(r, "rod.theta"), th, 1e-8);
  assert_int_equal(mbd_run_get_stats(r)->stable, 1);
  op o;
  op_of(m, r, &o);
  mbd_linear *l = linearize(m, &o, MBD_FORM_KANE, MBD_LIN_DIFFERENCES);
  double I = 2 * 1.44 / 3, K = 30 - 2 * G * 0.6 * sin(th), w = sqrt(K / I);
  double z = 0.4 / (2 * sqrt(K * I));
  assert_int_equal(l->nmode, 1);
  assert_int_equal(l->mode[0].kind, MBD_MODE_OSCILLATORY);
  MBD_ASSERT_NEAR(l->mode[0].re, -z * w, 1e-6 * z * w);
  MBD_ASSERT_NEAR(l->mode[0].im, w * sqrt(1 - z * z), 1e-6 * w);
  MBD_ASSERT_NEAR(l->mode[0].freq, w / (2 * M_PI), 1e-6 * w / (2 * M_PI));
  MBD_ASSERT_NEAR(l->mode[0].damping, z, 1e-6 * z);
  assert_int_equal(l->equilibrium, 1);
  assert_int_equal(l->stable, 1);
  // the reduced matrices: M = I, K, C = c
  MBD_ASSERT_NEAR(l->M[0], I, 1e-12);
  MBD_ASSERT_NEAR(l->K[0], K, 1e-8 * K);
  MBD_ASSERT_NEAR(l->Cv[0], 0.4, 1e-8);
  assert_string_equal(l->coord[0], "rod.theta");
  mbd_linear_free(l);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* every formulation gives the same A at the double pendulum's equilibrium (the Cartesian ones in
 * one partition's coordinates; relative in joint coordinates: the same eigenvalues) */
static void test_formulations_agree(void **state) {
  (void)state;
  mbd_model *m = double_pendulum(0.3, -0.2);
  mbd_run *r = equilibrium(m);
  op o;
  op_of(m, r, &o);
  mbd_linear *ref = linearize(m, &o, MBD_FORM_KANE, MBD_LIN_DIFFERENCES);
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_UK};
  double big = amax(ref);
  for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
    mbd_linear *l = linearize(m, &o, forms[k], MBD_LIN_DIFFERENCES);
    assert_int_equal(l->nx, ref->nx);
    for (int i = 0; i < l->nx * l->nx; i++) {
      MBD_ASSERT_NEAR(l->A[i], ref->A[i], 1e-9 * big);
    }
    mbd_linear_free(l);
  }
  mbd_linear *rel = linearize(m, &o, MBD_FORM_RELATIVE, MBD_LIN_DIFFERENCES);
  assert_string_equal(rel->coord[0], "P1.angle");
  for (int k = 0; k < ref->nmode; k++) {
    MBD_ASSERT_NEAR(rel->mode[k].freq, ref->mode[k].freq, 1e-9 * ref->mode[k].freq);
  }
  mbd_linear_free(rel);
  mbd_linear_free(ref);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* the exact derivatives of the generated equations against the differences, in the same
 * coordinates (the relative tree; the tree with every joint cut: Cartesian), also away from an
 * equilibrium (the double pendulum moving) */
static void test_analytic(void **state) {
  (void)state;
  mbd_model *m = double_pendulum(0.3, -0.2);
  mbd_error err;
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  int forms[] = {MBD_FORM_RELATIVE, MBD_FORM_KANE};
  for (int k = 0; k < 2; k++) {
    mbd_linear *a = linearize(m, NULL, forms[k], MBD_LIN_ANALYTIC);
    mbd_linear *d = linearize(m, NULL, forms[k], MBD_LIN_DIFFERENCES);
    assert_int_equal(a->equilibrium, 0);
    double big = amax(d);
    for (int i = 0; i < d->nx * d->nx; i++) {
      MBD_ASSERT_NEAR(a->A[i], d->A[i], 1e-9 * big);
    }
    mbd_linear_free(a);
    mbd_linear_free(d);
  }
  mbd_model_free(m);
}

/* a top spinning upright, in the frame of its spin: A ω² − C ω3 ω + m g l = 0 */
static void test_sleeping_top(void **state) {
  (void)state;
  mbd_error err;
  mbd_model *m = mbd_model_new("top", 3, &err);
  double g[3] = {0, 0, -G};
  mbd_model_set_gravity(m, g);
  double mass = 1.5, l = 0.3, A0 = 0.02, C = 0.03, w3 = 60;
  mbd_body_spec b = {.name = "top",
                     .mass = mass,
                     .inertia = {A0, A0, C},
                     .pos = {0, 0, l},
                     .rot = {1, 0, 0, 0},
                     .omega = {0, 0, w3},
                     .omega_given = 1};
  int t = mbd_model_add_body(m, &b, &err);
  mbd_joint_spec s = {.name = "tip", .type = MBD_JOINT_SPHERICAL, .body2 = t, .at2 = {0, 0, -l}};
  assert_true(mbd_model_add_joint(m, &s, &err) >= 0);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_lin_steady spin = {.body = t, .axis = {0, 0, 1}};
  mbd_lin_opts lo;
  mbd_lin_opts_default(&lo);
  lo.nsteady = 1;
  lo.steady = &spin;
  mbd_linear *lin = NULL;
  assert_int_equal(mbd_linearize(m, &lo, &lin, &err), MBD_OK);
  double A = A0 + mass * l * l, disc = sqrt(C * C * w3 * w3 - 4 * A * mass * G * l);
  double slow = (C * w3 - disc) / (2 * A), fast = (C * w3 + disc) / (2 * A);
  assert_int_equal(lin->mode[0].kind, MBD_MODE_OSCILLATORY);
  assert_int_equal(lin->mode[1].kind, MBD_MODE_OSCILLATORY);
  MBD_ASSERT_NEAR(lin->mode[0].freq, slow / (2 * M_PI), 1e-6 * slow / (2 * M_PI));
  MBD_ASSERT_NEAR(lin->mode[1].freq, fast / (2 * M_PI), 1e-6 * fast / (2 * M_PI));
  MBD_ASSERT_NEAR(lin->rate[0], w3, 1e-9 * w3);
  assert_int_equal(lin->equilibrium, 1);
  // without the spin's frame the state moves: no equilibrium, no verdict
  lo.nsteady = 0;
  mbd_linear *plain = NULL;
  assert_int_equal(mbd_linearize(m, &lo, &plain, &err), MBD_OK);
  assert_int_equal(plain->equilibrium, 0);
  assert_int_equal(plain->stable, -1);
  assert_int_equal(plain->nwarning, 1);
  mbd_linear_free(plain);
  mbd_linear_free(lin);
  mbd_model_free(m);
}

/* inputs and outputs: a joint torque's B is 1/I, the pin reaction's D its response */
static void test_inputs_outputs(void **state) {
  (void)state;
  mbd_model *m = pendulum(-0.3, 1, 1);
  mbd_run *r = equilibrium(m);
  op o;
  op_of(m, r, &o);
  double th = value(r, "rod.theta");
  mbd_lin_input u = {.kind = MBD_LIN_IN_JOINT, .joint = 0, .coord = 0};
  const char *outs[] = {"O.angle", "O.fy"};
  mbd_lin_opts lo;
  mbd_lin_opts_default(&lo);
  lo.q = o.q;
  lo.v = o.v;
  lo.ninput = 1;
  lo.input = &u;
  lo.noutput = 2;
  lo.output = outs;
  mbd_linear *l = NULL;
  mbd_error err;
  assert_int_equal(mbd_linearize(m, &lo, &l, &err), MBD_OK);
  double I = 2 * 1.44 / 3;
  MBD_ASSERT_NEAR(l->B[1], 1 / I, 1e-12);
  MBD_ASSERT_NEAR(l->B[0], 0, 0);
  MBD_ASSERT_NEAR(l->C[0], 1, 1e-9);
  MBD_ASSERT_NEAR(l->D[1], 2 * 0.6 * cos(th) / I, 1e-9);
  // the writer: Matrix Market of [A B; C D], 4 × 3, read back
  char file[] = "/tmp/mbd-linear-XXXXXX";
  int fd = mkstemp(file);
  assert_true(fd >= 0);
  close(fd);
  const char *in[] = {"torque(O)"};
  assert_int_equal(mbd_linear_write(l, file, 0, in, outs, &err), MBD_OK);
  FILE *f = fopen(file, "r");
  char line[256];
  int rows = 0, cols = 0, header = 0, nv = 0;
  double v[12];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '%') {
      header += strstr(line, "MatrixMarket matrix array real general") != NULL;
      continue;
    }
    if (rows == 0) {
      assert_int_equal(sscanf(line, "%d %d", &rows, &cols), 2);
      continue;
    }
    assert_true(nv < 12);
    v[nv++] = strtod(line, NULL);
  }
  fclose(f);
  remove(file);
  assert_int_equal(header, 1);
  assert_int_equal(rows, 4);
  assert_int_equal(cols, 3);
  assert_int_equal(nv, 12);
  MBD_ASSERT_NEAR(v[1], l->A[1], 0);  // (column-major, every digit written)
  MBD_ASSERT_NEAR(v[9], l->B[1], 0);
  mbd_linear_free(l);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* a mode's run: the rod swings about its rest angle with the asked amplitude */
static void test_mode_run(void **state) {
  (void)state;
  mbd_model *m = pendulum(0.9, 1, 1);
  mbd_run *r = equilibrium(m);
  op o;
  op_of(m, r, &o);
  double th = value(r, "rod.theta");
  mbd_linear *l = linearize(m, &o, MBD_FORM_KANE, MBD_LIN_DIFFERENCES);
  mbd_run *mr = NULL;
  mbd_error err;
  assert_int_equal(mbd_linear_mode_run(m, l, 0, 0.01, 1, 40, NULL, NULL, &mr, &err), MBD_OK);
  assert_int_equal(mbd_run_nsample(mr), 41);
  int c = mbd_run_find(mr, "rod.theta");
  double hi = -1e9, lo = 1e9;
  for (int i = 0; i < mbd_run_nsample(mr); i++) {
    hi = fmax(hi, mbd_run_sample(mr, c, i));
    lo = fmin(lo, mbd_run_sample(mr, c, i));
  }
  MBD_ASSERT_NEAR(hi - th, 0.01, 1e-12);
  MBD_ASSERT_NEAR(th - lo, 0.01, 1e-12);
  // a mode that does not exist
  mbd_run *bad = NULL;
  MBD_EXPECT_ERROR(mbd_linear_mode_run(m, l, 1, 0, 1, 40, NULL, NULL, &bad, &err), &err,
                   MBD_E_INPUT, MSG_LIN_MODE, 2, 1);
  mbd_run_free(mr);
  mbd_linear_free(l);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* the messages: no degree of freedom, a neutral direction, an unbalanced force, a singular
 * configuration */
static void test_errors(void **state) {
  (void)state;
  mbd_error err;
  mbd_eq_opts eo;
  mbd_eq_opts_default(&eo);
  mbd_run *r = NULL;
  // no gravity, no spring: the rod turns freely
  mbd_model *m = pendulum(0.3, 0, 0);
  MBD_EXPECT_ERROR(mbd_equilibrium(m, &eo, &r, &err), &err, MBD_E_SINGULAR, MSG_EQ_NEUTRAL,
                   "pendulum", "rod.theta");
  mbd_run_free(r);
  mbd_model_free(m);
  // a free body falls
  m = mbd_model_new("free", 2, &err);
  double g[3] = {0, -G, 0};
  mbd_model_set_gravity(m, g);
  mbd_body_spec b = {.name = "b", .mass = 1, .inertia = {0.1}};
  mbd_model_add_body(m, &b, &err);
  MBD_EXPECT_ERROR(mbd_equilibrium(m, &eo, &r, &err), &err, MBD_E_SINGULAR, MSG_EQ_UNBALANCED,
                   "free", -G, "b.y");
  mbd_run_free(r);
  mbd_model_free(m);
  // a pin welded: nothing moves
  m = pendulum(0.3, 1, 0);
  mbd_body_spec w = {.name = "w", .mass = 1, .inertia = {0.1}};
  int wb = mbd_model_add_body(m, &w, &err);
  mbd_joint_spec fx = {.name = "F", .type = MBD_JOINT_FIXED, .body2 = wb};
  mbd_joint_spec fx2 = {
      .name = "F2", .type = MBD_JOINT_FIXED, .body1 = wb, .body2 = 1, .at2 = {-0.6}};
  mbd_model_add_joint(m, &fx, &err);
  mbd_model_add_joint(m, &fx2, &err);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_lin_opts lo;
  mbd_lin_opts_default(&lo);
  mbd_linear *l = NULL;
  MBD_EXPECT_ERROR(mbd_linearize(m, &lo, &l, &err), &err, MBD_E_INPUT, MSG_LIN_NO_DOF, "linearize",
                   "pendulum");
  mbd_model_free(m);
  // a parallelogram four-bar flat on its ground line: Φq loses rank there
  m = mbd_model_new("flat", 2, &err);
  double th = 0.5;
  mbd_body_spec c = {
      .name = "crank", .mass = 1, .inertia = {0.1}, .angle = th, .pos = {cos(th) / 2, sin(th) / 2}};
  mbd_body_spec k = {.name = "coupler", .mass = 1, .inertia = {0.3}, .pos = {cos(th) + 1, sin(th)}};
  mbd_body_spec rr = {.name = "rocker",
                      .mass = 1,
                      .inertia = {0.1},
                      .angle = th,
                      .pos = {2 + cos(th) / 2, sin(th) / 2}};
  int ic = mbd_model_add_body(m, &c, &err), ik = mbd_model_add_body(m, &k, &err);
  int ir = mbd_model_add_body(m, &rr, &err);
  mbd_joint_spec js[4] = {
      {.name = "O", .type = MBD_JOINT_REVOLUTE, .body2 = ic, .at2 = {-0.5}},
      {.name = "A",
       .type = MBD_JOINT_REVOLUTE,
       .body1 = ic,
       .at1 = {0.5},
       .body2 = ik,
       .at2 = {-1}},
      {.name = "B", .type = MBD_JOINT_REVOLUTE, .body1 = ik, .at1 = {1}, .body2 = ir, .at2 = {0.5}},
      {.name = "D", .type = MBD_JOINT_REVOLUTE, .at1 = {2}, .body2 = ir, .at2 = {-0.5}}};
  for (int i = 0; i < 4; i++) {
    mbd_model_add_joint(m, &js[i], &err);
  }
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  double q[9] = {0.5, 0, 0, 2, 0, 0, 2.5, 0, 0}, v[9] = {0};
  lo.q = q;
  lo.v = v;
  assert_true(mbd_linearize(m, &lo, &l, &err) == MBD_E_SINGULAR);
  MBD_ASSERT_FITS(err.msg, MSG_LIN_SINGULAR);
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum),       cmocka_unit_test(test_formulations_agree),
      cmocka_unit_test(test_analytic),       cmocka_unit_test(test_sleeping_top),
      cmocka_unit_test(test_inputs_outputs), cmocka_unit_test(test_mode_run),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
