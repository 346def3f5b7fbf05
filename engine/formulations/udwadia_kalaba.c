/* formulation "udwadia_kalaba": the generalized-inverse method (paper 004 eq 5, 9–11)
 *
 *   v̇ = a + M^(−1/2) (Φq M^(−1/2))⁺ (b* − Φq a),   a = M⁻¹Q,   b* = γ − S Φ̇ − T Φ
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
 *   v̇ = a + L⁻ᵀ (Φq L⁻ᵀ)⁺ (b* − Φq a),   a = M̃⁻¹ Q̃.
 *
 * The sparse form (planar rigid bodies, linear_solver "auto" from 20 unknowns, or "sparse"): where
 * B = Φq M^(−1/2) has full row rank, B⁺ = Bᵀ(BBᵀ)⁻¹, and every pseudo-inverse solution of the
 * formulation — the projection's minimum-norm Newton steps and velocity correction (metric M) and
 * the accelerations — is a solve with the leading matrix [M Φqᵀ; Φq 0] of the augmented system:
 *   [M Φqᵀ; Φq 0] [x; μ] = [0; −r]  gives  x = −M^(−1/2) B⁺ r,
 *   [M Φqᵀ; Φq 0] [v̇; λ] = [Q; b*]  gives  v̇ = a + M^(−1/2) B⁺ (b* − Φq a), and λ,
 * one sparse LU (KLU, kinematics/kkt.c) per Newton iterate instead of an SVD of the whole Φq:
 * O(n) for a chain.  The projection's test of ill-conditioning reads σ_min/σ₁ of B, estimated by
 * power and inverse iterations through the same LU (ratio_estimate); at a configuration nearer
 * singular than UK_SVD_RATIO (or a zero pivot) the evaluation takes the dense SVD as before. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* ------------------------------------------------------------------------------------------ */
/* the core, shared with coordinate-level systems (engine/system)                              */

