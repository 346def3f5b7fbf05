/* the sparse solve of the Cartesian formulations (formulations/linear_solver.c, kinematics/kkt.c,
 * linalg/sparse.c): KLU against LAPACK on one matrix; dense and sparse runs of planar and spatial
 * chains ending in the same state for every formulation that has both; the automatic choice, the
 * override, the refusals; one symbolic analysis per set of active rows. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations_msg.h"
#include "mbd/integrators.h"
#include "mbd/linalg.h"
#include "mbd/model.h"
#include "mbd/sparse.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* a planar chain of n links (1 m, 1 kg, J = 1/12) hanging from the origin, released at 0.3 rad */
static mbd_model *planar_chain(int n) {
  mbd_error err;
  mbd_model *m = mbd_model_new("chain", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  double a = -M_PI / 2 + 0.3, x = 0, y = 0;
  int prev = 0;
  for (int i = 0; i < n; i++) {
    char bname[16], jname[16];
    snprintf(bname, sizeof bname, "l%d", i + 1);
    snprintf(jname, sizeof jname, "j%d", i + 1);
    mbd_body_spec b = {.name = bname, .mass = 1, .inertia = {1.0 / 12}, .angle = a};
    b.pos[0] = x + 0.5 * cos(a);
    b.pos[1] = y + 0.5 * sin(a);
    int bi = mbd_model_add_body(m, &b, &err);
    assert_true(bi > 0);
    mbd_joint_spec j = {.name = jname, .type = MBD_JOINT_REVOLUTE, .body1 = prev, .body2 = bi,
                        .at2 = {-0.5}};
    j.at1[0] = prev ? 0.5 : 0;
    assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
    x += cos(a);
    y += sin(a);
    prev = bi;
  }
  return m;
}

/* a spatial chain of n rods joined by spherical joints, released sideways: Euler-parameter norms
 * among the rows, a 4×4 block of M per body */
static mbd_model *spatial_chain(int n) {
  mbd_error err;
  mbd_model *m = mbd_model_new("spatial chain", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  double a = 0.3, dir[3] = {sin(a), 0, -cos(a)};
  // body x along the rod: a rotation by a − π/2 about y takes x to dir
  double h = 0.5 * (a - M_PI / 2);
  int prev = 0;
  for (int i = 0; i < n; i++) {
    double c = i + 0.5;
    char bname[16], jname[16];
    snprintf(bname, sizeof bname, "l%d", i + 1);
    snprintf(jname, sizeof jname, "j%d", i + 1);
    mbd_body_spec b = {.name = bname, .mass = 1, .inertia = {0.001, 1.0 / 12, 1.0 / 12},
                       .rot = {cos(h), 0, -sin(h), 0}, .vel = {0, 0.5 * c, 0},
                       .omega = {0.5 * cos(a), 0, 0.5 * sin(a)}};
    for (int k = 0; k < 3; k++) {
      b.pos[k] = c * dir[k];
    }
    int bi = mbd_model_add_body(m, &b, &err);
    assert_true(bi > 0);
    mbd_joint_spec j = {.name = jname, .type = MBD_JOINT_SPHERICAL, .body1 = prev, .body2 = bi,
                        .at2 = {-0.5}};
    j.at1[0] = prev ? 0.5 : 0;
    assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
    prev = bi;
  }
  return m;
}

static mbd_run *run_with(mbd_model *m, int form, int solver, double t_end, mbd_error *err) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = t_end;
  o.formulation = form;
  o.ode.rtol = o.ode.atol = 1e-8;
  o.position_tol = 1e-10;
  o.output_every = t_end;
  o.linear_solver = solver;
  mbd_run *r = NULL;
  mbd_error_clear(err);
  mbd_simulate(m, &o, &r, err);
  return r;
}

static mbd_run *run(mbd_model *m, int form, int solver, double t_end) {
  mbd_error err;
  mbd_run *r = run_with(m, form, solver, t_end, &err);
  if (!r || mbd_run_status(r) != MBD_OK) {
    fail_msg("%s, %s: %s", mbd_formulation_name(form), mbd_linear_solver_name(solver), err.msg);
  }
  return r;
}

static double last(const mbd_run *r, const char *ch) {
  int c = mbd_run_find(r, ch);
  assert_true(c >= 0);
  return mbd_run_sample(r, c, mbd_run_nsample(r) - 1);
}

/* ------------------------------------------------------------------------------------------ */

/* one matrix, both doors: KLU's solution (a fresh factorization and a refactorization of new
 * values in the same pattern) against LAPACK's, to rounding (1e-13 on a system of order 6 whose
 * entries are O(1) and condition about 10), and its singular column named */
static void test_klu_against_lapack(void **state) {
  (void)state;
  // [2 0 1 0 0 0; 0 3 0 1 0 0; 1 0 0 0 0 1; 0 1 0 4 0 0; 0 0 0 0 5 1; 0 0 1 0 1 0] by columns
  int Ap[7] = {0, 2, 4, 6, 8, 9, 12}, Ai[12] = {0, 2, 1, 3, 0, 5, 1, 3, 4, 2, 4, 5};
  double Ax[12] = {2, 1, 3, 1, 1, 1, 1, 4, 5, 1, 1, 0};
  mbd_error err;
  mbd_splu *f = mbd_splu_new();
  assert_non_null(f);
  assert_int_equal(mbd_splu_analyze(f, 6, Ap, Ai, 0, &err), MBD_OK);
  for (int pass = 0; pass < 2; pass++) {
    double dense[36] = {0}, b[6] = {1, -2, 3, 0.5, 4, -1}, x[6];
    int ipiv[6];
    for (int j = 0; j < 6; j++) {
      for (int k = Ap[j]; k < Ap[j + 1]; k++) {
        MBD_AT(dense, 6, Ai[k], j) = Ax[k];
      }
    }
    memcpy(x, b, sizeof b);
    double ratio = 0;
    assert_int_equal(mbd_splu_factor(f, Ax, pass, &ratio, NULL), 0);
    assert_true(ratio > 0 && ratio <= 1);
    mbd_splu_solve(f, 0, x, 1);
    assert_int_equal(mbd_lu_factor(6, dense, 6, ipiv), 0);
    mbd_lu_solve(6, dense, 6, ipiv, b, 1);
    for (int i = 0; i < 6; i++) {
      MBD_ASSERT_NEAR(x[i], b[i], 1e-13);
    }
    Ax[0] = 2.5;  // new values, same pattern: the second pass refactors
    Ax[8] = 4;
  }
  assert_int_equal(mbd_splu_full_count(f), 1);
  assert_int_equal(mbd_splu_refactor_count(f), 1);
  // column 4 (0-based) made zero: a singular matrix, its column reported
  double Z[12];
  memcpy(Z, Ax, sizeof Z);
  Z[8] = 0;
  Z[10] = 0;
  assert_int_equal(mbd_splu_factor(f, Z, 0, NULL, NULL), 5);
  mbd_splu_free(f);
}

/* UMFPACK's partial pivoting on a tall matrix: each column's largest entry among the rows left is
 * a pivot row (the set, in any column order), the others follow; a rank-deficient one has pivot
 * ratio 0 */
static void test_pivot_rows(void **state) {
  (void)state;
  // 4×2: column 0 = (0, 3, 1, 0), column 1 = (2, 0, 0, 1)
  int Ap[3] = {0, 2, 4}, Ai[4] = {1, 2, 0, 3}, rows[4];
  double Ax[4] = {3, 1, 2, 1}, ratio = 0;
  mbd_error err;
  assert_int_equal(mbd_sparse_pivot_rows(4, 2, Ap, Ai, Ax, rows, &ratio, &err), MBD_OK);
  int a = rows[0] < rows[1] ? rows[0] : rows[1], b = rows[0] < rows[1] ? rows[1] : rows[0];
  assert_int_equal(a, 0);
  assert_int_equal(b, 1);
  assert_int_equal(rows[2] + rows[3], 5);  // rows 2 and 3 follow
  MBD_ASSERT_NEAR(ratio, 2.0 / 3.0, 1e-15);
  // column 1 a multiple of column 0: rank 1
  double Bx[4] = {3, 1, 6, 2};
  int Bi[4] = {1, 2, 1, 2};
  assert_int_equal(mbd_sparse_pivot_rows(4, 2, Ap, Bi, Bx, rows, &ratio, &err), MBD_OK);
  MBD_ASSERT_NEAR(ratio, 0, 1e-15);
}

/* a large model's partition (gcp, kane) by the sparse LU's pivots instead of the QR: a chain of
 * 480 links (ma² n = 1.3e9 operations of the QR) — its links' positions dependent, as the QR
 * takes them; 0.05 s of its motion as augmented's (both at rtol 1e-8: the tip 1e-11 m apart
 * here; bound 1e-8, the tolerance) */
static void test_large_partition(void **state) {
  (void)state;
  mbd_model *m = planar_chain(480);
  mbd_run *g = run(m, MBD_FORM_GCP, MBD_LINSOLVE_SPARSE, 0.05);
  mbd_run *a = run(m, MBD_FORM_AUGMENTED, MBD_LINSOLVE_SPARSE, 0.05);
  const char *chans[] = {"l480.x", "l480.y", "l480.theta", "l1.theta", "l240.omega"};
  for (size_t k = 0; k < sizeof chans / sizeof chans[0]; k++) {
    MBD_ASSERT_NEAR(last(g, chans[k]), last(a, chans[k]), 1e-8);
  }
  assert_int_equal(mbd_run_get_stats(g)->repartitions, 0);
  mbd_run_free(g);
  mbd_run_free(a);
  mbd_model_free(m);
}

/* dense and sparse runs agree: a planar chain of 12 links (36 coordinates, 24 rows) over 2 s at
 * rtol = atol = 1e-8, every formulation with both (udwadia_kalaba: its SVD against the leading
 * matrix's LU).  They take the same steps (the error estimates
 * differ by rounding only), and the end states differ by 1e-13 to 1e-11 here (each evaluation's
 * v̇ differs by rounding, about 1e-15 relative; the integration carries it): 1e-10 leaves a
 * margin of ten and more, far below the integration's own error (1e-8) */
static void test_planar_chain_agrees(void **state) {
  (void)state;
  mbd_model *m = planar_chain(12);
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_UK};
  const char *chans[] = {"l12.x", "l12.y", "l12.theta", "l7.theta", "l12.vx", "l1.omega"};
  for (int f = 0; f < 5; f++) {
    mbd_run *d = run(m, forms[f], MBD_LINSOLVE_DENSE, 2), *s = run(m, forms[f], MBD_LINSOLVE_SPARSE, 2);
    assert_int_equal(mbd_run_get_stats(d)->linear_solver, MBD_LINSOLVE_DENSE);
    assert_int_equal(mbd_run_get_stats(s)->linear_solver, MBD_LINSOLVE_SPARSE);
    assert_int_equal(mbd_run_get_stats(d)->nfev, mbd_run_get_stats(s)->nfev);
    for (size_t k = 0; k < sizeof chans / sizeof chans[0]; k++) {
      MBD_ASSERT_NEAR(last(d, chans[k]), last(s, chans[k]), 1e-10);
    }
    // the reaction at the pivot (about 110 N): the same, relative 1e-10
    MBD_ASSERT_NEAR(last(d, "j1.fy"), last(s, "j1.fy"), 1e-10 * fabs(last(d, "j1.fy")));
    mbd_run_free(d);
    mbd_run_free(s);
  }
  mbd_model_free(m);
}

