/* mbd — symbolic rotations in Euler parameters and small symbolic vector algebra (paper 002):
 * the algebra of rot.h on expressions of sym.h, for deriving the kinematics of joint trees.
 *
 * Vectors and matrices are arrays of node ids, matrices row-major, with the conventions of rot.h:
 *   A(p) body → global, A(a ⊗ b) = A(a) A(b) for the Hamilton product ⊗,
 *   E = [−e, ẽ + e0 I], G = [−e, −ẽ + e0 I], B(p, a) = ∂(A(p) a)/∂p.
 * Outputs may not alias inputs.  A failed construction leaves MBD_SYM_NONE entries (sym.h: every
 * constructor propagates it), so a chain is checked once at its end through the context's error. */
#ifndef MBD_SYM_ROT_H
#define MBD_SYM_ROT_H

#include "mbd/sym.h"

/* c = a ⊗ b (4 each) */
void mbd_sym_qmul(mbd_sym_ctx *ctx, const mbd_sym_id *a, const mbd_sym_id *b, mbd_sym_id *c);
/* c = a* = (a0, −a1, −a2, −a3) */
void mbd_sym_qconj(mbd_sym_ctx *ctx, const mbd_sym_id *a, mbd_sym_id *c);
/* A(p) (3×3), G(p) (3×4), B(p, a) (3×4) */
void mbd_sym_ep_A(mbd_sym_ctx *ctx, const mbd_sym_id *p, mbd_sym_id *A);
void mbd_sym_ep_G(mbd_sym_ctx *ctx, const mbd_sym_id *p, mbd_sym_id *G);
void mbd_sym_ep_B(mbd_sym_ctx *ctx, const mbd_sym_id *p, const mbd_sym_id *a, mbd_sym_id *B);

/* Σ a_i b_i over n entries */
mbd_sym_id mbd_sym_dot(mbd_sym_ctx *ctx, int n, const mbd_sym_id *a, const mbd_sym_id *b);
/* y = A x (A rows × cols, row-major) and y = Aᵀ x */
void mbd_sym_matvec(mbd_sym_ctx *ctx, int rows, int cols, const mbd_sym_id *A, const mbd_sym_id *x,
                    mbd_sym_id *y);
void mbd_sym_matvec_t(mbd_sym_ctx *ctx, int rows, int cols, const mbd_sym_id *A,
                      const mbd_sym_id *x, mbd_sym_id *y);
/* c = a × b (3 each) */
void mbd_sym_cross(mbd_sym_ctx *ctx, const mbd_sym_id *a, const mbd_sym_id *b, mbd_sym_id *c);
/* constants: out[i] = mbd_sym_const(v[i]) for n entries */
void mbd_sym_consts(mbd_sym_ctx *ctx, int n, const double *v, mbd_sym_id *out);

#endif
