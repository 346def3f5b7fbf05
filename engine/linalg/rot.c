/* Euler-parameter algebra (see mbd/rot.h): A, E, G, Haug's B matrix, and the eigenvalues of a
 * symmetric 3×3 used to check inertia tensors */
#include "mbd/rot.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void mbd_ep_A(const double *p, double *A) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  double s = e0 * e0 - e1 * e1 - e2 * e2 - e3 * e3;
  A[0] = s + 2 * e1 * e1;
  A[1] = 2 * (e1 * e2 - e0 * e3);
  A[2] = 2 * (e1 * e3 + e0 * e2);
  A[3] = 2 * (e2 * e1 + e0 * e3);
  A[4] = s + 2 * e2 * e2;
  A[5] = 2 * (e2 * e3 - e0 * e1);
  A[6] = 2 * (e3 * e1 - e0 * e2);
  A[7] = 2 * (e3 * e2 + e0 * e1);
  A[8] = s + 2 * e3 * e3;
}

void mbd_ep_E(const double *p, double *E) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const double v[12] = {-e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0};
  memcpy(E, v, sizeof v);
}

void mbd_ep_omega(const double *p, const double *pd, double *w) {
  double E[12];
  mbd_ep_E(p, E);
  for (int i = 0; i < 3; i++) {
    w[i] = 2 * (E[4 * i] * pd[0] + E[4 * i + 1] * pd[1] + E[4 * i + 2] * pd[2] +
                E[4 * i + 3] * pd[3]);
  }
}

void mbd_ep_G(const double *p, double *G) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const double v[12] = {-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0};
  memcpy(G, v, sizeof v);
}

// Haug's B matrix in expanded form: ∂(Aa)/∂e0 = 2(e0 a + e × a),
// ∂(Aa)/∂e = 2[(eᵀa) I + e aᵀ − a eᵀ − e0 ã]
void mbd_ep_B(const double *p, const double *a, double *B) {
  double e0 = p[0], e[3] = {p[1], p[2], p[3]};
  double ea = e[0] * a[0] + e[1] * a[1] + e[2] * a[2];
  double exa[3] = {e[1] * a[2] - e[2] * a[1], e[2] * a[0] - e[0] * a[2],
                   e[0] * a[1] - e[1] * a[0]};
  // ã row-major
  double at[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
  for (int i = 0; i < 3; i++) {
    B[4 * i] = 2 * (e0 * a[i] + exa[i]);
    for (int k = 0; k < 3; k++) {
      B[4 * i + 1 + k] =
          2 * ((i == k ? ea : 0) + e[i] * a[k] - a[i] * e[k] - e0 * at[3 * i + k]);
    }
  }
}

void mbd_sym3_eigenvalues(const double *S, double *ev) {
  // closed form for symmetric 3×3 (trigonometric solution of the characteristic cubic)
  double p1 = S[1] * S[1] + S[2] * S[2] + S[5] * S[5];
  double q = (S[0] + S[4] + S[8]) / 3;
  double d[3] = {S[0], S[4], S[8]};
  if (p1 <= 1e-300) {
    for (int i = 0; i < 3; i++) {
      ev[i] = d[i];
    }
  } else {
    double p2 = (d[0] - q) * (d[0] - q) + (d[1] - q) * (d[1] - q) + (d[2] - q) * (d[2] - q) +
                2 * p1;
    double pp = sqrt(p2 / 6);
    double b[9];
    for (int i = 0; i < 9; i++) {
      b[i] = (S[i] - (i % 4 == 0 ? q : 0)) / pp;
    }
    double det = b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6]) +
                 b[2] * (b[3] * b[7] - b[4] * b[6]);
    double r = fmax(-1.0, fmin(1.0, det / 2));
    double phi = acos(r) / 3;
    ev[2] = q + 2 * pp * cos(phi);
    ev[0] = q + 2 * pp * cos(phi + 2 * M_PI / 3);
    ev[1] = 3 * q - ev[0] - ev[2];
  }
  // ascending
  for (int i = 0; i < 2; i++) {
    for (int k = i + 1; k < 3; k++) {
      if (ev[k] < ev[i]) {
        double t = ev[i];
        ev[i] = ev[k];
        ev[k] = t;
      }
    }
  }
}
