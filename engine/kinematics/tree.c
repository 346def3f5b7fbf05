/* the spanning tree of the relative formulation (paper 002 eq 1–5): the model in joint
 * coordinates, and the body poses outward from the ground with their pose Jacobians.
 *
 * Building (mbd_tree_build): Kruskal's algorithm on the joint graph keeps the joints that add
 * the fewest coordinates (a spherical joint, 4 with its norm, is cut before a revolute, 1), ties
 * in declaration order, so the loop-closing joint declared last is the one cut; the joints the
 * user names are cut first.  A breadth-first pass from the ground orients the tree and numbers the
 * coordinates parents first; a component without the ground hangs from it by a floating joint.
 *
 * Poses (mbd_tree_poses), one tree joint at a time from the ground outward (tree_impl.h):
 *   spatial  p_c = p_p ⊗ K(q),  r_c = r_p + A_p a_P − A_c a_C
 *   planar   θ_c = θ_p + σ(c0 + θ),  r_c = r_p + A_p a_P − A_c a_C
 * where K is the relative rotation ε(q) composed with the joint's constant frame c (K = ε ⊗ c, or
 * c* ⊗ ε* when the tree runs from body2 to body1), a_P and a_C the joint's points in the parent's
 * and the child's frames (the body1 side carries s1 + d0 + u x).  Their rates follow by the chain
 * rule (Ẏ = J v, paper 002 eq 5), and the quadratic terms h = (J v)_q v of Ÿ = J v̇ + h from
 *   d²/dt²(A(p) a) = B(p, a) p̈ + B(ṗ, a) ṗ + 2 B(p, ȧ) ṗ + A ä        (B = ∂(A a)/∂p, rot.h)
 *   d²/dt²(p ⊗ K)  = p̈ ⊗ K + 2 ṗ ⊗ K̇ + p ⊗ K̈.
 * Each body's Jacobian spans every tree coordinate (the columns of the joints between it and the
 * ground are non-zero), so constraints and forces reach the joint coordinates through the
 * scatter of kinematics/constraints.c and model/forces.c: M̄ = JᵀM_Y J, ḡ = Jᵀ(Q_Y − M_Y h),
 * Φq = Φ_Y J, γ = γ_Y − Φ_Y h (paper 002 eq 9–11). */
#include "tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics_msg.h"
#include "mbd/vec3.h"

/* ------------------------------------------------------------------------------------------ */
/* Euler-parameter (quaternion) algebra: the conjugate, c += s (a ⊗ b) (the product: mbd/rot.h) */

static void qconj(const double *a, double *c) {
  c[0] = a[0];
  c[1] = -a[1];
  c[2] = -a[2];
  c[3] = -a[3];
}

/* c += s · (a ⊗ b) */
static void qmul_add(const double *a, const double *b, double s, double *c) {
  double t[4];
  mbd_ep_mul(a, b, t);
  for (int k = 0; k < 4; k++) {
    c[k] += s * t[k];
  }
}

