/* coordinate partitioning shared by "gcp" and "kane" (paper 000 eq 10–13, 14–23; paper 001 eq 29)
 *
 * QR with column pivoting of Φq (in place of LU with complete pivoting) puts the best-conditioned
 * m columns first: those coordinates are dependent (q_d), the other f = n − m independent (q_i).
 * Only q_i and v_i are integrated.  At every evaluation:
 *   position analysis  Φ_qd Δq_d = −Φ            (Newton–Raphson, eq 10–11, tolerance ε_pos)
 *   velocity analysis  Φ_qd v_d = −Φt − Φ_qi v_i  (eq 12)
 * with one LU of Φ_qd per Newton iteration (the sparse form keeps the last one while Φ_qd's
 * values stay as they were: a planar chain's dependent x and y have columns of ±1).  The pivot
 * ratio min|U_kk|/max|U_kk| of Φ_qd is watched: once it has lost half its value at partition
 * time, the columns QR would choose now are tried after each accepted step, and a clearly better
 * choice re-partitions and restarts the integrator from the new independent coordinates.
 * Partitioning needs blocks with q̇ = v.
 *
 * Velocity-level rows (a rolling contact, paper 001 eq 18–19) constrain velocities, not
 * positions: then the position analysis runs on the position rows alone with their own
 * partition (pperm, mp dependent positions), the velocity analysis on all active rows (perm, ma
 * dependent velocities), and y = [q_i; v_i] has n − mp positions and n − ma velocities.  Without
 * such rows the two partitions are one. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kinematics/kinematics_msg.h"
#include "formulations.h"
#include "formulations_msg.h"

/* a dependent block whose pivot ratio is below this is near a singular configuration: the
 * position analysis refines its coordinates beyond position_tol there (mbd_part_state) */
#define PART_ILL_RATIO 1e-3
/* the window of a singular configuration (mbd_part_windowed): below PART_WINDOW_REL of σ_min /
 * σ_max of Φq the partitioned accelerations carry round-off amplified about as ε/σ³ (the
 * dependent positions ε/σ, their velocities ε/σ², the solve once more) — 4e-9 of their size at
 * 3e-3 — and an integrator whose step lands there creeps; the dependent block's pivot ratio below
 * PART_WINDOW_PRE sends an evaluation to the test; models above PART_WINDOW_MAX_NV coordinates
 * have no window (its SVD costs O(n³)) */
#define PART_WINDOW_REL 1e-3
#define PART_WINDOW_PRE 0.05
#define PART_WINDOW_MAX_NV 300
/* a flexible body's modal coordinates are dependent only where the other coordinates cannot
 * make Φ_qd: the choice's QR scales their columns by this (a modal column of a node's rows has
 * entries of order 1: modes are scaled to a largest nodal translation of 1 m).  Error control sees
 * only y = [q_i; v_i]; a modal coordinate computed from rigid ones (paper 003's robot: arm2.a1 and
 * arm3.a2 from payload.x and payload.y) has its vibration, millimetres, carried on coordinates of
 * metres, and the integrator's tolerance rtol·|q_i| leaves it uncontrolled: kane's and gcp's end
 * effector was 15 mm off at 5 s at rtol 1e-7, 1e-8 m off with the modal coordinates independent.
 * A rigid column left below 1e-3 of its size by the QR's earlier picks (near a singular
 * configuration of the rigid coordinates) loses to a modal one: that block is better conditioned */
#define PART_MODAL_WEIGHT 1e-3

void mbd_part_free(mbd_part *p) {
  if (!p) {
    return;
  }
  void *ps[] = {p->perm, p->perm_old, p->jd,   p->jd_cand, p->jpiv,      p->x,    p->B,
                p->K,    p->r,        p->kpiv, p->pperm,   p->pperm_old, p->prow, p->phiq_p,
                p->jp,   p->jppiv,    p->wy,   p->wv,      p->wq,      p->modw};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&p->wlsq);
  free(p);
}

/* a flexible body with its own block (not one of its nodes) */
static int is_flex(const mbd_body *b) {
  return b->block >= 0 && (b->kind == MBD_BODY_FLEX2 || b->kind == MBD_BODY_FLEX3);
}

