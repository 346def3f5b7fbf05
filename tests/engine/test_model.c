/* tests of the planar model (engine/model, kinematics/assemble.c, formulations augmented and
 * baumgarte): joint equations against finite differences, dynamics against closed forms,
 * conservation laws and an independent minimal-coordinate formulation, the rank test, kinematic
 * analysis with inverse dynamics, and the statuses and messages of bad input and failed runs.
 * Every mechanism is built inline. */
#include "mbd_test.h"

#include <stdlib.h>
#include <string.h>

#include "../../engine/kinematics/kinematics.h"
#include "../../engine/kinematics/kinematics_msg.h"
#include "../../engine/model/model_msg.h"
#include "../../engine/sim/sim_msg.h"
#include "mbd/integrators.h"
#include "model_build.h"

/* ------------------------------------------------------------------------------------------ */
/* building helpers                                                                            */

static mbd_model *new_model(const char *name, double gx, double gy) {
  mbd_error err;
  mbd_error_clear(&err);
  mbd_model *m = mbd_model_new(name, 2, &err);
  assert_non_null(m);
  double g[2] = {gx, gy};
  mbd_model_set_gravity(m, g);
  return m;
}

static int add_body(mbd_model *m, const char *name, double mass, double J, double x, double y,
                    double th) {
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.mass = mass;
  s.inertia[0] = J;
  s.pos[0] = x;
  s.pos[1] = y;
  s.angle = th;
  return test_add_body(m, &s);
}

static void set_body_velocity(mbd_model *m, int b, double vx, double vy, double w) {
  m->body[b].v0[0] = vx;
  m->body[b].v0[1] = vy;
  m->body[b].v0[2] = w;
}

static int add_joint(mbd_model *m, const char *name, int type, int b1, double x1, double y1,
                     int b2, double x2, double y2, const double *axis) {
  double at1[3] = {x1, y1, 0}, at2[3] = {x2, y2, 0};
  double ax[3] = {axis ? axis[0] : 0, axis ? axis[1] : 0, 0};
  return test_joint(m, name, type, b1, at1, b2, at2, axis ? ax : NULL, NULL);
}

static int revolute(mbd_model *m, const char *name, int b1, double x1, double y1, int b2,
                    double x2, double y2) {
  return add_joint(m, name, MBD_JOINT_REVOLUTE, b1, x1, y1, b2, x2, y2, NULL);
}

/* a drive function f(t) = a + v t + b sin(w t) + c t² with its exact derivatives */
typedef struct drive_fn {
  double a, v, b, w, c;
} drive_fn;

static int drive_eval(void *ud, double t, double out[3], mbd_error *err) {
  (void)err;
  const drive_fn *f = ud;
  out[0] = f->a + f->v * t + f->b * sin(f->w * t) + f->c * t * t;
  out[1] = f->v + f->b * f->w * cos(f->w * t) + 2 * f->c * t;
  out[2] = -f->b * f->w * f->w * sin(f->w * t) + 2 * f->c;
  return 0;
}

static void assemble_ok(mbd_model *m) {
  mbd_error err;
  mbd_error_clear(&err);
  mbd_assembly_opts ao = {1e-12, 50};
  int rc = mbd_model_assemble(m, &ao, &err);
  if (rc != MBD_OK) {
    fail_msg("assembly failed (%s): %s", mbd_status_name(rc), err.msg);
  }
}

/* no warning unless the test expects one (STYLE.md 17) */
static void assert_no_warning(const mbd_model *m) {
  const char *w = mbd_model_warning(m, 0);
  if (w) {
    fail_msg("unexpected warning: %s", w);
  }
}

static mbd_run *simulate_ok(mbd_model *m, const mbd_sim_opts *o) {
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *r = NULL;
  int rc = mbd_simulate(m, o, &r, &err);
  if (rc != MBD_OK) {
    fail_msg("simulate failed (%s): %s", mbd_status_name(rc), err.msg);
  }
  assert_non_null(r);
  return r;
}

/* the samples of a channel (caller frees) */
static double *series(const mbd_run *r, const char *name) {
  int c = mbd_run_find(r, name);
  if (c < 0) {
    fail_msg("no channel '%s'", name);
  }
  double *v = malloc(sizeof(double) * (size_t)mbd_run_nsample(r));
  assert_non_null(v);
  mbd_run_series(r, c, v);
  return v;
}

static double value_at(const mbd_run *r, const char *name, double t) {
  int ok = 0;
  double v = mbd_run_value(r, mbd_run_find(r, name), t, &ok);
  assert_true(ok);
  return v;
}

/* deterministic uniform numbers in [lo, hi) (a 64-bit LCG: reproducible on every platform) */
static double uniform(unsigned long long *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* ------------------------------------------------------------------------------------------ */
/* joint equations: Φq, Φt, γ and joint coordinates against finite differences                */

/* a chain with every planar joint type, a driven revolute and a driven translational, and a
 * translational whose body2 is the ground (the sign conventions of both sides are exercised) */
typedef struct chain {
  mbd_model *m;
  drive_fn fr, ft;
} chain;

static void chain_build(chain *c) {
  mbd_model *m = new_model("chain", 0, 0);
  c->m = m;
  // b1: revolute R at the origin, point (−0.5, 0) of b1; angle a1
  double a1 = 0.4;
  int b1 = add_body(m, "b1", 1, 0.1, 0.5 * cos(a1), 0.5 * sin(a1), a1);
  // b2: translational T on b1 at (0.5, 0.1) along axis (1, 0.2) of b1; b2's point at its CM;
  // locked relative angle 0.4; displacement 0.3 along the axis
  double ax[2] = {1, 0.2}, an = hypot(ax[0], ax[1]);
  double u[2] = {(cos(a1) * ax[0] - sin(a1) * ax[1]) / an, (sin(a1) * ax[0] + cos(a1) * ax[1]) / an};
  double p1[2] = {0.5 * cos(a1) + cos(a1) * 0.5 - sin(a1) * 0.1,
                  0.5 * sin(a1) + sin(a1) * 0.5 + cos(a1) * 0.1};
  double a2 = a1 + 0.4, s0 = 0.3;
  int b2 = add_body(m, "b2", 1, 0.1, p1[0] + s0 * u[0], p1[1] + s0 * u[1], a2);
  // b3: fixed F to b2 (b2 point (0.3, −0.2), b3 point (−0.1, 0.2)), angle a2 + 0.7
  double a3 = a2 + 0.7;
  double r2[2] = {p1[0] + s0 * u[0], p1[1] + s0 * u[1]};
  double r3[2] = {r2[0] + cos(a2) * 0.3 + sin(a2) * 0.2 - (cos(a3) * -0.1 - sin(a3) * 0.2),
                  r2[1] + sin(a2) * 0.3 - cos(a2) * 0.2 - (sin(a3) * -0.1 + cos(a3) * 0.2)};
  int b3 = add_body(m, "b3", 1, 0.1, r3[0], r3[1], a3);
  // b4: revolute R2 to b3 (b3 point (0.4, 0), b4 point (−0.6, 0.1)), free angle 1.2
  double a4 = 1.2;
  double r4[2] = {r3[0] + cos(a3) * 0.4 - (cos(a4) * -0.6 - sin(a4) * 0.1),
                  r3[1] + sin(a3) * 0.4 - (sin(a4) * -0.6 + cos(a4) * 0.1)};
  int b4 = add_body(m, "b4", 1, 0.1, r4[0], r4[1], a4);
  // b5: translational T2 with body1 = b5 (point (0.2, 0.1), axis (0.6, 0.8)) and body2 = the
  // ground (point (1, 2)); angle 0.3, ground point 0.5 along the axis from b5's point
  double a5 = 0.3, u5[2] = {cos(a5) * 0.6 - sin(a5) * 0.8, sin(a5) * 0.6 + cos(a5) * 0.8};
  double r5[2] = {1 - (cos(a5) * 0.2 - sin(a5) * 0.1) - 0.5 * u5[0],
                  2 - (sin(a5) * 0.2 + cos(a5) * 0.1) - 0.5 * u5[1]};
  int b5 = add_body(m, "b5", 1, 0.1, r5[0], r5[1], a5);

  int jr = revolute(m, "R", 0, 0, 0, b1, -0.5, 0);
  int jt = add_joint(m, "T", MBD_JOINT_TRANSLATIONAL, b1, 0.5, 0.1, b2, 0, 0, ax);
  add_joint(m, "F", MBD_JOINT_FIXED, b2, 0.3, -0.2, b3, -0.1, 0.2, NULL);
  revolute(m, "R2", b3, 0.4, 0, b4, -0.6, 0.1);
  double ax5[2] = {0.6, 0.8};
  add_joint(m, "T2", MBD_JOINT_TRANSLATIONAL, b5, 0.2, 0.1, 0, 1, 2, ax5);
  c->fr = (drive_fn){a1, 0.0, 0.3, 2.0, 0.0};
  c->ft = (drive_fn){s0, 0.1, 0.0, 0.0, 0.2};
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_drive(m, jr, drive_eval, &c->fr, &err) >= 0);
  assert_true(mbd_model_add_drive(m, jt, drive_eval, &c->ft, &err) >= 0);
}

