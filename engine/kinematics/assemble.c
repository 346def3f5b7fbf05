/* assembly: coordinate blocks and constraint rows numbered, the initial position and velocity
 * analyses, and the rank test of Φq that sets aside (and names) redundant rows.  After it the
 * model holds the assembled initial state and is read only for every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../contact/contact_impl.h"
#include "kinematics.h"
#include "kinematics_msg.h"

/* rank test: rows taken in declaration order, a row is kept when it is independent of the rows
 * kept before it (modified Gram–Schmidt with relative tolerance 1e-9), so a redundant loop-closing
 * joint declared last is the one named.
 *
 * Each vector keeps the range of columns [lo, hi) outside which it is zero: a row touches the
 * columns of its two bodies, and a basis vector those of the rows it was made from.  A projection
 * on a basis vector whose range misses the current vector's is skipped (its coefficient is an
 * exact zero: the dense sum adds only products with a zero factor) and the others run over the
 * ranges only — the same operations on the same nonzero entries in the same order as over whole
 * rows, so the same result, in O(m·n) for a chain declared link by link instead of O(m²·n). */
/* entry e of the sparse pattern (row i, column c): from the sparse form while it is on, else
 * from the dense Φq (the same value either way) */
static double phiq_at(const mbd_model *m, const mbd_data *d, int i, int e) {
  return mbd_sparse_on(d) ? d->sp->val[e] : MBD_AT(d->phiq, m->mrow, i, d->sp->ci[e]);
}

/* A bound that settles the common case without the basis (an open chain of thousands of links
 * would need rows × coordinates of it).  For any set P of columns, the distance of row i from the
 * span of the rows before it is at least the distance of its restriction to P from the span of
 * their restrictions — and a row that touches no column of P restricts to zero.  P is the row's
 * own columns and those of the rows before it that share one (a chain: the neighbouring links;
 * a norm row declared after the joints reaches past the joints at its body), leaving out any
 * column touched by more than RANK_LOCAL rows before it; the rows before i that touch P,
 * restricted and orthogonalized (a direction that round-off adds only enlarges the span: the
 * bound stays a lower bound), leave the residual whose norm bounds n1.  When every row's bound
 * exceeds RANK_LOCAL_REL of its norm — a thousand times the test's 1e-9 — the Gram–Schmidt test
 * keeps every row: the same outcome, decided without it.  Otherwise (a closed loop, a redundant
 * row, a near-singular start, a zero row) 0, and the test runs. */
#define RANK_LOCAL 8
#define RANK_LOCAL_REL 1e-6
#define RANK_LOCAL_COLS 32
#define RANK_LOCAL_ROWS 64

/* adds the rows before the current one that touch column c (once each); 0 when full */
static int add_rows(const int *cnt, const int *list, int c, int *rows, int *nr) {
  for (int l = 0; l < cnt[c]; l++) {
    int r = list[(size_t)c * RANK_LOCAL + l], seen = 0;
    for (int u = 0; u < *nr && !seen; u++) {
      seen = rows[u] == r;
    }
    if (!seen && *nr == RANK_LOCAL_ROWS) {
      return 0;
    }
    if (!seen) {
      rows[(*nr)++] = r;
    }
  }
  return 1;
}

/* adds column c to P (once, when its rows are all listed); 0 when full */
static int add_col(const int *cnt, int *pos, int *pc, int *np, int c) {
  if (pos[c] >= 0 || cnt[c] > RANK_LOCAL) {
    return 1;
  }
  if (*np == RANK_LOCAL_COLS) {
    return 0;
  }
  pos[c] = *np;
  pc[(*np)++] = c;
  return 1;
}

