/* building the spanning tree of the relative formulation (paper 002 eq 1–5): the model in joint
 * coordinates from an assembled Cartesian model (mbd_tree_build: Kruskal's algorithm on the joint
 * graph, a breadth-first orientation from the ground, the tree joints' constants, the rows of the
 * cut joints, drives and norms), assembled and described.  Apart from tree.c (the poses, a stage
 * kernel called from below by poses.c) because building drives assembly from above. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics_msg.h"
#include "mbd/rot.h"
#include "mbd/vec3.h"
#include "tree.h"

/* ------------------------------------------------------------------------------------------ */
/* building                                                                                    */

static int find_root(int *uf, int b) {
  while (uf[b] != b) {
    uf[b] = uf[uf[b]];
    b = uf[b];
  }
  return b;
}

/* a copy of n elements of size sz (at least one element allocated) */
static void *dup(const void *p, int n, size_t sz) {
  void *q = calloc((size_t)(n > 0 ? n : 1), sz);
  if (q && n > 0) {
    memcpy(q, p, (size_t)n * sz);
  }
  return q;
}

/* the relative angular speed of joint j's bodies at the state of d (rad/s): |ω2 − ω1|, spatial
 * ω = 2 vec(ṗ ⊗ p*) in the global frame, planar θ̇ */
static double joint_speed(const mbd_model *m, const mbd_data *d, int j) {
  const mbd_pose *P1 = &d->pose[m->joint[j].body1], *P2 = &d->pose[m->joint[j].body2];
  if (m->dim == 2) {
    return fabs(P2->pd[0] - P1->pd[0]);
  }
  double c1[4], c2[4], w1[4], w2[4], dw[3];
  mbd_ep_conj(P1->p, c1);
  mbd_ep_conj(P2->p, c2);
  mbd_ep_mul(P1->pd, c1, w1);
  mbd_ep_mul(P2->pd, c2, w2);
  for (int k = 0; k < 3; k++) {
    dw[k] = 2 * (w2[k + 1] - w1[k + 1]);
  }
  return sqrt(dw[0] * dw[0] + dw[1] * dw[1] + dw[2] * dw[2]);
}

/* Kruskal's order: joint a is kept before joint b when it adds fewer coordinates, or as many and
 * turns clearly slower at the start (less than half b's relative angular speed).  A joint whose
 * bodies turn fast relative to each other is better cut than kept: its rows do not mind the
 * motion, while as tree coordinates the motion moves the partition's independent coordinates
 * (issue 24: the composite RSSR's first coupler hanging from the crank the drive turns, its
 * Euler parameters sweeping a whole turn).  The factor 2 keeps the order off round-off: speeds
 * equal in exact arithmetic (a symmetric mechanism, or every joint at rest: all 0) keep the
 * declaration order, and only speeds twice apart reorder. */
static int kept_before(const int *nq, const double *spd, int a, int b) {
  return nq[a] < nq[b] || (spd && nq[a] == nq[b] && 2 * spd[a] < spd[b]);
}

/* the spanning forest (Kruskal) at the state of d: in_tree[j] = 1 for the joints kept; the
 * relative speeds order the joints when slow_first is 1 */
