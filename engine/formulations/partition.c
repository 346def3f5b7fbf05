/* coordinate partitioning shared by "gcp" and "kane" (paper 000 eq 10–13, 14–23; paper 001 eq 29)
 *
 * QR with column pivoting of Φq (the issue allows it in place of LU with complete pivoting) puts
 * the best-conditioned m columns first: those coordinates are dependent (q_d), the other f = n − m
 * independent (q_i).  Only q_i and q̇_i are integrated.  At every evaluation:
 *   position analysis  Φ_qd Δq_d = −Φ            (Newton–Raphson, eq 10–11, tolerance ε_pos)
 *   velocity analysis  Φ_qd q̇_d = −Φt − Φ_qi q̇_i  (eq 12)
 * with one LU of Φ_qd per Newton iteration.  The pivot ratio min|U_kk|/max|U_kk| of Φ_qd is
 * watched: when it falls below a tenth of its value at partition time, the next accepted step re-partitions
 * and restarts the integrator from the new independent coordinates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"



int mbd_part_alloc(mbd_part **out, const mbd_model *m, mbd_error *err) {
  mbd_part *p = calloc(1, sizeof *p);
  if (!p) {
    return MBD_FAIL(err, MBD_E_NOMEM, "partitioning: out of memory");
  }
  p->n = m->n;
  p->ma = m->ma;
  p->f = m->n - m->ma;
  size_t n = (size_t)(p->n ? p->n : 1), ma = (size_t)(p->ma ? p->ma : 1),
         f = (size_t)(p->f ? p->f : 1);
  p->perm = calloc(n, sizeof(int));
  p->perm_old = calloc(n, sizeof(int));
  p->jd = calloc(ma * ma, sizeof(double));
  p->jd2 = calloc(ma * ma, sizeof(double));
  p->jpiv = calloc(ma, sizeof(int));
  p->x = calloc(ma * f, sizeof(double));
  p->B = calloc(n * f, sizeof(double));
  p->K = calloc(n * n, sizeof(double));
  p->r = calloc(n, sizeof(double));
  p->kpiv = calloc(n, sizeof(int));
  p->work = calloc(4 * ma, sizeof(double));
  p->iwork = calloc(ma, sizeof(int));
  if (!p->perm || !p->perm_old || !p->jd || !p->jd2 || !p->jpiv || !p->x || !p->B || !p->K || !p->r || !p->kpiv ||
      !p->work || !p->iwork) {
    mbd_part_free(p);
    return MBD_FAIL(err, MBD_E_NOMEM, "partitioning: out of memory");
  }
  *out = p;
  return MBD_OK;
}

void mbd_part_free(mbd_part *p) {
  if (!p) {
    return;
  }
  free(p->perm);
  free(p->perm_old);
  free(p->jd);
  free(p->jd2);
  free(p->jpiv);
  free(p->x);
  free(p->B);
  free(p->K);
  free(p->r);
  free(p->kpiv);
  free(p->work);
  free(p->iwork);
  free(p);
}

int mbd_part_nindep(const mbd_part *p) { return p->f; }
long mbd_part_repartitions(const mbd_part *p) { return p->repartitions; }
const int *mbd_part_perm(const mbd_part *p) { return p->perm; }

/* copy Φ_qd (dependent columns of the active rows) into jd and factor it; 0 or the pivot */
static int factor_jd(mbd_part *p, const mbd_model *m, mbd_data *d) {
  int ma = p->ma;
  for (int c = 0; c < ma; c++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->jd, ma, r, c) = MBD_AT(d->phiq_a, ma, r, p->perm[c]);
    }
  }
  p->jd_norm = mbd_norm1(ma, ma, p->jd, ma);
  int piv = mbd_lu_factor(ma, p->jd, ma, p->jpiv);
  d->lu_factorizations++;
  p->rcond = 0;
  (void)m;
  return piv;
}

/* conditioning of the factored Φ_qd watched through its pivots: min |U_kk| / max |U_kk|, O(m)
 * (the pivot quality the paper's full-pivoting LU watches; dgecon's estimate cost 6% of a run) */
static void update_rcond(mbd_part *p) {
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < p->ma; k++) {
    double u = fabs(MBD_AT(p->jd, p->ma, k, k));
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  p->rcond = p->ma ? (hi > 0 ? lo / hi : 0) : 1.0;
}

