/* stability of the stabilized constraint equations (paper 004 eq 28, 37): the eigenvalues of
 * λ²I + λS + T = 0 (holonomic) or λI + L = 0 (nonholonomic) */
#include <math.h>
#include <stdlib.h>

#include "stability_msg.h"
#include "mbd/analysis.h"
#include "mbd/linalg.h"

int mbd_stability(int h, const double *S, const double *T, const double *L, double *re, double *im,
                  double *max_re, mbd_error *err) {
  *max_re = -INFINITY;
  if (h <= 0) {
    return MBD_OK;
  }
  // a NaN or an infinity would reach LAPACK's balancing, which reports it on standard output
  const double *mats[3] = {S, T, L};
  const char *names[3] = {"S", "T", "L"};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; mats[k] && i < h * h; i++) {
      if (!isfinite(mats[k][i])) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_ANALYSIS_FINITE, names[k], i % h + 1, i / h + 1);
      }
    }
  }
  int N = L ? h : 2 * h;
  double *C = calloc((size_t)N * (size_t)N, sizeof(double));
  if (!C) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ANALYSIS_NOMEM);
  }
  if (L) {
    // λI + L = 0: eigenvalues of −L
    for (int j = 0; j < h; j++) {
      for (int i = 0; i < h; i++) {
        MBD_AT(C, N, i, j) = -MBD_AT(L, h, i, j);
      }
    }
  } else {
    // λ²I + λS + T = 0: the companion matrix [0 I; −T −S] acting on (U, λU)
    for (int i = 0; i < h; i++) {
      MBD_AT(C, N, i, h + i) = 1;
      for (int j = 0; j < h; j++) {
        MBD_AT(C, N, h + i, j) = T ? -MBD_AT(T, h, i, j) : 0;
        MBD_AT(C, N, h + i, h + j) = S ? -MBD_AT(S, h, i, j) : 0;
      }
    }
  }
  int rc = mbd_eig_general(N, C, N, re, im);
  free(C);
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc, MSG_ANALYSIS_EIG, mbd_status_text(rc));
  }
  for (int i = 0; i < N; i++) {
    *max_re = fmax(*max_re, re[i]);
  }
  return MBD_OK;
}
