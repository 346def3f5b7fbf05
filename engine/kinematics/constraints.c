/* the constraint stage: Φ, Φq, Φt and γ of every row — joints (their type's equations),
 * drives (a joint coordinate minus a function of time), normalization rows of the blocks —
 * analytically (paper 000 eq 7: γ = −(Φq q̇)q q̇ − 2Φqt q̇ − Φtt).
 *
 * Each joint or drive row is a local row over its two bodies' pose coordinates (Y1 | Y2), kept in
 * d->rowJ (reactions are read from it) and scattered into Φq (mrow × nv) through each body's
 * pose Jacobian: Φ_v = Φ_Y J, and γ gains −Φ_Y h. */
#include <math.h>
#include <string.h>

#include "../contact/contact_impl.h"
#include "kinematics.h"
#include "kinematics_msg.h"
#include "../model/tree_impl.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* the sparse form (model_impl.h, mbd_sparse): row r's entries of side `side`, which start at
 * column sp->scol[2r + side] — the same sums in the same order as the dense scatter below, so the
 * values are bit for bit those of the dense Φq */
static void scatter_row_sparse(mbd_data *d, int r, int side, const mbd_pose *ps,
                               const double *Js) {
  mbd_sparse *sp = d->sp;
  double *dst = sp->val + sp->rp[r] + sp->soff[2 * r + side] + (ps->vadr - sp->scol[2 * r + side]);
  int ny = ps->ny;
  if (!ps->J) {
    for (int c = 0; c < ny; c++) {
      dst[c] += Js[c];
    }
    return;
  }
  for (int c = 0; c < ps->nv; c++) {
    double s = 0;
    for (int k = 0; k < ny; k++) {
      s += Js[k] * MBD_AT(ps->J, ny, k, c);
    }
    dst[c] += s;
  }
}

/* Φq row r += the local row J (over (Y1 | Y2)) through the bodies' pose Jacobians */
static void scatter_row(const mbd_model *m, mbd_data *d, int r, int b1, int b2, const double *J) {
  int bodies[2] = {b1, b2};
  size_t ld = (size_t)m->mrow;
  for (int side = 0; side < 2; side++) {
    const mbd_pose *ps = &d->pose[bodies[side]];
    if (ps->vadr < 0) {
      continue;
    }
    const double *Js = J + side * MBD_NY_MAX;
    if (mbd_sparse_on(d)) {
      scatter_row_sparse(d, r, side, ps, Js);
      continue;
    }
    int ny = ps->ny;
    double *row = d->phiq + (size_t)ps->vadr * ld + (size_t)r;  // Φq(r, vadr)
    if (!ps->J) {
      for (int c = 0; c < ny; c++) {
        row[(size_t)c * ld] += Js[c];
      }
      continue;
    }
    int nvb = ps->nv;  // the owning block (a node's is its flexible body's)
    for (int c = 0; c < nvb; c++) {
      double s = 0;
      for (int k = 0; k < ny; k++) {
        s += Js[k] * MBD_AT(ps->J, ny, k, c);
      }
      row[(size_t)c * ld] += s;
    }
  }
}

/* γ of row r gains −Φ_Y h of bodies whose pose has a quadratic term (Ÿ = J v̇ + h) */
static double gamma_pose_terms(const mbd_data *d, int b1, int b2, const double *J) {
  int bodies[2] = {b1, b2};
  double s = 0;
  for (int side = 0; side < 2; side++) {
    const mbd_pose *ps = &d->pose[bodies[side]];
    if (ps->vadr < 0 || !ps->J) {
      continue;
    }
    for (int k = 0; k < ps->ny; k++) {
      s -= J[side * MBD_NY_MAX + k] * ps->h[k];
    }
  }
  return s;
}

/* put_row's `all`: 0 γ alone (MBD_EVAL_GAMMA), ROWS_ALL everything, ROWS_POSITION Φ and Φq
 * without γ (MBD_EVAL_POSITION) */
#define ROWS_ALL 1
#define ROWS_POSITION 2

/* one local row into the global arrays */
static void put_row(const mbd_model *m, mbd_data *d, int r, int b1, int b2, const mbd_row *o,
                    double gamma, int all) {
  d->phi[r] = o->val;
  // rigid bodies in their own coordinates (J = I) have no quadratic term to add (a Newton
  // iteration, all = ROWS_POSITION, leaves γ to the update at the converged positions)
  if (all != ROWS_POSITION) {
    d->gamma[r] = (d->pose[b1].J || d->pose[b2].J) ? gamma + gamma_pose_terms(d, b1, b2, o->J)
                                                   : gamma + 0.0;
  }
  if (all) {
    double *rj = d->rowJ + (size_t)r * MBD_NLOC;
    for (int c = 0; c < MBD_NLOC; c++) {
      rj[c] = o->J[c];
    }
    scatter_row(m, d, r, b1, b2, o->J);
  }
}

