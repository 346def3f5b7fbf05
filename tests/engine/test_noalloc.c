/* no allocation inside the integration loop (DESIGN.md "Engine rules", STYLE.md #4).
 *
 * The test is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, so every allocation made
 * by the engine's static libraries goes through the counters of alloc_count.h.  A force callback,
 * called inside every right-hand-side evaluation, samples the counter: from the second call on it
 * must never change, for each formulation and each integrator.  (The first call may come before the
 * run's set-up is complete: a system's start-up check evaluates its equations once.)  The
 * same holds for every formulation (udwadia_kalaba included) on a planar and a spatial model, and
 * for a coordinate-level system (paper 004) through its force function.  (SUNDIALS and OpenBLAS are
 * shared libraries and are not counted; SUNDIALS allocates its memory before the first step.) */
#include <stdlib.h>
#include <string.h>

#include "mbd/contact.h"
#include "mbd/fem.h"
#include "mbd/integrators.h"
#include "mbd/system.h"
#include "model_build.h"

#include "alloc_count.h"

typedef struct probe {
  long first;   /* allocations seen at the first call, −1 before it */
  long changed; /* calls that saw a different count */
  long calls;
  long skip;    /* calls before the baseline (0 taken as 1): set-up evaluations */
} probe;

/* sample the allocation counter: from call skip + 1 on (the second by default) it must not move */
static void sample(probe *p) {
  long base = p->skip > 0 ? p->skip : 1;
  if (p->calls == base) {
    p->first = allocations;
  } else if (p->calls > base && allocations != p->first) {
    p->changed++;
  }
  p->calls++;
}

