/* the static equilibrium of a constrained mechanism (mbd/linear.h)
 *
 * At rest (v = 0, t = 0) the generalized forces on the independent coordinates of a partition,
 * Kane's generalized active forces r = BᵀQ (paper 000 eq 40, B the partial velocities of the
 * constraint Jacobian's null space), vanish at an equilibrium.  The rows are the model's active
 * position rows and, for each joint in fixed = {...}, its relative coordinates held at their
 * starting values.  Each iteration chooses the partition at the current pose (QR with column
 * pivoting of the weighted rows, as sys.c), evaluates r and its Jacobian K = −∂r/∂q_i by central
 * differences (each perturbed pose completed by Newton on the dependent coordinates), and steps:
 *
 *   Newton  p = K⁻¹ r, when the symmetric part of K is positive definite (the potential is convex
 *           there: the step goes downhill to a minimum) or the step is short (within
 *           EQ_NEWTON_NEAR of the scales: an equilibrium, stable or not, is that near); a
 *           backtracking line search on φ = ½ Σ (s_k r_k)² (s_k the coordinates' scales)
 *   descent p = (K_s + μ S⁻²)⁻¹ r with μ making K_s + μ S⁻² positive definite: downhill in the
 *           potential (r = −∂V/∂q_i for conservative forces), accepted when the work of r along
 *           the step is positive (V falls, by the trapezoid rule)
 *
 * every step limited to EQ_TRUST of the scales (a quarter radian; a quarter of the model's size),
 * so that the pose stays on its assembly branch.  Converged when a full Newton step is below tol
 * of the scales, or the forces balance to the rounding level.  Then the verdict: a neutral
 * direction (K singular: nothing restores it) is an error naming the coordinate; stable when K_s
 * is positive definite (its generalized eigenvalues with the reduced mass BᵀMB all positive). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/run_impl.h"
#include "linear_impl.h"
#include "mbd/formulation.h"

/* the largest step of an iteration, relative to the coordinates' scales */
#define EQ_TRUST 0.25
/* a Newton step this short (relative) is taken even where K_s is not positive definite: the
 * equilibrium it heads for is that near */
#define EQ_NEWTON_NEAR 0.1
/* K singular: σ_min / σ_max of S K S below this (differences leave ~1e-10 on a zero) */
#define EQ_SINGULAR_REL 1e-8
/* the forces balance to rounding: |s_k r_k| below this share of the starting forces' */
#define EQ_BALANCE_REL 1e-13

void mbd_eq_opts_default(mbd_eq_opts *o) {
  memset(o, 0, sizeof *o);
  o->formulation = mbd_formulation_with(MBD_FCAP_DEFAULT);
  o->tol = 1e-10;
  o->max_iter = 100;
}

typedef struct eq {
  lin_sys *s;
  const mbd_model *w;
  mbd_data *d; /* the iterate's evaluations */
  int n, ma, nfix, mr, f;
  int *fj, *fk; /* nfix: the held joints and their coordinates (mbd_coord_kind) */
  double *c0;   /* nfix: the held values */
  int *perm;    /* n: dependent columns (mr), then independent (f) */
  double *J;    /* mr × n rows' Jacobian (ld mr) */
  double *res;  /* mr rows' values */
  double *lu;   /* mr × mr: J_dd factored */
  int *piv;     /* mr */
  double *q;    /* nq: the current iterate */
  double *qb;   /* nq: the pose a completion starts from */
  double fref;  /* the starting generalized forces' size, s_k |Q_k| (N·m) */
  double mref;  /* the largest mass on a length coordinate (kg) */
  double *wk;   /* scratch */
  mbd_lsq_ws lsq;
} eq;

/* the rows at the pose of d: the active rows, then the held joints' coordinates less their
 * values; poses and rows evaluated */
static int eq_rows(eq *E, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int rc = mbd_eval_to(w, d, MBD_STAGE_VELOCITY, err);
  if (rc != MBD_OK) {
    return rc;
  }
  int ma = d->ma, mr = E->mr;
  if (ma != E->ma) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_SINGULAR, ma, E->ma);
  }
  for (int r = 0; r < ma; r++) {
    E->res[r] = d->phi_a[r];
    for (int c = 0; c < E->n; c++) {
      MBD_AT(E->J, mr, r, c) = MBD_AT(d->phiq_a, ma, r, c);
    }
  }
  for (int k = 0; k < E->nfix; k++) {
    const mbd_joint *j = &w->joint[E->fj[k]];
    mbd_row o;
    mbd_joint_coord_row(w, d, E->fj[k], E->fk[k], &o);
    memset(d->Q, 0, (size_t)E->n * sizeof(double));
    mbd_forces_add_row(w, d, j->body1, j->body2, o.J, 1.0);
    E->res[ma + k] = o.val - E->c0[k];
    for (int c = 0; c < E->n; c++) {
      MBD_AT(E->J, mr, ma + k, c) = d->Q[c];
    }
  }
  return MBD_OK;
}