// y += s · B x for a row-major 3×4 B
static void mul34_add(const double *B, const double *x, double s, double *y) {
  for (int i = 0; i < 3; i++) {
    y[i] += s * (B[4 * i] * x[0] + B[4 * i + 1] * x[1] + B[4 * i + 2] * x[2] + B[4 * i + 3] * x[3]);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the relative rotation of a joint                                                            */

/* ε(q) with its partials over the joint's rotation coordinates, its rate and its quadratic term
 * (ε̈ = Σ ∂ε/∂q_k q̈_k + hε) */
typedef struct relrot {
  double e[4], de[4][4], ed[4], he[4];
  int nrot;
} relrot;

/* (cos θ/2, sin θ/2 u): ∂/∂θ = ½(−sin θ/2, cos θ/2 u), ε̈ = ∂ε/∂θ θ̈ − ¼θ̇² ε */
static void half_angle(const double *u, double th, double thd, double *e, double *de, double *ed,
                       double *he) {
  double c = cos(0.5 * th), s = sin(0.5 * th);
  e[0] = c;
  de[0] = -0.5 * s;
  for (int k = 0; k < 3; k++) {
    e[1 + k] = s * u[k];
    de[1 + k] = 0.5 * c * u[k];
  }
  for (int k = 0; k < 4; k++) {
    ed[k] = de[k] * thd;
    he[k] = -0.25 * thd * thd * e[k];
  }
}

static void relative_rotation(const mbd_tree_joint *tj, const double *q, const double *v,
                              relrot *o) {
  memset(o, 0, sizeof *o);
  o->e[0] = 1;
  switch (tj->kind) {
    case MBD_TJ_REVOLUTE:
    case MBD_TJ_CYLINDRICAL:
      o->nrot = 1;
      half_angle(tj->u, q[tj->rot], v[tj->rot], o->e, o->de[0], o->ed, o->he);
      break;
    case MBD_TJ_UNIVERSAL: {
      // ε = a(θ1) ⊗ b(θ2): θ1 about u (body1), θ2 about w = C axis2 (body2's axis in body1)
      double a[4], da[4], ad[4], ha[4], b[4], db[4], bd[4], hb[4];
      half_angle(tj->u, q[tj->rot], v[tj->rot], a, da, ad, ha);
      half_angle(tj->w, q[tj->rot + 1], v[tj->rot + 1], b, db, bd, hb);
      o->nrot = 2;
      mbd_ep_mul(a, b, o->e);
      mbd_ep_mul(da, b, o->de[0]);
      mbd_ep_mul(a, db, o->de[1]);
      mbd_ep_mul(ad, b, o->ed);
      qmul_add(a, bd, 1, o->ed);
      mbd_ep_mul(ha, b, o->he);
      qmul_add(ad, bd, 2, o->he);
      qmul_add(a, hb, 1, o->he);
      break;
    }
    case MBD_TJ_SPHERICAL:
      // the relative Euler parameters are the coordinates: ∂ε/∂e = I, no quadratic term
      o->nrot = 4;
      for (int k = 0; k < 4; k++) {
        o->e[k] = q[tj->rot + k];
        o->ed[k] = v[tj->rot + k];
        o->de[k][k] = 1;
      }
      break;
    default:
      break;
  }
}

/* a relative quantity x (ε or one of its derivatives) as seen from parent to child: x ⊗ c when
 * the child is body2, c* ⊗ x* when it is body1 (linear in x, so derivatives map alike) */
static void to_child(const mbd_tree_joint *tj, const double *x, double *y) {
  if (tj->sigma > 0) {
    mbd_ep_mul(x, tj->c, y);
  } else {
    double cc[4], xc[4];
    qconj(tj->c, cc);
    qconj(x, xc);
    mbd_ep_mul(cc, xc, y);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* poses outward                                                                               */

/* the joint's points: a_P in the parent's frame, a_C in the child's, and their rates; the body1
 * side carries the displacement, s1 + d0 + u x */
static void joint_points(const mbd_tree_joint *tj, double x, double xd, double *aP, double *aPd,
                         double *aC, double *aCd) {
  double a1[3], a1d[3];
  for (int k = 0; k < 3; k++) {
    a1[k] = tj->s1[k] + tj->d0[k] + tj->u[k] * x;
    a1d[k] = tj->u[k] * xd;
  }
  const double zero[3] = {0, 0, 0};
  memcpy(aP, tj->sigma > 0 ? a1 : tj->s2, 3 * sizeof(double));
  memcpy(aPd, tj->sigma > 0 ? a1d : zero, 3 * sizeof(double));
  memcpy(aC, tj->sigma > 0 ? tj->s2 : a1, 3 * sizeof(double));
  memcpy(aCd, tj->sigma > 0 ? zero : a1d, 3 * sizeof(double));
}

/* the recursion record of the child of tj (the recursive solve): F = 0, S = I, c = 0 for a
 * floating joint (its coordinates are the child's pose coordinates) */
static void rec_floating(mbd_tree_rec *R, int ny) {
  memset(R->F, 0, (size_t)ny * ny * sizeof(double));
  memset(R->S, 0, (size_t)ny * ny * sizeof(double));
  memset(R->c, 0, sizeof R->c);
  for (int k = 0; k < ny; k++) {
    R->S[k * ny + k] = 1;
  }
}

static void spatial_child(const mbd_model *m, const mbd_tree_joint *tj, mbd_data *d) {
  int n = m->nv;
  const mbd_pose *P = &d->pose[tj->parent];
  mbd_pose *C = &d->pose[tj->child];
  int moving = P->vadr >= 0;                  // the ground's pose does not move
  mbd_tree_rec *R = d->trec ? &d->trec[tj->child] : NULL;
  const double *JP = moving && !R ? P->J : NULL;
  double *JC = R ? NULL : d->poseJ + (size_t)tj->child * MBD_NY_MAX * n;
  const double *q = d->q + tj->qadr, *v = d->v + tj->qadr;
  memset(C, 0, sizeof *C);
  C->vadr = 0;
  C->nv = n;  // the pose Jacobian spans the whole tree block
  C->ny = 7;
  C->J = JC;  // the recursive solve keeps F, S, c instead (NULL here: no stage scatters through it)
  if (tj->kind == MBD_TJ_FLOATING) {
    // the body's own Cartesian coordinates: J = I on its seven columns, h = 0
    if (R) {
      rec_floating(R, 7);
    } else {
      memset(JC, 0, (size_t)7 * n * sizeof(double));
      for (int k = 0; k < 7; k++) {
        MBD_AT(JC, 7, k, tj->qadr + k) = 1;
      }
    }
    memcpy(C->r, q, 3 * sizeof(double));
    memcpy(C->rd, v, 3 * sizeof(double));
    memcpy(C->p, q + 3, 4 * sizeof(double));
    memcpy(C->pd, v + 3, 4 * sizeof(double));
  } else {
    // orientation: p_c = p_p ⊗ K
    relrot rr;
    relative_rotation(tj, q, v, &rr);
    double K[4], Kd[4], hK[4], dK[4][4];
    to_child(tj, rr.e, K);
    to_child(tj, rr.ed, Kd);
    to_child(tj, rr.he, hK);
    for (int k = 0; k < rr.nrot; k++) {
      to_child(tj, rr.de[k], dK[k]);
    }
    mbd_ep_mul(P->p, K, C->p);
    mbd_ep_mul(P->pd, K, C->pd);
    qmul_add(P->p, Kd, 1, C->pd);
    // ḣ: h_pc = h_pp ⊗ K + 2 ṗ_p ⊗ K̇ + p_p ⊗ h_K
    double hp[4] = {0, 0, 0, 0};
    if (moving) {
      mbd_ep_mul(P->h + 3, K, hp);
    }
    qmul_add(P->pd, Kd, 2, hp);
    qmul_add(P->p, hK, 1, hp);
    memcpy(C->h + 3, hp, sizeof hp);
    // J_pc = J_pp ⊗ K on every column, plus p_p ⊗ ∂K/∂q on the joint's rotation columns
    for (int c = 0; JC && c < n; c++) {
      double *jc = JC + (size_t)c * 7 + 3;
      if (JP) {
        mbd_ep_mul(JP + (size_t)c * 7 + 3, K, jc);
      } else {
        memset(jc, 0, 4 * sizeof(double));
      }
    }
    for (int k = 0; JC && k < rr.nrot; k++) {
      qmul_add(P->p, dK[k], 1, JC + (size_t)(tj->qadr + tj->rot + k) * 7 + 3);
    }
    // position: r_c = r_p + A_p a_P − A_c a_C
    double x = tj->disp >= 0 ? q[tj->disp] : 0, xd = tj->disp >= 0 ? v[tj->disp] : 0;
    double aP[3], aPd[3], aC[3], aCd[3];
    joint_points(tj, x, xd, aP, aPd, aC, aCd);
    double Ac[9], BP[12], BC[12], BPd[12], BCd[12], BPa[12], BCa[12], AaP[3], AaC[3], AdP[3],
        AdC[3];
    mbd_ep_A(C->p, Ac);
    mbd_ep_B(P->p, aP, BP);
    mbd_ep_B(C->p, aC, BC);
    mbd_ep_B(P->pd, aP, BPd);
    mbd_ep_B(C->pd, aC, BCd);
    mbd_ep_B(P->p, aPd, BPa);
    mbd_ep_B(C->p, aCd, BCa);
    mbd_mat3_vec(P->A, aP, AaP);
    mbd_mat3_vec(Ac, aC, AaC);
    mbd_mat3_vec(P->A, aPd, AdP);
    mbd_mat3_vec(Ac, aCd, AdC);
    for (int i = 0; i < 3; i++) {
      C->r[i] = P->r[i] + AaP[i] - AaC[i];
      C->rd[i] = P->rd[i] + AdP[i] - AdC[i];
      C->h[i] = moving ? P->h[i] : 0;
    }
    mul34_add(BP, P->pd, 1, C->rd);
    mul34_add(BC, C->pd, -1, C->rd);
    if (moving) {
      mul34_add(BP, P->h + 3, 1, C->h);
    }
    mul34_add(BPd, P->pd, 1, C->h);
    mul34_add(BPa, P->pd, 2, C->h);
    mul34_add(BC, C->h + 3, -1, C->h);
    mul34_add(BCd, C->pd, -1, C->h);
    mul34_add(BCa, C->pd, -2, C->h);
    if (R) {
      // the recursion record: F = [I, B_P − B_C R_K; 0, R_K] with R_K x = x ⊗ K, the joint's
      // columns S (p_p ⊗ ∂K/∂q_k and −B_C of it; the displacement along σ A u), and c, the
      // quadratic terms above without the parent's h
      for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 7; i++) {
          R->F[j * 7 + i] = i == j;
        }
      }
      // the columns of R_K: e_l ⊗ K for the unit quaternions e_0 .. e_3
      const double RK[4][4] = {{K[0], K[1], K[2], K[3]},
                               {-K[1], K[0], -K[3], K[2]},
                               {-K[2], K[3], K[0], -K[1]},
                               {-K[3], -K[2], K[1], K[0]}};
      for (int l = 0; l < 4; l++) {
        double *f = R->F + (3 + l) * 7;
        memcpy(f + 3, RK[l], sizeof RK[l]);
        for (int i = 0; i < 3; i++) {
          f[i] = BP[4 * i + l];
        }
        mul34_add(BC, RK[l], -1, f);
      }
      memset(R->S, 0, (size_t)7 * tj->nq * sizeof(double));
      for (int k = 0; k < rr.nrot; k++) {
        double *sc = R->S + (tj->rot + k) * 7;
        mbd_ep_mul(P->p, dK[k], sc + 3);
        mul34_add(BC, sc + 3, -1, sc);
      }
      if (tj->disp >= 0) {
        double Au[3];
        mbd_mat3_vec(tj->sigma > 0 ? P->A : Ac, tj->u, Au);
        for (int i = 0; i < 3; i++) {
          R->S[tj->disp * 7 + i] = tj->sigma * Au[i];
        }
      }
      double hl[4] = {0, 0, 0, 0};
      qmul_add(P->pd, Kd, 2, hl);
      qmul_add(P->p, hK, 1, hl);
      memset(R->c, 0, 3 * sizeof(double));
      memcpy(R->c + 3, hl, sizeof hl);
      mul34_add(BPd, P->pd, 1, R->c);
      mul34_add(BPa, P->pd, 2, R->c);
      mul34_add(BC, hl, -1, R->c);
      mul34_add(BCd, C->pd, -1, R->c);
      mul34_add(BCa, C->pd, -2, R->c);
    }
    // J_rc = J_rp + B(p_p, a_P) J_pp − B(p_c, a_C) J_pc, and the displacement column
    for (int c = 0; JC && c < n; c++) {
      double *jc = JC + (size_t)c * 7;
      if (JP) {
        const double *jp = JP + (size_t)c * 7;
        memcpy(jc, jp, 3 * sizeof(double));
        mul34_add(BP, jp + 3, 1, jc);
      } else {
        memset(jc, 0, 3 * sizeof(double));
      }
      mul34_add(BC, jc + 3, -1, jc);
    }
    if (JC && tj->disp >= 0) {
      double Au[3];
      mbd_mat3_vec(tj->sigma > 0 ? P->A : Ac, tj->u, Au);
      double *jc = JC + (size_t)(tj->qadr + tj->disp) * 7;
      for (int i = 0; i < 3; i++) {
        jc[i] += tj->sigma * Au[i];
      }
    }
  }
  mbd_ep_A(C->p, C->A);
  double E[12];
  mbd_ep_E(C->p, E);
  for (int i = 0; i < 3; i++) {
    C->w[i] = 2 * (E[4 * i] * C->pd[0] + E[4 * i + 1] * C->pd[1] + E[4 * i + 2] * C->pd[2] +
                   E[4 * i + 3] * C->pd[3]);
  }
}

/* planar: R90 v = (−v1, v0) */
static void planar_child(const mbd_model *m, const mbd_tree_joint *tj, mbd_data *d) {
  int n = m->nv;
  const mbd_pose *P = &d->pose[tj->parent];
  mbd_pose *C = &d->pose[tj->child];
  int moving = P->vadr >= 0;
  mbd_tree_rec *R = d->trec ? &d->trec[tj->child] : NULL;
  const double *JP = moving && !R ? P->J : NULL;
  double *JC = R ? NULL : d->poseJ + (size_t)tj->child * MBD_NY_MAX * n;
  const double *q = d->q + tj->qadr, *v = d->v + tj->qadr;
  double cc, sc;  // cos, sin of the child's angle, once (the parent's are in its A)
  int fast = R && tj->kind == MBD_TJ_REVOLUTE;
  if (!fast || C->ny != 3 || C->J) {
    memset(C, 0, sizeof *C);
    C->vadr = 0;
    C->nv = n;  // the pose Jacobian spans the whole tree block
    C->ny = 3;
    C->J = JC;  // the recursive solve keeps F, S, c instead
  }
  if (fast) {
    // the recursive solve's revolute joint (every planar chain's), written out: the general
    // branch below with the displacement and the points' rates zero (the same operations, in
    // the same order, on the terms that remain), but the child's cos, sin by the angle sum.  The pose's other entries keep
    // the zeros of the first pass (the memset above), and cos, sin come first (fewer
    // values live across the call).
    double th = q[tj->rot], thd = v[tj->rot], sg = tj->sigma;
    double rel = sg * (tj->c[0] + th), pc = P->p[0] + rel;
    if (moving) {
      // cos, sin of the joint's own angle (near zero along a chain: libm's short path), turned
      // by the parent's: A_c = A_p R(rel), equal to cos, sin of θ_c to round-off
      double cr = cos(rel), sr = sin(rel), cp0 = P->A[0], sp0 = P->A[3];
      cc = cp0 * cr - sp0 * sr;
      sc = sp0 * cr + cp0 * sr;
    } else {
      cc = cos(pc);
      sc = sin(pc);
    }
    C->p[0] = pc;
    C->pd[0] = P->pd[0] + sg * thd;
    double hth = moving ? P->h[2] : 0;
    C->h[2] = hth;
    double a1x = tj->s1[0] + tj->d0[0], a1y = tj->s1[1] + tj->d0[1];
    double aPx = sg > 0 ? a1x : tj->s2[0], aPy = sg > 0 ? a1y : tj->s2[1];
    double aCx = sg > 0 ? tj->s2[0] : a1x, aCy = sg > 0 ? tj->s2[1] : a1y;
    double cp = P->A[0], sp = P->A[3];
    double AaP0 = cp * aPx - sp * aPy, AaP1 = sp * aPx + cp * aPy;
    double AaC0 = cc * aCx - sc * aCy, AaC1 = sc * aCx + cc * aCy;
    double RaP0 = -AaP1, RaP1 = AaP0, RaC0 = -AaC1, RaC1 = AaC0;
    double wp = P->pd[0], wc = C->pd[0];
    C->r[0] = P->r[0] + AaP0 - AaC0;
    C->r[1] = P->r[1] + AaP1 - AaC1;
    C->rd[0] = P->rd[0] + RaP0 * wp - RaC0 * wc;
    C->rd[1] = P->rd[1] + RaP1 * wp - RaC1 * wc;
    double hp0 = moving ? P->h[0] + RaP0 * P->h[2] : 0, hp1 = moving ? P->h[1] + RaP1 * P->h[2] : 0;
    C->h[0] = hp0 - AaP0 * wp * wp - (RaC0 * hth - AaC0 * wc * wc);
    C->h[1] = hp1 - AaP1 * wp * wp - (RaC1 * hth - AaC1 * wc * wc);
    double *F = R->F, *S = R->S;
    F[0] = 1;
    F[1] = F[2] = F[3] = 0;
    F[4] = 1;
    F[5] = 0;
    F[6] = RaP0 - RaC0;
    F[7] = RaP1 - RaC1;
    F[8] = 1;
    S[0] = -RaC0 * sg;
    S[1] = -RaC1 * sg;
    S[2] = sg;
    R->c[0] = -AaP0 * wp * wp - (-AaC0 * wc * wc);
    R->c[1] = -AaP1 * wp * wp - (-AaC1 * wc * wc);
    R->c[2] = 0;
  } else if (tj->kind == MBD_TJ_FLOATING) {
    if (R) {
      rec_floating(R, 3);
    } else {
      memset(JC, 0, (size_t)3 * n * sizeof(double));
      for (int k = 0; k < 3; k++) {
        MBD_AT(JC, 3, k, tj->qadr + k) = 1;
      }
    }
    C->r[0] = q[0];
    C->r[1] = q[1];
    C->p[0] = q[2];
    C->rd[0] = v[0];
    C->rd[1] = v[1];
    C->pd[0] = v[2];
    cc = cos(C->p[0]);
    sc = sin(C->p[0]);
  } else {
    // θ_c = θ_p + σ(c0 + θ)
    double th = tj->rot >= 0 ? q[tj->rot] : 0, thd = tj->rot >= 0 ? v[tj->rot] : 0;
    C->p[0] = P->p[0] + tj->sigma * (tj->c[0] + th);
    C->pd[0] = P->pd[0] + tj->sigma * thd;
    double hth = moving ? P->h[2] : 0;
    C->h[2] = hth;
    for (int c = 0; JC && c < n; c++) {
      JC[(size_t)c * 3 + 2] = JP ? JP[(size_t)c * 3 + 2] : 0;
    }
    if (JC && tj->rot >= 0) {
      JC[(size_t)(tj->qadr + tj->rot) * 3 + 2] += tj->sigma;
    }
    // r_c = r_p + A_p a_P − A_c a_C
    double x = tj->disp >= 0 ? q[tj->disp] : 0, xd = tj->disp >= 0 ? v[tj->disp] : 0;
    double aP[3], aPd[3], aC[3], aCd[3];
    joint_points(tj, x, xd, aP, aPd, aC, aCd);
    double cp = P->A[0], sp = P->A[3];
    cc = cos(C->p[0]);
    sc = sin(C->p[0]);
    double AaP[2] = {cp * aP[0] - sp * aP[1], sp * aP[0] + cp * aP[1]};
    double AdP[2] = {cp * aPd[0] - sp * aPd[1], sp * aPd[0] + cp * aPd[1]};
    double AaC[2] = {cc * aC[0] - sc * aC[1], sc * aC[0] + cc * aC[1]};
    double AdC[2] = {cc * aCd[0] - sc * aCd[1], sc * aCd[0] + cc * aCd[1]};
    double RaP[2] = {-AaP[1], AaP[0]}, RdP[2] = {-AdP[1], AdP[0]};
    double RaC[2] = {-AaC[1], AaC[0]}, RdC[2] = {-AdC[1], AdC[0]};
    double wp = P->pd[0], wc = C->pd[0];
    for (int i = 0; i < 2; i++) {
      C->r[i] = P->r[i] + AaP[i] - AaC[i];
      C->rd[i] = P->rd[i] + RaP[i] * wp + AdP[i] - RaC[i] * wc - AdC[i];
      C->h[i] = (moving ? P->h[i] + RaP[i] * P->h[2] : 0) - AaP[i] * wp * wp + 2 * RdP[i] * wp -
                (RaC[i] * C->h[2] - AaC[i] * wc * wc + 2 * RdC[i] * wc);
    }
    if (R) {
      // the recursion record: F = [I, R90(A_p a_P − A_c a_C); 0, 1], the joint's columns (σ on θ
      // with −σ R90 A_c a_C; the displacement along σ A u), c the quadratic terms without the
      // parent's h
      memset(R->F, 0, 9 * sizeof(double));
      memset(R->S, 0, (size_t)3 * tj->nq * sizeof(double));
      R->F[0] = R->F[4] = R->F[8] = 1;
      R->F[6] = RaP[0] - RaC[0];
      R->F[7] = RaP[1] - RaC[1];
      if (tj->rot >= 0) {
        double *srot = R->S + tj->rot * 3;
        srot[0] = -RaC[0] * tj->sigma;
        srot[1] = -RaC[1] * tj->sigma;
        srot[2] = tj->sigma;
      }
      if (tj->disp >= 0) {
        double ca = tj->sigma > 0 ? cp : cc, sa = tj->sigma > 0 ? sp : sc;
        double *sd = R->S + tj->disp * 3;
        sd[0] = tj->sigma * (ca * tj->u[0] - sa * tj->u[1]);
        sd[1] = tj->sigma * (sa * tj->u[0] + ca * tj->u[1]);
      }
      for (int i = 0; i < 2; i++) {
        R->c[i] = -AaP[i] * wp * wp + 2 * RdP[i] * wp - (-AaC[i] * wc * wc + 2 * RdC[i] * wc);
      }
      R->c[2] = 0;
    }
    for (int c = 0; JC && c < n; c++) {
      double *jc = JC + (size_t)c * 3;
      const double *jp = JP ? JP + (size_t)c * 3 : NULL;
      for (int i = 0; i < 2; i++) {
        jc[i] = (jp ? jp[i] + RaP[i] * jp[2] : 0) - RaC[i] * jc[2];
      }
    }
    if (JC && tj->disp >= 0) {
      double ca = tj->sigma > 0 ? cp : cc, sa = tj->sigma > 0 ? sp : sc;
      double *jc = JC + (size_t)(tj->qadr + tj->disp) * 3;
      jc[0] += tj->sigma * (ca * tj->u[0] - sa * tj->u[1]);
      jc[1] += tj->sigma * (sa * tj->u[0] + ca * tj->u[1]);
    }
  }
  C->A[0] = cc;
  C->A[1] = -sc;
  C->A[3] = sc;
  C->A[4] = cc;
  C->A[8] = 1;
  C->w[2] = C->pd[0];
}

void mbd_tree_poses(const mbd_model *m, mbd_data *d) {
  mbd_body_kind_get(m->body[0].kind)->pose(NULL, NULL, &d->pose[0]);
  const mbd_tree *t = m->tree;
  for (int k = 0; k < t->ntj; k++) {
    if (m->dim == 3) {
      spatial_child(m, &t->tj[k], d);
    } else {
      planar_child(m, &t->tj[k], d);
    }
  }
}

void mbd_tree_to_cartesian(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                           int accel) {
  d->t = x->t;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    const mbd_pose *ps = &x->pose[b];
    double *q = d->q + bl->qadr, *v = d->v + bl->vadr;
    if (m->dim == 3) {
      memcpy(q, ps->r, 3 * sizeof(double));
      memcpy(q + 3, ps->p, 4 * sizeof(double));
      memcpy(v, ps->rd, 3 * sizeof(double));
      memcpy(v + 3, ps->pd, 4 * sizeof(double));
    } else {
      q[0] = ps->r[0];
      q[1] = ps->r[1];
      q[2] = ps->p[0];
      v[0] = ps->rd[0];
      v[1] = ps->rd[1];
      v[2] = ps->pd[0];
    }
    for (int i = 0; accel && i < ps->ny; i++) {
      if (x->trec) {
        d->vdot[bl->vadr + i] = x->trec[b].a[i];  // the recursive solve's Ÿ of the body
        continue;
      }
      double s = ps->h[i];
      for (int c = 0; c < mr->nv; c++) {
        s += MBD_AT(ps->J, ps->ny, i, c) * x->vdot[c];
      }
      d->vdot[bl->vadr + i] = s;
    }
  }
  memcpy(d->angle_memo, x->angle_memo, (size_t)m->njoint * sizeof(double));
}

/* least squares of a small consistent system A x = b (A m×k column-major, m ≤ 7, k ≤ 7, full
 * column rank: a tree joint's rows over its child's pose coordinates) by the normal equations
 * and Gaussian elimination with partial pivoting; 0, or −1 when AᵀA is singular.  (An SVD per
 * body made a sample cost more than the integration steps between samples.) */
static int small_lsq(int m, int k, const double *A, const double *b, double *x) {
  double N[8][8], r[8];
  for (int i = 0; i < k; i++) {
    r[i] = 0;
    for (int l = 0; l < m; l++) {
      r[i] += A[i * m + l] * b[l];
    }
    for (int j = 0; j < k; j++) {
      double s = 0;
      for (int l = 0; l < m; l++) {
        s += A[i * m + l] * A[j * m + l];
      }
      N[i][j] = s;
    }
  }
  double scale = 0;
  for (int i = 0; i < k; i++) {
    scale = fmax(scale, fabs(N[i][i]));
  }
  for (int c = 0; c < k; c++) {
    int p = c;
    for (int i = c + 1; i < k; i++) {
      if (fabs(N[i][c]) > fabs(N[p][c])) {
        p = i;
      }
    }
    if (!(fabs(N[p][c]) > 1e-14 * scale)) {
      return -1;
    }
    for (int j = 0; j < k; j++) {
      double t = N[c][j];
      N[c][j] = N[p][j];
      N[p][j] = t;
    }
    double t = r[c];
    r[c] = r[p];
    r[p] = t;
    for (int i = c + 1; i < k; i++) {
      double f = N[i][c] / N[c][c];
      for (int j = c; j < k; j++) {
        N[i][j] -= f * N[c][j];
      }
      r[i] -= f * r[c];
    }
  }
  for (int i = k - 1; i >= 0; i--) {
    double s = r[i];
    for (int j = i + 1; j < k; j++) {
      s -= N[i][j] * x[j];
    }
    x[i] = s / N[i][i];
  }
  return 0;
}

/* the multipliers of the tree joints' rows and of the bodies' norms, from the leaves in: for body
 * c, Φ_cᵀλ_u = Q_c − M_c Ÿ_c − Φ_cᵀλ_known over its own pose coordinates, where λ_u are the rows of
 * its tree joint and its norm (a consistent system: least squares solves it exactly) */
/* the multipliers both models share: cut joints and drives have the same equations in the
 * tree model mr (its data x) and the Cartesian model m (data d, λ zeroed elsewhere) */
static void known_multipliers(const mbd_model *mr, const mbd_data *x, const mbd_model *m,
                              mbd_data *d) {
  const mbd_tree *t = mr->tree;
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < t->ncut; k++) {
    const mbd_joint *j = &m->joint[t->cut[k]], *jr = &mr->joint[t->cut[k]];
    for (int i = 0; i < j->nrow; i++) {
      d->lambda[j->row0 + i] = x->lambda[jr->row0 + i];
    }
  }
  for (int k = 0; k < m->ndrive; k++) {
    d->lambda[m->drive[k].row] = x->lambda[mr->drive[k].row];
  }
}

