/* tests of engine/integrators: the four kinds on problems with known solutions, dense output,
 * callbacks and their codes, restarts, option checks, and stiffness (BDF against Adams). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbd/integrators.h"
#include "mbd_test.h"

/* the message templates, so expected errors are matched against the template, not a copy */
#include "../../engine/integrators/integrators_impl.h"

#define PI 3.14159265358979323846
#define MAXOUT 1001

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
    // 5 / 1e-3 steps of four evaluations each
    assert_int_equal(st.steps, 5000);
    assert_int_equal(st.nfev, 20000);
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

// rk4 takes ceil(dt/h) equal steps per output interval: 0.35 / 0.1 -> 4 steps of 0.0875
static void test_rk4_step_count(void **state) {
  (void)state;
  prob *p = prob_new();
  double tout[2] = {0.35, 0.45}, y[1] = {1.0};
  mbd_ode_opts o = opts_for(MBD_INT_RK4);
  o.step = 0.1;
  mbd_ode_stats st;
  assert_int_equal(mbd_ode_solve(1, 0.0, y, tout, 2, &o, decay_rhs, record1, NULL, p, &st, NULL),
                   MBD_OK);
  // 4 steps to 0.35, then one step of 0.1 (0.1 / 0.1 = 1 despite round-off)
  assert_int_equal(st.steps, 5);
  MBD_ASSERT_NEAR(st.last_step, 0.1, 1e-15);
  assert_true(p->tout[0] == 0.35 && p->tout[1] == 0.45);
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
  if (kind != MBD_INT_RK4) {
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

/* ------------------------------------------------------------------------------------------------
 * names
 * ---------------------------------------------------------------------------------------------- */

static void test_names(void **state) {
  (void)state;
  const char *names[4] = {"adams", "bdf", "rk45", "rk4"};
  for (int k = 0; k < 4; k++) {
    assert_string_equal(mbd_integrator_name(k), names[k]);
    assert_int_equal(mbd_integrator_from_name(names[k]), k);
  }
  assert_null(mbd_integrator_name(4));
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
           kind_rk4 = MBD_INT_RK4;

// one named test per kind: "test_oscillator/adams"
#define ONE_KIND(f, k, name) \
  { #f "/" name, f, NULL, NULL, &k }
#define VARIABLE_KINDS(f) \
  ONE_KIND(f, kind_adams, "adams"), ONE_KIND(f, kind_bdf, "bdf"), ONE_KIND(f, kind_rk45, "rk45")
#define PER_KIND(f) VARIABLE_KINDS(f), ONE_KIND(f, kind_rk4, "rk4")

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
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
