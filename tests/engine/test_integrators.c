/* tests of engine/integrators: the five kinds on problems with known solutions, dense output,
 * callbacks and their codes, restarts, option checks, stiffness (BDF against Adams), and the
 * lifecycle: segments, root functions, reinit with the same or another size, no allocation. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>
#include <nvector/nvector_serial.h>

#include "mbd/integrators.h"
#include "mbd_test.h"

/* the message templates, so expected errors are matched against the template, not a copy */
#include "../../engine/integrators/integrators_impl.h"

#define PI 3.14159265358979323846
#define MAXOUT 1001

/* allocation counting (the lifecycle's no-allocation test) */
#include "alloc_count.h"

/* ------------------------------------------------------------------------------------------------
 * problems and recorders
 * ---------------------------------------------------------------------------------------------- */

// what the callbacks see: problem parameters, injected faults, and the recorded outputs
typedef struct prob {
  double omega;      /* oscillator angular frequency (rad/s) */
  double lambda;     /* decay rate (1/s) */
  double stop_at;    /* rhs returns stop_code for t > stop_at (inf: never) */
  int stop_code;     /* negative code to return */
  double retry_at;   /* rhs returns retry_code for t > retry_at, retry_left times */
  int retry_left;    /* how many more retries to request */
  int retry_code;    /* positive code to return */
  int retries_given; /* how many were requested */
  double restart_at; /* step callback: first step with t >= restart_at restarts (inf: never) */
  int restart_set;   /* step callback sets y[0] = 0 at the restart */
  double t_restart;  /* t of the restart */
  int nrestart_cb;   /* restarts requested */
  long nstep_cb;     /* step callback calls */
  int nout;          /* outputs recorded */
  double *tout;      /* recorded output times (MAXOUT) */
  double *yout;      /* recorded outputs (MAXOUT x 2) */
} prob;

static prob *prob_new(void) {
  prob *p = calloc(1, sizeof *p);
  assert_non_null(p);
  p->omega = 2.0 * PI;
  p->lambda = 2.0;
  p->stop_at = INFINITY;
  p->restart_at = INFINITY;
  p->tout = calloc(MAXOUT, sizeof *p->tout);
  p->yout = calloc(2 * MAXOUT, sizeof *p->yout);
  assert_non_null(p->tout);
  assert_non_null(p->yout);
  return p;
}

static void prob_free(prob *p) {
  free(p->tout);
  free(p->yout);
  free(p);
}

// injected faults shared by every rhs: a stop (< 0) or a one-time retry request (> 0)
static int faults(prob *p, double t) {
  if (t > p->stop_at) {
    return p->stop_code;
  }
  if (t > p->retry_at && p->retry_left > 0) {
    p->retry_left--;
    p->retries_given++;
    return p->retry_code;
  }
  return 0;
}

// harmonic oscillator x'' = -w^2 x as y = (x, v): x = cos(wt), v = -w sin(wt) from (1, 0)
static int osc_rhs(double t, const double *y, double *ydot, void *ud) {
  prob *p = ud;
  int rc = faults(p, t);
  if (rc != 0) {
    return rc;
  }
  ydot[0] = y[1];
  ydot[1] = -p->omega * p->omega * y[0];
  return 0;
}

// exponential decay y' = -lambda y: y = exp(-lambda t) from 1
static int decay_rhs(double t, const double *y, double *ydot, void *ud) {
  prob *p = ud;
  int rc = faults(p, t);
  if (rc != 0) {
    return rc;
  }
  ydot[0] = -p->lambda * y[0];
  return 0;
}

// y' = 1: every method is exact, so a restart that changes y is seen exactly
static int ramp_rhs(double t, const double *y, double *ydot, void *ud) {
  (void)t;
  (void)y;
  (void)ud;
  ydot[0] = 1.0;
  return 0;
}

// stiff: y' = -1000 (y - cos t), a fast transient onto the slow solution ~ cos t
static int stiff_rhs(double t, const double *y, double *ydot, void *ud) {
  (void)ud;
  ydot[0] = -1000.0 * (y[0] - cos(t));
  return 0;
}

// exact solution of the stiff problem from y(0) = 0
static double stiff_exact(double t) {
  double a = 1000.0, d = 1.0 + a * a;
  return (a * a * cos(t) + a * sin(t)) / d - (a * a / d) * exp(-a * t);
}

// record every output (up to two components)
static int record(double t, const double *y, void *ud) {
  prob *p = ud;
  assert_true(p->nout < MAXOUT);
  p->tout[p->nout] = t;
  p->yout[2 * p->nout] = y[0];
  p->yout[2 * p->nout + 1] = y[1];
  p->nout++;
  return 0;
}

// record one-component outputs
static int record1(double t, const double *y, void *ud) {
  prob *p = ud;
  assert_true(p->nout < MAXOUT);
  p->tout[p->nout] = t;
  p->yout[2 * p->nout] = y[0];
  p->yout[2 * p->nout + 1] = 0.0;
  p->nout++;
  return 0;
}

// step callback: counts steps; once, at the first step with t >= restart_at, asks for a restart
static int on_step(double t, double *y, void *ud) {
  prob *p = ud;
  p->nstep_cb++;
  if (p->nrestart_cb == 0 && t >= p->restart_at) {
    p->nrestart_cb++;
    p->t_restart = t;
    if (p->restart_set) {
      y[0] = 0.0;
    }
    return 1;
  }
  return 0;
}

// tout[k] = t1 * (k + 1) / m for k < m
static void grid(double *tout, int m, double t1) {
  for (int k = 0; k < m; k++) {
    tout[k] = t1 * (double)(k + 1) / (double)m;
  }
}

// options used by most tests: tight tolerances for the variable-step kinds, h = 1e-3 for rk4
static mbd_ode_opts opts_for(int kind) {
  mbd_ode_opts o;
  assert_int_equal(mbd_ode_opts_default(&o, kind), MBD_OK);
  o.rtol = 1e-8;
  o.atol = 1e-10;
  if (kind == MBD_INT_RK4) {
    o.step = 1e-3;
  }
  return o;
}

// the error message starts with the template's literal text before its first conversion
static void assert_template(const char *msg, const char *tmpl) {
  size_t lit = strcspn(tmpl, "%");
  if (strncmp(msg, tmpl, lit) != 0) {
    fail_msg("message '%s' does not match template '%s'", msg, tmpl);
  }
}

// the kind under test comes in as the test's initial state
#define KIND(state) (*(const int *)*(state))

/* ------------------------------------------------------------------------------------------------
 * accuracy
 * ---------------------------------------------------------------------------------------------- */

/* Error bounds.  Variable-step kinds run with rtol = 1e-8, atol = 1e-10: each step's local error
 * is kept below ~rtol |y| + atol, and over the ~5 periods here the global error accumulates to at
 * most a few hundred local errors (Adams/BDF/DP5 are not tolerance-proportional beyond that); the
 * dense output adds an interpolation error of the same order.  A bound of 2e-6 (200 rtol) on states
 * of size one is therefore a safe, still meaningful check (the errors seen are 1e-8..1e-7).
 *
 * RK4 with h = 1e-3: the global error of a fourth-order method on the oscillator is about
 * T w (w h)^4 / 120 = 5 * 6.28 * (6.28e-3)^4 / 120 ~ 4e-10 in x; 1e-8 leaves a margin of 25. */
static double osc_tol(int kind) { return kind == MBD_INT_RK4 ? 1e-8 : 2e-6; }

// oscillator over five periods against cos/sin at 50 outputs
static void test_oscillator(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  double tout[50], y[2] = {1.0, 0.0};
  grid(tout, 50, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  mbd_error err = {0};
  int rc = mbd_ode_solve(2, 0.0, y, tout, 50, &o, osc_rhs, record, NULL, p, &st, &err);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(p->nout, 50);
  // x against cos, v against -w sin (v scales with w, so its bound does too)
  double tol = osc_tol(kind), w = p->omega;
  for (int k = 0; k < 50; k++) {
    double t = p->tout[k];
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(w * t), tol);
    MBD_ASSERT_NEAR(p->yout[2 * k + 1], -w * sin(w * t), w * tol);
  }
  // the final state is returned in y; the stats are consistent
  MBD_ASSERT_NEAR(y[0], 1.0, tol);
  assert_true(st.t_reached == 5.0);
  assert_true(st.steps > 0);
  assert_true(st.nfev >= st.steps);
  MBD_ASSERT_NEAR(st.avg_step, 5.0 / (double)st.steps, 1e-12);
  assert_true(st.last_step > 0.0);
  assert_int_equal(st.restarts, 0);
  if (kind == MBD_INT_RK4) {
    // 5 / 1e-3 steps of four evaluations each (the first stage of a step is the previous step's
    // f at its end, evaluated for the outputs' interpolant), and f at the start once
    assert_int_equal(st.steps, 5000);
    assert_int_equal(st.nfev, 20001);
  }
  if (kind == MBD_INT_ADAMS || kind == MBD_INT_BDF) {
    assert_true(st.nonlin_iters > 0);
  }
  if (kind == MBD_INT_BDF) {
    assert_true(st.jac_evals > 0);
  }
  prob_free(p);
}

