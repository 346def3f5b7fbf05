/* position and velocity analyses (paper 000 eq 10–12, in minimum-norm form over all
 * coordinates), and the re-selection of the active constraint rows along the motion */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kinematics.h"
#include "kinematics_msg.h"

// the active row with the largest |Φ|
static int worst_row(const mbd_data *d) {
  int w = d->ma ? d->active[0] : 0;
  for (int k = 0; k < d->ma; k++) {
    if (fabs(d->phi[d->active[k]]) > fabs(d->phi[w])) {
      w = d->active[k];
    }
  }
  return w;
}

/* whether a velocity-level row is active */
static int has_velocity_rows(const mbd_model *m, const mbd_data *d) {
  for (int k = 0; k < d->ma; k++) {
    if (m->row[d->active[k]].level == MBD_ROW_VELOCITY) {
      return 1;
    }
  }
  return 0;
}

static int position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter, int sparse,
                             int refine, mbd_error *err);

int mbd_newton_floor(mbd_data *d, int it, double res, double res_prev, double qmax) {
  if (it < 2 || !(res > 0.9 * res_prev) || !(res <= MBD_NEWTON_FLOOR_REL * fmax(1.0, qmax))) {
    return 0;
  }
  if (d->floor_n++ == 0) {
    d->floor_t = d->t;
  }
  d->floor_res = fmax(d->floor_res, res);
  return 1;
}

/* large models (assembly of hundreds of bodies): the minimum-norm solutions below through the
 * sparse [I Φqᵀ; Φq 0] (kinematics/kkt.c) instead of the dense SVD, whose O(m² n) took seconds at
 * assembly.  From this order (nv + active rows) on; below it the SVD, to the last bit as before */
#define ANALYSIS_SPARSE_MIN 400

/* whether the analyses of d go through the sparse form: a large model whose rows fit it, no
 * velocity-level rows (they carry no position equation: the dense step zeroes them) */
static int sparse_analysis(const mbd_model *m, const mbd_data *d) {
  return d->sp && m->nv + d->ma >= ANALYSIS_SPARSE_MIN && !has_velocity_rows(m, d);
}

int mbd_kin_sparse_assembly(const mbd_model *m, const mbd_data *d) {
  // (every row: the assembly starts with all of them active)
  if (!d->sp || m->nv + m->mrow < ANALYSIS_SPARSE_MIN || m->ncontact > 0 || m->njfric > 0) {
    return 0;
  }
  for (int r = 0; r < m->mrow; r++) {
    if (m->row[r].level == MBD_ROW_VELOCITY) {
      return 0;
    }
  }
  return 1;
}

/* Δv (n) of minimum norm with Φq Δv = r (ma entries, in d->tmp_m) through [I Φqᵀ; Φq 0] on the
 * sparse form (rows evaluated in it): 0, or 1 when it does not serve (Φq rank-deficient or too
 * ill-conditioned: redundant rows; the caller takes the SVD), < 0 with err */
static int sparse_min_norm(const mbd_model *m, mbd_data *d, double *dv, mbd_error *err) {
  int n = m->nv, ma = d->ma;
  double ratio = 0;
  int kmin = 0;
  int piv = mbd_kkt_factor(m, d, 1, &ratio, &kmin, err);
  if (piv < 0) {
    return piv;
  }
  // a redundant row makes the matrix singular (a pivot at rounding level): the SVD decides
  if (piv > 0 || ratio < 1e-13) {
    return 1;
  }
  double *x = d->augrhs;
  memset(x, 0, (size_t)n * sizeof(double));
  memcpy(x + n, d->tmp_m, (size_t)ma * sizeof(double));
  mbd_kkt_solve(d, x);
  // the solution must satisfy the rows (to rounding of r and of the step)
  double rmax = 0, left = 0, xmax = 0;
  for (int c = 0; c < n; c++) {
    xmax = fmax(xmax, fabs(x[c]));
  }
  for (int k = 0; k < ma; k++) {
    double s = mbd_sparse_row_dot(d, d->active[k], x) - d->tmp_m[k];
    rmax = fmax(rmax, fabs(d->tmp_m[k]));
    left = fmax(left, fabs(s));
  }
  if (!(left <= 1e-8 * rmax + 1e-12 * xmax)) {
    return 1;
  }
  memcpy(dv, x, (size_t)n * sizeof(double));
  return 0;
}

/* paper 000 eq 10–11 in its minimum-norm form: Δv = −Φq⁺ Φ on the active rows, q ← q ⊕ Δv;
 * with all coordinates free this keeps the poses as close to the given ones as the constraints
 * allow.  Large models: the sparse form while it serves (sparse_min_norm), the dense arrays
 * written again when it is left. */