/* the same pass for the recursive solve, O(nbody + mrow): each body's M_Y and Q_Y from its
 * record in x (the force stage of the sample's evaluation), the rows at the body found through
 * its joints (t->body_j), the Cartesian model's forces and dense Φq not needed */
static int multipliers_rec(const mbd_model *mr, const mbd_data *x, const mbd_model *m,
                           mbd_data *d, mbd_error *err) {
  const mbd_tree *t = mr->tree;
  int mrow = m->mrow, ny = m->dim == 3 ? 7 : 3;
  known_multipliers(mr, x, m, d);
  // each body's Euler-parameter norm row (spatial)
  int *norm_of = d->iwork;
  for (int b = 0; b < m->nbody; b++) {
    norm_of[b] = -1;
  }
  for (int rw = 0; rw < mrow; rw++) {
    if (m->row[rw].owner == MBD_ROW_BODY) {
      norm_of[m->row[rw].index] = rw;
    }
  }
  for (int k = t->ntj - 1; k >= 0; k--) {
    const mbd_tree_joint *tj = &t->tj[k];
    int c = tj->child;
    const mbd_tree_rec *R = &x->trec[c];
    int va = m->block[m->body[c].block].vadr;
    // the unknowns: the tree joint's rows and the body's norm
    int urow[MBD_JOINT_MAXROW + 1], nu = 0;
    double A[(MBD_JOINT_MAXROW + 1) * MBD_NY_MAX], res[MBD_NY_MAX], sol[MBD_JOINT_MAXROW + 1];
    memset(A, 0, sizeof A);
    if (tj->joint >= 0) {
      const mbd_joint *j = &m->joint[tj->joint];
      int side = j->body2 == c;
      for (int i = 0; i < j->nrow; i++, nu++) {
        urow[nu] = j->row0 + i;
        memcpy(A + nu * ny, d->rowJ + (size_t)(j->row0 + i) * MBD_NLOC + side * MBD_NY_MAX,
               (size_t)ny * sizeof(double));
      }
    }
    if (norm_of[c] >= 0) {
      urow[nu] = norm_of[c];
      for (int i = 0; i < 4; i++) {
        A[nu * ny + 3 + i] = 2 * d->q[m->block[m->body[c].block].qadr + 3 + i];
      }
      nu++;
    }
    if (nu == 0) {
      continue;  // a planar floating body: nothing holds it
    }
    // the residual of its equations Q_Y − M_Y Ÿ − Φ_Yᵀλ with the known multipliers: the other
    // joints at the body (its children's, cut joints) and every drive on its joints
    for (int i = 0; i < ny; i++) {
      double s = R->QY[i];
      for (int l = 0; l < ny; l++) {
        s -= R->MY[l * ny + i] * d->vdot[va + l];
      }
      res[i] = s;
    }
    for (int e = t->body_jadr[c]; e < t->body_jadr[c + 1]; e++) {
      const mbd_joint *j = &m->joint[t->body_j[e]];
      int side = j->body2 == c;
      int rows[MBD_JOINT_MAXROW + 1], nr = 0;
      for (int i = 0; t->body_j[e] != tj->joint && i < j->nrow; i++) {
        rows[nr++] = j->row0 + i;
      }
      if (j->drive >= 0) {
        rows[nr++] = m->drive[j->drive].row;
      }
      for (int l = 0; l < nr; l++) {
        const double *J = d->rowJ + (size_t)rows[l] * MBD_NLOC + side * MBD_NY_MAX;
        for (int i = 0; i < ny; i++) {
          res[i] -= J[i] * d->lambda[rows[l]];
        }
      }
    }
    if (small_lsq(ny, nu, A, res, sol) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "reactions of the tree joints", d->t);
    }
    for (int u = 0; u < nu; u++) {
      d->lambda[urow[u]] = sol[u];
    }
  }
  return MBD_OK;
}