/* a planar revolute joint between planar rigid bodies or the ground, in their own coordinates:
 * the two components of d = r2 + A2 s2' − r1 − A1 s1' written out — the rows of revolute2
 * (model/joint_types.c: mbd_vec_sep, planar_vec_add, ground_vec_add, mbd_row_comp) and put_row
 * with the same operations in the same order, so the results are the generic path's to the bit
 * (tests/engine/test_kinematics.c compares them).  The generic path builds 3×14 Jacobians of
 * spatial size and dispatches through the body kinds for each: five times the work of a planar
 * pendulum's joint, where the constraint stage was a third of an evaluation. */
typedef struct pvec {
  double v[2], h[2];
  double *J[2]; /* the two local rows (d->rowJ's, zeroed) */
} pvec;

static int planar_revolute_direct(const mbd_model *m, const mbd_data *d, const mbd_joint *j) {
  int k1 = m->body[j->body1].kind, k2 = m->body[j->body2].kind;
  return (k1 == MBD_BODY_RIGID2 || k1 == MBD_BODY_GROUND2) &&
         (k2 == MBD_BODY_RIGID2 || k2 == MBD_BODY_GROUND2) && !d->pose[j->body1].J &&
         !d->pose[j->body2].J;
}

/* planar_vec_add with point = 1 (rows 0 and 1), or ground_vec_add for the ground: the value and
 * Φq always, the quadratic term h unless `all` is ROWS_POSITION (γ waits for the converged
 * positions) */
static inline void pvec_add(const mbd_model *m, const mbd_data *d, int b, const double *a,
                            double sign, int side, int all, pvec *o) {
  if (m->body[b].kind == MBD_BODY_GROUND2) {
    for (int i = 0; i < 2; i++) {
      o->v[i] += sign * a[i];
    }
    return;
  }
  const mbd_pose *ps = &d->pose[b];
  const double *A = ps->A;
  double Aa[2] = {A[0] * a[0] + A[1] * a[1], A[3] * a[0] + A[4] * a[1]};
  double Ba[2] = {-Aa[1], Aa[0]};
  double w = ps->pd[0];
  int col = side * MBD_NY_MAX;
  for (int i = 0; i < 2; i++) {
    o->v[i] += sign * (Aa[i] + ps->r[i]);
    if (all != ROWS_POSITION) {
      o->h[i] += sign * -(Aa[i] * w * w);
    }
    o->J[i][col + i] += sign;
    o->J[i][col + 2] += sign * Ba[i];
  }
}

/* h alone (the γ pass: positions unchanged, Φ and Φq stand), pvec_add's operations for it */
static inline void pvec_add_h(const mbd_model *m, const mbd_data *d, int b, const double *a,
                              double sign, double *h) {
  if (m->body[b].kind == MBD_BODY_GROUND2) {
    return;
  }
  const mbd_pose *ps = &d->pose[b];
  const double *A = ps->A;
  double Aa[2] = {A[0] * a[0] + A[1] * a[1], A[3] * a[0] + A[4] * a[1]};
  double w = ps->pd[0];
  for (int i = 0; i < 2; i++) {
    h[i] += sign * -(Aa[i] * w * w);
  }
}

