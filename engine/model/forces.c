/* mass matrix M(q) and generalized applied forces Q(t, q, q̇); energy.
 *
 * Planar body i: M_i = diag(m, m, J); a force F at body point s' adds [F; (B s')ᵀF] to Q_i
 * (the moment of F about the CM: paper 000 eq 42–44 with B = dA/dθ); a torque T adds [0; 0; T]. */
#include <math.h>
#include <string.h>

#include "model_impl.h"

/* add a global force F at body point s (body frame) to Q */
static void add_point_force(const mbd_model *m, mbd_data *d, int b, const double *s,
                            const double *F) {
  int a = m->body[b].qadr;
  if (a < 0) {
    return;  // force on the ground does no work
  }
  double th = d->q[a + 2], c = cos(th), sn = sin(th);
  double As0 = c * s[0] - sn * s[1], As1 = sn * s[0] + c * s[1];
  d->Q[a] += F[0];
  d->Q[a + 1] += F[1];
  d->Q[a + 2] += As0 * F[1] - As1 * F[0];
}

static void add_torque(const mbd_model *m, mbd_data *d, int b, double T) {
  int a = m->body[b].qadr;
  if (a >= 0) {
    d->Q[a + 2] += T;
  }
}

/* global position and velocity of a body point */
static void point_state(const mbd_model *m, const mbd_data *d, int b, const double *s, double *p,
                        double *v) {
  double r[2], th, rv[2], w;
  mbd_body_state(m, d, b, r, &th, rv, &w);
  double c = cos(th), sn = sin(th);
  double As0 = c * s[0] - sn * s[1], As1 = sn * s[0] + c * s[1];
  p[0] = r[0] + As0;
  p[1] = r[1] + As1;
  v[0] = rv[0] - As1 * w;
  v[1] = rv[1] + As0 * w;
}

int mbd_forces_eval(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->n;
  memset(d->Q, 0, (size_t)n * sizeof(double));
  memset(d->M, 0, (size_t)n * n * sizeof(double));
  if (m->dim == 3) {
    return mbd_forces_eval3(m, d, err);  // Euler-parameter equations of motion (forces3.c)
  }
  // mass matrix and gravity
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    int a = bd->qadr;
    MBD_AT(d->M, n, a, a) = bd->mass;
    MBD_AT(d->M, n, a + 1, a + 1) = bd->mass;
    MBD_AT(d->M, n, a + 2, a + 2) = bd->inertia[8];
    d->Q[a] += bd->mass * m->gravity[0];
    d->Q[a + 1] += bd->mass * m->gravity[1];
  }
  // applied forces and torques, constant or from callbacks
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    double val[3];
    memcpy(val, f->value, sizeof val);
    if (f->fn) {
      int rc = f->fn(f->ud, d->t, m, d, val, err);
      if (rc < 0) {
        return rc;
      }
      int nv = f->kind == FORCE_TORQUE ? 1 : 2;
      for (int k = 0; k < nv; k++) {
        if (!isfinite(val[k])) {
          return MBD_FAIL(err, MBD_E_NAN, "%s on body '%s': function returned %g at t = %g",
                          f->kind == FORCE_TORQUE ? "torque" : "force", m->body[f->body].name,
                          val[k], d->t);
        }
      }
    }
    if (f->kind == FORCE_POINT) {
      add_point_force(m, d, f->body, f->at, val);
    } else {
      add_torque(m, d, f->body, val[0]);
    }
  }
  // translational spring-dampers: tension f = k(l − L) + c l̇ pulls the points together
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[2], v1[2], p2[2], v2[2];
    point_state(m, d, s->body1, s->at1, p1, v1);
    point_state(m, d, s->body2, s->at2, p2, v2);
    double dx = p2[0] - p1[0], dy = p2[1] - p1[1];
    double l = sqrt(dx * dx + dy * dy);
    if (l < 1e-12) {
      return MBD_FAIL(err, MBD_E_SINGULAR,
                      "spring '%s': the two points coincide at t = %g (direction undefined)",
                      s->name, d->t);
    }
    double ex = dx / l, ey = dy / l;
    double ldot = ex * (v2[0] - v1[0]) + ey * (v2[1] - v1[1]);
    double f = s->k * (l - s->length) + s->c * ldot;
    double F1[2] = {f * ex, f * ey}, F2[2] = {-f * ex, -f * ey};
    add_point_force(m, d, s->body1, s->at1, F1);
    add_point_force(m, d, s->body2, s->at2, F2);
  }
  // rotational spring-dampers on revolute joints
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    const mbd_joint *j = &m->joint[r->joint];
    double ang, rate;
    mbd_joint_coord(m, d, r->joint, &ang, &rate);
    double T = -r->k * (ang - r->angle) - r->c * rate;
    add_torque(m, d, j->body2, T);
    add_torque(m, d, j->body1, -T);
  }
  return MBD_OK;
}

double mbd_energy(const mbd_model *m, const mbd_data *d) {
  if (m->dim == 3) {
    return mbd_energy3(m, d);
  }
  double e = 0;
  // kinetic and gravitational (zero at the origin's height)
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    int a = bd->qadr;
    double vx = d->qd[a], vy = d->qd[a + 1], w = d->qd[a + 2];
    e += 0.5 * bd->mass * (vx * vx + vy * vy) + 0.5 * bd->inertia[8] * w * w;
    e -= bd->mass * (m->gravity[0] * d->q[a] + m->gravity[1] * d->q[a + 1]);
  }
  // spring potentials
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[2], v1[2], p2[2], v2[2];
    point_state(m, d, s->body1, s->at1, p1, v1);
    point_state(m, d, s->body2, s->at2, p2, v2);
    double l = hypot(p2[0] - p1[0], p2[1] - p1[1]);
    e += 0.5 * s->k * (l - s->length) * (l - s->length);
  }
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    double ang, rate;
    mbd_joint_coord(m, d, r->joint, &ang, &rate);
    e += 0.5 * r->k * (ang - r->angle) * (ang - r->angle);
  }
  return e;
}