static int rank_local(const mbd_model *m, const mbd_data *d, int *all_kept) {
  int n = m->nv, mrow = m->mrow;
  const mbd_sparse *sp = d->sp;
  *all_kept = 0;
  int *cnt = calloc((size_t)(n ? n : 1), sizeof(int));
  int *pos = malloc((size_t)(n ? n : 1) * sizeof(int));
  int *list = calloc((size_t)(n ? n : 1) * RANK_LOCAL, sizeof(int));
  if (!cnt || !pos || !list) {
    free(cnt);
    free(pos);
    free(list);
    return MBD_E_NOMEM;
  }
  for (int c = 0; c < n; c++) {
    pos[c] = -1;
  }
  int ok = 1;
  for (int i = 0; i < mrow && ok; i++) {
    // P: the row's columns, then those of the rows before it that share one
    int pc[RANK_LOCAL_COLS], np = 0, near[RANK_LOCAL_ROWS], nn = 0;
    double n0 = 0;
    for (int e = sp->rp[i]; e < sp->rp[i + 1]; e++) {
      double a = phiq_at(m, d, i, e);
      n0 += a * a;
      ok = ok && add_col(cnt, pos, pc, &np, sp->ci[e]);
    }
    n0 = sqrt(n0);
    for (int k = 0, np1 = np; ok && k < np1; k++) {
      ok = add_rows(cnt, list, pc[k], near, &nn);
    }
    for (int u = 0; ok && u < nn; u++) {
      for (int e = sp->rp[near[u]]; ok && e < sp->rp[near[u] + 1]; e++) {
        ok = add_col(cnt, pos, pc, &np, sp->ci[e]);
      }
    }
    // the rows before i that touch P
    int rows[RANK_LOCAL_ROWS], nr = 0;
    for (int k = 0; ok && k < np; k++) {
      ok = add_rows(cnt, list, pc[k], rows, &nr);
    }
    // their restrictions to P orthonormalized (modified Gram–Schmidt), then row i's residual
    static const double zero[RANK_LOCAL_COLS];
    double B[RANK_LOCAL_ROWS][RANK_LOCAL_COLS], v[RANK_LOCAL_COLS];
    int nb = 0;
    for (int u = 0; ok && u <= nr; u++) {
      double *w = u < nr ? B[nb] : v;
      int r = u < nr ? rows[u] : i;
      memcpy(w, zero, sizeof zero);
      for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
        if (pos[sp->ci[e]] >= 0) {
          w[pos[sp->ci[e]]] = phiq_at(m, d, r, e);
        }
      }
      for (int b = 0; b < nb; b++) {
        double p = 0;
        for (int k = 0; k < np; k++) {
          p += B[b][k] * w[k];
        }
        for (int k = 0; k < np; k++) {
          w[k] -= p * B[b][k];
        }
      }
      double nw = 0;
      for (int k = 0; k < np; k++) {
        nw += w[k] * w[k];
      }
      nw = sqrt(nw);
      if (u == nr) {
        ok = n0 > 0 && nw > RANK_LOCAL_REL * n0;
      } else if (nw > 0) {
        for (int k = 0; k < np; k++) {
          w[k] /= nw;
        }
        nb++;
      }
    }
    for (int k = 0; k < np; k++) {
      pos[pc[k]] = -1;
    }
    for (int e = sp->rp[i]; ok && e < sp->rp[i + 1]; e++) {
      int c = sp->ci[e];
      if (cnt[c] < RANK_LOCAL) {
        list[(size_t)c * RANK_LOCAL + cnt[c]] = i;
      }
      cnt[c]++;
    }
  }
  free(cnt);
  free(pos);
  free(list);
  *all_kept = ok;
  return MBD_OK;
}

