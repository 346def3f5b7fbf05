/* mechanisms shared by the tests of relative joint coordinates (test_relative.c) and of the
 * generated equations (test_codegen.c): body and joint helpers, paper 000's four-bar and spatial
 * four-bar, a planar slider-crank, a floating base, and chains through every tree joint kind. */
#ifndef MBD_RELATIVE_MODELS_H
#define MBD_RELATIVE_MODELS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/kinematics/tree.h"
#include "model_build.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static inline int body3(mbd_model *m, const char *name, double mass, double ixx, double iyy,
                        double izz, const double *pos, const double *rot, const double *vel,
                        const double *omega) {
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
  return test_add_body(m, &s);
}

static inline int body2(mbd_model *m, const char *name, double mass, double izz, double x, double y,
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
  return test_add_body(m, &s);
}

static inline int joint(mbd_model *m, const char *name, int type, int b1, const double *at1, int b2,
                        const double *at2, const double *ax1, const double *ax2) {
  return test_joint(m, name, type, b1, at1, b2, at2, ax1, ax2);
}

static inline void rot_axis(const double *axis, double angle, double *p) {
  double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  p[0] = cos(angle / 2);
  for (int k = 0; k < 3; k++) {
    p[1 + k] = sin(angle / 2) * axis[k] / n;
  }
}

static inline double urand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 - 0.5;
}

/* ------------------------------------------------------------------------------------------ */
/* mechanisms                                                                                  */

