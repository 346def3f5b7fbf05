/* the recursive solve of the relative formulation: an articulated-body recursion on the spanning
 * tree (Featherstone's ABA, Rigid Body Dynamics Algorithms, 2008, ch. 7) in the bodies' pose
 * coordinates, with the cut-joint and drive rows added through the tree's response to their
 * forces.
 *
 * The dense solve forms M̄ = Σ_b J_bᵀ M_b J_b and ḡ = Σ_b J_bᵀ(Q_b − M_b h_b) (paper 002 eq 9–10)
 * from each body's pose Jacobian J_b over every joint coordinate, O(n²) to O(n³) work.  The pose
 * stage of a recursive tree model leaves instead, per body, the recursion
 *
 *   Ÿ_c = F Ÿ_p + S q̈_j + c          (tree_impl.h: mbd_tree_rec)
 *
 * of which J_b is the product along the path to the ground, and the force stage each body's M_Y
 * and Q_Y (kinematics/tree_rec.c).  The equations M̄ q̈ + Φqᵀλ = ḡ then say, for each tree joint j
 * with child c,
 *
 *   Sᵀ f_c + n_jᵀ μ_j = τ_j,    f_c = M_c Ÿ_c − Q_c + Σ_children F_dᵀ f_d
 *
 * (τ the generalized forces of the rows outside the recursion, −Φqᵀλ; n_j the Euler-parameter norm
 * row of a spherical or floating joint, whose multiplier μ_j and equation n_j q̈_j = γ*_j stay in
 * the joint).  Leaves to ground, f_c = IA Ÿ_c + pA with the articulated inertia and bias force
 *
 *   U = IA S,  [K k; kᵀ κ] = [SᵀU nᵀ; n 0]⁻¹,  u = τ − Sᵀ pA,
 *   Ia = IA − U K Uᵀ,  pa = pA + Ia c + U (K u + k γ*),  IA_p += Fᵀ Ia F,  pA_p += Fᵀ pa,
 *
 * then ground to leaves a' = F Ÿ_p + c, q̈_j = K (u − Uᵀa') + k γ*, Ÿ_c = a' + S q̈_j: O(n) work,
 * the same q̈ as the dense solve (the same equations, eliminated body by body).  The bordered
 * inverse is formed on the null space of n (bordered_inverse): an Euler-parameter joint's rate
 * along e carries the whole subtree's dilation, so its 4×4 SᵀIA S grows with the subtree while
 * the three rotations' part stays bounded, and only a pivot test on that part, against its own
 * diagonal, holds at any length of chain.
 *
 * The other active rows G (cut joints, drives): with τ = 0 the recursion gives q̈₀; the same
 * recursion without forces, velocities or local right-hand sides is the operator M̄⁻¹ (on the
 * local rows' null space), applied to each row's force Gᵢᵀ in O(n) (only bias forces travel, the
 * articulated inertias of the first pass stand): X = M̄⁻¹Gᵀ, then
 *
 *   (G X) λ = G q̈₀ − γ*,   q̈ = q̈₀ − X λ
 *
 * an m×m system (LU), O(n·m + m²·n + m³) in all.  Multipliers, pivot watch and the re-selection
 * of rows set aside at assembly follow the dense augmented solve (augmented_solve.c). */
#include "relative_aba.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kinematics/tree.h"
#include "formulations_msg.h"

/* a pivot of a joint's inertia on its free directions below this fraction of that direction's own
 * diagonal: the articulated inertia is singular along the joint's coordinates (a chain end
 * without mass, a degenerate joint).  Relative to the diagonal, not to a norm of the whole
 * matrix, so the test does not move with the size of the subtree below the joint. */
#define ABA_PIVOT_REL 1e-13
/* the pivot ratios of the m×m system at which rows are chosen again and Gauss's principle takes
 * over from the LU, relative to its first (augmented_solve.c: the same tests on the augmented
 * matrix; the m×m matrix carries σ², the leading matrix's LU about σ) */
#define ABA_RESELECT_REL 1e-3
#define ABA_GAUSS_REL 1e-6
/* Gauss's principle on it: eigenvalues below ABA_GAUSS_CUT of the largest dropped; the
 * stabilization's filter μ = ABA_GAUSS_MU σ₁ (singular.c's) */
#define ABA_GAUSS_CUT 1e-14
#define ABA_GAUSS_MU 1e-3

static int ny_of(const mbd_model *m) { return m->dim == 3 ? 7 : 3; }

/* the passes' inner steps, inlined with constant sizes (ny = 3 or 7) */
#if defined(__GNUC__)
#define ABA_INLINE static inline __attribute__((always_inline))
#else
#define ABA_INLINE static inline
#endif

/* GCC's straight-line (SLP) vectorizer pairs pin_backward's scalar products into two-lane
 * operations whose shuffles cost more instructions than the pairs save (23 of its ≈ 190 a joint
 * on the 128-link chain, and no time): that sweep is compiled scalar */
#if defined(__GNUC__) && !defined(__clang__)
#define ABA_SCALAR __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define ABA_SCALAR
#endif

/* the inverse W (N×N, column-major, N = nq + nl ≤ 8) of the joint's bordered matrix
 * [D nᵀ; n 0] (D = SᵀIA S, nq×nq symmetric; n the local row, nl = 0 or 1), by projection: with
 * B (nq × (nq − nl), orthonormal columns) spanning the null space of n and x₀ = nᵀ/|n|²,
 *
 *   q̈ = x₀ γ* + B z,   (Bᵀ D B) z = Bᵀ (r − D x₀ γ*),   μ = x₀ᵀ (r − D q̈)
 *
 * so K = B (BᵀDB)⁻¹ Bᵀ, k = (I − K D) x₀, κ = −x₀ᵀ D k.  Of an Euler-parameter joint's four
 * rates one (along e) changes only the parameters' norm, which the row fixes: D carries along it
 * the inertia of the whole subtree dilated about the joint (it grows as the subtree's mass times
 * its extent squared), while BᵀDB is the articulated inertia of the three rotations, bounded
 * along the chain.  Cholesky on BᵀDB, each pivot tested against its own diagonal.  0, or −1
 * when a pivot vanishes. */
