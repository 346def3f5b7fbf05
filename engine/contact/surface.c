/* the geometry of surfaces (paper 001 eq 3: the surfaces f_i(s'_i) = 0 fixed in the bodies).
 *
 * Parametric shapes give the point s'(u), its tangents ∂s'/∂u and second derivatives; implicit
 * shapes (sphere, revolution, implicit) take the point s' itself as their three parameters and add
 * the equation f(s') = 0.  Every shape gives its unit normal n out of the body's material and the
 * derivative ∂n/∂u, which the contact's Newton iteration and the rates of its parameters need, and
 * the curvature data that decides whether two surfaces touch at a single point.
 *
 *   planar parametric (line, circle, sine, curve): t = s_u/|s_u|, n = σ R90 t (σ = +1 with the
 *     normal to the left of increasing u, −1 for the circle, whose normal is outward),
 *     ∂n/∂u = σ R90 (s_uu − t (t·s_uu))/|s_u|, curvature κ = −n·s_uu/|s_u|² (convex > 0);
 *   spatial parametric (plane, r(u, v)): c = s_u × s_v, n = c/|c|, ∂n/∂a = (c_a − n (n·c_a))/|c|
 *     with c_u = s_uu × s_v + s_u × s_uv, c_v = s_uv × s_v + s_u × s_vv; II_ab = −n·s_ab;
 *   implicit (sphere |s' − a|² − R², revolution x² + y² − ρ(z)², implicit f): n = ∇f/|∇f|,
 *     ∂n/∂s_k = (H e_k − n (n·H e_k))/|∇f|, normal curvature eᵀHe/|∇f|.
 * `inner` turns n over (and the curvatures' signs). */
#include <math.h>
#include <string.h>

#include "contact_impl.h"
#include "mbd/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* outputs of a symbolic shape's tape (contact_model.c builds it in this order) */
enum {
  TAPE_CURVE = 6,       /* x, y, x_u, y_u, x_uu, y_uu */
  TAPE_PARAMETRIC = 18, /* s, s_u, s_v, s_uu, s_uv, s_vv (3 each) */
  TAPE_IMPLICIT = 10,   /* f, f_x, f_y, f_z, f_xx, f_xy, f_xz, f_yy, f_yz, f_zz */
  TAPE_REVOLUTION = 3   /* P = ρ², P', P'' of the axial coordinate */
};

/* ------------------------------------------------------------------------------------------ */
/* planar parametric curves                                                                    */

/* from s, s_u, s_uu (z = 0) and the shape's orientation σ: the tangent, normal and curvature */
static int planar_frame(const mbd_surface *sf, const double *su, const double *suu, double sigma,
                        mbd_surf_geo *g) {
  double len = sqrt(su[0] * su[0] + su[1] * su[1]);
  if (!(len > 1e-300) || !isfinite(len) || !isfinite(suu[0]) || !isfinite(suu[1])) {
    return MBD_E_SINGULAR;
  }
  double t[2] = {su[0] / len, su[1] / len};
  double tt = t[0] * suu[0] + t[1] * suu[1];
  double dt[2] = {(suu[0] - t[0] * tt) / len, (suu[1] - t[1] * tt) / len};
  double sg = sigma * sf->sign;
  // n = σ R90 t with R90 (x, y) = (−y, x)
  g->n[0] = -sg * t[1];
  g->n[1] = sg * t[0];
  g->n[2] = 0;
  g->N[0][0] = -sg * dt[1];
  g->N[1][0] = sg * dt[0];
  g->N[2][0] = 0;
  g->S[0][0] = su[0];
  g->S[1][0] = su[1];
  g->S[2][0] = 0;
  // κ |s_u|² = −n·s_uu
  g->II[0][0] = -(g->n[0] * suu[0] + g->n[1] * suu[1]);
  return MBD_OK;
}

static int eval_planar(const mbd_surface *sf, double u, mbd_surf_geo *g) {
  double s[2], su[2], suu[2], sigma = 1;
  switch (sf->shape) {
    case MBD_SHAPE_LINE:
      for (int i = 0; i < 2; i++) {
        s[i] = sf->at[i] + u * sf->e1[i];
        su[i] = sf->e1[i];
        suu[i] = 0;
      }
      break;
    case MBD_SHAPE_CIRCLE: {
      double c = cos(u), sn = sin(u), R = sf->radius;
      s[0] = sf->at[0] + R * c;
      s[1] = sf->at[1] + R * sn;
      su[0] = -R * sn;
      su[1] = R * c;
      suu[0] = -R * c;
      suu[1] = -R * sn;
      sigma = -1;  // counter-clockwise: the outward normal is to the right
      break;
    }
    case MBD_SHAPE_SINE: {
      double A = sf->amplitude, k = sf->wavenumber;
      s[0] = sf->at[0] + u;
      s[1] = sf->at[1] + A * sin(k * u);
      su[0] = 1;
      su[1] = A * k * cos(k * u);
      suu[0] = 0;
      suu[1] = -A * k * k * sin(k * u);
      break;
    }
    default: {  // MBD_SHAPE_CURVE
      double o[TAPE_CURVE];
      mbd_sym_tape_eval(sf->tape, &u, o);
      s[0] = o[0];
      s[1] = o[1];
      su[0] = o[2];
      su[1] = o[3];
      suu[0] = o[4];
      suu[1] = o[5];
      if (!isfinite(s[0]) || !isfinite(s[1])) {
        return MBD_E_SINGULAR;
      }
      break;
    }
  }
  g->s[0] = s[0];
  g->s[1] = s[1];
  g->s[2] = 0;
  return planar_frame(sf, su, suu, sigma, g);
}

