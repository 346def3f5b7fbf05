/* sparse LU through SuiteSparse's KLU: the symbolic analysis once per pattern, refactorization
 * with the kept pivot order per evaluation, full factorization when those pivots decay */
#include "mbd/sparse.h"

#include <klu.h>
#include <math.h>
#include <umfpack.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_msg.h"

/* a refactorization whose pivot ratio fell below this fraction of the last full factorization's
 * pivots anew: the kept order was chosen for other values (a pivot passing near zero as the
 * mechanism moves) and a fresh one may be far better conditioned */
#define SPLU_DECAY 0.1

/* KLU's partial-pivoting threshold: a diagonal entry is kept as pivot when at least this
 * fraction of the largest in its column.  1: the largest, as LAPACK's dgetrf, and no row scaling
 * (below): the pivot ratio is then the quantity the dense watch of singular configurations was
 * calibrated on (augmented_solve.c).  KLU's defaults (0.001, rows scaled by their largest entry)
 * gave a leading matrix of a parallelogram chain a pivot ratio of 4e-3 at the start (LAPACK: 0.14),
 * and its fall at the flat configuration stayed above the stop; with these the two stop within
 * 3e-4 s of each other.  It costs no time on chains (strict pivoting finds the same fill there). */
#define SPLU_TOL 1.0

struct mbd_splu {
  int n;
  const int *Ap, *Ai;      /* the pattern (the caller's: refactorization reads it again) */
  klu_common common;
  klu_symbolic *sym;       /* ordering of the pattern, NULL before the first analysis */
  klu_numeric *num;        /* the factors, NULL before the first full factorization */
  double ratio_full;       /* pivot ratio of the last full factorization */
  long nfull, nrefactor;   /* counters */
};

mbd_splu *mbd_splu_new(void) {
  mbd_splu *f = calloc(1, sizeof *f);
  if (f) {
    klu_defaults(&f->common);
    f->common.tol = SPLU_TOL;
    f->common.halt_if_singular = 0;  // a zero pivot is reported and the caller decides
    f->common.scale = -1;            // pivots of the matrix as it is, as LAPACK's dgetrf sees them
                                     // (-1: nor the checks of a pattern made here, 6% of a run)
  }
  return f;
}

int mbd_splu_analyze(mbd_splu *f, int n, const int *Ap, const int *Ai, int natural,
                     mbd_error *err) {
  if (f->num) {
    klu_free_numeric(&f->num, &f->common);
  }
  if (f->sym) {
    klu_free_symbolic(&f->sym, &f->common);
  }
  f->n = n;
  f->Ap = Ap;
  f->Ai = Ai;
  if (natural) {
    // the matrix's own order, no block triangular form: with strict partial pivoting the LU of
    // LAPACK's dgetrf (up to ties and rounding)
    f->common.btf = 0;
    f->sym = klu_analyze_given(n, (int *)Ap, (int *)Ai, NULL, NULL, &f->common);
    f->common.btf = 1;
  } else {
    f->sym = klu_analyze(n, (int *)Ap, (int *)Ai, &f->common);
  }
  if (!f->sym) {
    f->n = 0;
    return f->common.status == KLU_OUT_OF_MEMORY
               ? MBD_FAIL(err, MBD_E_NOMEM, MSG_LINALG_NOMEM, n, n)
               : MBD_FAIL(err, MBD_E_LAPACK, MSG_LINALG_KLU, n, n, f->common.status);
  }
  return MBD_OK;
}

/* the pivot ratio of the factors and where the smallest pivot sits (original column) */
static double pivots(const mbd_splu *f, int *kmin) {
  const double *u = f->num->Udiag;
  double lo = INFINITY, hi = 0;
  int k0 = 0;
  for (int k = 0; k < f->n; k++) {
    double a = fabs(u[k]);
    if (a < lo) {
      lo = a;
      k0 = k;
    }
    hi = a > hi ? a : hi;
  }
  if (kmin) {
    *kmin = f->n ? f->sym->Q[k0] : 0;
  }
  return f->n == 0 ? 1 : (hi > 0 ? lo / hi : 0);
}

