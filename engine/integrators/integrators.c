/* ODE integrators (see mbd/integrators.h): CVODE Adams and BDF, ARKODE ERKStep Dormand–Prince 5(4),
 * and a hand-written fixed-step RK4.
 *
 * The SUNDIALS kinds share one driver: the solver runs in one-step mode with a stop time at the
 * last output time; after every accepted step the outputs passed by the step are interpolated from
 * the solver's dense output, then the step callback runs and may restart the solver.  Each solver
 * is reached through a small table of operations (sun_ops) so the driver does not care which it is.
 */
#include "mbd/integrators.h"

#include <arkode/arkode.h>
#include <arkode/arkode_butcher_erk.h>
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "integrators_impl.h"

/* ------------------------------------------------------------------------------------------------
 * names and defaults
 * ---------------------------------------------------------------------------------------------- */

// names indexed by mbd_integrator_kind
static const char *const kind_names[] = {"adams", "bdf", "rk45", "rk4"};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

const char *mbd_integrator_name(int kind) {
  if (kind < 0 || kind >= NKINDS) {
    return NULL;
  }
  return kind_names[kind];
}

int mbd_integrator_from_name(const char *name) {
  // linear search over four names
  if (name) {
    for (int k = 0; k < NKINDS; k++) {
      if (strcmp(name, kind_names[k]) == 0) {
        return k;
      }
    }
  }
  return -1;
}

long mbd_ode_default_max_steps(void) { return 10000000L; }

int mbd_ode_opts_default(mbd_ode_opts *opts, int kind) {
  if (!opts) {
    return MBD_E_INPUT;
  }
  // tolerances suited to mechanism states of order one; rk4 needs its own fixed step
  int ok = kind >= 0 && kind < NKINDS;
  opts->kind = ok ? kind : MBD_INT_ADAMS;
  opts->rtol = 1e-6;
  opts->atol = 1e-8;
  opts->step = (opts->kind == MBD_INT_RK4) ? 1e-3 : 0.0;
  opts->max_step = 0.0;
  opts->max_steps = 0;
  return ok ? MBD_OK : MBD_E_INPUT;
}

/* ------------------------------------------------------------------------------------------------
 * input validation
 * ---------------------------------------------------------------------------------------------- */

// every argument and option checked before anything is allocated; MBD_E_INPUT names the culprit
static int check_input(int n, double t0, const double *y, const double *tout, int ntout,
                       const mbd_ode_opts *o, mbd_ode_rhs_fn rhs, mbd_error *err) {
  // pointers and sizes
  if (!y) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "y");
  }
  if (!tout) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "tout");
  }
  if (!o) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "opts");
  }
  if (!rhs) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "rhs");
  }
  if (n < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_N, n);
  }
  if (ntout < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NTOUT, ntout);
  }
  if (o->kind < 0 || o->kind >= NKINDS) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_KIND, o->kind);
  }

  // step and tolerance options: rk4 needs a step, the others tolerances
  const char *name = mbd_integrator_name(o->kind);
  if (o->kind == MBD_INT_RK4) {
    if (!(o->step > 0.0) || !isfinite(o->step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_STEP_RK4, o->step);
    }
  } else {
    if (!(o->rtol > 0.0) || !isfinite(o->rtol)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_RTOL, name, o->rtol);
    }
    if (!(o->atol > 0.0) || !isfinite(o->atol)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_ATOL, name, o->atol);
    }
    if (!(o->step >= 0.0) || !isfinite(o->step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_STEP, name, o->step);
    }
    if (!(o->max_step >= 0.0) || !isfinite(o->max_step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_STEP, name, o->max_step);
    }
  }
  if (o->max_steps < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_STEPS, o->max_steps);
  }

  // times: t0 finite, tout[0] >= t0, then strictly increasing
  if (!isfinite(t0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_T0, t0);
  }
  for (int k = 0; k < ntout; k++) {
    if (!isfinite(tout[k])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT_NAN, k);
    }
    if (k == 0 && tout[0] < t0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT0, tout[0], t0);
    }
    if (k > 0 && !(tout[k] > tout[k - 1])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT, k, tout[k], k - 1, tout[k - 1]);
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------------
 * fixed-step RK4
 * ---------------------------------------------------------------------------------------------- */

