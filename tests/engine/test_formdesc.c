/* the formulations' descriptor table (mbd/formulation.h, formulations/table.c): every entry's name
 * round-trips through the table, the ops and the name functions; every capability the driver and
 * the binding ask for is held by some entry, consistently; every linear_solver a formulation
 * refuses gives the table's message, and the engine refuses it too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations.h"
#include "../../engine/formulations/formulations_msg.h"
#include "mbd/formulation.h"
#include "mbd/model.h"
#include "mbd_test.h"

/* the formulations' names: the DSL's contract, in the table's order */
static const char *const names[] = {"augmented", "baumgarte",      "gcp",
                                    "kane",      "udwadia_kalaba", "relative"};

static void test_names_round_trip(void **state) {
  (void)state;
  assert_int_equal(sizeof names / sizeof names[0], MBD_FORM_N);
  char all[256];
  assert_string_equal(mbd_formulation_names(all, sizeof all, 0),
                      "augmented, baumgarte, gcp, kane, udwadia_kalaba, relative");
  for (int f = 0; f < MBD_FORM_N; f++) {
    const mbd_formulation_info *fi = mbd_formulation_info_of(f);
    assert_non_null(fi);
    assert_int_equal(fi->id, f);
    assert_string_equal(fi->name, names[f]);
    assert_ptr_equal(mbd_formulation_find(fi->name), fi);
    assert_int_equal(mbd_formulation_from_name(fi->name), f);
    assert_string_equal(mbd_formulation_name(f), fi->name);
    // its ops carry the same name, and a state layout and a kernel are named
    const mbd_form_ops *ops = mbd_form_lookup(f);
    assert_non_null(ops);
    assert_string_equal(ops->name, fi->name);
    assert_non_null(fi->state);
    assert_non_null(fi->kernel);
    assert_true(strcmp(fi->state, "cartesian") == 0 || strcmp(fi->state, "partitioned") == 0 ||
                strcmp(fi->state, "joint") == 0);
    assert_int_equal(strcmp(fi->state, "partitioned") == 0,
                     mbd_formulation_has(f, MBD_FCAP_PARTITIONED));
  }
  assert_null(mbd_formulation_info_of(-1));
  assert_null(mbd_formulation_info_of(MBD_FORM_N));
  assert_null(mbd_form_lookup(MBD_FORM_N));
  assert_null(mbd_formulation_find("kan"));
  assert_null(mbd_formulation_find(NULL));
  assert_int_equal(mbd_formulation_from_name("kan"), -1);
  assert_null(mbd_formulation_name(MBD_FORM_DEFAULT));
  assert_false(mbd_formulation_has(MBD_FORM_N, 0));
}

/* the capabilities the driver and the binding ask for */
static void test_capabilities(void **state) {
  (void)state;
  char buf[256];
  // the default and its fallback, the joint coordinates, the systems, the stabilization matrices
  assert_string_equal(mbd_formulation_name(mbd_formulation_with(MBD_FCAP_DEFAULT)), "kane");
  assert_string_equal(mbd_formulation_name(mbd_formulation_with(MBD_FCAP_FALLBACK)), "baumgarte");
  assert_string_equal(mbd_formulation_name(mbd_formulation_with(MBD_FCAP_JOINT_COORDS)),
                      "relative");
  assert_string_equal(mbd_formulation_name(mbd_formulation_with(MBD_FCAP_SYSTEM)),
                      "udwadia_kalaba");
  assert_string_equal(mbd_formulation_name(mbd_formulation_with(MBD_FCAP_STAB_MATRICES)),
                      "udwadia_kalaba");
  assert_int_equal(mbd_formulation_with(MBD_FCAP_DEFAULT | MBD_FCAP_FALLBACK), -1);
  // the lists the binding names in its messages
  assert_string_equal(mbd_formulation_names(buf, sizeof buf, MBD_FCAP_WRAPPED),
                      "augmented, baumgarte, gcp, kane");
  assert_string_equal(mbd_formulation_names(buf, sizeof buf, MBD_FCAP_EXPORTED),
                      "augmented, baumgarte");
  assert_string_equal(mbd_formulation_names(buf, sizeof buf, MBD_FCAP_STABILIZED),
                      "baumgarte, udwadia_kalaba, relative");
  // a short buffer is cut, terminated
  assert_string_equal(mbd_formulation_names(buf, 6, 0), "augme");
  // the option defaults of the mbd_sim_opts: the default's solver on joint coordinates, baumgarte's
  // alpha and beta
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  int rel = mbd_formulation_with(MBD_FCAP_JOINT_COORDS);
  assert_int_equal(o.solver, mbd_formulation_info_of(rel)->solver);
  assert_true(mbd_formulation_has(o.solver, MBD_FCAP_WRAPPED));
  const mbd_formulation_info *bg = mbd_formulation_find("baumgarte");
  assert_true(o.alpha == bg->alpha && o.beta == bg->beta);
  assert_true(mbd_formulation_find("udwadia_kalaba")->alpha == 0);
  assert_true(mbd_formulation_info_of(rel)->alpha == MBD_RELATIVE_ALPHA);
  for (int f = 0; f < MBD_FORM_N; f++) {
    const mbd_formulation_info *fi = mbd_formulation_info_of(f);
    // stabilization: defaults finite (zero for the others), matrices only where it is read
    assert_true(isfinite(fi->alpha) && isfinite(fi->beta));
    if (!(fi->caps & MBD_FCAP_STABILIZED)) {
      assert_true(fi->alpha == 0 && fi->beta == 0);
      assert_false(fi->caps & MBD_FCAP_STAB_MATRICES);
    }
    // the stand-in without rows partitions nothing; a joint-coordinate formulation's solver
    // is one that may solve for it
    const mbd_formulation_info *w = mbd_formulation_info_of(fi->without_rows);
    assert_non_null(w);
    assert_false(w->caps & MBD_FCAP_PARTITIONED);
    assert_int_equal(fi->without_rows != f, (fi->caps & MBD_FCAP_PARTITIONED) != 0);
    if (fi->caps & MBD_FCAP_JOINT_COORDS) {
      assert_true(mbd_formulation_has(fi->solver, MBD_FCAP_WRAPPED));
    } else {
      assert_int_equal(fi->solver, -1);
    }
    // the warnings: the default's drift is a drift's variant; the manifest records position_tol
    // where the formulation holds the constraints to it, never with a drift warning
    assert_true(!fi->drift_default || fi->drift);
    assert_false(fi->drift && (fi->manifest & MBD_FMAN_POSITION_TOL));
    assert_int_equal((fi->manifest & MBD_FMAN_STABILIZATION) != 0,
                     (fi->caps & MBD_FCAP_STABILIZED) && !(fi->caps & MBD_FCAP_JOINT_COORDS));
    // auto and dense always
    assert_true(fi->linear_solvers & (1u << MBD_LINSOLVE_AUTO));
    assert_true(fi->linear_solvers & (1u << MBD_LINSOLVE_DENSE));
    assert_non_null(fi->linear_solver_refused);
  }
}

