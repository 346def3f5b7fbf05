/* the run of a coordinate-level system (paper 004): the Udwadia–Kalaba equation with
 * stabilization (eq 5, 10–11, 31; the core is formulations/udwadia_kalaba.c's, shared with models),
 * the error measures E1 and E2, the start-up checks; integrated with the shared output grid and
 * clocks of engine/sim.  The integration loop only runs the tape and small dense algebra in
 * workspaces sized at the start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formulations/formulations.h"
#include "../sim/run_impl.h"
#include "../sim/sim_msg.h"
#include "mbd/integrators.h"
#include "mbd/linalg.h"
#include "system_impl.h"
#include "system_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* the run: workspaces sized once                                                              */

typedef struct sysrun {
  mbd_system *s;
  const mbd_sys_opts *o;
  int n, m, nh, nr;     /* coordinates, constraints, holonomic, nonholonomic */
  int stride;           /* tape outputs per constraint: value, rate, b, A row (n) */
  int fofs;             /* first constraint output in the tape (n with a symbolic force) */
  mbd_sym_tape *tape;
  double *v;            /* 2n+1 tape input: q, q̇, t */
  double *out;          /* tape outputs */
  double *F, *a, *tmp_n, *qdd;  /* n */
  double *A, *B;        /* m×n (ld m) */
  double *X;            /* n×m Moore–Penrose inverse of B */
  double *bs, *r;       /* m: stabilized b, b* − A a */
  double *H, *Hd, *R;   /* nh, nh, nr */
  double *S, *T, *L;    /* nh×nh, nh×nh, nr×nr (zero when not given) */
  int *hrow, *rrow;     /* constraint index of each holonomic / nonholonomic row */
  double *val, *rate;   /* m: constraint values and their time derivatives at the last evaluation */
  double *acc;          /* m: second derivatives A q̈ − b (holonomic; nonholonomic: = rate) */
  double tprev;         /* time of the last accepted step (E1, E2 quadrature) */
  double *fprev;        /* 4m: h², d(h²)/dt, ḣ², d(ḣ²)/dt at tprev per constraint */
  double *sum;          /* 2m: ∫h², ∫ḣ² up to tprev */
  double *rec;          /* channel values of one sample */
  mbd_lsq_ws lsq;       /* SVD workspace, m×n */
  mbd_run *run;
  mbd_error *err;
  double max_pos, max_vel;
} sysrun;

static void sr_free(sysrun *r) {
  mbd_sym_tape_free(r->tape);
  void *ps[] = {r->v, r->out, r->F, r->a, r->tmp_n, r->qdd, r->A, r->B, r->X, r->bs, r->r,
                r->H, r->Hd, r->R, r->S, r->T, r->L, r->hrow, r->rrow, r->val, r->rate, r->rec,
                r->acc, r->fprev, r->sum};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&r->lsq);
}