/* the same for a spatial chain of 8 rods on spherical joints (56 coordinates, 32 rows with the 8
 * Euler-parameter norms): bounds as above */
static void test_spatial_chain_agrees(void **state) {
  (void)state;
  mbd_model *m = spatial_chain(8);
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE};
  const char *chans[] = {"l8.x", "l8.y", "l8.z", "l8.e0", "l8.e2", "l3.wz"};
  for (int f = 0; f < 4; f++) {
    mbd_run *d = run(m, forms[f], MBD_LINSOLVE_DENSE, 1), *s = run(m, forms[f], MBD_LINSOLVE_SPARSE, 1);
    assert_int_equal(mbd_run_get_stats(d)->nfev, mbd_run_get_stats(s)->nfev);
    for (size_t k = 0; k < sizeof chans / sizeof chans[0]; k++) {
      MBD_ASSERT_NEAR(last(d, chans[k]), last(s, chans[k]), 1e-10);
    }
    mbd_run_free(d);
    mbd_run_free(s);
  }
  mbd_model_free(m);
}

/* kane's sparse form solves eq 13 through the Schur complement Φq M⁻¹ Φqᵀ (formulations/schur.c)
 * where M's blocks are positive definite; MBD_KANE_SCHUR=0 keeps the leading matrix's KLU LU. The
 * two solve the same linear system, each evaluation's v̇ agreeing to rounding, so the runs take the
 * same steps and end within the bound of the dense-against-sparse test above (1e-10, relative for
 * the reaction of 121 N; measured on the same chain in Lua: 9e-15 and, with every block by its
 * Cholesky factor, 7e-14 at most, the reaction within 1.1e-12 N): a planar chain of 12 links
 * (diagonal M), and again with every block of M through its Cholesky factor
 * (MBD_KANE_SCHUR=general: the path of blocks that are not diagonal); and a spatial chain, whose
 * Euler-parameter blocks are not positive definite, where both runs take the KLU path and agree
 * exactly */
