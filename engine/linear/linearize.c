/* the linearization of a constrained mechanism about a state (mbd/linear.h)
 *
 * The state is x = (q_i, v_i), the independent coordinates of the partition and their rates
 * (sys.c); at consistent states every formulation's right-hand side is ẋ = f(t, x, u), and
 *
 *   A = ∂f/∂x      central differences of f (steps: lin_sys_step), or the exact derivatives of
 *                  the generated equations (analytic.c)
 *   B = ∂f/∂u      the accelerations of a unit generalized force Q_u: [M Φqᵀ; Φq 0][v̇; λ] =
 *                  [Q_u; 0] at the operating point (f is linear in u: exact)
 *   C = ∂y/∂x      central differences of the output channels at completed states
 *   D = ∂y/∂u      the channels' response to a unit input (reactions and efforts depend on it)
 *
 * About a steady motion whose symmetries are given (a model turning about a fixed axis, an
 * axisymmetric body spinning about its own), the state moves along them, x(t) = S(Ωt) x0, and
 * the perturbations obey δẋ = A(t) δx, which in the frame that moves with the motion is
 * ξ̇ = (A − Σ Ω_k Dg_k) ξ with g_k the infinitesimal generator of symmetry k on x (its linear
 * action on the full state, then the partition's selection) and the rates Ω_k fitted from
 * ẋ0 = Σ Ω_k g_k(x0).  There the steady motion is an equilibrium and the eigenvalues are its
 * frequencies (a conical pendulum's nutation, a top's precession and nutation).
 *
 * The reduced mass M = BᵀMB (B the partial velocities at the operating point) and
 * A = [0 I; A_vq A_vv] give the reduced stiffness K = −M A_vq and damping C = −M A_vv (with the
 * gyroscopic and constraint-force terms), from which vibration_modes.c takes the energy of each mode. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linear_impl.h"
#include "mbd/formulation.h"

/* the state counts as an equilibrium (or a steady motion) when |ẋ| is below this share of the
 * system's own rates (linear_impl.h: residual) — a state read back from an equilibrium run is at
 * 1e-12 and below, a run's sample of a steady motion at its integration error (1e-8 at rtol 1e-8),
 * a state along a motion at 1e-2 and above */
#define LIN_EQUILIBRIUM_REL 1e-6

const char *mbd_lin_method_name(int method) {
  static const char *const names[MBD_LIN_NMETHODS] = {"differences", "analytic"};
  return (method >= 0 && method < MBD_LIN_NMETHODS) ? names[method] : NULL;
}

int mbd_lin_method_from_name(const char *name) {
  for (int k = 0; k < MBD_LIN_NMETHODS; k++) {
    if (strcmp(name, mbd_lin_method_name(k)) == 0) {
      return k;
    }
  }
  return -1;
}

void mbd_lin_opts_default(mbd_lin_opts *o) {
  memset(o, 0, sizeof *o);
  o->formulation = mbd_formulation_with(MBD_FCAP_DEFAULT);
  o->method = MBD_LIN_DIFFERENCES;
}

void mbd_linear_free(mbd_linear *l) {
  if (!l) {
    return;
  }
  void *ps[] = {l->coord, l->x0,   l->xdot0,     l->A,        l->B,        l->C,
                l->D,     l->M,    l->K,         l->Cv,       l->re,       l->im,
                l->vre,   l->vim,  l->mode,      l->shape_re, l->shape_im, l->pkin,
                l->ppot,  l->body, l->body_name, l->bre,      l->bim,      l->bkin,
                l->rate,  l->q0,   l->v0,        l->memo0,    l->cut};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  free(l);
}

void mbd_linear_state_size(const mbd_model *m, int *nq, int *nv) {
  *nq = m->nq;
  *nv = m->nv;
}