/* a planar pendulum: one revolute joint */
static mbd_model *pendulum(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("pendulum", 2, &err);
  mbd_body_spec b = {.name = "link", .mass = 1, .inertia = {1.0 / 12}, .pos = {0.5, 0}};
  int bi = mbd_model_add_body(m, &b, &err);
  assert_true(bi > 0);
  mbd_joint_spec j = {
      .name = "pin", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = bi, .at2 = {-0.5}};
  assert_true(mbd_model_add_joint(m, &j, &err) >= 0);
  return m;
}

/* every refused combination: the table's message (the binding's), and the engine refuses it */
static void test_refused_linear_solvers(void **state) {
  (void)state;
  mbd_model *m = pendulum();
  int refused = 0;
  for (int f = MBD_FORM_DEFAULT; f < MBD_FORM_N; f++) {
    for (int ls = 0; ls < MBD_LINSOLVE_N; ls++) {
      char why[256] = "", want[256];
      int fd = f == MBD_FORM_DEFAULT ? mbd_formulation_with(MBD_FCAP_DEFAULT) : f;
      const mbd_formulation_info *fi = mbd_formulation_info_of(fd);
      int takes = mbd_formulation_takes(f, ls, why, sizeof why);
      assert_int_equal(takes, (fi->linear_solvers >> ls) & 1);
      if (takes) {
        continue;
      }
      refused++;
      snprintf(want, sizeof want, fi->linear_solver_refused, mbd_linear_solver_name(ls));
      assert_string_equal(why, want);
      assert_non_null(strstr(why, mbd_linear_solver_name(ls)));
      assert_ptr_equal(strstr(why, "simulate: "), why);
      mbd_sim_opts o;
      mbd_sim_opts_default(&o);
      o.formulation = f;
      o.linear_solver = ls;
      o.t_end = 0.1;
      mbd_error err;
      mbd_error_clear(&err);
      mbd_run *r = NULL;
      assert_int_equal(mbd_simulate(m, &o, &r, &err), MBD_E_INPUT);
      assert_non_null(strstr(err.msg, "linear_solver"));
      assert_non_null(strstr(err.msg, mbd_linear_solver_name(ls)));
      if (fd == mbd_formulation_with(MBD_FCAP_JOINT_COORDS)) {
        assert_string_equal(err.msg, why);  // the same template in the engine
      }
      mbd_run_free(r);
    }
  }
  // recursive for each Cartesian formulation and the default, sparse for relative
  assert_int_equal(refused, MBD_FORM_N + 1);
  // a number outside the lists is left to the reader of the option
  char why[8];
  assert_true(mbd_formulation_takes(MBD_FORM_N, MBD_LINSOLVE_RECURSIVE, why, sizeof why));
  assert_true(mbd_formulation_takes(MBD_FORM_KANE, MBD_LINSOLVE_N, why, sizeof why));
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_names_round_trip),
                                     cmocka_unit_test(test_capabilities),
                                     cmocka_unit_test(test_refused_linear_solvers)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
