/* mbd — ODE integrators, private part: the lifecycle object shared by ode.c (entry points, rk4)
 * and sundials.c (CVODE, ARKODE), the hooks between the two, and the message templates (one
 * place, matched by the tests). */
#ifndef MBD_INTEGRATORS_IMPL_H
#define MBD_INTEGRATORS_IMPL_H

#include <string.h>

#include "mbd/integrators.h"

/* option and argument checks (MBD_E_INPUT).  Every message starts with the entry point's name,
 * mbd_ode_<fn>: the first %s is <fn> ("solve", "new", "set_output", ...). */
#define MSG_ODE_NULL "mbd_ode_%s: %s is NULL"
#define MSG_ODE_N "mbd_ode_%s: n = %d, the state needs at least one component"
#define MSG_ODE_NTOUT "mbd_ode_%s: ntout = %d, at least one output time is needed"
#define MSG_ODE_KIND "mbd_ode_%s: unknown integrator kind %d (adams, bdf, rk45, rk4, rkf45)"
#define MSG_ODE_RTOL "mbd_ode_%s: %s: rtol = %g must be > 0 and finite"
#define MSG_ODE_ATOL "mbd_ode_%s: %s: atol = %g must be > 0 and finite"
/* a run's tolerances (mbd_ode_check_tolerances): the caller, rtol, atol as their shortest texts */
#define MSG_ODE_TOLERANCES \
  "%s: rtol must be between 0 and 1 and atol positive and finite, got rtol = %s, atol = %s"
#define MSG_ODE_STEP_RK4 "mbd_ode_%s: rk4: step = %g must be > 0 and finite"
#define MSG_ODE_STEP "mbd_ode_%s: %s: initial step = %g must be >= 0 and finite"
#define MSG_ODE_MAX_STEP "mbd_ode_%s: %s: max_step = %g must be >= 0 and finite"
#define MSG_ODE_MAX_STEPS "mbd_ode_%s: max_steps = %ld must be >= 0"
/* max_order out of the method's range: entry point, kind, its highest order, value */
#define MSG_ODE_MAX_ORDER "mbd_ode_%s: %s: max_order must be 1 to %d, got %d"
/* max_order for a kind without one: entry point, kind */
#define MSG_ODE_MAX_ORDER_KIND "mbd_ode_%s: %s: max_order is for adams and bdf"
#define MSG_ODE_T0 "mbd_ode_%s: t0 = %g is not finite"
#define MSG_ODE_TOUT0 "mbd_ode_%s: tout[0] = %.17g is before t0 = %.17g"
#define MSG_ODE_TOUT "mbd_ode_%s: tout[%d] = %.17g is not after tout[%d] = %.17g"
#define MSG_ODE_TOUT_NAN "mbd_ode_%s: tout[%d] is not finite"

/* lifecycle checks (MBD_E_INPUT) */
#define MSG_ODE_NTOUT_NEG "mbd_ode_set_output: ntout = %d must be >= 0"
#define MSG_ODE_NROOT "mbd_ode_set_roots: nroot = %d must be >= 0"
#define MSG_ODE_TSTOP "mbd_ode_integrate_until: tstop = %.17g must be finite and after t = %.17g"
#define MSG_ODE_T "mbd_ode_reinit: t = %g is not finite"

/* solver failures (MBD_E_INTEGRATOR): solver, time reached, last step, flag name, SUNDIALS' text */
#define MSG_ODE_FAIL "%s: failed at t = %.17g (last step %.6g): %s: %s"
#define MSG_ODE_SETUP "%s: setup failed in %s: %s: %s"
#define MSG_ODE_TOO_MANY "%s: max_steps = %ld reached at t = %.17g (last step %.6g): %s"
#define MSG_ODE_RK4_RECOV \
  "rk4: right-hand side returned %d (retry) at t = %.17g; a fixed step cannot be retried"
#define MSG_ODE_RK4_ROOT_RC \
  "rk4: root function returned %d at t = %.17g; it may return 0 (ok) or < 0 (stop)"

/* rkf45 failures (MBD_E_INTEGRATOR) */
#define MSG_ODE_RKF_UNDERFLOW \
  "%s: the step %.6g no longer moves t = %.17g after %ld rejected attempts: a singularity is likely"
#define MSG_ODE_RKF_RECOV \
  "%s: right-hand side returned %d (retry) at the accepted state t = %.17g; only a step can be " \
  "retried"
#define MSG_ODE_RKF_ROOT_RECOV \
  "%s: right-hand side returned %d (retry) at t = %.17g while locating a root"
#define MSG_ODE_ROOT_RC "%s: root function returned %d at t = %.17g; it may return 0 (ok) or < 0 (stop)"

/* allocation failures (MBD_E_NOMEM): who, what */
#define MSG_ODE_NOMEM "%s: cannot allocate %s"

/* solver names used in the messages */
#define ODE_NAME_ADAMS "cvode adams"
#define ODE_NAME_BDF "cvode bdf"
#define ODE_NAME_RK45 "arkode erkstep dormand-prince 5(4)"
#define ODE_NAME_RK4 "rk4"
#define ODE_NAME_RKF45 "rkf45 (fehlberg 4(5), matlab 4 ode45 control)"

/* what a SUNDIALS solver owns (sundials.c); NULL for rk4 and rkf45 */
typedef struct ode_sun ode_sun;

/* what rkf45 owns (rkf45.c); NULL for the other kinds */
typedef struct ode_rkf ode_rkf;