/* a force that samples the allocation counter and returns zero */
static int sampling_force0(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                           mbd_error *err) {
  (void)t, (void)m, (void)d, (void)err;
  sample(ud);
  out[0] = out[1] = out[2] = 0;
  return 0;
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

/* paper 000's double pendulum with a sampling force at link 2's tip */
static mbd_model *double_pendulum(probe *p) {
  mbd_error err;
  int l1, l2;
  mbd_model *m = paper000_pendulum_links(&l1, &l2);
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

/* a force that samples the allocation counter: F_D = 10 N along x (paper 001's disk) */
static int sampling_push(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                         mbd_error *err) {
  (void)t, (void)m, (void)d, (void)err;
  sample(ud);
  out[0] = 10;
  out[1] = out[2] = 0;
  return 0;
}

/* paper 001's disk on a line, slipping with kinetic friction (the normal force's fixed point at
 * every evaluation) over 0.25 s, before it sticks at 0.31 s: no event */
static mbd_model *disk_slipping(probe *p) {
  mbd_error err;
  mbd_model *m = mbd_model_new("disk on a line", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_body_spec b = {.name = "disk", .mass = 3, .inertia = {2}, .pos = {0, 0.2}, .vel = {10, 0},
                     .omega = {-60}};
  int disk = mbd_model_add_body(m, &b, &err);
  mbd_force_spec f = {.body = disk, .fn = sampling_push, .ud = p};
  mbd_model_add_force(m, &f, &err);
  mbd_surface_spec s1 = {.name = "floor", .body = 0, .shape = MBD_SHAPE_LINE, .direction = {1, 0}};
  mbd_surface_spec s2 = {.name = "rim", .body = disk, .shape = MBD_SHAPE_CIRCLE, .radius = 0.2};
  int a = mbd_model_add_surface(m, &s1, &err), c = mbd_model_add_surface(m, &s2, &err);
  mbd_contact_spec cs = {.name = "c", .surface1 = a, .surface2 = c,
                         .friction = MBD_FRICTION_COULOMB, .mu = 0.3, .mu_static = 0.35};
  mbd_model_add_contact(m, &cs, &err);
  return m;
}

/* a ball rolling on a driven turntable (spatial rolling rows, no event) */
static int spin(void *ud, double t, double out[3], mbd_error *err) {
  (void)ud, (void)err;
  out[0] = 3 * t;
  out[1] = 3;
  out[2] = 0;
  return 0;
}

static mbd_model *ball_rolling(probe *p) {
  mbd_error err;
  mbd_model *m = mbd_model_new("ball on a turntable", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  mbd_body_spec bp = {.name = "plate", .mass = 50, .inertia = {10, 10, 15}, .rot = {1, 0, 0, 0},
                      .omega = {0, 0, 3}};
  int plate = mbd_model_add_body(m, &bp, &err);
  mbd_body_spec bb = {.name = "ball", .mass = 10, .inertia = {1, 1, 1}, .pos = {0.3, 0, 0.1},
                      .rot = {1, 0, 0, 0}, .vel = {0, 0.2, 0}, .omega = {7, 0, 0}};
  int ball = mbd_model_add_body(m, &bb, &err);
  mbd_joint_spec rv = {.name = "axis", .type = MBD_JOINT_REVOLUTE, .body1 = 0, .body2 = plate,
                       .axis1 = {0, 0, 1}, .axis2 = {0, 0, 1}, .has_axis1 = 1, .has_axis2 = 1};
  int j = mbd_model_add_joint(m, &rv, &err);
  mbd_model_add_drive(m, j, spin, NULL, &err);
  mbd_surface_spec s1 = {.name = "top", .body = plate, .shape = MBD_SHAPE_PLANE,
                         .normal = {0, 0, 1}};
  mbd_surface_spec s2 = {.name = "skin", .body = ball, .shape = MBD_SHAPE_SPHERE, .radius = 0.1};
  int a = mbd_model_add_surface(m, &s1, &err), c = mbd_model_add_surface(m, &s2, &err);
  mbd_contact_spec cs = {.name = "c", .surface1 = a, .surface2 = c,
                         .friction = MBD_FRICTION_COULOMB, .mu = 0.4, .mu_static = 0.5};
  mbd_model_add_contact(m, &cs, &err);
  mbd_force_spec f = {.body = ball, .fn = sampling_force0, .ud = p};
  mbd_model_add_force(m, &f, &err);
  return m;
}

static void run_model_t(mbd_model *(*make)(probe *), const char *what, double t_end, int nforms,
                        const int *forms, long skip);

/* the linear solver of the runs below (mbd_linear_solver; 0: auto) */
static int solver = MBD_LINSOLVE_AUTO;

/* a flexible pendulum (paper 003): a 2 m aluminium beam of 4 elements, its first two bending
 * modes (1.9 Hz and 12 Hz: rk4's step of 0.01 s resolves them), a revolute at node 1, the sampling
 * force at the tip node; spatial and planar */
static mbd_model *flexible(probe *p, int dim) {
  mbd_error err;
  mbd_beam_spec s = {.length = 2, .elements = 4, .E = 7e10, .G = 2.6e10, .rho = 2700,
                     .A = 1e-4, .Iy = 8.333e-10, .Iz = 8.333e-10, .J = 1.406e-9};
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  int fixed[1] = {1}, sel[2] = {1, 3};  // the first two bending-y modes (2, 4: bending-z)
  mbd_modes *mo = NULL;
  mbd_modal_set *set = NULL;
  mbd_fe_modes(fe, fixed, 1, 4, &mo, &err);
  mbd_modes_select(mo, sel, 2, NULL, 1, 0, &set, &err);
  mbd_model *m = mbd_model_new("flexible pendulum", dim, &err);
  double g[3] = {0, -9.81, 0};
  mbd_model_set_gravity(m, g);
  mbd_flex_spec fs = {.frame = {.name = "arm", .rot = {1, 0, 0, 0}},
                      .nnode = set->nnode,
                      .nmode = set->nmode,
                      .xyz = set->xyz,
                      .mass = set->mass,
                      .rot = set->rot,
                      .shape = set->shape,
                      .kmodal = set->kmodal};
  int fb = mbd_model_add_flexible_body(m, &fs, &err);
  mbd_joint_spec o = {.name = "O", .type = MBD_JOINT_REVOLUTE, .body1 = 0,
                      .body2 = mbd_model_flex_node(m, fb, 1), .axis1 = {0, 0, 1},
                      .axis2 = {0, 0, 1}, .has_axis1 = dim == 3, .has_axis2 = dim == 3};
  if (dim == 2) {
    o.axis1[2] = o.axis2[2] = 0;
  }
  mbd_model_add_joint(m, &o, &err);
  mbd_force_spec f = {.body = mbd_model_flex_node(m, fb, 5), .fn = sampling_force, .ud = p};
  mbd_model_add_force(m, &f, &err);
  mbd_modal_set_free(set);
  mbd_modes_free(mo);
  mbd_fe_free(fe);
  return m;
}

static mbd_model *flexible3(probe *p) { return flexible(p, 3); }
static mbd_model *flexible2(probe *p) { return flexible(p, 2); }

static void run_model(mbd_model *(*make)(probe *), const char *what, double t_end) {
  int forms[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_UK};
  // (3: formulations with root functions — augmented and baumgarte watch for singular
  // configurations — evaluate at the start before the integrator is made)
  run_model_t(make, what, t_end, 5, forms, 3);
}

static void run_model_t(mbd_model *(*make)(probe *), const char *what, double t_end, int nforms,
                        const int *forms, long skip) {
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  for (int fi = 0; fi < nforms; fi++) {
    for (int ii = 0; ii < 4; ii++) {
      probe p = {-1, 0, 0, skip};
      mbd_model *m = make(&p);
      mbd_sim_opts o;
      mbd_sim_opts_default(&o);
      o.t_end = t_end;
      o.formulation = forms[fi];
      o.ode.kind = ints[ii];
      o.ode.step = 0.01;
      o.output_every = 0.01;
      o.linear_solver = solver;
      mbd_run *r = NULL;
      mbd_error err;
      mbd_error_clear(&err);
      if (mbd_simulate(m, &o, &r, &err) != MBD_OK) {
        fail_msg("%s, %s + %s: %s", what, mbd_formulation_name(forms[fi]),
                 mbd_integrator_name(ints[ii]), err.msg);
      }
      // many evaluations, and not one allocation between the first and the last
      assert_true(p.calls > 20);
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

/* the sparse solve (formulations/linear_solver.c), asked for where auto would be dense: its patterns
 * are made with the data and analysed at the first evaluation (KLU's own objects, inside
 * SuiteSparse), nothing of the engine's allocates per evaluation; nor after a contact's switch,
 * whose new active rows are analysed again */
static void test_no_allocation_sparse(void **state) {
  (void)state;
  int cart[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE};
  int aug[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE};
  solver = MBD_LINSOLVE_SPARSE;
  run_model_t(double_pendulum, "planar double pendulum (sparse)", 5, 4, cart, 3);
  run_model_t(flexible3, "spatial flexible pendulum (sparse)", 1.5, 4, cart, 3);
  run_model_t(disk_slipping, "disk with its switch to rolling (sparse)", 1, 2, aug, 3);
  solver = MBD_LINSOLVE_AUTO;
}

static void test_no_allocation(void **state) {
  (void)state;
  run_model(double_pendulum, "planar double pendulum", 5);
  run_model(spatial_pendulum, "spatial double pendulum", 5);
  // 1.5 s: a flexible body's every evaluation is longer, and hundreds of them are enough
  run_model(flexible3, "spatial flexible pendulum", 1.5);
  run_model(flexible2, "planar flexible pendulum", 1.5);
}

/* contacts (paper 001): the contact point's Newton iteration, the normal force's fixed point
 * (a slipping disk) and rolling rows (a ball on a turntable) allocate nothing per evaluation; nor
 * do contact events for the formulations whose state keeps its size (augmented, baumgarte,
 * udwadia_kalaba: the disk's switch to rolling at 0.31 s within its first second; gcp and kane
 * resize their state there, which the integrator's restart allocates) */
static void test_no_allocation_contacts(void **state) {
  (void)state;
  int all[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_GCP, MBD_FORM_KANE, MBD_FORM_UK};
  int cart[] = {MBD_FORM_AUGMENTED, MBD_FORM_BAUMGARTE, MBD_FORM_UK};
  // the contacts' modes are checked before the integrator is made (two force evaluations: the
  // state, and the dynamics of the modes found): the baseline is the third call
  run_model_t(disk_slipping, "slipping disk", 0.25, 5, all, 3);
  run_model_t(ball_rolling, "ball on a turntable", 1, 5, all, 3);
  run_model_t(disk_slipping, "disk with its switch to rolling", 1, 3, cart, 3);
}

/* relative joint coordinates (paper 002): every solver on the joint coordinates, each integrator,
 * the numeric stages (the dense M̄ and the recursive solve) and the equations on the tape
 * (compiled code runs the same path) */
static void test_no_allocation_relative(void **state) {
  (void)state;
  int solvers[] = {MBD_FORM_BAUMGARTE, MBD_FORM_AUGMENTED, MBD_FORM_GCP, MBD_FORM_KANE};
  int ints[] = {MBD_INT_ADAMS, MBD_INT_BDF, MBD_INT_RK45, MBD_INT_RK4};
  mbd_model *(*makes[2])(probe *) = {double_pendulum, spatial_pendulum};
  for (int ci = 0; ci < 3; ci++) {
  for (int mi = 0; mi < 2; mi++) {
    for (int si = 0; si < 4; si++) {
      for (int ii = 0; ii < 4; ii++) {
        probe p = {-1, 0, 0, 3};  // (the start's evaluations: see run_model)
        mbd_model *m = makes[mi](&p);
        mbd_sim_opts o;
        mbd_sim_opts_default(&o);
        o.t_end = 2;
        o.formulation = MBD_FORM_RELATIVE;
        o.solver = solvers[si];
        o.code = ci == 1 ? MBD_CODE_TAPE : MBD_CODE_NUMERIC;
        o.linear_solver = ci == 2 ? MBD_LINSOLVE_RECURSIVE : MBD_LINSOLVE_DENSE;
        o.ode.kind = ints[ii];
        o.ode.step = 0.01;
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
    probe p = {-1, 0, 0, 0};
    assert_int_equal(mbd_system_set_force_fn(s, system_force, &p, &err), MBD_OK);
    mbd_sys_opts o;
    mbd_sys_opts_default(&o);
    o.t_end = 5;
    o.ode.kind = ints[ii];
    o.ode.rtol = o.ode.atol = 1e-8;
    o.ode.step = 0.01;
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
                                     cmocka_unit_test(test_no_allocation_contacts),
                                     cmocka_unit_test(test_no_allocation_system),
                                     cmocka_unit_test(test_no_allocation_relative),
                                     cmocka_unit_test(test_no_allocation_sparse)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
