/* the data of a run: state, pose cache, constraint and force arrays, workspaces — all sized
 * once from the model's numbering (the integration loop never allocates) — and the names of
 * coordinates and rows for messages */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "model_msg.h"
#include "tree_impl.h"

void mbd_data_free(mbd_data *d) {
  if (!d) {
    return;
  }
  void *ps[] = {d->q,      d->v,      d->vdot,    d->pose,   d->angle_memo, d->active,
                d->phi,    d->phiq,   d->phit,    d->gamma,  d->lambda,     d->rowJ,
                d->M,      d->Q,      d->phi_a,   d->phiq_a, d->gamma_a,    d->phit_a,
                d->aug,    d->augrhs, d->ipiv,    d->work,   d->iwork,      d->tmp_n,
                d->tmp_m,  d->cstate, d->Q0,     d->evlog,   d->jfstate, d->flexws, d->evwork,
                d->poseJ,  d->trec,   d->pin,    d->Qg,     d->drive_t, d->drive_f, d->grs};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&d->lsq);
  mbd_sparse_free(d->sp);
  free(d);
}

/* bytes of the dense arrays every data holds (Φq and its active copy, M) and of those a model
 * with the sparse form gets on first use (aug, lsq: mbd_data_dense) */
static double core_bytes(const mbd_model *m) {
  double nv = m->nv, mr = m->mrow;
  return 8.0 * (2 * mr * nv + nv * nv);
}

static double dense_ws_bytes(const mbd_model *m) {
  double nv = m->nv, mr = m->mrow, bigger = nv > mr ? nv : mr;
  return 8.0 * ((nv + mr) * (nv + mr) + 3 * bigger * bigger);
}

/* the workspaces that only the dense algebra uses: the augmented matrix and least squares */
static int alloc_dense_ws(const mbd_model *m, mbd_data *d, mbd_error *err) {
  size_t nn = (size_t)(m->nv ? m->nv : 1), mm = (size_t)(m->mrow ? m->mrow : 1), N = nn + mm;
  d->aug = calloc(N * N, sizeof(double));
  d->grs = calloc(mm, sizeof(double));
  int big = (int)(nn > mm ? nn : mm);
  if (!d->aug || !d->grs || mbd_lsq_alloc(&d->lsq, big, big, err) != MBD_OK) {
    free(d->aug);
    d->aug = NULL;
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_SIZE_NOMEM, m->name, m->nv, m->mrow);
  }
  d->dense_ready = 1;
  if (m->tree && m->tree->norms_implicit) {
    // the norm rows' entries, which the rows stage left out until now (tree_impl.h): 2pᵀ at the
    // current q, in Φq and (every row active, in its order) its active copy
    for (int r = 0; r < m->mrow; r++) {
      int a = m->row[r].index;
      for (int k = 0; k < 4; k++) {
        MBD_AT(d->phiq, m->mrow, r, a + k) = 2 * d->q[a + k];
        if (d->ma == m->mrow && !d->phiq_a_mixed) {
          MBD_AT(d->phiq_a, m->mrow, r, a + k) = 2 * d->q[a + k];
        }
      }
    }
  }
  return MBD_OK;
}

int mbd_data_dense(const mbd_model *m, mbd_data *d, mbd_error *err) {
  if (d->dense_ready) {
    return MBD_OK;
  }
  double bytes = core_bytes(m) + dense_ws_bytes(m), limit = mbd_memory_limit();
  if (limit > 0 && bytes > limit) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_DENSE_TOO_LARGE, m->name, m->nv, m->mrow,
                    bytes / 1e9, limit / 1e9);
  }
  return alloc_dense_ws(m, d, err);
}

static mbd_data *alloc_data(const mbd_model *m, int rows_sparse, mbd_error *err);

mbd_data *mbd_data_alloc(const mbd_model *m, mbd_error *err) { return alloc_data(m, 0, err); }

mbd_data *mbd_data_alloc_sparse(const mbd_model *m, mbd_error *err) {
  return alloc_data(m, m->mrow > 0 && mbd_sparse_applies(m), err);
}

