/* flexible bodies in a floating frame of reference with modal coordinates (paper 003, eq 1–24).
 *
 * The body is N lumped nodes: node i at s_i (body frame) with mass m_i and rotary inertia J_i,
 * its deformation u_i = Φ_i a and small rotation Θ_i = Ψ_i a (eq 3, 10).  A node is at
 *   R_i = r + A ρ_i,  ρ_i = s_i + Φ_i a                                          (eq 9)
 * and, with ω' the frame's angular velocity in its own axes, its acceleration is
 *   R̈_i = r̈ − A ρ̃_i ω̇' + A Φ_i ä + A (ω̃'ω̃'ρ_i + 2 ω̃'Φ_i ȧ)                  (eq 11).
 * Virtual work with δR_i = δr − A ρ̃_i δπ' + A Φ_i δa and δπ_i = δπ' + Ψ_i δa (eq 15, 16) gives
 *   M(a) [r̈; ω̇'; ä] = Q − S − U                                                   (eq 17, 24)
 *   M = [ m I      −A ρ̄~          A C1                 ]
 *       [          Σ m ρ̃ᵀρ̃ + ΣJ   Σ m ρ̃_i Φ_i + Σ J_iΨ_i ]
 *       [ sym                      Σ m Φ_iᵀΦ_i + Ψ_iᵀJ_iΨ_i ]
 * with ρ̄ = Σ m_i ρ_i.  Every sum is a polynomial in a whose coefficients — the invariants m, Σ m s,
 * Σ m Φ, Σ m s sᵀ, Σ m s Φ, Σ m Φ Φ, Σ J, Σ JΨ, Σ ΨᵀJΨ — are computed once when the body is made.
 * The quadratic velocity vector S (eq 17) is exact for the lumped translational masses.  A rotary
 * inertia J_i is a small rigid body turned by Θ_i from the frame (its pose is the node's:
 * R_i = A(q(Θ_i)), below), so its angular velocity in its own axes is ω_n = R_iᵀω' + W_i Ψ_i ȧ
 * (W_i = 2G(q) ∂q/∂Θ, the identity at Θ = 0) and Kane's equations for it add R_i J R_iᵀ, R_i J
 * W_iΨ_i and (W_iΨ_i)ᵀJ(W_iΨ_i) to M and −[R_i; (W_iΨ_i)ᵀ](J α_q + ω_n × J ω_n) to the forces, with
 * α_q = (R_iᵀω') × W_iΨ_iȧ − 2 q̈0 q_v the rate part of its angular acceleration.  At Θ = 0 these
 * are eq 17's J_i, J_iΨ_i, Ψ_iᵀJ_iΨ_i and the paper's S terms J ω̃'Ψȧ and ω̃'Jω' (with the other rate
 * terms of the same order, as eq 14's angular acceleration gives them); kept at the current Θ they
 * make the energy an exact invariant (the tests check it) and give a spinning node its gyroscopic
 * coupling.  They are summed node by node; the translational part uses the invariants.
 * Elastic force U = K a with K = ΨᵀKΨ (eq 21–23), modal damping D ȧ, and with geometric
 * stiffening (ω'y² + ω'z²) G a, the stiffness of the centrifugal tension of a beam along x.
 *
 * Coordinates: spatial (r, p, a) with v = (ṙ, ṗ, ȧ) and ω' = 2Gṗ, so the block's mass matrix is
 * TᵀMT and its force TᵀQ with T = diag(I, 2G, I) (Ġṗ = 0); planar (x, y, θ, a) takes the rows
 * and columns (x, y, θz, a) of the same equations.  Energy: kinetic from the nodes' velocities
 * (independent of M), gravity, ½ aᵀKa. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flex_msg.h"
#include "model_impl.h"
#include "model_msg.h"
#include "mbd/vec3.h"

/* y = X a for a 3 × nm row-major block X (X[r nm + k]) */
static void mul3n(const double *X, int nm, const double *a, double *y) {
  for (int r = 0; r < 3; r++) {
    double s = 0;
    for (int k = 0; k < nm; k++) {
      s += X[r * nm + k] * a[k];
    }
    y[r] = s;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* lifecycle                                                                                   */

void mbd_flex_free(struct mbd_flex *fx) {
  if (!fx) {
    return;
  }
  void *ps[] = {fx->s,     fx->mass,  fx->J,  fx->Phi, fx->Psi, fx->K,    fx->D,   fx->G,  fx->a0,
                fx->adot0, fx->label, fx->C1, fx->T4,  fx->T5,  fx->JPsi, fx->Mff, fx->Mft, fx->elem};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  free(fx);
}

void mbd_flex_free_all(mbd_model *m) {
  for (int i = 0; i < m->nflex; i++) {
    mbd_flex_free(m->flex[i]);
  }
  free(m->flex);
  m->flex = NULL;
  m->nflex = m->cflex = 0;
}

int mbd_model_flex_node(const mbd_model *m, int body, int node) {
  if (body < 1 || body >= m->nbody || !m->body[body].flex || m->body[body].node != 0) {
    return -1;
  }
  const struct mbd_flex *fx = m->body[body].flex;
  return (node >= 1 && node <= fx->nnode) ? fx->node0 + node - 1 : -1;
}

int mbd_model_body_owner(const mbd_model *m, int body) {
  if (body < 1 || body >= m->nbody || m->body[body].node == 0) {
    return -1;
  }
  return m->body[body].flex->body;
}

int mbd_model_flex_nnode(const mbd_model *m, int body) {
  return (body >= 1 && body < m->nbody && m->body[body].flex && m->body[body].node == 0)
             ? m->body[body].flex->nnode
             : 0;
}

int mbd_model_flex_nmode(const mbd_model *m, int body) {
  return (body >= 1 && body < m->nbody && m->body[body].flex && m->body[body].node == 0)
             ? m->body[body].flex->nm
             : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* initial state                                                                               */

void mbd_flex_q0(const mbd_body *b, double *q) {
  const struct mbd_flex *fx = b->flex;
  memcpy(q + fx->ny, fx->a0, (size_t)fx->nm * sizeof(double));
}

void mbd_flex_velocity0(const mbd_body *b, const double *q, double *v) {
  const struct mbd_flex *fx = b->flex;
  if (fx->dim == 2) {
    for (int c = 0; c < 3; c++) {
      v[c] = b->v0[c];
    }
  } else {
    // ṙ as given, ṗ = ½ Eᵀω from the given global ω
    double E[12];
    mbd_ep_E(q + 3, E);
    for (int i = 0; i < 3; i++) {
      v[i] = b->v0[i];
    }
    for (int k = 0; k < 4; k++) {
      v[3 + k] = 0.5 * (E[k] * b->v0[3] + E[4 + k] * b->v0[4] + E[8 + k] * b->v0[5]);
    }
  }
  memcpy(v + fx->ny, fx->adot0, (size_t)fx->nm * sizeof(double));
}

void mbd_flex_node_velocity0(const mbd_body *b, const double *q, double *v) {
  (void)b, (void)q, (void)v;  // a node has no coordinates of its own
}

const double *mbd_model_flex_xyz(const mbd_model *m, int body) {
  return mbd_model_flex_nnode(m, body) > 0 ? m->body[body].flex->s : NULL;
}

int mbd_model_flex_elements(const mbd_model *m, int body, const int **elem) {
  *elem = NULL;
  if (mbd_model_flex_nnode(m, body) == 0) {
    return 0;
  }
  *elem = m->body[body].flex->elem;
  return m->body[body].flex->nelem;
}

/* ------------------------------------------------------------------------------------------ */
/* node poses: the marker of a joint or a force on the flexible body                           */

/* the owner's block: its frame's pose, a and ȧ */
static void owner_state(const mbd_model *m, const mbd_data *d, const struct mbd_flex *fx,
                        const double **a, const double **ad, int *vadr) {
  const mbd_block *bl = &m->block[m->body[fx->body].block];
  *a = d->q + bl->qadr + fx->ny;
  *ad = d->v + bl->vadr + fx->ny;
  *vadr = bl->vadr;
}

/* node i's deformation and its rate in the body frame, ρ − s = Φ_i a, Θ = Ψ_i a, and their rates;
 * returns the owner's velocity address */
static int node_deformation(const mbd_model *m, const mbd_data *d, const struct mbd_flex *fx,
                            int i, double *rho, double *rhod, double *th, double *thd) {
  int nm = fx->nm, vadr;
  const double *a, *ad;
  owner_state(m, d, fx, &a, &ad, &vadr);
  const double *P = fx->Phi + (size_t)3 * i * nm, *R = fx->Psi + (size_t)3 * i * nm;
  mul3n(P, nm, a, rho);
  mul3n(P, nm, ad, rhod);
  mul3n(R, nm, a, th);
  mul3n(R, nm, ad, thd);
  return vadr;
}

/* quaternion products: p ⊗ q = L(p) q = R(q) p (Hamilton, e0 scalar; A(p ⊗ q) = A(p) A(q)) */
static void qmul(const double *p, const double *q, double *o) {
  o[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
  o[1] = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
  o[2] = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
  o[3] = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
}

/* spatial node i: r_n = r + A ρ, ρ = s + Φa; p_n = p ⊗ q(Θ), q(Θ) = (√(1 − |Θ|²/4), Θ/2), a unit
 * quaternion turning by Θ to first order (exactly by 2 asin(|Θ|/2)), so A(p_n) = A(p) A(q) is a
 * rotation.  J over the block (r, p, a):
 *   ∂r_n = [I | B(p, ρ) | A Φ],   ∂p_n = [0 | R(q) | L(p) Q Ψ],  Q = ∂q/∂Θ = [−Θᵀ/(4 q0); ½ I]
 *   h_r = B(ṗ, ρ) ṗ + 2 B(p, ρ̇) ṗ,   h_p = 2 L(ṗ) q̇ + p q̈0,  q̈0 = −Θ̇ᵀΘ̇/(4q0) − (ΘᵀΘ̇)²/(16 q0³) */
static void node3_pose(const mbd_model *m, mbd_data *d, const struct mbd_flex *fx, int i,
                       mbd_pose *ps) {
  int nm = fx->nm, nvb = fx->nvb;
  const mbd_pose *p0 = &d->pose[fx->body];
  const double *P = fx->Phi + (size_t)3 * i * nm, *R = fx->Psi + (size_t)3 * i * nm;
  double rho[3], rhod[3], th[3], thd[3];
  int vadr = node_deformation(m, d, fx, i, rho, rhod, th, thd);
  for (int k = 0; k < 3; k++) {
    rho[k] += fx->s[3 * i + k];
  }
  const double *p = p0->p, *pd = p0->pd, *A = p0->A;
  double *J = d->flexws + fx->ws + (size_t)i * 7 * nvb;  // 7 × nvb, column-major
  memset(J, 0, (size_t)7 * nvb * sizeof(double));
  memset(ps, 0, sizeof *ps);
  // position
  double Arho[3], Arhod[3], B[12], Bd[12], Br[12];
  mbd_mat3_vec(A, rho, Arho);
  mbd_mat3_vec(A, rhod, Arhod);
  mbd_ep_B(p, rho, B);
  mbd_ep_B(pd, rho, Bd);
  mbd_ep_B(p, rhod, Br);
  for (int r = 0; r < 3; r++) {
    double Bp = 0, h = 0;
    for (int k = 0; k < 4; k++) {
      Bp += B[4 * r + k] * pd[k];
      h += (Bd[4 * r + k] + 2 * Br[4 * r + k]) * pd[k];
      J[r + 7 * (3 + k)] = B[4 * r + k];
    }
    ps->r[r] = p0->r[r] + Arho[r];
    ps->rd[r] = p0->rd[r] + Bp + Arhod[r];
    ps->h[r] = h;
    J[r + 7 * r] = 1;
    for (int l = 0; l < nm; l++) {
      J[r + 7 * (7 + l)] =
          A[3 * r] * P[l] + A[3 * r + 1] * P[nm + l] + A[3 * r + 2] * P[2 * nm + l];
    }
  }
  // orientation: p_n = p ⊗ q(Θ); a nodal rotation near 2 rad would leave the small-rotation
  // theory long before: q0 is kept above ½ so the pose stays finite
  double t2 = mbd_dot3(th, th) / 4;
  double q0 = sqrt(fmax(1 - t2, 0.25));
  double q[4] = {q0, th[0] / 2, th[1] / 2, th[2] / 2};
  double tt = mbd_dot3(th, thd);
  double qd[4] = {-tt / (4 * q0), thd[0] / 2, thd[1] / 2, thd[2] / 2};
  double q0dd = -mbd_dot3(thd, thd) / (4 * q0) - tt * tt / (16 * q0 * q0 * q0);
  double t1[4], t2v[4], pdq[4];
  qmul(p, q, ps->p);
  qmul(pd, q, t1);
  qmul(p, qd, t2v);
  qmul(pd, qd, pdq);
  for (int k = 0; k < 4; k++) {
    ps->pd[k] = t1[k] + t2v[k];
    ps->h[3 + k] = 2 * pdq[k] + p[k] * q0dd;
  }
  // ∂p_n/∂p = R(q): column k is e_k ⊗ q
  for (int k = 0; k < 4; k++) {
    double e[4] = {0, 0, 0, 0}, c[4];
    e[k] = 1;
    qmul(e, q, c);
    for (int r = 0; r < 4; r++) {
      J[3 + r + 7 * (3 + k)] = c[r];
    }
  }
  // ∂p_n/∂a = L(p) Q Ψ: column l is p ⊗ (−ΘᵀΨ_l/(4 q0), Ψ_l/2)
  for (int l = 0; l < nm; l++) {
    double psl[3] = {R[l], R[nm + l], R[2 * nm + l]};
    double dq[4] = {-mbd_dot3(th, psl) / (4 * q0), psl[0] / 2, psl[1] / 2, psl[2] / 2}, c[4];
    qmul(p, dq, c);
    for (int r = 0; r < 4; r++) {
      J[3 + r + 7 * (7 + l)] = c[r];
    }
  }
  mbd_ep_A(ps->p, ps->A);
  mbd_ep_omega(ps->p, ps->pd, ps->w);
  ps->vadr = vadr;
  ps->nv = nvb;
  ps->ny = 7;
  ps->J = J;
}

/* planar node i: r_n = r + A ρ, θ_n = θ + Ψ_z a; J over (x, y, θ, a):
 *   ∂r_n = [I | R90 A ρ | A Φ],  ∂θ_n = [0 0 1 | Ψ_z];  h_r = −A ρ θ̇² + 2 R90 A ρ̇ θ̇,  h_θ = 0 */
static void node2_pose(const mbd_model *m, mbd_data *d, const struct mbd_flex *fx, int i,
                       mbd_pose *ps) {
  double rho[3], rhod[3], th[3], thd[3];
  int vadr = node_deformation(m, d, fx, i, rho, rhod, th, thd);
  int nm = fx->nm, nvb = fx->nvb;
  const mbd_pose *p0 = &d->pose[fx->body];
  const double *P = fx->Phi + (size_t)3 * i * nm, *R = fx->Psi + (size_t)3 * i * nm;
  rho[0] += fx->s[3 * i];
  rho[1] += fx->s[3 * i + 1];
  double *J = d->flexws + fx->ws + (size_t)i * 3 * nvb;  // 3 × nvb, column-major
  memset(J, 0, (size_t)3 * nvb * sizeof(double));
  memset(ps, 0, sizeof *ps);
  const double *A = p0->A;
  double w = p0->pd[0];
  double Ar[2] = {A[0] * rho[0] + A[1] * rho[1], A[3] * rho[0] + A[4] * rho[1]};
  double Ard[2] = {A[0] * rhod[0] + A[1] * rhod[1], A[3] * rhod[0] + A[4] * rhod[1]};
  double Br[2] = {-Ar[1], Ar[0]}, Brd[2] = {-Ard[1], Ard[0]};
  for (int r = 0; r < 2; r++) {
    ps->r[r] = p0->r[r] + Ar[r];
    ps->rd[r] = p0->rd[r] + Br[r] * w + Ard[r];
    ps->h[r] = -Ar[r] * w * w + 2 * Brd[r] * w;
    J[r + 3 * r] = 1;
    J[r + 3 * 2] = Br[r];
    for (int l = 0; l < nm; l++) {
      J[r + 3 * (3 + l)] = A[3 * r] * P[l] + A[3 * r + 1] * P[nm + l];
    }
  }
  J[2 + 3 * 2] = 1;
  for (int l = 0; l < nm; l++) {
    J[2 + 3 * (3 + l)] = R[2 * nm + l];
  }
  double th_n = p0->p[0] + th[2], c = cos(th_n), sn = sin(th_n);
  ps->p[0] = th_n;
  ps->pd[0] = w + thd[2];
  ps->A[0] = c;
  ps->A[1] = -sn;
  ps->A[3] = sn;
  ps->A[4] = c;
  ps->A[8] = 1;
  ps->w[2] = ps->pd[0];
  ps->vadr = vadr;
  ps->nv = nvb;
  ps->ny = 3;
  ps->J = J;
}

void mbd_flex_node_pose(const mbd_model *m, mbd_data *d, int b, mbd_pose *ps) {
  const mbd_body *bd = &m->body[b];
  if (bd->flex->dim == 3) {
    node3_pose(m, d, bd->flex, bd->node - 1, ps);
  } else {
    node2_pose(m, d, bd->flex, bd->node - 1, ps);
  }
}

double mbd_flex_node_rotation(const mbd_model *m, const mbd_data *d, int b, int comp) {
  const mbd_body *bd = &m->body[b];
  const struct mbd_flex *fx = bd->flex;
  const mbd_block *bl = &m->block[m->body[fx->body].block];
  const double *a = d->q + bl->qadr + fx->ny;
  const double *R = fx->Psi + (size_t)(3 * (bd->node - 1) + comp) * fx->nm;
  double s = 0;
  for (int l = 0; l < fx->nm; l++) {
    s += R[l] * a[l];
  }
  return s;
}

/* ------------------------------------------------------------------------------------------ */
/* the equations of motion (paper 003 eq 17–24)                                                */

/* node i's rotary inertia as a rigid body turned by Θ = Ψ_i a from the frame: its turn R = A(q)
 * (row-major, node axes → body axes), Y = W Ψ_i (3 × nm, the modal part of its angular velocity in
 * its own axes: W = 2 G(q) ∂q/∂Θ), its angular velocity ω_n = Rᵀω' + Y ȧ (own axes), and the rate
 * part of its angular acceleration α_q = (Rᵀω') × Y ȧ − 2 q̈0 q_v, q̈0 = −Θ̇ᵀΘ̇/(4q0) −
 * (ΘᵀΘ̇)²/(16 q0³) (the same q(Θ) as the node's pose) */
static void node_rotation(const struct mbd_flex *fx, int i, const double *a, const double *ad,
                          const double *w, double *Rn, double *Y, double *wn, double *alpha) {
  int nm = fx->nm;
  const double *Ps = fx->Psi + (size_t)3 * i * nm;
  double th[3], thd[3];
  mul3n(Ps, nm, a, th);
  mul3n(Ps, nm, ad, thd);
  double q0 = sqrt(fmax(1 - mbd_dot3(th, th) / 4, 0.25)), tt = mbd_dot3(th, thd);
  double q[4] = {q0, th[0] / 2, th[1] / 2, th[2] / 2};
  mbd_ep_A(q, Rn);
  // W = 2 G(q) Q, Q = [−Θᵀ/(4 q0); ½ I]: G(q) = [−q_v, −q̃_v + q0 I]
  double G[12], Wm[9];
  mbd_ep_G(q, G);
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      Wm[3 * r + c] = 2 * (G[4 * r] * (-th[c] / (4 * q0)) + 0.5 * G[4 * r + 1 + c]);
    }
  }
  for (int r = 0; r < 3; r++) {
    for (int l = 0; l < nm; l++) {
      Y[r * nm + l] =
          Wm[3 * r] * Ps[l] + Wm[3 * r + 1] * Ps[nm + l] + Wm[3 * r + 2] * Ps[2 * nm + l];
    }
  }
  double Rw[3], Yad[3], c[3];
  mbd_mat3_tvec(Rn, w, Rw);
  mul3n(Y, nm, ad, Yad);
  mbd_cross3(Rw, Yad, c);
  double q0dd = -mbd_dot3(thd, thd) / (4 * q0) - tt * tt / (16 * q0 * q0 * q0);
  for (int k = 0; k < 3; k++) {
    wn[k] = Rw[k] + Yad[k];
    alpha[k] = c[k] - 2 * q0dd * q[1 + k];
  }
}

/* node i's rotary inertia J (3 principal moments), with its rotation (node_rotation) evaluated
 * when it has one; NULL for a node without rotary inertia */
static const double *rotary_node(const struct mbd_flex *fx, int i, const double *a,
                                 const double *ad, const double *w, double *Rn, double *Y,
                                 double *wn, double *alpha) {
  const double *J = fx->J + 3 * i;
  if (J[0] == 0 && J[1] == 0 && J[2] == 0) {
    return NULL;
  }
  node_rotation(fx, i, a, ad, w, Rn, Y, wn, alpha);
  return J;
}

/* the sums of the lumped masses at a and ȧ from the invariants: ρ̄ = Σ m ρ = c0 + C1 a,
 * W[k][m] = Σ m_i ρ_ik Φ_i[m, :] = T4[k][m] + T5[k][m]ᵀ a (9 × nm), P = Σ m ρ ρᵀ (P_km = Iss_km +
 * T4[m][k]·a + W[k][m]·a) and V = Σ m (Φȧ) ρᵀ (V_mk = W[k][m]·ȧ) */
static void flex_sums(const struct mbd_flex *fx, const double *a, const double *ad, double *rb,
                      double *W, double *P, double *V) {
  int nm = fx->nm;
  size_t nn = (size_t)nm * nm;
  mul3n(fx->C1, nm, a, rb);
  for (int k = 0; k < 3; k++) {
    rb[k] += fx->c0[k];
  }
  for (int km = 0; km < 9; km++) {
    const double *T = fx->T5 + km * nn;
    for (int l = 0; l < nm; l++) {
      double s = fx->T4[km * nm + l];
      for (int lp = 0; lp < nm; lp++) {
        s += T[lp + (size_t)nm * l] * a[lp];
      }
      W[km * nm + l] = s;
    }
  }
  for (int k = 0; k < 3; k++) {
    for (int mm = 0; mm < 3; mm++) {
      double s = fx->Iss[3 * k + mm], v = 0;
      for (int l = 0; l < nm; l++) {
        s += (fx->T4[(3 * mm + k) * nm + l] + W[(3 * k + mm) * nm + l]) * a[l];
        v += W[(3 * k + mm) * nm + l] * ad[l];
      }
      P[3 * k + mm] = s;
      V[3 * mm + k] = v;
    }
  }
}

void mbd_flex_mass_matrix(const struct mbd_flex *fx, const double *A, const double *w,
                          const double *a, const double *ad, const double *rb, const double *W,
                          const double *P, double *Mw, double *Y) {
  int nm = fx->nm, nw = 6 + nm;
  double trP = P[0] + P[4] + P[8];
  memset(Mw, 0, (size_t)nw * nw * sizeof(double));
  // M_rr = m I;  M_rθ = −A ρ̄~;  M_rf = A C1;  M_θθ = Σ m ρ̃ᵀρ̃ = tr(P) I − P
  double rt[9] = {0, -rb[2], rb[1], rb[2], 0, -rb[0], -rb[1], rb[0], 0};
  for (int r = 0; r < 3; r++) {
    MBD_AT(Mw, nw, r, r) = fx->mt;
    for (int c = 0; c < 3; c++) {
      double s = 0;
      for (int k = 0; k < 3; k++) {
        s += A[3 * r + k] * rt[3 * k + c];
      }
      MBD_AT(Mw, nw, r, 3 + c) = MBD_AT(Mw, nw, 3 + c, r) = -s;
      MBD_AT(Mw, nw, 3 + r, 3 + c) = (r == c ? trP : 0) - P[3 * r + c];
    }
    for (int l = 0; l < nm; l++) {
      double s =
          A[3 * r] * fx->C1[l] + A[3 * r + 1] * fx->C1[nm + l] + A[3 * r + 2] * fx->C1[2 * nm + l];
      MBD_AT(Mw, nw, r, 6 + l) = MBD_AT(Mw, nw, 6 + l, r) = s;
    }
  }
  // M_θf = Σ m ρ̃_i Φ_i: row x = W[y][z] − W[z][y], y = W[z][x] − W[x][z], z = W[x][y] − W[y][x];
  // M_ff = Σ m Φ_iᵀΦ_i, constant
  for (int l = 0; l < nm; l++) {
    double row[3] = {W[(3 * 1 + 2) * nm + l] - W[(3 * 2 + 1) * nm + l],
                     W[(3 * 2 + 0) * nm + l] - W[(3 * 0 + 2) * nm + l],
                     W[(3 * 0 + 1) * nm + l] - W[(3 * 1 + 0) * nm + l]};
    for (int r = 0; r < 3; r++) {
      MBD_AT(Mw, nw, 3 + r, 6 + l) = MBD_AT(Mw, nw, 6 + l, 3 + r) = row[r];
    }
    for (int lp = 0; lp < nm; lp++) {
      MBD_AT(Mw, nw, 6 + lp, 6 + l) = fx->Mft[lp + (size_t)nm * l];
    }
  }
  // the rotary inertias, node by node (small rigid bodies turned by Θ_i: see the header):
  // M_θθ += R J Rᵀ, M_θf += R J Y, M_ff += Yᵀ J Y
  for (int i = 0; i < fx->nnode; i++) {
    double Rn[9], wn[3], alpha[3];
    const double *J = rotary_node(fx, i, a, ad, w, Rn, Y, wn, alpha);
    if (!J) {
      continue;
    }
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        MBD_AT(Mw, nw, 3 + r, 3 + c) += Rn[3 * r] * J[0] * Rn[3 * c] +
                                        Rn[3 * r + 1] * J[1] * Rn[3 * c + 1] +
                                        Rn[3 * r + 2] * J[2] * Rn[3 * c + 2];
      }
      for (int l = 0; l < nm; l++) {
        double v = Rn[3 * r] * J[0] * Y[l] + Rn[3 * r + 1] * J[1] * Y[nm + l] +
                   Rn[3 * r + 2] * J[2] * Y[2 * nm + l];
        MBD_AT(Mw, nw, 3 + r, 6 + l) += v;
        MBD_AT(Mw, nw, 6 + l, 3 + r) += v;
      }
    }
    for (int l = 0; l < nm; l++) {
      for (int lp = 0; lp < nm; lp++) {
        MBD_AT(Mw, nw, 6 + lp, 6 + l) += Y[lp] * J[0] * Y[l] + Y[nm + lp] * J[1] * Y[nm + l] +
                                         Y[2 * nm + lp] * J[2] * Y[2 * nm + l];
      }
    }
  }
}

