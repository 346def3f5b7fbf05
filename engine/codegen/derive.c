/* symbolic derivation of the equations of a tree model (paper 002, sections 2–3)
 *
 * With every joint coordinate q_k and its rate v_k a variable of the symbolic engine:
 *   poses     r_b(q), p_b(q) outward from the ground by the composition of kinematics/tree.c
 *             (eq 1–4): p_c = p_p ⊗ K(q), r_c = r_p + A_p a_P − A_c a_C;
 *   B, h      the rows of the velocity transformation, ∂Y/∂q, and the quadratic terms
 *             h = (Bq̇)_q q̇, by the chain rule along the tree (eq 5; the paper's "depends" and
 *             "subst" steps: each body's derivatives are built from its parent's, never expanded
 *             from the root);
 *   M̄, ḡ      Σ_b V_bᵀ M_b V_b and Σ_b V_bᵀ R_b in Newton–Euler form: V_b the rows of the body's
 *             velocity (ṙ, ω' = 2G(p)ṗ) in q̇, M_b = diag(m I, J'), R_b = (m g + F − m h_r,
 *             n' − ω'×J'ω' − J'·2G h_p).  On the unit sphere this equals the Euler-parameter form
 *             of model/body_kinds.c (M = diag(m I, 4GᵀJ'G), Q_p = 2Gᵀn' − 4ĠᵀJ'ω') but for a
 *             force along each Euler-parameter block's own direction, which the norm row's
 *             multiplier takes (the accelerations are the same) — with half the terms.  Gravity,
 *             constant forces and torques, translational springs, and the rotational springs on
 *             tree joints (their torque acts on the coordinate itself);
 *   rows      the cut joints' equations (Haug's joint library, as model/joint_types.c) written
 *             in q, Φq = ∂Φ/∂q by symbolic differentiation over the coordinates the two bodies
 *             depend on, γ = −(Φq q̇)_q q̇ (eq 6–8); a drive's joint coordinate c(q) with ∂c/∂q and
 *             (c_q q̇)_q q̇ (its f(t) is added at run time); the norms eᵀe − 1 of Euler parameters.
 * Forces given as functions of time and state, and springs on a cut joint's angle, stay
 * numeric (code.c adds them at run time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_msg.h"
#include "mbd/sym_rot.h"

/* the symbolic pose of one body */
typedef struct spose {
  int ny;                 /* 3 planar, 7 spatial, 0 the ground */
  mbd_sym_id r[3], rd[3]; /* CM position and velocity (planar: r[2] = 0) */
  mbd_sym_id p[4], pd[4]; /* spatial Euler parameters and rates; planar p[0] = θ */
  mbd_sym_id A[9];        /* rotation body → global */
  mbd_sym_id h[7];        /* quadratic terms Ÿ = B q̈ + h */
  mbd_sym_id *J;          /* ny × n by rows (B of this body), NULL for the ground */
} spose;

typedef struct der {
  mbd_sym_ctx *ctx;
  const mbd_model *m;
  int n;
  mbd_sym_id zero, one;
  mbd_sym_id *q, *v;    /* n each */
  spose *ps;            /* nbody */
  mbd_sym_id *Jall;     /* nbody × 7 × n */
  char *dep;            /* nbody × n: 1 when body b's pose depends on coordinate k */
  mbd_sym_id (*tc)[4];  /* ntj: each tree joint's frame c, separation d0 and universal axis w: */
  mbd_sym_id (*td0)[3]; /*   constants, or a macro shape's parameters */
  mbd_sym_id (*tw)[3];
  mbd_sym_id (*tl)[4]; /* ntj: a frame on the parent's side, K = l ⊗ ε ⊗ c (the identity but in a
                          shape: a ball joint to the ground sees the copy's frame turned) */
  mbd_sym_id grav[3];      /* gravity (a shape: seen in the copy's frame, a parameter) */
  const mbd_sym_id *R;     /* 9: turns the cut joints' point rows global (a shape), or NULL */
  const mbd_eqs_macros *P; /* the model's copies (their bodies' poses are inputs), or NULL */
  mbd_sym_id *cvar;        /* the copies' bodies' outputs as variables (P->nvin − 2n) */
} der;

/* ------------------------------------------------------------------------------------------ */
/* small helpers                                                                               */

static mbd_sym_id K(der *D, double x) { return mbd_sym_const(D->ctx, x); }

static mbd_sym_id add2(der *D, mbd_sym_id a, mbd_sym_id b) {
  mbd_sym_id t[2] = {a, b};
  return mbd_sym_add_n(D->ctx, 2, t);
}

static mbd_sym_id mul2(der *D, mbd_sym_id a, mbd_sym_id b) { return mbd_sym_mul(D->ctx, a, b); }

static mbd_sym_id scl(der *D, double s, mbd_sym_id a) { return mbd_sym_mul(D->ctx, K(D, s), a); }

static int is_zero(der *D, mbd_sym_id a) {
  double v;
  return mbd_sym_is_const(D->ctx, a, &v) && v == 0;
}

/* c += s · (a ⊗ b) */
static void qmul_acc(der *D, const mbd_sym_id *a, const mbd_sym_id *b, double s, mbd_sym_id *c) {
  mbd_sym_id t[4];
  mbd_sym_qmul(D->ctx, a, b, t);
  for (int k = 0; k < 4; k++) {
    c[k] = add2(D, c[k], scl(D, s, t[k]));
  }
}

/* y += s · B x for a 3×4 B */
static void b_acc(der *D, const mbd_sym_id *B, const mbd_sym_id *x, double s, mbd_sym_id *y) {
  mbd_sym_id t[3];
  mbd_sym_matvec(D->ctx, 3, 4, B, x, t);
  for (int i = 0; i < 3; i++) {
    y[i] = add2(D, y[i], scl(D, s, t[i]));
  }
}

/* ------------------------------------------------------------------------------------------ */
/* poses outward (kinematics/tree.c, symbolically)                                             */

/* (cos θ/2, sin θ/2 u), its θ-derivative, rate and quadratic term */
static void half_angle(der *D, const mbd_sym_id *u, mbd_sym_id th, mbd_sym_id thd, mbd_sym_id *e,
                       mbd_sym_id *de, mbd_sym_id *ed, mbd_sym_id *he) {
  mbd_sym_id half = scl(D, 0.5, th);
  mbd_sym_id c = mbd_sym_cos(D->ctx, half), s = mbd_sym_sin(D->ctx, half);
  e[0] = c;
  de[0] = scl(D, -0.5, s);
  for (int k = 0; k < 3; k++) {
    e[1 + k] = mul2(D, u[k], s);
    de[1 + k] = scl(D, 0.5, mul2(D, u[k], c));
  }
  mbd_sym_id w2 = mbd_sym_mul(D->ctx, thd, thd);
  for (int k = 0; k < 4; k++) {
    ed[k] = mul2(D, de[k], thd);
    he[k] = mbd_sym_mul(D->ctx, scl(D, -0.25, w2), e[k]);
  }
}

typedef struct srel {
  mbd_sym_id e[4], de[4][4], ed[4], he[4];
  int nrot;
} srel;

static void relative_rotation(der *D, const mbd_tree_joint *tj, srel *o) {
  const mbd_sym_id *q = D->q + tj->qadr, *v = D->v + tj->qadr;
  mbd_sym_id u[3];
  mbd_sym_consts(D->ctx, 3, tj->u, u);
  const mbd_sym_id *w = D->tw[tj - D->m->tree->tj];
  o->nrot = 0;
  for (int k = 0; k < 4; k++) {
    o->e[k] = k == 0 ? D->one : D->zero;
    o->ed[k] = o->he[k] = D->zero;
  }
  switch (tj->rotk) {
    case MBD_TROT_AXIS:
      o->nrot = 1;
      half_angle(D, u, q[tj->rot], v[tj->rot], o->e, o->de[0], o->ed, o->he);
      break;
    case MBD_TROT_TWO_AXES: {
      mbd_sym_id a[4], da[4], ad[4], ha[4], b[4], db[4], bd[4], hb[4];
      half_angle(D, u, q[tj->rot], v[tj->rot], a, da, ad, ha);
      half_angle(D, w, q[tj->rot + 1], v[tj->rot + 1], b, db, bd, hb);
      o->nrot = 2;
      mbd_sym_qmul(D->ctx, a, b, o->e);
      mbd_sym_qmul(D->ctx, da, b, o->de[0]);
      mbd_sym_qmul(D->ctx, a, db, o->de[1]);
      mbd_sym_qmul(D->ctx, ad, b, o->ed);
      qmul_acc(D, a, bd, 1, o->ed);
      mbd_sym_qmul(D->ctx, ha, b, o->he);
      qmul_acc(D, ad, bd, 2, o->he);
      qmul_acc(D, a, hb, 1, o->he);
      break;
    }
    case MBD_TROT_EULER:
      o->nrot = 4;
      for (int k = 0; k < 4; k++) {
        o->e[k] = q[tj->rot + k];
        o->ed[k] = v[tj->rot + k];
        for (int l = 0; l < 4; l++) {
          o->de[k][l] = l == k ? D->one : D->zero;
        }
      }
      break;
    default:
      break;
  }
}