int mbd_position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                          mbd_error *err) {
  int was = mbd_sparse_on(d), sparse = sparse_analysis(m, d);
  mbd_sparse_set(m, d, sparse || was);
  int rc = position_analysis(m, d, tol, max_iter, sparse, 0, err);
  mbd_sparse_set(m, d, was);
  return rc;
}

int mbd_position_project(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                         mbd_error *err) {
  int was = mbd_sparse_on(d);
  mbd_sparse_set(m, d, 0);
  int rc = position_analysis(m, d, tol, max_iter, 0, 1, err);
  mbd_sparse_set(m, d, was);
  return rc;
}

static int position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter, int sparse,
                             int refine, mbd_error *err) {
  int n = m->nv;
  double res = 0, res_prev = INFINITY, step = INFINITY, step_prev = INFINITY, qmax = 1;
  for (int i = 0; i < m->nq; i++) {
    qmax = fmax(qmax, fabs(d->q[i]));
  }
  double q_round = refine ? 8 * DBL_EPSILON * qmax : 0;
  for (int it = 0; it <= max_iter; it++) {
    // a long assembly (thousands of coordinates) can be interrupted between iterations
    int rc = d->poll ? d->poll(d->poll_ud, d->t, err) : 0;
    if (rc < 0) {
      return rc;
    }
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc < 0) {
      return rc;
    }
    res = mbd_active_residual(m, d);
    if (!isfinite(res)) {
      break;
    }
    // refine: near a singular configuration a small residual leaves the coordinates off by about
    // |Φ|/σ along the weak direction (and the velocities by |Φ|/σ²): Newton goes on to the
    // rounding level, while its step still shrinks quadratically (at a singular root it only
    // halves: no further gain)
    if (res <= tol && (!refine || step <= q_round || step > 0.25 * step_prev || it == max_iter)) {
      return MBD_OK;
    }
    // (at the rounding floor of the rows above tol: accepted, the run warns)
    if (res > tol && mbd_newton_floor(d, it, res, res_prev, qmax)) {
      return MBD_OK;
    }
    res_prev = res;
    if (it == max_iter) {
      break;
    }
    for (int k = 0; k < d->ma; k++) {
      d->tmp_m[k] = -d->phi_a[k];
    }
    if (sparse) {
      rc = sparse_min_norm(m, d, d->tmp_n, err);
      if (rc < 0) {
        return rc;
      }
      if (rc == 0) {
        mbd_kin_move(m, d->q, d->tmp_n);
        mbd_stage_touch(d, MBD_STAGE_NONE);
        d->newton_iterations++;
        continue;
      }
      // redundant rows: the SVD from here on, on the dense arrays
      sparse = 0;
      mbd_sparse_set(m, d, 0);
    }
    // a velocity-level row (rolling) carries no position equation: left out of the step
    if ((rc = mbd_data_dense(m, d, err)) < 0) {
      return rc;
    }
    const double *J = d->phiq_a;
    if (has_velocity_rows(m, d)) {
      memcpy(d->aug, d->phiq_a, (size_t)d->ma * n * sizeof(double));
      for (int k = 0; k < d->ma; k++) {
        for (int c = 0; c < n && m->row[d->active[k]].level == MBD_ROW_VELOCITY; c++) {
          MBD_AT(d->aug, d->ma, k, c) = 0;
        }
      }
      J = d->aug;
    }
    rc = mbd_lsq_solve(&d->lsq, d->ma, n, J, d->ma, d->tmp_m, d->tmp_n, 1e-12, NULL);
    if (rc) {
      return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD,
                      "position analysis", d->t);
    }
    mbd_kin_move(m, d->q, d->tmp_n);
    mbd_stage_touch(d, MBD_STAGE_NONE);
    d->newton_iterations++;
    step_prev = step;
    step = 0;
    for (int c = 0; c < n; c++) {
      step = fmax(step, fabs(d->tmp_n[c]));
    }
  }
  char row[160];
  mbd_model_row_name(m, worst_row(d), row, sizeof row);
  return MBD_FAIL(err, MBD_E_NEWTON, MSG_KIN_NEWTON, d->t, max_iter, row, res, tol);
}

/* paper 000 eq 12 in minimum-norm form: v ← v − Φq⁺(Φq v + Φt); large models through the sparse
 * form (its rows evaluated again there, the dense arrays after) */
