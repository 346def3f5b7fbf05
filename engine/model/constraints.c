/* constraint equations: Φ, Φq, Φt and γ of every joint and drive, analytically.
 *
 * Each element fills a local block: rows × [body1 coordinates | body2 coordinates], scattered into
 * the global Φq (mrow × n, column-major).  γ = −(Φq q̇)q q̇ − 2Φqt q̇ − Φtt (paper 000 eq 7).
 * Planar references: Haug, Computer-Aided Kinematics and Dynamics, ch. 3; Nikravesh ch. 5. */
#include <math.h>
#include <string.h>

#include "model_impl.h"

/* planar pose of a body: r, θ, ṙ, ω (ground: zero) */
void mbd_body_state(const mbd_model *m, const mbd_data *d, int b, double *r, double *theta,
                    double *v, double *omega) {
  int a = m->body[b].qadr;
  if (a < 0) {
    r[0] = r[1] = 0;
    v[0] = v[1] = 0;
    *theta = 0;
    *omega = 0;
    return;
  }
  r[0] = d->q[a];
  r[1] = d->q[a + 1];
  *theta = d->q[a + 2];
  v[0] = d->qd[a];
  v[1] = d->qd[a + 1];
  *omega = d->qd[a + 2];
}

/* one side of a planar joint: the body's pose and its point s' expressed in the global frame */
typedef struct side2 {
  double r[2], v[2], th, w;
  double As[2];  /* A s' */
  double Bs[2];  /* B s' = dA/dθ s' = R90 A s' */
} side2;

static void side_make(const mbd_model *m, const mbd_data *d, int b, const double *s, side2 *o) {
  mbd_body_state(m, d, b, o->r, &o->th, o->v, &o->w);
  double c = cos(o->th), sn = sin(o->th);
  o->As[0] = c * s[0] - sn * s[1];
  o->As[1] = sn * s[0] + c * s[1];
  o->Bs[0] = -o->As[1];
  o->Bs[1] = o->As[0];
}

/* rotate a body-1 vector into the global frame */
static void rot2(double th, const double *v, double *o) {
  double c = cos(th), s = sin(th);
  o[0] = c * v[0] - s * v[1];
  o[1] = s * v[0] + c * v[1];
}

/* d = r2 + A2 s2 − r1 − A1 s1 and its rate */
static void sep2(const side2 *p1, const side2 *p2, double *dv, double *ddot) {
  for (int k = 0; k < 2; k++) {
    dv[k] = p2->r[k] + p2->As[k] - p1->r[k] - p1->As[k];
    ddot[k] = p2->v[k] + p2->Bs[k] * p2->w - p1->v[k] - p1->Bs[k] * p1->w;
  }
}

/* revolute rows (2): Φ = d; local J = [−I, −B1 s1 | I, B2 s2]; γ = A2s2 ω2² − A1s1 ω1² */
static void revolute2(const side2 *p1, const side2 *p2, double *phi, double *J, int ldj,
                      double *gam) {
  double dv[2], dd[2];
  sep2(p1, p2, dv, dd);
  for (int k = 0; k < 2; k++) {
    phi[k] = dv[k];
    MBD_AT(J, ldj, k, k) = -1;
    MBD_AT(J, ldj, k, 2) = -p1->Bs[k];
    MBD_AT(J, ldj, k, 3 + k) = 1;
    MBD_AT(J, ldj, k, 5) = p2->Bs[k];
    gam[k] = p2->As[k] * p2->w * p2->w - p1->As[k] * p1->w * p1->w;
  }
}

/* angle row: θ2 − θ1 − c; J = [0 0 −1 | 0 0 1]; γ = 0 */
static void angle2(const side2 *p1, const side2 *p2, double c, double *phi, double *J, int ldj,
                   int row, double *gam) {
  *phi = p2->th - p1->th - c;
  MBD_AT(J, ldj, row, 2) = -1;
  MBD_AT(J, ldj, row, 5) = 1;
  *gam = 0;
}

/* translational row: f = nᵀd with n = A1 n', n' = R90 v' (v' = axis1).
 * ∂f/∂r1 = −nᵀ, ∂f/∂θ1 = −uᵀd − nᵀB1s1, ∂f/∂r2 = nᵀ, ∂f/∂θ2 = nᵀB2s2 (u = A1 v');
 * γ = ω1² nᵀd + 2ω1 uᵀḋ + nᵀ(A2s2 ω2² − A1s1 ω1²) */