static int bordered_inverse(int nq, int nl, const double *D, const double *nrow, double *W) {
  int N = nq + nl;
  if (N == 1) {
    // one coordinate, no local row: the revolute and prismatic joints of every chain
    if (!(D[0] > 0)) {
      return -1;
    }
    W[0] = 1 / D[0];
    return 0;
  }
  // B: the columns of the Householder reflection H (H n̂ = ∓e_h) other than h; nl = 0: B = I
  double H[49], x0[7];
  int nb = nq - nl, h = -1;
  for (int j = 0; j < nq; j++) {
    for (int i = 0; i < nq; i++) {
      H[j * nq + i] = i == j;
    }
    x0[j] = 0;
  }
  if (nl) {
    double nn = 0, v[7], vv = 0;
    h = 0;
    for (int i = 0; i < nq; i++) {
      nn += nrow[i] * nrow[i];
      h = fabs(nrow[i]) > fabs(nrow[h]) ? i : h;
    }
    if (!(nn > 0)) {
      return -1;
    }
    double len = sqrt(nn);
    for (int i = 0; i < nq; i++) {
      v[i] = nrow[i] / len;
      x0[i] = nrow[i] / nn;
    }
    v[h] += v[h] >= 0 ? 1 : -1;
    for (int i = 0; i < nq; i++) {
      vv += v[i] * v[i];
    }
    for (int j = 0; j < nq; j++) {
      for (int i = 0; i < nq; i++) {
        H[j * nq + i] -= 2 * v[i] * v[j] / vv;
      }
    }
  }
  double B[49], DB[49], P[49], L[49];
  for (int j = 0, c = 0; j < nq; j++) {
    if (j != h) {
      memcpy(B + c++ * nq, H + j * nq, (size_t)nq * sizeof(double));
    }
  }
  // P = Bᵀ D B (nb × nb), its Cholesky factor L (lower, column-major)
  for (int j = 0; j < nb; j++) {
    for (int i = 0; i < nq; i++) {
      double s = 0;
      for (int l = 0; l < nq; l++) {
        s += D[l * nq + i] * B[j * nq + l];
      }
      DB[j * nq + i] = s;
    }
  }
  for (int j = 0; j < nb; j++) {
    for (int i = 0; i < nb; i++) {
      double s = 0;
      for (int l = 0; l < nq; l++) {
        s += B[i * nq + l] * DB[j * nq + l];
      }
      P[j * nb + i] = s;
    }
  }
  for (int j = 0; j < nb; j++) {
    double s = P[j * nb + j];
    for (int l = 0; l < j; l++) {
      s -= L[l * nb + j] * L[l * nb + j];
    }
    if (!(s > ABA_PIVOT_REL * P[j * nb + j])) {
      return -1;
    }
    double djj = sqrt(s);
    L[j * nb + j] = djj;
    for (int i = j + 1; i < nb; i++) {
      double x = P[j * nb + i];
      for (int l = 0; l < j; l++) {
        x -= L[l * nb + i] * L[l * nb + j];
      }
      L[j * nb + i] = x / djj;
    }
  }
  // P⁻¹ Bᵀ column by column (forward and back substitution), then K = B (P⁻¹ Bᵀ)
  double PB[49];
  for (int c = 0; c < nq; c++) {
    double *y = PB + c * nb;
    for (int i = 0; i < nb; i++) {
      double x = B[i * nq + c];
      for (int l = 0; l < i; l++) {
        x -= L[l * nb + i] * y[l];
      }
      y[i] = x / L[i * nb + i];
    }
    for (int i = nb - 1; i >= 0; i--) {
      double x = y[i];
      for (int l = i + 1; l < nb; l++) {
        x -= L[i * nb + l] * y[l];
      }
      y[i] = x / L[i * nb + i];
    }
  }
  for (int j = 0; j < nq; j++) {
    for (int i = 0; i < nq; i++) {
      double s = 0;
      for (int l = 0; l < nb; l++) {
        s += B[l * nq + i] * PB[j * nb + l];
      }
      W[j * N + i] = s;
    }
  }
  if (nl) {
    // k = x₀ − K (D x₀), κ = −x₀ᵀ D k
    double Dx[7], k[7], kap = 0;
    for (int i = 0; i < nq; i++) {
      double s = 0;
      for (int l = 0; l < nq; l++) {
        s += D[l * nq + i] * x0[l];
      }
      Dx[i] = s;
    }
    for (int i = 0; i < nq; i++) {
      double s = x0[i];
      for (int l = 0; l < nq; l++) {
        s -= W[l * N + i] * Dx[l];
      }
      k[i] = s;
    }
    for (int i = 0; i < nq; i++) {
      kap -= Dx[i] * k[i];
      W[nq * N + i] = k[i];
      W[i * N + nq] = k[i];
    }
    W[nq * N + nq] = kap;
  }
  return 0;
}

/* y = A x (A r×c column-major, ld r); y += A x; y = Aᵀ x */
static void mv(int r, int c, const double *A, const double *x, double *y) {
  for (int i = 0; i < r; i++) {
    y[i] = 0;
  }
  for (int j = 0; j < c; j++) {
    const double *a = A + j * r;
    for (int i = 0; i < r; i++) {
      y[i] += a[i] * x[j];
    }
  }
}

static void mv_add(int r, int c, const double *A, const double *x, double *y) {
  for (int j = 0; j < c; j++) {
    const double *a = A + j * r;
    for (int i = 0; i < r; i++) {
      y[i] += a[i] * x[j];
    }
  }
}

static void mtv(int r, int c, const double *A, const double *x, double *y) {
  for (int j = 0; j < c; j++) {
    const double *a = A + j * r;
    double s = 0;
    for (int i = 0; i < r; i++) {
      s += a[i] * x[i];
    }
    y[j] = s;
  }
}

/* IA += Fᵀ Ia F and pA += Fᵀ pa for F = [I X; 0 R] (tree_impl.h: the position rows of the child
 * follow the parent's position rows one to one; X over the parent's orientation, R its
 * orientation to the child's), Ia = [A B; Bᵀ C] symmetric:
 *   Fᵀ Ia F = [A, P1; P1ᵀ, Xᵀ P1 + Rᵀ P2],  P1 = A X + B R,  P2 = Bᵀ X + C R
 * (spatial 3 + 4, planar 2 + 1: a third of the products of the full 7×7 triple product) */
