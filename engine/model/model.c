/* building a model: bodies, joints, drives, forces, springs; lookups; warnings; the model's
 * lifecycle (free, unassemble, info).  Assembly itself is kinematics/assemble.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbd/text.h"
#include "model_impl.h"
#include "model_msg.h"
#include "tree_impl.h"
#include "mbd/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// grow a dynamic array of element size sz to hold one more element
static int grow(void **arr, int *cap, int count, size_t sz) {
  if (count < *cap) {
    return 0;
  }
  int ncap = *cap ? 2 * *cap : 8;
  void *p = realloc(*arr, (size_t)ncap * sz);
  if (!p) {
    return -1;
  }
  *arr = p;
  *cap = ncap;
  return 0;
}

#define GROW(m, arr, cnt, cap) grow((void **)&(m)->arr, &(m)->cap, (m)->cnt, sizeof *(m)->arr)

void mbd_model_warn(mbd_model *m, const char *fmt, ...) {
  if (m->nwarning >= MBD_MAX_WARNINGS) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->warning[m->nwarning], sizeof m->warning[0], fmt, ap);
  va_end(ap);
  m->nwarning++;
}

const char *mbd_model_warning(const mbd_model *m, int i) {
  return (i >= 0 && i < m->nwarning) ? m->warning[i] : NULL;
}

void mbd_model_clear_warnings(mbd_model *m) { m->nwarning = 0; }

int mbd_model_check_idle(const mbd_model *m, const char *what, mbd_error *err) {
  if (m->running > 0) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_MODEL_RUNNING, m->name, what);
  }
  return MBD_OK;
}

int mbd_model_running(const mbd_model *m) { return m->running; }

long mbd_model_assemblies(const mbd_model *m) { return m->nassembled; }

// any structural change invalidates the assembly (sizes, rows, channels, the assembled state)
void mbd_model_unassemble(mbd_model *m) {
  free(m->block);
  m->block = NULL;
  m->nblock = 0;
  free(m->row);
  m->row = NULL;
  free(m->active0);
  m->active0 = NULL;
  free(m->q_asm);
  m->q_asm = NULL;
  free(m->v_asm);
  m->v_asm = NULL;
  free(m->memo_asm);
  m->memo_asm = NULL;
  free(m->drive0);
  m->drive0 = NULL;
  free(m->channel);
  m->channel = NULL;
  m->nchannel = 0;
  mbd_tree_free(m->tree);
  m->tree = NULL;
  m->nq = m->nv = m->mrow = m->ma0 = m->rank = 0;
  for (int b = 0; b < m->nbody; b++) {
    m->body[b].block = -1;
  }
  m->assembled = 0;
}

int mbd_model_is_assembled(const mbd_model *m) { return m->assembled; }

int mbd_model_get_info(const mbd_model *m, mbd_model_info *info) {
  memset(info, 0, sizeof *info);
  info->nbody = m->nbody - 1;
  for (int b = 1; b < m->nbody; b++) {
    info->nbody -= m->body[b].node > 0;  // a flexible body's nodes are points, not bodies
  }
  info->njoint = m->njoint;
  info->ndrive = m->ndrive;
  info->nforce = m->nforce + m->nspring + m->nrspring;
  if (!m->assembled) {
    return MBD_E_STATE;
  }
  info->ncoord = m->nv;
  info->nconstraint = m->mrow;
  info->rank = m->rank;
  info->dof = m->nv - m->rank;
  // a sliding contact's rolling rows are off at the start, not redundant
  int off = 0;
  for (int c = 0; c < m->ncontact; c++) {
    off += m->contact[c].mode0 == MBD_CMODE_STICK ? 0 : m->dim - 1;
  }
  for (int k = 0; k < m->njfric; k++) {
    off += m->jfric[k].mode0 != MBD_CMODE_STICK;  // a slipping joint's lock is off
  }
  info->nredundant = m->mrow - m->ma0 - off;
  info->moved = m->moved;
  info->moved_body = m->moved_body;
  info->vmoved = m->vmoved;
  info->vmoved_body = m->vmoved_body;
  return MBD_OK;
}

mbd_model *mbd_model_new(const char *name, int dim, mbd_error *err) {
  if (dim != 2 && dim != 3) {
    MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_DIM, name ? name : "", dim);
    return NULL;
  }
  if (name && mbd_model_check_utf8(name, "model", err) != MBD_OK) {
    return NULL;
  }
  mbd_model *m = calloc(1, sizeof *m);
  if (!m) {
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, "model");
    return NULL;
  }
  snprintf(m->name, sizeof m->name, "%s", name ? name : "model");
  m->dim = dim;
  m->assembly_tol = 1e-10;
  // the ground: body 0, fixed, identity pose
  if (GROW(m, body, nbody, cbody)) {
    free(m);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, "model");
    return NULL;
  }
  mbd_body *g = &m->body[0];
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "ground");
  g->kind = dim == 2 ? MBD_BODY_GROUND2 : MBD_BODY_GROUND3;
  g->q0[3] = dim == 3 ? 1.0 : 0.0;
  g->block = -1;
  m->nbody = 1;
  return m;
}

void mbd_model_free(mbd_model *m) {
  if (!m) {
    return;
  }
  mbd_model_unassemble(m);
  mbd_flex_free_all(m);
  free(m->body);
  free(m->joint);
  free(m->drive);
  free(m->force);
  free(m->spring);
  free(m->rspring);
  for (int i = 0; i < m->nsurface; i++) {
    mbd_sym_tape_free(m->surface[i].tape);
  }
  free(m->surface);
  free(m->contact);
  free(m->jfric);
  free(m->copy);
  free(m);
}


int mbd_model_dim(const mbd_model *m) { return m->dim; }
const char *mbd_model_name(const mbd_model *m) { return m->name; }
int mbd_model_nbody(const mbd_model *m) { return m->nbody; }
int mbd_model_njoint(const mbd_model *m) { return m->njoint; }

void mbd_model_set_gravity(mbd_model *m, const double *g) {
  for (int i = 0; i < 3; i++) {
    m->gravity[i] = i < m->dim ? g[i] : 0.0;
  }
}

int mbd_model_find_body(const mbd_model *m, const char *name) {
  for (int i = 0; i < m->nbody; i++) {
    if (strcmp(m->body[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int mbd_model_find_joint(const mbd_model *m, const char *name) {
  for (int i = 0; i < m->njoint; i++) {
    if (strcmp(m->joint[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

const char *mbd_model_body_name(const mbd_model *m, int b) {
  return (b >= 0 && b < m->nbody) ? m->body[b].name : "?";
}

const char *mbd_model_joint_name(const mbd_model *m, int j) {
  return (j >= 0 && j < m->njoint) ? m->joint[j].name : "?";
}

int mbd_model_joint_type(const mbd_model *m, int j) {
  return (j >= 0 && j < m->njoint) ? m->joint[j].type : -1;
}

static int finite_all(const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

// a name is UTF-8 text (mbd/text.h): else an error showing its bad bytes as \xNN
int mbd_model_check_utf8(const char *name, const char *what, mbd_error *err) {
  long bad = mbd_text_utf8_error(name);
  if (bad < 0) {
    return MBD_OK;
  }
  char shown[4 * MBD_NAME_MAX];
  mbd_text_escape(shown, sizeof shown, name);
  return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_UTF8, what, shown, bad);
}

// names: letters, digits, '_', and no '.' (channel names are "<name>.<field>"), but in a macro
// copy, whose objects are called "<copy>.<name>"
static int check_name(const char *name, const char *what, int in_copy, mbd_error *err) {
  size_t len = strlen(name);
  if (len == 0 || len >= MBD_NAME_MAX) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_LEN, what, MBD_NAME_MAX - 1);
  }
  if (!in_copy && strchr(name, '.')) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_DOT, what, name);
  }
  return mbd_model_check_utf8(name, what, err);
}

// spatial inertia: symmetric positive definite and the triangle inequalities of principal moments
static int check_inertia3(const double *I, const char *name, mbd_error *err) {
  double a = I[0], b = I[4], c = I[8];
  double d1 = a, d2 = a * b - I[1] * I[3];
  double d3 = a * (b * c - I[5] * I[7]) - I[1] * (I[3] * c - I[5] * I[6]) +
              I[2] * (I[3] * I[7] - b * I[6]);
  if (!(d1 > 0 && d2 > 0 && d3 > 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_INERTIA_PD, name);
  }
  // triangle inequality on the principal moments (the eigenvalues; the diagonal when principal)
  double ev[3];
  mbd_sym3_eigenvalues(I, ev);
  double tol = 1e-12 * (ev[0] + ev[1] + ev[2]);
  if (ev[0] + ev[1] < ev[2] - tol) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_INERTIA_TRIANGLE, name, ev[0], ev[1], ev[2]);
  }
  return MBD_OK;
}

/* a rigid body of the model's dimension (its kind: body_kinds.c) */
int mbd_model_add_body(mbd_model *m, const mbd_body_spec *s, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a body", err);
  if (busy) {
    return busy;
  }
  char name[MBD_NAME_MAX];
  if (s->name) {
    int rc = check_name(s->name, "body", m->open_copy > 0, err);
    if (rc) {
      return rc;
    }
    snprintf(name, sizeof name, "%s", s->name);
  } else {
    snprintf(name, sizeof name, "body%d", m->nbody);
  }
  // validation: unique name, positive mass, finite pose, velocity and inertia
  if (mbd_model_find_body(m, name) >= 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_DUP, name);
  }
  if (!(s->mass > 0) || !isfinite(s->mass)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_MASS, name, s->mass);
  }
  // the field that is not finite, named as the DSL names it
  const char *bad = !finite_all(s->pos, 3)       ? "pos"
                    : !finite_all(s->vel, 3)     ? "vel"
                    : !finite_all(s->omega, 3)   ? "omega"
                    : !finite_all(s->inertia, 6) ? "inertia"
                    : !isfinite(s->angle)        ? "angle"
                    : !finite_all(s->rot, 4)     ? "rot"
                                                 : NULL;
  if (bad) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_FINITE, name, bad);
  }
  mbd_body b;
  memset(&b, 0, sizeof b);
  snprintf(b.name, sizeof b.name, "%s", name);
  b.mass = s->mass;
  b.kind = m->dim == 2 ? MBD_BODY_RIGID2 : MBD_BODY_RIGID3;
  // the pose as given (planar x y θ; spatial r and normalized Euler parameters, Nikravesh ch. 6):
  // assembly starts its position analysis from it (paper 000 eq 10–11)
  if (m->dim == 2) {
    if (!(s->inertia[0] > 0)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_INERTIA, name, s->inertia[0]);
    }
    b.inertia[8] = s->inertia[0];
    b.q0[0] = s->pos[0];
    b.q0[1] = s->pos[1];
    b.q0[2] = s->angle;
    b.v0[0] = s->vel[0];
    b.v0[1] = s->vel[1];
    b.v0[2] = s->omega[0];
  } else {
    // inertia row-major 3×3 from Ixx Iyy Izz Ixy Iyz Izx
    const double *I = s->inertia;
    double T[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
    int rc = check_inertia3(T, name, err);
    if (rc) {
      return rc;
    }
    memcpy(b.inertia, T, sizeof T);
    double nrm = sqrt(s->rot[0] * s->rot[0] + s->rot[1] * s->rot[1] + s->rot[2] * s->rot[2] +
                      s->rot[3] * s->rot[3]);
    if (!(nrm > 0)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_EULER_ZERO, name);
    }
    if (fabs(nrm - 1) > 1e-9) {
      mbd_model_warn(m, MSG_MODEL_EULER_NORM, name, nrm);
    }
    for (int i = 0; i < 3; i++) {
      b.q0[i] = s->pos[i];
      b.v0[i] = s->vel[i];
      b.v0[3 + i] = s->omega[i];
    }
    for (int i = 0; i < 4; i++) {
      b.q0[3 + i] = s->rot[i] / nrm;
    }
  }
  // stored; its coordinate block is numbered at assembly
  if (GROW(m, body, nbody, cbody)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_OBJ_NOMEM, "body", name);
  }
  b.block = -1;
  b.copy = m->open_copy;
  b.vgiven = (s->vel_given ? 1 : 0) | (s->omega_given ? 2 : 0);
  m->body[m->nbody] = b;
  mbd_model_unassemble(m);
  return m->nbody++;
}