static void test_kane_schur_agrees(void **state) {
  (void)state;
  mbd_model *m = planar_chain(12);
  const char *chans[] = {"l12.x", "l12.y", "l12.theta", "l7.theta", "l12.vx", "l1.omega", "j1.fy"};
  mbd_run *s = run(m, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 2);
  setenv("MBD_KANE_SCHUR", "0", 1);
  mbd_run *k = run(m, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 2);
  // (and the path of blocks that are not diagonal: every block by its Cholesky factor)
  setenv("MBD_KANE_SCHUR", "general", 1);
  mbd_run *g = run(m, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 2);
  unsetenv("MBD_KANE_SCHUR");
  assert_int_equal(mbd_run_get_stats(s)->nfev, mbd_run_get_stats(k)->nfev);
  assert_int_equal(mbd_run_get_stats(g)->nfev, mbd_run_get_stats(k)->nfev);
  int differ = 0;
  for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++) {
    double a = last(s, chans[c]), b = last(k, chans[c]), x = last(g, chans[c]);
    MBD_ASSERT_NEAR(a, b, 1e-10 * (fabs(b) > 1 ? fabs(b) : 1));
    MBD_ASSERT_NEAR(x, b, 1e-10 * (fabs(b) > 1 ? fabs(b) : 1));
    differ |= a != b;
  }
  assert_true(differ);  // (the two paths ran: their roundings differ)
  mbd_run_free(s);
  mbd_run_free(k);
  mbd_run_free(g);
  mbd_model_free(m);
  m = spatial_chain(4);
  s = run(m, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 0.5);
  setenv("MBD_KANE_SCHUR", "0", 1);
  k = run(m, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 0.5);
  unsetenv("MBD_KANE_SCHUR");
  const char *schans[] = {"l4.x", "l4.y", "l4.z", "l4.e0", "l3.wz"};
  for (size_t c = 0; c < sizeof schans / sizeof schans[0]; c++) {
    assert_true(last(s, schans[c]) == last(k, schans[c]));
  }
  mbd_run_free(s);
  mbd_run_free(k);
  mbd_model_free(m);
}

