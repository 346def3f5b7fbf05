/* the contact kinematics of one evaluation (paper 001 eq 1–27).
 *
 * Surface parameters.  The contact point's parameters on each surface, u1 and u2, and the gap g
 * solve (Gauss–Newton, zero residual, eq 7–8):
 *     f_k(u_k) = 0                 (implicit surfaces: the point on its surface, eq 3)
 *     P2 − P1 − g n = 0            (the points coincide up to the gap along the normal, eq 4)
 *     n + n2 = 0                   (the normals are opposite: ñ1 n2 = 0, eq 5)
 * with P_k = r_k + A_k s_k(u_k), n = A1 n1(u1), n2 = A2 n2(u2).  A closed contact keeps g = 0.
 * The parameters are a coordinate block without velocities: solved again at every evaluation
 * from the bodies' poses, starting from their last values moved by their rates — or, where that
 * start fails or has turned a normal far (the last evaluation may be a whole integrator step
 * away, forwards or backwards), from the geometric first guess at the current poses.  A circle's
 * parameter is then put in its turn as a function of the state, so that what a run records does
 * not depend on the order of its evaluations.
 *
 * Gap row (eq 16).  g(Y) = nᵀ(P2 − P1) with the parameters solved is a holonomic row on the
 * bodies' pose coordinates.  Since the parameters make (P2 − P1) ∥ n and n ⟂ both tangent
 * planes, ∂g/∂u = 0: its Jacobian is nᵀ(∂P02/∂Y − ∂P01/∂Y) with P0k the body-fixed points at the
 * contact — paper 001's Φ^a_Y — and ġ = nᵀ v0 with v0 = v_P02 − v_P01 (eq 16–17).  Its second
 * derivative (γ = −h, eq 21–24) carries the moving contact point:
 *     h = ṅᵀ v0 + nᵀ(h_P02 − h_P01) + nᵀ(Ȧ2 S2 u̇2 − Ȧ1 S1 u̇1),   ṅ = Ȧ1 n1 + A1 (∂n1/∂u1) u̇1,
 * with h_P0k the quadratic term of the body-fixed point and S_k = ∂s_k/∂u_k.
 * Rolling rows (eq 18–19).  tᵀ v0 = 0 for the tangents t (planar t = n × ẑ; spatial t1 = n × e
 * normalized for the global axis e least along n, t2 = n × t1), velocity level (no Φ), with the
 * same h in t.  Parameter rates u̇ from the derivative of the parameters' equations:
 * F_x ẋ = −F_t (least squares, consistent). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact_impl.h"
#include "contact_msg.h"
#include "mbd/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int mbd_contact_np(const mbd_model *m, int c, int *np1, int *np2) {
  *np1 = m->surface[m->contact[c].s1].np;
  *np2 = m->surface[m->contact[c].s2].np;
  return *np1 + *np2;
}

/* ------------------------------------------------------------------------------------------ */
/* numbering (assembly)                                                                        */

void mbd_contact_blocks(mbd_model *m) {
  for (int c = 0; c < m->ncontact; c++) {
    int np1, np2, np = mbd_contact_np(m, c, &np1, &np2);
    mbd_block *bl = &m->block[m->nblock++];
    bl->kind = MBD_BLOCK_SURFACE;
    bl->owner = c;
    bl->qadr = m->nq;
    bl->nq = np;
    bl->vadr = m->nv;
    bl->nv = 0;
    m->contact[c].block = (int)(bl - m->block);
    m->contact[c].qadr = m->nq;
    m->nq += np;
  }
}

int mbd_contact_nrows(const mbd_model *m) { return m->ncontact * m->dim + m->njfric; }

int mbd_contact_number_rows(mbd_model *m, int row) {
  for (int c = 0; c < m->ncontact; c++) {
    mbd_contact *ct = &m->contact[c];
    ct->row0 = row;
    ct->nroll = m->dim - 1;
    m->row[row++] = (mbd_rowinfo){MBD_ROW_CONTACT, c, 0, MBD_ROW_POSITION};
    for (int k = 0; k < ct->nroll; k++) {
      m->row[row++] = (mbd_rowinfo){MBD_ROW_CONTACT, c, 1 + k, MBD_ROW_VELOCITY};
    }
  }
  // frictional joints: their lock rows
  for (int k = 0; k < m->njfric; k++) {
    m->jfric[k].row = row;
    m->row[row++] = (mbd_rowinfo){MBD_ROW_JFRIC, k, 0, MBD_ROW_VELOCITY};
  }
  return row;
}

/* the coordinate a frictional joint's friction acts along: a revolute's angle, a translational's
 * displacement */
static int jfric_coord(const mbd_model *m, int k) {
  return mbd_joint_friction_kind(m, m->jfric[k].joint);
}

void mbd_jfric_row(const mbd_model *m, mbd_data *d, int k, mbd_row *row) {
  mbd_joint_coord_row(m, d, m->jfric[k].joint, jfric_coord(m, k), row);
  d->jfstate[k].rate = row->rate;
  row->val = 0;  // velocity level: the lock holds the rate, not the coordinate
}

/* ------------------------------------------------------------------------------------------ */
/* first guess                                                                                 */

/* global point of body-frame point s of body b, and body-frame point of global X */
static void to_global(const mbd_pose *ps, const double *s, double *X) {
  mbd_mat3_vec(ps->A, s, X);
  for (int i = 0; i < 3; i++) {
    X[i] += ps->r[i];
  }
}

static void to_body(const mbd_pose *ps, const double *X, double *s) {
  double w[3] = {X[0] - ps->r[0], X[1] - ps->r[1], X[2] - ps->r[2]};
  mbd_mat3_tvec(ps->A, w, s);
}

/* the geometric first guess of contact c's parameters u at the current poses, a function of the
 * poses alone: body 2's origin onto surface 1, that point onto surface 2, back onto 1 (three
 * rounds of this alternating projection) */