void mbd_flex_forces(const struct mbd_flex *fx, const double *A, const double *w, const double *a,
                     const double *ad, const double *g, const double *rb, const double *W,
                     const double *P, const double *V, double *Qw, double *Y) {
  int nm = fx->nm;
  size_t nn = (size_t)nm * nm;
  // gravity (g' = Aᵀg) and the quadratic velocity vector −S, translational part:
  // Q_r = m g − A (ω̃ω̃ρ̄ + 2 ω̃ C1 ȧ)
  double gp[3], C1ad[3], t[3], wr[3], wwr[3], wc[3], At[3];
  mbd_mat3_tvec(A, g, gp);
  mul3n(fx->C1, nm, ad, C1ad);
  mbd_cross3(w, rb, wr);
  mbd_cross3(w, wr, wwr);
  mbd_cross3(w, C1ad, wc);
  for (int k = 0; k < 3; k++) {
    t[k] = wwr[k] + 2 * wc[k];
  }
  mbd_mat3_vec(A, t, At);
  for (int k = 0; k < 3; k++) {
    Qw[k] = fx->mt * g[k] - At[k];
  }
  // Q_θ = ρ̄ × g' − ω' × (I_ρ ω') − 2 (tr V ω' − V ω'),  I_ρ = tr(P) I − P
  double trP = P[0] + P[4] + P[8], Irho[9], rg[3], Iw[3], wIw[3], Vw[3];
  double trV = V[0] + V[4] + V[8];
  for (int k = 0; k < 9; k++) {
    Irho[k] = (k % 4 == 0 ? trP : 0) - P[k];
  }
  mbd_cross3(rb, gp, rg);
  mbd_mat3_vec(Irho, w, Iw);
  mbd_cross3(w, Iw, wIw);
  mbd_mat3_vec(V, w, Vw);
  for (int k = 0; k < 3; k++) {
    Qw[3 + k] = rg[k] - wIw[k] - 2 * (trV * w[k] - Vw[k]);
  }
  // Q_f = C1ᵀg' − Σ (ω_m ω_k − |ω|² δ_mk) W[k][m] − 2 Σ ω̃_mk T5[m][k] ȧ − K a − D ȧ − ω⊥² G a
  double w2 = mbd_dot3(w, w);
  const double wt[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  for (int l = 0; l < nm; l++) {
    double s = fx->C1[l] * gp[0] + fx->C1[nm + l] * gp[1] + fx->C1[2 * nm + l] * gp[2];
    for (int mm = 0; mm < 3; mm++) {
      for (int k = 0; k < 3; k++) {
        s -= (w[mm] * w[k] - (mm == k ? w2 : 0)) * W[(3 * k + mm) * nm + l];
      }
    }
    Qw[6 + l] = s;
  }
  for (int mm = 0; mm < 3; mm++) {
    for (int k = 0; k < 3; k++) {
      double c = wt[3 * mm + k];
      if (c == 0) {
        continue;
      }
      const double *T = fx->T5 + (size_t)(3 * mm + k) * nn;
      for (int lp = 0; lp < nm; lp++) {
        double s = 0;
        for (int l = 0; l < nm; l++) {
          s += T[lp + (size_t)nm * l] * ad[l];
        }
        Qw[6 + lp] -= 2 * c * s;
      }
    }
  }
  double wperp = w[1] * w[1] + w[2] * w[2];
  for (int lp = 0; lp < nm; lp++) {
    double s = 0;
    for (int l = 0; l < nm; l++) {
      s += fx->K[lp + (size_t)nm * l] * a[l];
      if (fx->D) {
        s += fx->D[lp + (size_t)nm * l] * ad[l];
      }
      if (fx->G) {
        s += wperp * fx->G[lp + (size_t)nm * l] * a[l];
      }
    }
    Qw[6 + lp] -= s;
  }
  // the rotary inertias: τ = J α_q + ω_n × J ω_n;  Q_θ −= R τ,  Q_f −= Yᵀ τ
  for (int i = 0; i < fx->nnode; i++) {
    double Rn[9], wn[3], alpha[3];
    const double *J = rotary_node(fx, i, a, ad, w, Rn, Y, wn, alpha);
    if (!J) {
      continue;
    }
    double Jw[3] = {J[0] * wn[0], J[1] * wn[1], J[2] * wn[2]}, gy[3], tau[3], Rt[3];
    mbd_cross3(wn, Jw, gy);
    for (int k = 0; k < 3; k++) {
      tau[k] = J[k] * alpha[k] + gy[k];
    }
    mbd_mat3_vec(Rn, tau, Rt);
    for (int k = 0; k < 3; k++) {
      Qw[3 + k] -= Rt[k];
    }
    for (int l = 0; l < nm; l++) {
      Qw[6 + l] -= Y[l] * tau[0] + Y[nm + l] * tau[1] + Y[2 * nm + l] * tau[2];
    }
  }
}

int mbd_flex_inertia(const mbd_model *m, mbd_data *d, int b, mbd_error *err) {
  (void)err;
  const struct mbd_flex *fx = m->body[b].flex;
  const mbd_pose *ps = &d->pose[b];
  const mbd_block *bl = &m->block[m->body[b].block];
  int nm = fx->nm, nw = 6 + nm, n = m->nv, va = bl->vadr, ny = fx->ny;
  const double *a = d->q + bl->qadr + ny, *ad = d->v + va + ny;
  double *Mw = d->flexws + fx->ws + (size_t)fx->nnode * ny * fx->nvb;
  double *Qw = Mw + (size_t)nw * nw, *W = Qw + nw, *Y = W + 9 * (size_t)nm;
  double w[3] = {0, 0, 0}, G[12];
  if (fx->dim == 3) {
    mbd_ep_G(ps->p, G);
    for (int r = 0; r < 3; r++) {
      w[r] = 2 * (G[4 * r] * ps->pd[0] + G[4 * r + 1] * ps->pd[1] + G[4 * r + 2] * ps->pd[2] +
                  G[4 * r + 3] * ps->pd[3]);
    }
  } else {
    w[2] = ps->pd[0];
  }
  double rb[3], P[9], V[9];
  flex_sums(fx, a, ad, rb, W, P, V);
  mbd_flex_mass_matrix(fx, ps->A, w, a, ad, rb, W, P, Mw, Y);
  mbd_flex_forces(fx, ps->A, w, a, ad, m->gravity, rb, W, P, V, Qw, Y);
  if (fx->dim == 2) {
    // the rows and columns (x, y, θz, a) of the spatial equations
    int map[3] = {0, 1, 5};
    for (int j = 0; j < 3 + nm; j++) {
      int cj = j < 3 ? map[j] : 3 + j;
      for (int i = 0; i < 3 + nm; i++) {
        int ci = i < 3 ? map[i] : 3 + i;
        MBD_AT(d->M, n, va + i, va + j) = MBD_AT(Mw, nw, ci, cj);
      }
      d->Q[va + j] += Qw[cj];
    }
    return MBD_OK;
  }
  // spatial: v = (ṙ, ṗ, ȧ), ω' = 2Gṗ: M = TᵀM_ωT and Q = TᵀQ_ω with T = diag(I, 2G, I)
  int nvb = fx->nvb;
  // column j of M_ω T (nw entries) for each block velocity j, then Tᵀ applied to it
  for (int j = 0; j < nvb; j++) {
    double col[6 + 500];
    for (int i = 0; i < nw; i++) {
      if (j < 3) {
        col[i] = MBD_AT(Mw, nw, i, j);
      } else if (j < 7) {
        int k = j - 3;
        col[i] = 2 * (MBD_AT(Mw, nw, i, 3) * G[k] + MBD_AT(Mw, nw, i, 4) * G[4 + k] +
                      MBD_AT(Mw, nw, i, 5) * G[8 + k]);
      } else {
        col[i] = MBD_AT(Mw, nw, i, j - 1);
      }
    }
    for (int i = 0; i < 3; i++) {
      MBD_AT(d->M, n, va + i, va + j) = col[i];
    }
    for (int k = 0; k < 4; k++) {
      MBD_AT(d->M, n, va + 3 + k, va + j) =
          2 * (G[k] * col[3] + G[4 + k] * col[4] + G[8 + k] * col[5]);
    }
    for (int l = 0; l < nm; l++) {
      MBD_AT(d->M, n, va + 7 + l, va + j) = col[6 + l];
    }
  }
  for (int i = 0; i < 3; i++) {
    d->Q[va + i] += Qw[i];
  }
  for (int k = 0; k < 4; k++) {
    d->Q[va + 3 + k] += 2 * (G[k] * Qw[3] + G[4 + k] * Qw[4] + G[8 + k] * Qw[5]);
  }
  for (int l = 0; l < nm; l++) {
    d->Q[va + 7 + l] += Qw[6 + l];
  }
  return MBD_OK;
}

/* kinetic energy from the nodes' velocities (body axes: Aᵀṙ + ω' × ρ_i + Φ_iȧ, and ω' + Ψ_iȧ for
 * the rotary inertias), gravity −g·(m r + A ρ̄), elastic ½ aᵀKa */
double mbd_flex_energy(const mbd_model *m, const mbd_data *d, int b) {
  const struct mbd_flex *fx = m->body[b].flex;
  const mbd_pose *ps = &d->pose[b];
  const mbd_block *bl = &m->block[m->body[b].block];
  int nm = fx->nm, ny = fx->ny;
  const double *a = d->q + bl->qadr + ny, *ad = d->v + bl->vadr + ny, *A = ps->A;
  double w[3] = {0, 0, 0};
  if (fx->dim == 3) {
    double G[12];
    mbd_ep_G(ps->p, G);
    for (int r = 0; r < 3; r++) {
      w[r] = 2 * (G[4 * r] * ps->pd[0] + G[4 * r + 1] * ps->pd[1] + G[4 * r + 2] * ps->pd[2] +
                  G[4 * r + 3] * ps->pd[3]);
    }
  } else {
    w[2] = ps->pd[0];
  }
  double vb[3], T = 0, V = 0;
  mbd_mat3_tvec(A, ps->rd, vb);
  // scratch for the nodes' Y: the energy reads a const data, so a small stack buffer (≤ 500 modes)
  double Y[3 * 500];
  for (int i = 0; i < fx->nnode; i++) {
    const double *P = fx->Phi + (size_t)3 * i * nm, *J = fx->J + 3 * i;
    double rho[3], rd[3], wr[3], Ar[3];
    mul3n(P, nm, a, rho);
    mul3n(P, nm, ad, rd);
    for (int k = 0; k < 3; k++) {
      rho[k] += fx->s[3 * i + k];
    }
    mbd_cross3(w, rho, wr);
    double v2 = 0, rot = 0;
    for (int k = 0; k < 3; k++) {
      double vk = vb[k] + wr[k] + rd[k];
      v2 += vk * vk;
    }
    if (J[0] != 0 || J[1] != 0 || J[2] != 0) {
      // ½ ω_nᵀ J ω_n, ω_n = Rᵀω' + W Ψ ȧ the node's own angular velocity
      double Rn[9], wn[3], alpha[3];
      node_rotation(fx, i, a, ad, w, Rn, Y, wn, alpha);
      for (int k = 0; k < 3; k++) {
        rot += J[k] * wn[k] * wn[k];
      }
    }
    T += 0.5 * fx->mass[i] * v2 + 0.5 * rot;
    mbd_mat3_vec(A, rho, Ar);
    for (int k = 0; k < 3; k++) {
      V -= fx->mass[i] * m->gravity[k] * (ps->r[k] + Ar[k]);
    }
  }
  for (int l = 0; l < nm; l++) {
    for (int lp = 0; lp < nm; lp++) {
      V += 0.5 * a[lp] * fx->K[lp + (size_t)nm * l] * a[l];
    }
  }
  return T + V;
}
