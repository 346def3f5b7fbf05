/* dense linear algebra through LAPACKE (the *_work variants, column-major) and CBLAS */
#include "mbd/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_msg.h"

/* LU with partial pivoting written out for small matrices: at these sizes LAPACK's dgetrf and
 * dgetrs cost more in their calls than in arithmetic (a relative-coordinate run of 7×7 systems spent
 * an eighth of its time there).  The algorithm of dgetf2: the pivot is the first largest |a| of its
 * column, rows are swapped across the matrix, the column below is scaled by 1/pivot and the
 * trailing block updated by the outer product; a zero pivot is reported (the first, 1-based) and
 * the factorization goes on, as dgetrf does.
 *
 * The kernels are written for a size known to the compiler: the common sizes of mechanisms (a
 * 4×4 dependent block, a 6×6 reduced matrix, a 10×10 augmented one) each get their own unrolled
 * copy through the switches below, which cuts the loop control that dominated these tiny loops
 * (the solve of a 4×4 system took 280 instructions, now about 100).  Every copy does the same
 * operations in the same order: the results do not depend on the path taken. */
/* Past the unrolled sizes the same kernel, in a loop, up to LU_SMALL: it skips a zero multiplier's
 * column update, so on a mechanism's augmented matrix [M Φqᵀ; Φq 0] (M block diagonal, Φq sparse)
 * it did the 40×40 of an 8-link planar chain in a third of dgetrf's time; on a full random matrix
 * it is as fast as OpenBLAS's dgetrf up to about 48 and slower beyond (24 % at 64) */
#define LU_SMALL 48

static inline __attribute__((always_inline)) int lu_kernel(const int n, double *restrict a,
                                                           const int lda, int *restrict ipiv) {
  int info = 0;
  for (int j = 0; j < n; j++) {
    double *restrict cj = a + (size_t)j * lda;
    int p = j;
    double big = fabs(cj[j]);
    for (int i = j + 1; i < n; i++) {
      double u = fabs(cj[i]);
      if (u > big) {
        big = u;
        p = i;
      }
    }
    ipiv[j] = p + 1;
    if (cj[p] == 0) {
      info = info ? info : j + 1;
      continue;
    }
    if (p != j) {
      for (int k = 0; k < n; k++) {
        double *ck = a + (size_t)k * lda;
        double t = ck[j];
        ck[j] = ck[p];
        ck[p] = t;
      }
    }
    double r = 1.0 / cj[j];
    for (int i = j + 1; i < n; i++) {
      cj[i] *= r;
    }
    for (int k = j + 1; k < n; k++) {
      double *restrict ck = a + (size_t)k * lda;
      double u = ck[j];
      if (u != 0) {
        for (int i = j + 1; i < n; i++) {
          ck[i] -= cj[i] * u;
        }
      }
    }
  }
  return info;
}

// P L U x = b: the interchanges, then L (unit lower) forward, U backward
static inline __attribute__((always_inline)) void solve_kernel(const int n,
                                                               const double *restrict lu,
                                                               const int lda,
                                                               const int *restrict ipiv,
                                                               double *restrict x) {
  for (int i = 0; i < n; i++) {
    int p = ipiv[i] - 1;
    if (p != i) {
      double t = x[i];
      x[i] = x[p];
      x[p] = t;
    }
  }
  for (int j = 0; j < n; j++) {
    const double *cj = lu + (size_t)j * lda;
    double xj = x[j];
    for (int i = j + 1; i < n; i++) {
      x[i] -= cj[i] * xj;
    }
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *cj = lu + (size_t)j * lda;
    x[j] /= cj[j];
    double xj = x[j];
    for (int i = 0; i < j; i++) {
      x[i] -= cj[i] * xj;
    }
  }
}

// Uᵀ Lᵀ Pᵀ x = b: Uᵀ forward, Lᵀ backward, then the interchanges in reverse
static inline __attribute__((always_inline)) void solve_trans_kernel(const int n,
                                                                     const double *restrict lu,
                                                                     const int lda,
                                                                     const int *restrict ipiv,
                                                                     double *restrict x) {
  for (int j = 0; j < n; j++) {
    const double *cj = lu + (size_t)j * lda;
    double s = x[j];
    for (int i = 0; i < j; i++) {
      s -= cj[i] * x[i];
    }
    x[j] = s / cj[j];
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *cj = lu + (size_t)j * lda;
    double s = x[j];
    for (int i = j + 1; i < n; i++) {
      s -= cj[i] * x[i];
    }
    x[j] = s;
  }
  for (int i = n - 1; i >= 0; i--) {
    int p = ipiv[i] - 1;
    if (p != i) {
      double t = x[i];
      x[i] = x[p];
      x[p] = t;
    }
  }
}

