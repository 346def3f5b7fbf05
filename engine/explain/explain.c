/* the equations of motion at one instant (mbd/explain.h), for m:explain.
 *
 * The state is made consistent (position and velocity analyses on the active rows), then every
 * stage a run goes through is evaluated once: poses, constraint rows (Φ, Φq, Φt, γ), forces
 * (M, Q), the augmented system of paper 000 eq 13 for v̇ and λ, and the coordinate partition of
 * gcp and kane (QR with column pivoting of Φq, eq 10–13) with the partial velocity matrix B
 * (eq 22–23).  Reactions are read through the run's own channels, so they are the numbers a run
 * records.  Everything is copied into one mbd_explain and the working data freed. */
#include "mbd/explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../contact/contact_impl.h"
#include "../formulations/formulations.h"
#include "explain_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* what the rows are                                                                           */

/* a row of a joint type: its short name, the equation in words, what −λ is physically */
typedef struct row_label {
  const char *suffix, *meaning, *lambda_is;
} row_label;

#define PT(c) \
  { c, "the joint points coincide along " c, "reaction force along " c }
static const row_label planar_revolute[] = {PT("x"), PT("y")};
static const row_label planar_translational[] = {
    {"normal", "at2 stays on the line of axis1 (normal offset 0)", "normal force of the slide"},
    {"angle", "relative rotation locked", "reaction torque about z"}};
static const row_label planar_fixed[] = {
    PT("x"), PT("y"), {"angle", "relative rotation locked", "reaction torque about z"}};
#define PAR1 \
  { "par1", "axis2 ⟂ f1: the axes stay parallel", "reaction moment ⟂ the axis" }
#define PAR2 \
  { "par2", "axis2 ⟂ g1: the axes stay parallel", "reaction moment ⟂ the axis" }
static const row_label spatial_spherical[] = {PT("x"), PT("y"), PT("z")};
static const row_label spatial_revolute[] = {PT("x"), PT("y"), PT("z"), PAR1, PAR2};
static const row_label spatial_universal[] = {
    PT("x"),
    PT("y"),
    PT("z"),
    {"perp", "axis1 ⟂ axis2 (the cross stays a cross)", "reaction moment about axis1 × axis2"}};
#define OFF1 \
  { "off1", "the separation ⟂ f1: body2's point on the axis", "reaction force ⟂ the axis" }
#define OFF2 \
  { "off2", "the separation ⟂ g1: body2's point on the axis", "reaction force ⟂ the axis" }
#define TWIST \
  { "twist", "no rotation about the axis (g1 ⟂ f2)", "reaction torque about the axis" }
static const row_label spatial_cylindrical[] = {PAR1, PAR2, OFF1, OFF2};
static const row_label spatial_translational[] = {PAR1, PAR2, OFF1, OFF2, TWIST};
static const row_label spatial_fixed[] = {PT("x"), PT("y"), PT("z"), PAR1, PAR2, TWIST};
#undef PT
#undef PAR1
#undef PAR2
#undef OFF1
#undef OFF2
#undef TWIST

/* the label table of a joint type in a model dimension, and its length */
static const row_label *labels_of(int type, int dim, int *n) {
  struct {
    const row_label *t;
    int n;
  } planar[MBD_JOINT_NTYPES] = {{planar_revolute, 2}, {planar_translational, 2}, {planar_fixed, 3}},
    spatial[MBD_JOINT_NTYPES] = {{spatial_revolute, 5},  {spatial_translational, 5},
                                 {spatial_fixed, 6},     {spatial_spherical, 3},
                                 {spatial_universal, 4}, {spatial_cylindrical, 4}};
  if (type < 0 || type >= MBD_JOINT_NTYPES) {
    *n = 0;
    return NULL;
  }
  *n = dim == 2 ? planar[type].n : spatial[type].n;
  return dim == 2 ? planar[type].t : spatial[type].t;
}

