/* the sparse solve of the Cartesian formulations: the choice between dense and sparse linear
 * algebra, and the leading matrix [M Φqᵀ; Φq 0] (paper 000 eq 13) in compressed columns for
 * KLU.
 *
 * In Cartesian coordinates M is block diagonal (one block per body) and a row of Φq touches the
 * columns of its two bodies only, so the leading matrix of a chain of N links has O(N) entries
 * where the dense one has (5N)².  The pattern of the active rows is built once and analysed once
 * (a fill-reducing ordering) — at the run's start and again only when the active rows change (a
 * contact's mode, rows re-selected) —; every evaluation writes the values through maps and
 * refactors with the kept pivot order (mbd/sparse.h).  Everything that reads the pivots — the
 * re-selection of rows, gcp's turn to Gauss's principle, the singular-configuration stop — reads
 * KLU's pivot ratio as it reads the dense LU's.
 *
 * The choice (linear_solver = "auto"): dense below SPARSE_MIN_ORDER unknowns, where LAPACK on a
 * small dense matrix costs less than the indirection of the sparse one, and when the matrix is not
 * sparse enough to pay (more than SPARSE_MAX_FILL of its entries set); sparse above.  Not for joint
 * coordinates (formulation relative, generated code: a body's pose depends on its whole path, Φq
 * is dense) nor udwadia_kalaba (its pseudo-inverse is dense); gcp and kane not with contacts or
 * frictional joints (their velocity-level rows give the positions a partition of their own,
 * written densely). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* the leading matrix's order (nv + active rows) from which auto takes the sparse solve: measured
 * on planar chains (scripts/bench/chain.lua), where the two cost the same near 16 links (n + m =
 * 80) */
#define SPARSE_MIN_ORDER 64
/* the share of the leading matrix's entries set above which auto keeps the dense solve */
#define SPARSE_MAX_FILL 0.25

const char *mbd_linear_solver_name(int s) {
  static const char *const names[MBD_LINSOLVE_N] = {"auto", "dense", "sparse"};
  return (s >= 0 && s < MBD_LINSOLVE_N) ? names[s] : NULL;
}

int mbd_linear_solver_from_name(const char *name) {
  for (int s = 0; s < MBD_LINSOLVE_N; s++) {
    if (strcmp(name, mbd_linear_solver_name(s)) == 0) {
      return s;
    }
  }
  return -1;
}

int mbd_form_choose_solver(const mbd_model *m, mbd_data *d, const mbd_sim_opts *o, int form,
                           mbd_error *err) {
  int want = o->linear_solver;
  if (want < 0 || want >= MBD_LINSOLVE_N) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_LINSOLVE, want);
  }
  // where the sparse solve is not written
  char why[320];
  why[0] = 0;
  if (!d->sp) {
    snprintf(why, sizeof why, "joint coordinates (formulation relative, generated code), "
                              "where a body's pose depends on its whole path and Φq is dense");
  } else if (form == MBD_FORM_UK) {
    snprintf(why, sizeof why, "formulation udwadia_kalaba, whose pseudo-inverse is dense");
  } else if ((form == MBD_FORM_GCP || form == MBD_FORM_KANE) && (m->ncontact || m->njfric)) {
    snprintf(why, sizeof why,
             "formulation %s on model '%s' with contacts or joint friction (the partition of "
             "their velocity-level rows is dense)",
             mbd_form_lookup(form)->name, m->name);
  }
  if (why[0]) {
    if (want == MBD_LINSOLVE_SPARSE) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_SPARSE_REFUSED, why);
    }
    return MBD_LINSOLVE_DENSE;
  }
  if (want == MBD_LINSOLVE_AUTO) {
    double order = (double)m->nv + d->ma;
    double fill = (double)(d->sp->nm + 2.0 * d->sp->nnz) / (order * order);
    want = order >= SPARSE_MIN_ORDER && fill <= SPARSE_MAX_FILL ? MBD_LINSOLVE_SPARSE
                                                                  : MBD_LINSOLVE_DENSE;
  }
  if (want == MBD_LINSOLVE_SPARSE && !d->sp->on) {
    // the rows evaluated again into the sparse form (they were written densely)
    mbd_sparse_set(m, d, 1);
    int rc = mbd_kin_update(m, d, 0, err);
    if (rc < 0) {
      return rc;
    }
  }
  return want;
}