/* the lifecycle object: problem, outputs, roots, the current state and the counters */
struct mbd_ode {
  /* the problem */
  int n;              /* state size */
  mbd_ode_opts opts;  /* the caller's options, checked */
  long max_steps;     /* opts.max_steps, or the default when 0 */
  mbd_ode_rhs_fn rhs; /* right-hand side */
  void *ud;           /* user data of every callback */
  double t;           /* current time: y below is the state there */
  double *y;          /* current state (n): the last accepted step, a root, or a reinit */

  /* outputs and the step callback */
  double *tout;             /* output times (ntout), increasing, owned */
  int ntout;                /* number of output times */
  int kout;                 /* next output not yet delivered */
  mbd_ode_output_fn output; /* output callback, may be NULL (rk4 still lands on tout) */
  mbd_ode_step_fn step;     /* step callback, may be NULL */

  /* root functions */
  int nroot;         /* number of root functions, 0 = none */
  mbd_ode_root_fn g; /* root functions */
  int *found;        /* after MBD_ROOT: +1 rose, -1 fell, 0 none (nroot) */
  double *gw;        /* rk4: g at the bracket's start, middle and end (3 x nroot) */
  int g_ok;          /* rk4: gw[0..nroot) holds g at (t, y) */
  int f_ok;          /* rk4: w[6n..7n) holds f at (t, y) (the last dense step's end) */

  /* workspace and counters */
  double *w;        /* rk4: stages k1..k4, stage state, step start, middle, end (8n) */
  mbd_ode_stats st; /* rk4: every counter; SUNDIALS: restarts and last_step only */
  double covered;   /* time integrated over all segments (for avg_step) */
  ode_sun *sun;     /* the SUNDIALS solver (adams, bdf, rk45), NULL for rk4 and rkf45 */
  ode_rkf *rkf;     /* rkf45's steps and workspace, NULL for the other kinds */
};

/* the SUNDIALS side (sundials.c), called only by ode.c */

/* make the solver for s->opts.kind at (s->t, s->y) with s->n components, roots if s->nroot > 0;
 * on success s->sun is set */
int ode_sun_new(mbd_ode *s, mbd_error *err);

/* free s->sun (NULL-safe) */
void ode_sun_free(mbd_ode *s);

/* give the solver the current root functions (s->nroot, s->g); restarts from (s->t, s->y) first
 * when the solver has stepped since its last (re)init: returns 1 then, 0 otherwise, < 0 on error */
int ode_sun_roots(mbd_ode *s, mbd_error *err);

/* restart at (s->t, s->y): the same size (history discarded, counters kept) */
int ode_sun_reinit(mbd_ode *s, mbd_error *err);

/* a new solver of n components at (t, y) replacing the current one, counters carried over;
 * y is the buffer that becomes s->y.  On failure s is unchanged. */
int ode_sun_resize(mbd_ode *s, int n, double t, double *y, mbd_error *err);

/* integrate from s->t to tstop (> s->t): MBD_OK, MBD_ROOT or an error; s->t, s->y follow */
int ode_sun_advance(mbd_ode *s, double tstop, mbd_error *err);

/* add the solver's counters (all segments) to st */
void ode_sun_stats(const mbd_ode *s, mbd_ode_stats *st);

/* the rkf45 side (rkf45.c), called only by ode.c */

/* rkf45's record for s->n components (s->rkf set); MBD_OK or MBD_E_NOMEM */
int ode_rkf_new(mbd_ode *s, mbd_error *err);

/* free s->rkf (NULL-safe) */
void ode_rkf_free(mbd_ode *s);

/* workspace for n components (a reinit with a new size; on failure s is unchanged); the step
 * sizes are kept */
int ode_rkf_resize(mbd_ode *s, int n, mbd_error *err);

/* the state was replaced (reinit, or a step callback that changed y): f at it is not known */
void ode_rkf_forget(mbd_ode *s);

/* integrate from s->t to tstop (> s->t): MBD_OK, MBD_ROOT or an error; s->t, s->y follow */
int ode_rkf_advance(mbd_ode *s, double tstop, mbd_error *err);

/* root function i changed sign from a to b (the fixed-step integrators' own root search): a is
 * not zero (a zero at the start is not a crossing) and b is zero or of the other sign */
static inline int ode_crossed(double a, double b) {
  return a != 0.0 && (b == 0.0 || (a > 0.0) != (b > 0.0));
}

/* does any of the nroot root functions cross between ga and gb */
static inline int ode_any_crossed(const double *ga, const double *gb, int nroot) {
  for (int i = 0; i < nroot; i++) {
    if (ode_crossed(ga[i], gb[i])) {
      return 1;
    }
  }
  return 0;
}

/* the root found at the end gb of a bracket that starts at ga: each function's direction (+1
 * rising, −1 falling, 0 none) into s->found, and gb becomes the start of the next step's search */
static inline void ode_root_found(mbd_ode *s, double *ga, const double *gb, int nroot) {
  for (int i = 0; i < nroot; i++) {
    s->found[i] = ode_crossed(ga[i], gb[i]) ? (ga[i] < 0.0 ? 1 : -1) : 0;
  }
  memcpy(ga, gb, (size_t)nroot * sizeof *ga);
}

/* mbd's vector operations (lean_vectors.c) installed in a serial vector's table: every vector
 * CVODE and ARKODE clone from it has them */
struct _generic_N_Vector;
void mbd_ode_lean_ops(struct _generic_N_Vector *v);

#endif
