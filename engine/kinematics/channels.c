/* recorded channels: their names (built by assembly) and their values in a data — body poses
 * and velocities from the pose cache, joint coordinates from their rows, reactions from the local
 * rows and the multipliers, energy, violation */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../contact/contact_impl.h"
#include "kinematics.h"
#include "kinematics_msg.h"
#include "mbd/text.h"

static int add(mbd_model *m, int *cap, const char *base, const char *field, int kind, int index,
               int comp, int dynamic) {
  if (m->nchannel == *cap) {
    int nc = *cap ? 2 * *cap : 64;
    mbd_channel *p = realloc(m->channel, (size_t)nc * sizeof *p);
    if (!p) {
      return -1;
    }
    m->channel = p;
    *cap = nc;
  }
  mbd_channel *c = &m->channel[m->nchannel++];
  if (base) {
    mbd_text_join(c->name, sizeof c->name, base, ".", field);
  } else {
    mbd_text_join(c->name, sizeof c->name, field, NULL, NULL);
  }
  c->kind = kind;
  c->index = index;
  c->comp = comp;
  c->dynamic = dynamic;
  return 0;
}

int mbd_channels_build(mbd_model *m, mbd_error *err) {
  static const char *const v[] = {"vx", "vy", "vz"};
  static const char *const f[] = {"fx", "fy", "fz"};
  static const char *const tq[] = {"tx", "ty", "tz"};
  int cap = 0, bad = 0, dx = MBD_DIMX(m);
  m->nchannel = 0;
  // bodies: pose coordinates, velocity, angular velocity
  for (int b = 1; b < m->nbody; b++) {
    const char *nm = m->body[b].name;
    const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[b].kind);
    for (int c = 0; c < k->ny; c++) {
      bad |= add(m, &cap, nm, k->coord[c], CH_Q, b, c, 0);
    }
    for (int c = 0; c < k->npos; c++) {
      bad |= add(m, &cap, nm, v[c], CH_V, b, c, 0);
    }
    for (int c = 0; c < k->nw; c++) {
      bad |= add(m, &cap, nm, k->wname[c], CH_W, b, k->w0 + c, 0);
    }
    // a flexible body's modal coordinates a1 .. and their rates a1_dot ..; a node's small
    // rotation (rz in a plane)
    for (int c = 0; c < m->body[b].nmode; c++) {
      char field[16];
      snprintf(field, sizeof field, "a%d", c + 1);
      bad |= add(m, &cap, nm, field, CH_MODAL, b, c, 0);
    }
    for (int c = 0; c < m->body[b].nmode; c++) {
      char field[16];
      snprintf(field, sizeof field, "a%d_dot", (c + 1) % 100000);  // (nmode is far below)
      bad |= add(m, &cap, nm, field, CH_MODALRATE, b, c, 0);
    }
    static const char *const rot[] = {"rx", "ry", "rz"};
    for (int c = m->dim == 3 ? 0 : 2; m->body[b].node > 0 && c < 3; c++) {
      bad |= add(m, &cap, nm, rot[c], CH_NODEROT, b, c, 0);
    }
  }
  // joints: relative coordinates, reactions, drive efforts
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jt = &m->joint[j];
    const mbd_joint_type_desc *td = mbd_joint_type_get(jt->type);
    for (int c = 0; c < td->ncoord[dx]; c++) {
      bad |= add(m, &cap, jt->name, mbd_coord_name(td->coord[dx][c]), CH_JCOORD, j, c, 0);
    }
    for (int c = 0; c < m->dim; c++) {
      bad |= add(m, &cap, jt->name, f[c], CH_JFORCE, j, c, 1);
    }
    for (int c = 0; m->dim == 3 && c < 3; c++) {
      bad |= add(m, &cap, jt->name, tq[c], CH_JTORQUE, j, c, 1);
    }
    if (jt->drive >= 0) {
      bad |= add(m, &cap, jt->name, "effort", CH_JEFFORT, j, 0, 1);
    }
  }
  // contacts: forces, slip, the contact point, the surface parameters
  bad |= mbd_contact_channels(m, add, &cap);
  bad |= add(m, &cap, NULL, "energy", CH_ENERGY, 0, 0, 0);
  bad |= add(m, &cap, NULL, "violation", CH_VIOLATION, 0, 0, 1);
  if (bad) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_KIN_NOMEM, "channels");
  }
  return MBD_OK;
}