int mbd_tree_multipliers(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                         mbd_error *err) {
  if (x->trec) {
    return multipliers_rec(mr, x, m, d, err);
  }
  const mbd_tree *t = mr->tree;
  int n = m->nv, mrow = m->mrow;
  int rc = mbd_data_dense(m, d, err);  // (aug: the per-body least squares' scratch)
  if (rc < 0) {
    return rc;
  }
  known_multipliers(mr, x, m, d);
  for (int k = t->ntj - 1; k >= 0; k--) {
    const mbd_tree_joint *tj = &t->tj[k];
    int c = tj->child;
    const mbd_block *bl = &m->block[m->body[c].block];
    int va = bl->vadr, nyc = bl->nv;
    // the unknowns: the tree joint's rows and the body's norm
    int urow[MBD_JOINT_MAXROW + 1], nu = 0;
    if (tj->joint >= 0) {
      const mbd_joint *j = &m->joint[tj->joint];
      for (int i = 0; i < j->nrow; i++) {
        urow[nu++] = j->row0 + i;
      }
    }
    for (int rw = 0; rw < mrow; rw++) {
      if (m->row[rw].owner == MBD_ROW_BODY && m->row[rw].index == c) {
        urow[nu++] = rw;
      }
    }
    if (nu == 0) {
      continue;  // a planar floating body: nothing holds it
    }
    // the residual of its equations with the known multipliers
    double *res = d->tmp_n, *A = d->aug, *sol = d->tmp_m;
    for (int i = 0; i < nyc; i++) {
      double s = d->Q[va + i];
      for (int l = 0; l < nyc; l++) {
        s -= MBD_AT(d->M, n, va + i, va + l) * d->vdot[va + l];
      }
      for (int rw = 0; rw < mrow; rw++) {
        s -= MBD_AT(d->phiq, mrow, rw, va + i) * d->lambda[rw];
      }
      res[i] = s;
    }
    for (int u = 0; u < nu; u++) {
      for (int i = 0; i < nyc; i++) {
        MBD_AT(A, nyc, i, u) = MBD_AT(d->phiq, mrow, urow[u], va + i);
      }
    }
    if (small_lsq(nyc, nu, A, res, sol) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "reactions of the tree joints", d->t);
    }
    for (int u = 0; u < nu; u++) {
      d->lambda[urow[u]] = sol[u];
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* building                                                                                    */

static int find_root(int *uf, int b) {
  while (uf[b] != b) {
    uf[b] = uf[uf[b]];
    b = uf[b];
  }
  return b;
}

/* a copy of n elements of size sz (at least one element allocated) */
static void *dup(const void *p, int n, size_t sz) {
  void *q = calloc((size_t)(n > 0 ? n : 1), sz);
  if (q && n > 0) {
    memcpy(q, p, (size_t)n * sz);
  }
  return q;
}

/* the spanning forest (Kruskal): in_tree[j] = 1 for the joints kept */
static int choose_tree(const mbd_model *m, const char *const *cut, int ncut, int *in_tree,
                       mbd_error *err) {
  int nj = m->njoint, rc = MBD_OK;
  int *order = calloc((size_t)(nj ? nj : 1), sizeof(int));
  int *uf = calloc((size_t)m->nbody, sizeof(int));
  int *forced = calloc((size_t)(nj ? nj : 1), sizeof(int));
  if (!order || !uf || !forced) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
    goto done;
  }
  for (int k = 0; k < ncut; k++) {
    int j = mbd_model_find_joint(m, cut[k]);
    if (j < 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_CUT, cut[k], m->name);
      goto done;
    }
    forced[j] = 1;
  }
  // macro copies (paper 002, section 4): a copy's joints stay in the tree, a joint between a copy
  // and another body (not the ground) is cut, so that each copy's coordinates are its own
  for (int j = 0; j < nj; j++) {
    int b1 = m->joint[j].body1, b2 = m->joint[j].body2;
    if (b1 && b2 && m->body[b1].copy != m->body[b2].copy) {
      forced[j] = 1;
    }
  }
  // joints by the coordinates they add, then in declaration order (a stable insertion sort)
  for (int j = 0; j < nj; j++) {
    int w = mbd_tree_joint_nq(m->joint[j].type, m->dim), k = j;
    while (k > 0 && mbd_tree_joint_nq(m->joint[order[k - 1]].type, m->dim) > w) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = j;
  }
  for (int b = 0; b < m->nbody; b++) {
    uf[b] = b;
  }
  for (int k = 0; k < nj; k++) {
    int j = order[k];
    int a = find_root(uf, m->joint[j].body1), b = find_root(uf, m->joint[j].body2);
    in_tree[j] = !forced[j] && a != b;
    if (in_tree[j]) {
      uf[a > b ? a : b] = a < b ? a : b;  // the component's root stays the smaller body
    }
  }
done:
  free(order);
  free(uf);
  free(forced);
  return rc;
}