/* choose the partition from Φq at the current state (constraints evaluated and gathered) */
int mbd_part_choose(mbd_part *p, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int rank = 0;
  // QR with column pivoting of Φq (ma × n): the first ma pivot columns are the dependent ones
  int rc = mbd_qrcp_rank(&d->lsq, p->ma, p->n, d->phiq_a, p->ma, 1e-10, p->perm, &rank, NULL);
  if (rc < 0) {
    return MBD_FAIL(err, rc, "partitioning at t = %g: QR factorization failed", d->t);
  }
  if (rank < p->ma) {
    return MBD_FAIL(err, MBD_E_SINGULAR,
                    "partitioning at t = %g: the constraint Jacobian has rank %d < %d "
                    "(singular configuration)",
                    d->t, rank, p->ma);
  }
  // dependent and independent columns each in increasing coordinate order (readable, stable)
  for (int pass = 0; pass < 2; pass++) {
    int lo = pass ? p->ma : 0, hi = pass ? p->n : p->ma;
    for (int i = lo + 1; i < hi; i++) {
      int v = p->perm[i], k = i;
      while (k > lo && p->perm[k - 1] > v) {
        p->perm[k] = p->perm[k - 1];
        k--;
      }
      p->perm[k] = v;
    }
  }
  if (factor_jd(p, m, d) != 0) {
    return MBD_FAIL(err, MBD_E_SINGULAR, "partitioning at t = %g: dependent block is singular",
                    d->t);
  }
  update_rcond(p);
  p->rcond0 = p->rcond;
  p->degraded = 0;
  return MBD_OK;
}

/* y = [q_i; q̇_i] from the full state */
void mbd_part_pack(const mbd_part *p, const mbd_data *d, double *y) {
  for (int k = 0; k < p->f; k++) {
    y[k] = d->q[p->perm[p->ma + k]];
    y[p->f + k] = d->qd[p->perm[p->ma + k]];
  }
}

/* full state (q, q̇, Φ, Φq, γ gathered) from y = [q_i; q̇_i] at t: position analysis on q_d
 * (Newton, eq 10–11) then velocity analysis (eq 12).  Returns 0, > 0 when Newton failed or the
 * dependent block is singular (the integrator retries with a smaller step; err holds why), or
 * < 0 on a hard error. */
int mbd_part_state(mbd_part *p, const mbd_model *m, mbd_data *d, double t, const double *y,
                   double tol, int max_iter, mbd_error *err) {
  int ma = p->ma, f = p->f;
  // predictor: a second-order Taylor step of the dependent coordinates to the new time
  double dt = t - d->t;
  for (int k = 0; k < ma; k++) {
    d->q[p->perm[k]] += dt * d->qd[p->perm[k]] + 0.5 * dt * dt * d->qdd[p->perm[k]];
  }
  d->t = t;
  d->have_dynamics = 0;
  for (int k = 0; k < f; k++) {
    d->q[p->perm[ma + k]] = y[k];
    d->qd[p->perm[ma + k]] = y[f + k];
  }
  double res = 0;
  for (int it = 0;; it++) {
    int rc = mbd_constraints_eval(m, d, 0, err);
    if (rc < 0) {
      return rc;
    }
    mbd_constraints_gather(m, d);
    res = mbd_active_residual(m, d);
    int piv = factor_jd(p, m, d);
    if (piv != 0) {
      char what[96];
      mbd_model_coord_name(m, p->perm[piv - 1], what, sizeof what);
      MBD_FAIL(err, MBD_E_SINGULAR,
               "position analysis at t = %g: the dependent block of Φq is singular (pivot at "
               "%s)",
               t, what);
      return 1;
    }
    if (!isfinite(res)) {
      MBD_FAIL(err, MBD_E_NAN, "position analysis at t = %g: the constraints became %g", t, res);
      return 1;
    }
    if (res <= tol) {
      break;
    }
    if (it >= max_iter) {
      MBD_FAIL(err, MBD_E_NEWTON,
               "position analysis at t = %g did not converge in %d iterations (residual %.3g, "
               "tolerance %.3g)",
               t, max_iter, res, tol);
      return 1;
    }
    // Newton step on the dependent coordinates
    for (int k = 0; k < ma; k++) {
      d->tmp_m[k] = -d->phi_a[k];
    }
    mbd_lu_solve(ma, p->jd, ma, p->jpiv, d->tmp_m, 1);
    for (int k = 0; k < ma; k++) {
      d->q[p->perm[k]] += d->tmp_m[k];
    }
    d->newton_iterations++;
  }
  // watch the conditioning of the dependent block (once per evaluation, at the converged state)
  update_rcond(p);
  if (p->rcond < 0.1 * p->rcond0) {
    p->degraded = 1;
  }
  // velocity analysis: Φ_qd q̇_d = −Φt − Φ_qi q̇_i
  for (int r = 0; r < ma; r++) {
    double s = -d->phit_a[r];
    for (int k = 0; k < f; k++) {
      s -= MBD_AT(d->phiq_a, ma, r, p->perm[ma + k]) * y[f + k];
    }
    d->tmp_m[r] = s;
  }
  mbd_lu_solve(ma, p->jd, ma, p->jpiv, d->tmp_m, 1);
  for (int k = 0; k < ma; k++) {
    d->qd[p->perm[k]] = d->tmp_m[k];
  }
  // γ depends on q̇: evaluate it once more at the consistent state (q unchanged: Φq stands)
  int rc = mbd_constraints_eval(m, d, MBD_EVAL_GAMMA, err);
  if (rc < 0) {
    return rc;
  }
  mbd_constraints_gather(m, d);
  return 0;
}