static int rank_test(mbd_model *m, const mbd_data *d, int warn, mbd_error *err) {
  int n = m->nv, mrow = m->mrow;
  if (d->sp && mrow > 0) {
    int kept = 0;
    if (rank_local(m, d, &kept) != MBD_OK) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "rank test");
    }
    if (kept) {
      m->ma0 = mrow;
      for (int i = 0; i < mrow; i++) {
        m->active0[i] = i;
      }
      m->rank = mrow;
      return MBD_OK;
    }
  }
  double *basis = calloc((size_t)(mrow ? mrow : 1) * (n ? n : 1), sizeof(double));
  int *lo = calloc((size_t)(mrow ? mrow : 1), sizeof(int));
  int *hi = calloc((size_t)(mrow ? mrow : 1), sizeof(int));
  if (!basis || !lo || !hi) {
    free(basis);
    free(lo);
    free(hi);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "rank test");
  }
  int r = 0, dlo = 0, dhi = 0;  // dlo..dhi: what a rejected row left in the next slot
  m->ma0 = 0;
  for (int i = 0; i < mrow; i++) {
    // an interrupt is heard every 64 rows (the rank test of a large model can take seconds)
    if (d->poll && i % 64 == 63) {
      int rc = d->poll(d->poll_ud, d->t, err);
      if (rc < 0) {
        free(basis);
        free(lo);
        free(hi);
        return rc;
      }
    }
    double *v = basis + (size_t)r * n;
    for (int c = dlo; c < dhi; c++) {
      v[c] = 0;
    }
    // the row and its range (the sparse pattern names its columns; else all are looked at)
    int vlo = n, vhi = 0;
    if (d->sp) {
      for (int e = d->sp->rp[i]; e < d->sp->rp[i + 1]; e++) {
        int c = d->sp->ci[e];
        v[c] = phiq_at(m, d, i, e);
        vlo = c < vlo ? c : vlo;
        vhi = c + 1 > vhi ? c + 1 : vhi;
      }
    } else {
      for (int c = 0; c < n; c++) {
        v[c] = MBD_AT(d->phiq, mrow, i, c);
        if (v[c] != 0) {
          vlo = c < vlo ? c : vlo;
          vhi = c + 1;
        }
      }
    }
    double n0 = 0;
    for (int c = vlo; c < vhi; c++) {
      n0 += v[c] * v[c];
    }
    n0 = sqrt(n0);
    for (int k = 0; k < r; k++) {
      int a = lo[k] > vlo ? lo[k] : vlo, z = hi[k] < vhi ? hi[k] : vhi;
      if (a >= z) {
        continue;
      }
      const double *b = basis + (size_t)k * n;
      double p = 0;
      for (int c = a; c < z; c++) {
        p += b[c] * v[c];
      }
      for (int c = lo[k]; c < hi[k]; c++) {
        v[c] -= p * b[c];
      }
      vlo = lo[k] < vlo ? lo[k] : vlo;
      vhi = hi[k] > vhi ? hi[k] : vhi;
    }
    double n1 = 0;
    for (int c = vlo; c < vhi; c++) {
      n1 += v[c] * v[c];
    }
    n1 = sqrt(n1);
    dlo = dhi = 0;
    if (n0 == 0 && (m->row[i].owner == MBD_ROW_CONTACT || m->row[i].owner == MBD_ROW_JFRIC)) {
      dlo = vlo, dhi = vhi;
      continue;  // a contact row its mode disables (a zero row): not a constraint now
    }
    if (n0 > 0 && n1 > 1e-9 * n0) {
      for (int c = vlo; c < vhi; c++) {
        v[c] /= n1;
      }
      lo[r] = vlo;
      hi[r] = vhi;
      m->active0[m->ma0++] = i;
      r++;
    } else {
      dlo = vlo, dhi = vhi;
      if (warn) {
        char row[160];
        mbd_model_row_name(m, i, row, sizeof row);
        mbd_model_warn(m, MSG_KIN_REDUNDANT, row);
      }
    }
  }
  free(basis);
  free(lo);
  free(hi);
  m->rank = r;
  return MBD_OK;
}

/* the rows that are constraints at the assembled pose (a contact row its mode disables is zero) */
static int mrow_nonzero(const mbd_model *m, const mbd_data *d) {
  int k = 0;
  for (int i = 0; i < m->mrow; i++) {
    int zero = 1;
    for (int e = mbd_sparse_on(d) ? d->sp->rp[i] : 0; mbd_sparse_on(d) && e < d->sp->rp[i + 1];
         e++) {
      zero = zero && d->sp->val[e] == 0;
    }
    for (int c = 0; !mbd_sparse_on(d) && c < m->nv && zero; c++) {
      zero = MBD_AT(d->phiq, m->mrow, i, c) == 0;
    }
    k += !zero || (m->row[i].owner != MBD_ROW_CONTACT && m->row[i].owner != MBD_ROW_JFRIC);
  }
  return k;
}

