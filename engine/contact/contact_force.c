/* contact forces: the normal force and the sticking friction from the multipliers (paper 001
 * eq 31–34: N = −λ of the gap row, F_t = −Σ λ_k t_k of the rolling rows on body 2), and the
 * friction forces of sliding contacts, which depend on N (eq 30):
 *   coulomb      F = −μ N d, d the slip direction (planar: ±t for the whole slip segment, whose
 *                end is the event where the slip speed crosses zero; spatial: v_t/|v_t|, the
 *                segment's direction while v_t = 0)
 *   regularized  F = −min(β |v_t|, μ N) v_t/|v_t| (paper 001 Fig. 11)
 * applied at the contact point: F on body 2, −F on body 1. */
#include <math.h>
#include <string.h>

#include "contact_impl.h"

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void mbd_contact_read_forces(const mbd_model *m, mbd_data *d, int c) {
  const mbd_contact *ct = &m->contact[c];
  mbd_contact_state *cs = &d->cstate[c];
  if (cs->mode == MBD_CMODE_OPEN) {
    cs->N = 0;
    memset(cs->Ft, 0, sizeof cs->Ft);
    return;
  }
  cs->N = -d->lambda[ct->row0];
  if (cs->mode == MBD_CMODE_STICK) {
    for (int i = 0; i < 3; i++) {
      double f = 0;
      for (int k = 0; k < ct->nroll; k++) {
        f -= d->lambda[ct->row0 + 1 + k] * cs->t[k][i];
      }
      cs->Ft[i] = f;
    }
  }
}

int mbd_contact_needs_n(const mbd_model *m, const mbd_data *d, int c) {
  const mbd_contact *ct = &m->contact[c];
  return d->cstate[c].mode == MBD_CMODE_SLIP && ct->friction != MBD_FRICTION_NONE && ct->mu > 0;
}

void mbd_contact_add_friction(const mbd_model *m, mbd_data *d) {
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    mbd_contact_state *cs = &d->cstate[c];
    if (cs->mode != MBD_CMODE_SLIP) {
      continue;
    }
    memset(cs->Ft, 0, sizeof cs->Ft);
    if (!mbd_contact_needs_n(m, d, c)) {
      continue;
    }
    // tangential slip velocity of body 2's point relative to body 1's
    double vn = dot3(cs->vrel, cs->n), vt[3];
    for (int i = 0; i < 3; i++) {
      vt[i] = cs->vrel[i] - vn * cs->n[i];
    }
    double speed = sqrt(dot3(vt, vt)), mag = ct->mu * cs->N, dir[3];
    if (m->dim == 2) {
      // planar: the segment's sign along the current tangent
      double v = dot3(vt, cs->t[0]);
      double sg = ct->friction == MBD_FRICTION_COULOMB ? cs->sgn : (v > 0) - (v < 0);
      for (int i = 0; i < 3; i++) {
        dir[i] = sg * cs->t[0][i];
      }
      speed = fabs(v);
    } else if (speed > 0) {
      for (int i = 0; i < 3; i++) {
        dir[i] = vt[i] / speed;
      }
    } else {
      memcpy(dir, ct->friction == MBD_FRICTION_COULOMB ? cs->dir : (double[3]){0, 0, 0},
             sizeof dir);
    }
    if (ct->friction == MBD_FRICTION_REGULARIZED) {
      mag = fmin(ct->beta * speed, mag);
    }
    double F2[3], F1[3];
    for (int i = 0; i < 3; i++) {
      F2[i] = -mag * dir[i];
      F1[i] = -F2[i];
    }
    memcpy(cs->Ft, F2, sizeof F2);
    mbd_forces_add_point(m, d, ct->b2, cs->s2, F2);
    mbd_forces_add_point(m, d, ct->b1, cs->s1, F1);
  }
}
