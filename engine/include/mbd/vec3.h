/* mbd — 3-vectors and row-major 3×3 matrices: the few operations every spatial part of the engine
 * needs (joints, rows, bodies, flexible bodies, contact geometry and forces), written once.
 * Inline: they are called in the innermost loops of the evaluation. */
#ifndef MBD_VEC3_H
#define MBD_VEC3_H

#include <math.h>

static inline double mbd_dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double mbd_norm3(const double *v) { return sqrt(mbd_dot3(v, v)); }

/* c = a × b (c must not alias a or b) */
static inline void mbd_cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* y = A x and y = Aᵀ x for a row-major 3×3 A (y must not alias x) */
static inline void mbd_mat3_vec(const double *A, const double *x, double *y) {
  for (int i = 0; i < 3; i++) {
    y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
  }
}

static inline void mbd_mat3_tvec(const double *A, const double *x, double *y) {
  for (int i = 0; i < 3; i++) {
    y[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
  }
}

#endif