/* a data at the model's assembled state */
static mbd_data *data_new(const mbd_model *m) {
  mbd_error err;
  mbd_data *d = mbd_data_alloc(m, &err);
  if (!d) {
    fail_msg("mbd_data_alloc: %s", err.msg);
  }
  mbd_data_reset(m, d);
  return d;
}

/* evaluate the poses and constraints at (q, v, t) */
static void eval_at(const mbd_model *m, mbd_data *d, const double *q, const double *qd, double t) {
  memcpy(d->q, q, sizeof(double) * (size_t)m->nq);
  memcpy(d->v, qd, sizeof(double) * (size_t)m->nv);
  d->t = t;
  mbd_error err;
  mbd_error_clear(&err);
  int rc = mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err);
  if (rc != MBD_OK) {
    fail_msg("mbd_eval_anew: %s", err.msg);
  }
}

/* a joint's first relative coordinate (angle or displacement) and its rate */
static void joint_coord(const mbd_model *m, const mbd_data *d, int j, double *v, double *rate) {
  mbd_row o;
  mbd_joint_coord_row(m, d, j, mbd_joint_type_get(m->joint[j].type)->coord[0][0], &o);
  *v = o.val;
  *rate = o.rate;
}

static void test_joint_jacobians(void **state) {
  (void)state;
  chain c;
  chain_build(&c);
  mbd_model *m = c.m;
  assemble_ok(m);
  assert_no_warning(m);
  // 15 coordinates, rows R 2 + T 2 + F 3 + R2 2 + T2 2 + 2 drives = 13, all independent
  assert_int_equal(m->nv, 15);
  assert_int_equal(m->mrow, 13);
  assert_int_equal(m->rank, 13);
  // assembled at the given poses: they were computed to satisfy every row
  mbd_data *d = data_new(m);
  eval_at(m, d, m->q_asm, m->v_asm, 0);
  MBD_ASSERT_NEAR(mbd_position_violation(m, d), 0, 1e-12);

  int n = m->nv, mr = m->mrow;
  double *q = calloc((size_t)n, sizeof(double)), *qd = calloc((size_t)n, sizeof(double));
  double *qp = calloc((size_t)n, sizeof(double)), *phiq = calloc((size_t)(mr * n), sizeof(double));
  double *phi = calloc((size_t)mr, sizeof(double)), *phit = calloc((size_t)mr, sizeof(double));
  double *gam = calloc((size_t)mr, sizeof(double)), *fp = calloc((size_t)mr, sizeof(double));
  double *fm = calloc((size_t)mr, sizeof(double));
  assert_true(q && qd && qp && phiq && phi && phit && gam && fp && fm);
  unsigned long long seed = 12345;
  double max_gamma = 0, max_phit = 0;
  for (int trial = 0; trial < 5; trial++) {
    // a random pose far from the assembled one (Φ ≠ 0: the formulas must hold everywhere)
    for (int i = 0; i < n; i++) {
      q[i] = m->q_asm[i] + uniform(&seed, -1, 1);
      qd[i] = uniform(&seed, -2, 2);
    }
    double t = uniform(&seed, 0, 2);
    eval_at(m, d, q, qd, t);
    memcpy(phi, d->phi, sizeof(double) * (size_t)mr);
    memcpy(phiq, d->phiq, sizeof(double) * (size_t)(mr * n));
    memcpy(phit, d->phit, sizeof(double) * (size_t)mr);
    memcpy(gam, d->gamma, sizeof(double) * (size_t)mr);

    /* Φq against central differences with h = 1e-6: truncation h²/6·|Φ'''| ≲ 1e-12 (lengths
     * ≤ 3 m, trigonometric in θ), round-off ≈ 1e-16·|Φ|/h ≲ 1e-9; tolerance 1e-7 */
    const double h = 1e-6;
    for (int col = 0; col < n; col++) {
      memcpy(qp, q, sizeof(double) * (size_t)n);
      qp[col] = q[col] + h;
      eval_at(m, d, qp, qd, t);
      memcpy(fp, d->phi, sizeof(double) * (size_t)mr);
      qp[col] = q[col] - h;
      eval_at(m, d, qp, qd, t);
      memcpy(fm, d->phi, sizeof(double) * (size_t)mr);
      for (int r = 0; r < mr; r++) {
        double fd = (fp[r] - fm[r]) / (2 * h);
        if (fabs(fd - MBD_AT(phiq, mr, r, col)) > 1e-7) {
          char row[160], crd[96];
          mbd_model_row_name(m, r, row, sizeof row);
          mbd_model_coord_name(m, col, crd, sizeof crd);
          fail_msg("Φq of %s by %s: analytic %.12g, finite difference %.12g", row, crd,
                   MBD_AT(phiq, mr, r, col), fd);
        }
      }
    }
    // Φt against d/dt at fixed q (same h and error budget as Φq)
    eval_at(m, d, q, qd, t + h);
    memcpy(fp, d->phi, sizeof(double) * (size_t)mr);
    eval_at(m, d, q, qd, t - h);
    memcpy(fm, d->phi, sizeof(double) * (size_t)mr);
    for (int r = 0; r < mr; r++) {
      MBD_ASSERT_NEAR(phit[r], (fp[r] - fm[r]) / (2 * h), 1e-7);
      max_phit = fmax(max_phit, fabs(phit[r]));
    }
    /* γ = −(Φq q̇)q q̇ − 2Φqt q̇ − Φtt = −d/ds [Φq q̇ + Φt] along q(s) = q + s q̇, t(s) = t + s
     * (the total derivative of Φ̇ along that path; q̇ is held fixed).  Central difference with
     * h = 1e-6 of Φ̇ built from the analytic Φq and Φt checked above: truncation ≲ 1e-11,
     * round-off ≈ 1e-16·|Φ̇|/h ≲ 1e-8 (|Φ̇| ≲ 30); tolerance 1e-6 */
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      for (int i = 0; i < n; i++) {
        qp[i] = q[i] + sgn * h * qd[i];
      }
      eval_at(m, d, qp, qd, t + sgn * h);
      double *out = sgn > 0 ? fp : fm;
      for (int r = 0; r < mr; r++) {
        double s = d->phit[r];
        for (int col = 0; col < n; col++) {
          s += MBD_AT(d->phiq, mr, r, col) * qd[col];
        }
        out[r] = s;
      }
    }
    for (int r = 0; r < mr; r++) {
      double fd = -(fp[r] - fm[r]) / (2 * h);
      if (fabs(fd - gam[r]) > 1e-6) {
        char row[160];
        mbd_model_row_name(m, r, row, sizeof row);
        fail_msg("γ of %s: analytic %.12g, finite difference %.12g", row, gam[r], fd);
      }
      max_gamma = fmax(max_gamma, fabs(gam[r]));
    }
    // joint coordinates: the rate is the derivative of the value along the path (h = 1e-6)
    for (int j = 0; j < m->njoint; j++) {
      if (m->joint[j].type == MBD_JOINT_FIXED) {
        continue;
      }
      double v0, rate, vp, vm, dummy;
      eval_at(m, d, q, qd, t);
      joint_coord(m, d, j, &v0, &rate);
      for (int i = 0; i < n; i++) {
        qp[i] = q[i] + h * qd[i];
      }
      eval_at(m, d, qp, qd, t);
      joint_coord(m, d, j, &vp, &dummy);
      for (int i = 0; i < n; i++) {
        qp[i] = q[i] - h * qd[i];
      }
      eval_at(m, d, qp, qd, t);
      joint_coord(m, d, j, &vm, &dummy);
      MBD_ASSERT_NEAR(rate, (vp - vm) / (2 * h), 1e-7);
    }
  }
  // the checks are not vacuous: velocity terms and drive rates are present
  assert_true(max_gamma > 0.5);
  assert_true(max_phit > 0.1);
  free(q);
  free(qd);
  free(qp);
  free(phiq);
  free(phi);
  free(phit);
  free(gam);
  free(fp);
  free(fm);
  mbd_data_free(d);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* closed forms                                                                                */