/* ------------------------------------------------------------------------------------------ */
/* spatial parametric surfaces                                                                 */

static int eval_parametric(const mbd_surface *sf, const double *u, mbd_surf_geo *g) {
  double su[3], sv[3], suu[3] = {0}, suv[3] = {0}, svv[3] = {0};
  if (sf->shape == MBD_SHAPE_PLANE) {
    for (int i = 0; i < 3; i++) {
      g->s[i] = sf->at[i] + u[0] * sf->e1[i] + u[1] * sf->e2[i];
      su[i] = sf->e1[i];
      sv[i] = sf->e2[i];
    }
  } else {
    double o[TAPE_PARAMETRIC];
    mbd_sym_tape_eval(sf->tape, u, o);
    for (int i = 0; i < 3; i++) {
      g->s[i] = o[i];
      su[i] = o[3 + i];
      sv[i] = o[6 + i];
      suu[i] = o[9 + i];
      suv[i] = o[12 + i];
      svv[i] = o[15 + i];
    }
    for (int i = 0; i < TAPE_PARAMETRIC; i++) {
      if (!isfinite(o[i])) {
        return MBD_E_SINGULAR;
      }
    }
  }
  double c[3], cu[3], cv[3], a[3], b[3];
  mbd_cross3(su, sv, c);
  double len = sqrt(mbd_dot3(c, c));
  if (!(len > 1e-300)) {
    return MBD_E_SINGULAR;
  }
  mbd_cross3(suu, sv, a);
  mbd_cross3(su, suv, b);
  for (int i = 0; i < 3; i++) {
    cu[i] = a[i] + b[i];
  }
  mbd_cross3(suv, sv, a);
  mbd_cross3(su, svv, b);
  for (int i = 0; i < 3; i++) {
    cv[i] = a[i] + b[i];
  }
  double sg = sf->sign;
  for (int i = 0; i < 3; i++) {
    g->n[i] = sg * c[i] / len;
  }
  double pu = mbd_dot3(g->n, cu) * sg, pv = mbd_dot3(g->n, cv) * sg;
  for (int i = 0; i < 3; i++) {
    g->N[i][0] = sg * (cu[i] - sg * g->n[i] * pu) / len;
    g->N[i][1] = sg * (cv[i] - sg * g->n[i] * pv) / len;
    g->S[i][0] = su[i];
    g->S[i][1] = sv[i];
  }
  g->II[0][0] = -mbd_dot3(g->n, suu);
  g->II[0][1] = g->II[1][0] = -mbd_dot3(g->n, suv);
  g->II[1][1] = -mbd_dot3(g->n, svv);
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* implicit surfaces: the parameters are the point s' itself                                   */

static int eval_implicit(const mbd_surface *sf, const double *u, mbd_surf_geo *g) {
  double f, grad[3], H[3][3];
  double w[3] = {u[0] - sf->at[0], u[1] - sf->at[1], u[2] - sf->at[2]};
  memset(H, 0, sizeof H);
  if (sf->shape == MBD_SHAPE_SPHERE) {
    // |w|² − R²: ∇f = 2w, H = 2I
    f = mbd_dot3(w, w) - sf->radius * sf->radius;
    for (int i = 0; i < 3; i++) {
      grad[i] = 2 * w[i];
      H[i][i] = 2;
    }
  } else if (sf->shape == MBD_SHAPE_REVOLUTION) {
    // w_x² + w_y² − P(w_z), P = ρ²: ∇f = (2w_x, 2w_y, −P'), H = diag(2, 2, −P'')
    double o[TAPE_REVOLUTION];
    mbd_sym_tape_eval(sf->tape, &w[2], o);
    f = w[0] * w[0] + w[1] * w[1] - o[0];
    grad[0] = 2 * w[0];
    grad[1] = 2 * w[1];
    grad[2] = -o[1];
    H[0][0] = H[1][1] = 2;
    H[2][2] = -o[2];
  } else {
    double o[TAPE_IMPLICIT];
    mbd_sym_tape_eval(sf->tape, u, o);
    f = o[0];
    for (int i = 0; i < 3; i++) {
      grad[i] = o[1 + i];
    }
    H[0][0] = o[4];
    H[0][1] = H[1][0] = o[5];
    H[0][2] = H[2][0] = o[6];
    H[1][1] = o[7];
    H[1][2] = H[2][1] = o[8];
    H[2][2] = o[9];
  }
  double len = sqrt(mbd_dot3(grad, grad));
  if (!(len > 1e-300) || !isfinite(len) || !isfinite(f)) {
    return MBD_E_SINGULAR;
  }
  for (int i = 0; i < 3; i++) {
    if (!isfinite(H[i][0]) || !isfinite(H[i][1]) || !isfinite(H[i][2])) {
      return MBD_E_SINGULAR;
    }
  }
  double sg = sf->sign;
  memcpy(g->s, u, 3 * sizeof(double));
  g->f = f / len;
  for (int i = 0; i < 3; i++) {
    g->fg[i] = grad[i] / len;
    g->n[i] = sg * grad[i] / len;
  }
  // ∂n/∂s_k = σ (H e_k − n̂ (n̂·H e_k))/|∇f| with n̂ = ∇f/|∇f|
  for (int k = 0; k < 3; k++) {
    double hk[3] = {H[0][k], H[1][k], H[2][k]};
    double p = mbd_dot3(g->fg, hk);
    for (int i = 0; i < 3; i++) {
      g->N[i][k] = sg * (hk[i] - g->fg[i] * p) / len;
      g->S[i][k] = i == k;
      g->II[i][k] = sg * H[i][k] / len;
    }
  }
  return MBD_OK;
}

int mbd_surface_eval(const mbd_surface *sf, const double *u, mbd_surf_geo *g) {
  memset(g, 0, sizeof *g);
  if (sf->implicit) {
    return eval_implicit(sf, u, g);
  }
  if (sf->np == 1) {
    return eval_planar(sf, u[0], g);
  }
  return eval_parametric(sf, u, g);
}

/* ------------------------------------------------------------------------------------------ */
/* curvature, ranges, names                                                                    */

double mbd_surface_curvature(const mbd_surface *sf, const mbd_surf_geo *g, const double *e) {
  if (sf->np == 1) {
    double l2 = g->S[0][0] * g->S[0][0] + g->S[1][0] * g->S[1][0];
    return g->II[0][0] / l2;
  }
  if (sf->implicit) {
    double s = 0;
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 3; k++) {
        s += e[i] * g->II[i][k] * e[k];
      }
    }
    return s;
  }
  // e = S α (least squares, e tangent): the normal equations of the 3×2 S
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (int i = 0; i < 3; i++) {
    a11 += g->S[i][0] * g->S[i][0];
    a12 += g->S[i][0] * g->S[i][1];
    a22 += g->S[i][1] * g->S[i][1];
    b1 += g->S[i][0] * e[i];
    b2 += g->S[i][1] * e[i];
  }
  double det = a11 * a22 - a12 * a12;
  double al = (a22 * b1 - a12 * b2) / det, be = (a11 * b2 - a12 * b1) / det;
  return al * al * g->II[0][0] + 2 * al * be * g->II[0][1] + be * be * g->II[1][1];
}

