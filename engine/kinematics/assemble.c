/* assembly: coordinate and row numbering, workspaces, initial position and velocity analysis,
 * and the rank test of Φq that removes (and names) redundant constraint rows */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/model_impl.h"

void mbd_data_free(mbd_data *d);
void mbd_model_unassemble(mbd_model *m);

void mbd_data_free(mbd_data *d) {
  if (!d) {
    return;
  }
  free(d->q);
  free(d->qd);
  free(d->qdd);
  free(d->phi);
  free(d->phiq);
  free(d->phit);
  free(d->gamma);
  free(d->lambda);
  free(d->M);
  free(d->Q);
  free(d->phi_a);
  free(d->phiq_a);
  free(d->gamma_a);
  free(d->phit_a);
  free(d->aug);
  free(d->augrhs);
  free(d->ipiv);
  free(d->work);
  free(d->iwork);
  free(d->tmp_n);
  free(d->tmp_m);
  mbd_lsq_free(&d->lsq);
  free(d);
}

void mbd_model_unassemble(mbd_model *m) {
  mbd_data_free(m->data);
  m->data = NULL;
  free(m->active);
  m->active = NULL;
  free(m->row_owner);
  m->row_owner = NULL;
  free(m->channel);
  m->channel = NULL;
  m->nchannel = 0;
  m->assembled = 0;
}

int mbd_model_is_assembled(const mbd_model *m) { return m->assembled; }

// all workspaces, sized once for n coordinates and mrow constraint rows
static mbd_data *data_alloc(int n, int mrow, mbd_error *err) {
  mbd_data *d = calloc(1, sizeof *d);
  if (!d) {
    MBD_FAIL(err, MBD_E_NOMEM, "assembly: out of memory");
    return NULL;
  }
  size_t nn = (size_t)(n ? n : 1), mm = (size_t)(mrow ? mrow : 1), N = nn + mm;
  d->q = calloc(nn, sizeof(double));
  d->qd = calloc(nn, sizeof(double));
  d->qdd = calloc(nn, sizeof(double));
  d->phi = calloc(mm, sizeof(double));
  d->phiq = calloc(mm * nn, sizeof(double));
  d->phit = calloc(mm, sizeof(double));
  d->gamma = calloc(mm, sizeof(double));
  d->lambda = calloc(mm, sizeof(double));
  d->M = calloc(nn * nn, sizeof(double));
  d->Q = calloc(nn, sizeof(double));
  d->phi_a = calloc(mm, sizeof(double));
  d->phiq_a = calloc(mm * nn, sizeof(double));
  d->gamma_a = calloc(mm, sizeof(double));
  d->phit_a = calloc(mm, sizeof(double));
  d->aug = calloc(N * N, sizeof(double));
  d->augrhs = calloc(N, sizeof(double));
  d->ipiv = calloc(N, sizeof(int));
  d->work = calloc(4 * N, sizeof(double));
  d->iwork = calloc(N, sizeof(int));
  d->tmp_n = calloc(nn, sizeof(double));
  d->tmp_m = calloc(N, sizeof(double));
  int ok = d->q && d->qd && d->qdd && d->phi && d->phiq && d->phit && d->gamma && d->lambda &&
           d->M && d->Q && d->phi_a && d->phiq_a && d->gamma_a && d->phit_a && d->aug &&
           d->augrhs && d->ipiv && d->work && d->iwork && d->tmp_n && d->tmp_m;
  // least squares serves Φq (mrow×n) and its transpose (n×mrow)
  int big = (int)(nn > mm ? nn : mm);
  if (!ok || mbd_lsq_alloc(&d->lsq, big, big, err) != MBD_OK) {
    mbd_data_free(d);
    MBD_FAIL(err, MBD_E_NOMEM, "assembly: out of memory (%d coordinates, %d constraints)", n,
             mrow);
    return NULL;
  }
  return d;
}

