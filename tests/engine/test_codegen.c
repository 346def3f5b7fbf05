/* generated equations of the relative formulation (paper 002; engine/codegen/): the derived M̄, ḡ,
 * Φ, Φq, Φt and γ against the numeric stages at random states — every tree joint kind, every
 * joint type as a cut joint, gravity, forces, torques, springs, rotational springs on tree and
 * cut joints, drives on tree and cut joints, a force given as a function —, compiled code equal
 * to the tape, the cache reused for an unchanged model and rebuilt when a mass or a length
 * changes, the fallback to the tape without a compiler or with an unwritable cache, and runs
 * through the tape and compiled code agreeing with the numeric run. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/codegen/codegen.h"
#include "mbd/integrators.h"
#include "relative_models.h"

/* f(t) = 0.2 + 0.7 t + 0.1 t² */
static int drive_fn(void *ud, double t, double out[3], mbd_error *err) {
  (void)ud;
  (void)err;
  out[0] = 0.2 + 0.7 * t + 0.1 * t * t;
  out[1] = 0.7 + 0.2 * t;
  out[2] = 0.2;
  return 0;
}

/* a force that depends on time and state: F = (sin t, x of body "c", 1) */
static int force_fn(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                    mbd_error *err) {
  (void)ud;
  (void)err;
  int ok = 0;
  out[0] = sin(t);
  out[1] = mbd_channel_value(m, d, mbd_channel_find(m, m->dim == 3 ? "c.x" : "b.x"), &ok);
  out[2] = 1;
  return 0;
}

/* every_kind3 with every load: gravity, a constant force, a torque, a spring to the ground, a
 * function force, rotational springs on the revolute and the cylindrical joint, drives on both */