// one classical RK4 step of size h from (t, y) into y; w holds 5n doubles (k1..k4, stage state)
static int rk4_step(int n, double t, double h, double *y, double *w, mbd_ode_rhs_fn rhs, void *ud,
                    int *bad) {
  double *k1 = w, *k2 = w + n, *k3 = w + 2 * n, *k4 = w + 3 * n, *ys = w + 4 * n;
  int rc;
  // stage 1 at t
  if ((rc = rhs(t, y, k1, ud)) != 0) {
    *bad = rc;
    return rc;
  }
  // stage 2 at t + h/2 with y + h/2 k1
  for (int i = 0; i < n; i++) {
    ys[i] = y[i] + 0.5 * h * k1[i];
  }
  if ((rc = rhs(t + 0.5 * h, ys, k2, ud)) != 0) {
    *bad = rc;
    return rc;
  }
  // stage 3 at t + h/2 with y + h/2 k2
  for (int i = 0; i < n; i++) {
    ys[i] = y[i] + 0.5 * h * k2[i];
  }
  if ((rc = rhs(t + 0.5 * h, ys, k3, ud)) != 0) {
    *bad = rc;
    return rc;
  }
  // stage 4 at t + h with y + h k3
  for (int i = 0; i < n; i++) {
    ys[i] = y[i] + h * k3[i];
  }
  if ((rc = rhs(t + h, ys, k4, ud)) != 0) {
    *bad = rc;
    return rc;
  }
  // weights 1/6, 1/3, 1/3, 1/6
  for (int i = 0; i < n; i++) {
    y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return 0;
}

// the rk4 driver: ceil(dt/h - 1e-9) equal steps between outputs, landing on each exactly
static int solve_rk4(int n, double t0, double *y, const double *tout, int ntout,
                     const mbd_ode_opts *o, mbd_ode_rhs_fn rhs, mbd_ode_output_fn output,
                     mbd_ode_step_fn step, void *ud, mbd_ode_stats *st, long max_steps,
                     mbd_error *err) {
  // stage workspace allocated once for the whole run
  double *w = malloc((size_t)5 * (size_t)n * sizeof *w);
  if (!w) {
    return MBD_FAIL(err, MBD_E_NOMEM, "rk4: cannot allocate %d stage values", 5 * n);
  }
  int status = MBD_OK;
  double t = t0;
  for (int k = 0; k < ntout && status == MBD_OK; k++) {
    // equal steps of size <= h over [t, tout[k]]; m capped where the step limit stops the run
    double dt = tout[k] - t;
    double m = ceil(dt / o->step - 1e-9);
    if (m < 1.0) {
      m = 1.0;
    }
    double left = (double)(max_steps - st->steps);
    long nstep = (m > left) ? (long)left + 1 : (long)m;
    double ta = t, hh = dt / m;
    for (long i = 0; i < nstep; i++) {
      // the run-wide step limit
      if (st->steps >= max_steps) {
        status = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_TOO_MANY, "rk4", max_steps, t,
                          st->last_step, "too many steps");
        break;
      }
      // one step; rhs > 0 cannot be retried at a fixed step, rhs < 0 stops with its own code
      int bad = 0;
      if (rk4_step(n, t, hh, y, w, rhs, ud, &bad) != 0) {
        status = (bad < 0) ? bad : MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RK4_RECOV, bad, t);
        break;
      }
      // the last step of the interval lands exactly on the output time
      t = ((double)(i + 1) == m) ? tout[k] : ta + (double)(i + 1) * hh;
      st->steps++;
      st->nfev += 4;
      st->last_step = hh;
      st->t_reached = t;
      // step callback: a one-step method has no history to discard, a restart is only counted
      if (step) {
        int rc = step(t, y, ud);
        if (rc < 0) {
          status = rc;
          break;
        }
        if (rc == 1) {
          st->restarts++;
        }
      }
    }
    // the output at tout[k]
    if (status == MBD_OK && output) {
      int rc = output(tout[k], y, ud);
      if (rc < 0) {
        status = rc;
      }
    }
  }
  free(w);
  return status;
}

/* ------------------------------------------------------------------------------------------------
 * SUNDIALS: what a run owns, the callbacks, and the operations table
 * ---------------------------------------------------------------------------------------------- */

