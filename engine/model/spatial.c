/* spatial joints: Φ, Φq, Φt and γ of Haug's and Nikravesh's joint equations in Euler parameters.
 *
 * A spatial body has q = (r, p): the global position r of its centre of mass and the Euler
 * parameters p = (e0, e) of its orientation, A = E Gᵀ = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ.
 * Every joint equation is built from a few global vectors of the two bodies' coordinates — a point
 * r + A s', an axis A a', a separation d = r2 + A2 s2 − r1 − A1 s1 — each carrying its value, its
 * rate, its Jacobian over the joint's 14 local coordinates (body1 | body2) and the quadratic term
 * h = J̇ q̇ of its second derivative (v̈ = J q̈ + h).  A scalar equation is a dot product of two of
 * them (Haug's dot-1 and dot-2 constraints):
 *
 *   Φ = uᵀw,   Φq = wᵀJu + uᵀJw,   γ = −(wᵀhu + uᵀhw + 2 u̇ᵀẇ).
 *
 * A is a quadratic form in p, so B(p, a) = ∂(A a)/∂p is linear in p, d/dt(A a) = B(p, a) ṗ and
 * d²/dt²(A a) = B(p, a) p̈ + B(ṗ, a) ṗ: the quadratic term of A a is B(ṗ, a) ṗ.  These are the
 * exact derivatives of Φ for any p (also off the unit sphere), which the Newton iterations and the
 * finite-difference tests rely on.
 *
 * References: Haug, Computer-Aided Kinematics and Dynamics of Mechanical Systems (1989) ch. 9
 * (joint library, B matrix); Nikravesh, Computer-Aided Analysis of Mechanical Systems (1988)
 * ch. 6–7 (Euler parameters, E and G, normalization constraint). */
#include <math.h>
#include <string.h>

#include "model_impl.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define NQ 14 /* local coordinates of a joint: body1 (7) then body2 (7) */

/* ------------------------------------------------------------------------------------------ */
/* Euler-parameter algebra                                                                     */

void mbd_ep_A(const double *p, double *A) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  double s = e0 * e0 - e1 * e1 - e2 * e2 - e3 * e3;
  A[0] = s + 2 * e1 * e1;
  A[1] = 2 * (e1 * e2 - e0 * e3);
  A[2] = 2 * (e1 * e3 + e0 * e2);
  A[3] = 2 * (e2 * e1 + e0 * e3);
  A[4] = s + 2 * e2 * e2;
  A[5] = 2 * (e2 * e3 - e0 * e1);
  A[6] = 2 * (e3 * e1 - e0 * e2);
  A[7] = 2 * (e3 * e2 + e0 * e1);
  A[8] = s + 2 * e3 * e3;
}

void mbd_ep_E(const double *p, double *E) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const double v[12] = {-e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0};
  memcpy(E, v, sizeof v);
}

void mbd_ep_G(const double *p, double *G) {
  double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const double v[12] = {-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0};
  memcpy(G, v, sizeof v);
}