/* x ⊗ c (the child is body2) or c* ⊗ x* (body1) */
static void to_child(der *D, const mbd_tree_joint *tj, const mbd_sym_id *x, mbd_sym_id *y) {
  const mbd_sym_id *c = D->tc[tj - D->m->tree->tj], *l = D->tl[tj - D->m->tree->tj];
  if (tj->sigma > 0) {
    mbd_sym_id xc[4];
    mbd_sym_qmul(D->ctx, x, c, xc);
    mbd_sym_qmul(D->ctx, l, xc, y);
  } else {
    mbd_sym_id cc[4], xc[4];
    mbd_sym_qconj(D->ctx, c, cc);
    mbd_sym_qconj(D->ctx, x, xc);
    mbd_sym_qmul(D->ctx, cc, xc, y);
  }
}

/* the joint's points a_P (parent frame), a_C (child frame) and their rates */
static void joint_points(der *D, const mbd_tree_joint *tj, mbd_sym_id *aP, mbd_sym_id *aPd,
                         mbd_sym_id *aC, mbd_sym_id *aCd) {
  // the body1 side carries the displacements: s1 + d0 + Σ dax_k x_k (tree_impl.h)
  mbd_sym_id a1[3], a1d[3], s2[3];
  mbd_sym_id x = tj->disp >= 0 ? D->q[tj->qadr + tj->disp] : D->zero;
  mbd_sym_id xd = tj->disp >= 0 ? D->v[tj->qadr + tj->disp] : D->zero;
  const mbd_sym_id *d0 = D->td0[tj - D->m->tree->tj];
  for (int k = 0; k < 3; k++) {
    double u0 = tj->ndisp ? tj->dax[0][k] : tj->u[k];  // (x = 0 without a displacement)
    mbd_sym_id t[4] = {K(D, tj->s1[k]), d0[k], scl(D, u0, x), D->zero};
    mbd_sym_id td[2] = {scl(D, u0, xd), D->zero};
    if (tj->ndisp > 1) {
      t[3] = scl(D, tj->dax[1][k], D->q[tj->qadr + tj->disp + 1]);
      td[1] = scl(D, tj->dax[1][k], D->v[tj->qadr + tj->disp + 1]);
    }
    a1[k] = mbd_sym_add_n(D->ctx, tj->ndisp > 1 ? 4 : 3, t);
    a1d[k] = tj->ndisp > 1 ? mbd_sym_add_n(D->ctx, 2, td) : td[0];
    s2[k] = K(D, tj->s2[k]);
  }
  for (int k = 0; k < 3; k++) {
    aP[k] = tj->sigma > 0 ? a1[k] : s2[k];
    aPd[k] = tj->sigma > 0 ? a1d[k] : D->zero;
    aC[k] = tj->sigma > 0 ? s2[k] : a1[k];
    aCd[k] = tj->sigma > 0 ? D->zero : a1d[k];
  }
}

#define JC(ps, row, col) ((ps)->J[(size_t)(row)*n + (col)])

static void spatial_child(der *D, const mbd_tree_joint *tj) {
  int n = D->n;
  mbd_sym_ctx *ctx = D->ctx;
  const spose *P = &D->ps[tj->parent];
  spose *C = &D->ps[tj->child];
  C->ny = 7;
  C->J = D->Jall + (size_t)tj->child * 7 * n;
  const mbd_sym_id *q = D->q + tj->qadr, *v = D->v + tj->qadr;
  if (tj->kind == MBD_TJ_FLOATING) {
    for (int k = 0; k < 7; k++) {
      for (int c = 0; c < n; c++) {
        JC(C, k, c) = c == tj->qadr + k ? D->one : D->zero;
      }
      C->h[k] = D->zero;
    }
    for (int k = 0; k < 3; k++) {
      C->r[k] = q[k];
      C->rd[k] = v[k];
    }
    for (int k = 0; k < 4; k++) {
      C->p[k] = q[3 + k];
      C->pd[k] = v[3 + k];
    }
    mbd_sym_ep_A(ctx, C->p, C->A);
    return;
  }
  // orientation: p_c = p_p ⊗ K
  srel rr;
  relative_rotation(D, tj, &rr);
  mbd_sym_id Kq[4], Kd[4], hK[4], dK[4][4];
  to_child(D, tj, rr.e, Kq);
  to_child(D, tj, rr.ed, Kd);
  to_child(D, tj, rr.he, hK);
  for (int k = 0; k < rr.nrot; k++) {
    to_child(D, tj, rr.de[k], dK[k]);
  }
  mbd_sym_qmul(ctx, P->p, Kq, C->p);
  mbd_sym_qmul(ctx, P->pd, Kq, C->pd);
  qmul_acc(D, P->p, Kd, 1, C->pd);
  mbd_sym_id hp[4];
  mbd_sym_qmul(ctx, P->h + 3, Kq, hp);
  qmul_acc(D, P->pd, Kd, 2, hp);
  qmul_acc(D, P->p, hK, 1, hp);
  for (int k = 0; k < 4; k++) {
    C->h[3 + k] = hp[k];
  }
  // B rows of p: J_pp ⊗ K, plus p_p ⊗ ∂K/∂q on the joint's rotation columns
  for (int c = 0; c < n; c++) {
    mbd_sym_id col[4], out[4] = {D->zero, D->zero, D->zero, D->zero};
    if (P->J) {
      for (int k = 0; k < 4; k++) {
        col[k] = JC(P, 3 + k, c);
      }
      if (!(is_zero(D, col[0]) && is_zero(D, col[1]) && is_zero(D, col[2]) && is_zero(D, col[3]))) {
        mbd_sym_qmul(ctx, col, Kq, out);
      }
    }
    int kr = c - tj->qadr - tj->rot;
    if (tj->rot >= 0 && kr >= 0 && kr < rr.nrot) {
      qmul_acc(D, P->p, dK[kr], 1, out);
    }
    for (int k = 0; k < 4; k++) {
      JC(C, 3 + k, c) = out[k];
    }
  }
  // position: r_c = r_p + A_p a_P − A_c a_C
  mbd_sym_ep_A(ctx, C->p, C->A);
  mbd_sym_id aP[3], aPd[3], aC[3], aCd[3];
  joint_points(D, tj, aP, aPd, aC, aCd);
  mbd_sym_id BP[12], BC[12], BPd[12], BCd[12], BPa[12], BCa[12], AaP[3], AaC[3], AdP[3], AdC[3];
  mbd_sym_ep_B(ctx, P->p, aP, BP);
  mbd_sym_ep_B(ctx, C->p, aC, BC);
  mbd_sym_ep_B(ctx, P->pd, aP, BPd);
  mbd_sym_ep_B(ctx, C->pd, aC, BCd);
  mbd_sym_ep_B(ctx, P->p, aPd, BPa);
  mbd_sym_ep_B(ctx, C->p, aCd, BCa);
  mbd_sym_matvec(ctx, 3, 3, P->A, aP, AaP);
  mbd_sym_matvec(ctx, 3, 3, C->A, aC, AaC);
  mbd_sym_matvec(ctx, 3, 3, P->A, aPd, AdP);
  mbd_sym_matvec(ctx, 3, 3, C->A, aCd, AdC);
  for (int i = 0; i < 3; i++) {
    mbd_sym_id t[3] = {P->r[i], AaP[i], mbd_sym_neg(ctx, AaC[i])};
    C->r[i] = mbd_sym_add_n(ctx, 3, t);
    mbd_sym_id u[3] = {P->rd[i], AdP[i], mbd_sym_neg(ctx, AdC[i])};
    C->rd[i] = mbd_sym_add_n(ctx, 3, u);
    C->h[i] = P->h[i];
  }
  b_acc(D, BP, P->pd, 1, C->rd);
  b_acc(D, BC, C->pd, -1, C->rd);
  b_acc(D, BP, P->h + 3, 1, C->h);
  b_acc(D, BPd, P->pd, 1, C->h);
  b_acc(D, BPa, P->pd, 2, C->h);
  b_acc(D, BC, C->h + 3, -1, C->h);
  b_acc(D, BCd, C->pd, -1, C->h);
  b_acc(D, BCa, C->pd, -2, C->h);
  // B rows of r: J_rp + B(p_p, a_P) J_pp − B(p_c, a_C) J_pc, and the displacement column
  mbd_sym_id Au[2][3] = {{D->zero, D->zero, D->zero}, {D->zero, D->zero, D->zero}};
  for (int k = 0; k < tj->ndisp; k++) {
    mbd_sym_id u[3];
    mbd_sym_consts(ctx, 3, tj->dax[k], u);
    mbd_sym_matvec(ctx, 3, 3, tj->sigma > 0 ? P->A : C->A, u, Au[k]);
  }
  for (int c = 0; c < n; c++) {
    mbd_sym_id out[3], jp[4], jc[4];
    for (int k = 0; k < 4; k++) {
      jp[k] = P->J ? JC(P, 3 + k, c) : D->zero;
      jc[k] = JC(C, 3 + k, c);
    }
    for (int i = 0; i < 3; i++) {
      out[i] = P->J ? JC(P, i, c) : D->zero;
    }
    if (P->J) {
      b_acc(D, BP, jp, 1, out);
    }
    b_acc(D, BC, jc, -1, out);
    for (int k = 0; k < tj->ndisp; k++) {
      if (c == tj->qadr + tj->disp + k) {
        for (int i = 0; i < 3; i++) {
          out[i] = add2(D, out[i], scl(D, tj->sigma, Au[k][i]));
        }
      }
    }
    for (int i = 0; i < 3; i++) {
      JC(C, i, c) = out[i];
    }
  }
}