/* kane's sparse form keeps the factorization of Φ_qd while its values do not change
 * (partition.c, sparse_factor_jd): in a planar chain of revolute joints the dependent coordinates
 * are the bodies' x and y, whose columns are ±1 at every state.  RK4 with 5 ms steps over 2 s
 * (the evaluations fixed) against MBD_PART_KEEP=0, which factors at every Newton iteration: the
 * same evaluations and Newton iterations, the channels agree to 1e-12 (the kept factor is the one
 * a refactorization of the same numbers gives; the measured difference is 0), and the kept run
 * factors Φ_qd only at its partition, so it spares an LU per evaluation and per Newton
 * iteration (exactly: the entries are ±1 on every machine) */
static void test_kept_factor(void **state) {
  (void)state;
  mbd_model *m = planar_chain(8);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = 2;
  o.formulation = MBD_FORM_KANE;
  o.ode.kind = MBD_INT_RK4;
  o.ode.step = 5e-3;
  o.position_tol = 1e-6;
  o.output_every = 2;
  o.linear_solver = MBD_LINSOLVE_SPARSE;
  mbd_run *r[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    mbd_error err;
    if (i == 1) {
      setenv("MBD_PART_KEEP", "0", 1);
    }
    mbd_simulate(m, &o, &r[i], &err);
    unsetenv("MBD_PART_KEEP");
    if (!r[i] || mbd_run_status(r[i]) != MBD_OK) {
      fail_msg("kane, sparse: %s", err.msg);
    }
  }
  const mbd_run_stats *k = mbd_run_get_stats(r[0]), *f = mbd_run_get_stats(r[1]);
  assert_int_equal(k->nfev, f->nfev);
  assert_int_equal(k->newton_iterations, f->newton_iterations);
  assert_true(f->lu_factorizations - k->lu_factorizations >= k->nfev + k->newton_iterations);
  const char *chans[] = {"l8.x", "l8.y", "l8.theta", "l4.theta", "l8.vx", "l1.omega", "j1.fy"};
  for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++) {
    double a = last(r[0], chans[c]), b = last(r[1], chans[c]);
    MBD_ASSERT_NEAR(a, b, 1e-12 * (fabs(b) > 1 ? fabs(b) : 1));
  }
  mbd_run_free(r[0]);
  mbd_run_free(r[1]);
  mbd_model_free(m);
}