/* the partition at the pose of d (rows evaluated by eq_rows): weighted QR with column pivoting,
 * J_dd factored */
static int eq_partition(eq *E, mbd_error *err) {
  int mr = E->mr, n = E->n, rank = 0;
  double *Jw = E->wk;
  for (int c = 0; c < n; c++) {
    double nrm = 0;
    for (int r = 0; r < mr; r++) {
      nrm += MBD_AT(E->J, mr, r, c) * MBD_AT(E->J, mr, r, c);
    }
    nrm = sqrt(nrm);
    double wgt = (E->s->ckind[c] == LIN_LENGTH ? 1 : 0.1) / (nrm > 0 ? nrm : 1);
    for (int r = 0; r < mr; r++) {
      MBD_AT(Jw, mr, r, c) = MBD_AT(E->J, mr, r, c) * wgt;
    }
  }
  if (mr == 0) {
    for (int c = 0; c < n; c++) {
      E->perm[c] = c;
    }
    return MBD_OK;
  }
  int rc = mbd_qrcp_rank(&E->lsq, mr, n, Jw, mr, 1e-10, E->perm, &rank, NULL);
  if (rc < 0) {
    return MBD_FAIL(err, rc, MSG_EQ_COMPLETE, "the partition's QR failed");
  }
  if (rank < mr) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_SINGULAR, rank, mr);
  }
  // each part in increasing order (readable names, a stable choice)
  for (int part = 0; part < 2; part++) {
    int lo = part ? mr : 0, hi = part ? n : mr;
    for (int i = lo + 1; i < hi; i++) {
      int v = E->perm[i], k = i;
      while (k > lo && E->perm[k - 1] > v) {
        E->perm[k] = E->perm[k - 1];
        k--;
      }
      E->perm[k] = v;
    }
  }
  return MBD_OK;
}

static int factor_dd(eq *E) {
  int mr = E->mr;
  for (int c = 0; c < mr; c++) {
    for (int r = 0; r < mr; r++) {
      MBD_AT(E->lu, mr, r, c) = MBD_AT(E->J, mr, r, E->perm[c]);
    }
  }
  return mr ? mbd_lu_factor(mr, E->lu, mr, E->piv) : 0;
}

/* the pose with independent coordinates x: from qb, Newton on the dependent ones */
static int eq_complete(eq *E, const double *x, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int mr = E->mr;
  memcpy(d->q, E->qb, (size_t)w->nq * sizeof(double));
  memset(d->v, 0, (size_t)w->nv * sizeof(double));
  d->t = 0;
  for (int k = 0; k < E->f; k++) {
    d->q[E->perm[mr + k]] = x[k];
  }
  mbd_stage_touch(d, MBD_STAGE_NONE);
  double size = E->s->m->size > 0 ? E->s->m->size : 1;
  double tol = 4 * DBL_EPSILON * size, prev = INFINITY;
  for (int it = 0;; it++) {
    int rc = eq_rows(E, err);
    if (rc != MBD_OK) {
      return rc;
    }
    double res = 0;
    for (int r = 0; r < mr; r++) {
      res = fmax(res, fabs(E->res[r]));
    }
    if (!isfinite(res)) {
      return MBD_FAIL(err, MBD_E_NAN, MSG_EQ_COMPLETE, "the constraints are not finite");
    }
    // converged, or at the rounding floor of the rows
    if (res <= tol || (it >= 2 && res > 0.5 * prev && res <= 1e-9 * size)) {
      return MBD_OK;
    }
    if (it >= 50) {
      return MBD_FAIL(err, MBD_E_NEWTON, MSG_EQ_COMPLETE,
                      "Newton on the dependent coordinates did not converge");
    }
    prev = res;
    if (factor_dd(E) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_SINGULAR, mr - 1, mr);
    }
    double *dq = E->wk;
    for (int r = 0; r < mr; r++) {
      dq[r] = -E->res[r];
    }
    mbd_lu_solve(mr, E->lu, mr, E->piv, dq, 1);
    for (int r = 0; r < mr; r++) {
      d->q[E->perm[r]] += dq[r];
    }
    mbd_stage_touch(d, MBD_STAGE_NONE);
  }
}