static void planar_revolute_rows(const mbd_model *m, mbd_data *d, const mbd_joint *j, int all) {
  if (!all) {
    double h[2] = {0, 0};
    pvec_add_h(m, d, j->body2, j->at2, 1, h);
    pvec_add_h(m, d, j->body1, j->at1, -1, h);
    d->gamma[j->row0] = -h[0] + 0.0;
    d->gamma[j->row0 + 1] = -h[1] + 0.0;
    return;
  }
  // the local rows accumulate in place (rowJ, zeroed: the additions of the generic path)
  double *rj = d->rowJ + (size_t)j->row0 * MBD_NLOC;
  memset(rj, 0, 2 * MBD_NLOC * sizeof(double));
  pvec o = {.v = {0, 0}, .h = {0, 0}, .J = {rj, rj + MBD_NLOC}};
  pvec_add(m, d, j->body2, j->at2, 1, 1, all, &o);
  pvec_add(m, d, j->body1, j->at1, -1, 0, all, &o);
  for (int k = 0; k < 2; k++) {
    int r = j->row0 + k;
    d->phi[r] = o.v[k];
    if (all != ROWS_POSITION) {
      d->gamma[r] = -o.h[k] + 0.0;
    }
    // (scatter_row: the dense Φq or the sparse form, the same additions in the same order; the
    // sparse form's three columns of a planar rigid body written here, without the dispatch)
    if (!mbd_sparse_on(d)) {
      scatter_row(m, d, r, j->body1, j->body2, o.J[k]);
      continue;
    }
    const mbd_sparse *sp = d->sp;
    int bodies[2] = {j->body1, j->body2};
    for (int side = 0; side < 2; side++) {
      const mbd_pose *ps = &d->pose[bodies[side]];
      if (ps->vadr < 0) {
        continue;
      }
      double *dst =
          sp->val + sp->rp[r] + sp->soff[2 * r + side] + (ps->vadr - sp->scol[2 * r + side]);
      const double *Js = o.J[k] + side * MBD_NY_MAX;
      dst[0] += Js[0];
      dst[1] += Js[1];
      dst[2] += Js[2];
    }
  }
}

int mbd_constraints_eval(const mbd_model *m, mbd_data *d, int flags, mbd_error *err) {
  if (m->eqs) {
    return m->eqs->rows(m->eqs->ud, m, d, flags, err);  // generated equations (paper 002)
  }
  // MBD_EVAL_GAMMA: q unchanged since the last evaluation, only v moved — Φ, Φq and Φt stand,
  // γ is recomputed (the local rows are formed again, but not scattered).  MBD_EVAL_POSITION: a
  // Newton iteration — Φ, Φq and Φt without γ and what only γ needs (a contact's moving-point
  // terms); the update that follows at the converged positions computes them
  int all = flags == MBD_EVAL_GAMMA ? 0 : flags == MBD_EVAL_POSITION ? ROWS_POSITION : ROWS_ALL;
  if (all) {
    if (mbd_sparse_on(d)) {
      memset(d->sp->val, 0, (size_t)d->sp->nnz * sizeof(double));
    } else {
      memset(d->phiq, 0, (size_t)m->mrow * m->nv * sizeof(double));
    }
    memset(d->phit, 0, (size_t)m->mrow * sizeof(double));
  }
  int dx = MBD_DIMX(m);
  // joints: their type's equations
  for (int ji = 0; ji < m->njoint; ji++) {
    const mbd_joint *j = &m->joint[ji];
    // a planar joint of coincident points (its rows d's two components: the revolute)
    if (dx == 0 && j->nrow == 2 && mbd_joint_types[j->type].row[0][1].op == MBD_JR_COMP &&
        d->direct_rows && planar_revolute_direct(m, d, j)) {
      planar_revolute_rows(m, d, j, all);
      continue;
    }
    const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
    mbd_row rows[MBD_JOINT_MAXROW];
    if (j->nrow > 0) {  // a joint of a spanning tree has no rows (its coordinates hold it)
      mbd_joint_rows(m, d, ji, rows);
    }
    for (int k = 0; k < j->nrow; k++) {
      put_row(m, d, j->row0 + k, j->body1, j->body2, &rows[k], -rows[k].h, all);
    }
    // a spatial relative angle is continuous along the motion: its memo follows every
    // evaluation (consecutive evaluations never turn a joint by π)
    if (dx == 1 && jt->angle_coord[1] >= 0) {
      d->angle_memo[ji] = mbd_joint_angle_value(m, d, ji);
    }
  }
  // drives: coordinate(q) − f(t) = 0; Φt = −f'; γ = f'' − quadratic part of the coordinate
  for (int di = 0; di < m->ndrive; di++) {
    const mbd_drive *dr = &m->drive[di];
    const mbd_joint *j = &m->joint[dr->joint];
    // a function of time: asked once per time (a Lua function is not called again for the
    // Newton iterations and the γ pass of one evaluation)
    double *f = d->drive_f + 3 * di;
    if (d->drive_t[di] != d->t) {
      f[0] = f[1] = f[2] = 0;
      d->drive_t[di] = NAN;
      int rc = dr->fn(dr->ud, d->t, f, err);
      if (rc < 0) {
        return rc;
      }
      if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
        return MBD_FAIL(err, MBD_E_NAN, MSG_KIN_DRIVE_VALUE, j->name, f[0], d->t);
      }
      d->drive_t[di] = d->t;
    }
    mbd_row o;
    mbd_joint_coord_row(m, d, dr->joint, dr->coord, &o);
    double coord = o.val;
    put_row(m, d, dr->row, j->body1, j->body2, &o, f[2] - o.h, all);
    // a spatial angle drive compares modulo 2π: θ(q) is only known up to turns, f(t) may be any
    d->phi[dr->row] =
        (dx == 1 && dr->coord == MBD_COORD_ANGLE) ? remainder(coord - f[0], 2 * M_PI) : coord - f[0];
    d->phit[dr->row] = -f[1];
  }
  // contacts (paper 001): the gap row and the rolling rows over the two surfaces' bodies; a row
  // the contact's mode disables is a zero row (no equation, no force, no violation)
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    mbd_row rows[3];
    int rc = mbd_contact_rows(m, d, c, all != ROWS_POSITION, rows, err);
    if (rc < 0) {
      return rc;
    }
    for (int k = 0; k <= ct->nroll; k++) {
      int r = ct->row0 + k;
      if (mbd_contact_row_enabled(m, d, r)) {
        put_row(m, d, r, ct->b1, ct->b2, &rows[k], -rows[k].h, all);
      } else {
        d->phi[r] = d->gamma[r] = 0;
        if (all) {
          memset(d->rowJ + (size_t)r * MBD_NLOC, 0, MBD_NLOC * sizeof(double));
        }
      }
    }
  }
  // frictional joints: the lock of the joint coordinate's rate (velocity level, while sticking)
  for (int k = 0; k < m->njfric; k++) {
    const mbd_joint *j = &m->joint[m->jfric[k].joint];
    int r = m->jfric[k].row;
    mbd_row o;
    mbd_jfric_row(m, d, k, &o);
    if (mbd_contact_row_enabled(m, d, r)) {
      put_row(m, d, r, j->body1, j->body2, &o, -o.h, all);
    } else {
      d->phi[r] = d->gamma[r] = 0;
      if (all) {
        memset(d->rowJ + (size_t)r * MBD_NLOC, 0, MBD_NLOC * sizeof(double));
      }
    }
  }
  // normalization rows of the blocks: spatial Euler parameters pᵀp − 1 = 0, Φq = 2pᵀ, γ = −2ṗᵀṗ
  // (a tree joint's Euler parameters alike, at their own address: q̇ = v there)
  for (int r = 0; r < m->mrow; r++) {
    if (m->row[r].owner != MBD_ROW_BODY && m->row[r].owner != MBD_ROW_TREE) {
      continue;
    }
    int qa = m->row[r].index, va = qa;
    if (m->row[r].owner == MBD_ROW_BODY) {
      const mbd_block *bl = &m->block[m->body[m->row[r].index].block];
      qa = bl->qadr + 3;
      va = bl->vadr + 3;
    }
    const double *p = d->q + qa, *pd = d->v + va;
    d->phi[r] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1;
    if (all != ROWS_POSITION) {
      d->gamma[r] = -2 * (pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2] + pd[3] * pd[3]);
    }
    if (all && mbd_sparse_on(d)) {
      for (int k = 0; k < 4; k++) {
        d->sp->val[d->sp->rp[r] + k] = 2 * p[k];
      }
    } else if (all) {
      for (int k = 0; k < 4; k++) {
        MBD_AT(d->phiq, m->mrow, r, va + k) = 2 * p[k];
      }
    }
  }
  return MBD_OK;
}

