/* mbd — ODE integrators: CVODE Adams and BDF, ARKODE explicit Dormand–Prince 5(4), fixed-step RK4,
 * and Runge–Kutta–Fehlberg 4(5) with MATLAB 4 ode45's error control.
 *
 * The formulations turn a mechanism into a first-order ODE y' = f(t, y) of size n and hand it here.
 * Output is dense: the solver steps on its own and the values at the requested output times are
 * interpolated (CVodeGetDky / ERKStepGetDky), so the number of steps and right-hand-side evaluations
 * does not depend on how often the caller samples (the figures of merit of paper 000). */
#ifndef MBD_INTEGRATORS_H
#define MBD_INTEGRATORS_H

#include "mbd/status.h"

typedef enum mbd_integrator_kind {
  MBD_INT_ADAMS = 0, /* CVODE, Adams–Moulton variable order 1..12, functional (fixed-point) iteration */
  MBD_INT_BDF = 1,   /* CVODE, BDF variable order 1..5, Newton with a dense difference-quotient Jacobian */
  MBD_INT_RK45 = 2,  /* ARKODE ERKStep, Dormand–Prince 5(4) (MATLAB's ode45) */
  MBD_INT_RK4 = 3,   /* classical fourth-order Runge–Kutta, fixed step opts->step */
  MBD_INT_RKF45 = 4  /* Runge–Kutta–Fehlberg 4(5) with MATLAB 4 ode45's control (rkf45.c) */
} mbd_integrator_kind;

/* rkf45 is MATLAB 4's ode45 (C. B. Moler's ode45.m of 1987, the "tol" of ode45(F, t0, tf, y0, tol)):
 * Fehlberg's six-stage pair, the fifth-order solution carried on (local extrapolation), one scalar
 * tolerance and a max-norm step control.  For a step h from (t, y) with stages k1..k6:
 *   delta = || h sum_j (gamma2)_j k_j ||_inf            (fifth minus fourth order)
 *   tau   = max(rtol ||y||_inf, atol)                   (MATLAB 4: tol max(||y||_inf, 1))
 *   accept when delta <= tau; then, accepted or not, h <- min(hmax, 0.8 h (tau/delta)^(1/5))
 * hmax = opts.max_step, else (tstop - t0)/16 of the first integrate_until (MATLAB 4: (tf - t0)/16);
 * the first step opts.step, else hmax/8.  With rtol = atol = tol it is MATLAB 4's test exactly.
 * Outputs between steps come from the cubic Hermite interpolant of the step's ends (y and f): the
 * derivative at a step's end is the next step's first stage, so nfev is 5 per attempt plus 1 per
 * accepted step (MATLAB 4 evaluated the first stage again after a rejection: 6 per attempt).  A
 * right-hand side that asks for a retry (> 0) has the attempt rejected with a quarter of the step;
 * a step too small to move t fails ("a singularity is likely", MATLAB 4's words).  Roots are
 * located by bisection on steps re-taken from the step's start (like rk4). */

/* right-hand side: ydot = f(t, y).  Return 0 ok, > 0 recoverable (the solver retries a smaller step;
 * rk4 treats it as an error), < 0 stop: the solver returns that same negative code and leaves err
 * untouched (the callback is expected to have filled its own error).  After a stop the rhs is not
 * called again.  rk45 retries from the last accepted state with a quarter of the step (ERKStep 6.4
 * cannot retry by itself), at most 10 times in a row. */
typedef int (*mbd_ode_rhs_fn)(double t, const double *y, double *ydot, void *ud);

/* called at every requested output time with the (interpolated) state; < 0 stops the run with that
 * code (err untouched), 0 continues. */
typedef int (*mbd_ode_output_fn)(double t, const double *y, void *ud);

/* called after every accepted internal step with the solver's state at t, which the callback may
 * change in place (a coordinate re-partition, a projection).  Return 0: continue unchanged;
 * 1: y was changed, restart the solver from (t, y) (history discarded; counted in stats->restarts
 * each time, rk4 only counts it); < 0: stop with that code.  Outputs strictly before t are
 * interpolated from the step before the callback runs; an output exactly at t gets y after it. */
typedef int (*mbd_ode_step_fn)(double t, double *y, void *ud);

typedef struct mbd_ode_opts {
  int kind;         /* mbd_integrator_kind */
  double rtol;      /* relative tolerance (variable-step kinds) */
  double atol;      /* absolute tolerance (scalar, all components) */
  double step;      /* rk4: fixed step h (required > 0); others: initial step, 0 = solver's choice */
  double max_step;  /* largest step, 0 = unlimited */
  long max_steps;   /* largest number of internal steps over the whole run, 0 = 10^7 */
  int max_order;    /* adams (1–12) and bdf (1–5): the highest order CVODE may choose, 0 = 12
                     * and 5; the other kinds: 0.  BDF above order 2 loses stability near the
                     * imaginary axis: lightly damped fast modes (flexible bodies) then hold its
                     * step down, and max_order = 2 lets it step over them */
} mbd_ode_opts;