static void guess_contact(const mbd_model *m, const mbd_data *d, const mbd_contact *ct, double *u) {
  const mbd_surface *sf1 = &m->surface[ct->s1], *sf2 = &m->surface[ct->s2];
  const mbd_pose *p1 = &d->pose[ct->b1], *p2 = &d->pose[ct->b2];
  double *u1 = u, *u2 = u + sf1->np;
  double X[3], s[3];
  mbd_surf_geo g;
  memcpy(X, p2->r, sizeof X);
  for (int it = 0; it < 3; it++) {
    to_body(p1, X, s);
    mbd_surface_guess(sf1, s, u1);
    if (mbd_surface_eval(sf1, u1, &g) != MBD_OK) {
      break;
    }
    to_global(p1, g.s, X);
    to_body(p2, X, s);
    mbd_surface_guess(sf2, s, u2);
    if (mbd_surface_eval(sf2, u2, &g) != MBD_OK) {
      break;
    }
    to_global(p2, g.s, X);
  }
}

void mbd_contact_guess(const mbd_model *m, mbd_data *d) {
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    guess_contact(m, d, ct, d->q + ct->qadr);
    d->cstate[c].t_eval = NAN;
  }
  mbd_stage_touch(d, MBD_STAGE_NONE);  // (the surface parameters are positions)
}

/* ------------------------------------------------------------------------------------------ */
/* the parameters: Gauss–Newton on point coincidence and opposite normals                      */

#define CN_MAXIT 50
#define CN_NX (MBD_CONTACT_NP_MAX + 1)
#define CN_NR 8

/* x ← M⁻¹ x for the symmetric positive definite n×n matrix M (row-major, destroyed): Cholesky;
 * 0, or 1 when M is not numerically positive definite */
static int spd_solve(int n, double *M, double *x) {
  double dmax = 0;
  for (int i = 0; i < n; i++) {
    dmax = fmax(dmax, M[i * n + i]);
  }
  for (int j = 0; j < n; j++) {
    double s = M[j * n + j];
    for (int k = 0; k < j; k++) {
      s -= M[j * n + k] * M[j * n + k];
    }
    if (!(s > 1e-13 * dmax)) {
      return 1;
    }
    double l = sqrt(s);
    M[j * n + j] = l;
    for (int i = j + 1; i < n; i++) {
      double t = M[i * n + j];
      for (int k = 0; k < j; k++) {
        t -= M[i * n + k] * M[j * n + k];
      }
      M[i * n + j] = t / l;
    }
  }
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int k = 0; k < i; k++) {
      t -= M[i * n + k] * x[k];
    }
    x[i] = t / M[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = x[i];
    for (int k = i + 1; k < n; k++) {
      t -= M[k * n + i] * x[k];
    }
    x[i] = t / M[i * n + i];
  }
  return 0;
}

/* the residual F (nr rows) and Jacobian Fx (nr × nx, row-major) of the parameters' equations at
 * x = (u1, u2, g); the geometry of both surfaces in g1, g2.  MBD_OK or the surface (1, 2) whose
 * normal vanished (as −1, −2). */
typedef struct cn_sys {
  int np1, np2, nx, nr, nd;
  double F[CN_NR], Fx[CN_NR][CN_NX];
  mbd_surf_geo g1, g2;
  double n[3], n2[3], P1[3], P2[3];
} cn_sys;

static int cn_eval(const mbd_model *m, const mbd_data *d, const mbd_contact *ct, const double *x,
                   cn_sys *s) {
  const mbd_surface *sf1 = &m->surface[ct->s1], *sf2 = &m->surface[ct->s2];
  const mbd_pose *p1 = &d->pose[ct->b1], *p2 = &d->pose[ct->b2];
  s->np1 = sf1->np;
  s->np2 = sf2->np;
  s->nx = s->np1 + s->np2 + 1;
  s->nd = m->dim;
  const double *u1 = x, *u2 = x + s->np1;
  double g = x[s->nx - 1];
  if (mbd_surface_eval(sf1, u1, &s->g1) != MBD_OK) {
    return -1;
  }
  if (mbd_surface_eval(sf2, u2, &s->g2) != MBD_OK) {
    return -2;
  }
  memset(s->Fx, 0, sizeof s->Fx);
  to_global(p1, s->g1.s, s->P1);
  to_global(p2, s->g2.s, s->P2);
  mbd_mat3_vec(p1->A, s->g1.n, s->n);
  mbd_mat3_vec(p2->A, s->g2.n, s->n2);
  // unit normals also where A is not quite orthogonal (Euler parameters off their unit norm
  // within the constraint tolerance): opposite unit normals stay reachable
  double l1 = sqrt(mbd_dot3(s->n, s->n)), l2 = sqrt(mbd_dot3(s->n2, s->n2));
  for (int i = 0; i < 3; i++) {
    s->n[i] /= l1;
    s->n2[i] /= l2;
  }
  int r = 0;
  // the surface equations of implicit surfaces (in metres)
  if (sf1->implicit) {
    s->F[r] = s->g1.f;
    for (int k = 0; k < 3; k++) {
      s->Fx[r][k] = s->g1.fg[k];
    }
    r++;
  }
  if (sf2->implicit) {
    s->F[r] = s->g2.f;
    for (int k = 0; k < 3; k++) {
      s->Fx[r][s->np1 + k] = s->g2.fg[k];
    }
    r++;
  }
  // global tangents and normal derivatives of both surfaces
  double AS1[3][MBD_SURF_NP_MAX], AN1[3][MBD_SURF_NP_MAX], AS2[3][MBD_SURF_NP_MAX],
      AN2[3][MBD_SURF_NP_MAX];
  for (int k = 0; k < s->np1; k++) {
    double a[3] = {s->g1.S[0][k], s->g1.S[1][k], s->g1.S[2][k]}, b[3],
           nk[3] = {s->g1.N[0][k], s->g1.N[1][k], s->g1.N[2][k]}, nb[3];
    mbd_mat3_vec(p1->A, a, b);
    mbd_mat3_vec(p1->A, nk, nb);
    for (int i = 0; i < 3; i++) {
      AS1[i][k] = b[i];
      AN1[i][k] = nb[i] / l1;
    }
  }
  for (int k = 0; k < s->np2; k++) {
    double a[3] = {s->g2.S[0][k], s->g2.S[1][k], s->g2.S[2][k]}, b[3],
           nk[3] = {s->g2.N[0][k], s->g2.N[1][k], s->g2.N[2][k]}, nb[3];
    mbd_mat3_vec(p2->A, a, b);
    mbd_mat3_vec(p2->A, nk, nb);
    for (int i = 0; i < 3; i++) {
      AS2[i][k] = b[i];
      AN2[i][k] = nb[i] / l2;
    }
  }
  // P2 − P1 − g n = 0
  for (int i = 0; i < s->nd; i++, r++) {
    s->F[r] = s->P2[i] - s->P1[i] - g * s->n[i];
    for (int k = 0; k < s->np1; k++) {
      s->Fx[r][k] = -AS1[i][k] - g * AN1[i][k];
    }
    for (int k = 0; k < s->np2; k++) {
      s->Fx[r][s->np1 + k] = AS2[i][k];
    }
    s->Fx[r][s->nx - 1] = -s->n[i];
  }
  // n + n2 = 0
  for (int i = 0; i < s->nd; i++, r++) {
    s->F[r] = s->n[i] + s->n2[i];
    for (int k = 0; k < s->np1; k++) {
      s->Fx[r][k] = AN1[i][k];
    }
    for (int k = 0; k < s->np2; k++) {
      s->Fx[r][s->np1 + k] = AN2[i][k];
    }
  }
  s->nr = r;
  return MBD_OK;
}