/* name, meaning and λ of constraint row i */
static void label_row(const mbd_model *m, int i, mbd_explain *e) {
  const mbd_rowinfo *r = &m->row[i];
  char *name = e->row[i], *meaning = e->meaning[i], *lam = e->lambda_is[i];
  size_t len = MBD_EXPLAIN_NAME;
  switch (r->owner) {
    case MBD_ROW_JOINT: {
      const mbd_joint *j = &m->joint[r->index];
      int n = 0;
      const row_label *t = labels_of(j->type, m->dim, &n);
      if (t && r->local < n) {
        snprintf(name, len, "%s.%s", j->name, t[r->local].suffix);
        snprintf(meaning, len, "%s", t[r->local].meaning);
        snprintf(lam, len, "%s on '%s'", t[r->local].lambda_is, m->body[j->body2].name);
      } else {
        snprintf(name, len, "%s.%d", j->name, r->local + 1);
        snprintf(meaning, len, "equation %d of %s '%s'", r->local + 1, mbd_joint_type_name(j->type),
                 j->name);
        snprintf(lam, len, "a reaction of joint '%s'", j->name);
      }
      return;
    }
    case MBD_ROW_DRIVE: {
      const mbd_joint *j = &m->joint[m->drive[r->index].joint];
      int angle = m->drive[r->index].coord == MBD_COORD_ANGLE;
      snprintf(name, len, "drive(%s)", j->name);
      snprintf(meaning, len, "the %s of '%s' follows its prescribed function of t",
               angle ? "angle" : "displacement", j->name);
      snprintf(lam, len, "the drive's %s (channel %s.effort)", angle ? "torque" : "force", j->name);
      return;
    }
    case MBD_ROW_CONTACT: {
      const char *c = m->contact[r->index].name;
      if (r->local == 0) {
        snprintf(name, len, "%s.gap", c);
        snprintf(meaning, len, "the surfaces of '%s' touch (gap along the normal 0)", c);
        snprintf(lam, len, "normal force of contact '%s' (channel %s.normal)", c, c);
      } else {
        snprintf(name, len, "%s.roll%s", c, r->local == 1 ? "" : "2");
        snprintf(meaning, len,
                 "'%s' rolls: the contact points' velocities agree along tangent %d (velocity "
                 "level, while it sticks)",
                 c, r->local);
        snprintf(lam, len, "sticking friction of contact '%s' (channel %s.friction)", c, c);
      }
      return;
    }
    case MBD_ROW_JFRIC: {
      const char *j = m->joint[m->jfric[r->index].joint].name;
      snprintf(name, len, "%s.lock", j);
      snprintf(meaning, len, "joint '%s' sticks: its coordinate's rate is 0 (velocity level)", j);
      snprintf(lam, len, "the joint's sticking friction (channel %s.friction)", j);
      return;
    }
    default:
      snprintf(name, len, "%s.norm", m->body[r->index].name);
      snprintf(meaning, len, "Euler parameters of '%s' keep unit length (p'p - 1 = 0)",
               m->body[r->index].name);
      snprintf(lam, len, "no physical force (it keeps p'p = 1)");
      return;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the result                                                                                  */

void mbd_explain_free(mbd_explain *e) {
  if (!e) {
    return;
  }
  void *ps[] = {e->coord, e->row,  e->meaning, e->lambda_is, e->active,    e->q,           e->v,
                e->phi,   e->phiq, e->phit,    e->gamma,     e->dependent, e->independent, e->B,
                e->M,     e->Q,    e->vdot,    e->lambda,    e->reaction,  e->contact};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  free(e);
}

/* an explain sized for m (every array allocated, zeroed; the partition's for any number of
 * active rows up to nv, set by fill); NULL without memory */
static mbd_explain *explain_alloc(const mbd_model *m) {
  mbd_explain *e = calloc(1, sizeof *e);
  if (!e) {
    return NULL;
  }
  size_t n = (size_t)m->nv, r = (size_t)m->mrow;
  size_t n1 = n ? n : 1, r1 = r ? r : 1, f1 = n1, ma1 = n1;
  e->nq = m->nq;
  e->n = m->nv;
  e->nrow = m->mrow;
  e->coord = calloc(n1, sizeof *e->coord);
  e->row = calloc(r1, sizeof *e->row);
  e->meaning = calloc(r1, sizeof *e->meaning);
  e->lambda_is = calloc(r1, sizeof *e->lambda_is);
  e->active = calloc(r1, sizeof *e->active);
  e->q = calloc(m->nq ? (size_t)m->nq : 1, sizeof(double));
  e->v = calloc(n1, sizeof(double));
  e->phi = calloc(r1, sizeof(double));
  e->phiq = calloc(r1 * n1, sizeof(double));
  e->phit = calloc(r1, sizeof(double));
  e->gamma = calloc(r1, sizeof(double));
  e->dependent = calloc(ma1, sizeof(int));
  e->independent = calloc(f1, sizeof(int));
  e->B = calloc(n1 * f1, sizeof(double));
  e->M = calloc(n1 * n1, sizeof(double));
  e->Q = calloc(n1, sizeof(double));
  e->vdot = calloc(n1, sizeof(double));
  e->lambda = calloc(r1, sizeof(double));
  e->reaction = calloc(m->njoint ? (size_t)m->njoint : 1, sizeof *e->reaction);
  e->contact = calloc((size_t)(m->ncontact + m->njfric) + 1, sizeof *e->contact);
  if (!e->coord || !e->row || !e->meaning || !e->lambda_is || !e->active || !e->q || !e->v ||
      !e->phi || !e->phiq || !e->phit || !e->gamma || !e->dependent || !e->independent || !e->B ||
      !e->M || !e->Q || !e->vdot || !e->lambda || !e->reaction || !e->contact) {
    mbd_explain_free(e);
    return NULL;
  }
  return e;
}

/* a channel's value in d, 0 when the model has no such channel */
static double channel(const mbd_model *m, const mbd_data *d, const char *joint, const char *what) {
  char name[MBD_NAME_MAX + 16];
  snprintf(name, sizeof name, "%s.%s", joint, what);
  int c = mbd_channel_find(m, name), ok = 0;
  double v = c >= 0 ? mbd_channel_value(m, d, c, &ok) : 0;
  return ok ? v : 0;
}

/* the recorder of the evaluation's stages (model_impl.h): what each stage realized, into the
 * explain; the last evaluation at the consistent state is the one that stays */
static void record(void *ud, const mbd_model *m, const mbd_data *d, int stage) {
  mbd_explain *e = ud;
  size_t n = (size_t)m->nv, nr = (size_t)m->mrow;
  switch (stage) {
  case MBD_STAGE_POSITION:
    memcpy(e->q, d->q, (size_t)m->nq * sizeof(double));
    memcpy(e->phi, d->phi, nr * sizeof(double));
    memcpy(e->phiq, d->phiq, nr * n * sizeof(double));
    memcpy(e->phit, d->phit, nr * sizeof(double));
    break;
  case MBD_STAGE_VELOCITY:
    memcpy(e->v, d->v, n * sizeof(double));
    memcpy(e->gamma, d->gamma, nr * sizeof(double));
    break;
  case MBD_STAGE_FORCES:
    memcpy(e->M, d->M, n * n * sizeof(double));
    break;
  case MBD_STAGE_ACCELERATION:
    // (Q as the solve used it: with contacts, the friction of the normal forces included)
    memcpy(e->Q, d->Q, n * sizeof(double));
    memcpy(e->vdot, d->vdot, n * sizeof(double));
    memcpy(e->lambda, d->lambda, nr * sizeof(double));
    break;
  default:
    break;
  }
}

/* the rest of the explain e from the evaluated data d and the partition p: names, active rows,
 * the partition, reactions and contacts */
static void fill(const mbd_model *m, mbd_data *d, mbd_part *p, double residual, mbd_explain *e) {
  int n = m->nv, nr = m->mrow;
  e->ma = d->ma;
  e->f = m->nv - d->ma;
  e->t = d->t;
  e->residual = residual;
  for (int i = 0; i < n; i++) {
    mbd_model_coord_name(m, i, e->coord[i], MBD_EXPLAIN_NAME);
  }
  for (int i = 0; i < nr; i++) {
    label_row(m, i, e);
  }
  for (int k = 0; k < d->ma; k++) {
    e->active[d->active[k]] = 1;
  }
  // the partition: dependent columns first in p->perm (each part sorted)
  memcpy(e->dependent, p->perm, (size_t)p->ma * sizeof(int));
  memcpy(e->independent, p->perm + p->ma, (size_t)p->f * sizeof(int));
  memcpy(e->B, p->B, (size_t)n * (size_t)p->f * sizeof(double));
  // reactions, through the run's channels
  static const char *const fc[] = {"fx", "fy", "fz"}, *const tc[] = {"tx", "ty", "tz"};
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jt = &m->joint[j];
    struct mbd_explain_reaction *re = &e->reaction[e->nreaction++];
    snprintf(re->joint, sizeof re->joint, "%s", jt->name);
    snprintf(re->body, sizeof re->body, "%s", m->body[jt->body2].name);
    for (int c = 0; c < 3; c++) {
      re->force[c] = c < m->dim ? channel(m, d, jt->name, fc[c]) : 0;
      re->torque[c] = m->dim == 3 ? channel(m, d, jt->name, tc[c]) : 0;
    }
    re->driven = jt->drive >= 0;
    re->effort = re->driven ? channel(m, d, jt->name, "effort") : 0;
  }
  if (m->dim == 2) {
    // planar: the moment about the joint point, from the force and the multiplier of the row
    // that carries a torque (its type's locked angle: translational and fixed)
    for (int j = 0; j < m->njoint; j++) {
      const mbd_joint *jt = &m->joint[j];
      const mbd_joint_row_def *def = mbd_joint_type_get(jt->type)->row[0];
      for (int r = 0; r < jt->nrow; r++) {
        if (def[r].op == MBD_JR_LOCK) {
          e->reaction[j].torque[2] = -d->lambda[jt->row0 + r];
        }
      }
    }
  }
  // contacts and frictional joints: regime and forces through their channels
  for (int c = 0; c < m->ncontact; c++) {
    struct mbd_explain_contact *ec = &e->contact[e->ncontact++];
    const char *nm = m->contact[c].name;
    snprintf(ec->name, sizeof ec->name, "%s", nm);
    ec->mode = d->cstate[c].mode == MBD_CMODE_OPEN ? 2 : d->cstate[c].mode == MBD_CMODE_STICK;
    ec->normal = channel(m, d, nm, "normal");
    ec->friction = channel(m, d, nm, "friction");
    ec->gap = channel(m, d, nm, "gap");
    ec->slip = channel(m, d, nm, "slip");
  }
  for (int k = 0; k < m->njfric; k++) {
    struct mbd_explain_contact *ec = &e->contact[e->ncontact++];
    const char *nm = m->joint[m->jfric[k].joint].name;
    snprintf(ec->name, sizeof ec->name, "%s", nm);
    ec->joint = 1;
    ec->mode = d->jfstate[k].mode == MBD_CMODE_STICK;
    ec->friction = channel(m, d, nm, "friction");
  }
}

/* the contacts' and frictional joints' regimes at the evaluated kinematics of d: from the run's
 * channels when it is given (hint: per contact 0 sliding, 1 sticking, 2 open; per joint 0, 1),
 * else as a run decides them at its start (open with a restitution and a gap above
 * MBD_CONTACT_OPEN_GAP; sticking when the slip speed is nil) */
static void set_modes(const mbd_model *m, mbd_data *d, const int *hint) {
  for (int c = 0; c < m->ncontact; c++) {
    int open = hint ? hint[c] == 2
                    : m->contact[c].has_e && d->cstate[c].gap > MBD_CONTACT_OPEN_GAP;
    mbd_contact_set_mode(m, d, c, open, hint ? hint[c] == 1 : -1);
  }
  for (int k = 0; k < m->njfric; k++) {
    mbd_jfric_set_mode(m, d, k, hint ? hint[m->ncontact + k] : -1);
  }
}

/* the solve the contacts' fixed point calls: the augmented system, again with new friction */
static int solve_augmented(void *self, const mbd_model *m, mbd_data *d, int want_lambda,
                           int reuse, mbd_error *err) {
  (void)self, (void)want_lambda;
  if (reuse) {
    return mbd_dynamics_augmented_again(m, d, d->gamma_a, err);
  }
  return mbd_dynamics_augmented(m, d, d->gamma_a, err);
}

/* ------------------------------------------------------------------------------------------ */
/* the state and its equations                                                                 */

/* evaluate everything at the state in d (q, v, t, memos set): the analyses that make it
 * consistent, then the evaluation's stages up to v̇ and λ with a recorder attached (record: the
 * explain keeps what each stage realized, so it shows the pipeline a run evaluates, not a copy
 * of it), then the rank and the partition.  Contacts and frictional joints take their regimes
 * from hint (set_modes), their rows follow them and their friction enters v̇ as in a run. */
static int evaluate(const mbd_model *m, mbd_data *d, const int *hint, mbd_explain **out,
                    mbd_error *err) {
  double t = d->t;
  mbd_explain *e = explain_alloc(m);
  if (!e) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_EXPLAIN_NOMEM);
  }
  d->record = (mbd_stage_recorder){record, e};
  mbd_stage_touch(d, MBD_STAGE_NONE);  // (the caller wrote the state)
  mbd_error inner;
  mbd_error_clear(&inner);
  int contacts = m->ncontact + m->njfric > 0;
  // how far the given state is from the constraints, then the analyses that make it consistent
  int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, &inner);
  if (rc == MBD_OK && contacts) {
    set_modes(m, d, hint);
    mbd_contact_activate(m, d);
  }
  double residual = rc == MBD_OK ? mbd_position_violation(m, d) : NAN;
  if (rc == MBD_OK) {
    rc = mbd_position_analysis(m, d, m->assembly_tol > 0 ? m->assembly_tol : 1e-10, 50, &inner);
  }
  if (rc == MBD_OK) {
    rc = mbd_velocity_analysis(m, d, &inner);
  }
  if (rc == MBD_OK && contacts) {
    // a sliding contact's friction along its slip at the consistent velocities
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, &inner);
    for (int c = 0; rc == MBD_OK && c < m->ncontact; c++) {
      int mode = d->cstate[c].mode;
      mbd_contact_set_mode(m, d, c, mode == MBD_CMODE_OPEN, mode == MBD_CMODE_STICK);
    }
    for (int k = 0; rc == MBD_OK && k < m->njfric; k++) {
      mbd_jfric_set_mode(m, d, k, d->jfstate[k].mode == MBD_CMODE_STICK);
    }
  }
  // the stages at the consistent state: rows, γ, forces, then paper 000 eq 13 for v̇ and λ (the
  // rows may be chosen again: then once more); with contacts the friction of the normal forces
  // it gives, to their fixed point
  if (rc == MBD_OK) {
    rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, &inner);
  }
  if (rc == MBD_OK) {
    rc = contacts ? mbd_contact_dynamics(NULL, solve_augmented, m, d, 1, &inner)
                  : mbd_dynamics_augmented(m, d, d->gamma_a, &inner);
  }
  d->record = (mbd_stage_recorder){NULL, NULL};
  // the rank of the active rows and how far from singular they are (QR with column pivoting)
  int rank = 0;
  double ratio = 1;
  if (rc == MBD_OK && d->ma > 0) {
    rc = mbd_data_dense(m, d, &inner);
  }
  if (rc == MBD_OK && d->ma > 0) {
    int nd = d->ma < m->nv ? d->ma : m->nv;
    double *rdiag = calloc((size_t)nd, sizeof(double));
    int *perm = calloc((size_t)m->nv, sizeof(int));
    if (!rdiag || !perm) {
      rc = MBD_E_NOMEM;
      mbd_error_set(&inner, rc, __func__, __LINE__, MSG_EXPLAIN_NOMEM);
    } else {
      rc = mbd_qrcp_rank(&d->lsq, d->ma, m->nv, d->phiq_a, d->ma, 1e-10, perm, &rank, rdiag);
      ratio = rdiag[0] > 0 ? rdiag[nd - 1] / rdiag[0] : 0;
    }
    free(rdiag);
    free(perm);
  }
  // the partition of gcp and kane at this state, and B
  mbd_part *p = NULL;
  if (rc == MBD_OK) {
    mbd_sim_opts o;
    mbd_sim_opts_default(&o);
    rc = mbd_part_alloc(&p, m, d, &o, &inner);
    if (rc == MBD_OK) {
      rc = mbd_part_choose(p, m, d, &inner);
    }
    if (rc == MBD_OK) {
      mbd_part_partial_velocities(p, d);
    }
  }
  if (rc != MBD_OK) {
    mbd_part_free(p);
    mbd_explain_free(e);
    return MBD_FAIL(err, rc < 0 ? rc : MBD_E_SINGULAR, MSG_EXPLAIN_STATE, t, inner.msg);
  }
  fill(m, d, p, residual, e);
  mbd_part_free(p);
  e->rank = rank;
  e->pivot_ratio = ratio;
  *out = e;
  return MBD_OK;
}