ABA_INLINE void carry(const int ny, const double *F, const double *Ia, const double *pa, double *IA,
                      double *pA) {
  int np = ny == 7 ? 3 : 2, nr = ny - np;
  double P1[12], P2[16];
  for (int j = 0; j < nr; j++) {
    const double *fx = F + (np + j) * ny;  // column np + j of F: X then R
    for (int i = 0; i < np; i++) {
      double s = 0;
      for (int l = 0; l < np; l++) {
        s += Ia[l * ny + i] * fx[l];  // A X
      }
      for (int l = 0; l < nr; l++) {
        s += Ia[(np + l) * ny + i] * fx[np + l];  // B R
      }
      P1[j * np + i] = s;
    }
    for (int i = 0; i < nr; i++) {
      double s = 0;
      for (int l = 0; l < np; l++) {
        s += Ia[(np + i) * ny + l] * fx[l];  // Bᵀ X
      }
      for (int l = 0; l < nr; l++) {
        s += Ia[(np + l) * ny + np + i] * fx[np + l];  // C R
      }
      P2[j * nr + i] = s;
    }
  }
  for (int j = 0; j < np; j++) {
    for (int i = 0; i < np; i++) {
      IA[j * ny + i] += Ia[j * ny + i];
    }
  }
  for (int j = 0; j < nr; j++) {
    for (int i = 0; i < np; i++) {
      IA[(np + j) * ny + i] += P1[j * np + i];
      IA[i * ny + np + j] += P1[j * np + i];
    }
    for (int i = 0; i < nr; i++) {
      const double *fi = F + (np + i) * ny;  // Xᵀ P1 + Rᵀ P2, element (i, j)
      double s = 0;
      for (int l = 0; l < np; l++) {
        s += fi[l] * P1[j * np + l];
      }
      for (int l = 0; l < nr; l++) {
        s += fi[np + l] * P2[j * nr + l];
      }
      IA[(np + j) * ny + np + i] += s;
    }
  }
  // Fᵀ pa = [pa_r; Xᵀ pa_r + Rᵀ pa_p]
  for (int i = 0; i < np; i++) {
    pA[i] += pa[i];
  }
  for (int i = 0; i < nr; i++) {
    const double *fi = F + (np + i) * ny;
    double s = 0;
    for (int l = 0; l < ny; l++) {
      s += fi[l] * pa[l];
    }
    pA[np + i] += s;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the passes                                                                                  */

/* one joint of the backward pass (child c with IA, pA complete): U, K, k, κ, u of the joint and
 * the articulated inertia and bias force carried to the parent.  Inlined with ny = 3 and 7, so
 * every loop has a constant bound; a joint of one coordinate without a local row (the revolute
 * and prismatic joints of chains) takes the rank-one form. */
ABA_INLINE int backward_joint(const mbd_model *m, mbd_data *d, const mbd_tree_joint *tj,
                              const int ny, mbd_error *err) {
  mbd_tree_rec *R = &d->trec[tj->child];
  int nq = tj->nq, nn = ny * ny;
  double Ia[49], pa[7], w[7];
  if (nq == 1 && R->nl == 0) {
    // U = IA s, D = sᵀU, u = −sᵀpA, Ia = IA − U Uᵀ/D, w = u/D
    const double *sv = R->S;
    double D = 0, u = 0;
    for (int i = 0; i < ny; i++) {
      double x = 0;
      for (int l = 0; l < ny; l++) {
        x += R->IA[l * ny + i] * sv[l];
      }
      R->U[i] = x;
      D += sv[i] * x;
      u -= sv[i] * R->pA[i];
    }
    if (!(fabs(D) > 0)) {
      char what[160];
      mbd_model_coord_name(m, tj->qadr, what, sizeof what);
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_LEADING, d->t,
                      "articulated inertia without a pivot", what);
    }
    double K = 1 / D;
    R->K[0] = K;
    R->u[0] = u;
    for (int j = 0; j < ny; j++) {
      double uj = R->U[j] * K;
      for (int i = 0; i < ny; i++) {
        Ia[j * ny + i] = R->IA[j * ny + i] - R->U[i] * uj;
      }
    }
    w[0] = K * u;
  } else {
    memcpy(Ia, R->IA, (size_t)nn * sizeof(double));
  }
  if (nq > 0 && !(nq == 1 && R->nl == 0)) {
    // U = IA S, D = SᵀU, u = −Sᵀ pA; the joint's bordered inverse
    double D[49], W[64];
    for (int j = 0; j < nq; j++) {
      mv(ny, ny, R->IA, R->S + j * ny, R->U + j * ny);
    }
    for (int j = 0; j < nq; j++) {
      mtv(ny, nq, R->U, R->S + j * ny, D + j * nq);  // D symmetric: column j = Uᵀ S_j
    }
    mtv(ny, nq, R->S, R->pA, R->u);
    for (int j = 0; j < nq; j++) {
      R->u[j] = -R->u[j];
    }
    if (bordered_inverse(nq, R->nl, D, R->n, W) != 0) {
      char what[160];
      mbd_model_coord_name(m, tj->qadr, what, sizeof what);
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_LEADING, d->t,
                      "articulated inertia without a pivot", what);
    }
    int N = nq + R->nl;
    for (int j = 0; j < nq; j++) {
      memcpy(R->K + j * nq, W + j * N, (size_t)nq * sizeof(double));
    }
    if (R->nl) {
      memcpy(R->k, W + nq * N, (size_t)nq * sizeof(double));
      R->kap = W[nq * N + nq];
    }
    // Ia = IA − U K Uᵀ
    double UK[49];
    for (int j = 0; j < nq; j++) {
      mv(ny, nq, R->U, R->K + j * nq, UK + j * ny);
    }
    for (int j = 0; j < ny; j++) {
      for (int l = 0; l < nq; l++) {
        double ujl = R->U[l * ny + j];
        for (int i = 0; i < ny; i++) {
          Ia[j * ny + i] -= UK[l * ny + i] * ujl;
        }
      }
    }
    // w = K u + k γ*
    mv(nq, nq, R->K, R->u, w);
    for (int j = 0; R->nl && j < nq; j++) {
      w[j] += R->k[j] * R->gl;
    }
  }
  // pa = pA + Ia c + U w
  for (int i = 0; i < ny; i++) {
    double x = R->pA[i];
    for (int l = 0; l < ny; l++) {
      x += Ia[l * ny + i] * R->c[l];
    }
    for (int l = 0; l < nq; l++) {
      x += R->U[l * ny + i] * w[l];
    }
    pa[i] = x;
  }
  if (tj->parent > 0) {
    // the parent's articulated inertia and bias force: IA_p += Fᵀ Ia F, pA_p += Fᵀ pa
    carry(ny, R->F, Ia, pa, d->trec[tj->parent].IA, d->trec[tj->parent].pA);
  }
  return MBD_OK;
}

