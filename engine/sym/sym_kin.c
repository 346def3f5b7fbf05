/* symbolic rotations in Euler parameters (paper 002): rot.h's algebra on expressions, for the
 * kinematics of joint trees (see mbd/sym_rot.h).  Every sum is built in one n-ary call, so the
 * canonical form of a sum is made once. */
#include "mbd/sym_rot.h"

/* Σ s_k a_k b_k over n products with constant signs */
static mbd_sym_id sum_products(mbd_sym_ctx *ctx, int n, const double *s, const mbd_sym_id *a,
                               const mbd_sym_id *b) {
  mbd_sym_id t[16];
  for (int k = 0; k < n; k++) {
    mbd_sym_id f[3] = {mbd_sym_const(ctx, s[k]), a[k], b[k]};
    t[k] = mbd_sym_mul_n(ctx, 3, f);
  }
  return mbd_sym_add_n(ctx, n, t);
}

void mbd_sym_qmul(mbd_sym_ctx *ctx, const mbd_sym_id *a, const mbd_sym_id *b, mbd_sym_id *c) {
  static const double s0[4] = {1, -1, -1, -1}, s1[4] = {1, 1, 1, -1}, s2[4] = {1, -1, 1, 1},
                      s3[4] = {1, 1, -1, 1};
  mbd_sym_id a0[4] = {a[0], a[1], a[2], a[3]}, b0[4] = {b[0], b[1], b[2], b[3]};
  mbd_sym_id a1[4] = {a[0], a[1], a[2], a[3]}, b1[4] = {b[1], b[0], b[3], b[2]};
  mbd_sym_id a2[4] = {a[0], a[1], a[2], a[3]}, b2[4] = {b[2], b[3], b[0], b[1]};
  mbd_sym_id a3[4] = {a[0], a[1], a[2], a[3]}, b3[4] = {b[3], b[2], b[1], b[0]};
  c[0] = sum_products(ctx, 4, s0, a0, b0);
  c[1] = sum_products(ctx, 4, s1, a1, b1);
  c[2] = sum_products(ctx, 4, s2, a2, b2);
  c[3] = sum_products(ctx, 4, s3, a3, b3);
}

void mbd_sym_qconj(mbd_sym_ctx *ctx, const mbd_sym_id *a, mbd_sym_id *c) {
  c[0] = a[0];
  for (int k = 1; k < 4; k++) {
    c[k] = mbd_sym_neg(ctx, a[k]);
  }
}

void mbd_sym_ep_A(mbd_sym_ctx *ctx, const mbd_sym_id *p, mbd_sym_id *A) {
  const mbd_sym_id *e = p;
  // diagonal: e0² − eᵀe + 2 e_i²;  off-diagonal: 2(e_i e_j ∓ e0 e_k)
  static const double sd[3][4] = {{1, 1, -1, -1}, {1, -1, 1, -1}, {1, -1, -1, 1}};
  for (int i = 0; i < 3; i++) {
    A[4 * i] = sum_products(ctx, 4, sd[i], e, e);
  }
  mbd_sym_id x[2], y[2];
  static const double sm[2] = {2, -2}, sp[2] = {2, 2};
  // A[1] = 2(e1e2 − e0e3), A[3] = 2(e2e1 + e0e3)
  x[0] = e[1], y[0] = e[2], x[1] = e[0], y[1] = e[3];
  A[1] = sum_products(ctx, 2, sm, x, y);
  A[3] = sum_products(ctx, 2, sp, x, y);
  // A[2] = 2(e1e3 + e0e2), A[6] = 2(e3e1 − e0e2)
  x[0] = e[1], y[0] = e[3], x[1] = e[0], y[1] = e[2];
  A[2] = sum_products(ctx, 2, sp, x, y);
  A[6] = sum_products(ctx, 2, sm, x, y);
  // A[5] = 2(e2e3 − e0e1), A[7] = 2(e3e2 + e0e1)
  x[0] = e[2], y[0] = e[3], x[1] = e[0], y[1] = e[1];
  A[5] = sum_products(ctx, 2, sm, x, y);
  A[7] = sum_products(ctx, 2, sp, x, y);
}

void mbd_sym_ep_G(mbd_sym_ctx *ctx, const mbd_sym_id *p, mbd_sym_id *G) {
  mbd_sym_id n1 = mbd_sym_neg(ctx, p[1]), n2 = mbd_sym_neg(ctx, p[2]), n3 = mbd_sym_neg(ctx, p[3]);
  const mbd_sym_id v[12] = {n1, p[0], p[3], n2, n2, n3, p[0], p[1], n3, p[2], n1, p[0]};
  for (int k = 0; k < 12; k++) {
    G[k] = v[k];
  }
}