int mbd_surface_out_of_range(const mbd_surface *sf, const double *u) {
  for (int k = 0; k < sf->np && k < 2 && !sf->implicit; k++) {
    if (u[k] < sf->lo[k] || u[k] > sf->hi[k]) {
      return k;
    }
  }
  return -1;
}

int mbd_surface_profile2(const mbd_surface *sf, double z, double *P) {
  double o[TAPE_REVOLUTION];
  if (sf->shape != MBD_SHAPE_REVOLUTION) {
    return MBD_E_INPUT;
  }
  mbd_sym_tape_eval(sf->tape, &z, o);
  *P = o[0];
  return isfinite(o[0]) ? MBD_OK : MBD_E_SINGULAR;
}

const char *mbd_surface_param_name(const mbd_surface *sf, int k) {
  static const char *const uv[] = {"u", "v"}, *const xyz[] = {"x", "y", "z"};
  return sf->implicit ? xyz[k] : uv[k];
}

/* ------------------------------------------------------------------------------------------ */
/* a first guess of the point of a surface near a given point                                  */

/* the squared distance of surface point u from X (MBD_E_SINGULAR: infinite) */
static double dist2(const mbd_surface *sf, const double *u, const double *X) {
  mbd_surf_geo g;
  if (mbd_surface_eval(sf, u, &g) != MBD_OK) {
    return INFINITY;
  }
  double d[3] = {g.s[0] - X[0], g.s[1] - X[1], g.s[2] - X[2]};
  return mbd_dot3(d, d);
}

