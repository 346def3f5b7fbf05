/* assembly: coordinate blocks and constraint rows numbered, the initial position and velocity
 * analyses, and the rank test of Φq that sets aside (and names) redundant rows.  After it the
 * model holds the assembled initial state and is read only for every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics.h"
#include "kinematics_msg.h"

/* rank test: rows taken in declaration order, a row is kept when it is independent of the rows
 * kept before it (modified Gram–Schmidt with relative tolerance 1e-9), so a redundant loop-closing
 * joint declared last is the one named */
static int rank_test(mbd_model *m, const mbd_data *d, mbd_error *err) {
  int n = m->nv, mrow = m->mrow;
  double *basis = calloc((size_t)(mrow ? mrow : 1) * (n ? n : 1), sizeof(double));
  if (!basis) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "rank test");
  }
  int r = 0;
  m->ma0 = 0;
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
      m->active0[m->ma0++] = i;
      r++;
    } else {
      char row[160];
      mbd_model_row_name(m, i, row, sizeof row);
      mbd_model_warn(m, MSG_KIN_REDUNDANT, row);
    }
  }
  free(basis);
  m->rank = r;
  return MBD_OK;
}

/* blocks: one per moving body, in body order; rows: joints, drives, then the blocks'
 * normalization rows */
static int number(mbd_model *m, mbd_error *err) {
  m->nblock = m->nbody - 1;
  m->block = calloc((size_t)m->nblock, sizeof *m->block);
  if (!m->block) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "assembly");
  }
  m->nq = m->nv = 0;
  int nnorm = 0;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    mbd_block *bl = &m->block[b - 1];
    bl->kind = MBD_BLOCK_BODY;
    bl->owner = b;
    bl->qadr = m->nq;
    bl->nq = k->nq;
    bl->vadr = m->nv;
    bl->nv = k->nv;
    m->nq += k->nq;
    m->nv += k->nv;
    m->body[b].block = b - 1;
    nnorm += k->nnorm;
  }
  int rows = 0, dx = MBD_DIMX(m);
  for (int j = 0; j < m->njoint; j++) {
    m->joint[j].row0 = rows;
    m->joint[j].nrow = mbd_joint_type_get(m->joint[j].type)->nrow[dx];
    rows += m->joint[j].nrow;
  }
  m->mrow = rows + m->ndrive + nnorm;
  m->row = calloc((size_t)(m->mrow ? m->mrow : 1), sizeof *m->row);
  m->active0 = calloc((size_t)(m->mrow ? m->mrow : 1), sizeof(int));
  m->q_asm = calloc((size_t)(m->nq ? m->nq : 1), sizeof(double));
  m->v_asm = calloc((size_t)(m->nv ? m->nv : 1), sizeof(double));
  m->memo_asm = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(double));
  if (!m->row || !m->active0 || !m->q_asm || !m->v_asm || !m->memo_asm) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "assembly");
  }
  for (int j = 0; j < m->njoint; j++) {
    for (int r = 0; r < m->joint[j].nrow; r++) {
      m->row[m->joint[j].row0 + r] = (mbd_rowinfo){MBD_ROW_JOINT, j, r, MBD_ROW_POSITION};
    }
  }
  for (int k = 0; k < m->ndrive; k++) {
    m->drive[k].row = rows;
    m->row[rows++] = (mbd_rowinfo){MBD_ROW_DRIVE, k, 0, MBD_ROW_POSITION};
  }
  for (int b = 1; b < m->nbody; b++) {
    for (int k = 0; k < mbd_body_kind_get(m->body[b].kind)->nnorm; k++) {
      m->row[rows++] = (mbd_rowinfo){MBD_ROW_BODY, b, k, MBD_ROW_POSITION};
    }
  }
  return MBD_OK;
}

static int assemble(mbd_model *m, mbd_data *d, double tol, int max_iter, mbd_error *err) {
  // the poses the user gave, all rows active, angle memos at zero
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    memcpy(d->q + bl->qadr, m->body[b].q0, (size_t)bl->nq * sizeof(double));
  }
  d->t = 0;
  d->ma = m->mrow;
  for (int i = 0; i < m->mrow; i++) {
    d->active[i] = i;
  }
  // position analysis with every row (redundant but consistent rows do no harm to min-norm)
  int rc = mbd_position_analysis(m, d, tol, max_iter, err);
  if (rc < 0) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
    return MBD_FAIL(err, MBD_E_ASSEMBLY, MSG_KIN_ASSEMBLY, m->name, msg);
  }
  // how far assembly moved the given poses (reported by m:info, not a warning: rough poses are
  // a normal way to describe a mechanism)
  m->moved = 0;
  m->moved_body = -1;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    for (int c = 0; c < bl->nq; c++) {
      double dq = fabs(d->q[bl->qadr + c] - m->body[b].q0[c]);
      if (dq > m->moved) {
        m->moved = dq;
        m->moved_body = b;
      }
    }
  }
  // the given velocities at the assembled pose (spatial: ṗ from the global ω)
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    mbd_body_kind_get(m->body[b].kind)->velocity0(&m->body[b], d->q + bl->qadr, d->v + bl->vadr);
  }
  // the rank test on Φq at the assembled pose (the last Newton evaluation)
  rc = rank_test(m, d, err);
  if (rc < 0) {
    return rc;
  }
  d->ma = m->ma0;
  memcpy(d->active, m->active0, (size_t)m->ma0 * sizeof(int));
  // velocity analysis on the independent rows
  rc = mbd_kin_update(m, d, 0, err);
  if (rc < 0) {
    return rc;
  }
  rc = mbd_velocity_analysis(m, d, err);
  if (rc < 0) {
    return rc;
  }
  memcpy(m->q_asm, d->q, (size_t)m->nq * sizeof(double));
  memcpy(m->v_asm, d->v, (size_t)m->nv * sizeof(double));
  memcpy(m->memo_asm, d->angle_memo, (size_t)m->njoint * sizeof(double));
  return mbd_channels_build(m, err);
}

int mbd_model_assemble(mbd_model *m, const mbd_assembly_opts *opts, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "assembling it again", err);
  if (busy) {
    return busy;
  }
  mbd_model_unassemble(m);
  double tol = opts && opts->position_tol > 0 ? opts->position_tol : 1e-10;
  int max_iter = opts && opts->max_iter > 0 ? opts->max_iter : 50;
  m->assembly_tol = tol;
  if (m->nbody < 2) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_NO_BODIES, m->name);
  }
  int rc = number(m, err);
  mbd_data *d = rc == MBD_OK ? mbd_data_alloc(m, err) : NULL;
  if (!d) {
    mbd_model_unassemble(m);
    return rc < 0 ? rc : MBD_E_NOMEM;
  }
  rc = assemble(m, d, tol, max_iter, err);
  mbd_data_free(d);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  m->assembled = 1;
  return MBD_OK;
}