/* r = BᵀQ at the completed pose in d (rows evaluated, J_dd factored there by factor_dd):
 * Q_i − J_diᵀ J_dd⁻ᵀ Q_d */
static int eq_force(eq *E, double *r, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int mr = E->mr;
  lin_sys_poses(E->s, d);
  int rc = mbd_eval_to(w, d, MBD_STAGE_FORCES, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (factor_dd(E) != 0) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_SINGULAR, mr - 1, mr);
  }
  double *y = E->wk;
  for (int k = 0; k < mr; k++) {
    y[k] = d->Q[E->perm[k]];
  }
  if (mr > 0) {
    mbd_lu_solve_trans(mr, E->lu, mr, E->piv, y, 1);
  }
  for (int k = 0; k < E->f; k++) {
    int c = E->perm[mr + k];
    double sum = d->Q[c];
    for (int i = 0; i < mr; i++) {
      sum -= y[i] * MBD_AT(E->J, mr, i, c);
    }
    r[k] = sum;
  }
  return MBD_OK;
}

/* r at independent coordinates x */
static int eq_r(eq *E, const double *x, double *r, mbd_error *err) {
  int rc = eq_complete(E, x, err);
  return rc == MBD_OK ? eq_force(E, r, err) : rc;
}

static double eq_scale(const eq *E, int k) { return E->s->scale[E->perm[E->mr + k]]; }

/* B = [−J_dd⁻¹ J_di; I] (n × f, ld n) at the pose of the last eq_force (J_dd factored there) */
static void eq_B(eq *E, double *B) {
  int n = E->n, f = E->f, mr = E->mr;
  memset(B, 0, (size_t)n * (size_t)f * sizeof(double));
  for (int k = 0; k < f; k++) {
    double *col = E->wk;
    for (int r = 0; r < mr; r++) {
      col[r] = -MBD_AT(E->J, mr, r, E->perm[mr + k]);
    }
    if (mr > 0) {
      mbd_lu_solve(mr, E->lu, mr, E->piv, col, 1);
    }
    for (int r = 0; r < mr; r++) {
      MBD_AT(B, n, E->perm[r], k) = col[r];
    }
    MBD_AT(B, n, E->perm[mr + k], k) = 1;
  }
}

/* the reduced mass BᵀMB (f × f) with M of the last eq_force; MB scratch n × f */
static void eq_mass(eq *E, const double *B, double *MB, double *Mr) {
  int n = E->n, f = E->f;
  mbd_gemm(0, 0, n, f, n, 1.0, E->d->M, n, B, n, 0.0, MB, n);
  mbd_gemm(1, 0, f, f, n, 1.0, B, n, MB, n, 0.0, Mr, f);
  for (int i = 0; i < f; i++) {
    for (int j = i + 1; j < f; j++) {
      double a = 0.5 * (MBD_AT(Mr, f, i, j) + MBD_AT(Mr, f, j, i));
      MBD_AT(Mr, f, i, j) = MBD_AT(Mr, f, j, i) = a;
    }
  }
}

/* how far a step p of the independent coordinates moves the model, relative to its scales and
 * the same in every frame and units: the largest over the bodies of the centre of mass's
 * displacement over the model's size and the turn (planar |δθ|, spatial 2|δp|), of a modal
 * coordinate's change over its scale, of a joint coordinate's over its scale (B p the motion of
 * every coordinate) */
static double eq_step_size(eq *E, const double *B, const double *p) {
  const mbd_model *w = E->w;
  int n = E->n, f = E->f;
  double *dq = E->wk, big = 0;
  mbd_gemv(0, n, f, 1.0, B, n, p, 0.0, dq);
  for (int k = 0; k < w->nblock; k++) {
    const mbd_block *bl = &w->block[k];
    if (bl->nv == 0) {
      continue;  // (a flexible body's node: its motion is its body's)
    }
    if (bl->kind != MBD_BLOCK_BODY) {
      for (int c = 0; c < bl->nv; c++) {
        big = fmax(big, fabs(dq[bl->vadr + c]) / E->s->scale[bl->vadr + c]);
      }
      continue;
    }
    const mbd_body_kind_desc *kd = mbd_body_kind_get(w->body[bl->owner].kind);
    const double *d = dq + bl->vadr;
    double r2 = 0, t2 = 0;
    for (int c = 0; c < kd->npos; c++) {
      r2 += d[c] * d[c];
    }
    for (int c = kd->npos; c < kd->nv; c++) {
      t2 += d[c] * d[c];
    }
    big = fmax(big, sqrt(r2) / E->s->scale[bl->vadr]);
    big = fmax(big, (kd->nv - kd->npos == 1 ? 1 : 2) * sqrt(t2));
    for (int c = kd->nv; c < bl->nv; c++) {
      big = fmax(big, fabs(d[c]) / E->s->scale[bl->vadr + c]);
    }
  }
  return big;
}

