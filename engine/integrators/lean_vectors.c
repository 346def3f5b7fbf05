/* The state vectors' operations that CVODE and ARKODE call most, written out plainly.
 *
 * On a state of a few components CVODE's own work per step is mostly calls of vector operations:
 * the Adams predictor alone adds the Nordsieck history arrays pairwise, q(q+1)/2 linear sums per
 * step (78 at order 12).  The serial library's operations pass through a second layer that picks a
 * special case per call before a loop of two elements; these go straight to the loop.  On long
 * states the library's loops themselves cost more than these (a planar chain of 512 links under
 * Adams: 630 M instructions with the library's, 354 M with these, the same values).  They are
 * installed in the vector's operations table (mbd_ode_lean_ops), so every vector CVODE or ARKODE
 * clones from it has them too.
 *
 * Each gives the library's rounding, value for value: a linear sum a x + b y is written as the
 * library writes it, a (x + y) when a = b and a (x − y) when a = −b (for a ≠ ±1), otherwise as
 * a x + b y (the library's other special cases, x + y, x − y, y + a x, are that expression with
 * a multiplication by ±1, which is exact).  The weighted norms sum (x_i w_i)² in index order,
 * and a linear combination adds its terms in order, writing z as it goes.  The project builds
 * without -march, so on x86-64 the compiler fuses no multiply and add, here or in the library;
 * tests/engine/test_integrators.c compares every case with the library's bit for bit.
 */
#include <math.h>
#include <nvector/nvector_serial.h>

#include "integrators_impl.h"

static void lean_linearsum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  sunrealtype *zd = NV_DATA_S(z);
  int unit = a == 1.0 || a == -1.0 || b == 1.0 || b == -1.0;
  if (!unit && a == b) {
    for (sunindextype i = 0; i < n; i++) zd[i] = a * (xd[i] + yd[i]);
  } else if (!unit && a == -b) {
    for (sunindextype i = 0; i < n; i++) zd[i] = a * (xd[i] - yd[i]);
  } else {
    for (sunindextype i = 0; i < n; i++) zd[i] = a * xd[i] + b * yd[i];
  }
}

static void lean_scale(sunrealtype c, N_Vector x, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < n; i++) zd[i] = c * xd[i];
}

static void lean_const(sunrealtype c, N_Vector z) {
  sunindextype n = NV_LENGTH_S(z);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < n; i++) zd[i] = c;
}

static void lean_abs(N_Vector x, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < n; i++) zd[i] = fabs(xd[i]);
}

static void lean_inv(N_Vector x, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < n; i++) zd[i] = 1.0 / xd[i];
}

static void lean_addconst(N_Vector x, sunrealtype b, N_Vector z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x);
  sunrealtype *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < n; i++) zd[i] = xd[i] + b;
}

static sunrealtype lean_wsqrsum(N_Vector x, N_Vector w) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
  sunrealtype sum = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    sunrealtype p = xd[i] * wd[i];
    sum += p * p;
  }
  return sum;
}

static sunrealtype lean_wrmsnorm(N_Vector x, N_Vector w) {
  return sqrt(lean_wsqrsum(x, w) / (sunrealtype)NV_LENGTH_S(x));
}

// Z_j = a_j x + Y_j, j < nvec (Z_j may be Y_j)
static int lean_scaleaddmulti(int nvec, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z) {
  sunindextype n = NV_LENGTH_S(x);
  const sunrealtype *xd = NV_DATA_S(x);
  for (int j = 0; j < nvec; j++) {
    const sunrealtype *yd = NV_DATA_S(Y[j]);
    sunrealtype *zd = NV_DATA_S(Z[j]);
    for (sunindextype i = 0; i < n; i++) zd[i] = a[j] * xd[i] + yd[i];
  }
  return 0;
}

// z = Σ c_i X_i, i < nvec, summed in index order element by element and written as it goes (as
// the library: z may be one of the X_i, and then later terms read the partial sum)
static int lean_linearcombination(int nvec, sunrealtype *c, N_Vector *X, N_Vector z) {
  if (nvec == 1) {
    lean_scale(c[0], X[0], z);
    return 0;
  }
  if (nvec == 2) {
    lean_linearsum(c[0], X[0], c[1], X[1], z);
    return 0;
  }
  sunindextype n = NV_LENGTH_S(z);
  sunrealtype *zd = NV_DATA_S(z);
  const sunrealtype *x0 = NV_DATA_S(X[0]);
  for (sunindextype j = 0; j < n; j++) zd[j] = c[0] * x0[j];
  for (int i = 1; i < nvec; i++) {
    const sunrealtype *xd = NV_DATA_S(X[i]);
    for (sunindextype j = 0; j < n; j++) zd[j] += c[i] * xd[j];
  }
  return 0;
}

void mbd_ode_lean_ops(N_Vector v) {
  v->ops->nvlinearsum = lean_linearsum;
  v->ops->nvscale = lean_scale;
  v->ops->nvconst = lean_const;
  v->ops->nvabs = lean_abs;
  v->ops->nvinv = lean_inv;
  v->ops->nvaddconst = lean_addconst;
  v->ops->nvwrmsnorm = lean_wrmsnorm;
  v->ops->nvwsqrsumlocal = lean_wsqrsum;
  v->ops->nvscaleaddmulti = lean_scaleaddmulti;
  v->ops->nvlinearcombination = lean_linearcombination;
}