/* parametric shapes without a closed form: the best of a grid over the range (or around u0 when
 * unbounded), then Newton steps on (s − X)·s_u = 0 (Gauss–Newton for the distance); works on a
 * local pair and writes only the np parameters of sf into u (a curve's one parameter may be the
 * last of the state) */
static void guess_search(const mbd_surface *sf, const double *X, double *u) {
  int np = sf->np, nk = np == 1 ? 201 : 41;
  double lo[2], hi[2], best = INFINITY, ub[2] = {sf->u0[0], sf->u0[1]};
  for (int k = 0; k < np; k++) {
    int finite = isfinite(sf->lo[k]) && isfinite(sf->hi[k]);
    lo[k] = finite ? sf->lo[k] : sf->u0[k] - 5;
    hi[k] = finite ? sf->hi[k] : sf->u0[k] + 5;
  }
  for (int i = 0; i < nk; i++) {
    for (int j = 0; j < (np == 2 ? nk : 1); j++) {
      double w[2] = {lo[0] + (hi[0] - lo[0]) * i / (nk - 1),
                     np == 2 ? lo[1] + (hi[1] - lo[1]) * j / (nk - 1) : 0};
      double d = dist2(sf, w, X);
      if (d < best) {
        best = d;
        ub[0] = w[0];
        ub[1] = w[1];
      }
    }
  }
  u[0] = ub[0];
  if (np == 2) {
    u[1] = ub[1];
  }
  for (int it = 0; it < 30; it++) {
    mbd_surf_geo g;
    if (mbd_surface_eval(sf, ub, &g) != MBD_OK) {
      return;
    }
    double r[3] = {g.s[0] - X[0], g.s[1] - X[1], g.s[2] - X[2]};
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < 3; i++) {
      a11 += g.S[i][0] * g.S[i][0];
      a12 += g.S[i][0] * g.S[i][1];
      a22 += g.S[i][1] * g.S[i][1];
      b1 -= g.S[i][0] * r[i];
      b2 -= g.S[i][1] * r[i];
    }
    double du[2];
    if (np == 1) {
      du[0] = b1 / a11;
      du[1] = 0;
    } else {
      double det = a11 * a22 - a12 * a12;
      if (!(fabs(det) > 0)) {
        return;
      }
      du[0] = (a22 * b1 - a12 * b2) / det;
      du[1] = (a11 * b2 - a12 * b1) / det;
    }
    double d0 = mbd_dot3(r, r), w[2] = {ub[0] + du[0], ub[1] + du[1]};
    if (!(dist2(sf, w, X) <= d0)) {
      return;  // no longer improving: close enough for a start
    }
    ub[0] = u[0] = w[0];
    ub[1] = w[1];
    if (np == 2) {
      u[1] = w[1];
    }
  }
}

void mbd_surface_guess(const mbd_surface *sf, const double *X, double *u) {
  double w[3] = {X[0] - sf->at[0], X[1] - sf->at[1], X[2] - sf->at[2]};
  switch (sf->shape) {
    case MBD_SHAPE_LINE:
      u[0] = w[0] * sf->e1[0] + w[1] * sf->e1[1];
      return;
    case MBD_SHAPE_CIRCLE:
      u[0] = (w[0] == 0 && w[1] == 0) ? -M_PI / 2 : atan2(w[1], w[0]);
      return;
    case MBD_SHAPE_SINE:
      u[0] = w[0];
      return;
    case MBD_SHAPE_PLANE:
      u[0] = mbd_dot3(w, sf->e1);
      u[1] = mbd_dot3(w, sf->e2);
      return;
    case MBD_SHAPE_SPHERE: {
      double l = sqrt(mbd_dot3(w, w));
      for (int i = 0; i < 3; i++) {
        u[i] = sf->at[i] + (l > 0 ? sf->radius * w[i] / l : (i == 2 ? -sf->radius : 0));
      }
      return;
    }
    case MBD_SHAPE_CURVE:
    case MBD_SHAPE_PARAMETRIC:
      guess_search(sf, X, u);
      return;
    default: {
      // implicit: from X, steps along the gradient onto f = 0 (s ← s − f ∇f/|∇f|² in metres)
      memcpy(u, X, 3 * sizeof(double));
      for (int it = 0; it < 50; it++) {
        mbd_surf_geo g;
        if (mbd_surface_eval(sf, u, &g) != MBD_OK) {
          return;
        }
        for (int i = 0; i < 3; i++) {
          u[i] -= g.f * g.fg[i];
        }
        if (fabs(g.f) < 1e-14) {
          return;
        }
      }
      return;
    }
  }
}
