/* the reduced system of the equilibrium and the linearization (linear_impl.h): a model at an
 * operating point, in the coordinates of its working model, partitioned, with a formulation's
 * evaluation — ẋ = f(t, x) for x = (q_i, v_i).
 *
 * The partition is partition.c's (QR with column pivoting of the active rows of Φq), on columns
 * weighted by their kind over their norm: a length's column has weight 1/|column|, an angle's,
 * an Euler parameter's and a modal coordinate's 0.1/|column|.  Normalized columns make the choice
 * independent of the units (a model in millimetres partitions as in metres), and the factor 0.1
 * makes lengths dependent before angles when both would serve: the state then holds angles
 * ("rod.theta", the coordinates a designer reads) and modal coordinates, and the dependent block
 * is at most about ten times worse conditioned than the unweighted choice. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kinematics/tree.h"
#include "linear_impl.h"
#include "mbd/formulation.h"

/* the weight of an angle-like column against a length's in the partition's QR */
#define LIN_ANGLE_WEIGHT 0.1
/* the smallest / largest pivot of Φq's QR below which a state counts as a singular configuration:
 * the independent coordinates are not defined there (a position analysis reaches a singular pose
 * only to about √ε ≈ 1.5e-8 of the coordinates: a double root) */
#define LIN_SINGULAR_RATIO 1e-7

void lin_sys_close(lin_sys *s) {
  if (s->self && s->ops && s->ops->destroy) {
    s->ops->destroy(s->self);
  }
  if (s->own_p) {
    mbd_part_free(s->p);
  }
  mbd_data_free(s->dm);
  mbd_data_free(s->d0);
  mbd_data_free(s->d);
  mbd_data_free(s->dc);
  mbd_model_free(s->tree);
  mbd_code_free(s->code);
  free(s->ckind);
  free(s->scale);
  free(s->colw);
  free(s->x0);
  free(s->y);
  free(s->tmp);
  memset(s, 0, sizeof *s);
}

/* each of w's coordinates' kind and scale: a length's scale is the model's size, an angle's
 * (and an Euler parameter's) 1, a modal coordinate's the model's size over the largest nodal
 * displacement of its shape (the modal amplitude that moves a node by the model's size) */
static void coord_kinds(lin_sys *s) {
  const mbd_model *w = s->w;
  double size = s->m->size > 0 ? s->m->size : 1;
  for (int c = 0; c < s->n; c++) {
    s->ckind[c] = LIN_ANGLE;
    s->scale[c] = 1;
  }
  for (int k = 0; k < w->nblock; k++) {
    const mbd_block *bl = &w->block[k];
    if (bl->kind == MBD_BLOCK_BODY) {
      const mbd_body *b = &w->body[bl->owner];
      const mbd_body_kind_desc *kd = mbd_body_kind_get(b->kind);
      for (int c = 0; c < bl->nv; c++) {
        int col = bl->vadr + c;
        if (c < kd->npos) {
          s->ckind[col] = LIN_LENGTH;
          s->scale[col] = size;
        } else if (c >= kd->nv && b->flex) {
          // a modal coordinate: its shape's largest nodal displacement
          const struct mbd_flex *fx = b->flex;
          int mode = c - kd->nv;
          double hi = 0;
          for (int i = 0; i < 3 * fx->nnode; i++) {
            hi = fmax(hi, fabs(fx->Phi[(size_t)i * fx->nm + mode]));
          }
          s->ckind[col] = LIN_MODAL;
          s->scale[col] = hi > 0 ? size / hi : 1;
        }
      }
    } else if (bl->kind == MBD_BLOCK_TREE && w->tree) {
      const mbd_tree *t = w->tree;
      for (int j = 0; j < t->ntj; j++) {
        const mbd_tree_joint *tj = &t->tj[j];
        for (int c = 0; c < tj->nq; c++) {
          int col = tj->qadr + c;
          // lengths: a floating body's position, the displacements (a screw's is its angle)
          int len = (tj->kind == MBD_TJ_FLOATING && c < w->dim) ||
                    (c >= tj->disp && c < tj->disp + tj->ndisp && c != tj->rot);
          s->ckind[col] = len ? LIN_LENGTH : LIN_ANGLE;
          s->scale[col] = len ? size : 1;
        }
      }
    }
  }
}