typedef struct mbd_ode_stats {
  long nfev;        /* right-hand-side evaluations, including those for Jacobians */
  long steps;       /* accepted internal steps */
  long rejected;    /* steps rejected by the error test or by a nonlinear-solver failure */
  long nonlin_iters; /* nonlinear (corrector) iterations, CVODE only */
  long jac_evals;   /* Jacobian evaluations (BDF) */
  long restarts;    /* solver restarts requested by the step callback */
  double avg_step;  /* (t_reached - t0) / steps */
  double last_step; /* size of the last accepted step */
  double t_reached; /* time of the last accepted step (t of the last output on success) */
} mbd_ode_stats;

/* integrate y' = f(t, y) from t0 through the output times tout[0..ntout-1] (increasing, all > t0 or
 * the first == t0, which is output at once without a step).  The output callback gets exactly
 * tout[k] as its time.  Variable-step kinds stop at tout[ntout-1] and interpolate the others, so
 * their steps and rhs evaluations do not depend on ntout; rk4 takes ceil((tout[k]-tout[k-1])/h)
 * equal steps between outputs.
 * y: in, y(t0) of size n; out, the state at the last accepted step (stats->t_reached).
 * output: may be NULL.  step: may be NULL.  stats: may be NULL, else zeroed and filled.
 * Returns MBD_OK, a negative code from a callback, MBD_E_INPUT for bad options (message in err),
 * MBD_E_INTEGRATOR when the solver fails (message names the time, the step and the solver's flag),
 * MBD_E_NOMEM.  Outputs already delivered stay delivered when it fails.  No allocation happens
 * between steps; the solver memory is made at the start and freed at the end. */
int mbd_ode_solve(int n, double t0, double *y, const double *tout, int ntout,
                  const mbd_ode_opts *opts, mbd_ode_rhs_fn rhs, mbd_ode_output_fn output,
                  mbd_ode_step_fn step, void *ud, mbd_ode_stats *stats, mbd_error *err);

/* ------------------------------------------------------------------------------------------ */
/* lifecycle: a solver that lives across segments, with root functions and restarts           */
/*                                                                                              */
/* mbd_ode_solve above is one call (create, drive, free).  A driver that runs a simulation in     */
/* segments between events uses the lifecycle instead:                                            */
/*                                                                                              */
/*   mbd_ode_new(&s, n, t0, y0, &opts, rhs, ud, err);                                             */
/*   mbd_ode_set_output(s, tout, ntout, output, err);      optional                                */
/*   mbd_ode_set_step_fn(s, step);                          optional                                */
/*   mbd_ode_set_roots(s, nroot, g, err);                   optional                                */
/*   while ((rc = mbd_ode_integrate_until(s, t_end, &t, y, err)) == MBD_ROOT) {                   */
/*     mbd_ode_roots_found(s, found);  ... handle the event at t ...                               */
/*     mbd_ode_reinit(s, n_new, t, y_new, err);             when the state or its size changed     */
/*   }                                                                                            */
/*   mbd_ode_get_stats(s, &st);  mbd_ode_free(s);                                                 */
/*                                                                                              */
/* Statistics accumulate over every segment and restart.  Nothing allocates between steps; only  */
/* new, set_output, set_roots and a reinit that changes n allocate.  mbd_ode_solve is exactly    */
/* new, set_output, set_step_fn, one integrate_until to the last output time, and free.         */

typedef struct mbd_ode mbd_ode;

/* root functions: gout[0..nroot) at (t, y).  0 ok, < 0 stop the integration with that code (err
 * filled by the callback, as for the rhs); any other value is a failure (MBD_E_INTEGRATOR).  A root
 * is where a component changes sign; a component that is exactly zero where a step (or a restart)
 * begins is not checked until it has left zero, so a handler that puts the state exactly on the
 * surface g_i = 0 does not find the same event again. */
typedef int (*mbd_ode_root_fn)(double t, const double *y, double *gout, void *ud);

/* a solver of opts->kind for y' = rhs(t, y), n components, starting at (t0, y0) (copied); ud is
 * given to every callback.  Options are checked as in mbd_ode_solve (MBD_E_INPUT with the same
 * templates, the message naming mbd_ode_new).  *out is NULL on failure. */
int mbd_ode_new(mbd_ode **out, int n, double t0, const double *y0, const mbd_ode_opts *opts,
                mbd_ode_rhs_fn rhs, void *ud, mbd_error *err);

/* output times (increasing; copied) and the callback that receives the (interpolated) state at
 * each of them, exactly as in mbd_ode_solve; output times at or before the current time that were
 * not yet delivered are skipped, except one equal to the current time, which the next
 * mbd_ode_integrate_until delivers at once.  ntout = 0 removes the outputs.  output may be NULL
 * (rk4 still lands its steps on the times).  Replaces the previous times; allocates. */
int mbd_ode_set_output(mbd_ode *s, const double *tout, int ntout, mbd_ode_output_fn output,
                       mbd_error *err);