static int sr_init(sysrun *r, mbd_system *s, const mbd_sys_opts *o, mbd_error *err) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->o = o;
  r->err = err;
  int n = s->n, m = s->nc;
  r->n = n;
  r->m = m;
  for (int k = 0; k < m; k++) {
    if (s->con[k].holo) {
      r->nh++;
    } else {
      r->nr++;
    }
  }
  r->stride = n + 3;
  r->fofs = s->force_kind == FORCE_SYM ? n : 0;
  int nout = r->fofs + m * r->stride;
  size_t nn = (size_t)n, mm = (size_t)(m ? m : 1), hh = (size_t)(r->nh ? r->nh : 1),
         rr = (size_t)(r->nr ? r->nr : 1);
  r->v = calloc(2 * nn + 1, sizeof(double));
  r->out = calloc((size_t)(nout ? nout : 1), sizeof(double));
  r->F = calloc(nn, sizeof(double));
  r->a = calloc(nn, sizeof(double));
  r->tmp_n = calloc(nn, sizeof(double));
  r->qdd = calloc(nn, sizeof(double));
  r->A = calloc(mm * nn, sizeof(double));
  r->B = calloc(mm * nn, sizeof(double));
  r->X = calloc(mm * nn, sizeof(double));
  r->bs = calloc(mm, sizeof(double));
  r->r = calloc(mm, sizeof(double));
  r->H = calloc(hh, sizeof(double));
  r->Hd = calloc(hh, sizeof(double));
  r->R = calloc(rr, sizeof(double));
  r->S = calloc(hh * hh, sizeof(double));
  r->T = calloc(hh * hh, sizeof(double));
  r->L = calloc(rr * rr, sizeof(double));
  r->hrow = calloc(hh, sizeof(int));
  r->rrow = calloc(rr, sizeof(int));
  r->val = calloc(mm, sizeof(double));
  r->rate = calloc(mm, sizeof(double));
  r->rec = calloc(2 * nn + 2 * mm, sizeof(double));
  r->acc = calloc(mm, sizeof(double));
  r->fprev = calloc(4 * mm, sizeof(double));
  r->sum = calloc(2 * mm, sizeof(double));
  if (!r->v || !r->out || !r->F || !r->a || !r->tmp_n || !r->qdd || !r->A || !r->B || !r->X ||
      !r->bs || !r->r || !r->H || !r->Hd || !r->R || !r->S || !r->T || !r->L || !r->hrow ||
      !r->rrow || !r->val || !r->rate || !r->rec || !r->acc || !r->fprev || !r->sum) {
    sr_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
  }
  int rc = mbd_lsq_alloc(&r->lsq, m ? m : 1, n, err);
  if (rc < 0) {
    sr_free(r);
    return rc;
  }
  for (int k = 0, ih = 0, ir = 0; k < m; k++) {
    if (s->con[k].holo) {
      r->hrow[ih++] = k;
    } else {
      r->rrow[ir++] = k;
    }
  }
  if (o) {
    if (o->S && r->nh) {
      memcpy(r->S, o->S, hh * hh * sizeof(double));
    }
    if (o->T && r->nh) {
      memcpy(r->T, o->T, hh * hh * sizeof(double));
    }
    if (o->L && r->nr) {
      memcpy(r->L, o->L, rr * rr * sizeof(double));
    }
  }
  // one tape: [force (n, symbolic only)] then per constraint: value, rate, b, A row
  mbd_sym_id *ex = calloc((size_t)(nout ? nout : 1), sizeof *ex);
  mbd_sym_id *vars = calloc(2 * nn + 1, sizeof *vars);
  if (!ex || !vars) {
    free(ex);
    free(vars);
    sr_free(r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
  }
  for (int i = 0; i < r->fofs; i++) {
    ex[i] = s->Fs[i];
  }
  for (int k = 0; k < m; k++) {
    mbd_sym_id *e = ex + r->fofs + k * r->stride;
    e[0] = s->con[k].e;
    e[1] = s->con[k].dval;
    e[2] = s->con[k].b;
    memcpy(e + 3, s->con[k].A, nn * sizeof(mbd_sym_id));
  }
  memcpy(vars, s->qv, nn * sizeof(mbd_sym_id));
  memcpy(vars + n, s->qdv, nn * sizeof(mbd_sym_id));
  vars[2 * n] = s->tv;
  rc = nout ? mbd_sym_tape_new(s->ctx, nout, ex, 2 * n + 1, vars, &r->tape, err) : MBD_OK;
  free(ex);
  free(vars);
  if (rc < 0) {
    sr_free(r);
    return rc;
  }
  return MBD_OK;
}

/* the Udwadia–Kalaba acceleration at (t, q, q̇) (paper 004 eq 5, 11, 31): also leaves the
 * constraint values and rates in r->val, r->rate.  0 ok, < 0 with err. */