int mbd_form_solver_init(mbd_form_solver *s, const mbd_model *m, mbd_data *d,
                         const mbd_sim_opts *o, int form, mbd_error *err) {
  int rc = mbd_form_choose_solver(m, d, o, form, err);
  if (rc < 0) {
    return rc;
  }
  s->solver = rc;
  s->d = d;
  s->analyses = 0;
  return MBD_OK;
}

void mbd_form_solver_stats(const mbd_form_solver *s, mbd_run_stats *st) {
  if (!s) {
    return;
  }
  st->linear_solver = s->solver;
  st->symbolic_analyses += s->analyses + (s->d && s->d->sp ? s->d->sp->nanalyze : 0);
}

/* ------------------------------------------------------------------------------------------ */
/* the leading matrix of the active rows                                                       */

/* its pattern for the active rows of d, the maps into it, its symbolic analysis */
static int kkt_pattern(const mbd_model *m, mbd_data *d, mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int n = m->nv, ma = d->ma, N = n + ma;
  int *next = d->iwork;  // N + 1 column cursors (iwork holds nv + mrow)
  memset(next, 0, (size_t)N * sizeof(int));
  // entries per column: M's, then the active rows' below M; a row's own column beside M
  for (int e = 0; e < sp->nm; e++) {
    next[sp->mj[e]]++;
  }
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      next[sp->ci[e]]++;
    }
    next[n + k] = sp->rp[r + 1] - sp->rp[r];
  }
  sp->kp[0] = 0;
  for (int j = 0; j < N; j++) {
    sp->kp[j + 1] = sp->kp[j] + next[j];
    next[j] = sp->kp[j];
  }
  // rows increasing in each column: M's block rows (all below nv), then the active rows in order
  for (int e = 0; e < sp->nm; e++) {
    int p = next[sp->mj[e]]++;
    sp->ki[p] = sp->mi[e];
    sp->kmap_m[e] = p;
  }
  for (int e = 0; e < sp->nnz; e++) {
    sp->kmap_lo[e] = sp->kmap_up[e] = -1;
  }
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      int p = next[sp->ci[e]]++;
      sp->ki[p] = n + k;
      sp->kmap_lo[e] = p;
      p = next[n + k]++;
      sp->ki[p] = sp->ci[e];
      sp->kmap_up[e] = p;
    }
  }
  mbd_splu_free(sp->klu);
  sp->klu = NULL;
  sp->kma = -1;
  int rc = mbd_splu_analyze(&sp->klu, N, sp->kp, sp->ki, err);
  if (rc < 0) {
    return rc;
  }
  sp->kma = ma;
  memcpy(sp->kact, d->active, (size_t)ma * sizeof(int));
  sp->kn = N;
  sp->nanalyze++;
  return MBD_OK;
}

int mbd_kkt_factor(const mbd_model *m, mbd_data *d, double *ratio, int *kmin, mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int n = m->nv;
  // a new set of active rows: a new pattern and its analysis
  if (sp->kma != d->ma || memcmp(sp->kact, d->active, (size_t)d->ma * sizeof(int)) != 0) {
    int rc = kkt_pattern(m, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  // the values: M's blocks, Φq's active rows below M and beside it
  for (int e = 0; e < sp->nm; e++) {
    sp->kx[sp->kmap_m[e]] = MBD_AT(d->M, n, sp->mi[e], sp->mj[e]);
  }
  for (int k = 0; k < d->ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      sp->kx[sp->kmap_lo[e]] = sp->kx[sp->kmap_up[e]] = sp->val[e];
    }
  }
  int piv = mbd_splu_factor(sp->klu, sp->kx, 1, ratio, kmin);
  if (piv == MBD_E_NOMEM) {
    return MBD_FAIL(err, piv, MSG_FORM_NOMEM, "sparse leading matrix");
  }
  if (piv < 0) {
    return MBD_FAIL(err, piv, MSG_FORM_LAPACK, "sparse leading matrix", d->t);
  }
  return piv;
}

void mbd_kkt_solve(mbd_data *d, double *rhs) { mbd_splu_solve(d->sp->klu, 0, rhs, 1); }