int mbd_explain_state(const mbd_model *m, const double *q, const double *v, double t,
                      mbd_explain **out, mbd_error *err) {
  *out = NULL;
  if (!m->assembled) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_EXPLAIN_NOT_ASSEMBLED, m->name);
  }
  mbd_data *d = mbd_data_alloc(m, err);
  if (!d) {
    return err ? err->code : MBD_E_NOMEM;
  }
  mbd_data_reset(m, d);
  d->t = t;
  memcpy(d->q, q, (size_t)m->nq * sizeof(double));
  memcpy(d->v, v, (size_t)m->nv * sizeof(double));
  mbd_stage_touch(d, MBD_STAGE_NONE);
  int rc = evaluate(m, d, NULL, out, err);
  mbd_data_free(d);
  return rc;
}

int mbd_explain_initial(const mbd_model *m, mbd_explain **out, mbd_error *err) {
  *out = NULL;
  if (!m->assembled) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_EXPLAIN_NOT_ASSEMBLED, m->name);
  }
  return mbd_explain_state(m, m->q_asm, m->v_asm, 0, out, err);
}

/* channel "<base>.<field>" of r at t into *v; MBD_E_INPUT naming it when absent */
static int run_value(const mbd_run *r, const char *base, const char *field, double t, double *v,
                     mbd_error *err) {
  char name[MBD_NAME_MAX + 16];
  snprintf(name, sizeof name, "%s.%s", base, field);
  int c = mbd_run_find(r, name), ok = 0;
  if (c < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_EXPLAIN_CHANNEL, name);
  }
  *v = mbd_run_value(r, c, t, &ok);
  return MBD_OK;
}