// what the SUNDIALS callbacks see as user data
typedef struct ode_ctx {
  mbd_ode_rhs_fn rhs; /* the caller's right-hand side */
  void *ud;           /* the caller's user data */
  int stop;           /* negative code returned by the caller's rhs, 0 if none (sticky) */
  int recov;          /* the caller's rhs asked for a retry (> 0) during the current step */
  char sunmsg[320];   /* SUNDIALS' last error message ("function: text") */
} ode_ctx;

// everything a SUNDIALS run owns, freed together, plus the driver's bookkeeping
typedef struct sun_run {
  SUNContext sunctx;      /* SUNDIALS 6 context */
  N_Vector y;             /* solver state (n) */
  N_Vector yout;          /* interpolated output (n) */
  N_Vector ylast;         /* state after the last accepted step and its step callback (n) */
  SUNMatrix A;            /* BDF: dense Jacobian (n x n) */
  SUNLinearSolver LS;     /* BDF: dense LU */
  SUNNonlinearSolver NLS; /* Adams: fixed-point iteration */
  void *mem;              /* CVODE or ERKStep memory */
  int kind;               /* mbd_integrator_kind: which of the two owns mem */
  double tlast;           /* time of ylast */
  double hlast;           /* size of the last accepted step (0 before the first) */
  double hmin;            /* smallest step: below it a retried step is a failure */
  double hinit;           /* the caller's initial step (0: the solver's choice) */
  mbd_ode_stats done;     /* counters of the solver segments before the last (re)init */
} sun_run;

// the right-hand side as SUNDIALS calls it (CVRhsFn and ARKRhsFn have the same shape)
static int sun_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data) {
  ode_ctx *c = data;
  // once the caller asked to stop, every later call fails the same way without calling it again
  if (c->stop < 0) {
    return c->stop;
  }
  int rc = c->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), c->ud);
  if (rc < 0) {
    c->stop = rc;
  } else if (rc > 0) {
    c->recov = 1;
  }
  return rc;
}

// SUNDIALS reports here instead of stderr; errors are kept for the message, warnings dropped
static void sun_err(int code, const char *module, const char *function, char *msg, void *data) {
  ode_ctx *c = data;
  (void)module;
  if (code < 0) {
    snprintf(c->sunmsg, sizeof c->sunmsg, "%s: %s", function ? function : "?", msg ? msg : "");
  }
}

// the operations the driver needs from a solver
typedef struct sun_ops {
  const char *name;                                             /* for messages */
  int (*step)(sun_run *r, ode_ctx *c, double tstop, double *t); /* one step, < 0 on failure */
  int (*dky)(void *mem, double t, N_Vector out);                /* interpolate y(t) */
  int (*reinit)(sun_run *r, double t, double tstop);            /* restart from (t, r->y) */
  char *(*flag_name)(long flag);                                /* malloc'd flag name */
  void (*stats)(void *mem, mbd_ode_stats *s); /* counters since the last (re)init */
  double (*last_step)(void *mem);             /* size of the last accepted step */
  int too_much_work;                          /* the solver's "too much work" flag */
} sun_ops;

// add the counters of one solver segment (between restarts) to the running totals
static void add_segment(mbd_ode_stats *st, const mbd_ode_stats *seg) {
  st->steps += seg->steps;
  st->nfev += seg->nfev;
  st->rejected += seg->rejected;
  st->nonlin_iters += seg->nonlin_iters;
  st->jac_evals += seg->jac_evals;
}

/* --- CVODE (Adams and BDF) --- */

static int cv_step(sun_run *r, ode_ctx *c, double tstop, double *t) {
  (void)c;
  return CVode(r->mem, tstop, r->y, t, CV_ONE_STEP);
}

static int cv_dky(void *mem, double t, N_Vector out) { return CVodeGetDky(mem, t, 0, out); }

static void cv_stats(void *mem, mbd_ode_stats *s) {
  long nst = 0, nfe = 0, nfels = 0, netf = 0, ncfn = 0, nni = 0, nje = 0;
  CVodeGetNumSteps(mem, &nst);
  CVodeGetNumRhsEvals(mem, &nfe);
  CVodeGetNumErrTestFails(mem, &netf);
  CVodeGetNumStepSolveFails(mem, &ncfn);
  CVodeGetNumNonlinSolvIters(mem, &nni);
  // the linear-solver counters exist only with a linear solver attached (BDF)
  if (CVodeGetNumLinRhsEvals(mem, &nfels) != CV_SUCCESS) {
    nfels = 0;
  }
  if (CVodeGetNumJacEvals(mem, &nje) != CV_SUCCESS) {
    nje = 0;
  }
  s->steps = nst;
  s->nfev = nfe + nfels;
  s->rejected = netf + ncfn;
  s->nonlin_iters = nni;
  s->jac_evals = nje;
}