static int sr_eval(sysrun *r, double t, const double *q, const double *qd) {
  mbd_system *s = r->s;
  int n = r->n, m = r->m;
  memcpy(r->v, q, (size_t)n * sizeof(double));
  memcpy(r->v + n, qd, (size_t)n * sizeof(double));
  r->v[2 * n] = t;
  if (r->tape) {
    mbd_sym_tape_eval(r->tape, r->v, r->out);
  }
  // free motion a = M⁻¹F (eq 2)
  switch (s->force_kind) {
    case FORCE_CONST:
      memcpy(r->F, s->Fc, (size_t)n * sizeof(double));
      break;
    case FORCE_SYM:
      memcpy(r->F, r->out, (size_t)n * sizeof(double));
      break;
    case FORCE_FN: {
      int rc = s->ffn(s->fud, t, q, qd, r->F, r->err);
      if (rc < 0) {
        return rc;
      }
      break;
    }
    default:
      memset(r->F, 0, (size_t)n * sizeof(double));
  }
  mbd_gemv(0, n, n, 1.0, s->Minv, n, r->F, 0.0, r->a);
  if (m == 0) {
    memcpy(r->qdd, r->a, (size_t)n * sizeof(double));
    return MBD_OK;
  }
  // A, b and the constraint values H, Ḣ (holonomic) and R (nonholonomic)
  for (int k = 0; k < m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    r->val[k] = o[0];
    r->bs[k] = o[2];
    for (int j = 0; j < n; j++) {
      MBD_AT(r->A, m, k, j) = o[3 + j];
    }
  }
  for (int i = 0; i < r->nh; i++) {
    const double *o = r->out + r->fofs + r->hrow[i] * r->stride;
    r->H[i] = o[0];
    r->Hd[i] = o[1];
  }
  for (int i = 0; i < r->nr; i++) {
    r->R[i] = r->val[r->rrow[i]];
  }
  // stabilization: b* = b − SḢ − TH (eq 10), b − LR (eq 31)
  for (int i = 0; i < r->nh; i++) {
    double c = 0;
    for (int j = 0; j < r->nh; j++) {
      c += MBD_AT(r->S, r->nh, i, j) * r->Hd[j] + MBD_AT(r->T, r->nh, i, j) * r->H[j];
    }
    r->bs[r->hrow[i]] -= c;
  }
  for (int i = 0; i < r->nr; i++) {
    double c = 0;
    for (int j = 0; j < r->nr; j++) {
      c += MBD_AT(r->L, r->nr, i, j) * r->R[j];
    }
    r->bs[r->rrow[i]] -= c;
  }
  // residual b* − A a, then q̈ = a + M^(−1/2) (A M^(−1/2))⁺ (b* − A a) by the shared core
  memcpy(r->r, r->bs, (size_t)m * sizeof(double));
  mbd_gemv(0, m, n, -1.0, r->A, m, r->a, 1.0, r->r);
  double rcond = r->o && r->o->pinv_rcond > 0 ? r->o->pinv_rcond : 1e-12;
  mbd_uk_root root = {NULL, s->Mih, NULL};
  int rc = mbd_uk_solve(m, n, r->A, &root, r->a, r->r, rcond, r->B, r->X, r->tmp_n, &r->lsq,
                        r->qdd);
  if (rc != MBD_OK) {
    return MBD_FAIL(r->err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_SYS_SVD, s->name, t);
  }
  // A q̈ − b (b without stabilization): ḧ of a holonomic constraint, ṙ of a nonholonomic one;
  // rates: holonomic ḣ, nonholonomic ṙ
  for (int k = 0; k < m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    double c = -o[2];
    for (int j = 0; j < n; j++) {
      c += o[3 + j] * r->qdd[j];
    }
    r->acc[k] = c;
    r->rate[k] = s->con[k].holo ? o[1] : c;
  }
  return MBD_OK;
}