static void planar_child(der *D, const mbd_tree_joint *tj) {
  int n = D->n;
  mbd_sym_ctx *ctx = D->ctx;
  const spose *P = &D->ps[tj->parent];
  spose *C = &D->ps[tj->child];
  C->ny = 3;
  C->J = D->Jall + (size_t)tj->child * 7 * n;
  const mbd_sym_id *q = D->q + tj->qadr, *v = D->v + tj->qadr;
  C->r[2] = C->rd[2] = D->zero;
  if (tj->kind == MBD_TJ_FLOATING) {
    for (int k = 0; k < 3; k++) {
      for (int c = 0; c < n; c++) {
        JC(C, k, c) = c == tj->qadr + k ? D->one : D->zero;
      }
      C->h[k] = D->zero;
    }
    C->r[0] = q[0];
    C->r[1] = q[1];
    C->p[0] = q[2];
    C->rd[0] = v[0];
    C->rd[1] = v[1];
    C->pd[0] = v[2];
  } else {
    // θ_c = θ_p + σ(c0 + θ)
    mbd_sym_id th = tj->rot >= 0 ? q[tj->rot] : D->zero, thd = tj->rot >= 0 ? v[tj->rot] : D->zero;
    C->p[0] = add2(D, P->p[0], scl(D, tj->sigma, add2(D, D->tc[tj - D->m->tree->tj][0], th)));
    C->pd[0] = add2(D, P->pd[0], scl(D, tj->sigma, thd));
    C->h[2] = P->h[2];
    for (int c = 0; c < n; c++) {
      mbd_sym_id jt = P->J ? JC(P, 2, c) : D->zero;
      if (tj->rot >= 0 && c == tj->qadr + tj->rot) {
        jt = add2(D, jt, K(D, tj->sigma));
      }
      JC(C, 2, c) = jt;
    }
    // r_c = r_p + A_p a_P − A_c a_C
    mbd_sym_id aP[3], aPd[3], aC[3], aCd[3];
    joint_points(D, tj, aP, aPd, aC, aCd);
    mbd_sym_id cp = mbd_sym_cos(ctx, P->p[0]), sp = mbd_sym_sin(ctx, P->p[0]);
    mbd_sym_id cc = mbd_sym_cos(ctx, C->p[0]), sc = mbd_sym_sin(ctx, C->p[0]);
    // A a = (c a0 − s a1, s a0 + c a1)
#define ROT(cs, sn, a, o)                                                \
  do {                                                                   \
    (o)[0] = mbd_sym_sub(ctx, mul2(D, cs, (a)[0]), mul2(D, sn, (a)[1])); \
    (o)[1] = add2(D, mul2(D, sn, (a)[0]), mul2(D, cs, (a)[1]));          \
  } while (0)
    mbd_sym_id AaP[2], AdP[2], AaC[2], AdC[2];
    ROT(cp, sp, aP, AaP);
    ROT(cp, sp, aPd, AdP);
    ROT(cc, sc, aC, AaC);
    ROT(cc, sc, aCd, AdC);
    mbd_sym_id RaP[2] = {mbd_sym_neg(ctx, AaP[1]), AaP[0]},
               RdP[2] = {mbd_sym_neg(ctx, AdP[1]), AdP[0]};
    mbd_sym_id RaC[2] = {mbd_sym_neg(ctx, AaC[1]), AaC[0]},
               RdC[2] = {mbd_sym_neg(ctx, AdC[1]), AdC[0]};
    mbd_sym_id wp = P->pd[0], wc = C->pd[0];
    mbd_sym_id wp2 = mul2(D, wp, wp), wc2 = mul2(D, wc, wc);
    for (int i = 0; i < 2; i++) {
      mbd_sym_id t[3] = {P->r[i], AaP[i], mbd_sym_neg(ctx, AaC[i])};
      C->r[i] = mbd_sym_add_n(ctx, 3, t);
      mbd_sym_id u[5] = {P->rd[i], mul2(D, RaP[i], wp), AdP[i],
                         mbd_sym_neg(ctx, mul2(D, RaC[i], wc)), mbd_sym_neg(ctx, AdC[i])};
      C->rd[i] = mbd_sym_add_n(ctx, 5, u);
      mbd_sym_id h[7] = {P->h[i],
                         mul2(D, RaP[i], P->h[2]),
                         mbd_sym_neg(ctx, mul2(D, AaP[i], wp2)),
                         scl(D, 2, mul2(D, RdP[i], wp)),
                         mbd_sym_neg(ctx, mul2(D, RaC[i], C->h[2])),
                         mul2(D, AaC[i], wc2),
                         scl(D, -2, mul2(D, RdC[i], wc))};
      C->h[i] = mbd_sym_add_n(ctx, 7, h);
    }
    mbd_sym_id Au[2] = {D->zero, D->zero};
    if (tj->disp >= 0) {
      mbd_sym_id u[2] = {K(D, tj->u[0]), K(D, tj->u[1])};
      if (tj->sigma > 0) {
        ROT(cp, sp, u, Au);
      } else {
        ROT(cc, sc, u, Au);
      }
    }
#undef ROT
    for (int c = 0; c < n; c++) {
      for (int i = 0; i < 2; i++) {
        mbd_sym_id t[4] = {
            P->J ? JC(P, i, c) : D->zero, P->J ? mul2(D, RaP[i], JC(P, 2, c)) : D->zero,
            mbd_sym_neg(ctx, mul2(D, RaC[i], JC(C, 2, c))),
            (tj->disp >= 0 && c == tj->qadr + tj->disp) ? scl(D, tj->sigma, Au[i]) : D->zero};
        JC(C, i, c) = mbd_sym_add_n(ctx, 4, t);
      }
    }
  }
  mbd_sym_id cth = mbd_sym_cos(ctx, C->p[0]), sth = mbd_sym_sin(ctx, C->p[0]);
  for (int k = 0; k < 9; k++) {
    C->A[k] = D->zero;
  }
  C->A[0] = cth;
  C->A[1] = mbd_sym_neg(ctx, sth);
  C->A[3] = sth;
  C->A[4] = cth;
  C->A[8] = D->one;
}

/* ------------------------------------------------------------------------------------------ */
/* vectors of the joint equations, in q                                                        */

/* r_b + A_b s (the ground: s) */
static void point(der *D, int b, const double *s, mbd_sym_id *o) {
  mbd_sym_id sv[3], As[3];
  mbd_sym_consts(D->ctx, 3, s, sv);
  if (b == 0) {
    memcpy(o, sv, sizeof sv);
    return;
  }
  const spose *P = &D->ps[b];
  mbd_sym_matvec(D->ctx, 3, 3, P->A, sv, As);
  for (int i = 0; i < 3; i++) {
    o[i] = add2(D, P->r[i], As[i]);
  }
}

/* A_b a */
static void axis(der *D, int b, const double *a, mbd_sym_id *o) {
  mbd_sym_id av[3];
  mbd_sym_consts(D->ctx, 3, a, av);
  if (b == 0) {
    memcpy(o, av, sizeof av);
    return;
  }
  mbd_sym_matvec(D->ctx, 3, 3, D->ps[b].A, av, o);
}

