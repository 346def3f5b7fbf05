/* contact forces: the normal force and the sticking friction from the multipliers (paper 001
 * eq 31–34: N = −λ of the gap row, F_t = −Σ λ_k t_k of the rolling rows on body 2), and the
 * friction forces of sliding contacts, which depend on N (eq 30):
 *   coulomb      F = −μ N d, d the slip direction (planar: ±t for the whole slip segment, whose
 *                end is the event where the slip speed crosses zero; spatial: v_t/|v_t|, the
 *                segment's direction while v_t is nil — within 1e-9 of the speeds at the contact,
 *                as for sticking — rather than the direction of its round-off)
 *   regularized  F = −min(β |v_t|, μ N) v_t/|v_t| (paper 001 Fig. 11)
 * applied at the contact point: F on body 2, −F on body 1. */
#include <math.h>
#include <string.h>

#include "contact_impl.h"
#include "mbd/vec3.h"

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

int mbd_jfric_needs_r(const mbd_model *m, const mbd_data *d, int k) {
  return d->jfstate[k].mode == MBD_CMODE_SLIP && m->jfric[k].mu > 0;
}

void mbd_jfric_read_forces(const mbd_model *m, mbd_data *d, int k) {
  const mbd_joint_friction *jf = &m->jfric[k];
  const mbd_joint *j = &m->joint[jf->joint];
  mbd_jfric_state *js = &d->jfstate[k];
  // the reaction force on body 2 (body 1 when body 2 is the ground): −Σ Φ_Yᵀ λ over the body's
  // position coordinates (the first 2 or 3 of Y; spatial joints' moment rows do not count: a
  // bearing's friction is μ r |F|, its moment ⟂ the axis is not taken into account)
  int side = d->pose[j->body2].vadr < 0 ? 0 : 1, nf = m->dim == 2 ? 2 : 3;
  double F[3] = {0, 0, 0};
  for (int r = j->row0; r < j->row0 + j->nrow; r++) {
    const double *J = d->rowJ + (size_t)r * MBD_NLOC + side * MBD_NY_MAX;
    for (int i = 0; i < nf; i++) {
      F[i] -= J[i] * d->lambda[r];
    }
  }
  if (mbd_joint_friction_kind(m, jf->joint) == MBD_COORD_DISPLACEMENT) {
    // a slide: the part normal to the sliding axis (axis1 of body 1, global)
    mbd_vec ax;
    mbd_vec_axis(m, d, j->body1, 0, j->axis1, &ax);
    double a = 0;
    for (int i = 0; i < nf; i++) {
      a += F[i] * ax.v[i];
    }
    for (int i = 0; i < nf; i++) {
      F[i] -= a * ax.v[i];
    }
  }
  js->R = sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
  if (js->mode == MBD_CMODE_STICK) {
    js->T = -d->lambda[jf->row];
  }
}

void mbd_contact_add_friction(const mbd_model *m, mbd_data *d) {
  // slipping joints: −sgn μ R r along the joint coordinate (δW = T δθ or T δs exactly)
  for (int k = 0; k < m->njfric; k++) {
    mbd_jfric_state *js = &d->jfstate[k];
    if (js->mode != MBD_CMODE_SLIP) {
      continue;
    }
    const mbd_joint_friction *jf = &m->jfric[k];
    const mbd_joint *j = &m->joint[jf->joint];
    js->T = -js->sgn * jf->mu * js->R * mbd_joint_friction_arm(m, jf->joint, jf->radius);
    mbd_row o;
    mbd_jfric_row(m, d, k, &o);
    mbd_forces_add_row(m, d, j->body1, j->body2, o.J, js->T);
  }
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
    double vn = mbd_dot3(cs->vrel, cs->n), vt[3];
    for (int i = 0; i < 3; i++) {
      vt[i] = cs->vrel[i] - vn * cs->n[i];
    }
    double speed = sqrt(mbd_dot3(vt, vt)), mag = ct->mu * cs->N, dir[3];
    if (m->dim == 2) {
      // planar: the segment's sign along the current tangent
      double v = mbd_dot3(vt, cs->t[0]);
      double sg = ct->friction == MBD_FRICTION_COULOMB ? cs->sgn : (v > 0) - (v < 0);
      for (int i = 0; i < 3; i++) {
        dir[i] = sg * cs->t[0][i];
      }
      speed = fabs(v);
    } else if (speed > 1e-9 * mbd_contact_speed_scale(m, d, c) ||
               ct->friction != MBD_FRICTION_COULOMB) {
      for (int i = 0; i < 3; i++) {
        dir[i] = speed > 0 ? vt[i] / speed : 0;
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