void mbd_model_coord_name(const mbd_model *m, int i, char *buf, size_t len) {
  static const char *const c2[] = {"x", "y", "theta"};
  static const char *const c3[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
  for (int b = 1; b < m->nbody; b++) {
    int a = m->body[b].qadr;
    if (i >= a && i < a + m->nc) {
      snprintf(buf, len, "%s.%s", m->body[b].name, m->dim == 2 ? c2[i - a] : c3[i - a]);
      return;
    }
  }
  snprintf(buf, len, "coordinate %d", i);
}

void mbd_model_row_name(const mbd_model *m, int i, char *buf, size_t len) {
  int o = (i >= 0 && i < m->mrow) ? m->row_owner[i] : -1000000;
  if (o >= 0) {
    snprintf(buf, len, "%s '%s' (equation %d)", mbd_joint_type_name(m->joint[o].type),
             m->joint[o].name, i - m->joint[o].row0 + 1);
  } else if (o > -1000) {
    snprintf(buf, len, "drive on joint '%s'", m->joint[m->drive[-1 - o].joint].name);
  } else if (o > -1000000) {
    snprintf(buf, len, "Euler-parameter norm of body '%s'", m->body[-1000 - o].name);
  } else {
    snprintf(buf, len, "constraint %d", i);
  }
}

/* the violation measures look at every row, also those the rank test set aside: a row that was
 * redundant at the assembled pose is implied by the others only on that branch of the motion */
double mbd_position_violation(const mbd_model *m, const mbd_data *d) {
  double v = 0;
  for (int r = 0; r < m->mrow; r++) {
    double a = fabs(d->phi[r]);
    v = a > v ? a : v;
  }
  return v;
}

double mbd_velocity_violation(const mbd_model *m, const mbd_data *d) {
  double v = 0;
  for (int r = 0; r < m->mrow; r++) {
    double s = d->phit[r];
    for (int c = 0; c < m->n; c++) {
      s += MBD_AT(d->phiq, m->mrow, r, c) * d->qd[c];
    }
    v = fabs(s) > v ? fabs(s) : v;
  }
  return v;
}

/* largest |Φ| over the active rows (the Newton residual) */
double mbd_active_residual(const mbd_model *m, const mbd_data *d) {
  double v = 0;
  for (int k = 0; k < m->ma; k++) {
    double a = fabs(d->phi_a[k]);
    v = a > v ? a : v;
  }
  return v;
}

/* choose the active rows again at the current state (Φq of all rows evaluated): QR with column
 * pivoting of Φqᵀ picks the best-conditioned set of rank-many rows.  Done when the rows kept at
 * assembly become ill-conditioned along the motion (a redundant row was implied by the others
 * only near the assembled pose).  Returns 1 when the set changed (rows gathered again), 0 when
 * kept (also when the rank itself changed: a singular configuration), < 0 on error. */
int mbd_reselect_rows(mbd_model *m, mbd_data *d, mbd_error *err) {
  if (m->ma == m->mrow) {
    return 0;  // nothing was set aside
  }
  int n = m->n, mrow = m->mrow, rank = 0;
  // Φqᵀ (n × mrow) into the augmented-matrix scratch
  for (int r = 0; r < mrow; r++) {
    for (int c = 0; c < n; c++) {
      MBD_AT(d->aug, n, c, r) = MBD_AT(d->phiq, mrow, r, c);
    }
  }
  int rc = mbd_qrcp_rank(&d->lsq, n, mrow, d->aug, n, 1e-9, d->iwork, &rank, NULL);
  if (rc < 0) {
    return MBD_FAIL(err, rc, "rank test at t = %g: QR factorization failed", d->t);
  }
  if (rank != m->ma) {
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
  if (memcmp(rows, m->active, (size_t)rank * sizeof(int)) == 0) {
    return 0;
  }
  memcpy(m->active, rows, (size_t)rank * sizeof(int));
  d->row_reselections++;
  mbd_constraints_gather(m, d);
  return 1;
}

// index of the active row with the largest |Φ|
static int worst_row(const mbd_model *m, const mbd_data *d) {
  int w = m->ma ? m->active[0] : 0;
  for (int k = 0; k < m->ma; k++) {
    if (fabs(d->phi[m->active[k]]) > fabs(d->phi[w])) {
      w = m->active[k];
    }
  }
  return w;
}

/* paper 000 eq 10–11 in its minimum-norm form: Δq = −Φq⁺ Φ on the active rows; with all
 * coordinates free this keeps the poses as close to the given ones as the constraints allow */
int mbd_position_analysis(const mbd_model *m, mbd_data *d, double tol, int max_iter,
                          mbd_error *err) {
  int n = m->n;
  double res = 0;
  for (int it = 0; it <= max_iter; it++) {
    int rc = mbd_constraints_eval(m, d, 0, err);
    if (rc < 0) {
      return rc;
    }
    mbd_constraints_gather(m, d);
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
    for (int k = 0; k < m->ma; k++) {
      d->tmp_m[k] = -d->phi_a[k];
    }
    rc = mbd_lsq_solve(&d->lsq, m->ma, n, d->phiq_a, m->ma, d->tmp_m, d->tmp_n, 1e-12, NULL);
    if (rc) {
      return MBD_FAIL(err, MBD_E_SINGULAR, "position analysis at t = %g: SVD did not converge",
                      d->t);
    }
    for (int c = 0; c < n; c++) {
      d->q[c] += d->tmp_n[c];
    }
    d->newton_iterations++;
  }
  char row[160];
  mbd_model_row_name(m, worst_row(m, d), row, sizeof row);
  return MBD_FAIL(err, MBD_E_NEWTON,
                  "position analysis at t = %g did not converge in %d iterations: %s has "
                  "residual %.3g (tolerance %.3g)",
                  d->t, max_iter, row, res, tol);
}

/* paper 000 eq 12 in minimum-norm form: q̇ ← q̇ − Φq⁺(Φq q̇ + Φt) */
int mbd_velocity_analysis(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->n;
  for (int k = 0; k < m->ma; k++) {
    double s = d->phit_a[k];
    for (int c = 0; c < n; c++) {
      s += MBD_AT(d->phiq_a, m->ma, k, c) * d->qd[c];
    }
    d->tmp_m[k] = -s;
  }
  int rc = mbd_lsq_solve(&d->lsq, m->ma, n, d->phiq_a, m->ma, d->tmp_m, d->tmp_n, 1e-12, NULL);
  if (rc) {
    return MBD_FAIL(err, MBD_E_SINGULAR, "velocity analysis at t = %g: SVD did not converge", d->t);
  }
  for (int c = 0; c < n; c++) {
    d->qd[c] += d->tmp_n[c];
  }
  return MBD_OK;
}

/* rank test: rows taken in declaration order, a row is kept when it is independent of the rows
 * kept before it (modified Gram–Schmidt with relative tolerance 1e-9), so a redundant loop-closing
 * joint declared last is the one named */
static int rank_test(mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->n, mrow = m->mrow;
  double *basis = calloc((size_t)(mrow ? mrow : 1) * (n ? n : 1), sizeof(double));
  if (!basis) {
    return MBD_FAIL(err, MBD_E_NOMEM, "rank test: out of memory");
  }
  int r = 0;
  m->ma = 0;
  for (int i = 0; i < mrow; i++) {
    double *v = basis + (size_t)r * n;
    double n0 = 0;
    for (int c = 0; c < n; c++) {
      v[c] = MBD_AT(d->phiq, mrow, i, c);
      n0 += v[c] * v[c];
    }
    n0 = sqrt(n0);
    for (int k = 0; k < r; k++) {
      const double *b = basis + (size_t)k * n;
      double p = 0;
      for (int c = 0; c < n; c++) {
        p += b[c] * v[c];
      }
      for (int c = 0; c < n; c++) {
        v[c] -= p * b[c];
      }
    }
    double n1 = 0;
    for (int c = 0; c < n; c++) {
      n1 += v[c] * v[c];
    }
    n1 = sqrt(n1);
    if (n0 > 0 && n1 > 1e-9 * n0) {
      for (int c = 0; c < n; c++) {
        v[c] /= n1;
      }
      m->active[m->ma++] = i;
      r++;
    } else {
      char row[160];
      mbd_model_row_name(m, i, row, sizeof row);
      mbd_model_warn(m, "%s is redundant (rank test of the constraint Jacobian): removed", row);
    }
  }
  free(basis);
  m->rank = r;
  return MBD_OK;
}

int mbd_model_assemble(mbd_model *m, const mbd_assembly_opts *opts, mbd_error *err) {
  mbd_model_unassemble(m);
  double tol = opts && opts->position_tol > 0 ? opts->position_tol : 1e-10;
  int max_iter = opts && opts->max_iter > 0 ? opts->max_iter : 50;
  m->assembly_tol = tol;
  if (m->nbody < 2) {
    return MBD_FAIL(err, MBD_E_INPUT, "model '%s': no bodies to simulate (add one with m:body)",
                    m->name);
  }
  // number coordinates and rows
  m->n = 0;
  for (int b = 1; b < m->nbody; b++) {
    m->body[b].qadr = m->n;
    m->n += m->nc;
  }
  int rows = 0;
  static const int nrow2[] = {2, 2, 3}, nrow3[] = {5, 5, 6, 3, 4, 4};
  for (int j = 0; j < m->njoint; j++) {
    m->joint[j].row0 = rows;
    m->joint[j].nrow = m->dim == 2 ? nrow2[m->joint[j].type] : nrow3[m->joint[j].type];
    rows += m->joint[j].nrow;
  }
  for (int k = 0; k < m->ndrive; k++) {
    m->drive[k].row = rows++;
  }
  if (m->dim == 3) {
    rows += m->nbody - 1;  // Euler-parameter normalization, one per body
  }
  m->mrow = rows;
  m->active = calloc((size_t)(rows ? rows : 1), sizeof(int));
  m->row_owner = calloc((size_t)(rows ? rows : 1), sizeof(int));
  if (!m->active || !m->row_owner) {
    mbd_model_unassemble(m);
    return MBD_FAIL(err, MBD_E_NOMEM, "assembly: out of memory");
  }
  for (int j = 0; j < m->njoint; j++) {
    for (int r = 0; r < m->joint[j].nrow; r++) {
      m->row_owner[m->joint[j].row0 + r] = j;
    }
  }
  for (int k = 0; k < m->ndrive; k++) {
    m->row_owner[m->drive[k].row] = -1 - k;
  }
  for (int b = 1, r = rows - (m->dim == 3 ? m->nbody - 1 : 0); m->dim == 3 && b < m->nbody;
       b++, r++) {
    m->row_owner[r] = -1000 - b;
  }
  m->data = data_alloc(m->n, rows, err);
  if (!m->data) {
    mbd_model_unassemble(m);
    return MBD_E_NOMEM;
  }
  mbd_data *d = m->data;
  // the poses and velocities the user gave
  if (m->dim == 3) {
    mbd_spatial_reset(m);
  }
  for (int b = 1; b < m->nbody; b++) {
    int a = m->body[b].qadr;
    for (int c = 0; c < m->nc; c++) {
      d->q[a + c] = m->body[b].q0[c];
    }
    if (m->dim == 2) {
      for (int c = 0; c < 3; c++) {
        d->qd[a + c] = m->body[b].v0[c];
      }
    }
  }
  d->t = 0;
  // position analysis with every row (redundant but consistent rows do no harm to min-norm)
  m->ma = rows;
  for (int i = 0; i < rows; i++) {
    m->active[i] = i;
  }
  int rc = mbd_position_analysis(m, d, tol, max_iter, err);
  if (rc < 0) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
    mbd_model_unassemble(m);
    return MBD_FAIL(err, MBD_E_ASSEMBLY, "model '%s' cannot be assembled: %s", m->name, msg);
  }
  // how far assembly moved the given poses (reported by m:info, not a warning: rough poses are
  // a normal way to describe a mechanism)
  m->moved = 0;
  m->moved_body = -1;
  for (int b = 1; b < m->nbody; b++) {
    int a = m->body[b].qadr;
    for (int c = 0; c < m->nc; c++) {
      double dq = fabs(d->q[a + c] - m->body[b].q0[c]);
      if (dq > m->moved) {
        m->moved = dq;
        m->moved_body = b;
      }
    }
  }
  if (m->dim == 3) {
    mbd_spatial_velocity0(m, d);  // ṗ from the given global ω at the assembled orientation
  }
  rc = rank_test(m, d, err);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  // velocity analysis on the independent rows
  rc = mbd_constraints_eval(m, d, 1, err);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  mbd_constraints_gather(m, d);
  rc = mbd_velocity_analysis(m, d, err);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  rc = mbd_channels_build(m, err);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  d->newton_iterations = 0;
  m->assembled = 1;
  return MBD_OK;
}

int mbd_model_get_info(const mbd_model *m, mbd_model_info *info) {
  memset(info, 0, sizeof *info);
  info->nbody = m->nbody - 1;
  info->njoint = m->njoint;
  info->ndrive = m->ndrive;
  info->nforce = m->nforce + m->nspring + m->nrspring;
  if (!m->assembled) {
    return MBD_E_STATE;
  }
  info->ncoord = m->n;
  info->nconstraint = m->mrow;
  info->rank = m->rank;
  info->dof = m->n - m->rank;
  info->nredundant = m->mrow - m->ma;
  info->moved = m->moved;
  info->moved_body = m->moved_body;
  return MBD_OK;
}
