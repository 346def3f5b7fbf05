/* micro-benchmark: the symbolic tape against a hand-written C function for the same equations
 * (a double pendulum's right-hand side, the shape of work the tape does inside an ODE solver),
 * and against the same expressions compiled as generated C when a compiler is available.
 * Usage: bench_sym_tape [evaluations]   (build in Release for meaningful numbers) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mbd/sym.h"

#define G 9.81

/* the reference: double pendulum (unit masses and lengths), v = {th1, th2, w1, w2} */
static void hand(const double *v, double *out) {
  double d = v[0] - v[1], s = sin(d), c = cos(d);
  double den = 2 - c * c;
  out[0] = v[2];
  out[1] = v[3];
  out[2] = (-s * (v[2] * v[2] * c + v[3] * v[3]) - 2 * G * sin(v[0]) + G * sin(v[1]) * c) / den;
  out[3] = (2 * s * (v[2] * v[2] + G * cos(v[0])) + s * c * v[3] * v[3]) / den;
}

/* the same equations built symbolically */
static int build(mbd_sym_ctx *c, mbd_sym_id *out, mbd_sym_id *vars) {
  mbd_sym_id th1 = mbd_sym_var(c, "th1", 0), th2 = mbd_sym_var(c, "th2", 1);
  mbd_sym_id w1 = mbd_sym_var(c, "w1", 2), w2 = mbd_sym_var(c, "w2", 3);
  mbd_sym_id g = mbd_sym_const(c, G);
  mbd_sym_id d = mbd_sym_sub(c, th1, th2), s = mbd_sym_sin(c, d), co = mbd_sym_cos(c, d);
  mbd_sym_id den = mbd_sym_sub(c, mbd_sym_const(c, 2), mbd_sym_powc(c, co, 2));
  mbd_sym_id w1s = mbd_sym_powc(c, w1, 2), w2s = mbd_sym_powc(c, w2, 2);
  mbd_sym_id n1 = mbd_sym_add_n(
      c, 3,
      (mbd_sym_id[]){
          mbd_sym_neg(c, mbd_sym_mul(c, s, mbd_sym_add(c, mbd_sym_mul(c, w1s, co), w2s))),
          mbd_sym_mul(c, mbd_sym_const(c, -2 * G), mbd_sym_sin(c, th1)),
          mbd_sym_mul_n(c, 3, (mbd_sym_id[]){g, mbd_sym_sin(c, th2), co})});
  mbd_sym_id n2 = mbd_sym_add(
      c,
      mbd_sym_mul_n(c, 3,
                    (mbd_sym_id[]){mbd_sym_const(c, 2), s,
                                   mbd_sym_add(c, w1s, mbd_sym_mul(c, g, mbd_sym_cos(c, th1)))}),
      mbd_sym_mul_n(c, 3, (mbd_sym_id[]){s, co, w2s}));
  out[0] = w1;
  out[1] = w2;
  out[2] = mbd_sym_div(c, n1, den);
  out[3] = mbd_sym_div(c, n2, den);
  vars[0] = th1, vars[1] = th2, vars[2] = w1, vars[3] = w2;
  return out[2] >= 0 && out[3] >= 0 ? 0 : -1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef void (*rhs_fn)(void *ctx, const double *v, double *out);
static void run_hand(void *ctx, const double *v, double *out) {
  (void)ctx;
  hand(v, out);
}
static void run_tape(void *ctx, const double *v, double *out) { mbd_sym_tape_eval(ctx, v, out); }
static void run_cfn(void *ctx, const double *v, double *out) {
  mbd_sym_cfn fn = ((mbd_sym_cfn *)ctx)[0];
  fn(v, out);
}

/* seconds for n evaluations at drifting points; *sum guards against dead-code removal */
static double timeit(rhs_fn f, void *ctx, long n, double *sum) {
  double v[4] = {0.3, -0.2, 0.1, 0.05}, out[4];
  double t0 = now();
  for (long i = 0; i < n; i++) {
    f(ctx, v, out);
    *sum += out[2] + out[3];
    v[0] += 1e-7;
    v[3] -= 1e-7;
  }
  return now() - t0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  mbd_sym_ctx *c = mbd_sym_ctx_new();
  mbd_sym_id out[4], vars[4];
  mbd_sym_tape *tape;
  if (!c || build(c, out, vars) || mbd_sym_tape_new(c, 4, out, 4, vars, &tape, NULL)) {
    fprintf(stderr, "bench_sym_tape: cannot build the expressions\n");
    return 1;
  }
  /* check agreement once */
  double v[4] = {0.7, -0.4, 1.1, -0.6}, a[4], b[4];
  hand(v, a);
  mbd_sym_tape_eval(tape, v, b);
  double err = 0;
  for (int i = 0; i < 4; i++) {
    err = fmax(err, fabs(a[i] - b[i]) / (1 + fabs(a[i])));
  }
  double sum = 0;
  timeit(run_hand, NULL, n / 10, &sum); /* warm-up */
  double th = timeit(run_hand, NULL, n, &sum);
  double tt = timeit(run_tape, tape, n, &sum);
  printf("expressions: 4 outputs, %d tape instructions, %d registers; max rel. difference %.2g\n",
         mbd_sym_tape_ninstr(tape), mbd_sym_tape_nregs(tape), err);
  printf("hand-written C: %8.1f ns/eval\n", 1e9 * th / (double)n);
  printf("tape          : %8.1f ns/eval   ratio tape/hand = %.2f\n", 1e9 * tt / (double)n, tt / th);
  mbd_sym_cfn fn;
  mbd_sym_lib *lib;
  mbd_error e;
  if (mbd_sym_compile(c, "bench_rhs", 4, out, 4, vars, &fn, &lib, NULL, &e) == MBD_OK) {
    double tc = timeit(run_cfn, &fn, n, &sum);
    printf("generated C   : %8.1f ns/eval   ratio generated/hand = %.2f\n", 1e9 * tc / (double)n,
           tc / th);
    mbd_sym_lib_close(lib);
  } else {
    printf("generated C   : not available (%s)\n", e.msg);
  }
  printf("(checksum %g)\n", sum);
  mbd_sym_tape_free(tape);
  mbd_sym_ctx_free(c);
  return 0;
}
