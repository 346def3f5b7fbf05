/* rkf45: Runge–Kutta–Fehlberg 4(5) with MATLAB 4 ode45's error control (see mbd/integrators.h).
 *
 * Paper 004 integrates with MATLAB's ode45 at "tolerance 1e-10": one scalar, which is the call
 * ode45(F, t0, tf, y0, tol) of MATLAB 4, whose ode45.m (C. B. Moler, 1987) is Fehlberg's pair with
 * local extrapolation and this step control:
 *   hmax = (tf - t0)/16,  h = hmax/8,
 *   delta = ||h f gamma2||_inf,  tau = tol max(||y||_inf, 1),
 *   if delta <= tau: t += h, y += h f gamma1
 *   if delta != 0:   h = min(hmax, 0.8 h (tau/delta)^(1/5))
 * (MATLAB 5 and later replaced it by Dormand–Prince with RelTol/AbsTol and a mixed norm: our rk45.)
 * The constraint errors paper 004 measures are of the size of the local errors, so the landscape of
 * its Figs. 2–3 is shaped by this controller; rkf45 reproduces it.  Written from the algorithm
 * above and Fehlberg's coefficients (E. Fehlberg, NASA TR R-315, 1969, table III).
 *
 * Around the steps: outputs between step ends from the cubic Hermite interpolant (y and f at both
 * ends; f at the end is the next step's first stage, so it costs nothing extra), root functions
 * checked at step ends and located by bisection on steps re-taken from the step's start, the step
 * callback after each accepted step.  Workspace is allocated with the record; stepping allocates
 * nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators_impl.h"

/* ------------------------------------------------------------------------------------------------
 * Fehlberg's coefficients (MATLAB 4's alpha, beta, gamma)
 * ---------------------------------------------------------------------------------------------- */

// stage times c_2..c_6
static const double rkf_c[6] = {0.0, 1.0 / 4.0, 3.0 / 8.0, 12.0 / 13.0, 1.0, 1.0 / 2.0};

// stage coefficients a_ij (row i: the stage, columns j < i)
static const double rkf_a[6][5] = {
    {0, 0, 0, 0, 0},
    {1.0 / 4.0, 0, 0, 0, 0},
    {3.0 / 32.0, 9.0 / 32.0, 0, 0, 0},
    {1932.0 / 2197.0, -7200.0 / 2197.0, 7296.0 / 2197.0, 0, 0},
    {439.0 / 216.0, -8.0, 3680.0 / 513.0, -845.0 / 4104.0, 0},
    {-8.0 / 27.0, 2.0, -3544.0 / 2565.0, 1859.0 / 4104.0, -11.0 / 40.0}};

// the fifth-order weights (the solution carried on: MATLAB 4's gamma(:,1))
static const double rkf_b5[6] = {16.0 / 135.0,      0.0,        6656.0 / 12825.0,
                                 28561.0 / 56430.0, -9.0 / 50.0, 2.0 / 55.0};

// fifth minus fourth order: the error estimate (MATLAB 4's gamma(:,2))
static const double rkf_e[6] = {1.0 / 360.0,      0.0,        -128.0 / 4275.0,
                                -2197.0 / 75240.0, 1.0 / 50.0, 2.0 / 55.0};

// MATLAB 4's safety factor and exponent of the step update
#define RKF_SAFETY 0.8
#define RKF_POW 0.2
// a retry asked for by the right-hand side: a quarter of the step (CVODE's ETACF)
#define RKF_RETRY 0.25
// root bisection: the largest number of halvings and the width aimed at (as rk4)
#define RKF_MAX_BISECT 60
#define RKF_ROOT_TOL 1e-12

struct ode_rkf {
  int n;         /* components the workspace is sized for */
  double hmax;   /* largest step; 0 until the first integrate_until sets it */
  double h;      /* the next step to try; 0 until set */
  int have_f;    /* f holds f(s->t, s->y) */
  double *f;     /* derivative at the current point: the next step's first stage (n) */
  double *k;     /* stages k2..k6 (5n) */
  double *ys;    /* stage state (n) */
  double *ynew;  /* the attempted step's end (n) */
  double *fnew;  /* derivative at ynew (n) */
  double *y0;    /* the accepted step's start, for outputs and roots (n) */
  double *f0;    /* its derivative (n) */
  double *yo;    /* an interpolated output, a bisection's state (n) */
};

/* ------------------------------------------------------------------------------------------------
 * the record
 * ---------------------------------------------------------------------------------------------- */

// the workspace arrays of r, in one list (allocation and release)
#define RKF_NVEC 8