/* a joint: its type's descriptor (joint_types.c) says which dimension has it and which axes it
 * needs; its rows (Haug ch. 3 and 9) are numbered at assembly */
int mbd_model_add_joint(mbd_model *m, const mbd_joint_spec *s, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a joint", err);
  if (busy) {
    return busy;
  }
  char name[MBD_NAME_MAX];
  if (s->type < 0 || s->type >= MBD_JOINT_NTYPES) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_TYPE, s->type);
  }
  const mbd_joint_type_desc *jt = mbd_joint_type_get(s->type);
  const char *tname = jt->name;
  if (s->name) {
    int rc = check_name(s->name, tname, m->open_copy > 0, err);
    if (rc) {
      return rc;
    }
    snprintf(name, sizeof name, "%s", s->name);
  } else {
    snprintf(name, sizeof name, "%s%d", tname, m->njoint + 1);
  }
  if (mbd_model_find_joint(m, name) >= 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_DUP, tname, name);
  }
  if (s->body1 < 0 || s->body1 >= m->nbody || s->body2 < 0 || s->body2 >= m->nbody) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_INDEX, tname, name);
  }
  if (s->body1 == s->body2) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_SAME_BODY, tname, name, m->body[s->body1].name);
  }
  if (!finite_all(s->at1, 3) || !finite_all(s->at2, 3) || !finite_all(s->axis1, 3) ||
      !finite_all(s->axis2, 3)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_FINITE, tname, name);
  }
  if (jt->nrow[MBD_DIMX(m)] == 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NOT_PLANAR, tname, name);
  }
  mbd_joint j;
  memset(&j, 0, sizeof j);
  snprintf(j.name, sizeof j.name, "%s", name);
  j.type = s->type;
  j.body1 = s->body1;
  j.body2 = s->body2;
  j.drive = -1;
  j.rspring = -1;
  memcpy(j.at1, s->at1, sizeof j.at1);
  memcpy(j.at2, s->at2, sizeof j.at2);
  // axes: planar translational needs axis1; spatial revolute/cylindrical/translational/universal
  // both
  int need1 = jt->need_axis[MBD_DIMX(m)];
  int need2 = m->dim == 3 && need1;
  if (need1 && !s->has_axis1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_AXIS_MISSING, tname, name, "axis1");
  }
  if (need2 && !s->has_axis2) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_AXIS_MISSING, tname, name, "axis2");
  }
  if (s->has_axis1) {
    double n1 = mbd_norm3(s->axis1);
    if (!(n1 > 1e-12)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_AXIS_ZERO, tname, name, "axis1");
    }
    for (int i = 0; i < 3; i++) {
      j.axis1[i] = s->axis1[i] / n1;
    }
  }
  if (s->has_axis2) {
    double n2 = mbd_norm3(s->axis2);
    if (!(n2 > 1e-12)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_AXIS_ZERO, tname, name, "axis2");
    }
    for (int i = 0; i < 3; i++) {
      j.axis2[i] = s->axis2[i] / n2;
    }
  }
  if (s->type == MBD_JOINT_SCREW) {
    if (!s->has_pitch) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_PITCH_MISSING, tname, name);
    }
    if (!isfinite(s->pitch)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_PITCH_FINITE, tname, name, s->pitch);
    }
    j.lead = s->pitch / (2 * M_PI);
  }
  if (s->type == MBD_JOINT_PLANAR && s->has_ref1) {
    // x along ref1's part in the plane: kept as the joint's ref1 (mbd_joint_init_axes)
    double c = mbd_dot3(s->ref1, j.axis1);
    for (int i = 0; i < 3; i++) {
      j.ref1[i] = s->ref1[i] - c * j.axis1[i];
    }
    double n = mbd_norm3(j.ref1);
    if (!(n > 1e-6 * mbd_norm3(s->ref1)) || !finite_all(s->ref1, 3)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_REF1_AXIS, tname, name);
    }
    for (int i = 0; i < 3; i++) {
      j.ref1[i] /= n;
    }
  }
  // spatial: the universal's cross perpendicular in the given poses, reference axes for relative
  // angles; planar: the locked angle of the given poses
  int rc = mbd_joint_init_axes(m, &j, err);
  if (rc) {
    return rc;
  }
  if (GROW(m, joint, njoint, cjoint)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_OBJ_NOMEM, tname, name);
  }
  j.copy = m->open_copy;
  m->joint[m->njoint] = j;
  mbd_model_unassemble(m);
  return m->njoint++;
}