int mbd_part_alloc(mbd_part **out, const mbd_model *m, const mbd_data *d, const mbd_sim_opts *o,
                   mbd_error *err) {
  *out = NULL;
  if (m->nqi != m->nv) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_PART_COORDS, m->name, m->nqi, m->nv);
  }
  mbd_part *p = calloc(1, sizeof *p);
  if (!p) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "partitioning");
  }
  p->n = m->nv;
  p->ma = d->ma;
  p->f = m->nv - d->ma;
  p->position_tol = o->position_tol;
  const char *keep = getenv("MBD_PART_KEEP");
  p->keep = !(keep && strcmp(keep, "0") == 0);
  p->max_newton = o->max_newton;
  // rounding level of the coordinates: 8 ε of the largest assembled one (1 m → 2e-15 m)
  double qmax = 1;
  for (int i = 0; i < m->nq; i++) {
    qmax = fmax(qmax, fabs(m->q_asm[i]));
  }
  p->q_round = 8 * DBL_EPSILON * qmax;
  // sized for every active set a run may take (contacts change it at their events)
  size_t n = (size_t)(p->n ? p->n : 1), ma = (size_t)(m->mrow ? m->mrow : 1), f = n;
  p->perm = calloc(n, sizeof(int));
  p->perm_old = calloc(n, sizeof(int));
  p->jd = calloc(ma * ma, sizeof(double));
  p->jd_cand = calloc(ma * ma, sizeof(double));
  p->jpiv = calloc(ma, sizeof(int));
  p->x = calloc(ma * f, sizeof(double));
  p->B = calloc(n * f, sizeof(double));
  p->K = calloc(n * n, sizeof(double));
  p->r = calloc(n, sizeof(double));
  p->kpiv = calloc(n, sizeof(int));
  p->pperm = calloc(n, sizeof(int));
  p->pperm_old = calloc(n, sizeof(int));
  p->prow = calloc(ma, sizeof(int));
  p->phiq_p = calloc(ma * n, sizeof(double));
  p->jp = calloc(ma * ma, sizeof(double));
  p->jppiv = calloc(ma, sizeof(int));
  // the window of a singular configuration (mbd_part_windowed): two shifted states and their
  // accelerations, and an SVD of Φq (models of up to PART_WINDOW_MAX_NV coordinates)
  // the coordinates' kinds for the choice: modal columns weighted down (PART_MODAL_WEIGHT)
  int nmodal = 0;
  for (int b = 0; b < m->nbody; b++) {
    nmodal += is_flex(&m->body[b]) ? m->body[b].nmode : 0;
  }
  if (nmodal > 0) {
    p->modw = malloc(n * sizeof(double));
    if (p->modw) {
      for (int c = 0; c < p->n; c++) {
        p->modw[c] = 1;
      }
      for (int b = 0; b < m->nbody; b++) {
        const mbd_body *bd = &m->body[b];
        if (is_flex(bd) && bd->nmode > 0) {
          // the modes are the last coordinates of the body's block
          const mbd_block *bl = &m->block[bd->block];
          for (int k = bl->nv - bd->nmode; k < bl->nv; k++) {
            p->modw[bl->vadr + k] = PART_MODAL_WEIGHT;
          }
        }
      }
    }
  }
  int window = m->nv <= PART_WINDOW_MAX_NV;
  p->wy = window ? calloc(3 * n + 2, sizeof(double)) : NULL;
  p->wv = window ? calloc(2 * n + 2, sizeof(double)) : NULL;
  p->wq = window ? calloc((size_t)m->nq + 2 * n + 2, sizeof(double)) : NULL;
  int wlsq = window ? mbd_lsq_alloc(&p->wlsq, ma > n ? ma : n, ma > n ? ma : n, err) : MBD_OK;
  if (!p->perm || !p->perm_old || !p->jd || !p->jd_cand || !p->jpiv || !p->x || !p->B || !p->K ||
      !p->r || !p->kpiv || !p->pperm || !p->pperm_old || !p->prow || !p->phiq_p || !p->jp ||
      !p->jppiv || (nmodal > 0 && !p->modw) || (window && (!p->wy || !p->wv || !p->wq || wlsq != MBD_OK))) {
    mbd_part_free(p);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "partitioning");
  }
  *out = p;
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the sparse form: Φ_qd in compressed columns for KLU                                         */

/* Φ_qd's pattern for the partition and the active rows of d (its arrays are the data's: a sample
 * keeps its own factorization), its maps and symbolic analysis */
static int sparse_jd_pattern(mbd_part *p, mbd_data *d, mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int ma = p->ma;
  for (int c = 0; c < p->n; c++) {
    sp->jcol[c] = -1;
  }
  for (int k = 0; k < ma; k++) {
    sp->jcol[p->perm[k]] = k;
  }
  int *next = d->iwork;
  memset(next, 0, (size_t)(ma + 1) * sizeof(int));
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      if (sp->jcol[sp->ci[e]] >= 0) {
        next[sp->jcol[sp->ci[e]]]++;
      }
    }
  }
  sp->jp[0] = 0;
  for (int c = 0; c < ma; c++) {
    sp->jp[c + 1] = sp->jp[c] + next[c];
    next[c] = sp->jp[c];
  }
  for (int e = 0; e < sp->nnz; e++) {
    sp->jmap[e] = -1;
  }
  // rows increasing within each column: the active rows in order
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      int c = sp->jcol[sp->ci[e]];
      if (c >= 0) {
        int q = next[c]++;
        sp->ji[q] = k;
        sp->jmap[e] = q;
        sp->jsrc[q] = e;
      }
    }
  }
  // the entries in independent columns, row by row (in the rows' order)
  int t = 0;
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    sp->jip[k] = t;
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      if (sp->jcol[sp->ci[e]] < 0) {
        sp->jie[t++] = e;
      }
    }
  }
  sp->jip[ma] = t;
  sp->jma = -1;
  sp->jok = 0;
  int rc = mbd_splu_analyze(sp->jlu, ma, sp->jp, sp->ji, 1, err);
  if (rc < 0) {
    return rc;
  }
  sp->jma = ma;
  sp->jpid = p->pid;
  memcpy(sp->jact, d->active, (size_t)ma * sizeof(int));
  if (d == p->solver.d) {
    p->solver.analyses++;  // (the integration's)
  }
  return MBD_OK;
}

/* Φ_qd of the sparse form factored: 0, the pivot (1-based dependent column), < 0; the pivot
 * ratio in *ratio (one row: its pivot against the row's largest entry, as pivot_ratio below) */
