/* spatial bodies: mass matrix M(q), generalized applied forces Q(t, q, q̇) and energy in the
 * Euler-parameter form of the equations of motion (Nikravesh, Computer-Aided Analysis of
 * Mechanical Systems, ch. 11), so every formulation works on (q, q̇) = ((r, p), (ṙ, ṗ)):
 *
 *   M_i = diag(m I₃, 4 Gᵀ J' G),   Q_i = [ m g + Σ F ;  2 Gᵀ n' + 8 Ġᵀ J' Ġ p ]
 *
 * with n' the applied moment about the centre of mass in the body frame and Ġ = G(ṗ).  From the
 * kinetic energy T = ½ ω'ᵀJ'ω' = 2 ṗᵀGᵀJ'Gṗ (ω' = 2Gṗ): d/dt ∂T/∂ṗ − ∂T/∂p = 4GᵀJ'G p̈ − 8ĠᵀJ'Ġp,
 * using Ġṗ = 0 and Gṗ = −Ġp.  Since Ġp = −ω'/2, the quadratic term is 8ĠᵀJ'Ġp = −4ĠᵀJ'ω': this
 * carries the gyroscopic moment −ω̃'J'ω'.  4GᵀJ'G is singular along p; the normalization row
 * pᵀp − 1 = 0 of the constraint set fixes that direction, so [M Φqᵀ; Φq 0] is regular. */
#include <math.h>
#include <string.h>

#include "model_impl.h"

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Q_p += 2 Gᵀ n' for a body-frame moment n' */
static void add_moment_body(mbd_data *d, int a, const double *nb) {
  double G[12];
  mbd_ep_G(d->q + a + 3, G);
  for (int k = 0; k < 4; k++) {
    d->Q[a + 3 + k] += 2 * (G[k] * nb[0] + G[4 + k] * nb[1] + G[8 + k] * nb[2]);
  }
}

/* a global force F at body point s' (body frame): Q_r += F, n' = s' × AᵀF */
static void add_point_force(const mbd_model *m, mbd_data *d, int b, const double *s,
                            const double *F) {
  int a = m->body[b].qadr;
  if (a < 0) {
    return;  // the ground does no work
  }
  double A[9], Fb[3], nb[3];
  mbd_ep_A(d->q + a + 3, A);
  for (int i = 0; i < 3; i++) {
    d->Q[a + i] += F[i];
    Fb[i] = A[i] * F[0] + A[3 + i] * F[1] + A[6 + i] * F[2];
  }
  cross3(s, Fb, nb);
  add_moment_body(d, a, nb);
}

/* a global torque T: n' = AᵀT */
static void add_torque(const mbd_model *m, mbd_data *d, int b, const double *T) {
  int a = m->body[b].qadr;
  if (a < 0) {
    return;
  }
  double A[9], nb[3];
  mbd_ep_A(d->q + a + 3, A);
  for (int i = 0; i < 3; i++) {
    nb[i] = A[i] * T[0] + A[3 + i] * T[1] + A[6 + i] * T[2];
  }
  add_moment_body(d, a, nb);
}

/* global position and velocity of a body point: r + A s', ṙ + B(p, s') ṗ */
static void point_state(const mbd_model *m, const mbd_data *d, int b, const double *s, double *P,
                        double *V) {
  int a = m->body[b].qadr;
  if (a < 0) {
    memcpy(P, s, 3 * sizeof(double));
    memset(V, 0, 3 * sizeof(double));
    return;
  }
  const double *p = d->q + a + 3, *pd = d->qd + a + 3;
  double A[9], B[12];
  mbd_ep_A(p, A);
  mbd_ep_B(p, s, B);
  for (int i = 0; i < 3; i++) {
    P[i] = d->q[a + i] + A[3 * i] * s[0] + A[3 * i + 1] * s[1] + A[3 * i + 2] * s[2];
    V[i] = d->qd[a + i] + B[4 * i] * pd[0] + B[4 * i + 1] * pd[1] + B[4 * i + 2] * pd[2] +
           B[4 * i + 3] * pd[3];
  }
}

/* body-frame angular velocity ω' = 2Gṗ */
static void omega_body(const double *p, const double *pd, double *w) {
  double G[12];
  mbd_ep_G(p, G);
  for (int i = 0; i < 3; i++) {
    w[i] = 2 * (G[4 * i] * pd[0] + G[4 * i + 1] * pd[1] + G[4 * i + 2] * pd[2] +
                G[4 * i + 3] * pd[3]);
  }
}

