/* the kinematics stage: body poses from the coordinate blocks (one pass per evaluation), and
 * the maps between velocities and position rates.  Rigid bodies in Cartesian coordinates own
 * their pose coordinates directly (J = I, h = 0, q̇ = v); other block kinds (joint trees, modal
 * blocks) fill J and h here. */
#include <string.h>

#include "kinematics.h"
#include "tree.h"

void mbd_kin_poses(const mbd_model *m, mbd_data *d) {
  if (m->tree) {
    // relative joint coordinates (paper 002): outward from the ground, unless generated
    // equations stand in for the rows and forces and nothing else reads the poses
    if (!m->eqs || m->eqs->need_poses) {
      mbd_tree_poses(m, d);
    }
    return;
  }
  mbd_body_kind_get(m->body[0].kind)->pose(NULL, NULL, &d->pose[0]);
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    mbd_pose *ps = &d->pose[b];
    // a flexible body's node: its pose and Jacobian from the owner's block (computed before it)
    if (k->pose_model) {
      k->pose_model(m, d, b, ps);
      continue;
    }
    const mbd_block *bl = &m->block[m->body[b].block];
    k->pose(d->q + bl->qadr, d->v + bl->vadr, ps);
    ps->vadr = bl->vadr;
    ps->nv = bl->nv;
    ps->ny = k->ny;
    ps->J = NULL;
  }
}

void mbd_kin_rates(const mbd_model *m, mbd_data *d) {
  // a tree's pose Jacobians and quadratic terms depend on the velocities throughout
  if (m->tree) {
    mbd_kin_poses(m, d);
    return;
  }
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    mbd_pose *ps = &d->pose[b];
    if (k->pose_model) {
      k->pose_model(m, d, b, ps);  // a node's rates come with its whole pose
      continue;
    }
    const mbd_block *bl = &m->block[m->body[b].block];
    if (k->rates) {
      k->rates(d->v + bl->vadr, ps);
    } else {
      k->pose(d->q + bl->qadr, d->v + bl->vadr, ps);
    }
  }
}

void mbd_kin_qdot(const mbd_model *m, const double *q, const double *v, double *qdot) {
  (void)q;  // every block today has q̇ = v
  for (int k = 0; k < m->nblock; k++) {
    const mbd_block *bl = &m->block[k];
    memcpy(qdot + bl->qadr, v + bl->vadr, (size_t)bl->nv * sizeof(double));
  }
}

void mbd_kin_move(const mbd_model *m, double *q, const double *dv) {
  for (int k = 0; k < m->nblock; k++) {
    const mbd_block *bl = &m->block[k];
    for (int c = 0; c < bl->nv; c++) {
      q[bl->qadr + c] += dv[bl->vadr + c];
    }
  }
}