static int sparse_factor_jd(mbd_part *p, mbd_data *d, double *ratio, mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int ma = p->ma;
  // a new partition, or the active rows changed under it (re-selected by the augmented solve)
  if (sp->jpid != p->pid || sp->jma != ma ||
      memcmp(sp->jact, d->active, (size_t)ma * sizeof(int)) != 0) {
    int rc = sparse_jd_pattern(p, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  // the values into jx; a block unchanged since its factorization (the chain's x, y columns of
  // revolute joints: ±1 at every state) keeps its factors, the same numbers a factorization
  // would give again (not for a sample's data: every factorization there pivots anew)
  int same = p->keep && sp->jok && !sp->fresh_pivots;
  double hi = 0;
  int q = 0, nq = sp->jp[ma];
  for (; same && q < nq && sp->jx[q] == sp->val[sp->jsrc[q]]; q++) {
  }
  same = same && q == nq;
  for (; q < nq; q++) {
    sp->jx[q] = sp->val[sp->jsrc[q]];
  }
  if (ma == 1) {
    int r = d->active[0];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      hi = fmax(hi, fabs(sp->val[e]));
    }
  }
  if (same) {
    *ratio = ma == 1 ? (hi > 0 ? fabs(sp->jx[0]) / hi : 0) : sp->jratio;
    return 0;
  }
  sp->jok = 0;
  d->lu_factorizations++;
  int piv = mbd_splu_factor(sp->jlu, sp->jx, !sp->fresh_pivots, ratio, NULL);
  if (piv == MBD_E_NOMEM) {
    return MBD_FAIL(err, piv, MSG_FORM_NOMEM, "dependent block");
  }
  if (piv < 0) {
    return MBD_FAIL(err, piv, MSG_FORM_LAPACK, "dependent block", d->t);
  }
  if (ma == 1) {
    *ratio = hi > 0 ? fabs(sp->jx[0]) / hi : 0;
  }
  sp->jok = piv == 0;
  sp->jratio = *ratio;
  return piv;
}

/* copy Φ_qd (dependent columns of the active rows) into jd and factor it; 0, the pivot, or
 * MBD_E_LAPACK.  A sample leaves the watched pivot ratio as it is.  The sparse form: KLU's
 * factorization (its pivot ratio in p->sratio). */
static int factor_jd(mbd_part *p, mbd_data *d, int flags, mbd_error *err) {
  int ma = p->ma;
  if (mbd_sparse_on(d)) {
    if (!(flags & MBD_DERIV_SAMPLE)) {
      p->rcond = 0;
    }
    double ratio = 0;
    int piv = sparse_factor_jd(p, d, &ratio, err);
    p->sratio = ratio;
    return piv;
  }
  for (int c = 0; c < ma; c++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->jd, ma, r, c) = MBD_AT(d->phiq_a, ma, r, p->perm[c]);
    }
  }
  int piv = mbd_lu_factor(ma, p->jd, ma, p->jpiv);
  d->lu_factorizations++;
  if (!(flags & MBD_DERIV_SAMPLE)) {
    p->rcond = 0;
  }
  return piv;
}

/* the position rows among the active ones (velocity rows active): their places and Jacobian
 * rows gathered, Φ_p at the dependent positions copied into jp and factored; 0, the pivot, or
 * MBD_E_LAPACK */
static void gather_p(mbd_part *p, const mbd_model *m, const mbd_data *d) {
  int mp = 0;
  for (int k = 0; k < d->ma; k++) {
    if (m->row[d->active[k]].level == MBD_ROW_POSITION) {
      p->prow[mp++] = k;
    }
  }
  p->mp = mp;
  for (int c = 0; c < p->n; c++) {
    for (int i = 0; i < mp; i++) {
      MBD_AT(p->phiq_p, mp, i, c) = MBD_AT(d->phiq_a, d->ma, p->prow[i], c);
    }
  }
}

static int factor_jp(mbd_part *p, const mbd_model *m, mbd_data *d) {
  gather_p(p, m, d);
  int mp = p->mp;
  for (int c = 0; c < mp; c++) {
    for (int r = 0; r < mp; r++) {
      MBD_AT(p->jp, mp, r, c) = MBD_AT(p->phiq_p, mp, r, p->pperm[c]);
    }
  }
  int piv = mbd_lu_factor(mp, p->jp, mp, p->jppiv);
  d->lu_factorizations++;
  return piv;
}

/* the pivot ratio of a factored ma×ma block: min |U_kk| / max |U_kk|, O(m) (the pivot quality the
 * paper's full-pivoting LU watches; dgecon's estimate cost 6% of a run) */
static double pivot_ratio(const double *lu, int ma, const mbd_data *d, int n) {
  // one row: the ratio of a 1×1 block is always 1; measure its pivot against the row's largest
  // entry instead (a free body's norm row 2pᵀ, a spherical joint's 2eᵀ: the dependent parameter
  // passing zero must re-partition)
  if (ma == 1) {
    double hi = 0;
    for (int c = 0; c < n; c++) {
      hi = fmax(hi, fabs(d->phiq_a[c]));
    }
    return hi > 0 ? fabs(lu[0]) / hi : 0;
  }
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < ma; k++) {
    double u = fabs(MBD_AT(lu, ma, k, k));
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  return ma ? (hi > 0 ? lo / hi : 0) : 1.0;
}

/* sort a[lo..hi) in increasing order (insertion: a few dozen entries) */
static void sort_ints(int *a, int lo, int hi) {
  for (int i = lo + 1; i < hi; i++) {
    int v = a[i], k = i;
    while (k > lo && a[k - 1] > v) {
      a[k] = a[k - 1];
      k--;
    }
    a[k] = v;
  }
}