// Haug's B matrix in expanded form: ∂(Aa)/∂e0 = 2(e0 a + e × a),
// ∂(Aa)/∂e = 2[(eᵀa) I + e aᵀ − a eᵀ − e0 ã]
void mbd_ep_B(const double *p, const double *a, double *B) {
  double e0 = p[0], e[3] = {p[1], p[2], p[3]};
  double ea = e[0] * a[0] + e[1] * a[1] + e[2] * a[2];
  double exa[3] = {e[1] * a[2] - e[2] * a[1], e[2] * a[0] - e[0] * a[2],
                   e[0] * a[1] - e[1] * a[0]};
  // ã row-major
  double at[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
  for (int i = 0; i < 3; i++) {
    B[4 * i] = 2 * (e0 * a[i] + exa[i]);
    for (int k = 0; k < 3; k++) {
      B[4 * i + 1 + k] =
          2 * ((i == k ? ea : 0) + e[i] * a[k] - a[i] * e[k] - e0 * at[3 * i + k]);
    }
  }
}

void mbd_sym3_eigenvalues(const double *S, double *ev) {
  // closed form for symmetric 3×3 (trigonometric solution of the characteristic cubic)
  double p1 = S[1] * S[1] + S[2] * S[2] + S[5] * S[5];
  double q = (S[0] + S[4] + S[8]) / 3;
  double d[3] = {S[0], S[4], S[8]};
  if (p1 <= 1e-300) {
    for (int i = 0; i < 3; i++) {
      ev[i] = d[i];
    }
  } else {
    double p2 = (d[0] - q) * (d[0] - q) + (d[1] - q) * (d[1] - q) + (d[2] - q) * (d[2] - q) +
                2 * p1;
    double pp = sqrt(p2 / 6);
    double b[9];
    for (int i = 0; i < 9; i++) {
      b[i] = (S[i] - (i % 4 == 0 ? q : 0)) / pp;
    }
    double det = b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6]) +
                 b[2] * (b[3] * b[7] - b[4] * b[6]);
    double r = fmax(-1.0, fmin(1.0, det / 2));
    double phi = acos(r) / 3;
    ev[2] = q + 2 * pp * cos(phi);
    ev[0] = q + 2 * pp * cos(phi + 2 * M_PI / 3);
    ev[1] = 3 * q - ev[0] - ev[2];
  }
  // ascending
  for (int i = 0; i < 2; i++) {
    for (int k = i + 1; k < 3; k++) {
      if (ev[k] < ev[i]) {
        double t = ev[i];
        ev[i] = ev[k];
        ev[k] = t;
      }
    }
  }
}

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

// y = A x and y = Aᵀ x for a row-major 3×3
static void mul3(const double *A, const double *x, double *y) {
  for (int i = 0; i < 3; i++) {
    y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
  }
}