static int choose_tree(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                       int slow_first, int *in_tree, mbd_error *err) {
  int nj = m->njoint, rc = MBD_OK;
  int *order = calloc((size_t)(nj ? nj : 1), sizeof(int));
  int *uf = calloc((size_t)m->nbody, sizeof(int));
  int *forced = calloc((size_t)(nj ? nj : 1), sizeof(int));
  int *nq = calloc((size_t)(nj ? nj : 1), sizeof(int));
  double *spd = calloc((size_t)(nj ? nj : 1), sizeof(double));
  if (!order || !uf || !forced || !nq || !spd) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
    goto done;
  }
  for (int k = 0; k < ncut; k++) {
    int j = mbd_model_find_joint(m, cut[k]);
    if (j < 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_CUT, cut[k], m->name);
      goto done;
    }
    forced[j] = 1;
  }
  // macro copies (paper 002, section 4): a copy's joints stay in the tree, a joint between a copy
  // and another body (not the ground) is cut, so that each copy's coordinates are its own
  for (int j = 0; j < nj; j++) {
    int b1 = m->joint[j].body1, b2 = m->joint[j].body2;
    if (b1 && b2 && m->body[b1].copy != m->body[b2].copy) {
      forced[j] = 1;
    }
  }
  // joints by the coordinates they add, the clearly slower first (kept_before), then in
  // declaration order (a stable insertion sort)
  for (int j = 0; j < nj; j++) {
    nq[j] = mbd_tree_joint_nq(m->joint[j].type, m->dim);
    spd[j] = joint_speed(m, d, j);
  }
  for (int j = 0; j < nj; j++) {
    int k = j;
    while (k > 0 && kept_before(nq, slow_first ? spd : NULL, j, order[k - 1])) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = j;
  }
  for (int b = 0; b < m->nbody; b++) {
    uf[b] = b;
  }
  for (int k = 0; k < nj; k++) {
    int j = order[k];
    int a = find_root(uf, m->joint[j].body1), b = find_root(uf, m->joint[j].body2);
    in_tree[j] = !forced[j] && a != b;
    if (in_tree[j]) {
      uf[a > b ? a : b] = a < b ? a : b;  // the component's root stays the smaller body
    }
  }
done:
  free(order);
  free(uf);
  free(forced);
  free(nq);
  free(spd);
  return rc;
}

/* the constants of tree joint tj at the state of d (Cartesian poses of m) */
static void joint_constants(const mbd_model *m, const mbd_data *d, mbd_tree_joint *tj) {
  const mbd_joint *j = &m->joint[tj->joint];
  const mbd_pose *P1 = &d->pose[j->body1], *P2 = &d->pose[j->body2];
  memcpy(tj->s1, j->at1, sizeof tj->s1);
  memcpy(tj->s2, j->at2, sizeof tj->s2);
  memcpy(tj->u, j->axis1, sizeof tj->u);
  // d0 = A1ᵀ(r2 + A2 s2 − r1 − A1 s1)
  double g[3], A2s2[3], A1s1[3];
  mbd_mat3_vec(P2->A, j->at2, A2s2);
  mbd_mat3_vec(P1->A, j->at1, A1s1);
  for (int i = 0; i < 3; i++) {
    g[i] = P2->r[i] + A2s2[i] - P1->r[i] - A1s1[i];
  }
  mbd_mat3_tvec(P1->A, g, tj->d0);
  if (m->dim == 2) {
    tj->d0[2] = 0;
    tj->c[0] = P2->p[0] - P1->p[0];
  } else {
    // c = p1* ⊗ p2: p1 ⊗ c = p2 with the sign of the given parameters (channels continue them)
    double pc[4];
    mbd_ep_conj(P1->p, pc);
    mbd_ep_mul(pc, P2->p, tj->c);
    double nc =
        sqrt(tj->c[0] * tj->c[0] + tj->c[1] * tj->c[1] + tj->c[2] * tj->c[2] + tj->c[3] * tj->c[3]);
    for (int k = 0; k < 4; k++) {
      tj->c[k] /= nc;
    }
    // universal: axis2 seen in body1's frame, w = A1ᵀ A2 axis2
    double h2[3];
    mbd_mat3_vec(P2->A, j->axis2, h2);
    mbd_mat3_tvec(P1->A, h2, tj->w);
  }
  const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
  int dx = MBD_DIMX(m);
  // the displacements' directions in body1's frame, per unit of their coordinates
  const mbd_tree_motion *mo = &jt->tree[dx];
  double g1[3];
  mbd_cross3(j->axis1, j->ref1, g1);
  memset(tj->dax, 0, sizeof tj->dax);
  for (int k = 0; k < mo->ndisp; k++) {
    const double *dir = mo->dir[k] == MBD_TDIR_REF1 ? j->ref1
                        : mo->dir[k] == MBD_TDIR_G1 ? g1
                                                    : j->axis1;
    double f = mo->dir[k] == MBD_TDIR_LEAD ? j->lead : 1;
    for (int i = 0; i < 3; i++) {
      tj->dax[k][i] = f * dir[i];
    }
  }
  // the joint's channel coordinates at q = 0
  for (int k = 0; k < jt->ncoord[dx] && k < MBD_JOINT_MAXCOORD; k++) {
    mbd_row o;
    mbd_joint_coord_row(m, d, tj->joint, jt->coord[dx][k], &o);
    tj->coord0[k] = o.val;
  }
}

