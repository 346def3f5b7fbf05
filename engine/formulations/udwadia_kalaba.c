/* formulation "udwadia_kalaba": the generalized-inverse method (paper 004 eq 5, 9–11)
 *
 *   q̈ = a + M^(−1/2) (Φq M^(−1/2))⁺ (b* − Φq a),   a = M⁻¹Q,   b* = γ − S Φ̇ − T Φ
 *
 * on ALL constraint rows (also those the assembly's rank test set aside): the Moore–Penrose
 * inverse (SVD, mbd_pinv) gives the same motion for redundant rows.  S, T are α I, β I (the
 * paper's α, β, not Baumgarte's 2α, β²) or full matrices.  Planar models: M is diagonal, so
 * M^(−1/2) is taken entry by entry.  The multipliers for the reaction channels come from the
 * constraint force M(q̈ − a) = −Φqᵀλ by least squares.
 *
 * Spatial models: the Euler-parameter block 4GᵀJ'G of M is singular along p, and the method needs
 * a positive definite M.  Since every motion obeys the normalization's acceleration equation
 * 2pᵀp̈ = −2ṗᵀṗ, adding s·(2p)(2p)ᵀ to M and s·(2p)(−2ṗᵀṗ) to Q changes the constraint force but
 * not the motion (Udwadia & Phohomsiri's augmentation for singular mass matrices); s = mean of
 * the body's principal moments makes the new eigenvalue 4s, of the size of the others (4 J_i).
 * Any square root of M̃ serves in Gauss's principle: with M̃ = L Lᵀ (Cholesky),
 *   q̈ = a + L⁻ᵀ (Φq L⁻ᵀ)⁺ (b* − Φq a),   a = M̃⁻¹ Q̃. */
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
  free(u->L);
  free(u->Qt);
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
  if (m->dim == 3) {
    u->L = calloc(n * n, sizeof(double));
    u->Qt = calloc(n, sizeof(double));
    if (!u->L || !u->Qt) {
      mbd_uk_free(u);
      return MBD_FAIL(err, MBD_E_NOMEM, "udwadia_kalaba: out of memory");
    }
  }
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

/* spatial: M̃ = L Lᵀ and a = M̃⁻¹ Q̃ (see the header) */
static int spatial_free_motion(mbd_uk *u, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = u->n;
  memcpy(u->L, d->M, (size_t)n * n * sizeof(double));
  memcpy(u->Qt, d->Q, (size_t)n * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    int a = m->body[b].qadr + 3;
    const double *p = d->q + a, *pd = d->qd + a, *J = m->body[b].inertia;
    double s = (J[0] + J[4] + J[8]) / 3, gn = -2 * (pd[0] * pd[0] + pd[1] * pd[1] +
                                                    pd[2] * pd[2] + pd[3] * pd[3]);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        MBD_AT(u->L, n, a + i, a + j) += s * 4 * p[i] * p[j];
      }
      u->Qt[a + i] += s * 2 * p[i] * gn;
    }
  }
  int piv = mbd_chol_factor(n, u->L, n);
  if (piv != 0) {
    char what[96];
    mbd_model_coord_name(m, piv - 1, what, sizeof what);
    return MBD_FAIL(err, MBD_E_SINGULAR,
                    "udwadia_kalaba: the augmented mass matrix is not positive definite at t = %g "
                    "(at %s)",
                    d->t, what);
  }
  memcpy(u->a, u->Qt, (size_t)n * sizeof(double));
  mbd_chol_solve(n, u->L, n, u->a, 1);
  return MBD_OK;
}

int mbd_uk_accel(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda, mbd_error *err) {
  int n = u->n, mr = u->m;
  if (u->L) {
    int rc = spatial_free_motion(u, m, d, err);
    if (rc < 0) {
      return rc;
    }
  } else {
    // free motion a = M⁻¹Q and M^(−1/2) (M diagonal in planar models)
    for (int i = 0; i < n; i++) {
      double mi = MBD_AT(d->M, n, i, i);
      u->a[i] = d->Q[i] / mi;
      u->mih[i] = 1.0 / sqrt(mi);
    }
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
  // B = Φq M^(−1/2) (spatial: Φq L⁻ᵀ), X = B⁺, q̈ = a + M^(−1/2) X res
  if (u->L) {
    memcpy(u->B, d->phiq, (size_t)mr * n * sizeof(double));
    mbd_tri_right_solve_lt(mr, n, u->L, n, u->B, mr);
  } else {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < mr; i++) {
        MBD_AT(u->B, mr, i, j) = MBD_AT(d->phiq, mr, i, j) * u->mih[j];
      }
    }
  }
  if (mbd_pinv(&u->lsq, mr, n, u->B, mr, u->X, n, 1e-12, NULL) != MBD_OK) {
    return MBD_FAIL(err, MBD_E_SINGULAR, "udwadia_kalaba: the SVD of Φq M^(-1/2) did not converge "
                    "at t = %g", d->t);
  }
  mbd_gemv(0, n, mr, 1.0, u->X, n, res, 0.0, d->tmp_n);
  if (u->L) {
    mbd_tri_solve_lt(n, u->L, n, d->tmp_n);
    for (int i = 0; i < n; i++) {
      d->qdd[i] += d->tmp_n[i];
    }
  } else {
    for (int i = 0; i < n; i++) {
      d->qdd[i] += u->mih[i] * d->tmp_n[i];
    }
  }
  if (want_lambda) {
    // Φqᵀ λ = Q − M q̈ (least squares, minimum norm over redundant rows)
    // (the true M and Q: the multipliers are those of the physical constraint forces)
    memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
    mbd_gemv(0, n, n, -1.0, d->M, n, d->qdd, 1.0, d->tmp_n);
    for (int i = 0; i < n; i++) {
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