/* the constants of tree joint tj at the state of d (Cartesian poses of m) */
static void joint_constants(const mbd_model *m, const mbd_data *d, mbd_tree_joint *tj) {
  const mbd_joint *j = &m->joint[tj->joint];
  const mbd_pose *P1 = &d->pose[j->body1], *P2 = &d->pose[j->body2];
  memcpy(tj->s1, j->at1, sizeof tj->s1);
  memcpy(tj->s2, j->at2, sizeof tj->s2);
  memcpy(tj->u, j->axis1, sizeof tj->u);
  // d0 = A1ᵀ(r2 + A2 s2 − r1 − A1 s1)
  double g[3], A2s2[3], A1s1[3];
  mbd_mat3_vec(P2->A, j->at2, A2s2);
  mbd_mat3_vec(P1->A, j->at1, A1s1);
  for (int i = 0; i < 3; i++) {
    g[i] = P2->r[i] + A2s2[i] - P1->r[i] - A1s1[i];
  }
  mbd_mat3_tvec(P1->A, g, tj->d0);
  if (m->dim == 2) {
    tj->d0[2] = 0;
    tj->c[0] = P2->p[0] - P1->p[0];
  } else {
    // c = p1* ⊗ p2: p1 ⊗ c = p2 with the sign of the given parameters (channels continue them)
    double pc[4];
    qconj(P1->p, pc);
    mbd_ep_mul(pc, P2->p, tj->c);
    double nc =
        sqrt(tj->c[0] * tj->c[0] + tj->c[1] * tj->c[1] + tj->c[2] * tj->c[2] + tj->c[3] * tj->c[3]);
    for (int k = 0; k < 4; k++) {
      tj->c[k] /= nc;
    }
    // universal: axis2 seen in body1's frame, w = A1ᵀ A2 axis2
    double h2[3];
    mbd_mat3_vec(P2->A, j->axis2, h2);
    mbd_mat3_tvec(P1->A, h2, tj->w);
  }
  // the joint's channel coordinates at q = 0
  const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
  int dx = MBD_DIMX(m);
  for (int k = 0; k < jt->ncoord[dx] && k < 2; k++) {
    mbd_row o;
    mbd_joint_coord_row(m, d, tj->joint, jt->coord[dx][k], &o);
    tj->coord0[k] = o.val;
  }
}

