/* ODE integrators (see mbd/integrators.h): the entry points, their checks, the lifecycle object,
 * the hand-written fixed-step RK4 with its root bisection, and mbd_ode_solve on top of the
 * lifecycle.  The SUNDIALS kinds (CVODE Adams and BDF, ARKODE ERKStep) live in sundials.c and
 * rkf45 (MATLAB 4's ode45) in rkf45.c, reached through the ode_sun_* and ode_rkf_* hooks of
 * integrators_impl.h.
 *
 * One driver: mbd_ode_solve is mbd_ode_new, mbd_ode_set_output, mbd_ode_set_step_fn and one
 * mbd_ode_integrate_until to the last output time, so it takes exactly the steps of a lifecycle
 * run to the same end (segments ending elsewhere make the solver land on their ends). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrators_impl.h"
#include "mbd/text.h"

/* ------------------------------------------------------------------------------------------------
 * names and defaults
 * ---------------------------------------------------------------------------------------------- */

// names indexed by mbd_integrator_kind
static const char *const kind_names[] = {"adams", "bdf", "rk45", "rk4", "rkf45"};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

const char *mbd_integrator_name(int kind) {
  if (kind < 0 || kind >= NKINDS) {
    return NULL;
  }
  return kind_names[kind];
}

int mbd_integrator_from_name(const char *name) {
  // linear search over a handful of names
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


int mbd_ode_check_tolerances(const char *fn, double rtol, double atol, mbd_error *err) {
  // settings that cannot be meant: a relative tolerance of 1 or more accepts any answer
  if (!(rtol > 0 && rtol < 1) || !(atol > 0) || !isfinite(atol)) {
    char r[32], a[32];
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOLERANCES, fn, mbd_text_num(r, sizeof r, rtol),
                    mbd_text_num(a, sizeof a, atol));
  }
  return MBD_OK;
}

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
  opts->max_order = 0;
  return ok ? MBD_OK : MBD_E_INPUT;
}

/* ------------------------------------------------------------------------------------------------
 * input validation: every check names the entry point (fn: "solve", "new", ...)
 * ---------------------------------------------------------------------------------------------- */

// the kind and its options: rk4 needs a step, the others tolerances
static int check_opts(const char *fn, const mbd_ode_opts *o, mbd_error *err) {
  if (o->kind < 0 || o->kind >= NKINDS) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_KIND, fn, o->kind);
  }
  const char *name = mbd_integrator_name(o->kind);
  if (o->kind == MBD_INT_RK4) {
    if (!(o->step > 0.0) || !isfinite(o->step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_STEP_RK4, fn, o->step);
    }
  } else {
    if (!(o->rtol > 0.0) || !isfinite(o->rtol)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_RTOL, fn, name, o->rtol);
    }
    if (!(o->atol > 0.0) || !isfinite(o->atol)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_ATOL, fn, name, o->atol);
    }
    if (!(o->step >= 0.0) || !isfinite(o->step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_STEP, fn, name, o->step);
    }
    if (!(o->max_step >= 0.0) || !isfinite(o->max_step)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_STEP, fn, name, o->max_step);
    }
  }
  if (o->max_steps < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_STEPS, fn, o->max_steps);
  }
  // the highest order: CVODE's methods only, within each one's range
  int top = o->kind == MBD_INT_ADAMS ? 12 : o->kind == MBD_INT_BDF ? 5 : 0;
  if (o->max_order < 0 || o->max_order > top) {
    if (top == 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_ORDER_KIND, fn, name);
    }
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_MAX_ORDER, fn, name, top, o->max_order);
  }
  return MBD_OK;
}

// output times: finite and strictly increasing
static int check_tout(const char *fn, const double *tout, int ntout, mbd_error *err) {
  for (int k = 0; k < ntout; k++) {
    if (!isfinite(tout[k])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT_NAN, fn, k);
    }
    if (k > 0 && !(tout[k] > tout[k - 1])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT, fn, k, tout[k], k - 1, tout[k - 1]);
    }
  }
  return MBD_OK;
}