/* rows found dependent at the assembled pose: redundant, or a singular configuration the
 * mechanism starts in?  A redundant row stays dependent all along the constraint manifold; at a
 * singular configuration the rank comes back on leaving it.  The rank is tested again a step
 * ε = 1e-6 (relative to the coordinates' size) along the given motion — the given velocities
 * made consistent with every row, a first-order move off the manifold: there a redundant row's
 * residue in the Gram–Schmidt test is O(ε²) = 1e-12 of its norm and a singular configuration's
 * O(ε) = 1e-6, both three orders from the test's 1e-9.  1 when it is a singular configuration
 * (every row kept), 0 when redundant or when it cannot be told (drives, contacts, no motion).
 * At rest, a generic admissible motion stands in for the given one (below). */
static int starts_singular(mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv, mrow = m->mrow, rank = m->ma0;
  if (m->ndrive > 0 || m->ncontact > 0 || m->njfric > 0 || mrow == 0) {
    return 0;
  }
  int rc = mbd_data_dense(m, d, err);
  if (rc < 0) {
    return rc;
  }
  mbd_sparse_set(m, d, 0);  // (the dense Φq from here on)
  // the given velocities made consistent: v − Φq⁺(Φq v) (every row; scleronomic)
  for (int i = 0; i < mrow; i++) {
    double s = 0;
    for (int c = 0; c < n; c++) {
      s += MBD_AT(d->phiq, mrow, i, c) * d->v[c];
    }
    d->tmp_m[i] = s;
  }
  rc = mbd_lsq_solve(&d->lsq, mrow, n, d->phiq, mrow, d->tmp_m, d->tmp_n, 1e-12, NULL);
  if (rc != MBD_OK) {
    return 0;
  }
  double vmax = 0, qmax = 1;
  for (int c = 0; c < n; c++) {
    d->tmp_n[c] = d->v[c] - d->tmp_n[c];
    vmax = fmax(vmax, fabs(d->tmp_n[c]));
  }
  for (int i = 0; i < m->nq; i++) {
    qmax = fmax(qmax, fabs(d->q[i]));
  }
  if (!(vmax > 0)) {
    // at rest: leave along a generic first-order motion instead, a fixed spread of weights
    // (w_c = sin(1 + 2.39996 c): no two alike, none zero) made consistent with every row.  A
    // redundant row stays dependent along every such motion; at a singular configuration the
    // motions that restore the rank fill all but a lower-dimensional set of them, which a fixed
    // generic w misses unless the model is built to hit it (the weights name no axis or unit)
    for (int i = 0; i < mrow; i++) {
      double s = 0;
      for (int c = 0; c < n; c++) {
        s += MBD_AT(d->phiq, mrow, i, c) * sin(1 + 2.39996 * c);
      }
      d->tmp_m[i] = s;
    }
    rc = mbd_lsq_solve(&d->lsq, mrow, n, d->phiq, mrow, d->tmp_m, d->tmp_n, 1e-12, NULL);
    if (rc != MBD_OK) {
      return 0;
    }
    for (int c = 0; c < n; c++) {
      d->tmp_n[c] = sin(1 + 2.39996 * c) - d->tmp_n[c];
      vmax = fmax(vmax, fabs(d->tmp_n[c]));
    }
    if (!(vmax > 1e-9)) {
      return 0;  // no first-order motion at all: nothing to leave the configuration along
    }
  }
  double *q0 = d->vdot;  // (free at assembly)
  memcpy(q0, d->q, (size_t)m->nq * sizeof(double));
  for (int c = 0; c < n; c++) {
    d->tmp_n[c] *= 1e-6 * qmax / vmax;
  }
  mbd_kin_move(m, d->q, d->tmp_n);
  mbd_stage_touch(d, MBD_STAGE_NONE);
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc == MBD_OK) {
    rc = rank_test(m, d, 0, err);
  }
  int moved_rank = m->ma0;
  memcpy(d->q, q0, (size_t)m->nq * sizeof(double));
  mbd_stage_touch(d, MBD_STAGE_NONE);
  int rc2 = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc < 0 || rc2 < 0) {
    return rc < 0 ? rc : rc2;
  }
  m->ma0 = rank;
  return moved_rank > rank;
}

/* the initial velocity analysis, keeping the velocities the user gave (below) */
static int velocity_keep_given(mbd_model *m, mbd_data *d, mbd_error *err);