static double cn_norm(const cn_sys *s) {
  double v = 0;
  for (int r = 0; r < s->nr; r++) {
    v = fmax(v, fabs(s->F[r]));
  }
  return v;
}

/* z = −(FxᵀFx)⁻¹ Fxᵀ b (the least-squares solution of Fx z = −b); 0, or 1 when singular */
static int cn_lsq(const cn_sys *s, const double *b, double *z) {
  double M[CN_NX * CN_NX];
  int nx = s->nx;
  for (int i = 0; i < nx; i++) {
    double t = 0;
    for (int r = 0; r < s->nr; r++) {
      t -= s->Fx[r][i] * b[r];
    }
    z[i] = t;
    for (int j = 0; j < nx; j++) {
      double a = 0;
      for (int r = 0; r < s->nr; r++) {
        a += s->Fx[r][i] * s->Fx[r][j];
      }
      M[i * nx + j] = a;
    }
  }
  return spd_solve(nx, M, z);
}

/* the parameters and the gap of contact c by Gauss–Newton from x; MBD_OK, 1 when it did not
 * converge (or the system is singular), −1/−2 when a surface's normal vanished */
static int cn_solve(const mbd_model *m, const mbd_data *d, const mbd_contact *ct, double *x,
                    cn_sys *s, double *res, int *iters) {
  const double *r1 = d->pose[ct->b1].r, *r2 = d->pose[ct->b2].r;
  double scale =
      1 + fmax(fabs(r1[0]) + fabs(r1[1]) + fabs(r1[2]), fabs(r2[0]) + fabs(r2[1]) + fabs(r2[2]));
  double tol = 1e-13 * scale;
  int rc = cn_eval(m, d, ct, x, s);
  if (rc != MBD_OK) {
    return rc;
  }
  *res = cn_norm(s);
  for (*iters = 0; *iters < CN_MAXIT; (*iters)++) {
    if (*res <= tol) {
      return MBD_OK;
    }
    double dx[CN_NX], xt[CN_NX];
    if (cn_lsq(s, s->F, dx)) {
      return 1;
    }
    // the full step, halved while it does not reduce the residual (far starts)
    double step = 1;
    cn_sys st;
    for (int half = 0;; half++) {
      for (int i = 0; i < s->nx; i++) {
        xt[i] = x[i] + step * dx[i];
      }
      int rt = cn_eval(m, d, ct, xt, &st);
      double rn = rt == MBD_OK ? cn_norm(&st) : INFINITY;
      if (rn < *res || half >= 12) {
        if (rt != MBD_OK) {
          return rt;
        }
        double dxn = 0;
        for (int i = 0; i < s->nx; i++) {
          dxn = fmax(dxn, fabs(xt[i] - x[i]));
        }
        memcpy(x, xt, (size_t)s->nx * sizeof(double));
        *s = st;
        double prev = *res;
        *res = rn;
        // at round-off: the step no longer changes x, or the residual no longer falls
        if (dxn <= 1e-15 * scale || (rn >= prev && rn <= 1e3 * tol)) {
          return rn <= 1e3 * tol ? MBD_OK : 1;
        }
        break;
      }
      step *= 0.5;
    }
  }
  return *res <= tol ? MBD_OK : 1;
}

/* the largest angle (rad) the prediction may turn a surface's normal in its body before the
 * search starts from the geometric first guess instead: Gauss–Newton from a start on the far half
 * of a circle converges to its far side (parallel normals, residual 2) or not at all */
#define CN_TURN_MAX 0.5

/* the search from one start: the prediction u (with the last gap), or the geometric first guess
 * at the current poses; x, s, res and iters as cn_solve gives them */