static void mul3t(const double *A, const double *x, double *y) {
  for (int i = 0; i < 3; i++) {
    y[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
  }
}

static int normalize3(double *v) {
  double n = sqrt(dot3(v, v));
  if (!(n > 1e-12)) {
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    v[i] /= n;
  }
  return 0;
}

// a unit vector perpendicular to the unit vector a
static void perpendicular(const double *a, double *p) {
  double t[3] = {1, 0, 0};
  if (fabs(a[0]) > 0.8) {
    t[0] = 0;
    t[1] = 1;
  }
  double d = dot3(t, a);
  for (int i = 0; i < 3; i++) {
    p[i] = t[i] - d * a[i];
  }
  normalize3(p);
}

/* ------------------------------------------------------------------------------------------ */
/* joint set-up from the given poses                                                           */

int mbd_spatial_joint_init(const mbd_model *m, mbd_joint *j, mbd_error *err) {
  double A1[9], A2[9];
  mbd_ep_A(m->body[j->body1].q0 + 3, A1);
  mbd_ep_A(m->body[j->body2].q0 + 3, A2);
  j->angle_memo = 0;
  switch (j->type) {
    case MBD_JOINT_SPHERICAL:
      return MBD_OK;
    case MBD_JOINT_FIXED: {
      // body1's frame axes z and x, and the same global directions seen from body2 in the
      // given poses: the fixed joint keeps the relative orientation the user gave
      static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
      double gz[3], gx[3];
      memcpy(j->axis1, z, sizeof z);
      memcpy(j->ref1, x, sizeof x);
      mul3(A1, z, gz);
      mul3(A1, x, gx);
      mul3t(A2, gz, j->axis2);
      mul3t(A2, gx, j->ref2);
      return MBD_OK;
    }
    case MBD_JOINT_UNIVERSAL: {
      // the cross: axis1 (on body1) ⟂ axis2 (on body2); 5 degrees of slack for rough poses
      double h1[3], h2[3];
      mul3(A1, j->axis1, h1);
      mul3(A2, j->axis2, h2);
      double c = dot3(h1, h2);
      if (fabs(c) > sin(5 * M_PI / 180)) {
        return MBD_FAIL(err, MBD_E_INPUT,
                        "universal '%s': axis1 and axis2 must be perpendicular (the arms of the "
                        "cross); in the given poses they are %.1f degrees apart",
                        j->name, acos(fmax(-1.0, fmin(1.0, c))) * 180 / M_PI);
      }
      perpendicular(j->axis1, j->ref1);
      perpendicular(j->axis2, j->ref2);
      return MBD_OK;
    }
    default: {
      // revolute, cylindrical, translational: ref1 ⟂ axis1; ref2 ⟂ axis2 chosen along ref1 in
      // the given poses, so that the relative angle is zero there
      perpendicular(j->axis1, j->ref1);
      double f1[3], h2[3], v[3];
      mul3(A1, j->ref1, f1);
      mul3(A2, j->axis2, h2);
      double c = dot3(f1, h2);
      for (int i = 0; i < 3; i++) {
        f1[i] -= c * h2[i];
      }
      mul3t(A2, f1, v);
      if (normalize3(v) == 0) {
        memcpy(j->ref2, v, sizeof v);
      } else {
        perpendicular(j->axis2, j->ref2);
      }
      return MBD_OK;
    }
  }
}

void mbd_spatial_reset(mbd_model *m) {
  for (int j = 0; j < m->njoint; j++) {
    m->joint[j].angle_memo = 0;
  }
}

void mbd_spatial_velocity0(const mbd_model *m, mbd_data *d) {
  for (int b = 1; b < m->nbody; b++) {
    const mbd_body *bd = &m->body[b];
    int a = bd->qadr;
    double E[12];
    mbd_ep_E(d->q + a + 3, E);
    for (int i = 0; i < 3; i++) {
      d->qd[a + i] = bd->v0[i];
    }
    // ṗ = ½ Eᵀ ω (ω = 2Eṗ with E Eᵀ = I and E p = 0)
    for (int k = 0; k < 4; k++) {
      d->qd[a + 3 + k] =
          0.5 * (E[k] * bd->v0[3] + E[4 + k] * bd->v0[4] + E[8 + k] * bd->v0[5]);
    }
  }
}

double mbd_spatial_omega(const mbd_model *m, const mbd_data *d, int b, int comp) {
  int a = m->body[b].qadr;
  double E[12];
  mbd_ep_E(d->q + a + 3, E);
  const double *pd = d->qd + a + 3;
  return 2 * (E[4 * comp] * pd[0] + E[4 * comp + 1] * pd[1] + E[4 * comp + 2] * pd[2] +
              E[4 * comp + 3] * pd[3]);
}

/* ------------------------------------------------------------------------------------------ */
/* vectors and rows with their derivatives                                                     */

typedef struct side3 {
  int a;            /* first coordinate, −1 for the ground */
  int col;          /* first local column: 0 (body1) or 7 (body2) */
  double r[3], v[3], p[4], pd[4];
  double A[9];      /* rotation matrix, row-major */
} side3;

static void side_get(const mbd_model *m, const mbd_data *d, int b, int col, side3 *s) {
  s->a = m->body[b].qadr;
  s->col = col;
  if (s->a < 0) {
    memset(s->r, 0, sizeof s->r);
    memset(s->v, 0, sizeof s->v);
    memset(s->pd, 0, sizeof s->pd);
    s->p[0] = 1;
    s->p[1] = s->p[2] = s->p[3] = 0;
  } else {
    memcpy(s->r, d->q + s->a, sizeof s->r);
    memcpy(s->v, d->qd + s->a, sizeof s->v);
    memcpy(s->p, d->q + s->a + 3, sizeof s->p);
    memcpy(s->pd, d->qd + s->a + 3, sizeof s->pd);
  }
  mbd_ep_A(s->p, s->A);
}

typedef struct vec3 {
  double v[3], vd[3]; /* value and rate */
  double J[3][NQ];    /* ∂v/∂(q1 | q2) */
  double h[3];        /* J̇ q̇ */
} vec3;

typedef struct row3 {
  double val, rate;   /* Φ and Φ̇ (without Φt) */
  double J[NQ];       /* ∂Φ/∂(q1 | q2) */
  double h;           /* quadratic part: Φ̈ = J q̈ + h, γ = −h */
} row3;

/* o += sign·(A a) for an axis, or sign·(r + A a) for a point of side s */
static void vec_add(vec3 *o, const side3 *s, const double *a, double sign, int point) {
  double B[12], Bd[12];
  mbd_ep_B(s->p, a, B);
  mbd_ep_B(s->pd, a, Bd);
  for (int i = 0; i < 3; i++) {
    const double *Bi = B + 4 * i, *Bdi = Bd + 4 * i;
    double Aa = s->A[3 * i] * a[0] + s->A[3 * i + 1] * a[1] + s->A[3 * i + 2] * a[2];
    double rate = Bi[0] * s->pd[0] + Bi[1] * s->pd[1] + Bi[2] * s->pd[2] + Bi[3] * s->pd[3];
    double h = Bdi[0] * s->pd[0] + Bdi[1] * s->pd[1] + Bdi[2] * s->pd[2] + Bdi[3] * s->pd[3];
    o->v[i] += sign * (Aa + (point ? s->r[i] : 0));
    o->vd[i] += sign * (rate + (point ? s->v[i] : 0));
    o->h[i] += sign * h;
    if (s->a >= 0) {
      if (point) {
        o->J[i][s->col + i] += sign;
      }
      for (int k = 0; k < 4; k++) {
        o->J[i][s->col + 3 + k] += sign * Bi[k];
      }
    }
  }
}

static void vec_axis(vec3 *o, const side3 *s, const double *a) {
  memset(o, 0, sizeof *o);
  vec_add(o, s, a, 1, 0);
}

/* separation of the joint points: d = r2 + A2 s2' − r1 − A1 s1' */
static void vec_sep(vec3 *o, const side3 *s1, const double *at1, const side3 *s2,
                    const double *at2) {
  memset(o, 0, sizeof *o);
  vec_add(o, s2, at2, 1, 1);
  vec_add(o, s1, at1, -1, 1);
}

/* Haug's dot constraints: Φ = uᵀw */
static void row_dot(const vec3 *u, const vec3 *w, row3 *o) {
  o->val = dot3(u->v, w->v);
  o->rate = dot3(u->vd, w->v) + dot3(u->v, w->vd);
  o->h = dot3(u->v, w->h) + dot3(w->v, u->h) + 2 * dot3(u->vd, w->vd);
  for (int c = 0; c < NQ; c++) {
    o->J[c] = w->v[0] * u->J[0][c] + w->v[1] * u->J[1][c] + w->v[2] * u->J[2][c] +
              u->v[0] * w->J[0][c] + u->v[1] * w->J[1][c] + u->v[2] * w->J[2][c];
  }
}

/* one component of a vector as a row (spherical equations) */
static void row_comp(const vec3 *v, int i, row3 *o) {
  o->val = v->v[i];
  o->rate = v->vd[i];
  o->h = v->h[i];
  memcpy(o->J, v->J[i], sizeof o->J);
}

/* θ = atan2(s, c), continuous through the memo: θ̇ = (c ṡ − s ċ)/R,
 * θ̈ = (c s̈ − s c̈)/R − θ̇ Ṙ/R with R = c² + s² */
static void row_angle(const row3 *c, const row3 *s, double memo, row3 *o) {
  double R = c->val * c->val + s->val * s->val;
  if (R < 1e-300) {
    R = 1e-300;  // axes not parallel at all: keep finite, Newton moves away
  }
  double th = atan2(s->val, c->val);
  o->val = memo + remainder(th - memo, 2 * M_PI);
  o->rate = (c->val * s->rate - s->val * c->rate) / R;
  double Rdot = 2 * (c->val * c->rate + s->val * s->rate);
  o->h = (c->val * s->h - s->val * c->h) / R - o->rate * Rdot / R;
  for (int k = 0; k < NQ; k++) {
    o->J[k] = (c->val * s->J[k] - s->val * c->J[k]) / R;
  }
}

/* the joint's frame vectors in the global frame: f1 = A1 ref1, g1 = A1 (axis1 × ref1),
 * h1 = A1 axis1, f2 = A2 ref2, h2 = A2 axis2 */
typedef struct jframe {
  side3 s1, s2;
  vec3 d, f1, g1, h1, f2, h2;
} jframe;

enum { JF_D = 1, JF_F1 = 2, JF_G1 = 4, JF_H1 = 8, JF_F2 = 16, JF_H2 = 32 };

static void jframe_make(const mbd_model *m, const mbd_data *d, const mbd_joint *j, int want,
                        jframe *f) {
  side_get(m, d, j->body1, 0, &f->s1);
  side_get(m, d, j->body2, 7, &f->s2);
  if (want & JF_D) {
    vec_sep(&f->d, &f->s1, j->at1, &f->s2, j->at2);
  }
  if (want & JF_F1) {
    vec_axis(&f->f1, &f->s1, j->ref1);
  }
  if (want & JF_G1) {
    double g[3];
    cross3(j->axis1, j->ref1, g);
    vec_axis(&f->g1, &f->s1, g);
  }
  if (want & JF_H1) {
    vec_axis(&f->h1, &f->s1, j->axis1);
  }
  if (want & JF_F2) {
    vec_axis(&f->f2, &f->s2, j->ref2);
  }
  if (want & JF_H2) {
    vec_axis(&f->h2, &f->s2, j->axis2);
  }
}

/* the joint's equations (Haug ch. 9 joint library): returns the number of rows */
static int joint_rows(const mbd_model *m, const mbd_data *d, const mbd_joint *j, row3 *rows) {
  jframe f;
  switch (j->type) {
    case MBD_JOINT_SPHERICAL:  // coincident points
      jframe_make(m, d, j, JF_D, &f);
      for (int i = 0; i < 3; i++) {
        row_comp(&f.d, i, &rows[i]);
      }
      return 3;
    case MBD_JOINT_REVOLUTE:  // spherical + axis2 ∥ axis1
      jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2, &f);
      for (int i = 0; i < 3; i++) {
        row_comp(&f.d, i, &rows[i]);
      }
      row_dot(&f.f1, &f.h2, &rows[3]);
      row_dot(&f.g1, &f.h2, &rows[4]);
      return 5;
    case MBD_JOINT_UNIVERSAL:  // spherical + axis1 ⟂ axis2
      jframe_make(m, d, j, JF_D | JF_H1 | JF_H2, &f);
      for (int i = 0; i < 3; i++) {
        row_comp(&f.d, i, &rows[i]);
      }
      row_dot(&f.h1, &f.h2, &rows[3]);
      return 4;
    case MBD_JOINT_CYLINDRICAL:  // axis2 ∥ axis1, separation ∥ axis1
      jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2, &f);
      row_dot(&f.f1, &f.h2, &rows[0]);
      row_dot(&f.g1, &f.h2, &rows[1]);
      row_dot(&f.f1, &f.d, &rows[2]);
      row_dot(&f.g1, &f.d, &rows[3]);
      return 4;
    case MBD_JOINT_TRANSLATIONAL:  // cylindrical + no rotation about the axis
      jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2 | JF_F2, &f);
      row_dot(&f.f1, &f.h2, &rows[0]);
      row_dot(&f.g1, &f.h2, &rows[1]);
      row_dot(&f.f1, &f.d, &rows[2]);
      row_dot(&f.g1, &f.d, &rows[3]);
      row_dot(&f.g1, &f.f2, &rows[4]);
      return 5;
    case MBD_JOINT_FIXED:  // spherical + the relative frame of the given poses
      jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2 | JF_F2, &f);
      for (int i = 0; i < 3; i++) {
        row_comp(&f.d, i, &rows[i]);
      }
      row_dot(&f.f1, &f.h2, &rows[3]);
      row_dot(&f.g1, &f.h2, &rows[4]);
      row_dot(&f.g1, &f.f2, &rows[5]);
      return 6;
    default:
      return 0;
  }
}