/* arithmetic–geometric mean: the exact pendulum period is T0 / agm(1, cos(θ0/2)) */
static double agm(double a, double b) {
  for (int i = 0; i < 40 && fabs(a - b) > 1e-16 * a; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return a;
}

/* a rod (m, L) pinned at one end: T0 = 2π √(I_O/(m g d)), d = L/2, I_O = mL²/12 + m d² */
static void test_compound_pendulum_period(void **state) {
  (void)state;
  double mass = 1.5, L = 1.2, d = L / 2, g = 9.81, J = mass * L * L / 12;
  double IO = J + mass * d * d, T0 = 2 * M_PI * sqrt(IO / (mass * g * d));
  double th0 = 0.05;  // amplitude, rad
  mbd_model *m = new_model("pendulum", 0, -g);
  double th = -M_PI / 2 + th0;
  int rod = add_body(m, "rod", mass, J, d * cos(th), d * sin(th), th);
  revolute(m, "O", 0, 0, 0, rod, -d, 0);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 10.5 * T0;
  o.ode.rtol = o.ode.atol = 1e-11;
  o.output_every = 1e-3;
  mbd_run *r = simulate_ok(m, &o);
  assert_no_warning(m);
  int ns = mbd_run_nsample(r);
  const double *t = mbd_run_times(r);
  double *a = series(r, "rod.theta");
  // upward crossings of the equilibrium θ = −π/2, located by linear interpolation: at a zero of
  // a sinusoid its curvature vanishes, so the interpolation error is O(ω² dt³) ≈ 1e-11 s
  double first = -1, last = -1;
  int count = 0;
  for (int i = 1; i < ns; i++) {
    double y0 = a[i - 1] + M_PI / 2, y1 = a[i] + M_PI / 2;
    if (y0 < 0 && y1 >= 0) {
      double tc = t[i - 1] + (t[i] - t[i - 1]) * (-y0) / (y1 - y0);
      if (first < 0) {
        first = tc;
      } else {
        count++;
      }
      last = tc;
    }
  }
  assert_int_equal(count, 9);
  double T = (last - first) / count;
  /* exact period of the finite amplitude: T0 / agm(1, cos(θ0/2)); the integration error in θ
   * (~1e-10 rad with rtol 1e-11) shifts a crossing by 1e-10/(θ0 ω) ≈ 6e-10 s; tolerance 1e-7 s */
  print_message("compound pendulum: T = %.12g s, exact %.12g s, small-amplitude T0 %.12g s\n", T,
                T0 / agm(1, cos(th0 / 2)), T0);
  MBD_ASSERT_NEAR(T, T0 / agm(1, cos(th0 / 2)), 1e-7);
  /* the small-amplitude formula: the amplitude lengthens the period by T0·θ0²/16 = 2.8e-4 s
   * (+ 11θ0⁴/3072·T0 ≈ 4e-8 s); tolerance 3e-4 s covers the first term, and the difference from
   * T0 must show it (the test would not see a formula that ignored the amplitude otherwise) */
  MBD_ASSERT_NEAR(T, T0, 3e-4);
  MBD_ASSERT_NEAR(T - T0, T0 * th0 * th0 / 16, 1e-7);
  free(a);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* a free body under gravity: x = x0 + vx t, y = y0 + vy t − g t²/2, θ = θ0 + ω t */
static void test_free_body_parabola(void **state) {
  (void)state;
  double g = 9.81;
  for (int kind = 0; kind < 2; kind++) {
    mbd_model *m = new_model("free", 0, -g);
    int b = add_body(m, "b", 2, 0.1, 1, 2, 0.3);
    set_body_velocity(m, b, 1, 5, 2);
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 2;
    o.output_every = 0.05;
    o.ode.rtol = o.ode.atol = 1e-10;
    /* Adams: the local error of a quadratic solution is within the tolerance test, so the error
     * is bounded by rtol·|y| accumulated over the steps: observed 4e-10; tolerance 1e-8.
     * RK4 integrates y'' = g exactly (polynomial of degree 2 ≤ 4): round-off only, 1e-12 */
    double tol = 1e-8;
    if (kind == 1) {
      o.ode.kind = MBD_INT_RK4;
      o.ode.step = 0.01;
      tol = 1e-12;
    }
    mbd_run *r = simulate_ok(m, &o);
    assert_no_warning(m);
    int ns = mbd_run_nsample(r);
    assert_int_equal(ns, 41);
    const double *t = mbd_run_times(r);
    double *x = series(r, "b.x"), *y = series(r, "b.y"), *th = series(r, "b.theta");
    double *vy = series(r, "b.vy"), *e = series(r, "energy");
    for (int i = 0; i < ns; i++) {
      MBD_ASSERT_NEAR(x[i], 1 + t[i], tol);
      MBD_ASSERT_NEAR(y[i], 2 + 5 * t[i] - 0.5 * g * t[i] * t[i], tol);
      MBD_ASSERT_NEAR(th[i], 0.3 + 2 * t[i], tol);
      MBD_ASSERT_NEAR(vy[i], 5 - g * t[i], tol);
      // energy: ½m|v|² + ½Jω² + m g y is constant (tolerance: 20 J × the state tolerance)
      MBD_ASSERT_NEAR(e[i], e[0], 20 * tol);
    }
    MBD_ASSERT_NEAR(t[ns - 1], 2.0, 1e-15);
    free(x);
    free(y);
    free(th);
    free(vy);
    free(e);
    mbd_run_free(r);
    mbd_model_free(m);
  }
}

/* a mass on a translational joint along x, a spring to the ground point (2, 0) of free length
 * 0.6 (equilibrium x = 1.4), released from x = 1.5 at rest, gravity along −y (taken by the joint):
 * u = x − 1.4 obeys m ü + c u̇ + k u = 0 */
static void spring_mass(double c, double *max_err, double *decay) {
  double mass = 2, k = 200, A = 0.1, g = 9.81;
  mbd_model *m = new_model("spring mass", 0, -g);
  int b = add_body(m, "mass", mass, 0.05, 1.4 + A, 0, 0);
  double ax[2] = {1, 0};
  add_joint(m, "slide", MBD_JOINT_TRANSLATIONAL, 0, 0, 0, b, 0, 0, ax);
  mbd_spring_spec s;
  memset(&s, 0, sizeof s);
  s.name = "k";
  s.body1 = b;
  s.body2 = 0;
  s.at2[0] = 2;
  s.k = k;
  s.c = c;
  s.length = 0.6;
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 5;
  o.ode.rtol = o.ode.atol = 1e-11;
  o.output_every = 1e-3;
  mbd_run *r = simulate_ok(m, &o);
  assert_no_warning(m);
  double w = sqrt(k / mass), sigma = c / (2 * mass), wd = sqrt(w * w - sigma * sigma);
  int ns = mbd_run_nsample(r);
  const double *t = mbd_run_times(r);
  double *x = series(r, "mass.x"), *y = series(r, "mass.y"), *fy = series(r, "slide.fy");
  *max_err = 0;
  for (int i = 0; i < ns; i++) {
    double u = A * exp(-sigma * t[i]) * (cos(wd * t[i]) + sigma / wd * sin(wd * t[i]));
    *max_err = fmax(*max_err, fabs(x[i] - 1.4 - u));
    // the joint holds the mass on the line and carries its weight: reaction on body2 = +m g
    MBD_ASSERT_NEAR(y[i], 0, 1e-9);
    MBD_ASSERT_NEAR(fy[i], mass * g, 1e-6);
  }
  // decay rate from the peaks at t = k·Td (where u = A e^{−σt} exactly)
  double Td = 2 * M_PI / wd;
  double u5 = value_at(r, "mass.x", 5 * Td) - 1.4;
  *decay = log(A / u5) / (5 * Td);
  free(x);
  free(y);
  free(fy);
  mbd_run_free(r);
  mbd_model_free(m);
}

static void test_spring_mass(void **state) {
  (void)state;
  double err, decay;
  /* undamped: u = A cos(√(k/m) t).  The error grows like rtol·ω·t; observed 2.3e-10 m over 5 s
   * with rtol 1e-11; tolerance 1e-8 m (1e-7 of the amplitude).  The decay rate is read at the
   * fifth peak through linear interpolation of 1 ms samples, whose error at a peak is up to
   * dt²/8·ω² = 1.25e-5 of the peak value, i.e. 1.25e-5/(5 Td) = 4e-6 s⁻¹ (observed 3.8e-6):
   * tolerance 1e-5 s⁻¹ */
  spring_mass(0, &err, &decay);
  print_message("spring-mass undamped: max error %.3g m, decay %.3g 1/s\n", err, decay);
  MBD_ASSERT_NEAR(err, 0, 1e-8);
  MBD_ASSERT_NEAR(decay, 0, 1e-5);
  /* damped, c = 4 N·s/m: u = A e^{−σt}(cos ω_d t + σ/ω_d sin ω_d t), σ = c/2m = 1 s⁻¹.  Same
   * tolerances on the trajectory and on the decay rate */
  spring_mass(4, &err, &decay);
  print_message("spring-mass damped: max error %.3g m, decay %.8g 1/s\n", err, decay);
  MBD_ASSERT_NEAR(err, 0, 1e-8);
  MBD_ASSERT_NEAR(decay, 4.0 / (2 * 2.0), 1e-5);
}

/* ------------------------------------------------------------------------------------------ */
/* conservation of energy                                                                      */

static double energy_drift(mbd_run *r, double *e0) {
  int ns = mbd_run_nsample(r);
  double *e = series(r, "energy"), drift = 0;
  for (int i = 0; i < ns; i++) {
    drift = fmax(drift, fabs(e[i] - e[0]));
  }
  *e0 = e[0];
  free(e);
  return drift;
}

/* two uniform links 1 m long (m = 1 kg, J = 1/12 kg·m²) under gravity, released from θ1 = 0,
 * θ2 = 0.5 at rest: a chaotic but conservative motion over 10 s */
static double double_pendulum_drift(double tol, double *e0) {
  mbd_model *m = new_model("double pendulum", 0, -9.81);
  double t1 = 0, t2 = 0.5;
  int l1 = add_body(m, "l1", 1, 1.0 / 12, 0.5 * cos(t1), 0.5 * sin(t1), t1);
  int l2 = add_body(m, "l2", 1, 1.0 / 12, cos(t1) + 0.5 * cos(t2), sin(t1) + 0.5 * sin(t2), t2);
  revolute(m, "A", 0, 0, 0, l1, -0.5, 0);
  revolute(m, "B", l1, 0.5, 0, l2, -0.5, 0);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_AUGMENTED;  // the unstabilized system this test measures
  o.t_end = 10;
  o.ode.rtol = o.ode.atol = tol;
  o.output_every = 0.01;
  mbd_run *r = simulate_ok(m, &o);
  assert_no_warning(m);
  double drift = energy_drift(r, e0);
  // initial energy: at rest, m g y of both centres of mass
  MBD_ASSERT_NEAR(*e0, 9.81 * (0.5 * sin(t1) + sin(t1) + 0.5 * sin(t2)), 1e-9);
  mbd_run_free(r);
  mbd_model_free(m);
  return drift;
}

static void test_energy_double_pendulum(void **state) {
  (void)state;
  double e0;
  double loose = double_pendulum_drift(1e-9, &e0), tight = double_pendulum_drift(1e-11, &e0);
  print_message("double pendulum: energy %.6g J, drift %.3g J (rtol 1e-9), %.3g J (rtol 1e-11)\n",
                e0, loose, tight);
  /* the energy moves only through integration error and the constraint drift of the
   * unstabilized augmented system.  Observed drift 1.9e-7 J of 2.35 J with rtol = atol = 1e-11
   * (1.8e-5 J with 1e-9: it shrinks in proportion to the tolerance, so it is integration error
   * and not a leak in the model); tolerance 1e-6 J, and the drift must shrink at least tenfold
   * from 1e-9 to 1e-11 */
  MBD_ASSERT_NEAR(tight, 0, 1e-6);
  assert_true(tight < loose / 10);
}

/* paper 000 example 2 case II geometry (links 2 m, ground 1.9 m, m = 5, 7, 9, J = 10, 20, 25,
 * rotational spring K = 100 at the ground pivot of link 1, free angle 0.524, θ1(0) = 1.1036),
 * without the coupler force: a conservative system */
static mbd_model *four_bar(double l0, double th1, double K, int with_spring) {
  mbd_model *m = new_model("four bar", 0, 0);
  double B[2] = {2 * cos(th1), 2 * sin(th1)}, O3[2] = {l0, 0};
  double dx = O3[0] - B[0], dy = O3[1] - B[1], dd = hypot(dx, dy);
  double h = sqrt(4 - dd * dd / 4), M[2] = {(B[0] + O3[0]) / 2, (B[1] + O3[1]) / 2};
  // the two closures M ± h p (p ⟂ B→O3); the coupler above the ground line
  double C[2] = {M[0] - h * dy / dd, M[1] + h * dx / dd};
  if (dx < 0) {
    C[0] = M[0] + h * dy / dd;
    C[1] = M[1] - h * dx / dd;
  }
  int l1 = add_body(m, "link1", 5, 10, B[0] / 2, B[1] / 2, th1);
  int l2 = add_body(m, "link2", 7, 20, (B[0] + C[0]) / 2, (B[1] + C[1]) / 2,
                    atan2(C[1] - B[1], C[0] - B[0]));
  int l3 = add_body(m, "link3", 9, 25, (O3[0] + C[0]) / 2, (O3[1] + C[1]) / 2,
                    atan2(C[1] - O3[1], C[0] - O3[0]));
  int j1 = revolute(m, "O1", 0, 0, 0, l1, -1, 0);
  revolute(m, "B", l1, 1, 0, l2, -1, 0);
  revolute(m, "C", l2, 1, 0, l3, 1, 0);
  revolute(m, "O3", l3, -1, 0, 0, l0, 0);
  if (with_spring) {
    mbd_error err;
    mbd_error_clear(&err);
    assert_true(mbd_model_add_rotational_spring(m, j1, K, 0, 0.524, &err) >= 0);
  }
  return m;
}

static void test_energy_four_bar(void **state) {
  (void)state;
  mbd_model *m = four_bar(1.9, 1.1036, 100, 1);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 10;
  o.ode.rtol = o.ode.atol = 1e-10;
  o.output_every = 0.01;
  mbd_run *r = simulate_ok(m, &o);
  assert_no_warning(m);
  double e0, drift = energy_drift(r, &e0);
  // at rest at the start: the energy is the spring's ½K(θ1 − 0.524)² = 16.8 J
  MBD_ASSERT_NEAR(e0, 0.5 * 100 * (1.1036 - 0.524) * (1.1036 - 0.524), 1e-6);
  print_message("four-bar: energy %.6g J, drift %.3g J\n", e0, drift);
  /* observed drift 1.7e-7 J of 16.8 J with rtol = atol = 1e-10; tolerance 1e-6 J (6e-8
   * relative) */
  MBD_ASSERT_NEAR(drift, 0, 1e-6);
  // the crank swings through the spring's free angle and back (a real motion, not a rest state)
  double *th = series(r, "link1.theta");
  double lo = 10, hi = -10;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    lo = fmin(lo, th[i]);
    hi = fmax(hi, th[i]);
  }
  assert_true(lo < 0.524 && hi > 1.1);
  free(th);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* augmented vs baumgarte vs an independent minimal-coordinate formulation (paper 000 ex. 1)    */

/* the same double pendulum in absolute angles θ1, θ2 (Lagrange's equations):
 *   M = [m1 a² + J1 + m2 L², m2 L b c12; m2 L b c12, m2 b² + J2], a = b = 1, L = 2,
 *   M θ̈ = Q − [m2 L b s12 θ̇2²; −m2 L b s12 θ̇1²],  s12 = sin(θ1 − θ2), c12 = cos(θ1 − θ2),
 *   Q = [T + P·∂p/∂θ1; F·∂p/∂θ2], p = L(c1, s1) + 2b(c2, s2) the free end of link 2 */
static void dp_rhs(const double *y, double *f) {
  double m1 = 5, m2 = 7, J1 = 10, J2 = 20, T = 10, Fx = 8, Fy = 7;
  double s12 = sin(y[0] - y[1]), c12 = cos(y[0] - y[1]);
  double M11 = m1 + J1 + 4 * m2, M22 = m2 + J2, M12 = 2 * m2 * c12;
  double Q1 = T + 2 * (-Fx * sin(y[0]) + Fy * cos(y[0])) - 2 * m2 * s12 * y[3] * y[3];
  double Q2 = 2 * (-Fx * sin(y[1]) + Fy * cos(y[1])) + 2 * m2 * s12 * y[2] * y[2];
  double det = M11 * M22 - M12 * M12;
  f[0] = y[2];
  f[1] = y[3];
  f[2] = (M22 * Q1 - M12 * Q2) / det;
  f[3] = (M11 * Q2 - M12 * Q1) / det;
}

static mbd_model *paper000_double_pendulum(void) {
  mbd_model *m = new_model("paper 000 example 1", 0, 0);
  double t1 = 0.5236, t2 = 0.7854;
  int l1 = add_body(m, "link1", 5, 10, cos(t1), sin(t1), t1);
  int l2 = add_body(m, "link2", 7, 20, 2 * cos(t1) + cos(t2), 2 * sin(t1) + sin(t2), t2);
  revolute(m, "A", 0, 0, 0, l1, -1, 0);
  revolute(m, "B", l1, 1, 0, l2, -1, 0);
  mbd_force_spec f;
  memset(&f, 0, sizeof f);
  f.body = l1;
  f.value[0] = 10;
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_torque(m, &f, &err) >= 0);
  memset(&f, 0, sizeof f);
  f.body = l2;
  f.at[0] = 1;
  f.value[0] = 8;
  f.value[1] = 7;
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

static void test_augmented_baumgarte_paper000(void **state) {
  (void)state;
  mbd_run *runs[2];
  for (int k = 0; k < 2; k++) {
    mbd_model *m = paper000_double_pendulum();
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 10;
    o.ode.rtol = o.ode.atol = 1e-9;
    o.output_every = 0.01;
    o.formulation = k == 0 ? MBD_FORM_AUGMENTED : MBD_FORM_BAUMGARTE;
    runs[k] = simulate_ok(m, &o);
    assert_no_warning(m);
    mbd_model_free(m);
  }
  // the reference: RK4 on the minimal equations, h = 1e-3 (global error ~ (h ω)⁴ ≈ 1e-12)
  double y[4] = {0.5236, 0.7854, 0, 0}, h = 1e-3;
  int ns = mbd_run_nsample(runs[0]);
  assert_int_equal(ns, 1001);
  assert_int_equal(mbd_run_nsample(runs[1]), ns);
  double *a2 = series(runs[0], "link2.theta"), *b2 = series(runs[1], "link2.theta");
  double *a1 = series(runs[0], "link1.theta");
  double max_ab = 0, max_ref = 0;
  for (int i = 0; i < ns; i++) {
    if (i > 0) {
      for (int s = 0; s < 10; s++) {
        double k1[4], k2[4], k3[4], k4[4], yt[4];
        dp_rhs(y, k1);
        for (int c = 0; c < 4; c++) {
          yt[c] = y[c] + 0.5 * h * k1[c];
        }
        dp_rhs(yt, k2);
        for (int c = 0; c < 4; c++) {
          yt[c] = y[c] + 0.5 * h * k2[c];
        }
        dp_rhs(yt, k3);
        for (int c = 0; c < 4; c++) {
          yt[c] = y[c] + h * k3[c];
        }
        dp_rhs(yt, k4);
        for (int c = 0; c < 4; c++) {
          y[c] += h / 6 * (k1[c] + 2 * k2[c] + 2 * k3[c] + k4[c]);
        }
      }
    }
    max_ab = fmax(max_ab, fabs(a2[i] - b2[i]));
    max_ref = fmax(max_ref, fmax(fabs(a2[i] - y[1]), fabs(a1[i] - y[0])));
  }
  /* both formulations solve the same index-1 equations (Baumgarte's terms vanish on the
   * constraint manifold), each to rtol 1e-9: observed differences 1e-8 rad between them and
   * 8e-9 rad from the minimal-coordinate reference; tolerance 1e-6 rad */
  print_message("paper 000 ex. 1: augmented−baumgarte %.3g rad, augmented−reference %.3g rad, "
                "θ1 %.4g→%.4g, θ2 %.4g→%.4g\n", max_ab, max_ref, a1[0], a1[ns - 1], a2[0],
                a2[ns - 1]);
  MBD_ASSERT_NEAR(max_ab, 0, 1e-6);
  MBD_ASSERT_NEAR(max_ref, 0, 1e-6);
  // the motion is not small (θ2 moves by 0.44 rad from its start): agreement is not trivial
  assert_true(fabs(a2[ns - 1] - a2[0]) > 0.4);
  // Baumgarte keeps the constraints tighter than the plain augmented system
  assert_true(mbd_run_get_stats(runs[1])->max_position_violation <=
              mbd_run_get_stats(runs[0])->max_position_violation);
  free(a1);
  free(a2);
  free(b2);
  mbd_run_free(runs[0]);
  mbd_run_free(runs[1]);
}

/* ------------------------------------------------------------------------------------------ */
/* rank test and failed assembly                                                               */

static int warning_count(const mbd_model *m) {
  int k = 0;
  while (mbd_model_warning(m, k)) {
    k++;
  }
  return k;
}

/* a four-bar whose last revolute is declared twice: both rows of the copy are removed */
static void test_rank_revolute_twice(void **state) {
  (void)state;
  mbd_model *m = four_bar(1.9, 1.1036, 0, 0);
  revolute(m, "O3_again", 3, -1, 0, 0, 1.9, 0);  // body 3 is link3
  assemble_ok(m);
  mbd_model_info in;
  assert_int_equal(mbd_model_get_info(m, &in), MBD_OK);
  assert_int_equal(in.ncoord, 9);
  assert_int_equal(in.nconstraint, 10);
  assert_int_equal(in.nredundant, 2);
  assert_int_equal(in.rank, 8);
  assert_int_equal(in.dof, 1);
  assert_int_equal(warning_count(m), 2);
  for (int k = 0; k < 2; k++) {
    const char *w = mbd_model_warning(m, k);
    MBD_ASSERT_FITS(w, MSG_KIN_REDUNDANT);
    assert_non_null(strstr(w, "revolute 'O3_again'"));
  }
  mbd_model_free(m);
}

/* a parallelogram (cranks of 1 m at (0,0) and (2,0), coupler 2 m) with a fifth link, a third
 * crank at (1,0) to the coupler's middle: one row of its last joint is redundant at the assembled
 * pose (rank 11 of 12), dof 1.  Where the cranks are horizontal (θ = 0, ±π) the linkage lies flat
 * and the whole Jacobian drops to rank 10 (m:info at that pose); near θ = 0 the rows kept at
 * assembly become singular first, and without choosing the rows again crank3 left on the mirror
 * branch θ3 = −θ1.  The engine re-chooses the active rows (QR with column pivoting over all rows)
 * when the leading matrix's pivots collapse, which carries the motion through θ = 0 on the
 * parallel branch.  The run stops before θ = −π, a second flat passage (a bifurcation of the
 * mechanism itself, not of the row choice). */
static void test_rank_parallelogram(void **state) {
  (void)state;
  mbd_model *m = new_model("parallelogram", 0, -9.81);
  double p = 1.0, c = cos(p), s = sin(p);
  int k1 = add_body(m, "crank1", 1, 0.1, 0.5 * c, 0.5 * s, p);
  int k2 = add_body(m, "crank2", 1, 0.1, 2 + 0.5 * c, 0.5 * s, p);
  int cp = add_body(m, "coupler", 2, 0.7, 1 + c, s, 0);
  int k3 = add_body(m, "crank3", 1, 0.1, 1 + 0.5 * c, 0.5 * s, p);
  revolute(m, "g1", 0, 0, 0, k1, -0.5, 0);
  revolute(m, "a1", k1, 0.5, 0, cp, -1, 0);
  revolute(m, "a2", cp, 1, 0, k2, 0.5, 0);
  revolute(m, "g2", k2, -0.5, 0, 0, 2, 0);
  revolute(m, "g3", 0, 1, 0, k3, -0.5, 0);
  revolute(m, "a3", k3, 0.5, 0, cp, 0, 0);
  assemble_ok(m);
  mbd_model_info in;
  mbd_model_get_info(m, &in);
  assert_int_equal(in.ncoord, 12);
  assert_int_equal(in.nconstraint, 12);
  assert_int_equal(in.nredundant, 1);
  assert_int_equal(in.dof, 1);
  assert_int_equal(warning_count(m), 1);
  MBD_ASSERT_FITS(mbd_model_warning(m, 0), MSG_KIN_REDUNDANT);
  assert_non_null(strstr(mbd_model_warning(m, 0), "revolute 'a3'"));
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_AUGMENTED;  // its re-choice of the active rows is what is tested
  o.t_end = 0.9;
  o.ode.rtol = o.ode.atol = 1e-10;
  mbd_run *r = simulate_ok(m, &o);
  long reselected = mbd_run_get_stats(r)->repartitions;
  /* the three cranks stay parallel (θ3 = θ1) through the whole motion.  The removed row (a3's
   * y equation) is implied by the others only on this branch: where the cranks are horizontal
   * (θ = 0 or ±π) the kept x equation is stationary in θ3, the reduced constraint set is singular
   * although the mechanism is not, and crank3 can leave on the mirror branch θ3 = −θ1.
   * Tolerance 1e-6 rad: the drift of the unstabilized system with rtol 1e-10 */
  double *c1 = series(r, "crank1.theta"), *c3 = series(r, "crank3.theta"), par = 0;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    par = fmax(par, fabs(c3[i] - c1[i]));
  }
  free(c1);
  free(c3);
  // every row, the removed one too, holds at the end (drift of the unstabilized system only):
  // the violation channel is the largest |Φ| over all rows
  double worst = value_at(r, "violation", 0.9);
  // and the mechanism did move (it falls from 1 rad)
  double moved = fabs(value_at(r, "crank1.theta", 0.9) - p);
  mbd_run_free(r);
  mbd_model_free(m);
  print_message("parallelogram: max |θ3 − θ1| %.3g rad, max |Φ| of all rows at the end %.3g\n",
                par, worst);
  assert_true(moved > 1.5);  // from 1 rad through 0 to about −1.9 rad
  assert_true(reselected >= 1);
  MBD_ASSERT_NEAR(par, 0, 1e-6);
  MBD_ASSERT_NEAR(worst, 0, 1e-6);
}

static void test_assembly_fails(void **state) {
  (void)state;
  mbd_model *m = new_model("too short", 0, 0);
  int a = add_body(m, "a", 1, 0.1, 0.5, 0, 0);
  int b = add_body(m, "b", 1, 0.1, 1.5, 0, 0);
  int c = add_body(m, "c", 1, 0.1, 2.5, 0, 0);
  revolute(m, "p", 0, 0, 0, a, -0.5, 0);
  revolute(m, "q", a, 0.5, 0, b, -0.5, 0);
  revolute(m, "r", b, 0.5, 0, c, -0.5, 0);
  revolute(m, "s", c, 0.5, 0, 0, 4, 0);
  mbd_error err;
  mbd_error_clear(&err);
  int rc = mbd_model_assemble(m, NULL, &err);
  assert_int_equal(rc, MBD_E_ASSEMBLY);
  assert_int_equal(err.code, MBD_E_ASSEMBLY);
  // the assembly's message, then the position analysis's naming the worst row (a joint)
  char head[200];
  snprintf(head, sizeof head, MSG_KIN_ASSEMBLY, "too short", "");
  assert_memory_equal(err.msg, head, strlen(head));
  MBD_ASSERT_FITS(err.msg + strlen(head), MSG_KIN_NEWTON);
  assert_non_null(strstr(err.msg, "revolute '"));
  assert_false(mbd_model_is_assembled(m));
  // simulate reports the same failure and returns no run
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  mbd_run *r = NULL;
  mbd_error_clear(&err);
  assert_int_equal(mbd_simulate(m, &o, &r, &err), MBD_E_ASSEMBLY);
  assert_null(r);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* kinematics of a driven slider-crank                                                         */

typedef struct crank_geom {
  double r, l;
} crank_geom;

// x(θ) = r cos θ + √(l² − r² sin² θ) and its first two derivatives in θ
static void slider_x(const crank_geom *g, double th, double *x, double *x1, double *x2) {
  double S = sqrt(g->l * g->l - g->r * g->r * sin(th) * sin(th));
  double gg = g->r * g->r * sin(th) * cos(th);
  *x = g->r * cos(th) + S;
  *x1 = -g->r * sin(th) - gg / S;
  *x2 = -g->r * cos(th) - g->r * g->r * cos(2 * th) / S - gg * gg / (S * S * S);
}

/* crank r = 0.15 m (CM in the middle), rod l = 0.5 m, slider on the x axis, a load F on the slider */
static mbd_model *slider_crank(const crank_geom *g, double th, drive_fn *drv, double Fx) {
  mbd_model *m = new_model("slider crank", 0, 0);
  double x, x1, x2;
  slider_x(g, th, &x, &x1, &x2);
  double A[2] = {g->r * cos(th), g->r * sin(th)};
  int crank = add_body(m, "crank", 2, 0.015, A[0] / 2, A[1] / 2, th);
  int rod = add_body(m, "rod", 3, 0.07, (A[0] + x) / 2, A[1] / 2, atan2(-A[1], x - A[0]));
  int sl = add_body(m, "slider", 4, 0.01, x, 0, 0);
  int o = revolute(m, "O", 0, 0, 0, crank, -g->r / 2, 0);
  revolute(m, "A", crank, g->r / 2, 0, rod, -g->l / 2, 0);
  revolute(m, "B", rod, g->l / 2, 0, sl, 0, 0);
  double ax[2] = {1, 0};
  add_joint(m, "S", MBD_JOINT_TRANSLATIONAL, 0, 0, 0, sl, 0, 0, ax);
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_drive(m, o, drive_eval, drv, &err) >= 0);
  if (Fx != 0) {
    mbd_force_spec f;
    memset(&f, 0, sizeof f);
    f.body = sl;
    f.value[0] = Fx;
    assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  }
  return m;
}

static mbd_run *kinematics_ok(mbd_model *m, double t_end, int steps) {
  mbd_kin_opts ko;
  memset(&ko, 0, sizeof ko);
  ko.t_end = t_end;
  ko.steps = steps;
  ko.position_tol = 1e-12;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *r = NULL;
  int rc = mbd_kinematics(m, &ko, &r, &err);
  if (rc != MBD_OK) {
    fail_msg("kinematics failed (%s): %s", mbd_status_name(rc), err.msg);
  }
  return r;
}

static void test_slider_crank_kinematics(void **state) {
  (void)state;
  crank_geom g = {0.15, 0.5};
  double w = 2 * M_PI, th0 = 0.3;
  drive_fn drv = {th0, w, 0, 0, 0};  // θ = θ0 + ω t
  mbd_model *m = slider_crank(&g, th0, &drv, -50);
  int steps = 2000;
  mbd_run *r = kinematics_ok(m, 1, steps);
  assert_no_warning(m);
  mbd_model_info in;
  mbd_model_get_info(m, &in);
  assert_int_equal(in.dof, 0);
  int ns = mbd_run_nsample(r);
  assert_int_equal(ns, steps + 1);
  const double *t = mbd_run_times(r);
  double *x = series(r, "slider.x"), *vx = series(r, "slider.vx"), *th = series(r, "crank.theta");
  double *eff = series(r, "O.effort"), *e = series(r, "energy");
  double dt = 1.0 / steps, max_acc = 0, max_pow = 0;
  for (int i = 0; i < ns; i++) {
    double xc, x1, x2;
    slider_x(&g, th0 + w * t[i], &xc, &x1, &x2);
    MBD_ASSERT_NEAR(th[i], th0 + w * t[i], 1e-10);
    // positions solved to |Φ| ≤ 1e-12; velocities from the exact linear system: tolerance 1e-9
    MBD_ASSERT_NEAR(x[i], xc, 1e-9);
    MBD_ASSERT_NEAR(vx[i], x1 * w, 1e-9);
    if (i > 0 && i < ns - 1) {
      /* acceleration: central difference of the recorded velocity, error dt²/6·|x''''|ω⁴
       * ≈ 4e-8 × 350 ≈ 1.5e-5 m/s² (dt = 5e-4 s); tolerance 1e-4 m/s² on values ≈ 6 m/s² */
      double acc = (vx[i + 1] - vx[i - 1]) / (2 * dt);
      max_acc = fmax(max_acc, fabs(acc - x2 * w * w));
      /* power balance of inverse dynamics: effort·ω + F·ẋ = dE/dt (kinetic energy only); the
       * central difference of E has error dt²/6·|E'''| ≈ 4e-8 × 2e3 ≈ 1e-4 W; tolerance 1e-3 W
       * on powers of tens of watts */
      double dE = (e[i + 1] - e[i - 1]) / (2 * dt);
      max_pow = fmax(max_pow, fabs(eff[i] * w + -50 * vx[i] - dE));
    }
  }
  print_message("slider-crank: acceleration error %.3g m/s², power balance error %.3g W\n",
                max_acc, max_pow);
  MBD_ASSERT_NEAR(max_acc, 0, 1e-4);
  MBD_ASSERT_NEAR(max_pow, 0, 1e-3);
  // the last state's accelerations are the exact solution of Φq q̈ = γ
  {
    double xc, x1, x2;
    slider_x(&g, th0 + w * 1.0, &xc, &x1, &x2);
    int sl = mbd_model_find_body(m, "slider");
    mbd_data *d = data_new(m);
    mbd_error err;
    // the analyses again at the last sample's pose (Newton from it converges at once)
    for (int b = 1; b < m->nbody; b++) {
      const mbd_block *bl = &m->block[m->body[b].block];
      static const char *const cn[] = {"x", "y", "theta"};
      for (int c = 0; c < 3; c++) {
        char ch[96];
        snprintf(ch, sizeof ch, "%s.%s", m->body[b].name, cn[c]);
        d->q[bl->qadr + c] = value_at(r, ch, 1.0);
      }
    }
    assert_int_equal(mbd_kin_analyse(m, d, 1.0, 1e-12, 25, &err), MBD_OK);
    MBD_ASSERT_NEAR(d->vdot[m->block[m->body[sl].block].vadr], x2 * w * w, 1e-8);
    mbd_data_free(d);
  }
  free(x);
  free(vx);
  free(th);
  free(eff);
  free(e);
  mbd_run_free(r);
  mbd_model_free(m);

  /* a static load: the crank held at θ by a constant drive, a force −P along x on the slider.
   * Virtual work: τ δθ + F_x x'(θ) δθ = 0, so the drive torque on the crank is τ = P x'(θ) */
  double P = 100, angles[4] = {0.3, 1.0, 2.0, 4.0};
  for (int k = 0; k < 4; k++) {
    drive_fn hold = {angles[k], 0, 0, 0, 0};
    mbd_model *ms = slider_crank(&g, angles[k], &hold, -P);
    mbd_run *rs = kinematics_ok(ms, 1, 2);
    double xc, x1, x2;
    slider_x(&g, angles[k], &xc, &x1, &x2);
    // the multipliers come from an exact least-squares solve: tolerance 1e-9 N·m on ≈ 15 N·m
    MBD_ASSERT_NEAR(value_at(rs, "O.effort", 0.5), P * x1, 1e-9);
    // the slider's joint carries no force along its axis: the crank pivot takes −F in x, and
    // the two ground joints balance in y
    MBD_ASSERT_NEAR(value_at(rs, "S.fy", 0.5) + value_at(rs, "O.fy", 0.5), 0, 1e-9);
    MBD_ASSERT_NEAR(value_at(rs, "O.fx", 0.5), P, 1e-9);
    mbd_run_free(rs);
    mbd_model_free(ms);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* bad input: statuses and messages                                                            */

static void test_bad_input(void **state) {
  (void)state;
  mbd_model *m = new_model("bad", 0, 0);
  int b = add_body(m, "b", 1, 0.1, 0, 0, 0);
  int c = add_body(m, "c", 1, 0.1, 1, 0, 0);
  mbd_error err;
  mbd_joint_spec j;
  mbd_body_spec bs;
  int rc;

  // model dimension
  mbd_error_clear(&err);
  assert_null(mbd_model_new("m", 4, &err));
  assert_int_equal(err.code, MBD_E_INPUT);
  MBD_ASSERT_MSG(err.msg, MSG_MODEL_DIM, "m", 4);

  // the same body twice
  memset(&j, 0, sizeof j);
  j.name = "J";
  j.type = MBD_JOINT_REVOLUTE;
  j.body1 = b;
  j.body2 = b;
  mbd_error_clear(&err);
  rc = mbd_model_add_joint(m, &j, &err);
  MBD_EXPECT_ERROR(rc, &err, MBD_E_INPUT, MSG_MODEL_SAME_BODY, "revolute", "J", "b");
  // an unknown body index
  j.body2 = 7;
  mbd_error_clear(&err);
  rc = mbd_model_add_joint(m, &j, &err);
  MBD_EXPECT_ERROR(rc, &err, MBD_E_INPUT, MSG_MODEL_BODY_INDEX, "revolute", "J");
  j.body2 = -1;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_joint(m, &j, &err), &err, MBD_E_INPUT, MSG_MODEL_BODY_INDEX,
                   "revolute", "J");
  // a zero axis; a missing axis
  j.body2 = c;
  j.type = MBD_JOINT_TRANSLATIONAL;
  j.has_axis1 = 1;
  mbd_error_clear(&err);
  rc = mbd_model_add_joint(m, &j, &err);
  MBD_EXPECT_ERROR(rc, &err, MBD_E_INPUT, MSG_MODEL_AXIS_ZERO, "translational", "J", "axis1");
  j.has_axis1 = 0;
  mbd_error_clear(&err);
  rc = mbd_model_add_joint(m, &j, &err);
  MBD_EXPECT_ERROR(rc, &err, MBD_E_INPUT, MSG_MODEL_AXIS_MISSING, "translational", "J", "axis1");
  // a spatial joint in a planar model
  j.type = MBD_JOINT_SPHERICAL;
  mbd_error_clear(&err);
  rc = mbd_model_add_joint(m, &j, &err);
  MBD_EXPECT_ERROR(rc, &err, MBD_E_INPUT, MSG_MODEL_NOT_PLANAR, "spherical", "J");
  assert_int_equal(mbd_model_njoint(m), 0);

  // zero mass, negative inertia, duplicate name, a '.' in a name, a NaN pose
  memset(&bs, 0, sizeof bs);
  bs.name = "z";
  bs.inertia[0] = 1;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &bs, &err), &err, MBD_E_INPUT, MSG_MODEL_MASS, "z", 0.0);
  bs.mass = 1;
  bs.inertia[0] = -1;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &bs, &err), &err, MBD_E_INPUT, MSG_MODEL_INERTIA, "z",
                   -1.0);
  bs.inertia[0] = 1;
  bs.name = "b";
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &bs, &err), &err, MBD_E_INPUT, MSG_MODEL_BODY_DUP, "b");
  bs.name = "a.b";
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &bs, &err), &err, MBD_E_INPUT, MSG_MODEL_NAME_DOT, "body",
                   "a.b");
  bs.name = "n";
  bs.pos[0] = NAN;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &bs, &err), &err, MBD_E_INPUT, MSG_MODEL_BODY_FINITE, "n",
                   "pos");
  assert_int_equal(mbd_model_nbody(m), 3);

  // drives: on a fixed joint, twice, out of range, without a function
  int jf = add_joint(m, "weld", MBD_JOINT_FIXED, b, 0.5, 0, c, -0.5, 0, NULL);
  drive_fn f0 = {0, 0, 0, 0, 0};
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_drive(m, jf, drive_eval, &f0, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_DRIVE_TYPE, "fixed", "weld", "");
  int jr = revolute(m, "pin", 0, 0, 0, b, 0, 0);
  mbd_error_clear(&err);
  assert_true(mbd_model_add_drive(m, jr, drive_eval, &f0, &err) >= 0);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_drive(m, jr, drive_eval, &f0, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_DRIVE_TWICE, "pin");
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_drive(m, 9, drive_eval, &f0, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_JOINT_INDEX, "drive");
  int jt = add_joint(m, "slide", MBD_JOINT_TRANSLATIONAL, 0, 0, 0, c, 0, 0, (double[]){1, 0});
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_drive(m, jt, NULL, NULL, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_DRIVE_FN, "slide");
  // a rotational spring on a translational joint; negative stiffness
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_rotational_spring(m, jt, 1, 0, 0, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_RSPRING_TYPE, "translational", "slide", "");
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_rotational_spring(m, jr, -1, 0, 0, &err), &err, MBD_E_INPUT,
                   MSG_MODEL_RSPRING_VALUES, "pin");
  // forces on the ground; a spring between a body and itself
  mbd_force_spec fs;
  memset(&fs, 0, sizeof fs);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_force(m, &fs, &err), &err, MBD_E_INPUT, MSG_MODEL_FORCE_BODY,
                   "force");
  mbd_spring_spec ss;
  memset(&ss, 0, sizeof ss);
  ss.name = "s";
  ss.body1 = ss.body2 = c;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_spring(m, &ss, &err), &err, MBD_E_INPUT, MSG_MODEL_SAME_BODY,
                   "spring", "s", "c");
  // simulate options
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = -1;
  mbd_run *r = NULL;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_INPUT, MSG_SIM_T_END, -1.0);
  assert_null(r);
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_N;  // a number past the list
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_INPUT, MSG_SIM_FORMULATION, "?",
                   "bad");
  mbd_model_free(m);
  // kinematics needs a fully driven mechanism: a free pendulum has 1 degree of freedom
  m = new_model("pendulum", 0, -9.81);
  b = add_body(m, "b", 1, 0.1, 0.5, 0, 0);
  revolute(m, "pin", 0, 0, 0, b, -0.5, 0);
  mbd_kin_opts ko;
  memset(&ko, 0, sizeof ko);
  ko.t_end = 1;
  ko.steps = 10;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_kinematics(m, &ko, &r, &err), &err, MBD_E_INPUT, MSG_SIM_KIN_DOF, "pendulum",
                   1, "");
  assert_null(r);
  mbd_model_free(m);
  // an empty model
  m = new_model("empty", 0, 0);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_assemble(m, NULL, &err), &err, MBD_E_INPUT, MSG_KIN_NO_BODIES,
                   "empty");
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* failures during a run                                                                       */

