/* tests of the spatial engine (engine/model/spatial.c, forces3.c): joint Jacobians and γ against
 * finite differences, a torque-free body (energy, angular momentum, Euler-parameter norm), the
 * heavy symmetric top's steady precession against the exact relation, a planar double pendulum
 * built as a spatial model against the planar model, formulations agreeing, reactions, drives
 * through full turns, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/kinematics/kinematics.h"
#include "../../engine/model/model_msg.h"
#include "mbd/integrators.h"
#include "model_build.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static int add_body(mbd_model *m, const char *name, double mass, const double *inertia6,
                    const double *pos, const double *rot) {
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.mass = mass;
  memcpy(s.inertia, inertia6, 6 * sizeof(double));
  if (pos) {
    memcpy(s.pos, pos, 3 * sizeof(double));
  }
  s.rot[0] = 1;
  if (rot) {
    memcpy(s.rot, rot, 4 * sizeof(double));
  }
  return test_add_body(m, &s);
}

static int add_joint(mbd_model *m, const char *name, int type, int b1, const double *at1, int b2,
                     const double *at2, const double *ax1, const double *ax2) {
  return test_joint(m, name, type, b1, at1, b2, at2, ax1, ax2);
}

/* f(t) = 0.3 + 0.5 t + 0.2 t², exact derivatives */
static int quad_drive(void *ud, double t, double out[3], mbd_error *err) {
  (void)ud;
  (void)err;
  out[0] = 0.3 + 0.5 * t + 0.2 * t * t;
  out[1] = 0.5 + 0.4 * t;
  out[2] = 0.4;
  return 0;
}

/* f(t) = 2πt: two full turns in two seconds */
static int turn_drive(void *ud, double t, double out[3], mbd_error *err) {
  (void)ud;
  (void)err;
  out[0] = 2 * M_PI * t;
  out[1] = 2 * M_PI;
  out[2] = 0;
  return 0;
}

static double run_at(const mbd_run *r, const char *ch, double t) {
  int c = mbd_run_find(r, ch);
  if (c < 0) {
    fail_msg("no channel '%s'", ch);
  }
  int ok = 0;
  double v = mbd_run_value(r, c, t, &ok);
  assert_true(ok);
  return v;
}

static void normalize4(double *p) {
  double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
  for (int k = 0; k < 4; k++) {
    p[k] /= n;
  }
}

static double urand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 * 2 - 1;  // in [−1, 1]
}

/* ------------------------------------------------------------------------------------------ */
/* Jacobians and γ of every spatial joint and drive against finite differences                 */

static void eval_phi(const mbd_model *m, mbd_data *d, double t, double *phi) {
  d->t = t;
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
  memcpy(phi, d->phi, (size_t)m->mrow * sizeof(double));
}

/* the relative coordinate `which` (0 angle, 1 displacement) as a row at the state of d */
static void coord_row(const mbd_model *m, mbd_data *d, int j, int kind, mbd_row *o) {
  mbd_kin_poses(m, d);
  mbd_joint_coord_row(m, d, j, kind, o);
}