static int cn_start(const mbd_model *m, const mbd_data *d, const mbd_contact *ct, const double *u,
                    double gap, int from_guess, double *x, cn_sys *s, double *res, int *iters) {
  int np = m->surface[ct->s1].np + m->surface[ct->s2].np;
  if (from_guess) {
    guess_contact(m, d, ct, x);
  } else {
    memcpy(x, u, (size_t)np * sizeof(double));
  }
  x[np] = gap;
  *res = 0;
  *iters = 0;
  return cn_solve(m, d, ct, x, s, res, iters);
}

/* a circle's parameter, an angle known up to turns, as a function of the state: the contact
 * point's angle in the body's frame, u = ψ − θ with ψ ∈ [−π, π] the angle of its direction from
 * the centre in the global frame and θ the body's (continuous) angle.  It follows the body over
 * any number of turns and jumps by 2π only where ψ crosses ±π (a disk rolling on a floor keeps
 * ψ = −π/2); the start of the search leaves no trace in it. */
static void canonical_turns(const mbd_model *m, const mbd_data *d, const mbd_contact *ct,
                            double *x) {
  for (int side = 0, k = 0; side < 2; side++) {
    const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
    if (sf->shape == MBD_SHAPE_CIRCLE) {
      double th = d->pose[side ? ct->b2 : ct->b1].p[0];
      double turns = nearbyint((x[k] + th) / (2 * M_PI));
      if (turns != 0) {
        x[k] -= 2 * M_PI * turns;
      }
    }
    k += sf->np;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the rows                                                                                    */

/* value A a and rate Ȧ a of the body-frame axis a of body b */
static void axis_state(const mbd_model *m, const mbd_data *d, int b, const double *a, double *v,
                       double *vd) {
  mbd_vec o;
  mbd_vec_axis(m, d, b, 0, a, &o);
  memcpy(v, o.v, sizeof o.v);
  memcpy(vd, o.vd, sizeof o.vd);
}

/* a row c·(P02 − P01) over (Y1 | Y2) with c the global unit vector, ċ its rate, w2 − w1 the
 * moving-point terms */
static void put_dot(const mbd_vec *sep, const double *cv, const double *cd, const double *wdiff,
                    int velocity, mbd_row *o) {
  o->val = velocity ? 0 : mbd_dot3(cv, sep->v);
  o->rate = mbd_dot3(cv, sep->vd);
  o->h = mbd_dot3(cd, sep->vd) + mbd_dot3(cv, sep->h) + mbd_dot3(cv, wdiff);
  for (int k = 0; k < MBD_NLOC; k++) {
    o->J[k] = cv[0] * sep->J[0][k] + cv[1] * sep->J[1][k] + cv[2] * sep->J[2][k];
  }
}

/* put_dot's value, rate and Jacobian without its quadratic term (h = 0): a Newton iteration's */
static void put_jac(const mbd_vec *sep, const double *cv, int velocity, mbd_row *o) {
  o->val = velocity ? 0 : mbd_dot3(cv, sep->v);
  o->rate = mbd_dot3(cv, sep->vd);
  o->h = 0;
  for (int k = 0; k < MBD_NLOC; k++) {
    o->J[k] = cv[0] * sep->J[0][k] + cv[1] * sep->J[1][k] + cv[2] * sep->J[2][k];
  }
}

/* the curvature check: planar κ1 + κ2 > 0; spatial the relative curvature positive definite */
static int check_curvature(const mbd_model *m, mbd_data *d, int c, const cn_sys *s,
                           mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  const mbd_surface *sf1 = &m->surface[ct->s1], *sf2 = &m->surface[ct->s2];
  mbd_contact_state *cs = &d->cstate[c];
  if (m->dim == 2) {
    double k1 = mbd_surface_curvature(sf1, &s->g1, NULL),
           k2 = mbd_surface_curvature(sf2, &s->g2, NULL);
    cs->kappa[0] = k1;
    cs->kappa[1] = k2;
    if (k1 + k2 > 0) {
      return MBD_OK;
    }
    if (k1 == 0 && k2 == 0) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_FLAT, ct->name, d->t, sf1->name, sf2->name);
    }
    // name the concave one (the more negative) and the other's radius
    int first = k1 <= k2;
    double kc = first ? k1 : k2, ko = first ? k2 : k1;
    char other[48];
    if (ko > 0) {
      snprintf(other, sizeof other, "radius %.4g m", 1 / ko);
    } else if (ko == 0) {
      snprintf(other, sizeof other, "flat shape");
    } else {
      snprintf(other, sizeof other, "concave radius %.4g m", -1 / ko);
    }
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_CURVATURE, ct->name, d->t,
                    m->surface[first ? ct->s1 : ct->s2].name, kc < 0 ? -1 / kc : INFINITY, other,
                    m->surface[first ? ct->s2 : ct->s1].name);
  }
  // spatial: K = K1 + K2 in the tangent basis (t1, t2), by polarization of the quadratic forms
  double e[3][3], K[3];
  for (int k = 0; k < 3; k++) {
    double tg[3];
    for (int i = 0; i < 3; i++) {
      tg[i] = k < 2 ? cs->t[k][i] : cs->t[0][i] + cs->t[1][i];
    }
    memcpy(e[k], tg, sizeof tg);
    double b1[3], b2[3];
    mbd_mat3_tvec(d->pose[ct->b1].A, tg, b1);
    mbd_mat3_tvec(d->pose[ct->b2].A, tg, b2);
    K[k] = mbd_surface_curvature(sf1, &s->g1, b1) + mbd_surface_curvature(sf2, &s->g2, b2);
  }
  double k11 = K[0], k22 = K[1], k12 = 0.5 * (K[2] - K[0] - K[1]);
  double tr = k11 + k22, det = k11 * k22 - k12 * k12;
  double lmin = 0.5 * (tr - sqrt(fmax(0, tr * tr - 4 * det)));
  if (lmin > 0) {
    return MBD_OK;
  }
  if (k11 == 0 && k22 == 0 && k12 == 0) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_FLAT3, ct->name, d->t, sf1->name, sf2->name);
  }
  return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_CURVATURE3, ct->name, d->t, sf1->name, sf2->name,
                  lmin);
}