static void cross_d(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* the equations of joint j: its type's row table (model/joint_types.c), nrow of them, over the
 * same vectors as the numeric rows.  A screw's angle is atan2's own (−π, π]: the code that runs
 * the equations adds the turns its memo counted (code.c) */
static void joint_rows(der *D, const mbd_joint *j, mbd_sym_id *rows) {
  mbd_sym_ctx *ctx = D->ctx;
  const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
  int dx = MBD_DIMX(D->m);
  mbd_sym_id P1[3], P2[3], V[MBD_JV_N][3];
  point(D, j->body1, j->at1, P1);
  point(D, j->body2, j->at2, P2);
  for (int i = 0; i < 3; i++) {
    V[MBD_JV_D][i] = mbd_sym_sub(ctx, P2[i], P1[i]);
  }
  // the coincidence rows (d itself): a shape's are turned from the copy's frame into the global
  // one, where the model's multipliers live; the dot rows are the same in every frame
  mbd_sym_id dg[3] = {V[MBD_JV_D][0], V[MBD_JV_D][1], V[MBD_JV_D][2]};
  if (D->R) {
    mbd_sym_matvec(ctx, 3, 3, D->R, V[MBD_JV_D], dg);
  }
  mbd_sym_id ang = D->zero;
  if (dx == 0) {
    mbd_sym_id th = mbd_sym_sub(ctx, j->body2 ? D->ps[j->body2].p[0] : D->zero,
                                j->body1 ? D->ps[j->body1].p[0] : D->zero);
    ang = mbd_sym_sub(ctx, th, K(D, j->angle0));
    if (jt->row[0][0].op == MBD_JR_DOT) {  // n1 = A1 R90 axis1
      double nb[3] = {-j->axis1[1], j->axis1[0], 0};
      axis(D, j->body1, nb, V[MBD_JV_N1]);
    }
  } else {
    double g[3];
    cross_d(j->axis1, j->ref1, g);
    axis(D, j->body1, j->ref1, V[MBD_JV_F1]);
    axis(D, j->body1, g, V[MBD_JV_G1]);
    axis(D, j->body1, j->axis1, V[MBD_JV_H1]);
    axis(D, j->body2, j->ref2, V[MBD_JV_F2]);
    axis(D, j->body2, j->axis2, V[MBD_JV_H2]);
  }
  int nd = dx ? 3 : 2;
  for (int k = 0; k < jt->nrow[dx]; k++) {
    const mbd_joint_row_def *r = &jt->row[dx][k];
    switch (r->op) {
      case MBD_JR_COMP:
        rows[k] = dg[r->b];
        break;
      case MBD_JR_DOT:
        rows[k] = mbd_sym_dot(ctx, nd, V[r->a], V[r->b]);
        break;
      case MBD_JR_LOCK:
        rows[k] = ang;
        break;
      case MBD_JR_SCREW: {
        mbd_sym_id th = mbd_sym_atan2(ctx, mbd_sym_dot(ctx, 3, V[MBD_JV_G1], V[MBD_JV_F2]),
                                      mbd_sym_dot(ctx, 3, V[MBD_JV_F1], V[MBD_JV_F2]));
        mbd_sym_id t[3] = {mbd_sym_dot(ctx, 3, V[MBD_JV_H1], V[MBD_JV_D]), K(D, -j->disp0),
                           scl(D, -j->lead, th)};
        rows[k] = mbd_sym_add_n(ctx, 3, t);
        break;
      }
      default:
        rows[k] = D->zero;
        break;
    }
  }
}

/* the relative coordinate of kind `kind` of a cut joint (mbd_joint_coord_row, raw: the spatial
 * angle without its memo) */
static mbd_sym_id cut_coordinate(der *D, const mbd_joint *j, int kind) {
  mbd_sym_ctx *ctx = D->ctx;
  if (kind == MBD_COORD_DISPLACEMENT) {
    mbd_sym_id P1[3], P2[3], d[3], u[3];
    point(D, j->body1, j->at1, P1);
    point(D, j->body2, j->at2, P2);
    for (int i = 0; i < 3; i++) {
      d[i] = mbd_sym_sub(ctx, P2[i], P1[i]);
    }
    axis(D, j->body1, j->axis1, u);
    return mbd_sym_dot(ctx, D->m->dim, u, d);
  }
  if (D->m->dim == 2) {
    return mbd_sym_sub(ctx, j->body2 ? D->ps[j->body2].p[0] : D->zero,
                       j->body1 ? D->ps[j->body1].p[0] : D->zero);
  }
  double g[3];
  cross_d(j->axis1, j->ref1, g);
  mbd_sym_id f1[3], g1[3], f2[3];
  axis(D, j->body1, j->ref1, f1);
  axis(D, j->body1, g, g1);
  axis(D, j->body2, j->ref2, f2);
  return mbd_sym_atan2(ctx, mbd_sym_dot(ctx, 3, g1, f2), mbd_sym_dot(ctx, 3, f1, f2));
}

/* Φq (n entries) and γ = −(Φq q̇)_q q̇ of an expression over the coordinates in dep */
static void row_derivatives(der *D, mbd_sym_id phi, const char *dep, mbd_sym_id *phiq,
                            mbd_sym_id *gamma) {
  mbd_sym_ctx *ctx = D->ctx;
  int n = D->n;
  mbd_sym_id *terms = malloc(sizeof(mbd_sym_id) * (size_t)(n ? n : 1));
  int nt = 0;
  for (int c = 0; c < n; c++) {
    phiq[c] = dep[c] ? mbd_sym_diff(ctx, phi, D->q[c]) : D->zero;
    if (dep[c] && terms) {
      terms[nt++] = mul2(D, phiq[c], D->v[c]);
    }
  }
  mbd_sym_id phidot = terms ? mbd_sym_add_n(ctx, nt, terms) : MBD_SYM_NONE;
  nt = 0;
  for (int c = 0; c < n && terms; c++) {
    if (dep[c]) {
      terms[nt++] = mul2(D, mbd_sym_diff(ctx, phidot, D->q[c]), D->v[c]);
    }
  }
  *gamma = terms ? mbd_sym_neg(ctx, mbd_sym_add_n(ctx, nt, terms)) : MBD_SYM_NONE;
  free(terms);
}

/* ------------------------------------------------------------------------------------------ */
/* forces                                                                                      */

/* accumulated generalized forces of one body in its pose coordinates: F (global force at the
 * CM), nb (body-frame moment) — spatial; F and T (about z) — planar */
typedef struct sload {
  mbd_sym_id F[3], nb[3], T;
} sload;

/* a global force F at body point s */
static void load_point(der *D, int b, sload *L, const mbd_sym_id *F, const double *s) {
  mbd_sym_ctx *ctx = D->ctx;
  const spose *P = &D->ps[b];
  for (int i = 0; i < 3; i++) {
    L->F[i] = add2(D, L->F[i], F[i]);
  }
  mbd_sym_id sv[3];
  mbd_sym_consts(ctx, 3, s, sv);
  if (D->m->dim == 3) {
    mbd_sym_id Fb[3], nb[3];
    mbd_sym_matvec_t(ctx, 3, 3, P->A, F, Fb);
    mbd_sym_cross(ctx, sv, Fb, nb);
    for (int i = 0; i < 3; i++) {
      L->nb[i] = add2(D, L->nb[i], nb[i]);
    }
  } else {
    mbd_sym_id As[3];
    mbd_sym_matvec(ctx, 3, 3, P->A, sv, As);
    L->T = add2(D, L->T, mbd_sym_sub(ctx, mul2(D, As[0], F[1]), mul2(D, As[1], F[0])));
  }
}

/* position and velocity of a point s of body b */
static void point_state(der *D, int b, const double *s, mbd_sym_id *P, mbd_sym_id *V) {
  mbd_sym_ctx *ctx = D->ctx;
  point(D, b, s, P);
  if (b == 0) {
    V[0] = V[1] = V[2] = D->zero;
    return;
  }
  const spose *ps = &D->ps[b];
  mbd_sym_id sv[3];
  mbd_sym_consts(ctx, 3, s, sv);
  if (D->m->dim == 3) {
    mbd_sym_id B[12], Bp[3];
    mbd_sym_ep_B(ctx, ps->p, sv, B);
    mbd_sym_matvec(ctx, 3, 4, B, ps->pd, Bp);
    for (int i = 0; i < 3; i++) {
      V[i] = add2(D, ps->rd[i], Bp[i]);
    }
  } else {
    mbd_sym_id As[3];
    mbd_sym_matvec(ctx, 3, 3, ps->A, sv, As);
    V[0] = mbd_sym_sub(ctx, ps->rd[0], mul2(D, As[1], ps->pd[0]));
    V[1] = add2(D, ps->rd[1], mul2(D, As[0], ps->pd[0]));
    V[2] = D->zero;
  }
}

/* M̄ (upper triangle by rows) and ḡ into out */
static int dynamics(der *D, const mbd_eqs_layout *L, mbd_sym_id *out) {
  const mbd_model *m = D->m;
  mbd_sym_ctx *ctx = D->ctx;
  int n = D->n, nb = m->nbody, dim = m->dim;
  sload *ld = calloc((size_t)nb, sizeof *ld);
  // per-entry term lists: M̄ (n(n+1)/2) and ḡ (n), nb terms at most per entry plus forces
  int nM = n * (n + 1) / 2;
  int cap = nb + m->nrspring + 1;
  mbd_sym_id *tM = malloc(sizeof(mbd_sym_id) * (size_t)(nM ? nM : 1) * cap);
  mbd_sym_id *tg = malloc(sizeof(mbd_sym_id) * (size_t)(n ? n : 1) * cap);
  int *cM = calloc((size_t)(nM ? nM : 1), sizeof(int)),
      *cg = calloc((size_t)(n ? n : 1), sizeof(int));
  mbd_sym_id *MJ = malloc(sizeof(mbd_sym_id) * 7 * (size_t)(n ? n : 1));
  mbd_sym_id *VJ = malloc(sizeof(mbd_sym_id) * 7 * (size_t)(n ? n : 1));
  char *nz = malloc((size_t)(n ? n : 1));
  if (!ld || !tM || !tg || !cM || !cg || !MJ || !VJ || !nz) {
    free(ld), free(tM), free(tg), free(cM), free(cg), free(MJ), free(VJ), free(nz);
    return MBD_E_NOMEM;
  }
  for (int b = 0; b < nb; b++) {
    for (int i = 0; i < 3; i++) {
      ld[b].F[i] = ld[b].nb[i] = D->zero;
    }
    ld[b].T = D->zero;
  }
  // applied loads: constant forces and torques, translational spring-dampers
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    if (L->force_numeric[i]) {
      continue;
    }
    mbd_sym_id F[3];
    if (f->kind == FORCE_POINT) {
      double v[3] = {f->value[0], f->value[1], dim == 3 ? f->value[2] : 0};
      mbd_sym_consts(ctx, 3, v, F);
      load_point(D, f->body, &ld[f->body], F, f->at);
    } else if (dim == 3) {
      mbd_sym_consts(ctx, 3, f->value, F);
      mbd_sym_id Tb[3];
      mbd_sym_matvec_t(ctx, 3, 3, D->ps[f->body].A, F, Tb);
      for (int k = 0; k < 3; k++) {
        ld[f->body].nb[k] = add2(D, ld[f->body].nb[k], Tb[k]);
      }
    } else {
      ld[f->body].T = add2(D, ld[f->body].T, K(D, f->value[0]));
    }
  }
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    mbd_sym_id P1[3], V1[3], P2[3], V2[3], e[3], dv[3];
    point_state(D, s->body1, s->at1, P1, V1);
    point_state(D, s->body2, s->at2, P2, V2);
    for (int k = 0; k < 3; k++) {
      e[k] = mbd_sym_sub(ctx, P2[k], P1[k]);
      dv[k] = mbd_sym_sub(ctx, V2[k], V1[k]);
    }
    mbd_sym_id l = mbd_sym_sqrt(ctx, mbd_sym_dot(ctx, 3, e, e));
    mbd_sym_id il = mbd_sym_powc(ctx, l, -1);
    mbd_sym_id ldot = mul2(D, mbd_sym_dot(ctx, 3, e, dv), il);
    // tension k(l − L) + c l̇ pulls the points together: F1 = f e/l on body1, −F1 on body2
    mbd_sym_id f = add2(D, scl(D, s->k, mbd_sym_sub(ctx, l, K(D, s->length))), scl(D, s->c, ldot));
    mbd_sym_id fl = mul2(D, f, il), F1[3], F2[3];
    for (int k = 0; k < 3; k++) {
      F1[k] = mul2(D, fl, e[k]);
      F2[k] = mbd_sym_neg(ctx, F1[k]);
    }
    if (s->body1) {
      load_point(D, s->body1, &ld[s->body1], F1, s->at1);
    }
    if (s->body2) {
      load_point(D, s->body2, &ld[s->body2], F2, s->at2);
    }
  }
  // each body: M̄ += Jᵀ M_Y J, ḡ += Jᵀ (Q_Y − M_Y h)
  for (int b = 1; b < nb; b++) {
    const mbd_body *bd = &m->body[b];
    const spose *P = &D->ps[b];
    double mass = bd->mass;
    // a macro copy's body: its inertia and gravity are in its shape's equations, only the loads
    // applied to it from outside are here
    int inert = !(D->P && D->P->body_copy[b] >= 0);
    if (!inert && is_zero(D, ld[b].F[0]) && is_zero(D, ld[b].F[1]) && is_zero(D, ld[b].F[2]) &&
        is_zero(D, ld[b].nb[0]) && is_zero(D, ld[b].nb[1]) && is_zero(D, ld[b].nb[2]) &&
        is_zero(D, ld[b].T)) {
      continue;
    }
    // the body's velocity rows V (nv × n): planar the pose rows (x, y, θ); spatial the position
    // rows and the body-frame angular velocity's, W = 2 G(p) B_p (ω' = 2Gṗ) — the Newton–Euler
    // form of the Euler-parameter mass matrix, 4GᵀJ'G = (2G)ᵀJ'(2G) on the unit sphere, with
    // fewer terms: M̄ += VᵀM_V V, ḡ += Vᵀ R with R = (m g + F − m h_r, n' − ω'×J'ω' − J'·2G h_p)
    int nv = dim == 3 ? 6 : 3;
    mbd_sym_id MY[49], R[7];
    for (int k = 0; k < 49; k++) {
      MY[k] = D->zero;
    }
    for (int k = 0; k < nv; k++) {
      for (int c = 0; c < n; c++) {
        VJ[(size_t)k * n + c] = k < 3 || dim == 2 ? JC(P, k, c) : D->zero;
      }
    }
    if (dim == 3) {
      mbd_sym_id G[12];
      mbd_sym_ep_G(ctx, P->p, G);
      for (int c = 0; c < n; c++) {
        mbd_sym_id jp[4] = {JC(P, 3, c), JC(P, 4, c), JC(P, 5, c), JC(P, 6, c)}, w[3];
        if (is_zero(D, jp[0]) && is_zero(D, jp[1]) && is_zero(D, jp[2]) && is_zero(D, jp[3])) {
          continue;
        }
        mbd_sym_matvec(ctx, 3, 4, G, jp, w);
        for (int k = 0; k < 3; k++) {
          VJ[(size_t)(3 + k) * n + c] = scl(D, 2, w[k]);
        }
      }
      for (int i = 0; i < 3; i++) {
        R[i] = ld[b].F[i];
        R[3 + i] = ld[b].nb[i];
      }
      if (inert) {
        mbd_sym_id In[9], w[3], Jw[3], gyro[3], ah[3], Jah[3];
        mbd_sym_consts(ctx, 9, bd->inertia, In);
        for (int i = 0; i < 3; i++) {
          MY[8 * i] = K(D, mass);
          for (int k = 0; k < 3; k++) {
            MY[7 * (3 + i) + 3 + k] = In[3 * i + k];
          }
        }
        mbd_sym_matvec(ctx, 3, 4, G, P->pd, w);
        mbd_sym_matvec(ctx, 3, 4, G, P->h + 3, ah);
        for (int i = 0; i < 3; i++) {
          w[i] = scl(D, 2, w[i]);
          ah[i] = scl(D, 2, ah[i]);
        }
        mbd_sym_matvec(ctx, 3, 3, In, w, Jw);
        mbd_sym_matvec(ctx, 3, 3, In, ah, Jah);
        mbd_sym_cross(ctx, w, Jw, gyro);
        for (int i = 0; i < 3; i++) {
          mbd_sym_id t[3] = {R[i], scl(D, mass, D->grav[i]), scl(D, -mass, P->h[i])};
          R[i] = mbd_sym_add_n(ctx, 3, t);
          mbd_sym_id u[3] = {R[3 + i], mbd_sym_neg(ctx, gyro[i]), mbd_sym_neg(ctx, Jah[i])};
          R[3 + i] = mbd_sym_add_n(ctx, 3, u);
        }
      }
    } else {
      R[0] = ld[b].F[0];
      R[1] = ld[b].F[1];
      R[2] = ld[b].T;
      if (inert) {
        MY[0] = MY[8] = K(D, mass);
        MY[16] = K(D, bd->inertia[8]);
        R[0] = mbd_sym_add_n(
            ctx, 3, (mbd_sym_id[3]){R[0], scl(D, mass, D->grav[0]), scl(D, -mass, P->h[0])});
        R[1] = mbd_sym_add_n(
            ctx, 3, (mbd_sym_id[3]){R[1], scl(D, mass, D->grav[1]), scl(D, -mass, P->h[1])});
        R[2] = mbd_sym_sub(ctx, R[2], scl(D, bd->inertia[8], P->h[2]));
      }
    }
    // which columns of V are not identically zero
    for (int c = 0; c < n; c++) {
      nz[c] = 0;
      for (int k = 0; k < nv; k++) {
        nz[c] |= !is_zero(D, VJ[(size_t)k * n + c]);
      }
    }
    // M_V V (nv × n)
    for (int k = 0; k < nv; k++) {
      for (int c = 0; c < n; c++) {
        if (!nz[c] || !inert) {
          MJ[(size_t)k * n + c] = D->zero;
          continue;
        }
        mbd_sym_id col[7];
        for (int l = 0; l < nv; l++) {
          col[l] = VJ[(size_t)l * n + c];
        }
        MJ[(size_t)k * n + c] = mbd_sym_dot(ctx, nv, MY + 7 * k, col);
      }
    }
    for (int i = 0; i < n; i++) {
      if (!nz[i]) {
        continue;
      }
      mbd_sym_id ci[7];
      for (int l = 0; l < nv; l++) {
        ci[l] = VJ[(size_t)l * n + i];
      }
      tg[(size_t)i * cap + cg[i]++] = mbd_sym_dot(ctx, nv, ci, R);
      for (int j = i; j < n && inert; j++) {
        if (!nz[j]) {
          continue;
        }
        mbd_sym_id cj[7];
        for (int l = 0; l < nv; l++) {
          cj[l] = MJ[(size_t)l * n + j];
        }
        int e = i * n - i * (i - 1) / 2 + (j - i);
        tM[(size_t)e * cap + cM[e]++] = mbd_sym_dot(ctx, nv, ci, cj);
      }
    }
  }
  // rotational spring-dampers on tree joints: the torque acts on the angle coordinate itself
  for (int i = 0; i < m->nrspring; i++) {
    if (L->rspring_numeric[i]) {
      continue;
    }
    const mbd_rspring *r = &m->rspring[i];
    const mbd_tree_joint *tj = &m->tree->tj[m->tree->joint_tj[r->joint]];
    int c = tj->qadr + tj->rot;
    int ac = mbd_joint_type_get(m->joint[r->joint].type)->angle_coord[MBD_DIMX(m)];
    mbd_sym_id th = add2(D, K(D, tj->coord0[ac]), D->q[c]);
    mbd_sym_id T = mbd_sym_sub(ctx, scl(D, -r->k, mbd_sym_sub(ctx, th, K(D, r->angle))),
                               scl(D, r->c, D->v[c]));
    tg[(size_t)c * cap + cg[c]++] = T;
  }
  for (int i = 0; i < n; i++) {
    out[L->og + i] = mbd_sym_add_n(ctx, cg[i], tg + (size_t)i * cap);
    for (int j = i; j < n; j++) {
      int e = i * n - i * (i - 1) / 2 + (j - i);
      out[L->oM + e] = mbd_sym_add_n(ctx, cM[e], tM + (size_t)e * cap);
    }
  }
  free(ld), free(tM), free(tg), free(cM), free(cg), free(MJ), free(VJ), free(nz);
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* rows over the bodies of macro copies (their poses are inputs: Y-space, paper 002 eq 5)       */