static mbd_linear *linear_alloc(int f, int nu, int ny, const mbd_model *m, int nsteady) {
  mbd_linear *l = calloc(1, sizeof *l);
  if (!l) {
    return NULL;
  }
  size_t F = (size_t)f, X = 2 * F, U = (size_t)(nu ? nu : 1), Y = (size_t)(ny ? ny : 1);
  l->f = f;
  l->nx = 2 * f;
  l->nu = nu;
  l->ny = ny;
  l->coord = calloc(F, sizeof *l->coord);
  l->x0 = calloc(X, sizeof(double));
  l->xdot0 = calloc(X, sizeof(double));
  l->A = calloc(X * X, sizeof(double));
  l->B = calloc(X * U, sizeof(double));
  l->C = calloc(Y * X, sizeof(double));
  l->D = calloc(Y * U, sizeof(double));
  l->M = calloc(F * F, sizeof(double));
  l->K = calloc(F * F, sizeof(double));
  l->Cv = calloc(F * F, sizeof(double));
  l->re = calloc(X, sizeof(double));
  l->im = calloc(X, sizeof(double));
  l->vre = calloc(X * X, sizeof(double));
  l->vim = calloc(X * X, sizeof(double));
  l->rate = calloc((size_t)nsteady + 1, sizeof(double));
  l->nq = m->nq;
  l->nv = m->nv;
  l->njoint = m->njoint;
  l->q0 = calloc((size_t)m->nq + 1, sizeof(double));
  l->v0 = calloc((size_t)m->nv + 1, sizeof(double));
  l->memo0 = calloc((size_t)m->njoint + 1, sizeof(double));
  if (!l->coord || !l->x0 || !l->xdot0 || !l->A || !l->B || !l->C || !l->D || !l->M || !l->K ||
      !l->Cv || !l->re || !l->im || !l->vre || !l->vim || !l->rate || !l->q0 || !l->v0 ||
      !l->memo0) {
    mbd_linear_free(l);
    return NULL;
  }
  return l;
}

/* ------------------------------------------------------------------------------------------ */
/* inputs                                                                                      */

/* Q += Jᵀ QY of body b (its pose Jacobian; J = I over its block when absent) */
static void scatter(const mbd_data *d, int b, const double *QY, double *Q) {
  const mbd_pose *ps = &d->pose[b];
  if (ps->vadr < 0) {
    return;
  }
  if (!ps->J) {
    for (int k = 0; k < ps->ny; k++) {
      Q[ps->vadr + k] += QY[k];
    }
    return;
  }
  for (int c = 0; c < ps->nv; c++) {
    double sum = 0;
    for (int k = 0; k < ps->ny; k++) {
      sum += MBD_AT(ps->J, ps->ny, k, c) * QY[k];
    }
    Q[ps->vadr + c] += sum;
  }
}

void lin_input_force(const mbd_model *w, mbd_data *d, const mbd_lin_input *u, double *Q) {
  memset(Q, 0, (size_t)w->nv * sizeof(double));
  double QY[MBD_NY_MAX];
  if (u->kind == MBD_LIN_IN_JOINT) {
    // a unit torque (force) along the joint's coordinate c: Q_Y = ∂c/∂Y on each side
    const mbd_joint *j = &w->joint[u->joint];
    mbd_row o;
    mbd_joint_coord_row(w, d, u->joint, u->coord, &o);
    int bs[2] = {j->body1, j->body2};
    for (int side = 0; side < 2; side++) {
      for (int k = 0; k < MBD_NY_MAX; k++) {
        QY[k] = o.J[side * MBD_NY_MAX + k];
      }
      scatter(d, bs[side], QY, Q);
    }
    return;
  }
  const mbd_body_kind_desc *kd = mbd_body_kind_get(w->body[u->body].kind);
  memset(QY, 0, sizeof QY);
  if (u->kind == MBD_LIN_IN_FORCE) {
    double F[3] = {u->dir[0], u->dir[1], w->dim == 3 ? u->dir[2] : 0};
    kd->point_force(&d->pose[u->body], u->at, F, QY);
  } else {
    double T[3] = {w->dim == 3 ? u->dir[0] : 0, w->dim == 3 ? u->dir[1] : 0,
                   w->dim == 3 ? u->dir[2] : 1};
    kd->torque(&d->pose[u->body], T, QY);
  }
  scatter(d, u->body, QY, Q);
}