int mbd_uk_solve(int mc, int n, const double *C, const mbd_uk_root *S, const double *a, double *res,
                 double rcond, double *B, double *X, double *tmp, mbd_lsq_ws *lsq, double *vdot) {
  // B = C S (the constraint matrix in the metric of M: paper 004 eq 5)
  if (S->sdiag) {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < mc; i++) {
        MBD_AT(B, mc, i, j) = MBD_AT(C, mc, i, j) * S->sdiag[j];
      }
    }
  } else if (S->sfull) {
    mbd_gemm(0, 0, mc, n, n, 1.0, C, mc, S->sfull, n, 0.0, B, mc);
  } else {
    memcpy(B, C, (size_t)mc * n * sizeof(double));
    mbd_tri_right_solve_lt(mc, n, S->lchol, n, B, mc);
  }
  // X = B⁺ by SVD: redundant rows give the same motion
  int rc = mbd_pinv(lsq, mc, n, B, mc, X, n, rcond, NULL);
  if (rc != MBD_OK) {
    return rc;
  }
  // v̇ = a + S X (b* − C a)
  mbd_gemv(0, n, mc, 1.0, X, n, res, 0.0, tmp);
  memcpy(vdot, a, (size_t)n * sizeof(double));
  if (S->sdiag) {
    for (int i = 0; i < n; i++) {
      vdot[i] += S->sdiag[i] * tmp[i];
    }
  } else if (S->sfull) {
    mbd_gemv(0, n, n, 1.0, S->sfull, n, tmp, 1.0, vdot);
  } else {
    mbd_tri_solve_lt(n, S->lchol, n, tmp);
    for (int i = 0; i < n; i++) {
      vdot[i] += tmp[i];
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the formulation for models                                                                  */

typedef struct mbd_uk {
  int n, m;            /* coordinates, constraint rows (all) */
  double *mih;         /* n: diagonal of M^(−1/2) (planar) */
  double *a;           /* n: free acceleration M⁻¹Q */
  double *B, *X;       /* m×n Φq M^(−1/2) (ld m) and n×m its Moore–Penrose inverse (ld n) */
  double *r;           /* max(m, n) scratch */
  double *res;         /* m: b* − Φq a */
  double *S, *T;       /* m×m stabilization (ld m) */
  double *L;           /* spatial: n×n Cholesky factor of M̃ = M + Σ s (2p)(2p)ᵀ, else NULL */
  double *rs;          /* m: the stabilization part −S Φ̇ − T Φ of b* − Φq a */
  double *w;           /* max(m, n): coefficients along the singular vectors */
  int stabilized;      /* S or T not zero */
  double *pw;          /* n: metric of the projection, M^(−1/2) planar, 1 spatial */
  double *pB;          /* m×n: Φq diag(pw) for the projection */
  double *drift;       /* nq + nv: the projected state minus y (the last evaluation's) */
  const double *svdU;  /* planar: the SVD of Φq M^(−1/2) at the projected state (in lsq), */
  const double *svdVt; /*   shared by the projection and the accelerations; NULL when stale */
  double position_tol; /* the projection's Newton tolerance on |Φ| */
  double q_round;      /* rounding level of the coordinates (Newton's floor near singularity) */
  int max_newton;      /* its iterations */
  mbd_lsq_ws lsq;      /* SVD workspace, max(m, n) square */
  mbd_form_solver solver;   /* dense, or sparse on planar rigid bodies (mbd_uk_sparse_fits) */
  int sparse;               /* the sparse form: pseudo-inverses by the leading matrix's LU */
  int kkt;                  /* 1: d->sp->klu holds the LU at the current positions (sparse form) */
  int stab_diag;            /* S = α I, T = β I (no full matrices given) */
  double *krhs;             /* n + m: right-hand side and solution of the leading matrix */
  double *mdiag;            /* n: sparse form, the diagonal of M (mass, mass, inertia per body) */
  double *xmax, *xmin;      /* m: sparse form, the vectors of the power and inverse iterations that
                               estimate B's largest and least singular values (ratio_estimate) */
  const mbd_data *run_data; /* the data whose evaluations advance them (the first evaluated) */
} mbd_uk;

static void destroy(void *self) {
  mbd_uk *u = self;
  if (!u) {
    return;
  }
  void *ps[] = {u->mih, u->a, u->B,  u->X,  u->r,     u->res,  u->S,     u->T,    u->L,
                u->rs,  u->w, u->pw, u->pB, u->drift, u->krhs, u->mdiag, u->xmax, u->xmin};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  mbd_lsq_free(&u->lsq);
  free(u);
}

static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  *self = NULL;
  mbd_form_solver ls;
  int rc0 = mbd_form_solver_init(&ls, m, d, o, MBD_FORM_UK, err);
  if (rc0 < 0) {
    return rc0;
  }
  mbd_uk *u = calloc(1, sizeof *u);
  if (!u) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
  }
  u->solver = ls;
  u->n = m->nv;
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
  u->rs = calloc(mr, sizeof(double));
  u->pw = calloc(n, sizeof(double));
  u->pB = calloc(mr * n, sizeof(double));
  u->drift = calloc((size_t)m->nqi + n, sizeof(double));
  u->krhs = calloc(n + mr, sizeof(double));
  u->mdiag = calloc(n, sizeof(double));
  u->xmax = calloc(mr, sizeof(double));
  u->xmin = calloc(mr, sizeof(double));
  u->sparse = ls.solver == MBD_LINSOLVE_SPARSE;
  u->position_tol = o->position_tol > 0 ? o->position_tol : 1e-8;
  u->max_newton = o->max_newton > 0 ? o->max_newton : 25;
  double qmax = 1;
  for (int i = 0; i < m->nq; i++) {
    qmax = fmax(qmax, fabs(m->q_asm[i]));
  }
  u->q_round = 8 * DBL_EPSILON * qmax;
  u->w = calloc(mr > n ? mr : n, sizeof(double));
  int spatial = 0;
  for (int b = 1; b < m->nbody; b++) {
    // flexible bodies: M is not diagonal in a planar model either (the Cholesky path serves)
    spatial |= mbd_body_kind_get(m->body[b].kind)->nnorm > 0 || m->body[b].nmode > 0;
  }
  if (spatial) {
    u->L = calloc(n * n, sizeof(double));
    if (!u->L) {
      destroy(u);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
    }
  }
  int big = (int)(mr > n ? mr : n);
  if (!u->mih || !u->a || !u->B || !u->X || !u->r || !u->res || !u->S || !u->T || !u->rs || !u->w ||
      !u->pw || !u->pB || !u->drift || !u->krhs || !u->mdiag || !u->xmax || !u->xmin ||
      mbd_lsq_alloc(&u->lsq, big, big, err) < 0) {
    destroy(u);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "udwadia_kalaba");
  }
  // the projection's metric: M^(−1/2) of the planar rigid bodies' constant diagonal M (mass,
  // mass, inertia), the identity for spatial and flexible models (any metric projects; M's makes
  // the velocity correction the kinetic-energy-nearest one)
  for (int k = 0; k < m->nblock; k++) {
    const mbd_block *bk = &m->block[k];
    const mbd_body *bd = bk->kind == MBD_BLOCK_BODY ? &m->body[bk->owner] : NULL;
    for (int i = 0; i < bk->nv; i++) {
      double mi = 1.0;
      if (!spatial && bd && bd->kind == MBD_BODY_RIGID2) {
        mi = i < 2 ? bd->mass : bd->inertia[8];
      }
      u->pw[bk->vadr + i] = 1.0 / sqrt(mi);
      u->mdiag[bk->vadr + i] = mi;
    }
  }
  for (int i = 0; i < u->m; i++) {
    u->xmax[i] = u->xmin[i] = 1.0 / sqrt((double)u->m);
  }
  // S, T: full matrices when given, else α I and β I
  if (o->stab_S || o->stab_T) {
    if (o->stab_n != u->m) {
      int rows = u->m;
      destroy(u);
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_UK_STAB, o->stab_n, o->stab_n, m->name, rows);
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
    u->stab_diag = 1;
  }
  for (size_t i = 0; i < mr * mr && u->m > 0; i++) {
    u->stabilized |= u->S[i] != 0 || u->T[i] != 0;
  }
  *self = u;
  return MBD_OK;
}

