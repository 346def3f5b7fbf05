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
    memset(d->phiq, 0, (size_t)m->mrow * m->nv * sizeof(double));
    memset(d->phit, 0, (size_t)m->mrow * sizeof(double));
  }
  // the cut joints' equations; the spatial relative angles' memos follow every joint
  for (int ji = 0; ji < m->njoint; ji++) {
    const mbd_joint *j = &m->joint[ji];
    const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
    mbd_row rows[MBD_JOINT_MAXROW];
    if (j->nrow > 0) {
      jt->rows[dx](m, d, j, rows);
    }
    for (int k = 0; k < j->nrow; k++) {
      put_row(m, d, j->row0 + k, j->body1, j->body2, &rows[k], -rows[k].h, all);
    }
    if (dx == 1 && jt->angle_coord[1] >= 0) {
      d->angle_memo[ji] = mbd_joint_angle_value(m, d, ji);
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
  // the norms of spherical and floating joints' Euler parameters: Φq = 2pᵀ, γ = −2ṗᵀṗ
  for (int r = 0; r < m->mrow; r++) {
    if (m->row[r].owner != MBD_ROW_TREE) {
      continue;
    }
    int a = m->row[r].index;
    const double *p = d->q + a, *pd = d->v + a;
    d->phi[r] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1;
    d->gamma[r] = -2 * (pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
    if (all) {
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
  // each body's mass matrix, gravity and velocity terms in its pose coordinates
  for (int b = 1; b < m->nbody; b++) {
    mbd_tree_rec *R = &d->trec[b];
    memset(R->MY, 0, (size_t)ny * ny * sizeof(double));
    memset(R->QY, 0, sizeof R->QY);
    mbd_body_kind_get(m->body[b].kind)
        ->inertia(&m->body[b], m->gravity, &d->pose[b], R->MY, ny, R->QY);
  }
  // applied forces and torques (global frame), constant or from callbacks (forces.c)
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    double val[3];
    memcpy(val, f->value, sizeof val);
    if (f->fn) {
      int rc = f->fn(f->ud, d->t, m, d, val, err);
      if (rc < 0) {
        return rc;
      }
      int nv = m->dim == 3 ? 3 : (f->kind == FORCE_TORQUE ? 1 : 2);
      for (int k = 0; k < nv; k++) {
        if (!isfinite(val[k])) {
          return MBD_FAIL(err, MBD_E_NAN, MSG_MODEL_FORCE_VALUE,
                          f->kind == FORCE_TORQUE ? "torque" : "force", m->body[f->body].name,
                          val[k], d->t);
        }
      }
    }
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[f->body].kind);
    double QY[MBD_NY_MAX] = {0};
    if (f->kind == FORCE_POINT) {
      double F[3] = {val[0], val[1], m->dim == 3 ? val[2] : 0};
      k->point_force(&d->pose[f->body], f->at, F, QY);
    } else {
      double T[3] = {m->dim == 3 ? val[0] : 0, m->dim == 3 ? val[1] : 0,
                     m->dim == 3 ? val[2] : val[0]};
      k->torque(&d->pose[f->body], T, QY);
    }
    add_force(m, d, f->body, QY);
  }
  // translational spring-dampers: tension k(l − L) + c l̇ pulls the points together
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[3], v1[3], p2[3], v2[3], e[3];
    mbd_point_state(m, d, s->body1, s->at1, p1, v1);
    mbd_point_state(m, d, s->body2, s->at2, p2, v2);
    for (int k = 0; k < 3; k++) {
      e[k] = p2[k] - p1[k];
    }
    double l = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (l < 1e-12) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_MODEL_SPRING_COINCIDE, s->name, d->t);
    }
    double ldot = 0;
    for (int k = 0; k < 3; k++) {
      e[k] /= l;
      ldot += e[k] * (v2[k] - v1[k]);
    }
    double f = s->k * (l - s->length) + s->c * ldot;
    double F1[3] = {f * e[0], f * e[1], f * e[2]}, F2[3] = {-F1[0], -F1[1], -F1[2]};
    int bs[2] = {s->body1, s->body2};
    const double *at[2] = {s->at1, s->at2}, *F[2] = {F1, F2};
    for (int side = 0; side < 2; side++) {
      if (bs[side] > 0) {
        double QY[MBD_NY_MAX] = {0};
        mbd_body_kind_get(m->body[bs[side]].kind)
            ->point_force(&d->pose[bs[side]], at[side], F[side], QY);
        add_force(m, d, bs[side], QY);
      }
    }
  }
  // rotational spring-dampers on a joint's relative angle θ: Q_Y += T ∂θ/∂Y on both bodies
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    const mbd_joint *j = &m->joint[r->joint];
    mbd_row o;
    mbd_joint_coord_row(m, d, r->joint, MBD_COORD_ANGLE, &o);
    double T = -r->k * (o.val - r->angle) - r->c * o.rate;
    int bs[2] = {j->body1, j->body2};
    for (int side = 0; side < 2; side++) {
      double QY[MBD_NY_MAX];
      for (int c = 0; c < MBD_NY_MAX; c++) {
        QY[c] = T * o.J[side * MBD_NY_MAX + c];
      }
      add_force(m, d, bs[side], QY);
    }
  }
  return MBD_OK;
}

static const mbd_eqs_hook rec_hook = {
    .rows = rec_rows, .forces = rec_forces, .ud = NULL, .need_poses = 1};

const mbd_eqs_hook *mbd_tree_rec_hook(void) { return &rec_hook; }
