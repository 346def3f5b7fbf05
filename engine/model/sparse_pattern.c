/* the pattern of the sparse constraint Jacobian and of the block-diagonal mass matrix, fixed from
 * the model's numbering (model_impl.h, mbd_sparse).
 *
 * Each joint, drive, contact or frictional-joint row is a local row over the pose coordinates of
 * its two bodies, scattered into the velocity columns of their blocks (kinematics/constraints.c):
 * a rigid or flexible body's pose is the head of its own block (ny columns from its vadr), a node
 * of a flexible body reaches the whole block of its owner through its pose Jacobian.  A norm row
 * has the four columns of its body's Euler parameters.  A row's entries are its sides' column
 * ranges in increasing order (one range when both sides share a block). */
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "model_msg.h"

int mbd_sparse_applies(const mbd_model *m) {
  if (m->tree || m->eqs) {
    return 0;  // joint coordinates: a body's pose depends on every coordinate of its path
  }
  for (int r = 0; r < m->mrow; r++) {
    if (m->row[r].owner == MBD_ROW_TREE) {
      return 0;
    }
  }
  return m->nv > 0;
}

/* the velocity columns a row side on body b reaches: first column and count (0 for the ground) */
static void body_cols(const mbd_model *m, int b, int *c0, int *nc) {
  *c0 = -1;
  *nc = 0;
  if (b <= 0) {
    return;
  }
  const mbd_body *bd = &m->body[b];
  const mbd_body_kind_desc *k = mbd_body_kind_get(bd->kind);
  if (k->pose_model) {
    // a node: the whole block of its flexible body
    const mbd_block *bl = &m->block[m->body[bd->flex->body].block];
    *c0 = bl->vadr;
    *nc = bl->nv;
    return;
  }
  if (bd->block < 0) {
    return;
  }
  *c0 = m->block[bd->block].vadr;
  *nc = k->ny;
}

/* the two bodies of row r (−1: a norm row, whose body is *b1) */
static void row_bodies(const mbd_model *m, int r, int *b1, int *b2) {
  const mbd_rowinfo *ri = &m->row[r];
  *b1 = *b2 = 0;
  switch (ri->owner) {
    case MBD_ROW_JOINT:
      *b1 = m->joint[ri->index].body1;
      *b2 = m->joint[ri->index].body2;
      return;
    case MBD_ROW_DRIVE: {
      const mbd_joint *j = &m->joint[m->drive[ri->index].joint];
      *b1 = j->body1;
      *b2 = j->body2;
      return;
    }
    case MBD_ROW_CONTACT:
      *b1 = m->contact[ri->index].b1;
      *b2 = m->contact[ri->index].b2;
      return;
    case MBD_ROW_JFRIC: {
      const mbd_joint *j = &m->joint[m->jfric[ri->index].joint];
      *b1 = j->body1;
      *b2 = j->body2;
      return;
    }
    default:
      *b1 = ri->index;
      *b2 = -1;
      return;
  }
}

/* the columns of row r: up to two ranges (start, count, side) in increasing order */
static int row_ranges(const mbd_model *m, int r, int c0[2], int nc[2], int side[2]) {
  int b1 = 0, b2 = 0;
  row_bodies(m, r, &b1, &b2);
  if (b2 < 0) {
    // Euler-parameter norm: the four columns after the body's position
    c0[0] = m->block[m->body[b1].block].vadr + 3;
    nc[0] = 4;
    side[0] = 0;
    return 1;
  }
  int a0, an, e0, en, k = 0;
  body_cols(m, b1, &a0, &an);
  body_cols(m, b2, &e0, &en);
  if (an > 0) {
    c0[k] = a0, nc[k] = an, side[k++] = 0;
  }
  if (en > 0 && an > 0 && e0 == a0) {
    nc[0] = en > an ? en : an;  // one block for both sides (a flexible body and its node)
  } else if (en > 0) {
    c0[k] = e0, nc[k] = en, side[k++] = 1;
  }
  if (k == 2 && c0[1] < c0[0]) {
    int t = c0[0];
    c0[0] = c0[1], c0[1] = t;
    t = nc[0], nc[0] = nc[1], nc[1] = t;
    t = side[0], side[0] = side[1], side[1] = t;
  }
  return k;
}

void mbd_sparse_free(mbd_sparse *sp) {
  if (!sp) {
    return;
  }
  void *ps[] = {sp->rp,      sp->ci,      sp->val,  sp->soff, sp->scol, sp->mi,  sp->mj,
                sp->kact,    sp->kp,      sp->ki,   sp->kx,   sp->kmap_m, sp->kmap_lo,
                sp->kmap_up, sp->jcol,    sp->jp,   sp->ji,   sp->jx,   sp->jmap, sp->jact, sp->jsrc, sp->jip, sp->jie};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_splu_free(sp->klu);
  mbd_splu_free(sp->jlu);
  free(sp);
}