/* backward_joint for a planar joint of one coordinate without a local row (a revolute or a
 * prismatic joint: every chain's), written out: F = [I f; 0 1] (planar_child: the parent's
 * position rows one to one, f = F[6..7] over its angle), IA symmetric (its upper triangle read),
 * so Ia and Fᵀ Ia F take only their six distinct entries.  The same U, K, u as the general
 * form; IA and pA of the parent equal to round-off (another order of the same sums). */
static int backward_planar1(const mbd_model *m, mbd_data *d, const mbd_tree_joint *tj) {
  mbd_tree_rec *R = &d->trec[tj->child];
  const double *I = R->IA, *sv = R->S, *pA = R->pA, *c = R->c;
  double i00 = I[0], i01 = I[3], i02 = I[6], i11 = I[4], i12 = I[7], i22 = I[8];
  double s0 = sv[0], s1 = sv[1], s2 = sv[2];
  double U0 = i00 * s0 + i01 * s1 + i02 * s2, U1 = i01 * s0 + i11 * s1 + i12 * s2,
         U2 = i02 * s0 + i12 * s1 + i22 * s2;
  double D = s0 * U0 + s1 * U1 + s2 * U2, u = -(s0 * pA[0] + s1 * pA[1] + s2 * pA[2]);
  R->U[0] = U0;
  R->U[1] = U1;
  R->U[2] = U2;
  if (!(fabs(D) > 0)) {
    (void)m;
    return -1;
  }
  double K = 1 / D, w = K * u;
  R->K[0] = K;
  R->u[0] = u;
  if (tj->parent <= 0) {
    return 0;
  }
  double k0 = U0 * K, k1 = U1 * K, k2 = U2 * K;
  double a00 = i00 - U0 * k0, a01 = i01 - U0 * k1, a02 = i02 - U0 * k2, a11 = i11 - U1 * k1,
         a12 = i12 - U1 * k2, a22 = i22 - U2 * k2;
  // (c has no angular part: a planar joint's quadratic terms act on the position rows alone)
  double c0 = c[0], c1 = c[1];
  double p0 = pA[0] + a00 * c0 + a01 * c1 + U0 * w, p1 = pA[1] + a01 * c0 + a11 * c1 + U1 * w,
         p2 = pA[2] + a02 * c0 + a12 * c1 + U2 * w;
  double f0 = R->F[6], f1 = R->F[7];
  // Fᵀ Ia F = [A, A f + b; ·, fᵀ(A f + b) + bᵀ f + a22],  Fᵀ pa = [pa_r; fᵀ pa_r + pa_θ]
  double P0 = a00 * f0 + a01 * f1 + a02, P1 = a01 * f0 + a11 * f1 + a12;
  double corner = f0 * P0 + f1 * P1 + (a02 * f0 + a12 * f1 + a22);
  mbd_tree_rec *Rp = &d->trec[tj->parent];
  double *IP = Rp->IA, *pp = Rp->pA;
  IP[0] += a00;
  IP[1] += a01;
  IP[3] += a01;
  IP[4] += a11;
  IP[6] += P0;
  IP[2] += P0;
  IP[7] += P1;
  IP[5] += P1;
  IP[8] += corner;
  pp[0] += p0;
  pp[1] += p1;
  pp[2] += f0 * p0 + f1 * p1 + p2;
  return 0;
}

/* IA = M_Y, pA = −Q_Y (inlined with a constant ny) */
ABA_INLINE void init_articulated(mbd_tree_rec *R, const int ny) {
  for (int i = 0; i < ny * ny; i++) {
    R->IA[i] = R->MY[i];
  }
  for (int i = 0; i < ny; i++) {
    R->pA[i] = -R->QY[i];
  }
}

/* leaves to ground with the forces of the records: U, K, k, κ, u of every joint, and the
 * articulated inertias and bias forces carried to the parents.  MBD_OK or MBD_E_SINGULAR. */
static int backward(const mbd_model *m, mbd_data *d, mbd_error *err) {
  const mbd_tree *t = m->tree;
  int ny = ny_of(m);
  // each body's own inertia and forces; its children add theirs
  if (ny == 3) {
    for (int k = 0; k < t->ntj; k++) {
      init_articulated(&d->trec[t->tj[k].child], 3);
    }
  } else {
    for (int k = 0; k < t->ntj; k++) {
      init_articulated(&d->trec[t->tj[k].child], 7);
    }
  }
  int rc = MBD_OK;
  if (ny == 7) {
    for (int k = t->ntj - 1; k >= 0 && rc == MBD_OK; k--) {
      rc = backward_joint(m, d, &t->tj[k], 7, err);
    }
  } else {
    for (int k = t->ntj - 1; k >= 0 && rc == MBD_OK; k--) {
      const mbd_tree_joint *tj = &t->tj[k];
      if (tj->nq == 1 && tj->kind != MBD_TJ_FLOATING && d->trec[tj->child].nl == 0 &&
          backward_planar1(m, d, tj) == 0) {
        continue;
      }
      rc = backward_joint(m, d, tj, 3, err);  // (and the message of a pivot that vanished)
    }
  }
  return rc;
}

/* ground to leaves: q̈ into vdot, each body's Ÿ and each local row's multiplier */
ABA_INLINE void forward_joint(mbd_data *d, const mbd_tree_joint *tj, const int ny, double *vdot) {
  mbd_tree_rec *R = &d->trec[tj->child];
  double a[7];
  if (tj->parent > 0) {
    const double *ap = d->trec[tj->parent].a;
    for (int i = 0; i < ny; i++) {
      double x = R->c[i];
      for (int l = 0; l < ny; l++) {
        x += R->F[l * ny + i] * ap[l];
      }
      a[i] = x;
    }
  } else {
    memcpy(a, R->c, (size_t)ny * sizeof(double));
  }
  if (tj->nq > 0) {
    int nq = tj->nq;
    double r[7], x[7];
    mtv(ny, nq, R->U, a, r);
    for (int j = 0; j < nq; j++) {
      r[j] = R->u[j] - r[j];
    }
    mv(nq, nq, R->K, r, x);
    if (R->nl) {
      double mu = R->kap * R->gl;
      for (int j = 0; j < nq; j++) {
        x[j] += R->k[j] * R->gl;
        mu += R->k[j] * r[j];
      }
      R->mu = mu;
    }
    mv_add(ny, nq, R->S, x, a);
    memcpy(vdot + tj->qadr, x, (size_t)nq * sizeof(double));
  }
  memcpy(R->a, a, (size_t)ny * sizeof(double));
}