static mbd_data *alloc_data(const mbd_model *m, int rows_sparse, mbd_error *err) {
  // the dense workspaces grow with the square of the model's size: a 10 000-body model would
  // ask for tens of GB, which Linux grants lazily and then ends with an out-of-memory kill.  A
  // run holds two data; refuse one above a quarter of the physical memory (or the environment's
  // MBD_MAX_WORKSPACE_GB) with a message.  A model with the sparse form gets the augmented
  // matrix and the least-squares workspace only when a step needs the dense algebra, and so does
  // a tree model of the recursive solve (its rows, if any, dense only with cut joints or drives)
  int lazy = (m->mrow > 0 && mbd_sparse_applies(m)) || (m->tree && m->tree->recursive);
  // (data whose rows stay sparse: Φq, its copy and M are reserved, never written — the pages
  // are not taken — until a dense step, which asks mbd_data_dense and is measured there)
  double bytes = (rows_sparse ? 0 : core_bytes(m)) + (lazy ? 0 : dense_ws_bytes(m));
  double limit = mbd_memory_limit();
  if (limit > 0 && bytes > limit) {
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_TOO_LARGE, m->name, m->nv, m->mrow, bytes / 1e9,
             limit / 1e9);
    return NULL;
  }
  mbd_data *d = calloc(1, sizeof *d);
  if (!d) {
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_NOMEM, m->name);
    return NULL;
  }
  size_t nq = (size_t)(m->nq ? m->nq : 1), nn = (size_t)(m->nv ? m->nv : 1),
         mm = (size_t)(m->mrow ? m->mrow : 1), N = nn + mm;
  d->q = calloc(nq, sizeof(double));
  d->v = calloc(nn, sizeof(double));
  d->vdot = calloc(nn, sizeof(double));
  d->pose = calloc((size_t)m->nbody, sizeof *d->pose);
  d->angle_memo = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(double));
  d->active = calloc(mm, sizeof(int));
  d->phi = calloc(mm, sizeof(double));
  d->phiq = calloc(mm * nn, sizeof(double));
  d->phit = calloc(mm, sizeof(double));
  d->gamma = calloc(mm, sizeof(double));
  d->lambda = calloc(mm, sizeof(double));
  d->rowJ = calloc(mm * MBD_NLOC, sizeof(double));
  d->M = calloc(nn * nn, sizeof(double));
  d->Q = calloc(nn, sizeof(double));
  d->phi_a = calloc(mm, sizeof(double));
  d->phiq_a = calloc(mm * nn, sizeof(double));
  d->gamma_a = calloc(mm, sizeof(double));
  d->phit_a = calloc(mm, sizeof(double));
  d->augrhs = calloc(N, sizeof(double));
  d->ipiv = calloc(N, sizeof(int));
  d->work = calloc(4 * N, sizeof(double));
  d->iwork = calloc(N, sizeof(int));
  d->tmp_n = calloc(nn, sizeof(double));
  d->tmp_m = calloc(N, sizeof(double));
  // contacts: their state, Q without friction
  d->cstate = calloc((size_t)(m->ncontact ? m->ncontact : 1), sizeof *d->cstate);
  d->Q0 = calloc(nn, sizeof(double));
  d->evlog = calloc(m->ncontact + m->njfric ? MBD_EVLOG_MAX : 1, sizeof *d->evlog);
  d->jfstate = calloc((size_t)(m->njfric ? m->njfric : 1), sizeof *d->jfstate);
  d->evwork = calloc(3 * (size_t)(m->ncontact + m->njfric) + 1, sizeof(int));
  d->direct_rows = 1;
  // constant inertia (planar rigid bodies only), drives' last values
  d->Qg = calloc(nn, sizeof(double));
  d->inertia_const = m->nbody > 1;
  for (int b = 1; b < m->nbody; b++) {
    d->inertia_const &= mbd_body_kind_get(m->body[b].kind)->const_inertia;
  }
  d->drive_t = calloc((size_t)(m->ndrive ? m->ndrive : 1), sizeof(double));
  d->drive_f = calloc(3 * (size_t)(m->ndrive ? m->ndrive : 1), sizeof(double));
  for (int k = 0; d->drive_t && k < m->ndrive; k++) {
    d->drive_t[k] = NAN;
  }
  // flexible bodies: their workspace
  d->flexws = calloc(m->flexws ? m->flexws : 1, sizeof(double));
  // a tree model's bodies have pose Jacobians over the tree's velocities (kinematics/tree.c),
  // or for the recursive solve their recursion records (O(nbody), not O(nbody·nv))
  if (m->tree && m->tree->recursive) {
    d->trec = calloc((size_t)m->nbody, sizeof *d->trec);
    if (m->tree->pins) {
      d->pin = calloc((size_t)(m->tree->ntj ? m->tree->ntj : 1), sizeof *d->pin);
    }
    if (!d->trec || (m->tree->pins && !d->pin)) {
      mbd_data_free(d);
      MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_SIZE_NOMEM, m->name, m->nv, m->mrow);
      return NULL;
    }
    // a planar pin's record has F = [1 0 f0; 0 1 f1; 0 0 1], S = (s0, s1, σ), c = (c0, c1, 0):
    // the pose pass writes f, s and c alone (kinematics/tree.c), so the constants go in here
    for (int k = 0; m->dim == 2 && k < m->tree->ntj; k++) {
      const mbd_tree_joint *tj = &m->tree->tj[k];
      if (tj->pin) {
        mbd_tree_rec *R = &d->trec[tj->child];
        R->F[0] = R->F[4] = R->F[8] = 1;
        R->S[2] = tj->sigma;
      }
    }
  } else if (m->tree) {
    d->poseJ = calloc((size_t)m->nbody * MBD_NY_MAX * nn, sizeof(double));
    if (!d->poseJ) {
      mbd_data_free(d);
      MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_SIZE_NOMEM, m->name, m->nv, m->mrow);
      return NULL;
    }
  }
  int ok = d->q && d->v && d->vdot && d->pose && d->angle_memo && d->active && d->phi &&
           d->phiq && d->phit && d->gamma && d->lambda && d->rowJ && d->M && d->Q && d->phi_a &&
           d->phiq_a && d->gamma_a && d->phit_a && d->augrhs && d->ipiv && d->work &&
           d->iwork && d->tmp_n && d->tmp_m;
  ok = ok && d->cstate && d->Q0 && d->evlog && d->jfstate && d->evwork && d->flexws && d->Qg &&
       d->drive_t && d->drive_f;
  // least squares serves Φq (mrow×nv) and its transpose (nv×mrow)
  if (!ok || (!lazy && alloc_dense_ws(m, d, err) != MBD_OK)) {
    mbd_data_free(d);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_DATA_SIZE_NOMEM, m->name, m->nv, m->mrow);
    return NULL;
  }
  // the sparse form of Φq and of the leading matrix, for the formulations that choose it (off
  // until one does)
  if (m->mrow > 0 && mbd_sparse_applies(m)) {
    d->sp = mbd_sparse_new(m, err);
    if (!d->sp) {
      mbd_data_free(d);
      return NULL;
    }
  }
  return d;
}