/* the partition's column weights from the active rows of Φq at d */
static void column_weights(lin_sys *s, const mbd_data *d) {
  for (int c = 0; c < s->n; c++) {
    double nrm = 0;
    for (int r = 0; r < d->ma; r++) {
      double a = MBD_AT(d->phiq_a, d->ma, r, c);
      nrm += a * a;
    }
    nrm = sqrt(nrm);
    double pref = s->ckind[c] == LIN_LENGTH ? 1 : LIN_ANGLE_WEIGHT;
    s->colw[c] = nrm > 0 ? pref / nrm : 1;
  }
}

/* the partition of a model with no active rows: every coordinate independent */
static void trivial_partition(mbd_part *p, int n) {
  p->ma = p->mp = 0;
  p->f = p->fp = n;
  p->sep = 0;
  for (int i = 0; i < n; i++) {
    p->perm[i] = p->pperm[i] = i;
  }
  p->rcond = p->rcond0 = 1;
}

/* σ_min / σ_max of the active rows of Φq at d by QR with column pivoting, and their rank */
static double pivot_ratio(const lin_sys *s, mbd_data *d, int *rank) {
  int ma = d->ma, n = s->n, nd = ma < n ? ma : n;
  *rank = 0;
  if (ma == 0) {
    return 1;
  }
  int *perm = calloc((size_t)n, sizeof(int));
  double *rdiag = calloc((size_t)nd, sizeof(double));
  double ratio = 0;
  if (perm && rdiag &&
      mbd_qrcp_rank(&d->lsq, ma, n, d->phiq_a, ma, 1e-10, perm, rank, rdiag) == MBD_OK) {
    ratio = rdiag[0] > 0 ? rdiag[nd - 1] / rdiag[0] : 0;
  }
  free(perm);
  free(rdiag);
  return ratio;
}

/* the data of model m for the system (with their dense workspaces) */
static mbd_data *data_new(const mbd_model *m, const char *fn, mbd_error *err) {
  mbd_data *d = mbd_data_alloc(m, err);
  if (!d) {
    return NULL;
  }
  if (mbd_data_dense(m, d, err) != MBD_OK) {
    mbd_data_free(d);
    return NULL;
  }
  (void)fn;
  return d;
}

/* m at the operating point, consistent: the position analysis (minimum-norm Newton on the active
 * rows, to the rounding level of the coordinates) and the velocity analysis */
static int operating_point(lin_sys *s, const char *fn, const double *q, const double *v,
                           const double *memo, mbd_error *err) {
  const mbd_model *m = s->m;
  mbd_data *dm = s->dm;
  mbd_data_reset(m, dm);
  if (q) {
    memcpy(dm->q, q, (size_t)m->nq * sizeof(double));
  }
  if (v) {
    memcpy(dm->v, v, (size_t)m->nv * sizeof(double));
  }
  if (memo) {
    memcpy(dm->angle_memo, memo, (size_t)m->njoint * sizeof(double));
  }
  dm->t = s->t;
  mbd_stage_touch(dm, MBD_STAGE_NONE);  // (the operating point written: every stage again)
  mbd_error inner;
  mbd_error_clear(&inner);
  double tol = 4 * DBL_EPSILON * (m->size > 0 ? m->size : 1);
  int rc = mbd_eval_to(m, dm, MBD_STAGE_VELOCITY, &inner);
  if (rc == MBD_OK) {
    rc = mbd_position_analysis(m, dm, tol, 50, &inner);
  }
  if (rc == MBD_OK) {
    rc = mbd_eval_to(m, dm, MBD_STAGE_VELOCITY, &inner);
  }
  if (rc == MBD_OK) {
    rc = mbd_velocity_analysis(m, dm, &inner);
  }
  if (rc == MBD_OK) {
    rc = mbd_eval_to(m, dm, MBD_STAGE_VELOCITY, &inner);
  }
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc < 0 ? rc : MBD_E_NEWTON, MSG_LIN_STATE, fn, s->t, inner.msg);
  }
  return MBD_OK;
}

