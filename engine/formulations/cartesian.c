/* the state of the formulations that integrate every coordinate (augmented, baumgarte,
 * udwadia_kalaba): y = [q; v], y' = [q̇(q, v); v̇].
 * q here is the positions of the blocks with velocities (q[0..nqi)): the surface parameters of
 * contacts after them are solved at every evaluation, not integrated. */
#include <string.h>

#include "formulations.h"

int mbd_cart_ny(const void *self, const mbd_model *m) {
  (void)self;
  return m->nqi + m->nv;
}

void mbd_cart_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y) {
  (void)self;
  memcpy(y, d->q, (size_t)m->nqi * sizeof(double));
  memcpy(y + m->nqi, d->v, (size_t)m->nv * sizeof(double));
}

/* q, v from y at t: nothing realized for them yet */
static void cart_state(const mbd_model *m, mbd_data *d, double t, const double *y) {
  d->t = t;
  memcpy(d->q, y, (size_t)m->nqi * sizeof(double));
  memcpy(d->v, y + m->nqi, (size_t)m->nv * sizeof(double));
  mbd_stage_touch(d, MBD_STAGE_NONE);
}

void mbd_cart_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot) {
  (void)self;
  mbd_kin_qdot(m, d->q, d->v, ydot);
  memcpy(ydot + m->nqi, d->vdot, (size_t)m->nv * sizeof(double));
}

int mbd_cart_ycoord(const void *self, const mbd_model *m, int i, int *accel) {
  (void)self;
  *accel = i >= m->nqi;
  return *accel ? i - m->nqi : i;  // blocks with q̇ = v: q index = v index
}

int mbd_form_prepare(const mbd_model *m, mbd_data *d, mbd_part *p, double t, const double *y,
                     int flags, int *solve, mbd_error *err) {
  *solve = 0;
  int rc = MBD_OK;
  if (p) {
    rc = mbd_part_state(p, m, d, t, y, flags, err);  // (the analyses: the velocities' stage)
  } else {
    cart_state(m, d, t, y);
  }
  if (rc != 0) {
    return rc;
  }
  // the rows and γ (and M, Q unless only the kinematic state is asked for)
  rc = mbd_eval_to(m, d, (flags & MBD_DERIV_KINEMATIC) ? MBD_STAGE_VELOCITY : MBD_STAGE_FORCES, err);
  *solve = rc == MBD_OK && !(flags & MBD_DERIV_KINEMATIC);
  return rc;
}
