/* ODE integrators, the SUNDIALS side (see integrators_impl.h): CVODE Adams and BDF, ARKODE
 * ERKStep Dormand–Prince 5(4).
 *
 * The solver runs in one-step mode with a stop time at the end of the segment; after every accepted
 * step the outputs passed by the step are interpolated from the solver's dense output, then the
 * step callback runs and may restart the solver.  Roots are located by the solvers' own root
 * finding (CVodeRootInit, ERKStepRootInit) on their interpolants.  Each solver is reached through a
 * small table of operations (sun_ops) so the driver does not care which it is.  Everything is
 * allocated when the solver is made (or remade for a new state size); stepping allocates nothing.
 */
#include <arkode/arkode.h>
#include <arkode/arkode_butcher_erk.h>
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "integrators_impl.h"

/* ------------------------------------------------------------------------------------------------
 * what a solver owns, the callbacks, and the operations table
 * ---------------------------------------------------------------------------------------------- */

// what the SUNDIALS callbacks see as user data
typedef struct ode_ctx {
  mbd_ode_rhs_fn rhs; /* the caller's right-hand side */
  mbd_ode_root_fn g;  /* the caller's root functions, NULL if none */
  void *ud;           /* the caller's user data */
  int stop;           /* negative code returned by the caller's rhs or g, 0 if none (sticky) */
  int recov;          /* the caller's rhs asked for a retry (> 0) during the current step */
  char sunmsg[320];   /* SUNDIALS' last error message ("function: text") */
} ode_ctx;

typedef struct sun_ops sun_ops;

// everything a SUNDIALS solver owns, freed together, plus the driver's bookkeeping
struct ode_sun {
  const sun_ops *ops;     /* the solver's operations */
  ode_ctx c;              /* user data of the callbacks (its address is given to SUNDIALS) */
  SUNContext sunctx;      /* SUNDIALS 6 context */
  N_Vector y;             /* solver state returned by a step (n) */
  N_Vector yout;          /* interpolated output (n) */
  N_Vector ylast;         /* wraps the object's y: the accepted state a retry goes back to (n) */
  SUNMatrix A;            /* BDF: dense Jacobian (n x n) */
  SUNLinearSolver LS;     /* BDF: dense LU */
  SUNNonlinearSolver NLS; /* Adams: fixed-point iteration */
  void *mem;              /* CVODE or ERKStep memory */
  int kind;               /* mbd_integrator_kind: which of the two owns mem */
  int stepped;            /* the solver was called since its last (re)init */
  double hmin;            /* smallest step: below it a retried step is a failure */
  double hinit;           /* the caller's initial step (0: the solver's choice) */
  mbd_ode_stats done;     /* counters of the solver segments before the last (re)init */
};

// the right-hand side as SUNDIALS calls it (CVRhsFn and ARKRhsFn have the same shape)
static int sun_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data) {
  ode_ctx *c = data;
  // once the caller asked to stop, every later call fails the same way without calling it again
  if (c->stop < 0) {
    return c->stop;
  }
  // (every vector is a serial one cloned from ours: its data read in place, not by a library call)
  int rc = c->rhs(t, NV_DATA_S(y), NV_DATA_S(ydot), c->ud);
  if (rc < 0) {
    c->stop = rc;
  } else if (rc > 0) {
    c->recov = 1;
  }
  return rc;
}

