/* mbd — dense linear algebra on small matrices (column-major), through LAPACKE/CBLAS, except on
 * the tiny matrices of small mechanisms (at most 16 rows and columns: LU and its solves, matrix
 * products; the SVD up to 12 × 32), where written-out code does the same work without the
 * libraries' call overhead (engine/linalg/linalg.c says how each agrees with LAPACK).
 *
 * Every routine that needs workspace takes a workspace sized once (at assembly) for the largest
 * problem it will see; nothing here allocates per call except the *_alloc functions. */
#ifndef MBD_LINALG_H
#define MBD_LINALG_H

#include "mbd/status.h"

/* element (i, j) of a column-major matrix with leading dimension ld */
#define MBD_AT(a, ld, i, j) ((a)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])

/* LU factorization with partial pivoting of the n×n matrix a (in place, dgetrf).
 * Returns 0, k > 0 when U(k,k) is exactly zero (1-based: the first singular pivot), or
 * MBD_E_LAPACK (< 0) for an illegal argument — an internal error, never to be read as singular. */
int mbd_lu_factor(int n, double *a, int lda, int *ipiv);

/* solve A X = B with the factors of mbd_lu_factor; b is n×nrhs with leading dimension n */
void mbd_lu_solve(int n, const double *lu, int lda, const int *ipiv, double *b, int nrhs);

/* solve A^T X = B with the factors of mbd_lu_factor */
void mbd_lu_solve_trans(int n, const double *lu, int lda, const int *ipiv, double *b, int nrhs);


/* workspace for least-squares / minimum-norm solutions and rank decisions of an m×n matrix
 * (dgelsd and dgeqp3), sized for any problem up to mmax × nmax. */
typedef struct mbd_lsq_ws {
  int mmax, nmax;   /* largest sizes served */
  double *a;        /* mmax*nmax copy of the matrix */
  double *b;        /* max(mmax,nmax) right-hand side / solution */
  double *s;        /* singular values, min(mmax,nmax) */
  double *tau;      /* QR reflector scalars, min(mmax,nmax) */
  double *work;     /* LAPACK workspace */
  int lwork;        /* its length */
  int *iwork;       /* integer workspace (dgelsd) */
  int *jpvt;        /* column pivots (dgeqp3), nmax */
} mbd_lsq_ws;

/* allocate a workspace for problems up to mmax×nmax; MBD_OK or MBD_E_NOMEM */
int mbd_lsq_alloc(mbd_lsq_ws *ws, int mmax, int nmax, mbd_error *err);
void mbd_lsq_free(mbd_lsq_ws *ws);

/* minimum-norm least-squares solution x of A x ≈ b (A m×n, any shape, any rank) by SVD (dgelsd).
 * a is copied (not changed); b has m entries; x gets n entries.  Singular values below
 * rcond·s_max are treated as zero; *rank receives the numerical rank (may be NULL).
 * Returns MBD_OK, MBD_E_SINGULAR if the SVD fails to converge, MBD_E_LAPACK for an illegal
 * argument (an internal error). */
int mbd_lsq_solve(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, const double *b,
                  double *x, double rcond, int *rank);

/* rank and column order of A (m×n) by QR with column pivoting (dgeqp3): perm[0..n-1] receives
 * the columns in pivot order (0-based), the first *rank of them independent.  |R(k,k)| ≤
 * tol·|R(0,0)| ends the rank.  rdiag (may be NULL) gets |R(k,k)|, min(m,n) entries. */
int mbd_qrcp_rank(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, double tol, int *perm,
                  int *rank, double *rdiag);

/* thin SVD A = U diag(s) Vᵀ of A (m×n, within the sizes ws serves; one-sided Jacobi rotations
 * when min(m, n) ≤ 12 and max(m, n) ≤ 32, else dgesvd): the singular values in ws->s
 * (min(m,n) of them, decreasing), U (m×min(m,n), ld m) and Vᵀ (min(m,n)×n, ld min(m,n)) as
 * pointers into ws, valid until ws is used again.  MBD_OK, MBD_E_SINGULAR (no convergence) or
 * MBD_E_LAPACK. */
int mbd_svd(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, const double **u,
            const double **vt);

/* Moore–Penrose inverse X = A⁺ (n×m) of A (m×n) by SVD; singular values below rcond·s_max
 * are dropped.  ws must be sized for m×n. */
int mbd_pinv(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, double *x, int ldx,
             double rcond, int *rank);

/* y = alpha·op(A)·x + beta·y (cblas_dgemv); trans = 0: A, 1: Aᵀ; A is m×n */
void mbd_gemv(int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
              double beta, double *y);

/* C = alpha·op(A)·op(B) + beta·C (cblas_dgemm); op(A) is m×k, op(B) k×n */
void mbd_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *a, int lda,
              const double *b, int ldb, double beta, double *c, int ldc);

/* Cholesky factor L (lower, in place) of the symmetric positive definite n×n matrix a (dpotrf).
 * Returns 0, k > 0 when the leading minor of order k is not positive, or MBD_E_LAPACK. */
int mbd_chol_factor(int n, double *a, int lda);

/* solve A X = B with the Cholesky factor of mbd_chol_factor; b is n×nrhs, leading dimension n */
void mbd_chol_solve(int n, const double *l, int lda, double *b, int nrhs);

/* B ← B L⁻ᵀ (right side, B is m×n) or x ← L⁻ᵀ x (m = 0: one vector), L lower n×n (dtrsm/dtrsv) */
void mbd_tri_right_solve_lt(int m, int n, const double *l, int lda, double *b, int ldb);
void mbd_tri_solve_lt(int n, const double *l, int lda, double *x);

/* eigenvalues w (ascending) and eigenvectors (overwriting a, columns) of the symmetric n×n matrix a
 * (dsyev, upper triangle read).  Allocates its workspace: for set-up, not for integration loops.
 * Returns MBD_OK, MBD_E_SINGULAR (no convergence), MBD_E_NOMEM or MBD_E_LAPACK. */
int mbd_eig_sym(int n, double *a, int lda, double *w);

/* the generalized symmetric eigenproblem A x = λ B x (dsygvd), B symmetric positive definite:
 * eigenvalues w (ascending) and B-orthonormal eigenvectors (overwriting a, columns: XᵀBX = I);
 * upper triangles read, b overwritten by its Cholesky factor.  Allocates its workspace: for set-up
 * (FE modes), not for integration loops.  Returns MBD_OK, MBD_E_NOMEM, MBD_E_LAPACK, k in 1..n
 * when the iteration did not converge, or n + k when the leading minor of order k of B is not
 * positive (B not positive definite: k names the first offending row). */
int mbd_eig_sym_gen(int n, double *a, int lda, double *b, int ldb, double *w);

/* eigenvalues wr + i·wi of the general n×n matrix a (dgeev, a not changed).  Allocates; statuses as
 * mbd_eig_sym. */
int mbd_eig_general(int n, const double *a, int lda, double *wr, double *wi);

/* the same with the right eigenvectors (dgeev): column j of vr (n×n, ld ldv) is the eigenvector of
 * a real eigenvalue; for a complex pair (wi[j] > 0, wi[j + 1] = −wi[j]) columns j and j + 1 hold
 * the real and imaginary parts of the eigenvector of wr[j] + i·wi[j] (its conjugate belongs to
 * the second).  Each vector has Euclidean norm 1 and its largest component real.  Allocates;
 * statuses as mbd_eig_sym. */
int mbd_eig_general_vec(int n, const double *a, int lda, double *wr, double *wi, double *vr,
                        int ldv);

#endif
