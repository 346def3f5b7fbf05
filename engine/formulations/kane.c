/* formulation "kane": Kane's method with partial velocities (paper 000 eq 14–46)
 *
 * With the partition of partition.c, v = B u + C where u = v_i are the generalized speeds and
 * B (n×f) the partial velocity matrix, the null space of Φq (Φq B = 0, eq 22–23).  The
 * generalized inertia force F* = BᵀM v̇ (eq 33) and active force F = BᵀQ (eq 40) balance, and
 * together with the acceleration constraints Φq v̇ = γ they give the n×n system of eq 46, smaller
 * than the (n+m)×(n+m) augmented system of GCP. */
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

static int lambdas(mbd_part *p, const mbd_model *m, mbd_data *d, int want_lambda);

/* paper 000 eq 46: [BᵀM; Φq] v̇ = [BᵀQ; γ] (n×n), forces and M evaluated.  With want_lambda the
 * multipliers follow by one back substitution with the LU of Φ_qd (the dependent rows of the
 * augmented system's first block row, M v̇ + Φqᵀλ = Q): Φ_qdᵀ λ = (Q − M v̇)_d. */
static int accel(mbd_part *p, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                 mbd_error *err) {
  int n = p->n, ma = p->ma, f = p->f;
  // the sparse form: B = [−Φ_qd⁻¹Φ_qi; I] is dense (in a chain every dependent coordinate moves
  // with every independent one before it), and so is BᵀM: eq 46 would cost O(n³).  Its solution
  // is the augmented system's v̇ (M v̇ + Φqᵀλ = Q gives BᵀM v̇ = BᵀQ, as BᵀΦqᵀ = 0), which the
  // sparse leading matrix gives in O(n), with the multipliers
  // The leading matrix's LU (KLU) is needed only near a singular configuration or where M's blocks
  // are not positive definite: elsewhere the Schur complement of M (schur.c) gives the same v̇ and
  // λ to rounding at a fraction of the cost.  The run's first evaluation takes the KLU path, whose
  // pivot ratio is the scale of the singular-configuration watch for the rest of the run.
  if (mbd_sparse_on(d)) {
    if (reuse && !p->schur_last) {
      return mbd_dynamics_augmented_again(m, d, d->gamma_a, err);
    }
    p->schur_last = 0;
    if (p->schur && d->aug_ratio_start > 0) {
      int rc = mbd_schur_dynamics(&p->schur, m, d, err);
      if (rc != 0) {
        p->schur_last = rc > 0;
        return rc < 0 ? rc : MBD_OK;
      }
    }
    return mbd_dynamics_augmented(m, d, d->gamma_a, err);
  }
  if (reuse) {
    // contacts: only Q changed (new friction forces): K is factored, B stands
    mbd_gemv(1, n, f, 1.0, p->B, n, d->Q, 0.0, p->r);
    memcpy(p->r + f, d->gamma_a, (size_t)ma * sizeof(double));
    mbd_lu_solve(n, p->K, n, p->kpiv, p->r, 1);
    memcpy(d->vdot, p->r, (size_t)n * sizeof(double));
    return lambdas(p, m, d, want_lambda);
  }
  mbd_part_partial_velocities(p, d);
  // top f rows: BᵀM (f×n) and BᵀQ (eq 33, 40); bottom ma rows: Φq and γ.
  // BᵀM by columns of M, skipping its zeros (M is block diagonal in body coordinates: column c
  // has entries only in the rows of its coordinate block).  A plain loop: OpenBLAS's dgemm on an
  // f×n×n this small spent more time in its buffer management than in arithmetic (the whole kane
  // run took 1.8× gcp's wall time)
  int blk = 0;
  for (int c = 0; c < n; c++) {
    while (blk < m->nblock && m->block[blk].vadr + m->block[blk].nv <= c) {
      blk++;
    }
    int i0 = blk < m->nblock ? m->block[blk].vadr : 0;
    int i1 = blk < m->nblock ? m->block[blk].vadr + m->block[blk].nv : n;
    if (c < i0 || c >= i1) {
      i0 = 0, i1 = n;  // (every column belongs to a block; the whole column otherwise)
    }
    const double *Mc = d->M + (size_t)c * n;
    for (int k = 0; k < f; k++) {
      const double *Bk = p->B + (size_t)k * n;
      double s = 0;
      for (int i = i0; i < i1; i++) {
        if (Mc[i] != 0) {
          s += Bk[i] * Mc[i];
        }
      }
      MBD_AT(p->K, n, k, c) = s;
    }
    // the bottom rows: column c of Φq
    memcpy(p->K + (size_t)c * n + f, d->phiq_a + (size_t)c * ma, (size_t)ma * sizeof(double));
  }
  mbd_gemv(1, n, f, 1.0, p->B, n, d->Q, 0.0, p->r);
  memcpy(p->r + f, d->gamma_a, (size_t)ma * sizeof(double));
  int piv = mbd_lu_factor(n, p->K, n, p->kpiv);
  d->lu_factorizations++;
  if (piv < 0) {
    return MBD_FAIL(err, piv, MSG_FORM_LAPACK, "reduced matrix", d->t);
  }
  if (piv != 0) {
    return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_SINGULAR_REDUCED, d->t, piv);
  }
  mbd_lu_solve(n, p->K, n, p->kpiv, p->r, 1);
  memcpy(d->vdot, p->r, (size_t)n * sizeof(double));
  return lambdas(p, m, d, want_lambda);
}

