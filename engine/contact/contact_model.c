/* building contacts: surfaces fixed in bodies (their shapes checked, symbolic shapes differentiated
 * exactly and compiled to a tape), contacts between two surfaces with their friction law, and the
 * friction of joints; lookups.  A surface or contact changes the model's structure: it is
 * assembled again before the next run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact_impl.h"
#include "contact_msg.h"
#include "mbd/text.h"
#include "mbd/vec3.h"

static const char *const shape_names[MBD_SHAPE_N] = {
    "line", "circle", "sine", "curve", "plane", "sphere", "revolution", "implicit", "parametric"};

const char *mbd_shape_name(int shape) {
  return shape >= 0 && shape < MBD_SHAPE_N ? shape_names[shape] : NULL;
}

int mbd_shape_from_name(const char *name) {
  for (int k = 0; name && k < MBD_SHAPE_N; k++) {
    if (strcmp(name, shape_names[k]) == 0) {
      return k;
    }
  }
  return -1;
}

int mbd_shape_dim(int shape) {
  if (shape < 0 || shape >= MBD_SHAPE_N) {
    return 0;
  }
  return shape <= MBD_SHAPE_CURVE ? 2 : 3;
}

/* grow a dynamic array to hold one more element */
static int grow(void **arr, int *cap, int count, size_t sz) {
  if (count < *cap) {
    return 0;
  }
  int ncap = *cap ? 2 * *cap : 4;
  void *p = realloc(*arr, (size_t)ncap * sz);
  if (!p) {
    return -1;
  }
  *arr = p;
  *cap = ncap;
  return 0;
}

static int check_name(const char *name, const char *what, mbd_error *err) {
  size_t len = strlen(name);
  if (len == 0 || len >= 64) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_NAME_LEN, what, 63);
  }
  if (strchr(name, '.')) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_NAME_DOT, what, name);
  }
  long bad = mbd_text_utf8_error(name);
  if (bad >= 0) {
    char shown[4 * 64];
    mbd_text_escape(shown, sizeof shown, name);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_NAME_UTF8, what, shown, bad);
  }
  return MBD_OK;
}

static int finite_n(const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* symbolic shapes: exact derivatives on a tape                                                 */

/* every variable of e must be one of vars[0..nv): else MSG_SURF_FOREIGN */
static int check_vars(mbd_sym_ctx *ctx, mbd_sym_id e, int nv, const mbd_sym_id *vars,
                      const char *surf, const char *field, mbd_error *err) {
  mbd_sym_id found[16];
  int n = mbd_sym_vars(ctx, e, 16, found);
  if (n < 0) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CONTACT_NOMEM, "surface");
  }
  for (int i = 0; i < n && i < 16; i++) {
    int ok = 0;
    for (int k = 0; k < nv; k++) {
      ok |= found[i] == vars[k];
    }
    if (!ok) {
      char names[64] = "";
      for (int k = 0; k < nv; k++) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", k ? ", " : "",
                 mbd_sym_var_name(ctx, vars[k]));
      }
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_FOREIGN, surf, field,
                      mbd_sym_var_name(ctx, found[i]), names);
    }
  }
  return MBD_OK;
}