/* paper 000 eq 22–23: partial velocity matrix B (n×f), q̇ = B q̇_i + C; B_d = −Φ_qd⁻¹ Φ_qi */
void mbd_part_partial_velocities(mbd_part *p, const mbd_data *d) {
  int n = p->n, ma = p->ma, f = p->f;
  for (int k = 0; k < f; k++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->x, ma, r, k) = MBD_AT(d->phiq_a, ma, r, p->perm[ma + k]);
    }
  }
  if (ma > 0 && f > 0) {
    mbd_lu_solve(ma, p->jd, ma, p->jpiv, p->x, f);
  }
  memset(p->B, 0, (size_t)n * f * sizeof(double));
  for (int k = 0; k < f; k++) {
    MBD_AT(p->B, n, p->perm[ma + k], k) = 1;
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->B, n, p->perm[r], k) = -MBD_AT(p->x, ma, r, k);
    }
  }
}

const double *mbd_part_B(mbd_part *p, const mbd_data *d) {
  mbd_part_partial_velocities(p, d);
  return p->B;
}

/* is there a clearly better partition at the last evaluated state?  After every accepted step
 * once the pivot ratio has lost half its value at partition time (then: one QR with column
 * pivoting of Φq, ma×n, and at most one LU of ma×ma): the columns QR
 * would choose now, if different, are factored and their pivot ratio compared with the current
 * one.  A ratio at least twice as good marks the partition degraded.  Waiting until the current
 * block is nearly singular costs accuracy: the dependent coordinates follow the independent ones
 * through Φ_qd⁻¹Φ_qi, which error control on q_i alone does not see (a spherical pendulum lost
 * 0.36 m over 5 s with rtol 1e-4 when only a tenfold pivot loss triggered a re-partition). */
int mbd_part_better(mbd_part *p, const mbd_model *m, mbd_data *d) {
  int ma = p->ma, n = p->n, rank = 0;
  if (p->degraded || ma == 0 || !d->have_dynamics) {
    return p->degraded;
  }
  // as good as when it was chosen: no need to look (saves the QR on most steps)
  if (p->rcond >= 0.5 * p->rcond0) {
    return 0;
  }
  if (mbd_qrcp_rank(&d->lsq, ma, n, d->phiq_a, ma, 1e-10, p->perm_old, &rank, NULL) < 0 ||
      rank < ma) {
    return 0;
  }
  // the candidate's dependent columns, sorted, compared with the current ones
  int *c = p->perm_old;
  for (int i = 1; i < ma; i++) {
    int v = c[i], k = i;
    while (k > 0 && c[k - 1] > v) {
      c[k] = c[k - 1];
      k--;
    }
    c[k] = v;
  }
  if (memcmp(c, p->perm, (size_t)ma * sizeof(int)) == 0) {
    return 0;
  }
  for (int j = 0; j < ma; j++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->jd2, ma, r, j) = MBD_AT(d->phiq_a, ma, r, c[j]);
    }
  }
  if (mbd_lu_factor(ma, p->jd2, ma, p->kpiv) != 0) {
    return 0;
  }
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < ma; k++) {
    double u = fabs(MBD_AT(p->jd2, ma, k, k));
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  double cand = hi > 0 ? lo / hi : 0;
  (void)m;
  if (cand > 2 * p->rcond) {
    p->degraded = 1;
  }
  return p->degraded;
}

/* re-partition when the dependent block has degraded: state must be current (mbd_part_state).
 * Returns 1 when the partition changed (y rewritten), 0 when kept, < 0 on error. */
int mbd_part_maybe_repartition(mbd_part *p, const mbd_model *m, mbd_data *d, double *y,
                               mbd_error *err) {
  if (!p->degraded) {
    return 0;
  }
  memcpy(p->perm_old, p->perm, (size_t)p->n * sizeof(int));
  // rows set aside by the rank test may be needed now (the model is the run's, not const here)
  int rs = mbd_reselect_rows((mbd_model *)m, d, err);
  if (rs < 0) {
    return rs;
  }
  int rc = mbd_part_choose(p, m, d, err);
  if (rc < 0) {
    return rc;
  }
  if (rs == 0 && memcmp(p->perm_old, p->perm, (size_t)p->n * sizeof(int)) == 0) {
    return 0;  // the best choice is still this one: keep going with the new baseline
  }
  p->repartitions++;
  mbd_part_pack(p, d, y);
  return 1;
}
