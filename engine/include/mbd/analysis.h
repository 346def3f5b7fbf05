/* mbd — analyses of the equations, independent of any model: the stability of stabilized
 * constraint equations (paper 004 eq 28, 37). */
#ifndef MBD_ANALYSIS_H
#define MBD_ANALYSIS_H

#include "mbd/status.h"

/* eigenvalues λ of det(λ²I + λS + T) = 0 (2h of them: the companion matrix [0 I; −T −S]) or, with
 * S == NULL and T == NULL, of det(λI + L) = 0 (h of them).  Matrices column-major h×h; re, im get
 * the eigenvalues; *max_re the largest real part.  Stable iff max_re < 0.  Returns MBD_OK or a
 * LAPACK status with err filled. */
int mbd_stability(int h, const double *S, const double *T, const double *L, double *re, double *im,
                  double *max_re, mbd_error *err);

#endif