static int cv_reinit(sun_run *r, double t, double tstop) {
  // CVodeReInit zeroes the counters: keep them first
  mbd_ode_stats seg = {0};
  cv_stats(r->mem, &seg);
  add_segment(&r->done, &seg);
  int f = CVodeReInit(r->mem, t, r->y);
  // the stop time is set again in case the reinit cleared it
  return (f < 0) ? f : CVodeSetStopTime(r->mem, tstop);
}

static double cv_last_step(void *mem) {
  sunrealtype h = 0.0;
  CVodeGetLastStep(mem, &h);
  return h;
}

static const sun_ops cv_ops_adams = {.name = ODE_NAME_ADAMS,
                                     .step = cv_step,
                                     .dky = cv_dky,
                                     .reinit = cv_reinit,
                                     .flag_name = CVodeGetReturnFlagName,
                                     .stats = cv_stats,
                                     .last_step = cv_last_step,
                                     .too_much_work = CV_TOO_MUCH_WORK};
static const sun_ops cv_ops_bdf = {.name = ODE_NAME_BDF,
                                   .step = cv_step,
                                   .dky = cv_dky,
                                   .reinit = cv_reinit,
                                   .flag_name = CVodeGetReturnFlagName,
                                   .stats = cv_stats,
                                   .last_step = cv_last_step,
                                   .too_much_work = CV_TOO_MUCH_WORK};

/* --- ARKODE ERKStep (Dormand–Prince 5(4)) --- */

// retries of one step after rhs > 0, and the step reduction of each (CVODE's MXNCF and ETACF)
#define ERK_MAX_RETRIES 10
#define ERK_RETRY_ETA 0.25

static void erk_stats(void *mem, mbd_ode_stats *s) {
  long nst = 0, natt = 0, nfe = 0;
  ERKStepGetNumSteps(mem, &nst);
  ERKStepGetNumStepAttempts(mem, &natt);
  ERKStepGetNumRhsEvals(mem, &nfe);
  // an explicit method has no corrector and no Jacobian; every failed attempt is a rejected step
  s->steps = nst;
  s->nfev = nfe;
  s->rejected = natt - nst;
  s->nonlin_iters = 0;
  s->jac_evals = 0;
}

// restart ERKStep at (t, y0) with initial step h0 (0: its own estimate), keeping the counters
static int erk_restart(sun_run *r, double t, N_Vector y0, double h0, double tstop) {
  mbd_ode_stats seg = {0};
  erk_stats(r->mem, &seg);
  add_segment(&r->done, &seg);
  int f = ERKStepReInit(r->mem, sun_rhs, t, y0);
  // the initial step and the stop time are set again in case the reinit cleared them
  if (f >= 0) {
    f = ERKStepSetInitStep(r->mem, h0);
  }
  return (f < 0) ? f : ERKStepSetStopTime(r->mem, tstop);
}

/* one step.  ERKStep 6.4 cannot retry a step whose rhs returned > 0 (it reports
 * ARK_UNREC_RHSFUNC_ERR), so the retry is done here: restart from the last accepted state with a
 * quarter of the failed step, at most ERK_MAX_RETRIES times and never below hmin. */
static int erk_step(sun_run *r, ode_ctx *c, double tstop, double *t) {
  for (int tries = 0;; tries++) {
    c->recov = 0;
    int f = ERKStepEvolve(r->mem, tstop, r->y, t, ARK_ONE_STEP);
    if (f != ARK_UNREC_RHSFUNC_ERR || !c->recov || c->stop < 0 || tries == ERK_MAX_RETRIES) {
      return f;
    }
    // the failed attempt's step, else the last accepted one, reduced
    sunrealtype h = 0.0;
    ERKStepGetCurrentStep(r->mem, &h);
    if (!(h > 0.0)) {
      ERKStepGetLastStep(r->mem, &h);
    }
    h *= ERK_RETRY_ETA;
    if (!(h > r->hmin)) {
      return f;
    }
    r->done.rejected++;
    int g = erk_restart(r, r->tlast, r->ylast, h, tstop);
    if (g < 0) {
      return g;
    }
  }
}