/* blocks: one per moving body, in body order, then the contacts' surface parameters; rows:
 * joints, drives, contacts, then the blocks' normalization rows */
static int number(mbd_model *m, mbd_error *err) {
  m->nblock = m->nbody - 1;
  m->block = calloc((size_t)(m->nblock + m->ncontact), sizeof *m->block);
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
    bl->nq = k->nq + m->body[b].nmode;  // a flexible body's modal coordinates follow its pose
    bl->vadr = m->nv;
    bl->nv = k->nv + m->body[b].nmode;
    m->nq += bl->nq;
    m->nv += bl->nv;
    m->body[b].block = b - 1;
    nnorm += k->nnorm;
  }
  m->nqi = m->nq;
  mbd_contact_blocks(m);
  int rows = 0, dx = MBD_DIMX(m);
  for (int j = 0; j < m->njoint; j++) {
    m->joint[j].row0 = rows;
    m->joint[j].nrow = mbd_joint_type_get(m->joint[j].type)->nrow[dx];
    rows += m->joint[j].nrow;
  }
  m->mrow = rows + m->ndrive + mbd_contact_nrows(m) + nnorm;
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
  rows = mbd_contact_number_rows(m, rows);
  for (int b = 1; b < m->nbody; b++) {
    for (int k = 0; k < mbd_body_kind_get(m->body[b].kind)->nnorm; k++) {
      m->row[rows++] = (mbd_rowinfo){MBD_ROW_BODY, b, k, MBD_ROW_POSITION};
    }
  }
  return MBD_OK;
}

/* how far assembly moved each body from the pose it was given: the largest distance of a centre
 * of mass and the largest turn (planar: the angle's change; spatial: the rotation between the two
 * orientations, 2 acos |p·p0|), and the model's size (the largest position, given or assembled,
 * or joint point; at least 1 mm) that makes a distance small or not.  The runs warn when a body
 * moved more than 1e-6 of the size or turned more than 1e-6 rad (sim/simulate.c). */