int mbd_velocity_analysis(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv;
  if (sparse_analysis(m, d)) {
    int was = mbd_sparse_on(d);
    mbd_sparse_set(m, d, 1);
    int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    for (int k = 0; rc == MBD_OK && k < d->ma; k++) {
      d->tmp_m[k] = -(d->phit_a[k] + mbd_sparse_row_dot(d, d->active[k], d->v));
    }
    if (rc == MBD_OK) {
      rc = sparse_min_norm(m, d, d->tmp_n, err);
    }
    mbd_sparse_set(m, d, was);
    if (rc < 0) {
      return rc;
    }
    if (rc == 0) {
      for (int c = 0; c < n; c++) {
        d->v[c] += d->tmp_n[c];
      }
      mbd_stage_touch(d, MBD_STAGE_POSITION);
      return MBD_OK;
    }
  }
  // the dense SVD: the dense arrays take over (an assembly that kept the sparse form on)
  int rc = mbd_data_dense(m, d, err);
  if (rc < 0) {
    return rc;
  }
  mbd_sparse_set(m, d, 0);
  for (int k = 0; k < d->ma; k++) {
    double s = d->phit_a[k];
    for (int c = 0; c < n; c++) {
      s += MBD_AT(d->phiq_a, d->ma, k, c) * d->v[c];
    }
    d->tmp_m[k] = -s;
  }
  rc = mbd_lsq_solve(&d->lsq, d->ma, n, d->phiq_a, d->ma, d->tmp_m, d->tmp_n, 1e-12, NULL);
  if (rc) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD, "velocity analysis",
                    d->t);
  }
  for (int c = 0; c < n; c++) {
    d->v[c] += d->tmp_n[c];
  }
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  return MBD_OK;
}

/* choose the active rows again at the current state (Φq of all rows evaluated): QR with column
 * pivoting of Φqᵀ picks the best-conditioned set of rank-many rows.  Done when the rows kept at
 * assembly become ill-conditioned along the motion (a redundant row was implied by the others
 * only near the assembled pose).  Returns 1 when the set changed (rows gathered again), 0 when
 * kept (also when the rank itself changed: a singular configuration), < 0 on error. */
int mbd_reselect_rows(const mbd_model *m, mbd_data *d, mbd_error *err) {
  if (d->ma == m->mrow) {
    return 0;  // nothing was set aside
  }
  int n = m->nv, mrow = m->mrow, rank = 0;
  int drc = mbd_data_dense(m, d, err);
  if (drc < 0) {
    return drc;
  }
  // Φqᵀ (nv × mrow) into the augmented-matrix scratch
  for (int r = 0; r < mrow; r++) {
    for (int c = 0; c < n; c++) {
      MBD_AT(d->aug, n, c, r) = MBD_AT(d->phiq, mrow, r, c);
    }
  }
  int rc = mbd_qrcp_rank(&d->lsq, n, mrow, d->aug, n, 1e-9, d->iwork, &rank, NULL);
  if (rc < 0) {
    return MBD_FAIL(err, rc, MSG_KIN_QR, "rank test", d->t);
  }
  if (rank != d->ma) {
    return 0;
  }
  // the chosen rows in increasing order; compare with the current set
  int *rows = d->iwork;
  for (int i = 1; i < rank; i++) {
    int v = rows[i], k = i;
    while (k > 0 && rows[k - 1] > v) {
      rows[k] = rows[k - 1];
      k--;
    }
    rows[k] = v;
  }
  if (memcmp(rows, d->active, (size_t)rank * sizeof(int)) == 0) {
    return 0;
  }
  memcpy(d->active, rows, (size_t)rank * sizeof(int));
  d->row_reselections++;
  mbd_constraints_gather(m, d);
  // the new active rows gathered at the same state: the kinematic stages stand for them, the
  // forces and accelerations do not
  mbd_stage_touch(d, MBD_STAGE_VELOCITY);
  mbd_stage_rekey(m, d);
  return 1;
}

/* a fully driven mechanism at time t: position (Newton from d->q), velocity Φq v = −Φt and
 * acceleration Φq v̇ = γ analyses (square and regular when fully driven; least squares) */
int mbd_kin_analyse(const mbd_model *m, mbd_data *d, double t, double tol, int maxit,
                    mbd_error *err) {
  int n = m->nv, ma = d->ma;
  d->t = t;
  mbd_stage_touch(d, MBD_STAGE_NONE);
  int rc = mbd_position_analysis(m, d, tol, maxit, err);
  if (rc < 0) {
    return rc;
  }
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc < 0) {
    return rc;
  }
  if ((rc = mbd_data_dense(m, d, err)) < 0) {
    return rc;
  }
  for (int i = 0; i < ma; i++) {
    d->tmp_m[i] = -d->phit_a[i];
  }
  rc = mbd_lsq_solve(&d->lsq, ma, n, d->phiq_a, ma, d->tmp_m, d->v, 1e-12, NULL);
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  if (rc == MBD_OK) {
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);  // γ depends on v
  }
  if (rc == MBD_OK) {
    rc = mbd_lsq_solve(&d->lsq, ma, n, d->phiq_a, ma, d->gamma_a, d->vdot, 1e-12, NULL);
  }
  if (rc != MBD_OK) {
    return rc < 0 && err && err->code ? rc
                                      : MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "kinematics", t);
  }
  return MBD_OK;
}