static int erk_dky(void *mem, double t, N_Vector out) { return ERKStepGetDky(mem, t, 0, out); }

static int erk_reinit(sun_run *r, double t, double tstop) {
  return erk_restart(r, t, r->y, r->hinit, tstop);
}

static double erk_last_step(void *mem) {
  sunrealtype h = 0.0;
  ERKStepGetLastStep(mem, &h);
  return h;
}

static const sun_ops erk_ops = {.name = ODE_NAME_RK45,
                                .step = erk_step,
                                .dky = erk_dky,
                                .reinit = erk_reinit,
                                .flag_name = ERKStepGetReturnFlagName,
                                .stats = erk_stats,
                                .last_step = erk_last_step,
                                .too_much_work = ARK_TOO_MUCH_WORK};

/* ------------------------------------------------------------------------------------------------
 * SUNDIALS: setup
 * ---------------------------------------------------------------------------------------------- */

static void sun_run_free(sun_run *r) {
  // solver memory first, then what it refers to
  if (r->mem) {
    if (r->kind == MBD_INT_RK45) {
      ERKStepFree(&r->mem);
    } else {
      CVodeFree(&r->mem);
    }
  }
  if (r->NLS) {
    SUNNonlinSolFree(r->NLS);
  }
  if (r->LS) {
    SUNLinSolFree(r->LS);
  }
  if (r->A) {
    SUNMatDestroy(r->A);
  }
  N_Vector *vs[3] = {&r->ylast, &r->yout, &r->y};
  for (int i = 0; i < 3; i++) {
    if (*vs[i]) {
      N_VDestroy(*vs[i]);
    }
  }
  if (r->sunctx) {
    SUNContext_Free(&r->sunctx);
  }
}

// report a failed setup call: the function, the flag and SUNDIALS' text
static int setup_fail(const sun_ops *ops, ode_ctx *c, const char *what, int flag, mbd_error *err) {
  char *fname = ops->flag_name(flag);
  int rc = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_SETUP, ops->name, what,
                    fname ? fname : "unknown flag", c->sunmsg[0] ? c->sunmsg : "no message");
  free(fname);
  return rc;
}

// the CVODE part of the setup: Adams with fixed-point iteration or BDF with Newton + dense LU
static int setup_cvode(sun_run *r, const sun_ops *ops, ode_ctx *c, int n, double t0,
                       const mbd_ode_opts *o, double tstop, long max_steps, mbd_error *err) {
  int flag;
  r->mem = CVodeCreate(o->kind == MBD_INT_BDF ? CV_BDF : CV_ADAMS, r->sunctx);
  if (!r->mem) {
    return MBD_FAIL(err, MBD_E_NOMEM, "%s: CVodeCreate failed", ops->name);
  }
  // error handler first, so nothing reaches stderr from here on
  if ((flag = CVodeSetErrHandlerFn(r->mem, sun_err, c)) < 0) {
    return setup_fail(ops, c, "CVodeSetErrHandlerFn", flag, err);
  }
  if ((flag = CVodeInit(r->mem, sun_rhs, t0, r->y)) < 0) {
    return setup_fail(ops, c, "CVodeInit", flag, err);
  }
  if ((flag = CVodeSetUserData(r->mem, c)) < 0) {
    return setup_fail(ops, c, "CVodeSetUserData", flag, err);
  }
  if ((flag = CVodeSStolerances(r->mem, o->rtol, o->atol)) < 0) {
    return setup_fail(ops, c, "CVodeSStolerances", flag, err);
  }
  // the corrector: fixed point for Adams (non-stiff, no Jacobian), Newton with dense LU for BDF
  if (o->kind == MBD_INT_ADAMS) {
    r->NLS = SUNNonlinSol_FixedPoint(r->y, 0, r->sunctx);
    if (!r->NLS) {
      return MBD_FAIL(err, MBD_E_NOMEM, "%s: SUNNonlinSol_FixedPoint failed", ops->name);
    }
    if ((flag = CVodeSetNonlinearSolver(r->mem, r->NLS)) < 0) {
      return setup_fail(ops, c, "CVodeSetNonlinearSolver", flag, err);
    }
  } else {
    r->A = SUNDenseMatrix(n, n, r->sunctx);
    r->LS = r->A ? SUNLinSol_Dense(r->y, r->A, r->sunctx) : NULL;
    if (!r->LS) {
      return MBD_FAIL(err, MBD_E_NOMEM, "%s: dense matrix or linear solver failed", ops->name);
    }
    // no Jacobian function: CVODE's difference quotients
    if ((flag = CVodeSetLinearSolver(r->mem, r->LS, r->A)) < 0) {
      return setup_fail(ops, c, "CVodeSetLinearSolver", flag, err);
    }
  }
  // step limits: the driver counts steps over the run itself, CVODE's limit is per call
  if ((flag = CVodeSetMaxNumSteps(r->mem, max_steps)) < 0) {
    return setup_fail(ops, c, "CVodeSetMaxNumSteps", flag, err);
  }
  if ((flag = CVodeSetMinStep(r->mem, r->hmin)) < 0) {
    return setup_fail(ops, c, "CVodeSetMinStep", flag, err);
  }
  if (o->step > 0.0 && (flag = CVodeSetInitStep(r->mem, o->step)) < 0) {
    return setup_fail(ops, c, "CVodeSetInitStep", flag, err);
  }
  if (o->max_step > 0.0 && (flag = CVodeSetMaxStep(r->mem, o->max_step)) < 0) {
    return setup_fail(ops, c, "CVodeSetMaxStep", flag, err);
  }
  if ((flag = CVodeSetStopTime(r->mem, tstop)) < 0) {
    return setup_fail(ops, c, "CVodeSetStopTime", flag, err);
  }
  return MBD_OK;
}