/* exponential decay y' = -2y on [0, 3]: the same tolerance reasoning as the oscillator, on a
 * solution that shrinks from 1 to 2.5e-3 (atol 1e-10 then dominates nothing); RK4's error here is
 * ~ T lambda (lambda h)^4 / 120 * max|y| ~ 3 * 2 * 1.6e-11 / 120 ~ 1e-12, bounded by 1e-10. */
static void test_decay(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  double tout[30], y[1] = {1.0};
  grid(tout, 30, 3.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_error err = {0};
  int rc = mbd_ode_solve(1, 0.0, y, tout, 30, &o, decay_rhs, record1, NULL, p, NULL, &err);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(p->nout, 30);
  double tol = kind == MBD_INT_RK4 ? 1e-10 : 1e-6;
  for (int k = 0; k < 30; k++) {
    MBD_ASSERT_NEAR(p->yout[2 * k], exp(-p->lambda * p->tout[k]), tol);
  }
  MBD_ASSERT_NEAR(y[0], exp(-6.0), tol);
  prob_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * output times and dense output
 * ---------------------------------------------------------------------------------------------- */

// outputs land exactly on the requested times, an output at t0 comes first without a step
static void test_output_times(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  // irregular times that are not multiples of rk4's step, with tout[0] == t0
  double tout[7] = {0.25, 0.3, 0.3001, 0.77, 1.1 / 3.0 + 0.8, 1.5, 2.0 + 1e-7};
  double y[2] = {cos(p->omega * 0.25), -p->omega * sin(p->omega * 0.25)};
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  mbd_error err = {0};
  int rc = mbd_ode_solve(2, 0.25, y, tout, 7, &o, osc_rhs, record, NULL, p, &st, &err);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(p->nout, 7);
  for (int k = 0; k < 7; k++) {
    // bit-exact: the integrator passes the caller's time through
    assert_true(p->tout[k] == tout[k]);
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(p->omega * tout[k]), osc_tol(kind));
  }
  // the output at t0 is the initial state itself
  assert_true(p->yout[0] == cos(p->omega * 0.25));
  assert_true(st.t_reached == tout[6]);
  prob_free(p);
}

// a single output equal to t0 returns at once with no step
static void test_output_only_t0(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  double tout[1] = {1.0}, y[2] = {0.5, 0.25};
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  int rc = mbd_ode_solve(2, 1.0, y, tout, 1, &o, osc_rhs, record, NULL, p, &st, NULL);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(p->nout, 1);
  assert_true(p->yout[0] == 0.5 && p->yout[1] == 0.25);
  assert_int_equal(st.steps, 0);
  assert_int_equal(st.nfev, 0);
  prob_free(p);
}

// dense output: 10 or 1000 outputs give the same steps and evaluations (variable-step kinds)
static void test_dense_output_cost(void **state) {
  int kind = KIND(state);
  static double tout[1000];
  mbd_ode_stats st10, st1000;
  double y10[2] = {1.0, 0.0}, y1000[2] = {1.0, 0.0};
  mbd_ode_opts o = opts_for(kind);
  // 10 outputs
  prob *p = prob_new();
  grid(tout, 10, 5.0);
  assert_int_equal(mbd_ode_solve(2, 0.0, y10, tout, 10, &o, osc_rhs, record, NULL, p, &st10, NULL),
                   MBD_OK);
  assert_int_equal(p->nout, 10);
  prob_free(p);
  // 1000 outputs over the same interval
  p = prob_new();
  grid(tout, 1000, 5.0);
  assert_int_equal(
      mbd_ode_solve(2, 0.0, y1000, tout, 1000, &o, osc_rhs, record, NULL, p, &st1000, NULL),
      MBD_OK);
  assert_int_equal(p->nout, 1000);
  // the solver's work does not depend on the sampling, so the final states agree bit for bit
  assert_int_equal(st10.steps, st1000.steps);
  assert_int_equal(st10.nfev, st1000.nfev);
  assert_int_equal(st10.rejected, st1000.rejected);
  assert_true(y10[0] == y1000[0] && y10[1] == y1000[1]);
  // and more outputs than steps proves the interpolation is used
  assert_true(st1000.steps < 1000);
  prob_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * RK4 convergence
 * ---------------------------------------------------------------------------------------------- */

// error at t = 1 of rk4 with step h on the oscillator
static double rk4_error(double h) {
  prob *p = prob_new();
  double tout[1] = {1.0}, y[2] = {1.0, 0.0};
  mbd_ode_opts o = opts_for(MBD_INT_RK4);
  o.step = h;
  assert_int_equal(mbd_ode_solve(2, 0.0, y, tout, 1, &o, osc_rhs, NULL, NULL, p, NULL, NULL),
                   MBD_OK);
  double e = hypot(y[0] - 1.0, y[1] / p->omega);
  prob_free(p);
  return e;
}

/* halving h divides the error by 2^4 = 16; with h from 0.02 (w h = 0.126) the next-order term
 * changes the ratio by a few percent, and the errors (1e-5..1e-7) stay far above round-off, so the
 * ratio must lie in [14, 18] */
static void test_rk4_order(void **state) {
  (void)state;
  double e1 = rk4_error(0.02), e2 = rk4_error(0.01), e3 = rk4_error(0.005);
  assert_true(e1 > 1e-9 && e3 > 1e-10);
  double r1 = e1 / e2, r2 = e2 / e3;
  if (!(r1 > 14.0 && r1 < 18.0 && r2 > 14.0 && r2 < 18.0)) {
    fail_msg("rk4 error ratios %g, %g (errors %g %g %g) not ~16", r1, r2, e1, e2, e3);
  }
}

// rk4 takes steps of exactly h from the start whatever the outputs: 0.1, 0.2, 0.3, 0.4, then the
// last one lands on the end, 0.45 (a step of 0.05); the output at 0.35 comes from the step
// 0.3..0.4's cubic Hermite interpolant (error O(h^4): 1e-5 relative for y' = -y at h = 0.1)
static void test_rk4_step_count(void **state) {
  (void)state;
  prob *p = prob_new();
  double tout[2] = {0.35, 0.45}, y[1] = {1.0};
  mbd_ode_opts o = opts_for(MBD_INT_RK4);
  o.step = 0.1;
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(1, 0.0, y, tout, 2, &o, decay_rhs, record1, NULL, p, &st, NULL),
                   MBD_OK);
  assert_int_equal(st.steps, 5);
  MBD_ASSERT_NEAR(st.last_step, 0.05, 1e-15);
  assert_true(p->tout[0] == 0.35 && p->tout[1] == 0.45);
  // the interpolated output and the end against e^(−λt): the interpolant's error, h⁴/384·λ⁴ with
  // λ h = 0.1 λ, and four rk4 steps' error stay below 1e-5 relative for λ ≤ 2
  MBD_ASSERT_NEAR(p->yout[0], exp(-p->lambda * 0.35), 1e-5);
  MBD_ASSERT_NEAR(y[0], exp(-p->lambda * 0.45), 1e-5);
  prob_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * callback codes
 * ---------------------------------------------------------------------------------------------- */

// rhs < 0 stops with that code, err untouched, earlier outputs kept
static void test_rhs_stop(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  p->stop_at = 2.7;
  p->stop_code = MBD_E_CALLBACK;
  double tout[10], y[2] = {1.0, 0.0};
  grid(tout, 10, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  mbd_error err = {0};
  strcpy(err.msg, "untouched");
  err.code = 12345;
  int rc = mbd_ode_solve(2, 0.0, y, tout, 10, &o, osc_rhs, record, NULL, p, &st, &err);
  assert_int_equal(rc, MBD_E_CALLBACK);
  assert_int_equal(err.code, 12345);
  assert_string_equal(err.msg, "untouched");
  // outputs at 0.5 .. 2.0 must be there (steps up to t < 2.7 succeed), none after 2.7
  assert_true(p->nout >= 4);
  for (int k = 0; k < p->nout; k++) {
    assert_true(p->tout[k] == tout[k]);
    assert_true(p->tout[k] < 2.7);
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(p->omega * p->tout[k]), osc_tol(kind));
  }
  // y and t_reached describe the last accepted step
  assert_true(st.t_reached <= 2.7 + 1e-12 && st.t_reached >= p->tout[p->nout - 1]);
  MBD_ASSERT_NEAR(y[0], cos(p->omega * st.t_reached), osc_tol(kind));
  prob_free(p);
}

// rhs > 0 once: the variable-step solvers retry with a smaller step and finish accurately
static void test_rhs_retry(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  p->retry_at = 1.3;
  p->retry_left = 1;
  p->retry_code = 1;
  double tout[20], y[2] = {1.0, 0.0};
  grid(tout, 20, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  mbd_error err = {0};
  int rc = mbd_ode_solve(2, 0.0, y, tout, 20, &o, osc_rhs, record, NULL, p, &st, &err);
  if (kind == MBD_INT_RK4) {
    // a fixed step cannot be retried: an integrator error naming the time
    assert_int_equal(rc, MBD_E_INTEGRATOR);
    assert_int_equal(err.code, MBD_E_INTEGRATOR);
    assert_template(err.msg, MSG_ODE_RK4_RECOV);
    assert_true(p->nout >= 5);
  } else {
    assert_int_equal(rc, MBD_OK);
    assert_int_equal(p->retries_given, 1);
    assert_int_equal(p->nout, 20);
    assert_true(st.rejected >= 1);
    for (int k = 0; k < 20; k++) {
      MBD_ASSERT_NEAR(p->yout[2 * k], cos(p->omega * p->tout[k]), osc_tol(kind));
    }
  }
  prob_free(p);
}

// output < 0 stops with that code after the outputs before it
static int output_stop_third(double t, const double *y, void *ud) {
  prob *p = ud;
  (void)t;
  (void)y;
  return ++p->nout == 3 ? MBD_E_IO : 0;
}

static void test_output_stop(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  double tout[10], y[2] = {1.0, 0.0};
  grid(tout, 10, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_error err = {0};
  int rc = mbd_ode_solve(2, 0.0, y, tout, 10, &o, osc_rhs, output_stop_third, NULL, p, NULL, &err);
  assert_int_equal(rc, MBD_E_IO);
  assert_int_equal(err.code, 0);
  assert_int_equal(p->nout, 3);
  prob_free(p);
}

// the step callback runs after every step; returning 1 restarts from the changed state, counted
static void test_step_restart(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  p->restart_at = 1.0;
  p->restart_set = 1;
  double tout[6], y[1] = {0.0};
  grid(tout, 6, 3.0);
  mbd_ode_opts o = opts_for(kind);
  // y' = 1 has no error to control: without a largest step one step would jump to t = 3
  o.max_step = 0.1;
  mbd_ode_stats st;
  mbd_error err = {0};
  int rc = mbd_ode_solve(1, 0.0, y, tout, 6, &o, ramp_rhs, record1, on_step, p, &st, &err);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(st.restarts, 1);
  assert_int_equal(p->nrestart_cb, 1);
  assert_int_equal(p->nstep_cb, st.steps);
  // y' = 1 is integrated exactly: y(t) = t before the restart, t - t_restart after it
  double tr = p->t_restart;
  assert_true(tr >= 1.0 && tr < 3.0);
  for (int k = 0; k < 6; k++) {
    double t = p->tout[k];
    // round-off of a few hundred steps at most
    MBD_ASSERT_NEAR(p->yout[2 * k], t < tr ? t : t - tr, 1e-9);
  }
  MBD_ASSERT_NEAR(y[0], 3.0 - tr, 1e-9);
  prob_free(p);
}

// a restart on the oscillator keeps the accuracy (only the history is discarded)
static void test_step_restart_accuracy(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  p->restart_at = 2.2;
  double tout[50], y[2] = {1.0, 0.0};
  grid(tout, 50, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  int rc = mbd_ode_solve(2, 0.0, y, tout, 50, &o, osc_rhs, record, on_step, p, &st, NULL);
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(st.restarts, 1);
  assert_int_equal(p->nout, 50);
  assert_int_equal(p->nstep_cb, st.steps);
  for (int k = 0; k < 50; k++) {
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(p->omega * p->tout[k]), osc_tol(kind));
  }
  prob_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * bad input and solver failures
 * ---------------------------------------------------------------------------------------------- */

// one bad-input case: MBD_E_INPUT, the template, no callback called
static void expect_input_error(int n, double t0, const double *tout, int ntout,
                               const mbd_ode_opts *o, mbd_ode_rhs_fn rhs, const char *tmpl) {
  prob *p = prob_new();
  double y[2] = {1.0, 0.0};
  mbd_error err = {0};
  int rc = mbd_ode_solve(n, t0, y, tout, ntout, o, rhs, record, NULL, p, NULL, &err);
  assert_int_equal(rc, MBD_E_INPUT);
  assert_int_equal(err.code, MBD_E_INPUT);
  assert_template(err.msg, tmpl);
  assert_int_equal(p->nout, 0);
  prob_free(p);
}

static void test_bad_options(void **state) {
  int kind = KIND(state);
  double tout[3] = {1.0, 2.0, 3.0};
  mbd_ode_opts good = opts_for(kind), o;
  // tolerances (variable-step) or the step (rk4)
  if (kind == MBD_INT_RK4) {
    o = good;
    o.step = 0.0;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_STEP_RK4);
    o.step = -1e-3;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_STEP_RK4);
    o.step = NAN;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_STEP_RK4);
  } else {
    o = good;
    o.rtol = 0.0;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_RTOL);
    o = good;
    o.atol = -1e-8;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_ATOL);
    o = good;
    o.step = -1.0;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_STEP);
    o = good;
    o.max_step = -1.0;
    expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_MAX_STEP);
  }
  // sizes, times and pointers, the same for every kind
  expect_input_error(2, 0.0, tout, 0, &good, osc_rhs, MSG_ODE_NTOUT);
  expect_input_error(0, 0.0, tout, 3, &good, osc_rhs, MSG_ODE_N);
  expect_input_error(2, 1.5, tout, 3, &good, osc_rhs, MSG_ODE_TOUT0);
  double dec[3] = {1.0, 3.0, 2.0}, dup[3] = {1.0, 1.0, 2.0}, nan3[3] = {1.0, NAN, 2.0};
  expect_input_error(2, 0.0, dec, 3, &good, osc_rhs, MSG_ODE_TOUT);
  expect_input_error(2, 0.0, dup, 3, &good, osc_rhs, MSG_ODE_TOUT);
  expect_input_error(2, 0.0, nan3, 3, &good, osc_rhs, MSG_ODE_TOUT_NAN);
  expect_input_error(2, 0.0, tout, 3, &good, NULL, MSG_ODE_NULL);
  expect_input_error(2, 0.0, tout, 3, NULL, osc_rhs, MSG_ODE_NULL);
  o = good;
  o.kind = 9;
  expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_KIND);
  o = good;
  o.max_steps = -5;
  expect_input_error(2, 0.0, tout, 3, &o, osc_rhs, MSG_ODE_MAX_STEPS);
  // the highest order: adams 1–12, bdf 1–5, no other kind has one
  o = good;
  o.max_order = -1;
  expect_input_error(2, 0.0, tout, 3, &o, osc_rhs,
                     kind == MBD_INT_ADAMS || kind == MBD_INT_BDF ? MSG_ODE_MAX_ORDER
                                                                   : MSG_ODE_MAX_ORDER_KIND);
  o = good;
  o.max_order = kind == MBD_INT_ADAMS ? 13 : 6;
  expect_input_error(2, 0.0, tout, 3, &o, osc_rhs,
                     kind == MBD_INT_ADAMS || kind == MBD_INT_BDF ? MSG_ODE_MAX_ORDER
                                                                   : MSG_ODE_MAX_ORDER_KIND);
}