/* singular values of Φq M^(−1/2) below UK_RANK_TOL·σ₁ are taken as zero: the numerical rank (a
 * redundant constraint, or a mechanism at a singular configuration, where the Moore–Penrose
 * inverse drops the vanishing direction instead of dividing rounding errors by it) */
#define UK_RANK_TOL 1e-8
/* below this least singular value (relative) the projection refines the positions beyond
 * position_tol (project) */
#define UK_ILL_RATIO 1e-3
/* the stabilization terms −S Φ̇ − T Φ act through σ/(σ² + μ²), μ = UK_STAB_MU·σ₁ (a Tikhonov
 * filter): as 1/σ along well-conditioned directions, bounded by 1/(2μ) along directions whose
 * singular value vanishes at a singular configuration, where a drift of Φ would otherwise ask for
 * an acceleration growing like 1/σ and throw the mechanism onto another branch */
#define UK_STAB_MU 1e-3
/* the sparse form takes the SVD at a zero pivot of the leading matrix [M Φqᵀ; Φq 0], where its
 * pivot ratio falls below UK_KKT_REL times the run's first (or UK_KKT_ABS), and where the estimate
 * of σ_min/σ₁ (ratio_estimate) is below UK_SVD_RATIO.  The pivot ratio is only a safety net: on
 * the N-four-bar (N = 4, 16, 40) it never fell below 4e-3 of the start while σ_min/σ₁ came down to
 * 8e-5 (an LU need not show a nearly singular matrix in its pivots).  Where the switch falls does
 * not matter: measured on the same runs, the LU's and the SVD's accelerations at one state differ
 * by at most 1e-12 of the largest (σ_min/σ₁ from 1e-5 to 1, stabilization α = β = 5 included:
 * the Tikhonov filter changes the stabilization's part along direction k by μ²/(σ_k² + μ²) of a
 * term of the size of the drift) */
#define UK_KKT_REL 1e-4
#define UK_KKT_ABS 1e-12
#define UK_SVD_RATIO 1e-6

/* y ← y + α Φq x over all rows, from the sparse form's rows */
static void sparse_phiq_mv(const mbd_model *m, const mbd_data *d, double alpha, const double *x,
                           double *y) {
  const mbd_sparse *sp = d->sp;
  for (int r = 0; r < m->mrow; r++) {
    double acc = 0;
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      acc += sp->val[e] * x[sp->ci[e]];
    }
    y[r] += alpha * acc;
  }
}

/* the sparse form: the LU of [M Φqᵀ; Φq 0] (all rows are active) at the current positions.
 * u->kkt = 1 when it serves; 0 near a singular configuration (a zero pivot, or the pivot ratio
 * fallen below UK_KKT_REL of the run's first), the dense Φq then written for the SVD.  MBD_OK or
 * a negative status (err filled) */