/* relative coordinate row: which = 0 angle about axis1 (from ref1 to ref2), 1 displacement along
 * axis1; the angle memo is read, not written */
static void coord_row(const mbd_model *m, const mbd_data *d, const mbd_joint *j, int which,
                      row3 *o) {
  jframe f;
  if (which == 1) {
    jframe_make(m, d, j, JF_D | JF_H1, &f);
    row_dot(&f.h1, &f.d, o);
  } else {
    jframe_make(m, d, j, JF_F1 | JF_G1 | JF_F2, &f);
    row3 c, s;
    row_dot(&f.f1, &f.f2, &c);
    row_dot(&f.g1, &f.f2, &s);
    row_angle(&c, &s, j->angle_memo, o);
  }
}

/* the angle memo is a cache of the last continuous value: evaluations move it along the motion
 * (consecutive evaluations never turn a joint by π), so it is updated through a const model */
static void memo_set(const mbd_joint *j, double v) { ((mbd_joint *)j)->angle_memo = v; }

static int has_angle(int type) {
  return type == MBD_JOINT_REVOLUTE || type == MBD_JOINT_CYLINDRICAL;
}

// the angle value only (no derivatives): cheap memo update on every constraint evaluation
static void update_memo(const mbd_model *m, const mbd_data *d, const mbd_joint *j) {
  side3 s1, s2;
  side_get(m, d, j->body1, 0, &s1);
  side_get(m, d, j->body2, 7, &s2);
  double g[3], f1[3], g1[3], f2[3];
  cross3(j->axis1, j->ref1, g);
  mul3(s1.A, j->ref1, f1);
  mul3(s1.A, g, g1);
  mul3(s2.A, j->ref2, f2);
  double th = atan2(dot3(g1, f2), dot3(f1, f2));
  memo_set(j, j->angle_memo + remainder(th - j->angle_memo, 2 * M_PI));
}

