/* recorded channels: names and evaluation from the state (DSL.md "Channels") */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

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
    snprintf(c->name, sizeof c->name, "%s.%s", base, field);
  } else {
    snprintf(c->name, sizeof c->name, "%s", field);
  }
  c->kind = kind;
  c->index = index;
  c->comp = comp;
  c->dynamic = dynamic;
  return 0;
}

int mbd_channels_build(mbd_model *m, mbd_error *err) {
  static const char *const q2[] = {"x", "y", "theta"};
  static const char *const q3[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
  static const char *const v[] = {"vx", "vy", "vz"};
  static const char *const w[] = {"wx", "wy", "wz"};
  static const char *const f[] = {"fx", "fy", "fz"};
  static const char *const tq[] = {"tx", "ty", "tz"};
  int cap = 0, bad = 0;
  m->nchannel = 0;
  for (int b = 1; b < m->nbody; b++) {
    const char *nm = m->body[b].name;
    for (int c = 0; c < m->nc; c++) {
      bad |= add(m, &cap, nm, m->dim == 2 ? q2[c] : q3[c], CH_Q, b, c, 0);
    }
    for (int c = 0; c < m->dim; c++) {
      bad |= add(m, &cap, nm, v[c], CH_V, b, c, 0);
    }
    if (m->dim == 2) {
      bad |= add(m, &cap, nm, "omega", CH_W, b, 0, 0);
    } else {
      for (int c = 0; c < 3; c++) {
        bad |= add(m, &cap, nm, w[c], CH_W, b, c, 0);
      }
    }
  }
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jt = &m->joint[j];
    if (jt->type == MBD_JOINT_REVOLUTE) {
      bad |= add(m, &cap, jt->name, "angle", CH_JCOORD, j, 0, 0);
    } else if (jt->type == MBD_JOINT_TRANSLATIONAL) {
      bad |= add(m, &cap, jt->name, "displacement", CH_JCOORD, j, 0, 0);
    } else if (jt->type == MBD_JOINT_CYLINDRICAL) {
      // comp: 0 angle, 1 displacement (spatial.c)
      bad |= add(m, &cap, jt->name, "angle", CH_JCOORD, j, 0, 0);
      bad |= add(m, &cap, jt->name, "displacement", CH_JCOORD, j, 1, 0);
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
  bad |= add(m, &cap, NULL, "energy", CH_ENERGY, 0, 0, 0);
  bad |= add(m, &cap, NULL, "violation", CH_VIOLATION, 0, 0, 1);
  if (bad) {
    return MBD_FAIL(err, MBD_E_NOMEM, "channels: out of memory");
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

/* reaction of joint j on body2 (global force component comp): −Φq(rows of j, cols of r2)ᵀλ;
 * when body2 is the ground, the opposite of the reaction on body1 */
static double reaction(const mbd_model *m, const mbd_data *d, int j, int comp) {
  const mbd_joint *jt = &m->joint[j];
  int b = jt->body2, sign = 1;
  if (m->body[b].qadr < 0) {
    b = jt->body1;
    sign = -1;
  }
  int col = m->body[b].qadr + comp;
  double s = 0;
  for (int r = jt->row0; r < jt->row0 + jt->nrow; r++) {
    s += MBD_AT(d->phiq, m->mrow, r, col) * d->lambda[r];
  }
  return -sign * s;
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
  if (c->dynamic && !d->have_dynamics) {
    if (ok) {
      *ok = 0;
    }
    return NAN;
  }
  switch (c->kind) {
    case CH_Q:
      return d->q[m->body[c->index].qadr + c->comp];
    case CH_V:
      return d->qd[m->body[c->index].qadr + c->comp];
    case CH_W:
      if (m->dim == 3) {
        return mbd_spatial_omega(m, d, c->index, c->comp);
      }
      return d->qd[m->body[c->index].qadr + 2];
    case CH_JCOORD: {
      double val, rate;
      if (m->joint[c->index].type == MBD_JOINT_CYLINDRICAL) {
        mbd_spatial_joint_coord(m, d, c->index, c->comp, &val, &rate);
      } else {
        mbd_joint_coord(m, d, c->index, &val, &rate);
      }
      return val;
    }
    case CH_JTORQUE:
      return mbd_spatial_reaction_torque(m, d, c->index, c->comp);
    case CH_JFORCE:
      return reaction(m, d, c->index, c->comp);
    case CH_JEFFORT:
      return -d->lambda[m->drive[m->joint[c->index].drive].row];
    case CH_ENERGY:
      return mbd_energy(m, d);
    case CH_VIOLATION:
      return mbd_position_violation(m, d);
  }
  return NAN;
}