// mbd_ode_solve's checks, in their historical order, before anything is allocated
static int check_solve(int n, double t0, const double *y, const double *tout, int ntout,
                       const mbd_ode_opts *o, mbd_ode_rhs_fn rhs, mbd_error *err) {
  // pointers and sizes
  if (!y) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "solve", "y");
  }
  if (!tout) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "solve", "tout");
  }
  if (!o) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "solve", "opts");
  }
  if (!rhs) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "solve", "rhs");
  }
  if (n < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_N, "solve", n);
  }
  if (ntout < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NTOUT, "solve", ntout);
  }
  int rc = check_opts("solve", o, err);
  if (rc != MBD_OK) {
    return rc;
  }
  // times: t0 finite, tout[0] >= t0, then strictly increasing
  if (!isfinite(t0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_T0, "solve", t0);
  }
  if (isfinite(tout[0]) && tout[0] < t0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TOUT0, "solve", tout[0], t0);
  }
  return check_tout("solve", tout, ntout, err);
}

/* ------------------------------------------------------------------------------------------------
 * the lifecycle object
 * ---------------------------------------------------------------------------------------------- */

// rk4 workspace: stages k1..k4 and the stage state (5n), step start, middle and end (3n), and a
// step's f at its start, its end state and f there while a root in it is bisected (3n)
#define RK4_WORK 11

int mbd_ode_new(mbd_ode **out, int n, double t0, const double *y0, const mbd_ode_opts *opts,
                mbd_ode_rhs_fn rhs, void *ud, mbd_error *err) {
  // arguments and options, before anything is allocated
  if (!out) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "new", "out");
  }
  *out = NULL;
  if (!y0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "new", "y0");
  }
  if (!opts) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "new", "opts");
  }
  if (!rhs) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "new", "rhs");
  }
  if (n < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_N, "new", n);
  }
  int rc = check_opts("new", opts, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (!isfinite(t0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_T0, "new", t0);
  }

  // the object and its state; rk4 also gets its stage workspace here, once
  mbd_ode *s = calloc(1, sizeof *s);
  if (!s) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, "mbd_ode_new", "the solver object");
  }
  s->n = n;
  s->opts = *opts;
  s->max_steps = opts->max_steps > 0 ? opts->max_steps : mbd_ode_default_max_steps();
  s->rhs = rhs;
  s->ud = ud;
  s->t = t0;
  s->y = malloc((size_t)n * sizeof *s->y);
  if (opts->kind == MBD_INT_RK4 && s->y) {
    s->w = malloc((size_t)RK4_WORK * (size_t)n * sizeof *s->w);
  }
  if (!s->y || (opts->kind == MBD_INT_RK4 && !s->w)) {
    mbd_ode_free(s);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, "mbd_ode_new", "the state vectors");
  }
  memcpy(s->y, y0, (size_t)n * sizeof *s->y);
  s->st.t_reached = t0;

  // rkf45's record, or the SUNDIALS solver with its options (not for rk4)
  if (opts->kind == MBD_INT_RKF45) {
    rc = ode_rkf_new(s, err);
    if (rc != MBD_OK) {
      mbd_ode_free(s);
      return rc;
    }
  } else if (opts->kind != MBD_INT_RK4) {
    rc = ode_sun_new(s, err);
    if (rc != MBD_OK) {
      mbd_ode_free(s);
      return rc;
    }
  }
  *out = s;
  return MBD_OK;
}

void mbd_ode_free(mbd_ode *s) {
  if (!s) {
    return;
  }
  ode_sun_free(s);
  ode_rkf_free(s);
  free(s->y);
  free(s->w);
  free(s->tout);
  free(s->found);
  free(s->gw);
  free(s);
}

// skip the outputs strictly before the current time (they can no longer be interpolated)
static void skip_past_outputs(mbd_ode *s) {
  while (s->kout < s->ntout && s->tout[s->kout] < s->t) {
    s->kout++;
  }
}