/* the multipliers by one back substitution with the LU of Φ_qd (paper 001 eq 31–34) */
static int lambdas(mbd_part *p, const mbd_model *m, mbd_data *d, int want_lambda) {
  int n = p->n, ma = p->ma;
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  if (want_lambda && ma > 0) {
    // (Q − M v̇) restricted to the dependent coordinates
    memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
    mbd_gemv(0, n, n, -1.0, d->M, n, d->vdot, 1.0, d->tmp_n);
    for (int k = 0; k < ma; k++) {
      d->tmp_m[k] = d->tmp_n[p->perm[k]];
    }
    mbd_lu_solve_trans(ma, p->jd, ma, p->jpiv, d->tmp_m, 1);
    for (int k = 0; k < ma; k++) {
      d->lambda[d->active[k]] = d->tmp_m[k];
    }
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  return accel(self, m, d, want_lambda, reuse, err);
}

/* after a contact event: the partition of the new active rows */
static int rebase(void *self, const mbd_model *m, mbd_data *d, mbd_error *err) {
  return mbd_part_choose(self, m, d, err);
}

static int eval_base(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                     int flags, mbd_error *err) {
  int solve = 0;
  int rc = mbd_form_prepare(m, d, self, t, y, flags, &solve, err);
  if (!solve) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_DERIV_LAMBDA, err);
}

/* (across the window of a singular configuration: partition.c) */
static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
                mbd_error *err) {
  return mbd_part_windowed(self, self, eval_base, m, d, t, y, flags, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
                 mbd_error *err) {
  return mbd_contact_event(&mbd_form_kane, self, solve_fn, rebase, m, d, t, y, found, err);
}

/* the partition, and in the sparse form the Schur complement's pattern (allocated here, before
 * the integration: its evaluations allocate nothing) */
static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  int rc = mbd_partitioned_create(self, m, d, o, err);
  // (MBD_KANE_SCHUR=0 keeps the KLU path: the tests compare the two)
  const char *env = getenv("MBD_KANE_SCHUR");
  if (rc < 0 || !mbd_sparse_on(d) || m->ncontact || m->njfric || (env && strcmp(env, "0") == 0)) {
    return rc;
  }
  mbd_part *p = *self;
  rc = mbd_schur_prepare(&p->schur, m, d, err);
  if (rc < 0) {
    mbd_partitioned_destroy(p);
    *self = NULL;
  }
  return rc;
}

static void destroy(void *self) {
  mbd_part *p = self;
  if (p) {
    mbd_schur_free(p->schur);
  }
  mbd_partitioned_destroy(self);
}

const mbd_form_ops mbd_form_kane = {.name = "kane",
                                    .check = mbd_partitioned_check,
                                    .create = create,
                                    .ny = mbd_partitioned_ny,
                                    .pack = mbd_partitioned_pack,
                                    .eval = eval,
                                    .deriv = mbd_partitioned_deriv,
                                    .ycoord = mbd_partitioned_ycoord,
                                    .step = mbd_partitioned_step,
                                    .nroot = mbd_contact_nroot,
                                    .roots = mbd_contact_roots,
                                    .event = event,
                                    .stats = mbd_partitioned_stats,
                                    .destroy = destroy};