static void forward(const mbd_model *m, mbd_data *d, double *vdot) {
  const mbd_tree *t = m->tree;
  if (m->dim == 3) {
    for (int k = 0; k < t->ntj; k++) {
      forward_joint(d, &t->tj[k], 7, vdot);
    }
  } else {
    for (int k = 0; k < t->ntj; k++) {
      const mbd_tree_joint *tj = &t->tj[k];
      mbd_tree_rec *R = &d->trec[tj->child];
      if (tj->nq == 1 && tj->kind != MBD_TJ_FLOATING && R->nl == 0) {
        // forward_joint written out for backward_planar1's joints: a = F a_p + c + s q̈
        double a0 = R->c[0], a1 = R->c[1], a2 = R->c[2];
        if (tj->parent > 0) {
          const double *ap = d->trec[tj->parent].a;
          a0 += ap[0] + R->F[6] * ap[2];
          a1 += ap[1] + R->F[7] * ap[2];
          a2 += ap[2];
        }
        double x = R->K[0] * (R->u[0] - (R->U[0] * a0 + R->U[1] * a1 + R->U[2] * a2));
        R->a[0] = a0 + R->S[0] * x;
        R->a[1] = a1 + R->S[1] * x;
        R->a[2] = a2 + R->S[2] * x;
        vdot[tj->qadr] = x;
        continue;
      }
      forward_joint(d, tj, 3, vdot);
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the pin sweeps                                                                              */

/* A planar tree of pins between rigid bodies (mbd_tree.pins: every planar pendulum chain) runs
 * the same recursion in other pose coordinates, those of each body's joint point: Z = (x, y, θ)
 * with (x, y) the point where the body hangs from its parent (r + A a_C, a_C = tj->pc) and θ its
 * angle, still global.  The joint turns the body about that point, so S = (0, 0, σ) and
 *
 *   Z̈_c = F Z̈_p + S q̈ + c,   F = [I f; 0 1],  f = R90 A_p l,  c = (−A_p l θ̇_p², 0)
 *
 * with l the parent-frame vector from the parent's own joint point to this one.  With
 * a unit S the joint's terms are entries of IA (U = σ IA e₃, D = IA₃₃), and the articulated
 * inertia left for the parent, IA − U Uᵀ/D, has its third row and column zero, so that its carry
 * through F takes six products (backward_planar1, whose S, F and c are those of the body's
 * centre, forms U, D and the full 3 × 3 Fᵀ Ia F).  The body's own M_Y = diag(m, m, J) and Q_Y
 * come to Z by Y = T Z, Ẏ = T Ż, Ÿ = T Z̈ + e with
 *
 *   T = [I t; 0 1],  t = −R90 A_c a_C,  e = (A_c a_C θ̇², 0):
 *   M_Z = Tᵀ M_Y T = [m I, m t; m tᵀ, J + m |a_C|²],  Q_Z = Tᵀ (Q_Y − M_Y e).
 *
 * The q̈ is the general recursion's to round-off (the same equations eliminated body by body in
 * other coordinates).  What goes from one joint to the next lives in d->pin (tree_impl.h,
 * mbd_pin_rec), a small record per joint in the tree's order, which each sweep walks once: the
 * pose pass leaves there A_c a_C, A_p l and θ̇², and of the bodies' records the sweeps read only
 * M_Y and Q_Y (the force stage).  MBD_OK, or MBD_E_SINGULAR naming the coordinate whose pivot
 * vanished. */
ABA_SCALAR static int pin_backward(const mbd_model *m, mbd_data *d, mbd_error *err) {
  const mbd_tree *t = m->tree;
  for (int k = t->ntj - 1; k >= 0; k--) {
    const mbd_tree_joint *tj = &t->tj[k];
    const mbd_tree_rec *R = &d->trec[tj->child];
    mbd_pin_rec *r = &d->pin[k];
    const double *sh = r->s;  // (a leaf's: no child writes them, they stay the allocation's 0)
    // the body's t = −R90 A_c a_C and e = A_c a_C θ̇², and M_Z, Q_Z (above)
    double ax = r->ax, ay = r->ay, mass = R->MY[0], t0 = ay, t1 = -ax;
    double g0 = R->QY[0] - mass * ax * r->w2, g1 = R->QY[1] - mass * ay * r->w2;
    // its articulated inertia IA = M_Z + children's, its bias force pA = −Q_Z + children's
    double a00 = mass + sh[0], a01 = sh[1], a02 = mass * t0 + sh[2], a11 = mass + sh[3],
           a12 = mass * t1 + sh[4], a22 = R->MY[8] + mass * tj->pcc + sh[5];
    double b0 = sh[6] - g0, b1 = sh[7] - g1, b2 = sh[8] - (R->QY[2] + t0 * g0 + t1 * g1);
    // the joint: D = Sᵀ IA S = a22; q̈ = −σ(b2 + a02 Z̈₀ + a12 Z̈₁ + a22 Z̈₂)/D (pin_forward)
    if (!(fabs(a22) > 0)) {
      char what[160];
      mbd_model_coord_name(m, tj->qadr, what, sizeof what);
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_LEADING, d->t,
                      "articulated inertia without a pivot", what);
    }
    double K = 1 / a22, k0 = a02 * K, k1 = a12 * K;
    r->k0 = k0;
    r->k1 = k1;
    r->kp = b2 * K;
    if (tj->ptk < 0) {
      continue;  // hung from the ground, which takes nothing
    }
    // F and c of the joint, from A_p l and the parent's θ̇
    mbd_pin_rec *rp = &d->pin[tj->ptk];
    double f0 = -r->ly, f1 = r->lx, c0 = -r->lx * rp->w2, c1 = -r->ly * rp->w2;
    r->f0 = f0;
    r->f1 = f1;
    r->c0 = c0;
    r->c1 = c1;
    // Ia = IA − U Uᵀ/D and pa = pA + Ia c + U u/D (u = −σ b2): their third entries vanish
    double e00 = a00 - a02 * k0, e01 = a01 - a02 * k1, e11 = a11 - a12 * k1;
    double q0 = b0 + e00 * c0 + e01 * c1 - k0 * b2, q1 = b1 + e01 * c0 + e11 * c1 - k1 * b2;
    // the parent's shares: Fᵀ Ia F = [E, E f; (E f)ᵀ, fᵀ E f], Fᵀ pa = (pa, f · pa)
    double h0 = e00 * f0 + e01 * f1, h1 = e01 * f0 + e11 * f1;
    double out[9] = {e00, e01, h0, e11, h1, f0 * h0 + f1 * h1, q0, q1, f0 * q0 + f1 * q1};
    if (tj->pfirst) {
      memcpy(rp->s, out, sizeof out);
    } else {
      for (int i = 0; i < 9; i++) {
        rp->s[i] += out[i];
      }
    }
  }
  return MBD_OK;
}

/* ground to leaves: Z̈ = F Z̈_p + c, q̈ = −σ(kp + k0 Z̈₀ + k1 Z̈₁ + Z̈₂), Z̈₂ += σ q̈; with a sample
 * (flags) each body's Ÿ = T Z̈ + e in its record, for the Cartesian state */
static void pin_forward(const mbd_model *m, mbd_data *d, double *vdot, int flags) {
  const mbd_tree *t = m->tree;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    mbd_pin_rec *r = &d->pin[k];
    double a0 = 0, a1 = 0, a2 = 0;
    if (tj->ptk >= 0) {
      const mbd_pin_rec *rp = &d->pin[tj->ptk];
      a2 = rp->a2;
      a0 = rp->a0 + r->f0 * a2 + r->c0;
      a1 = rp->a1 + r->f1 * a2 + r->c1;
    }
    double x = r->kp + r->k0 * a0 + r->k1 * a1;
    vdot[tj->qadr] = -tj->sigma * (x + a2);
    a2 = -x;  // Z̈₂ + σ q̈
    r->a0 = a0;
    r->a1 = a1;
    r->a2 = a2;
    if (flags) {
      double *ya = d->trec[tj->child].a;
      ya[0] = a0 + r->ay * a2 + r->ax * r->w2;
      ya[1] = a1 - r->ax * a2 + r->ay * r->w2;
      ya[2] = a2;
    }
  }
}

/* x = M̄⁻¹ τ on the local rows' null space (τ over the joint coordinates with stride ldt): the
 * recursion of the first pass with only τ as force, no velocity terms and no local right-hand
 * sides; with add_mu the local rows' multipliers gain their share.  The records' pA, u, a are its
 * scratch. */
static void inverse_pass(const mbd_model *m, mbd_data *d, const double *tau, int ldt, double *x,
                         int add_mu) {
  const mbd_tree *t = m->tree;
  int ny = ny_of(m);
  for (int k = 0; k < t->ntj; k++) {
    memset(d->trec[t->tj[k].child].pA, 0, (size_t)ny * sizeof(double));
  }
  for (int k = t->ntj - 1; k >= 0; k--) {
    const mbd_tree_joint *tj = &t->tj[k];
    mbd_tree_rec *R = &d->trec[tj->child];
    int nq = tj->nq;
    double pa[7];
    memcpy(pa, R->pA, (size_t)ny * sizeof(double));
    if (nq > 0) {
      double w[7];
      mtv(ny, nq, R->S, R->pA, R->u);
      for (int j = 0; j < nq; j++) {
        R->u[j] = tau[(size_t)(tj->qadr + j) * ldt] - R->u[j];
      }
      mv(nq, nq, R->K, R->u, w);
      mv_add(ny, nq, R->U, w, pa);
    }
    if (tj->parent > 0) {
      double fp[7];
      mtv(ny, ny, R->F, pa, fp);
      double *pp = d->trec[tj->parent].pA;
      for (int i = 0; i < ny; i++) {
        pp[i] += fp[i];
      }
    }
  }
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    mbd_tree_rec *R = &d->trec[tj->child];
    double a[7];
    if (tj->parent > 0) {
      mv(ny, ny, R->F, d->trec[tj->parent].a, a);
    } else {
      memset(a, 0, sizeof a);
    }
    if (tj->nq > 0) {
      int nq = tj->nq;
      double r[7], xq[7];
      mtv(ny, nq, R->U, a, r);
      for (int j = 0; j < nq; j++) {
        r[j] = R->u[j] - r[j];
      }
      mv(nq, nq, R->K, r, xq);
      if (add_mu && R->nl) {
        for (int j = 0; j < nq; j++) {
          R->mu += R->k[j] * r[j];
        }
      }
      mv_add(ny, nq, R->S, xq, a);
      memcpy(x + tj->qadr, xq, (size_t)nq * sizeof(double));
    }
    memcpy(R->a, a, (size_t)ny * sizeof(double));
  }
}