/* y = [q, q̇] */
static int sys_rhs(double t, const double *y, double *ydot, void *ud) {
  sysrun *r = ud;
  int n = r->n;
  int rc = sr_eval(r, t, y, y + n);
  if (rc < 0) {
    return rc;
  }
  memcpy(ydot, y + n, (size_t)n * sizeof(double));
  memcpy(ydot + n, r->qdd, (size_t)n * sizeof(double));
  for (int i = 0; i < 2 * n; i++) {
    if (!isfinite(ydot[i])) {
      return MBD_FAIL(r->err, MBD_E_NAN, MSG_SYS_STATE_NAN, r->s->name,
                      i < n ? "velocity" : "acceleration", r->s->names[i % n], ydot[i], t);
    }
  }
  return 0;
}

static int sys_output(double t, const double *y, void *ud) {
  sysrun *r = ud;
  int n = r->n, m = r->m;
  int rc = sr_eval(r, t, y, y + n);
  if (rc < 0) {
    return rc;
  }
  if (r->o->poll) {
    rc = r->o->poll(r->o->poll_ud, t, r->err);
    if (rc < 0) {
      return rc;
    }
  }
  memcpy(r->rec, y, 2 * (size_t)n * sizeof(double));
  for (int k = 0; k < m; k++) {
    r->rec[2 * n + 2 * k] = r->val[k];
    r->rec[2 * n + 2 * k + 1] = r->rate[k];
    if (r->s->con[k].holo) {
      r->max_pos = fmax(r->max_pos, fabs(r->val[k]));
      r->max_vel = fmax(r->max_vel, fabs(r->rate[k]));
    } else {
      r->max_vel = fmax(r->max_vel, fabs(r->val[k]));
    }
  }
  return mbd_run_record_values(r->run, t, r->rec, r->err);
}

/* E1, E2 (paper 004 eq 17–18, 34–35): ∫c² and ∫ċ² over the integrator's accepted steps — the
 * solution points themselves — by the trapezoid rule with the Hermite end correction
 * (Δ/2)(f0 + f1) + (Δ²/12)(f0' − f1'), fourth order, using f' = 2cċ and 2ċc̈ (c̈ = A q̈ − b is known
 * for holonomic constraints; the rate of a nonholonomic one has no derivative here: plain
 * trapezoid).  Why not quadrature components in the ODE: c is of the size of the local truncation
 * error, and the Runge–Kutta stages, less accurate than the step ends, dominate such an integral
 * (it even came out negative).  Why not the output grid: it would tie E to output_every and to
 * the interpolant's own error. */
static void quad_point(sysrun *r, double t, int first) {
  for (int k = 0; k < r->m; k++) {
    int holo = r->s->con[k].holo;
    double c = r->val[k], cd = r->rate[k];
    double f[4] = {c * c, 2 * c * cd, cd * cd, holo ? 2 * cd * r->acc[k] : 0};
    double *fp = r->fprev + 4 * k;
    if (!first) {
      double d = t - r->tprev;
      r->sum[2 * k] += 0.5 * d * (fp[0] + f[0]) + d * d / 12 * (fp[1] - f[1]);
      r->sum[2 * k + 1] += 0.5 * d * (fp[2] + f[2]) + (holo ? d * d / 12 * (fp[3] - f[3]) : 0);
    }
    memcpy(fp, f, sizeof f);
  }
  r->tprev = t;
}

/* after every accepted step: the error measures' quadrature */
static int sys_step(double t, double *y, void *ud) {
  sysrun *r = ud;
  if (r->m == 0) {
    return 0;
  }
  int rc = sr_eval(r, t, y, y + r->n);
  if (rc < 0) {
    return rc;
  }
  quad_point(r, t, 0);
  return 0;
}