/* the ARKODE part of the setup: explicit Dormand–Prince 5(4), ode45's pair.  Dense output uses
 * ARKODE's Lagrange interpolant (past solution values only): its Hermite interpolant needs f at the
 * step's end, which ERKStep 6.4 evaluates again on every ERKStepGetDky call, so the number of rhs
 * evaluations would grow with the number of outputs. */
static int setup_erk(sun_run *r, const sun_ops *ops, ode_ctx *c, double t0, const mbd_ode_opts *o,
                     double tstop, long max_steps, mbd_error *err) {
  int flag;
  r->mem = ERKStepCreate(sun_rhs, t0, r->y, r->sunctx);
  if (!r->mem) {
    return MBD_FAIL(err, MBD_E_NOMEM, "%s: ERKStepCreate failed", ops->name);
  }
  // error handler first, so nothing reaches stderr from here on
  if ((flag = ERKStepSetErrHandlerFn(r->mem, sun_err, c)) < 0) {
    return setup_fail(ops, c, "ERKStepSetErrHandlerFn", flag, err);
  }
  if ((flag = ERKStepSetUserData(r->mem, c)) < 0) {
    return setup_fail(ops, c, "ERKStepSetUserData", flag, err);
  }
  if ((flag = ERKStepSetInterpolantType(r->mem, ARK_INTERP_LAGRANGE)) < 0) {
    return setup_fail(ops, c, "ERKStepSetInterpolantType", flag, err);
  }
  if ((flag = ERKStepSetTableNum(r->mem, ARKODE_DORMAND_PRINCE_7_4_5)) < 0) {
    return setup_fail(ops, c, "ERKStepSetTableNum", flag, err);
  }
  if ((flag = ERKStepSStolerances(r->mem, o->rtol, o->atol)) < 0) {
    return setup_fail(ops, c, "ERKStepSStolerances", flag, err);
  }
  // step limits: the driver counts steps over the run itself, ARKODE's limit is per call
  if ((flag = ERKStepSetMaxNumSteps(r->mem, max_steps)) < 0) {
    return setup_fail(ops, c, "ERKStepSetMaxNumSteps", flag, err);
  }
  if ((flag = ERKStepSetMinStep(r->mem, r->hmin)) < 0) {
    return setup_fail(ops, c, "ERKStepSetMinStep", flag, err);
  }
  if (o->step > 0.0 && (flag = ERKStepSetInitStep(r->mem, o->step)) < 0) {
    return setup_fail(ops, c, "ERKStepSetInitStep", flag, err);
  }
  if (o->max_step > 0.0 && (flag = ERKStepSetMaxStep(r->mem, o->max_step)) < 0) {
    return setup_fail(ops, c, "ERKStepSetMaxStep", flag, err);
  }
  if ((flag = ERKStepSetStopTime(r->mem, tstop)) < 0) {
    return setup_fail(ops, c, "ERKStepSetStopTime", flag, err);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------------
 * SUNDIALS: the driver
 * ---------------------------------------------------------------------------------------------- */

// MBD_E_INTEGRATOR naming the solver, the time reached, the last step, the flag and SUNDIALS' text
static int solver_fail(const sun_run *r, const sun_ops *ops, const ode_ctx *c, int flag,
                       mbd_error *err) {
  char *fname = ops->flag_name(flag);
  int rc = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_FAIL, ops->name, r->tlast, r->hlast,
                    fname ? fname : "unknown flag", c->sunmsg[0] ? c->sunmsg : "no message");
  free(fname);
  return rc;
}

// run the solver one step at a time to the last output time
static int drive(sun_run *r, const sun_ops *ops, ode_ctx *c, int n, double *y, const double *tout,
                 int ntout, int k, mbd_ode_output_fn output, mbd_ode_step_fn step, void *ud,
                 mbd_ode_stats *st, long max_steps, mbd_error *err) {
  double tstop = tout[ntout - 1], t = r->tlast;
  double *yv = N_VGetArrayPointer(r->y), *yo = N_VGetArrayPointer(r->yout);
  double *yl = N_VGetArrayPointer(r->ylast);
  size_t ny = (size_t)n * sizeof *y;
  mbd_ode_stats seg = {0}; /* counters of the current segment */
  int status = MBD_OK;

  while (k < ntout) {
    // the run-wide step limit (one-step mode makes the solver's own limit per step)
    ops->stats(r->mem, &seg);
    if (r->done.steps + seg.steps >= max_steps) {
      char *fname = ops->flag_name(ops->too_much_work);
      status = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_TOO_MANY, ops->name, max_steps, r->tlast,
                        r->hlast, fname ? fname : "too much work");
      free(fname);
      break;
    }

    // one accepted step; a stop requested by the rhs wins over whatever the solver made of it
    c->sunmsg[0] = '\0';
    int flag = ops->step(r, c, tstop, &t);
    if (c->stop < 0) {
      status = c->stop;
      break;
    }
    if (flag < 0) {
      status = solver_fail(r, ops, c, flag, err);
      break;
    }
    // a restart zeroes the solver's own record of the last step, so it is kept here
    double h = ops->last_step(r->mem);
    if (h != 0.0) {
      r->hlast = fabs(h);
    }

    // outputs strictly inside the step come from the dense output of the step just taken
    while (k < ntout && tout[k] < t) {
      int f = ops->dky(r->mem, tout[k], r->yout);
      if (f < 0) {
        status = solver_fail(r, ops, c, f, err);
        break;
      }
      int rc = output ? output(tout[k], yo, ud) : 0;
      if (rc < 0) {
        status = rc;
        break;
      }
      k++;
    }
    if (status != MBD_OK) {
      break;
    }

    // the step callback may change y at t; 1 restarts the solver there (history discarded)
    if (step) {
      int rc = step(t, yv, ud);
      if (rc < 0) {
        status = rc;
        break;
      }
      if (rc == 1) {
        int f = ops->reinit(r, t, tstop);
        if (f < 0) {
          status = setup_fail(ops, c, "reinit", f, err);
          break;
        }
        st->restarts++;
      }
    }
    // the accepted state, where a retry or a failure goes back to
    memcpy(yl, yv, ny);
    r->tlast = t;

    // an output exactly at t takes the state after the step callback
    if (k < ntout && tout[k] == t) {
      int rc = output ? output(tout[k], yv, ud) : 0;
      if (rc < 0) {
        status = rc;
        break;
      }
      k++;
    }
  }

  // totals over all segments, and the last accepted state
  ops->stats(r->mem, &seg);
  add_segment(&r->done, &seg);
  st->steps = r->done.steps;
  st->nfev = r->done.nfev;
  st->rejected = r->done.rejected;
  st->nonlin_iters = r->done.nonlin_iters;
  st->jac_evals = r->done.jac_evals;
  st->last_step = r->hlast;
  st->t_reached = r->tlast;
  memcpy(y, yl, ny);
  return status;
}