// stderr is sent to /dev/null-like temp file around a call; returns how many bytes were written
typedef struct quiet {
  int saved; /* the real stderr */
  int fd;    /* the temporary file */
} quiet;

static quiet quiet_begin(void) {
  quiet q;
  char name[] = "/tmp/mbd_test_stderr_XXXXXX";
  fflush(stderr);
  q.fd = mkstemp(name);
  assert_true(q.fd >= 0);
  unlink(name);
  q.saved = dup(2);
  assert_true(q.saved >= 0);
  assert_true(dup2(q.fd, 2) >= 0);
  return q;
}

static long quiet_end(quiet q) {
  fflush(stderr);
  long size = (long)lseek(q.fd, 0, SEEK_END);
  dup2(q.saved, 2);
  close(q.saved);
  close(q.fd);
  return size;
}

// too many steps: MBD_E_INTEGRATOR naming the solver, the limit, the time and the step
static void test_max_steps(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  double tout[5], y[2] = {1.0, 0.0};
  grid(tout, 5, 5.0);
  mbd_ode_opts o = opts_for(kind);
  o.max_steps = 20;
  mbd_ode_stats st;
  mbd_error err = {0};
  quiet q = quiet_begin();
  int rc = mbd_ode_solve(2, 0.0, y, tout, 5, &o, osc_rhs, record, NULL, p, &st, &err);
  assert_int_equal(quiet_end(q), 0);
  assert_int_equal(rc, MBD_E_INTEGRATOR);
  assert_int_equal(err.code, MBD_E_INTEGRATOR);
  assert_non_null(strstr(err.msg, "max_steps = 20"));
  if (kind != MBD_INT_RK4 && kind != MBD_INT_RKF45) {
    // the SUNDIALS flag name of "too much work"
    assert_non_null(
        strstr(err.msg, kind == MBD_INT_RK45 ? "ARK_TOO_MUCH_WORK" : "CV_TOO_MUCH_WORK"));
  }
  assert_true(st.steps <= 20);
  assert_true(st.t_reached < 5.0);
  prob_free(p);
}