/* checks at the initial state: degenerate constraints (rejected), inconsistency (warned) */
static int check_start(sysrun *r, mbd_error *err) {
  mbd_system *s = r->s;
  int rc = sr_eval(r, 0.0, s->q0, s->qd0);
  if (rc < 0) {
    return rc;
  }
  quad_point(r, 0.0, 1);
  int n = r->n;
  for (int k = 0; k < r->m; k++) {
    const double *o = r->out + r->fofs + k * r->stride;
    double arow = 0;
    for (int j = 0; j < n; j++) {
      arow = fmax(arow, fabs(o[3 + j]));
    }
    int holo = s->con[k].holo;
    const char *kind = holo ? "holonomic" : "nonholonomic";
    if (arow <= 1e-12 && fabs(o[2]) <= 1e-12 && fabs(o[0]) <= 1e-8) {
      char et[200];
      mbd_system_expr_text(s->ctx, s->con[k].e, et, sizeof et);
      return MBD_FAIL(err, MBD_E_INPUT, MBD_MSG_SYS_DEGENERATE, kind, k + 1, et,
                      " (or in another form whose gradient does not vanish on the constraint)",
                      "");
    }
    // violated where its gradient vanishes: no acceleration can restore it (typically the
    // initial state was never given: q = 0)
    if (holo && fabs(o[0]) > 1e-8 && arow <= 1e-12) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SYS_INITIAL_STUCK, s->name, k + 1, o[0]);
    }
    if (fabs(o[0]) > 1e-8 || (holo && fabs(o[1]) > 1e-8)) {
      mbd_system_warn(s, MSG_SYS_INITIAL_VIOLATION, s->name, kind, k + 1, o[0],
                      holo ? ", rate " : "", holo ? o[1] : 0.0);
    }
  }
  return MBD_OK;
}

/* warn when the stabilization makes constraint errors grow (an eigenvalue with Re > 0) */
static int check_stability(sysrun *r, mbd_error *err) {
  int N = 2 * (r->nh > r->nr ? r->nh : r->nr);
  double *re = calloc((size_t)(N ? N : 1), sizeof(double)), *im = calloc((size_t)(N ? N : 1),
                                                                          sizeof(double));
  if (!re || !im) {
    free(re);
    free(im);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM_PLAIN);
  }
  double mx = 0;
  int rc = MBD_OK;
  if (r->nh) {
    rc = mbd_stability(r->nh, r->S, r->T, NULL, re, im, &mx, err);
    if (rc == MBD_OK && mx > 1e-9) {
      mbd_system_warn(r->s, MBD_MSG_SYS_UNSTABLE, "S, T", "lambda^2 I + lambda S + T", mx);
    }
  }
  if (rc == MBD_OK && r->nr) {
    rc = mbd_stability(r->nr, NULL, NULL, r->L, re, im, &mx, err);
    if (rc == MBD_OK && mx > 1e-9) {
      mbd_system_warn(r->s, MBD_MSG_SYS_UNSTABLE, "L", "lambda I + L", mx);
    }
  }
  free(re);
  free(im);
  return rc;
}