/* Φq and γ of an expression whose copy bodies' poses are variables: over the variables z it
 * depends on — a copy body's local pose Y', with ż = B' q̇', ∂z/∂q = B' and z̈'s quadratic part
 * h', and the model's own coordinates q, with ż = q̇, ∂z/∂q = I, no quadratic part —
 *   Φq = Σ_i Φ_z_i ∂z_i/∂q,   γ = −(Σ_i Φ_z_i h_i + Σ_ij Φ_z_i z_j ż_i ż_j) */
static void row_derivatives_z(der *D, mbd_sym_id phi, const int *bodies, int nbod, const char *dep,
                              mbd_sym_id *phiq, mbd_sym_id *gamma) {
  mbd_sym_ctx *ctx = D->ctx;
  const mbd_eqs_macros *P = D->P;
  int n = D->n, ny = D->m->dim == 3 ? 7 : 3, cap = n + 2 * 7;
  mbd_sym_id *z = malloc(sizeof(mbd_sym_id) * (size_t)cap * 3);
  mbd_sym_id *zd = z + cap, *hz = z + 2 * cap;
  int *zb = malloc(sizeof(int) * (size_t)cap * 2), *zk = zb + cap;  // body (−1: q) and index
  mbd_sym_id *gz = malloc(sizeof(mbd_sym_id) * (size_t)cap);
  mbd_sym_id *terms = malloc(sizeof(mbd_sym_id) * (size_t)(cap * cap + n + 1));
  if (!z || !zb || !gz || !terms) {
    free(z), free(zb), free(gz), free(terms);
    *gamma = MBD_SYM_NONE;
    return;
  }
  int nzv = 0;
  for (int k = 0; k < nbod; k++) {
    int b = bodies[k];
    if (b == 0 || P->body_copy[b] < 0) {
      continue;
    }
    const mbd_eqs_copy *cp = &P->copy[P->body_copy[b]];
    const mbd_eqs_shape *sh = &P->shape[cp->shape];
    int nc = sh->local->nv, lb = 1;
    while (cp->bodymap[lb] != b) {
      lb++;
    }
    const mbd_sym_id *base = D->cvar + (cp->vslot - 2 * n) + (lb - 1) * ny * (2 + nc);
    for (int i = 0; i < ny; i++) {
      z[nzv] = base[i];
      hz[nzv] = base[ny + ny * nc + i];
      mbd_sym_id t[64];
      for (int c = 0; c < nc; c++) {
        t[c] = mul2(D, base[ny + i * nc + c], D->v[cp->qmap[c]]);
      }
      zd[nzv] = mbd_sym_add_n(ctx, nc, t);
      zb[nzv] = b;
      zk[nzv] = i;
      nzv++;
    }
  }
  for (int c = 0; c < n; c++) {
    if (dep[c]) {
      z[nzv] = D->q[c];
      zd[nzv] = D->v[c];
      hz[nzv] = D->zero;
      zb[nzv] = -1;
      zk[nzv] = c;
      nzv++;
    }
  }
  for (int i = 0; i < nzv; i++) {
    gz[i] = mbd_sym_diff(ctx, phi, z[i]);
  }
  // Φq
  for (int c = 0; c < n; c++) {
    phiq[c] = D->zero;
  }
  for (int i = 0; i < nzv; i++) {
    if (zb[i] < 0) {
      phiq[zk[i]] = add2(D, phiq[zk[i]], gz[i]);
      continue;
    }
    const mbd_eqs_copy *cp = &P->copy[P->body_copy[zb[i]]];
    const mbd_eqs_shape *sh = &P->shape[cp->shape];
    int nc = sh->local->nv, lb = 1;
    while (cp->bodymap[lb] != zb[i]) {
      lb++;
    }
    const mbd_sym_id *base = D->cvar + (cp->vslot - 2 * n) + (lb - 1) * ny * (2 + nc);
    for (int c = 0; c < nc; c++) {
      int col = cp->qmap[c];
      phiq[col] = add2(D, phiq[col], mul2(D, gz[i], base[ny + zk[i] * nc + c]));
    }
  }
  // γ
  int nt = 0;
  for (int i = 0; i < nzv; i++) {
    terms[nt++] = mul2(D, gz[i], hz[i]);
    for (int j = 0; j < nzv; j++) {
      mbd_sym_id f[3] = {mbd_sym_diff(ctx, gz[i], z[j]), zd[i], zd[j]};
      terms[nt++] = mbd_sym_mul_n(ctx, 3, f);
    }
  }
  *gamma = mbd_sym_neg(ctx, mbd_sym_add_n(ctx, nt, terms));
  free(z), free(zb), free(gz), free(terms);
}