static int kkt_factor(mbd_uk *u, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int n = u->n;
  // M: planar rigid bodies' constant diagonal (forces.c may not have built it yet)
  for (int i = 0; i < n; i++) {
    MBD_AT(d->M, n, i, i) = u->mdiag[i];
  }
  double ratio = 0;
  int kmin = 0;
  int piv = mbd_kkt_factor(m, d, 0, &ratio, &kmin, err);
  d->lu_factorizations++;
  if (piv < 0) {
    return piv;
  }
  double start = mbd_pivot_watch(d, piv, ratio);
  u->kkt = !(piv > 0 || ratio < UK_KKT_REL * start || ratio < UK_KKT_ABS);
  if (!u->kkt) {
    mbd_sparse_densify(m, d);
  }
  return MBD_OK;
}

/* x = −M^(−1/2) B⁺ r by the leading matrix's LU (full row rank): [M Φqᵀ; Φq 0][x; μ] = [0; −r] */
static void kkt_correction(mbd_uk *u, mbd_data *d, const double *r, double *x) {
  int n = u->n, mr = u->m;
  memset(u->krhs, 0, (size_t)n * sizeof(double));
  for (int k = 0; k < mr; k++) {
    u->krhs[n + k] = -r[d->active[k]];
  }
  mbd_kkt_solve(d, u->krhs);
  memcpy(x, u->krhs, (size_t)n * sizeof(double));
}

/* the estimate of σ_min/σ₁: UK_EST_ITERS power and inverse iterations per call, continued from the
 * last call's vectors (the run's evaluations are near one another: the iterations go on along the
 * motion).  A Rayleigh quotient bounds its extreme eigenvalue from inside, so the estimate of
 * σ_min/σ₁ is never below the true ratio */
#define UK_EST_ITERS 3

/* y = B Bᵀ x = Φq M⁻¹ Φqᵀ x (m), with scratch t (n) */
static void bbt_mv(mbd_uk *u, const mbd_model *m, const mbd_data *d, const double *x, double *y,
                   double *t) {
  const mbd_sparse *sp = d->sp;
  memset(t, 0, (size_t)u->n * sizeof(double));
  for (int r = 0; r < m->mrow; r++) {
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      t[sp->ci[e]] += sp->val[e] * x[r];
    }
  }
  for (int i = 0; i < u->n; i++) {
    t[i] /= u->mdiag[i];
  }
  memset(y, 0, (size_t)m->mrow * sizeof(double));
  sparse_phiq_mv(m, d, 1.0, t, y);
}

static double unit(int k, double *x) {
  double s = 0;
  for (int i = 0; i < k; i++) {
    s += x[i] * x[i];
  }
  s = sqrt(s);
  for (int i = 0; i < k && s > 0; i++) {
    x[i] /= s;
  }
  return s;
}

/* the sparse form with the LU at the current positions: an estimate of σ_min/σ₁ of B = Φq M^(−1/2)
 * (the quantity the projection's test of ill-conditioning reads) by power iteration on BBᵀ and
 * inverse iteration on it through the LU ([M Φqᵀ; Φq 0][x; μ] = [0; r] gives μ = −(BBᵀ)⁻¹ r).
 * The vectors advance only on the run's own data (a sample's evaluation reads them), so that
 * samples change nothing of the run and do not depend on one another */
static double ratio_estimate(mbd_uk *u, const mbd_model *m, mbd_data *d) {
  int n = u->n, mr = u->m;
  if (!u->run_data) {
    u->run_data = d;
  }
  double *x = u->r, *y = u->w, *t = d->tmp_n;  // (r, w: max(m, n) scratch, free here)
  double lmax = 0, nu = 0;
  // σ₁²: power iteration
  memcpy(x, u->xmax, (size_t)mr * sizeof(double));
  for (int it = 0; it < UK_EST_ITERS; it++) {
    bbt_mv(u, m, d, x, y, t);
    lmax = 0;
    for (int i = 0; i < mr; i++) {
      lmax += x[i] * y[i];
    }
    memcpy(x, y, (size_t)mr * sizeof(double));
    unit(mr, x);
  }
  if (d == u->run_data) {
    memcpy(u->xmax, x, (size_t)mr * sizeof(double));
  }
  // 1/σ_min²: inverse iteration
  memcpy(x, u->xmin, (size_t)mr * sizeof(double));
  for (int it = 0; it < UK_EST_ITERS; it++) {
    memset(u->krhs, 0, (size_t)n * sizeof(double));
    for (int k = 0; k < mr; k++) {
      u->krhs[n + k] = x[k];
    }
    mbd_kkt_solve(d, u->krhs);
    nu = 0;
    for (int k = 0; k < mr; k++) {
      y[k] = -u->krhs[n + k];
      nu += x[k] * y[k];
    }
    memcpy(x, y, (size_t)mr * sizeof(double));
    unit(mr, x);
  }
  if (d == u->run_data) {
    memcpy(u->xmin, x, (size_t)mr * sizeof(double));
  }
  if (!(lmax > 0) || !(nu > 0)) {
    return 0;  // (no such estimate: the SVD decides)
  }
  return sqrt(1.0 / (nu * lmax));
}

