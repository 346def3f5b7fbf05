/* the leading matrix [M Φqᵀ; Φq 0] of the active rows in compressed columns for KLU — the sparse
 * form's (model_impl.h, mbd_sparse) — and the minimum-norm solutions of the analyses through
 * [I Φqᵀ; Φq 0].
 *
 * In Cartesian coordinates M is block diagonal (one block per body) and a row of Φq touches the
 * columns of its two bodies only, so the leading matrix of a chain of N links has O(N) entries
 * where the dense one has (5N)².  The pattern of the active rows is built and analysed (a
 * fill-reducing ordering) once — and again only when the active rows change (a contact's mode,
 * rows re-selected) —; every factorization writes the values through maps and refactors with the
 * kept pivot order (mbd/sparse.h). */
#include <string.h>

#include "kinematics.h"
#include "kinematics_msg.h"

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
  sp->kma = -1;
  int rc = mbd_splu_analyze(sp->klu, N, sp->kp, sp->ki, 0, err);
  if (rc < 0) {
    return rc;
  }
  sp->kma = ma;
  memcpy(sp->kact, d->active, (size_t)ma * sizeof(int));
  sp->kn = N;
  sp->nanalyze++;
  return MBD_OK;
}

int mbd_kkt_factor(const mbd_model *m, mbd_data *d, int identity, double *ratio, int *kmin,
                   mbd_error *err) {
  mbd_sparse *sp = d->sp;
  int n = m->nv;
  // a new set of active rows: a new pattern and its analysis
  if (sp->kma != d->ma || memcmp(sp->kact, d->active, (size_t)d->ma * sizeof(int)) != 0) {
    int rc = kkt_pattern(m, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  // the values: M's blocks (or the identity), Φq's active rows below M and beside it
  for (int e = 0; e < sp->nm; e++) {
    sp->kx[sp->kmap_m[e]] =
        identity ? (sp->mi[e] == sp->mj[e] ? 1.0 : 0.0) : MBD_AT(d->M, n, sp->mi[e], sp->mj[e]);
  }
  for (int k = 0; k < d->ma; k++) {
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      sp->kx[sp->kmap_lo[e]] = sp->kx[sp->kmap_up[e]] = sp->val[e];
    }
  }
  int piv = mbd_splu_factor(sp->klu, sp->kx, !sp->fresh_pivots, ratio, kmin);
  if (piv == MBD_E_NOMEM) {
    return MBD_FAIL(err, piv, MSG_KIN_NOMEM, "sparse leading matrix");
  }
  if (piv < 0) {
    return MBD_FAIL(err, piv, MSG_KIN_KLU, "sparse leading matrix", d->t);
  }
  return piv;
}

void mbd_kkt_solve(mbd_data *d, double *rhs) { mbd_splu_solve(d->sp->klu, 0, rhs, 1); }
