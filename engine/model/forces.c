/* mass matrix M and generalized applied forces Q at the current poses; energy.
 *
 * Each body contributes in its pose coordinates Y (body_kinds.c: M_Y, gravity, the quadratic
 * velocity terms, the work of forces and torques); the contribution reaches the velocity
 * coordinates through the body's pose Jacobian J = ∂Ẏ/∂v:  M += Jᵀ M_Y J,  Q += Jᵀ(Q_Y − M_Y h)
 * (paper 002 eq 9–11: the velocity transformation).  For rigid bodies in Cartesian coordinates
 * J = I and h = 0: the blocks are copied in place (paper 000 eq 42–44). */
#include <math.h>
#include <string.h>

#include "model_impl.h"
#include "model_msg.h"

/* Q_v += Jᵀ Q_Y for body b (Q_Y over its ny pose coordinates) */
static void scatter_force(const mbd_model *m, mbd_data *d, int b, const double *QY) {
  const mbd_pose *ps = &d->pose[b];
  if (ps->vadr < 0) {
    return;  // the ground does no work
  }
  const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
  if (!ps->J) {
    for (int c = 0; c < k->ny; c++) {
      d->Q[ps->vadr + c] += QY[c];
    }
    return;
  }
  int nvb = ps->nv;  // the owning block (a node's is its flexible body's)
  for (int c = 0; c < nvb; c++) {
    double s = 0;
    for (int r = 0; r < k->ny; r++) {
      s += MBD_AT(ps->J, k->ny, r, c) * QY[r];
    }
    d->Q[ps->vadr + c] += s;
  }
}

/* M += Jᵀ M_Y J and Q += Jᵀ(Q_Y − M_Y h) of body b */
static void scatter_inertia(const mbd_model *m, mbd_data *d, int b, const double *MY,
                            double *QY) {
  const mbd_pose *ps = &d->pose[b];
  const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
  int n = m->nv, ny = k->ny, a = ps->vadr;
  if (!ps->J) {
    for (int c = 0; c < ny; c++) {
      for (int r = 0; r < ny; r++) {
        MBD_AT(d->M, n, a + r, a + c) = MBD_AT(MY, MBD_NY_MAX, r, c);
      }
    }
    scatter_force(m, d, b, QY);
    return;
  }
  int nvb = ps->nv;  // the owning block (a node's is its flexible body's)
  for (int r = 0; r < ny; r++) {
    for (int c = 0; c < ny; c++) {
      QY[r] -= MBD_AT(MY, MBD_NY_MAX, r, c) * ps->h[c];
    }
  }
  // Jᵀ (M_Y J) column by column, skipping the columns J does not reach (a joint tree's body
  // depends on the coordinates of its path only): O(ny²·nv + ny·nv²), not O(ny²·nv²)
  for (int j = 0; j < nvb; j++) {
    double MJ[MBD_NY_MAX], any = 0;
    for (int r = 0; r < ny; r++) {
      any += fabs(MBD_AT(ps->J, ny, r, j));
    }
    if (any == 0) {
      continue;
    }
    for (int r = 0; r < ny; r++) {
      double s = 0;
      for (int c = 0; c < ny; c++) {
        s += MBD_AT(MY, MBD_NY_MAX, r, c) * MBD_AT(ps->J, ny, c, j);
      }
      MJ[r] = s;
    }
    for (int i = 0; i < nvb; i++) {
      double s = 0;
      for (int r = 0; r < ny; r++) {
        s += MBD_AT(ps->J, ny, r, i) * MJ[r];
      }
      MBD_AT(d->M, n, a + i, a + j) += s;
    }
  }
  scatter_force(m, d, b, QY);
}

/* the generalized force T·∂c/∂Y of a scalar c given as a local row over (Y1 | Y2) */
static void scatter_row_force(const mbd_model *m, mbd_data *d, int b1, int b2, const double *J,
                              double T) {
  int bodies[2] = {b1, b2};
  for (int side = 0; side < 2; side++) {
    double QY[MBD_NY_MAX];
    for (int c = 0; c < MBD_NY_MAX; c++) {
      QY[c] = T * J[side * MBD_NY_MAX + c];
    }
    scatter_force(m, d, bodies[side], QY);
  }
}