int mbd_ode_set_output(mbd_ode *s, const double *tout, int ntout, mbd_ode_output_fn output,
                       mbd_error *err) {
  if (!s) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "set_output", "s");
  }
  if (ntout < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NTOUT_NEG, ntout);
  }
  if (ntout > 0 && !tout) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "set_output", "tout");
  }
  int rc = check_tout("set_output", tout, ntout, err);
  if (rc != MBD_OK) {
    return rc;
  }
  // a copy of the times; the old ones go only once the new ones are in place
  double *copy = NULL;
  if (ntout > 0) {
    copy = malloc((size_t)ntout * sizeof *copy);
    if (!copy) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, "mbd_ode_set_output", "the output times");
    }
    memcpy(copy, tout, (size_t)ntout * sizeof *copy);
  }
  free(s->tout);
  s->tout = copy;
  s->ntout = ntout;
  s->output = output;
  s->kout = 0;
  skip_past_outputs(s);
  return MBD_OK;
}

void mbd_ode_set_step_fn(mbd_ode *s, mbd_ode_step_fn step) {
  if (s) {
    s->step = step;
  }
}

int mbd_ode_set_roots(mbd_ode *s, int nroot, mbd_ode_root_fn g, mbd_error *err) {
  if (!s) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "set_roots", "s");
  }
  if (nroot < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NROOT, nroot);
  }
  if (nroot > 0 && !g) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "set_roots", "g");
  }
  // room for the directions and for rk4's three g vectors, when the number grows
  if (nroot > s->nroot) {
    int *found = calloc((size_t)nroot, sizeof *found);
    double *gw = calloc((size_t)3 * (size_t)nroot, sizeof *gw);
    if (!found || !gw) {
      free(found);
      free(gw);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, "mbd_ode_set_roots", "the root values");
    }
    free(s->found);
    free(s->gw);
    s->found = found;
    s->gw = gw;
  }
  s->nroot = nroot;
  s->g = nroot > 0 ? g : NULL;
  s->g_ok = 0;
  s->f_ok = 0;
  if (s->found) {
    memset(s->found, 0, (size_t)nroot * sizeof *s->found);
  }
  // the SUNDIALS solver finds roots itself; a restart it needed for them is counted
  if (s->sun) {
    int rc = ode_sun_roots(s, err);
    if (rc < 0) {
      return rc;
    }
    s->st.restarts += rc;
  }
  return MBD_OK;
}

void mbd_ode_roots_found(const mbd_ode *s, int *found) {
  if (s && found && s->nroot > 0) {
    memcpy(found, s->found, (size_t)s->nroot * sizeof *found);
  }
}

int mbd_ode_reinit(mbd_ode *s, int n, double t, const double *y, mbd_error *err) {
  if (!s) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "reinit", "s");
  }
  if (!y) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "reinit", "y");
  }
  if (n < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_N, "reinit", n);
  }
  if (!isfinite(t)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_T, t);
  }

  if (n == s->n) {
    // the same size: new state, history discarded
    memmove(s->y, y, (size_t)n * sizeof *s->y);
    s->t = t;
    if (s->sun) {
      int rc = ode_sun_reinit(s, err);
      if (rc != MBD_OK) {
        return rc;
      }
    }
    ode_rkf_forget(s);
  } else {
    // a new size: new buffers first, so a failure leaves the solver as it was
    double *ynew = malloc((size_t)n * sizeof *ynew);
    double *wnew = NULL;
    int rk4 = s->opts.kind == MBD_INT_RK4;
    if (ynew && rk4) {
      wnew = malloc((size_t)RK4_WORK * (size_t)n * sizeof *wnew);
    }
    if (!ynew || (rk4 && !wnew)) {
      free(ynew);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, "mbd_ode_reinit", "the state vectors");
    }
    if (s->rkf) {
      int rc = ode_rkf_resize(s, n, err);
      if (rc != MBD_OK) {
        free(ynew);
        return rc;
      }
    }
    memcpy(ynew, y, (size_t)n * sizeof *ynew);
    if (s->sun) {
      // the solver is made anew around ynew; it takes over s->y on success
      int rc = ode_sun_resize(s, n, t, ynew, err);
      if (rc != MBD_OK) {
        free(ynew);
        return rc;
      }
    } else {
      free(s->y);
      free(s->w);
      s->y = ynew;
      s->w = wnew;
      s->n = n;
      s->t = t;
    }
  }
  // g (and rk4's f) is evaluated again at the new state; outputs already behind it are skipped
  s->g_ok = 0;
  s->f_ok = 0;
  s->st.restarts++;
  s->st.t_reached = s->t;
  skip_past_outputs(s);
  return MBD_OK;
}