// the sizes with copies of their own (a case per size up to the bound)
#define SMALL_CASES_8(F, ...)                                                                    \
  case 1: F(1, __VA_ARGS__); break;                                                              \
  case 2: F(2, __VA_ARGS__); break;                                                              \
  case 3: F(3, __VA_ARGS__); break;                                                              \
  case 4: F(4, __VA_ARGS__); break;                                                              \
  case 5: F(5, __VA_ARGS__); break;                                                              \
  case 6: F(6, __VA_ARGS__); break;                                                              \
  case 7: F(7, __VA_ARGS__); break;                                                              \
  case 8: F(8, __VA_ARGS__); break;
#define SMALL_CASES_12(F, ...)                                                                   \
  SMALL_CASES_8(F, __VA_ARGS__)                                                                  \
  case 9: F(9, __VA_ARGS__); break;                                                              \
  case 10: F(10, __VA_ARGS__); break;                                                            \
  case 11: F(11, __VA_ARGS__); break;                                                            \
  case 12: F(12, __VA_ARGS__); break;

/* Each size's copy is a function of its own, called through the switch: inlined into one body,
 * the compiler set up the addresses of every case before the switch (about 100 instructions on
 * each call, more than the 2×2 solve itself) */
#define SIZED_FNS(N, unused)                                                                     \
  static __attribute__((noinline)) int lu_##N(double *a, int lda, int *ipiv) {                   \
    return lu_kernel(N, a, lda, ipiv);                                                           \
  }                                                                                              \
  static __attribute__((noinline)) void solve_##N(const double *lu, int lda, const int *ipiv,    \
                                                  double *b, int nrhs) {                         \
    for (int c = 0; c < nrhs; c++) {                                                             \
      solve_kernel(N, lu, lda, ipiv, b + (size_t)c * N);                                         \
    }                                                                                            \
  }
#define SIZED_FNS_T(N, unused)                                                                   \
  static __attribute__((noinline)) void solve_t_##N(const double *lu, int lda, const int *ipiv,  \
                                                    double *b, int nrhs) {                       \
    for (int c = 0; c < nrhs; c++) {                                                             \
      solve_trans_kernel(N, lu, lda, ipiv, b + (size_t)c * N);                                   \
    }                                                                                            \
  }
#define EACH_SIZE_8(F) F(1, _) F(2, _) F(3, _) F(4, _) F(5, _) F(6, _) F(7, _) F(8, _)
#define EACH_SIZE_12(F) EACH_SIZE_8(F) F(9, _) F(10, _) F(11, _) F(12, _)
EACH_SIZE_12(SIZED_FNS)
EACH_SIZE_8(SIZED_FNS_T)

// the other sizes up to LU_SMALL: the same kernels with n a variable
static __attribute__((noinline)) int lu_n(int n, double *a, int lda, int *ipiv) {
  return lu_kernel(n, a, lda, ipiv);
}

static __attribute__((noinline)) void solve_n(int n, const double *lu, int lda, const int *ipiv,
                                              double *b, int nrhs, int trans) {
  for (int c = 0; c < nrhs; c++) {
    if (trans) {
      solve_trans_kernel(n, lu, lda, ipiv, b + (size_t)c * n);
    } else {
      solve_kernel(n, lu, lda, ipiv, b + (size_t)c * n);
    }
  }
}

#define LU_CALL(N, a, lda, ipiv, info) info = lu_##N(a, lda, ipiv)
#define SOLVE_CALL(N, lu, lda, ipiv, b, nrhs) solve_##N(lu, lda, ipiv, b, nrhs)
#define SOLVE_T_CALL(N, lu, lda, ipiv, b, nrhs) solve_t_##N(lu, lda, ipiv, b, nrhs)

static int lu_small(int n, double *a, int lda, int *ipiv) {
  int info = 0;
  switch (n) {
    SMALL_CASES_12(LU_CALL, a, lda, ipiv, info)
    default:
      info = lu_n(n, a, lda, ipiv);
  }
  return info;
}