int mbd_forces_eval(const mbd_model *m, mbd_data *d, mbd_error *err) {
  if (m->eqs) {
    return m->eqs->forces(m->eqs->ud, m, d, err);  // generated equations (paper 002)
  }
  int n = m->nv;
  // a constant mass matrix and gravity (planar rigid bodies) are built once per data; M then
  // stays as it is and Q starts from their gravity
  int keep = d->inertia_const && !m->tree;
  for (int b = 1; keep && b < m->nbody; b++) {
    keep = d->pose[b].J == NULL;  // in its own coordinates (J = I)
  }
  if (keep && d->inertia_ready) {
    memcpy(d->Q, d->Qg, (size_t)n * sizeof(double));
  } else if (mbd_sparse_on(d)) {
    // the sparse form: M is block diagonal and only its blocks are ever written (the entries
    // outside them stay zero); O(n) where the whole n×n matrix costs n²
    memset(d->Q, 0, (size_t)n * sizeof(double));
    for (int e = 0; e < d->sp->nm; e++) {
      MBD_AT(d->M, n, d->sp->mi[e], d->sp->mj[e]) = 0;
    }
  } else {
    memset(d->Q, 0, (size_t)n * sizeof(double));
    memset(d->M, 0, (size_t)n * n * sizeof(double));
  }
  // mass matrix, gravity and the quadratic velocity terms of each body
  for (int b = 1; b < m->nbody && !(keep && d->inertia_ready); b++) {
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    // a mass matrix over the whole block (flexible bodies); none at all (their nodes)
    if (k->block_inertia) {
      int rc = k->block_inertia(m, d, b, err);
      if (rc < 0) {
        return rc;
      }
      continue;
    }
    if (!k->inertia) {
      continue;
    }
    // the body's ny × ny block alone is written and read (leading dimension MBD_NY_MAX)
    double MY[MBD_NY_MAX * MBD_NY_MAX], QY[MBD_NY_MAX] = {0};
    for (int c = 0; c < k->ny; c++) {
      for (int r = 0; r < k->ny; r++) {
        MY[r + c * MBD_NY_MAX] = 0;
      }
    }
    k->inertia(&m->body[b], m->gravity, &d->pose[b], MY, MBD_NY_MAX, QY);
    scatter_inertia(m, d, b, MY, QY);
  }
  if (keep && !d->inertia_ready) {
    memcpy(d->Qg, d->Q, (size_t)n * sizeof(double));
    d->inertia_ready = 1;
  }
  return mbd_applied_forces(m, d, scatter_force, err);
}

/* applied forces and torques, translational and rotational spring-dampers: each body's share as
 * a generalized force over its pose Y, handed to sink (the Cartesian scatter above, or the
 * recursive solve's per-body records) */
int mbd_applied_forces(const mbd_model *m, mbd_data *d, mbd_force_sink sink, mbd_error *err) {
  // applied forces and torques (global frame), constant or from callbacks
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    double val[3];
    memcpy(val, f->value, sizeof val);
    if (f->fn) {
      int rc = f->fn(f->ud, d->t, m, d, val, err);
      if (rc < 0) {
        return rc;
      }
      // planar: a force has 2 components, a torque 1; spatial: 3 each
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
      // a planar torque is the number val[0] about z
      double T[3] = {m->dim == 3 ? val[0] : 0, m->dim == 3 ? val[1] : 0,
                     m->dim == 3 ? val[2] : val[0]};
      k->torque(&d->pose[f->body], T, QY);
    }
    sink(m, d, f->body, QY);
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
      if (bs[side] <= 0) {
        continue;  // the ground does no work
      }
      double QY[MBD_NY_MAX] = {0};
      mbd_body_kind_get(m->body[bs[side]].kind)->point_force(&d->pose[bs[side]], at[side], F[side], QY);
      sink(m, d, bs[side], QY);
    }
  }
  // rotational spring-dampers on a joint's relative angle θ: Q += T ∂θ/∂Y (δW = T δθ exactly)
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
      sink(m, d, bs[side], QY);
    }
  }
  return MBD_OK;
}

double mbd_energy(const mbd_model *m, const mbd_data *d) {
  double e = 0;
  // kinetic and gravitational (zero at the origin's height)
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    if (k->block_energy) {
      e += k->block_energy(m, d, b);
    } else if (k->energy) {
      e += k->energy(&m->body[b], m->gravity, &d->pose[b]);
    }
  }
  // spring potentials
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[3], v1[3], p2[3], v2[3];
    mbd_point_state(m, d, s->body1, s->at1, p1, v1);
    mbd_point_state(m, d, s->body2, s->at2, p2, v2);
    double l = sqrt((p2[0] - p1[0]) * (p2[0] - p1[0]) + (p2[1] - p1[1]) * (p2[1] - p1[1]) +
                    (p2[2] - p1[2]) * (p2[2] - p1[2]));
    e += 0.5 * s->k * (l - s->length) * (l - s->length);
  }
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    mbd_row o;
    mbd_joint_coord_row(m, d, r->joint, MBD_COORD_ANGLE, &o);
    e += 0.5 * r->k * (o.val - r->angle) * (o.val - r->angle);
  }
  return e;
}

void mbd_forces_add_point(const mbd_model *m, mbd_data *d, int b, const double *s,
                          const double *F) {
  if (d->pose[b].vadr < 0) {
    return;  // the ground does no work
  }
  double QY[MBD_NY_MAX] = {0};
  mbd_body_kind_get(m->body[b].kind)->point_force(&d->pose[b], s, F, QY);
  scatter_force(m, d, b, QY);
}

void mbd_forces_add_row(const mbd_model *m, mbd_data *d, int b1, int b2, const double *J,
                        double T) {
  scatter_row_force(m, d, b1, b2, J, T);
}