/* the options' inputs, outputs and symmetries checked against m; channels into chan */
static int check_opts(const mbd_model *m, const mbd_lin_opts *o, int *chan, mbd_error *err) {
  if (o->method < 0 || o->method >= MBD_LIN_NMETHODS) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC, "unknown method");
  }
  if (o->method == MBD_LIN_ANALYTIC) {
    const char *why = lin_analytic_refusal(m);
    if (why) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC, why);
    }
  }
  for (int k = 0; k < o->ninput; k++) {
    const mbd_lin_input *u = &o->input[k];
    if (u->kind == MBD_LIN_IN_JOINT) {
      if (u->joint < 0 || u->joint >= m->njoint) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_INPUT, k + 1, "no such joint");
      }
      const mbd_joint_type_desc *jt = mbd_joint_type_get(m->joint[u->joint].type);
      int ok = 0;
      for (int c = 0; c < jt->ncoord[MBD_DIMX(m)]; c++) {
        ok |= jt->coord[MBD_DIMX(m)][c] == u->coord;
      }
      if (!ok) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_INPUT, k + 1,
                        u->coord == MBD_COORD_ANGLE
                            ? "the joint has no angle (a torque input needs a revolute or a "
                              "cylindrical joint)"
                            : "the joint has no displacement (a force input needs a translational "
                              "or a cylindrical joint)");
      }
    } else if (u->body < 1 || u->body >= m->nbody) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_INPUT, k + 1,
                      "a force or torque needs a moving body");
    } else if (u->kind == MBD_LIN_IN_FORCE || m->dim == 3) {
      double nrm = sqrt(u->dir[0] * u->dir[0] + u->dir[1] * u->dir[1] + u->dir[2] * u->dir[2]);
      if (!(nrm > 0) || !isfinite(nrm)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_INPUT, k + 1, "its direction is zero");
      }
    }
  }
  for (int k = 0; k < o->noutput; k++) {
    chan[k] = mbd_channel_find(m, o->output[k]);
    if (chan[k] < 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_OUTPUT, o->output[k], m->name);
    }
  }
  if (o->nsteady > 0 && (mbd_formulation_has(o->formulation, MBD_FCAP_JOINT_COORDS) ||
                         o->method == MBD_LIN_ANALYTIC)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_STEADY_TREE);
  }
  for (int k = 0; k < o->nsteady; k++) {
    const mbd_lin_steady *g = &o->steady[k];
    double nrm = sqrt(g->axis[0] * g->axis[0] + g->axis[1] * g->axis[1] + g->axis[2] * g->axis[2]);
    if (g->body >= m->nbody || g->body == 0 ||
        (g->body > 0 && (m->body[g->body].block < 0 || m->block[m->body[g->body].block].nq == 0))) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_STEADY, k + 1,
                      "no such moving body with coordinates of its own");
    }
    if (m->dim == 3 && (!(nrm > 0) || !isfinite(nrm))) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_STEADY, k + 1, "its axis is zero");
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* steady motions                                                                              */

