/* mbd — sparse LU of large square systems through SuiteSparse's KLU.
 *
 * The pattern (compressed columns) is analysed once — a fill-reducing ordering (AMD after a block
 * triangular form) — and the values are factored at every evaluation: a refactorization with the
 * pivot order of the last full factorization, which costs about the arithmetic of the factors and
 * allocates nothing; a full factorization (partial pivoting, KLU makes its factors anew) at the
 * first and again when the pivots of the refactorization have lost too much against the last full
 * one, which is rare.  The pivot ratio
 * min|U_kk| / max|U_kk| of every factorization is given, the quantity the formulations watch near
 * singular configurations (the rows of the factored matrix scaled by their largest entry). */
#ifndef MBD_SPARSE_H
#define MBD_SPARSE_H

#include "mbd/status.h"

typedef struct mbd_splu mbd_splu;

/* an empty solver (no pattern yet): NULL when out of memory */
mbd_splu *mbd_splu_new(void);

/* the symbolic analysis of the n×n pattern in compressed columns (Ap: n + 1 column starts, Ai: the
 * row indices of each column, increasing, no duplicates), replacing any earlier one: a
 * fill-reducing order, or with natural = 1 the matrix's own (the LU of dgetrf, whose pivots a
 * caller may compare with a dense factorization's; for patterns whose own order makes little
 * fill).  The arrays
 * are read again by every factorization: they must stay as they are until the next analysis.
 * MBD_OK, MBD_E_NOMEM, or MBD_E_LAPACK when KLU refuses the pattern (err names the size).  KLU
 * allocates its symbolic object here and its factors at a full factorization (inside SuiteSparse);
 * nothing else allocates. */
int mbd_splu_analyze(mbd_splu *f, int n, const int *Ap, const int *Ai, int natural,
                     mbd_error *err);

/* the numeric factorization of the values Ax (in the pattern of the analysis).  refactor = 1 keeps
 * the last pivot order when it is still good (a full factorization when there is none yet, when
 * a pivot became zero, or when the pivot ratio fell below a tenth of the last full factorization's);
 * refactor = 0 always pivots anew.  Returns 0; k > 0 when the matrix is singular (U(k,k) exactly
 * zero: k − 1 is the original column of that pivot); MBD_E_NOMEM or MBD_E_LAPACK.  *ratio gets
 * the pivot ratio, *kmin the original column of the smallest pivot (either may be NULL). */
int mbd_splu_factor(mbd_splu *f, const double *Ax, int refactor, double *ratio, int *kmin);

/* solve A X = B (trans = 0) or Aᵀ X = B (trans = 1) with the last factorization; b is n×nrhs,
 * leading dimension n, overwritten by X */
void mbd_splu_solve(mbd_splu *f, int trans, double *b, int nrhs);

/* how many full factorizations (with pivoting) and refactorizations were made */
long mbd_splu_full_count(const mbd_splu *f);
long mbd_splu_refactor_count(const mbd_splu *f);

void mbd_splu_free(mbd_splu *f);

/* the rows an LU factorization with partial pivoting of the m×k matrix A (m ≥ k, compressed
 * columns as above) takes as pivots — UMFPACK, its columns in a fill-reducing order, the largest
 * entry of each column the pivot (no threshold, no scaling): rows[0..k) the pivot rows, rows[k..m)
 * the others; *ratio the pivot ratio min|U_kk| / max|U_kk| (0 when A is rank-deficient).  For the
 * choice of dependent coordinates of a large model (A = Φqᵀ: a constraint's pivot is its largest
 * coefficient among the coordinates left).  Allocates (UMFPACK's objects): for set-up, not for
 * every evaluation.  MBD_OK, MBD_E_NOMEM, or MBD_E_LAPACK (err names the size and status). */
int mbd_sparse_pivot_rows(int m, int k, const int *Ap, const int *Ai, const double *Ax, int *rows,
                          double *ratio, mbd_error *err);

#endif