/* each body's Ÿ from the final q̈: a = F a_p + c + S q̈ */
static void body_accelerations(const mbd_model *m, mbd_data *d) {
  const mbd_tree *t = m->tree;
  int ny = ny_of(m);
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    mbd_tree_rec *R = &d->trec[tj->child];
    double a[7];
    memcpy(a, R->c, (size_t)ny * sizeof(double));
    if (tj->parent > 0) {
      mv_add(ny, ny, R->F, d->trec[tj->parent].a, a);
    }
    mv_add(ny, tj->nq, R->S, d->vdot + tj->qadr, a);
    memcpy(R->a, a, (size_t)ny * sizeof(double));
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the solve                                                                                   */

/* the rows the recursion keeps: each active Euler-parameter norm goes to its joint's record
 * (n, γ*), the other active rows' places among the active rows to gidx; their number */
static int split_rows(const mbd_model *m, mbd_data *d, const double *gamma_star, int *gidx) {
  const mbd_tree *t = m->tree;
  // (planar trees have no Euler parameters: their records' nl stay the allocation's zeros)
  if (m->dim == 3) {
    for (int k = 0; k < t->ntj; k++) {
      d->trec[t->tj[k].child].nl = 0;
    }
  }
  int mg = 0;
  for (int k = 0; k < d->ma; k++) {
    const mbd_rowinfo *ri = &m->row[d->active[k]];
    if (ri->owner != MBD_ROW_TREE) {
      gidx[mg++] = k;
      continue;
    }
    // the joint whose Euler parameters the row normalizes (a floating joint: its body's)
    int tk = ri->local >= 0 ? t->joint_tj[ri->local] : t->body_tj[-1 - ri->local];
    const mbd_tree_joint *tj = &t->tj[tk];
    mbd_tree_rec *R = &d->trec[tj->child];
    R->nl = 1;
    R->gl = gamma_star[k];
    R->mu = 0;
    // the row 2pᵀ over the joint's Euler parameters p = q[a .. a + 4) (tree_rec.c), from q: a
    // large tree leaves it out of the dense Φq (tree_impl.h, norms_implicit)
    int a = ri->index;
    for (int c = 0; c < tj->nq; c++) {
      int i = tj->qadr + c;
      R->n[c] = i >= a && i < a + 4 ? 2 * d->q[i] : 0;
    }
  }
  return mg;
}

/* name of the active row k for messages */

int mbd_relative_aba(const mbd_model *m, mbd_data *d, const double *gamma_star, int flags,
                     mbd_error *err) {
  int n = m->nv, ma = d->ma;
  int *gidx = d->iwork;
  int mg = split_rows(m, d, gamma_star, gidx);
  if (m->tree->pins && mg == 0) {
    // a planar tree of pins with no row outside it: the pin sweeps, and that is all
    int rc = pin_backward(m, d, err);
    if (rc < 0) {
      return rc;
    }
    pin_forward(m, d, d->vdot, flags);
    memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));  // (rows set aside, if any)
    mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
    return MBD_OK;
  }
  // the tree with its local rows: q̈₀
  int rc = backward(m, d, err);
  if (rc < 0) {
    return rc;
  }
  forward(m, d, d->vdot);
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  double *lam = d->tmp_m;
  if (mg > 0 && (rc = mbd_data_dense(m, d, err)) < 0) {
    return rc;
  }
  if (mg > 0) {
    // X = M̄⁻¹ Gᵀ column by column, then the m×m system (G X) λ = G q̈₀ − γ*; made again once
    // after a re-selection that kept the rows (its QR took the dense workspace that held them)
    double *X = d->aug, *A = d->aug + (size_t)n * mg, *LU = A + (size_t)mg * mg, ratio = 0;
    int piv = 0;
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < mg; i++) {
        inverse_pass(m, d, d->phiq_a + gidx[i], ma, X + (size_t)i * n, 0);
      }
      for (int i = 0; i < mg; i++) {
        const double *g = d->phiq_a + gidx[i];
        double s = -gamma_star[gidx[i]];
        for (int c = 0; c < n; c++) {
          s += g[(size_t)c * ma] * d->vdot[c];
        }
        lam[i] = s;
        for (int j = 0; j < mg; j++) {
          const double *x = X + (size_t)j * n;
          double a = 0;
          for (int c = 0; c < n; c++) {
            a += g[(size_t)c * ma] * x[c];
          }
          MBD_AT(A, mg, i, j) = a;
        }
      }
      // (A kept beside its LU: near a singular configuration its SVD serves instead)
      memcpy(LU, A, (size_t)mg * mg * sizeof(double));
      piv = mbd_lu_factor(mg, LU, mg, d->ipiv);
      d->lu_factorizations++;
      if (piv < 0) {
        return MBD_FAIL(err, MBD_E_LAPACK, MSG_FORM_LAPACK, "matrix Φq M̄⁻¹ Φqᵀ", d->t);
      }
      double lo = INFINITY, hi = 0;
      for (int k = 0; k < mg; k++) {
        double u = fabs(MBD_AT(LU, mg, k, k));
        lo = fmin(lo, u);
        hi = fmax(hi, u);
      }
      ratio = hi > 0 ? lo / hi : 0;
      // rows set aside at assembly may be needed on this part of the motion (augmented_solve.c)
      if (pass == 0 && d->ma < m->mrow &&
          (piv > 0 || (d->aug_ratio0 > 0 && ratio < ABA_RESELECT_REL * d->aug_ratio0))) {
        int rs = mbd_reselect_rows(m, d, err);
        if (rs < 0) {
          return rs;
        }
        d->aug_ratio0 = 0;
        if (rs > 0) {
          return MBD_RESELECTED;  // γ* follows the new rows: the caller rebuilds it
        }
        continue;
      }
      break;
    }
    double start = mbd_pivot_watch(d, piv, ratio);
    if (piv > 0 || ratio < ABA_GAUSS_REL * start) {
      // Gauss's principle near a singular configuration (singular.c): A = G M̄⁻¹ Gᵀ is symmetric
      // positive semidefinite, A = U diag(s) Uᵀ with s = σ² of G M̄^(−1/2), and
      //   λ = A⁺ (G q̈₀ − γ) − (A + μ²)⁻¹ (γ* − γ)
      // gives q̈ = q̈₀ − X λ: the pseudo-inverse on the exact part, the Tikhonov filter on the
      // stabilization (s below ABA_GAUSS_CUT s₁ dropped: A carries σ², so the cut on σ is
      // √(ABA_GAUSS_CUT) = 1e-7, where A's rounding hides smaller ones)
      const double *U = NULL, *Vt = NULL;
      int rc2 = mbd_svd(&d->lsq, mg, mg, A, mg, &U, &Vt);
      d->gauss_evaluations++;
      if (rc2 != MBD_OK) {
        return MBD_FAIL(err, rc2 == MBD_E_LAPACK ? rc2 : MBD_E_SINGULAR, MSG_FORM_GAUSS_SVD, d->t);
      }
      const double *sv = d->lsq.s;
      double s1 = sv[0], mu2 = ABA_GAUSS_MU * ABA_GAUSS_MU * s1;
      double *w = LU;  // (the LU is not needed any more)
      for (int k = 0; k < mg; k++) {
        double ce = 0, cs = 0;
        for (int i = 0; i < mg; i++) {
          double stab = gamma_star[gidx[i]] - d->gamma_a[gidx[i]];
          ce += MBD_AT(U, mg, i, k) * (lam[i] + stab);  // lam holds G q̈₀ − γ*
          cs += MBD_AT(U, mg, i, k) * stab;
        }
        w[k] = (sv[k] > ABA_GAUSS_CUT * s1 ? ce / sv[k] : 0) - cs / (sv[k] + mu2);
      }
      for (int i = 0; i < mg; i++) {
        double l = 0;
        for (int k = 0; k < mg; k++) {
          l += MBD_AT(U, mg, i, k) * w[k];
        }
        lam[i] = l;
      }
    } else {
      mbd_lu_solve(mg, LU, mg, d->ipiv, lam, 1);
    }
    if (flags & MBD_DERIV_LAMBDA) {
      // the local rows' multipliers take the cut rows' forces too: the recursion once more
      // with τ = −Gᵀλ (its q̈ is the correction −Xλ)
      double *tau = d->tmp_n, *x = d->augrhs;
      memset(tau, 0, (size_t)n * sizeof(double));
      for (int i = 0; i < mg; i++) {
        const double *g = d->phiq_a + gidx[i];
        for (int c = 0; c < n; c++) {
          tau[c] -= g[(size_t)c * ma] * lam[i];
        }
      }
      inverse_pass(m, d, tau, 1, x, 1);
      for (int c = 0; c < n; c++) {
        d->vdot[c] += x[c];
      }
    } else {
      for (int i = 0; i < mg; i++) {
        const double *x = X + (size_t)i * n;
        for (int c = 0; c < n; c++) {
          d->vdot[c] -= x[c] * lam[i];
        }
      }
    }
    for (int i = 0; i < mg; i++) {
      d->lambda[d->active[gidx[i]]] = lam[i];
    }
  }
  // the local rows' multipliers; each body's Ÿ for the Cartesian state of a sample
  const mbd_tree *t = m->tree;
  if (m->dim == 3) {
    for (int k = 0; k < t->ntj; k++) {
      const mbd_tree_joint *tj = &t->tj[k];
      if (d->trec[tj->child].nl && tj->norm >= 0) {
        d->lambda[tj->norm] = d->trec[tj->child].mu;
      }
    }
  }
  if (flags && mg > 0) {
    body_accelerations(m, d);
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the ops                                                                                     */

/* augmented and baumgarte on a recursive tree model: y = [q; v], or in the passage of a singular
 * configuration the independent coordinates of a partition (augmented.c) */
typedef struct rec_cart {
  mbd_aug_pass pass;  /* singular configurations (first: the shared ops read it) */
  double alpha, beta; /* baumgarte's gains, 0 for augmented */
  double *gstar;      /* mrow: γ* of the active rows */
} rec_cart;

static int cart_create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                       mbd_error *err) {
  rec_cart *b = calloc(1, sizeof *b);
  double *g = calloc((size_t)(m->mrow ? m->mrow : 1), sizeof(double));
  if (!b || !g) {
    free(b);
    free(g);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "relative");
  }
  if (o->formulation == MBD_FORM_BAUMGARTE) {
    b->alpha = o->alpha;
    b->beta = o->beta;
  }
  b->gstar = g;
  mbd_form_solver dense = {MBD_LINSOLVE_DENSE, d, 0};
  int rc = mbd_aug_pass_init(&b->pass, m, d, o, &dense, err);
  if (rc < 0) {
    free(g);
    free(b);
    return rc;
  }
  *self = b;
  return MBD_OK;
}