/* c = a ⊗ b (Hamilton product, scalar first) */
static void qmul(const double *a, const double *b, double *c) {
  c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* the generator of symmetry g on the full state (q, v) of the Cartesian model m: its linear
 * action's derivative at the identity, into (gq, gv).  Turning the model by s about axis e through
 * c: r → e × (r − c), p → ½ (0, e) ⊗ p, ṙ → e × ṙ, ṗ → ½ (0, e) ⊗ ṗ (planar: about z, θ → 1);
 * body b spinning about its axis a: p → ½ p ⊗ (0, a), ṗ → ½ ṗ ⊗ (0, a) (planar: θ → 1).  Modal
 * coordinates live in the body's frame: unchanged. */
static void generator(const mbd_model *m, const mbd_lin_steady *g, const double *q, const double *v,
                      double *gq, double *gv) {
  memset(gq, 0, (size_t)m->nq * sizeof(double));
  memset(gv, 0, (size_t)m->nv * sizeof(double));
  double e[4] = {0, 0, 0, 1};
  double nrm = sqrt(g->axis[0] * g->axis[0] + g->axis[1] * g->axis[1] + g->axis[2] * g->axis[2]);
  for (int k = 0; k < 3 && m->dim == 3; k++) {
    e[k + 1] = g->axis[k] / nrm;
  }
  for (int b = 1; b < m->nbody; b++) {
    if (m->body[b].block < 0 || (g->body > 0 && g->body != b)) {
      continue;
    }
    const mbd_block *bl = &m->block[m->body[b].block];
    if (bl->nq == 0) {
      continue;  // (a flexible body's node: it moves with its body's coordinates)
    }
    const double *qb = q + bl->qadr, *vb = v + bl->vadr;
    double *gqb = gq + bl->qadr, *gvb = gv + bl->vadr;
    if (m->dim == 2) {
      if (g->body < 0) {
        gqb[0] = -(qb[1] - g->at[1]);
        gqb[1] = qb[0] - g->at[0];
        gvb[0] = -vb[1];
        gvb[1] = vb[0];
      }
      gqb[2] = 1;
      continue;
    }
    double t[4];
    if (g->body < 0) {
      double rc[3] = {qb[0] - g->at[0], qb[1] - g->at[1], qb[2] - g->at[2]};
      gqb[0] = e[2] * rc[2] - e[3] * rc[1];
      gqb[1] = e[3] * rc[0] - e[1] * rc[2];
      gqb[2] = e[1] * rc[1] - e[2] * rc[0];
      gvb[0] = e[2] * vb[2] - e[3] * vb[1];
      gvb[1] = e[3] * vb[0] - e[1] * vb[2];
      gvb[2] = e[1] * vb[1] - e[2] * vb[0];
      qmul(e, qb + 3, t);
      for (int k = 0; k < 4; k++) {
        gqb[3 + k] = 0.5 * t[k];
      }
      qmul(e, vb + 3, t);
      for (int k = 0; k < 4; k++) {
        gvb[3 + k] = 0.5 * t[k];
      }
    } else {
      qmul(qb + 3, e, t);
      for (int k = 0; k < 4; k++) {
        gqb[3 + k] = 0.5 * t[k];
      }
      qmul(vb + 3, e, t);
      for (int k = 0; k < 4; k++) {
        gvb[3 + k] = 0.5 * t[k];
      }
    }
  }
}

/* g(x) on the reduced state: the generator at the completed state, its independent entries */
static int reduced_generator(lin_sys *s, const mbd_lin_steady *g, const double *x, double *gx,
                             mbd_error *err) {
  int rc = lin_sys_complete(s, x, err);
  if (rc != MBD_OK) {
    return rc;
  }
  const mbd_model *m = s->m;
  double *gq = s->tmp, *gv = s->tmp + m->nq;
  generator(m, g, s->d->q, s->d->v, gq, gv);
  const mbd_part *p = s->p;
  for (int k = 0; k < s->f; k++) {
    gx[k] = gq[p->pperm[p->mp + k]];
    gx[s->f + k] = gv[p->perm[p->ma + k]];
  }
  return MBD_OK;
}

static int generator_fn(lin_sys *s, const double *x, double *out, void *ctx, mbd_error *err) {
  return reduced_generator(s, ctx, x, out, err);
}

/* the steady motion's rates Ω (least squares of ẋ0 = Σ Ω_k g_k(x0) over the position rates,
 * each scaled by its coordinate's scale), A −= Σ Ω_k Dg_k, and ẋ0 − Σ Ω_k g_k(x0) into res */
static int steady_frame(lin_sys *s, const mbd_lin_opts *o, mbd_linear *l, double *res,
                        mbd_error *err) {
  int f = s->f, nx = 2 * f, ns = o->nsteady;
  double *G = calloc((size_t)nx * (size_t)ns, sizeof(double));
  double *xp = calloc((size_t)nx * 3, sizeof(double));
  double *a = calloc((size_t)f * (size_t)ns + (size_t)f + 2 * (size_t)ns + 2, sizeof(double));
  mbd_lsq_ws ws;
  memset(&ws, 0, sizeof ws);
  int rc = G && xp && a ? mbd_lsq_alloc(&ws, f, ns, err)
                        : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  for (int k = 0; rc == MBD_OK && k < ns; k++) {
    rc = reduced_generator(s, &o->steady[k], s->x0, G + (size_t)k * nx, err);
  }
  if (rc == MBD_OK) {
    // the fit: rows of the position rates over their scales
    double *Ar = a, *br = a + (size_t)f * ns, *om = br + f;
    for (int i = 0; i < f; i++) {
      double sc = s->scale[lin_sys_icoord(s, i)];
      br[i] = l->xdot0[i] / sc;
      for (int k = 0; k < ns; k++) {
        MBD_AT(Ar, f, i, k) = G[(size_t)k * nx + i] / sc;
      }
    }
    int rank = 0;
    rc = mbd_lsq_solve(&ws, f, ns, Ar, f, br, om, 1e-10, &rank);
    for (int k = 0; rc == MBD_OK && k < ns; k++) {
      l->rate[k] = om[k];
    }
  }
  for (int i = 0; rc == MBD_OK && i < nx; i++) {
    res[i] = l->xdot0[i];
    for (int k = 0; k < ns; k++) {
      res[i] -= l->rate[k] * G[(size_t)k * nx + i];
    }
  }
  // A −= Σ Ω_k Dg_k, Dg_k by differences of g_k (linear in the full state: the completion's
  // derivatives are all there is)
  double *dg = xp;
  for (int j = 0; rc == MBD_OK && j < nx; j++) {
    for (int k = 0; rc == MBD_OK && k < ns; k++) {
      rc = lin_sys_derivative(s, j, generator_fn, (void *)&o->steady[k], nx, dg, err);
      for (int i = 0; rc == MBD_OK && i < nx; i++) {
        MBD_AT(l->A, nx, i, j) -= l->rate[k] * dg[i];
      }
    }
  }
  mbd_lsq_free(&ws);
  free(G);
  free(xp);
  free(a);
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* outputs                                                                                     */

/* the output channels at state x with input u (or none) of value uval: the state of the model
 * completed, its forces with the input's, the augmented solve for v̇ and λ, the channels read */
static int outputs_at(lin_sys *s, const double *x, const mbd_lin_input *u, double uval,
                      const int *chan, int ny, double *y, mbd_error *err) {
  const mbd_model *m = s->m;
  mbd_data *dc = s->dc;
  int rc = lin_sys_complete(s, x, err);
  if (rc == MBD_OK) {
    rc = lin_sys_cartesian(s, s->d, dc, err);
  }
  if (rc == MBD_OK) {
    rc = mbd_eval_to(m, dc, MBD_STAGE_FORCES, err);
  }
  if (rc == MBD_OK && u) {
    double *Qu = s->tmp;
    lin_input_force(m, dc, u, Qu);
    mbd_stage_touch(dc, MBD_STAGE_VELOCITY);  // (Q with the input: no longer the forces alone)
    for (int i = 0; i < m->nv; i++) {
      dc->Q[i] += uval * Qu[i];
    }
  }
  if (rc == MBD_OK) {
    rc = mbd_dynamics_augmented(m, dc, dc->gamma_a, err);
    if (rc == MBD_RESELECTED) {
      rc = mbd_dynamics_augmented(m, dc, dc->gamma_a, err);
    }
  }
  if (rc < 0) {
    return rc;
  }
  for (int j = 0; j < ny; j++) {
    int ok = 0;
    y[j] = mbd_channel_value(m, dc, chan[j], &ok);
  }
  return MBD_OK;
}

typedef struct out_ctx {
  const int *chan;
  int ny;
} out_ctx;

static int outputs_fn(lin_sys *s, const double *x, double *out, void *ctx, mbd_error *err) {
  const out_ctx *c = ctx;
  return outputs_at(s, x, NULL, 0, c->chan, c->ny, out, err);
}

/* C by differences of the outputs; D by ±1 of each input (the channels are linear in it) */
static int output_matrices(lin_sys *s, const mbd_lin_opts *o, const int *chan, mbd_linear *l,
                           mbd_error *err) {
  int nx = l->nx, ny = l->ny;
  double *yp = calloc((size_t)ny * 2 + 2, sizeof(double));
  int rc = yp ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  double *ym = yp + ny;
  out_ctx c = {chan, ny};
  for (int k = 0; rc == MBD_OK && k < nx; k++) {
    rc = lin_sys_derivative(s, k, outputs_fn, &c, ny, yp, err);
    for (int j = 0; rc == MBD_OK && j < ny; j++) {
      MBD_AT(l->C, ny, j, k) = yp[j];
    }
  }
  for (int k = 0; rc == MBD_OK && k < l->nu; k++) {
    rc = outputs_at(s, s->x0, &o->input[k], 1, chan, ny, yp, err);
    if (rc == MBD_OK) {
      rc = outputs_at(s, s->x0, &o->input[k], -1, chan, ny, ym, err);
    }
    for (int j = 0; rc == MBD_OK && j < ny; j++) {
      MBD_AT(l->D, ny, j, k) = (yp[j] - ym[j]) / 2;
    }
  }
  free(yp);
  return rc;
}

/* B: the accelerations of each unit input at the operating point (the augmented system with
 * [Q_u; 0]; positions' rates do not depend on u) */
static int input_matrix(lin_sys *s, const mbd_lin_opts *o, mbd_linear *l, mbd_error *err) {
  const mbd_model *w = s->w;
  mbd_data *d = s->d;
  int nx = l->nx, f = s->f;
  double *zero = calloc((size_t)w->mrow + 1, sizeof(double));
  if (!zero) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  int rc = MBD_OK;
  for (int k = 0; rc == MBD_OK && k < l->nu; k++) {
    rc = lin_sys_complete(s, s->x0, err);
    if (rc == MBD_OK) {
      lin_sys_poses(s, d);
      rc = mbd_eval_to(w, d, MBD_STAGE_FORCES, err);  // M
    }
    if (rc == MBD_OK) {
      lin_input_force(w, d, &o->input[k], d->Q);
      mbd_stage_touch(d, MBD_STAGE_VELOCITY);  // (Q the input alone: no longer the forces)
      rc = mbd_dynamics_augmented(w, d, zero, err);
      if (rc == MBD_RESELECTED) {
        lin_input_force(w, d, &o->input[k], d->Q);
        rc = mbd_dynamics_augmented(w, d, zero, err);
      }
    }
    for (int i = 0; rc == MBD_OK && i < f; i++) {
      MBD_AT(l->B, nx, f + i, k) = d->vdot[lin_sys_icoord(s, i)];
    }
  }
  free(zero);
  return rc < 0 ? rc : MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the linearization                                                                           */

static int rhs_fn(lin_sys *s, const double *x, double *out, void *ctx, mbd_error *err) {
  (void)ctx;
  return lin_sys_rhs(s, x, out, err);
}

/* A by differences of f */
static int differences_A(lin_sys *s, mbd_linear *l, mbd_error *err) {
  int nx = l->nx;
  double *col = calloc((size_t)nx, sizeof(double));
  if (!col) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  int rc = MBD_OK;
  for (int k = 0; rc == MBD_OK && k < nx; k++) {
    rc = lin_sys_derivative(s, k, rhs_fn, NULL, nx, col, err);
    if (rc != MBD_OK) {
      char nm[MBD_LIN_NAME], msg[sizeof err->msg];
      lin_sys_coord_name(s, k % s->f, nm, sizeof nm);
      snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
      rc = MBD_FAIL(err, rc, MSG_LIN_RHS, "linearize", nm, msg);
      break;
    }
    memcpy(l->A + (size_t)k * nx, col, (size_t)nx * sizeof(double));
  }
  free(col);
  return rc;
}

/* M = BᵀMB over w's mass matrix at the operating point; K = −M A_vq, C = −M A_vv */
static int reduced_matrices(lin_sys *s, mbd_linear *l, mbd_error *err) {
  int n = s->n, f = s->f, nx = l->nx;
  double *B = calloc((size_t)n * (size_t)f, sizeof(double));
  double *MB = calloc((size_t)n * (size_t)f, sizeof(double));
  int rc = B && MB ? lin_sys_partial_velocities(s, B, err)
                   : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  if (rc == MBD_OK) {
    mbd_gemm(0, 0, n, f, n, 1.0, s->d0->M, n, B, n, 0.0, MB, n);
    mbd_gemm(1, 0, f, f, n, 1.0, B, n, MB, n, 0.0, l->M, f);
    // (symmetric to round-off: made exactly so)
    for (int i = 0; i < f; i++) {
      for (int j = i + 1; j < f; j++) {
        double a = 0.5 * (MBD_AT(l->M, f, i, j) + MBD_AT(l->M, f, j, i));
        MBD_AT(l->M, f, i, j) = MBD_AT(l->M, f, j, i) = a;
      }
    }
    for (int i = 0; i < f; i++) {
      for (int j = 0; j < f; j++) {
        double kq = 0, kv = 0;
        for (int k = 0; k < f; k++) {
          kq += MBD_AT(l->M, f, i, k) * MBD_AT(l->A, nx, f + k, j);
          kv += MBD_AT(l->M, f, i, k) * MBD_AT(l->A, nx, f + k, f + j);
        }
        MBD_AT(l->K, f, i, j) = -kq;
        MBD_AT(l->Cv, f, i, j) = -kv;
      }
    }
  }
  free(B);
  free(MB);
  return rc;
}

/* the largest |ẋ| (r: ẋ0, or what the symmetries leave of it) relative to the system's own
 * rates: a position's rate over scale·ω, an acceleration over scale·ω², ω the largest |λ| of A
 * (with no eigenvalue above zero: √(|g| / size), else 1/s) */
static void residual(lin_sys *s, mbd_linear *l, const double *r) {
  double w = 0;
  for (int i = 0; i < l->nx; i++) {
    w = fmax(w, hypot(l->re[i], l->im[i]));
  }
  if (!(w > 0)) {
    const double *g = s->m->gravity;
    w = sqrt(sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) / (s->m->size > 0 ? s->m->size : 1));
    w = w > 0 ? w : 1;
  }
  int f = s->f, at = 0;
  double worst = 0;
  for (int k = 0; k < f; k++) {
    double sc = s->scale[lin_sys_icoord(s, k)];
    double a = fabs(r[k]) / (sc * w), b = fabs(r[f + k]) / (sc * w * w);
    if (fmax(a, b) > worst) {
      worst = fmax(a, b);
      at = k;
    }
  }
  l->residual = worst;
  lin_sys_coord_name(s, at, l->residual_coord, sizeof l->residual_coord);
  l->equilibrium = worst <= LIN_EQUILIBRIUM_REL;
}

static void warn(mbd_linear *l, const char *text) {
  if (l->nwarning < 4) {
    snprintf(l->warning[l->nwarning++], sizeof l->warning[0], "%s", text);
  }
}

int mbd_linearize(const mbd_model *m, const mbd_lin_opts *o, mbd_linear **out, mbd_error *err) {
  *out = NULL;
  if (!m->assembled) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_LIN_NOT_ASSEMBLED, "linearize", m->name);
  }
  int *chan = calloc((size_t)o->noutput + 1, sizeof(int));
  if (!chan) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  int rc = check_opts(m, o, chan, err);
  lin_sys s;
  memset(&s, 0, sizeof s);
  int analytic = o->method == MBD_LIN_ANALYTIC;
  if (rc == MBD_OK) {
    rc = lin_sys_open(&s, "linearize", m, o->q, o->v, o->memo, o->t, o->formulation, analytic,
                      analytic ? MBD_CODE_TAPE : MBD_CODE_NUMERIC, o->cut, o->ncut, err);
  }
  s.poll = o->poll;
  s.poll_ud = o->poll_ud;
  mbd_linear *l = NULL;
  if (rc == MBD_OK) {
    l = linear_alloc(s.f, o->ninput, o->noutput, m, o->nsteady);
    rc = l ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  double *res = NULL;
  if (rc == MBD_OK) {
    l->t = o->t;
    l->formulation = o->formulation;
    l->method = o->method;
    l->opts = *o;
    l->opts.input = NULL;
    l->opts.output = NULL;
    l->opts.steady = NULL;
    l->opts.cut = NULL;
    l->opts.poll = NULL;
    l->opts.poll_ud = NULL;
    l->nsteady = o->nsteady;
    if (o->ncut > 0) {
      l->cut = calloc((size_t)o->ncut, sizeof *l->cut);
      rc = l->cut ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
      for (int k = 0; l->cut && k < o->ncut; k++) {
        snprintf(l->cut[k], sizeof l->cut[k], "%s", o->cut[k]);
      }
    }
    for (int k = 0; k < s.f; k++) {
      lin_sys_coord_name(&s, k, l->coord[k], MBD_LIN_NAME);
    }
    memcpy(l->x0, s.x0, (size_t)l->nx * sizeof(double));
    memcpy(l->q0, s.dm->q, (size_t)m->nq * sizeof(double));
    memcpy(l->v0, s.dm->v, (size_t)m->nv * sizeof(double));
    memcpy(l->memo0, s.dm->angle_memo, (size_t)m->njoint * sizeof(double));
    res = calloc((size_t)l->nx, sizeof(double));
    rc = res ? lin_sys_rhs(&s, s.x0, l->xdot0, err)
             : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  if (rc == MBD_OK) {
    rc = analytic ? lin_analytic_A(&s, l->A, err) : differences_A(&s, l, err);
  }
  if (rc == MBD_OK) {
    memcpy(res, l->xdot0, (size_t)l->nx * sizeof(double));
    if (o->nsteady > 0) {
      rc = steady_frame(&s, o, l, res, err);
    }
  }
  if (rc == MBD_OK) {
    rc = reduced_matrices(&s, l, err);
  }
  if (rc == MBD_OK && l->nu > 0) {
    rc = input_matrix(&s, o, l, err);
  }
  if (rc == MBD_OK && l->ny > 0) {
    rc = output_matrices(&s, o, chan, l, err);
  }
  if (rc == MBD_OK) {
    rc = lin_modes(&s, l, err);
  }
  if (rc == MBD_OK) {
    residual(&s, l, res);
    char text[512];
    if (!l->equilibrium && o->nsteady == 0) {
      snprintf(text, sizeof text, MSG_LIN_NOT_EQUILIBRIUM, o->t, l->residual, l->residual_coord);
      warn(l, text);
    } else if (!l->equilibrium) {
      snprintf(text, sizeof text, MSG_LIN_NOT_STEADY, l->residual, l->residual_coord);
      warn(l, text);
    }
    if (!l->equilibrium) {
      l->stable = -1;
    }
  }
  free(res);
  free(chan);
  lin_sys_close(&s);
  if (rc != MBD_OK) {
    mbd_linear_free(l);
    return rc;
  }
  *out = l;
  return MBD_OK;
}