// the root functions as SUNDIALS calls them (CVRootFn and ARKRootFn have the same shape)
static int sun_root(sunrealtype t, N_Vector y, sunrealtype *gout, void *data) {
  ode_ctx *c = data;
  if (c->stop < 0) {
    return c->stop;
  }
  // a stop is kept like the rhs's; any other nonzero return is the solver's CV/ARK_RTFUNC_FAIL
  int rc = c->g(t, NV_DATA_S(y), gout, c->ud);
  if (rc < 0) {
    c->stop = rc;
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
struct sun_ops {
  const char *name; /* for messages */
  /* one step towards tout (normal = 0), or y(tout) inside the step already taken (normal = 1);
   * < 0 on failure */
  int (*step)(mbd_ode *s, double tout, int normal, double *t);
  int (*dky)(void *mem, double t, N_Vector out);              /* interpolate y(t) */
  int (*reinit)(void *mem, double t, N_Vector y0, double h0); /* restart at (t, y0) */
  int (*set_stop)(void *mem, double tstop);                   /* the stop time */
  int (*set_hmin)(void *mem, double hmin);                    /* the smallest step */
  int (*now)(void *mem, double *t);                           /* the solver's internal time */
  int (*root_init)(void *mem, int nroot);                     /* nroot root functions, 0 = off */
  int (*root_info)(void *mem, int *found);                    /* directions after a root */
  char *(*flag_name)(long flag);                              /* malloc'd flag name */
  void (*stats)(void *mem, mbd_ode_stats *s);                 /* counters since (re)init */
  long (*steps)(void *mem);                                   /* steps since (re)init */
  double (*last_step)(void *mem);                             /* last accepted step */
  int too_much_work;                                          /* "too much work" flag */
  int root_return;                                            /* "root found" flag */
};

// add the counters of one solver segment (between restarts) to the running totals
static void add_segment(mbd_ode_stats *st, const mbd_ode_stats *seg) {
  st->steps += seg->steps;
  st->nfev += seg->nfev;
  st->rejected += seg->rejected;
  st->nonlin_iters += seg->nonlin_iters;
  st->jac_evals += seg->jac_evals;
}

/* restart at (t, y0) with initial step h0, keeping the counters (a reinit zeroes the solver's);
 * the stop time is set again when tstop is finite, in case the reinit cleared it */
static int restart(ode_sun *r, double t, N_Vector y0, double h0, double tstop) {
  mbd_ode_stats seg = {0};
  r->ops->stats(r->mem, &seg);
  add_segment(&r->done, &seg);
  r->stepped = 0;
  int f = r->ops->reinit(r->mem, t, y0, h0);
  if (f >= 0 && isfinite(tstop)) {
    f = r->ops->set_stop(r->mem, tstop);
  }
  return f;
}

/* --- CVODE (Adams and BDF) --- */

static int cv_step(mbd_ode *s, double tout, int normal, double *t) {
  return CVode(s->sun->mem, tout, s->sun->y, t, normal ? CV_NORMAL : CV_ONE_STEP);
}

static int cv_dky(void *mem, double t, N_Vector out) { return CVodeGetDky(mem, t, 0, out); }

/* the counters of CVODE; the linear-solver ones exist only with a linear solver attached (BDF):
 * asking Adams for them is an error that SUNDIALS formats into a message each time (this runs
 * after every step), so they are asked for only with one */
static void cv_counters(void *mem, mbd_ode_stats *s, int with_ls) {
  long nst = 0, nfe = 0, nfels = 0, netf = 0, ncfn = 0, nni = 0, nje = 0;
  CVodeGetNumSteps(mem, &nst);
  CVodeGetNumRhsEvals(mem, &nfe);
  CVodeGetNumErrTestFails(mem, &netf);
  CVodeGetNumStepSolveFails(mem, &ncfn);
  CVodeGetNumNonlinSolvIters(mem, &nni);
  if (with_ls && CVodeGetNumLinRhsEvals(mem, &nfels) != CV_SUCCESS) {
    nfels = 0;
  }
  if (with_ls && CVodeGetNumJacEvals(mem, &nje) != CV_SUCCESS) {
    nje = 0;
  }
  s->steps = nst;
  s->nfev = nfe + nfels;
  s->rejected = netf + ncfn;
  s->nonlin_iters = nni;
  s->jac_evals = nje;
}

static void cv_stats_adams(void *mem, mbd_ode_stats *s) { cv_counters(mem, s, 0); }

// the step count alone: the run-wide step limit is checked before every step
static long cv_steps(void *mem) {
  long nst = 0;
  CVodeGetNumSteps(mem, &nst);
  return nst;
}
static void cv_stats_bdf(void *mem, mbd_ode_stats *s) { cv_counters(mem, s, 1); }

/* the adapters CVODE and ARKODE's ERKStep share but for their functions' prefix (API): stop
 * time, least step, current time, root functions and their findings, the last step */
#define SUN_COMMON_OPS(pre, API)                                                                 \
  static int pre##_set_stop(void *mem, double tstop) { return API##SetStopTime(mem, tstop); }  \
  static int pre##_set_hmin(void *mem, double hmin) { return API##SetMinStep(mem, hmin); }     \
  static int pre##_now(void *mem, double *t) {                                                 \
    sunrealtype tc = 0.0;                                                                      \
    int f = API##GetCurrentTime(mem, &tc);                                                     \
    *t = tc;                                                                                   \
    return f;                                                                                  \
  }                                                                                            \
  static int pre##_root_init(void *mem, int nroot) {                                           \
    return API##RootInit(mem, nroot, nroot > 0 ? sun_root : NULL);                             \
  }                                                                                            \
  static int pre##_root_info(void *mem, int *found) { return API##GetRootInfo(mem, found); }   \
  static double pre##_last_step(void *mem) {                                                   \
    sunrealtype h = 0.0;                                                                       \
    API##GetLastStep(mem, &h);                                                                 \
    return h;                                                                                  \
  }

