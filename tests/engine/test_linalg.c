/* the small-matrix paths of engine/linalg (LU and its solves, products, the SVD) against
 * LAPACKE and CBLAS on the same matrices: mechanisms' matrices of up to 16 rows and columns take
 * the hand-written code, larger ones LAPACK, and both must agree to rounding. */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <stdlib.h>

#include "mbd/linalg.h"
#include "mbd_test.h"

/* reproducible entries in [−1, 1) (a linear congruential generator: the same on every machine) */
static unsigned long long seed = 12345;
static double rnd(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
}

static void fill(double *a, int n) {
  for (int i = 0; i < n; i++) {
    a[i] = rnd();
  }
}

/* |x| (infinity norm) */
static double amax(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s = fmax(s, fabs(x[i]));
  }
  return s;
}

/* LU, solve and transposed solve of random n×n systems, n = 1 .. 20 and on both sides of the
 * kernel's bound (unrolled up to 12, the loop up to 48, dgetrf beyond): the pivots are LAPACK's
 * (partial pivoting picks the same rows; random entries have no ties) and the solutions agree
 * with dgetrf/dgetrs's.  A random matrix of these sizes has a condition number below 1e4:
 * round-off of either below 1e4·n·ε |x| ≈ 1e-10 |x|, tolerance 1e-9 |x|. */
static void test_lu_against_lapack(void **state) {
  (void)state;
  static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                              17, 18, 19, 20, 31, 40, 47, 48, 49, 52};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int n = sizes[k];
    static double a[52 * 52], lu[52 * 52], ref[52 * 52];
    double b[3 * 52], x[3 * 52], xr[3 * 52];
    int ip[52], ipr[52];
    fill(a, n * n);
    fill(b, 3 * n);
    memcpy(lu, a, sizeof(double) * n * n);
    memcpy(ref, a, sizeof(double) * n * n);
    assert_int_equal(mbd_lu_factor(n, lu, n, ip), 0);
    assert_int_equal(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, ref, n, ipr), 0);
    for (int i = 0; i < n; i++) {
      assert_int_equal(ip[i], ipr[i]);
    }
    for (int trans = 0; trans < 2; trans++) {
      memcpy(x, b, sizeof(double) * 3 * n);
      memcpy(xr, b, sizeof(double) * 3 * n);
      if (trans) {
        mbd_lu_solve_trans(n, lu, n, ip, x, 3);
      } else {
        mbd_lu_solve(n, lu, n, ip, x, 3);
      }
      LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, 3, ref, n, ipr, xr, n);
      double scale = amax(xr, 3 * n);
      for (int i = 0; i < 3 * n; i++) {
        MBD_ASSERT_NEAR(x[i], xr[i], 1e-9 * scale);
      }
      // and the residual of the system itself (A x = b or Aᵀ x = b): round-off of O(1) entries
      for (int c = 0; c < 3; c++) {
        for (int i = 0; i < n; i++) {
          double s = 0;
          for (int j = 0; j < n; j++) {
            s += (trans ? MBD_AT(a, n, j, i) : MBD_AT(a, n, i, j)) * x[c * n + j];
          }
          MBD_ASSERT_NEAR(s, b[c * n + i], 1e-10 * (1 + scale));
        }
      }
    }
  }
}

/* a zero pivot is reported as LAPACK does: the first (1-based), the factorization going on */
static void test_lu_singular(void **state) {
  (void)state;
  for (int n = 2; n <= 18; n += 4) {
    double a[400], ref[400];
    int ip[20], ipr[20];
    fill(a, n * n);
    for (int i = 0; i < n; i++) {
      MBD_AT(a, n, i, 1) = 0;  // column 2 zero: U(2,2) = 0 exactly
    }
    memcpy(ref, a, sizeof(double) * n * n);
    int info = mbd_lu_factor(n, a, n, ip);
    assert_int_equal(info, LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, ref, n, ipr));
    assert_int_equal(info, 2);
  }
  int ip[1];
  assert_int_equal(mbd_lu_factor(0, NULL, 1, ip), 0);
}

/* y = α op(A) x + β y and C = α op(A) op(B) + β C for sizes on both sides of the small bound:
 * sums of at most 20 products of O(1) numbers, round-off below 1e-14 */
static void test_products_against_cblas(void **state) {
  (void)state;
  int sizes[][3] = {{1, 1, 1}, {6, 2, 3}, {2, 6, 6}, {16, 16, 16}, {17, 5, 9}, {4, 20, 3}};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int m = sizes[k][0], n = sizes[k][1], l = sizes[k][2];
    double a[400], x[20], y[20], yr[20];
    fill(a, m * n);
    fill(x, 20);
    for (int trans = 0; trans < 2; trans++) {
      for (int bz = 0; bz < 2; bz++) {
        double beta = bz ? 0.0 : -0.5;
        fill(y, 20);
        memcpy(yr, y, sizeof y);
        if (bz) {
          y[0] = NAN;  // β = 0: y is not read
          yr[0] = NAN;
        }
        mbd_gemv(trans, m, n, 1.5, a, m, x, beta, y);
        cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, 1.5, a, m, x, 1, beta,
                    yr, 1);
        for (int i = 0; i < (trans ? n : m); i++) {
          MBD_ASSERT_NEAR(y[i], yr[i], 1e-14 * 20);
        }
      }
    }
    for (int ta = 0; ta < 2; ta++) {
      for (int tb = 0; tb < 2; tb++) {
        double A[400], B[400], C[400], Cr[400];
        fill(A, m * l);
        fill(B, l * n);
        fill(C, m * n);
        memcpy(Cr, C, sizeof C);
        int lda = ta ? l : m, ldb = tb ? n : l;
        mbd_gemm(ta, tb, m, n, l, 0.7, A, lda, B, ldb, 0.25, C, m);
        cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    m, n, l, 0.7, A, lda, B, ldb, 0.25, Cr, m);
        for (int i = 0; i < m * n; i++) {
          MBD_ASSERT_NEAR(C[i], Cr[i], 1e-14 * 20);
        }
      }
    }
  }
}

