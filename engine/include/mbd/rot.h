/* mbd — rotations in Euler parameters (Nikravesh, Computer-Aided Analysis of Mechanical Systems,
 * ch. 6; Haug, Computer-Aided Kinematics and Dynamics of Mechanical Systems, ch. 9).
 *
 * p = (e0, e1, e2, e3) with pᵀp = 1; every matrix here is row-major:
 *   A = E Gᵀ = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ          (3×3, body → global)
 *   E = [−e, ẽ + e0 I],  G = [−e, −ẽ + e0 I]             (3×4)
 *   ω = 2 E ṗ (global),  ω' = 2 G ṗ (body frame)
 *   B(p, a) = ∂(A(p) a)/∂p                               (3×4, exact also off the unit sphere)
 * A is a quadratic form in p, so d/dt(A a) = B(p, a) ṗ and d²/dt²(A a) = B(p, a) p̈ + B(ṗ, a) ṗ. */
#ifndef MBD_ROT_H
#define MBD_ROT_H

void mbd_ep_A(const double *p, double *A);
void mbd_ep_E(const double *p, double *E);
void mbd_ep_G(const double *p, double *G);
void mbd_ep_B(const double *p, const double *a, double *B);
/* the angular velocity in the global frame, ω = 2 E(p) ṗ */
void mbd_ep_omega(const double *p, const double *pd, double *w);

/* c = a ⊗ b, the Hamilton product: A(a ⊗ b) = A(a) A(b) (c may alias a or b) */
static inline void mbd_ep_mul(const double *a, const double *b, double *c) {
  double c0 = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double c1 = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double c2 = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double c3 = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  c[0] = c0;
  c[1] = c1;
  c[2] = c2;
  c[3] = c3;
}

/* c = a*, the conjugate: A(a*) = A(a)ᵀ for a unit a (c may alias a) */
static inline void mbd_ep_conj(const double *a, double *c) {
  c[0] = a[0];
  c[1] = -a[1];
  c[2] = -a[2];
  c[3] = -a[3];
}

/* eigenvalues of a symmetric 3×3 matrix (row-major), ascending (closed form) */
void mbd_sym3_eigenvalues(const double *S, double *ev);

#endif