/* the state of d (reset to the assembled state) at time t of run r: each body's block from its
 * channels, the spatial angle memos, and with hint (ncontact + njfric entries) the contacts' and
 * frictional joints' regimes */
static int read_run(const mbd_model *m, const mbd_run *r, double t, mbd_data *d, int *hint,
                    mbd_error *err) {
  d->t = t;
  // each body's block from its channels: pose coordinates, then velocities through its kind
  static const char *const vel[] = {"vx", "vy", "vz"};
  int rc = MBD_OK;
  for (int k = 0; k < m->nblock && rc == MBD_OK; k++) {
    const mbd_block *bl = &m->block[k];
    if (bl->kind == MBD_BLOCK_SURFACE) {
      // a contact's surface parameters: channels <contact>.<u|v|x|y|z><side>, surface 1's first
      const mbd_contact *ct = &m->contact[bl->owner];
      double *u = d->q + bl->qadr;
      for (int side = 0; side < 2 && rc == MBD_OK; side++) {
        const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
        for (int j = 0; j < sf->np && rc == MBD_OK; j++) {
          char field[8];
          snprintf(field, sizeof field, "%s%d", mbd_surface_param_name(sf, j), side + 1);
          rc = run_value(r, ct->name, field, t, u++, err);
        }
      }
      continue;
    }
    if (bl->kind != MBD_BLOCK_BODY) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_EXPLAIN_KIND, "(a block that is not a body)");
      break;
    }
    mbd_body b = m->body[bl->owner];
    const mbd_body_kind_desc *kd = mbd_body_kind_get(b.kind);
    if (kd->nq == 0) {
      continue;  // a flexible body's node: its pose comes from its body's block
    }
    if (kd->nq != kd->ny) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_EXPLAIN_KIND, b.name);
      break;
    }
    double *q = d->q + bl->qadr;
    for (int c = 0; c < kd->nq && rc == MBD_OK; c++) {
      rc = run_value(r, b.name, kd->coord[c], t, &q[c], err);
    }
    // v0 holds vx vy vz wx wy wz (planar: vx vy ω) for the kind's velocity0
    memset(b.v0, 0, sizeof b.v0);
    for (int c = 0; c < kd->npos && rc == MBD_OK; c++) {
      rc = run_value(r, b.name, vel[c], t, &b.v0[c], err);
    }
    for (int c = 0; c < kd->nw && rc == MBD_OK; c++) {
      rc = run_value(r, b.name, kd->wname[c], t, &b.v0[m->dim == 2 ? 2 : 3 + c], err);
    }
    if (rc == MBD_OK && m->dim == 3) {
      // interpolated Euler parameters are a little short of unit length
      double s = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
      for (int c = 3; c < 7 && s > 0; c++) {
        q[c] /= s;
      }
    }
    if (rc == MBD_OK) {
      kd->velocity0(&b, q, d->v + bl->vadr);
    }
    // a flexible body's modal coordinates and rates after the frame's (channels a1, a1_dot ..)
    for (int c = 0; c < b.nmode && rc == MBD_OK; c++) {
      char field[16];
      snprintf(field, sizeof field, "a%d", (c + 1) % 100000);  // (nmode is far below)
      rc = run_value(r, b.name, field, t, &q[kd->nq + c], err);
      snprintf(field, sizeof field, "a%d_dot", (c + 1) % 100000);
      if (rc == MBD_OK) {
        rc = run_value(r, b.name, field, t, &d->v[bl->vadr + kd->nv + c], err);
      }
    }
  }
  // spatial joint angles continue from the run's channels (drives and springs turn many times)
  for (int j = 0; j < m->njoint && rc == MBD_OK && m->dim == 3; j++) {
    char name[MBD_NAME_MAX + 16];
    snprintf(name, sizeof name, "%s.angle", m->joint[j].name);
    int c = mbd_run_find(r, name), ok = 0;
    if (c >= 0) {
      double a = mbd_run_value(r, c, t, &ok);
      if (ok) {
        d->angle_memo[j] = a;
      }
    }
  }
  // the contacts' and frictional joints' regimes at t, from their channels: sticking, else open
  // (a contact with a restitution whose gap is above 1e-9 m), else sliding
  for (int c = 0; c < m->ncontact && rc == MBD_OK && hint; c++) {
    double stick = 0, gap = 0;
    rc = run_value(r, m->contact[c].name, "sticking", t, &stick, err);
    if (rc == MBD_OK) {
      rc = run_value(r, m->contact[c].name, "gap", t, &gap, err);
    }
    hint[c] = stick > 0.5 ? 1 : (m->contact[c].has_e && gap > 1e-9) ? 2 : 0;
  }
  for (int k = 0; k < m->njfric && rc == MBD_OK && hint; k++) {
    double stick = 0;
    rc = run_value(r, m->joint[m->jfric[k].joint].name, "sticking", t, &stick, err);
    hint[m->ncontact + k] = stick > 0.5;
  }
  return rc;
}

