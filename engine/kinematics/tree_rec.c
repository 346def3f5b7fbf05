/* the rows and forces of a tree model in the recursive solve (linear_solver = "recursive"):
 * the stage that stands in for kinematics/constraints.c and model/forces.c when the pose stage
 * keeps each body's recursion record (tree_impl.h: Ÿ_c = F Ÿ_p + S q̈_j + c) instead of its pose
 * Jacobian over every coordinate.
 *
 * Rows: each cut joint's and drive's equations are the joint library's local rows over the two
 * bodies' pose coordinates (Y1 | Y2), as in the dense solve; their Jacobian over the joint
 * coordinates Φq = Φ_Y1 J1 + Φ_Y2 J2 is formed by the transpose of the outward recursion,
 * Jᵀw = Σ along the path to the ground of S_jᵀ w with w ← Fᵀ w at each step: O(depth) per row
 * instead of O(nbody · nv) for the Jacobians of every body.  γ = −h − Φ_Y h_Y with each body's
 * quadratic term h_Y from the pose stage, the norms of Euler parameters as in constraints.c.
 *
 * Forces: each body's own mass matrix M_Y and generalized force Q_Y in its pose coordinates
 * (gravity and the velocity terms of its kind, applied forces and torques, springs, rotational
 * springs as rows over (Y1 | Y2)) — the same terms as model/forces.c before its scatter through
 * J — left in the body's record for the articulated-body recursion
 * (formulations/relative_aba.c), and for the reactions of a sample (tree.c). */
#include <math.h>
#include <string.h>

#include "../model/model_msg.h"
#include "kinematics_msg.h"
#include "tree.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* pose coordinates of a moving body of the model */
static int ny_of(const mbd_model *m) { return m->dim == 3 ? 7 : 3; }

void mbd_tree_rec_scatter(const mbd_model *m, const mbd_data *d, int b, const double *w0, double *g,
                          int ldg) {
  const mbd_tree *t = m->tree;
  int ny = ny_of(m);
  double w[7], wn[7];
  memcpy(w, w0, (size_t)ny * sizeof(double));
  // from the body inward: its joint's columns S_jᵀw, then w ← Fᵀw for the parent
  while (b > 0) {
    const mbd_tree_joint *tj = &t->tj[t->body_tj[b]];
    const mbd_tree_rec *R = &d->trec[b];
    for (int c = 0; c < tj->nq; c++) {
      const double *s = R->S + c * ny;
      double x = 0;
      for (int i = 0; i < ny; i++) {
        x += s[i] * w[i];
      }
      g[(size_t)(tj->qadr + c) * ldg] += x;
    }
    if (tj->parent == 0) {
      break;
    }
    for (int c = 0; c < ny; c++) {
      const double *f = R->F + c * ny;
      double x = 0;
      for (int i = 0; i < ny; i++) {
        x += f[i] * w[i];
      }
      wn[c] = x;
    }
    memcpy(w, wn, (size_t)ny * sizeof(double));
    b = tj->parent;
  }
}

/* one local row into the global arrays: Φ, γ with the bodies' quadratic terms, the local row
 * kept for the reactions, and (all) its Φq row by the transpose pass */
static void put_row(const mbd_model *m, mbd_data *d, int r, int b1, int b2, const mbd_row *o,
                    double gamma, int all) {
  int bodies[2] = {b1, b2};
  d->phi[r] = o->val;
  for (int side = 0; side < 2; side++) {
    const mbd_pose *ps = &d->pose[bodies[side]];
    if (ps->vadr < 0) {
      continue;  // the ground
    }
    for (int k = 0; k < ps->ny; k++) {
      gamma -= o->J[side * MBD_NY_MAX + k] * ps->h[k];
    }
  }
  d->gamma[r] = gamma;
  if (all) {
    memcpy(d->rowJ + (size_t)r * MBD_NLOC, o->J, sizeof o->J);
    for (int side = 0; side < 2; side++) {
      if (d->pose[bodies[side]].vadr >= 0) {
        mbd_tree_rec_scatter(m, d, bodies[side], o->J + side * MBD_NY_MAX, d->phiq + r, m->mrow);
      }
    }
  }
}