/* a large model's partition in the sparse form: QR with column pivoting costs O(ma² n) (2 s for a
 * chain of 1024 links, at the start of every run); from this many of its operations on, the
 * dependent coordinates are the pivot rows of a sparse LU with partial pivoting of Φqᵀ (each
 * constraint's largest coefficient among the coordinates left), O(nnz) for chains.  A different
 * choice from the QR's (as good for the pivot watch that follows it), so runs of such models do
 * not repeat the dense solve's partition */
#define PART_SPARSE_CHOICE 1e9

/* the dependent coordinates of the sparse form by UMFPACK's partial pivoting on Φqᵀ (its columns
 * the active rows): perm filled, 0; 1 when its pivots are too small to trust (rank-deficient or
 * nearly: the QR decides), < 0 with err */
static int sparse_choice(mbd_part *p, mbd_data *d, mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int ma = p->ma, nz = 0;
  // Φqᵀ in compressed columns: the active rows of the sparse form as they are (the dependent
  // block's arrays serve as scratch: the new partition makes them again)
  sp->jok = 0;
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    sp->jp[k] = nz;
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      sp->ji[nz] = sp->ci[e];
      sp->jx[nz++] = sp->val[e] * (p->modw ? p->modw[sp->ci[e]] : 1);
    }
  }
  sp->jp[ma] = nz;
  double ratio = 0;
  int rc = mbd_sparse_pivot_rows(p->n, ma, sp->jp, sp->ji, sp->jx, p->perm, &ratio, err);
  if (rc < 0) {
    return rc;
  }
  return ratio < 1e-10 ? 1 : 0;
}

/* choose the partition from Φq at the current state (constraints evaluated and gathered) */
int mbd_part_choose(mbd_part *p, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int rank = 0;
  // the active set may have changed since the last choice (contact events)
  p->ma = d->ma;
  p->f = p->n - d->ma;
  // the sparse form: a large model's choice by sparse LU, else Φq's active rows densely for the QR
  // (a partition is chosen at the start and where the dependent block degrades; the sparse form
  // has no velocity-level rows)
  int sparse = mbd_sparse_on(d), chosen = 0, rc = 0;
  if (sparse && (double)p->ma * p->ma * p->n >= PART_SPARSE_CHOICE) {
    rc = sparse_choice(p, d, err);
    if (rc < 0) {
      return rc;
    }
    chosen = rc == 0;
  }
  if (!chosen && (rc = mbd_data_dense(m, d, err)) < 0) {
    return rc;
  }
  if (sparse && !chosen) {
    mbd_sparse_densify(m, d);
  }
  if (sparse) {
    p->mp = p->ma;  // no velocity-level rows: one partition
  } else {
    gather_p(p, m, d);
  }
  p->sep = p->mp < p->ma;
  p->fp = p->n - p->mp;
  // QR with column pivoting of Φq (ma × n): the first ma pivot columns are the dependent ones;
  // with column weights (colw) of the columns scaled by them
  const double *J = d->phiq_a;
  if (!chosen && (p->colw || p->modw)) {
    for (int c = 0; c < p->n; c++) {
      double w = (p->colw ? p->colw[c] : 1) * (p->modw ? p->modw[c] : 1);
      for (int r = 0; r < p->ma; r++) {
        MBD_AT(d->aug, p->ma, r, c) = MBD_AT(d->phiq_a, p->ma, r, c) * w;
      }
    }
    J = d->aug;
  }
  if (!chosen) {
    rc = mbd_qrcp_rank(&d->lsq, p->ma, p->n, J, p->ma, 1e-10, p->perm, &rank, NULL);
    if (rc < 0) {
      return MBD_FAIL(err, rc, MSG_KIN_QR, "partitioning", d->t);
    }
    if (rank < p->ma) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_PART_RANK, d->t, rank, p->ma);
    }
  }
  // dependent and independent columns each in increasing coordinate order (readable, stable)
  sort_ints(p->perm, 0, p->ma);
  sort_ints(p->perm, p->ma, p->n);
  p->pid++;  // a new partition: the sparse Φ_qd's pattern made and analysed again
  if (sparse) {
    d->sp->jok = 0;
  }
  int piv = factor_jd(p, d, 0, err);
  if (piv < 0 && sparse) {
    return piv;
  }
  if (piv != 0) {
    return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_PART_DEPENDENT, d->t);
  }
  // the positions' own partition: QR with column pivoting of the position rows
  if (p->sep) {
    rc = mbd_qrcp_rank(&d->lsq, p->mp, p->n, p->phiq_p, p->mp, 1e-10, p->pperm, &rank, NULL);
    if (rc < 0) {
      return MBD_FAIL(err, rc, MSG_KIN_QR, "partitioning", d->t);
    }
    if (rank < p->mp) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_PART_RANK, d->t, rank, p->mp);
    }
    sort_ints(p->pperm, 0, p->mp);
    sort_ints(p->pperm, p->mp, p->n);
    piv = factor_jp(p, m, d);
    if (piv != 0) {
      return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_PART_DEPENDENT, d->t);
    }
  } else {
    memcpy(p->pperm, p->perm, (size_t)p->n * sizeof(int));
  }
  p->rcond = sparse ? p->sratio : pivot_ratio(p->jd, p->ma, d, p->n);
  p->rcond0 = p->rcond;
  p->degraded = 0;
  return MBD_OK;
}