/* t inside the recorded span of r (within 1e-12 s), clamped to it; MBD_E_INPUT otherwise */
static int run_time(const mbd_run *r, double *t, mbd_error *err) {
  int ns = mbd_run_nsample(r);
  const double *ts = mbd_run_times(r);
  if (ns < 1 || !(*t >= ts[0] - 1e-12) || !(*t <= ts[ns - 1] + 1e-12)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_EXPLAIN_TIME, *t, ns ? ts[0] : 0.0,
                    ns ? ts[ns - 1] : 0.0);
  }
  *t = fmin(fmax(*t, ts[0]), ts[ns - 1]);
  return MBD_OK;
}

/* fresh data for reading run r at t (clamped to the run's span): NULL with *rc set on failure */
static mbd_data *run_data(const mbd_model *m, const mbd_run *r, double *t, int *rc,
                          mbd_error *err) {
  if (!m->assembled) {
    *rc = MBD_FAIL(err, MBD_E_STATE, MSG_EXPLAIN_NOT_ASSEMBLED, m->name);
    return NULL;
  }
  *rc = run_time(r, t, err);
  if (*rc != MBD_OK) {
    return NULL;
  }
  mbd_data *d = mbd_data_alloc(m, err);
  if (!d) {
    *rc = err ? err->code : MBD_E_NOMEM;
    return NULL;
  }
  mbd_data_reset(m, d);
  return d;
}