static int simulate(mbd_system *s, const mbd_sys_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  s->nwarning = 0;
  if (!(o->t_end > 0) || !isfinite(o->t_end)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_T_END, o->t_end);
  }
  if (mbd_integrator_name(o->ode.kind) == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_INTEGRATOR, o->ode.kind);
  }
  if (o->output_every < 0 || !isfinite(o->output_every)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_OUTPUT_EVERY, o->output_every);
  }
  sysrun r;
  int rc = sr_init(&r, s, o, err);
  if (rc < 0) {
    return rc;
  }
  rc = check_start(&r, err);
  if (rc == MBD_OK) {
    rc = check_stability(&r, err);
  }
  double *grid = NULL, *y = NULL;
  int n = s->n, m = s->nc;
  int nout = 0;
  if (rc == MBD_OK) {
    double h = o->output_every > 0 ? o->output_every : o->t_end / 500;
    nout = mbd_sim_grid(o->t_end, h, &grid);
    if (nout < 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_TOO_MANY_SAMPLES, h, MBD_SIM_MAX_SAMPLES);
    }
  }
  // channels: q, q̇ by name, then constraint<i> and constraint<i>_dot
  int nch = 2 * n + 2 * m;
  if (rc == MBD_OK) {
    rc = mbd_run_fits(nch, nout, "simulate", "sample less often (a larger output_every)", err);
  }
  char(*names)[80] = rc == MBD_OK ? calloc((size_t)nch, sizeof *names) : NULL;
  const char **np = rc == MBD_OK ? calloc((size_t)nch, sizeof *np) : NULL;
  y = rc == MBD_OK ? calloc(2 * (size_t)n, sizeof(double)) : NULL;
  if (rc == MBD_OK && (!names || !np || !y)) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
  }
  if (rc == MBD_OK) {
    for (int i = 0; i < n; i++) {
      snprintf(names[i], sizeof names[i], "%s", s->names[i]);
      snprintf(names[n + i], sizeof names[i], "%s_dot", s->names[i]);
    }
    for (int k = 0; k < m; k++) {
      snprintf(names[2 * n + 2 * k], sizeof names[0], "constraint%d", k + 1);
      snprintf(names[2 * n + 2 * k + 1], sizeof names[0], "constraint%d_dot", k + 1);
    }
    for (int c = 0; c < nch; c++) {
      np[c] = names[c];
    }
    r.run = mbd_run_alloc_names(nch, np, nout);
    if (!r.run) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "simulate");
    }
  }
  free(names);
  free(np);
  if (rc < 0) {
    free(grid);
    free(y);
    sr_free(&r);
    return rc;
  }
  mbd_run *run = r.run;
  snprintf(run->formulation, sizeof run->formulation, "udwadia_kalaba");
  snprintf(run->integrator, sizeof run->integrator, "%s", mbd_integrator_name(o->ode.kind));
  run->t_end = o->t_end;
  memcpy(y, s->q0, (size_t)n * sizeof(double));
  memcpy(y + n, s->qd0, (size_t)n * sizeof(double));
  mbd_ode_stats st;
  memset(&st, 0, sizeof st);
  double w0 = mbd_clock_wall(), c0 = mbd_clock_cpu();
  rc = mbd_ode_solve(2 * n, 0.0, y, grid, nout, &o->ode, sys_rhs, sys_output, sys_step, &r, &st,
                     err);
  run->stats.wall_time = mbd_clock_wall() - w0;
  run->stats.cpu_time = mbd_clock_cpu() - c0;
  run->stats.nfev = st.nfev;
  run->stats.steps = st.steps;
  run->stats.rejected = st.rejected;
  run->stats.avg_step = st.avg_step;
  run->stats.max_position_violation = r.max_pos;
  run->stats.max_velocity_violation = r.max_vel;
  // E1, E2 over the time reached (eq 17–18, 34–35)
  double *E = calloc(2 * (size_t)(m ? m : 1), sizeof(double));
  if (E) {
    for (int k = 0; k < m; k++) {
      E[k] = r.tprev > 0 ? sqrt(fmax(r.sum[2 * k], 0) / r.tprev) : 0;
      E[m + k] = r.tprev > 0 ? sqrt(fmax(r.sum[2 * k + 1], 0) / r.tprev) : 0;
    }
    mbd_run_set_errors(run, m, E, E + m);
    free(E);
  }
  if (o->ode.rtol > SIM_LOOSE_RTOL) {
    mbd_run_warn(run, MSG_SIM_LOOSE_RTOL, o->ode.rtol, SIM_LOOSE_RTOL);
  }
  mbd_run_finish(run, rc, err);
  free(grid);
  free(y);
  sr_free(&r);
  *out = run;
  return rc;
}

/* the run; the system refuses changes meanwhile (its force function runs inside: a nested
 * s:simulate has its own run data) */