// repeated recoverable failures exhaust SUNDIALS: MBD_E_INTEGRATOR with its flag, silently
static void test_solver_failure(void **state) {
  int kind = KIND(state);
  prob *p = prob_new();
  p->retry_at = 1.2;
  p->retry_left = 1000000;
  p->retry_code = 1;
  double tout[5], y[2] = {1.0, 0.0};
  grid(tout, 5, 5.0);
  mbd_ode_opts o = opts_for(kind);
  mbd_ode_stats st;
  mbd_error err = {0};
  quiet q = quiet_begin();
  int rc = mbd_ode_solve(2, 0.0, y, tout, 5, &o, osc_rhs, record, NULL, p, &st, &err);
  long printed = quiet_end(q);
  assert_int_equal(printed, 0);
  assert_int_equal(rc, MBD_E_INTEGRATOR);
  if (kind == MBD_INT_RK4) {
    assert_template(err.msg, MSG_ODE_RK4_RECOV);
  } else if (kind == MBD_INT_RKF45) {
    // each retry quarters the step, until it no longer moves t
    MBD_ASSERT_FITS(err.msg, MSG_ODE_RKF_UNDERFLOW);
  } else {
    // "<solver>: failed at t = ... (last step ...): <FLAG>: <SUNDIALS text>"
    const char *name = kind == MBD_INT_ADAMS ? ODE_NAME_ADAMS
                       : kind == MBD_INT_BDF ? ODE_NAME_BDF
                                             : ODE_NAME_RK45;
    assert_true(strncmp(err.msg, name, strlen(name)) == 0);
    assert_non_null(strstr(err.msg, ": failed at t = "));
    assert_non_null(strstr(err.msg, "(last step "));
    assert_non_null(strstr(err.msg, kind == MBD_INT_RK45 ? "ARK_" : "CV_"));
  }
  // outputs before the failure are kept, the state is the last good one
  assert_int_equal(p->nout, 1);
  assert_true(st.t_reached >= 1.0 && st.t_reached <= 1.2);
  MBD_ASSERT_NEAR(y[0], cos(p->omega * st.t_reached), osc_tol(kind));
  prob_free(p);
}

/* ------------------------------------------------------------------------------------------------
 * stiffness
 * ---------------------------------------------------------------------------------------------- */

/* y' = -1000 (y - cos t) on [0, 10]: Adams with fixed-point iteration is held to h ~ 1/1000 by
 * stability and by the iteration's convergence (h * 1000 * beta < 1), about 10^4 steps; BDF follows
 * cos t with steps limited only by accuracy, some hundreds.  The bound "10 times fewer" is loose.
 */
static void test_stiff(void **state) {
  (void)state;
  double tout[10];
  grid(tout, 10, 10.0);
  mbd_ode_stats st_bdf, st_adams;
  mbd_ode_opts o = opts_for(MBD_INT_BDF);
  o.rtol = 1e-6;
  o.atol = 1e-8;
  // BDF
  double y[1] = {0.0};
  assert_int_equal(
      mbd_ode_solve(1, 0.0, y, tout, 10, &o, stiff_rhs, NULL, NULL, NULL, &st_bdf, NULL), MBD_OK);
  // rtol 1e-6 on a solution of size one: 1e-4 allows for global accumulation
  MBD_ASSERT_NEAR(y[0], stiff_exact(10.0), 1e-4);
  // Adams on the same problem
  o.kind = MBD_INT_ADAMS;
  y[0] = 0.0;
  assert_int_equal(
      mbd_ode_solve(1, 0.0, y, tout, 10, &o, stiff_rhs, NULL, NULL, NULL, &st_adams, NULL), MBD_OK);
  MBD_ASSERT_NEAR(y[0], stiff_exact(10.0), 1e-4);
  if (!(10 * st_bdf.steps < st_adams.steps)) {
    fail_msg("bdf %ld steps, adams %ld steps: bdf should need far fewer", st_bdf.steps,
             st_adams.steps);
  }
  assert_true(st_bdf.jac_evals > 0);
  assert_int_equal(st_adams.jac_evals, 0);
}

/* A lightly damped fast mode driven slowly: x'' + 2ζω x' + ω² x = ω² cos t with ω = 1000,
 * ζ = 1e-3, from the forced motion x_p = Re(ω² e^{it} / (ω² − 1 + 2iζω)) (the fast mode is not
 * excited).  The fast mode's eigenvalues −ζω ± iω lie next to the imaginary axis, where BDF of
 * order 3–5 is unstable for moderate hλ: CVODE's order selection climbs to those orders and the
 * error test then holds the step down near 1/ω; with max_order = 2 (A-stable) the step follows
 * cos t.  This is the flexible robot's case (24 undamped modes per arm). */
static int fast_mode_rhs(double t, const double *y, double *ydot, void *ud) {
  (void)ud;
  const double w = 1000.0, z = 1e-3;
  ydot[0] = y[1];
  ydot[1] = w * w * (cos(t) - y[0]) - 2.0 * z * w * y[1];
  return 0;
}

// the forced motion x_p(t) and its rate (complex division written out)
static void fast_mode_exact(double t, double *x, double *v) {
  const double w = 1000.0, z = 1e-3;
  double a = w * w - 1.0, b = 2.0 * z * w, d = a * a + b * b;
  double re = w * w * a / d, im = -w * w * b / d;  // ω² / (a + ib)
  *x = re * cos(t) - im * sin(t);
  *v = -re * sin(t) - im * cos(t);
}

static void test_max_order(void **state) {
  (void)state;
  double tout[10];
  grid(tout, 10, 10.0);
  mbd_ode_stats st[3];
  int orders[3] = {0, 2, 1};
  double xe, ve;
  fast_mode_exact(10.0, &xe, &ve);
  for (int k = 0; k < 3; k++) {
    mbd_ode_opts o = opts_for(MBD_INT_BDF);
    o.rtol = 1e-6;
    o.atol = 1e-8;
    o.max_order = orders[k];
    double y[2];
    fast_mode_exact(0.0, &y[0], &y[1]);
    assert_int_equal(
        mbd_ode_solve(2, 0.0, y, tout, 10, &o, fast_mode_rhs, NULL, NULL, NULL, &st[k], NULL),
        MBD_OK);
    // rtol 1e-6 over ~1.6 slow periods: 1e-4 allows for the accumulation of a low order
    MBD_ASSERT_NEAR(y[0], xe, 1e-4);
  }
  // max_order = 2 steps over the fast mode; the default order does not (seen with SUNDIALS
  // 6.4: 5180 against 19664 steps; a third shows the order is applied — without it the counts
  // are equal)
  if (!(3 * st[1].steps < st[0].steps)) {
    fail_msg("bdf max_order 2: %ld steps, default: %ld steps", st[1].steps, st[0].steps);
  }
  // order 1 (backward Euler) needs many more steps than order 2 for the same tolerance
  if (!(st[2].steps > 5 * st[1].steps)) {
    fail_msg("bdf max_order 1: %ld steps, max_order 2: %ld steps", st[2].steps, st[1].steps);
  }
}

/* ------------------------------------------------------------------------------------------------
 * lifecycle: segments, root functions, reinit
 * ---------------------------------------------------------------------------------------------- */

