/* body kinds: what a rigid body of each kind contributes — its pose from its coordinate block,
 * the vectors it carries (points and axes with their Jacobians), its mass matrix and the forces
 * of gravity and motion, the work of applied forces and torques, its energy.  The stages of
 * kinematics/ and forces.c dispatch through this table instead of forking on the dimension.
 *
 * planar (Haug ch. 3; Nikravesh ch. 5; paper 000 eq 42–44): Y = (x, y, θ), A = A(θ),
 *   ∂(A a)/∂θ = R90 A a, d²/dt²(A a) = R90 A a θ̈ − A a θ̇², M = diag(m, m, J).
 * spatial (Nikravesh ch. 6, 11; Haug ch. 9): Y = (r, p), A = A(p), ∂(A a)/∂p = B(p, a),
 *   d²/dt²(A a) = B(p, a) p̈ + B(ṗ, a) ṗ; from T = ½ω'ᵀJ'ω' = 2ṗᵀGᵀJ'Gṗ (ω' = 2Gṗ):
 *   M = diag(m I₃, 4GᵀJ'G), Q = [m g + ΣF; 2Gᵀn' + 8ĠᵀJ'Ġp], and 8ĠᵀJ'Ġp = −4ĠᵀJ'ω' carries the
 *   gyroscopic moment −ω̃'J'ω'.  4GᵀJ'G is singular along p; the normalization row pᵀp − 1 = 0 of
 *   the constraint set fixes that direction, so [M Φqᵀ; Φq 0] is regular. */
#include <math.h>
#include <string.h>

#include "model_impl.h"
#include "mbd/vec3.h"

/* ------------------------------------------------------------------------------------------ */
/* the ground: identity pose, constant vectors                                                 */

static void ground2_pose(const double *q, const double *v, mbd_pose *ps) {
  (void)q;
  (void)v;
  memset(ps, 0, sizeof *ps);  // θ = p[0] = 0
  ps->A[0] = ps->A[4] = ps->A[8] = 1;
  ps->vadr = -1;
}

static void ground3_pose(const double *q, const double *v, mbd_pose *ps) {
  ground2_pose(q, v, ps);
  ps->p[0] = 1;  // Euler parameters of the identity
}

static void ground_vec_add(const mbd_pose *ps, const double *a, double sign, int side, int point,
                           mbd_vec *o) {
  (void)ps;
  (void)side;
  (void)point;  // the ground's frame is the global frame: a point is its own position
  for (int i = 0; i < 3; i++) {
    o->v[i] += sign * a[i];
  }
}

/* ------------------------------------------------------------------------------------------ */
/* planar rigid body: Y = (x, y, θ)                                                            */

static const char *const coord2[] = {"x", "y", "theta"};
static const char *const omega2[] = {"omega"};

static void planar_pose(const double *q, const double *v, mbd_pose *ps) {
  // the rotation of the same angle as last time is still in place (A[8] = 1 marks a pose filled
  // here before): a Newton step that moves only positions needs no cosine and sine
  double c = ps->A[0], s = ps->A[3];
  if (ps->A[8] != 1 || q[2] != ps->p[0]) {
    c = cos(q[2]);
    s = sin(q[2]);
  }
  memset(ps, 0, sizeof *ps);
  ps->r[0] = q[0];
  ps->r[1] = q[1];
  ps->rd[0] = v[0];
  ps->rd[1] = v[1];
  ps->p[0] = q[2];
  ps->pd[0] = v[2];
  ps->A[0] = c;
  ps->A[1] = -s;
  ps->A[3] = s;
  ps->A[4] = c;
  ps->A[8] = 1;
  ps->w[2] = v[2];
}

static void planar_rates(const double *v, mbd_pose *ps) {
  ps->rd[0] = v[0];
  ps->rd[1] = v[1];
  ps->pd[0] = v[2];
  ps->w[2] = v[2];
}

/* A a = (c a0 − s a1, s a0 + c a1); its θ-derivative B a = R90 A a; rate (B a) ω; h = −A a ω² */
static void planar_vec_add(const mbd_pose *ps, const double *a, double sign, int side, int point,
                           mbd_vec *o) {
  const double *A = ps->A;
  double Aa[2] = {A[0] * a[0] + A[1] * a[1], A[3] * a[0] + A[4] * a[1]};
  double Ba[2] = {-Aa[1], Aa[0]};
  double w = ps->pd[0];
  int col = side * MBD_NY_MAX;
  for (int i = 0; i < 2; i++) {
    o->v[i] += sign * (Aa[i] + (point ? ps->r[i] : 0));
    o->vd[i] += sign * (Ba[i] * w + (point ? ps->rd[i] : 0));
    o->h[i] += sign * -(Aa[i] * w * w);
    if (point) {
      o->J[i][col + i] += sign;
    }
    o->J[i][col + 2] += sign * Ba[i];
  }
}