/* the tree joints outward from the ground (breadth first), floating joints for components
 * without the ground; coordinates numbered in that order */
static int orient(const mbd_model *m, const int *in_tree, mbd_tree *t) {
  int nb = m->nbody, k = 0, head = 0;
  int *queue = calloc((size_t)nb, sizeof(int));
  char *seen = calloc((size_t)nb, 1);
  if (!queue || !seen) {
    free(queue);
    free(seen);
    return -1;
  }
  queue[k++] = 0;
  seen[0] = 1;
  for (int root = 0; root < nb; root++) {
    if (!seen[root]) {
      // a component without the ground: its first body floats
      mbd_tree_joint *tj = &t->tj[t->ntj++];
      tj->joint = -1;
      tj->kind = MBD_TJ_FLOATING;
      tj->parent = 0;
      tj->child = root;
      tj->sigma = 1;
      seen[root] = 1;
      queue[k++] = root;
      t->nfloat++;
    }
    for (; head < k; head++) {
      int b = queue[head];
      for (int j = 0; j < m->njoint; j++) {
        const mbd_joint *jo = &m->joint[j];
        if (!in_tree[j] || (jo->body1 != b && jo->body2 != b)) {
          continue;
        }
        int o = jo->body1 == b ? jo->body2 : jo->body1;
        if (seen[o]) {
          continue;
        }
        mbd_tree_joint *tj = &t->tj[t->ntj++];
        tj->joint = j;
        tj->kind = MBD_TJ_JOINT;
        tj->parent = b;
        tj->child = o;
        tj->sigma = jo->body2 == o ? 1 : -1;
        t->joint_tj[j] = t->ntj - 1;
        seen[o] = 1;
        queue[k++] = o;
      }
    }
  }
  free(queue);
  free(seen);
  return 0;
}

/* the Cartesian velocities of m's state as joint velocities: the least-squares fit J v = Ẏ of
 * every body's pose rates (exact for a consistent state; J has full column rank) */
static int fit_velocities(const mbd_model *m, const mbd_data *d, const mbd_model *mr, mbd_data *dr,
                          mbd_error *err) {
  int nc = m->nv, n = mr->nv;
  double *A = calloc((size_t)nc * (n ? n : 1), sizeof(double));
  double *b = calloc((size_t)(nc ? nc : 1), sizeof(double));
  mbd_lsq_ws ws;
  memset(&ws, 0, sizeof ws);
  int rc = (!A || !b) ? MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative")
                      : mbd_lsq_alloc(&ws, nc > n ? nc : n, nc > n ? nc : n, err);
  if (rc == MBD_OK) {
    memset(dr->v, 0, (size_t)n * sizeof(double));
    mbd_tree_poses(mr, dr);
    for (int bd = 1; bd < m->nbody; bd++) {
      const mbd_block *bl = &m->block[m->body[bd].block];
      const mbd_pose *ps = &dr->pose[bd];
      for (int r = 0; r < ps->ny; r++) {
        b[bl->vadr + r] = d->v[bl->vadr + r];
        for (int c = 0; c < n; c++) {
          MBD_AT(A, nc, bl->vadr + r, c) = MBD_AT(ps->J, ps->ny, r, c);
        }
      }
    }
    rc = mbd_lsq_solve(&ws, nc, n, A, nc, b, dr->v, 1e-12, NULL);
    if (rc) {
      rc = MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_KIN_SVD, "relative", d->t);
    }
  }
  mbd_lsq_free(&ws);
  free(A);
  free(b);
  return rc;
}