/* a drive: one row coordinate(q) − f(t) = 0 on the coordinate its joint type names (paper 000's
 * kinematic driving constraints; γ = f'' − the coordinate's quadratic term) */
int mbd_model_add_drive(mbd_model *m, int joint, mbd_time_fn fn, void *ud, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a drive", err);
  if (busy) {
    return busy;
  }
  if (joint < 0 || joint >= m->njoint) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_INDEX, "drive");
  }
  mbd_joint *j = &m->joint[joint];
  const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
  int dc = jt->drive_coord[MBD_DIMX(m)];
  if (dc < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_DRIVE_TYPE, mbd_joint_type_name(j->type), j->name,
                    m->dim == 3 ? " and cylindrical" : "");
  }
  if (j->drive >= 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_DRIVE_TWICE, j->name);
  }
  if (!fn) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_DRIVE_FN, j->name);
  }
  if (GROW(m, drive, ndrive, cdrive)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, "drive");
  }
  mbd_drive *dr = &m->drive[m->ndrive];
  dr->joint = joint;
  dr->coord = jt->coord[MBD_DIMX(m)][dc];
  dr->fn = fn;
  dr->ud = ud;
  dr->row = -1;
  j->drive = m->ndrive;
  mbd_model_unassemble(m);
  return m->ndrive++;
}

