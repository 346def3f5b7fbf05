/* position and velocity analyses (paper 000 eq 10–12, in minimum-norm form over all
 * coordinates), and the re-selection of the active constraint rows along the motion */
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

/* paper 000 eq 10–11 in its minimum-norm form: Δv = −Φq⁺ Φ on the active rows, q ← q ⊕ Δv;
 * with all coordinates free this keeps the poses as close to the given ones as the constraints
 * allow */
int mbd_position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                          mbd_error *err) {
  int n = m->nv;
  double res = 0;
  for (int it = 0; it <= max_iter; it++) {
    // a long assembly (thousands of coordinates) can be interrupted between iterations
    int rc = d->poll ? d->poll(d->poll_ud, d->t, err) : 0;
    if (rc < 0) {
      return rc;
    }
    rc = mbd_kin_update(m, d, 0, err);
    if (rc < 0) {
      return rc;
    }
    res = mbd_active_residual(m, d);
    if (!isfinite(res)) {
      break;
    }
    if (res <= tol) {
      return MBD_OK;
    }
    if (it == max_iter) {
      break;
    }
    for (int k = 0; k < d->ma; k++) {
      d->tmp_m[k] = -d->phi_a[k];
    }
    // a velocity-level row (rolling) carries no position equation: left out of the step
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
    d->newton_iterations++;
  }
  char row[160];
  mbd_model_row_name(m, worst_row(d), row, sizeof row);
  return MBD_FAIL(err, MBD_E_NEWTON, MSG_KIN_NEWTON, d->t, max_iter, row, res, tol);
}

/* paper 000 eq 12 in minimum-norm form: v ← v − Φq⁺(Φq v + Φt) */
int mbd_velocity_analysis(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv;
  for (int k = 0; k < d->ma; k++) {
    double s = d->phit_a[k];
    for (int c = 0; c < n; c++) {
      s += MBD_AT(d->phiq_a, d->ma, k, c) * d->v[c];
    }
    d->tmp_m[k] = -s;
  }
  int rc = mbd_lsq_solve(&d->lsq, d->ma, n, d->phiq_a, d->ma, d->tmp_m, d->tmp_n, 1e-12, NULL);
  if (rc) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD, "velocity analysis",
                    d->t);
  }
  for (int c = 0; c < n; c++) {
    d->v[c] += d->tmp_n[c];
  }
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
  return 1;
}

/* a fully driven mechanism at time t: position (Newton from d->q), velocity Φq v = −Φt and
 * acceleration Φq v̇ = γ analyses (square and regular when fully driven; least squares) */
int mbd_kin_analyse(const mbd_model *m, mbd_data *d, double t, double tol, int maxit,
                   mbd_error *err) {
  int n = m->nv, ma = d->ma;
  d->t = t;
  d->have_dynamics = 0;
  int rc = mbd_position_analysis(m, d, tol, maxit, err);
  if (rc < 0) {
    return rc;
  }
  rc = mbd_kin_update(m, d, 0, err);
  if (rc < 0) {
    return rc;
  }
  for (int i = 0; i < ma; i++) {
    d->tmp_m[i] = -d->phit_a[i];
  }
  rc = mbd_lsq_solve(&d->lsq, ma, n, d->phiq_a, ma, d->tmp_m, d->v, 1e-12, NULL);
  if (rc == MBD_OK) {
    rc = mbd_kin_update(m, d, 0, err);  // γ depends on v
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