/* whether the active rows are all rows in their order (nothing set aside, no contact mode
 * disabling one): the gathered copies are then plain copies */
static int all_active(const mbd_model *m, const mbd_data *d) {
  if (d->ma != m->mrow) {
    return 0;
  }
  for (int k = 0; k < d->ma; k++) {
    if (d->active[k] != k) {
      return 0;
    }
  }
  return 1;
}

/* a recursive tree model's norm rows (rows of the tree block) in the active copy, all rows
 * active in their order and never held otherwise (phiq_a_mixed): each its four entries (2pᵀ; the rest of its row
 * is zero in both arrays, no other row ever having held its place), every other row whole */
static int gather_norms(const mbd_model *m, mbd_data *d) {
  if (!m->tree || !m->tree->recursive || d->phiq_a_mixed) {
    return 0;
  }
  int mrow = m->mrow;
  if (m->tree->norms_implicit && !d->dense_ready) {
    return 1;  // (the rows' entries are not in Φq yet: tree_impl.h)
  }
  for (int r = 0; r < mrow; r++) {
    if (m->row[r].owner == MBD_ROW_TREE) {
      int a = m->row[r].index;
      for (int k = 0; k < 4; k++) {
        MBD_AT(d->phiq_a, mrow, r, a + k) = MBD_AT(d->phiq, mrow, r, a + k);
      }
      continue;
    }
    for (int c = 0; c < m->nv; c++) {
      MBD_AT(d->phiq_a, mrow, r, c) = MBD_AT(d->phiq, mrow, r, c);
    }
  }
  return 1;
}