/* ∂(Aa)/∂e0 = 2(e0 a + e × a), ∂(Aa)/∂e = 2[(eᵀa) I + e aᵀ − a eᵀ − e0 ã] */
void mbd_sym_ep_B(mbd_sym_ctx *ctx, const mbd_sym_id *p, const mbd_sym_id *a, mbd_sym_id *B) {
  const mbd_sym_id *e = p + 1;
  mbd_sym_id two = mbd_sym_const(ctx, 2), ea = mbd_sym_dot(ctx, 3, e, a), exa[3];
  mbd_sym_cross(ctx, e, a, exa);
  mbd_sym_id zero = mbd_sym_const(ctx, 0);
  // ã row-major
  mbd_sym_id at[9] = {zero,
                      mbd_sym_neg(ctx, a[2]),
                      a[1],
                      a[2],
                      zero,
                      mbd_sym_neg(ctx, a[0]),
                      mbd_sym_neg(ctx, a[1]),
                      a[0],
                      zero};
  for (int i = 0; i < 3; i++) {
    mbd_sym_id t0[2] = {mbd_sym_mul(ctx, p[0], a[i]), exa[i]};
    B[4 * i] = mbd_sym_mul(ctx, two, mbd_sym_add_n(ctx, 2, t0));
    for (int k = 0; k < 3; k++) {
      mbd_sym_id t[4] = {i == k ? ea : zero, mbd_sym_mul(ctx, e[i], a[k]),
                         mbd_sym_neg(ctx, mbd_sym_mul(ctx, a[i], e[k])),
                         mbd_sym_neg(ctx, mbd_sym_mul(ctx, p[0], at[3 * i + k]))};
      B[4 * i + 1 + k] = mbd_sym_mul(ctx, two, mbd_sym_add_n(ctx, 4, t));
    }
  }
}

mbd_sym_id mbd_sym_dot(mbd_sym_ctx *ctx, int n, const mbd_sym_id *a, const mbd_sym_id *b) {
  mbd_sym_id small[16];
  mbd_sym_id *t = small;
  if (n > 16) {
    // long dots: fold in pieces of 16 (sums flatten, so the result is one sum)
    mbd_sym_id acc = mbd_sym_const(ctx, 0);
    for (int k = 0; k < n; k += 16) {
      int m = n - k < 16 ? n - k : 16;
      mbd_sym_id part = mbd_sym_dot(ctx, m, a + k, b + k);
      acc = mbd_sym_add(ctx, acc, part);
    }
    return acc;
  }
  for (int k = 0; k < n; k++) {
    t[k] = mbd_sym_mul(ctx, a[k], b[k]);
  }
  return mbd_sym_add_n(ctx, n, t);
}

void mbd_sym_matvec(mbd_sym_ctx *ctx, int rows, int cols, const mbd_sym_id *A, const mbd_sym_id *x,
                    mbd_sym_id *y) {
  for (int i = 0; i < rows; i++) {
    y[i] = mbd_sym_dot(ctx, cols, A + (size_t)i * cols, x);
  }
}

void mbd_sym_matvec_t(mbd_sym_ctx *ctx, int rows, int cols, const mbd_sym_id *A,
                      const mbd_sym_id *x, mbd_sym_id *y) {
  mbd_sym_id col[16];
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows && i < 16; i++) {
      col[i] = A[(size_t)i * cols + j];
    }
    y[j] = mbd_sym_dot(ctx, rows < 16 ? rows : 16, col, x);
  }
}

void mbd_sym_cross(mbd_sym_ctx *ctx, const mbd_sym_id *a, const mbd_sym_id *b, mbd_sym_id *c) {
  c[0] = mbd_sym_sub(ctx, mbd_sym_mul(ctx, a[1], b[2]), mbd_sym_mul(ctx, a[2], b[1]));
  c[1] = mbd_sym_sub(ctx, mbd_sym_mul(ctx, a[2], b[0]), mbd_sym_mul(ctx, a[0], b[2]));
  c[2] = mbd_sym_sub(ctx, mbd_sym_mul(ctx, a[0], b[1]), mbd_sym_mul(ctx, a[1], b[0]));
}

void mbd_sym_consts(mbd_sym_ctx *ctx, int n, const double *v, mbd_sym_id *out) {
  for (int k = 0; k < n; k++) {
    out[k] = mbd_sym_const(ctx, v[k]);
  }
}
