/* what a model is made of (mbd/describe.h): read-only views of bodies, joints, springs and
 * forces for drawings and reports, and a hash of the model's description for run manifests */
#include "mbd/describe.h"

#include <string.h>

#include "mbd/hash.h"
#include "model_impl.h"

void mbd_model_get_gravity(const mbd_model *m, double g[3]) {
  memcpy(g, m->gravity, 3 * sizeof(double));
  if (m->dim == 2) {
    g[2] = 0;
  }
}

int mbd_model_describe_body(const mbd_model *m, int b, mbd_body_desc *out) {
  if (b < 0 || b >= m->nbody) {
    return MBD_E_INPUT;
  }
  const mbd_body *bd = &m->body[b];
  memset(out, 0, sizeof *out);
  out->name = bd->name;
  out->ground = b == 0;
  out->mass = bd->mass;
  memcpy(out->inertia, bd->inertia, sizeof out->inertia);
  memcpy(out->pos, bd->q0, 3 * sizeof(double));
  if (m->dim == 2) {
    out->pos[2] = 0;  // planar q0 is (x, y, θ)
  }
  return MBD_OK;
}

int mbd_model_describe_joint(const mbd_model *m, int j, mbd_joint_desc *out) {
  if (j < 0 || j >= m->njoint) {
    return MBD_E_INPUT;
  }
  const mbd_joint *jt = &m->joint[j];
  memset(out, 0, sizeof *out);
  out->name = jt->name;
  out->type = mbd_joint_type_name(jt->type);
  out->body1 = jt->body1;
  out->body2 = jt->body2;
  memcpy(out->at1, jt->at1, sizeof out->at1);
  memcpy(out->at2, jt->at2, sizeof out->at2);
  memcpy(out->axis1, jt->axis1, sizeof out->axis1);
  memcpy(out->axis2, jt->axis2, sizeof out->axis2);
  out->driven = jt->drive >= 0;
  return MBD_OK;
}

int mbd_model_nspring(const mbd_model *m) { return m->nspring; }

int mbd_model_describe_spring(const mbd_model *m, int s, mbd_spring_desc *out) {
  if (s < 0 || s >= m->nspring) {
    return MBD_E_INPUT;
  }
  const mbd_spring *sp = &m->spring[s];
  memset(out, 0, sizeof *out);
  out->name = sp->name;
  out->body1 = sp->body1;
  out->body2 = sp->body2;
  memcpy(out->at1, sp->at1, sizeof out->at1);
  memcpy(out->at2, sp->at2, sizeof out->at2);
  out->k = sp->k;
  out->c = sp->c;
  out->length = sp->length;
  return MBD_OK;
}

int mbd_model_nforce(const mbd_model *m) { return m->nforce; }

int mbd_model_describe_force(const mbd_model *m, int f, mbd_force_desc *out) {
  if (f < 0 || f >= m->nforce) {
    return MBD_E_INPUT;
  }
  const mbd_force *fc = &m->force[f];
  memset(out, 0, sizeof *out);
  out->body = fc->body;
  out->torque = fc->kind == FORCE_TORQUE;
  memcpy(out->at, fc->at, sizeof out->at);
  out->function = fc->fn != NULL;
  if (!out->function) {
    memcpy(out->value, fc->value, sizeof out->value);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the model's hash: FNV-1a over its description, field by field (mbd/hash.h)                  */

void mbd_model_hash(const mbd_model *m, char out[17]) {
  mbd_hash h, *s = &h;
  mbd_hash_init(s);
  mbd_hash_int(s, m->dim);
  mbd_hash_doubles(s, m->gravity, 3);
  mbd_hash_int(s, m->nbody);
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    mbd_hash_str(s, bd->name);
    mbd_hash_int(s, bd->kind);
    mbd_hash_doubles(s, &bd->mass, 1);
    mbd_hash_doubles(s, bd->inertia, 9);
    mbd_hash_doubles(s, bd->q0, 7);
    mbd_hash_doubles(s, bd->v0, 6);
  }
  mbd_hash_int(s, m->njoint);
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jt = &m->joint[j];
    mbd_hash_str(s, jt->name);
    mbd_hash_int(s, jt->type);
    mbd_hash_int(s, jt->body1);
    mbd_hash_int(s, jt->body2);
    mbd_hash_doubles(s, jt->at1, 3);
    mbd_hash_doubles(s, jt->at2, 3);
    mbd_hash_doubles(s, jt->axis1, 3);
    mbd_hash_doubles(s, jt->axis2, 3);
  }
  mbd_hash_int(s, m->ndrive);
  for (int k = 0; k < m->ndrive; k++) {
    mbd_hash_int(s, m->drive[k].joint);
    mbd_hash_int(s, m->drive[k].coord);
  }
  mbd_hash_int(s, m->nforce);
  for (int k = 0; k < m->nforce; k++) {
    const mbd_force *f = &m->force[k];
    mbd_hash_int(s, f->kind);
    mbd_hash_int(s, f->body);
    mbd_hash_doubles(s, f->at, 3);
    mbd_hash_int(s, f->fn != NULL);
    if (!f->fn) {
      mbd_hash_doubles(s, f->value, 3);
    }
  }
  mbd_hash_int(s, m->nspring);
  for (int k = 0; k < m->nspring; k++) {
    const mbd_spring *sp = &m->spring[k];
    mbd_hash_str(s, sp->name);
    mbd_hash_int(s, sp->body1);
    mbd_hash_int(s, sp->body2);
    mbd_hash_doubles(s, sp->at1, 3);
    mbd_hash_doubles(s, sp->at2, 3);
    mbd_hash_doubles(s, &sp->k, 1);
    mbd_hash_doubles(s, &sp->c, 1);
    mbd_hash_doubles(s, &sp->length, 1);
  }
  mbd_hash_int(s, m->nrspring);
  for (int k = 0; k < m->nrspring; k++) {
    const mbd_rspring *r = &m->rspring[k];
    mbd_hash_int(s, r->joint);
    mbd_hash_doubles(s, &r->k, 1);
    mbd_hash_doubles(s, &r->c, 1);
    mbd_hash_doubles(s, &r->angle, 1);
  }
  mbd_hash_hex(s, out);
}