static void check_joint_fd(int type, int ground_first) {
  static const double I6[6] = {1.0, 1.5, 2.0, 0.1, -0.05, 0.02};
  mbd_model *m = mbd_model_new("fd", 3, NULL);
  assert_non_null(m);
  // identity orientations (the universal's cross is then perpendicular); the state is moved to
  // a generic one below
  double p1[4] = {1, 0, 0, 0}, pos1[3] = {0.1, 0.2, 0.3}, pos2[3] = {0.8, 0.1, 0.4};
  int b1 = add_body(m, "b1", 2, I6, pos1, p1);
  int b2 = add_body(m, "b2", 3, I6, pos2, p1);
  double at1[3] = {0.4, -0.1, 0.05}, at2[3] = {-0.3, 0.15, 0.1};
  double ax[3] = {0.3, 0.4, 0.866}, axp[3] = {0.4, -0.3, 0};  // axp ⟂ ax
  int j = add_joint(m, "J", type, ground_first ? 0 : b1, at1, b2, at2,
                    type == MBD_JOINT_SPHERICAL || type == MBD_JOINT_FIXED ? NULL : ax,
                    type == MBD_JOINT_UNIVERSAL
                        ? axp
                        : (type == MBD_JOINT_SPHERICAL || type == MBD_JOINT_FIXED ? NULL : ax));
  if (ground_first) {
    // body b1 still free: tie it to the ground by a spherical joint so every path is used
    add_joint(m, "S0", MBD_JOINT_SPHERICAL, 0, pos1, b1, NULL, NULL, NULL);
  }
  mbd_error err;
  mbd_error_clear(&err);
  if (type == MBD_JOINT_REVOLUTE || type == MBD_JOINT_TRANSLATIONAL ||
      type == MBD_JOINT_CYLINDRICAL || type == MBD_JOINT_SCREW) {
    assert_true(mbd_model_add_drive(m, j, quad_drive, NULL, &err) >= 0);
  }
  if (mbd_model_assemble(m, NULL, &err) != MBD_OK) {
    fail_msg("%s: %s", mbd_joint_type_name(type), err.msg);
  }
  mbd_data *d = mbd_data_alloc(m, &err);
  assert_non_null(d);
  mbd_data_reset(m, d);
  int n = m->nv, mr = m->mrow;
  // a generic state off the constraint manifold and off the unit sphere: the equations and
  // their derivatives are exact polynomials in q, valid anywhere
  unsigned seed = 12345u + (unsigned)type * 7u + (unsigned)ground_first;
  for (int c = 0; c < n; c++) {
    d->q[c] += 0.2 * urand(&seed);
    d->v[c] = urand(&seed);
  }
  double t0 = 0.37;
  double *phi0 = calloc((size_t)mr, sizeof(double)), *phip = calloc((size_t)mr, sizeof(double));
  double *phim = calloc((size_t)mr, sizeof(double)), *J = calloc((size_t)mr * n, sizeof(double));
  double *gam = calloc((size_t)mr, sizeof(double)), *phit = calloc((size_t)mr, sizeof(double));
  eval_phi(m, d, t0, phi0);
  memcpy(J, d->phiq, (size_t)mr * n * sizeof(double));
  memcpy(gam, d->gamma, (size_t)mr * sizeof(double));
  memcpy(phit, d->phit, (size_t)mr * sizeof(double));
  // Φq by central differences: h = 1e-6 gives truncation ~h²|Φ'''| ≈ 1e-12 and round-off
  // ~1e-16/h ≈ 1e-10 for entries of order 1: 1e-7 leaves a wide margin and still catches any
  // wrong term (those are of order 0.1–1)
  const double h = 1e-6;
  for (int c = 0; c < n; c++) {
    double q0 = d->q[c];
    d->q[c] = q0 + h;
    eval_phi(m, d, t0, phip);
    d->q[c] = q0 - h;
    eval_phi(m, d, t0, phim);
    d->q[c] = q0;
    for (int r = 0; r < mr; r++) {
      double fd = (phip[r] - phim[r]) / (2 * h);
      if (fabs(fd - MBD_AT(J, mr, r, c)) > 1e-7) {
        char rn[160], cn[96];
        mbd_model_row_name(m, r, rn, sizeof rn);
        mbd_model_coord_name(m, c, cn, sizeof cn);
        fail_msg("%s: dΦ/dq of %s by %s: analytic %.10g, differences %.10g",
                 mbd_joint_type_name(type), rn, cn, MBD_AT(J, mr, r, c), fd);
      }
    }
  }
  // Φt by differences in t (same tolerance argument)
  eval_phi(m, d, t0 + h, phip);
  eval_phi(m, d, t0 - h, phim);
  for (int r = 0; r < mr; r++) {
    MBD_ASSERT_NEAR(phit[r], (phip[r] - phim[r]) / (2 * h), 1e-7);
  }
  // γ: along the path q(τ) = q + τ q̇, t = t0 + τ (q̈ = 0) the constraint's second derivative
  // is Φ̈ = (Φq q̇)q q̇ + 2Φqt q̇ + Φtt = −γ.  Second differences with H = 1e-4: truncation
  // H²/12·|Φ''''| ≈ 1e-9, round-off 4·1e-16/H² ≈ 4e-8: tolerance 1e-5
  const double H = 1e-4;
  double *q0 = calloc((size_t)n, sizeof(double));
  memcpy(q0, d->q, (size_t)n * sizeof(double));
  for (int c = 0; c < n; c++) {
    d->q[c] = q0[c] + H * d->v[c];
  }
  eval_phi(m, d, t0 + H, phip);
  for (int c = 0; c < n; c++) {
    d->q[c] = q0[c] - H * d->v[c];
  }
  eval_phi(m, d, t0 - H, phim);
  memcpy(d->q, q0, (size_t)n * sizeof(double));
  for (int r = 0; r < mr; r++) {
    double fd = (phip[r] - 2 * phi0[r] + phim[r]) / (H * H);
    if (fabs(fd + gam[r]) > 1e-5) {
      char rn[160];
      mbd_model_row_name(m, r, rn, sizeof rn);
      fail_msg("%s: γ of %s: analytic %.10g, −Φ̈ by differences %.10g", mbd_joint_type_name(type),
               rn, gam[r], -fd);
    }
  }
  // the type's relative coordinates (angle, displacement, a planar joint's x and y) and their
  // Jacobians
  const mbd_joint_type_desc *jt = mbd_joint_type_get(type);
  for (int k = 0; k < jt->ncoord[1]; k++) {
    int which = jt->coord[1][k];
    mbd_row o, op, om;
    coord_row(m, d, j, which, &o);
    const int bodies[2] = {ground_first ? 0 : b1, b2};
    double expect_rate = 0;
    for (int side = 0; side < 2; side++) {
      int a = bodies[side] ? m->block[m->body[bodies[side]].block].qadr : -1;
      for (int c = 0; a >= 0 && c < 7; c++) {
        double qc = d->q[a + c];
        d->q[a + c] = qc + h;
        coord_row(m, d, j, which, &op);
        d->q[a + c] = qc - h;
        coord_row(m, d, j, which, &om);
        d->q[a + c] = qc;
        MBD_ASSERT_NEAR(o.J[MBD_NY_MAX * side + c], (op.val - om.val) / (2 * h), 1e-7);
        expect_rate += o.J[MBD_NY_MAX * side + c] * d->v[a + c];
      }
    }
    MBD_ASSERT_NEAR(o.rate, expect_rate, 1e-12);
  }
  free(q0);
  free(phi0);
  free(phip);
  free(phim);
  free(J);
  free(gam);
  free(phit);
  mbd_data_free(d);
  mbd_model_free(m);
}