int mbd_lu_factor(int n, double *a, int lda, int *ipiv) {
  if (n == 0) {
    return 0;  // an empty matrix (a constraint set without rows): nothing to factor
  }
  if (n <= LU_SMALL && n >= 0 && lda >= (n > 0 ? n : 1)) {
    return lu_small(n, a, lda, ipiv);
  }
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
  // info < 0 is our bug (an illegal argument): an internal error, never "singular"
  return info < 0 ? MBD_E_LAPACK : (int)info;
}

/* b ← A⁻¹ b (trans = 0) or A⁻ᵀ b (trans = 1) from dgetrf's factors: the small cases unrolled,
 * larger ones by dgetrs (inlined with trans constant: two functions, one text) */
static inline void lu_solve_any(int n, const double *lu, int lda, const int *ipiv, double *b,
                                int nrhs, int trans) {
  if (n == 0 || nrhs == 0) {
    return;
  }
  if (n > LU_SMALL) {
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, nrhs, lu, lda, ipiv, b, n);
    return;
  }
  if (trans) {
    switch (n) {
      SMALL_CASES_8(SOLVE_T_CALL, lu, lda, ipiv, b, nrhs)
      default:
        solve_n(n, lu, lda, ipiv, b, nrhs, 1);
    }
  } else {
    switch (n) {
      SMALL_CASES_12(SOLVE_CALL, lu, lda, ipiv, b, nrhs)
      default:
        solve_n(n, lu, lda, ipiv, b, nrhs, 0);
    }
  }
}

void mbd_lu_solve(int n, const double *lu, int lda, const int *ipiv, double *b, int nrhs) {
  lu_solve_any(n, lu, lda, ipiv, b, nrhs, 0);
}

void mbd_lu_solve_trans(int n, const double *lu, int lda, const int *ipiv, double *b, int nrhs) {
  lu_solve_any(n, lu, lda, ipiv, b, nrhs, 1);
}

/* OpenBLAS starts worker threads for level-3 calls; on the small matrices of a mechanism they
 * only cost time (the double pendulum ran twice as fast with one thread), and parallel sweeps use
 * processes instead.  The symbol is weak so that another CBLAS works too. */
extern void openblas_set_num_threads(int n) __attribute__((weak));

static void single_thread_blas(void) {
  static int done = 0;
  if (!done && openblas_set_num_threads) {
    openblas_set_num_threads(1);
  }
  done = 1;
}

/* the answers of the workspace queries below, by size: the same in every call of a process (LAPACK
 * answers from its block sizes), and a run asks them for each data it makes — the three queries
 * cost 85 k instructions a run of the double pendulum, 9 % of its integration.  QUERY_MAX sizes;
 * further ones are asked each time. */
#define QUERY_MAX 32
static struct {
  int m, n, lwork, liwork;
} query[QUERY_MAX];
static int nquery;
static pthread_mutex_t query_mu = PTHREAD_MUTEX_INITIALIZER;

static int query_find(int m, int n, int *lwork, int *liwork) {
  int found = 0;
  pthread_mutex_lock(&query_mu);
  for (int i = 0; i < nquery && !found; i++) {
    if (query[i].m == m && query[i].n == n) {
      *lwork = query[i].lwork;
      *liwork = query[i].liwork;
      found = 1;
    }
  }
  pthread_mutex_unlock(&query_mu);
  return found;
}

static void query_add(int m, int n, int lwork, int liwork) {
  pthread_mutex_lock(&query_mu);
  if (nquery < QUERY_MAX) {
    query[nquery].m = m;
    query[nquery].n = n;
    query[nquery].lwork = lwork;
    query[nquery].liwork = liwork;
    nquery++;
  }
  pthread_mutex_unlock(&query_mu);
}