/* K = −∂r/∂x at x by central differences (the partition held) */
static int eq_stiffness(eq *E, const double *x, double *K, mbd_error *err) {
  int f = E->f;
  double *xp = calloc(3 * (size_t)f, sizeof(double));
  if (!xp) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
  }
  double *rp = xp + f, *rm = xp + 2 * f;
  int rc = MBD_OK;
  for (int k = 0; rc == MBD_OK && k < f; k++) {
    double h = cbrt(DBL_EPSILON) * eq_scale(E, k);
    memcpy(xp, x, (size_t)f * sizeof(double));
    xp[k] += h;
    rc = eq_r(E, xp, rp, err);
    xp[k] -= 2 * h;
    if (rc == MBD_OK) {
      rc = eq_r(E, xp, rm, err);
    }
    for (int i = 0; rc == MBD_OK && i < f; i++) {
      MBD_AT(K, f, i, k) = -(rp[i] - rm[i]) / (2 * h);
    }
  }
  free(xp);
  return rc;
}

/* the spectrum of the symmetric part of K against the reduced mass: K_s v = λ M v, λ ascending,
 * V's columns M-orthonormal (VᵀMV = I, VᵀK_sV = Λ: the potential's curvature in the kinetic
 * energy's metric, the same in every parametrization) */
static int eq_spectrum(const eq *E, const double *K, const double *Mr, double *lam, double *V,
                       double *Mc, mbd_error *err) {
  int f = E->f;
  for (int i = 0; i < f; i++) {
    for (int j = 0; j < f; j++) {
      MBD_AT(V, f, i, j) = 0.5 * (MBD_AT(K, f, i, j) + MBD_AT(K, f, j, i));
      MBD_AT(Mc, f, i, j) = MBD_AT(Mr, f, i, j);
    }
  }
  int e = mbd_eig_sym_gen(f, V, f, Mc, f, lam);
  if (e != MBD_OK) {
    return MBD_FAIL(err, e < 0 ? e : MBD_E_SINGULAR, MSG_LIN_EIG, "equilibrium",
                    mbd_status_text(e < 0 ? e : MBD_E_SINGULAR));
  }
  return MBD_OK;
}

/* the state of w in E->d as the sample of the run: the model's reactions by the augmented solve
 * at rest */
static int record(eq *E, mbd_run *run, mbd_error *err) {
  lin_sys *s = E->s;
  const mbd_model *m = s->m;
  mbd_data *dc = s->dc;
  memset(E->d->v, 0, (size_t)E->w->nv * sizeof(double));
  mbd_stage_touch(E->d, MBD_STAGE_POSITION);
  int rc = lin_sys_cartesian(s, E->d, dc, err);
  if (rc == MBD_OK) {
    dc->t = 0;
    memset(dc->v, 0, (size_t)m->nv * sizeof(double));
    mbd_stage_touch(dc, MBD_STAGE_NONE);
    rc = mbd_eval_to(m, dc, MBD_STAGE_FORCES, err);
  }
  if (rc == MBD_OK) {
    rc = mbd_dynamics_augmented(m, dc, dc->gamma_a, err);
    if (rc == MBD_RESELECTED) {
      rc = mbd_dynamics_augmented(m, dc, dc->gamma_a, err);
    }
  }
  if (rc == MBD_OK) {
    rc = mbd_run_record(run, m, dc, err);
  }
  return rc;
}

static void eq_free(eq *E) {
  free(E->fj), free(E->fk), free(E->c0), free(E->perm), free(E->J), free(E->res), free(E->lu);
  free(E->piv), free(E->q), free(E->qb), free(E->wk);
  mbd_lsq_free(&E->lsq);
}

/* the workspace of the iterations */
typedef struct eq_ws {
  double *x, *r, *K, *Kl, *p, *xt, *rt, *lam, *V, *Mc, *Mr, *B, *MB, *c;
  int *piv;
} eq_ws;

static void ws_free(eq_ws *w) {
  free(w->x), free(w->r), free(w->K), free(w->Kl), free(w->p), free(w->xt), free(w->rt);
  free(w->lam), free(w->V), free(w->Mc), free(w->Mr), free(w->B), free(w->MB), free(w->c);
  free(w->piv);
}