static void test_jacobians(void **state) {
  (void)state;
  for (int type = 0; type < MBD_JOINT_NTYPES; type++) {
    check_joint_fd(type, 0);
    check_joint_fd(type, 1);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* torque-free rigid body                                                                      */

/* global angular momentum H = A J' Aᵀ ω from the recorded channels at sample i */
static void momentum(const mbd_run *r, const double *J, int i, double *H) {
  double p[4], w[3], A[9];
  static const char *const ep[] = {"body.e0", "body.e1", "body.e2", "body.e3"};
  static const char *const wn[] = {"body.wx", "body.wy", "body.wz"};
  for (int k = 0; k < 4; k++) {
    p[k] = mbd_run_sample(r, mbd_run_find(r, ep[k]), i);
  }
  for (int k = 0; k < 3; k++) {
    w[k] = mbd_run_sample(r, mbd_run_find(r, wn[k]), i);
  }
  mbd_ep_A(p, A);
  double wb[3], Jw[3];
  for (int k = 0; k < 3; k++) {
    wb[k] = A[k] * w[0] + A[3 + k] * w[1] + A[6 + k] * w[2];
  }
  for (int k = 0; k < 3; k++) {
    Jw[k] = J[3 * k] * wb[0] + J[3 * k + 1] * wb[1] + J[3 * k + 2] * wb[2];
  }
  for (int k = 0; k < 3; k++) {
    H[k] = A[3 * k] * Jw[0] + A[3 * k + 1] * Jw[1] + A[3 * k + 2] * Jw[2];
  }
}

static void test_torque_free(void **state) {
  (void)state;
  for (int form = MBD_FORM_AUGMENTED; form <= MBD_FORM_BAUMGARTE; form++) {
    mbd_model *m = mbd_model_new("free", 3, NULL);
    mbd_body_spec s;
    memset(&s, 0, sizeof s);
    s.name = "body";
    s.mass = 2;
    // an asymmetric body with products of inertia, spinning near no principal axis
    double I6[6] = {1.0, 2.0, 2.5, 0.1, -0.2, 0.05};
    memcpy(s.inertia, I6, sizeof I6);
    double p0[4] = {0.8, 0.3, -0.4, 0.2};
    normalize4(p0);
    memcpy(s.rot, p0, sizeof p0);
    s.vel[0] = 0.5;
    s.omega[0] = 1.0;
    s.omega[1] = 0.5;
    s.omega[2] = 2.0;
    mbd_error err;
    mbd_error_clear(&err);
    assert_true(mbd_model_add_body(m, &s, &err) > 0);
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 10;
    o.ode.rtol = o.ode.atol = 1e-10;
    o.formulation = form;
    o.output_every = 0.05;
    mbd_run *r = NULL;
    int rc = mbd_simulate(m, &o, &r, &err);
    if (rc != MBD_OK) {
      fail_msg("%s", err.msg);
    }
    int ns = mbd_run_nsample(r), ce = mbd_run_find(r, "energy");
    double e0 = mbd_run_sample(r, ce, 0), H0[3], H[3];
    const double *J = m->body[1].inertia;
    momentum(r, J, 0, H0);
    double hn = sqrt(H0[0] * H0[0] + H0[1] * H0[1] + H0[2] * H0[2]);
    double maxe = 0, maxh = 0, maxn = 0;
    for (int i = 0; i < ns; i++) {
      maxe = fmax(maxe, fabs(mbd_run_sample(r, ce, i) - e0));
      momentum(r, J, i, H);
      for (int k = 0; k < 3; k++) {
        maxh = fmax(maxh, fabs(H[k] - H0[k]));
      }
      double p[4];
      for (int k = 0; k < 4; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "body.e%d", k);
        p[k] = mbd_run_sample(r, mbd_run_find(r, nm), i);
      }
      maxn = fmax(maxn, fabs(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]) - 1));
    }
    // the centre of mass moves uniformly
    MBD_ASSERT_NEAR(run_at(r, "body.x", 10), 5.0, 1e-7);
    // rtol = atol = 1e-10 over ~60 spin periods: the global error of Adams stays below ~1e-7
    // relative; energy (≈ 6 J) and momentum (≈ 5 N·m·s) to 1e-6 relative leave a margin of 10
    // and would fail at once for a wrong sign of the gyroscopic term (errors of order 1)
    print_message("torque-free (%s): max |ΔE|/E = %.2e, max |ΔH|/|H| = %.2e, max ||p|−1| = %.2e\n",
                  mbd_formulation_name(form), maxe / e0, maxh / hn, maxn);
    assert_true(maxe / e0 < 1e-6);
    assert_true(maxh / hn < 1e-6);
    // the norm is enforced at the acceleration level only (augmented) or stabilized (Baumgarte):
    // its drift follows the integration error
    assert_true(maxn < 1e-7);
    mbd_run_free(r);
    mbd_model_free(m);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* heavy symmetric top: steady precession                                                      */

typedef struct top_case {
  double mass, l, I1, I3, g, theta, w3;
} top_case;

/* exact steady precession about the vertical (the slow root of
 * I1' cosθ Ω² − I3 ω3 Ω + m g l = 0, I1' = I1 + m l² about the tip) */
static double top_exact(const top_case *c) {
  double I1p = c->I1 + c->mass * c->l * c->l, mgl = c->mass * c->g * c->l;
  double b = c->I3 * c->w3, a = I1p * cos(c->theta);
  return (b - sqrt(b * b - 4 * a * mgl)) / (2 * a);
}

static mbd_run *simulate_top(const top_case *c, double omega, double t_end, int form) {
  mbd_model *m = mbd_model_new("top", 3, NULL);
  double g[3] = {0, 0, -c->g};
  mbd_model_set_gravity(m, g);
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = "top";
  s.mass = c->mass;
  s.inertia[0] = s.inertia[1] = c->I1;
  s.inertia[2] = c->I3;
  // symmetry axis e3 = (0, −sin θ, cos θ): a rotation by θ about x
  double th = c->theta, e3[3] = {0, -sin(th), cos(th)};
  s.rot[0] = cos(th / 2);
  s.rot[1] = sin(th / 2);
  for (int i = 0; i < 3; i++) {
    s.pos[i] = c->l * e3[i];
  }
  // ω = Ω z + ψ̇ e3 with ω·e3 = ω3; v = ω × r_cm
  double psid = c->w3 - omega * cos(th);
  double w[3] = {psid * e3[0], psid * e3[1], omega + psid * e3[2]};
  memcpy(s.omega, w, sizeof w);
  s.vel[0] = w[1] * s.pos[2] - w[2] * s.pos[1];
  s.vel[1] = w[2] * s.pos[0] - w[0] * s.pos[2];
  s.vel[2] = w[0] * s.pos[1] - w[1] * s.pos[0];
  mbd_error err;
  mbd_error_clear(&err);
  int b = mbd_model_add_body(m, &s, &err);
  assert_true(b > 0);
  double tip[3] = {0, 0, -c->l};
  add_joint(m, "tip", MBD_JOINT_SPHERICAL, 0, NULL, b, tip, NULL, NULL);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = t_end;
  o.ode.rtol = o.ode.atol = 1e-10;
  o.formulation = form;
  o.output_every = t_end / 400;
  mbd_run *r = NULL;
  int rc = mbd_simulate(m, &o, &r, &err);
  if (rc != MBD_OK) {
    fail_msg("%s", err.msg);
  }
  mbd_model_free(m);  // the run keeps its own copy of the samples
  return r;
}

/* precession rate: unwrapped azimuth of the centre of mass over the run, divided by the time */
static double azimuth_rate(const mbd_run *r) {
  int cx = mbd_run_find(r, "top.x"), cy = mbd_run_find(r, "top.y"), ns = mbd_run_nsample(r);
  double prev = atan2(mbd_run_sample(r, cy, 0), mbd_run_sample(r, cx, 0)), phi0 = prev,
         acc = prev;
  for (int i = 1; i < ns; i++) {
    double a = atan2(mbd_run_sample(r, cy, i), mbd_run_sample(r, cx, i));
    acc += remainder(a - prev, 2 * M_PI);
    prev = a;
  }
  return (acc - phi0) / mbd_run_times(r)[ns - 1];
}

static void test_top_precession(void **state) {
  (void)state;
  top_case c = {0.5, 0.04, 2e-4, 3e-4, 9.81, M_PI / 6, 150};
  double W = top_exact(&c);
  double T = 2 * M_PI / W;  // one precession period
  mbd_run *r = simulate_top(&c, W, T, MBD_FORM_AUGMENTED);
  double Wm = azimuth_rate(r);
  // nutation: the height of the centre of mass stays l cos θ
  int cz = mbd_run_find(r, "top.z");
  double maxdz = 0;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    maxdz = fmax(maxdz, fabs(mbd_run_sample(r, cz, i) - c.l * cos(c.theta)));
  }
  print_message("top: exact steady precession %.8f rad/s, measured %.8f (rel. error %.2e), "
                "gyroscopic approximation m g l/(I3 ω3) = %.6f; max nutation %.2e m\n",
                W, Wm, fabs(Wm - W) / W, c.mass * c.g * c.l / (c.I3 * c.w3), maxdz);
  // rtol = 1e-10 over one period: a relative error ~1e-8 expected; 1e-6 is the bound.  A
  // missing gyroscopic term or a wrong inertia would give errors of order one
  assert_true(fabs(Wm - W) / W < 1e-6);
  assert_true(maxdz < 1e-7);  // metres, against l = 0.04
  mbd_run_free(r);
}