int mbd_explain_run(const mbd_model *m, const mbd_run *r, double t, mbd_explain **out,
                    mbd_error *err) {
  *out = NULL;
  int rc;
  mbd_data *d = run_data(m, r, &t, &rc, err);
  if (!d) {
    return rc;
  }
  int *hint = calloc((size_t)(m->ncontact + m->njfric) + 1, sizeof(int));
  rc = hint ? read_run(m, r, t, d, hint, err) : MBD_FAIL(err, MBD_E_NOMEM, MSG_EXPLAIN_NOMEM);
  if (rc == MBD_OK) {
    rc = evaluate(m, d, hint, out, err);
  }
  free(hint);
  mbd_data_free(d);
  return rc;
}

int mbd_run_state_at(const mbd_model *m, const mbd_run *r, double t, double *q, double *v,
                     double *memo, mbd_error *err) {
  int rc;
  mbd_data *d = run_data(m, r, &t, &rc, err);
  if (!d) {
    return rc;
  }
  rc = read_run(m, r, t, d, NULL, err);
  if (rc == MBD_OK) {
    memcpy(q, d->q, (size_t)m->nq * sizeof(double));
    memcpy(v, d->v, (size_t)m->nv * sizeof(double));
    if (memo) {
      memcpy(memo, d->angle_memo, (size_t)m->njoint * sizeof(double));
    }
  }
  mbd_data_free(d);
  return rc;
}