/* the same fit joint by joint for the recursive solve (the pose Jacobians are not formed):
 * Ẏ_c = F Ẏ_p + S q̇_j with the Cartesian rates of the parent and the child, solved for q̇_j in
 * the least-squares sense (exact for a consistent state; S has full column rank) */
static int fit_velocities_rec(const mbd_model *m, const mbd_data *d, const mbd_model *mr,
                              mbd_data *dr, mbd_error *err) {
  const mbd_tree *t = mr->tree;
  int ny = m->dim == 3 ? 7 : 3;
  memset(dr->v, 0, (size_t)mr->nv * sizeof(double));
  dr->pin_yrec = 1;        // (every record's F and S, which a tree of pins may skip)
  mbd_tree_poses(mr, dr);  // F and S depend on the positions only
  dr->pin_yrec = 0;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    const mbd_tree_rec *R = &dr->trec[tj->child];
    if (tj->nq == 0) {
      continue;
    }
    const double *vc = d->v + m->block[m->body[tj->child].block].vadr;
    const double *vp = tj->parent ? d->v + m->block[m->body[tj->parent].block].vadr : NULL;
    double b[7];
    for (int i = 0; i < ny; i++) {
      double s = vc[i];
      for (int c = 0; vp && c < ny; c++) {
        s -= R->F[c * ny + i] * vp[c];
      }
      b[i] = s;
    }
    if (mbd_tree_small_lsq(ny, tj->nq, R->S, b, dr->v + tj->qadr) != 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_KIN_SVD, "relative", d->t);
    }
  }
  return MBD_OK;
}

/* whether a recursive tree model's rows are all norms of Euler parameters (no cut joint, no
 * drive): each touches its own four coordinates */
static int norms_only(const mbd_model *mr) {
  if (!mr->tree->recursive || mr->ma0 < mr->mrow) {
    return 0;
  }
  for (int r = 0; r < mr->mrow; r++) {
    if (mr->row[r].owner != MBD_ROW_TREE) {
      return 0;
    }
  }
  return 1;
}

/* the velocity analysis of such a model (paper 000 eq 12, minimum norm): the rows have disjoint
 * columns, so v ← v − Φq⁺ Φq v splits into ṗ ← ṗ − p (pᵀṗ)/(pᵀp) per row — O(rows) instead of
 * the dense SVD of rows × coordinates (the same solution, to round-off) */
static int norm_velocities(const mbd_model *mr, mbd_data *dr) {
  for (int r = 0; r < mr->mrow; r++) {
    int a = mr->row[r].index;
    const double *p = dr->q + a;
    double *pd = dr->v + a, s = 0, pp = 0;
    for (int k = 0; k < 4; k++) {
      s += p[k] * pd[k];
      pp += p[k] * p[k];
    }
    for (int k = 0; k < 4; k++) {
      pd[k] -= p[k] * s / pp;
    }
  }
  return MBD_OK;
}