/* whether a parametric surface's tangents at g have (nearly) lost their rank: |s_u| (planar) or
 * |s_u × s_v| below 1e-6 of the point's size — the normal there is about to vanish */
static int degenerate(const mbd_surface *sf, const mbd_surf_geo *g) {
  if (sf->implicit) {
    return 0;
  }
  double scale = 1 + sqrt(mbd_dot3(g->s, g->s)), a[3], b[3], c[3];
  for (int i = 0; i < 3; i++) {
    a[i] = g->S[i][0];
    b[i] = sf->np > 1 ? g->S[i][1] : (i == 2);
  }
  mbd_cross3(a, b, c);
  return sqrt(mbd_dot3(c, c)) < 1e-6 * scale;
}

/* the parameters of a surface as text for messages: "u = 0.25", "x = 1, y = 2, z = 0" */
static void params_text(const mbd_surface *sf, const double *u, char *buf, size_t len) {
  buf[0] = 0;
  for (int k = 0; k < sf->np; k++) {
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s%s = %.6g", k ? ", " : "", mbd_surface_param_name(sf, k), u[k]);
  }
}

/* the tangents (global) at the unit normal n: planar t = n × ẑ; spatial t1 = n × e / |n × e| (e
 * the global axis least along n, returned in ax, |n × e| in wl), t2 = n × t1 */
static void tangents(int dim, const double *n, double t[2][3], double *ax, double *wl) {
  memset(ax, 0, 3 * sizeof(double));
  *wl = 1;
  if (dim == 2) {
    t[0][0] = n[1];
    t[0][1] = -n[0];
    t[0][2] = 0;
    return;
  }
  int k = 0;
  for (int i = 1; i < 3; i++) {
    if (fabs(n[i]) < fabs(n[k])) {
      k = i;
    }
  }
  ax[k] = 1;
  double w[3];
  mbd_cross3(n, ax, w);
  *wl = sqrt(mbd_dot3(w, w));
  for (int i = 0; i < 3; i++) {
    t[0][i] = w[i] / *wl;
  }
  mbd_cross3(n, t[0], t[1]);
}

/* why the search of contact c stalled at x (cn_solve's status rc ≠ MBD_OK, its system s): < 0
 * with err naming the contact where the geometry there is singular — a normal that vanished, or
 * is about to (tangents losing their rank), surfaces too curved to touch at one point — the
 * continuation of the contact ends there; MBD_OK when nothing singular explains it (a start on
 * the far side of a surface: another start may succeed) */
static int stall_reason(const mbd_model *m, mbd_data *d, int c, int rc, const double *x,
                        const cn_sys *s, int iters, mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  const mbd_surface *sf1 = &m->surface[ct->s1], *sf2 = &m->surface[ct->s2];
  char pt[96];
  if (rc < 0) {
    const mbd_surface *bad = rc == -1 ? sf1 : sf2;
    params_text(bad, rc == -1 ? x : x + sf1->np, pt, sizeof pt);
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_ZERO_NORMAL, ct->name, d->t, bad->name, pt);
  }
  for (int side = 0; side < 2; side++) {
    const mbd_surface *sf = side ? sf2 : sf1;
    if (degenerate(sf, side ? &s->g2 : &s->g1)) {
      params_text(sf, side ? x + sf1->np : x, pt, sizeof pt);
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_CONTACT_ZERO_NORMAL, ct->name, d->t, sf->name, pt);
    }
  }
  if (m->dim == 2 || iters >= CN_MAXIT) {
    double ax[3], wl;
    tangents(m->dim, s->n, d->cstate[c].t, ax, &wl);
    return check_curvature(m, d, c, s, err);
  }
  return MBD_OK;
}