/* the callback after every accepted step (mbd_ode_step_fn: 0, 1 = y changed: restart, < 0 stop);
 * NULL removes it */
void mbd_ode_set_step_fn(mbd_ode *s, mbd_ode_step_fn step);

/* root functions g with nroot components (nroot = 0 removes them).  CVODE and ARKODE locate a
 * root with their own root finding on their interpolant (the one the outputs use), to about 100
 * units of round-off in t; the root is then as accurate as that interpolant (ARKODE's Lagrange
 * interpolant is less accurate than its steps).  rk4 looks for a sign change over each step and
 * bisects by re-taking the step from its start with a shorter step (4 rhs evaluations each,
 * counted in nfev) until the bracket is below 1e-12·max(1, |t|), at most 60 times.  The root
 * reported is the end of the final bracket where g has already changed sign (or is zero), so going
 * on from it does not find it again.  Given to a SUNDIALS solver that has already stepped, the
 * functions take effect through a restart from the current state (counted in stats.restarts).
 * Allocates when nroot grows. */
int mbd_ode_set_roots(mbd_ode *s, int nroot, mbd_ode_root_fn g, mbd_error *err);

/* integrate from the current time until tstop (finite, > the current time), delivering the
 * outputs on the way and calling the step callback after each accepted step.  Variable-step kinds
 * step with a stop time at tstop and interpolate the outputs; rk4 takes equal steps of at most h
 * between the outputs up to tstop and tstop itself, landing on each exactly (a new grid starts at
 * the current time, e.g. at a root).  Returns
 *   MBD_OK    *t = tstop, y = the state there (outputs up to and including tstop delivered);
 *   MBD_ROOT  a root function crossed zero: *t = the root, y = the state at it; outputs strictly
 *             before *t were delivered, the others not yet; mbd_ode_roots_found tells which;
 *             integration may go on with another mbd_ode_integrate_until (from the root) or after
 *             mbd_ode_reinit.  The step callback is not called at a root: a SUNDIALS solver has
 *             already stepped past it and calls it at the end of that step when going on (a tstop
 *             inside that step is interpolated, without a step); rk4's step to the root (counted
 *             as one step) gets none;
 *   < 0       a callback's code, MBD_E_INTEGRATOR (message as in mbd_ode_solve) or MBD_E_INPUT
 *             (nothing done).  After a failure *t, y are the last accepted step's.
 * t and y (the current size) may be NULL. */
int mbd_ode_integrate_until(mbd_ode *s, double tstop, double *t, double *y, mbd_error *err);

/* after MBD_ROOT: found[i] = +1 (g_i rose through zero), −1 (fell), 0 (no root), nroot entries;
 * all 0 again once a later mbd_ode_integrate_until has started */
void mbd_ode_roots_found(const mbd_ode *s, int *found);

/* restart at (t, y) with n components (history discarded, counters kept).  n may differ from the
 * current size: the solver's vectors and memory are then made anew (this allocates), keeping the
 * options, root functions (nroot unchanged: g must accept the new size), step callback, outputs and
 * statistics.  Outputs before t are skipped; one at t is delivered by the next
 * mbd_ode_integrate_until.  Counted in stats.restarts.  Bad input (MBD_E_INPUT) or a failed
 * allocation (MBD_E_NOMEM) leaves the solver as it was. */
int mbd_ode_reinit(mbd_ode *s, int n, double t, const double *y, mbd_error *err);

/* the current time (NAN for NULL) and state size (0 for NULL) */
double mbd_ode_time(const mbd_ode *s);
int mbd_ode_size(const mbd_ode *s);

/* counters over all segments and restarts since mbd_ode_new (avg_step over the time covered by
 * the integrate_until calls; t_reached = the current time) */
void mbd_ode_get_stats(const mbd_ode *s, mbd_ode_stats *st);

void mbd_ode_free(mbd_ode *s);

/* default for opts->max_steps == 0: the largest number of internal steps over a whole run (10^7) */
long mbd_ode_default_max_steps(void);

/* fill opts with the defaults for kind: rtol 1e-6, atol 1e-8, step 0 (rk4: 1e-3), max_step 0
 * (unlimited), max_steps 0 (mbd_ode_default_max_steps()), max_order 0 (the method's own).  Returns MBD_OK, or MBD_E_INPUT for an
 * unknown kind (opts is then filled as for adams) or a NULL opts. */
int mbd_ode_opts_default(mbd_ode_opts *opts, int kind);

/* the tolerances a run's options may hold (every reader of rtol and atol asks this): rtol between
 * 0 and 1, atol positive and finite; MBD_OK, or MBD_E_INPUT naming fn ("simulate") and both */
int mbd_ode_check_tolerances(const char *fn, double rtol, double atol, mbd_error *err);

/* name of an integrator kind ("adams"); NULL for an unknown kind */
const char *mbd_integrator_name(int kind);

/* kind from a name; -1 for an unknown name */
int mbd_integrator_from_name(const char *name);

#endif