// workspace: query dgelsd, dgeqp3 and dgesvd sizes for the largest problem and keep the maximum
int mbd_lsq_alloc(mbd_lsq_ws *ws, int mmax, int nmax, mbd_error *err) {
  memset(ws, 0, sizeof *ws);
  single_thread_blas();
  if (mmax < 1) {
    mmax = 1;
  }
  if (nmax < 1) {
    nmax = 1;
  }
  ws->mmax = mmax;
  ws->nmax = nmax;
  int mn = mmax < nmax ? mmax : nmax;
  int mx = mmax > nmax ? mmax : nmax;
  int lwork = 0, liwork = 0;
  if (!query_find(mmax, nmax, &lwork, &liwork)) {
    double q1 = 0, q2 = 0, q3 = 0;
    lapack_int iq = 0, rank = 0;
    // workspace queries (lwork = -1) on null matrices are allowed by LAPACK
    LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, mmax, nmax, 1, NULL, mmax, NULL, mx, NULL, -1.0, &rank,
                        &q1, -1, &iq);
    LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, mmax, nmax, NULL, mmax, NULL, NULL, &q2, -1);
    LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', mmax, nmax, NULL, mmax, NULL, NULL, mmax,
                        NULL, mn, &q3, -1);
    double q = q1 > q2 ? q1 : q2;
    q = q > q3 ? q : q3;
    lwork = (int)q + 16;
    liwork = (int)iq > 1 ? (int)iq : 1;
    query_add(mmax, nmax, lwork, liwork);
  }
  // dgesvd for pinv also needs U (m×mn) and Vt (mn×n): carve them from work
  ws->lwork = lwork + mmax * mn + mn * nmax;
  ws->a = calloc((size_t)mmax * nmax, sizeof(double));
  ws->b = calloc((size_t)mx, sizeof(double));
  ws->s = calloc((size_t)mn, sizeof(double));
  ws->tau = calloc((size_t)mn, sizeof(double));
  // (LAPACK's workspaces, written before they are read: not zeroed, which for a large model's
  // U and Vt cost more than its run's set-up)
  ws->work = malloc((size_t)ws->lwork * sizeof(double));
  ws->iwork = malloc(((size_t)liwork + 8 * (size_t)mx) * sizeof(int));
  ws->jpvt = calloc((size_t)nmax, sizeof(int));
  if (!ws->a || !ws->b || !ws->s || !ws->tau || !ws->work || !ws->iwork || !ws->jpvt) {
    mbd_lsq_free(ws);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LINALG_NOMEM, mmax, nmax);
  }
  return MBD_OK;
}

void mbd_lsq_free(mbd_lsq_ws *ws) {
  free(ws->a);
  free(ws->b);
  free(ws->s);
  free(ws->tau);
  free(ws->work);
  free(ws->iwork);
  free(ws->jpvt);
  memset(ws, 0, sizeof *ws);
}

// copy an m×n matrix into the workspace's own storage (leading dimension m)
static void copy_in(mbd_lsq_ws *ws, int m, int n, const double *a, int lda) {
  for (int j = 0; j < n; j++) {
    memcpy(ws->a + (size_t)j * m, a + (size_t)j * lda, (size_t)m * sizeof(double));
  }
}

int mbd_lsq_solve(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, const double *b,
                  double *x, double rcond, int *rank) {
  if (m == 0 || n == 0) {
    for (int j = 0; j < n; j++) {
      x[j] = 0;
    }
    if (rank) {
      *rank = 0;
    }
    return MBD_OK;
  }
  copy_in(ws, m, n, a, lda);
  int ldb = m > n ? m : n;
  memset(ws->b, 0, (size_t)ldb * sizeof(double));
  memcpy(ws->b, b, (size_t)m * sizeof(double));
  lapack_int r = 0;
  lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, 1, ws->a, m, ws->b, ldb, ws->s,
                                        rcond, &r, ws->work, ws->lwork, ws->iwork);
  if (info != 0) {
    return info < 0 ? MBD_E_LAPACK : MBD_E_SINGULAR;  // > 0: the SVD did not converge
  }
  memcpy(x, ws->b, (size_t)n * sizeof(double));
  if (rank) {
    *rank = (int)r;
  }
  return MBD_OK;
}

int mbd_qrcp_rank(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, double tol, int *perm,
                  int *rank, double *rdiag) {
  int mn = m < n ? m : n;
  if (n == 0 || m == 0) {
    for (int j = 0; j < n; j++) {
      perm[j] = j;
    }
    *rank = 0;
    return MBD_OK;
  }
  copy_in(ws, m, n, a, lda);
  memset(ws->jpvt, 0, (size_t)n * sizeof(int));  // 0: every column free to move
  lapack_int info =
      LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, ws->a, m, ws->jpvt, ws->tau, ws->work, ws->lwork);
  if (info != 0) {
    return MBD_E_LAPACK;
  }
  double r0 = fabs(ws->a[0]);
  int r = 0;
  for (int k = 0; k < mn; k++) {
    double d = fabs(MBD_AT(ws->a, m, k, k));
    if (rdiag) {
      rdiag[k] = d;
    }
    if (d > tol * r0 && d > 0) {
      r = k + 1;
    } else {
      break;
    }
  }
  for (int j = 0; j < n; j++) {
    perm[j] = ws->jpvt[j] - 1;
  }
  *rank = r;
  return MBD_OK;
}