// CVODE keeps its initial-step option across a reinit: h0 is not needed
static int cv_reinit(void *mem, double t, N_Vector y0, double h0) {
  (void)h0;
  return CVodeReInit(mem, t, y0);
}

SUN_COMMON_OPS(cv, CVode)

/* CVODE's adapters, Adams or BDF (their name and counters) */
#define CV_OPS(NAME, STATS)                                                                     \
  {                                                                                             \
    .name = NAME, .step = cv_step, .dky = cv_dky, .reinit = cv_reinit, .set_stop = cv_set_stop, \
    .set_hmin = cv_set_hmin, .now = cv_now, .root_init = cv_root_init,                          \
    .root_info = cv_root_info, .flag_name = CVodeGetReturnFlagName, .stats = STATS,             \
    .steps = cv_steps, .last_step = cv_last_step, .too_much_work = CV_TOO_MUCH_WORK,            \
    .root_return = CV_ROOT_RETURN                                                               \
  }
static const sun_ops cv_ops_adams = CV_OPS(ODE_NAME_ADAMS, cv_stats_adams);
static const sun_ops cv_ops_bdf = CV_OPS(ODE_NAME_BDF, cv_stats_bdf);

/* --- ARKODE ERKStep (Dormand–Prince 5(4)) --- */

// retries of one step after rhs > 0, and the step reduction of each (CVODE's MXNCF and ETACF)
#define ERK_MAX_RETRIES 10
#define ERK_RETRY_ETA 0.25

static long erk_steps(void *mem) {
  long nst = 0;
  ERKStepGetNumSteps(mem, &nst);
  return nst;
}

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

// ERKStepReInit forgets the initial step: h0 is given again (0: its own estimate)
static int erk_reinit(void *mem, double t, N_Vector y0, double h0) {
  int f = ERKStepReInit(mem, sun_rhs, t, y0);
  return (f < 0) ? f : ERKStepSetInitStep(mem, h0);
}

/* one step.  ERKStep 6.4 cannot retry a step whose rhs returned > 0 (it reports
 * ARK_UNREC_RHSFUNC_ERR), so the retry is done here: restart from the last accepted state with a
 * quarter of the failed step, at most ERK_MAX_RETRIES times and never below hmin. */
static int erk_step(mbd_ode *s, double tout, int normal, double *t) {
  ode_sun *r = s->sun;
  ode_ctx *c = &r->c;
  for (int tries = 0;; tries++) {
    c->recov = 0;
    int f = ERKStepEvolve(r->mem, tout, r->y, t, normal ? ARK_NORMAL : ARK_ONE_STEP);
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
    int g = restart(r, s->t, r->ylast, h, tout);
    if (g < 0) {
      return g;
    }
  }
}