static mbd_model *loaded3(void) {
  mbd_model *m = every_kind3();
  mbd_error err;
  double g[3] = {0.3, -9.81, 0.5};
  mbd_model_set_gravity(m, g);
  mbd_force_spec f = {.body = 3, .at = {0.1, -0.2, 0.3}, .value = {1, 2, -3}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  mbd_force_spec t = {.body = 2, .value = {0.4, -0.5, 0.6}};
  assert_true(mbd_model_add_torque(m, &t, &err) >= 0);
  mbd_force_spec ff = {.body = 4, .at = {0.2, 0, 0}, .fn = force_fn};
  assert_true(mbd_model_add_force(m, &ff, &err) >= 0);
  mbd_spring_spec s = {.name = "k",
                       .body1 = 4,
                       .at1 = {0, 0.1, 0},
                       .body2 = 0,
                       .at2 = {2, 1, 0.5},
                       .k = 50,
                       .c = 3,
                       .length = 0.4};
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  int rev = mbd_model_find_joint(m, "rev"), cyl = mbd_model_find_joint(m, "cyl");
  assert_true(mbd_model_add_rotational_spring(m, rev, 20, 1.5, 0.3, &err) >= 0);
  assert_true(mbd_model_add_rotational_spring(m, cyl, 10, 0.5, -0.2, &err) >= 0);
  assert_true(mbd_model_add_drive(m, rev, drive_fn, NULL, &err) >= 0);
  assert_true(mbd_model_add_drive(m, cyl, drive_fn, NULL, &err) >= 0);
  return m;
}

static mbd_model *loaded2(void) {
  mbd_model *m = every_kind2();
  mbd_error err;
  double g[2] = {0.5, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_force_spec f = {.body = 2, .at = {0.1, -0.2}, .value = {1, 2}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  mbd_force_spec t = {.body = 1, .value = {0.7}};
  assert_true(mbd_model_add_torque(m, &t, &err) >= 0);
  mbd_force_spec ff = {.body = 3, .at = {0.2, 0}, .fn = force_fn};
  assert_true(mbd_model_add_force(m, &ff, &err) >= 0);
  mbd_spring_spec s = {.name = "k",
                       .body1 = 3,
                       .at1 = {0, 0.1},
                       .body2 = 0,
                       .at2 = {2, 1},
                       .k = 50,
                       .c = 3,
                       .length = 0.4};
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  int rev = mbd_model_find_joint(m, "rev"), back = mbd_model_find_joint(m, "back");
  int trans = mbd_model_find_joint(m, "trans");
  assert_true(mbd_model_add_rotational_spring(m, rev, 20, 1.5, 0.3, &err) >= 0);
  assert_true(mbd_model_add_rotational_spring(m, back, 10, 0.5, -0.2, &err) >= 0);
  assert_true(mbd_model_add_drive(m, rev, drive_fn, NULL, &err) >= 0);
  assert_true(mbd_model_add_drive(m, trans, drive_fn, NULL, &err) >= 0);
  return m;
}

/* ------------------------------------------------------------------------------------------ */
/* macro copies                                                                                */

static void qmul(const double *a, const double *b, double *c) {
  c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* an RSSR loop written in its copy's frame (placement o, p): crank a about z at the origin, rocker
 * c about y at (2, 0, 0.5) turned by ψ = 0.8, coupler b between their tips; its bodies' global
 * poses come out in pos[3][3], rot[3][4] */
static void rssr_copy(mbd_model *m, const char *name, const double *o, const double *p, int *bodies,
                      double pos[3][3], double rot[3][4]) {
  mbd_error err;
  assert_true(mbd_model_open_copy(m, "rssr", name, o, p, &err) > 0);
  double A[9];
  mbd_ep_A(p, A);
  double psi = 0.8, Or[3] = {2, 0, 0.5};
  double P[3] = {1, 0, 0}, R[3] = {Or[0] + cos(psi), 0, Or[2] - sin(psi)};
  double lpos[3][3] = {{0.5, 0, 0},
                       {(P[0] + R[0]) / 2, (P[1] + R[1]) / 2, (P[2] + R[2]) / 2},
                       {Or[0] + 0.5 * cos(psi), 0, Or[2] - 0.5 * sin(psi)}};
  double lrot[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {cos(psi / 2), 0, sin(psi / 2), 0}};
  const char *nm[3] = {"a", "b", "c"};
  double mass[3] = {1, 2, 1.5};
  for (int k = 0; k < 3; k++) {
    double g[3];
    for (int i = 0; i < 3; i++) {
      g[i] = o[i] + A[3 * i] * lpos[k][0] + A[3 * i + 1] * lpos[k][1] + A[3 * i + 2] * lpos[k][2];
    }
    memcpy(pos[k], g, sizeof g);
    qmul(p, lrot[k], rot[k]);
    char full[64];
    snprintf(full, sizeof full, "%s.%s", name, nm[k]);
    bodies[k] = body3(m, full, mass[k], 0.1 + 0.02 * k, 0.2, 0.15, pos[k], rot[k], NULL, NULL);
  }
  // ground points and axes in the global frame
  double z[3] = {A[2], A[5], A[8]}, y[3] = {A[1], A[4], A[7]}, o2[3];
  for (int i = 0; i < 3; i++) {
    o2[i] = o[i] + A[3 * i] * Or[0] + A[3 * i + 1] * Or[1] + A[3 * i + 2] * Or[2];
  }
  double zl[3] = {0, 0, 1}, yl[3] = {0, 1, 0}, am[3] = {-0.5, 0, 0}, ap[3] = {0.5, 0, 0};
  double bP[3] = {P[0] - lpos[1][0], P[1] - lpos[1][1], P[2] - lpos[1][2]};
  double bR[3] = {R[0] - lpos[1][0], R[1] - lpos[1][1], R[2] - lpos[1][2]};
  char jn[64];
  snprintf(jn, sizeof jn, "%s.R1", name);
  joint(m, jn, MBD_JOINT_REVOLUTE, 0, o, bodies[0], am, z, zl);
  snprintf(jn, sizeof jn, "%s.R2", name);
  joint(m, jn, MBD_JOINT_REVOLUTE, 0, o2, bodies[2], am, y, yl);
  snprintf(jn, sizeof jn, "%s.S1", name);
  joint(m, jn, MBD_JOINT_SPHERICAL, bodies[0], ap, bodies[1], bP, NULL, NULL);
  snprintf(jn, sizeof jn, "%s.S2", name);
  joint(m, jn, MBD_JOINT_SPHERICAL, bodies[1], bR, bodies[2], ap, NULL, NULL);
  mbd_model_close_copy(m);
}

/* two copies of the RSSR loop, placed apart and turned, joined by a ball joint from the first's
 * rocker tip to the second's crank; gravity, a force on a copy's coupler, a spring to the
 * ground and a rotational spring on a copy's joint */
static mbd_model *macro_model(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("macro", 3, &err);
  double g[3] = {0, -9.81, 0.3};
  mbd_model_set_gravity(m, g);
  double o1[3] = {0, 0, 0}, p1[4] = {1, 0, 0, 0}, o2[3] = {3, 1, 0}, p2[4], ax[3] = {1, 1, 1};
  rot_axis(ax, 0.7, p2);
  int b1[3], b2[3];
  double pos1[3][3], rot1[3][4], pos2[3][3], rot2[3][4];
  rssr_copy(m, "s1", o1, p1, b1, pos1, rot1);
  rssr_copy(m, "s2", o2, p2, b2, pos2, rot2);
  // the first rocker's tip, in the second crank's frame
  double Ac[9], Aa[9], tip[3], ap[3] = {0.5, 0, 0}, d[3], at2[3];
  mbd_ep_A(rot1[2], Ac);
  mbd_ep_A(rot2[0], Aa);
  for (int i = 0; i < 3; i++) {
    tip[i] = pos1[2][i] + Ac[3 * i] * ap[0] + Ac[3 * i + 1] * ap[1] + Ac[3 * i + 2] * ap[2];
    d[i] = tip[i] - pos2[0][i];
  }
  for (int i = 0; i < 3; i++) {
    at2[i] = Aa[i] * d[0] + Aa[3 + i] * d[1] + Aa[6 + i] * d[2];
  }
  joint(m, "X", MBD_JOINT_SPHERICAL, b1[2], ap, b2[0], at2, NULL, NULL);
  mbd_force_spec f = {.body = b2[1], .at = {0.1, 0.2, 0}, .value = {1, -2, 0.5}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  mbd_spring_spec s = {.name = "k",
                       .body1 = b1[1],
                       .at1 = {0.2, 0, 0},
                       .body2 = 0,
                       .at2 = {1, 2, 1},
                       .k = 30,
                       .c = 2,
                       .length = 1};
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  assert_true(
      mbd_model_add_rotational_spring(m, mbd_model_find_joint(m, "s2.R2"), 5, 0.5, 0.1, &err) >= 0);
  return m;
}

/* the tree model of m; with all = 1 every joint is cut (every body floats, every joint type's
 * equations are cut-joint rows) */
static mbd_model *tree_model(mbd_model *m, int all) {
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_model_assemble(m, NULL, &err) != MBD_OK) {
    fail_msg("assemble %s: %s", m->name, err.msg);
  }
  mbd_data *d = mbd_data_alloc(m, &err);
  mbd_data_reset(m, d);
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
  const char *names[16];
  for (int j = 0; j < m->njoint; j++) {
    names[j] = m->joint[j].name;
  }
  mbd_model *mr = NULL;
  if (mbd_tree_build(m, d, all ? names : NULL, all ? m->njoint : 0, &mr, &err) != MBD_OK) {
    fail_msg("tree of %s: %s", m->name, err.msg);
  }
  mbd_data_free(d);
  return mr;
}

/* the stages of mr at (t, q, v) into d, through eqs (NULL: numeric) */
static void evaluate(mbd_model *mr, const mbd_eqs_hook *eqs, mbd_data *d, double t, const double *q,
                     const double *v) {
  mbd_error err;
  mbd_error_clear(&err);
  mbd_data_reset(mr, d);
  d->t = t;
  memcpy(d->q, q, (size_t)mr->nq * sizeof(double));
  memcpy(d->v, v, (size_t)mr->nv * sizeof(double));
  mr->eqs = eqs;
  if (mbd_eval_anew(mr, d, MBD_STAGE_VELOCITY, &err) != MBD_OK || mbd_forces_eval(mr, d, &err) != MBD_OK) {
    fail_msg("%s: %s", mr->name, err.msg);
  }
  mr->eqs = NULL;
}

/* |a − b| ≤ tol · max(1, |b|) for n entries */
static void close_all(const double *a, const double *b, int n, double tol, const char *what,
                      const char *model) {
  for (int i = 0; i < n; i++) {
    if (!(fabs(a[i] - b[i]) <= tol * fmax(1, fabs(b[i])))) {
      fail_msg("%s: %s[%d] = %.15g, numeric %.15g", model, what, i, a[i], b[i]);
    }
  }
}

/* the first coordinate of tree joint k's Euler parameters, or -1 */
static int ep_block(const mbd_model *mr, int k) {
  const mbd_tree_joint *tj = &mr->tree->tj[k];
  if (tj->rotk == MBD_TROT_EULER) {
    return tj->qadr + tj->rot;
  }
  return tj->kind == MBD_TJ_FLOATING && mr->dim == 3 ? tj->qadr + 3 : -1;
}

/* the tape (and, with compiled, the compiled code) against the numeric stages at three random
 * states.  Both evaluate the same equations in different forms and orders: round-off of O(100)
 * sums of O(10) terms, ~1e-13 relative; tolerance 1e-10 (a wrong term is off by O(1)). */
static void check_equations(mbd_model *(*make)(void), int all, int compiled) {
  mbd_model *m = make();
  mbd_model *mr = tree_model(m, all);
  mbd_error err;
  mbd_error_clear(&err);
  int n = mr->nv, mrow = mr->mrow;
  mbd_gencode *tape = NULL, *cc = NULL;
  mbd_code_info info;
  assert_int_equal(mbd_code_new(mr, MBD_CODE_TAPE, &tape, &info, &err), MBD_OK);
  assert_int_equal(info.code, MBD_CODE_TAPE);
  assert_true(info.instructions > 0);
  if (compiled) {
    assert_int_equal(mbd_code_new(mr, MBD_CODE_COMPILED, &cc, &info, &err), MBD_OK);
    if (info.code != MBD_CODE_COMPILED) {
      fail_msg("%s: %s", m->name, info.warning);
    }
  }
  mbd_data *dn = mbd_data_alloc(mr, &err), *dt = mbd_data_alloc(mr, &err);
  mbd_data *dc = mbd_data_alloc(mr, &err);
  double *q = calloc((size_t)n, sizeof(double)), *v = calloc((size_t)n, sizeof(double));
  unsigned seed = 11;
  for (int trial = 0; trial < 3; trial++) {
    for (int i = 0; i < n; i++) {
      q[i] = mr->q_asm[i] + 0.6 * urand(&seed);
      v[i] = 2 * urand(&seed);
    }
    // Euler parameters on their sphere, their rates tangent: the state of a run (the generated
    // equations use the body-frame angular velocity, ω' = 2Gṗ, which the Euler-parameter form of
    // the numeric stages equals there)
    for (int k = 0; k < mr->tree->ntj; k++) {
      int e = ep_block(mr, k);
      if (e < 0) {
        continue;
      }
      double nq =
          sqrt(q[e] * q[e] + q[e + 1] * q[e + 1] + q[e + 2] * q[e + 2] + q[e + 3] * q[e + 3]);
      double ev = 0;
      for (int i = 0; i < 4; i++) {
        q[e + i] /= nq;
      }
      for (int i = 0; i < 4; i++) {
        ev += q[e + i] * v[e + i];
      }
      for (int i = 0; i < 4; i++) {
        v[e + i] -= ev * q[e + i];
      }
    }
    double t = 0.37 * trial;
    evaluate(mr, NULL, dn, t, q, v);
    evaluate(mr, mbd_code_hook(tape), dt, t, q, v);
    close_all(dt->phi, dn->phi, mrow, 1e-10, "phi", m->name);
    close_all(dt->phiq, dn->phiq, mrow * n, 1e-10, "phiq", m->name);
    close_all(dt->phit, dn->phit, mrow, 1e-10, "phit", m->name);
    close_all(dt->gamma, dn->gamma, mrow, 1e-10, "gamma", m->name);
    close_all(dt->M, dn->M, n * n, 1e-10, "M", m->name);
    // the two forms' forces differ along each Euler-parameter block's own direction (the norm
    // row's gradient: its multiplier takes the difference, the accelerations are the same); the
    // rest must agree
    double *qd = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
      qd[i] = dt->Q[i] - dn->Q[i];
    }
    for (int k = 0; k < mr->tree->ntj; k++) {
      int e = ep_block(mr, k);
      if (e >= 0) {
        double a = 0;
        for (int i = 0; i < 4; i++) {
          a += qd[e + i] * q[e + i];
        }
        for (int i = 0; i < 4; i++) {
          qd[e + i] -= a * q[e + i];
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (!(fabs(qd[i]) <= 1e-10 * fmax(1, fabs(dn->Q[i])))) {
        fail_msg("%s: Q[%d] tape %.15g numeric %.15g (off the Euler-parameter direction %.3g)",
                 m->name, i, dt->Q[i], dn->Q[i], qd[i]);
      }
    }
    free(qd);
    close_all(dt->angle_memo, dn->angle_memo, mr->njoint, 1e-10, "memo", m->name);
    if (compiled) {
      // compiled C and the tape follow one evaluation order (mbd/sym.h): equal bit for bit
      evaluate(mr, mbd_code_hook(cc), dc, t, q, v);
      close_all(dc->phiq, dt->phiq, mrow * n, 0, "compiled phiq", m->name);
      close_all(dc->gamma, dt->gamma, mrow, 0, "compiled gamma", m->name);
      close_all(dc->M, dt->M, n * n, 0, "compiled M", m->name);
      close_all(dc->Q, dt->Q, n, 0, "compiled Q", m->name);
    }
  }
  free(q);
  free(v);
  mbd_data_free(dn);
  mbd_data_free(dt);
  mbd_data_free(dc);
  mbd_code_free(tape);
  mbd_code_free(cc);
  mbd_model_free(mr);
  mbd_model_free(m);
}

static void test_equations_spatial(void **state) {
  (void)state;
  check_equations(loaded3, 0, 1);
  check_equations(loaded3, 1, 1);
}

static void test_equations_planar(void **state) {
  (void)state;
  check_equations(loaded2, 0, 1);
  check_equations(loaded2, 1, 1);
}

static mbd_model *sfb(void) { return spatial_fourbar(5); }

/* macro copies: the shapes' equations, evaluated per copy and joined by the model's (the ball
 * joint between copies through the copies' pose Jacobians), against the numeric stages; with
 * every joint cut the copies' bodies float and the model's equations hold them all */
static void test_equations_macro(void **state) {
  (void)state;
  mbd_model *m = macro_model();
  mbd_model *mr = tree_model(m, 0);
  mbd_eqs_layout L;
  mbd_error err;
  assert_int_equal(mbd_eqs_layout_make(mr, &L, &err), MBD_OK);
  assert_non_null(L.macros);
  assert_int_equal(L.macros->ncopy, 2);
  assert_int_equal(L.macros->nshape, 1);  // both copies are one shape: derived once
  mbd_eqs_layout_free(&L);
  mbd_model_free(mr);
  mbd_model_free(m);
  check_equations(macro_model, 0, 1);
  check_equations(macro_model, 1, 0);
}

static void test_equations_loops(void **state) {
  (void)state;
  check_equations(fourbar, 0, 0);
  check_equations(slider_crank, 0, 0);
  check_equations(sfb, 0, 0);
  check_equations(floating_base, 0, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* runs                                                                                        */

static mbd_run *run_code(mbd_model *m, int code, int solver) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 1;
  o.formulation = MBD_FORM_RELATIVE;
  o.solver = solver;
  o.code = code;
  o.ode.rtol = o.ode.atol = 1e-10;
  o.position_tol = 1e-12;
  o.alpha = MBD_RELATIVE_ALPHA;
  o.beta = MBD_RELATIVE_BETA;
  o.output_every = 0.05;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
    fail_msg("%s (%s): %s", m->name, mbd_code_name(code), err.msg);
  }
  return r;
}

/* every channel of the tape's and the compiled code's runs against the numeric run: the same
 * equations, evaluated in other orders — the integrators see round-off apart and their step
 * sequences may differ; both runs' errors are ~1e-8 at rtol 1e-10 over 1 s: bound 1e-6.  The
 * compiled run equals the tape's to the last bit (same evaluation order, same steps). */
static void test_runs(void **state) {
  (void)state;
  mbd_model *(*makes[2])(void) = {sfb, slider_crank};
  for (int k = 0; k < 2; k++) {
    mbd_model *m = makes[k]();
    mbd_run *rn = run_code(m, MBD_CODE_NUMERIC, MBD_FORM_KANE);
    mbd_run *rt = run_code(m, MBD_CODE_TAPE, MBD_FORM_KANE);
    mbd_run *rc = run_code(m, MBD_CODE_COMPILED, MBD_FORM_KANE);
    assert_int_equal(mbd_run_get_stats(rn)->code, MBD_CODE_NUMERIC);
    assert_int_equal(mbd_run_get_stats(rt)->code, MBD_CODE_TAPE);
    assert_int_equal(mbd_run_get_stats(rc)->code, MBD_CODE_COMPILED);
    assert_true(mbd_run_get_stats(rt)->derive_time > 0);
    for (int c = 0; c < mbd_run_nchannel(rn); c++) {
      if (strcmp(mbd_run_channel_name(rn, c), "violation") == 0) {
        continue;
      }
      for (int i = 0; i < mbd_run_nsample(rn); i++) {
        double a = mbd_run_sample(rt, c, i), b = mbd_run_sample(rn, c, i);
        if (!(fabs(a - b) <= 1e-6 * fmax(1, fabs(b)))) {
          fail_msg("%s: %s at sample %d: tape %.12g, numeric %.12g", m->name,
                   mbd_run_channel_name(rn, c), i, a, b);
        }
        assert_true(mbd_run_sample(rc, c, i) == a);
      }
    }
    mbd_run_free(rn);
    mbd_run_free(rt);
    mbd_run_free(rc);
    mbd_model_free(m);
  }
}

/* the Cartesian formulations with code = compiled: the tree with every joint cut has their
 * coordinates and rows, so the run follows the numeric one to round-off (the same steps: every
 * channel within 1e-9 relative at rtol 1e-10 — measured 2e-11 for positions, 2e-8 N of O(100) N
 * reactions) and reports the formulation asked for */
static void test_cartesian_code(void **state) {
  (void)state;
  int forms[3] = {MBD_FORM_AUGMENTED, MBD_FORM_KANE, MBD_FORM_GCP};
  for (int k = 0; k < 3; k++) {
    mbd_model *m = fourbar();
    mbd_run *r[2] = {NULL, NULL};
    for (int c = 0; c < 2; c++) {
      mbd_sim_opts o;
      mbd_sim_opts_default(&o);
      o.t_end = 1;
      o.formulation = forms[k];
      o.code = c ? MBD_CODE_COMPILED : MBD_CODE_NUMERIC;
      o.ode.rtol = o.ode.atol = 1e-10;
      o.output_every = 0.05;
      mbd_error err;
      mbd_error_clear(&err);
      if (mbd_simulate(m, &o, &r[c], &err) != MBD_OK) {
        fail_msg("%s: %s", mbd_formulation_name(forms[k]), err.msg);
      }
    }
    assert_string_equal(mbd_run_formulation(r[1]), mbd_formulation_name(forms[k]));
    assert_int_equal(mbd_run_get_stats(r[1])->code, MBD_CODE_COMPILED);
    assert_int_equal(mbd_run_get_stats(r[1])->nfev, mbd_run_get_stats(r[0])->nfev);
    for (int c = 0; c < mbd_run_nchannel(r[0]); c++) {
      for (int i = 0; i < mbd_run_nsample(r[0]); i++) {
        double a = mbd_run_sample(r[1], c, i), b = mbd_run_sample(r[0], c, i);
        if (!(fabs(a - b) <= 1e-9 * fmax(1, fabs(b)))) {
          fail_msg("%s: %s at sample %d: compiled %.12g, numeric %.12g",
                   mbd_formulation_name(forms[k]), mbd_run_channel_name(r[0], c), i, a, b);
        }
      }
    }
    mbd_run_free(r[0]);
    mbd_run_free(r[1]);
    mbd_model_free(m);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the cache and the fallback                                                                  */

static void set_cache(char *dir, size_t len) {
  snprintf(dir, len, "/tmp/mbd-codegen-test-XXXXXX");
  assert_non_null(mkdtemp(dir));
  setenv("MBD_CACHE", dir, 1);
}

static void rm_cache(const char *dir) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static const mbd_run_stats *stats_of(mbd_model *m, mbd_run **r) {
  *r = run_code(m, MBD_CODE_COMPILED, MBD_FORM_BAUMGARTE);
  return mbd_run_get_stats(*r);
}

/* an unchanged model loads its compiled code from the cache without deriving; a changed mass
 * or a changed length derives and compiles again */
static void test_cache(void **state) {
  (void)state;
  char *saved = getenv("MBD_CACHE") ? strdup(getenv("MBD_CACHE")) : NULL;
  char dir[64];
  set_cache(dir, sizeof dir);
  mbd_model *m = fourbar();
  mbd_run *r = NULL;
  const mbd_run_stats *s = stats_of(m, &r);
  assert_int_equal(s->code, MBD_CODE_COMPILED);
  assert_int_equal(s->cache_hit, 0);
  assert_true(s->derive_time > 0);
  mbd_run_free(r);
  s = stats_of(m, &r);
  assert_int_equal(s->code, MBD_CODE_COMPILED);
  assert_int_equal(s->cache_hit, 1);
  assert_true(s->derive_time == 0);  // nothing derived: the source came from the model's key
  mbd_run_free(r);
  // a mass changed
  m->body[2].mass = 7.5;
  s = stats_of(m, &r);
  assert_int_equal(s->cache_hit, 0);
  assert_true(s->derive_time > 0);
  mbd_run_free(r);
  s = stats_of(m, &r);
  assert_int_equal(s->cache_hit, 1);
  mbd_run_free(r);
  // a length changed: the coupler's joint point
  m->joint[1].at2[0] = -1.01;
  s = stats_of(m, &r);
  assert_int_equal(s->cache_hit, 0);
  assert_true(s->derive_time > 0);
  mbd_run_free(r);
  mbd_model_free(m);
  rm_cache(dir);
  if (saved) {
    setenv("MBD_CACHE", saved, 1);
    free(saved);
  } else {
    unsetenv("MBD_CACHE");
  }
}

/* no compiler, an unwritable cache: the run uses the tape and says why; the run still agrees
 * with the numeric one (as test_runs) */
static void test_fallback(void **state) {
  (void)state;
  char *saved = getenv("MBD_CACHE") ? strdup(getenv("MBD_CACHE")) : NULL;
  char *saved_cc = getenv("CC") ? strdup(getenv("CC")) : NULL;
  char dir[64];
  set_cache(dir, sizeof dir);
  setenv("CC", "/nonexistent/mbd-cc", 1);
  mbd_model *m = fourbar();
  mbd_run *r = NULL;
  const mbd_run_stats *s = stats_of(m, &r);
  assert_int_equal(s->code, MBD_CODE_TAPE);
  assert_non_null(strstr(s->code_warning, "code = 'compiled' runs the tape instead"));
  assert_non_null(strstr(s->code_warning, "/nonexistent/mbd-cc"));
  // the warning reached the model's warnings too (shown once by the interpreter)
  int found = 0;
  for (int i = 0; mbd_model_warning(m, i); i++) {
    found |= strstr(mbd_model_warning(m, i), "runs the tape instead") != NULL;
  }
  assert_true(found);
  mbd_run *rn = run_code(m, MBD_CODE_NUMERIC, MBD_FORM_BAUMGARTE);
  int ch = mbd_run_find(r, "l3.theta");
  MBD_ASSERT_NEAR(mbd_run_sample(r, ch, 20), mbd_run_sample(rn, ch, 20), 1e-6);
  mbd_run_free(rn);
  mbd_run_free(r);
  if (saved_cc) {
    setenv("CC", saved_cc, 1);
    free(saved_cc);
  } else {
    unsetenv("CC");
  }
  // a cache folder that cannot be made
  setenv("MBD_CACHE", "/proc/mbd-no-such-folder/cache", 1);
  s = stats_of(m, &r);
  assert_int_equal(s->code, MBD_CODE_TAPE);
  assert_non_null(strstr(s->code_warning, "runs the tape instead"));
  mbd_run_free(r);
  mbd_model_free(m);
  rm_cache(dir);
  if (saved) {
    setenv("MBD_CACHE", saved, 1);
    free(saved);
  } else {
    unsetenv("MBD_CACHE");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_equations_spatial),
      cmocka_unit_test(test_equations_planar),
      cmocka_unit_test(test_equations_loops),
      cmocka_unit_test(test_equations_macro),
      cmocka_unit_test(test_runs),
      cmocka_unit_test(test_cartesian_code),
      cmocka_unit_test(test_cache),
      cmocka_unit_test(test_fallback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