/* the thin SVD of a small matrix by one-sided Jacobi rotations (Hestenes): the columns of
 * W = A (or Aᵀ when A is wide) are rotated pairwise until they are orthogonal; then W = U Σ and
 * the rotations gathered are V.  For the mechanisms' Φq M^(−1/2) (4×6 for a double pendulum)
 * LAPACK's dgesvd spent about 40 000 instructions on the bidiagonal reduction's set-up; this
 * takes a few thousand, and its singular values have high relative accuracy (Demmel and
 * Veselić), the small ones included.  SVD_SMALL bounds the shorter side, SVD_SMALL_LONG the
 * longer. */
#define SVD_SMALL 12
#define SVD_SMALL_LONG 32
#define SVD_SWEEPS 60

/* W (r×c, ld r, r ≥ c) → W U-part with V (c×c, ld c) accumulated from the identity; the column
 * norms (singular values) into s.  0, or MBD_E_SINGULAR without convergence. */
static int jacobi_cols(int r, int c, double *W, double *V, double *s) {
  for (int j = 0; j < c; j++) {
    for (int i = 0; i < c; i++) {
      MBD_AT(V, c, i, j) = i == j;
    }
  }
  const double tol = (double)r * DBL_EPSILON;
  for (int sweep = 0;; sweep++) {
    // the squared column norms, computed afresh each sweep and carried through its rotations;
    // a column below the rounding level of the largest stands for a zero singular value: it is
    // left alone (rotating it against a large one only stirs that one's rounding errors)
    double big = 0;
    for (int j = 0; j < c; j++) {
      const double *wj = W + (size_t)j * r;
      double n2 = 0;
      for (int i = 0; i < r; i++) {
        n2 += wj[i] * wj[i];
      }
      s[j] = n2;
      big = n2 > big ? n2 : big;
    }
    double tiny = tol * tol * big;
    int rotated = 0;
    for (int p = 0; p < c - 1; p++) {
      for (int q = p + 1; q < c; q++) {
        double *wp = W + (size_t)p * r, *wq = W + (size_t)q * r;
        double gamma = 0;
        for (int i = 0; i < r; i++) {
          gamma += wp[i] * wq[i];
        }
        if (gamma == 0 || fabs(gamma) <= tol * sqrt(s[p] * s[q]) || s[p] <= tiny ||
            s[q] <= tiny) {
          continue;
        }
        rotated = 1;
        // the rotation that zeroes the (p, q) entry of WᵀW
        double zeta = (s[q] - s[p]) / (2 * gamma);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double cs = 1 / sqrt(1 + t * t), sn = cs * t;
        for (int i = 0; i < r; i++) {
          double x = wp[i], y = wq[i];
          wp[i] = cs * x - sn * y;
          wq[i] = sn * x + cs * y;
        }
        double *vp = V + (size_t)p * c, *vq = V + (size_t)q * c;
        for (int i = 0; i < c; i++) {
          double x = vp[i], y = vq[i];
          vp[i] = cs * x - sn * y;
          vq[i] = sn * x + cs * y;
        }
        s[p] -= t * gamma;
        s[q] += t * gamma;
      }
    }
    if (!rotated) {
      break;
    }
    if (sweep + 1 >= SVD_SWEEPS) {
      return MBD_E_SINGULAR;
    }
  }
  // σ_j = |W_j|, decreasing (columns of W and V moved along), U_j = W_j / σ_j
  for (int j = 0; j < c; j++) {
    double n2 = 0;
    for (int i = 0; i < r; i++) {
      n2 += MBD_AT(W, r, i, j) * MBD_AT(W, r, i, j);
    }
    s[j] = sqrt(n2);
  }
  for (int j = 0; j < c; j++) {
    int best = j;
    for (int k = j + 1; k < c; k++) {
      best = s[k] > s[best] ? k : best;
    }
    if (best != j) {
      double t = s[j];
      s[j] = s[best];
      s[best] = t;
      for (int i = 0; i < r; i++) {
        t = MBD_AT(W, r, i, j);
        MBD_AT(W, r, i, j) = MBD_AT(W, r, i, best);
        MBD_AT(W, r, i, best) = t;
      }
      for (int i = 0; i < c; i++) {
        t = MBD_AT(V, c, i, j);
        MBD_AT(V, c, i, j) = MBD_AT(V, c, i, best);
        MBD_AT(V, c, i, best) = t;
      }
    }
  }
  // the columns of a vanishing σ (below rounding of the largest) are completed to an
  // orthonormal set, as LAPACK's are: Gram–Schmidt of unit vectors against the others
  double cut = s[0] * (double)r * DBL_EPSILON;
  for (int j = 0; j < c; j++) {
    double *wj = W + (size_t)j * r;
    if (s[j] > cut && s[j] > 0) {
      for (int i = 0; i < r; i++) {
        wj[i] /= s[j];
      }
      continue;
    }
    for (int e = 0; e < r; e++) {
      for (int i = 0; i < r; i++) {
        wj[i] = i == e;
      }
      for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < c; k++) {
          if (k == j || (k > j && !(s[k] > cut && s[k] > 0))) {
            continue;  // itself, or a column not yet made
          }
          const double *wk = W + (size_t)k * r;
          double dot = 0;
          for (int i = 0; i < r; i++) {
            dot += wk[i] * wj[i];
          }
          for (int i = 0; i < r; i++) {
            wj[i] -= dot * wk[i];
          }
        }
      }
      double nn = 0;
      for (int i = 0; i < r; i++) {
        nn += wj[i] * wj[i];
      }
      if (nn > 0.25) {
        nn = sqrt(nn);
        for (int i = 0; i < r; i++) {
          wj[i] /= nn;
        }
        break;
      }
    }
  }
  return 0;
}