/* The root tests use the unit oscillator x'' = -x from (x, v) = (1, 0): x = cos t, v = -sin t.
 * g = x crosses zero at pi/2 (falling) and 3 pi/2 (rising), g = v at pi (rising).  Options:
 * rtol = atol = 1e-10 for the variable-step kinds, h = 1e-3 for rk4.
 *
 * Where the root is.  The time error of a root is the error of g there divided by |g'| = 1:
 *   adams, bdf: CVODE locates the root on its Nordsieck interpolant, whose error is the solution's
 *     own, about 10 tolerances after a quarter to three quarters of a period (2e-10..7e-10 seen);
 *     1e-9 = 10 rtol bounds it.
 *   rk45: ARKODE locates the root on the Lagrange interpolant that its dense output uses (kept
 *     because its cost does not depend on the number of outputs).  That polynomial through past
 *     step values, with steps of ~0.03, is less accurate than the steps themselves: its error on
 *     [0, 5] reaches 1.1e-9 while the step ends are within 4e-11.  Bound 2e-9.
 *   rkf45: bisection on steps re-taken from the step's start, as rk4 below; the root is then that
 *     of the numerical solution, whose error is of the state's size (1e-9 bounds it, as adams).
 *   rk4: the bisection stops when the bracket is below 1e-12 max(1, t) and returns its far end;
 *     the RK4 solution's own error at h = 1e-3 is ~ t h^4 / 120 < 1e-13.  Bound 1e-12 max(1, t)
 *     + 1e-13.
 * The state at a root is the solution there: within state_tol of cos/sin. */
static double root_tol(int kind, double t) {
  switch (kind) {
    case MBD_INT_RK4:
      return 1e-12 * fmax(1.0, fabs(t)) + 1e-13;
    case MBD_INT_RK45:
      return 2e-9;
    default:
      return 1e-9;
  }
}

/* state error over [0, 5]: 200 rtol for the variable-step kinds, as for the accuracy tests above
 * (1.4e-8 seen); rk4: ~ T w (w h)^4 / 120 = 5 * 2 * 1.6e-11 / 120 ~ 1.3e-12 for the faster
 * oscillator (w = 2) of the resize test, bounded by 1e-10 */
static double state_tol(int kind) { return kind == MBD_INT_RK4 ? 1e-10 : 2e-8; }

// the root tests' options
static mbd_ode_opts root_opts(int kind) {
  mbd_ode_opts o;
  assert_int_equal(mbd_ode_opts_default(&o, kind), MBD_OK);
  o.rtol = 1e-10;
  o.atol = 1e-10;
  if (kind == MBD_INT_RK4) {
    o.step = 1e-3;
  }
  return o;
}

// what the root tests' callbacks see
typedef struct rprob {
  int size;                /* 2: (x, v); 4: (x, v, z, w) with z'' = -4 z added */
  double g_fail_at;        /* the root function returns g_code for t > g_fail_at (inf: never) */
  int g_code;              /* what it returns then */
  long ng;                 /* root function calls */
  long nstep_cb;           /* step callback calls */
  int nout;                /* outputs recorded */
  double tout[MAXOUT];     /* recorded output times */
  double yout[2 * MAXOUT]; /* recorded (x, v) */
} rprob;

static rprob *rprob_new(void) {
  rprob *p = calloc(1, sizeof *p);
  assert_non_null(p);
  p->size = 2;
  p->g_fail_at = INFINITY;
  return p;
}

// x'' = -x, and with size 4 also z'' = -4 z
static int unit_rhs(double t, const double *y, double *ydot, void *ud) {
  rprob *p = ud;
  (void)t;
  ydot[0] = y[1];
  ydot[1] = -y[0];
  if (p->size == 4) {
    ydot[2] = y[3];
    ydot[3] = -4.0 * y[2];
  }
  return 0;
}

// g = x, with an injected failure
static int g_x(double t, const double *y, double *g, void *ud) {
  rprob *p = ud;
  p->ng++;
  if (t > p->g_fail_at) {
    return p->g_code;
  }
  g[0] = y[0];
  return 0;
}

// g = (x, v)
static int g_xv(double t, const double *y, double *g, void *ud) {
  rprob *p = ud;
  (void)t;
  p->ng++;
  g[0] = y[0];
  g[1] = y[1];
  return 0;
}

// the step callback counts its calls
static int rcount_step(double t, double *y, void *ud) {
  rprob *p = ud;
  (void)t;
  (void)y;
  p->nstep_cb++;
  return 0;
}

// record (t, x, v)
static int rrecord(double t, const double *y, void *ud) {
  rprob *p = ud;
  assert_true(p->nout < MAXOUT);
  p->tout[p->nout] = t;
  p->yout[2 * p->nout] = y[0];
  p->yout[2 * p->nout + 1] = y[1];
  p->nout++;
  return 0;
}

// how many of tout[0..m) are strictly before t
static int count_before(const double *tout, int m, double t) {
  int c = 0;
  while (c < m && tout[c] < t) {
    c++;
  }
  return c;
}

// a solver for the unit oscillator from (1, 0) at t = 0
static mbd_ode *unit_new(int kind, rprob *p) {
  mbd_ode_opts o = root_opts(kind);
  double y0[2] = {1.0, 0.0};
  mbd_ode *s = NULL;
  mbd_error err = {0};
  assert_int_equal(mbd_ode_new(&s, 2, 0.0, y0, &o, unit_rhs, p, &err), MBD_OK);
  assert_non_null(s);
  assert_int_equal(mbd_ode_size(s), 2);
  assert_true(mbd_ode_time(s) == 0.0);
  return s;
}

// a root at pi/2, its direction and state; then on to tstop = 3 without another root
static void test_root_located(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  double t = -1.0, y[2];
  int found[1] = {7};
  assert_int_equal(mbd_ode_integrate_until(s, 3.0, &t, y, &err), MBD_ROOT);
  mbd_ode_roots_found(s, found);
  // the root, falling, and the state there: x = 0 to the root's accuracy, v = -sin t
  MBD_ASSERT_NEAR(t, 0.5 * PI, root_tol(kind, t));
  assert_int_equal(found[0], -1);
  MBD_ASSERT_NEAR(y[0], 0.0, root_tol(kind, t));
  MBD_ASSERT_NEAR(y[1], -sin(t), state_tol(kind));
  assert_true(mbd_ode_time(s) == t);
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_true(st.t_reached == t);
  assert_true(st.steps > 0);
  // on to 3: no more roots, the state against cos/sin, the directions cleared
  assert_int_equal(mbd_ode_integrate_until(s, 3.0, &t, y, &err), MBD_OK);
  assert_true(t == 3.0);
  mbd_ode_roots_found(s, found);
  assert_int_equal(found[0], 0);
  MBD_ASSERT_NEAR(y[0], cos(3.0), state_tol(kind));
  MBD_ASSERT_NEAR(y[1], -sin(3.0), state_tol(kind));
  assert_true(p->ng > 0);
  mbd_ode_free(s);
  free(p);
}

/* several roots in one run, two root functions: x falls at pi/2, v rises at pi, x rises at
 * 3 pi/2; each found once (going on from a root does not find it again), the other component 0.
 * The step callback runs once per step, but not at a root: SUNDIALS' step past the root gets it
 * when the run goes on; rk4's step to the root is its own, which ends there */
static void test_root_several(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  assert_int_equal(mbd_ode_set_roots(s, 2, g_xv, &err), MBD_OK);
  mbd_ode_set_step_fn(s, rcount_step);
  const double troot[3] = {0.5 * PI, PI, 1.5 * PI};
  const int dir[3][2] = {{-1, 0}, {0, 1}, {1, 0}};
  double t, y[2];
  int rc, nroot = 0;
  while ((rc = mbd_ode_integrate_until(s, 5.0, &t, y, &err)) == MBD_ROOT) {
    assert_true(nroot < 3);
    int found[2];
    mbd_ode_roots_found(s, found);
    MBD_ASSERT_NEAR(t, troot[nroot], root_tol(kind, t));
    assert_int_equal(found[0], dir[nroot][0]);
    assert_int_equal(found[1], dir[nroot][1]);
    MBD_ASSERT_NEAR(y[0], cos(t), state_tol(kind));
    MBD_ASSERT_NEAR(y[1], -sin(t), state_tol(kind));
    nroot++;
  }
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(nroot, 3);
  assert_true(t == 5.0);
  MBD_ASSERT_NEAR(y[0], cos(5.0), state_tol(kind));
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  // the one-step kinds give no step callback for the step that ends at a root
  int one_step = kind == MBD_INT_RK4 || kind == MBD_INT_RKF45;
  assert_int_equal(p->nstep_cb, one_step ? st.steps - 3 : st.steps);
  assert_int_equal(st.restarts, 0);
  mbd_ode_free(s);
  free(p);
}

/* root functions given midway: a SUNDIALS solver that has stepped is restarted from the current
 * state so that it evaluates them there (counted); rk4 and rkf45 need no restart.  The root at pi/2 is found
 * all the same, and removing the functions (nroot = 0) lets the run go through 3 pi/2 */
static void test_roots_set_midway(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  double t, y[2];
  assert_int_equal(mbd_ode_integrate_until(s, 1.0, &t, y, &err), MBD_OK);
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_int_equal(st.restarts, kind == MBD_INT_RK4 || kind == MBD_INT_RKF45 ? 0 : 1);
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_ROOT);
  MBD_ASSERT_NEAR(t, 0.5 * PI, root_tol(kind, t));
  assert_int_equal(mbd_ode_set_roots(s, 0, NULL, &err), MBD_OK);
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_OK);
  assert_true(t == 5.0);
  MBD_ASSERT_NEAR(y[0], cos(5.0), state_tol(kind));
  mbd_ode_free(s);
  free(p);
}