/* the tape of a symbolic shape (the output order surface.c reads) */
static int build_tape(mbd_surface *sf, const mbd_surface_spec *s, mbd_error *err) {
  mbd_sym_ctx *ctx = s->ctx;
  const char *shape = mbd_shape_name(s->shape);
  static const char *const fields[4][3] = {
      {"x", "y", NULL}, {"x", "y", "z"}, {"f", NULL, NULL}, {"profile", NULL, NULL}};
  int which = s->shape == MBD_SHAPE_CURVE        ? 0
              : s->shape == MBD_SHAPE_PARAMETRIC ? 1
              : s->shape == MBD_SHAPE_IMPLICIT   ? 2
                                                 : 3;
  int nexpr = which == 0 ? 2 : which == 1 ? 3 : 1;
  int nvar = which == 0 ? 1 : which == 1 ? 2 : which == 2 ? 3 : 1;
  if (!ctx) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_EXPR, sf->name, shape, fields[which][0]);
  }
  for (int k = 0; k < nexpr; k++) {
    if (s->expr[k] == MBD_SYM_NONE) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_EXPR, sf->name, shape, fields[which][k]);
    }
  }
  static const char *const vnames[4][3] = {
      {"u", NULL, NULL}, {"u", "v", NULL}, {"x", "y", "z"}, {"z", NULL, NULL}};
  for (int k = 0; k < nvar; k++) {
    if (mbd_sym_op_of(ctx, s->var[k]) != MBD_SYM_VAR) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_VAR, sf->name, vnames[which][k]);
    }
  }
  for (int k = 0; k < nexpr; k++) {
    int rc = check_vars(ctx, s->expr[k], nvar, s->var, sf->name, fields[which][k], err);
    if (rc < 0) {
      return rc;
    }
  }
  mbd_sym_id out[18];
  int nout = 0;
  const mbd_sym_id *v = s->var;
  if (which == 0) {
    // curve: x, y, x_u, y_u, x_uu, y_uu
    for (int k = 0; k < 2; k++) {
      out[k] = s->expr[k];
      out[2 + k] = mbd_sym_diff(ctx, out[k], v[0]);
      out[4 + k] = mbd_sym_diff(ctx, out[2 + k], v[0]);
    }
    nout = 6;
  } else if (which == 1) {
    // parametric: s, s_u, s_v, s_uu, s_uv, s_vv
    for (int k = 0; k < 3; k++) {
      out[k] = s->expr[k];
      out[3 + k] = mbd_sym_diff(ctx, s->expr[k], v[0]);
      out[6 + k] = mbd_sym_diff(ctx, s->expr[k], v[1]);
      out[9 + k] = mbd_sym_diff(ctx, out[3 + k], v[0]);
      out[12 + k] = mbd_sym_diff(ctx, out[3 + k], v[1]);
      out[15 + k] = mbd_sym_diff(ctx, out[6 + k], v[1]);
    }
    nout = 18;
  } else if (which == 2) {
    // implicit: f, ∇f, the Hessian's upper triangle (xx, xy, xz, yy, yz, zz)
    out[0] = s->expr[0];
    for (int k = 0; k < 3; k++) {
      out[1 + k] = mbd_sym_diff(ctx, s->expr[0], v[k]);
    }
    out[4] = mbd_sym_diff(ctx, out[1], v[0]);
    out[5] = mbd_sym_diff(ctx, out[1], v[1]);
    out[6] = mbd_sym_diff(ctx, out[1], v[2]);
    out[7] = mbd_sym_diff(ctx, out[2], v[1]);
    out[8] = mbd_sym_diff(ctx, out[2], v[2]);
    out[9] = mbd_sym_diff(ctx, out[3], v[2]);
    nout = 10;
  } else {
    // revolution: P = ρ², P', P'' — of a profile √w, P = w itself: defined beyond the profile's
    // domain too (the contact point's search may step past a pole, where w < 0)
    out[0] = mbd_sym_op_of(ctx, s->expr[0]) == MBD_SYM_SQRT ? mbd_sym_arg(ctx, s->expr[0], 0)
                                                            : mbd_sym_powc(ctx, s->expr[0], 2);
    out[1] = mbd_sym_diff(ctx, out[0], v[0]);
    out[2] = mbd_sym_diff(ctx, out[1], v[0]);
    nout = 3;
  }
  for (int k = 0; k < nout; k++) {
    if (out[k] == MBD_SYM_NONE) {
      const mbd_error *e = mbd_sym_ctx_error(ctx);
      return MBD_FAIL(err, e->code ? e->code : MBD_E_INPUT, MSG_SURF_TAPE, sf->name,
                      e->code ? e->msg : "invalid expression");
    }
  }
  mbd_error terr;
  mbd_error_clear(&terr);
  int rc = mbd_sym_tape_new(ctx, nout, out, nvar, v, &sf->tape, &terr);
  if (rc < 0) {
    return MBD_FAIL(err, rc, MSG_SURF_TAPE, sf->name, terr.msg);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* surfaces                                                                                    */

/* the shape's numbers into sf (checked) */
static int set_shape(mbd_model *m, mbd_surface *sf, const mbd_surface_spec *s, mbd_error *err) {
  const char *nm = sf->name;
  if (!finite_n(s->at, 3) || !finite_n(s->direction, 3) || !finite_n(s->normal, 3) ||
      !isfinite(s->radius) || !isfinite(s->amplitude) || !isfinite(s->wavelength)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_FINITE, nm);
  }
  memcpy(sf->at, s->at, sizeof sf->at);
  if (m->dim == 2) {
    sf->at[2] = 0;
  }
  sf->np = m->dim - 1;
  switch (s->shape) {
    case MBD_SHAPE_LINE: {
      double l = sqrt(s->direction[0] * s->direction[0] + s->direction[1] * s->direction[1]);
      if (fabs(s->direction[2]) > 0) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_PLANAR_DIR, nm);
      }
      if (!(l > 1e-12)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_ZERO, nm, "direction");
      }
      sf->e1[0] = s->direction[0] / l;
      sf->e1[1] = s->direction[1] / l;
      break;
    }
    case MBD_SHAPE_CIRCLE:
    case MBD_SHAPE_SPHERE:
      if (!(s->radius > 0)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_POSITIVE, nm, "radius", s->radius);
      }
      sf->radius = s->radius;
      break;
    case MBD_SHAPE_SINE:
      if (!(s->wavelength > 0)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_POSITIVE, nm, "wavelength", s->wavelength);
      }
      sf->amplitude = s->amplitude;
      sf->wavenumber = 2 * 3.14159265358979323846 / s->wavelength;
      break;
    case MBD_SHAPE_PLANE: {
      double l = mbd_norm3(s->normal);
      if (!(l > 1e-12)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_ZERO, nm, "normal");
      }
      for (int i = 0; i < 3; i++) {
        sf->nrm[i] = s->normal[i] / l;
      }
      // e1: the body axis least along the normal, made perpendicular; e2 = n × e1
      int k = 0;
      for (int i = 1; i < 3; i++) {
        if (fabs(sf->nrm[i]) < fabs(sf->nrm[k])) {
          k = i;
        }
      }
      double a[3] = {0, 0, 0};
      a[k] = 1;
      double p = a[0] * sf->nrm[0] + a[1] * sf->nrm[1] + a[2] * sf->nrm[2];
      for (int i = 0; i < 3; i++) {
        sf->e1[i] = a[i] - p * sf->nrm[i];
      }
      double l1 = mbd_norm3(sf->e1);
      for (int i = 0; i < 3; i++) {
        sf->e1[i] /= l1;
      }
      sf->e2[0] = sf->nrm[1] * sf->e1[2] - sf->nrm[2] * sf->e1[1];
      sf->e2[1] = sf->nrm[2] * sf->e1[0] - sf->nrm[0] * sf->e1[2];
      sf->e2[2] = sf->nrm[0] * sf->e1[1] - sf->nrm[1] * sf->e1[0];
      break;
    }
    default:
      break;
  }
  if (s->shape == MBD_SHAPE_SPHERE || s->shape == MBD_SHAPE_REVOLUTION ||
      s->shape == MBD_SHAPE_IMPLICIT) {
    sf->implicit = 1;
    sf->np = 3;
  }
  if (s->shape == MBD_SHAPE_CURVE || s->shape == MBD_SHAPE_PARAMETRIC ||
      s->shape == MBD_SHAPE_IMPLICIT || s->shape == MBD_SHAPE_REVOLUTION) {
    return build_tape(sf, s, err);
  }
  return MBD_OK;
}