/* the thin SVD of a small A (m×n) into ws: s, U (m×mn, ld m) and Vᵀ (mn×n, ld mn) */
static int svd_small(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, double *u,
                     double *vt) {
  if (m >= n) {
    // W = A (m×n): A = W Σ⁻¹ … = U Σ Vᵀ with V n×n gathered in vt's place, transposed at the end
    copy_in(ws, m, n, a, lda);
    int rc = jacobi_cols(m, n, ws->a, vt, ws->s);
    if (rc != 0) {
      return rc;
    }
    memcpy(u, ws->a, (size_t)m * n * sizeof(double));
    for (int j = 0; j < n; j++) {
      for (int i = j + 1; i < n; i++) {
        double t = MBD_AT(vt, n, i, j);
        MBD_AT(vt, n, i, j) = MBD_AT(vt, n, j, i);
        MBD_AT(vt, n, j, i) = t;
      }
    }
    return 0;
  }
  // wide: W = Aᵀ (n×m) = U' Σ V'ᵀ, so A = V' Σ U'ᵀ: U = V' (m×m), Vᵀ = U'ᵀ (m×n)
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < n; i++) {
      MBD_AT(ws->a, n, i, j) = MBD_AT(a, lda, j, i);
    }
  }
  int rc = jacobi_cols(n, m, ws->a, u, ws->s);
  if (rc != 0) {
    return rc;
  }
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < n; i++) {
      MBD_AT(vt, m, j, i) = MBD_AT(ws->a, n, i, j);
    }
  }
  return 0;
}

static int svd_is_small(int m, int n) {
  int mn = m < n ? m : n, mx = m > n ? m : n;
  return mn >= 1 && mn <= SVD_SMALL && mx <= SVD_SMALL_LONG;
}

int mbd_svd(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, const double **u,
            const double **vt) {
  int mn = m < n ? m : n;
  if (!svd_is_small(m, n)) {
    copy_in(ws, m, n, a, lda);
  }
  // U (m×mn) and Vt (mn×n) live at the end of work, as for mbd_pinv
  double *uu = ws->work + (ws->lwork - m * mn - mn * n);
  double *vv = uu + m * mn;
  if (svd_is_small(m, n)) {
    int rc = svd_small(ws, m, n, a, lda, uu, vv);
    *u = uu;
    *vt = vv;
    return rc;
  }
  int lw = ws->lwork - m * mn - mn * n;
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, ws->a, m, ws->s, uu, m,
                                        vv, mn, ws->work, lw);
  if (info != 0) {
    return info < 0 ? MBD_E_LAPACK : MBD_E_SINGULAR;  // > 0: the SVD did not converge
  }
  *u = uu;
  *vt = vv;
  return MBD_OK;
}