static void planar_inertia(const mbd_body *b, const double *g, const mbd_pose *ps, double *M,
                           int ldm, double *Q) {
  (void)ps;
  MBD_AT(M, ldm, 0, 0) = b->mass;
  MBD_AT(M, ldm, 1, 1) = b->mass;
  MBD_AT(M, ldm, 2, 2) = b->inertia[8];
  Q[0] += b->mass * g[0];
  Q[1] += b->mass * g[1];
}

/* F at s': [F; (B s')ᵀF], the moment of F about the CM */
static void planar_point_force(const mbd_pose *ps, const double *s, const double *F, double *Q) {
  const double *A = ps->A;
  double As0 = A[0] * s[0] + A[1] * s[1], As1 = A[3] * s[0] + A[4] * s[1];
  Q[0] += F[0];
  Q[1] += F[1];
  Q[2] += As0 * F[1] - As1 * F[0];
}

static void planar_torque(const mbd_pose *ps, const double *T, double *Q) {
  (void)ps;
  Q[2] += T[2];
}

static double planar_energy(const mbd_body *b, const double *g, const mbd_pose *ps) {
  double vx = ps->rd[0], vy = ps->rd[1], w = ps->pd[0];
  double e = 0.5 * b->mass * (vx * vx + vy * vy) + 0.5 * b->inertia[8] * w * w;
  return e - b->mass * (g[0] * ps->r[0] + g[1] * ps->r[1]);
}

static void planar_velocity0(const mbd_body *b, const double *q, double *v) {
  (void)q;
  for (int c = 0; c < 3; c++) {
    v[c] = b->v0[c];
  }
}

static void planar_moment(const mbd_pose *ps, const double *Qrot, double *n) {
  (void)ps;
  n[0] = n[1] = 0;
  n[2] = Qrot[0];
}

/* ------------------------------------------------------------------------------------------ */
/* spatial rigid body: Y = (r, p)                                                              */

static const char *const coord3[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
static const char *const omega3[] = {"wx", "wy", "wz"};

static void spatial_pose(const double *q, const double *v, mbd_pose *ps) {
  memset(ps, 0, sizeof *ps);
  memcpy(ps->r, q, 3 * sizeof(double));
  memcpy(ps->rd, v, 3 * sizeof(double));
  memcpy(ps->p, q + 3, 4 * sizeof(double));
  memcpy(ps->pd, v + 3, 4 * sizeof(double));
  mbd_ep_A(ps->p, ps->A);
  mbd_ep_omega(ps->p, ps->pd, ps->w);  // ω = 2Eṗ (global)
}

static void spatial_rates(const double *v, mbd_pose *ps) {
  memcpy(ps->rd, v, 3 * sizeof(double));
  memcpy(ps->pd, v + 3, 4 * sizeof(double));
  mbd_ep_omega(ps->p, ps->pd, ps->w);
}

/* A a: J = B(p, a) on the p columns, rate B(p, a)ṗ, h = B(ṗ, a)ṗ; a point adds r (J = I on r) */
static void spatial_vec_add(const mbd_pose *ps, const double *a, double sign, int side, int point,
                            mbd_vec *o) {
  double B[12], Bd[12];
  mbd_ep_B(ps->p, a, B);
  mbd_ep_B(ps->pd, a, Bd);
  int col = side * MBD_NY_MAX;
  for (int i = 0; i < 3; i++) {
    const double *Bi = B + 4 * i, *Bdi = Bd + 4 * i;
    double Aa = ps->A[3 * i] * a[0] + ps->A[3 * i + 1] * a[1] + ps->A[3 * i + 2] * a[2];
    double rate = Bi[0] * ps->pd[0] + Bi[1] * ps->pd[1] + Bi[2] * ps->pd[2] + Bi[3] * ps->pd[3];
    double h = Bdi[0] * ps->pd[0] + Bdi[1] * ps->pd[1] + Bdi[2] * ps->pd[2] + Bdi[3] * ps->pd[3];
    o->v[i] += sign * (Aa + (point ? ps->r[i] : 0));
    o->vd[i] += sign * (rate + (point ? ps->rd[i] : 0));
    o->h[i] += sign * h;
    if (point) {
      o->J[i][col + i] += sign;
    }
    for (int k = 0; k < 4; k++) {
      o->J[i][col + 3 + k] += sign * Bi[k];
    }
  }
}

/* body-frame angular velocity ω' = 2Gṗ */
static void omega_body(const double *p, const double *pd, double *w) {
  double G[12];
  mbd_ep_G(p, G);
  for (int i = 0; i < 3; i++) {
    w[i] = 2 * (G[4 * i] * pd[0] + G[4 * i + 1] * pd[1] + G[4 * i + 2] * pd[2] +
                G[4 * i + 3] * pd[3]);
  }
}

static void spatial_inertia(const mbd_body *b, const double *g, const mbd_pose *ps, double *M,
                            int ldm, double *Q) {
  const double *p = ps->p, *pd = ps->pd, *J = b->inertia;
  for (int i = 0; i < 3; i++) {
    MBD_AT(M, ldm, i, i) = b->mass;
    Q[i] += b->mass * g[i];
  }
  double G[12], JG[12];
  mbd_ep_G(p, G);
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 4; k++) {
      JG[4 * i + k] = J[3 * i] * G[k] + J[3 * i + 1] * G[4 + k] + J[3 * i + 2] * G[8 + k];
    }
  }
  // 4 Gᵀ J' G
  for (int k = 0; k < 4; k++) {
    for (int l = 0; l < 4; l++) {
      MBD_AT(M, ldm, 3 + k, 3 + l) = 4 * (G[k] * JG[l] + G[4 + k] * JG[4 + l] + G[8 + k] * JG[8 + l]);
    }
  }
  // 8 ĠᵀJ'Ġp = −4 G(ṗ)ᵀ J'ω'
  double w[3], Jw[3], Gd[12];
  omega_body(p, pd, w);
  for (int i = 0; i < 3; i++) {
    Jw[i] = J[3 * i] * w[0] + J[3 * i + 1] * w[1] + J[3 * i + 2] * w[2];
  }
  mbd_ep_G(pd, Gd);
  for (int k = 0; k < 4; k++) {
    Q[3 + k] -= 4 * (Gd[k] * Jw[0] + Gd[4 + k] * Jw[1] + Gd[8 + k] * Jw[2]);
  }
}