// build the solver, drive it, free it
static int solve_sundials(int n, double t0, double *y, const double *tout, int ntout, int k,
                          const mbd_ode_opts *o, mbd_ode_rhs_fn rhs, mbd_ode_output_fn output,
                          mbd_ode_step_fn step, void *ud, mbd_ode_stats *st, long max_steps,
                          mbd_error *err) {
  const sun_ops *ops = (o->kind == MBD_INT_ADAMS) ? &cv_ops_adams
                       : (o->kind == MBD_INT_BDF) ? &cv_ops_bdf
                                                  : &erk_ops;
  ode_ctx c = {rhs, ud, 0, 0, {0}};
  sun_run r = {0};
  r.kind = o->kind;
  r.tlast = t0;
  r.hinit = o->step;
  double tstop = tout[ntout - 1];
  // smallest step: 64 units of round-off of the largest time; smaller steps do not move t
  r.hmin = 64.0 * DBL_EPSILON * fmax(fabs(t0), fabs(tstop));
  int status;

  // context and the state vectors (the solver's y, the interpolated output, the last accepted y)
  if (SUNContext_Create(NULL, &r.sunctx) != 0) {
    return MBD_FAIL(err, MBD_E_NOMEM, "%s: SUNContext_Create failed", ops->name);
  }
  r.y = N_VNew_Serial(n, r.sunctx);
  r.yout = r.y ? N_VNew_Serial(n, r.sunctx) : NULL;
  r.ylast = r.yout ? N_VNew_Serial(n, r.sunctx) : NULL;
  if (!r.ylast) {
    sun_run_free(&r);
    return MBD_FAIL(err, MBD_E_NOMEM, "%s: cannot allocate state vectors of size %d", ops->name, n);
  }
  memcpy(N_VGetArrayPointer(r.y), y, (size_t)n * sizeof *y);
  memcpy(N_VGetArrayPointer(r.ylast), y, (size_t)n * sizeof *y);

  // the solver with its options, then the run
  if (o->kind == MBD_INT_RK45) {
    status = setup_erk(&r, ops, &c, t0, o, tstop, max_steps, err);
  } else {
    status = setup_cvode(&r, ops, &c, n, t0, o, tstop, max_steps, err);
  }
  if (status == MBD_OK) {
    status = drive(&r, ops, &c, n, y, tout, ntout, k, output, step, ud, st, max_steps, err);
  }
  if (st->steps > 0) {
    st->avg_step = (st->t_reached - t0) / (double)st->steps;
  }
  sun_run_free(&r);
  return status;
}

