/* making a flexible body (m:flexible_body): the data checked (finite, symmetric, modal masses),
 * copied, its invariants computed once (flex_body.c's header: eq 17's sums), its nodes added as
 * bodies of the model.  Apart from flex_body.c (the body's kinematics and inertia, called from
 * below by the body kinds), so that the kernel does not call up into model.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flex_msg.h"
#include "model_impl.h"
#include "model_msg.h"
#include "mbd/vec3.h"

/* room for k more bodies */
static int grow_bodies(mbd_model *m, int k) {
  if (m->nbody + k <= m->cbody) {
    return 0;
  }
  int cap = m->cbody ? m->cbody : 8;
  while (cap < m->nbody + k) {
    cap *= 2;
  }
  mbd_body *p = realloc(m->body, (size_t)cap * sizeof *p);
  if (!p) {
    return -1;
  }
  m->body = p;
  m->cbody = cap;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the invariants (paper 003 eq 17), once                                                      */

static void invariants(struct mbd_flex *fx) {
  int N = fx->nnode, nm = fx->nm;
  memset(fx->c0, 0, sizeof fx->c0);
  memset(fx->Iss, 0, sizeof fx->Iss);
  memset(fx->Jsum, 0, sizeof fx->Jsum);
  fx->mt = 0;
  for (int i = 0; i < N; i++) {
    double mi = fx->mass[i];
    const double *s = fx->s + 3 * i, *P = fx->Phi + (size_t)3 * i * nm,
                 *R = fx->Psi + (size_t)3 * i * nm, *J = fx->J + 3 * i;
    fx->mt += mi;
    for (int k = 0; k < 3; k++) {
      fx->c0[k] += mi * s[k];
      fx->Jsum[4 * k] += J[k];
      for (int m = 0; m < 3; m++) {
        fx->Iss[3 * k + m] += mi * s[k] * s[m];
      }
    }
    for (int l = 0; l < nm; l++) {
      for (int k = 0; k < 3; k++) {
        fx->C1[k * nm + l] += mi * P[k * nm + l];
        fx->JPsi[k * nm + l] += J[k] * R[k * nm + l];
        for (int m = 0; m < 3; m++) {
          fx->T4[(3 * k + m) * nm + l] += mi * s[k] * P[m * nm + l];
        }
      }
      for (int lp = 0; lp < nm; lp++) {
        for (int k = 0; k < 3; k++) {
          for (int m = 0; m < 3; m++) {
            fx->T5[(size_t)(3 * k + m) * nm * nm + lp + (size_t)nm * l] +=
                mi * P[k * nm + lp] * P[m * nm + l];
          }
          fx->Mff[lp + (size_t)nm * l] +=
              mi * P[k * nm + lp] * P[k * nm + l] + R[k * nm + lp] * J[k] * R[k * nm + l];
          fx->Mft[lp + (size_t)nm * l] += mi * P[k * nm + lp] * P[k * nm + l];
        }
      }
    }
  }
  // the undeformed inertia about the frame origin (Udwadia–Kalaba's scale for the Euler
  // parameters): tr(Iss) I − Iss + ΣJ
  double tr = fx->Iss[0] + fx->Iss[4] + fx->Iss[8];
  for (int k = 0; k < 9; k++) {
    fx->I0[k] = (k % 4 == 0 ? tr : 0) - fx->Iss[k] + fx->Jsum[k];
  }
}

/* the modal mass is regular: each mode moves mass or inertia (its diagonal above 1e-10 of what
 * the total mass moving with the shape's largest displacement — a rotation times the body's
 * size — would give: a pure torsion mode without rotary inertia has exactly zero), and the
 * shapes are independent (Cholesky of the modal mass scaled to unit diagonal: pivots above
 * 1e-10) */
static int check_modal_mass(const struct mbd_flex *fx, const char *name, mbd_error *err) {
  int N = fx->nnode, nm = fx->nm;
  double ext = 0;
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < 3; k++) {
      ext = fmax(ext, fabs(fx->s[3 * i + k] - fx->c0[k] / fx->mt));
    }
  }
  ext = ext > 0 ? ext : 1;
  for (int k = 0; k < nm; k++) {
    double big = 0;
    for (int i = 0; i < N; i++) {
      for (int r = 0; r < 3; r++) {
        big = fmax(big, fabs(fx->Phi[(3 * i + r) * nm + k]));
        big = fmax(big, ext * fabs(fx->Psi[(3 * i + r) * nm + k]));
      }
    }
    if (!(fx->Mff[k + (size_t)nm * k] > 1e-10 * fx->mt * big * big)) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FLEX_MODAL_MASS, name, fx->label[k]);
    }
  }
  double *c = malloc((size_t)(nm ? nm : 1) * nm * sizeof(double));
  if (!c) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FLEX_NOMEM, name);
  }
  for (int j = 0; j < nm; j++) {
    for (int i = 0; i < nm; i++) {
      c[i + (size_t)nm * j] = fx->Mff[i + (size_t)nm * j] /
                              sqrt(fx->Mff[i + (size_t)nm * i] * fx->Mff[j + (size_t)nm * j]);
    }
  }
  int piv = nm ? mbd_chol_factor(nm, c, nm) : 0;
  int bad = piv;
  for (int k = 0; !bad && k < nm; k++) {
    if (c[k + (size_t)nm * k] * c[k + (size_t)nm * k] < 1e-10) {
      bad = k + 1;
    }
  }
  free(c);
  if (bad < 0) {
    return MBD_FAIL(err, MBD_E_LAPACK, MSG_FLEX_NOMEM, name);
  }
  if (bad > 0) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FLEX_MODAL_DEPENDENT, name, fx->label[bad - 1]);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* building                                                                                    */