static int erk_dky(void *mem, double t, N_Vector out) { return ERKStepGetDky(mem, t, 0, out); }

SUN_COMMON_OPS(erk, ERKStep)

static const sun_ops erk_ops = {.name = ODE_NAME_RK45,
                                .step = erk_step,
                                .dky = erk_dky,
                                .reinit = erk_reinit,
                                .set_stop = erk_set_stop,
                                .set_hmin = erk_set_hmin,
                                .now = erk_now,
                                .root_init = erk_root_init,
                                .root_info = erk_root_info,
                                .flag_name = ERKStepGetReturnFlagName,
                                .stats = erk_stats,
                                .steps = erk_steps,
                                .last_step = erk_last_step,
                                .too_much_work = ARK_TOO_MUCH_WORK,
                                .root_return = ARK_ROOT_RETURN};

/* the step limits both setups set the same way but for their functions' prefix (API): at most
 * max_steps per call, the first and the largest step when the options give them */
#define SUN_STEP_LIMITS(API)                                                         \
  do {                                                                               \
    if ((flag = API##SetMaxNumSteps(r->mem, max_steps)) < 0) {                       \
      return setup_fail(ops, c, #API "SetMaxNumSteps", flag, err);                   \
    }                                                                                \
    if (o->step > 0.0 && (flag = API##SetInitStep(r->mem, o->step)) < 0) {          \
      return setup_fail(ops, c, #API "SetInitStep", flag, err);                      \
    }                                                                                \
    if (o->max_step > 0.0 && (flag = API##SetMaxStep(r->mem, o->max_step)) < 0) {   \
      return setup_fail(ops, c, #API "SetMaxStep", flag, err);                       \
    }                                                                                \
  } while (0)

/* ------------------------------------------------------------------------------------------------
 * setup
 * ---------------------------------------------------------------------------------------------- */

static void run_free(ode_sun *r) {
  if (!r) {
    return;
  }
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
  // ylast only wraps the object's state, destroying it leaves the data alone
  N_Vector *vs[3] = {&r->ylast, &r->yout, &r->y};
  for (int i = 0; i < 3; i++) {
    if (*vs[i]) {
      N_VDestroy(*vs[i]);
    }
  }
  if (r->sunctx) {
    SUNContext_Free(&r->sunctx);
  }
  free(r);
}

// report a failed setup call: the function, the flag and SUNDIALS' text
static int setup_fail(const sun_ops *ops, const ode_ctx *c, const char *what, int flag,
                      mbd_error *err) {
  char *fname = ops->flag_name(flag);
  int rc = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_SETUP, ops->name, what,
                    fname ? fname : "unknown flag", c->sunmsg[0] ? c->sunmsg : "the solver gave no reason (is the right-hand side finite?)");
  free(fname);
  return rc;
}

// the CVODE part of the setup: Adams with fixed-point iteration or BDF with Newton + dense LU
static int setup_cvode(ode_sun *r, int n, double t0, const mbd_ode_opts *o, long max_steps,
                       mbd_error *err) {
  const sun_ops *ops = r->ops;
  ode_ctx *c = &r->c;
  int flag;
  r->mem = CVodeCreate(o->kind == MBD_INT_BDF ? CV_BDF : CV_ADAMS, r->sunctx);
  if (!r->mem) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "CVODE memory");
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
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "the fixed-point solver");
    }
    if ((flag = CVodeSetNonlinearSolver(r->mem, r->NLS)) < 0) {
      return setup_fail(ops, c, "CVodeSetNonlinearSolver", flag, err);
    }
  } else {
    r->A = SUNDenseMatrix(n, n, r->sunctx);
    r->LS = r->A ? SUNLinSol_Dense(r->y, r->A, r->sunctx) : NULL;
    if (!r->LS) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "the dense linear solver");
    }
    // no Jacobian function: CVODE's difference quotients
    if ((flag = CVodeSetLinearSolver(r->mem, r->LS, r->A)) < 0) {
      return setup_fail(ops, c, "CVodeSetLinearSolver", flag, err);
    }
  }
  // step limits: the driver counts steps over the run itself, CVODE's limit is per call; the
  // smallest step and the stop time are set for each segment
  SUN_STEP_LIMITS(CVode);
  if (o->max_order > 0 && (flag = CVodeSetMaxOrd(r->mem, o->max_order)) < 0) {
    return setup_fail(ops, c, "CVodeSetMaxOrd", flag, err);
  }
  return MBD_OK;
}