void mbd_data_reset(const mbd_model *m, mbd_data *d) {
  d->t = 0;
  memcpy(d->q, m->q_asm, (size_t)m->nq * sizeof(double));
  memcpy(d->v, m->v_asm, (size_t)m->nv * sizeof(double));
  memset(d->vdot, 0, (size_t)m->nv * sizeof(double));
  memcpy(d->angle_memo, m->memo_asm, (size_t)m->njoint * sizeof(double));
  d->ma = m->ma0;
  memcpy(d->active, m->active0, (size_t)m->ma0 * sizeof(int));
  d->stage = MBD_STAGE_NONE;
  d->newton_iterations = 0;
  d->lu_factorizations = 0;
  d->gauss_evaluations = 0;
  d->floor_n = 0;
  d->floor_res = 0;
  d->floor_t = 0;
  d->row_reselections = 0;
  d->aug_ratio0 = 0;
  // contacts: the assembled modes, no forces known yet
  memset(d->cstate, 0, (size_t)m->ncontact * sizeof *d->cstate);
  for (int c = 0; c < m->ncontact; c++) {
    d->cstate[c].mode = m->contact[c].mode0;
    d->cstate[c].sgn = m->contact[c].sgn0;
    memcpy(d->cstate[c].dir, m->contact[c].dir0, sizeof d->cstate[c].dir);
    d->cstate[c].t_eval = NAN;
  }
  memset(d->jfstate, 0, (size_t)m->njfric * sizeof *d->jfstate);
  for (int k = 0; k < m->njfric; k++) {
    d->jfstate[k].mode = m->jfric[k].mode0;
    d->jfstate[k].sgn = m->jfric[k].sgn0;
  }
  d->contact_iterations = 0;
  memset(d->events, 0, sizeof d->events);
  d->nevlog = 0;
  d->aug_ratio_start = 0;
  d->inertia_ready = 0;
  for (int k = 0; k < m->ndrive; k++) {
    d->drive_t[k] = NAN;
  }
  d->sing_ratio = 1;
  d->sing_t = 0;
}

