/* what a model is made of (mbd/describe.h): read-only views of bodies, joints, springs and
 * forces for drawings and reports, and a hash of the model's description for run manifests */
#include "mbd/describe.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
/* the model's hash: FNV-1a over its description, field by field                               */

typedef struct hasher {
  uint64_t h;
} hasher;

static void put_bytes(hasher *s, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    s->h ^= c[i];
    s->h *= 1099511628211ull;  // the 64-bit FNV prime
  }
}

static void put_int(hasher *s, int v) {
  int64_t w = v;
  put_bytes(s, &w, sizeof w);
}

/* doubles by value: -0 and 0 hash alike */
static void put_doubles(hasher *s, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    double x = v[i] == 0 ? 0.0 : v[i];
    put_bytes(s, &x, sizeof x);
  }
}

/* strings with their terminator, so "ab"+"c" and "a"+"bc" differ */
static void put_str(hasher *s, const char *str) { put_bytes(s, str, strlen(str) + 1); }

void mbd_model_hash(const mbd_model *m, char out[17]) {
  hasher s = {14695981039346656037ull};  // the FNV offset basis
  put_int(&s, m->dim);
  put_doubles(&s, m->gravity, 3);
  put_int(&s, m->nbody);
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    put_str(&s, bd->name);
    put_int(&s, bd->kind);
    put_doubles(&s, &bd->mass, 1);
    put_doubles(&s, bd->inertia, 9);
    put_doubles(&s, bd->q0, 7);
    put_doubles(&s, bd->v0, 6);
  }
  put_int(&s, m->njoint);
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jt = &m->joint[j];
    put_str(&s, jt->name);
    put_int(&s, jt->type);
    put_int(&s, jt->body1);
    put_int(&s, jt->body2);
    put_doubles(&s, jt->at1, 3);
    put_doubles(&s, jt->at2, 3);
    put_doubles(&s, jt->axis1, 3);
    put_doubles(&s, jt->axis2, 3);
  }
  put_int(&s, m->ndrive);
  for (int k = 0; k < m->ndrive; k++) {
    put_int(&s, m->drive[k].joint);
    put_int(&s, m->drive[k].coord);
  }
  put_int(&s, m->nforce);
  for (int k = 0; k < m->nforce; k++) {
    const mbd_force *f = &m->force[k];
    put_int(&s, f->kind);
    put_int(&s, f->body);
    put_doubles(&s, f->at, 3);
    put_int(&s, f->fn != NULL);
    if (!f->fn) {
      put_doubles(&s, f->value, 3);
    }
  }
  put_int(&s, m->nspring);
  for (int k = 0; k < m->nspring; k++) {
    const mbd_spring *sp = &m->spring[k];
    put_str(&s, sp->name);
    put_int(&s, sp->body1);
    put_int(&s, sp->body2);
    put_doubles(&s, sp->at1, 3);
    put_doubles(&s, sp->at2, 3);
    put_doubles(&s, &sp->k, 1);
    put_doubles(&s, &sp->c, 1);
    put_doubles(&s, &sp->length, 1);
  }
  put_int(&s, m->nrspring);
  for (int k = 0; k < m->nrspring; k++) {
    const mbd_rspring *r = &m->rspring[k];
    put_int(&s, r->joint);
    put_doubles(&s, &r->k, 1);
    put_doubles(&s, &r->c, 1);
    put_doubles(&s, &r->angle, 1);
  }
  snprintf(out, 17, "%016llx", (unsigned long long)s.h);
}