/* ------------------------------------------------------------------------------------------ */
/* planar double pendulum (paper 000 example 1) as a spatial model                             */

static int planar_const_force(void *ud, double t, const mbd_model *m, const mbd_data *d,
                              double *out, mbd_error *err) {
  (void)t;
  (void)m;
  (void)d;
  (void)err;
  const double *v = ud;
  out[0] = v[0];
  out[1] = v[1];
  out[2] = v[2];
  return 0;
}

static mbd_model *pendulum(int dim) {
  mbd_model *m = mbd_model_new("dp", dim, NULL);
  double th1 = 0.5236, th2 = 0.7854;
  mbd_body_spec s;
  mbd_error err;
  mbd_error_clear(&err);
  const double mass[2] = {5, 7}, J[2] = {10, 20};
  double x1 = cos(th1), y1 = sin(th1);
  double pos[2][3] = {{x1, y1, 0}, {2 * x1 + cos(th2), 2 * y1 + sin(th2), 0}};
  double ang[2] = {th1, th2};
  const char *names[2] = {"link1", "link2"};
  for (int i = 0; i < 2; i++) {
    memset(&s, 0, sizeof s);
    s.name = names[i];
    s.mass = mass[i];
    memcpy(s.pos, pos[i], sizeof pos[i]);
    if (dim == 2) {
      s.inertia[0] = J[i];
      s.angle = ang[i];
    } else {
      s.inertia[0] = 1;  // a slender link along x: Ixx small, Iyy = Izz
      s.inertia[1] = J[i];
      s.inertia[2] = J[i];
      s.rot[0] = cos(ang[i] / 2);
      s.rot[3] = sin(ang[i] / 2);
    }
    assert_true(mbd_model_add_body(m, &s, &err) > 0);
  }
  double z[3] = {0, 0, 1}, o0[3] = {0, 0, 0}, left[3] = {-1, 0, 0}, right[3] = {1, 0, 0};
  add_joint(m, "O", MBD_JOINT_REVOLUTE, 0, o0, 1, left, dim == 3 ? z : NULL, dim == 3 ? z : NULL);
  add_joint(m, "A", MBD_JOINT_REVOLUTE, 1, right, 2, left, dim == 3 ? z : NULL,
            dim == 3 ? z : NULL);
  mbd_force_spec f;
  memset(&f, 0, sizeof f);
  f.body = 1;
  f.value[dim == 2 ? 0 : 2] = 10;  // M¹ = 10 N·m about z
  assert_true(mbd_model_add_torque(m, &f, &err) >= 0);
  memset(&f, 0, sizeof f);
  f.body = 2;
  f.at[0] = 1;
  // the force through a callback in the spatial model (the constant path in the planar one)
  static const double F[3] = {8, 7, 0};
  if (dim == 3) {
    f.fn = planar_const_force;
    f.ud = (void *)F;
  } else {
    f.value[0] = 8;
    f.value[1] = 7;
  }
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

static void test_planar_as_spatial(void **state) {
  (void)state;
  mbd_run *r[2] = {NULL, NULL};
  mbd_model *m[2];
  for (int k = 0; k < 2; k++) {
    m[k] = pendulum(k + 2);
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    o.t_end = 5;
    o.ode.rtol = o.ode.atol = 1e-10;
    o.output_every = 0.05;
    mbd_error err;
    mbd_error_clear(&err);
    if (mbd_simulate(m[k], &o, &r[k], &err) != MBD_OK) {
      fail_msg("dim %d: %s", k + 2, err.msg);
    }
  }
  // both at rtol 1e-10 over 5 s: the difference is integration error of both runs (~1e-8);
  // 1e-6 on metres and radians
  double maxd = 0;
  for (int i = 0; i < mbd_run_nsample(r[0]); i++) {
    double t = mbd_run_times(r[0])[i];
    double th = 2 * atan2(run_at(r[1], "link2.e3", t), run_at(r[1], "link2.e0", t));
    double thp = run_at(r[0], "link2.theta", t);
    double d = fabs(remainder(th - thp, 2 * M_PI));
    d = fmax(d, fabs(run_at(r[1], "link2.x", t) - run_at(r[0], "link2.x", t)));
    d = fmax(d, fabs(run_at(r[1], "link2.y", t) - run_at(r[0], "link2.y", t)));
    d = fmax(d, fabs(run_at(r[1], "link2.z", t)));
    d = fmax(d, fabs(run_at(r[1], "link1.wz", t) - run_at(r[0], "link1.omega", t)));
    // spatial revolute angle is zero in the given pose: planar angle = θ1(0) + spatial angle
    d = fmax(d, fabs(run_at(r[1], "O.angle", t) + 0.5236 - run_at(r[0], "O.angle", t)));
    // energy and reactions agree too (reactions in newtons: a looser 1e-5)
    d = fmax(d, fabs(run_at(r[1], "energy", t) - run_at(r[0], "energy", t)));
    double dr = fmax(fabs(run_at(r[1], "A.fx", t) - run_at(r[0], "A.fx", t)),
                     fabs(run_at(r[1], "A.fy", t) - run_at(r[0], "A.fy", t)));
    maxd = fmax(maxd, d);
    assert_true(dr < 1e-5);
  }
  print_message("planar double pendulum as spatial: max difference %.2e\n", maxd);
  assert_true(maxd < 1e-6);
  for (int k = 0; k < 2; k++) {
    mbd_run_free(r[k]);
    mbd_model_free(m[k]);
  }
}

/* augmented and Baumgarte give the same motion (the top, away from steady precession) */
static void test_formulations_agree(void **state) {
  (void)state;
  top_case c = {0.5, 0.04, 2e-4, 3e-4, 9.81, M_PI / 4, 80};
  mbd_run *a = simulate_top(&c, 0, 2, MBD_FORM_AUGMENTED);  // released without precession
  mbd_run *b = simulate_top(&c, 0, 2, MBD_FORM_BAUMGARTE);
  double maxd = 0;
  for (int i = 0; i < mbd_run_nsample(a); i++) {
    double t = mbd_run_times(a)[i];
    maxd = fmax(maxd, fabs(run_at(a, "top.x", t) - run_at(b, "top.x", t)));
    maxd = fmax(maxd, fabs(run_at(a, "top.z", t) - run_at(b, "top.z", t)));
  }
  // the two differ by the integration error and the (tiny, tolerance-level) drift correction
  print_message("top: augmented vs baumgarte max difference %.2e m\n", maxd);
  assert_true(maxd < 1e-7);
  mbd_run_free(a);
  mbd_run_free(b);
}

/* ------------------------------------------------------------------------------------------ */
/* reactions, drives through full turns                                                        */

static void test_fixed_reaction(void **state) {
  (void)state;
  // a cantilever: the body's centre of mass 0.5 m along x from the joint, gravity −z
  mbd_model *m = mbd_model_new("cantilever", 3, NULL);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  double I6[6] = {0.1, 0.2, 0.2, 0, 0, 0}, pos[3] = {0.5, 0, 0}, at2[3] = {-0.5, 0, 0};
  int b = add_body(m, "beam", 2, I6, pos, NULL);
  add_joint(m, "W", MBD_JOINT_FIXED, 0, NULL, b, at2, NULL, NULL);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 0.1;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_simulate(m, &o, &r, &err), MBD_OK);
  // on the beam at the wall: F = +m g z, moment (r_cm − P) × F = 0.5 x × 19.62 z = −9.81 y
  MBD_ASSERT_NEAR(run_at(r, "W.fz", 0.05), 2 * 9.81, 1e-9);
  MBD_ASSERT_NEAR(run_at(r, "W.fx", 0.05), 0, 1e-9);
  MBD_ASSERT_NEAR(run_at(r, "W.ty", 0.05), -0.5 * 2 * 9.81, 1e-9);
  MBD_ASSERT_NEAR(run_at(r, "W.tx", 0.05), 0, 1e-9);
  MBD_ASSERT_NEAR(run_at(r, "W.tz", 0.05), 0, 1e-9);
  mbd_run_free(r);
  mbd_model_free(m);
}