void mbd_data_copy_state(const mbd_model *m, mbd_data *dst, const mbd_data *src) {
  dst->t = src->t;
  memcpy(dst->q, src->q, (size_t)m->nq * sizeof(double));
  memcpy(dst->v, src->v, (size_t)m->nv * sizeof(double));
  memcpy(dst->vdot, src->vdot, (size_t)m->nv * sizeof(double));
  memcpy(dst->angle_memo, src->angle_memo, (size_t)m->njoint * sizeof(double));
  dst->ma = src->ma;
  memcpy(dst->active, src->active, (size_t)src->ma * sizeof(int));
  dst->aug_ratio0 = src->aug_ratio0;
  dst->aug_ratio_start = src->aug_ratio_start;
  dst->stage = MBD_STAGE_NONE;
  if (dst->sp && src->sp) {
    // a sample evaluates as the integration does, its factorizations pivoting anew each time (so
    // its values do not depend on the samples before it)
    dst->sp->on = src->sp->on;
    dst->sp->fresh_pivots = 1;
  }
  memcpy(dst->cstate, src->cstate, (size_t)m->ncontact * sizeof *dst->cstate);
  memcpy(dst->jfstate, src->jfstate, (size_t)m->njfric * sizeof *dst->jfstate);
}

/* ------------------------------------------------------------------------------------------ */
/* names for messages                                                                          */

void mbd_model_coord_name(const mbd_model *m, int i, char *buf, size_t len) {
  for (int k = 0; k < m->nblock; k++) {
    const mbd_block *bl = &m->block[k];
    if (bl->kind == MBD_BLOCK_BODY && i >= bl->vadr && i < bl->vadr + bl->nv) {
      const mbd_body *b = &m->body[bl->owner];
      int c = i - bl->vadr, nk = mbd_body_kind_get(b->kind)->nv;
      if (c >= nk) {
        snprintf(buf, len, "%s.a%d", b->name, c - nk + 1);  // a flexible body's modal coordinate
        return;
      }
      snprintf(buf, len, "%s.%s", b->name, mbd_body_kind_get(b->kind)->coord[c]);
      return;
    }
    if (bl->kind == MBD_BLOCK_TREE && i >= bl->vadr && i < bl->vadr + bl->nv) {
      mbd_tree_coord_name(m, i, buf, len);
      return;
    }
  }
  snprintf(buf, len, "coordinate %d", i);
}