/* v̇ = a + S V y with the SVD U diag(σ) Vᵀ of B = Φq S (S = M^(−1/2), or L⁻ᵀ):
 *   y_k = (Uᵀ res)_k / σ_k  (σ_k > UK_RANK_TOL σ₁)  +  (Uᵀ rs)_k σ_k / (σ_k² + μ²)
 * (paper 004 eq 5 with the pseudo-inverse written out; res = γ − Φq a, rs the stabilization;
 * the filter is Gauss's principle's in singular.c) */
static int singular_solve(mbd_uk *u, mbd_data *d, const mbd_uk_root *S) {
  int n = u->n, mr = u->m, mn = mr < n ? mr : n;
  mbd_gauss_scale(mr, n, d->phiq, S, u->B);
  const double *U = u->svdU, *Vt = u->svdVt;
  if (!U) {
    int rc = mbd_svd(&u->lsq, mr, n, u->B, mr, &U, &Vt);
    if (rc != MBD_OK) {
      return rc;
    }
  }
  mbd_gauss_filter(mr, mn, U, u->lsq.s, u->res, u->stabilized ? u->rs : NULL, UK_RANK_TOL,
                   UK_STAB_MU, u->w);
  // x = V y (n), then v̇ = a + S x
  double *x = d->tmp_n;
  mbd_gemv(1, mn, n, 1.0, Vt, mn, u->w, 0.0, x);
  mbd_gauss_apply(n, S, u->a, x, d->vdot);
  return MBD_OK;
}

/* the sparse form away from singular configurations: [M Φqᵀ; Φq 0][v̇; λ] = [Q; b*] with the LU
 * of the projection (paper 004 eq 5 for a Φq of full row rank: the augmented system's solution,
 * whose λ is the least-squares one of accel below) */