int mbd_contact_rows(const mbd_model *m, mbd_data *d, int c, int gamma, mbd_row *rows,
                     mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  const mbd_surface *sf1 = &m->surface[ct->s1], *sf2 = &m->surface[ct->s2];
  mbd_contact_state *cs = &d->cstate[c];
  double *u = d->q + ct->qadr;
  int np1 = sf1->np, np2 = sf2->np, np = np1 + np2;
  // the predictor: the parameters moved by their rates since the last evaluation, and the angle
  // this turns the surfaces' normals by in their bodies
  double turn = 0;
  if (isfinite(cs->t_eval) && d->t != cs->t_eval) {
    double dt = d->t - cs->t_eval;
    for (int k = 0; k < np; k++) {
      u[k] += cs->udot[k] * dt;
    }
    turn = cs->nturn * fabs(dt);
  }
  // the search from the prediction, and from the geometric first guess at the current poses
  // where the prediction failed without a singular geometry to explain it, or turned a normal so
  // far (a sample evaluated a whole integrator step before the integration's state, a step across
  // fast rolling) that it may have reached another solution: of two solutions the one nearer to
  // touching, the guess's when they are as near (the same point)
  double x[CN_NX];
  cn_sys s;
  double res = 0;
  int iters = 0;
  int rc = cn_start(m, d, ct, u, cs->gap, 0, x, &s, &res, &iters);
  if (rc != MBD_OK) {
    int why = stall_reason(m, d, c, rc, x, &s, iters, err);
    if (why < 0) {
      return why;
    }
  }
  if (rc != MBD_OK || turn > CN_TURN_MAX) {
    double xg[CN_NX];
    cn_sys sg;
    double resg = 0;
    int itersg = 0;
    int rcg = cn_start(m, d, ct, u, cs->gap, 1, xg, &sg, &resg, &itersg);
    double tie = 1e-10 * (1 + fabs(x[np]));
    if (rcg == MBD_OK && (rc != MBD_OK || fabs(xg[np]) <= fabs(x[np]) + tie)) {
      memcpy(x, xg, sizeof x);
      s = sg;
      res = resg;
      iters = itersg;
      rc = rcg;
    }
  }
  if (rc != MBD_OK) {
    return MBD_FAIL(err, MBD_E_NEWTON, MSG_CONTACT_NEWTON, ct->name, d->t, iters, res);
  }
  canonical_turns(m, d, ct, x);
  memcpy(u, x, (size_t)np * sizeof(double));
  cs->gap = x[np];
  cs->t_eval = d->t;
  memcpy(cs->n, s.n, sizeof cs->n);
  memcpy(cs->P, s.P1, sizeof cs->P);
  memcpy(cs->s1, s.g1.s, sizeof cs->s1);
  memcpy(cs->s2, s.g2.s, sizeof cs->s2);
  double ax[3], wl;
  tangents(m->dim, s.n, cs->t, ax, &wl);
  // (a parameter leaving its range is a root function of the formulations: the run stops
  // exactly there; here the shape goes on beyond, so the integrator may step past it)
  rc = check_curvature(m, d, c, &s, err);
  if (rc < 0) {
    return rc;
  }
  // the body-fixed points at the contact: P02 − P01 with value, rate, Jacobian, quadratic term
  mbd_vec sep;
  mbd_vec_sep(m, d, ct->b1, s.g1.s, ct->b2, s.g2.s, &sep);
  memcpy(cs->vrel, sep.vd, sizeof cs->vrel);
  if (!gamma) {
    // a Newton iteration: the rows' values and Jacobians (put_dot's, without the rates' terms)
    put_jac(&sep, s.n, 0, &rows[0]);
    rows[0].val = cs->gap;
    for (int k = 0; k < ct->nroll; k++) {
      put_jac(&sep, cs->t[k], 1, &rows[1 + k]);
    }
    return MBD_OK;
  }
  // parameter rates: F_x ẋ = −F_t with F_t the equations' rates at fixed parameters
  double n1v[3], n1d[3], n2v[3], n2d[3];
  axis_state(m, d, ct->b1, s.g1.n, n1v, n1d);
  axis_state(m, d, ct->b2, s.g2.n, n2v, n2d);
  double Ft[CN_NR] = {0};
  int r = (sf1->implicit ? 1 : 0) + (sf2->implicit ? 1 : 0);
  for (int i = 0; i < s.nd; i++) {
    Ft[r + i] = sep.vd[i] - cs->gap * n1d[i];
    Ft[r + s.nd + i] = n1d[i] + n2d[i];
  }
  double xd[CN_NX];
  if (cn_lsq(&s, Ft, xd)) {
    memset(xd, 0, sizeof xd);  // converged yet singular: reported above by the curvature check
  }
  memcpy(cs->udot, xd, (size_t)np * sizeof(double));
  // how fast the normals turn in their bodies as the contact point moves: |∂n_k/∂u_k u̇_k|
  cs->nturn = 0;
  for (int side = 0; side < 2; side++) {
    const mbd_surf_geo *g = side ? &s.g2 : &s.g1;
    const double *ud = side ? xd + np1 : xd;
    double w[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < (side ? np2 : np1); k++) {
        w[i] += g->N[i][k] * ud[k];
      }
    }
    cs->nturn = fmax(cs->nturn, sqrt(mbd_dot3(w, w)));
  }
  // the moving-point terms Ȧk Sk u̇k and ṅ = Ȧ1 n1 + A1 (∂n1/∂u1) u̇1
  double a1[3] = {0, 0, 0}, a2[3] = {0, 0, 0}, dn1[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < np1; k++) {
      a1[i] += s.g1.S[i][k] * xd[k];
      dn1[i] += s.g1.N[i][k] * xd[k];
    }
    for (int k = 0; k < np2; k++) {
      a2[i] += s.g2.S[i][k] * xd[np1 + k];
    }
  }
  double w1v[3], w1d[3], w2v[3], w2d[3], ndot[3], wdiff[3];
  axis_state(m, d, ct->b1, a1, w1v, w1d);
  axis_state(m, d, ct->b2, a2, w2v, w2d);
  mbd_mat3_vec(d->pose[ct->b1].A, dn1, ndot);
  for (int i = 0; i < 3; i++) {
    ndot[i] += n1d[i];
    wdiff[i] = w2d[i] - w1d[i];
  }
  put_dot(&sep, s.n, ndot, wdiff, 0, &rows[0]);
  // the gap row's value: the solved gap (nᵀ(P2 − P1) equals it up to the Newton residual)
  rows[0].val = cs->gap;
  if (m->dim == 2) {
    double td[3] = {ndot[1], -ndot[0], 0};
    put_dot(&sep, cs->t[0], td, wdiff, 1, &rows[1]);
  } else {
    // ṫ1 = (ẇ − t1 (t1·ẇ))/|w| with ẇ = ṅ × e; ṫ2 = ṅ × t1 + n × ṫ1
    double wd[3], t1d[3], t2d[3], x1[3], x2[3];
    mbd_cross3(ndot, ax, wd);
    double p = mbd_dot3(cs->t[0], wd);
    for (int i = 0; i < 3; i++) {
      t1d[i] = (wd[i] - cs->t[0][i] * p) / wl;
    }
    mbd_cross3(ndot, cs->t[0], x1);
    mbd_cross3(s.n, t1d, x2);
    for (int i = 0; i < 3; i++) {
      t2d[i] = x1[i] + x2[i];
    }
    put_dot(&sep, cs->t[0], t1d, wdiff, 1, &rows[1]);
    put_dot(&sep, cs->t[1], t2d, wdiff, 1, &rows[2]);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* modes and the active rows                                                                   */

/* row r into the increasing list a of *n rows (one more) */
static void insert_sorted(int *a, int *n, int r) {
  int k = (*n)++;
  while (k > 0 && a[k - 1] > r) {
    a[k] = a[k - 1];
    k--;
  }
  a[k] = r;
}

int mbd_contact_row_enabled(const mbd_model *m, const mbd_data *d, int r) {
  const mbd_rowinfo *ri = &m->row[r];
  if (ri->owner == MBD_ROW_JFRIC) {
    return d->jfstate[ri->index].mode == MBD_CMODE_STICK;
  }
  if (ri->owner != MBD_ROW_CONTACT) {
    return 1;
  }
  int mode = d->cstate[ri->index].mode;
  return ri->local == 0 ? mode != MBD_CMODE_OPEN : mode == MBD_CMODE_STICK;
}

void mbd_contact_activate(const mbd_model *m, mbd_data *d) {
  int n = 0;
  // the rows that are not contact rows, as the run has chosen them
  for (int k = 0; k < d->ma; k++) {
    int owner = m->row[d->active[k]].owner;
    if (owner != MBD_ROW_CONTACT && owner != MBD_ROW_JFRIC) {
      d->active[n++] = d->active[k];
    }
  }
  // every enabled contact row, merged in increasing order
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    for (int r = ct->row0; r <= ct->row0 + ct->nroll; r++) {
      if (!mbd_contact_row_enabled(m, d, r)) {
        continue;
      }
      insert_sorted(d->active, &n, r);
    }
  }
  for (int j = 0; j < m->njfric; j++) {
    int r = m->jfric[j].row;
    if (!mbd_contact_row_enabled(m, d, r)) {
      continue;
    }
    insert_sorted(d->active, &n, r);
  }
  d->ma = n;
  mbd_stage_touch(d, MBD_STAGE_NONE);  // (the active rows to gather again)
}