/* an applied force at a body point or a torque, constant or a function of time and state
 * (paper 000 eq 42–44: its generalized force is forces.c's) */
static int add_force(mbd_model *m, const mbd_force_spec *s, int kind, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a force or torque", err);
  if (busy) {
    return busy;
  }
  const char *what = kind == FORCE_POINT ? "force" : "torque";
  if (s->body < 1 || s->body >= m->nbody) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_FORCE_BODY, what);
  }
  if (!finite_all(s->at, 3) || !finite_all(s->value, 3)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_FORCE_FINITE, what, m->body[s->body].name);
  }
  if (GROW(m, force, nforce, cforce)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, what);
  }
  mbd_force *f = &m->force[m->nforce];
  memset(f, 0, sizeof *f);
  f->kind = kind;
  f->body = s->body;
  memcpy(f->at, s->at, sizeof f->at);
  memcpy(f->value, s->value, sizeof f->value);
  f->fn = s->fn;
  f->ud = s->ud;
  return m->nforce++;
}

int mbd_model_add_force(mbd_model *m, const mbd_force_spec *s, mbd_error *err) {
  return add_force(m, s, FORCE_POINT, err);
}

int mbd_model_add_torque(mbd_model *m, const mbd_force_spec *s, mbd_error *err) {
  return add_force(m, s, FORCE_TORQUE, err);
}