static int accel_kkt(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda) {
  int n = u->n, mr = u->m;
  double *rhs = u->krhs;
  memcpy(rhs, d->Q, (size_t)n * sizeof(double));
  // b* = γ − S Φ̇ − T Φ (paper 004 eq 10), Φ̇ = Φq v + Φt
  double *rs = u->rs;
  if (u->stabilized) {
    double *phid = u->r;
    memcpy(phid, d->phit, (size_t)mr * sizeof(double));
    sparse_phiq_mv(m, d, 1.0, d->v, phid);
    if (u->stab_diag) {
      for (int i = 0; i < mr; i++) {
        rs[i] = -MBD_AT(u->S, mr, i, i) * phid[i];
        rs[i] += -MBD_AT(u->T, mr, i, i) * d->phi[i];
      }
    } else {
      mbd_gemv(0, mr, mr, -1.0, u->S, mr, phid, 0.0, rs);
      mbd_gemv(0, mr, mr, -1.0, u->T, mr, d->phi, 1.0, rs);
    }
  }
  for (int k = 0; k < mr; k++) {
    int r = d->active[k];
    rhs[n + k] = d->gamma[r] + (u->stabilized ? rs[r] : 0);
  }
  mbd_kkt_solve(d, rhs);
  memcpy(d->vdot, rhs, (size_t)n * sizeof(double));
  if (want_lambda) {
    for (int k = 0; k < mr; k++) {
      d->lambda[d->active[k]] = rhs[n + k];
    }
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

/* v̇ (and λ with want_lambda) at a state whose constraints (all rows) and forces are evaluated */
static int accel(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda, mbd_error *err) {
  int n = u->n, mr = u->m;
  // free motion a = M⁻¹Q and a square root S of M⁻¹ (spatial: M̃ = L Lᵀ, see the header)
  mbd_uk_root S;
  int piv = mbd_gauss_free_motion(m, d, u->L, u->mih, u->a, &S);
  if (piv != 0) {
    char what[96];
    mbd_model_coord_name(m, piv > 0 ? piv - 1 : 0, what, sizeof what);
    return MBD_FAIL(err, piv < 0 ? piv : MBD_E_SINGULAR, MSG_FORM_UK_MASS, d->t, what);
  }
  memcpy(d->vdot, u->a, (size_t)n * sizeof(double));
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  if (mr == 0) {
    mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
    return MBD_OK;
  }
  if (u->sparse && !u->kkt && !u->svdU) {
    // (no projection at this state: its decomposition now)
    int rc = kkt_factor(u, m, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  if (u->kkt) {
    accel_kkt(u, m, d, want_lambda);
    int finite = 1;
    for (int i = 0; i < n && finite; i++) {
      finite = isfinite(d->vdot[i]);
    }
    if (finite) {
      return MBD_OK;
    }
    // a solve that overflowed: the leading matrix nearly singular in a way the pivots and the
    // estimate did not show; the SVD decides (the state's own NaN stops the run there)
    u->kkt = 0;
    mbd_sparse_densify(m, d);
    memcpy(d->vdot, u->a, (size_t)n * sizeof(double));
    memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  }
  // b* − Φq a with b* = γ − S Φ̇ − T Φ (paper 004 eq 10), Φ̇ = Φq v + Φt: the exact part
  // γ − Φq a in res, the stabilization part −S Φ̇ − T Φ in rs
  double *res = u->res;
  memcpy(res, d->gamma, (size_t)mr * sizeof(double));
  mbd_gemv(0, mr, n, -1.0, d->phiq, mr, u->a, 1.0, res);
  if (u->stabilized) {
    double *phid = u->r;
    memcpy(phid, d->phit, (size_t)mr * sizeof(double));
    mbd_gemv(0, mr, n, 1.0, d->phiq, mr, d->v, 1.0, phid);
    mbd_gemv(0, mr, mr, -1.0, u->S, mr, phid, 0.0, u->rs);
    mbd_gemv(0, mr, mr, -1.0, u->T, mr, d->phi, 1.0, u->rs);
  }
  // v̇ = a + M^(−1/2) (Φq M^(−1/2))⁺ (b* − Φq a) (spatial: L⁻ᵀ in place of M^(−1/2))
  if (u->sparse) {
    d->gauss_evaluations++;  // (run.stats.singular_evaluations: the sparse form's SVDs)
  }
  int rc = singular_solve(u, d, &S);
  if (rc != MBD_OK) {
    return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_UK_SVD, d->t);
  }
  if (want_lambda) {
    // Φqᵀ λ = Q − M v̇ (least squares, minimum norm over redundant rows)
    // (the true M and Q: the multipliers are those of the physical constraint forces)
    memcpy(d->tmp_n, d->Q, (size_t)n * sizeof(double));
    mbd_gemv(0, n, n, -1.0, d->M, n, d->vdot, 1.0, d->tmp_n);
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < mr; k++) {
        MBD_AT(u->X, n, i, k) = MBD_AT(d->phiq, mr, k, i);
      }
    }
    // the least-squares solve takes the SVD workspace: the projection's SVD is gone
    u->svdU = u->svdVt = NULL;
    if (mbd_lsq_solve(&u->lsq, n, mr, u->X, n, d->tmp_n, d->lambda, 1e-12, NULL) != MBD_OK) {
      return MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_UK_MULT_SVD, d->t);
    }
  }
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return MBD_OK;
}

/* the SVD of B = Φq diag(pw) (all rows) at the current state, for min_norm_correction; *ratio
 * gets the least singular value kept (above UK_RANK_TOL·σ₁) relative to σ₁ */
static int projection_svd(mbd_uk *u, const mbd_data *d, const double **U, const double **Vt,
                          double *ratio) {
  int n = u->n, mr = u->m, mn = mr < n ? mr : n;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < mr; i++) {
      MBD_AT(u->pB, mr, i, j) = MBD_AT(d->phiq, mr, i, j) * u->pw[j];
    }
  }
  int rc = mbd_svd(&u->lsq, mr, n, u->pB, mr, U, Vt);
  if (rc != MBD_OK) {
    return rc;
  }
  const double *sv = u->lsq.s;
  *ratio = 1;
  for (int k = 0; k < mn && sv[k] > UK_RANK_TOL * sv[0] && sv[k] > 0; k++) {
    *ratio = sv[k] / sv[0];
  }
  return MBD_OK;
}

/* x = −diag(pw) B⁺ r over the singular values kept, from the SVD of projection_svd: the
 * minimum-norm correction (in the metric pw⁻²) that zeroes r to first order */