int mbd_model_add_surface(mbd_model *m, const mbd_surface_spec *s, mbd_error *err) {
  mbd_surface sf;
  memset(&sf, 0, sizeof sf);
  if (s->name) {
    int rc = check_name(s->name, "surface", err);
    if (rc) {
      return rc;
    }
    snprintf(sf.name, sizeof sf.name, "%s", s->name);
  } else {
    snprintf(sf.name, sizeof sf.name, "surface%d", m->nsurface + 1);
  }
  for (int i = 0; i < m->nsurface; i++) {
    if (strcmp(m->surface[i].name, sf.name) == 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_DUP, "surface", sf.name);
    }
  }
  if (s->body < 0 || s->body >= m->nbody) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_BODY, sf.name);
  }
  if (s->shape < 0 || s->shape >= MBD_SHAPE_N) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_SHAPE, sf.name, s->shape);
  }
  if (mbd_shape_dim(s->shape) != m->dim) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_DIM, sf.name, mbd_shape_name(s->shape),
                    m->dim == 2 ? "spatial" : "planar", m->dim == 2 ? "planar" : "spatial");
  }
  sf.body = s->body;
  sf.shape = s->shape;
  sf.sign = s->inner ? -1 : 1;
  sf.lo[0] = sf.lo[1] = -INFINITY;
  sf.hi[0] = sf.hi[1] = INFINITY;
  sf.u0[0] = s->u0[0];
  sf.u0[1] = s->u0[1];
  int rc = set_shape(m, &sf, s, err);
  if (rc < 0) {
    mbd_sym_tape_free(sf.tape);
    return rc;
  }
  // ranges of the parameters (parametric shapes)
  for (int k = 0; k < s->nrange && k < 2 && !sf.implicit && k < sf.np; k++) {
    double lo = s->range[k][0], hi = s->range[k][1];
    if (!(lo < hi) || isnan(lo) || isnan(hi)) {
      mbd_sym_tape_free(sf.tape);
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_RANGE, sf.name, k ? "v" : "u", lo, hi);
    }
    sf.lo[k] = lo;
    sf.hi[k] = hi;
  }
  if (grow((void **)&m->surface, &m->csurface, m->nsurface, sizeof *m->surface)) {
    mbd_sym_tape_free(sf.tape);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CONTACT_NOMEM, "surface");
  }
  m->surface[m->nsurface] = sf;
  mbd_model_unassemble(m);
  return m->nsurface++;
}