static void moved_poses(mbd_model *m, const mbd_data *d) {
  m->moved_dist = m->moved_angle = 0;
  m->moved_dist_body = m->moved_angle_body = -1;
  double size = 1e-3;
  int dim = m->dim == 3 ? 3 : 2;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    const double *q = d->q + bl->qadr, *q0 = m->body[b].q0;
    int nq = bl->nq - m->body[b].nmode;
    if (nq < dim) {
      continue;
    }
    double dist = 0, r = 0, r0 = 0;
    for (int c = 0; c < dim; c++) {
      dist += (q[c] - q0[c]) * (q[c] - q0[c]);
      r += q[c] * q[c];
      r0 += q0[c] * q0[c];
    }
    dist = sqrt(dist);
    size = fmax(size, fmax(sqrt(r), sqrt(r0)));
    double turn = 0;
    if (dim == 2 && nq >= 3) {
      turn = fabs(q[2] - q0[2]);
    } else if (dim == 3 && nq >= 7) {
      double dot = 0, n0 = 0, n1 = 0;
      for (int c = 3; c < 7; c++) {
        dot += q[c] * q0[c];
        n0 += q0[c] * q0[c];
        n1 += q[c] * q[c];
      }
      double cosh = n0 > 0 && n1 > 0 ? fabs(dot) / sqrt(n0 * n1) : 1;
      turn = 2 * acos(fmin(1.0, cosh));
    }
    if (dist > m->moved_dist) {
      m->moved_dist = dist;
      m->moved_dist_body = b;
    }
    if (turn > m->moved_angle) {
      m->moved_angle = turn;
      m->moved_angle_body = b;
    }
  }
  for (int j = 0; j < m->njoint; j++) {
    const double *a = m->joint[j].at1, *b = m->joint[j].at2;
    size = fmax(size, sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
    size = fmax(size, sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
  }
  m->size = size;
}

static int assemble(mbd_model *m, mbd_data *d, double tol, int max_iter, mbd_error *err) {
  // the poses the user gave, all rows active, angle memos at zero
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    memcpy(d->q + bl->qadr, m->body[b].q0, (size_t)(bl->nq - m->body[b].nmode) * sizeof(double));
    if (m->body[b].nmode) {
      mbd_flex_q0(&m->body[b], d->q + bl->qadr);
    }
  }
  d->t = 0;
  d->ma = m->mrow;
  for (int i = 0; i < m->mrow; i++) {
    d->active[i] = i;
  }
  mbd_stage_touch(d, MBD_STAGE_NONE);
  // a large model keeps Φq sparse through the assembly: its dense arrays (rows × coordinates)
  // are written only where a step needs them
  mbd_sparse_set(m, d, mbd_kin_sparse_assembly(m, d));
  // contacts: their points guessed; closed and sliding while the poses are assembled, but for
  // those with a restitution that start apart
  if (m->ncontact > 0) {
    mbd_kin_poses(m, d);
    mbd_contact_guess(m, d);
    mbd_contact_activate(m, d);
    int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc < 0) {
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
      return MBD_FAIL(err, MBD_E_ASSEMBLY, MSG_KIN_ASSEMBLY, m->name, msg);
    }
    mbd_contact_open0(m, d);
    mbd_contact_activate(m, d);
    // a contact without restitution whose surfaces start apart would be closed by the position
    // analysis: the bodies moved onto each other at t = 0 (a disk 0.8 m above its floor
    // teleported onto it).  Refused, naming the gap, beyond 1e-6 of the model's size (the
    // assembly's own scale of a move worth reporting)
    double size = 1e-3;
    for (int b = 1; b < m->nbody; b++) {
      const double *r = m->body[b].q0;
      size = fmax(size, sqrt(r[0] * r[0] + r[1] * r[1] + (m->dim == 3 ? r[2] * r[2] : 0)));
    }
    for (int c = 0; c < m->ncontact; c++) {
      if (!m->contact[c].has_e && d->cstate[c].gap > 1e-6 * size) {
        return MBD_FAIL(err, MBD_E_ASSEMBLY, MSG_KIN_CONTACT_APART, m->contact[c].name,
                        d->cstate[c].gap);
      }
    }
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
    for (int c = 0; c < bl->nq - m->body[b].nmode; c++) {
      double dq = fabs(d->q[bl->qadr + c] - m->body[b].q0[c]);
      if (dq > m->moved) {
        m->moved = dq;
        m->moved_body = b;
      }
    }
  }
  moved_poses(m, d);
  // the given velocities at the assembled pose (spatial: ṗ from the global ω)
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = &m->block[m->body[b].block];
    mbd_body_kind_get(m->body[b].kind)->velocity0(&m->body[b], d->q + bl->qadr, d->v + bl->vadr);
  }
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  // contacts: each one's first mode from its slip speed (rolling rows enabled when it sticks)
  if (m->ncontact > 0 || m->njfric > 0) {
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc == MBD_OK) {
      rc = mbd_contact_check_ranges(m, d, err);
    }
    if (rc < 0) {
      return rc;
    }
    mbd_contact_modes0(m, d);
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc < 0) {
      return rc;
    }
  }
  // the rank test on Φq at the assembled pose (the last Newton evaluation); rows dependent only
  // there (a singular configuration to start from) are all kept
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc == MBD_OK) {
    rc = rank_test(m, d, 0, err);
  }
  int singular = 0;
  if (rc == MBD_OK && m->rank < mrow_nonzero(m, d)) {
    singular = starts_singular(m, d, err);
    rc = singular < 0 ? singular : MBD_OK;
  }
  if (rc == MBD_OK) {
    rc = rank_test(m, d, !singular, err);
  }
  if (rc < 0) {
    return rc;
  }
  if (singular) {
    m->ma0 = m->mrow;
    for (int i = 0; i < m->mrow; i++) {
      m->active0[i] = i;
    }
    mbd_model_warn(m, MSG_KIN_SINGULAR_START, m->rank, m->mrow);
  }
  d->ma = m->ma0;
  memcpy(d->active, m->active0, (size_t)m->ma0 * sizeof(int));
  mbd_stage_touch(d, MBD_STAGE_NONE);
  // velocity analysis on the independent rows
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc < 0) {
    return rc;
  }
  rc = velocity_keep_given(m, d, err);
  if (rc < 0) {
    return rc;
  }
  memcpy(m->q_asm, d->q, (size_t)m->nq * sizeof(double));
  memcpy(m->v_asm, d->v, (size_t)m->nv * sizeof(double));
  memcpy(m->memo_asm, d->angle_memo, (size_t)m->njoint * sizeof(double));
  // the drives' values the assembled state rests on (every drive row was evaluated at t = 0)
  m->drive0 = calloc(3 * (size_t)m->ndrive + 1, sizeof(double));
  if (!m->drive0) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "assembly");
  }
  memcpy(m->drive0, d->drive_f, 3 * (size_t)m->ndrive * sizeof(double));
  return mbd_channels_build(m, err);
}