/* paper 000's four-bar (case II, l0 = 1.9) with gravity: every link 2 m, CM in the middle */
static inline mbd_model *fourbar(void) {
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
static inline mbd_model *slider_crank(void) {
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
  mbd_spring_spec s = {
      .name = "k", .body1 = 0, .at1 = {0.6, 0}, .body2 = slider, .k = 100, .c = 0.5, .length = 0.2};
  assert_true(mbd_model_add_spring(m, &s, &err) >= 0);
  return m;
}

/* paper 000's spatial four-bar (example 3, the geometry of examples/spatial_fourbar.lua):
 * revolute – universal – spherical – revolute, the last declared with the ground as body2 */
static inline mbd_model *spatial_fourbar(double damping) {
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
static inline mbd_model *floating_base(void) {
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

/* a chain through every tree joint kind (spatial): ground –cylindrical→ a –universal→ b
 * –spherical→ c –translational→ e –fixed→ f; a revolute declared from its child to the ground
 * (g, inverted in the tree); a free body (h) */
static inline mbd_model *every_kind3(void) {
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
static inline mbd_model *every_kind2(void) {
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

/* a planar pendulum chain of n links hanging from the origin (1 m, 1 kg, CM in the middle),
 * released at 0.3 rad from the vertical: the benchmark chain of scripts/bench/recursive.lua */
static inline mbd_model *chain2(int n) {
  mbd_error err;
  mbd_model *m = mbd_model_new("planar chain", 2, &err);
  double g[2] = {0, -9.81};
  mbd_model_set_gravity(m, g);
  double a = -M_PI / 2 + 0.3, x = 0, y = 0, at_prev[3] = {0, 0, 0}, at2[3] = {-0.5, 0, 0};
  int prev = 0;
  for (int i = 1; i <= n; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "l%d", i);
    int b = body2(m, nm, 1, 1.0 / 12, x + 0.5 * cos(a), y + 0.5 * sin(a), a, 0);
    snprintf(nm, sizeof nm, "j%d", i);
    joint(m, nm, MBD_JOINT_REVOLUTE, prev, at_prev, b, at2, NULL, NULL);
    x += cos(a);
    y += sin(a);
    prev = b;
    at_prev[0] = 0.5;
  }
  return m;
}

/* a spatial chain of n revolute links (1 m along body x, 1 kg, inertia (0.01, 1/12, 1/12)) hanging
 * from the origin along a slanted line, the joint axes alternately the links' y and z: gravity
 * moves it out of every plane */
static inline mbd_model *chain3(int n) {
  mbd_error err;
  mbd_model *m = mbd_model_new("spatial chain", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  // the links' x along d = (1, 0.3, −0.5)/|d|: the rotation taking (1,0,0) to d
  double d[3] = {1, 0.3, -0.5}, nd = sqrt(1 + 0.09 + 0.25);
  for (int k = 0; k < 3; k++) {
    d[k] /= nd;
  }
  double ax[3] = {0, -d[2], d[1]}, p[4];  // (1,0,0) × d
  rot_axis(ax, acos(d[0]), p);
  double at_prev[3] = {0, 0, 0}, at2[3] = {-0.5, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
  int prev = 0;
  for (int i = 1; i <= n; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "l%d", i);
    double pos[3] = {(i - 0.5) * d[0], (i - 0.5) * d[1], (i - 0.5) * d[2]};
    int b = body3(m, nm, 1, 0.01, 1.0 / 12, 1.0 / 12, pos, p, NULL, NULL);
    snprintf(nm, sizeof nm, "j%d", i);
    const double *axis = i % 2 ? ey : ez;
    // the first joint's axis on the ground: the link's axis seen globally
    double A[9], ag[3];
    mbd_ep_A(p, A);
    for (int r = 0; r < 3; r++) {
      ag[r] = A[3 * r] * axis[0] + A[3 * r + 1] * axis[1] + A[3 * r + 2] * axis[2];
    }
    joint(m, nm, MBD_JOINT_REVOLUTE, prev, at_prev, b, at2, prev ? axis : ag, axis);
    prev = b;
    at_prev[0] = 0.5;
  }
  return m;
}

/* a branched spatial tree: a hub on a spherical joint below the origin, three arms of two links
 * each (a revolute then a universal joint), a rotational spring at one shoulder and a force at a
 * hand; spinning about the vertical */
static inline mbd_model *branched3(void) {
  mbd_error err;
  mbd_model *m = mbd_model_new("branched tree", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  double hp[3] = {0, 0, -0.5}, w[3] = {0, 0, 2}, o[3] = {0, 0, 0}, top[3] = {0, 0, 0.5};
  int hub = body3(m, "hub", 4, 0.2, 0.2, 0.3, hp, NULL, NULL, w);
  joint(m, "S", MBD_JOINT_SPHERICAL, 0, o, hub, top, NULL, NULL);
  for (int k = 0; k < 3; k++) {
    double c = cos(2 * M_PI * k / 3), sn = sin(2 * M_PI * k / 3);
    double q[4], z[3] = {0, 0, 1};
    rot_axis(z, 2 * M_PI * k / 3, q);
    char nm[32];
    double p1[3] = {0.6 * c, 0.6 * sn, -0.5}, p2[3] = {1.2 * c, 1.2 * sn, -0.5};
    snprintf(nm, sizeof nm, "upper%d", k);
    int u = body3(m, nm, 1, 0.01, 0.03, 0.03, p1, q, NULL, NULL);
    snprintf(nm, sizeof nm, "lower%d", k);
    int l = body3(m, nm, 0.5 + 0.2 * k, 0.005, 0.02, 0.02, p2, q, NULL, NULL);
    double rim[3] = {0.3 * c, 0.3 * sn, 0}, in[3] = {-0.3, 0, 0}, out[3] = {0.3, 0, 0};
    double tang[3] = {-sn, c, 0}, ty[3] = {0, 1, 0}, tz[3] = {0, 0, 1};
    snprintf(nm, sizeof nm, "shoulder%d", k);
    int sh = joint(m, nm, MBD_JOINT_REVOLUTE, hub, rim, u, in, tang, ty);
    snprintf(nm, sizeof nm, "elbow%d", k);
    joint(m, nm, MBD_JOINT_UNIVERSAL, u, out, l, in, ty, tz);
    if (k == 0) {
      assert_true(mbd_model_add_rotational_spring(m, sh, 5, 0.1, 0.2, &err) >= 0);
    }
    if (k == 2) {
      mbd_force_spec f = {.body = l, .at = {0.3, 0, 0}, .value = {0, 1, 2}};
      assert_true(mbd_model_add_force(m, &f, &err) >= 0);
    }
  }
  return m;
}

/* n rods 1 m long on spherical joints (1 kg, CM in the middle, inertia (0.001, 1/12, 1/12) about
 * the rod's x axis and across it: the benchmarks' spatial chain, scripts/bench/chains.lua),
 * hanging from the origin 0.3 rad from the vertical with a sideways push and a spin about the
 * vertical; with free = 1 the first rod's joint to the ground is left out (the tree hangs the
 * chain from a floating joint) and the chain falls freely */
static inline mbd_model *sph_chain3(int n, int free) {
  mbd_error err;
  mbd_model *m = mbd_model_new(free ? "free spherical chain" : "spherical chain", 3, &err);
  double g[3] = {0, 0, -9.81};
  mbd_model_set_gravity(m, g);
  double a = 0.3, dir[3] = {sin(a), 0, -cos(a)}, ey[3] = {0, 1, 0}, p[4];
  // body x along dir: a rotation about y by π/2 − a
  rot_axis(ey, M_PI / 2 - a, p);
  double at_prev[3] = {0, 0, 0}, at2[3] = {-0.5, 0, 0};
  int prev = 0;
  for (int i = 1; i <= n; i++) {
    char nm[32];
    double c = i - 0.5;
    double pos[3] = {c * dir[0], c * dir[1], c * dir[2]}, vel[3] = {0, 0.5 * c, 0};
    double w[3] = {0.5 * cos(a), 0, 0.5 * sin(a)};
    snprintf(nm, sizeof nm, "l%d", i);
    int b = body3(m, nm, 1, 0.001, 1.0 / 12, 1.0 / 12, pos, p, vel, w);
    if (i > 1 || !free) {
      snprintf(nm, sizeof nm, "j%d", i);
      joint(m, nm, MBD_JOINT_SPHERICAL, prev, at_prev, b, at2, NULL, NULL);
    }
    prev = b;
    at_prev[0] = 0.5;
  }
  return m;
}

#endif