int lin_sys_open(lin_sys *s, const char *fn, const mbd_model *m, const double *q, const double *v,
                 const double *memo, double t, int form, int tree, int code, const char *const *cut,
                 int ncut, mbd_error *err) {
  memset(s, 0, sizeof *s);
  s->m = m;
  s->t = t;
  if (!m->assembled) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_LIN_NOT_ASSEMBLED, fn, m->name);
  }
  if (m->ncontact > 0 || m->njfric > 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_CONTACTS, fn, m->name);
  }
  if (!mbd_form_lookup(form)) {
    const char *nm = mbd_formulation_name(form);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_FORMULATION, fn, nm ? nm : "?");
  }
  s->dm = data_new(m, fn, err);
  s->dc = s->dm ? data_new(m, fn, err) : NULL;
  if (!s->dc) {
    return err && err->code ? err->code : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, fn);
  }
  int rc = operating_point(s, fn, q, v, memo, err);
  if (rc != MBD_OK) {
    return rc;
  }
  // the working model: the model itself, or its tree (joint coordinates; every joint cut for
  // Cartesian coordinates with generated equations)
  int joint = mbd_formulation_has(form, MBD_FCAP_JOINT_COORDS);
  if (joint || tree) {
    const char **all = NULL;
    if (!joint) {
      all = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof *all);
      if (!all) {
        return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, fn);
      }
      for (int j = 0; j < m->njoint; j++) {
        all[j] = m->joint[j].name;
      }
    }
    rc = all ? mbd_tree_build(m, s->dm, all, m->njoint, &s->tree, err)
             : mbd_tree_build(m, s->dm, cut, ncut, &s->tree, err);
    free(all);
    if (rc != MBD_OK) {
      return rc;
    }
    if (code == MBD_CODE_TAPE) {
      mbd_code_info info;
      memset(&info, 0, sizeof info);
      rc = mbd_code_new(s->tree, MBD_CODE_TAPE, &s->code, &info, err);
      if (rc != MBD_OK) {
        return rc;
      }
      s->tree->eqs = mbd_code_hook(s->code);
    }
    s->w = s->tree;
  } else {
    s->w = m;
  }
  const mbd_model *w = s->w;
  s->n = w->nv;
  size_t n1 = (size_t)(s->n ? s->n : 1);
  s->d0 = data_new(w, fn, err);
  s->d = s->d0 ? data_new(w, fn, err) : NULL;
  s->ckind = calloc(n1, sizeof(int));
  s->scale = calloc(n1, sizeof(double));
  s->colw = calloc(n1, sizeof(double));
  s->x0 = calloc(2 * n1, sizeof(double));
  s->y = calloc((size_t)w->nq + n1 + 1, sizeof(double));
  s->tmp = calloc(4 * (n1 + (size_t)m->nq + (size_t)m->nv) + 4, sizeof(double));
  if (!s->d || !s->ckind || !s->scale || !s->colw || !s->x0 || !s->y || !s->tmp) {
    return err && err->code ? err->code : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, fn);
  }
  // w at the operating point: the model's state, or the tree's (zero joint coordinates there)
  if (w == m) {
    mbd_data_copy_state(m, s->d0, s->dm);
  } else {
    mbd_data_reset(w, s->d0);
  }
  s->d0->t = t;
  mbd_stage_touch(s->d0, MBD_STAGE_NONE);
  rc = mbd_eval_to(w, s->d0, MBD_STAGE_VELOCITY, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (w->nqi != w->nv) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_CONTACTS, fn, m->name);
  }
  coord_kinds(s);
  column_weights(s, s->d0);
  // a singular configuration: the active rows have lost rank here, or nearly (Newton reaches a
  // singular pose only to about √ε: its double root)
  int rank = 0;
  double ratio = pivot_ratio(s, s->d0, &rank);
  if (rank < s->d0->ma || ratio < LIN_SINGULAR_RATIO) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_LIN_SINGULAR, fn, t, ratio);
  }
  // the formulation on w (relative: its default solver, Kane's, on the joint coordinates; gcp
  // and kane partition nothing in a model without rows: the table's stand-in, the augmented solve)
  const mbd_formulation_info *fi = mbd_formulation_info_of(form);
  int F = fi->solver >= 0 ? fi->solver : form;
  if (s->d0->ma == 0) {
    F = mbd_formulation_info_of(F)->without_rows;
  }
  s->form = F;
  s->ops = mbd_form_lookup(F);
  mbd_sim_opts_default(&s->so);
  s->so.formulation = F;
  s->so.t_end = 1;
  // Newton of the dependent coordinates to the rounding level (differences divide its error by
  // the step)
  s->so.position_tol = 4 * DBL_EPSILON * (m->size > 0 ? m->size : 1);
  s->so.max_newton = 50;
  s->so.linear_solver = MBD_LINSOLVE_DENSE;
  if (mbd_formulation_has(F, MBD_FCAP_STABILIZED)) {
    s->so.alpha = mbd_formulation_info_of(F)->alpha;
    s->so.beta = mbd_formulation_info_of(F)->beta;
  }
  if (s->ops->check && (rc = s->ops->check(w, &s->so, err)) < 0) {
    return rc;
  }
  rc = s->ops->create(&s->self, w, s->d0, &s->so, err);
  if (rc != MBD_OK) {
    return rc;
  }
  s->partitioned = mbd_formulation_has(F, MBD_FCAP_PARTITIONED);
  if (s->partitioned) {
    s->p = s->self;  // (gcp's and kane's run state is their partition: formulations.h)
    // no window of a singular configuration (mbd_part_windowed): it interpolates accelerations
    // along the velocity for an integrator crossing one; here each evaluation is the state's own
    s->p->in_window = 1;
  } else {
    rc = mbd_part_alloc(&s->p, w, s->d0, &s->so, err);
    if (rc != MBD_OK) {
      return rc;
    }
    s->own_p = 1;
  }
  s->p->colw = s->colw;
  if (s->d0->ma == 0) {
    trivial_partition(s->p, s->n);
  } else {
    rc = mbd_part_choose(s->p, w, s->d0, err);
    if (rc != MBD_OK) {
      return rc;
    }
  }
  if (s->p->sep || s->p->fp != s->p->f) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_CONTACTS, fn, m->name);
  }
  s->f = s->p->f;
  if (s->f == 0) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_NO_DOF, fn, m->name);
  }
  mbd_part_pack(s->p, s->d0, s->x0);
  // the operating point's evaluation in d0: its forces and mass matrix
  rc = lin_sys_complete(s, s->x0, err);
  if (rc == MBD_OK) {
    mbd_data_copy_state(w, s->d0, s->d);
    rc = mbd_eval_to(w, s->d0, MBD_STAGE_VELOCITY, err);
  }
  if (rc == MBD_OK) {
    lin_sys_poses(s, s->d0);
    rc = mbd_eval_to(w, s->d0, MBD_STAGE_FORCES, err);
  }
  return rc;
}