/* body b's own block, or NULL for a flexible body's node (its owner's block holds it) */
static const mbd_block *own_block(const mbd_model *m, int b) {
  int kind = m->body[b].kind;
  return kind == MBD_BODY_NODE2 || kind == MBD_BODY_NODE3 ? NULL : &m->block[m->body[b].block];
}

/* whether the user gave velocity component c of body b's block (vel: the position components,
 * omega: the rest) */
static int velocity_given(const mbd_model *m, int b, int c) {
  int npos = mbd_body_kind_get(m->body[b].kind)->npos;
  return c < npos ? (m->body[b].vgiven & 1) : (m->body[b].vgiven & 2);
}

/* the initial velocity analysis (constraints evaluated and gathered): the velocities the user
 * gave (vel, omega) stay as given when the joints allow it, the others (estimates) take the
 * minimum-norm correction; when the given ones must change too (they contradict the joints), the
 * minimum-norm correction of all, and the largest change to a given velocity is kept in
 * m->vmoved with a warning.  A spinning top given ω and no vel: only its CM velocity follows from
 * the tip joint, the precession the user set up is kept. */
static int velocity_keep_given(mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->nv, ma = d->ma;
  m->vmoved = 0;
  m->vmoved_body = -1;
  // the free columns: velocity components of bodies the user did not give
  int nfree = 0, *col = d->iwork;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = own_block(m, b);
    for (int c = 0; bl && c < bl->nv; c++) {
      int given = velocity_given(m, b, c);
      if (!given) {
        col[nfree++] = bl->vadr + c;
      }
    }
  }
  // the residual r = −(Φq v + Φt) and its size
  double rmax = 0;
  for (int k = 0; k < ma; k++) {
    double s = d->phit_a[k];
    if (mbd_sparse_on(d)) {
      s += mbd_sparse_row_dot(d, d->active[k], d->v);
    }
    for (int c = 0; !mbd_sparse_on(d) && c < n; c++) {
      s += MBD_AT(d->phiq_a, ma, k, c) * d->v[c];
    }
    d->tmp_m[k] = -s;
    rmax = fmax(rmax, fabs(s));
  }
  if (nfree < n && ma > 0 && rmax > 0) {
    int drc = mbd_data_dense(m, d, err);
    if (drc < 0) {
      return drc;
    }
    mbd_sparse_set(m, d, 0);  // (the dense Φq from here on)
    // least squares on the free columns only: Φq_free Δv_free = r
    for (int j = 0; j < nfree; j++) {
      for (int k = 0; k < ma; k++) {
        MBD_AT(d->aug, ma, k, j) = MBD_AT(d->phiq_a, ma, k, col[j]);
      }
    }
    int rc = nfree > 0
                 ? mbd_lsq_solve(&d->lsq, ma, nfree, d->aug, ma, d->tmp_m, d->tmp_n, 1e-12, NULL)
                 : MBD_OK;
    if (rc) {
      return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD,
                      "velocity analysis", d->t);
    }
    // does it satisfy the velocity constraints?  (to rounding relative to the residual it fixes
    // and to the velocities' scale)
    double vscale = 0, left = 0;
    for (int c = 0; c < n; c++) {
      vscale = fmax(vscale, fabs(d->v[c]));
    }
    for (int k = 0; k < ma; k++) {
      double s = -d->tmp_m[k];
      for (int j = 0; j < nfree; j++) {
        s += MBD_AT(d->phiq_a, ma, k, col[j]) * d->tmp_n[j];
      }
      left = fmax(left, fabs(s));
    }
    if (left <= 1e-10 * fmax(rmax, vscale)) {
      for (int j = 0; j < nfree; j++) {
        d->v[col[j]] += d->tmp_n[j];
      }
      mbd_stage_touch(d, MBD_STAGE_POSITION);
      return MBD_OK;
    }
  }
  // all velocities take the minimum-norm correction; how much a given one changed
  double *v_before = d->vdot;  // free at assembly
  memcpy(v_before, d->v, (size_t)n * sizeof(double));
  int rc = mbd_velocity_analysis(m, d, err);
  if (rc < 0) {
    return rc;
  }
  for (int b = 1; b < m->nbody; b++) {
    const mbd_block *bl = own_block(m, b);
    for (int c = 0; bl && c < bl->nv; c++) {
      int given = velocity_given(m, b, c);
      double dv = fabs(d->v[bl->vadr + c] - v_before[bl->vadr + c]);
      if (given && dv > m->vmoved) {
        m->vmoved = dv;
        m->vmoved_body = b;
      }
    }
  }
  if (m->vmoved_body > 0 && m->vmoved > 1e-9) {
    mbd_model_warn(m, MSG_KIN_VEL_CHANGED, m->vmoved, m->body[m->vmoved_body].name);
  }
  return MBD_OK;
}

