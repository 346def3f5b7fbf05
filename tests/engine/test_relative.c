/* the relative formulation (paper 002; engine/kinematics/tree.c, engine/formulations/relative.c):
 * the spanning tree and its cut joints, the pose Jacobians and quadratic terms of every tree
 * joint kind against finite differences, agreement of every channel with the Cartesian
 * augmented formulation (an open chain, closed loops planar and spatial with a cut revolute,
 * translational and spherical joint, a floating base), the solvers on the joint coordinates,
 * energy conservation, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations_msg.h"
#include "../../engine/formulations/relative_aba.h"
#include "mbd/integrators.h"
#include "relative_models.h"

/* the tree model of m (assembled here) and a data for it at its assembled state */
static mbd_model *tree_of(mbd_model *m, const char *const *cut, int ncut) {
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_data *d = mbd_data_alloc(m, &err);
  assert_non_null(d);
  mbd_data_reset(m, d);
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
  mbd_model *mr = NULL;
  int rc = mbd_tree_build(m, d, cut, ncut, &mr, &err);
  if (rc != MBD_OK) {
    fail_msg("tree of %s: %s", m->name, err.msg);
  }
  mbd_data_free(d);
  return mr;
}
static int g_linsolve;  /* the linear solver of the relative runs of simulate() */

static mbd_run *simulate(mbd_model *m, int form, int solver, double t_end, double tol) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.linear_solver = form == MBD_FORM_RELATIVE ? g_linsolve : MBD_LINSOLVE_AUTO;
  o.t_end = t_end;
  o.formulation = form;
  o.solver = solver;
  o.ode.rtol = o.ode.atol = tol;
  o.position_tol = 1e-12;
  o.output_every = t_end / 20;
  o.alpha = MBD_RELATIVE_ALPHA;
  o.beta = MBD_RELATIVE_BETA;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
    fail_msg("%s, %s: %s", m->name, mbd_formulation_name(form), err.msg);
  }
  return r;
}
/* every channel of a against b at every sample: positions and angles within tol_pos, velocities
 * within tol_vel, reactions and efforts within tol_force, energy within tol_pos × its scale */