/* outputs around roots: those before a root come before MBD_ROOT, the others after going on; all
 * 50 exactly once at their exact times, and equal to a run without roots to the state tolerance
 * (the variable-step kinds take the same steps either way; rk4 starts a new grid at each root) */
static void test_root_outputs(void **state) {
  int kind = KIND(state);
  double tout[50];
  grid(tout, 50, 5.0);
  mbd_error err = {0};
  double t, y[2];
  // without roots
  rprob *p0 = rprob_new();
  mbd_ode *s = unit_new(kind, p0);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_OK);
  assert_int_equal(p0->nout, 50);
  mbd_ode_free(s);
  // with roots at pi/2, pi, 3 pi/2
  rprob *p = rprob_new();
  s = unit_new(kind, p);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_set_roots(s, 2, g_xv, &err), MBD_OK);
  int rc, nroot = 0;
  while ((rc = mbd_ode_integrate_until(s, 5.0, &t, y, &err)) == MBD_ROOT) {
    // exactly the outputs strictly before the root are out
    assert_int_equal(p->nout, count_before(tout, 50, t));
    nroot++;
  }
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(nroot, 3);
  assert_int_equal(p->nout, 50);
  for (int k = 0; k < 50; k++) {
    assert_true(p->tout[k] == tout[k]);
    MBD_ASSERT_NEAR(p->yout[2 * k], p0->yout[2 * k], state_tol(kind));
    MBD_ASSERT_NEAR(p->yout[2 * k + 1], p0->yout[2 * k + 1], state_tol(kind));
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(tout[k]), state_tol(kind));
  }
  mbd_ode_free(s);
  free(p0);
  free(p);
}

/* right after a root, a segment ending inside the step the solver has already taken (SUNDIALS
 * kinds: steps ~0.03 long, so t + 1e-4 lies in it): y comes from the interpolant, no new step
 * (rk4 and rkf45 go on from the root itself: a new step); then on to the next root */
static void test_root_short_segment(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  double t1, t, y[2];
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t1, y, &err), MBD_ROOT);
  mbd_ode_stats st1, st2;
  mbd_ode_get_stats(s, &st1);
  // a short segment, landing exactly on its end
  assert_int_equal(mbd_ode_integrate_until(s, t1 + 1e-4, &t, y, &err), MBD_OK);
  assert_true(t == t1 + 1e-4);
  MBD_ASSERT_NEAR(y[0], cos(t), state_tol(kind));
  MBD_ASSERT_NEAR(y[1], -sin(t), state_tol(kind));
  mbd_ode_get_stats(s, &st2);
  if (kind != MBD_INT_RK4 && kind != MBD_INT_RKF45) {
    assert_int_equal(st2.steps, st1.steps);
  }
  // the next root is the rising one at 3 pi/2, then the end
  int found[1];
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_ROOT);
  mbd_ode_roots_found(s, found);
  MBD_ASSERT_NEAR(t, 1.5 * PI, root_tol(kind, t));
  assert_int_equal(found[0], 1);
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_OK);
  MBD_ASSERT_NEAR(y[0], cos(5.0), state_tol(kind));
  mbd_ode_free(s);
  free(p);
}

/* reinit with the same size: a bounce.  At each zero of x the velocity is reversed and x put
 * exactly on the surface (a root function that starts at zero is not checked until it leaves it,
 * so the bounce is not found again), giving x = |cos t| up to the roots' time errors: falling roots
 * at pi/2 and, half a period after the first bounce, near 3 pi/2; two restarts counted, outputs
 * and state against the closed form */
static void test_reinit_same_size(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  double tout[50];
  grid(tout, 50, 5.0);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  // the second root is half a period after the first bounce: x = |v1| sin(t - t1) from there
  double t, y[2], troot = 0.5 * PI;
  int rc, nroot = 0;
  while ((rc = mbd_ode_integrate_until(s, 5.0, &t, y, &err)) == MBD_ROOT) {
    assert_true(nroot < 2);
    int found[1];
    mbd_ode_roots_found(s, found);
    MBD_ASSERT_NEAR(t, troot, root_tol(kind, t));
    troot = t + PI;
    assert_int_equal(found[0], -1);
    // the bounce
    y[0] = 0.0;
    y[1] = -y[1];
    assert_int_equal(mbd_ode_reinit(s, 2, t, y, &err), MBD_OK);
    nroot++;
  }
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(nroot, 2);
  // after the second bounce x = cos t again; every output on |cos t|
  MBD_ASSERT_NEAR(y[0], cos(5.0), state_tol(kind));
  MBD_ASSERT_NEAR(y[1], -sin(5.0), state_tol(kind));
  assert_int_equal(p->nout, 50);
  for (int k = 0; k < 50; k++) {
    assert_true(p->tout[k] == tout[k]);
    MBD_ASSERT_NEAR(p->yout[2 * k], fabs(cos(tout[k])), state_tol(kind));
  }
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_int_equal(st.restarts, 2);
  assert_true(st.t_reached == 5.0);
  MBD_ASSERT_NEAR(st.avg_step, 5.0 / (double)st.steps, 1e-12);
  mbd_ode_free(s);
  free(p);
}

/* reinit with another size: the oscillator to its root at t1 ~ pi/2, then (x, v) goes on with a
 * second oscillator z'' = -4 z, z(t1) = 1, w(t1) = 0 added: x = x1 cos(t - t1) + v1 sin(t - t1),
 * z = cos 2(t - t1).  The root function stays (g = x rises at 3 pi/2), outputs go on, the counters
 * accumulate */
static void test_reinit_resize(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  double tout[50];
  grid(tout, 50, 5.0);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  double t1, t, y[4];
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t1, y, &err), MBD_ROOT);
  MBD_ASSERT_NEAR(t1, 0.5 * PI, root_tol(kind, t1));
  mbd_ode_stats st1;
  mbd_ode_get_stats(s, &st1);
  int nout1 = p->nout;
  // four states from here
  double x1 = y[0], v1 = y[1];
  y[2] = 1.0;
  y[3] = 0.0;
  p->size = 4;
  assert_int_equal(mbd_ode_reinit(s, 4, t1, y, &err), MBD_OK);
  assert_int_equal(mbd_ode_size(s), 4);
  assert_true(mbd_ode_time(s) == t1);
  // the root of x at 3 pi/2, then the end; both checked against the closed form
  int found[1];
  assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_ROOT);
  mbd_ode_roots_found(s, found);
  MBD_ASSERT_NEAR(t, 1.5 * PI, root_tol(kind, t));
  assert_int_equal(found[0], 1);
  /* z turns twice as fast as x, so over the same time it gathers about twice the phase error
   * (adams: 1.9e-8 in z at t = 5), and w = z' scales with the frequency once more */
  for (int pass = 0; pass < 2; pass++) {
    double a = t - t1;
    MBD_ASSERT_NEAR(y[0], x1 * cos(a) + v1 * sin(a), state_tol(kind));
    MBD_ASSERT_NEAR(y[1], -x1 * sin(a) + v1 * cos(a), state_tol(kind));
    MBD_ASSERT_NEAR(y[2], cos(2.0 * a), 2.0 * state_tol(kind));
    MBD_ASSERT_NEAR(y[3], -2.0 * sin(2.0 * a), 4.0 * state_tol(kind));
    if (pass == 0) {
      assert_int_equal(mbd_ode_integrate_until(s, 5.0, &t, y, &err), MBD_OK);
      assert_true(t == 5.0);
    }
  }
  // outputs went on after the resize, every one of them once
  assert_true(nout1 > 0 && nout1 < 50);
  assert_int_equal(p->nout, 50);
  for (int k = 0; k < 50; k++) {
    assert_true(p->tout[k] == tout[k]);
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(tout[k]), state_tol(kind));
  }
  // the counters of both solvers together, one restart
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_int_equal(st.restarts, 1);
  assert_true(st.steps > st1.steps);
  assert_true(st.nfev > st1.nfev);
  assert_true(st.t_reached == 5.0);
  mbd_ode_free(s);
  free(p);
}

/* segments: the outputs on a grid are delivered once each whatever the segments; output times set
 * midway skip those already passed but deliver one at the current time at once */