void lin_sys_poses(const lin_sys *s, mbd_data *d) {
  if (s->w->tree) {
    mbd_tree_poses(s->w, d);
  } else {
    mbd_kin_poses(s->w, d);
  }
}

/* a formulation's positive status (the state could not be completed) as an error */
static int hard(int rc, const mbd_error *err) {
  if (rc > 0) {
    return err && err->code < 0 ? err->code : MBD_E_NEWTON;
  }
  return rc;
}

int lin_sys_complete(lin_sys *s, const double *x, mbd_error *err) {
  mbd_data_copy_state(s->w, s->d, s->d0);
  s->d->t = s->t;
  return hard(mbd_part_state(s->p, s->w, s->d, s->t, x, MBD_DERIV_SAMPLE, err), err);
}

int lin_sys_rhs(lin_sys *s, const double *x, double *xdot, mbd_error *err) {
  const mbd_model *w = s->w;
  mbd_data *d = s->d;
  mbd_part *p = s->p;
  int rc;
  if (s->partitioned) {
    // gcp, kane: their state is x itself (their eval does the analyses)
    mbd_data_copy_state(w, d, s->d0);
    d->t = s->t;
    rc = hard(s->ops->eval(s->self, w, d, s->t, x, MBD_DERIV_SAMPLE, err), err);
    if (rc == MBD_OK) {
      s->ops->deriv(s->self, w, d, xdot);
    }
    return rc;
  }
  // the others integrate every coordinate: the state completed by the partition, packed as
  // theirs, evaluated, the independent rates and accelerations read
  rc = lin_sys_complete(s, x, err);
  if (rc != MBD_OK) {
    return rc;
  }
  s->ops->pack(s->self, w, d, s->y);
  rc = hard(s->ops->eval(s->self, w, d, s->t, s->y, MBD_DERIV_SAMPLE, err), err);
  if (rc != MBD_OK) {
    return rc;
  }
  for (int k = 0; k < p->fp; k++) {
    xdot[k] = d->v[p->pperm[p->mp + k]];
  }
  for (int k = 0; k < p->f; k++) {
    xdot[p->fp + k] = d->vdot[p->perm[p->ma + k]];
  }
  return MBD_OK;
}