static void agree(const mbd_run *a, const mbd_run *b, double tol_pos, double tol_vel,
                  double tol_force, const char *what) {
  assert_int_equal(mbd_run_nchannel(a), mbd_run_nchannel(b));
  assert_int_equal(mbd_run_nsample(a), mbd_run_nsample(b));
  for (int c = 0; c < mbd_run_nchannel(a); c++) {
    const char *nm = mbd_run_channel_name(a, c);
    assert_string_equal(nm, mbd_run_channel_name(b, c));
    const char *f = strrchr(nm, '.');
    f = f ? f + 1 : nm;
    double tol = tol_pos;
    if (f[0] == 'v' || f[0] == 'w' || strcmp(f, "omega") == 0) {
      tol = tol_vel;
    } else if (f[0] == 'f' || (f[0] == 't' && f[1] && f[2] == '\0') || strcmp(f, "effort") == 0) {
      tol = tol_force;
    } else if (strcmp(f, "violation") == 0) {
      continue;  // the formulations keep different errors: not a channel of the motion
    }
    for (int i = 0; i < mbd_run_nsample(a); i++) {
      double x = mbd_run_sample(a, c, i), y = mbd_run_sample(b, c, i);
      if (!(fabs(x - y) <= tol * fmax(1, fabs(y)))) {
        fail_msg("%s: %s at t = %g: %.12g vs %.12g (tol %g)", what, nm, mbd_run_times(a)[i], x, y,
                 tol);
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the tree                                                                                    */

/* the loop-closing joint declared last is cut among equals; a spherical joint (4 coordinates) is
 * cut before revolute and universal joints; a named cut is obeyed; a body with no path to the
 * ground floats */
static void test_tree_choice(void **state) {
  (void)state;
  mbd_model *m = fourbar();
  mbd_model *mr = tree_of(m, NULL, 0);
  assert_int_equal(mr->tree->ncut, 1);
  assert_string_equal(mr->joint[mr->tree->cut[0]].name, "C");
  assert_int_equal(mr->nv, 3);    // three revolutes in the tree
  assert_int_equal(mr->mrow, 2);  // the cut revolute's two rows
  char nm[64];
  mbd_model_coord_name(mr, 2, nm, sizeof nm);
  assert_string_equal(nm, "B.angle");
  mbd_model_free(mr);
  const char *cut[] = {"A"};
  mr = tree_of(m, cut, 1);
  assert_int_equal(mr->tree->ncut, 1);
  assert_string_equal(mr->joint[mr->tree->cut[0]].name, "A");
  mbd_model_free(mr);
  mbd_model_free(m);

  m = spatial_fourbar(5);
  mr = tree_of(m, NULL, 0);
  assert_int_equal(mr->tree->ncut, 1);
  assert_string_equal(mr->joint[mr->tree->cut[0]].name, "J3");
  assert_int_equal(mr->nv, 4);  // J1, J4 (1 each), J2 (2)
  assert_int_equal(mr->mrow, 3);
  // J4 runs from the ground (its body2) to link3 (its body1): the tree inverts it
  const mbd_tree_joint *tj = &mr->tree->tj[mr->tree->body_tj[3]];
  assert_string_equal(mr->joint[tj->joint].name, "J4");
  assert_int_equal(tj->sigma, -1);
  mbd_model_free(mr);
  const char *cut2[] = {"J2"};
  mr = tree_of(m, cut2, 1);
  assert_int_equal(mr->nv, 6);    // J1, J4 and J3's four Euler parameters
  assert_int_equal(mr->mrow, 5);  // the universal's four rows and J3's norm
  mbd_model_coord_name(mr, 3, nm, sizeof nm);
  assert_string_equal(nm, "J3.e1");
  mbd_model_free(mr);
  mbd_model_free(m);

  m = floating_base();
  mr = tree_of(m, NULL, 0);
  assert_int_equal(mr->tree->nfloat, 1);
  assert_int_equal(mr->tree->ncut, 0);
  assert_int_equal(mr->nv, 8);  // the base's seven coordinates and the revolute's angle
  mbd_model_coord_name(mr, 3, nm, sizeof nm);
  assert_string_equal(nm, "base.e0");
  mbd_model_free(mr);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* pose Jacobians against finite differences                                                  */

/* the Y of every moving body (r, then p or θ) at q into Y (nbody × 7) */
static void poses_at(const mbd_model *mr, mbd_data *d, const double *q, const double *v,
                     double *Y) {
  memcpy(d->q, q, (size_t)mr->nq * sizeof(double));
  memcpy(d->v, v, (size_t)mr->nv * sizeof(double));
  mbd_tree_poses(mr, d);
  for (int b = 1; b < mr->nbody; b++) {
    const mbd_pose *ps = &d->pose[b];
    int npos = mr->dim == 3 ? 3 : 2;
    for (int k = 0; k < npos; k++) {
      Y[7 * b + k] = ps->r[k];
    }
    for (int k = 0; k < ps->ny - npos; k++) {
      Y[7 * b + npos + k] = ps->p[k];
    }
  }
}

/* Ẏ = J v against the central difference (Y(q + εv) − Y(q − εv))/2ε and h against (J(q + εv)v −
 * J(q − εv)v)/2ε, at a random state.  ε = 1e-5: truncation ~ε²·|Y'''| ≈ 1e-10, round-off ~1e-16/ε
 * ≈ 1e-11 on O(1) quantities; tolerance 1e-7. */
static void check_fd(mbd_model *m) {
  mbd_model *mr = tree_of(m, NULL, 0);
  mbd_error err;
  mbd_data *d = mbd_data_alloc(mr, &err);
  assert_non_null(d);
  int n = mr->nv, nb = mr->nbody;
  unsigned seed = 7;
  double *q = calloc((size_t)n, sizeof(double)), *v = calloc((size_t)n, sizeof(double));
  double *qp = calloc((size_t)n, sizeof(double)), *qm = calloc((size_t)n, sizeof(double));
  double *Yp = calloc((size_t)nb * 7, sizeof(double)), *Ym = calloc((size_t)nb * 7, sizeof(double));
  double *Jvp = calloc((size_t)nb * 7, sizeof(double)),
         *Jvm = calloc((size_t)nb * 7, sizeof(double));
  for (int i = 0; i < n; i++) {
    q[i] = mr->q_asm[i] + urand(&seed);
    v[i] = 2 * urand(&seed);
  }
  double eps = 1e-5;
  for (int i = 0; i < n; i++) {
    qp[i] = q[i] + eps * v[i];
    qm[i] = q[i] - eps * v[i];
  }
  poses_at(mr, d, qp, v, Yp);
  for (int b = 1; b < nb; b++) {
    for (int k = 0; k < d->pose[b].ny; k++) {
      double s = 0;
      for (int c = 0; c < n; c++) {
        s += MBD_AT(d->pose[b].J, d->pose[b].ny, k, c) * v[c];
      }
      Jvp[7 * b + k] = s;
    }
  }
  poses_at(mr, d, qm, v, Ym);
  for (int b = 1; b < nb; b++) {
    for (int k = 0; k < d->pose[b].ny; k++) {
      double s = 0;
      for (int c = 0; c < n; c++) {
        s += MBD_AT(d->pose[b].J, d->pose[b].ny, k, c) * v[c];
      }
      Jvm[7 * b + k] = s;
    }
  }
  double *Y0 = calloc((size_t)nb * 7, sizeof(double));
  poses_at(mr, d, q, v, Y0);
  for (int b = 1; b < nb; b++) {
    const mbd_pose *ps = &d->pose[b];
    int npos = mr->dim == 3 ? 3 : 2;
    for (int k = 0; k < ps->ny; k++) {
      double Jv = 0;
      for (int c = 0; c < n; c++) {
        Jv += MBD_AT(ps->J, ps->ny, k, c) * v[c];
      }
      double rate = k < npos ? ps->rd[k] : ps->pd[k - npos];
      double fd = (Yp[7 * b + k] - Ym[7 * b + k]) / (2 * eps);
      double fdh = (Jvp[7 * b + k] - Jvm[7 * b + k]) / (2 * eps);
      if (fabs(Jv - fd) > 1e-7 || fabs(rate - Jv) > 1e-12 || fabs(ps->h[k] - fdh) > 1e-7) {
        fail_msg("%s, body %s, Y[%d]: J v = %.12g, rate %.12g, FD %.12g; h = %.12g, FD %.12g",
                 m->name, m->body[b].name, k, Jv, rate, fd, ps->h[k], fdh);
      }
    }
  }
  free(Y0);
  free(q);
  free(v);
  free(qp);
  free(qm);
  free(Yp);
  free(Ym);
  free(Jvp);
  free(Jvm);
  mbd_data_free(d);
  mbd_model_free(mr);
}

static void test_pose_jacobians(void **state) {
  (void)state;
  mbd_model *m = every_kind3();
  check_fd(m);
  mbd_model_free(m);
  m = every_kind2();
  check_fd(m);
  mbd_model_free(m);
}

/* at q = 0 the tree reproduces the assembled Cartesian poses (Euler parameters with their sign)
 * and velocities: to the assembly tolerance 1e-10, times a few for the composition */
static void test_tree_start(void **state) {
  (void)state;
  mbd_model *ms[3] = {every_kind3(), spatial_fourbar(5), floating_base()};
  for (int k = 0; k < 3; k++) {
    mbd_model *m = ms[k];
    mbd_model *mr = tree_of(m, NULL, 0);
    mbd_error err;
    mbd_data *d = mbd_data_alloc(mr, &err);
    mbd_data_reset(mr, d);
    mbd_tree_poses(mr, d);
    for (int b = 1; b < m->nbody; b++) {
      const double *qc = m->q_asm + m->block[m->body[b].block].qadr;
      const double *vc = m->v_asm + m->block[m->body[b].block].vadr;
      const mbd_pose *ps = &d->pose[b];
      for (int i = 0; i < 3; i++) {
        MBD_ASSERT_NEAR(ps->r[i], qc[i], 1e-9);
        MBD_ASSERT_NEAR(ps->rd[i], vc[i], 1e-9);
      }
      for (int i = 0; i < 4; i++) {
        MBD_ASSERT_NEAR(ps->p[i], qc[3 + i], 1e-9);
        MBD_ASSERT_NEAR(ps->pd[i], vc[3 + i], 1e-9);
      }
    }
    mbd_data_free(d);
    mbd_model_free(mr);
    mbd_model_free(m);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the recursive solve against the dense M̄ at random states                                    */

/* a random state of tree model mr: every coordinate within ±0.5 of its assembled value, every
 * velocity within ±1; the Euler parameters of spherical and floating joints normalized, their
 * rates made orthogonal to them (a state on the norm rows, as the integration keeps it) */
static void random_state(const mbd_model *mr, unsigned *seed, double *q, double *v) {
  for (int i = 0; i < mr->nv; i++) {
    q[i] = mr->q_asm[i] + urand(seed);
    v[i] = 2 * urand(seed);
  }
  for (int r = 0; r < mr->mrow; r++) {
    if (mr->row[r].owner != MBD_ROW_TREE) {
      continue;
    }
    double *e = q + mr->row[r].index, *ed = v + mr->row[r].index;
    double n = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]), p = 0;
    for (int k = 0; k < 4; k++) {
      e[k] /= n;
      p += e[k] * ed[k];
    }
    for (int k = 0; k < 4; k++) {
      ed[k] -= p * e[k];
    }
  }
}

/* largest |x| of n numbers */
static double amax(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s = fmax(s, fabs(x[i]));
  }
  return s;
}

/* at five random states, the recursive tree model's Φ, γ, Φq, v̇ and λ against the dense one's
 * (M̄ and the augmented LU).  Both solve the same equations, with condition numbers of these
 * small mechanisms at most ~1e4: round-off leaves ~1e-12 of each quantity's scale, so v̇ must
 * agree to 1e-10 of max|v̇| (the bound) times loose; λ to 1e-9 of max|λ| (one more
 * solve) times loose; rows to 1e-12 (the same local rows, Φq summed along the path in another
 * order) */
static void check_aba_tol(mbd_model *m, const char *const *cut, int ncut, const char *what,
                          double loose) {
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_data *d = mbd_data_alloc(m, &err);
  mbd_data_reset(m, d);
  assert_int_equal(mbd_eval_anew(m, d, MBD_STAGE_VELOCITY, &err), MBD_OK);
  mbd_model *md = NULL, *mr = NULL;
  assert_int_equal(mbd_tree_build_ex(m, d, cut, ncut, 0, 0, &md, &err), MBD_OK);
  if (mbd_tree_build_ex(m, d, cut, ncut, 1, 0, &mr, &err) != MBD_OK) {
    fail_msg("%s: %s", what, err.msg);
  }
  assert_int_equal(md->nv, mr->nv);
  assert_int_equal(md->mrow, mr->mrow);
  assert_int_equal(md->ma0, mr->ma0);
  mbd_data *dd = mbd_data_alloc(md, &err), *dr = mbd_data_alloc(mr, &err);
  assert_non_null(dd);
  assert_non_null(dr);
  assert_null(dr->poseJ);  // the recursive data hold no Jacobians over every coordinate
  int n = mr->nv, mrow = mr->mrow;
  unsigned seed = 11;
  for (int trial = 0; trial < 5; trial++) {
    mbd_data_reset(md, dd);
    mbd_data_reset(mr, dr);
    random_state(mr, &seed, dd->q, dd->v);
    memcpy(dr->q, dd->q, (size_t)n * sizeof(double));
    memcpy(dr->v, dd->v, (size_t)n * sizeof(double));
    dd->t = dr->t = 0.1 * trial;
    assert_int_equal(mbd_eval_anew(md, dd, MBD_STAGE_VELOCITY, &err), MBD_OK);
    assert_int_equal(mbd_forces_eval(md, dd, &err), MBD_OK);
    if (mbd_dynamics_augmented(md, dd, dd->gamma_a, &err) != MBD_OK) {
      fail_msg("%s, dense: %s", what, err.msg);
    }
    assert_int_equal(mbd_eval_anew(mr, dr, MBD_STAGE_VELOCITY, &err), MBD_OK);
    assert_int_equal(mbd_forces_eval(mr, dr, &err), MBD_OK);
    if (mbd_relative_aba(mr, dr, dr->gamma_a, MBD_DERIV_LAMBDA, &err) != MBD_OK) {
      fail_msg("%s, recursive: %s", what, err.msg);
    }
    assert_int_equal(dd->ma, dr->ma);
    double sphi = fmax(1, amax(dd->phi, mrow)), sg = fmax(1, amax(dd->gamma, mrow));
    double sq = fmax(1, amax(dd->phiq, mrow * n));
    for (int r = 0; r < mrow; r++) {
      MBD_ASSERT_NEAR(dr->phi[r], dd->phi[r], 1e-12 * sphi);
      MBD_ASSERT_NEAR(dr->gamma[r], dd->gamma[r], 1e-12 * sg);
      for (int c = 0; c < n; c++) {
        MBD_ASSERT_NEAR(MBD_AT(dr->phiq, mrow, r, c), MBD_AT(dd->phiq, mrow, r, c), 1e-12 * sq);
      }
    }
    double sa = fmax(1e-3, amax(dd->vdot, n)), sl = fmax(1e-3, amax(dd->lambda, mrow));
    for (int c = 0; c < n; c++) {
      if (!(fabs(dr->vdot[c] - dd->vdot[c]) <= 1e-10 * loose * sa)) {
        char nm[96];
        mbd_model_coord_name(mr, c, nm, sizeof nm);
        fail_msg("%s, state %d: %s'' = %.15g recursive, %.15g dense (scale %g)", what, trial, nm,
                 dr->vdot[c], dd->vdot[c], sa);
      }
    }
    for (int r = 0; r < mrow; r++) {
      if (!(fabs(dr->lambda[r] - dd->lambda[r]) <= 1e-9 * loose * sl)) {
        char nm[160];
        mbd_model_row_name(mr, r, nm, sizeof nm);
        fail_msg("%s, state %d: λ of %s = %.15g recursive, %.15g dense (scale %g)", what, trial,
                 nm, dr->lambda[r], dd->lambda[r], sl);
      }
    }
    // each body's Ÿ (the Cartesian accelerations of a sample) against J v̇ + h of the dense poses
    for (int b = 1; b < mr->nbody; b++) {
      const mbd_pose *ps = &dd->pose[b];
      for (int i = 0; i < ps->ny; i++) {
        double y = ps->h[i];
        for (int c = 0; c < n; c++) {
          y += MBD_AT(ps->J, ps->ny, i, c) * dd->vdot[c];
        }
        MBD_ASSERT_NEAR(dr->trec[b].a[i], y, 1e-10 * loose * fmax(1, fabs(y)) * sa);
      }
    }
  }
  mbd_data_free(dd);
  mbd_data_free(dr);
  mbd_data_free(d);
  mbd_model_free(md);
  mbd_model_free(mr);
}

static void check_aba(mbd_model *m, const char *const *cut, int ncut, const char *what) {
  check_aba_tol(m, cut, ncut, what, 1);
}

static void test_aba_accelerations(void **state) {
  (void)state;
  struct {
    mbd_model *m;
    const char *what;
  } cases[] = {
      {chain2(12), "planar chain"},
      {chain3(12), "spatial chain"},
      {branched3(), "branched tree (spherical hub)"},
      {floating_base(), "floating base"},
      {every_kind3(), "every joint kind, spatial"},
      {every_kind2(), "every joint kind, planar"},
      {fourbar(), "four-bar (cut revolute)"},
      {slider_crank(), "slider-crank (cut translational)"},
      {spatial_fourbar(5), "spatial four-bar (cut spherical)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    check_aba(cases[k].m, NULL, 0, cases[k].what);
    mbd_model_free(cases[k].m);
  }
  // chains of 12 rods on spherical joints (and on a floating joint): in Euler-parameter rates
  // the rate along e carries the subtree's inertia dilated about the joint (Σ m r² ≈ N³/3),
  // against 0.001 about a rod's axis, so both solves lose ~1e-16 × 6e5 of v̇'s scale (measured
  // 1.3e-10): bound ten times that
  for (int free = 0; free < 2; free++) {
    mbd_model *ms = sph_chain3(12, free);
    check_aba_tol(ms, NULL, 0, free ? "free spherical chain" : "spherical chain", 10);
    mbd_model_free(ms);
  }
  // the spatial four-bar cut at its universal joint: the spherical joint's Euler parameters
  // and their norm stay in the tree (the local row of the recursion) beside a cut universal
  mbd_model *m = spatial_fourbar(5);
  const char *cut[] = {"J2"};
  check_aba(m, cut, 1, "spatial four-bar cut at J2");
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* agreement with the Cartesian augmented formulation                                          */

/* every channel of the relative run (each solver) against Cartesian augmented at rtol = atol =
 * 1e-11 over 1 s: each run's global error is ~1e-9 on O(1) positions, so two agree within 1e-8
 * (the bound); velocities to 1e-8 of their scale; reactions come from accelerations
 * (the integrators' step sequences differ), to 1e-6 relative. */
static void check_agree(mbd_model *(*make)(void), const char *what, int nsolver) {
  const int solvers[4] = {MBD_FORM_BAUMGARTE, MBD_FORM_AUGMENTED, MBD_FORM_KANE, MBD_FORM_GCP};
  const int linsolve[2] = {MBD_LINSOLVE_DENSE, MBD_LINSOLVE_RECURSIVE};
  mbd_model *m = make();
  mbd_run *ref = simulate(m, MBD_FORM_AUGMENTED, 0, 1, 1e-11);
  for (int l = 0; l < 2; l++) {
    g_linsolve = linsolve[l];
    for (int s = 0; s < nsolver; s++) {
      mbd_run *r = simulate(m, MBD_FORM_RELATIVE, solvers[s], 1, 1e-11);
      assert_string_equal(mbd_run_formulation(r), "relative");
      assert_int_equal(mbd_run_get_stats(r)->linear_solver, linsolve[l]);
      char w[128];
      snprintf(w, sizeof w, "%s (relative, %s, %s)", what, mbd_formulation_name(solvers[s]),
               mbd_linear_solver_name(linsolve[l]));
      agree(r, ref, 1e-8, 1e-8, 1e-6, w);
      mbd_run_free(r);
    }
  }
  g_linsolve = MBD_LINSOLVE_AUTO;
  mbd_run_free(ref);
  mbd_model_free(m);
}

static void test_agree_planar(void **state) {
  (void)state;
  check_agree(fourbar, "four-bar", 4);
  check_agree(slider_crank, "slider-crank", 4);
}

static void test_agree_spatial(void **state) {
  (void)state;
  check_agree(floating_base, "floating base", 4);
}

static mbd_model *spatial_fourbar_damped(void) { return spatial_fourbar(5); }

static void test_agree_spatial_loop(void **state) {
  (void)state;
  check_agree(spatial_fourbar_damped, "spatial four-bar", 4);
}

/* the spatial four-bar without damping keeps its energy: the paper's CVSM (α = 199.94,
 * β = 282.8) at rtol = 1e-10 over 3 s.  Measured drift 9e-8 J (the links swing through tens of
 * joules of potential energy); bound 1e-6 J, ten times that: a wrong term in ḡ or M̄ moves the
 * energy by whole joules */
static mbd_model *spatial_fourbar_free(void) { return spatial_fourbar(0); }

static void test_energy(void **state) {
  (void)state;
  mbd_model *m = spatial_fourbar_free();
  mbd_run *r = simulate(m, MBD_FORM_RELATIVE, MBD_FORM_BAUMGARTE, 3, 1e-10);
  int e = mbd_run_find(r, "energy");
  assert_true(e >= 0);
  double e0 = mbd_run_sample(r, e, 0), worst = 0;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    worst = fmax(worst, fabs(mbd_run_sample(r, e, i) - e0));
  }
  assert_true(worst < 1e-6);
  // the joint angle does move (the test is not of a mechanism at rest): J1 swings > 0.1 rad
  int a = mbd_run_find(r, "J1.angle");
  double amax = 0;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    amax = fmax(amax, fabs(mbd_run_sample(r, a, i)));
  }
  assert_true(amax > 0.1);
  mbd_run_free(r);
  mbd_model_free(m);
}

/* long chains on spherical joints (issue 24): each Euler-parameter joint's rate along its own
 * parameters only changes their norm, which the norm row fixes; along it the joint's inertia is
 * that of the whole subtree dilated about the joint, so it grows as the subtree's mass times its
 * extent squared (~N³) while the three rotations' articulated inertia stays bounded.  Before, the
 * joint's bordered matrix was inverted with a pivot test relative to its largest entry, and a
 * chain of 192 rods stopped at t = 0 ("articulated inertia without a pivot at j24.e0").
 *
 * Agreement: 24 rods, relative recursive against Cartesian kane, every channel over 1 s at
 * rtol = atol = 1e-12: measured 4e-9, kane's own global error (3.7e-9 against itself at 1e-13;
 * the two agree to 2e-10 at 1e-13); bound 2e-8.  A floating joint takes the same path (the free
 * chain). */
static mbd_model *sph_chain24(void) { return sph_chain3(24, 0); }
static mbd_model *sph_chain24_free(void) { return sph_chain3(24, 1); }

static void agree_with_kane(mbd_model *(*make)(void), const char *what) {
  mbd_model *m = make();
  mbd_run *ref = simulate(m, MBD_FORM_KANE, 0, 1, 1e-12);
  g_linsolve = MBD_LINSOLVE_RECURSIVE;
  mbd_run *r = simulate(m, MBD_FORM_RELATIVE, 0, 1, 1e-12);
  g_linsolve = MBD_LINSOLVE_AUTO;
  assert_int_equal(mbd_run_get_stats(r)->linear_solver, MBD_LINSOLVE_RECURSIVE);
  agree(r, ref, 2e-8, 2e-8, 1e-6, what);
  mbd_run_free(r);
  mbd_run_free(ref);
  mbd_model_free(m);
}

static void test_spherical_chain_agree(void **state) {
  (void)state;
  agree_with_kane(sph_chain24, "24-rod spherical chain (relative recursive vs kane)");
  agree_with_kane(sph_chain24_free, "24-rod free spherical chain (relative recursive vs kane)");
}

/* Energy: 256 rods (and the free chain of 256: its first rod on a floating joint), recursive,
 * 0.1 s at rtol = atol = 1e-10; the rods' energy is ~4e5 J (potential, against the origin's
 * height; kinetic ~1e4 J).  Measured drift ≤ 1e-6 J; the bound 1e-4 J is a relative change
 * of 2.5e-10 (a wrong term of the recursion moves it by joules).  The tip moves by more than
 * 5 cm (the chain is not at rest). */
static void energy_drift(mbd_model *m, const char *what) {
  g_linsolve = MBD_LINSOLVE_RECURSIVE;
  mbd_run *r = simulate(m, MBD_FORM_RELATIVE, 0, 0.1, 1e-10);
  g_linsolve = MBD_LINSOLVE_AUTO;
  int e = mbd_run_find(r, "energy"), x = mbd_run_find(r, "l256.y");
  assert_true(e >= 0 && x >= 0);
  double e0 = mbd_run_sample(r, e, 0), worst = 0;
  for (int i = 0; i < mbd_run_nsample(r); i++) {
    worst = fmax(worst, fabs(mbd_run_sample(r, e, i) - e0));
  }
  if (!(worst < 1e-4)) {
    fail_msg("%s: energy moved by %g J", what, worst);
  }
  int last = mbd_run_nsample(r) - 1;
  assert_true(fabs(mbd_run_sample(r, x, last) - mbd_run_sample(r, x, 0)) > 0.05);
  mbd_run_free(r);
}

static void test_spherical_chain_long(void **state) {
  (void)state;
  for (int free = 0; free < 2; free++) {
    mbd_model *m = sph_chain3(256, free);
    energy_drift(m, free ? "256-rod free spherical chain" : "256-rod spherical chain");
    mbd_model_free(m);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* bad input                                                                                   */

static void test_bad_input(void **state) {
  (void)state;
  mbd_model *m = fourbar();
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_RELATIVE;
  const char *cut[] = {"nope"};
  o.cut = cut;
  o.ncut = 1;
  mbd_run *r = NULL;
  mbd_error err;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_INPUT, MSG_FORM_REL_CUT, "nope",
                   "four-bar");
  assert_null(r);
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_RELATIVE;
  o.solver = MBD_FORM_UK;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_INPUT, MSG_FORM_REL_SOLVER,
                   "udwadia_kalaba");
  mbd_sim_opts_default(&o);
  o.formulation = MBD_FORM_RELATIVE;
  o.code = 7;
  mbd_error_clear(&err);
  MBD_EXPECT_ERROR(mbd_simulate(m, &o, &r, &err), &err, MBD_E_INPUT, MSG_FORM_REL_CODE, 7);
  mbd_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tree_choice),   cmocka_unit_test(test_pose_jacobians),
      cmocka_unit_test(test_tree_start),    cmocka_unit_test(test_aba_accelerations),
      cmocka_unit_test(test_agree_planar),
      cmocka_unit_test(test_agree_spatial), cmocka_unit_test(test_agree_spatial_loop),
      cmocka_unit_test(test_energy),        cmocka_unit_test(test_spherical_chain_agree),
      cmocka_unit_test(test_spherical_chain_long), cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