/* the thin SVD: singular values as LAPACK's dgesvd (decreasing), U and V with orthonormal
 * columns, U Σ Vᵀ = A; for tall, wide and square matrices on both sides of the small bound, of
 * full rank and with a repeated row (a redundant constraint: a zero singular value, whose U
 * column must still complete an orthonormal set).  O(1) entries, at most 40 of them summed:
 * tolerance 1e-13 on O(1) quantities. */
static void check_svd(int m, int n, int redundant) {
  mbd_lsq_ws ws;
  mbd_error err;
  int big = m > n ? m : n, mn = m < n ? m : n;
  assert_int_equal(mbd_lsq_alloc(&ws, big, big, &err), MBD_OK);
  double a[1600], c[1600], s[40], ur[1600], vr[1600], q = 0;
  fill(a, m * n);
  if (redundant && m > 1) {
    for (int j = 0; j < n; j++) {
      MBD_AT(a, m, m - 1, j) = 2 * MBD_AT(a, m, 0, j);  // the last row twice the first
    }
  }
  const double *u = NULL, *vt = NULL;
  assert_int_equal(mbd_svd(&ws, m, n, a, m, &u, &vt), MBD_OK);
  memcpy(c, a, sizeof(double) * m * n);
  LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, c, m, s, ur, m, vr, mn, &q, -1);
  double *work = malloc(sizeof(double) * ((size_t)q + 8));
  assert_int_equal(LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, c, m, s, ur, m, vr, mn,
                                       work, (int)q + 8),
                   0);
  free(work);
  for (int k = 0; k < mn; k++) {
    MBD_ASSERT_NEAR(ws.s[k], s[k], 1e-13 * s[0]);
    if (k > 0) {
      assert_true(ws.s[k] <= ws.s[k - 1]);
    }
  }
  // orthonormal columns of U (m×mn) and rows of Vᵀ (mn×n)
  for (int i = 0; i < mn; i++) {
    for (int j = 0; j < mn; j++) {
      double uu = 0, vv = 0;
      for (int k = 0; k < m; k++) {
        uu += MBD_AT(u, m, k, i) * MBD_AT(u, m, k, j);
      }
      for (int k = 0; k < n; k++) {
        vv += MBD_AT(vt, mn, i, k) * MBD_AT(vt, mn, j, k);
      }
      MBD_ASSERT_NEAR(uu, i == j, 1e-13);
      MBD_ASSERT_NEAR(vv, i == j, 1e-13);
    }
  }
  // U Σ Vᵀ = A
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      double r = 0;
      for (int k = 0; k < mn; k++) {
        r += MBD_AT(u, m, i, k) * ws.s[k] * MBD_AT(vt, mn, k, j);
      }
      MBD_ASSERT_NEAR(r, MBD_AT(a, m, i, j), 1e-13);
    }
  }
  // the Moore–Penrose inverse (LAPACK's SVD at every size), against one from LAPACK's factors
  double x[1600];
  int rank = 0;
  assert_int_equal(mbd_pinv(&ws, m, n, a, m, x, n, 1e-10, &rank), MBD_OK);
  assert_int_equal(rank, redundant && m > 1 && m <= n ? mn - 1 : mn);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      double r = 0;
      for (int k = 0; k < rank; k++) {
        r += MBD_AT(vr, mn, k, i) / s[k] * MBD_AT(ur, m, j, k);
      }
      MBD_ASSERT_NEAR(MBD_AT(x, n, i, j), r, 1e-11 * (1 + fabs(r)));
    }
  }
  mbd_lsq_free(&ws);
}

static void test_svd_against_lapack(void **state) {
  (void)state;
  int sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {4, 6}, {6, 4}, {8, 9}, {12, 12}, {12, 30},
                    {30, 12}, {13, 14}, {20, 21}};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    for (int redundant = 0; redundant < 2; redundant++) {
      check_svd(sizes[k][0], sizes[k][1], redundant);
    }
  }
}

/* a zero matrix: singular values 0, U and V still orthonormal */
static void test_svd_zero(void **state) {
  (void)state;
  mbd_lsq_ws ws;
  mbd_error err;
  assert_int_equal(mbd_lsq_alloc(&ws, 6, 6, &err), MBD_OK);
  double a[24] = {0};
  const double *u = NULL, *vt = NULL;
  assert_int_equal(mbd_svd(&ws, 4, 6, a, 4, &u, &vt), MBD_OK);
  for (int i = 0; i < 4; i++) {
    MBD_ASSERT_NEAR(ws.s[i], 0, 0);
    for (int j = 0; j < 4; j++) {
      double uu = 0, vv = 0;
      for (int k = 0; k < 4; k++) {
        uu += MBD_AT(u, 4, k, i) * MBD_AT(u, 4, k, j);
      }
      for (int k = 0; k < 6; k++) {
        vv += MBD_AT(vt, 4, i, k) * MBD_AT(vt, 4, j, k);
      }
      MBD_ASSERT_NEAR(uu, i == j, 1e-15);
      MBD_ASSERT_NEAR(vv, i == j, 1e-15);
    }
  }
  mbd_lsq_free(&ws);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lu_against_lapack),
      cmocka_unit_test(test_lu_singular),
      cmocka_unit_test(test_products_against_cblas),
      cmocka_unit_test(test_svd_against_lapack),
      cmocka_unit_test(test_svd_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