/* a macro copy's body as seen by the model's equations: its local pose Y', pose Jacobian B' and
 * quadratic term h' are variables, placed by the copy's (constant) frame:
 *   spatial  r = o + R r',  p = p_R ⊗ p',  B_r = R B'_r,  B_p = p_R ⊗ B'_p,  h alike
 *   planar   r = o + R r',  θ = θ_R + θ',  B_r = R B'_r,  B_θ = B'_θ */
static void copy_pose(der *D, int b) {
  mbd_sym_ctx *ctx = D->ctx;
  const mbd_eqs_macros *P = D->P;
  const mbd_eqs_copy *cp = &P->copy[P->body_copy[b]];
  const mbd_eqs_shape *sh = &P->shape[cp->shape];
  const mbd_copy *mc = &D->m->copy[cp->model_copy];
  int n = D->n, ny = sh->ny, nc = sh->local->nv, lb = 1;
  while (cp->bodymap[lb] != b) {
    lb++;
  }
  const mbd_sym_id *base = D->cvar + (cp->vslot - 2 * n) + (lb - 1) * ny * (2 + nc);
  const mbd_sym_id *Y = base, *B = base + ny, *h = base + ny + ny * nc;
  spose *C = &D->ps[b];
  C->ny = ny;
  C->J = D->Jall + (size_t)b * 7 * n;
  for (int k = 0; k < ny * n; k++) {
    C->J[k] = D->zero;
  }
  double Rd[9];
  if (D->m->dim == 3) {
    mbd_ep_A(mc->rot, Rd);
  } else {
    double c = cos(mc->rot[0]), s = sin(mc->rot[0]);
    double A[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(Rd, A, sizeof A);
  }
  mbd_sym_id R[9], o[3], pR[4];
  mbd_sym_consts(ctx, 9, Rd, R);
  double o3[3] = {mc->origin[0], mc->origin[1], D->m->dim == 3 ? mc->origin[2] : 0};
  mbd_sym_consts(ctx, 3, o3, o);
  mbd_sym_consts(ctx, 4, mc->rot, pR);
  int npos = D->m->dim == 3 ? 3 : 2;
  mbd_sym_id rl[3] = {Y[0], Y[1], npos == 3 ? Y[2] : D->zero}, rg[3];
  mbd_sym_matvec(ctx, 3, 3, R, rl, rg);
  for (int i = 0; i < 3; i++) {
    C->r[i] = i < npos ? add2(D, o[i], rg[i]) : D->zero;
  }
  mbd_sym_id hl[3] = {h[0], h[1], npos == 3 ? h[2] : D->zero}, hg[3];
  mbd_sym_matvec(ctx, 3, 3, R, hl, hg);
  for (int i = 0; i < npos; i++) {
    C->h[i] = hg[i];
  }
  // the columns of the copy's coordinates
  for (int c = 0; c < nc; c++) {
    int col = cp->qmap[c];
    mbd_sym_id bl[3] = {B[c], B[nc + c], npos == 3 ? B[2 * nc + c] : D->zero}, bg[3];
    mbd_sym_matvec(ctx, 3, 3, R, bl, bg);
    for (int i = 0; i < npos; i++) {
      C->J[(size_t)i * n + col] = bg[i];
    }
    if (npos == 3) {
      mbd_sym_id pl[4] = {B[3 * nc + c], B[4 * nc + c], B[5 * nc + c], B[6 * nc + c]}, pg[4];
      mbd_sym_qmul(ctx, pR, pl, pg);
      for (int k = 0; k < 4; k++) {
        C->J[(size_t)(3 + k) * n + col] = pg[k];
      }
    } else {
      C->J[(size_t)2 * n + col] = B[2 * nc + c];
    }
  }
  if (npos == 3) {
    mbd_sym_id pl[4] = {Y[3], Y[4], Y[5], Y[6]}, hp[4] = {h[3], h[4], h[5], h[6]};
    mbd_sym_qmul(ctx, pR, pl, C->p);
    mbd_sym_qmul(ctx, pR, hp, C->h + 3);
    mbd_sym_ep_A(ctx, C->p, C->A);
  } else {
    C->p[0] = add2(D, K(D, mc->rot[0]), Y[2]);
    C->h[2] = h[2];
    mbd_sym_id cth = mbd_sym_cos(ctx, C->p[0]), sth = mbd_sym_sin(ctx, C->p[0]);
    for (int k = 0; k < 9; k++) {
      C->A[k] = D->zero;
    }
    C->A[0] = cth;
    C->A[1] = mbd_sym_neg(ctx, sth);
    C->A[3] = sth;
    C->A[4] = cth;
    C->A[8] = D->one;
  }
  // rates: B q̇
  for (int i = 0; i < ny; i++) {
    mbd_sym_id t[64];
    int nt = 0;
    for (int c = 0; c < nc && nt < 64; c++) {
      t[nt++] = mul2(D, C->J[(size_t)i * n + cp->qmap[c]], D->v[cp->qmap[c]]);
    }
    mbd_sym_id rate = mbd_sym_add_n(ctx, nt, t);
    if (i < npos) {
      C->rd[i] = rate;
    } else {
      C->pd[i - npos] = rate;
    }
  }
  if (npos == 2) {
    C->rd[2] = D->zero;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the derivation (the layout it fills: macro.c)                                              */

/* the derivation shared by a model and a shape: poses, M̄ and ḡ, rows, angles into outs (L's
 * layout).  D holds the variables and the tree constants (or parameters). */
static int derive_core(der *D, const mbd_eqs_layout *L, mbd_sym_id *outs, mbd_error *err) {
  const mbd_model *m = D->m;
  const mbd_tree *t = m->tree;
  mbd_sym_ctx *ctx = D->ctx;
  int n = D->n, nb = m->nbody;
  char *dep2 = calloc((size_t)(n ? n : 1), 1);
  mbd_sym_id *rowbuf = malloc(sizeof(mbd_sym_id) * (size_t)(n ? n : 1));
  if (!dep2 || !rowbuf) {
    free(dep2), free(rowbuf);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
  }
  // the ground: identity pose, no motion
  spose *g = &D->ps[0];
  for (int k = 0; k < 3; k++) {
    g->r[k] = g->rd[k] = D->zero;
  }
  for (int k = 0; k < 4; k++) {
    g->p[k] = k == 0 && m->dim == 3 ? D->one : D->zero;
    g->pd[k] = D->zero;
  }
  for (int k = 0; k < 9; k++) {
    g->A[k] = (k % 4 == 0) ? D->one : D->zero;
  }
  for (int k = 0; k < 7; k++) {
    g->h[k] = D->zero;
  }
  // poses outward, and each body's coordinates (its parent's and its joint's); a macro copy's
  // bodies are inputs
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    char *dc = D->dep + (size_t)tj->child * n, *dp = D->dep + (size_t)tj->parent * n;
    for (int c = 0; c < n; c++) {
      dc[c] = dp[c] || (c >= tj->qadr && c < tj->qadr + tj->nq);
    }
    if (D->P && D->P->body_copy[tj->child] >= 0) {
      copy_pose(D, tj->child);
    } else if (m->dim == 3) {
      spatial_child(D, tj);
    } else {
      planar_child(D, tj);
    }
  }
  int rc = dynamics(D, L, outs);
  if (rc) {
    free(dep2), free(rowbuf);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
  }
  // rows: cut joints, drives, norms (a copy's own rows: its shape's equations, zero here)
  for (int r = 0; r < m->mrow; r++) {
    const mbd_rowinfo *ri = &m->row[r];
    mbd_sym_id phi = D->zero, gam = D->zero;
    for (int c = 0; c < n; c++) {
      rowbuf[c] = D->zero;
    }
    if (D->P && D->P->row_internal[r]) {
      // the copy's equations give it
    } else if (ri->owner == MBD_ROW_TREE) {
      // eᵀe − 1, 2eᵀ, −2 ėᵀė
      mbd_sym_id e[4], ed[4];
      for (int k = 0; k < 4; k++) {
        e[k] = D->q[ri->index + k];
        ed[k] = D->v[ri->index + k];
        rowbuf[ri->index + k] = scl(D, 2, e[k]);
      }
      phi = mbd_sym_sub(ctx, mbd_sym_dot(ctx, 4, e, e), D->one);
      gam = scl(D, -2, mbd_sym_dot(ctx, 4, ed, ed));
    } else {
      const mbd_joint *j =
          ri->owner == MBD_ROW_JOINT ? &m->joint[ri->index] : &m->joint[m->drive[ri->index].joint];
      const char *d1 = D->dep + (size_t)j->body1 * n, *d2 = D->dep + (size_t)j->body2 * n;
      int on_copy = D->P && ((j->body1 && D->P->body_copy[j->body1] >= 0) ||
                             (j->body2 && D->P->body_copy[j->body2] >= 0));
      int bodies[2] = {j->body1, j->body2};
      for (int c = 0; c < n; c++) {
        // a copy's body: its coordinates come in through its pose variables
        int c1 = j->body1 && D->P && D->P->body_copy[j->body1] >= 0 ? 0 : d1[c];
        int c2 = j->body2 && D->P && D->P->body_copy[j->body2] >= 0 ? 0 : d2[c];
        dep2[c] = c1 || c2;
      }
      int jtj = t->joint_tj[j - m->joint];
      if (ri->owner == MBD_ROW_JOINT) {
        mbd_sym_id rows[MBD_JOINT_MAXROW];
        joint_rows(D, j, rows);
        phi = rows[ri->local];
        if (on_copy) {
          row_derivatives_z(D, phi, bodies, 2, dep2, rowbuf, &gam);
        } else {
          row_derivatives(D, phi, dep2, rowbuf, &gam);
        }
      } else if (jtj >= 0) {
        // a drive on a tree joint: its coordinate is c0 + q (γ part zero)
        const mbd_tree_joint *tj = &t->tj[jtj];
        int kind = m->drive[ri->index].coord;
        int c = tj->qadr + (kind == MBD_COORD_ANGLE ? tj->rot : tj->disp);
        const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
        int ci = 0;
        while (jt->coord[MBD_DIMX(m)][ci] != kind) {
          ci++;
        }
        phi = add2(D, K(D, tj->coord0[ci]), D->q[c]);
        rowbuf[c] = D->one;
      } else {
        // a drive on a cut joint: c(q) and its derivatives; γ output = (c_q q̇)_q q̇
        phi = cut_coordinate(D, j, m->drive[ri->index].coord);
        if (on_copy) {
          row_derivatives_z(D, phi, bodies, 2, dep2, rowbuf, &gam);
        } else {
          row_derivatives(D, phi, dep2, rowbuf, &gam);
        }
        gam = mbd_sym_neg(ctx, gam);
      }
    }
    outs[L->ophi + r] = phi;
    outs[L->ogam + r] = gam;
    for (int c = 0; c < n; c++) {
      outs[L->ophiq + (size_t)r * n + c] = rowbuf[c];
    }
  }
  for (int k = 0; k < L->nang; k++) {
    outs[L->oang + k] = cut_coordinate(D, &m->joint[L->ang_joint[k]], MBD_COORD_ANGLE);
  }
  free(dep2);
  free(rowbuf);
  (void)nb;
  return MBD_OK;
}

/* the working storage of a derivation over model m with n coordinates; 0 or −1 */
static int der_alloc(der *D, const mbd_model *m, int nvars) {
  int n = m->nv, nb = m->nbody, ntj = m->tree->ntj;
  memset(D, 0, sizeof *D);
  D->m = m;
  D->n = n;
  D->ctx = mbd_sym_ctx_new();
  D->ps = calloc((size_t)nb, sizeof *D->ps);
  D->Jall = malloc(sizeof(mbd_sym_id) * (size_t)nb * 7 * (size_t)(n ? n : 1));
  D->dep = calloc((size_t)nb * (size_t)(n ? n : 1), 1);
  D->tc = calloc((size_t)(ntj ? ntj : 1), sizeof *D->tc);
  D->td0 = calloc((size_t)(ntj ? ntj : 1), sizeof *D->td0);
  D->tw = calloc((size_t)(ntj ? ntj : 1), sizeof *D->tw);
  D->tl = calloc((size_t)(ntj ? ntj : 1), sizeof *D->tl);
  D->q = malloc(sizeof(mbd_sym_id) * (size_t)(nvars ? nvars : 1));
  if (!D->ctx || !D->ps || !D->Jall || !D->dep || !D->tc || !D->td0 || !D->tw || !D->tl || !D->q) {
    return -1;
  }
  D->zero = mbd_sym_const(D->ctx, 0);
  D->one = mbd_sym_const(D->ctx, 1);
  D->v = D->q + n;
  return 0;
}

/* everything but the context and the variables (handed to the caller) */
static void der_free(der *D) {
  free(D->ps);
  free(D->Jall);
  free(D->dep);
  free(D->tc);
  free(D->td0);
  free(D->tw);
  free(D->tl);
}

/* the context's error, or a construction that failed, as a status */
static int check_outs(der *D, const mbd_sym_id *outs, int nout, mbd_error *err) {
  if (mbd_sym_ctx_error(D->ctx)->code) {
    const mbd_error *e = mbd_sym_ctx_error(D->ctx);
    return MBD_FAIL(err, e->code, MSG_CODE_SYM, e->msg);
  }
  for (int k = 0; k < nout; k++) {
    if (outs[k] == MBD_SYM_NONE) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
    }
  }
  return MBD_OK;
}

int mbd_eqs_derive(const mbd_model *m, const mbd_eqs_layout *L, mbd_sym_ctx **ctxp,
                   mbd_sym_id **varsp, mbd_sym_id **outsp, mbd_error *err) {
  *ctxp = NULL;
  *varsp = *outsp = NULL;
  const mbd_tree *t = m->tree;
  int n = m->nv;
  der D;
  mbd_sym_id *outs = malloc(sizeof(mbd_sym_id) * (size_t)(L->nout ? L->nout : 1));
  if (der_alloc(&D, m, L->nvin) < 0 || !outs) {
    der_free(&D);
    free(D.q);
    free(outs);
    mbd_sym_ctx_free(D.ctx);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
  }
  mbd_sym_ctx *ctx = D.ctx;
  // variables: q, q̇, then the copies' bodies' local poses, pose Jacobians, quadratic terms
  for (int k = 0; k < n; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "q%d", k);
    D.q[k] = mbd_sym_var(ctx, nm, k);
    snprintf(nm, sizeof nm, "v%d", k);
    D.q[n + k] = mbd_sym_var(ctx, nm, n + k);
  }
  for (int k = 2 * n; k < L->nvin; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "y%d", k);
    D.q[k] = mbd_sym_var(ctx, nm, k);
  }
  D.P = L->macros;
  D.cvar = D.q + 2 * n;
  // the tree constants, gravity
  for (int k = 0; k < t->ntj; k++) {
    mbd_sym_consts(ctx, 4, t->tj[k].c, D.tc[k]);
    mbd_sym_consts(ctx, 3, t->tj[k].d0, D.td0[k]);
    mbd_sym_consts(ctx, 3, t->tj[k].w, D.tw[k]);
    const double one[4] = {1, 0, 0, 0};
    mbd_sym_consts(ctx, 4, one, D.tl[k]);
  }
  mbd_sym_consts(ctx, 3, m->gravity, D.grav);
  int rc = derive_core(&D, L, outs, err);
  if (rc == MBD_OK) {
    rc = check_outs(&D, outs, L->nout, err);
  }
  der_free(&D);
  if (rc != MBD_OK) {
    free(D.q);
    free(outs);
    mbd_sym_ctx_free(ctx);
    return rc;
  }
  *ctxp = ctx;
  *varsp = D.q;
  *outsp = outs;
  return MBD_OK;
}

