/* mbd — private interface of the formulations */
#ifndef MBD_FORMULATIONS_H
#define MBD_FORMULATIONS_H

#include "../model/model_impl.h"

/* γ* = γ − 2α Φ̇ − β² Φ on the active rows (constraints evaluated and gathered) */
void mbd_baumgarte_gamma(const mbd_model *m, const mbd_data *d, double alpha, double beta,
                         double *gstar);

/* udwadia_kalaba.c: workspace sized at the start of a run (all mrow constraint rows) */
typedef struct mbd_uk {
  int n, m;             /* coordinates, constraint rows (all) */
  double *mih;          /* n: diagonal of M^(−1/2) */
  double *a;            /* n: free acceleration M⁻¹Q */
  double *B, *X;        /* m×n Φq M^(−1/2) (ld m) and n×m its Moore–Penrose inverse (ld n) */
  double *r;            /* max(m, n) scratch */
  double *res;          /* m: b* − Φq a */
  double *S, *T;        /* m×m stabilization (ld m) */
  double *L;            /* spatial: n×n Cholesky factor of M̃ = M + Σ s (2p)(2p)ᵀ, else NULL */
  double *Qt;           /* spatial: n, Q̃ = Q + Σ s (2p) γ_norm */
  mbd_lsq_ws lsq;       /* SVD workspace, max(m, n) square */
} mbd_uk;
int mbd_uk_alloc(mbd_uk **out, const mbd_model *m, const mbd_sim_opts *o, mbd_error *err);
void mbd_uk_free(mbd_uk *u);
/* q̈ (and λ with want_lambda) at a state whose constraints (all rows) and forces are evaluated */
int mbd_uk_accel(mbd_uk *u, const mbd_model *m, mbd_data *d, int want_lambda, mbd_error *err);

/* coordinate partitioning (partition.c), shared by gcp and kane */
typedef struct mbd_part {
  int n, ma, f;         /* coordinates, dependent (active rows), independent */
  int *perm;            /* n: dependent columns first (perm[0..ma)), then independent */
  double *jd2;           /* ma×ma scratch: a candidate block */
  double *jd;           /* ma×ma LU factors of Φ_qd at the current state */
  int *jpiv;            /* ma pivots */
  double jd_norm;       /* 1-norm of Φ_qd before factoring */
  double rcond;         /* reciprocal condition of the current Φ_qd */
  double rcond0;        /* at partition time */
  int degraded;         /* set when rcond < rcond0 / 10 */
  double *x;            /* ma×f scratch: Φ_qd⁻¹ Φ_qi */
  double *B;            /* n×f partial velocity matrix (kane) */
  double *K;            /* n×n reduced leading matrix [BᵀM; Φq] (kane) */
  double *r;            /* n right-hand side */
  int *kpiv;            /* n pivots */
  double *work;         /* 4·ma for dgecon */
  int *iwork;           /* ma */
  int *perm_old;        /* n: the partition before a re-partition check */
  long repartitions;
} mbd_part;
void mbd_part_partial_velocities(mbd_part *p, const mbd_data *d);
/* gcp.c: accelerations and multipliers from the augmented system at a consistent state */
int mbd_gcp_accel(const mbd_model *m, mbd_data *d, mbd_error *err);
int mbd_part_alloc(mbd_part **out, const mbd_model *m, mbd_error *err);
void mbd_part_free(mbd_part *p);
int mbd_part_nindep(const mbd_part *p);
long mbd_part_repartitions(const mbd_part *p);
const int *mbd_part_perm(const mbd_part *p);
int mbd_part_choose(mbd_part *p, const mbd_model *m, mbd_data *d, mbd_error *err);
void mbd_part_pack(const mbd_part *p, const mbd_data *d, double *y);
int mbd_part_state(mbd_part *p, const mbd_model *m, mbd_data *d, double t, const double *y,
                   double tol, int max_iter, mbd_error *err);
const double *mbd_part_B(mbd_part *p, const mbd_data *d);
int mbd_part_accel_kane(mbd_part *p, const mbd_model *m, mbd_data *d, int want_lambda,
                        mbd_error *err);
int mbd_part_better(mbd_part *p, const mbd_model *m, mbd_data *d);
int mbd_part_maybe_repartition(mbd_part *p, const mbd_model *m, mbd_data *d, double *y,
                               mbd_error *err);

#endif