int mbd_channel_find(const mbd_model *m, const char *name) {
  for (int i = 0; i < m->nchannel; i++) {
    if (strcmp(m->channel[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int mbd_channel_count(const mbd_model *m) { return m->nchannel; }

const char *mbd_channel_name(const mbd_model *m, int ch) {
  return (ch >= 0 && ch < m->nchannel) ? m->channel[ch].name : NULL;
}

/* the unit of a joint's coordinate c, of a force along it ("rad" and "N m" for an angle) */
static int angle_coord(const mbd_model *m, int j, int c) {
  const mbd_joint_type_desc *td = mbd_joint_type_get(m->joint[j].type);
  int dx = MBD_DIMX(m);
  return c < td->ncoord[dx] && td->coord[dx][c] == MBD_COORD_ANGLE;
}

const char *mbd_channel_unit(const mbd_model *m, int ch) {
  if (ch < 0 || ch >= m->nchannel) {
    return "";
  }
  const mbd_channel *c = &m->channel[ch];
  switch (c->kind) {
    case CH_Q: {
      // x y z of the centre of mass, theta, or an Euler parameter (no unit)
      const char *f = mbd_body_kind_get(m->body[c->index].kind)->coord[c->comp];
      if (strcmp(f, "theta") == 0) {
        return "rad";
      }
      return f[0] == 'e' ? "" : "m";
    }
    case CH_V:
      return "m/s";
    case CH_W:
      return "rad/s";
    case CH_JCOORD:
      return angle_coord(m, c->index, c->comp) ? "rad" : "m";
    case CH_JFORCE:
      return "N";
    case CH_JTORQUE:
      return "N m";
    case CH_JEFFORT:
      return angle_coord(m, c->index, 0) ? "N m" : "N";
    case CH_ENERGY:
      return "J";
    case CH_CONTACT:
      if (c->comp >= MBD_CCH_NORMAL && c->comp <= MBD_CCH_FZ) {
        return "N";
      }
      if (c->comp == MBD_CCH_SLIP) {
        return "m/s";
      }
      if (c->comp == MBD_CCH_GAP || (c->comp >= MBD_CCH_PX && c->comp <= MBD_CCH_PZ)) {
        return "m";
      }
      return "";  // sticking, surface parameters
    case CH_JFRIC:
      return c->comp != 0 ? "" : angle_coord(m, m->jfric[c->index].joint, 0) ? "N m" : "N";
    case CH_MODAL:
    case CH_MODALRATE: {
      // a mode is scaled to a largest nodal translation of 1 m, or a rotation of 1 rad when it
      // barely translates (fem/select.c)
      int rad = 0;
      for (int k = 0; k < m->nflex; k++) {
        const struct mbd_flex *fx = m->flex[k];
        if (fx->body == c->index) {
          double t = 0;
          for (int i = 0; i < 3 * fx->nnode; i++) {
            t = fmax(t, fabs(fx->Phi[(size_t)i * fx->nm + c->comp]));
          }
          rad = t < 0.5;
        }
      }
      if (c->kind == CH_MODAL) {
        return rad ? "rad" : "m";
      }
      return rad ? "rad/s" : "m/s";
    }
    case CH_NODEROT:
      return "rad";
    default:
      return "";  // violation: rows of lengths and angles
  }
}

/* the reaction of joint j on body2 — the generalized constraint force −Φ_Yᵀλ over its rows
 * restricted to body2's pose coordinates — as a global force F and a moment n about the CM;
 * when body2 is the ground, the opposite of the reaction on body1 (*sign = −1, *b = body1) */
static void reaction(const mbd_model *m, const mbd_data *d, int j, double *F, double *n, int *b,
                     double *sign) {
  const mbd_joint *jt = &m->joint[j];
  int side = 1;
  *b = jt->body2;
  *sign = 1;
  if (d->pose[*b].vadr < 0) {
    *b = jt->body1;
    side = 0;
    *sign = -1;
  }
  const mbd_body_kind_desc *k = mbd_body_kind_get(m->body[*b].kind);
  double QY[MBD_NY_MAX] = {0};
  for (int r = jt->row0; r < jt->row0 + jt->nrow; r++) {
    const double *J = d->rowJ + (size_t)r * MBD_NLOC + side * MBD_NY_MAX;
    for (int c = 0; c < k->ny; c++) {
      QY[c] -= J[c] * d->lambda[r];
    }
  }
  F[0] = QY[0];
  F[1] = QY[1];
  F[2] = k->npos == 3 ? QY[2] : 0;
  k->moment(&d->pose[*b], QY + k->npos, n);
}

/* the reaction torque of joint j on body2 about its joint point (global, spatial) */
static double reaction_torque(const mbd_model *m, const mbd_data *d, int j, int comp) {
  const mbd_joint *jt = &m->joint[j];
  double P[3], V[3], F[3], n[3], sign;
  int b;
  mbd_point_state(m, d, jt->body2, jt->at2, P, V);
  reaction(m, d, j, F, n, &b, &sign);
  // moved to the joint point: n_P = n + (r − P) × F
  const double *r = d->pose[b].r;
  double rp[3] = {r[0] - P[0], r[1] - P[1], r[2] - P[2]};
  double mxf[3] = {rp[1] * F[2] - rp[2] * F[1], rp[2] * F[0] - rp[0] * F[2],
                   rp[0] * F[1] - rp[1] * F[0]};
  return sign * (n[comp] + mxf[comp]);
}

double mbd_channel_value(const mbd_model *m, const mbd_data *d, int ch, int *ok) {
  if (ok) {
    *ok = 1;
  }
  if (ch < 0 || ch >= m->nchannel || !d) {
    if (ok) {
      *ok = 0;
    }
    return NAN;
  }
  const mbd_channel *c = &m->channel[ch];
  if (c->dynamic && d->stage < MBD_STAGE_ACCELERATION) {
    if (ok) {
      *ok = 0;
    }
    return NAN;
  }
  const mbd_pose *ps = &d->pose[c->index];
  switch (c->kind) {
    case CH_Q: {
      int npos = mbd_body_kind_get(m->body[c->index].kind)->npos;
      return c->comp < npos ? ps->r[c->comp] : ps->p[c->comp - npos];
    }
    case CH_V:
      return ps->rd[c->comp];
    case CH_W:
      return ps->w[c->comp];
    case CH_JCOORD: {
      const mbd_joint_type_desc *td = mbd_joint_type_get(m->joint[c->index].type);
      mbd_row o;
      mbd_joint_coord_row(m, d, c->index, td->coord[MBD_DIMX(m)][c->comp], &o);
      return o.val;
    }
    case CH_JTORQUE:
      return reaction_torque(m, d, c->index, c->comp);
    case CH_JFORCE: {
      double F[3], n[3], sign;
      int b;
      reaction(m, d, c->index, F, n, &b, &sign);
      return sign * F[c->comp];
    }
    case CH_JEFFORT:
      return -d->lambda[m->drive[m->joint[c->index].drive].row];
    case CH_ENERGY:
      return mbd_energy(m, d);
    case CH_VIOLATION:
      return mbd_position_violation(m, d);
    case CH_CONTACT:
      return mbd_contact_channel_value(m, d, c->index, c->comp);
    case CH_JFRIC:
      return mbd_jfric_channel_value(m, d, c->index, c->comp);
    case CH_MODAL: {
      const mbd_block *bl = &m->block[m->body[c->index].block];
      return d->q[bl->qadr + bl->nq - m->body[c->index].nmode + c->comp];
    }
    case CH_MODALRATE: {
      const mbd_block *bl = &m->block[m->body[c->index].block];
      return d->v[bl->vadr + bl->nv - m->body[c->index].nmode + c->comp];
    }
    case CH_NODEROT:
      return mbd_flex_node_rotation(m, d, c->index, c->comp);
  }
  return NAN;
}