static void min_norm_correction(mbd_uk *u, const double *U, const double *Vt, const double *r,
                                double *x) {
  int n = u->n, mr = u->m, mn = mr < n ? mr : n;
  const double *sv = u->lsq.s;
  double cut = mn > 0 ? UK_RANK_TOL * sv[0] : 0;
  for (int k = 0; k < mn; k++) {
    double c = 0;
    if (sv[k] > cut && sv[k] > 0) {
      for (int i = 0; i < mr; i++) {
        c += MBD_AT(U, mr, i, k) * r[i];
      }
      c /= sv[k];
    }
    u->w[k] = c;
  }
  mbd_gemv(1, mn, n, -1.0, Vt, mn, u->w, 0.0, x);
  for (int j = 0; j < n; j++) {
    x[j] *= u->pw[j];
  }
}

/* the state from y, projected onto the constraint manifold: Newton with minimum-norm steps on
 * the positions until |Φ| ≤ position_tol, then the velocities corrected so that Φq v + Φt = 0.
 * Gauss's principle (paper 004 eq 5) holds the constraints only at the acceleration level; the
 * integrated state drifts, and near a singular configuration a drift of Φ or Φ̇ along a
 * vanishing singular value asks for an acceleration growing like 1/σ that throws the mechanism
 * onto another branch.  Evaluated at the consistent state, the residual along that direction
 * vanishes with σ and the acceleration stays right.  0, > 0 (Newton failed: retry a smaller
 * step) or < 0. */
static int project(mbd_uk *u, const mbd_model *m, mbd_data *d, mbd_error *err) {
  int mr = u->m;
  if (mr == 0) {
    return 0;
  }
  const double *U = NULL, *Vt = NULL;
  double res = 0, res_prev = INFINITY, step = INFINITY, step_prev = INFINITY, ratio = 1;
  for (int it = 0;; it++) {
    int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc < 0) {
      return rc;
    }
    res = mbd_position_violation(m, d);
    if (!isfinite(res)) {
      MBD_FAIL(err, MBD_E_NAN, MSG_FORM_PART_POS_NAN, d->t, res);
      return 1;
    }
    // the sparse form: the leading matrix's LU, unless near a singular configuration
    ratio = 1;
    if (u->sparse) {
      rc = kkt_factor(u, m, d, err);
      if (rc < 0) {
        return rc;
      }
    }
    if (!u->kkt) {
      rc = projection_svd(u, d, &U, &Vt, &ratio);
      if (rc != MBD_OK) {
        return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_UK_SVD, d->t);
      }
    }
    // near a singular configuration (least singular value kept small) a small residual does not
    // make the coordinates accurate: as in the partitioned position analysis (partition.c),
    // Newton goes on there until its step is below ratio·position_tol, the rounding level, or
    // no longer shrinks quadratically (at a singular root Newton only halves its step)
    // the sparse form: σ_min/σ₁ estimated where the test below reads it; at a configuration
    // nearer singular than UK_SVD_RATIO the SVD, as the dense form
    if (u->kkt && res <= u->position_tol) {
      ratio = ratio_estimate(u, m, d);
      if (ratio < UK_SVD_RATIO) {
        u->kkt = 0;
        mbd_sparse_densify(m, d);
        rc = projection_svd(u, d, &U, &Vt, &ratio);
        if (rc != MBD_OK) {
          return MBD_FAIL(err, rc == MBD_E_LAPACK ? rc : MBD_E_SINGULAR, MSG_FORM_UK_SVD, d->t);
        }
      }
    }
    if (res <= u->position_tol &&
        (ratio >= UK_ILL_RATIO || step <= fmax(ratio * u->position_tol, u->q_round) ||
         step > 0.25 * step_prev || it >= u->max_newton)) {
      break;
    }
    if (res > u->position_tol &&
        mbd_newton_floor(d, it, res, res_prev, u->q_round / (8 * DBL_EPSILON))) {
      break;
    }
    res_prev = res;
    if (it >= u->max_newton) {
      MBD_FAIL(err, MBD_E_NEWTON, MSG_FORM_UK_PROJECT, d->t, u->max_newton, res, u->position_tol);
      return 1;
    }
    // Φ of the velocity-level rows is 0: only position rows move the coordinates
    if (u->kkt) {
      kkt_correction(u, d, d->phi, d->tmp_n);
    } else {
      min_norm_correction(u, U, Vt, d->phi, d->tmp_n);
    }
    mbd_kin_move(m, d->q, d->tmp_n);
    mbd_stage_touch(d, MBD_STAGE_NONE);
    step_prev = step;
    step = 0;
    for (int j = 0; j < u->n; j++) {
      step = fmax(step, fabs(d->tmp_n[j]));
    }
    d->newton_iterations++;
  }
  // velocities, with the SVD at these positions: v ← v − diag(pw) B⁺ (Φq v + Φt)
  double *phid = u->r;
  memcpy(phid, d->phit, (size_t)mr * sizeof(double));
  if (u->kkt) {
    sparse_phiq_mv(m, d, 1.0, d->v, phid);
    kkt_correction(u, d, phid, d->tmp_n);
  } else {
    mbd_gemv(0, mr, u->n, 1.0, d->phiq, mr, d->v, 1.0, phid);
    min_norm_correction(u, U, Vt, phid, d->tmp_n);
  }
  for (int j = 0; j < u->n; j++) {
    d->v[j] += d->tmp_n[j];
  }
  mbd_stage_touch(d, MBD_STAGE_POSITION);
  // planar: the same B = Φq M^(−1/2) serves the accelerations (spatial ones use L⁻ᵀ); the sparse
  // form: the same LU
  if (!u->L && !u->kkt) {
    u->svdU = U;
    u->svdVt = Vt;
  }
  // γ depends on v (q unchanged: Φq stands)
  return mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
}

