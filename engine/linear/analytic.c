/* the analytic linearization: exact derivatives of the generated equations (paper 002's symbolic
 * derivation, codegen/derive.c) of the working tree model — the spanning tree of the relative
 * formulation, or the tree with every joint cut, whose coordinates and rows are the Cartesian
 * ones — eliminated through the constraints as SymPy's Linearizer does.
 *
 * With the equations M(q) q̈ + Φqᵀλ = g(q, q̇), Φq q̈ = γ(q, q̇), Φq q̇ = −Φt, Φ(q, t) = 0 and the
 * operating point's accelerations a and multipliers λ (the augmented system there), the residuals
 *
 *   R(q, q̇) = M(q) a + Φq(q)ᵀλ − g(q, q̇),   C(q, q̇) = Φq(q) a − γ(q, q̇),   W(q, q̇) = Φq(q) q̇
 *
 * are differentiated symbolically (a and λ held) and evaluated there.  A perturbation of the
 * independent positions δq_i moves the dependent ones along the constraints, δq = B δq_i, and
 * their velocities by δv_d = −Φ_qd⁻¹ W_q δq (the velocity analysis at the moved pose, v_i held); a
 * perturbation δv_i gives δv = B δv_i.  Then
 *
 *   [M Φqᵀ; Φq 0] [δq̈; δλ] = −[R_q δq + R_q̇ δv; C_q δq + C_q̇ δv]
 *
 * and the independent rows of δq̈ are A's acceleration rows (the position rows are [0 I]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linear_impl.h"

const char *lin_analytic_refusal(const mbd_model *m) {
  if (m->nflex > 0) {
    return "flexible bodies have no generated equations";
  }
  if (m->ncontact > 0 || m->njfric > 0) {
    return "contacts and joint friction have no generated equations";
  }
  for (int i = 0; i < m->nforce; i++) {
    if (m->force[i].fn) {
      return "a force or torque is given as a function (its derivatives are not symbolic)";
    }
  }
  if (m->ncopy >= 2) {
    return "macro copies' equations are derived per shape (use method 'differences')";
  }
  return NULL;
}

/* index of M̄(i, j) in the layout's upper triangle by rows */
static int mtri(int n, int i, int j) {
  if (i > j) {
    int t = i;
    i = j;
    j = t;
  }
  return i * n - i * (i - 1) / 2 + (j - i);
}