static int ws_alloc(eq_ws *w, int f, int n) {
  size_t F = (size_t)(f ? f : 1), N = (size_t)(n ? n : 1);
  memset(w, 0, sizeof *w);
  w->x = calloc(F, sizeof(double));
  w->r = calloc(F, sizeof(double));
  w->K = calloc(F * F, sizeof(double));
  w->Kl = calloc(F * F, sizeof(double));
  w->p = calloc(F, sizeof(double));
  w->xt = calloc(F, sizeof(double));
  w->rt = calloc(F, sizeof(double));
  w->lam = calloc(F, sizeof(double));
  w->V = calloc(F * F, sizeof(double));
  w->Mc = calloc(F * F, sizeof(double));
  w->Mr = calloc(F * F, sizeof(double));
  w->B = calloc(N * F, sizeof(double));
  w->MB = calloc(N * F, sizeof(double));
  w->c = calloc(F, sizeof(double));
  w->piv = calloc(F, sizeof(int));
  return w->x && w->r && w->K && w->Kl && w->p && w->xt && w->rt && w->lam && w->V && w->Mc &&
         w->Mr && w->B && w->MB && w->c && w->piv;
}

/* ½ rᵀ M⁻¹ r in the eigenbasis of the iteration (M⁻¹ = V Vᵀ) */
static double merit(int f, const double *V, const double *r) {
  double phi = 0;
  for (int j = 0; j < f; j++) {
    double c = 0;
    for (int i = 0; i < f; i++) {
      c += MBD_AT(V, f, i, j) * r[i];
    }
    phi += 0.5 * c * c;
  }
  return phi;
}

/* the iterations from the pose in E->q; *iters, the residual (largest |r_k|) and its coordinate,
 * the verdict */