static void test_segments(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  double tout[50];
  grid(tout, 50, 5.0);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  const double ends[3] = {1.0, 2.5, 5.0};
  double t, y[2];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(mbd_ode_integrate_until(s, ends[i], &t, y, &err), MBD_OK);
    assert_true(t == ends[i]);
    assert_int_equal(p->nout, count_before(tout, 50, t) + 1);
  }
  assert_int_equal(p->nout, 50);
  for (int k = 0; k < 50; k++) {
    assert_true(p->tout[k] == tout[k]);
    MBD_ASSERT_NEAR(p->yout[2 * k], cos(tout[k]), state_tol(kind));
  }
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_true(st.t_reached == 5.0);
  MBD_ASSERT_NEAR(st.avg_step, 5.0 / (double)st.steps, 1e-12);
  // new times at 5: 4.5 is behind (skipped), 5 is now (delivered at once), 5.5 ahead
  double more[3] = {4.5, 5.0, 5.5};
  assert_int_equal(mbd_ode_set_output(s, more, 3, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_integrate_until(s, 6.0, &t, y, &err), MBD_OK);
  assert_int_equal(p->nout, 52);
  assert_true(p->tout[50] == 5.0 && p->tout[51] == 5.5);
  MBD_ASSERT_NEAR(p->yout[2 * 50], p->yout[2 * 49], 0.0);
  MBD_ASSERT_NEAR(p->yout[2 * 51], cos(5.5), state_tol(kind));
  mbd_ode_free(s);
  free(p);
}

/* no allocation while integrating: with outputs, a step callback and a root function, bouncing at
 * each root through a reinit of the same size, integrate_until and reinit allocate nothing (rk4's
 * bisection included); only new, set_output and set_roots do */
static void test_lifecycle_noalloc(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_ode *s = unit_new(kind, p);
  mbd_error err = {0};
  double tout[50];
  grid(tout, 50, 5.0);
  assert_int_equal(mbd_ode_set_output(s, tout, 50, rrecord, &err), MBD_OK);
  assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
  mbd_ode_set_step_fn(s, rcount_step);
  // the wrappers are in place: the setup above was counted
  long before = allocations;
  assert_true(before > 0);
  double t, y[2];
  int rc, nroot = 0, found[1];
  while ((rc = mbd_ode_integrate_until(s, 5.0, &t, y, &err)) == MBD_ROOT) {
    mbd_ode_roots_found(s, found);
    y[0] = 0.0;
    y[1] = -y[1];
    assert_int_equal(mbd_ode_reinit(s, 2, t, y, &err), MBD_OK);
    nroot++;
  }
  long during = allocations - before;
  assert_int_equal(rc, MBD_OK);
  assert_int_equal(nroot, 2);
  assert_int_equal(p->nout, 50);
  assert_true(p->nstep_cb > 100);
  assert_int_equal(during, 0);
  mbd_ode_free(s);
  free(p);
}

// one bad-input case of the lifecycle: MBD_E_INPUT with the template
static void expect_input(int rc, const mbd_error *err, const char *tmpl) {
  assert_int_equal(rc, MBD_E_INPUT);
  assert_int_equal(err->code, MBD_E_INPUT);
  assert_template(err->msg, tmpl);
}

// bad arguments to the lifecycle calls, each with its template; the solver stays usable
static void test_lifecycle_errors(void **state) {
  int kind = KIND(state);
  rprob *p = rprob_new();
  mbd_error err = {0};
  mbd_ode_opts o = root_opts(kind);
  double y[2] = {1.0, 0.0}, t;
  // new: a bad size or option, nothing made
  mbd_ode *bad = (mbd_ode *)&err;
  expect_input(mbd_ode_new(&bad, 0, 0.0, y, &o, unit_rhs, p, &err), &err, MSG_ODE_N);
  assert_null(bad);
  mbd_ode_opts ob = o;
  ob.kind = 9;
  expect_input(mbd_ode_new(&bad, 2, 0.0, y, &ob, unit_rhs, p, &err), &err, MSG_ODE_KIND);
  expect_input(mbd_ode_new(&bad, 2, NAN, y, &o, unit_rhs, p, &err), &err, MSG_ODE_T0);
  expect_input(mbd_ode_new(&bad, 2, 0.0, y, &o, NULL, p, &err), &err, MSG_ODE_NULL);
  // roots: a negative count, or functions missing
  mbd_ode *s = unit_new(kind, p);
  expect_input(mbd_ode_set_roots(s, -1, g_x, &err), &err, MSG_ODE_NROOT);
  expect_input(mbd_ode_set_roots(s, 1, NULL, &err), &err, MSG_ODE_NULL);
  // outputs: a negative count, times not increasing
  double dec[2] = {2.0, 1.0};
  expect_input(mbd_ode_set_output(s, dec, -1, rrecord, &err), &err, MSG_ODE_NTOUT_NEG);
  expect_input(mbd_ode_set_output(s, dec, 2, rrecord, &err), &err, MSG_ODE_TOUT);
  // tstop: not after the current time, before it, not a number
  expect_input(mbd_ode_integrate_until(s, 0.0, &t, y, &err), &err, MSG_ODE_TSTOP);
  expect_input(mbd_ode_integrate_until(s, NAN, &t, y, &err), &err, MSG_ODE_TSTOP);
  assert_int_equal(mbd_ode_integrate_until(s, 1.0, &t, y, &err), MBD_OK);
  expect_input(mbd_ode_integrate_until(s, 0.5, &t, y, &err), &err, MSG_ODE_TSTOP);
  expect_input(mbd_ode_integrate_until(s, 1.0, &t, y, &err), &err, MSG_ODE_TSTOP);
  // reinit: a bad size, time or state
  expect_input(mbd_ode_reinit(s, 0, 1.0, y, &err), &err, MSG_ODE_N);
  expect_input(mbd_ode_reinit(s, 2, INFINITY, y, &err), &err, MSG_ODE_T);
  expect_input(mbd_ode_reinit(s, 2, 1.0, NULL, &err), &err, MSG_ODE_NULL);
  // none of it changed the solver: it goes on from 1
  assert_true(mbd_ode_time(s) == 1.0);
  assert_int_equal(mbd_ode_integrate_until(s, 2.0, &t, y, &err), MBD_OK);
  MBD_ASSERT_NEAR(y[0], cos(2.0), state_tol(kind));
  mbd_ode_stats st;
  mbd_ode_get_stats(s, &st);
  assert_int_equal(st.restarts, 0);
  mbd_ode_free(s);
  free(p);
}

/* a root function returning < 0 stops with that code (err untouched) at the last good state; one
 * returning > 0 is an integrator error (rk4: its template; SUNDIALS: its RTFUNC_FAIL flag),
 * silently */
static void test_root_fn_fails(void **state) {
  int kind = KIND(state);
  for (int code = -1; code <= 1; code += 2) {
    rprob *p = rprob_new();
    p->g_fail_at = 1.0;
    p->g_code = code < 0 ? MBD_E_CALLBACK : 1;
    mbd_ode *s = unit_new(kind, p);
    mbd_error err = {0};
    strcpy(err.msg, "untouched");
    err.code = 12345;
    assert_int_equal(mbd_ode_set_roots(s, 1, g_x, &err), MBD_OK);
    double t = 0.0, y[2];
    quiet q = quiet_begin();
    int rc = mbd_ode_integrate_until(s, 3.0, &t, y, &err);
    assert_int_equal(quiet_end(q), 0);
    if (code < 0) {
      assert_int_equal(rc, MBD_E_CALLBACK);
      assert_int_equal(err.code, 12345);
      assert_string_equal(err.msg, "untouched");
    } else {
      assert_int_equal(rc, MBD_E_INTEGRATOR);
      if (kind == MBD_INT_RK4) {
        assert_template(err.msg, MSG_ODE_RK4_ROOT_RC);
      } else if (kind == MBD_INT_RKF45) {
        MBD_ASSERT_FITS(err.msg, MSG_ODE_ROOT_RC);
      } else {
        assert_non_null(strstr(err.msg, "RTFUNC_FAIL"));
      }
    }
    // stopped within a step of t = 1, before the root at pi/2, with the state there
    assert_true(t > 0.9 && t < 1.2);
    MBD_ASSERT_NEAR(y[0], cos(t), state_tol(kind));
    mbd_ode_free(s);
    free(p);
  }
}

/* ------------------------------------------------------------------------------------------------
 * names
 * ---------------------------------------------------------------------------------------------- */

static void test_names(void **state) {
  (void)state;
  const char *names[5] = {"adams", "bdf", "rk45", "rk4", "rkf45"};
  for (int k = 0; k < 5; k++) {
    assert_string_equal(mbd_integrator_name(k), names[k]);
    assert_int_equal(mbd_integrator_from_name(names[k]), k);
  }
  assert_null(mbd_integrator_name(5));
  assert_null(mbd_integrator_name(-1));
  assert_int_equal(mbd_integrator_from_name("ode45"), -1);
  assert_int_equal(mbd_integrator_from_name(NULL), -1);
  // defaults
  mbd_ode_opts o;
  assert_int_equal(mbd_ode_opts_default(&o, MBD_INT_RK4), MBD_OK);
  assert_true(o.step > 0.0);
  assert_int_equal(mbd_ode_opts_default(&o, 7), MBD_E_INPUT);
  assert_int_equal(o.kind, MBD_INT_ADAMS);
  assert_true(mbd_ode_default_max_steps() == 10000000L);
}