int lin_analytic_A(lin_sys *s, double *A, mbd_error *err) {
  const mbd_model *w = s->w;
  const mbd_data *d0 = s->d0;
  const mbd_part *p = s->p;
  int n = s->n, f = s->f, nx = 2 * f, ma = d0->ma, na = n + ma;
  mbd_eqs_layout L;
  memset(&L, 0, sizeof L);
  int rc = w->tree ? mbd_eqs_layout_make(w, &L, err)
                   : MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC, "no tree model");
  if (rc != MBD_OK) {
    return rc;
  }
  for (int i = 0; i < w->nrspring && rc == MBD_OK; i++) {
    if (L.rspring_numeric[i]) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC,
                    "a rotational spring acts on a cut joint's angle (every joint is cut in "
                    "Cartesian coordinates: use formulation 'relative')");
    }
  }
  for (int i = 0; i < w->nforce && rc == MBD_OK; i++) {
    if (L.force_numeric[i]) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC, "a force is given as a function");
    }
  }
  if (rc == MBD_OK && L.macros) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_ANALYTIC, "macro copies");
  }
  mbd_sym_ctx *ctx = NULL;
  mbd_sym_id *vars = NULL, *outs = NULL;
  if (rc == MBD_OK) {
    rc = mbd_eqs_derive(w, &L, &ctx, &vars, &outs, err);
  }
  // the operating point: a and λ of the augmented system of the generated equations
  size_t NA = (size_t)na;
  double *K = calloc(NA * NA, sizeof(double));
  double *ab = calloc(NA, sizeof(double));
  int *piv = calloc(NA, sizeof(int));
  int ne = n + 2 * ma;
  mbd_sym_id *ex = malloc(sizeof(mbd_sym_id) * (size_t)(ne ? ne : 1));
  mbd_sym_id *J = malloc(sizeof(mbd_sym_id) * (size_t)ne * 2 * (size_t)n + 1);
  double *val = calloc((size_t)ne * 2 * (size_t)n + 1, sizeof(double));
  double *vin = calloc(2 * (size_t)n + 1, sizeof(double));
  double *jd = calloc((size_t)ma * (size_t)ma + 1, sizeof(double));
  int *jp = calloc((size_t)ma + 1, sizeof(int));
  double *dq = calloc(4 * (size_t)n + NA, sizeof(double));
  if (rc == MBD_OK && (!K || !ab || !piv || !ex || !J || !val || !vin || !jd || !jp || !dq)) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  if (rc == MBD_OK) {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < n; i++) {
        MBD_AT(K, na, i, j) = MBD_AT(d0->M, n, i, j);
      }
      for (int r = 0; r < ma; r++) {
        MBD_AT(K, na, n + r, j) = MBD_AT(d0->phiq_a, ma, r, j);
        MBD_AT(K, na, j, n + r) = MBD_AT(d0->phiq_a, ma, r, j);
      }
      ab[j] = d0->Q[j];
    }
    for (int r = 0; r < ma; r++) {
      ab[n + r] = d0->gamma_a[r];
    }
    int pv = mbd_lu_factor(na, K, na, piv);
    if (pv != 0) {
      rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_LIN_SINGULAR, "linearize", s->t, 0.0);
    } else {
      mbd_lu_solve(na, K, na, piv, ab, 1);
    }
  }
  // R, C, W with a and λ held, and their Jacobians over (q, q̇)
  if (rc == MBD_OK) {
    const double *a = ab, *lam = ab + n;
    for (int i = 0; i < n; i++) {
      mbd_sym_id t = mbd_sym_neg(ctx, outs[L.og + i]);
      for (int j = 0; j < n; j++) {
        t = mbd_sym_add(ctx, t,
                        mbd_sym_mul(ctx, mbd_sym_const(ctx, a[j]), outs[L.oM + mtri(n, i, j)]));
      }
      for (int k = 0; k < ma; k++) {
        int r = d0->active[k];
        t = mbd_sym_add(ctx, t,
                        mbd_sym_mul(ctx, mbd_sym_const(ctx, lam[k]), outs[L.ophiq + r * n + i]));
      }
      ex[i] = t;
    }
    for (int k = 0; k < ma; k++) {
      int r = d0->active[k];
      // a drive's γ is f''(t) minus the output (code.c): its derivatives are the output's, negated
      int drive = w->row[r].owner == MBD_ROW_DRIVE;
      mbd_sym_id c = drive ? outs[L.ogam + r] : mbd_sym_neg(ctx, outs[L.ogam + r]);
      mbd_sym_id wv = mbd_sym_const(ctx, 0);
      for (int j = 0; j < n; j++) {
        mbd_sym_id pq = outs[L.ophiq + r * n + j];
        c = mbd_sym_add(ctx, c, mbd_sym_mul(ctx, mbd_sym_const(ctx, a[j]), pq));
        wv = mbd_sym_add(ctx, wv, mbd_sym_mul(ctx, vars[n + j], pq));
      }
      ex[n + k] = c;
      ex[n + ma + k] = wv;
    }
    rc = mbd_sym_jacobian(ctx, ne, ex, 2 * n, vars, J, err);
  }
  mbd_sym_tape *tape = NULL;
  if (rc == MBD_OK) {
    rc = mbd_sym_tape_new(ctx, ne * 2 * n, J, 2 * n, vars, &tape, err);
  }
  if (rc == MBD_OK) {
    memcpy(vin, d0->q, (size_t)n * sizeof(double));
    memcpy(vin + n, d0->v, (size_t)n * sizeof(double));
    mbd_sym_tape_eval(tape, vin, val);
  }
  // Φ_qd factored (the partition's dependent columns)
  if (rc == MBD_OK && ma > 0) {
    for (int c = 0; c < ma; c++) {
      for (int r = 0; r < ma; r++) {
        MBD_AT(jd, ma, r, c) = MBD_AT(d0->phiq_a, ma, r, p->perm[c]);
      }
    }
    if (mbd_lu_factor(ma, jd, ma, jp) != 0) {
      rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_LIN_SINGULAR, "linearize", s->t, 0.0);
    }
  }
  // each direction of x: δq, δv, then the augmented solve for δq̈
  double *dqv = dq, *dvv = dq + n, *rhs = dq + 2 * n, *tmp = dq + 2 * n + NA;
#define JV(row, col) val[(size_t)(row)*2 * n + (col)]
  for (int k = 0; rc == MBD_OK && k < nx; k++) {
    int vel = k >= f, c = p->perm[ma + (vel ? k - f : k)];
    memset(dqv, 0, (size_t)n * sizeof(double));
    memset(dvv, 0, (size_t)n * sizeof(double));
    double *dx = vel ? dvv : dqv;
    // the independent coordinate moved, the dependent ones along the constraints
    dx[c] = 1;
    for (int r = 0; r < ma; r++) {
      tmp[r] = -MBD_AT(d0->phiq_a, ma, r, c);
    }
    if (ma > 0) {
      mbd_lu_solve(ma, jd, ma, jp, tmp, 1);
    }
    for (int r = 0; r < ma; r++) {
      dx[p->perm[r]] = tmp[r];
    }
    if (!vel && ma > 0) {
      // the velocity analysis at the moved pose: Φ_qd δv_d = −W_q δq
      for (int r = 0; r < ma; r++) {
        double sum = 0;
        for (int j = 0; j < n; j++) {
          sum += JV(n + ma + r, j) * dqv[j];
        }
        tmp[r] = -sum;
      }
      mbd_lu_solve(ma, jd, ma, jp, tmp, 1);
      for (int r = 0; r < ma; r++) {
        dvv[p->perm[r]] = tmp[r];
      }
    }
    for (int i = 0; i < n + ma; i++) {
      double sum = 0;
      for (int j = 0; j < n; j++) {
        sum += JV(i, j) * dqv[j] + JV(i, n + j) * dvv[j];
      }
      rhs[i] = -sum;
    }
    mbd_lu_solve(na, K, na, piv, rhs, 1);
    for (int i = 0; i < f; i++) {
      MBD_AT(A, nx, i, k) = vel && i == k - f ? 1 : 0;
      MBD_AT(A, nx, f + i, k) = rhs[p->perm[ma + i]];
    }
  }
#undef JV
  mbd_sym_tape_free(tape);
  mbd_sym_ctx_free(ctx);
  free(vars);
  free(outs);
  mbd_eqs_layout_free(&L);
  free(K), free(ab), free(piv), free(ex), free(J), free(val), free(vin), free(jd), free(jp);
  free(dq);
  return rc;
}