/* the tree joints outward from the ground (breadth first), floating joints for components
 * without the ground; coordinates numbered in that order */
static int orient(const mbd_model *m, const int *in_tree, mbd_tree *t) {
  int nb = m->nbody, k = 0, head = 0;
  int *queue = calloc((size_t)nb, sizeof(int));
  char *seen = calloc((size_t)nb, 1);
  if (!queue || !seen) {
    free(queue);
    free(seen);
    return -1;
  }
  queue[k++] = 0;
  seen[0] = 1;
  for (int root = 0; root < nb; root++) {
    if (!seen[root]) {
      // a component without the ground: its first body floats
      mbd_tree_joint *tj = &t->tj[t->ntj++];
      tj->joint = -1;
      tj->kind = MBD_TJ_FLOATING;
      tj->parent = 0;
      tj->child = root;
      tj->sigma = 1;
      seen[root] = 1;
      queue[k++] = root;
      t->nfloat++;
    }
    for (; head < k; head++) {
      int b = queue[head];
      for (int j = 0; j < m->njoint; j++) {
        const mbd_joint *jo = &m->joint[j];
        if (!in_tree[j] || (jo->body1 != b && jo->body2 != b)) {
          continue;
        }
        int o = jo->body1 == b ? jo->body2 : jo->body1;
        if (seen[o]) {
          continue;
        }
        mbd_tree_joint *tj = &t->tj[t->ntj++];
        tj->joint = j;
        tj->kind = mbd_tree_kind_of(jo->type);
        tj->parent = b;
        tj->child = o;
        tj->sigma = jo->body2 == o ? 1 : -1;
        t->joint_tj[j] = t->ntj - 1;
        seen[o] = 1;
        queue[k++] = o;
      }
    }
  }
  free(queue);
  free(seen);
  return 0;
}

/* the Cartesian velocities of m's state as joint velocities: the least-squares fit J v = Ẏ of
 * every body's pose rates (exact for a consistent state; J has full column rank) */
static int fit_velocities(const mbd_model *m, const mbd_data *d, const mbd_model *mr, mbd_data *dr,
                          mbd_error *err) {
  int nc = m->nv, n = mr->nv;
  double *A = calloc((size_t)nc * (n ? n : 1), sizeof(double));
  double *b = calloc((size_t)(nc ? nc : 1), sizeof(double));
  mbd_lsq_ws ws;
  memset(&ws, 0, sizeof ws);
  int rc = (!A || !b) ? MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative")
                      : mbd_lsq_alloc(&ws, nc > n ? nc : n, nc > n ? nc : n, err);
  if (rc == MBD_OK) {
    memset(dr->v, 0, (size_t)n * sizeof(double));
    mbd_tree_poses(mr, dr);
    for (int bd = 1; bd < m->nbody; bd++) {
      const mbd_block *bl = &m->block[m->body[bd].block];
      const mbd_pose *ps = &dr->pose[bd];
      for (int r = 0; r < ps->ny; r++) {
        b[bl->vadr + r] = d->v[bl->vadr + r];
        for (int c = 0; c < n; c++) {
          MBD_AT(A, nc, bl->vadr + r, c) = MBD_AT(ps->J, ps->ny, r, c);
        }
      }
    }
    rc = mbd_lsq_solve(&ws, nc, n, A, nc, b, dr->v, 1e-12, NULL);
    if (rc) {
      rc = MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD, "relative", d->t);
    }
  }
  mbd_lsq_free(&ws);
  free(A);
  free(b);
  return rc;
}

/* the same fit joint by joint for the recursive solve (the pose Jacobians are not formed):
 * Ẏ_c = F Ẏ_p + S q̇_j with the Cartesian rates of the parent and the child, solved for q̇_j in
 * the least-squares sense (exact for a consistent state; S has full column rank) */
static int fit_velocities_rec(const mbd_model *m, const mbd_data *d, const mbd_model *mr,
                              mbd_data *dr, mbd_error *err) {
  const mbd_tree *t = mr->tree;
  int ny = m->dim == 3 ? 7 : 3;
  memset(dr->v, 0, (size_t)mr->nv * sizeof(double));
  mbd_tree_poses(mr, dr);  // F and S depend on the positions only
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    const mbd_tree_rec *R = &dr->trec[tj->child];
    if (tj->nq == 0) {
      continue;
    }
    const double *vc = d->v + m->block[m->body[tj->child].block].vadr;
    const double *vp = tj->parent ? d->v + m->block[m->body[tj->parent].block].vadr : NULL;
    double b[7];
    for (int i = 0; i < ny; i++) {
      double s = vc[i];
      for (int c = 0; vp && c < ny; c++) {
        s -= R->F[c * ny + i] * vp[c];
      }
      b[i] = s;
    }
    if (small_lsq(ny, tj->nq, R->S, b, dr->v + tj->qadr) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "relative", d->t);
    }
  }
  return MBD_OK;
}