static void cart_destroy(void *self) {
  rec_cart *b = self;
  if (b) {
    mbd_aug_pass_free(&b->pass);
    free(b->gstar);
    free(b);
  }
}

/* γ* = γ − 2α Φ̇ − β² Φ on the active rows (baumgarte.c) */
static void stabilized_gamma(const mbd_model *m, const mbd_data *d, double alpha, double beta,
                             double *gstar) {
  int n = m->nv;
  for (int k = 0; k < d->ma; k++) {
    double phidot = d->phit_a[k];
    // a norm's row: its four entries, the others are zeros (the same sum, O(1) not O(n))
    const mbd_rowinfo *ri = &m->row[d->active[k]];
    int tree = ri->owner == MBD_ROW_TREE, c0 = tree ? ri->index : 0, c1 = tree ? c0 + 4 : n;
    for (int c = c0; c < c1; c++) {
      phidot += (tree ? 2 * d->q[c] : MBD_AT(d->phiq_a, d->ma, k, c)) * d->v[c];
    }
    gstar[k] = d->gamma_a[k] - 2 * alpha * phidot - beta * beta * d->phi_a[k];
  }
}

/* the solve with at most two re-selections of the rows (each rebuilds γ*); the stabilization
 * only with every coordinate integrated (in a passage the state is consistent) */