double mbd_ode_time(const mbd_ode *s) { return s ? s->t : NAN; }

int mbd_ode_size(const mbd_ode *s) { return s ? s->n : 0; }

void mbd_ode_get_stats(const mbd_ode *s, mbd_ode_stats *st) {
  if (!s || !st) {
    return;
  }
  // rk4 keeps every counter itself; a SUNDIALS solver adds its own
  *st = s->st;
  if (s->sun) {
    ode_sun_stats(s, st);
  }
  st->t_reached = s->t;
  st->avg_step = st->steps > 0 ? s->covered / (double)st->steps : 0.0;
}

/* ------------------------------------------------------------------------------------------------
 * fixed-step RK4
 * ---------------------------------------------------------------------------------------------- */

// bisection of a root bracket: the largest number of halvings and the width aimed at
#define RK4_MAX_BISECT 60
#define RK4_ROOT_TOL 1e-12

// one classical RK4 step of size h from (t, y) into y; w holds 5n doubles (k1..k4, stage state);
// f0, when not NULL, is f(t, y) already known (k1 is copied from it, one evaluation fewer)
static int rk4_step(int n, double t, double h, double *y, double *w, mbd_ode_rhs_fn rhs, void *ud,
                    const double *f0, int *bad) {
  double *k1 = w, *k2 = w + n, *k3 = w + 2 * n, *k4 = w + 3 * n, *ys = w + 4 * n;
  int rc;
  // stage 1 at t
  if (f0) {
    memcpy(k1, f0, (size_t)n * sizeof *k1);
  } else if ((rc = rhs(t, y, k1, ud)) != 0) {
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

// a failed rk4 step: a stop (< 0) keeps its code, a retry request (> 0) cannot be honoured
static int rk4_fail(int bad, double t, mbd_error *err) {
  return (bad < 0) ? bad : MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RK4_RECOV, bad, t);
}

// the root functions at (t, y) into gout; 0, the callback's stop code, or MBD_E_INTEGRATOR
static int rk4_g(mbd_ode *s, double t, const double *y, double *gout, mbd_error *err) {
  int rc = s->g(t, y, gout, s->ud);
  if (rc > 0) {
    return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RK4_ROOT_RC, rc, t);
  }
  return rc;
}


/* a root inside the step from (ts, ys) to (tb, s->y) with g = ga at ts and gb at tb: bisect by
 * taking the step again from ts with a shorter step until the bracket [ta, tb] is narrower than
 * RK4_ROOT_TOL max(1, |tb|).  The root is tb, the side where the sign has changed, so that going on
 * from it does not find the same crossing again.  On return s->t, s->y are the root and its state,
 * s->found the directions. */
static int rk4_root(mbd_ode *s, double ts, const double *ys, double tb, mbd_error *err) {
  int n = s->n, nroot = s->nroot;
  double *w = s->w, *ym = w + 6 * n, *yb = w + 7 * n;
  double *ga = s->gw, *gm = s->gw + nroot, *gb = s->gw + 2 * nroot;
  double ta = ts, tol = RK4_ROOT_TOL * fmax(1.0, fabs(tb));
  memcpy(yb, s->y, (size_t)n * sizeof *yb);

  // halve [ta, tb], keeping the half where some g changes sign against g(ta)
  for (int it = 0; it < RK4_MAX_BISECT && tb - ta > tol; it++) {
    double tm = ta + 0.5 * (tb - ta);
    if (!(tm > ta && tm < tb)) {
      break;
    }
    memcpy(ym, ys, (size_t)n * sizeof *ym);
    int bad = 0;
    if (rk4_step(n, ts, tm - ts, ym, w, s->rhs, s->ud, NULL, &bad) != 0) {
      return rk4_fail(bad, ts, err);
    }
    s->st.nfev += 4;
    int rc = rk4_g(s, tm, ym, gm, err);
    if (rc < 0) {
      return rc;
    }
    if (ode_any_crossed(ga, gm, nroot)) {
      tb = tm;
      memcpy(gb, gm, (size_t)nroot * sizeof *gb);
      memcpy(yb, ym, (size_t)n * sizeof *yb);
    } else {
      ta = tm;
      memcpy(ga, gm, (size_t)nroot * sizeof *ga);
    }
  }

  // the root: directions against g just before it; g there becomes the start of the next step
  ode_root_found(s, ga, gb, nroot);
  memcpy(s->y, yb, (size_t)n * sizeof *s->y);
  s->t = tb;
  s->st.last_step = tb - ts;
  return MBD_ROOT;
}