static void vectors(ode_rkf *r, double **v[RKF_NVEC]) {
  double **list[RKF_NVEC] = {&r->f, &r->k, &r->ys, &r->ynew, &r->fnew, &r->y0, &r->f0, &r->yo};
  memcpy(v, list, sizeof list);
}

// the length of each array for n components (k holds five stages)
static size_t vec_len(int i, int n) { return (size_t)n * (i == 1 ? 5u : 1u); }

static void release(ode_rkf *r) {
  double **v[RKF_NVEC];
  vectors(r, v);
  for (int i = 0; i < RKF_NVEC; i++) {
    free(*v[i]);
    *v[i] = NULL;
  }
}

// allocate every array of r for n components; on failure r holds none
static int allocate(ode_rkf *r, int n) {
  double **v[RKF_NVEC];
  vectors(r, v);
  for (int i = 0; i < RKF_NVEC; i++) {
    *v[i] = malloc(vec_len(i, n) * sizeof(double));
    if (!*v[i]) {
      release(r);
      return MBD_E_NOMEM;
    }
  }
  r->n = n;
  return MBD_OK;
}

int ode_rkf_new(mbd_ode *s, mbd_error *err) {
  ode_rkf *r = calloc(1, sizeof *r);
  if (!r || allocate(r, s->n) != MBD_OK) {
    free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ODE_NAME_RKF45, "its workspace");
  }
  s->rkf = r;
  return MBD_OK;
}

void ode_rkf_free(mbd_ode *s) {
  if (s->rkf) {
    release(s->rkf);
    free(s->rkf);
    s->rkf = NULL;
  }
}

int ode_rkf_resize(mbd_ode *s, int n, mbd_error *err) {
  // new arrays first, so a failure leaves the old ones in place
  ode_rkf fresh = *s->rkf;
  if (allocate(&fresh, n) != MBD_OK) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_ODE_NOMEM, ODE_NAME_RKF45, "its workspace");
  }
  release(s->rkf);
  *s->rkf = fresh;
  s->rkf->have_f = 0;
  return MBD_OK;
}

void ode_rkf_forget(mbd_ode *s) {
  if (s->rkf) {
    s->rkf->have_f = 0;
  }
}

/* ------------------------------------------------------------------------------------------------
 * one step
 * ---------------------------------------------------------------------------------------------- */

/* stages 2..6 of a step h from (t, y) with f = f(t, y): k2..k6 in r->k, the fifth-order end in
 * yend.  With delta, also the error estimate ||h sum e_j k_j||_inf.  0, or the rhs's nonzero code
 * (*bad_t: the stage's time). */
static int stages(mbd_ode *s, double t, double h, const double *y, const double *f, double *yend,
                  double *delta, double *bad_t) {
  ode_rkf *r = s->rkf;
  int n = s->n;
  const double *kk[6] = {f, r->k, r->k + n, r->k + 2 * n, r->k + 3 * n, r->k + 4 * n};
  for (int i = 1; i < 6; i++) {
    // y + h sum_{j<i} a_ij k_j
    for (int c = 0; c < n; c++) {
      double acc = 0.0;
      for (int j = 0; j < i; j++) {
        acc += rkf_a[i][j] * kk[j][c];
      }
      r->ys[c] = y[c] + h * acc;
    }
    int rc = s->rhs(t + rkf_c[i] * h, r->ys, r->k + (size_t)(i - 1) * (size_t)n, s->ud);
    s->st.nfev++;
    if (rc != 0) {
      *bad_t = t + rkf_c[i] * h;
      return rc;
    }
  }
  // the fifth-order solution and the error estimate, component by component; a component that
  // is not finite makes the estimate NaN (fmax would pass over it)
  double worst = 0.0;
  int finite = 1;
  for (int c = 0; c < n; c++) {
    double sol = 0.0, est = 0.0;
    for (int j = 0; j < 6; j++) {
      sol += rkf_b5[j] * kk[j][c];
      est += rkf_e[j] * kk[j][c];
    }
    yend[c] = y[c] + h * sol;
    worst = fmax(worst, fabs(h * est));
    finite = finite && isfinite(yend[c]) && isfinite(est);
  }
  if (delta) {
    *delta = finite ? worst : NAN;
  }
  return 0;
}

// ||y||_inf
static double inf_norm(const double *y, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) {
    m = fmax(m, fabs(y[i]));
  }
  return m;
}

/* the cubic Hermite interpolant of the step [t0, t0 + h] at t into out: y0, f0 at its start,
 * y1, f1 at its end */