/* y = [q_i; v_i] from the full state */
void mbd_part_pack(const mbd_part *p, const mbd_data *d, double *y) {
  for (int k = 0; k < p->fp; k++) {
    y[k] = d->q[p->pperm[p->mp + k]];
  }
  for (int k = 0; k < p->f; k++) {
    y[p->fp + k] = d->v[p->perm[p->ma + k]];
  }
}

/* full state (q, v, Φ, Φq, γ gathered) from y = [q_i; v_i] at t: position analysis on q_d
 * (Newton, eq 10–11) then velocity analysis (eq 12).  Returns 0, > 0 when Newton failed or the
 * dependent block is singular (the integrator retries with a smaller step; err holds why), or
 * < 0 on a hard error. */
int mbd_part_state(mbd_part *p, const mbd_model *m, mbd_data *d, double t, const double *y,
                   int flags, mbd_error *err) {
  int ma = p->ma, f = p->f, mp = p->mp, fp = p->fp;
  // predictor: a second-order Taylor step of the dependent coordinates to the new time
  double dt = t - d->t;
  for (int k = 0; k < mp; k++) {
    d->q[p->pperm[k]] += dt * d->v[p->pperm[k]] + 0.5 * dt * dt * d->vdot[p->pperm[k]];
  }
  d->t = t;
  for (int k = 0; k < fp; k++) {
    d->q[p->pperm[mp + k]] = y[k];
  }
  for (int k = 0; k < f; k++) {
    d->v[p->perm[ma + k]] = y[fp + k];
  }
  mbd_stage_touch(d, MBD_STAGE_NONE);
  double res = 0, res_prev = INFINITY, step = INFINITY, step_prev = INFINITY;
  // the dense jd's pivot ratio at its last factorization, when the convergence test took it
  // (the watch below reads the same factors), or −1
  double jd_ratio = -1;
  for (int it = 0;; it++) {
    jd_ratio = -1;
    // the rows alone (γ follows once, at the converged positions and the new velocities)
    int rc = mbd_eval_to(m, d, MBD_STAGE_POSITION, err);
    if (rc < 0) {
      return rc;
    }
    res = mbd_active_residual(m, d);
    int piv = p->sep ? factor_jp(p, m, d) : factor_jd(p, d, flags, err);
    if (piv < 0) {
      return mbd_sparse_on(d) ? piv : MBD_FAIL(err, piv, MSG_FORM_LAPACK, "dependent block", t);
    }
    if (piv != 0) {
      char what[96];
      mbd_model_coord_name(m, p->pperm[piv - 1], what, sizeof what);
      MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_PART_POS_SINGULAR, t, what);
      return 1;
    }
    if (!isfinite(res)) {
      MBD_FAIL(err, MBD_E_NAN, MSG_FORM_PART_POS_NAN, t, res);
      return 1;
    }
    if (res <= p->position_tol) {
      // near a singular configuration (pivot ratio ρ of Φ_qd small) a small residual does not
      // make the coordinates accurate: the error along the weak direction is about |Φ|/σ, and
      // the velocity analysis divides it once more by σ.  There Newton goes on until its step
      // is below ρ·position_tol, the rounding level, or no longer shrinks quadratically (a
      // step not below a quarter of the last: at a singular root Newton only halves it).  It
      // converges quadratically, so this costs one or two iterations, only near such
      // configurations.
      double ratio = p->sep             ? pivot_ratio(p->jp, mp, d, p->n)
                     : mbd_sparse_on(d) ? p->sratio
                                        : pivot_ratio(p->jd, ma, d, p->n);
      jd_ratio = p->sep || mbd_sparse_on(d) ? -1 : ratio;
      if (ratio >= PART_ILL_RATIO || step <= fmax(ratio * p->position_tol, p->q_round) ||
          step > 0.25 * step_prev || it >= p->max_newton) {
        break;
      }
    }
    // (at the rounding floor of the rows above position_tol: accepted, the run warns)
    if (res > p->position_tol &&
        mbd_newton_floor(d, it, res, res_prev, p->q_round / (8 * DBL_EPSILON))) {
      break;
    }
    res_prev = res;
    if (it >= p->max_newton) {
      MBD_FAIL(err, MBD_E_NEWTON, MSG_FORM_PART_NEWTON, t, p->max_newton, res, p->position_tol);
      return 1;
    }
    // Newton step on the dependent coordinates (the position rows' with velocity rows active)
    if (p->sep) {
      for (int k = 0; k < mp; k++) {
        d->tmp_m[k] = -d->phi_a[p->prow[k]];
      }
      mbd_lu_solve(mp, p->jp, mp, p->jppiv, d->tmp_m, 1);
    } else {
      for (int k = 0; k < ma; k++) {
        d->tmp_m[k] = -d->phi_a[k];
      }
      if (mbd_sparse_on(d)) {
        mbd_splu_solve(d->sp->jlu, 0, d->tmp_m, 1);
      } else {
        mbd_lu_solve(ma, p->jd, ma, p->jpiv, d->tmp_m, 1);
      }
    }
    step_prev = step;
    step = 0;
    for (int k = 0; k < mp; k++) {
      d->q[p->pperm[k]] += d->tmp_m[k];
      step = fmax(step, fabs(d->tmp_m[k]));
    }
    mbd_stage_touch(d, MBD_STAGE_NONE);
    d->newton_iterations++;
  }
  // with velocity rows: the dependent velocities' block of every active row, factored once
  if (p->sep) {
    int piv = factor_jd(p, d, flags, err);
    if (piv < 0) {
      return MBD_FAIL(err, piv, MSG_FORM_LAPACK, "dependent block", t);
    }
    if (piv != 0) {
      char what[96];
      mbd_model_coord_name(m, p->perm[piv - 1], what, sizeof what);
      MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_PART_POS_SINGULAR, t, what);
      return 1;
    }
  }
  // watch the conditioning of the dependent block (once per evaluation, at the converged state;
  // not from samples, so recording never steers the integration)
  if (!(flags & MBD_DERIV_SAMPLE)) {
    p->rcond = mbd_sparse_on(d) ? p->sratio
               : jd_ratio >= 0  ? jd_ratio
                                : pivot_ratio(p->jd, ma, d, p->n);
    if (p->rcond < 0.1 * p->rcond0) {
      p->degraded = 1;
    }
  }
  // velocity analysis: Φ_qd v_d = −Φt − Φ_qi v_i (eq 12)
  if (mbd_sparse_on(d)) {
    // a row's independent entries (the sparse form: v_i already in d->v)
    const mbd_sparse *sp = d->sp;
    for (int r = 0; r < ma; r++) {
      double s = -d->phit_a[r];
      for (int i = sp->jip[r]; i < sp->jip[r + 1]; i++) {
        int e = sp->jie[i];
        s -= sp->val[e] * d->v[sp->ci[e]];
      }
      d->tmp_m[r] = s;
    }
    mbd_splu_solve(d->sp->jlu, 0, d->tmp_m, 1);
  } else {
    for (int r = 0; r < ma; r++) {
      double s = -d->phit_a[r];
      for (int k = 0; k < f; k++) {
        s -= MBD_AT(d->phiq_a, ma, r, p->perm[ma + k]) * y[fp + k];
      }
      d->tmp_m[r] = s;
    }
    mbd_lu_solve(ma, p->jd, ma, p->jpiv, d->tmp_m, 1);
  }
  for (int k = 0; k < ma; k++) {
    d->v[p->perm[k]] = d->tmp_m[k];
  }
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  // γ depends on v: evaluate it once more at the consistent state (q unchanged: Φq stands)
  int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  return rc < 0 ? rc : 0;
}