/* ------------------------------------------------------------------------------------------------
 * entry point
 * ---------------------------------------------------------------------------------------------- */

int mbd_ode_solve(int n, double t0, double *y, const double *tout, int ntout,
                  const mbd_ode_opts *opts, mbd_ode_rhs_fn rhs, mbd_ode_output_fn output,
                  mbd_ode_step_fn step, void *ud, mbd_ode_stats *stats, mbd_error *err) {
  // statistics go to the caller's struct or a local one
  mbd_ode_stats local;
  mbd_ode_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  st->t_reached = t0;

  int status = check_input(n, t0, y, tout, ntout, opts, rhs, err);
  if (status != MBD_OK) {
    return status;
  }
  long max_steps = opts->max_steps > 0 ? opts->max_steps : mbd_ode_default_max_steps();

  // an output at t0 is delivered at once, without a step
  int k = 0;
  if (tout[0] == t0) {
    if (output) {
      int rc = output(t0, y, ud);
      if (rc < 0) {
        return rc;
      }
    }
    k = 1;
  }
  if (k == ntout) {
    return MBD_OK;
  }

  // the fixed-step method or a SUNDIALS solver
  if (opts->kind == MBD_INT_RK4) {
    status =
        solve_rk4(n, t0, y, tout + k, ntout - k, opts, rhs, output, step, ud, st, max_steps, err);
    if (st->steps > 0) {
      st->avg_step = (st->t_reached - t0) / (double)st->steps;
    }
    return status;
  }
  return solve_sundials(n, t0, y, tout, ntout, k, opts, rhs, output, step, ud, st, max_steps, err);
}