static void hermite(int n, double t0, double h, const double *y0, const double *f0,
                    const double *y1, const double *f1, double t, double *out) {
  double th = (t - t0) / h, th2 = th * th, th3 = th2 * th;
  double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th, h01 = -2 * th3 + 3 * th2,
         h11 = th3 - th2;
  for (int i = 0; i < n; i++) {
    out[i] = h00 * y0[i] + h10 * h * f0[i] + h01 * y1[i] + h11 * h * f1[i];
  }
}

// the outputs strictly before t, from the interpolant of the step [t0, t0 + h]
static int outputs_before(mbd_ode *s, double t0, double h, double t) {
  ode_rkf *r = s->rkf;
  while (s->kout < s->ntout && s->tout[s->kout] < t) {
    hermite(s->n, t0, h, r->y0, r->f0, s->y, r->f, s->tout[s->kout], r->yo);
    int rc = s->output ? s->output(s->tout[s->kout], r->yo, s->ud) : 0;
    s->kout++;
    if (rc < 0) {
      return rc;
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------------
 * roots
 * ---------------------------------------------------------------------------------------------- */

// the root functions at (t, y) into gout; 0, the callback's stop code, or MBD_E_INTEGRATOR
static int root_g(mbd_ode *s, double t, const double *y, double *gout, mbd_error *err) {
  int rc = s->g(t, y, gout, s->ud);
  if (rc > 0) {
    return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_ROOT_RC, ODE_NAME_RKF45, rc, t);
  }
  return rc;
}


/* a root inside the accepted step from (t0, r->y0, r->f0) to (tb, s->y): halve the bracket by
 * re-taking the step from t0 with a shorter step until it is narrower than RKF_ROOT_TOL max(1,
 * |tb|).  The root is the bracket's end where the sign has changed (going on from it does not find
 * it again).  On return s->t, s->y are the root and its state, s->found the directions. */
static int locate_root(mbd_ode *s, double t0, double tb, mbd_error *err) {
  ode_rkf *r = s->rkf;
  int n = s->n, nroot = s->nroot;
  double *ga = s->gw, *gm = s->gw + nroot, *gb = s->gw + 2 * nroot;
  double ta = t0, tol = RKF_ROOT_TOL * fmax(1.0, fabs(tb));
  // the bracket's end state lives in s->y; the trial state in r->yo
  for (int it = 0; it < RKF_MAX_BISECT && tb - ta > tol; it++) {
    double tm = ta + 0.5 * (tb - ta);
    if (!(tm > ta && tm < tb)) {
      break;
    }
    double bad_t = tm;
    int rc = stages(s, t0, tm - t0, r->y0, r->f0, r->yo, NULL, &bad_t);
    if (rc < 0) {
      return rc;
    }
    if (rc > 0) {
      return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RKF_ROOT_RECOV, ODE_NAME_RKF45, rc, bad_t);
    }
    if ((rc = root_g(s, tm, r->yo, gm, err)) < 0) {
      return rc;
    }
    if (ode_any_crossed(ga, gm, nroot)) {
      tb = tm;
      memcpy(gb, gm, (size_t)nroot * sizeof *gb);
      memcpy(s->y, r->yo, (size_t)n * sizeof *s->y);
    } else {
      ta = tm;
      memcpy(ga, gm, (size_t)nroot * sizeof *ga);
    }
  }
  // the directions against g just before the root; g there starts the next step
  ode_root_found(s, ga, gb, nroot);
  s->t = tb;
  s->st.last_step = tb - t0;
  r->have_f = 0;
  return MBD_ROOT;
}

/* ------------------------------------------------------------------------------------------------
 * the driver
 * ---------------------------------------------------------------------------------------------- */

int ode_rkf_advance(mbd_ode *s, double tstop, mbd_error *err) {
  ode_rkf *r = s->rkf;
  int n = s->n, nroot = s->nroot;
  size_t ny = (size_t)n * sizeof(double);
  mbd_ode_stats *st = &s->st;

  // MATLAB 4's largest and first steps, from the first span integrated
  if (!(r->hmax > 0.0)) {
    r->hmax = s->opts.max_step > 0.0 ? s->opts.max_step : (tstop - s->t) / 16.0;
  }
  if (!(r->h > 0.0)) {
    r->h = s->opts.step > 0.0 ? fmin(s->opts.step, r->hmax) : r->hmax / 8.0;
  }
  // g at the start, unless known from the last step
  if (nroot > 0 && !s->g_ok) {
    int rc = root_g(s, s->t, s->y, s->gw, err);
    if (rc < 0) {
      return rc;
    }
    s->g_ok = 1;
  }

  long rejected_here = 0;
  while (s->t < tstop) {
    // the run-wide step limit
    if (st->steps >= s->max_steps) {
      return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_TOO_MANY, ODE_NAME_RKF45, s->max_steps, s->t,
                      st->last_step, "too many steps");
    }
    // the first stage: f at the current point, kept across rejected attempts
    if (!r->have_f) {
      int rc = s->rhs(s->t, s->y, r->f, s->ud);
      st->nfev++;
      if (rc < 0) {
        return rc;
      }
      if (rc > 0) {
        return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RKF_RECOV, ODE_NAME_RKF45, rc, s->t);
      }
      r->have_f = 1;
    }
    // the step: at most hmax, the last one landing on tstop (MATLAB 4: h = tf - t)
    double t = s->t, h = fmin(r->h, r->hmax);
    int last = t + h >= tstop;
    if (last) {
      h = tstop - t;
    }
    if (!(t + h > t)) {
      return MBD_FAIL(err, MBD_E_INTEGRATOR, MSG_ODE_RKF_UNDERFLOW, ODE_NAME_RKF45, h, t,
                      rejected_here);
    }

    // stages 2..6, the fifth-order end and the error
    double delta = 0.0, bad_t = t;
    int rc = stages(s, t, h, s->y, r->f, r->ynew, &delta, &bad_t);
    double tnew = last ? tstop : t + h;
    int accept = 0;
    if (rc == 0 && !isfinite(delta)) {
      // a stage that was not finite: no estimate to scale by, a quarter step (fmin would take
      // hmax over a NaN)
      r->h = RKF_RETRY * h;
    } else if (rc == 0) {
      // MATLAB 4's test and step update: tau = tol max(||y||_inf, 1), here max(rtol ||y||, atol)
      double tau = fmax(s->opts.rtol * inf_norm(s->y, n), s->opts.atol);
      accept = delta <= tau;
      if (delta != 0.0) {
        r->h = fmin(r->hmax, RKF_SAFETY * h * pow(tau / delta, RKF_POW));
      }
    }
    if (rc == 0 && accept) {
      // f at the end: the interpolant's, and the next step's first stage
      rc = s->rhs(tnew, r->ynew, r->fnew, s->ud);
      st->nfev++;
    }
    if (rc < 0) {
      return rc;
    }
    if (rc > 0) {
      // a stage (or the end) asks for a retry: a quarter of the step
      r->h = RKF_RETRY * h;
    }
    if (rc > 0 || !accept) {
      st->rejected++;
      rejected_here++;
      continue;
    }

    // accepted: the step's start kept for outputs and roots, the end becomes the state
    rejected_here = 0;
    memcpy(r->y0, s->y, ny);
    memcpy(r->f0, r->f, ny);
    memcpy(s->y, r->ynew, ny);
    memcpy(r->f, r->fnew, ny);
    s->t = tnew;
    st->steps++;
    st->last_step = h;

    // a sign change of g over the step: locate it; outputs before it from this step
    if (nroot > 0) {
      double *ga = s->gw, *gb = s->gw + 2 * nroot;
      if ((rc = root_g(s, tnew, s->y, gb, err)) < 0) {
        return rc;
      }
      if (ode_any_crossed(ga, gb, nroot)) {
        // the interpolant needs the step's end: kept in ynew/fnew while s->y becomes the root's
        double *y1 = r->ynew;
        memcpy(y1, s->y, ny);
        int root = locate_root(s, t, tnew, err);
        if (root != MBD_ROOT) {
          return root;
        }
        // outputs strictly before the root, from the whole step's interpolant
        while (s->kout < s->ntout && s->tout[s->kout] < s->t) {
          hermite(n, t, h, r->y0, r->f0, y1, r->fnew, s->tout[s->kout], r->yo);
          int orc = s->output ? s->output(s->tout[s->kout], r->yo, s->ud) : 0;
          s->kout++;
          if (orc < 0) {
            return orc;
          }
        }
        return MBD_ROOT;
      }
      memcpy(ga, gb, (size_t)nroot * sizeof *ga);
    }

    // outputs strictly inside the step, then the step callback, then an output exactly at tnew
    if ((rc = outputs_before(s, t, h, tnew)) != MBD_OK) {
      return rc;
    }
    if (s->step) {
      rc = s->step(tnew, s->y, s->ud);
      if (rc < 0) {
        return rc;
      }
      if (rc == 1) {
        // y changed: f and g again at the new state
        st->restarts++;
        r->have_f = 0;
        if (nroot > 0 && (rc = root_g(s, tnew, s->y, s->gw, err)) < 0) {
          return rc;
        }
      }
    }
    if (s->kout < s->ntout && s->tout[s->kout] == tnew) {
      rc = s->output ? s->output(tnew, s->y, s->ud) : 0;
      s->kout++;
      if (rc < 0) {
        return rc;
      }
    }
  }
  return MBD_OK;
}