/* a fresh factorization with partial pivoting */
static int full(mbd_splu *f, const double *Ax) {
  if (f->num) {
    klu_free_numeric(&f->num, &f->common);
  }
  f->num = klu_factor((int *)f->Ap, (int *)f->Ai, (double *)Ax, f->sym, &f->common);
  f->nfull++;
  if (!f->num) {
    return f->common.status == KLU_OUT_OF_MEMORY ? MBD_E_NOMEM : MBD_E_LAPACK;
  }
  f->ratio_full = pivots(f, NULL);
  return MBD_OK;
}

int mbd_splu_factor(mbd_splu *f, const double *Ax, int refactor, double *ratio, int *kmin) {
  int rc = MBD_OK;
  if (!refactor || !f->num) {
    rc = full(f, Ax);
  } else {
    f->nrefactor++;
    int ok = klu_refactor((int *)f->Ap, (int *)f->Ai, (double *)Ax, f->sym, f->num, &f->common);
    // a pivot became zero, or the kept order has decayed: pivot anew
    if (!ok || f->common.status != KLU_OK || pivots(f, NULL) < SPLU_DECAY * f->ratio_full) {
      rc = full(f, Ax);
    }
  }
  if (rc < 0) {
    return rc;
  }
  double r = pivots(f, kmin);
  if (ratio) {
    *ratio = r;
  }
  if (f->common.status == KLU_SINGULAR || r == 0) {
    int c = f->common.singular_col;
    return (c >= 0 && c < f->n ? c : (kmin ? *kmin : 0)) + 1;
  }
  return 0;
}

void mbd_splu_solve(mbd_splu *f, int trans, double *b, int nrhs) {
  if (f->n == 0 || nrhs == 0) {
    return;
  }
  if (trans) {
    klu_tsolve(f->sym, f->num, f->n, nrhs, b, &f->common);
  } else {
    klu_solve(f->sym, f->num, f->n, nrhs, b, &f->common);
  }
}


long mbd_splu_full_count(const mbd_splu *f) { return f ? f->nfull : 0; }

long mbd_splu_refactor_count(const mbd_splu *f) { return f ? f->nrefactor : 0; }

void mbd_splu_free(mbd_splu *f) {
  if (!f) {
    return;
  }
  if (f->num) {
    klu_free_numeric(&f->num, &f->common);
  }
  if (f->sym) {
    klu_free_symbolic(&f->sym, &f->common);
  }
  free(f);
}

/* ------------------------------------------------------------------------------------------ */
/* pivot rows of a rectangular matrix (UMFPACK)                                                */

int mbd_sparse_pivot_rows(int m, int k, const int *Ap, const int *Ai, const double *Ax, int *rows,
                          double *ratio, mbd_error *err) {
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  umfpack_di_defaults(control);
  control[UMFPACK_PIVOT_TOLERANCE] = 1.0;  // the largest entry of the column: partial pivoting
  control[UMFPACK_SCALE] = UMFPACK_SCALE_NONE;
  control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_UNSYMMETRIC;
  void *sym = NULL, *num = NULL;
  int st = umfpack_di_symbolic(m, k, Ap, Ai, Ax, &sym, control, info);
  if (st == UMFPACK_OK) {
    st = umfpack_di_numeric(Ap, Ai, Ax, sym, &num, control, info);
  }
  // a singular matrix is a result here (its pivot ratio 0), not a failure
  double *dx = NULL;
  int *q = NULL, rc = MBD_OK;
  if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix) {
    rc = st == UMFPACK_ERROR_out_of_memory
             ? MBD_FAIL(err, MBD_E_NOMEM, MSG_LINALG_NOMEM, m, k)
             : MBD_FAIL(err, MBD_E_LAPACK, MSG_LINALG_UMFPACK, m, k, st);
  } else {
    dx = malloc((size_t)(k ? k : 1) * sizeof(double));
    q = malloc((size_t)(k ? k : 1) * sizeof(int));
    if (!dx || !q) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_LINALG_NOMEM, m, k);
    } else {
      int recip = 0;
      umfpack_di_get_numeric(NULL, NULL, NULL, NULL, NULL, NULL, rows, q, dx, &recip, NULL, num);
      double lo = INFINITY, hi = 0;
      for (int i = 0; i < k; i++) {
        double a = fabs(dx[i]);
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
      }
      *ratio = k == 0 ? 1 : (hi > 0 ? lo / hi : 0);
    }
  }
  free(dx);
  free(q);
  umfpack_di_free_numeric(&num);
  umfpack_di_free_symbolic(&sym);
  return rc;
}