/* the ARKODE part of the setup: explicit Dormand–Prince 5(4), ode45's pair.  Dense output uses
 * ARKODE's Lagrange interpolant (past solution values only): its Hermite interpolant needs f at the
 * step's end, which ERKStep 6.4 evaluates again on every ERKStepGetDky call, so the number of rhs
 * evaluations would grow with the number of outputs.  Root finding uses the same interpolant. */
static int setup_erk(ode_sun *r, double t0, const mbd_ode_opts *o, long max_steps, mbd_error *err) {
  const sun_ops *ops = r->ops;
  ode_ctx *c = &r->c;
  int flag;
  r->mem = ERKStepCreate(sun_rhs, t0, r->y, r->sunctx);
  if (!r->mem) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "ERKStep memory");
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
  // step limits: the driver counts steps over the run itself, ARKODE's limit is per call; the
  // smallest step and the stop time are set for each segment
  SUN_STEP_LIMITS(ERKStep);
  return MBD_OK;
}

/* a solver for the object's kind, options, callbacks and roots with n components at (t, y); y is
 * the buffer that holds the object's state (the solver's ylast wraps it) */
static int build(const mbd_ode *s, int n, double t, double *y, ode_sun **out, mbd_error *err) {
  const mbd_ode_opts *o = &s->opts;
  const sun_ops *ops = (o->kind == MBD_INT_ADAMS) ? &cv_ops_adams
                       : (o->kind == MBD_INT_BDF) ? &cv_ops_bdf
                                                  : &erk_ops;
  *out = NULL;
  ode_sun *r = calloc(1, sizeof *r);
  if (!r) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "the solver record");
  }
  r->ops = ops;
  r->kind = o->kind;
  r->hinit = o->step;
  r->c.rhs = s->rhs;
  r->c.g = s->g;
  r->c.ud = s->ud;

  // context and the state vectors (the solver's y, the interpolated output, the accepted y)
  if (SUNContext_Create(NULL, &r->sunctx) != 0) {
    run_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "a SUNDIALS context");
  }
  r->y = N_VNew_Serial(n, r->sunctx);
  // the fused vector operations (one call for a linear combination of the history arrays instead
  // of one per array: CVODE's own work per step on a small state is mostly calls), in every
  // vector the solver clones from y
  if (r->y && N_VEnableFusedOps_Serial(r->y, SUNTRUE) != 0) {
    N_VDestroy(r->y);
    r->y = NULL;
  }
  // and the operations it calls most, without the library's layer of special cases
  if (r->y) mbd_ode_lean_ops(r->y);
  r->yout = r->y ? N_VNew_Serial(n, r->sunctx) : NULL;
  r->ylast = r->yout ? N_VMake_Serial(n, y, r->sunctx) : NULL;
  if (!r->ylast) {
    run_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ops->name, "the state vectors");
  }
  memcpy(N_VGetArrayPointer(r->y), y, (size_t)n * sizeof *y);

  // the solver with its options, then its root functions
  int status = (o->kind == MBD_INT_RK45) ? setup_erk(r, t, o, s->max_steps, err)
                                         : setup_cvode(r, n, t, o, s->max_steps, err);
  if (status == MBD_OK && s->nroot > 0) {
    int flag = ops->root_init(r->mem, s->nroot);
    if (flag < 0) {
      status = setup_fail(ops, &r->c, "root functions", flag, err);
    }
  }
  if (status != MBD_OK) {
    run_free(r);
    return status;
  }
  *out = r;
  return MBD_OK;
}