/* whether a recursive tree model's rows are all norms of Euler parameters (no cut joint, no
 * drive): each touches its own four coordinates */
static int norms_only(const mbd_model *mr) {
  if (!mr->tree->recursive || mr->ma0 < mr->mrow) {
    return 0;
  }
  for (int r = 0; r < mr->mrow; r++) {
    if (mr->row[r].owner != MBD_ROW_TREE) {
      return 0;
    }
  }
  return 1;
}

/* the velocity analysis of such a model (paper 000 eq 12, minimum norm): the rows have disjoint
 * columns, so v ← v − Φq⁺ Φq v splits into ṗ ← ṗ − p (pᵀṗ)/(pᵀp) per row — O(rows) instead of
 * the dense SVD of rows × coordinates (the same solution, to round-off) */
static int norm_velocities(const mbd_model *mr, mbd_data *dr) {
  for (int r = 0; r < mr->mrow; r++) {
    int a = mr->row[r].index;
    const double *p = dr->q + a;
    double *pd = dr->v + a, s = 0, pp = 0;
    for (int k = 0; k < 4; k++) {
      s += p[k] * pd[k];
      pp += p[k] * p[k];
    }
    for (int k = 0; k < 4; k++) {
      pd[k] -= p[k] * s / pp;
    }
  }
  return MBD_OK;
}

/* rows of the tree model: the cut joints', the drives', the norms of Euler parameters */
static int number_rows(mbd_model *mr) {
  mbd_tree *t = mr->tree;
  int rows = 0, dx = MBD_DIMX(mr);
  for (int j = 0; j < mr->njoint; j++) {
    mr->joint[j].row0 = rows;
    mr->joint[j].nrow = t->joint_tj[j] < 0 ? mbd_joint_type_get(mr->joint[j].type)->nrow[dx] : 0;
    rows += mr->joint[j].nrow;
  }
  int nnorm = 0;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    nnorm += tj->kind == MBD_TJ_SPHERICAL || (tj->kind == MBD_TJ_FLOATING && mr->dim == 3);
  }
  mr->mrow = rows + mr->ndrive + nnorm;
  mr->row = calloc((size_t)(mr->mrow ? mr->mrow : 1), sizeof *mr->row);
  mr->active0 = calloc((size_t)(mr->mrow ? mr->mrow : 1), sizeof(int));
  if (!mr->row || !mr->active0) {
    return -1;
  }
  for (int j = 0; j < mr->njoint; j++) {
    for (int r = 0; r < mr->joint[j].nrow; r++) {
      mr->row[mr->joint[j].row0 + r] = (mbd_rowinfo){MBD_ROW_JOINT, j, r, MBD_ROW_POSITION};
    }
  }
  for (int k = 0; k < mr->ndrive; k++) {
    mr->drive[k].row = rows;
    mr->row[rows++] = (mbd_rowinfo){MBD_ROW_DRIVE, k, 0, MBD_ROW_POSITION};
  }
  for (int k = 0; k < t->ntj; k++) {
    mbd_tree_joint *tj = &t->tj[k];
    if (tj->kind == MBD_TJ_SPHERICAL || (tj->kind == MBD_TJ_FLOATING && mr->dim == 3)) {
      int adr = tj->qadr + (tj->kind == MBD_TJ_FLOATING ? 3 : tj->rot);
      int who = tj->joint >= 0 ? tj->joint : -1 - tj->child;
      tj->norm = rows;
      mr->row[rows++] = (mbd_rowinfo){MBD_ROW_TREE, adr, who, MBD_ROW_POSITION};
    }
  }
  return 0;
}

int mbd_tree_build(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                   mbd_model **out, mbd_error *err) {
  return mbd_tree_build_ex(m, d, cut, ncut, 0, out, err);
}