/* v̇ and λ at an evaluated state (contacts: again with new friction forces; B is unchanged, so
 * the SVD of the projection, when there is one, serves again) */
static int solve_fn(void *self, const mbd_model *m, mbd_data *d, int want_lambda, int reuse,
                    mbd_error *err) {
  (void)reuse;
  return accel(self, m, d, want_lambda, err);
}

static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
                mbd_error *err) {
  mbd_uk *u = self;
  u->svdU = u->svdVt = NULL;
  u->kkt = 0;
  memset(u->drift, 0, (size_t)(m->nqi + m->nv) * sizeof(double));
  if (m->ncontact > 0) {
    // contacts: their rows change with the contact modes and the surface parameters are solved
    // from the poses; the state is taken as integrated (no projection; assumption: contact
    // runs do not pass singular configurations of the joints)
    int solve = 0;
    int rc = mbd_form_prepare(m, d, NULL, t, y, flags, &solve, err);
    if (!solve) {
      return rc;
    }
    return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_DERIV_LAMBDA, err);
  }
  d->t = t;
  memcpy(d->q, y, (size_t)m->nqi * sizeof(double));
  memcpy(d->v, y + m->nqi, (size_t)m->nv * sizeof(double));
  mbd_stage_touch(d, MBD_STAGE_NONE);
  int rc = project(u, m, d, err);
  if (rc != 0 || (flags & MBD_DERIV_KINEMATIC)) {
    return rc;
  }
  for (int i = 0; i < m->nqi + m->nv; i++) {
    u->drift[i] = (i < m->nqi ? d->q[i] : d->v[i - m->nqi]) - y[i];
  }
  rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
  if (rc != MBD_OK) {
    return rc;
  }
  return mbd_contact_dynamics(self, solve_fn, m, d, flags & MBD_DERIV_LAMBDA, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
                 mbd_error *err) {
  ((mbd_uk *)self)->svdU = ((mbd_uk *)self)->svdVt = NULL;
  ((mbd_uk *)self)->kkt = 0;
  return mbd_contact_event(&mbd_form_udwadia_kalaba, self, solve_fn, NULL, m, d, t, y, found, err);
}

/* y' = [q̇; v̇] at the projected state, plus k (projected − y): the integrated state follows its
 * projection (a drift of y along the manifold's normal would otherwise turn tangential as the
 * manifold curves and change the energy); the projected motion itself is unchanged to first
 * order, the correction being normal to the manifold */
#define UK_DRIFT_RATE 10.0
static void deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot) {
  const mbd_uk *u = self;
  mbd_cart_deriv(self, m, d, ydot);
  for (int i = 0; i < m->nqi + m->nv; i++) {
    ydot[i] += UK_DRIFT_RATE * u->drift[i];
  }
}

static void stats(const void *self, mbd_run_stats *st) {
  mbd_form_solver_stats(&((const mbd_uk *)self)->solver, st);
}

const mbd_form_ops mbd_form_udwadia_kalaba = {.name = "udwadia_kalaba",
                                              .create = create,
                                              .ny = mbd_cart_ny,
                                              .pack = mbd_cart_pack,
                                              .eval = eval,
                                              .deriv = deriv,
                                              .ycoord = mbd_cart_ycoord,
                                              .nroot = mbd_contact_nroot,
                                              .roots = mbd_contact_roots,
                                              .event = event,
                                              .stats = stats,
                                              .destroy = destroy};