int mbd_pinv(mbd_lsq_ws *ws, int m, int n, const double *a, int lda, double *x, int ldx,
             double rcond, int *rank) {
  int mn = m < n ? m : n;
  // U (m×mn) and Vt (mn×n) live at the end of work
  double *u = ws->work + (ws->lwork - m * mn - mn * n);
  double *vt = u + m * mn;
  // LAPACK's SVD at every size: the coordinate-level systems of paper 004 solve through this
  // inverse, and the reproductions' unstabilized errors (α = β = 0) grow from round-off, so their
  // committed figures are those of dgesvd's (the Jacobi SVD moved one by 15%)
  copy_in(ws, m, n, a, lda);
  int lw = ws->lwork - m * mn - mn * n;
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, ws->a, m, ws->s, u, m,
                                        vt, mn, ws->work, lw);
  if (info != 0) {
    return info < 0 ? MBD_E_LAPACK : MBD_E_SINGULAR;  // > 0: the SVD did not converge
  }
  double cut = mn > 0 ? rcond * ws->s[0] : 0;
  int r = 0;
  // X = V diag(1/s) Uᵀ over the kept singular values
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < n; i++) {
      MBD_AT(x, ldx, i, j) = 0;
    }
  }
  for (int k = 0; k < mn; k++) {
    if (ws->s[k] <= cut || ws->s[k] == 0) {
      break;
    }
    r++;
    double inv = 1.0 / ws->s[k];
    for (int j = 0; j < m; j++) {
      double ujk = MBD_AT(u, m, j, k) * inv;
      for (int i = 0; i < n; i++) {
        MBD_AT(x, ldx, i, j) += MBD_AT(vt, mn, k, i) * ujk;
      }
    }
  }
  if (rank) {
    *rank = r;
  }
  return MBD_OK;
}

/* matrices of at most MUL_SMALL rows and columns (the LU's bound) are multiplied by plain
 * loops: a CBLAS call costs more than the arithmetic of a mechanism's 6×2 product (OpenBLAS's
 * dgemv took 480 instructions for BᵀQ of the double pendulum's kane formulation, the loop 60).
 * The sums run in index order; OpenBLAS's kernels add in another order, so results differ from
 * theirs by rounding. */
#define MUL_SMALL LU_SMALL

void mbd_gemv(int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
              double beta, double *y) {
  if (m == 0 || n == 0) {
    int ny = trans ? n : m;
    for (int i = 0; i < ny; i++) {
      y[i] *= beta;
    }
    return;
  }
  if (m > MUL_SMALL || n > MUL_SMALL) {
    cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, 1, beta,
                y, 1);
    return;
  }
  if (trans) {
    // y_j = α (column j)ᵀ x + β y_j
    for (int j = 0; j < n; j++) {
      const double *col = a + (size_t)j * lda;
      double s = 0;
      for (int i = 0; i < m; i++) {
        s += col[i] * x[i];
      }
      y[j] = beta == 0 ? alpha * s : alpha * s + beta * y[j];
    }
    return;
  }
  // y = β y, then the columns of A scaled by α x_j added
  for (int i = 0; i < m; i++) {
    y[i] = beta == 0 ? 0 : beta * y[i];
  }
  for (int j = 0; j < n; j++) {
    const double *col = a + (size_t)j * lda;
    double t = alpha * x[j];
    if (t != 0) {
      for (int i = 0; i < m; i++) {
        y[i] += t * col[i];
      }
    }
  }
}

void mbd_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *a, int lda,
              const double *b, int ldb, double beta, double *c, int ldc) {
  if (m == 0 || n == 0) {
    return;
  }
  if (m > MUL_SMALL || n > MUL_SMALL || k > MUL_SMALL) {
    cblas_dgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // c_ij = α Σ_l op(A)_il op(B)_lj + β c_ij
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++) {
        double ail = transa ? MBD_AT(a, lda, l, i) : MBD_AT(a, lda, i, l);
        double blj = transb ? MBD_AT(b, ldb, j, l) : MBD_AT(b, ldb, l, j);
        s += ail * blj;
      }
      double *cij = &MBD_AT(c, ldc, i, j);
      *cij = beta == 0 ? alpha * s : alpha * s + beta * *cij;
    }
  }
}

/* eigen-decompositions for set-up and analysis (they allocate their LAPACK workspace per call) */

int mbd_chol_factor(int n, double *a, int lda) {
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
  return info < 0 ? MBD_E_LAPACK : (int)info;
}