/* one rk4 step of size min(h, tstop − t) from s->t, the outputs strictly inside it (and at its
 * end) from the cubic Hermite interpolant of y and f at both ends: one more evaluation, f at the
 * end.  The interpolant is third order, the step fourth: the outputs lose at most one order. */
static int rk4_dense_step(mbd_ode *s, double tstop, mbd_error *err) {
  int n = s->n;
  double *y = s->y, *y0 = s->w + 5 * n, *f1 = s->w + 6 * n, *yi = s->w + 7 * n;
  mbd_ode_stats *st = &s->st;
  if (st->steps >= s->max_steps) {
    return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_TOO_MANY, ODE_NAME_RK4, s->max_steps, s->t,
                    st->last_step, "too many steps");
  }
  // the last step of the segment lands on tstop (a remainder below 1e-9 h is absorbed in it)
  double t0 = s->t, h = s->opts.step, t1 = t0 + h;
  if (tstop - t0 <= h * (1 + 1e-9)) {
    t1 = tstop;
    h = tstop - t0;
  }
  memcpy(y0, y, (size_t)n * sizeof *y0);
  int bad = 0;
  // f at the start is the last step's f at its end, unless the state changed since
  int reused = s->f_ok;
  s->f_ok = 0;
  if (rk4_step(n, t0, h, y, s->w, s->rhs, s->ud, reused ? f1 : NULL, &bad) != 0) {
    return rk4_fail(bad, t0, err);
  }
  // k1 = f(t0, y0) is the first n entries of w; f at the end:
  int rc = s->rhs(t1, y, f1, s->ud);
  if (rc != 0) {
    return rk4_fail(rc, t1, err);
  }
  s->t = t1;
  st->nfev += reused ? 4 : 5;
  s->f_ok = 1;
  st->steps++;
  st->last_step = h;
  const double *f0 = s->w;
  // a sign change of g over the step: bisected first (rk4_root, taking the step again from its
  // start with shorter steps), then only the outputs before the root, from this step's
  // interpolant (its ends kept apart from the bisection's workspace); no step callback there
  double tend = t1;
  int root = 0;
  if (s->nroot > 0) {
    int nroot = s->nroot;
    double *ga = s->gw, *gb = s->gw + 2 * nroot;
    rc = rk4_g(s, t1, y, gb, err);
    if (rc < 0) {
      return rc;
    }
    if (ode_any_crossed(ga, gb, nroot)) {
      double *f0k = s->w + 8 * n, *y1k = s->w + 9 * n, *f1k = s->w + 10 * n;
      memcpy(f0k, f0, (size_t)n * sizeof *f0k);
      memcpy(y1k, y, (size_t)n * sizeof *y1k);
      memcpy(f1k, f1, (size_t)n * sizeof *f1k);
      rc = rk4_root(s, t0, y0, t1, err);
      if (rc < 0) {
        return rc;
      }
      s->f_ok = 0;
      root = 1;
      tend = s->t;
      f0 = f0k;
      y = y1k;
      f1 = f1k;
    } else {
      memcpy(ga, gb, (size_t)nroot * sizeof *ga);
    }
  }
  while (s->kout < s->ntout && (root ? s->tout[s->kout] < tend : s->tout[s->kout] <= t1)) {
    double to = s->tout[s->kout];
    const double *yo = y;
    if (to < t1) {
      // Hermite basis on θ = (to − t0)/h
      double th = (to - t0) / h, th2 = th * th, th3 = th2 * th;
      double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th, h01 = -2 * th3 + 3 * th2,
             h11 = th3 - th2;
      for (int i = 0; i < n; i++) {
        yi[i] = h00 * y0[i] + h10 * h * f0[i] + h01 * y[i] + h11 * h * f1[i];
      }
      yo = yi;
    }
    rc = s->output ? s->output(to, yo, s->ud) : 0;
    s->kout++;
    if (rc < 0) {
      return rc;
    }
  }
  if (root) {
    return MBD_ROOT;
  }
  if (s->step) {
    rc = s->step(s->t, y, s->ud);
    if (rc < 0) {
      return rc;
    }
    if (rc == 1) {
      st->restarts++;
      s->f_ok = 0;  // y changed
    }
  }
  return MBD_OK;
}

