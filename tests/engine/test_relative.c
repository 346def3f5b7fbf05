/* the relative formulation (paper 002; engine/kinematics/tree.c, engine/formulations/relative.c):
 * the spanning tree and its cut joints, the pose Jacobians and quadratic terms of every tree
 * joint kind against finite differences, agreement of every channel with the Cartesian
 * augmented formulation (an open chain, closed loops planar and spatial with a cut revolute,
 * translational and spherical joint, a floating base), the solvers on the joint coordinates,
 * energy conservation, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/formulations/formulations_msg.h"
#include "../../engine/kinematics/tree.h"
#include "mbd/integrators.h"
#include "mbd/model.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static int body3(mbd_model *m, const char *name, double mass, double ixx, double iyy, double izz,
                 const double *pos, const double *rot, const double *vel, const double *omega) {
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.mass = mass;
  s.inertia[0] = ixx;
  s.inertia[1] = iyy;
  s.inertia[2] = izz;
  memcpy(s.pos, pos, 3 * sizeof(double));
  s.rot[0] = 1;
  if (rot) {
    memcpy(s.rot, rot, 4 * sizeof(double));
  }
  if (vel) {
    memcpy(s.vel, vel, 3 * sizeof(double));
  }
  if (omega) {
    memcpy(s.omega, omega, 3 * sizeof(double));
  }
  mbd_error err;
  mbd_error_clear(&err);
  int b = mbd_model_add_body(m, &s, &err);
  if (b < 0) {
    fail_msg("body %s: %s", name, err.msg);
  }
  return b;
}

static int body2(mbd_model *m, const char *name, double mass, double izz, double x, double y,
                 double angle, double omega) {
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.mass = mass;
  s.inertia[0] = izz;
  s.pos[0] = x;
  s.pos[1] = y;
  s.angle = angle;
  s.omega[0] = omega;
  mbd_error err;
  mbd_error_clear(&err);
  int b = mbd_model_add_body(m, &s, &err);
  if (b < 0) {
    fail_msg("body %s: %s", name, err.msg);
  }
  return b;
}

static int joint(mbd_model *m, const char *name, int type, int b1, const double *at1, int b2,
                 const double *at2, const double *ax1, const double *ax2) {
  mbd_joint_spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.type = type;
  s.body1 = b1;
  s.body2 = b2;
  if (at1) {
    memcpy(s.at1, at1, 3 * sizeof(double));
  }
  if (at2) {
    memcpy(s.at2, at2, 3 * sizeof(double));
  }
  if (ax1) {
    memcpy(s.axis1, ax1, 3 * sizeof(double));
    s.has_axis1 = 1;
  }
  if (ax2) {
    memcpy(s.axis2, ax2, 3 * sizeof(double));
    s.has_axis2 = 1;
  }
  mbd_error err;
  mbd_error_clear(&err);
  int j = mbd_model_add_joint(m, &s, &err);
  if (j < 0) {
    fail_msg("joint %s: %s", name, err.msg);
  }
  return j;
}

static void rot_axis(const double *axis, double angle, double *p) {
  double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  p[0] = cos(angle / 2);
  for (int k = 0; k < 3; k++) {
    p[1 + k] = sin(angle / 2) * axis[k] / n;
  }
}

static double urand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 - 0.5;
}

/* the tree model of m (assembled here) and a data for it at its assembled state */
static mbd_model *tree_of(mbd_model *m, const char *const *cut, int ncut) {
  mbd_error err;
  mbd_error_clear(&err);
  assert_int_equal(mbd_model_assemble(m, NULL, &err), MBD_OK);
  mbd_data *d = mbd_data_alloc(m, &err);
  assert_non_null(d);
  mbd_data_reset(m, d);
  assert_int_equal(mbd_kin_update(m, d, 0, &err), MBD_OK);
  mbd_model *mr = NULL;
  int rc = mbd_tree_build(m, d, cut, ncut, &mr, &err);
  if (rc != MBD_OK) {
    fail_msg("tree of %s: %s", m->name, err.msg);
  }
  mbd_data_free(d);
  return mr;
}