void mbd_chol_solve(int n, const double *l, int lda, double *b, int nrhs) {
  LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, l, lda, b, n);
}

void mbd_tri_right_solve_lt(int m, int n, const double *l, int lda, double *b, int ldb) {
  if (m == 0 || n == 0) {
    return;
  }
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, l, lda,
              b, ldb);
}

void mbd_tri_solve_lt(int n, const double *l, int lda, double *x) {
  if (n == 0) {
    return;
  }
  cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n, l, lda, x, 1);
}

int mbd_eig_sym(int n, double *a, int lda, double *w) {
  if (n <= 0) {
    return MBD_OK;
  }
  double q = 0;
  lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', n, a, lda, w, &q, -1);
  if (info != 0) {
    return MBD_E_LAPACK;
  }
  int lw = (int)q + 8;
  double *work = malloc((size_t)lw * sizeof(double));
  if (!work) {
    return MBD_E_NOMEM;
  }
  info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', n, a, lda, w, work, lw);
  free(work);
  return info < 0 ? MBD_E_LAPACK : (info > 0 ? MBD_E_SINGULAR : MBD_OK);
}

/* dgeev on a copy of a (n×n, leading dimension lda): eigenvalues wr + i wi, with vr (ldv) the
 * right eigenvectors, or without them for vr = NULL */
static int eig_general(int n, const double *a, int lda, double *wr, double *wi, double *vr,
                       int ldv) {
  if (n <= 0) {
    return MBD_OK;
  }
  double *c = malloc((size_t)n * (size_t)n * sizeof(double));
  if (!c) {
    return MBD_E_NOMEM;
  }
  for (int j = 0; j < n; j++) {
    memcpy(c + (size_t)j * n, a + (size_t)j * lda, (size_t)n * sizeof(double));
  }
  char jobvr = vr ? 'V' : 'N';
  double q = 0, dummy = 0;
  double *v = vr ? vr : &dummy;
  int ldv1 = vr ? ldv : 1;
  lapack_int info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, c, n, wr, wi, &dummy, 1, v,
                                       ldv1, &q, -1);
  double *work = info == 0 ? malloc(((size_t)q + 8) * sizeof(double)) : NULL;
  if (!work) {
    free(c);
    return info != 0 ? MBD_E_LAPACK : MBD_E_NOMEM;
  }
  info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, c, n, wr, wi, &dummy, 1, v, ldv1, work,
                            (int)q + 8);
  free(work);
  free(c);
  return info < 0 ? MBD_E_LAPACK : (info > 0 ? MBD_E_SINGULAR : MBD_OK);
}

int mbd_eig_general(int n, const double *a, int lda, double *wr, double *wi) {
  return eig_general(n, a, lda, wr, wi, NULL, 1);
}

int mbd_eig_general_vec(int n, const double *a, int lda, double *wr, double *wi, double *vr,
                        int ldv) {
  if (n <= 0) {
    return MBD_OK;
  }
  // (the same single thread as the symmetric solves: an eigenvector basis that does not depend on
  // how many threads OpenBLAS starts)
  single_thread_blas();
  return eig_general(n, a, lda, wr, wi, vr, ldv);
}

int mbd_eig_sym_gen(int n, double *a, int lda, double *b, int ldb, double *w) {
  if (n <= 0) {
    return MBD_OK;
  }
  single_thread_blas();
  double q = 0;
  lapack_int iq = 0;
  lapack_int info = LAPACKE_dsygvd_work(LAPACK_COL_MAJOR, 1, 'V', 'U', n, a, lda, b, ldb, w, &q,
                                        -1, &iq, -1);
  if (info != 0) {
    return MBD_E_LAPACK;
  }
  int lw = (int)q + 8, liw = (int)iq + 8;
  double *work = malloc((size_t)lw * sizeof(double));
  lapack_int *iwork = malloc((size_t)liw * sizeof(lapack_int));
  if (!work || !iwork) {
    free(work);
    free(iwork);
    return MBD_E_NOMEM;
  }
  info = LAPACKE_dsygvd_work(LAPACK_COL_MAJOR, 1, 'V', 'U', n, a, lda, b, ldb, w, work, lw, iwork,
                             liw);
  free(work);
  free(iwork);
  // info in 1..n: no convergence; info > n: the leading minor of order info − n of B is not
  // positive (B is not positive definite): returned as n + k so the caller can name the DOF
  if (info < 0) {
    return MBD_E_LAPACK;
  }
  return (int)info;
}