static void transl2(const side2 *p1, const side2 *p2, const double *axis, double *phi, double *J,
                    int ldj, int row, double *gam) {
  double u[2], n[2], dv[2], dd[2];
  rot2(p1->th, axis, u);
  n[0] = -u[1];
  n[1] = u[0];
  sep2(p1, p2, dv, dd);
  *phi = n[0] * dv[0] + n[1] * dv[1];
  MBD_AT(J, ldj, row, 0) = -n[0];
  MBD_AT(J, ldj, row, 1) = -n[1];
  MBD_AT(J, ldj, row, 2) = -(u[0] * dv[0] + u[1] * dv[1]) - (n[0] * p1->Bs[0] + n[1] * p1->Bs[1]);
  MBD_AT(J, ldj, row, 3) = n[0];
  MBD_AT(J, ldj, row, 4) = n[1];
  MBD_AT(J, ldj, row, 5) = n[0] * p2->Bs[0] + n[1] * p2->Bs[1];
  double w1 = p1->w, w2 = p2->w;
  *gam = w1 * w1 * (n[0] * dv[0] + n[1] * dv[1]) + 2 * w1 * (u[0] * dd[0] + u[1] * dd[1]) +
         n[0] * (p2->As[0] * w2 * w2 - p1->As[0] * w1 * w1) +
         n[1] * (p2->As[1] * w2 * w2 - p1->As[1] * w1 * w1);
}

/* displacement along u = A1 v': s = uᵀd.  ∂s/∂r1 = −uᵀ, ∂s/∂θ1 = nᵀd − uᵀB1s1, ∂s/∂r2 = uᵀ,
 * ∂s/∂θ2 = uᵀB2s2; quadratic part of s̈: −ω1² uᵀd + 2ω1 nᵀḋ − uᵀ(A2s2 ω2² − A1s1 ω1²) */
static void displacement2(const side2 *p1, const side2 *p2, const double *axis, double *s,
                          double *sdot, double *J, int ldj, int row, double *quad) {
  double u[2], n[2], dv[2], dd[2];
  rot2(p1->th, axis, u);
  n[0] = -u[1];
  n[1] = u[0];
  sep2(p1, p2, dv, dd);
  *s = u[0] * dv[0] + u[1] * dv[1];
  *sdot = u[0] * dd[0] + u[1] * dd[1] + p1->w * (n[0] * dv[0] + n[1] * dv[1]);
  if (J) {
    MBD_AT(J, ldj, row, 0) = -u[0];
    MBD_AT(J, ldj, row, 1) = -u[1];
    MBD_AT(J, ldj, row, 2) = (n[0] * dv[0] + n[1] * dv[1]) - (u[0] * p1->Bs[0] + u[1] * p1->Bs[1]);
    MBD_AT(J, ldj, row, 3) = u[0];
    MBD_AT(J, ldj, row, 4) = u[1];
    MBD_AT(J, ldj, row, 5) = u[0] * p2->Bs[0] + u[1] * p2->Bs[1];
  }
  if (quad) {
    double w1 = p1->w, w2 = p2->w;
    *quad = -w1 * w1 * (u[0] * dv[0] + u[1] * dv[1]) + 2 * w1 * (n[0] * dd[0] + n[1] * dd[1]) -
            (u[0] * (p2->As[0] * w2 * w2 - p1->As[0] * w1 * w1) +
             u[1] * (p2->As[1] * w2 * w2 - p1->As[1] * w1 * w1));
  }
}

void mbd_joint_coord(const mbd_model *m, const mbd_data *d, int ji, double *value, double *rate) {
  const mbd_joint *j = &m->joint[ji];
  if (m->dim == 3) {
    mbd_spatial_joint_coord(m, d, ji, j->type == MBD_JOINT_TRANSLATIONAL, value, rate);
    return;
  }
  side2 p1, p2;
  side_make(m, d, j->body1, j->at1, &p1);
  side_make(m, d, j->body2, j->at2, &p2);
  if (j->type == MBD_JOINT_TRANSLATIONAL) {
    displacement2(&p1, &p2, j->axis1, value, rate, NULL, 0, 0, NULL);
  } else {
    *value = p2.th - p1.th;
    *rate = p2.w - p1.w;
  }
}