static void test_drive_two_turns(void **state) {
  (void)state;
  // a crank about the global y axis, driven at one turn per second through two turns
  mbd_model *m = mbd_model_new("crank", 3, NULL);
  double I6[6] = {0.01, 0.02, 0.02, 0, 0, 0}, pos[3] = {0.1, 0, 0}, at2[3] = {-0.1, 0, 0};
  double y[3] = {0, 1, 0};
  int b = add_body(m, "crank", 1, I6, pos, NULL);
  int j = add_joint(m, "O", MBD_JOINT_REVOLUTE, 0, NULL, b, at2, y, y);
  mbd_error err;
  mbd_error_clear(&err);
  assert_true(mbd_model_add_drive(m, j, turn_drive, NULL, &err) >= 0);
  mbd_kin_opts o;
  memset(&o, 0, sizeof o);
  o.t_end = 2;
  o.steps = 48;
  mbd_run *r = NULL;
  if (mbd_kinematics(m, &o, &r, &err) != MBD_OK) {
    fail_msg("%s", err.msg);
  }
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    double t = mbd_run_times(r)[i];
    MBD_ASSERT_NEAR(run_at(r, "O.angle", t), 2 * M_PI * t, 1e-8);
    // rotation about +y takes x toward −z: the centre of mass at 0.1 (cos, 0, −sin)
    MBD_ASSERT_NEAR(run_at(r, "crank.x", t), 0.1 * cos(2 * M_PI * t), 1e-8);
    MBD_ASSERT_NEAR(run_at(r, "crank.z", t), -0.1 * sin(2 * M_PI * t), 1e-8);
    MBD_ASSERT_NEAR(run_at(r, "crank.wy", t), 2 * M_PI, 1e-8);
  }
  mbd_run_free(r);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* bad input                                                                                   */