static mbd_run *simulate(mbd_model *m, int form, int solver, double t_end, double tol) {
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = t_end;
  o.formulation = form;
  o.solver = solver;
  o.rtol = o.atol = tol;
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
        fail_msg("%s: %s at t = %g: %.12g vs %.12g (tol %g)", what, nm, mbd_run_times(a)[i], x,
                 y, tol);
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* mechanisms                                                                                  */

/* paper 000's four-bar (case II, l0 = 1.9) with gravity: every link 2 m, CM in the middle */
static mbd_model *fourbar(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("four-bar", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  double l0 = 1.9, th1 = 1.1036;
  double A[2] = {2 * cos(th1), 2 * sin(th1)};
  double dx = l0 - A[0], dy = -A[1], dd = sqrt(dx * dx + dy * dy), h = sqrt(4 - dd * dd / 4);
  double B[2] = {A[0] + dx / 2 - h * dy / dd, A[1] + dy / 2 + h * dx / dd};
  int l1 = body2(m, "l1", 5, 10, A[0] / 2, A[1] / 2, th1, 0.3);
  int l2 = body2(m, "l2", 7, 20, (A[0] + B[0]) / 2, (A[1] + B[1]) / 2,
                 atan2(B[1] - A[1], B[0] - A[0]), 0);
  int l3 = body2(m, "l3", 9, 25, (B[0] + l0) / 2, B[1] / 2, atan2(B[1], B[0] - l0), 0);
  double mid[3] = {0, 0, 0}, left[3] = {-1, 0, 0}, right[3] = {1, 0, 0}, pc[3] = {l0, 0, 0};
  int o = joint(m, "O", MBD_JOINT_REVOLUTE, 0, mid, l1, left, NULL, NULL);
  joint(m, "A", MBD_JOINT_REVOLUTE, l1, right, l2, left, NULL, NULL);
  joint(m, "B", MBD_JOINT_REVOLUTE, l2, right, l3, right, NULL, NULL);
  joint(m, "C", MBD_JOINT_REVOLUTE, l3, left, 0, pc, NULL, NULL);
  assert_true(mbd_model_add_rotational_spring(m, o, 100, 0, 0.524, &err) >= 0);
  mbd_force_spec f = {.body = l2, .value = {80, 70}};
  assert_true(mbd_model_add_force(m, &f, &err) >= 0);
  return m;
}

/* a planar slider-crank closed by a translational joint, with a flag welded to the slider and a
 * spring on it (a fixed joint in the tree) */
static mbd_model *slider_crank(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("slider-crank", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  double r = 0.1, l = 0.3;
  int crank = body2(m, "crank", 1, 0.01, r / 2, 0, 0, 5);
  int rod = body2(m, "rod", 1, 0.02, r + l / 2, 0, 0, 0);
  int slider = body2(m, "slider", 2, 0.01, r + l, 0, 0, 0);
  int flag = body2(m, "flag", 0.3, 0.001, r + l, 0.1, 0.5, 0);
  double o[3] = {0, 0, 0}, c1[3] = {-r / 2, 0, 0}, c2[3] = {r / 2, 0, 0}, r1[3] = {-l / 2, 0, 0},
         r2[3] = {l / 2, 0, 0}, up[3] = {0, 0.1, 0}, x[3] = {1, 0, 0};
  joint(m, "O", MBD_JOINT_REVOLUTE, 0, o, crank, c1, NULL, NULL);
  joint(m, "A", MBD_JOINT_REVOLUTE, crank, c2, rod, r1, NULL, NULL);
  joint(m, "B", MBD_JOINT_REVOLUTE, rod, r2, slider, o, NULL, NULL);
  joint(m, "T", MBD_JOINT_TRANSLATIONAL, 0, o, slider, o, x, NULL);
  joint(m, "F", MBD_JOINT_FIXED, slider, up, flag, o, NULL, NULL);
  mbd_spring_spec s = {.name = "k", .body1 = 0, .at1 = {0.6, 0}, .body2 = slider, .k = 100,
                       .c = 0.5, .length = 0.2};
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  return m;
}

/* paper 000's spatial four-bar (example 3, the geometry of examples/spatial_fourbar.lua):
 * revolute – universal – spherical – revolute, the last declared with the ground as body2 */
static mbd_model *spatial_fourbar(double damping) {
  mbd_error err;
  mbd_model *m = mbd_model_new("spatial four-bar", 3, &err);
  double g[3] = {0, -9.81, 0};
  mbd_model_set_gravity(m, g);
  double r = 2, b1 = 6, b2 = 6, C[3] = {6, 1, 1}, A[3] = {0, 2, 0};
  // B = C + b2 (cos ψ, sin ψ, 0) with |B − A| = b1, ψ between 90° and 180° (bisection)
  double lo = M_PI / 2, hi = M_PI, B[3];
  for (int k = 0; k < 60; k++) {
    double psi = (lo + hi) / 2;
    B[0] = C[0] + b2 * cos(psi);
    B[1] = C[1] + b2 * sin(psi);
    B[2] = C[2];
    double dd = sqrt((B[0] - A[0]) * (B[0] - A[0]) + (B[1] - A[1]) * (B[1] - A[1]) +
                     (B[2] - A[2]) * (B[2] - A[2]));
    if (dd > b1) {
      lo = psi;
    } else {
      hi = psi;
    }
  }
  // link frames: body y along the link; link2's x across it, ⟂ global x; link3's x along z
  double u2[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, u3[3] = {B[0] - C[0], B[1] - C[1], 0};
  double n2 = sqrt(u2[0] * u2[0] + u2[1] * u2[1] + u2[2] * u2[2]);
  double n3 = sqrt(u3[0] * u3[0] + u3[1] * u3[1]);
  for (int k = 0; k < 3; k++) {
    u2[k] /= n2;
    u3[k] /= n3;
  }
  // link2: x = (1,0,0) × u2 normalized, y = u2; link3: x = z, y = u3
  double x2[3] = {0, -u2[2], u2[1]}, nx = sqrt(u2[1] * u2[1] + u2[2] * u2[2]);
  x2[1] /= nx;
  x2[2] /= nx;
  double z2[3] = {x2[1] * u2[2] - x2[2] * u2[1], x2[2] * u2[0] - x2[0] * u2[2],
                  x2[0] * u2[1] - x2[1] * u2[0]};
  double z3[3] = {u3[1], -u3[0], 0};  // x3 = (0,0,1), y3 = u3, z3 = x3 × y3
  double R2[9] = {x2[0], u2[0], z2[0], x2[1], u2[1], z2[1], x2[2], u2[2], z2[2]};
  double R3[9] = {0, u3[0], z3[0], 0, u3[1], z3[1], 1, u3[2], z3[2]};
  double p2[4], p3[4];
  const double *Rs[2] = {R2, R3};
  double *ps[2] = {p2, p3};
  for (int k = 0; k < 2; k++) {
    const double *R = Rs[k];
    double *p = ps[k];
    // rotation matrix → Euler parameters (trace form; the traces here are large enough)
    double tr = R[0] + R[4] + R[8];
    double w = sqrt(fmax(0, 1 + tr)) / 2;
    if (w > 0.1) {
      p[0] = w;
      p[1] = (R[7] - R[5]) / (4 * w);
      p[2] = (R[2] - R[6]) / (4 * w);
      p[3] = (R[3] - R[1]) / (4 * w);
    } else {
      // the largest diagonal
      int i = R[0] > R[4] ? (R[0] > R[8] ? 0 : 2) : (R[4] > R[8] ? 1 : 2);
      int j = (i + 1) % 3, k2 = (i + 2) % 3;
      double s = sqrt(fmax(0, 1 + R[4 * i] - R[4 * j] - R[4 * k2])) * 2;
      p[0] = (R[3 * k2 + j] - R[3 * j + k2]) / s;
      p[1 + i] = s / 4;
      p[1 + j] = (R[3 * j + i] + R[3 * i + j]) / s;
      p[1 + k2] = (R[3 * k2 + i] + R[3 * i + k2]) / s;
    }
  }
  double zero[3] = {0, 0, 0};
  double m2[3] = {(A[0] + B[0]) / 2, (A[1] + B[1]) / 2, (A[2] + B[2]) / 2};
  double m3[3] = {(C[0] + B[0]) / 2, (C[1] + B[1]) / 2, (C[2] + B[2]) / 2};
  int l1 = body3(m, "link1", 2, 4, 2, 2, zero, NULL, NULL, NULL);
  int l2 = body3(m, "link2", 1, 12.4, 0.01, 12.4, m2, p2, NULL, NULL);
  int l3 = body3(m, "link3", 1, 4.54, 0.01, 4.54, m3, p3, NULL, NULL);
  double ex[3] = {1, 0, 0}, ez[3] = {0, 0, 1}, rim[3] = {0, r, 0}, lo2[3] = {0, -b1 / 2, 0},
         hi2[3] = {0, b1 / 2, 0}, hi3[3] = {0, b2 / 2, 0}, lo3[3] = {0, -b2 / 2, 0};
  int j1 = joint(m, "J1", MBD_JOINT_REVOLUTE, 0, zero, l1, zero, ex, ex);
  joint(m, "J2", MBD_JOINT_UNIVERSAL, l1, rim, l2, lo2, ex, ex);
  joint(m, "J3", MBD_JOINT_SPHERICAL, l2, hi2, l3, hi3, NULL, NULL);
  joint(m, "J4", MBD_JOINT_REVOLUTE, l3, lo3, 0, C, ex, ez);
  assert_true(mbd_model_add_rotational_spring(m, j1, 1, damping, 0, &err) >= 0);
  return m;
}

/* a free box (floating base) carrying a pendulum on a revolute joint, spinning, in gravity */
static mbd_model *floating_base(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("floating base", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  double ax[3] = {1, 1, 0}, p[4];
  rot_axis(ax, 0.3, p);
  double pb[3] = {0, 0, 1}, vb[3] = {0.5, 0, 2}, wb[3] = {0.3, 1.2, -0.7}, pp[3] = {0.5, 0, 1};
  int base = body3(m, "base", 3, 0.2, 0.3, 0.4, pb, p, vb, wb);
  int pend = body3(m, "pend", 1, 0.05, 0.01, 0.05, pp, p, NULL, NULL);
  double at1[3] = {0.2, 0, 0}, at2[3] = {-0.3, 0, 0}, z[3] = {0, 0, 1};
  joint(m, "R", MBD_JOINT_REVOLUTE, base, at1, pend, at2, z, z);
  return m;
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
  assert_int_equal(mr->nv, 3);   // three revolutes in the tree
  assert_int_equal(mr->mrow, 2); // the cut revolute's two rows
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
  assert_int_equal(mr->nv, 4);   // J1, J4 (1 each), J2 (2)
  assert_int_equal(mr->mrow, 3);
  // J4 runs from the ground (its body2) to link3 (its body1): the tree inverts it
  const mbd_tree_joint *tj = &mr->tree->tj[mr->tree->body_tj[3]];
  assert_string_equal(mr->joint[tj->joint].name, "J4");
  assert_int_equal(tj->sigma, -1);
  mbd_model_free(mr);
  const char *cut2[] = {"J2"};
  mr = tree_of(m, cut2, 1);
  assert_int_equal(mr->nv, 6);   // J1, J4 and J3's four Euler parameters
  assert_int_equal(mr->mrow, 5); // the universal's four rows and J3's norm
  mbd_model_coord_name(mr, 3, nm, sizeof nm);
  assert_string_equal(nm, "J3.e1");
  mbd_model_free(mr);
  mbd_model_free(m);

  m = floating_base();
  mr = tree_of(m, NULL, 0);
  assert_int_equal(mr->tree->nfloat, 1);
  assert_int_equal(mr->tree->ncut, 0);
  assert_int_equal(mr->nv, 8);   // the base's seven coordinates and the revolute's angle
  mbd_model_coord_name(mr, 3, nm, sizeof nm);
  assert_string_equal(nm, "base.e0");
  mbd_model_free(mr);
  mbd_model_free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* pose Jacobians against finite differences                                                  */

/* a chain through every tree joint kind (spatial): ground –cylindrical→ a –universal→ b
 * –spherical→ c –translational→ e –fixed→ f; a revolute declared from its child to the ground
 * (g, inverted in the tree); a free body (h) */
static mbd_model *every_kind3(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("every kind", 3, &err);
  double q1[4], q2[4], q3[4], ax1[3] = {1, 2, 0.5}, ax2[3] = {0, 1, 1}, ax3[3] = {1, 0, 1};
  rot_axis(ax1, 0.4, q1);
  rot_axis(ax2, -0.7, q2);
  rot_axis(ax3, 1.1, q3);
  double pa[3] = {0.1, 0, 0.5}, pb[3] = {0.3, 0.2, 0.9}, pc[3] = {0.5, 0.5, 1.2},
         pe[3] = {0.8, 0.4, 1.5}, pf[3] = {1.0, 0.6, 1.4}, pg[3] = {-0.5, 0.2, 0},
         ph[3] = {2, 2, 2};
  int a = body3(m, "a", 1, 0.1, 0.2, 0.15, pa, q1, NULL, NULL);
  int b = body3(m, "b", 1, 0.1, 0.2, 0.15, pb, q2, NULL, NULL);
  int c = body3(m, "c", 1, 0.1, 0.2, 0.15, pc, q3, NULL, NULL);
  int e = body3(m, "e", 1, 0.1, 0.2, 0.15, pe, q1, NULL, NULL);
  int f = body3(m, "f", 1, 0.1, 0.2, 0.15, pf, q2, NULL, NULL);
  int gb = body3(m, "g", 1, 0.1, 0.2, 0.15, pg, q3, NULL, NULL);
  body3(m, "h", 1, 0.1, 0.2, 0.15, ph, q2, NULL, NULL);
  // joints at the bodies' current relative poses: the points where the two bodies' frames put
  // them (so assembly has nothing to move), axes seen consistently from both sides
  double s0[3] = {0, 0, 0}, z[3] = {0, 0, 1};
  double A1[9], s[3], w[3], d2[3];
  // cylindrical ground → a about global z through a's CM; in a's frame the axis is A_aᵀz
  double pz[4] = {q1[0], -q1[1], -q1[2], -q1[3]};
  mbd_ep_A(pz, A1);  // A_aᵀ
  for (int i = 0; i < 3; i++) {
    w[i] = A1[3 * i + 2];
  }
  joint(m, "cyl", MBD_JOINT_CYLINDRICAL, 0, pa, a, s0, z, w);
  // universal a → b at b's CM: axis1 on a (its x), axis2 on b ⟂ to it in the given poses
  double Aa[9], Ab[9];
  mbd_ep_A(q1, Aa);
  mbd_ep_A(q2, Ab);
  double xa[3] = {Aa[0], Aa[3], Aa[6]};  // a's x, global
  double t[3] = {0.3, -0.8, 0.5}, dt = xa[0] * t[0] + xa[1] * t[1] + xa[2] * t[2];
  for (int i = 0; i < 3; i++) {
    t[i] -= dt * xa[i];  // ⟂ xa, global
  }
  for (int i = 0; i < 3; i++) {
    w[i] = Ab[i] * t[0] + Ab[3 + i] * t[1] + Ab[6 + i] * t[2];  // in b's frame
    d2[i] = pb[i] - pa[i];
  }
  for (int i = 0; i < 3; i++) {
    s[i] = Aa[i] * d2[0] + Aa[3 + i] * d2[1] + Aa[6 + i] * d2[2];  // b's CM in a's frame
  }
  double xb[3] = {1, 0, 0};
  joint(m, "univ", MBD_JOINT_UNIVERSAL, a, s, b, s0, xb, w);
  // spherical b → c at c's CM
  for (int i = 0; i < 3; i++) {
    d2[i] = pc[i] - pb[i];
  }
  for (int i = 0; i < 3; i++) {
    s[i] = Ab[i] * d2[0] + Ab[3 + i] * d2[1] + Ab[6 + i] * d2[2];
  }
  joint(m, "sph", MBD_JOINT_SPHERICAL, b, s, c, s0, NULL, NULL);
  // translational c → e along c's y at e's CM (e's axis: the same global direction)
  double Ac[9], Ae[9];
  mbd_ep_A(q3, Ac);
  mbd_ep_A(q1, Ae);
  double yc[3] = {Ac[1], Ac[4], Ac[7]}, ye[3];
  for (int i = 0; i < 3; i++) {
    ye[i] = Ae[i] * yc[0] + Ae[3 + i] * yc[1] + Ae[6 + i] * yc[2];
    d2[i] = pe[i] - pc[i];
  }
  for (int i = 0; i < 3; i++) {
    s[i] = Ac[i] * d2[0] + Ac[3 + i] * d2[1] + Ac[6 + i] * d2[2];
  }
  double ey[3] = {0, 1, 0};
  joint(m, "trans", MBD_JOINT_TRANSLATIONAL, c, s, e, s0, ey, ye);
  joint(m, "weld", MBD_JOINT_FIXED, e, s0, f, s0, NULL, NULL);
  // revolute from g to the ground about g's z, at g's CM
  double Ag[9], zg[3];
  mbd_ep_A(q3, Ag);
  zg[0] = Ag[2];
  zg[1] = Ag[5];
  zg[2] = Ag[8];
  joint(m, "rev", MBD_JOINT_REVOLUTE, gb, s0, 0, pg, z, zg);
  return m;
}

/* planar: ground –revolute→ a –translational→ b –fixed→ c; a revolute from d to the ground; a
 * free body e */
static mbd_model *every_kind2(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("every kind", 2, &err);
  int a = body2(m, "a", 1, 0.1, 0.5, 0, 0.3, 0);
  int b = body2(m, "b", 1, 0.1, 1.0, 0.2, 0.3, 0);
  int c = body2(m, "c", 1, 0.1, 1.2, 0.5, 1.0, 0);
  int d = body2(m, "d", 1, 0.1, -1, 0, 2.0, 0);
  body2(m, "e", 1, 0.1, 3, 3, 0.2, 0);
  double o[3] = {0, 0, 0}, ax[3] = {1, 0, 0};
  // a's pivot at the origin: in a's frame the origin is at A_aᵀ(−0.5, 0)
  double pa[3] = {-0.5 * cos(0.3), 0.5 * sin(0.3), 0};
  joint(m, "rev", MBD_JOINT_REVOLUTE, 0, o, a, pa, NULL, NULL);
  // b slides along a's x through b's CM: b's CM in a's frame
  double dx = 0.5, dy = 0.2, cs = cos(0.3), sn = sin(0.3);
  double sb[3] = {cs * dx + sn * dy, -sn * dx + cs * dy, 0};
  joint(m, "trans", MBD_JOINT_TRANSLATIONAL, a, sb, b, o, ax, NULL);
  double sc[3] = {cs * 0.2 + sn * 0.3, -sn * 0.2 + cs * 0.3, 0};
  joint(m, "weld", MBD_JOINT_FIXED, b, sc, c, o, NULL, NULL);
  double pd[3] = {-1, 0, 0};
  joint(m, "back", MBD_JOINT_REVOLUTE, d, o, 0, pd, NULL, NULL);
  return m;
}

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
  double *Jvp = calloc((size_t)nb * 7, sizeof(double)), *Jvm = calloc((size_t)nb * 7, sizeof(double));
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
/* agreement with the Cartesian augmented formulation                                          */

/* every channel of the relative run (each solver) against Cartesian augmented at rtol = atol =
 * 1e-11 over 1 s: each run's global error is ~1e-9 on O(1) positions, so two agree within 1e-8
 * (the issue's bound); velocities to 1e-8 of their scale; reactions come from accelerations
 * (the integrators' step sequences differ), to 1e-6 relative. */
static void check_agree(mbd_model *(*make)(void), const char *what, int nsolver) {
  const int solvers[4] = {MBD_FORM_BAUMGARTE, MBD_FORM_AUGMENTED, MBD_FORM_KANE, MBD_FORM_GCP};
  mbd_model *m = make();
  mbd_run *ref = simulate(m, MBD_FORM_AUGMENTED, 0, 1, 1e-11);
  for (int s = 0; s < nsolver; s++) {
    mbd_run *r = simulate(m, MBD_FORM_RELATIVE, solvers[s], 1, 1e-11);
    assert_string_equal(mbd_run_formulation(r), "relative");
    char w[128];
    snprintf(w, sizeof w, "%s (relative, %s)", what, mbd_formulation_name(solvers[s]));
    agree(r, ref, 1e-8, 1e-8, 1e-6, w);
    mbd_run_free(r);
  }
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
      cmocka_unit_test(test_tree_choice),     cmocka_unit_test(test_pose_jacobians),
      cmocka_unit_test(test_tree_start),      cmocka_unit_test(test_agree_planar),
      cmocka_unit_test(test_agree_spatial),   cmocka_unit_test(test_agree_spatial_loop),
      cmocka_unit_test(test_energy),          cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