/* rows of the tree model: the cut joints', the drives', the norms of Euler parameters */
static int number_rows(mbd_model *mr) {
  mbd_tree *t = mr->tree;
  int rows = 0, dx = MBD_DIMX(mr);
  for (int j = 0; j < mr->njoint; j++) {
    mr->joint[j].row0 = rows;
    mr->joint[j].nrow = t->joint_tj[j] < 0 ? mbd_joint_type_get(mr->joint[j].type)->nrow[dx] : 0;
    rows += mr->joint[j].nrow;
  }
  int nnorm = 0;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    nnorm += tj->rotk == MBD_TROT_EULER || (tj->kind == MBD_TJ_FLOATING && mr->dim == 3);
  }
  mr->mrow = rows + mr->ndrive + nnorm;
  mr->row = calloc((size_t)(mr->mrow ? mr->mrow : 1), sizeof *mr->row);
  mr->active0 = calloc((size_t)(mr->mrow ? mr->mrow : 1), sizeof(int));
  if (!mr->row || !mr->active0) {
    return -1;
  }
  for (int j = 0; j < mr->njoint; j++) {
    for (int r = 0; r < mr->joint[j].nrow; r++) {
      mr->row[mr->joint[j].row0 + r] = (mbd_rowinfo){MBD_ROW_JOINT, j, r, MBD_ROW_POSITION};
    }
  }
  for (int k = 0; k < mr->ndrive; k++) {
    mr->drive[k].row = rows;
    mr->row[rows++] = (mbd_rowinfo){MBD_ROW_DRIVE, k, 0, MBD_ROW_POSITION};
  }
  for (int k = 0; k < t->ntj; k++) {
    mbd_tree_joint *tj = &t->tj[k];
    if (tj->rotk == MBD_TROT_EULER || (tj->kind == MBD_TJ_FLOATING && mr->dim == 3)) {
      int adr = tj->qadr + (tj->kind == MBD_TJ_FLOATING ? 3 : tj->rot);
      int who = tj->joint >= 0 ? tj->joint : -1 - tj->child;
      tj->norm = rows;
      mr->row[rows++] = (mbd_rowinfo){MBD_ROW_TREE, adr, who, MBD_ROW_POSITION};
    }
  }
  return 0;
}

int mbd_tree_build(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                   mbd_model **out, mbd_error *err) {
  return mbd_tree_build_ex(m, d, cut, ncut, 0, 0, out, err);
}