/* paper 000 eq 22–23: partial velocity matrix B (n×f), v = B v_i + C; B_d = −Φ_qd⁻¹ Φ_qi */
void mbd_part_partial_velocities(mbd_part *p, const mbd_data *d) {
  int n = p->n, ma = p->ma, f = p->f;
  for (int k = 0; k < f; k++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->x, ma, r, k) = MBD_AT(d->phiq_a, ma, r, p->perm[ma + k]);
    }
  }
  if (ma > 0 && f > 0) {
    mbd_lu_solve(ma, p->jd, ma, p->jpiv, p->x, f);
  }
  memset(p->B, 0, (size_t)n * f * sizeof(double));
  for (int k = 0; k < f; k++) {
    MBD_AT(p->B, n, p->perm[ma + k], k) = 1;
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->B, n, p->perm[r], k) = -MBD_AT(p->x, ma, r, k);
    }
  }
}

/* is there a clearly better partition at the integration's last evaluated state?  Once the pivot
 * ratio has lost half its value at partition time (then: one QR with column pivoting of Φq,
 * ma×n, and at most one LU of ma×ma): the columns QR would choose now, if different, are factored
 * and their pivot ratio compared with the current one.  A ratio at least twice as good marks the
 * partition degraded.  Waiting until the current block is nearly singular costs accuracy: the
 * dependent coordinates follow the independent ones through Φ_qd⁻¹Φ_qi, which error control on q_i
 * alone does not see (a spherical pendulum lost 0.36 m over 5 s with rtol 1e-4 when only a tenfold
 * pivot loss triggered a re-partition). */
static int better(mbd_part *p, const mbd_model *m, mbd_data *d) {
  int ma = p->ma, n = p->n, rank = 0;
  if (ma == 0 || !mbd_stage_has(m, d, MBD_STAGE_ACCELERATION)) {
    return p->degraded;
  }
  // as good as when it was chosen: no need to look (saves the QR on most steps)
  if (!p->degraded && p->rcond >= 0.5 * p->rcond0) {
    return 0;
  }
  if (mbd_data_dense(m, d, NULL) < 0) {
    return 0;  // no room for the dense QR: keep the partition (a re-selection would say why)
  }
  if (mbd_sparse_on(d)) {
    // the sparse form: the QR and the candidate's LU are dense (only once the pivots have fallen)
    mbd_sparse_densify(m, d);
  }
  // (the choice's QR: modal columns weighted as in mbd_part_choose)
  const double *J = d->phiq_a;
  if (p->modw) {
    for (int c = 0; c < n; c++) {
      for (int r = 0; r < ma; r++) {
        MBD_AT(d->aug, ma, r, c) = MBD_AT(d->phiq_a, ma, r, c) * p->modw[c];
      }
    }
    J = d->aug;
  }
  if (mbd_qrcp_rank(&d->lsq, ma, n, J, ma, 1e-10, p->perm_old, &rank, p->r) < 0 ||
      rank < ma) {
    return 0;
  }
  // Φq itself nearly rank-deficient (a singular configuration): no choice of columns is good
  // there, and a re-partition would restart the integrator right where its evaluations are
  // least accurate; the configuration is passed with the current partition
  if (p->r[ma - 1] < PART_ILL_RATIO * p->r[0]) {
    p->degraded = 0;
    return 0;
  }
  if (p->degraded) {
    return 1;
  }
  // the candidate's dependent columns, sorted, compared with the current ones
  int *c = p->perm_old;
  sort_ints(c, 0, ma);
  if (memcmp(c, p->perm, (size_t)ma * sizeof(int)) == 0) {
    return 0;
  }
  for (int j = 0; j < ma; j++) {
    for (int r = 0; r < ma; r++) {
      MBD_AT(p->jd_cand, ma, r, j) = MBD_AT(d->phiq_a, ma, r, c[j]);
    }
  }
  if (mbd_lu_factor(ma, p->jd_cand, ma, p->kpiv) != 0) {
    return 0;
  }
  // (the sparse form compares the dense LU's pivots of both partitions: its own ratio is KLU's)
  double now = p->rcond;
  if (mbd_sparse_on(d)) {
    for (int j = 0; j < ma; j++) {
      for (int r = 0; r < ma; r++) {
        MBD_AT(p->jd, ma, r, j) = MBD_AT(d->phiq_a, ma, r, p->perm[j]);
      }
    }
    now = mbd_lu_factor(ma, p->jd, ma, p->jpiv) == 0 ? pivot_ratio(p->jd, ma, d, n) : 0;
  }
  if (pivot_ratio(p->jd_cand, ma, d, n) > 2 * now) {
    p->degraded = 1;
  }
  return p->degraded;
}

