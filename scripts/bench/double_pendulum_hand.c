/* The hand-written reference of the double-pendulum benchmark (paper 000, example 1; issue 9's
 * speed target): the two absolute link angles θ1, θ2 of Lagrange's equations written out by hand,
 * integrated by CVODE Adams with fixed-point iteration — mbd's integrator "adams" and its
 * settings, the fused vector operations on as in mbd — over 10 s.
 *
 *   bench_double_pendulum [RTOL [REPEATS [NSAMPLES]]]      (default 1e-7, 2000)
 *
 * Links 2 m long, CM in the middle; m1 = 5, m2 = 7 kg; J1 = 10, J2 = 20 kg·m²; a torque of 10 N·m
 * on link 1; the force (8, 7) N at link 2's free end; no gravity; θ1 = 0.5236, θ2 = 0.7854 rad at
 * rest.  With c = m2 · 2 · 1 = 14 (link 1's length times link 2's CM distance):
 *   [43  c cos Δ] [θ̈1]   [10 + 2(−sin θ1 Fx + cos θ1 Fy) − c sin Δ θ̇2²]
 *   [c cos Δ  27] [θ̈2] = [     2(−sin θ2 Fx + cos θ2 Fy) + c sin Δ θ̇1²],   Δ = θ1 − θ2
 * (43 = m1·1² + J1 + m2·2², 27 = m2·1² + J2).  Prints θ1(10), θ2(10), the counts, and the CPU time
 * of one integration (set-up, steps, tear-down: what mbd's run.stats.cpu_time covers), least of
 * REPEATS, and per right-hand side.  With NSAMPLES, it prints instead the protocol of the peers'
 * drivers (scripts/bench/peers/mujoco_bench.c): θ1 and θ2 at NSAMPLES equally spaced times (CVODE's
 * interpolation, as mbd's samples) and the CPU time of every repeat.
 * Built twice: bench_double_pendulum with the serial library's vector operations, and
 * bench_double_pendulum_lean (MBD_HAND_LEAN) with the ones mbd installs
 * (engine/integrators/lean_vectors.c), so that CVODE's own work per step is the same as mbd's. */
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <time.h>
#ifdef MBD_HAND_LEAN
#include "integrators_impl.h"
#endif

static long nrhs = 0;

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *ud) {
  (void)t;
  (void)ud;
  const double *y = N_VGetArrayPointer(yv);
  double *yd = N_VGetArrayPointer(ydv);
  const double c = 14, Fx = 8, Fy = 7;
  double d = y[0] - y[1], cd = cos(d), sd = sin(d);
  double a11 = 43, a12 = c * cd, a22 = 27;
  double b1 = 10 + 2 * (-sin(y[0]) * Fx + cos(y[0]) * Fy) - c * sd * y[3] * y[3];
  double b2 = 2 * (-sin(y[1]) * Fx + cos(y[1]) * Fy) + c * sd * y[2] * y[2];
  double det = a11 * a22 - a12 * a12;
  yd[0] = y[2];
  yd[1] = y[3];
  yd[2] = (a22 * b1 - a12 * b2) / det;
  yd[3] = (a11 * b2 - a12 * b1) / det;
  nrhs++;
  return 0;
}

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* one integration over 10 s; θ1, θ2 at the nsamples sample times (2 × nsamples values) and the
 * steps into the outputs */
static int integrate(SUNContext ctx, double tol, int nsamples, double *theta, long *steps) {
  N_Vector y = N_VNew_Serial(4, ctx);
  N_VEnableFusedOps_Serial(y, SUNTRUE);  // (as mbd's: one call per linear combination)
#ifdef MBD_HAND_LEAN
  mbd_ode_lean_ops(y);  // (bench_double_pendulum_lean: mbd's vector operations)
#endif
  double *yv = N_VGetArrayPointer(y);
  yv[0] = 0.5236;
  yv[1] = 0.7854;
  yv[2] = yv[3] = 0;
  void *mem = CVodeCreate(CV_ADAMS, ctx);
  SUNNonlinearSolver nls = SUNNonlinSol_FixedPoint(y, 0, ctx);
  int ok = mem && nls && CVodeInit(mem, rhs, 0.0, y) >= 0 &&
           CVodeSStolerances(mem, tol, tol) >= 0 && CVodeSetNonlinearSolver(mem, nls) >= 0 &&
           CVodeSetStopTime(mem, 10.0) >= 0 && CVodeSetMaxNumSteps(mem, 1000000L) >= 0;
  double t = 0;
  for (int k = 0; k < nsamples && ok; k++) {
    ok = CVode(mem, 10.0 * (k + 1) / nsamples, y, &t, CV_NORMAL) >= 0;
    theta[2 * k] = yv[0];
    theta[2 * k + 1] = yv[1];
  }
  CVodeGetNumSteps(mem, steps);
  SUNNonlinSolFree(nls);
  CVodeFree(&mem);
  N_VDestroy(y);
  return ok ? 0 : -1;
}

int main(int argc, char **argv) {
  double tol = argc > 1 ? atof(argv[1]) : 1e-7;
  int repeats = argc > 2 ? atoi(argv[2]) : 2000;
  int nsamples = argc > 3 ? atoi(argv[3]) : 1;
  if (repeats < 1 || nsamples < 1) {
    fprintf(stderr, "REPEATS and NSAMPLES must be positive\n");
    return 1;
  }
  SUNContext ctx;
  if (SUNContext_Create(NULL, &ctx) != 0) {
    return 1;
  }
  double best = INFINITY;
  double *theta = malloc(sizeof(double) * 2 * (size_t)nsamples);
  double *each = malloc(sizeof(double) * (size_t)repeats);
  long steps = 0, per = 0;
  for (int k = 0; k < repeats; k++) {
    nrhs = 0;
    double c0 = cpu();
    if (integrate(ctx, tol, nsamples, theta, &steps) != 0) {
      printf("error CVODE failed\n");
      return 1;
    }
    double c = cpu() - c0;
    each[k] = c;
    best = c < best ? c : best;
    per = nrhs;
  }
  if (argc > 3) {
    // the protocol of the peers' drivers
    printf("engine hand-written C, CVODE Adams\nevals %ld\nsteps %ld\ncpu", per, steps);
    for (int k = 0; k < repeats; k++) {
      printf(" %.9f", each[k]);
    }
    printf("\n");
    for (int k = 0; k < nsamples; k++) {
      printf("sample %.17g %.17g %.17g\n", 10.0 * (k + 1) / nsamples, theta[2 * k],
             theta[2 * k + 1]);
    }
  } else {
    printf("theta1(10) %.12f\ntheta2(10) %.12f\nsteps %ld\nrhs %ld\ncpu_ms %.6f\nrhs_us %.4f\n",
           theta[0], theta[1], steps, per, best * 1e3, best / (double)per * 1e6);
  }
  free(theta);
  free(each);
  SUNContext_Free(&ctx);
  return 0;
}
