/* vectors and rows over the pose coordinates of a joint's two bodies (Y1 | Y2).
 *
 * Every joint equation is built from a few global vectors — a point r + A s', an axis A a', a
 * separation d = r2 + A2 s2' − r1 − A1 s1' — each carrying its value, its rate, its Jacobian
 * over (Y1 | Y2) and the quadratic term h = J̇ Ẏ of its second derivative (v̈ = J Ÿ + h).  A
 * scalar equation is a component of one of them or a dot product of two (Haug's dot-1 and dot-2
 * constraints, Computer-Aided Kinematics and Dynamics of Mechanical Systems, ch. 3 and 9):
 *
 *   Φ = uᵀw,   Φ_Y = wᵀJu + uᵀJw,   γ = −(wᵀhu + uᵀhw + 2 u̇ᵀẇ)      (paper 000 eq 7).
 *
 * The body kind (body_kinds.c) supplies A a with its derivatives, so the same algebra serves
 * planar and spatial bodies. */
#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "model_impl.h"
#include "mbd/vec3.h"

static const mbd_body_kind_desc *kind_of(const mbd_model *m, int b) {
  return mbd_body_kind_get(m->body[b].kind);
}

/* an axis A a' of body `body`, as side `side` (0: body1, 1: body2) of a row */
void mbd_vec_axis(const mbd_model *m, const mbd_data *d, int body, int side, const double *a,
                  mbd_vec *o) {
  memset(o, 0, sizeof *o);
  kind_of(m, body)->vec_add(&d->pose[body], a, 1, side, 0, o);
}

/* the separation of two points: d = r2 + A2 s2' − r1 − A1 s1' */
void mbd_vec_sep(const mbd_model *m, const mbd_data *d, int b1, const double *s1, int b2,
                 const double *s2, mbd_vec *o) {
  memset(o, 0, sizeof *o);
  kind_of(m, b2)->vec_add(&d->pose[b2], s2, 1, 1, 1, o);
  kind_of(m, b1)->vec_add(&d->pose[b1], s1, -1, 0, 1, o);
}

/* Haug's dot constraints: Φ = uᵀw */
void mbd_row_dot(const mbd_vec *u, const mbd_vec *w, mbd_row *o) {
  o->val = mbd_dot3(u->v, w->v);
  o->rate = mbd_dot3(u->vd, w->v) + mbd_dot3(u->v, w->vd);
  o->h = mbd_dot3(u->v, w->h) + mbd_dot3(w->v, u->h) + 2 * mbd_dot3(u->vd, w->vd);
  for (int c = 0; c < MBD_NLOC; c++) {
    o->J[c] = w->v[0] * u->J[0][c] + w->v[1] * u->J[1][c] + w->v[2] * u->J[2][c] +
              u->v[0] * w->J[0][c] + u->v[1] * w->J[1][c] + u->v[2] * w->J[2][c];
  }
}

/* one component of a vector as a row (coincident points) */
void mbd_row_comp(const mbd_vec *v, int i, mbd_row *o) {
  o->val = v->v[i];
  o->rate = v->vd[i];
  o->h = v->h[i];
  for (int c = 0; c < MBD_NLOC; c++) {
    o->J[c] = v->J[i][c];
  }
}

/* θ = atan2(s, c), continuous through the memo: θ̇ = (c ṡ − s ċ)/R,
 * θ̈ = (c s̈ − s c̈)/R − θ̇ Ṙ/R with R = c² + s² */
void mbd_row_angle(const mbd_row *c, const mbd_row *s, double memo, mbd_row *o) {
  double R = c->val * c->val + s->val * s->val;
  if (R < 1e-300) {
    R = 1e-300;  // axes not parallel at all: keep finite, Newton moves away
  }
  double th = atan2(s->val, c->val);
  o->val = memo + remainder(th - memo, 2 * M_PI);
  o->rate = (c->val * s->rate - s->val * c->rate) / R;
  double Rdot = 2 * (c->val * c->rate + s->val * s->rate);
  o->h = (c->val * s->h - s->val * c->h) / R - o->rate * Rdot / R;
  for (int k = 0; k < MBD_NLOC; k++) {
    o->J[k] = (c->val * s->J[k] - s->val * c->J[k]) / R;
  }
}

/* global position r + A s' and velocity of a point of body b */
void mbd_point_state(const mbd_model *m, const mbd_data *d, int b, const double *s, double *P,
                     double *V) {
  mbd_vec o;
  memset(&o, 0, sizeof o);
  kind_of(m, b)->vec_add(&d->pose[b], s, 1, 0, 1, &o);
  memcpy(P, o.v, sizeof o.v);
  memcpy(V, o.vd, sizeof o.vd);
}