/* ------------------------------------------------------------------------------------------ */
/* contacts                                                                                    */

int mbd_model_add_contact(mbd_model *m, const mbd_contact_spec *s, mbd_error *err) {
  mbd_contact c;
  memset(&c, 0, sizeof c);
  if (s->name) {
    int rc = check_name(s->name, "contact", err);
    if (rc) {
      return rc;
    }
    snprintf(c.name, sizeof c.name, "%s", s->name);
  } else {
    snprintf(c.name, sizeof c.name, "contact%d", m->ncontact + 1);
  }
  if (mbd_model_find_contact(m, c.name) >= 0 || mbd_model_find_body(m, c.name) >= 0 ||
      mbd_model_find_joint(m, c.name) >= 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_DUP, "contact", c.name);
  }
  if (s->surface1 < 0 || s->surface1 >= m->nsurface) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_SURFACE, c.name, "surface1");
  }
  if (s->surface2 < 0 || s->surface2 >= m->nsurface) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_SURFACE, c.name, "surface2");
  }
  c.s1 = s->surface1;
  c.s2 = s->surface2;
  c.b1 = m->surface[c.s1].body;
  c.b2 = m->surface[c.s2].body;
  if (c.b1 == c.b2) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_SAME_BODY, c.name, m->body[c.b1].name);
  }
  if (s->friction < MBD_FRICTION_NONE || s->friction > MBD_FRICTION_REGULARIZED) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_FRICTION, c.name, s->friction);
  }
  c.friction = s->friction;
  double mus = s->friction == MBD_FRICTION_COULOMB ? s->mu_static : s->mu;
  if (!(s->mu >= 0) || !isfinite(s->mu) || !(mus >= s->mu) || !isfinite(mus)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_MU, c.name, s->mu, s->mu_static);
  }
  c.mu = s->mu;
  c.mu_s = mus;
  if (s->friction == MBD_FRICTION_REGULARIZED && (!(s->slope > 0) || !isfinite(s->slope))) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_SLOPE, c.name, s->slope);
  }
  c.beta = s->slope;
  if (s->has_restitution && !(s->restitution >= 0 && s->restitution <= 1)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CONTACT_RESTITUTION, c.name, s->restitution);
  }
  c.has_e = s->has_restitution;
  c.e = s->has_restitution ? s->restitution : 0;
  c.block = c.row0 = -1;
  if (grow((void **)&m->contact, &m->ccontact, m->ncontact, sizeof *m->contact)) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CONTACT_NOMEM, "contact");
  }
  m->contact[m->ncontact] = c;
  mbd_model_unassemble(m);
  return m->ncontact++;
}