static void test_bad_input(void **state) {
  (void)state;
  mbd_model *m = mbd_model_new("bad", 3, NULL);
  mbd_body_spec s;
  mbd_error err;
  memset(&s, 0, sizeof s);
  s.name = "b";
  s.mass = 1;
  s.rot[0] = 1;
  // not positive definite
  double npd[6] = {1, 1, 1, 2, 0, 0};
  memcpy(s.inertia, npd, sizeof npd);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &s, &err), &err, MBD_E_INPUT, MSG_MODEL_INERTIA_PD, "b");
  // the triangle inequality, principal: 1 + 1 < 3
  double tri[6] = {1, 1, 3, 0, 0, 0};
  memcpy(s.inertia, tri, sizeof tri);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &s, &err), &err, MBD_E_INPUT, MSG_MODEL_INERTIA_TRIANGLE,
                   "b", 1.0, 1.0, 3.0);
  // with products: the diagonal {1.5, 1.5, 1.2} passes, but the principal moments 0.3, 1.2,
  // 2.7 (Ixy = 1.2) do not: 0.3 + 1.2 < 2.7
  double trip[6] = {1.5, 1.5, 1.2, 1.2, 0, 0};
  memcpy(s.inertia, trip, sizeof trip);
  mbd_error_clear(&err);
  // (the moments as computed: the message prints them to 6 digits)
  MBD_EXPECT_ERROR(mbd_model_add_body(m, &s, &err), &err, MBD_E_INPUT, MSG_MODEL_INERTIA_TRIANGLE,
                   "b", 0.3, 1.2, 2.7);
  // non-unit Euler parameters: normalized with a warning naming the body
  double ok6[6] = {1, 1, 1, 0, 0, 0};
  memcpy(s.inertia, ok6, sizeof ok6);
  s.rot[0] = 2;
  mbd_error_clear(&err);
  int b = mbd_model_add_body(m, &s, &err);
  assert_true(b > 0);
  assert_non_null(mbd_model_warning(m, 0));
  MBD_ASSERT_MSG(mbd_model_warning(m, 0), MSG_MODEL_EULER_NORM, "b", 2.0);
  MBD_ASSERT_NEAR(m->body[b].q0[3], 1.0, 1e-15);
  // universal: crossed axes required in the given poses
  double x[3] = {1, 0, 0}, xy[3] = {1, 1, 0}, zero[3] = {0, 0, 0};
  mbd_joint_spec j;
  memset(&j, 0, sizeof j);
  j.name = "U";
  j.type = MBD_JOINT_UNIVERSAL;
  j.body1 = 0;
  j.body2 = b;
  memcpy(j.axis1, x, sizeof x);
  memcpy(j.axis2, xy, sizeof xy);
  j.has_axis1 = j.has_axis2 = 1;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_joint(m, &j, &err), &err, MBD_E_INPUT, MSG_MODEL_UNIVERSAL_AXES,
                   "U", 45.0);
  // zero axis
  j.type = MBD_JOINT_REVOLUTE;
  j.name = "R";
  memcpy(j.axis2, zero, sizeof zero);
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_model_add_joint(m, &j, &err), &err, MBD_E_INPUT, MSG_MODEL_AXIS_ZERO,
                   "revolute", "R", "axis2");
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jacobians),          cmocka_unit_test(test_torque_free),
      cmocka_unit_test(test_top_precession),     cmocka_unit_test(test_planar_as_spatial),
      cmocka_unit_test(test_formulations_agree), cmocka_unit_test(test_fixed_reaction),
      cmocka_unit_test(test_drive_two_turns),    cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