/* the constraint stage of a tree model in the recursive solve (constraints.c for the others) */
static int rec_rows(void *ud, const mbd_model *m, mbd_data *d, int flags, mbd_error *err) {
  (void)ud;
  int all = flags != MBD_EVAL_GAMMA, dx = MBD_DIMX(m);
  if (all) {
    // the rows scattered below start from zero; a norm's row has its four entries (written
    // below) and zeros that nothing else writes, so it is not cleared: O(cut rows · nv + rows),
    // not O(rows · nv), with thousands of spherical joints
    for (int r = 0; r < m->mrow; r++) {
      for (int c = 0; m->row[r].owner != MBD_ROW_TREE && c < m->nv; c++) {
        MBD_AT(d->phiq, m->mrow, r, c) = 0;
      }
    }
    memset(d->phit, 0, (size_t)m->mrow * sizeof(double));
  }
  // the cut joints' equations (the tree joints have none); the spatial relative angles' memos
  // follow every joint, so a spatial tree visits them all, a planar one its cut joints alone
  for (int ji = 0; dx == 1 && ji < m->njoint; ji++) {
    const mbd_joint *j = &m->joint[ji];
    const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
    mbd_row rows[MBD_JOINT_MAXROW];
    if (j->nrow > 0) {
      mbd_joint_rows(m, d, ji, rows);
    }
    for (int k = 0; k < j->nrow; k++) {
      put_row(m, d, j->row0 + k, j->body1, j->body2, &rows[k], -rows[k].h, all);
    }
    if (jt->angle_coord[1] >= 0) {
      d->angle_memo[ji] = mbd_joint_angle_value(m, d, ji);
    }
  }
  for (int i = 0; dx == 0 && i < m->tree->ncut; i++) {
    const mbd_joint *j = &m->joint[m->tree->cut[i]];
    mbd_row rows[MBD_JOINT_MAXROW];
    if (j->nrow > 0) {
      mbd_joint_rows(m, d, m->tree->cut[i], rows);
    }
    for (int k = 0; k < j->nrow; k++) {
      put_row(m, d, j->row0 + k, j->body1, j->body2, &rows[k], -rows[k].h, all);
    }
  }
  // drives: coordinate(q) − f(t) = 0 (constraints.c)
  for (int di = 0; di < m->ndrive; di++) {
    const mbd_drive *dr = &m->drive[di];
    const mbd_joint *j = &m->joint[dr->joint];
    double f[3] = {0, 0, 0};
    int rc = dr->fn(dr->ud, d->t, f, err);
    if (rc < 0) {
      return rc;
    }
    if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
      return MBD_FAIL(err, MBD_E_NAN, MSG_KIN_DRIVE_VALUE, j->name, f[0], d->t);
    }
    mbd_row o;
    mbd_joint_coord_row(m, d, dr->joint, dr->coord, &o);
    double coord = o.val;
    put_row(m, d, dr->row, j->body1, j->body2, &o, f[2] - o.h, all);
    d->phi[dr->row] = (dx == 1 && dr->coord == MBD_COORD_ANGLE) ? remainder(coord - f[0], 2 * M_PI)
                                                                : coord - f[0];
    d->phit[dr->row] = -f[1];
  }
  // the norms of spherical and floating joints' Euler parameters: Φq = 2pᵀ, γ = −2ṗᵀṗ (in the
  // dense Φq unless the tree leaves them out: tree_impl.h, norms_implicit)
  int dense_norms = !m->tree->norms_implicit || d->dense_ready || d->phiq_a_mixed;
  for (int r = 0; r < m->mrow; r++) {
    if (m->row[r].owner != MBD_ROW_TREE) {
      continue;
    }
    int a = m->row[r].index;
    const double *p = d->q + a, *pd = d->v + a;
    d->phi[r] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1;
    d->gamma[r] = -2 * (pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
    if (all && dense_norms) {
      for (int k = 0; k < 4; k++) {
        MBD_AT(d->phiq, m->mrow, r, a + k) = 2 * p[k];
      }
    }
  }
  return MBD_OK;
}

/* Q_Y of body b gains QY (the ground takes nothing) */
static void add_force(const mbd_model *m, mbd_data *d, int b, const double *QY) {
  if (b <= 0) {
    return;
  }
  mbd_tree_rec *R = &d->trec[b];
  for (int k = 0; k < ny_of(m); k++) {
    R->QY[k] += QY[k];
  }
}

/* the force stage of a tree model in the recursive solve (model/forces.c for the others) */
static int rec_forces(void *ud, const mbd_model *m, mbd_data *d, mbd_error *err) {
  (void)ud;
  int ny = ny_of(m);
  double g0 = m->gravity[0], g1 = m->gravity[1];  // (read once: the records' stores may alias)
  // each body's mass matrix, gravity and velocity terms in its pose coordinates
  for (int b = 1; b < m->nbody; b++) {
    mbd_tree_rec *R = &d->trec[b];
    const mbd_body *bd = &m->body[b];
    if (ny == 3 && bd->kind == MBD_BODY_RIGID2) {
      // a planar rigid body's (body_kinds.c: planar_inertia), written out; M_Y's off-diagonal
      // entries are the zeros of the records' allocation, which nothing else writes
      double *M = R->MY, *Q = R->QY, mass = bd->mass;
      M[0] = mass;
      M[4] = mass;
      M[8] = bd->inertia[8];
      Q[0] = 0 + mass * g0;
      Q[1] = 0 + mass * g1;
      Q[2] = 0;
      continue;
    }
    memset(R->MY, 0, (size_t)ny * ny * sizeof(double));
    memset(R->QY, 0, sizeof R->QY);
    mbd_body_kind_get(m->body[b].kind)
        ->inertia(&m->body[b], m->gravity, &d->pose[b], R->MY, ny, R->QY);
  }
  // applied forces and torques, springs (forces.c) into the bodies' records
  return mbd_applied_forces(m, d, add_force, err);
}

static const mbd_eqs_hook rec_hook = {
    .rows = rec_rows, .forces = rec_forces, .ud = NULL, .need_poses = 1};

const mbd_eqs_hook *mbd_tree_rec_hook(void) { return &rec_hook; }