int ode_sun_new(mbd_ode *s, mbd_error *err) { return build(s, s->n, s->t, s->y, &s->sun, err); }

void ode_sun_free(mbd_ode *s) {
  run_free(s->sun);
  s->sun = NULL;
}

int ode_sun_roots(mbd_ode *s, mbd_error *err) {
  ode_sun *r = s->sun;
  r->c.g = s->g;
  /* a solver that has stepped never evaluated the new functions at its last point (CVODE and
   * ARKODE do so only at the first step): restart it from the current state.  Removing them
   * needs no restart. */
  int restarted = 0;
  if (r->stepped && s->nroot > 0) {
    N_VScale(1.0, r->ylast, r->y);
    int f = restart(r, s->t, r->y, r->hinit, NAN);
    if (f < 0) {
      return setup_fail(r->ops, &r->c, "reinit", f, err);
    }
    restarted = 1;
  }
  int f = r->ops->root_init(r->mem, s->nroot);
  if (f < 0) {
    return setup_fail(r->ops, &r->c, "root functions", f, err);
  }
  return restarted;
}

int ode_sun_reinit(mbd_ode *s, mbd_error *err) {
  ode_sun *r = s->sun;
  // the solver's y takes the new state; the stop time is set by the next segment
  N_VScale(1.0, r->ylast, r->y);
  int f = restart(r, s->t, r->y, r->hinit, NAN);
  if (f < 0) {
    return setup_fail(r->ops, &r->c, "reinit", f, err);
  }
  return MBD_OK;
}

int ode_sun_resize(mbd_ode *s, int n, double t, double *y, mbd_error *err) {
  ode_sun *r = NULL;
  int status = build(s, n, t, y, &r, err);
  if (status != MBD_OK) {
    return status;
  }
  // the new solver carries the counters of the old one, then replaces it
  mbd_ode_stats seg = {0};
  s->sun->ops->stats(s->sun->mem, &seg);
  r->done = s->sun->done;
  add_segment(&r->done, &seg);
  run_free(s->sun);
  s->sun = r;
  free(s->y);
  s->y = y;
  s->n = n;
  s->t = t;
  return MBD_OK;
}

void ode_sun_stats(const mbd_ode *s, mbd_ode_stats *st) {
  const ode_sun *r = s->sun;
  mbd_ode_stats seg = {0};
  r->ops->stats(r->mem, &seg);
  add_segment(st, &r->done);
  add_segment(st, &seg);
}

/* ------------------------------------------------------------------------------------------------
 * the driver
 * ---------------------------------------------------------------------------------------------- */

// MBD_E_INTEGRATOR naming the solver, the time reached, the last step, the flag and SUNDIALS' text
static int solver_fail(const mbd_ode *s, int flag, mbd_error *err) {
  const sun_ops *ops = s->sun->ops;
  const ode_ctx *c = &s->sun->c;
  char *fname = ops->flag_name(flag);
  int rc = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_FAIL, ops->name, s->t, s->st.last_step,
                    fname ? fname : "unknown flag", c->sunmsg[0] ? c->sunmsg : "the solver gave no reason (is the right-hand side finite?)");
  free(fname);
  return rc;
}

// the outputs strictly before t, interpolated from the step just taken
static int outputs_before(mbd_ode *s, double t, mbd_error *err) {
  ode_sun *r = s->sun;
  double *yo = N_VGetArrayPointer(r->yout);
  while (s->kout < s->ntout && s->tout[s->kout] < t) {
    int f = r->ops->dky(r->mem, s->tout[s->kout], r->yout);
    if (f < 0) {
      return solver_fail(s, f, err);
    }
    int rc = s->output ? s->output(s->tout[s->kout], yo, s->ud) : 0;
    s->kout++;
    if (rc < 0) {
      return rc;
    }
  }
  return MBD_OK;
}