void mbd_model_row_name(const mbd_model *m, int i, char *buf, size_t len) {
  if (i < 0 || i >= m->mrow) {
    snprintf(buf, len, "constraint %d", i);
    return;
  }
  const mbd_rowinfo *r = &m->row[i];
  switch (r->owner) {
    case MBD_ROW_JOINT: {
      const mbd_joint *j = &m->joint[r->index];
      snprintf(buf, len, "%s '%s' (equation %d)", mbd_joint_type_name(j->type), j->name,
               r->local + 1);
      return;
    }
    case MBD_ROW_DRIVE:
      snprintf(buf, len, "drive on joint '%s'", m->joint[m->drive[r->index].joint].name);
      return;
    case MBD_ROW_JFRIC:
      snprintf(buf, len, "friction lock of joint '%s'", m->joint[m->jfric[r->index].joint].name);
      return;
    case MBD_ROW_CONTACT:
      snprintf(buf, len, "contact '%s' (%s%.0d)", m->contact[r->index].name,
               r->local ? "rolling " : "normal", r->local);
      return;
    case MBD_ROW_TREE:
      if (r->local >= 0) {
        snprintf(buf, len, "Euler-parameter norm of joint '%s'", m->joint[r->local].name);
      } else {
        snprintf(buf, len, "Euler-parameter norm of body '%s'", m->body[-1 - r->local].name);
      }
      return;
    default:
      snprintf(buf, len, "Euler-parameter norm of body '%s'", m->body[r->index].name);
      return;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the evaluation's stages (model_impl.h)                                                      */

#ifndef NDEBUG
/* checking builds: a key of the state a stage was realized for (FNV-1a over its bytes): t, q,
 * the active rows and the contacts' modes for the position stage, v
 * for the velocity stage.  A stage found realized for another key was skipped wrongly: some
 * writer changed the state without mbd_stage_touch. */
static unsigned long fnv(unsigned long h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ c[i]) * 1099511628211ul;
  }
  return h;
}

static unsigned long stage_key(const mbd_model *m, const mbd_data *d, int stage) {
  unsigned long h = 14695981039346656037ul;
  if (stage == MBD_STAGE_VELOCITY) {
    return fnv(h, d->v, (size_t)m->nv * sizeof(double));
  }
  h = fnv(h, &d->t, sizeof d->t);
  h = fnv(h, d->q, (size_t)m->nq * sizeof(double));
  h = fnv(h, &d->ma, sizeof d->ma);
  h = fnv(h, d->active, (size_t)d->ma * sizeof(int));
  for (int c = 0; c < m->ncontact; c++) {
    h = fnv(h, &d->cstate[c].mode, sizeof d->cstate[c].mode);
  }
  for (int k = 0; k < m->njfric; k++) {
    h = fnv(h, &d->jfstate[k].mode, sizeof d->jfstate[k].mode);
  }
  return h;
}
#endif

void mbd_stage_key(const mbd_model *m, mbd_data *d, int stage) {
#ifndef NDEBUG
  if (stage >= MBD_STAGE_POSITION && d->stage < MBD_STAGE_POSITION) {
    d->stage_key[0] = stage_key(m, d, MBD_STAGE_POSITION);
  }
  if (stage >= MBD_STAGE_VELOCITY && d->stage < MBD_STAGE_VELOCITY) {
    d->stage_key[1] = stage_key(m, d, MBD_STAGE_VELOCITY);
  }
#else
  (void)m, (void)d, (void)stage;
#endif
}

void mbd_stage_rekey(const mbd_model *m, mbd_data *d) {
#ifndef NDEBUG
  int s = d->stage;
  d->stage = MBD_STAGE_NONE;
  mbd_stage_key(m, d, s);
  d->stage = s;
#else
  (void)m, (void)d;
#endif
}

int mbd_stage_check(const mbd_model *m, const mbd_data *d, int stage) {
  if (d->stage < stage) {
    return 0;
  }
#ifndef NDEBUG
  if ((stage >= MBD_STAGE_POSITION && d->stage_key[0] != stage_key(m, d, MBD_STAGE_POSITION)) ||
      (stage >= MBD_STAGE_VELOCITY && d->stage_key[1] != stage_key(m, d, MBD_STAGE_VELOCITY))) {
    fprintf(stderr, "mbd: internal error: stage %d of model '%s' realized for another state (a "
                    "write of the state without mbd_stage_touch)\n", stage, m->name);
    abort();
  }
#else
  (void)m;
#endif
  return 1;
}