/* ------------------------------------------------------------------------------------------------
 * registration: each per-kind test runs once per kind
 * ---------------------------------------------------------------------------------------------- */

static int kind_adams = MBD_INT_ADAMS, kind_bdf = MBD_INT_BDF, kind_rk45 = MBD_INT_RK45,
           kind_rk4 = MBD_INT_RK4, kind_rkf45 = MBD_INT_RKF45;

// one named test per kind: "test_oscillator/adams"
#define ONE_KIND(f, k, name) \
  { #f "/" name, f, NULL, NULL, &k }
#define VARIABLE_KINDS(f) \
  ONE_KIND(f, kind_adams, "adams"), ONE_KIND(f, kind_bdf, "bdf"), ONE_KIND(f, kind_rk45, "rk45"), \
      ONE_KIND(f, kind_rkf45, "rkf45")
#define PER_KIND(f) VARIABLE_KINDS(f), ONE_KIND(f, kind_rk4, "rk4")

/* ------------------------------------------------------------------------------------------------
 * mbd's vector operations (lean_vectors.c) against the serial library's, bit for bit
 * ---------------------------------------------------------------------------------------------- */

// a value of either sign over several decades, from a fixed sequence (xorshift)
static double lean_value(unsigned long long *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  double u = (double)(*s >> 11) / 9007199254740992.0;  // [0, 1)
  return (u < 0.5 ? -1 : 1) * exp(20 * u - 10);
}

static int same_bits_n(const double *a, const double *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Every special case the library picks (a or b = ±1, a = b, a = −b, 0, and the general case, the
 * result written over x, over y or into z) gives the same bits, as do the scale, the constants,
 * abs, inv, addconst, the weighted norms, the fused z_j = a_j x + y_j and the fused Σ c_i X_i
 * (written over a term too): the integration is the same run with either (a test of equality, no
 * tolerance). */
static void test_lean_vectors(void **state) {
  (void)state;
  SUNContext ctx;
  assert_int_equal(SUNContext_Create(NULL, &ctx), 0);
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  const double coef[] = {1.0, -1.0, 0.0, 2.5, -2.5, 0.3, -0.7, 1e-3};
  const int nc = (int)(sizeof coef / sizeof coef[0]);
  const int sizes[] = {1, 2, 5, 300};
  for (int si = 0; si < 4; si++) {
    int n = sizes[si];
    N_Vector lib[4], lean[4];  // x, y, z, w in each
    for (int k = 0; k < 4; k++) {
      lib[k] = N_VNew_Serial(n, ctx);
      assert_non_null(lib[k]);
      assert_int_equal(N_VEnableFusedOps_Serial(lib[k], SUNTRUE), 0);
      lean[k] = N_VClone(lib[k]);
      assert_non_null(lean[k]);
    }
    mbd_ode_lean_ops(lean[0]);
    for (int k = 1; k < 4; k++) {
      N_VDestroy(lean[k]);
      lean[k] = N_VClone(lean[0]);  // (a clone carries the operations)
      assert_ptr_equal(lean[k]->ops->nvlinearsum, lean[0]->ops->nvlinearsum);
    }
    assert_ptr_not_equal(lean[0]->ops->nvlinearsum, lib[0]->ops->nvlinearsum);
#define LV_FILL()                                                                   \
  for (int k = 0; k < 4; k++) {                                                     \
    for (int i = 0; i < n; i++) {                                                   \
      NV_Ith_S(lib[k], i) = NV_Ith_S(lean[k], i) = lean_value(&seed);               \
    }                                                                               \
  }
#define LV_SAME(k) assert_true(same_bits_n(NV_DATA_S(lib[k]), NV_DATA_S(lean[k]), n))
    for (int ia = 0; ia < nc; ia++) {
      for (int ib = 0; ib < nc; ib++) {
        double a = coef[ia], b = coef[ib];
        for (int out = 0; out < 3; out++) {  // z = a x + b y written into x, y or z
          LV_FILL();
          N_VLinearSum(a, lib[0], b, lib[1], lib[out]);
          N_VLinearSum(a, lean[0], b, lean[1], lean[out]);
          for (int k = 0; k < 3; k++) LV_SAME(k);
        }
      }
      double c = coef[ia];
      for (int out = 0; out < 2; out++) {
        LV_FILL();
        N_VScale(c, lib[0], lib[2 * out]);
        N_VScale(c, lean[0], lean[2 * out]);
        LV_SAME(0);
        LV_SAME(2);
        N_VAddConst(lib[1], c, lib[2 * out]);
        N_VAddConst(lean[1], c, lean[2 * out]);
        LV_SAME(0);
        LV_SAME(2);
      }
      N_VConst(c, lib[3]);
      N_VConst(c, lean[3]);
      LV_SAME(3);
      // the fused a_j x + y_j into z_j, and in place (y_j = z_j)
      LV_FILL();
      double av[3] = {c, 0.5, -3.0};
      N_Vector Ylib[3] = {lib[1], lib[2], lib[3]}, Ylean[3] = {lean[1], lean[2], lean[3]};
      for (int nv = 1; nv <= 3; nv++) {
        assert_int_equal(N_VScaleAddMulti(nv, av, lib[0], Ylib, Ylib), 0);
        assert_int_equal(N_VScaleAddMulti(nv, av, lean[0], Ylean, Ylean), 0);
        for (int k = 1; k < 4; k++) LV_SAME(k);
      }
    }
    // the fused Σ c_i X_i for 1 to 4 terms, into a fourth vector, over X_0 (c_0 = 1 and not)
    // and over X_1
    for (int nv = 1; nv <= 4; nv++) {
      for (int over = 0; over < 4; over++) {
        double cv[4] = {over == 1 ? 1.0 : -0.6, 2.5, -1.0, 0.25};
        N_Vector Xlib[4] = {lib[0], lib[1], lib[2], lib[3]};
        N_Vector Xlean[4] = {lean[0], lean[1], lean[2], lean[3]};
        int z = over == 0 ? 3 : over <= 2 ? 0 : 1;  // (a fourth vector: only nv < 4 reads it)
        if (over == 0 && nv == 4) {
          continue;
        }
        LV_FILL();
        assert_int_equal(N_VLinearCombination(nv, cv, Xlib, lib[z]), 0);
        assert_int_equal(N_VLinearCombination(nv, cv, Xlean, lean[z]), 0);
        for (int k = 0; k < 4; k++) LV_SAME(k);
      }
    }
    LV_FILL();
    N_VAbs(lib[0], lib[2]);
    N_VAbs(lean[0], lean[2]);
    LV_SAME(2);
    N_VInv(lib[1], lib[3]);
    N_VInv(lean[1], lean[3]);
    LV_SAME(3);
    double nlib = N_VWrmsNorm(lib[0], lib[1]), nlean = N_VWrmsNorm(lean[0], lean[1]);
    assert_memory_equal(&nlib, &nlean, sizeof nlib);
#undef LV_FILL
#undef LV_SAME
    for (int k = 0; k < 4; k++) {
      N_VDestroy(lib[k]);
      N_VDestroy(lean[k]);
    }
  }
  SUNContext_Free(&ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PER_KIND(test_oscillator),
      PER_KIND(test_decay),
      PER_KIND(test_output_times),
      PER_KIND(test_output_only_t0),
      VARIABLE_KINDS(test_dense_output_cost),
      cmocka_unit_test(test_rk4_order),
      cmocka_unit_test(test_rk4_step_count),
      PER_KIND(test_rhs_stop),
      PER_KIND(test_rhs_retry),
      PER_KIND(test_output_stop),
      PER_KIND(test_step_restart),
      PER_KIND(test_step_restart_accuracy),
      PER_KIND(test_bad_options),
      PER_KIND(test_max_steps),
      PER_KIND(test_solver_failure),
      cmocka_unit_test(test_stiff),
      cmocka_unit_test(test_max_order),
      PER_KIND(test_root_located),
      PER_KIND(test_root_several),
      PER_KIND(test_roots_set_midway),
      PER_KIND(test_root_outputs),
      PER_KIND(test_root_short_segment),
      PER_KIND(test_reinit_same_size),
      PER_KIND(test_reinit_resize),
      PER_KIND(test_segments),
      PER_KIND(test_lifecycle_noalloc),
      PER_KIND(test_lifecycle_errors),
      PER_KIND(test_root_fn_fails),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_lean_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