/* the rk4 driver: from s->t to tstop in steps of exactly h from the segment's start whatever the
 * outputs (the outputs inside a step from the cubic Hermite interpolant of its ends), so that
 * `step = h` is the step taken and the run is the same bit for bit whatever output_every is;
 * after each step the root functions are checked for a sign change (rk4_dense_step) */
static int rk4_advance(mbd_ode *s, double tstop, mbd_error *err) {
  // g at the start, unless known from the last step
  if (s->nroot > 0 && !s->g_ok) {
    int rc = rk4_g(s, s->t, s->y, s->gw, err);
    if (rc < 0) {
      return rc;
    }
    s->g_ok = 1;
  }
  while (s->t < tstop) {
    int rc = rk4_dense_step(s, tstop, err);
    if (rc != MBD_OK) {
      return rc;
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------------
 * integrating
 * ---------------------------------------------------------------------------------------------- */

// an output exactly at the current time goes out at once, with the current state
static int output_now(mbd_ode *s) {
  if (s->kout < s->ntout && s->tout[s->kout] == s->t) {
    int rc = s->output ? s->output(s->t, s->y, s->ud) : 0;
    s->kout++;
    if (rc < 0) {
      return rc;
    }
  }
  return MBD_OK;
}

int mbd_ode_integrate_until(mbd_ode *s, double tstop, double *t, double *y, mbd_error *err) {
  if (!s) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_NULL, "integrate_until", "s");
  }
  if (!isfinite(tstop) || !(tstop > s->t)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_ODE_TSTOP, tstop, s->t);
  }
  if (s->nroot > 0) {
    memset(s->found, 0, (size_t)s->nroot * sizeof *s->found);
  }

  // a pending output at the current time, then the steps
  double t_begin = s->t;
  int status = output_now(s);
  if (status == MBD_OK) {
    status = s->sun   ? ode_sun_advance(s, tstop, err)
             : s->rkf ? ode_rkf_advance(s, tstop, err)
                      : rk4_advance(s, tstop, err);
  }

  // the time covered, and the state reached (the last accepted step when it failed)
  s->covered += s->t - t_begin;
  s->st.t_reached = s->t;
  if (t) {
    *t = s->t;
  }
  if (y) {
    memcpy(y, s->y, (size_t)s->n * sizeof *y);
  }
  return status;
}

/* ------------------------------------------------------------------------------------------------
 * one call: the lifecycle from new to free
 * ---------------------------------------------------------------------------------------------- */

int mbd_ode_solve(int n, double t0, double *y, const double *tout, int ntout,
                  const mbd_ode_opts *opts, mbd_ode_rhs_fn rhs, mbd_ode_output_fn output,
                  mbd_ode_step_fn step, void *ud, mbd_ode_stats *stats, mbd_error *err) {
  // statistics go to the caller's struct or a local one
  mbd_ode_stats local;
  mbd_ode_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  st->t_reached = t0;

  int status = check_solve(n, t0, y, tout, ntout, opts, rhs, err);
  if (status != MBD_OK) {
    return status;
  }

  // the solver, its outputs and step callback
  mbd_ode *s = NULL;
  status = mbd_ode_new(&s, n, t0, y, opts, rhs, ud, err);
  if (status != MBD_OK) {
    return status;
  }
  status = mbd_ode_set_output(s, tout, ntout, output, err);
  mbd_ode_set_step_fn(s, step);

  // to the last output time; a single output at t0 is delivered without a step
  if (status == MBD_OK) {
    if (tout[ntout - 1] > t0) {
      status = mbd_ode_integrate_until(s, tout[ntout - 1], NULL, y, err);
    } else {
      status = output_now(s);
    }
  }
  mbd_ode_get_stats(s, st);
  mbd_ode_free(s);
  return status;
}