static int iterate(eq *E, const mbd_eq_opts *o, long *iters, double *resid, int *resid_at,
                   int *stable, double *min_w2, mbd_error *err) {
  int f = E->f, mr = E->mr;
  eq_ws W;
  int rc =
      ws_alloc(&W, f, E->n) ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
  int converged = 0, stalled = 0, it = 0, sing_prev = -1;
  double unbalanced_prev = 0;
  const char *why = MSG_EQ_MAX_ITER;
  for (it = 0; rc == MBD_OK && it <= o->max_iter; it++) {
    if (o->poll && (rc = o->poll(o->poll_ud, 0, err)) < 0) {
      break;
    }
    // the partition at the iterate, x its independent coordinates, r, B, M and K there
    memcpy(E->qb, E->q, (size_t)E->w->nq * sizeof(double));
    memcpy(E->d->q, E->q, (size_t)E->w->nq * sizeof(double));
    memset(E->d->v, 0, (size_t)E->w->nv * sizeof(double));
    mbd_stage_touch(E->d, MBD_STAGE_NONE);
    rc = eq_rows(E, err);
    if (rc == MBD_OK) {
      rc = eq_partition(E, err);
    }
    for (int k = 0; rc == MBD_OK && k < f; k++) {
      W.x[k] = E->q[E->perm[mr + k]];
    }
    if (rc == MBD_OK) {
      rc = eq_r(E, W.x, W.r, err);
    }
    if (rc == MBD_OK) {
      memcpy(E->q, E->d->q, (size_t)E->w->nq * sizeof(double));
      eq_B(E, W.B);
      eq_mass(E, W.B, W.MB, W.Mr);
      rc = eq_stiffness(E, W.x, W.K, err);
    }
    if (rc == MBD_OK) {
      rc = eq_spectrum(E, W.K, W.Mr, W.lam, W.V, W.Mc, err);
    }
    if (rc != MBD_OK) {
      break;
    }
    double big = 0, fs = 0;
    *resid_at = 0;
    for (int k = 0; k < f; k++) {
      if (fabs(W.r[k]) > big) {
        big = fabs(W.r[k]);
        *resid_at = k;
      }
      fs += (eq_scale(E, k) * W.r[k]) * (eq_scale(E, k) * W.r[k]);
    }
    *resid = big;
    *iters = it;
    double lmax = 0;
    for (int k = 0; k < f; k++) {
      lmax = fmax(lmax, fabs(W.lam[k]));
    }
    // the null space of K_s (its eigenvalues within EQ_SINGULAR_REL of the largest): the
    // coordinate that moves most along it, and the force acting along it (scaled, N·m)
    int singular = 0, at = 0, fat = 0;
    double amax = -1, fnull = 0;
    memset(W.c, 0, (size_t)f * sizeof(double));
    for (int j = 0; j < f; j++) {
      if (!(fabs(W.lam[j]) <= EQ_SINGULAR_REL * lmax)) {
        continue;
      }
      singular = 1;
      double cj = 0;
      for (int i = 0; i < f; i++) {
        cj += MBD_AT(W.V, f, i, j) * W.r[i];
      }
      for (int i = 0; i < f; i++) {
        double v = fabs(MBD_AT(W.V, f, i, j)) / eq_scale(E, i);
        if (v > amax * (1 + 1e-9)) {
          amax = v;
          at = i;
        }
        // (M v: the force of the direction, per coordinate)
        double mv = 0;
        for (int k = 0; k < f; k++) {
          mv += MBD_AT(W.Mr, f, i, k) * MBD_AT(W.V, f, k, j);
        }
        W.c[i] += cj * mv;
      }
    }
    for (int i = 0; i < f; i++) {
      double a = fabs(W.c[i]) * eq_scale(E, i);
      if (a > fnull * (1 + 1e-9)) {
        fnull = a;
        fat = i;
      }
    }
    // balanced to rounding, or the last full Newton step below tol: converged
    if (converged || sqrt(fs) <= EQ_BALANCE_REL * E->fref) {
      if (singular) {
        char nm[MBD_LIN_NAME];
        mbd_model_coord_name(E->w, E->perm[mr + at], nm, sizeof nm);
        rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_NEUTRAL, E->s->m->name, nm);
        break;
      }
      converged = 1;
      *min_w2 = W.lam[0];
      *stable = W.lam[0] > EQ_SINGULAR_REL * lmax;
      break;
    }
    if (it == o->max_iter) {
      break;
    }
    // a force along a direction that nothing restores, twice in a row and not falling: the
    // motion accelerates forever
    if (singular && fnull > EQ_BALANCE_REL * E->fref) {
      if (sing_prev == fat && fnull >= 0.999 * unbalanced_prev && it >= 3) {
        char nm[MBD_LIN_NAME];
        mbd_model_coord_name(E->w, E->perm[mr + fat], nm, sizeof nm);
        rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_UNBALANCED, E->s->m->name, W.r[fat], nm);
        break;
      }
      sing_prev = fat;
      unbalanced_prev = fnull;
    } else {
      sing_prev = -1;
    }
    double phi = merit(f, W.V, W.r);
    // Newton, where K is regular and the potential convex (or the equilibrium near)
    int newton = 0;
    double size = 0;
    memcpy(W.Kl, W.K, (size_t)f * f * sizeof(double));
    if (!singular && mbd_lu_factor(f, W.Kl, f, W.piv) == 0) {
      memcpy(W.p, W.r, (size_t)f * sizeof(double));
      mbd_lu_solve(f, W.Kl, f, W.piv, W.p, 1);
      size = eq_step_size(E, W.B, W.p);
      newton = isfinite(size) && (W.lam[0] > 0 || size <= EQ_NEWTON_NEAR);
    }
    if (newton) {
      double alpha = size > EQ_TRUST ? EQ_TRUST / size : 1;
      int accepted = 0;
      for (int ls = 0; ls < 30 && !accepted; ls++, alpha *= 0.5) {
        for (int k = 0; k < f; k++) {
          W.xt[k] = W.x[k] + alpha * W.p[k];
        }
        mbd_error e2;
        mbd_error_clear(&e2);
        if (eq_r(E, W.xt, W.rt, &e2) != MBD_OK) {
          continue;  // (the constraints could not be met there: a shorter step)
        }
        if (merit(f, W.V, W.rt) <= (1 - 1e-4 * alpha) * phi) {
          accepted = 1;
          memcpy(E->q, E->d->q, (size_t)E->w->nq * sizeof(double));
          if (alpha == 1 && size <= o->tol) {
            converged = 1;  // (r and K once more at the new pose, then the verdict)
          }
        }
      }
      if (accepted) {
        stalled = 0;
        continue;
      }
    }
    // downhill in the potential: (K_s + μ M) p = r, μ past the most negative eigenvalue (so that
    // the step lowers the potential) and at least 1e-3 of the spectrum's or the force's own scale
    double lam_r = sqrt(2 * phi) / (E->s->m->size > 0 ? E->s->m->size : 1) / sqrt(E->mref);
    double mu = fmax(-W.lam[0], 0) + 1e-3 * fmax(lmax, lam_r) + DBL_MIN;
    memset(W.p, 0, (size_t)f * sizeof(double));
    for (int j = 0; j < f; j++) {
      double cj = 0;
      for (int i = 0; i < f; i++) {
        cj += MBD_AT(W.V, f, i, j) * W.r[i];
      }
      for (int i = 0; i < f; i++) {
        W.p[i] += cj / (W.lam[j] + mu) * MBD_AT(W.V, f, i, j);
      }
    }
    double work0 = 0;
    for (int k = 0; k < f; k++) {
      work0 += W.r[k] * W.p[k];
    }
    size = eq_step_size(E, W.B, W.p);
    double alpha = size > EQ_TRUST ? EQ_TRUST / size : 1;
    int accepted = 0;
    for (int ls = 0; ls < 30 && !accepted && isfinite(size); ls++, alpha *= 0.5) {
      for (int k = 0; k < f; k++) {
        W.xt[k] = W.x[k] + alpha * W.p[k];
      }
      mbd_error e2;
      mbd_error_clear(&e2);
      if (eq_r(E, W.xt, W.rt, &e2) != MBD_OK) {
        continue;
      }
      // the work of r along the step (trapezoid): the potential falls
      double work = 0;
      for (int k = 0; k < f; k++) {
        work += 0.5 * (W.r[k] + W.rt[k]) * alpha * W.p[k];
      }
      if (work >= 1e-4 * alpha * work0) {
        accepted = 1;
        memcpy(E->q, E->d->q, (size_t)E->w->nq * sizeof(double));
      }
    }
    if (!accepted && ++stalled >= 2) {
      why = MSG_EQ_STALLED;
      break;
    }
  }
  if (rc == MBD_OK && !converged) {
    char nm[MBD_LIN_NAME];
    mbd_model_coord_name(E->w, E->perm[mr + *resid_at], nm, sizeof nm);
    rc = MBD_FAIL(err, MBD_E_NEWTON, MSG_EQ_NO_CONVERGENCE, it, *resid, nm, why);
  }
  ws_free(&W);
  return rc;
}