double mbd_contact_speed_scale(const mbd_model *m, const mbd_data *d, int c) {
  const mbd_contact *ct = &m->contact[c];
  const mbd_contact_state *cs = &d->cstate[c];
  double s = 0;
  for (int side = 0; side < 2; side++) {
    const mbd_pose *ps = &d->pose[side ? ct->b2 : ct->b1];
    double arm[3] = {cs->P[0] - ps->r[0], cs->P[1] - ps->r[1], cs->P[2] - ps->r[2]};
    s += sqrt(mbd_dot3(ps->rd, ps->rd)) + sqrt(mbd_dot3(ps->w, ps->w)) * sqrt(mbd_dot3(arm, arm));
  }
  return s;
}

void mbd_contact_open0(mbd_model *m, mbd_data *d) {
  for (int c = 0; c < m->ncontact; c++) {
    mbd_contact *ct = &m->contact[c];
    mbd_contact_state *cs = &d->cstate[c];
    ct->mode0 = ct->has_e && cs->gap > MBD_CONTACT_OPEN_GAP ? MBD_CMODE_OPEN : MBD_CMODE_SLIP;
    cs->mode = ct->mode0;
  }
  mbd_stage_touch(d, MBD_STAGE_NONE);
}

int mbd_contact_check_ranges(const mbd_model *m, const mbd_data *d, mbd_error *err) {
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    const double *u = d->q + ct->qadr;
    for (int side = 0; side < 2; side++) {
      const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
      int k = mbd_surface_out_of_range(sf, u);
      if (k >= 0) {
        return MBD_FAIL(err, MBD_E_STATE, MSG_CONTACT_RANGE, ct->name, d->t, sf->name,
                        mbd_surface_param_name(sf, k), u[k], sf->lo[k], sf->hi[k]);
      }
      u += sf->np;
    }
  }
  return MBD_OK;
}

/* the bodies' speeds of frictional joint k: |ṙ1| + |ṙ2| + |ω1| + |ω2| (a scale for "at rest") */
static double jfric_scale(const mbd_model *m, const mbd_data *d, int k) {
  const mbd_joint *j = &m->joint[m->jfric[k].joint];
  double s = 0;
  for (int side = 0; side < 2; side++) {
    const mbd_pose *ps = &d->pose[side ? j->body2 : j->body1];
    s += sqrt(mbd_dot3(ps->rd, ps->rd)) + sqrt(mbd_dot3(ps->w, ps->w));
  }
  return s;
}

void mbd_jfric_set_mode(const mbd_model *m, mbd_data *d, int k, int stick) {
  mbd_jfric_state *js = &d->jfstate[k];
  mbd_stage_touch(d, MBD_STAGE_NONE);  // (a mode decides its rows and its friction)
  if (stick < 0) {
    stick = fabs(js->rate) <= 1e-9 * jfric_scale(m, d, k);
  }
  js->mode = stick ? MBD_CMODE_STICK : MBD_CMODE_SLIP;
  js->sgn = js->rate < 0 ? -1 : 1;
}

void mbd_contact_set_mode(const mbd_model *m, mbd_data *d, int c, int open, int stick) {
  const mbd_contact *ct = &m->contact[c];
  mbd_contact_state *cs = &d->cstate[c];
  mbd_stage_touch(d, MBD_STAGE_NONE);  // (a mode decides its rows and its friction)
  memset(cs->dir, 0, sizeof cs->dir);
  cs->sgn = 0;
  if (open) {
    cs->mode = MBD_CMODE_OPEN;
    cs->gap_off = -MBD_CONTACT_GAP_EPS;
    return;
  }
  double vt[3];
  double vn = mbd_dot3(cs->vrel, cs->n);
  for (int i = 0; i < 3; i++) {
    vt[i] = cs->vrel[i] - vn * cs->n[i];
  }
  double speed = sqrt(mbd_dot3(vt, vt));
  if (stick < 0) {
    stick = ct->friction == MBD_FRICTION_COULOMB &&
            speed <= 1e-9 * mbd_contact_speed_scale(m, d, c);
  }
  if (stick) {
    cs->mode = MBD_CMODE_STICK;
    return;
  }
  cs->mode = MBD_CMODE_SLIP;
  for (int i = 0; speed > 0 && i < 3; i++) {
    cs->dir[i] = vt[i] / speed;
  }
  cs->sgn = mbd_dot3(vt, cs->t[0]) < 0 ? -1 : 1;
}