int mbd_model_set_joint_friction(mbd_model *m, int joint, double mu, double radius,
                                 mbd_error *err) {
  if (joint < 0 || joint >= m->njoint) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_JFRIC_JOINT);
  }
  const mbd_joint *j = &m->joint[joint];
  const char *tn = mbd_joint_type_name(j->type);
  int kind = mbd_joint_friction_kind(m, joint);
  if (kind < 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_JFRIC_TYPE, tn, j->name);
  }
  int rev = kind == MBD_COORD_ANGLE;  // a moment: its arm is the radius
  if (!(mu >= 0) || !isfinite(mu) || (rev && (!(radius > 0) || !isfinite(radius)))) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_JFRIC_VALUES, j->name, mu, radius);
  }
  int k = 0;
  while (k < m->njfric && m->jfric[k].joint != joint) {
    k++;
  }
  if (k == m->njfric) {
    if (grow((void **)&m->jfric, &m->cjfric, m->njfric, sizeof *m->jfric)) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_CONTACT_NOMEM, "joint friction");
    }
    m->njfric++;
  }
  m->jfric[k] = (mbd_joint_friction){.joint = joint,
                                     .mu = mu,
                                     .radius = rev ? radius : 0,
                                     .row = -1,
                                     .mode0 = MBD_CMODE_SLIP,
                                     .sgn0 = 1};
  mbd_model_unassemble(m);  // a lock row more
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* lookups                                                                                     */

int mbd_model_ncontact(const mbd_model *m) { return m->ncontact; }
int mbd_model_nsurface(const mbd_model *m) { return m->nsurface; }

int mbd_model_find_contact(const mbd_model *m, const char *name) {
  for (int i = 0; i < m->ncontact; i++) {
    if (strcmp(m->contact[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

const char *mbd_model_contact_name(const mbd_model *m, int c) {
  return c >= 0 && c < m->ncontact ? m->contact[c].name : "?";
}

const char *mbd_model_surface_name(const mbd_model *m, int s) {
  return s >= 0 && s < m->nsurface ? m->surface[s].name : "?";
}

int mbd_model_contact_surfaces(const mbd_model *m, int c, int *s1, int *s2) {
  if (c < 0 || c >= m->ncontact) {
    *s1 = *s2 = -1;
    return MBD_E_INPUT;
  }
  *s1 = m->contact[c].s1;
  *s2 = m->contact[c].s2;
  return MBD_OK;
}

int mbd_model_surface_body(const mbd_model *m, int s) {
  return s >= 0 && s < m->nsurface ? m->surface[s].body : -1;
}
