/* the spanning tree of the relative formulation (paper 002 eq 1–5): the model in joint
 * coordinates, and the body poses outward from the ground with their pose Jacobians.
 *
 * Building (tree_build.c, mbd_tree_build): Kruskal's algorithm on the joint graph keeps the joints
 * that add the fewest coordinates (a spherical joint, 4 with its norm, is cut before a revolute,
 * 1), ties (for kane and gcp) the clearly slower-turning first, then in declaration order, so the
 * loop-closing joint declared last is the one cut among equals; the joints the user names are cut
 * first.  A breadth-first pass from the ground orients the tree and numbers the
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
/* Euler-parameter (quaternion) algebra: c += s (a ⊗ b) (the product and conjugate: mbd/rot.h) */

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
  switch (tj->rotk) {
    case MBD_TROT_AXIS:
      o->nrot = 1;
      half_angle(tj->u, q[tj->rot], v[tj->rot], o->e, o->de[0], o->ed, o->he);
      break;
    case MBD_TROT_TWO_AXES: {
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
    case MBD_TROT_EULER:
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
    mbd_ep_conj(tj->c, cc);
    mbd_ep_conj(x, xc);
    mbd_ep_mul(cc, xc, y);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* poses outward                                                                               */

/* the joint's points: a_P in the parent's frame, a_C in the child's, and their rates; the body1
 * side carries the displacements, s1 + d0 + Σ dax_k x_k (x = q[disp ..], xd = v[disp ..]) */
static void joint_points(const mbd_tree_joint *tj, const double *x, const double *xd, double *aP,
                         double *aPd, double *aC, double *aCd) {
  double a1[3], a1d[3];
  for (int k = 0; k < 3; k++) {
    a1[k] = tj->s1[k] + tj->d0[k];
    a1d[k] = 0;
  }
  for (int i = 0; i < tj->ndisp; i++) {
    for (int k = 0; k < 3; k++) {
      a1[k] += tj->dax[i][k] * x[i];
      a1d[k] += tj->dax[i][k] * xd[i];
    }
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
  int moving = P->vadr >= 0;  // the ground's pose does not move
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
    double aP[3], aPd[3], aC[3], aCd[3];
    joint_points(tj, q + (tj->disp >= 0 ? tj->disp : 0), v + (tj->disp >= 0 ? tj->disp : 0), aP,
                 aPd, aC, aCd);
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
      for (int k = 0; k < tj->ndisp; k++) {
        // += : a screw's displacement column is its rotation column
        double Au[3];
        mbd_mat3_vec(tj->sigma > 0 ? P->A : Ac, tj->dax[k], Au);
        for (int i = 0; i < 3; i++) {
          R->S[(tj->disp + k) * 7 + i] += tj->sigma * Au[i];
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
    for (int k = 0; JC && k < tj->ndisp; k++) {
      double Au[3];
      mbd_mat3_vec(tj->sigma > 0 ? P->A : Ac, tj->dax[k], Au);
      double *jc = JC + (size_t)(tj->qadr + tj->disp + k) * 7;
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
static void planar_child(const mbd_model *m, int k, mbd_data *d) {  // (tree joint k)
  const mbd_tree_joint *tj = &m->tree->tj[k];
  int n = m->nv;
  const mbd_pose *P = &d->pose[tj->parent];
  mbd_pose *C = &d->pose[tj->child];
  int moving = P->vadr >= 0;
  mbd_tree_rec *R = d->trec ? &d->trec[tj->child] : NULL;
  const double *JP = moving && !R ? P->J : NULL;
  double *JC = R ? NULL : d->poseJ + (size_t)tj->child * MBD_NY_MAX * n;
  const double *q = d->q + tj->qadr, *v = d->v + tj->qadr;
  double cc, sc;  // cos, sin of the child's angle, once (the parent's are in its A)
  int fast = R && tj->pin;
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
    // the same order, on the terms that remain), but the child's cos, sin by the angle sum.  The
    // pose's other entries keep the zeros of the first pass (the memset above), and cos, sin
    // come first (fewer values live across the call).
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
    double aPx = tj->pa[0], aPy = tj->pa[1], aCx = tj->pc[0], aCy = tj->pc[1];
    double cp = P->A[0], sp = P->A[3];
    double AaP0 = cp * aPx - sp * aPy, AaP1 = sp * aPx + cp * aPy;
    double AaC0 = cc * aCx - sc * aCy, AaC1 = sc * aCx + cc * aCy;
    double RaP0 = -AaP1, RaP1 = AaP0, RaC0 = -AaC1, RaC1 = AaC0;
    double wp = P->pd[0], wc = C->pd[0];
    C->r[0] = P->r[0] + AaP0 - AaC0;
    C->r[1] = P->r[1] + AaP1 - AaC1;
    C->rd[0] = P->rd[0] + RaP0 * wp - RaC0 * wc;
    C->rd[1] = P->rd[1] + RaP1 * wp - RaC1 * wc;
    if (m->mrow > 0) {
      // the quadratic terms h, which only the rows' γ read in the recursive solve (tree_rec.c:
      // put_row): a model without rows leaves them at the first pass's zeros
      double hth = moving ? P->h[2] : 0;
      double hp0 = moving ? P->h[0] + RaP0 * hth : 0, hp1 = moving ? P->h[1] + RaP1 * hth : 0;
      C->h[0] = hp0 - AaP0 * wp * wp - (RaC0 * hth - AaC0 * wc * wc);
      C->h[1] = hp1 - AaP1 * wp * wp - (RaC1 * hth - AaC1 * wc * wc);
      C->h[2] = hth;
    }
    if (!d->pin || m->mrow > 0 || d->pin_yrec) {
      // the record F = [1 0 f0; 0 1 f1; 0 0 1], S = (s0, s1, σ), c = (c0, c1, 0), its constant
      // entries written once, when the data is allocated (model/data.c).  A tree of pins without
      // rows runs the pin sweeps alone, which read their own record below: this one only when
      // the velocity fit of tree_build.c asks (pin_yrec)
      R->F[6] = RaP0 - RaC0;
      R->F[7] = RaP1 - RaC1;
      R->S[0] = -RaC0 * sg;
      R->S[1] = -RaC1 * sg;
      R->c[0] = -AaP0 * wp * wp - (-AaC0 * wc * wc);
      R->c[1] = -AaP1 * wp * wp - (-AaC1 * wc * wc);
    }
    if (d->pin) {
      // a tree of pins: what its sweeps read of the pose, in its record (tree_impl.h), the
      // vector A_p l from the parent's joint point as A_p a_P less the parent's A_p a_C
      mbd_pin_rec *pr = &d->pin[k];
      pr->ax = AaC0;
      pr->ay = AaC1;
      pr->w2 = wc * wc;
      if (tj->ptk >= 0) {
        const mbd_pin_rec *pp = &d->pin[tj->ptk];
        pr->lx = AaP0 - pp->ax;
        pr->ly = AaP1 - pp->ay;
      }
    }
  } else if (tj->kind == MBD_TJ_FLOATING) {
    if (R) {
      rec_floating(R, 3);
    } else {
      memset(JC, 0, (size_t)3 * n * sizeof(double));
      for (int i = 0; i < 3; i++) {
        MBD_AT(JC, 3, i, tj->qadr + i) = 1;
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
    double aP[3], aPd[3], aC[3], aCd[3];
    joint_points(tj, q + (tj->disp >= 0 ? tj->disp : 0), v + (tj->disp >= 0 ? tj->disp : 0), aP,
                 aPd, aC, aCd);
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
      planar_child(m, k, d);
    }
  }
}

void mbd_tree_to_cartesian(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                           int accel) {
  d->t = x->t;
  mbd_stage_touch(d, MBD_STAGE_NONE);
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
static inline __attribute__((always_inline)) int small_lsq(const int m, const int k,
                                                           const double *A, const double *b,
                                                           double *x) {
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

/* the shapes a sample's reactions meet most (planar: a revolute's or a prismatic's two rows over
 * three pose coordinates; spatial: a revolute's five rows or a spherical's three, each with the
 * body's norm, over seven; others take the general case) with their sizes known to the compiler:
 * the same operations in the same order as the general case, a third of its instructions (the
 * reactions are recorded at every sample) */
int mbd_tree_small_lsq(int m, int k, const double *A, const double *b, double *x) {
  if (m == 3 && k == 2) {
    return small_lsq(3, 2, A, b, x);
  }
  if (m == 7 && k == 6) {
    return small_lsq(7, 6, A, b, x);
  }
  if (m == 7 && k == 4) {
    return small_lsq(7, 4, A, b, x);
  }
  return small_lsq(m, k, A, b, x);
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
static int multipliers_rec(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                           mbd_error *err) {
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
    if (mbd_tree_small_lsq(ny, nu, A, res, sol) != 0) {
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
    if (mbd_tree_small_lsq(nyc, nu, A, res, sol) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "reactions of the tree joints", d->t);
    }
    for (int u = 0; u < nu; u++) {
      d->lambda[urow[u]] = sol[u];
    }
  }
  return MBD_OK;
}