static int solve(rec_cart *b, const mbd_model *m, mbd_data *d, int flags, mbd_error *err) {
  int rc = MBD_RESELECTED;
  for (int tries = 0; tries < 3 && rc == MBD_RESELECTED; tries++) {
    const double *gs = d->gamma_a;
    if (b && !b->pass.on && (b->alpha != 0 || b->beta != 0)) {
      stabilized_gamma(m, d, b->alpha, b->beta, b->gstar);
      gs = b->gstar;
    }
    rc = mbd_relative_aba(m, d, gs, flags, err);
  }
  if (rc == MBD_RESELECTED) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_ABA_RESELECT, d->t);
  }
  return rc;
}

static int cart_base(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  int go = 0;
  int rc = mbd_aug_prepare(self, m, d, t, y, flags, &go, err);
  if (!go) {
    return rc;
  }
  return solve(self, m, d, flags, err);
}

static int cart_eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  return mbd_aug_eval(self, cart_base, m, d, t, y, flags, err);
}

static int cart_event(void *self, const mbd_model *m, mbd_data *d, double t, double *y,
                      const int *found, mbd_error *err) {
  (void)y;
  mbd_aug_pass *ps = self;
  return found && ps->p ? mbd_aug_pass_switch(ps, m, d, t, err) : MBD_OK;
}

const mbd_form_ops mbd_form_relative_rec_cart = {.name = "recursive",
                                                 .create = cart_create,
                                                 .ny = mbd_aug_ny,
                                                 .pack = mbd_aug_pack,
                                                 .eval = cart_eval,
                                                 .deriv = mbd_aug_deriv,
                                                 .ycoord = mbd_aug_ycoord,
                                                 .step = mbd_aug_step,
                                                 .nroot = mbd_aug_nroot,
                                                 .roots = mbd_aug_roots,
                                                 .roots_kinematic = mbd_aug_roots_kinematic,
                                                 .event = cart_event,
                                                 .stats = mbd_aug_stats,
                                                 .destroy = cart_destroy};

/* gcp and kane on a recursive tree model: the partition's consistent state, then the
 * accelerations with γ (the augmented system's, which gcp solves and kane's reduced system
 * shares at a consistent state) */
static int part_base(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  int go = 0;
  int rc = mbd_form_prepare(m, d, self, t, y, flags, &go, err);
  if (!go) {
    return rc;
  }
  return solve(NULL, m, d, flags, err);
}

static int part_eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  // the partition reads the norm rows in the dense Φq: a large tree of them writes them there
  // once its data has the dense algebra (tree_impl.h, norms_implicit)
  if (m->tree->norms_implicit) {
    int rc = mbd_data_dense(m, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  return mbd_part_windowed(self, self, part_base, m, d, t, y, flags, err);
}

const mbd_form_ops mbd_form_relative_rec_part = {.name = "recursive",
                                                 .check = mbd_partitioned_check,
                                                 .create = mbd_partitioned_create,
                                                 .ny = mbd_partitioned_ny,
                                                 .pack = mbd_partitioned_pack,
                                                 .eval = part_eval,
                                                 .deriv = mbd_partitioned_deriv,
                                                 .ycoord = mbd_partitioned_ycoord,
                                                 .step = mbd_partitioned_step,
                                                 .stats = mbd_partitioned_stats,
                                                 .destroy = mbd_partitioned_destroy};