/* after an accepted step: re-partition when the dependent block has degraded.  Returns 1 when
 * the partition changed (y rewritten: the integrator restarts), 0 when kept, < 0 on error. */
int mbd_part_step(mbd_part *p, const mbd_model *m, mbd_data *d, double t, double *y,
                  mbd_error *err) {
  if (!better(p, m, d)) {
    return 0;
  }
  int rc = mbd_part_state(p, m, d, t, y, 0, err);
  if (rc != 0) {
    return rc < 0 ? rc : 0;  // keep the partition; the next evaluation will tell
  }
  memcpy(p->perm_old, p->perm, (size_t)p->n * sizeof(int));
  memcpy(p->pperm_old, p->pperm, (size_t)p->n * sizeof(int));
  // rows set aside by the rank test may be needed now
  if (mbd_sparse_on(d)) {
    mbd_sparse_densify(m, d);  // the re-selection's QR is dense
  }
  int rs = mbd_reselect_rows(m, d, err);
  if (rs < 0) {
    return rs;
  }
  rc = mbd_part_choose(p, m, d, err);
  if (rc < 0) {
    return rc;
  }
  if (rs == 0 && memcmp(p->perm_old, p->perm, (size_t)p->n * sizeof(int)) == 0 &&
      memcmp(p->pperm_old, p->pperm, (size_t)p->n * sizeof(int)) == 0) {
    return 0;  // the best choice is still this one: keep going with the new baseline
  }
  p->repartitions++;
  mbd_part_pack(p, d, y);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* the ops gcp and kane share: y = [q_i; v_i]                                                  */

int mbd_partitioned_check(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err) {
  (void)m;
  if (!(o->position_tol > 0)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_POSITION_TOL, o->position_tol);
  }
  return MBD_OK;
}

/* the first partition, from Φq at the state of d (rows evaluated and gathered) */
int mbd_partitioned_create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                           mbd_error *err) {
  mbd_part *p = NULL;
  int rc = mbd_part_alloc(&p, m, d, o, err);
  // the linear solver (formulations/linear_solver.c), the sparse dependent block's arrays
  if (rc == MBD_OK) {
    rc = mbd_form_solver_init(&p->solver, m, d, o, o->formulation, err);
  }
  if (rc == MBD_OK) {
    rc = mbd_part_choose(p, m, d, err);
  }
  if (rc < 0) {
    mbd_part_free(p);
    return rc;
  }
  *self = p;
  return MBD_OK;
}

int mbd_partitioned_ny(const void *self, const mbd_model *m) {
  (void)m;
  const mbd_part *p = self;
  return p->fp + p->f;
}

void mbd_partitioned_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y) {
  (void)m;
  mbd_part_pack(self, d, y);
}

/* only the independent coordinates are integrated */
void mbd_partitioned_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot) {
  (void)m;
  const mbd_part *p = self;
  for (int k = 0; k < p->fp; k++) {
    ydot[k] = d->v[p->pperm[p->mp + k]];
  }
  for (int k = 0; k < p->f; k++) {
    ydot[p->fp + k] = d->vdot[p->perm[p->ma + k]];
  }
}

int mbd_partitioned_ycoord(const void *self, const mbd_model *m, int i, int *accel) {
  (void)m;
  const mbd_part *p = self;
  *accel = i >= p->fp;
  return *accel ? p->perm[p->ma + i - p->fp] : p->pperm[p->mp + i];
}

int mbd_partitioned_step(void *self, const mbd_model *m, mbd_data *d, double t, double *y,
                         mbd_error *err) {
  return mbd_part_step(self, m, d, t, y, err);
}

void mbd_partitioned_stats(const void *self, mbd_run_stats *st) {
  st->repartitions += ((const mbd_part *)self)->repartitions;
  mbd_form_solver_stats(&((const mbd_part *)self)->solver, st);
}

void mbd_partitioned_destroy(void *self) { mbd_part_free(self); }

/* ------------------------------------------------------------------------------------------ */
/* the window of a singular configuration                                                      */