/* a body moving along −x → +x at 1 m/s from x = −1 with a (k = 0) spring to the ground origin:
 * at t = 1 the spring's two points coincide, its direction is undefined, and the run stops */
static void test_singular_spring_stops_run(void **state) {
  (void)state;
  mbd_model *m = new_model("collide", 0, 0);
  int b = add_body(m, "b", 1, 0.1, -1, 0, 0);
  set_body_velocity(m, b, 1, 0, 0);
  mbd_spring_spec ss;
  memset(&ss, 0, sizeof ss);
  ss.name = "tie";
  ss.body1 = 0;
  ss.body2 = b;
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_spring(m, &ss, &err) >= 0);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 2;
  o.output_every = 0.1;
  mbd_run *r = NULL;
  int rc = mbd_simulate(m, &o, &r, &err);
  // the straight line is integrated to round-off, so the sample at t = 1 lands on the anchor
  MBD_EXPECT_ERROR(rc, &err, MBD_E_SINGULAR, MSG_MODEL_SPRING_COINCIDE, "tie", 1.0);
  assert_non_null(r);
  assert_int_equal(mbd_run_status(r), MBD_E_SINGULAR);
  assert_non_null(strstr(mbd_run_message(r), "spring 'tie'"));
  // what was recorded before the failure is kept: t = 0, 0.1, …, 0.9
  assert_int_equal(mbd_run_nsample(r), 10);
  MBD_ASSERT_NEAR(mbd_run_times(r)[9], 0.9, 1e-12);
  MBD_ASSERT_NEAR(value_at(r, "b.x", 0.9), -0.1, 1e-9);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* the message of the failing force callback below (the test's own text, passed through) */
#define LOAD_CELL_FAILED "load cell failed at t = %g"

typedef struct cb_fault {
  double t_fail; /* fail for t > t_fail */
  int nan;       /* 1: return NaN, 0: return −1 */
  long calls;
} cb_fault;

static int faulty_force(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                        mbd_error *err) {
  cb_fault *f = ud;
  f->calls++;
  // the force reads the state through a channel, as a Lua force function does
  int ok = 0;
  double y = mbd_channel_value(m, d, mbd_channel_find(m, "b.y"), &ok);
  assert_true(ok);
  out[0] = 0;
  out[1] = -0.1 * y;
  if (t > f->t_fail) {
    if (f->nan) {
      out[1] = NAN;
    } else {
      return MBD_FAIL(err, -1, LOAD_CELL_FAILED, t);
    }
  }
  return 0;
}

static void run_faulty(int nan) {
  mbd_model *m = new_model("faulty", 0, -9.81);
  int b = add_body(m, "b", 1, 0.1, 0, 0, 0);
  set_body_velocity(m, b, 0, 3, 0);
  cb_fault f = {0.5, nan, 0};
  mbd_force_spec fs;
  memset(&fs, 0, sizeof fs);
  fs.body = b;
  fs.fn = faulty_force;
  fs.ud = &f;
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_force(m, &fs, &err) >= 0);
  for (int kind = 0; kind < 4; kind++) {
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 1;
    o.output_every = 0.01;
    o.ode.kind = kind;
    o.ode.step = kind == MBD_INT_RK4 ? 0.01 : 0;
    mbd_run *r = NULL;
    mbd_error_clear(&err);
    int rc = mbd_simulate(m, &o, &r, &err);
    if (nan) {
      // the time is where the integrator probed past 0.5: the message fits the template, and up
      // to the time it is the engine's text for this force, body and value
      assert_int_equal(rc, MBD_E_NAN);
      assert_int_equal(err.code, MBD_E_NAN);
      MBD_ASSERT_FITS(err.msg, MSG_MODEL_FORCE_VALUE);
      mbd_error want;
      MBD_FAIL(&want, MBD_E_NAN, MSG_MODEL_FORCE_VALUE, "force", "b", NAN, 0.0);
      assert_memory_equal(err.msg, want.msg, strlen(want.msg) - 1);  // all but the time "0"
    } else {
      assert_int_equal(rc, -1);
      assert_int_equal(err.code, -1);
      MBD_ASSERT_FITS(err.msg, LOAD_CELL_FAILED);
    }
    assert_non_null(r);
    assert_int_equal(mbd_run_status(r), rc);
    assert_string_equal(mbd_run_message(r), err.msg);
    // the samples before the failure are kept (the solver may probe t > 0.5 ahead of them)
    int ns = mbd_run_nsample(r);
    assert_true(ns > 1);
    assert_true(mbd_run_times(r)[ns - 1] <= 0.5 + 1e-12);
    mbd_run_free(r);
  }
  mbd_model_free(m);
}

static void test_callback_fails(void **state) {
  (void)state;
  run_faulty(0);
}

static void test_callback_nan(void **state) {
  (void)state;
  run_faulty(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_joint_jacobians),
      cmocka_unit_test(test_compound_pendulum_period),
      cmocka_unit_test(test_free_body_parabola),
      cmocka_unit_test(test_spring_mass),
      cmocka_unit_test(test_energy_double_pendulum),
      cmocka_unit_test(test_energy_four_bar),
      cmocka_unit_test(test_augmented_baumgarte_paper000),
      cmocka_unit_test(test_rank_revolute_twice),
      cmocka_unit_test(test_rank_parallelogram),
      cmocka_unit_test(test_assembly_fails),
      cmocka_unit_test(test_slider_crank_kinematics),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_singular_spring_stops_run),
      cmocka_unit_test(test_callback_fails),
      cmocka_unit_test(test_callback_nan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