static int all_finite(const double *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

static int symmetric(const double *X, int n) {
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < j; i++) {
      double a = X[i + (size_t)n * j], b = X[j + (size_t)n * i];
      if (fabs(a - b) > 1e-9 * (fabs(a) + fabs(b)) + 1e-300) {
        return 0;
      }
    }
  }
  return 1;
}

static double *dup(const double *v, size_t n) {
  double *p = malloc((n ? n : 1) * sizeof(double));
  if (p && v) {
    memcpy(p, v, n * sizeof(double));
  } else if (p) {
    memset(p, 0, (n ? n : 1) * sizeof(double));
  }
  return p;
}

int mbd_model_add_flexible_body(mbd_model *m, const mbd_flex_spec *s, mbd_error *err) {
  const mbd_body_spec *fr = &s->frame;
  char name[MBD_NAME_MAX];
  if (fr->name) {
    size_t len = strlen(fr->name);
    if (len == 0 || len >= MBD_NAME_MAX - 12) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_LEN, "flexible body", MBD_NAME_MAX - 13);
    }
    if (strchr(fr->name, '.')) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_NAME_DOT, "flexible body", fr->name);
    }
    if (mbd_model_check_utf8(fr->name, "flexible body", err) != MBD_OK) {
      return MBD_E_INPUT;
    }
    snprintf(name, sizeof name, "%s", fr->name);
  } else {
    snprintf(name, sizeof name, "body%d", m->nbody);
  }
  if (mbd_model_find_body(m, name) >= 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_DUP, name);
  }
  int N = s->nnode, nm = s->nmode, dim = m->dim;
  if (N < 1 || N > 99999 || nm < 0 || nm > 500) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_SIZES, name, N, nm);
  }
  size_t n6 = 6 * (size_t)N, nn = (size_t)nm * nm;
  if (!s->xyz || !s->mass || (nm && (!s->shape || !s->kmodal))) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_FINITE, name, "nodes, masses, shapes and stiffness");
  }
  if (!all_finite(s->xyz, 3 * (size_t)N) || !all_finite(s->mass, (size_t)N) ||
      !all_finite(s->rot, 3 * (size_t)N)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_FINITE, name, "node positions, masses and inertias");
  }
  if (!all_finite(s->shape, n6 * nm) || !all_finite(s->kmodal, nn) || !all_finite(s->dmodal, nn) ||
      !all_finite(s->gmodal, nn) || !all_finite(s->a0, (size_t)nm) ||
      !all_finite(s->adot0, (size_t)nm)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_FINITE, name,
                    "mode shapes, modal matrices and initial modal state");
  }
  // the beam elements (for drawings): each joins two of the nodes
  for (int e = 0; s->elem && e < s->nelem; e++) {
    int n1 = s->elem[2 * e], n2 = s->elem[2 * e + 1];
    if (n1 < 1 || n1 > N || n2 < 1 || n2 > N) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_ELEMENT, name, e + 1, n1, n2, N);
    }
  }
  if (!all_finite(fr->pos, 3) || !all_finite(fr->vel, 3) || !all_finite(fr->omega, 3) ||
      !isfinite(fr->angle) || !all_finite(fr->rot, 4)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_BODY_FINITE, name,
                    "pos, vel, omega, angle or rot of the floating frame");
  }
  double mt = 0;
  for (int i = 0; i < N; i++) {
    int neg = s->mass[i] < 0;
    for (int k = 0; s->rot && k < 3; k++) {
      neg |= s->rot[3 * i + k] < 0;
    }
    if (neg) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_MASS, name, i + 1);
    }
    mt += s->mass[i];
    if (dim == 2 && s->xyz[3 * i + 2] != 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_PLANE_NODE, name, i + 1, s->xyz[3 * i + 2]);
    }
  }
  if (!(mt > 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_NO_MASS, name);
  }
  if (nm && (!symmetric(s->kmodal, nm) || (s->dmodal && !symmetric(s->dmodal, nm)))) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_SYMMETRIC, name,
                    symmetric(s->kmodal, nm) ? "damping" : "stiffness");
  }
  double nrm = 1;
  if (dim == 3) {
    nrm = sqrt(fr->rot[0] * fr->rot[0] + fr->rot[1] * fr->rot[1] + fr->rot[2] * fr->rot[2] +
               fr->rot[3] * fr->rot[3]);
    if (!(nrm > 0)) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_EULER_ZERO, name);
    }
  }
  // the data
  struct mbd_flex *fx = calloc(1, sizeof *fx);
  size_t nmm = (size_t)(nm ? nm : 1);
  if (fx) {
    fx->dim = dim;
    fx->nnode = N;
    fx->nm = nm;
    fx->ny = dim == 3 ? 7 : 3;
    fx->nvb = fx->ny + nm;
    fx->s = dup(s->xyz, 3 * (size_t)N);
    fx->mass = dup(s->mass, (size_t)N);
    fx->J = dup(s->rot, 3 * (size_t)N);
    fx->Phi = calloc(3 * (size_t)N * nmm, sizeof(double));
    fx->Psi = calloc(3 * (size_t)N * nmm, sizeof(double));
    fx->K = dup(s->kmodal, nn);
    fx->D = s->dmodal ? dup(s->dmodal, nn) : NULL;
    fx->G = s->gmodal ? dup(s->gmodal, nn) : NULL;
    fx->a0 = dup(s->a0, (size_t)nm);
    fx->adot0 = dup(s->adot0, (size_t)nm);
    fx->label = calloc(nmm, sizeof *fx->label);
    fx->C1 = calloc(3 * nmm, sizeof(double));
    fx->T4 = calloc(9 * nmm, sizeof(double));
    fx->T5 = calloc(9 * nmm * nmm, sizeof(double));
    fx->JPsi = calloc(3 * nmm, sizeof(double));
    fx->Mff = calloc(nmm * nmm, sizeof(double));
    fx->Mft = calloc(nmm * nmm, sizeof(double));
    if (s->elem && s->nelem > 0) {
      fx->elem = malloc(2 * (size_t)s->nelem * sizeof(int));
      if (fx->elem) {
        memcpy(fx->elem, s->elem, 2 * (size_t)s->nelem * sizeof(int));
        fx->nelem = s->nelem;
      }
    }
  }
  if (!fx || !fx->s || !fx->mass || !fx->J || !fx->Phi || !fx->Psi || !fx->K ||
      (s->dmodal && !fx->D) || (s->gmodal && !fx->G) || !fx->a0 || !fx->adot0 || !fx->label ||
      !fx->C1 || !fx->T4 || !fx->T5 || !fx->JPsi || !fx->Mff || !fx->Mft ||
      (s->elem && s->nelem > 0 && !fx->elem)) {
    mbd_flex_free(fx);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FLEX_NOMEM, name);
  }
  for (int k = 0; k < nm; k++) {
    if (s->label && s->label[k]) {
      snprintf(fx->label[k], sizeof fx->label[k], "%s", s->label[k]);
    } else {
      snprintf(fx->label[k], sizeof fx->label[k], "mode %d", k + 1);
    }
    const double *sh = s->shape + n6 * k;
    for (int i = 0; i < N; i++) {
      for (int r = 0; r < 3; r++) {
        fx->Phi[(3 * i + r) * nm + k] = sh[6 * i + r];
        fx->Psi[(3 * i + r) * nm + k] = sh[6 * i + 3 + r];
      }
    }
  }
  int rc = MBD_OK;
  // a planar body moves in its plane: in-plane translations and rotations about z only
  for (int k = 0; dim == 2 && k < nm && rc == MBD_OK; k++) {
    double in = 0, out = 0;
    for (int i = 0; i < N; i++) {
      in = fmax(in, fmax(fabs(fx->Phi[3 * i * nm + k]), fabs(fx->Phi[(3 * i + 1) * nm + k])));
      in = fmax(in, fabs(fx->Psi[(3 * i + 2) * nm + k]));
      out = fmax(out, fabs(fx->Phi[(3 * i + 2) * nm + k]));
      out = fmax(out, fmax(fabs(fx->Psi[3 * i * nm + k]), fabs(fx->Psi[(3 * i + 1) * nm + k])));
    }
    if (out > 1e-8 * in) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_PLANE_MODE, name, fx->label[k]);
    }
  }
  if (rc == MBD_OK) {
    invariants(fx);
    rc = check_modal_mass(fx, name, err);
  }
  // every mode has stiffness: ω_k² = K_kk / M_kk above 1e-12 of the largest (a rigid mode's is
  // the eigensolver's noise)
  double wmax = 0;
  for (int k = 0; rc == MBD_OK && k < nm; k++) {
    wmax = fmax(wmax, fx->K[k + (size_t)nm * k] / fx->Mff[k + (size_t)nm * k]);
  }
  for (int k = 0; rc == MBD_OK && k < nm; k++) {
    if (!(fx->K[k + (size_t)nm * k] / fx->Mff[k + (size_t)nm * k] > 1e-12 * wmax) || wmax <= 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FLEX_RIGID_MODE, name, fx->label[k]);
    }
  }
  if (rc == MBD_OK && (grow_bodies(m, N + 1) != 0 || m->nflex == m->cflex)) {
    if (m->nflex == m->cflex) {
      int cap = m->cflex ? 2 * m->cflex : 4;
      struct mbd_flex **p = realloc(m->flex, (size_t)cap * sizeof *p);
      if (p) {
        m->flex = p;
        m->cflex = cap;
      }
    }
    if (m->nflex == m->cflex || m->nbody + N + 1 > m->cbody) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FLEX_NOMEM, name);
    }
  }
  if (rc != MBD_OK) {
    mbd_flex_free(fx);
    return rc;
  }
  // the flexible body: its frame's pose as given, the invariants' mass and inertia
  mbd_body b;
  memset(&b, 0, sizeof b);
  snprintf(b.name, sizeof b.name, "%s", name);
  b.kind = dim == 2 ? MBD_BODY_FLEX2 : MBD_BODY_FLEX3;
  b.mass = fx->mt;
  memcpy(b.inertia, fx->I0, sizeof fx->I0);
  if (dim == 2) {
    b.q0[0] = fr->pos[0];
    b.q0[1] = fr->pos[1];
    b.q0[2] = fr->angle;
    b.v0[0] = fr->vel[0];
    b.v0[1] = fr->vel[1];
    b.v0[2] = fr->omega[0];
  } else {
    for (int i = 0; i < 3; i++) {
      b.q0[i] = fr->pos[i];
      b.v0[i] = fr->vel[i];
      b.v0[3 + i] = fr->omega[i];
    }
    for (int i = 0; i < 4; i++) {
      b.q0[3 + i] = fr->rot[i] / nrm;
    }
  }
  b.block = -1;
  b.nmode = nm;
  b.flex = fx;
  fx->body = m->nbody;
  fx->node0 = m->nbody + 1;
  m->body[m->nbody++] = b;
  // its nodes: bodies whose initial pose is the undeformed node's (for joints' reference axes)
  double A[9];
  if (dim == 3) {
    mbd_ep_A(b.q0 + 3, A);
  } else {
    double c = cos(b.q0[2]), sn = sin(b.q0[2]);
    const double A2[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    memcpy(A, A2, sizeof A);
  }
  for (int i = 0; i < N; i++) {
    mbd_body nd;
    memset(&nd, 0, sizeof nd);
    char nodename[MBD_NAME_MAX + 16];  // fits: the name has at most MBD_NAME_MAX − 13 characters
    snprintf(nodename, sizeof nodename, "%s.node%d", name, i + 1);
    memcpy(nd.name, nodename, sizeof nd.name - 1);
    nd.kind = dim == 2 ? MBD_BODY_NODE2 : MBD_BODY_NODE3;
    double As[3];
    mbd_mat3_vec(A, fx->s + 3 * i, As);
    for (int k = 0; k < 3; k++) {
      nd.q0[k] = (dim == 3 || k < 2) ? b.q0[k] + As[k] : 0;
    }
    if (dim == 2) {
      nd.q0[2] = b.q0[2];
    } else {
      memcpy(nd.q0 + 3, b.q0 + 3, 4 * sizeof(double));
    }
    nd.block = -1;
    nd.flex = fx;
    nd.node = i + 1;
    m->body[m->nbody++] = nd;
  }
  // its workspace in each run's data: node Jacobians, M_ω and Q_ω, scratch
  size_t nw = 6 + (size_t)nm;
  fx->ws = m->flexws;
  fx->wsize = (size_t)N * fx->ny * fx->nvb + nw * nw + nw + 9 * nmm + 4 * nmm + 16;
  m->flexws += fx->wsize;
  m->flex[m->nflex++] = fx;
  mbd_model_unassemble(m);
  return fx->body;
}