/* a translational spring-damper between two body points: tension k(l − L) + c l̇ */
int mbd_model_add_spring(mbd_model *m, const mbd_spring_spec *s, mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a spring", err);
  if (busy) {
    return busy;
  }
  if (s->name && mbd_model_check_utf8(s->name, "spring", err) != MBD_OK) {
    return MBD_E_INPUT;
  }
  char name[MBD_NAME_MAX];
  snprintf(name, sizeof name, "%s", s->name ? s->name : "spring");
  if (s->body1 < 0 || s->body1 >= m->nbody || s->body2 < 0 || s->body2 >= m->nbody) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_INDEX, "spring", name);
  }
  if (s->body1 == s->body2) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_SAME_BODY, "spring", name, m->body[s->body1].name);
  }
  if (!(s->k >= 0) || !(s->c >= 0) || !(s->length >= 0) || !isfinite(s->k) || !isfinite(s->c) ||
      !isfinite(s->length)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_SPRING_VALUES, name);
  }
  if (GROW(m, spring, nspring, cspring)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, "spring");
  }
  mbd_spring *sp = &m->spring[m->nspring];
  memset(sp, 0, sizeof *sp);
  snprintf(sp->name, sizeof sp->name, "%s", name);
  sp->body1 = s->body1;
  sp->body2 = s->body2;
  memcpy(sp->at1, s->at1, sizeof sp->at1);
  memcpy(sp->at2, s->at2, sizeof sp->at2);
  sp->k = s->k;
  sp->c = s->c;
  sp->length = s->length;
  return m->nspring++;
}