int mbd_tree_build_ex(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                      int recursive, mbd_model **out, mbd_error *err) {
  *out = NULL;
  // rigid bodies and joints only: flexible bodies and contacts have coordinates of their own
  for (int b = 1; b < m->nbody; b++) {
    int k = m->body[b].kind;
    if (k != MBD_BODY_RIGID2 && k != MBD_BODY_RIGID3) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name,
                      mbd_body_kind_get(k)->name, m->body[b].name);
    }
  }
  if (m->ncontact > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name, "contact",
                    m->contact[0].name);
  }
  if (m->njfric > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name, "joint with friction",
                    m->joint[m->jfric[0].joint].name);
  }
  int *in_tree = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
  if (!in_tree) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  int rc = choose_tree(m, cut, ncut, in_tree, err);
  if (rc < 0) {
    free(in_tree);
    return rc;
  }
  // the model in joint coordinates: m's objects, its own numbering
  mbd_model *mr = calloc(1, sizeof *mr);
  mbd_tree *t = calloc(1, sizeof *t);
  if (mr) {
    memcpy(mr->name, m->name, sizeof mr->name);
    mr->dim = m->dim;
    memcpy(mr->gravity, m->gravity, sizeof mr->gravity);
    mr->nbody = mr->cbody = m->nbody;
    mr->njoint = mr->cjoint = m->njoint;
    mr->ndrive = mr->cdrive = m->ndrive;
    mr->nforce = mr->cforce = m->nforce;
    mr->nspring = mr->cspring = m->nspring;
    mr->nrspring = mr->crspring = m->nrspring;
    mr->body = dup(m->body, m->nbody, sizeof *m->body);
    mr->joint = dup(m->joint, m->njoint, sizeof *m->joint);
    mr->drive = dup(m->drive, m->ndrive, sizeof *m->drive);
    mr->force = dup(m->force, m->nforce, sizeof *m->force);
    mr->spring = dup(m->spring, m->nspring, sizeof *m->spring);
    mr->rspring = dup(m->rspring, m->nrspring, sizeof *m->rspring);
    mr->assembly_tol = m->assembly_tol;
    mr->moved_body = -1;
    // what assembly did to the given poses, reported by the runs of the tree model too
    mr->moved_dist = m->moved_dist;
    mr->moved_dist_body = m->moved_dist_body;
    mr->moved_angle = m->moved_angle;
    mr->moved_angle_body = m->moved_angle_body;
    mr->size = m->size;
    mr->tree = t;
    // macro copies (paper 002 section 4): the generated equations derive each shape once
    if (m->ncopy > 0) {
      mr->copy = dup(m->copy, m->ncopy, sizeof *m->copy);
      mr->ncopy = mr->ccopy = mr->copy ? m->ncopy : 0;
    }
  }
  if (t) {
    t->tj = calloc((size_t)m->nbody, sizeof *t->tj);
    t->body_tj = calloc((size_t)m->nbody, sizeof(int));
    t->joint_tj = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
    t->cut = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
  }
  if (!mr || !t || !mr->body || !mr->joint || !mr->drive || !mr->force || !mr->spring ||
      !mr->rspring || !t->tj || !t->body_tj || !t->joint_tj || !t->cut) {
    free(in_tree);
    if (mr) {
      mbd_model_free(mr);
    } else {
      mbd_tree_free(t);
    }
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    t->joint_tj[j] = -1;
  }
  // the recursive solve: its rows and forces through the tree's own stage (tree_rec.c)
  t->recursive = recursive;
  if (recursive) {
    mr->eqs = mbd_tree_rec_hook();
  }
  if (orient(m, in_tree, t) < 0) {
    free(in_tree);
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    if (!in_tree[j]) {
      t->cut[t->ncut++] = j;
    }
  }
  free(in_tree);
  // the joints at each body (reactions of the recursive solve)
  t->body_jadr = calloc((size_t)m->nbody + 1, sizeof(int));
  t->body_j = calloc((size_t)(2 * m->njoint + 1), sizeof(int));
  if (!t->body_jadr || !t->body_j) {
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    t->body_jadr[m->joint[j].body1 + 1]++;
    t->body_jadr[m->joint[j].body2 + 1]++;
  }
  for (int b = 0; b < m->nbody; b++) {
    t->body_jadr[b + 1] += t->body_jadr[b];
  }
  for (int j = 0; j < m->njoint; j++) {
    int b1 = m->joint[j].body1, b2 = m->joint[j].body2;
    t->body_j[t->body_jadr[b1]++] = j;
    t->body_j[t->body_jadr[b2]++] = j;
  }
  for (int b = m->nbody; b > 0; b--) {
    t->body_jadr[b] = t->body_jadr[b - 1];
  }
  t->body_jadr[0] = 0;
  // coordinates, parents first; the constants of each joint at the state of d
  int nq = 0;
  for (int b = 0; b < m->nbody; b++) {
    t->body_tj[b] = -1;
  }
  for (int k = 0; k < t->ntj; k++) {
    mbd_tree_joint *tj = &t->tj[k];
    t->body_tj[tj->child] = k;
    tj->qadr = nq;
    tj->rot = tj->disp = tj->norm = -1;
    switch (tj->kind) {
      case MBD_TJ_REVOLUTE:
        tj->nq = 1;
        tj->rot = 0;
        break;
      case MBD_TJ_TRANSLATIONAL:
        tj->nq = 1;
        tj->disp = 0;
        break;
      case MBD_TJ_CYLINDRICAL:
        tj->nq = 2;
        tj->rot = 0;
        tj->disp = 1;
        break;
      case MBD_TJ_UNIVERSAL:
        tj->nq = 2;
        tj->rot = 0;
        break;
      case MBD_TJ_SPHERICAL:
        tj->nq = 4;
        tj->rot = 0;
        break;
      case MBD_TJ_FLOATING:
        tj->nq = m->dim == 3 ? 7 : 3;
        break;
      default:
        tj->nq = 0;
        break;
    }
    nq += tj->nq;
    if (tj->joint >= 0) {
      joint_constants(m, d, tj);
    }
  }
  mr->nq = mr->nv = nq;
  mr->nqi = nq;  // every tree coordinate is integrated (no surface parameters)
  mr->nblock = 1;
  mr->block = calloc(1, sizeof *mr->block);
  mr->q_asm = calloc((size_t)(nq ? nq : 1), sizeof(double));
  mr->v_asm = calloc((size_t)(nq ? nq : 1), sizeof(double));
  mr->memo_asm = dup(d->angle_memo, m->njoint, sizeof(double));
  if (!mr->block || !mr->q_asm || !mr->v_asm || !mr->memo_asm || number_rows(mr) < 0) {
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  mr->block[0] = (mbd_block){MBD_BLOCK_TREE, -1, 0, nq, 0, nq};
  // a recursive tree of Euler-parameter norm rows only (chains of spherical joints, floating
  // bodies): every row keeps its place (below), and a large one its rows out of the dense Φq
  int norm_rows = recursive && mr->mrow > 0;
  for (int r = 0; r < mr->mrow && norm_rows; r++) {
    norm_rows = mr->row[r].owner == MBD_ROW_TREE;
  }
  t->norms_implicit = norm_rows && mr->nv > TREE_NORMS_IMPLICIT_NV;
  for (int b = 1; b < mr->nbody; b++) {
    mr->body[b].block = 0;
  }
  // the assembled state: zero joint coordinates (identity Euler parameters), floating bodies
  // where they are
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (tj->kind == MBD_TJ_SPHERICAL) {
      mr->q_asm[tj->qadr] = 1;
    } else if (tj->kind == MBD_TJ_FLOATING) {
      const mbd_block *bl = &m->block[m->body[tj->child].block];
      memcpy(mr->q_asm + tj->qadr, d->q + bl->qadr, (size_t)tj->nq * sizeof(double));
    }
  }
  mbd_data *dr = mbd_data_alloc(mr, err);
  if (!dr) {
    mbd_model_free(mr);
    return MBD_E_NOMEM;
  }
  memcpy(dr->q, mr->q_asm, (size_t)nq * sizeof(double));
  memcpy(dr->angle_memo, mr->memo_asm, (size_t)m->njoint * sizeof(double));
  dr->t = d->t;
  rc = recursive ? fit_velocities_rec(m, d, mr, dr, err) : fit_velocities(m, d, mr, dr, err);
  // every row at the start: the cut joints close (the Cartesian state satisfied them)
  dr->ma = mr->mrow;
  for (int i = 0; i < mr->mrow; i++) {
    dr->active[i] = i;
  }
  if (rc == MBD_OK) {
    rc = mbd_kin_update(mr, dr, 0, err);
  }
  if (rc == MBD_OK) {
    double res = 0;
    int worst = 0;
    for (int r = 0; r < mr->mrow; r++) {
      if (fabs(dr->phi[r]) > res) {
        res = fabs(dr->phi[r]);
        worst = r;
      }
    }
    // the tree reproduces m's state to round-off over the mechanism's size; the assembly's own
    // residual (at most its tolerance) comes on top
    if (!(res <= 1e-8 + 100 * m->assembly_tol)) {
      char row[160];
      mbd_model_row_name(mr, worst, row, sizeof row);
      rc = MBD_FAIL(err, MBD_E_ASSEMBLY, MSG_KIN_TREE_START, m->name, res, row);
    }
  }
  // the rank test on the cut-joint rows, then the velocity analysis on the rows kept.  A
  // recursive tree whose rows are all Euler-parameter norms keeps every row without the test:
  // each row 2pᵀ (|p| = 1) over its own joint's four coordinates, disjoint from the others' (the
  // test reads the dense Φq whole and builds a rows × coordinates basis: at 4096 spherical joints
  // two arrays of 537 MB, the run's peak of 1.18 GB)
  if (rc == MBD_OK && norm_rows) {
    mr->ma0 = mr->mrow;
    for (int i = 0; i < mr->mrow; i++) {
      mr->active0[i] = i;
    }
    mr->rank = mr->mrow;
  } else if (rc == MBD_OK) {
    rc = mbd_kin_rank_test(mr, dr, err);
  }
  if (rc == MBD_OK) {
    dr->ma = mr->ma0;
    memcpy(dr->active, mr->active0, (size_t)mr->ma0 * sizeof(int));
    mbd_constraints_gather(mr, dr);
    rc = norms_only(mr) ? norm_velocities(mr, dr) : mbd_velocity_analysis(mr, dr, err);
  }
  if (rc == MBD_OK) {
    memcpy(mr->v_asm, dr->v, (size_t)nq * sizeof(double));
    rc = mbd_channels_build(mr, err);
  }
  mbd_data_free(dr);
  if (rc < 0) {
    mbd_model_free(mr);
    return rc;
  }
  mr->assembled = 1;
  *out = mr;
  return MBD_OK;
}

int mbd_model_tree(mbd_model *m, const char *const *cut, int ncut, char **text, mbd_error *err) {
  *text = NULL;
  int rc = mbd_model_assemble(m, NULL, err);
  if (rc < 0) {
    return rc;
  }
  mbd_data *d = mbd_data_alloc(m, err);
  if (!d) {
    return MBD_E_NOMEM;
  }
  mbd_data_reset(m, d);
  rc = mbd_kin_update(m, d, 0, err);
  mbd_model *mr = NULL;
  if (rc == MBD_OK) {
    rc = mbd_tree_build(m, d, cut, ncut, &mr, err);
  }
  if (rc == MBD_OK) {
    *text = mbd_tree_describe(mr);
    if (!*text) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "tree");
    }
  }
  mbd_model_free(mr);
  mbd_data_free(d);
  return rc;
}
