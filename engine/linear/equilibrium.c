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
  o->formulation = MBD_FORM_KANE;
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
  double *wk;   /* scratch */
  mbd_lsq_ws lsq;
} eq;

/* the rows at the pose of d: the active rows, then the held joints' coordinates less their
 * values; poses and rows evaluated */
static int eq_rows(eq *E, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int rc = mbd_kin_update(w, d, 0, err);
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
  }
}

/* r = BᵀQ at the completed pose in d (rows evaluated, J_dd factored there by factor_dd):
 * Q_i − J_diᵀ J_dd⁻ᵀ Q_d */
static int eq_force(eq *E, double *r, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int mr = E->mr;
  lin_sys_poses(E->s, d);
  int rc = mbd_forces_eval(w, d, err);
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

static double merit(const eq *E, const double *r) {
  double p = 0;
  for (int k = 0; k < E->f; k++) {
    double a = eq_scale(E, k) * r[k];
    p += 0.5 * a * a;
  }
  return p;
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

/* the scaled stiffness S K S's smallest singular value relative to its largest, and the
 * independent coordinate with the largest share of its right singular vector */
static double eq_singular(eq *E, const double *K, int *at) {
  int f = E->f;
  double *SKS = calloc((size_t)f * (size_t)f, sizeof(double));
  if (!SKS) {
    return 1;
  }
  for (int j = 0; j < f; j++) {
    for (int i = 0; i < f; i++) {
      MBD_AT(SKS, f, i, j) = eq_scale(E, i) * MBD_AT(K, f, i, j) * eq_scale(E, j);
    }
  }
  const double *U = NULL, *Vt = NULL;
  double ratio = 1;
  *at = 0;
  if (mbd_svd(&E->lsq, f, f, SKS, f, &U, &Vt) == MBD_OK) {
    const double *s = E->lsq.s;
    ratio = s[0] > 0 ? s[f - 1] / s[0] : 0;
    double big = -1;
    for (int k = 0; k < f; k++) {
      double v = fabs(MBD_AT(Vt, f, f - 1, k));
      if (v > big * (1 + 1e-9)) {
        big = v;
        *at = k;
      }
    }
  }
  free(SKS);
  return ratio;
}

/* the verdict at the converged pose: K (f × f) there, its symmetric part's generalized
 * eigenvalues with the reduced mass: *min_w2 the least ω², stable when all are positive */
static int eq_verdict(eq *E, const double *K, int *stable, double *min_w2, mbd_error *err) {
  const mbd_model *w = E->w;
  mbd_data *d = E->d;
  int f = E->f, n = E->n, mr = E->mr;
  double *Ks = calloc((size_t)f * (size_t)f, sizeof(double));
  double *Mr = calloc((size_t)f * (size_t)f, sizeof(double));
  double *B = calloc((size_t)n * (size_t)f, sizeof(double));
  double *MB = calloc((size_t)n * (size_t)f, sizeof(double));
  double *ev = calloc((size_t)f, sizeof(double));
  int rc =
      Ks && Mr && B && MB && ev ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
  // B = [−J_dd⁻¹ J_di; I] at d (completed, forces evaluated: M)
  if (rc == MBD_OK && factor_dd(E) != 0) {
    rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_SINGULAR, mr - 1, mr);
  }
  for (int k = 0; rc == MBD_OK && k < f; k++) {
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
  if (rc == MBD_OK) {
    mbd_gemm(0, 0, n, f, n, 1.0, d->M, n, B, n, 0.0, MB, n);
    mbd_gemm(1, 0, f, f, n, 1.0, B, n, MB, n, 0.0, Mr, f);
    for (int i = 0; i < f; i++) {
      for (int j = 0; j < f; j++) {
        MBD_AT(Ks, f, i, j) = 0.5 * (MBD_AT(K, f, i, j) + MBD_AT(K, f, j, i));
      }
    }
    int e = mbd_eig_sym_gen(f, Ks, f, Mr, f, ev);
    if (e != MBD_OK) {
      rc = MBD_FAIL(err, e < 0 ? e : MBD_E_SINGULAR, MSG_LIN_EIG, "equilibrium",
                    mbd_status_text(e < 0 ? e : MBD_E_SINGULAR));
    }
  }
  if (rc == MBD_OK) {
    double big = 0;
    for (int k = 0; k < f; k++) {
      big = fmax(big, fabs(ev[k]));
    }
    *min_w2 = ev[0];
    *stable = ev[0] > EQ_SINGULAR_REL * big;
  }
  (void)w;
  free(Ks), free(Mr), free(B), free(MB), free(ev);
  return rc;
}

/* the state of w in E->d as the sample of the run: the model's reactions by the augmented solve
 * at rest */
static int record(eq *E, mbd_run *run, mbd_error *err) {
  lin_sys *s = E->s;
  const mbd_model *m = s->m;
  mbd_data *dc = s->dc;
  memset(E->d->v, 0, (size_t)E->w->nv * sizeof(double));
  int rc = lin_sys_cartesian(s, E->d, dc, err);
  if (rc == MBD_OK) {
    dc->t = 0;
    memset(dc->v, 0, (size_t)m->nv * sizeof(double));
    rc = mbd_kin_update(m, dc, 0, err);
  }
  if (rc == MBD_OK) {
    rc = mbd_forces_eval(m, dc, err);
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

/* the iterations from the pose in E->q; *iters, the residual (largest |r_k|) and its coordinate */
static int iterate(eq *E, const mbd_eq_opts *o, long *iters, double *resid, int *resid_at,
                   int *stable, double *min_w2, mbd_error *err) {
  int f = E->f, mr = E->mr;
  size_t F = (size_t)f;
  double *x = calloc(F, sizeof(double)), *r = calloc(F, sizeof(double));
  double *K = calloc(F * F, sizeof(double)), *Kl = calloc(F * F, sizeof(double));
  double *p = calloc(F, sizeof(double)), *xt = calloc(F, sizeof(double));
  double *rt = calloc(F, sizeof(double)), *ev = calloc(F, sizeof(double));
  int *piv = calloc(F, sizeof(int));
  int rc = x && r && K && Kl && p && xt && rt && ev && piv
               ? MBD_OK
               : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "equilibrium");
  int converged = 0, stalled = 0, it = 0, sing_prev = -1;
  double unbalanced_prev = 0;
  const char *why = MSG_EQ_MAX_ITER;
  for (it = 0; rc == MBD_OK && it <= o->max_iter; it++) {
    if (o->poll && (rc = o->poll(o->poll_ud, 0, err)) < 0) {
      break;
    }
    // the partition at the iterate, x its independent coordinates, r and K there
    memcpy(E->qb, E->q, (size_t)E->w->nq * sizeof(double));
    memcpy(E->d->q, E->q, (size_t)E->w->nq * sizeof(double));
    memset(E->d->v, 0, (size_t)E->w->nv * sizeof(double));
    rc = eq_rows(E, err);
    if (rc == MBD_OK) {
      rc = eq_partition(E, err);
    }
    for (int k = 0; rc == MBD_OK && k < f; k++) {
      x[k] = E->q[E->perm[mr + k]];
    }
    if (rc == MBD_OK) {
      rc = eq_r(E, x, r, err);
    }
    if (rc == MBD_OK) {
      memcpy(E->q, E->d->q, (size_t)E->w->nq * sizeof(double));
      rc = eq_stiffness(E, x, K, err);
    }
    if (rc != MBD_OK) {
      break;
    }
    double big = 0;
    *resid_at = 0;
    for (int k = 0; k < f; k++) {
      if (fabs(r[k]) > big) {
        big = fabs(r[k]);
        *resid_at = k;
      }
    }
    *resid = big;
    *iters = it;
    double phi = merit(E, r);
    int at = 0;
    double sratio = eq_singular(E, K, &at);
    // balanced to rounding, or the last full Newton step below tol: converged
    if (converged || sqrt(2 * phi) <= EQ_BALANCE_REL * E->fref) {
      if (sratio < EQ_SINGULAR_REL) {
        char nm[MBD_LIN_NAME];
        mbd_model_coord_name(E->w, E->perm[mr + at], nm, sizeof nm);
        rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_NEUTRAL, E->s->m->name, nm);
        break;
      }
      converged = 1;
      rc = eq_verdict(E, K, stable, min_w2, err);
      break;
    }
    if (it == o->max_iter) {
      break;
    }
    // a force along a direction that nothing restores, twice in a row and not falling: the
    // motion accelerates forever
    if (sratio < EQ_SINGULAR_REL) {
      double fr = fabs(r[at]);
      if (sing_prev == at && fr >= 0.999 * unbalanced_prev && it >= 3) {
        char nm[MBD_LIN_NAME];
        mbd_model_coord_name(E->w, E->perm[mr + at], nm, sizeof nm);
        rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_EQ_UNBALANCED, E->s->m->name, r[at], nm);
        break;
      }
      sing_prev = at;
      unbalanced_prev = fr;
    } else {
      sing_prev = -1;
    }
    // the Newton step, when K is regular
    int newton = 0;
    double pmax = 0;
    memcpy(Kl, K, F * F * sizeof(double));
    if (sratio >= EQ_SINGULAR_REL && mbd_lu_factor(f, Kl, f, piv) == 0) {
      memcpy(p, r, F * sizeof(double));
      mbd_lu_solve(f, Kl, f, piv, p, 1);
      for (int k = 0; k < f; k++) {
        pmax = fmax(pmax, fabs(p[k]) / eq_scale(E, k));
      }
      // K_s positive definite (S K_s S's eigenvalues), or the equilibrium close
      for (int i = 0; i < f; i++) {
        for (int j = 0; j < f; j++) {
          MBD_AT(Kl, f, i, j) =
              0.5 * eq_scale(E, i) * (MBD_AT(K, f, i, j) + MBD_AT(K, f, j, i)) * eq_scale(E, j);
        }
      }
      int pd = mbd_eig_sym(f, Kl, f, ev) == MBD_OK && ev[0] > 0;
      newton = isfinite(pmax) && (pd || pmax <= EQ_NEWTON_NEAR);
    }
    if (newton) {
      double cap = pmax > EQ_TRUST ? EQ_TRUST / pmax : 1, alpha = cap;
      int accepted = 0;
      for (int ls = 0; ls < 30 && !accepted; ls++, alpha *= 0.5) {
        for (int k = 0; k < f; k++) {
          xt[k] = x[k] + alpha * p[k];
        }
        mbd_error e2;
        mbd_error_clear(&e2);
        if (eq_r(E, xt, rt, &e2) != MBD_OK) {
          continue;  // (the constraints could not be met there: a shorter step)
        }
        if (merit(E, rt) <= (1 - 1e-4 * alpha) * phi) {
          accepted = 1;
          memcpy(E->q, E->d->q, (size_t)E->w->nq * sizeof(double));
          if (alpha == 1 && pmax <= o->tol) {
            converged = 1;  // (r and K once more at the new pose, then the verdict)
          }
        }
      }
      if (accepted) {
        stalled = 0;
        continue;
      }
    }
    // downhill in the potential: (K_s + μ S⁻²) p = r with μ making it positive definite
    for (int i = 0; i < f; i++) {
      for (int j = 0; j < f; j++) {
        MBD_AT(Kl, f, i, j) =
            0.5 * eq_scale(E, i) * (MBD_AT(K, f, i, j) + MBD_AT(K, f, j, i)) * eq_scale(E, j);
      }
    }
    double lo = 0, hi = 0, rs = 0;
    if (mbd_eig_sym(f, Kl, f, ev) == MBD_OK) {
      lo = ev[0];
      hi = fmax(fabs(ev[0]), fabs(ev[f - 1]));
    }
    for (int k = 0; k < f; k++) {
      rs = fmax(rs, fabs(eq_scale(E, k) * r[k]));
    }
    // μ: past the most negative eigenvalue, and at least what keeps the step within the trust
    // region when the stiffness is nil
    double mu = fmax(-lo, 0) + fmax(1e-3 * hi, rs / EQ_TRUST);
    for (int i = 0; i < f; i++) {
      for (int j = 0; j < f; j++) {
        MBD_AT(Kl, f, i, j) =
            0.5 * eq_scale(E, i) * (MBD_AT(K, f, i, j) + MBD_AT(K, f, j, i)) * eq_scale(E, j) +
            (i == j ? mu : 0);
      }
      p[i] = eq_scale(E, i) * r[i];
    }
    if (mbd_chol_factor(f, Kl, f) != 0) {
      why = MSG_EQ_STALLED;
      break;
    }
    mbd_chol_solve(f, Kl, f, p, 1);
    pmax = 0;
    double work0 = 0;
    for (int k = 0; k < f; k++) {
      p[k] *= eq_scale(E, k);
      pmax = fmax(pmax, fabs(p[k]) / eq_scale(E, k));
      work0 += r[k] * p[k];
    }
    double alpha = pmax > EQ_TRUST ? EQ_TRUST / pmax : 1;
    int accepted = 0;
    for (int ls = 0; ls < 30 && !accepted; ls++, alpha *= 0.5) {
      for (int k = 0; k < f; k++) {
        xt[k] = x[k] + alpha * p[k];
      }
      mbd_error e2;
      mbd_error_clear(&e2);
      if (eq_r(E, xt, rt, &e2) != MBD_OK) {
        continue;
      }
      // the work of r along the step (trapezoid): the potential falls
      double work = 0;
      for (int k = 0; k < f; k++) {
        work += 0.5 * (r[k] + rt[k]) * alpha * p[k];
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
  free(x), free(r), free(K), free(Kl), free(p), free(xt), free(rt), free(ev), free(piv);
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
  if (o->formulation < 0 || o->formulation >= MBD_FORM_N) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_FORMULATION, "equilibrium", "?");
  }
  int nfix = 0;
  for (int k = 0; k < o->nfixed; k++) {
    if (o->fixed[k] < 0 || o->fixed[k] >= m->njoint) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_OPTS, "fixed: no such joint");
    }
    const mbd_joint *j = &m->joint[o->fixed[k]];
    int nc = mbd_joint_type_get(j->type)->ncoord[MBD_DIMX(m)];
    if (nc == 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_EQ_FIXED, j->name, mbd_joint_type_name(j->type));
    }
    nfix += nc;
  }
  // from the poses the user gave, as a run starts
  if (!m->running) {
    mbd_model_clear_warnings(m);
    mbd_assembly_opts ao = {1e-10, 50};
    int rc = mbd_model_assemble_polled(m, &ao, o->poll, o->poll_ud, err);
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
      rc = mbd_kin_update(w, E.d, 0, err);
      int k = 0;
      for (int i = 0; rc == MBD_OK && i < o->nfixed; i++) {
        const mbd_joint_type_desc *jt = mbd_joint_type_get(w->joint[o->fixed[i]].type);
        for (int c = 0; c < jt->ncoord[MBD_DIMX(w)]; c++, k++) {
          E.fj[k] = o->fixed[i];
          E.fk[k] = jt->coord[MBD_DIMX(w)][c];
          mbd_row row;
          mbd_joint_coord_row(w, E.d, E.fj[k], E.fk[k], &row);
          E.c0[k] = row.val;
        }
      }
    }
    // the size of the forces at the start (the scale of "balanced")
    if (rc == MBD_OK) {
      lin_sys_poses(&s, E.d);
      rc = mbd_forces_eval(w, E.d, err);
      for (int c = 0; rc == MBD_OK && c < E.n; c++) {
        E.fref = fmax(E.fref, s.scale[c] * fabs(E.d->Q[c]));
      }
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