int mbd_forces_eval3(const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = m->n;
  // mass matrix, gravity and the quadratic velocity terms of each body
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    int a = bd->qadr;
    const double *p = d->q + a + 3, *pd = d->qd + a + 3, *J = bd->inertia;
    for (int i = 0; i < 3; i++) {
      MBD_AT(d->M, n, a + i, a + i) = bd->mass;
      d->Q[a + i] += bd->mass * m->gravity[i];
    }
    double G[12], JG[12];
    mbd_ep_G(p, G);
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 4; k++) {
        JG[4 * i + k] = J[3 * i] * G[k] + J[3 * i + 1] * G[4 + k] + J[3 * i + 2] * G[8 + k];
      }
    }
    // 4 Gᵀ J' G
    for (int k = 0; k < 4; k++) {
      for (int l = 0; l < 4; l++) {
        MBD_AT(d->M, n, a + 3 + k, a + 3 + l) =
            4 * (G[k] * JG[l] + G[4 + k] * JG[4 + l] + G[8 + k] * JG[8 + l]);
      }
    }
    // 8 ĠᵀJ'Ġp = −4 G(ṗ)ᵀ J'ω'
    double w[3], Jw[3], Gd[12];
    omega_body(p, pd, w);
    for (int i = 0; i < 3; i++) {
      Jw[i] = J[3 * i] * w[0] + J[3 * i + 1] * w[1] + J[3 * i + 2] * w[2];
    }
    mbd_ep_G(pd, Gd);
    for (int k = 0; k < 4; k++) {
      d->Q[a + 3 + k] -= 4 * (Gd[k] * Jw[0] + Gd[4 + k] * Jw[1] + Gd[8 + k] * Jw[2]);
    }
  }
  // applied forces and torques (global), constant or from callbacks
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    double val[3];
    memcpy(val, f->value, sizeof val);
    if (f->fn) {
      int rc = f->fn(f->ud, d->t, m, d, val, err);
      if (rc < 0) {
        return rc;
      }
      for (int k = 0; k < 3; k++) {
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
      add_torque(m, d, f->body, val);
    }
  }
  // translational spring-dampers: tension k(l − L) + c l̇ pulls the points together
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[3], v1[3], p2[3], v2[3], e[3];
    point_state(m, d, s->body1, s->at1, p1, v1);
    point_state(m, d, s->body2, s->at2, p2, v2);
    for (int k = 0; k < 3; k++) {
      e[k] = p2[k] - p1[k];
    }
    double l = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (l < 1e-12) {
      return MBD_FAIL(err, MBD_E_SINGULAR,
                      "spring '%s': the two points coincide at t = %g (direction undefined)",
                      s->name, d->t);
    }
    double ldot = 0;
    for (int k = 0; k < 3; k++) {
      e[k] /= l;
      ldot += e[k] * (v2[k] - v1[k]);
    }
    double f = s->k * (l - s->length) + s->c * ldot;
    double F1[3] = {f * e[0], f * e[1], f * e[2]}, F2[3] = {-F1[0], -F1[1], -F1[2]};
    add_point_force(m, d, s->body1, s->at1, F1);
    add_point_force(m, d, s->body2, s->at2, F2);
  }
  // rotational spring-dampers on a joint's relative angle: Q += T ∂θ/∂q (δW = T δθ exactly)
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    const mbd_joint *j = &m->joint[r->joint];
    double ang, rate, J[14];
    mbd_spatial_coord_row(m, d, r->joint, 0, &ang, &rate, J, NULL);
    double T = -r->k * (ang - r->angle) - r->c * rate;
    int bodies[2] = {j->body1, j->body2};
    for (int side = 0; side < 2; side++) {
      int a = m->body[bodies[side]].qadr;
      if (a < 0) {
        continue;
      }
      for (int c = 0; c < 7; c++) {
        d->Q[a + c] += T * J[7 * side + c];
      }
    }
  }
  return MBD_OK;
}

double mbd_energy3(const mbd_model *m, const mbd_data *d) {
  double e = 0;
  // kinetic ½m|ṙ|² + ½ω'ᵀJ'ω', gravitational −m g·r
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    int a = bd->qadr;
    const double *v = d->qd + a, *J = bd->inertia;
    double w[3];
    omega_body(d->q + a + 3, d->qd + a + 3, w);
    double rot = 0;
    for (int i = 0; i < 3; i++) {
      rot += w[i] * (J[3 * i] * w[0] + J[3 * i + 1] * w[1] + J[3 * i + 2] * w[2]);
    }
    e += 0.5 * bd->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * rot;
    for (int i = 0; i < 3; i++) {
      e -= bd->mass * m->gravity[i] * d->q[a + i];
    }
  }
  // spring potentials
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double p1[3], v1[3], p2[3], v2[3];
    point_state(m, d, s->body1, s->at1, p1, v1);
    point_state(m, d, s->body2, s->at2, p2, v2);
    double l = sqrt((p2[0] - p1[0]) * (p2[0] - p1[0]) + (p2[1] - p1[1]) * (p2[1] - p1[1]) +
                    (p2[2] - p1[2]) * (p2[2] - p1[2]));
    e += 0.5 * s->k * (l - s->length) * (l - s->length);
  }
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    double ang, rate;
    mbd_spatial_joint_coord(m, d, r->joint, 0, &ang, &rate);
    e += 0.5 * r->k * (ang - r->angle) * (ang - r->angle);
  }
  return e;
}