void mbd_spatial_coord_row(const mbd_model *m, const mbd_data *d, int ji, int which, double *value,
                           double *rate, double *J, double *h) {
  const mbd_joint *j = &m->joint[ji];
  row3 o;
  coord_row(m, d, j, which, &o);
  if (which == 0) {
    memo_set(j, o.val);
  }
  *value = o.val;
  *rate = o.rate;
  if (J) {
    memcpy(J, o.J, sizeof o.J);
  }
  if (h) {
    *h = o.h;
  }
}

void mbd_spatial_joint_coord(const mbd_model *m, const mbd_data *d, int ji, int which,
                             double *value, double *rate) {
  mbd_spatial_coord_row(m, d, ji, which, value, rate, NULL, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* evaluation of all rows                                                                      */

/* add a local row (14 columns) into Φq row r */
static void scatter_row(const mbd_model *m, mbd_data *d, int r, const mbd_joint *j,
                        const double *J) {
  int bodies[2] = {j->body1, j->body2};
  for (int side = 0; side < 2; side++) {
    int a = m->body[bodies[side]].qadr;
    if (a < 0) {
      continue;
    }
    for (int c = 0; c < 7; c++) {
      MBD_AT(d->phiq, m->mrow, r, a + c) += J[7 * side + c];
    }
  }
}

int mbd_constraints_eval3(const mbd_model *m, mbd_data *d, mbd_error *err) {
  // joints
  for (int ji = 0; ji < m->njoint; ji++) {
    const mbd_joint *j = &m->joint[ji];
    row3 rows[6];
    int nr = joint_rows(m, d, j, rows);
    for (int k = 0; k < nr && k < j->nrow; k++) {
      int r = j->row0 + k;
      d->phi[r] = rows[k].val;
      d->gamma[r] = -rows[k].h;
      scatter_row(m, d, r, j, rows[k].J);
    }
    if (has_angle(j->type)) {
      update_memo(m, d, j);
    }
  }
  // drives: revolute angle, translational and cylindrical displacement: coordinate − f(t)
  for (int di = 0; di < m->ndrive; di++) {
    const mbd_drive *dr = &m->drive[di];
    const mbd_joint *j = &m->joint[dr->joint];
    double f[3] = {0, 0, 0};
    int rc = dr->fn(dr->ud, d->t, f, err);
    if (rc < 0) {
      return rc;
    }
    if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
      return MBD_FAIL(err, MBD_E_NAN, "drive on joint '%s': position function gave %g at t = %g",
                      j->name, f[0], d->t);
    }
    int angle = j->type == MBD_JOINT_REVOLUTE;
    row3 o;
    coord_row(m, d, j, angle ? 0 : 1, &o);
    // an angle drive compares modulo 2π: θ(q) is only known up to turns, f(t) may be any
    d->phi[dr->row] = angle ? remainder(o.val - f[0], 2 * M_PI) : o.val - f[0];
    d->phit[dr->row] = -f[1];
    d->gamma[dr->row] = f[2] - o.h;
    scatter_row(m, d, dr->row, j, o.J);
  }
  // Euler-parameter normalization pᵀp − 1 = 0: Φq = 2pᵀ, γ = −2ṗᵀṗ
  int r0 = m->mrow - (m->nbody - 1);
  for (int b = 1; b < m->nbody; b++) {
    int a = m->body[b].qadr, r = r0 + b - 1;
    const double *p = d->q + a + 3, *pd = d->qd + a + 3;
    d->phi[r] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1;
    d->gamma[r] = -2 * (pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
    for (int k = 0; k < 4; k++) {
      MBD_AT(d->phiq, m->mrow, r, a + 3 + k) = 2 * p[k];
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* reactions                                                                                   */

double mbd_spatial_reaction_torque(const mbd_model *m, const mbd_data *d, int ji, int comp) {
  const mbd_joint *j = &m->joint[ji];
  // the joint point on body2, global
  side3 s2;
  side_get(m, d, j->body2, 7, &s2);
  double P[3];
  mul3(s2.A, j->at2, P);
  for (int i = 0; i < 3; i++) {
    P[i] += s2.r[i];
  }
  int b = j->body2;
  double sign = 1;
  if (m->body[b].qadr < 0) {
    b = j->body1;  // the ground: minus the reaction on body1, about the same point
    sign = -1;
  }
  int a = m->body[b].qadr;
  // generalized constraint force on the body: −Φqᵀλ over the joint's rows
  double F[3] = {0, 0, 0}, Qp[4] = {0, 0, 0, 0};
  for (int r = j->row0; r < j->row0 + j->nrow; r++) {
    for (int c = 0; c < 3; c++) {
      F[c] -= MBD_AT(d->phiq, m->mrow, r, a + c) * d->lambda[r];
    }
    for (int k = 0; k < 4; k++) {
      Qp[k] -= MBD_AT(d->phiq, m->mrow, r, a + 3 + k) * d->lambda[r];
    }
  }
  // Q_p = 2Gᵀn' ⇒ n' = ½ G Q_p (G Gᵀ = I, G p = 0), n = A n' about the centre of mass
  const double *p = d->q + a + 3;
  double G[12], A[9], nb[3], n[3];
  mbd_ep_G(p, G);
  mbd_ep_A(p, A);
  for (int i = 0; i < 3; i++) {
    nb[i] = 0.5 * (G[4 * i] * Qp[0] + G[4 * i + 1] * Qp[1] + G[4 * i + 2] * Qp[2] +
                   G[4 * i + 3] * Qp[3]);
  }
  mul3(A, nb, n);
  // moved to the joint point: n_P = n + (r − P) × F
  double rp[3] = {d->q[a] - P[0], d->q[a + 1] - P[1], d->q[a + 2] - P[2]}, mxf[3];
  cross3(rp, F, mxf);
  return sign * (n[comp] + mxf[comp]);
}