int mbd_eqs_derive_shape(const mbd_eqs_shape *sh, mbd_sym_ctx **ctxp, mbd_sym_id **varsp,
                         mbd_sym_id **outsp, mbd_error *err) {
  *ctxp = NULL;
  *varsp = *outsp = NULL;
  const mbd_model *lm = sh->local;
  const mbd_tree *t = lm->tree;
  int n = lm->nv, ny = sh->ny;
  der D;
  mbd_sym_id *outs = malloc(sizeof(mbd_sym_id) * (size_t)(sh->nout ? sh->nout : 1));
  if (der_alloc(&D, lm, 2 * n + sh->npar) < 0 || !outs) {
    der_free(&D);
    free(D.q);
    free(outs);
    mbd_sym_ctx_free(D.ctx);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
  }
  mbd_sym_ctx *ctx = D.ctx;
  // variables: q', q̇', then the parameters: c, d0, w, l of each tree joint, R, g
  for (int k = 0; k < 2 * n + sh->npar; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, k < n ? "q%d" : (k < 2 * n ? "v%d" : "p%d"),
             k < n ? k : (k < 2 * n ? k - n : k - 2 * n));
    D.q[k] = mbd_sym_var(ctx, nm, k);
  }
  const mbd_sym_id *par = D.q + 2 * n;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_sym_id *pk = par + MBD_EQS_TJ_PAR * k;
    for (int i = 0; i < 4; i++) {
      D.tc[k][i] = pk[i];
      D.tl[k][i] = pk[10 + i];
    }
    for (int i = 0; i < 3; i++) {
      D.td0[k][i] = pk[4 + i];
      D.tw[k][i] = pk[7 + i];
    }
  }
  D.R = par + MBD_EQS_TJ_PAR * t->ntj;
  for (int i = 0; i < 3; i++) {
    D.grav[i] = par[MBD_EQS_TJ_PAR * t->ntj + 9 + i];
  }
  int rc = derive_core(&D, &sh->L, outs, err);
  // the bodies' poses, pose Jacobians and quadratic terms in the copy's frame
  for (int b = 1; rc == MBD_OK && b < lm->nbody; b++) {
    const spose *P = &D.ps[b];
    mbd_sym_id *o = outs + sh->obody + (b - 1) * ny * (2 + n);
    int npos = ny == 7 ? 3 : 2;
    for (int i = 0; i < ny; i++) {
      o[i] = i < npos ? P->r[i] : P->p[i - npos];
      o[ny + ny * n + i] = P->h[i];
      for (int c = 0; c < n; c++) {
        o[ny + i * n + c] = JC(P, i, c);
      }
    }
  }
  if (rc == MBD_OK) {
    rc = check_outs(&D, outs, sh->nout, err);
  }
  der_free(&D);
  if (rc != MBD_OK) {
    free(D.q);
    free(outs);
    mbd_sym_ctx_free(ctx);
    return rc;
  }
  *ctxp = ctx;
  *varsp = D.q;
  *outsp = outs;
  return MBD_OK;
}
