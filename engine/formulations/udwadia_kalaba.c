/* formulation "udwadia_kalaba": the generalized-inverse method (paper 004 eq 5, 9–11)
 *
 *   q̈ = a + M^(−1/2) (Φq M^(−1/2))⁺ (b* − Φq a),   a = M⁻¹Q,   b* = γ − S Φ̇ − T Φ
 *
 * on ALL constraint rows (also those the assembly's rank test set aside): the Moore–Penrose
 * inverse (SVD, mbd_pinv) gives the same motion for redundant rows.  S, T are α I, β I (the
 * paper's α, β, not Baumgarte's 2α, β²) or full matrices.  Planar models only: their M is
 * diagonal, so M^(−1/2) is taken entry by entry.  The multipliers for the reaction channels come
 * from the constraint force M(q̈ − a) = −Φqᵀλ by least squares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"

void mbd_uk_free(mbd_uk *u) {
  if (!u) {
    return;
  }
  free(u->mih);
  free(u->a);
  free(u->B);
  free(u->X);
  free(u->r);
  free(u->res);
  free(u->S);
  free(u->T);
  mbd_lsq_free(&u->lsq);
  free(u);
}

int mbd_uk_alloc(mbd_uk **out, const mbd_model *m, const mbd_sim_opts *o, mbd_error *err) {
  *out = NULL;
  mbd_uk *u = calloc(1, sizeof *u);
  if (!u) {
    return MBD_FAIL(err, MBD_E_NOMEM, "udwadia_kalaba: out of memory");
  }
  u->n = m->n;
  u->m = m->mrow;
  size_t n = (size_t)(u->n ? u->n : 1), mr = (size_t)(u->m ? u->m : 1);
  u->mih = calloc(n, sizeof(double));
  u->a = calloc(n, sizeof(double));
  u->B = calloc(mr * n, sizeof(double));
  u->X = calloc(mr * n, sizeof(double));
  u->r = calloc(mr > n ? mr : n, sizeof(double));
  u->res = calloc(mr, sizeof(double));
  u->S = calloc(mr * mr, sizeof(double));
  u->T = calloc(mr * mr, sizeof(double));
  int big = (int)(mr > n ? mr : n);
  if (!u->mih || !u->a || !u->B || !u->X || !u->r || !u->res || !u->S || !u->T ||
      mbd_lsq_alloc(&u->lsq, big, big, err) < 0) {
    mbd_uk_free(u);
    return MBD_FAIL(err, MBD_E_NOMEM, "udwadia_kalaba: out of memory");
  }
  // S, T: full matrices when given, else α I and β I
  if (o->stab_S || o->stab_T) {
    if (o->stab_n != u->m) {
      int rows = u->m;
      mbd_uk_free(u);
      return MBD_FAIL(err, MBD_E_INPUT,
                      "simulate: stabilization matrices are %d×%d but model '%s' has %d "
                      "constraint rows",
                      o->stab_n, o->stab_n, m->name, rows);
    }
    if (o->stab_S) {
      memcpy(u->S, o->stab_S, mr * mr * sizeof(double));
    }
    if (o->stab_T) {
      memcpy(u->T, o->stab_T, mr * mr * sizeof(double));
    }
  } else {
    for (int i = 0; i < u->m; i++) {
      MBD_AT(u->S, u->m, i, i) = o->alpha;
      MBD_AT(u->T, u->m, i, i) = o->beta;
    }
  }
  *out = u;
  return MBD_OK;
}

int mbd_uk_accel(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda, mbd_error *err) {
  int n = u->n, mr = u->m;
  // free motion a = M⁻¹Q and M^(−1/2) (M diagonal in planar models)
  for (int i = 0; i < n; i++) {
    double mi = MBD_AT(d->M, n, i, i);
    u->a[i] = d->Q[i] / mi;
    u->mih[i] = 1.0 / sqrt(mi);
  }
  memcpy(d->qdd, u->a, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  if (mr == 0) {
    d->have_dynamics = 1;
    return MBD_OK;
  }
  // b* − Φq a with b* = γ − S Φ̇ − T Φ (paper 004 eq 10), Φ̇ = Φq q̇ + Φt
  double *phid = u->r + 0;  // reuse r: first Φ̇, then the residual
  memcpy(phid, d->phit, (size_t)mr * sizeof(double));
  mbd_gemv(0, mr, n, 1.0, d->phiq, mr, d->qd, 1.0, phid);
  // tmp_m = γ − S Φ̇ − T Φ − Φq a
  double *res = u->res;
  memcpy(res, d->gamma, (size_t)mr * sizeof(double));
  mbd_gemv(0, mr, mr, -1.0, u->S, mr, phid, 1.0, res);
  mbd_gemv(0, mr, mr, -1.0, u->T, mr, d->phi, 1.0, res);
  mbd_gemv(0, mr, n, -1.0, d->phiq, mr, u->a, 1.0, res);
  // B = Φq M^(−1/2), X = B⁺, q̈ = a + M^(−1/2) X res
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < mr; i++) {
      MBD_AT(u->B, mr, i, j) = MBD_AT(d->phiq, mr, i, j) * u->mih[j];
    }
  }
  if (mbd_pinv(&u->lsq, mr, n, u->B, mr, u->X, n, 1e-12, NULL) != MBD_OK) {
    return MBD_FAIL(err, MBD_E_SINGULAR, "udwadia_kalaba: the SVD of Φq M^(-1/2) did not converge "
                    "at t = %g", d->t);
  }
  mbd_gemv(0, n, mr, 1.0, u->X, n, res, 0.0, d->tmp_n);
  for (int i = 0; i < n; i++) {
    d->qdd[i] += u->mih[i] * d->tmp_n[i];
  }
  if (want_lambda) {
    // Φqᵀ λ = Q − M q̈ (least squares, minimum norm over redundant rows)
    for (int i = 0; i < n; i++) {
      d->tmp_n[i] = d->Q[i] - MBD_AT(d->M, n, i, i) * d->qdd[i];
      for (int k = 0; k < mr; k++) {
        MBD_AT(u->X, n, i, k) = MBD_AT(d->phiq, mr, k, i);
      }
    }
    if (mbd_lsq_solve(&u->lsq, n, mr, u->X, n, d->tmp_n, d->lambda, 1e-12, NULL) != MBD_OK) {
      return MBD_FAIL(err, MBD_E_SINGULAR, "udwadia_kalaba: multipliers: SVD did not converge at "
                      "t = %g", d->t);
    }
  }
  d->have_dynamics = 1;
  return MBD_OK;
}