/* Q_p += 2 Gᵀ n' for a body-frame moment n' */
static void add_moment_body(const mbd_pose *ps, const double *nb, double *Q) {
  double G[12];
  mbd_ep_G(ps->p, G);
  for (int k = 0; k < 4; k++) {
    Q[3 + k] += 2 * (G[k] * nb[0] + G[4 + k] * nb[1] + G[8 + k] * nb[2]);
  }
}

/* a global force F at body point s': Q_r += F, n' = s' × AᵀF */
static void spatial_point_force(const mbd_pose *ps, const double *s, const double *F, double *Q) {
  const double *A = ps->A;
  double Fb[3], nb[3];
  for (int i = 0; i < 3; i++) {
    Q[i] += F[i];
    Fb[i] = A[i] * F[0] + A[3 + i] * F[1] + A[6 + i] * F[2];
  }
  mbd_cross3(s, Fb, nb);
  add_moment_body(ps, nb, Q);
}

/* a global torque T: n' = AᵀT */
static void spatial_torque(const mbd_pose *ps, const double *T, double *Q) {
  const double *A = ps->A;
  double nb[3];
  for (int i = 0; i < 3; i++) {
    nb[i] = A[i] * T[0] + A[3 + i] * T[1] + A[6 + i] * T[2];
  }
  add_moment_body(ps, nb, Q);
}

/* ½m|ṙ|² + ½ω'ᵀJ'ω' − m g·r */
static double spatial_energy(const mbd_body *b, const double *g, const mbd_pose *ps) {
  const double *v = ps->rd, *J = b->inertia;
  double w[3];
  omega_body(ps->p, ps->pd, w);
  double rot = 0;
  for (int i = 0; i < 3; i++) {
    rot += w[i] * (J[3 * i] * w[0] + J[3 * i + 1] * w[1] + J[3 * i + 2] * w[2]);
  }
  double e = 0.5 * b->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * rot;
  for (int i = 0; i < 3; i++) {
    e -= b->mass * g[i] * ps->r[i];
  }
  return e;
}

/* ṙ as given, ṗ = ½ Eᵀω from the given global ω (ω = 2Eṗ with E Eᵀ = I and E p = 0) */
static void spatial_velocity0(const mbd_body *b, const double *q, double *v) {
  double E[12];
  mbd_ep_E(q + 3, E);
  for (int i = 0; i < 3; i++) {
    v[i] = b->v0[i];
  }
  for (int k = 0; k < 4; k++) {
    v[3 + k] = 0.5 * (E[k] * b->v0[3] + E[4 + k] * b->v0[4] + E[8 + k] * b->v0[5]);
  }
}