int mbd_model_assemble(mbd_model *m, const mbd_assembly_opts *opts, mbd_error *err) {
  return mbd_model_assemble_polled(m, opts, NULL, NULL, err);
}

int mbd_model_assemble_polled(mbd_model *m, const mbd_assembly_opts *opts,
                              int (*poll)(void *ud, double t, mbd_error *err), void *ud,
                              mbd_error *err) {
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
  // (a model assembled in the sparse form: its dense arrays measured only if a step needs them)
  mbd_data *d = rc == MBD_OK ? mbd_data_alloc_sparse(m, err) : NULL;
  if (d && !mbd_kin_sparse_assembly(m, d)) {
    mbd_data_free(d);
    d = mbd_data_alloc(m, err);
  }
  if (!d) {
    mbd_model_unassemble(m);
    return rc < 0 ? rc : MBD_E_NOMEM;
  }
  d->poll = poll;
  d->poll_ud = ud;
  rc = assemble(m, d, tol, max_iter, err);
  mbd_data_free(d);
  if (rc < 0) {
    mbd_model_unassemble(m);
    return rc;
  }
  m->assembled = 1;
  m->nwarning_asm = m->nwarning;
  m->nassembled++;
  return MBD_OK;
}

/* whether m's assembly stands for a run that asks for tolerance tol: assembled since its last
 * change (every builder function unassembles it), to that tolerance, and every drive giving at
 * t = 0 the values assembly took from it — a drive is a script's function, which may return
 * other values without any change to the model */
static int assembly_stands(const mbd_model *m, double tol) {
  if (!m->assembled || m->assembly_tol != tol) {
    return 0;
  }
  for (int di = 0; di < m->ndrive; di++) {
    double f[3] = {0, 0, 0};
    mbd_error e;
    mbd_error_clear(&e);
    if (m->drive[di].fn(m->drive[di].ud, 0, f, &e) < 0 ||
        memcmp(f, m->drive0 + 3 * di, sizeof f) != 0) {
      return 0;
    }
  }
  return 1;
}

int mbd_model_assemble_for_run(mbd_model *m, const mbd_assembly_opts *opts,
                               int (*poll)(void *ud, double t, mbd_error *err), void *ud,
                               mbd_error *err) {
  double tol = opts && opts->position_tol > 0 ? opts->position_tol : 1e-10;
  if (assembly_stands(m, tol)) {
    m->nwarning = m->nwarning_asm;  // (the last run's warnings go; assembly's stay)
    return MBD_OK;
  }
  mbd_model_clear_warnings(m);
  return mbd_model_assemble_polled(m, opts, poll, ud, err);
}

int mbd_kin_rank_test(mbd_model *m, const mbd_data *d, mbd_error *err) {
  return rank_test(m, d, 1, err);
}