/* the choice: auto is dense for a double pendulum (10 unknowns) and sparse for the 12-link chain
 * (60); each is overridden both ways; one symbolic analysis of the leading matrix for a run whose
 * active rows never change, and gcp one more for its partition */
static void test_choice(void **state) {
  (void)state;
  mbd_model *small = planar_chain(2), *big = planar_chain(12);
  mbd_run *r = run(small, MBD_FORM_AUGMENTED, MBD_LINSOLVE_AUTO, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_DENSE);
  assert_int_equal(mbd_run_get_stats(r)->symbolic_analyses, 0);
  mbd_run_free(r);
  r = run(big, MBD_FORM_AUGMENTED, MBD_LINSOLVE_AUTO, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_SPARSE);
  assert_int_equal(mbd_run_get_stats(r)->symbolic_analyses, 1);
  mbd_run_free(r);
  r = run(big, MBD_FORM_GCP, MBD_LINSOLVE_AUTO, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_SPARSE);
  assert_int_equal(mbd_run_get_stats(r)->symbolic_analyses, 2);
  mbd_run_free(r);
  r = run(small, MBD_FORM_KANE, MBD_LINSOLVE_SPARSE, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_SPARSE);
  mbd_run_free(r);
  r = run(big, MBD_FORM_BAUMGARTE, MBD_LINSOLVE_DENSE, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_DENSE);
  mbd_run_free(r);
  // udwadia_kalaba: sparse for planar rigid bodies, dense for spatial ones (its sparse form is
  // not written for them); asked for auto it runs and says so
  r = run(big, MBD_FORM_UK, MBD_LINSOLVE_AUTO, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_SPARSE);
  mbd_run_free(r);
  mbd_model *sp = spatial_chain(8);
  r = run(sp, MBD_FORM_UK, MBD_LINSOLVE_AUTO, 0.5);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_DENSE);
  mbd_run_free(r);
  mbd_model_free(sp);
  mbd_model_free(small);
  mbd_model_free(big);
}

/* "sparse" where it is not written is refused, the reason named: udwadia_kalaba on spatial
 * bodies, the relative formulation's joint coordinates (relative names the solves it has); an
 * unknown number too */
static void test_refused(void **state) {
  (void)state;
  mbd_model *m = planar_chain(12), *sp = spatial_chain(4);
  mbd_error err;
  mbd_run *r = run_with(sp, MBD_FORM_UK, MBD_LINSOLVE_SPARSE, 0.5, &err);
  assert_int_equal(err.code, MBD_E_INPUT);
  MBD_ASSERT_FITS(err.msg, MSG_FORM_SPARSE_REFUSED);
  assert_non_null(strstr(err.msg, "udwadia_kalaba"));
  mbd_run_free(r);
  mbd_model_free(sp);
  r = run_with(m, MBD_FORM_RELATIVE, MBD_LINSOLVE_SPARSE, 0.5, &err);
  MBD_EXPECT_ERROR(err.code, &err, MBD_E_INPUT, MSG_FORM_REL_LINSOLVE, "sparse");
  mbd_run_free(r);
  r = run_with(m, MBD_FORM_AUGMENTED, MBD_LINSOLVE_N, 0.5, &err);
  MBD_EXPECT_ERROR(err.code, &err, MBD_E_INPUT, MSG_FORM_LINSOLVE, MBD_LINSOLVE_N);
  mbd_run_free(r);
  // relative with auto runs its own choice: the recursion for a tree of 12 moving bodies (from 8)
  r = run(m, MBD_FORM_RELATIVE, MBD_LINSOLVE_AUTO, 0.2);
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_RECURSIVE);
  mbd_run_free(r);
  assert_int_equal(mbd_linear_solver_from_name("sparse"), MBD_LINSOLVE_SPARSE);
  assert_int_equal(mbd_linear_solver_from_name("banded"), -1);
  assert_string_equal(mbd_linear_solver_name(MBD_LINSOLVE_AUTO), "auto");
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_klu_against_lapack),
                                     cmocka_unit_test(test_planar_chain_agrees),
                                     cmocka_unit_test(test_spatial_chain_agrees),
                                     cmocka_unit_test(test_choice),
                                     cmocka_unit_test(test_refused),
                                     cmocka_unit_test(test_pivot_rows),
                                     cmocka_unit_test(test_large_partition),
                                     cmocka_unit_test(test_kane_schur_agrees),
                                     cmocka_unit_test(test_kept_factor)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