/* Q_p = 2Gᵀn' ⇒ n' = ½ G Q_p (G Gᵀ = I, G p = 0); n = A n' */
static void spatial_moment(const mbd_pose *ps, const double *Qp, double *n) {
  double G[12], nb[3];
  mbd_ep_G(ps->p, G);
  for (int i = 0; i < 3; i++) {
    nb[i] = 0.5 * (G[4 * i] * Qp[0] + G[4 * i + 1] * Qp[1] + G[4 * i + 2] * Qp[2] +
                   G[4 * i + 3] * Qp[3]);
  }
  for (int i = 0; i < 3; i++) {
    n[i] = ps->A[3 * i] * nb[0] + ps->A[3 * i + 1] * nb[1] + ps->A[3 * i + 2] * nb[2];
  }
}

/* ------------------------------------------------------------------------------------------ */

/* what every planar (spatial) body and node shares: its pose coordinates and the operations on
 * points, forces and torques of a rigid frame; a block (nq, nv) only where the body owns one */
#define PLANAR_FRAME                                                                           \
  .ny = 3, .npos = 2, .coord = coord2, .nw = 1, .w0 = 2, .wname = omega2,                   \
  .vec_add = planar_vec_add, .point_force = planar_point_force, .torque = planar_torque,       \
  .moment = planar_moment
#define SPATIAL_FRAME                                                                          \
  .ny = 7, .npos = 3, .coord = coord3, .nw = 3, .w0 = 0, .wname = omega3,                   \
  .vec_add = spatial_vec_add, .point_force = spatial_point_force, .torque = spatial_torque,     \
  .moment = spatial_moment
#define PLANAR_BLOCK .nq = 3, .nv = 3, .nnorm = 0, .pose = planar_pose, .rates = planar_rates
#define SPATIAL_BLOCK .nq = 7, .nv = 7, .nnorm = 1, .pose = spatial_pose, .rates = spatial_rates

const mbd_body_kind_desc mbd_body_kinds[MBD_BODY_NKINDS] = {
    [MBD_BODY_GROUND2] = {.name = "ground", .ny = 0, .pose = ground2_pose, .vec_add = ground_vec_add},
    [MBD_BODY_GROUND3] = {.name = "ground", .ny = 0, .pose = ground3_pose, .vec_add = ground_vec_add},
    [MBD_BODY_RIGID2] = {.name = "planar rigid body",
                         PLANAR_FRAME,
                         PLANAR_BLOCK,
                         .const_inertia = 1,
                         .inertia = planar_inertia,
                         .energy = planar_energy,
                         .velocity0 = planar_velocity0},
    [MBD_BODY_RIGID3] = {.name = "spatial rigid body",
                         SPATIAL_FRAME,
                         SPATIAL_BLOCK,
                         .inertia = spatial_inertia,
                         .energy = spatial_energy,
                         .velocity0 = spatial_velocity0},
    // flexible bodies (flex_body.c): the frame's pose is the head of the block, so points and
    // forces on the frame are a rigid body's; the mass matrix spans the whole block
    [MBD_BODY_FLEX2] = {.name = "planar flexible body",
                        PLANAR_FRAME,
                        PLANAR_BLOCK,
                        .velocity0 = mbd_flex_velocity0,
                        .block_inertia = mbd_flex_inertia,
                        .block_energy = mbd_flex_energy},
    [MBD_BODY_FLEX3] = {.name = "spatial flexible body",
                        SPATIAL_FRAME,
                        SPATIAL_BLOCK,
                        .velocity0 = mbd_flex_velocity0,
                        .block_inertia = mbd_flex_inertia,
                        .block_energy = mbd_flex_energy},
    // a flexible body's node: a rigid body's pose coordinates, computed from the owner's block
    // with the Jacobian over it (no block, no mass of its own)
    [MBD_BODY_NODE2] = {.name = "node of a planar flexible body",
                        PLANAR_FRAME,
                        .velocity0 = mbd_flex_node_velocity0,
                        .pose_model = mbd_flex_node_pose},
    [MBD_BODY_NODE3] = {.name = "node of a spatial flexible body",
                        SPATIAL_FRAME,
                        .velocity0 = mbd_flex_node_velocity0,
                        .pose_model = mbd_flex_node_pose},
};