int mbd_model_add_rotational_spring(mbd_model *m, int joint, double k, double c, double angle,
                                    mbd_error *err) {
  int busy = mbd_model_check_idle(m, "adding a rotational spring", err);
  if (busy) {
    return busy;
  }
  if (joint < 0 || joint >= m->njoint) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_INDEX, "rotational_spring");
  }
  mbd_joint *j = &m->joint[joint];
  if (mbd_joint_type_get(j->type)->angle_coord[MBD_DIMX(m)] < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_RSPRING_TYPE, mbd_joint_type_name(j->type), j->name,
                    m->dim == 3 ? ", cylindrical, screw or planar" : "");
  }
  if (!(k >= 0) || !(c >= 0) || !isfinite(k) || !isfinite(c) || !isfinite(angle)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_RSPRING_VALUES, j->name);
  }
  if (GROW(m, rspring, nrspring, crspring)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_NOMEM, "rotational_spring");
  }
  mbd_rspring *r = &m->rspring[m->nrspring];
  r->joint = joint;
  r->k = k;
  r->c = c;
  r->angle = angle;
  return m->nrspring++;
}

/* ------------------------------------------------------------------------------------------ */
/* macro copies (paper 002, section 4)                                                         */

int mbd_model_open_copy(mbd_model *m, const char *shape, const char *name, const double *origin,
                        const double *rot, mbd_error *err) {
  if (m->open_copy) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_COPY_OPEN, name ? name : "",
                    m->copy[m->open_copy].name);
  }
  if (!shape || !name || !*shape || !*name || strlen(shape) >= MBD_NAME_MAX ||
      strlen(name) >= MBD_NAME_MAX) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_LEN, "macro copy", MBD_NAME_MAX - 1);
  }
  if (mbd_model_check_utf8(name, "macro copy", err) != MBD_OK) {
    return MBD_E_INPUT;
  }
  double nr = m->dim == 3 ? sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] +
                                 rot[3] * rot[3])
                          : 1;
  if (!finite_all(origin, m->dim) || !finite_all(rot, m->dim == 3 ? 4 : 1) || !(nr > 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_COPY_PLACE, name);
  }
  for (int k = 1; k < m->ncopy; k++) {
    if (strcmp(m->copy[k].name, name) == 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_COPY_DUP, name);
    }
  }
  if (m->ncopy == 0) {
    m->ncopy = 1;  // index 0 stands for "no copy"
  }
  mbd_copy c;
  memset(&c, 0, sizeof c);
  snprintf(c.shape, sizeof c.shape, "%s", shape);
  snprintf(c.name, sizeof c.name, "%s", name);
  memcpy(c.origin, origin, (size_t)m->dim * sizeof(double));
  if (m->dim == 3) {
    for (int k = 0; k < 4; k++) {
      c.rot[k] = rot[k] / nr;
    }
  } else {
    c.rot[0] = rot[0];
  }
  if (GROW(m, copy, ncopy, ccopy)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MODEL_OBJ_NOMEM, "macro copy", name);
  }
  m->copy[m->ncopy] = c;
  m->open_copy = m->ncopy;
  mbd_model_unassemble(m);
  return m->ncopy++;
}

void mbd_model_close_copy(mbd_model *m) { m->open_copy = 0; }