mbd_sparse *mbd_sparse_new(const mbd_model *m, mbd_error *err) {
  mbd_sparse *sp = calloc(1, sizeof *sp);
  size_t mr = (size_t)(m->mrow ? m->mrow : 1);
  if (sp) {
    sp->rp = calloc(mr + 1, sizeof(int));
    sp->soff = calloc(2 * mr, sizeof(int));
    sp->scol = calloc(2 * mr, sizeof(int));
  }
  if (!sp || !sp->rp || !sp->soff || !sp->scol) {
    mbd_sparse_free(sp);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_NOMEM, m->name);
    return NULL;
  }
  // Φq: the rows' ranges, counted, then their columns
  for (int r = 0; r < m->mrow; r++) {
    int c0[2], nc[2], side[2];
    int k = row_ranges(m, r, c0, nc, side);
    sp->soff[2 * r] = sp->soff[2 * r + 1] = -1;
    sp->scol[2 * r] = sp->scol[2 * r + 1] = -1;
    int off = 0;
    for (int i = 0; i < k; i++) {
      sp->soff[2 * r + side[i]] = off;
      sp->scol[2 * r + side[i]] = c0[i];
      off += nc[i];
    }
    // both sides on one block (two nodes of one flexible body): the same entries
    int b1 = 0, b2 = 0;
    row_bodies(m, r, &b1, &b2);
    if (k == 1 && b2 >= 0) {
      int a0, an, e0, en;
      body_cols(m, b1, &a0, &an);
      body_cols(m, b2, &e0, &en);
      if (an > 0 && en > 0) {
        sp->soff[2 * r + 1] = sp->soff[2 * r];
        sp->scol[2 * r + 1] = sp->scol[2 * r];
      }
    }
    sp->rp[r + 1] = sp->rp[r] + off;
  }
  sp->nnz = sp->rp[m->mrow];
  size_t nz = (size_t)(sp->nnz ? sp->nnz : 1);
  sp->ci = calloc(nz, sizeof(int));
  sp->val = calloc(nz, sizeof(double));
  sp->kmap_lo = calloc(nz, sizeof(int));
  sp->kmap_up = calloc(nz, sizeof(int));
  // M: the entries of each block that may be nonzero (a planar rigid body's are its diagonal; a
  // spatial one's the diagonal of its position and the 4×4 of its Euler parameters; a flexible
  // body's block is full)
  int nm = 0;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    if (bd->block < 0 || mbd_body_kind_get(bd->kind)->pose_model) {
      continue;
    }
    int nv = m->block[bd->block].nv;
    nm += bd->kind == MBD_BODY_RIGID2 ? 3 : bd->kind == MBD_BODY_RIGID3 ? 3 + 16 : nv * nv;
  }
  sp->nm = nm;
  sp->mi = calloc((size_t)(nm ? nm : 1), sizeof(int));
  sp->mj = calloc((size_t)(nm ? nm : 1), sizeof(int));
  sp->kmap_m = calloc((size_t)(nm ? nm : 1), sizeof(int));
  sp->knzmax = nm + 2 * sp->nnz;
  sp->kact = calloc(mr, sizeof(int));
  sp->kp = calloc((size_t)m->nv + mr + 1, sizeof(int));
  sp->ki = calloc((size_t)(sp->knzmax ? sp->knzmax : 1), sizeof(int));
  sp->kx = calloc((size_t)(sp->knzmax ? sp->knzmax : 1), sizeof(double));
  sp->klu = mbd_splu_new();
  sp->jcol = calloc((size_t)(m->nv ? m->nv : 1), sizeof(int));
  sp->jp = calloc(mr + 1, sizeof(int));
  sp->ji = calloc(nz, sizeof(int));
  sp->jx = calloc(nz, sizeof(double));
  sp->jmap = calloc(nz, sizeof(int));
  sp->jsrc = calloc(nz, sizeof(int));
  sp->jip = calloc(mr + 1, sizeof(int));
  sp->jie = calloc(nz, sizeof(int));
  sp->jact = calloc(mr, sizeof(int));
  sp->jlu = mbd_splu_new();
  if (!sp->klu || !sp->jcol || !sp->jp || !sp->ji || !sp->jx || !sp->jmap || !sp->jsrc || !sp->jip || !sp->jie || !sp->jact ||
      !sp->jlu || !sp->ci || !sp->val || !sp->kmap_lo || !sp->kmap_up || !sp->mi || !sp->mj || !sp->kmap_m ||
      !sp->kact || !sp->kp || !sp->ki || !sp->kx) {
    mbd_sparse_free(sp);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_SIZE_NOMEM, m->name, m->nv, m->mrow);
    return NULL;
  }
  for (int r = 0; r < m->mrow; r++) {
    int c0[2], nc[2], side[2];
    int k = row_ranges(m, r, c0, nc, side), e = sp->rp[r];
    for (int i = 0; i < k; i++) {
      for (int c = 0; c < nc[i]; c++) {
        sp->ci[e++] = c0[i] + c;
      }
    }
  }
  nm = 0;
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    if (bd->block < 0 || mbd_body_kind_get(bd->kind)->pose_model) {
      continue;
    }
    int a = m->block[bd->block].vadr, nv = m->block[bd->block].nv;
    for (int j = 0; j < nv; j++) {
      for (int i = 0; i < nv; i++) {
        int keep = bd->kind == MBD_BODY_RIGID2   ? i == j
                   : bd->kind == MBD_BODY_RIGID3 ? (i == j || (i >= 3 && j >= 3))
                                                 : 1;
        if (keep) {
          sp->mi[nm] = a + i;
          sp->mj[nm++] = a + j;
        }
      }
    }
  }
  sp->kma = -1;
  sp->jma = -1;
  sp->jpid = -1;
  return sp;
}