int mbd_system_simulate(mbd_system *s, const mbd_sys_opts *o, mbd_run **out, mbd_error *err) {
  s->running++;
  int rc = simulate(s, o, out, err);
  s->running--;
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* one state explained (s:explain)                                                             */

void mbd_system_explain_free(mbd_system_explain *e) {
  if (!e) {
    return;
  }
  void *ps[] = {e->q,   e->qd,  e->M,   e->F,    e->a,    e->A,   e->b,
                e->resid, e->qdd, e->qc, e->val, e->rate, e->acc, e->holo,
                e->coord, e->con};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  free(e);
}

int mbd_system_explain_state(mbd_system *s, double t, const double *q, const double *qd,
                             mbd_system_explain **out, mbd_error *err) {
  *out = NULL;
  if (!q || !qd) {
    q = s->q0;
    qd = s->qd0;
  }
  sysrun r;
  int rc = sr_init(&r, s, NULL, err);
  if (rc < 0) {
    return rc;
  }
  rc = sr_eval(&r, t, q, qd);
  if (rc < 0) {
    sr_free(&r);
    return rc;
  }
  int n = s->n, m = s->nc;
  size_t nn = (size_t)n, mm = (size_t)(m ? m : 1);
  mbd_system_explain *e = calloc(1, sizeof *e);
  if (e) {
    e->q = calloc(nn, sizeof(double));
    e->qd = calloc(nn, sizeof(double));
    e->M = calloc(nn * nn, sizeof(double));
    e->F = calloc(nn, sizeof(double));
    e->a = calloc(nn, sizeof(double));
    e->A = calloc(mm * nn, sizeof(double));
    e->b = calloc(mm, sizeof(double));
    e->resid = calloc(mm, sizeof(double));
    e->qdd = calloc(nn, sizeof(double));
    e->qc = calloc(nn, sizeof(double));
    e->val = calloc(mm, sizeof(double));
    e->rate = calloc(mm, sizeof(double));
    e->acc = calloc(mm, sizeof(double));
    e->holo = calloc(mm, sizeof(int));
    e->coord = calloc(nn, sizeof *e->coord);
    e->con = calloc(mm, sizeof *e->con);
  }
  if (!e || !e->q || !e->qd || !e->M || !e->F || !e->a || !e->A || !e->b || !e->resid ||
      !e->qdd || !e->qc || !e->val || !e->rate || !e->acc || !e->holo || !e->coord || !e->con) {
    mbd_system_explain_free(e);
    sr_free(&r);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYS_NOMEM, s->name);
  }
  e->t = t;
  e->n = n;
  e->m = m;
  memcpy(e->q, q, nn * sizeof(double));
  memcpy(e->qd, qd, nn * sizeof(double));
  memcpy(e->M, s->M, nn * nn * sizeof(double));
  memcpy(e->F, r.F, nn * sizeof(double));
  memcpy(e->a, r.a, nn * sizeof(double));
  memcpy(e->qdd, r.qdd, nn * sizeof(double));
  for (int i = 0; i < n; i++) {
    snprintf(e->coord[i], sizeof e->coord[i], "%s", s->names[i]);
  }
  // M (q̈ − a): the force the constraints apply
  for (int j = 0; j < n; j++) {
    r.tmp_n[j] = r.qdd[j] - r.a[j];
  }
  mbd_gemv(0, n, n, 1.0, s->M, n, r.tmp_n, 0.0, e->qc);
  for (int k = 0; k < m; k++) {
    const double *o = r.out + r.fofs + k * r.stride;
    e->b[k] = o[2];
    double ra = o[2];
    for (int j = 0; j < n; j++) {
      MBD_AT(e->A, m, k, j) = o[3 + j];
      ra -= o[3 + j] * r.a[j];
    }
    e->resid[k] = ra;
    e->val[k] = r.val[k];
    e->rate[k] = r.rate[k];
    e->acc[k] = r.acc[k];
    e->holo[k] = s->con[k].holo;
    mbd_system_expr_text(s->ctx, s->con[k].e, e->con[k], sizeof e->con[k]);
  }
  sr_free(&r);
  *out = e;
  return MBD_OK;
}