void mbd_constraints_gather(const mbd_model *m, mbd_data *d) {
  size_t ma = (size_t)d->ma;
  if (all_active(m, d)) {
    memcpy(d->phi_a, d->phi, ma * sizeof(double));
    memcpy(d->gamma_a, d->gamma, ma * sizeof(double));
    memcpy(d->phit_a, d->phit, ma * sizeof(double));
    if (!mbd_sparse_on(d) && !gather_norms(m, d)) {  // (the sparse form's rows: d->active)
      memcpy(d->phiq_a, d->phiq, ma * (size_t)m->nv * sizeof(double));
    }
    return;
  }
  d->phiq_a_mixed = 1;
  for (int k = 0; k < d->ma; k++) {
    int r = d->active[k];
    d->phi_a[k] = d->phi[r];
    d->gamma_a[k] = d->gamma[r];
    d->phit_a[k] = d->phit[r];
  }
  if (mbd_sparse_on(d)) {
    return;  // the formulations read the active rows of the sparse form through d->active
  }
  // column by column: both matrices are column-major, so the inner loop runs down a column
  for (int c = 0; c < m->nv; c++) {
    const double *src = d->phiq + (size_t)c * m->mrow;
    double *dst = d->phiq_a + (size_t)c * d->ma;
    for (int k = 0; k < d->ma; k++) {
      dst[k] = src[d->active[k]];
    }
  }
}

/* the violation measures look at every row, also those the rank test set aside: a row that was
 * redundant at the assembled pose is implied by the others only on that branch of the motion */
double mbd_position_violation(const mbd_model *m, const mbd_data *d) {
  double v = 0;
  for (int r = 0; r < m->mrow; r++) {
    double a = m->row[r].level == MBD_ROW_POSITION ? fabs(d->phi[r]) : 0;
    v = a > v ? a : v;
  }
  return v;
}

double mbd_velocity_violation(const mbd_model *m, const mbd_data *d) {
  double v = 0;
  if (mbd_sparse_on(d)) {
    for (int r = 0; r < m->mrow; r++) {
      double s = d->phit[r] + mbd_sparse_row_dot(d, r, d->v);
      v = fabs(s) > v ? fabs(s) : v;
    }
    return v;
  }
  for (int r = 0; r < m->mrow; r++) {
    double s = d->phit[r];
    for (int c = 0; c < m->nv; c++) {
      s += MBD_AT(d->phiq, m->mrow, r, c) * d->v[c];
    }
    v = fabs(s) > v ? fabs(s) : v;
  }
  return v;
}

double mbd_active_residual(const mbd_model *m, const mbd_data *d) {
  (void)m;
  double v = 0;
  for (int k = 0; k < d->ma; k++) {
    double a = fabs(d->phi_a[k]);
    v = a > v ? a : v;
  }
  return v;
}

/* ------------------------------------------------------------------------------------------ */
/* the sparse form (model_impl.h, mbd_sparse)                                                  */

double mbd_sparse_row_dot(const mbd_data *d, int r, const double *x) {
  const mbd_sparse *sp = d->sp;
  double s = 0;
  for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
    s += sp->val[e] * x[sp->ci[e]];
  }
  return s;
}

void mbd_sparse_densify(const mbd_model *m, mbd_data *d) {
  const mbd_sparse *sp = d->sp;
  memset(d->phiq, 0, (size_t)m->mrow * m->nv * sizeof(double));
  for (int r = 0; r < m->mrow; r++) {
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      MBD_AT(d->phiq, m->mrow, r, sp->ci[e]) = sp->val[e];
    }
  }
  memset(d->phiq_a, 0, (size_t)d->ma * m->nv * sizeof(double));
  for (int k = 0; k < d->ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      MBD_AT(d->phiq_a, d->ma, k, sp->ci[e]) = sp->val[e];
    }
  }
}

void mbd_sparse_set(const mbd_model *m, mbd_data *d, int on) {
  if (!d->sp || d->sp->on == on) {
    return;
  }
  if (!on) {
    // the dense arrays take over where the sparse form stands (rows evaluated)
    mbd_sparse_densify(m, d);
  } else {
    mbd_stage_touch(d, MBD_STAGE_NONE);  // the sparse values were not written while it was off
  }
  d->sp->on = on;
}