/* σ_min / σ_max of the active rows of Φq (dense, rows evaluated) */
static double window_sv(mbd_part *p, const mbd_data *d) {
  const double *U = NULL, *Vt = NULL;
  int ma = p->ma, n = p->n, mn = ma < n ? ma : n;
  if (mn == 0 || mbd_svd(&p->wlsq, ma, n, d->phiq_a, ma, &U, &Vt) != MBD_OK) {
    return 1;
  }
  return p->wlsq.s[0] > 0 ? p->wlsq.s[mn - 1] / p->wlsq.s[0] : 0;
}

/* the base evaluation at y shifted by s along the unit direction u of the independent positions
 * (velocities as in y); σ of its state in *sv, its independent accelerations in acc (f).  The
 * dependent coordinates start from the point's state moved along its velocity by the same
 * shift (s / |v_i| in time): the motion's own branch, where the other one is a transversal
 * distance away */
static int window_at(mbd_part *p, void *self, mbd_part_base_fn base, const mbd_model *m,
                     mbd_data *d, double t, const double *y, const double *u, double s, double vn,
                     int flags, double *sv, double *acc, mbd_error *err) {
  int fp = p->fp, ny = p->fp + p->f;
  double *ys = p->wy + p->n, *q0 = p->wq, *v0 = p->wq + m->nq, *dq = p->wq + m->nq + p->n;
  memcpy(ys, y, (size_t)ny * sizeof(double));
  for (int k = 0; k < fp; k++) {
    ys[k] += s * u[k];
  }
  memcpy(d->q, q0, (size_t)m->nq * sizeof(double));
  for (int c = 0; c < p->n; c++) {
    dq[c] = s / vn * v0[c];
  }
  mbd_kin_move(m, d->q, dq);
  d->t = t;
  mbd_stage_touch(d, MBD_STAGE_NONE);
  int rc = base(self, m, d, t, ys, flags, err);
  if (rc != 0) {
    return rc;
  }
  if (sv) {
    *sv = window_sv(p, d);
  }
  for (int k = 0; acc && k < p->f; k++) {
    acc[k] = d->vdot[p->perm[p->ma + k]];
  }
  return 0;
}

int mbd_part_windowed(mbd_part *p, void *self, mbd_part_base_fn base, const mbd_model *m,
                      mbd_data *d, double t, const double *y, int flags, mbd_error *err) {
  int rc = base(self, m, d, t, y, flags, err);
  // a partitioned state of a model the window serves, with dynamics asked for, not already
  // inside a window's own evaluations
  if (p->in_window || !p->wy || p->sep || mbd_sparse_on(d) || (flags & MBD_DERIV_KINEMATIC) ||
      p->ma == 0 || p->f == 0 || p->fp != p->f || (rc < 0 && rc != MBD_E_SINGULAR)) {
    return rc;
  }
  // near a singular configuration?  The dependent block's pivot ratio first (it falls with σ,
  // at least as fast), then σ itself
  if (pivot_ratio(p->jd, p->ma, d, p->n) >= PART_WINDOW_PRE) {
    return rc;
  }
  double s0 = window_sv(p, d);
  if (s0 >= PART_WINDOW_REL) {
    return rc;
  }
  // the direction of motion in the independent positions (at rest there is no crossing to make)
  int fp = p->fp;
  double *u = p->wy, vn = 0;
  for (int k = 0; k < fp; k++) {
    vn += y[fp + k] * y[fp + k];
  }
  vn = sqrt(vn);
  if (!(vn > 0)) {
    return rc;
  }
  for (int k = 0; k < fp; k++) {
    u[k] = y[fp + k] / vn;
  }
  memcpy(p->wq, d->q, (size_t)m->nq * sizeof(double));
  memcpy(p->wq + m->nq, d->v, (size_t)p->n * sizeof(double));
  // σ ≈ k |s − s*| along u: its slope from a second state a little ahead, then the window's
  // edges where σ = PART_WINDOW_REL (with half its width again of margin), evaluated there and
  // the accelerations interpolated linearly in s to the evaluation's own point s = 0
  p->in_window = 1;
  double h = 0.05 * fmax(s0, 1e-8), s1 = 0;
  double *am = p->wv, *ap = p->wv + p->f;
  int wrc = window_at(p, self, base, m, d, t, y, u, h, vn, flags, &s1, NULL, err);
  double slope = fabs(s1 - s0) / h;
  if (wrc == 0 && slope > 0) {
    double st = s1 < s0 ? s0 / slope : -s0 / slope;  // the configuration ahead, or behind
    double w = 1.5 * PART_WINDOW_REL / slope;
    wrc = window_at(p, self, base, m, d, t, y, u, st - w, vn, flags, NULL, am, err);
    if (wrc == 0) {
      wrc = window_at(p, self, base, m, d, t, y, u, st + w, vn, flags, NULL, ap, err);
    }
    if (wrc == 0) {
      // back to the point itself: its state for the channels, its accelerations interpolated
      wrc = window_at(p, self, base, m, d, t, y, u, 0, vn, flags, NULL, NULL, err);
      if (wrc == 0 || wrc == MBD_E_SINGULAR) {
        double a = (0 - (st - w)) / (2 * w);
        for (int k = 0; k < p->f; k++) {
          d->vdot[p->perm[p->ma + k]] = am[k] + a * (ap[k] - am[k]);
        }
        mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
        d->gauss_evaluations++;
        mbd_error_clear(err);
        wrc = 0;
      }
    }
  }
  p->in_window = 0;
  // (a window that could not be made: the point's own evaluation stands)
  return wrc == 0 ? 0 : rc;
}