int mbd_equilibrium(mbd_model *m, const mbd_eq_opts *o, mbd_run **out, mbd_error *err) {
  *out = NULL;
  if (!(o->tol > 0) || !isfinite(o->tol)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_OPTS, "tol must be positive and finite");
  }
  if (o->max_iter < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_OPTS, "max_iterations must be at least 1");
  }
  if (!mbd_formulation_info_of(o->formulation)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_FORMULATION, "equilibrium", "?");
  }
  int nfix = 0;
  for (int k = 0; k < o->nfixed; k++) {
    if (o->fixed[k] < 0 || o->fixed[k] >= m->njoint) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_OPTS, "fixed: no such joint");
    }
    const mbd_joint *j = &m->joint[o->fixed[k]];
    const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
    int nc = 0;
    for (int c = 0; c < jt->ncoord[MBD_DIMX(m)]; c++) {
      nc += !(jt->follows[MBD_DIMX(m)] >> c & 1);
    }
    if (nc == 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_FIXED, j->name, mbd_joint_type_name(j->type));
    }
    nfix += nc;
  }
  // from the poses the user gave, as a run starts
  if (!m->running) {
    mbd_assembly_opts ao = {1e-10, 50};
    int rc = mbd_model_assemble_for_run(m, &ao, o->poll, o->poll_ud, err);
    if (rc < 0) {
      return rc;
    }
  }
  mbd_run *run = mbd_run_alloc(m, 1);
  double *zero = calloc((size_t)m->nv + 1, sizeof(double));
  if (!run || !zero) {
    mbd_run_free(run);
    free(zero);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
  }
  snprintf(run->formulation, sizeof run->formulation, "%s", mbd_formulation_name(o->formulation));
  snprintf(run->integrator, sizeof run->integrator, "equilibrium");
  run->t_end = 0;
  run->stats.stable = 0;
  double w0 = mbd_clock_wall(), c0 = mbd_clock_cpu();
  lin_sys s;
  eq E;
  memset(&E, 0, sizeof E);
  int rc = lin_sys_open(&s, "equilibrium", m, m->q_asm, zero, m->memo_asm, 0, o->formulation, 0,
                        MBD_CODE_NUMERIC, o->cut, o->ncut, err);
  if (rc == MBD_OK) {
    const mbd_model *w = s.w;
    s.poll = o->poll;
    s.poll_ud = o->poll_ud;
    E.s = &s;
    E.w = w;
    E.d = s.d;
    E.n = w->nv;
    E.ma = s.d0->ma;
    E.nfix = nfix;
    E.mr = E.ma + nfix;
    E.f = E.n - E.mr;
    size_t n1 = (size_t)E.n + 1, mr1 = (size_t)E.mr + 1;
    E.fj = calloc((size_t)nfix + 1, sizeof(int));
    E.fk = calloc((size_t)nfix + 1, sizeof(int));
    E.c0 = calloc((size_t)nfix + 1, sizeof(double));
    E.perm = calloc(n1, sizeof(int));
    E.J = calloc(mr1 * n1, sizeof(double));
    E.res = calloc(mr1, sizeof(double));
    E.lu = calloc(mr1 * mr1, sizeof(double));
    E.piv = calloc(mr1, sizeof(int));
    E.q = calloc((size_t)w->nq + 1, sizeof(double));
    E.qb = calloc((size_t)w->nq + 1, sizeof(double));
    E.wk = calloc(mr1 * n1 + n1, sizeof(double));
    rc = E.fj && E.fk && E.c0 && E.perm && E.J && E.res && E.lu && E.piv && E.q && E.qb && E.wk
             ? mbd_lsq_alloc(&E.lsq, E.n > E.mr ? E.n : E.mr, E.n > E.mr ? E.n : E.mr, err)
             : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
    if (rc == MBD_OK && E.f <= 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_NO_DOF, "equilibrium", m->name);
    }
    // the held joints' coordinates at the start
    if (rc == MBD_OK) {
      mbd_data_copy_state(w, E.d, s.d0);
      rc = mbd_eval_to(w, E.d, MBD_STAGE_VELOCITY, err);
      int k = 0;
      for (int i = 0; rc == MBD_OK && i < o->nfixed; i++) {
        const mbd_joint_type_desc *jt = mbd_joint_type_get(w->joint[o->fixed[i]].type);
        for (int c = 0; c < jt->ncoord[MBD_DIMX(w)]; c++) {
          if (jt->follows[MBD_DIMX(w)] >> c & 1) {
            continue;  // held by the others
          }
          E.fj[k] = o->fixed[i];
          E.fk[k] = jt->coord[MBD_DIMX(w)][c];
          mbd_row row;
          mbd_joint_coord_row(w, E.d, E.fj[k], E.fk[k], &row);
          E.c0[k] = row.val;
          k++;
        }
      }
    }
    // the size of the forces at the start (the scale of "balanced")
    if (rc == MBD_OK) {
      lin_sys_poses(&s, E.d);
      rc = mbd_eval_to(w, E.d, MBD_STAGE_FORCES, err);
      double f2 = 0;
      E.mref = 0;
      for (int c = 0; rc == MBD_OK && c < E.n; c++) {
        f2 += (s.scale[c] * E.d->Q[c]) * (s.scale[c] * E.d->Q[c]);
        if (s.ckind[c] == LIN_LENGTH) {
          E.mref = fmax(E.mref, MBD_AT(E.d->M, E.n, c, c));
        }
      }
      E.fref = sqrt(f2);
      E.mref = E.mref > 0 ? E.mref : 1;
      memcpy(E.q, s.d0->q, (size_t)w->nq * sizeof(double));
    }
    long iters = 0;
    double resid = 0, min_w2 = 0;
    int at = 0, stable = 0;
    if (rc == MBD_OK) {
      rc = iterate(&E, o, &iters, &resid, &at, &stable, &min_w2, err);
      run->stats.iterations = iters;
      run->stats.residual = resid;
      if (E.f > 0) {
        mbd_model_coord_name(w, E.perm[E.mr + at], run->stats.residual_coord,
                             sizeof run->stats.residual_coord);
      }
      run->stats.stable = stable;
      run->stats.min_omega2 = min_w2;
      run->stats.newton_iterations = iters;
      // the sample: the converged pose, or the last iterate of a failed search
      mbd_error e2;
      mbd_error_clear(&e2);
      memcpy(E.d->q, E.q, (size_t)w->nq * sizeof(double));
      mbd_stage_touch(E.d, MBD_STAGE_NONE);
      int rr = record(&E, run, rc == MBD_OK ? err : &e2);
      if (rc == MBD_OK) {
        rc = rr;
      }
      run->stats.max_position_violation = mbd_position_violation(m, s.dc);
    }
  }
  run->stats.wall_time = mbd_clock_wall() - w0;
  run->stats.cpu_time = mbd_clock_cpu() - c0;
  mbd_sim_warn_start(m, run);
  mbd_run_finish(run, rc, err);
  eq_free(&E);
  lin_sys_close(&s);
  free(zero);
  *out = run;
  return rc;
}