int lin_sys_cartesian(lin_sys *s, mbd_data *dw, mbd_data *dc, mbd_error *err) {
  if (!s->tree) {
    mbd_data_copy_state(s->m, dc, dw);
  } else {
    mbd_data_copy_state(s->m, dc, s->dm);  // (active rows, memos to continue from)
    mbd_tree_poses(s->w, dw);
    mbd_tree_to_cartesian(s->w, dw, s->m, dc, 0);
  }
  dc->t = s->t;
  mbd_stage_touch(dc, MBD_STAGE_NONE);
  return mbd_eval_to(s->m, dc, MBD_STAGE_VELOCITY, err);
}

int lin_sys_icoord(const lin_sys *s, int k) { return s->p->perm[s->p->ma + k]; }

void lin_sys_coord_name(const lin_sys *s, int k, char *buf, size_t len) {
  mbd_model_coord_name(s->w, lin_sys_icoord(s, k), buf, len);
}

double lin_sys_step(const lin_sys *s, int k) {
  int f = s->f;
  if (k < f) {
    return pow(DBL_EPSILON, 0.2) * s->scale[lin_sys_icoord(s, k)];
  }
  int c = lin_sys_icoord(s, k - f);
  return 1e-3 * fmax(s->scale[c], fabs(s->x0[k]));
}

int lin_sys_derivative(lin_sys *s, int k, lin_vecfn fn, void *ctx, int n, double *d,
                       mbd_error *err) {
  int nx = 2 * s->f, pos = k < s->f;
  if (s->poll) {
    int rc = s->poll(s->poll_ud, s->t, err);
    if (rc < 0) {
      return rc;
    }
  }
  double *xp = calloc((size_t)nx + 2 * (size_t)n + 1, sizeof(double));
  if (!xp) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  double *gp = xp + nx, *gm = gp + n, h = lin_sys_step(s, k);
  int rc = MBD_OK;
  // D(h), then for a position D(h/2) and the extrapolation
  for (int pass = 0; rc == MBD_OK && pass < (pos ? 2 : 1); pass++) {
    double hh = pass ? 0.5 * h : h;
    memcpy(xp, s->x0, (size_t)nx * sizeof(double));
    xp[k] += hh;
    rc = fn(s, xp, gp, ctx, err);
    xp[k] -= 2 * hh;
    if (rc == MBD_OK) {
      rc = fn(s, xp, gm, ctx, err);
    }
    for (int i = 0; rc == MBD_OK && i < n; i++) {
      double D = (gp[i] - gm[i]) / (2 * hh);
      d[i] = pass ? (4 * D - d[i]) / 3 : D;
    }
  }
  free(xp);
  return rc;
}

int lin_sys_partial_velocities(lin_sys *s, double *out, mbd_error *err) {
  // (the partition's factors at the operating point: complete there first)
  int rc = lin_sys_complete(s, s->x0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (s->p->ma > 0) {
    mbd_part_partial_velocities(s->p, s->d);
    memcpy(out, s->p->B, (size_t)s->n * (size_t)s->f * sizeof(double));
  } else {
    memset(out, 0, (size_t)s->n * (size_t)s->f * sizeof(double));
    for (int k = 0; k < s->f; k++) {
      MBD_AT(out, s->n, s->p->perm[k], k) = 1;
    }
  }
  return MBD_OK;
}