/* the contact's slip speed against the speeds of its bodies: the first mode */
void mbd_contact_modes0(mbd_model *m, mbd_data *d) {
  // frictional joints: sticking when the joint's rate is nil against the bodies' speeds
  for (int k = 0; k < m->njfric; k++) {
    mbd_jfric_set_mode(m, d, k, -1);
    m->jfric[k].mode0 = d->jfstate[k].mode;
    m->jfric[k].sgn0 = d->jfstate[k].sgn;
  }
  // contacts apart at the start (a restitution given) fly until an impact
  for (int c = 0; c < m->ncontact; c++) {
    mbd_contact *ct = &m->contact[c];
    mbd_contact_set_mode(m, d, c, ct->mode0 == MBD_CMODE_OPEN, -1);
    ct->mode0 = d->cstate[c].mode;
    ct->sgn0 = d->cstate[c].sgn;
    memcpy(ct->dir0, d->cstate[c].dir, sizeof ct->dir0);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* channels                                                                                    */

int mbd_contact_channels(mbd_model *m,
                         int (*add)(mbd_model *m, int *cap, const char *base, const char *field,
                                    int kind, int index, int comp, int dynamic),
                         int *cap) {
  static const char *const n3[] = {"nx", "ny", "nz"}, *const f3[] = {"fx", "fy", "fz"},
                           *const p3[] = {"px", "py", "pz"};
  int bad = 0;
  // frictional joints: <joint>.friction (torque or force on body 2 along the joint), .sticking
  for (int k = 0; k < m->njfric; k++) {
    const char *nm = m->joint[m->jfric[k].joint].name;
    bad |= add(m, cap, nm, "friction", CH_JFRIC, k, 0, 1);
    bad |= add(m, cap, nm, "sticking", CH_JFRIC, k, 1, 0);
  }
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    const char *nm = ct->name;
    bad |= add(m, cap, nm, "normal", CH_CONTACT, c, MBD_CCH_NORMAL, 1);
    for (int i = 0; i < m->dim; i++) {
      bad |= add(m, cap, nm, n3[i], CH_CONTACT, c, MBD_CCH_NX + i, 1);
    }
    bad |= add(m, cap, nm, "friction", CH_CONTACT, c, MBD_CCH_FRICTION, 1);
    for (int i = 0; i < m->dim; i++) {
      bad |= add(m, cap, nm, f3[i], CH_CONTACT, c, MBD_CCH_FX + i, 1);
    }
    bad |= add(m, cap, nm, "slip", CH_CONTACT, c, MBD_CCH_SLIP, 0);
    bad |= add(m, cap, nm, "sticking", CH_CONTACT, c, MBD_CCH_STICKING, 0);
    bad |= add(m, cap, nm, "gap", CH_CONTACT, c, MBD_CCH_GAP, 0);
    for (int i = 0; i < m->dim; i++) {
      bad |= add(m, cap, nm, p3[i], CH_CONTACT, c, MBD_CCH_PX + i, 0);
    }
    // surface parameters: u1 (v1) / x1 y1 z1 of surface 1, then those of surface 2
    for (int side = 0, k = 0; side < 2; side++) {
      const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
      for (int j = 0; j < sf->np; j++, k++) {
        char field[8];
        snprintf(field, sizeof field, "%s%d", mbd_surface_param_name(sf, j), side + 1);
        bad |= add(m, cap, nm, field, CH_CONTACT, c, MBD_CCH_PARAM + k, 0);
      }
    }
  }
  return bad ? -1 : 0;
}

double mbd_jfric_channel_value(const mbd_model *m, const mbd_data *d, int k, int comp) {
  (void)m;
  return comp == 0 ? d->jfstate[k].T : d->jfstate[k].mode == MBD_CMODE_STICK;
}

double mbd_contact_channel_value(const mbd_model *m, const mbd_data *d, int c, int comp) {
  const mbd_contact_state *cs = &d->cstate[c];
  const mbd_contact *ct = &m->contact[c];
  int closed = cs->mode != MBD_CMODE_OPEN;
  double vn = mbd_dot3(cs->vrel, cs->n), vt[3];
  for (int i = 0; i < 3; i++) {
    vt[i] = cs->vrel[i] - vn * cs->n[i];
  }
  switch (comp) {
    case MBD_CCH_NORMAL:
      return closed ? cs->N : 0;
    case MBD_CCH_NX:
    case MBD_CCH_NY:
    case MBD_CCH_NZ:
      return closed ? cs->N * cs->n[comp - MBD_CCH_NX] : 0;
    case MBD_CCH_FRICTION:
      if (m->dim == 2) {
        return closed ? mbd_dot3(cs->Ft, cs->t[0]) : 0;
      }
      return closed ? sqrt(mbd_dot3(cs->Ft, cs->Ft)) : 0;
    case MBD_CCH_FX:
    case MBD_CCH_FY:
    case MBD_CCH_FZ:
      return closed ? cs->Ft[comp - MBD_CCH_FX] : 0;
    case MBD_CCH_SLIP:
      return m->dim == 2 ? mbd_dot3(vt, cs->t[0]) : sqrt(mbd_dot3(vt, vt));
    case MBD_CCH_STICKING:
      return cs->mode == MBD_CMODE_STICK;
    case MBD_CCH_GAP:
      return cs->gap;
    case MBD_CCH_PX:
    case MBD_CCH_PY:
    case MBD_CCH_PZ:
      return cs->P[comp - MBD_CCH_PX];
    default:
      return d->q[ct->qadr + comp - MBD_CCH_PARAM];
  }
}