int ode_sun_advance(mbd_ode *s, double tstop, mbd_error *err) {
  ode_sun *r = s->sun;
  const sun_ops *ops = r->ops;
  ode_ctx *c = &r->c;
  double *yv = N_VGetArrayPointer(r->y);
  size_t ny = (size_t)s->n * sizeof *s->y;
  c->stop = 0;
  c->sunmsg[0] = '\0';

  /* the smallest step: 64 units of round-off of the largest time, smaller steps do not move t.
   * The stop time, unless the solver has already stepped past tstop (it returned a root inside
   * its last step): the rest then comes from its interpolant, in normal mode, without a step. */
  r->hmin = 64.0 * DBL_EPSILON * fmax(fabs(s->t), fabs(tstop));
  int flag = ops->set_hmin(r->mem, r->hmin);
  if (flag < 0) {
    return setup_fail(ops, c, "the smallest step", flag, err);
  }
  double tcur = s->t;
  if (r->stepped && (flag = ops->now(r->mem, &tcur)) < 0) {
    return setup_fail(ops, c, "the current time", flag, err);
  }
  int inside = r->stepped && tstop <= tcur;
  if (!inside && (flag = ops->set_stop(r->mem, tstop)) < 0) {
    return setup_fail(ops, c, "the stop time", flag, err);
  }

  int status = MBD_OK;
  while (s->t < tstop) {
    // the run-wide step limit (one-step mode makes the solver's own limit per step): the step
    // count alone, not every counter (this runs before each step)
    if (!inside && r->done.steps + ops->steps(r->mem) >= s->max_steps) {
      char *fname = ops->flag_name(ops->too_much_work);
      status = MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_TOO_MANY, ops->name, s->max_steps, s->t,
                        s->st.last_step, fname ? fname : "too much work");
      free(fname);
      break;
    }

    // one accepted step; a stop requested by a callback wins over whatever the solver made of it
    double t = s->t;
    c->sunmsg[0] = '\0';
    flag = ops->step(s, tstop, inside, &t);
    r->stepped = 1;
    if (c->stop < 0) {
      status = c->stop;
      break;
    }
    if (flag < 0) {
      status = solver_fail(s, flag, err);
      break;
    }
    // a restart zeroes the solver's own record of the last step, so it is kept here
    double h = ops->last_step(r->mem);
    if (h != 0.0) {
      s->st.last_step = fabs(h);
    }

    // outputs strictly inside the step come from the dense output of the step just taken
    if ((status = outputs_before(s, t, err)) != MBD_OK) {
      break;
    }

    // a root: its state, and the directions; the step goes on past it, so no step callback yet
    if (flag == ops->root_return) {
      memcpy(s->y, yv, ny);
      s->t = t;
      if ((flag = ops->root_info(r->mem, s->found)) < 0) {
        status = solver_fail(s, flag, err);
        break;
      }
      status = MBD_ROOT;
      break;
    }

    // the step callback may change y at the end of a step; 1 restarts the solver there
    if (s->step && !inside) {
      int rc = s->step(t, yv, s->ud);
      if (rc < 0) {
        status = rc;
        break;
      }
      if (rc == 1) {
        int f = restart(r, t, r->y, r->hinit, tstop);
        if (f < 0) {
          status = setup_fail(ops, c, "reinit", f, err);
          break;
        }
        s->st.restarts++;
      }
    }
    // the accepted state, where a retry or a failure goes back to
    memcpy(s->y, yv, ny);
    s->t = t;

    // an output exactly at t takes the state after the step callback
    if (s->kout < s->ntout && s->tout[s->kout] == t) {
      int rc = s->output ? s->output(t, yv, s->ud) : 0;
      s->kout++;
      if (rc < 0) {
        status = rc;
        break;
      }
    }
  }
  return status;
}