/* scatter a local block (nrow × 2nc, ld = ldj) into Φq rows row0.. */
static void scatter(const mbd_model *m, mbd_data *d, int row0, int nrow, int b1, int b2,
                    const double *J, int ldj) {
  int bodies[2] = {b1, b2};
  for (int side = 0; side < 2; side++) {
    int a = m->body[bodies[side]].qadr;
    if (a < 0) {
      continue;
    }
    for (int c = 0; c < m->nc; c++) {
      for (int r = 0; r < nrow; r++) {
        MBD_AT(d->phiq, m->mrow, row0 + r, a + c) += MBD_AT(J, ldj, r, side * m->nc + c);
      }
    }
  }
}

int mbd_constraints_eval(const mbd_model *m, mbd_data *d, int want_gamma, mbd_error *err) {
  if (m->dim == 3) {
    memset(d->phiq, 0, (size_t)m->mrow * m->n * sizeof(double));
    memset(d->phit, 0, (size_t)m->mrow * sizeof(double));
    return mbd_constraints_eval3(m, d, err);  // spatial joints, drives, norms (spatial.c)
  }
  // MBD_EVAL_GAMMA: q unchanged since the last evaluation, only q̇ moved — Φ, Φq and Φt stand,
  // γ is recomputed (the local blocks are still formed, but not cleared and scattered)
  int all = want_gamma != MBD_EVAL_GAMMA;
  if (all) {
    memset(d->phiq, 0, (size_t)m->mrow * m->n * sizeof(double));
    memset(d->phit, 0, (size_t)m->mrow * sizeof(double));
  }
  // joints
  for (int ji = 0; ji < m->njoint; ji++) {
    const mbd_joint *j = &m->joint[ji];
    double J[3 * 6];
    memset(J, 0, sizeof J);
    side2 p1, p2;
    side_make(m, d, j->body1, j->at1, &p1);
    side_make(m, d, j->body2, j->at2, &p2);
    double *phi = d->phi + j->row0, *gam = d->gamma + j->row0;
    switch (j->type) {
      case MBD_JOINT_REVOLUTE:
        revolute2(&p1, &p2, phi, J, 3, gam);
        break;
      case MBD_JOINT_TRANSLATIONAL:
        transl2(&p1, &p2, j->axis1, phi, J, 3, 0, gam);
        angle2(&p1, &p2, j->angle0, phi + 1, J, 3, 1, gam + 1);
        break;
      case MBD_JOINT_FIXED:
        revolute2(&p1, &p2, phi, J, 3, gam);
        angle2(&p1, &p2, j->angle0, phi + 2, J, 3, 2, gam + 2);
        break;
      default:
        return MBD_FAIL(err, MBD_E_INPUT, "joint '%s': type not available in planar models",
                        j->name);
    }
    if (all) {
      scatter(m, d, j->row0, j->nrow, j->body1, j->body2, J, 3);
    }
  }
  // drives: coordinate(q) − f(t) = 0; Φt = −f'; γ = f'' − quadratic part of the coordinate
  for (int di = 0; di < m->ndrive; di++) {
    const mbd_drive *dr = &m->drive[di];
    const mbd_joint *j = &m->joint[dr->joint];
    double f[3] = {0, 0, 0};
    int rc = dr->fn(dr->ud, d->t, f, err);
    if (rc < 0) {
      return rc;
    }
    if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
      return MBD_FAIL(err, MBD_E_NAN, "drive on joint '%s': position function gave %g at t = %g",
                      j->name, f[0], d->t);
    }
    double J[6];
    memset(J, 0, sizeof J);
    side2 p1, p2;
    side_make(m, d, j->body1, j->at1, &p1);
    side_make(m, d, j->body2, j->at2, &p2);
    double coord, rate, quad = 0;
    if (j->type == MBD_JOINT_TRANSLATIONAL) {
      displacement2(&p1, &p2, j->axis1, &coord, &rate, J, 1, 0, &quad);
    } else {
      coord = p2.th - p1.th;
      J[2] = -1;
      J[5] = 1;
    }
    d->phi[dr->row] = coord - f[0];
    d->phit[dr->row] = -f[1];
    d->gamma[dr->row] = f[2] - quad;
    if (all) {
      scatter(m, d, dr->row, 1, j->body1, j->body2, J, 1);
    }
  }
  return MBD_OK;
}

void mbd_constraints_gather(const mbd_model *m, mbd_data *d) {
  for (int k = 0; k < m->ma; k++) {
    int r = m->active[k];
    d->phi_a[k] = d->phi[r];
    d->gamma_a[k] = d->gamma[r];
    d->phit_a[k] = d->phit[r];
    for (int c = 0; c < m->n; c++) {
      MBD_AT(d->phiq_a, m->ma, k, c) = MBD_AT(d->phiq, m->mrow, r, c);
    }
  }
}