int mbd_tree_build_ex(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                      int recursive, int slow_first, mbd_model **out, mbd_error *err) {
  *out = NULL;
  // rigid bodies and joints only: flexible bodies and contacts have coordinates of their own
  for (int b = 1; b < m->nbody; b++) {
    int k = m->body[b].kind;
    if (k != MBD_BODY_RIGID2 && k != MBD_BODY_RIGID3) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name,
                      mbd_body_kind_get(k)->name, m->body[b].name);
    }
  }
  if (m->ncontact > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name, "contact",
                    m->contact[0].name);
  }
  if (m->njfric > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_KIN_TREE_UNSUPPORTED, m->name, "joint with friction",
                    m->joint[m->jfric[0].joint].name);
  }
  int *in_tree = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
  if (!in_tree) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  int rc = choose_tree(m, d, cut, ncut, slow_first, in_tree, err);
  if (rc < 0) {
    free(in_tree);
    return rc;
  }
  // the model in joint coordinates: m's objects, its own numbering
  mbd_model *mr = calloc(1, sizeof *mr);
  mbd_tree *t = calloc(1, sizeof *t);
  if (mr) {
    memcpy(mr->name, m->name, sizeof mr->name);
    mr->dim = m->dim;
    memcpy(mr->gravity, m->gravity, sizeof mr->gravity);
    mr->nbody = mr->cbody = m->nbody;
    mr->njoint = mr->cjoint = m->njoint;
    mr->ndrive = mr->cdrive = m->ndrive;
    mr->nforce = mr->cforce = m->nforce;
    mr->nspring = mr->cspring = m->nspring;
    mr->nrspring = mr->crspring = m->nrspring;
    mr->body = dup(m->body, m->nbody, sizeof *m->body);
    mr->joint = dup(m->joint, m->njoint, sizeof *m->joint);
    mr->drive = dup(m->drive, m->ndrive, sizeof *m->drive);
    mr->force = dup(m->force, m->nforce, sizeof *m->force);
    mr->spring = dup(m->spring, m->nspring, sizeof *m->spring);
    mr->rspring = dup(m->rspring, m->nrspring, sizeof *m->rspring);
    mr->assembly_tol = m->assembly_tol;
    mr->moved_body = -1;
    // what assembly did to the given poses, reported by the runs of the tree model too
    mr->moved_dist = m->moved_dist;
    mr->moved_dist_body = m->moved_dist_body;
    mr->moved_angle = m->moved_angle;
    mr->moved_angle_body = m->moved_angle_body;
    mr->size = m->size;
    mr->tree = t;
    // macro copies (paper 002 section 4): the generated equations derive each shape once
    if (m->ncopy > 0) {
      mr->copy = dup(m->copy, m->ncopy, sizeof *m->copy);
      mr->ncopy = mr->ccopy = mr->copy ? m->ncopy : 0;
    }
  }
  if (t) {
    t->tj = calloc((size_t)m->nbody, sizeof *t->tj);
    t->body_tj = calloc((size_t)m->nbody, sizeof(int));
    t->joint_tj = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
    t->cut = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
  }
  if (!mr || !t || !mr->body || !mr->joint || !mr->drive || !mr->force || !mr->spring ||
      !mr->rspring || !t->tj || !t->body_tj || !t->joint_tj || !t->cut) {
    free(in_tree);
    if (mr) {
      mbd_model_free(mr);
    } else {
      mbd_tree_free(t);
    }
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    t->joint_tj[j] = -1;
  }
  // the recursive solve: its rows and forces through the tree's own stage (tree_rec.c)
  t->recursive = recursive;
  if (recursive) {
    mr->eqs = mbd_tree_rec_hook();
  }
  if (orient(m, in_tree, t) < 0) {
    free(in_tree);
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    if (!in_tree[j]) {
      t->cut[t->ncut++] = j;
    }
  }
  free(in_tree);
  // the joints at each body (reactions of the recursive solve)
  t->body_jadr = calloc((size_t)m->nbody + 1, sizeof(int));
  t->body_j = calloc((size_t)(2 * m->njoint + 1), sizeof(int));
  if (!t->body_jadr || !t->body_j) {
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  for (int j = 0; j < m->njoint; j++) {
    t->body_jadr[m->joint[j].body1 + 1]++;
    t->body_jadr[m->joint[j].body2 + 1]++;
  }
  for (int b = 0; b < m->nbody; b++) {
    t->body_jadr[b + 1] += t->body_jadr[b];
  }
  for (int j = 0; j < m->njoint; j++) {
    int b1 = m->joint[j].body1, b2 = m->joint[j].body2;
    t->body_j[t->body_jadr[b1]++] = j;
    t->body_j[t->body_jadr[b2]++] = j;
  }
  for (int b = m->nbody; b > 0; b--) {
    t->body_jadr[b] = t->body_jadr[b - 1];
  }
  t->body_jadr[0] = 0;
  // coordinates, parents first; the constants of each joint at the state of d
  int nq = 0;
  for (int b = 0; b < m->nbody; b++) {
    t->body_tj[b] = -1;
  }
  for (int k = 0; k < t->ntj; k++) {
    mbd_tree_joint *tj = &t->tj[k];
    t->body_tj[tj->child] = k;
    tj->qadr = nq;
    tj->rot = tj->disp = tj->norm = -1;
    tj->ndisp = 0;
    tj->rotk = MBD_TROT_NONE;
    if (tj->kind == MBD_TJ_FLOATING) {
      tj->nq = m->dim == 3 ? 7 : 3;
    } else {
      // the joint type's tree motion (model_impl.h)
      const mbd_tree_motion *mo =
          &mbd_joint_type_get(m->joint[tj->joint].type)->tree[MBD_DIMX(m)];
      tj->nq = mo->nq;
      tj->rotk = mo->rot;
      tj->rot = mo->rot == MBD_TROT_NONE ? -1 : mo->rot_at;
      tj->ndisp = mo->ndisp;
      tj->disp = mo->ndisp ? mo->disp_at : -1;
    }
    tj->pin = tj->rotk == MBD_TROT_AXIS && tj->ndisp == 0;
    nq += tj->nq;
    if (tj->joint >= 0) {
      joint_constants(m, d, tj);
    }
  }
  // planar pins: their points as the pose pass and the pin sweeps read them (tree_impl.h), and
  // whether the whole tree is of them between rigid bodies (relative_aba.c: the pin sweeps)
  t->pins = recursive && m->dim == 2 && t->ntj > 0;
  for (int k = 0; k < t->ntj; k++) {
    mbd_tree_joint *tj = &t->tj[k];
    tj->ptk = tj->parent > 0 ? t->body_tj[tj->parent] : -1;
    t->pins &= tj->pin && tj->kind == MBD_TJ_JOINT && m->body[tj->child].kind == MBD_BODY_RIGID2;
    if (!tj->pin || m->dim != 2) {
      continue;
    }
    for (int i = 0; i < 2; i++) {
      double a1 = tj->s1[i] + tj->d0[i];
      tj->pa[i] = tj->sigma > 0 ? a1 : tj->s2[i];
      tj->pc[i] = tj->sigma > 0 ? tj->s2[i] : a1;
    }
    tj->pcc = tj->pc[0] * tj->pc[0] + tj->pc[1] * tj->pc[1];
  }
  // the order of the inward sweep's shares: a joint is a leaf until a child is met, and the
  // first child met (from the end of the tree's order) sets its parent's shares
  for (int k = 0; k < t->ntj; k++) {
    t->tj[k].pleaf = 1;
  }
  for (int k = t->ntj - 1; k >= 0; k--) {
    mbd_tree_joint *tj = &t->tj[k];
    tj->pfirst = tj->ptk >= 0 && t->tj[tj->ptk].pleaf;
    if (tj->ptk >= 0) {
      t->tj[tj->ptk].pleaf = 0;
    }
  }
  mr->nq = mr->nv = nq;
  mr->nqi = nq;  // every tree coordinate is integrated (no surface parameters)
  mr->nblock = 1;
  mr->block = calloc(1, sizeof *mr->block);
  mr->q_asm = calloc((size_t)(nq ? nq : 1), sizeof(double));
  mr->v_asm = calloc((size_t)(nq ? nq : 1), sizeof(double));
  mr->memo_asm = dup(d->angle_memo, m->njoint, sizeof(double));
  if (!mr->block || !mr->q_asm || !mr->v_asm || !mr->memo_asm || number_rows(mr) < 0) {
    mbd_model_free(mr);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "relative");
  }
  mr->block[0] = (mbd_block){MBD_BLOCK_TREE, -1, 0, nq, 0, nq};
  // a recursive tree of Euler-parameter norm rows only (chains of spherical joints, floating
  // bodies): every row keeps its place (below), and a large one its rows out of the dense Φq
  int norm_rows = recursive && mr->mrow > 0;
  for (int r = 0; r < mr->mrow && norm_rows; r++) {
    norm_rows = mr->row[r].owner == MBD_ROW_TREE;
  }
  t->norms_implicit = norm_rows && mr->nv > TREE_NORMS_IMPLICIT_NV;
  for (int b = 1; b < mr->nbody; b++) {
    mr->body[b].block = 0;
  }
  // the assembled state: zero joint coordinates (identity Euler parameters), floating bodies
  // where they are
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (tj->rotk == MBD_TROT_EULER) {
      mr->q_asm[tj->qadr] = 1;
    } else if (tj->kind == MBD_TJ_FLOATING) {
      const mbd_block *bl = &m->block[m->body[tj->child].block];
      memcpy(mr->q_asm + tj->qadr, d->q + bl->qadr, (size_t)tj->nq * sizeof(double));
    }
  }
  mbd_data *dr = mbd_data_alloc(mr, err);
  if (!dr) {
    mbd_model_free(mr);
    return MBD_E_NOMEM;
  }
  memcpy(dr->q, mr->q_asm, (size_t)nq * sizeof(double));
  memcpy(dr->angle_memo, mr->memo_asm, (size_t)m->njoint * sizeof(double));
  dr->t = d->t;
  rc = recursive ? fit_velocities_rec(m, d, mr, dr, err) : fit_velocities(m, d, mr, dr, err);
  // every row at the start: the cut joints close (the Cartesian state satisfied them)
  dr->ma = mr->mrow;
  for (int i = 0; i < mr->mrow; i++) {
    dr->active[i] = i;
  }
  mbd_stage_touch(dr, MBD_STAGE_NONE);
  if (rc == MBD_OK) {
    rc = mbd_eval_to(mr, dr, MBD_STAGE_VELOCITY, err);
  }
  if (rc == MBD_OK) {
    double res = 0;
    int worst = 0;
    for (int r = 0; r < mr->mrow; r++) {
      if (fabs(dr->phi[r]) > res) {
        res = fabs(dr->phi[r]);
        worst = r;
      }
    }
    // the tree reproduces m's state to round-off over the mechanism's size; the assembly's own
    // residual (at most its tolerance) comes on top
    if (!(res <= 1e-8 + 100 * m->assembly_tol)) {
      char row[160];
      mbd_model_row_name(mr, worst, row, sizeof row);
      rc = MBD_FAIL(err, MBD_E_ASSEMBLY, MSG_KIN_TREE_START, m->name, res, row);
    }
  }
  // the rank test on the cut-joint rows, then the velocity analysis on the rows kept.  A
  // recursive tree whose rows are all Euler-parameter norms keeps every row without the test:
  // each row 2pᵀ (|p| = 1) over its own joint's four coordinates, disjoint from the others' (the
  // test reads the dense Φq whole and builds a rows × coordinates basis: at 4096 spherical joints
  // two arrays of 537 MB, the run's peak of 1.18 GB)
  if (rc == MBD_OK && norm_rows) {
    mr->ma0 = mr->mrow;
    for (int i = 0; i < mr->mrow; i++) {
      mr->active0[i] = i;
    }
    mr->rank = mr->mrow;
  } else if (rc == MBD_OK) {
    rc = mbd_kin_rank_test(mr, dr, err);
  }
  if (rc == MBD_OK) {
    dr->ma = mr->ma0;
    memcpy(dr->active, mr->active0, (size_t)mr->ma0 * sizeof(int));
    mbd_constraints_gather(mr, dr);
    rc = norms_only(mr) ? norm_velocities(mr, dr) : mbd_velocity_analysis(mr, dr, err);
  }
  if (rc == MBD_OK) {
    memcpy(mr->v_asm, dr->v, (size_t)nq * sizeof(double));
    rc = mbd_channels_build(mr, err);
  }
  mbd_data_free(dr);
  if (rc < 0) {
    mbd_model_free(mr);
    return rc;
  }
  mr->assembled = 1;
  *out = mr;
  return MBD_OK;
}

int mbd_tree_of_model(mbd_model *m, const mbd_assembly_opts *ao, const char *const *cut, int ncut,
                      int slow_first, mbd_model **out, mbd_error *err) {
  *out = NULL;
  int rc = mbd_model_assemble(m, ao, err);
  if (rc < 0) {
    return rc;
  }
  mbd_data *d = mbd_data_alloc(m, err);
  if (!d) {
    return MBD_E_NOMEM;
  }
  mbd_data_reset(m, d);
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc == MBD_OK) {
    rc = mbd_tree_build_ex(m, d, cut, ncut, 0, slow_first, out, err);
  }
  mbd_data_free(d);
  return rc;
}

int mbd_model_tree(mbd_model *m, const char *const *cut, int ncut, char **text, mbd_error *err) {
  *text = NULL;
  mbd_model *mr = NULL;
  // (the tree of the default solver, kane)
  int rc = mbd_tree_of_model(m, NULL, cut, ncut, 1, &mr, err);
  if (rc == MBD_OK) {
    *text = mbd_tree_describe(mr);
    if (!*text) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "tree");
    }
  }
  mbd_model_free(mr);
  return rc;
}
