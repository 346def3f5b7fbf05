/* mbd — the formulation interface (private to formulations/ and sim/).
 *
 * A formulation turns the constrained equations of motion of an assembled model into a
 * first-order ODE y' = f(t, y) for the integrator: it chooses what y holds (all coordinates and
 * velocities, or only the independent ones), how a state is completed from y (position and
 * velocity analyses), and how accelerations and multipliers are solved for.  The driver
 * (engine/sim/simulate.c) knows nothing else about it: it looks the ops table up (lookup.c; the
 * formulation's descriptor, mbd/formulation.h, whose capabilities it reads, is table.c's) and
 * calls through it.
 *
 *   augmented       y = [q; v]        [M Φqᵀ; Φq 0][v̇; λ] = [Q; γ]            paper 000 eq 13
 *   baumgarte       y = [q; v]        the same with γ − 2αΦ̇ − β²Φ             paper 000 eq 5–9
 *   gcp             y = [q_i; v_i]    partition, analyses, the augmented solve  paper 000 eq 10–13
 *   kane            y = [q_i; v_i]    partition, [BᵀM; Φq] v̇ = [BᵀQ; γ]       paper 000 eq 46
 *   udwadia_kalaba  y = [q; v]        v̇ = a + M^−½(Φq M^−½)⁺(b* − Φq a)        paper 004 eq 5
 *   relative        y of one of the above on the joint coordinates of a spanning tree (paper 002
 *                   eq 9–11: M̄ = BᵀMB, ḡ = Bᵀ(f − M(Bq̇)_q q̇ − h), cut-joint rows) */
#ifndef MBD_FORMULATIONS_H
#define MBD_FORMULATIONS_H

#include "../kinematics/kinematics.h"

/* flags of a formulation's evaluation (deriv and state); MBD_FORM_* are formulation numbers only,
 * MBD_EVAL_* the kinematic stage's flags (kinematics.h) */
enum {
  MBD_DERIV_LAMBDA = 1,   /* also the multipliers (reactions, efforts) */
  MBD_DERIV_SAMPLE = 2,   /* a sample or a root function on a copy of the state: change nothing
                             that steers the integration (conditioning watch, partition) */
  MBD_DERIV_KINEMATIC = 4 /* only the consistent state (positions, velocities, poses, rows) */
};

/* event(): the state size changed (y re-packed by the driver after ny()) */
#define MBD_EVENT_RESIZED 4

typedef struct mbd_form_ops {
  const char *name;
  /* options only this formulation reads; MBD_E_INPUT naming the option.  May be NULL. */
  int (*check)(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err);
  /* its run state for m, starting from d (initial state, rows evaluated and gathered) */
  int (*create)(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                mbd_error *err);
  /* the size of the integrated state y */
  int (*ny)(const void *self, const mbd_model *m);
  /* y from the state in d */
  void (*pack)(const void *self, const mbd_model *m, const mbd_data *d, double *y);
  /* d from y at t, then (unless MBD_DERIV_KINEMATIC) forces, v̇ and, with MBD_DERIV_LAMBDA, λ.
   * 0 ok, > 0 the state could not be completed (the integrator retries a smaller step; err says
   * why), < 0 stop with that status. */
  int (*eval)(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
              mbd_error *err);
  /* y' from the evaluated d */
  void (*deriv)(const void *self, const mbd_model *m, const mbd_data *d, double *ydot);
  /* the velocity coordinate behind y' component i; *accel = 1 when it is an acceleration */
  int (*ycoord)(const void *self, const mbd_model *m, int i, int *accel);
  /* after an accepted step at (t, y), d holding the integration's last evaluation: 0 go on, 1 y
   * was changed (re-partition: restart the integrator), < 0 stop.  May be NULL. */
  int (*step)(void *self, const mbd_model *m, mbd_data *d, double t, double *y, mbd_error *err);
  /* its own root functions (mode switches such as stick and slip), may be NULL: how many, their
   * values at the state of d (evaluated from y), and the switch when one crossed zero at t
   * (found[i] = ±1): 0 same size (y may change), MBD_EVENT_RESIZED, or < 0 */
  int (*nroot)(const void *self, const mbd_model *m);
  /* 1 when its root functions read only the kinematic state (positions, velocities, rows), so
   * that the driver evaluates them without forces or accelerations; NULL: they need those */
  int (*roots_kinematic)(const void *self, const mbd_model *m);
  int (*roots)(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
               mbd_error *err);
  int (*event)(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
               mbd_error *err);
  /* (event with found == NULL: the modes at the start of the run, before the first step) */
  /* its counters into the run's statistics (re-partitions) */
  void (*stats)(const void *self, mbd_run_stats *st);
  /* the model whose coordinates y holds, for names in messages (relative: the model in joint
   * coordinates); NULL op: the driver's model */
  const mbd_model *(*ymodel)(const void *self);
  /* the name the run reports, once created (relative on Cartesian coordinates: the formulation
   * that solves); NULL op: name */
  const char *(*display)(const void *self);
  void (*destroy)(void *self);
  /* 1 when a run of m with o never reads the driver's dense Φq (the relative formulation's
   * recursive solve: its samples take the rows in the sparse form), so the driver's data keep
   * the rows sparse from the start — O(rows), not rows × coordinates; NULL op: 0 */
  int (*rows_sparse)(const mbd_model *m, const mbd_sim_opts *o);
} mbd_form_ops;

/* the ops of formulation f (mbd_formulation; lookup.c, its descriptor in table.c), NULL outside */
const mbd_form_ops *mbd_form_lookup(int f);
/* the same for the Cartesian kernels only (kernels.c: what relative solves with), NULL for
 * relative and outside */
const mbd_form_ops *mbd_form_kernel(int f);

extern const mbd_form_ops mbd_form_augmented, mbd_form_baumgarte, mbd_form_gcp, mbd_form_kane,
    mbd_form_udwadia_kalaba, mbd_form_relative;

/* ------------------------------------------------------------------------------------------ */
/* shared pieces                                                                               */

/* augmented_solve.c: v̇ and λ from [M Φqᵀ; Φq 0] with the right-hand side γ* (ma) on the active
 * rows; MBD_RESELECTED when the active rows were chosen again and γ* (not gamma_a) must be
 * rebuilt */
int mbd_dynamics_augmented(const mbd_model *m, mbd_data *d, const double *gamma_star,
                           mbd_error *err);

/* gcp: the same solve (the two differ only in the contacts' reuse of the factorization) */
int mbd_dynamics_gcp(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                     mbd_error *err);
/* singular.c: Gauss's principle near a singular configuration (augmented_solve.c calls it where
 * the leading matrix's pivot ratio has fallen by AUG_GAUSS_REL, for every Cartesian formulation):
 *   v̇ = a + S (Φq S)⁺ (γ − Φq a) + S V filter(σ) Uᵀ (γ* − γ)
 * on the active rows (any rank), and with want_lambda the minimum-norm multipliers of
 * Φqᵀλ = Q − M v̇.  MBD_E_SINGULAR naming the row when the mechanism is locked (the acceleration
 * equations inconsistent where Φq lost rank), or when the SVD fails. */
int mbd_dynamics_gauss(const mbd_model *m, mbd_data *d, const double *gamma_star, int want_lambda,
                       mbd_error *err);
/* cartesian.c: the state of the formulations that integrate every coordinate, y = [q; v]: the
 * ops ny, pack, deriv, ycoord they share (mbd_form_prepare takes the state from y) */
int mbd_cart_ny(const void *self, const mbd_model *m);
void mbd_cart_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y);
void mbd_cart_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot);
int mbd_cart_ycoord(const void *self, const mbd_model *m, int i, int *accel);

/* linear_solver.c: what a formulation's run state keeps of the choice (for run.stats) */
typedef struct mbd_form_solver {
  int solver;        /* MBD_LINSOLVE_DENSE or MBD_LINSOLVE_SPARSE */
  const mbd_data *d; /* the integration's data (its symbolic analyses are counted) */
  long analyses;     /* further symbolic analyses of the formulation's own (a partition) */
} mbd_form_solver;
int mbd_form_solver_init(mbd_form_solver *s, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                         int form, mbd_error *err);
void mbd_form_solver_stats(const mbd_form_solver *s, mbd_run_stats *st);
/* partition.c: coordinate partitioning shared by gcp and kane (paper 000 eq 10–23).  With
 * velocity-level rows active (rolling contacts) the positions have their own partition: the
 * position rows fix mp dependent positions, all active rows ma dependent velocities, and
 * y = [q_i (n − mp); v_i (n − ma)]. */
/* schur.c: the sparse form's v̇ and λ of eq 13 on the active rows (right-hand side gamma_a)
 * through the Schur complement Φq M⁻¹ Φqᵀ of M's blocks, its pattern kept in *s (made on the
 * first call; mbd_schur_free).  Returns 1 when solved, 0 when this model or state is left to the
 * KLU path (mbd_dynamics_augmented), or an error. */
typedef struct mbd_schur mbd_schur;
int mbd_schur_dynamics(mbd_schur **s, const mbd_model *m, mbd_data *d, mbd_error *err);
/* its arrays and the pattern of the active rows of d, before the integration */
int mbd_schur_prepare(mbd_schur **s, const mbd_model *m, mbd_data *d, mbd_error *err);
void mbd_schur_free(mbd_schur *s);

typedef struct mbd_part {
  int n, ma, f;    /* coordinates, dependent (active rows), independent */
  int *perm;       /* n: dependent columns first (perm[0..ma)), then independent */
  double *jd_cand; /* ma×ma scratch: a candidate dependent block */
  double *jd;      /* ma×ma LU factors of Φ_qd at the current state */
  int *jpiv;       /* ma pivots */
  double rcond;    /* pivot ratio min|U_kk|/max|U_kk| of the current Φ_qd */
  double rcond0;   /* at partition time */
  int degraded;    /* set when a clearly better partition exists */
  double *x;       /* ma×f scratch: Φ_qd⁻¹ Φ_qi */
  double *B;       /* n×f partial velocity matrix (kane) */
  double *K;       /* n×n reduced leading matrix [BᵀM; Φq] (kane) */
  double *r;       /* n right-hand side */
  int *kpiv;       /* n pivots */
  int *perm_old;   /* n: the partition before a re-partition check */
  long repartitions;
  double position_tol; /* Newton tolerance of the position analysis */
  double q_round;      /* rounding level of the coordinates (Newton's floor near singularity) */
  int max_newton;      /* its iterations */
  int mp, fp;          /* active position rows, independent positions (mp = ma without
                          velocity rows) */
  int sep;             /* 1: velocity rows active, the position partition is its own */
  int *pperm;          /* n: the position partition (= perm when sep is 0) */
  int *pperm_old;      /* n: scratch */
  int *prow;           /* mrow: the position rows' places among the active rows */
  double *phiq_p;      /* mrow×n: the position rows of Φq (ld mp) */
  double *jp;          /* mrow²: LU of Φ_p at the dependent positions (ld mp) */
  int *jppiv;          /* mrow pivots */
  /* the sparse form (linear_solver "sparse"): Φ_qd in compressed columns factored by KLU, in
   * the data's arrays (mbd_sparse), made again when the partition (pid) or the rows change */
  mbd_form_solver solver; /* dense or sparse, and the symbolic analyses of Φ_qd */
  long pid;               /* the partition's number (every choice a new one) */
  double sratio;          /* its pivot ratio (the dense form reads jd's) */
  int keep;               /* 1: a Φ_qd unchanged since its factorization keeps it (a test's
                             MBD_PART_KEEP=0 factors every time) */
  const double *colw;     /* n column weights for the choice's QR, or NULL (mbd_aug_pass) */
  double *modw;           /* n: the choice's weights of the coordinates' kinds (modal columns
                             PART_MODAL_WEIGHT, others 1), NULL without flexible bodies */
  double *wy, *wv; /* 3n + 2, 2n + 2: the window's direction and shifted state, its accelerations */
  double *wq;      /* nq + 2n + 2: the point's positions and velocities, a move */
  mbd_lsq_ws wlsq; /* its SVD of Φq */
  int in_window;   /* 1 while the window's own evaluations run */
  mbd_schur *schur; /* kane's sparse form: the Schur-complement solve (schur.c), or NULL */
  int schur_last;   /* 1: the last solve was the Schur complement's (no KLU factors to reuse) */
} mbd_part;
int mbd_part_alloc(mbd_part **out, const mbd_model *m, const mbd_data *d, const mbd_sim_opts *o,
                   mbd_error *err);
void mbd_part_free(mbd_part *p);
int mbd_part_choose(mbd_part *p, const mbd_model *m, mbd_data *d, mbd_error *err);
void mbd_part_pack(const mbd_part *p, const mbd_data *d, double *y);
int mbd_part_state(mbd_part *p, const mbd_model *m, mbd_data *d, double t, const double *y,
                   int flags, mbd_error *err);
void mbd_part_partial_velocities(mbd_part *p, const mbd_data *d);
int mbd_part_step(mbd_part *p, const mbd_model *m, mbd_data *d, double t, double *y,
                  mbd_error *err);
/* an evaluation of a partitioned formulation (its eval op) */
typedef int (*mbd_part_base_fn)(void *self, const mbd_model *m, mbd_data *d, double t,
                                const double *y, int flags, mbd_error *err);
/* base at y, unless y lies in the window of a singular configuration (σ_min/σ_max of Φq below
 * 3e-3, where round-off amplified as ε/σ³ makes the accelerations noise an integrator creeps on):
 * there the independent accelerations are interpolated linearly, along the independent velocity
 * direction, between base evaluations at the window's edges on both sides (its crossing located
 * from σ's slope), the state at y itself kept for the channels; counted in d->gauss_evaluations.
 * Error of the interpolation: about f''·w²/8 over the window's width w, only while inside it. */
int mbd_part_windowed(mbd_part *p, void *self, mbd_part_base_fn base, const mbd_model *m,
                      mbd_data *d, double t, const double *y, int flags, mbd_error *err);
/* the ops gcp and kane share (self is the mbd_part) */
int mbd_partitioned_check(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err);
int mbd_partitioned_create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                           mbd_error *err);
int mbd_partitioned_ny(const void *self, const mbd_model *m);
void mbd_partitioned_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y);
void mbd_partitioned_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot);
int mbd_partitioned_ycoord(const void *self, const mbd_model *m, int i, int *accel);
int mbd_partitioned_step(void *self, const mbd_model *m, mbd_data *d, double t, double *y,
                         mbd_error *err);
void mbd_partitioned_stats(const void *self, mbd_run_stats *st);
void mbd_partitioned_destroy(void *self);

/* the part of every eval before the solve (cartesian.c): the state from y — the partition's
 * analyses when p is given, else y = [q; v] — then, unless MBD_DERIV_KINEMATIC, M and Q.  *solve = 1
 * when the caller goes on to the accelerations; otherwise the status is the eval's result. */
int mbd_form_prepare(const mbd_model *m, mbd_data *d, mbd_part *p, double t, const double *y,
                     int flags, int *solve, mbd_error *err);

/* augmented.c: the passage of singular configurations for augmented and baumgarte — when Φq's
 * σ_min/σ_max falls below 1e-1 of its start (a root function), the state is projected onto the
 * constraints and integrated in the independent coordinates of a partition (gcp's), until it is
 * back above 2e-1.  Their run state starts with it, so the
 * ops below (mbd_aug_*) serve both. */
typedef struct mbd_aug_pass {
  mbd_part *p;           /* the partition of a passage; NULL: the model has no passage (contacts,
                            many coordinates) */
  int on;                /* 1: passing, y = [q_i; v_i] of p */
  long passages;         /* passages made */
  double sv0;            /* σ_min / σ_max of Φq at the start (0: no passage) */
  double sv_last;        /* and at the last root evaluation that computed it */
  const mbd_data *d_int; /* the integration's data (its last pivot ratio filters the roots) */
  mbd_lsq_ws lsq;        /* its SVD's workspace */
  double *J;             /* max(nv, mrow)²: Φq of the active rows, dense (the sparse form's) */
  double *w;             /* nv: the partition's column weights at an entry */
} mbd_aug_pass;
int mbd_aug_pass_init(mbd_aug_pass *ps, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                      const mbd_form_solver *solver, mbd_error *err);
void mbd_aug_pass_free(mbd_aug_pass *ps);
/* at its root: into the passage (projection and partition) or out of it; MBD_EVENT_RESIZED */
int mbd_aug_pass_switch(mbd_aug_pass *ps, const mbd_model *m, mbd_data *d, double t,
                        mbd_error *err);
int mbd_aug_ny(const void *self, const mbd_model *m);
void mbd_aug_pack(const void *self, const mbd_model *m, const mbd_data *d, double *y);
void mbd_aug_deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot);
int mbd_aug_ycoord(const void *self, const mbd_model *m, int i, int *accel);
int mbd_aug_step(void *self, const mbd_model *m, mbd_data *d, double t, double *y, mbd_error *err);
int mbd_aug_nroot(const void *self, const mbd_model *m);
int mbd_aug_roots_kinematic(const void *self, const mbd_model *m);
int mbd_aug_roots(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
                  mbd_error *err);
void mbd_aug_stats(const void *self, mbd_run_stats *st);
/* the formulation's evaluation base, across the window of a singular configuration while passing
 * (mbd_part_windowed) */
int mbd_aug_eval(void *self, mbd_part_base_fn base, const mbd_model *m, mbd_data *d, double t,
                 const double *y, int flags, mbd_error *err);
/* mbd_form_prepare with the passage's partition while passing */
int mbd_aug_prepare(void *self, const mbd_model *m, mbd_data *d, double t, const double *y,
                    int flags, int *solve, mbd_error *err);

/* augmented_solve.c: the pivot ratio of a leading-matrix factorization (piv 0: regular) into the
 * run's watch — the re-selection baseline d->aug_ratio0, the run's first ratio
 * d->aug_ratio_start, the least ratio relative to it (d->sing_ratio at d->sing_t) — returning the
 * scale of the singular-configuration tests (the first ratio, or this one before any) */
double mbd_pivot_watch(mbd_data *d, int piv, double ratio);

/* augmented_solve.c: the solve of mbd_dynamics_augmented again with a new right-hand side (d->Q
 * and γ*), reusing its factorization of the leading matrix (Gauss's principle again when the last
 * solve was one: d->gauss_solved) */
int mbd_dynamics_augmented_again(const mbd_model *m, mbd_data *d, const double *gamma_star,
                                 mbd_error *err);

/* contact_dynamics.c: contacts in every formulation (paper 001).  A formulation's solve: v̇ (and λ with
 * want_lambda) at a state whose constraints and forces are evaluated; reuse = 1 when only d->Q
 * changed since its last call (its factorization stands).  Its rebase: after the active rows
 * changed, its own state follows (a new partition); may be NULL. */
typedef int (*mbd_form_solve_fn)(void *self, const mbd_model *m, mbd_data *d, int want_lambda,
                                 int reuse, mbd_error *err);
typedef int (*mbd_form_rebase_fn)(void *self, const mbd_model *m, mbd_data *d, mbd_error *err);
/* v̇ and λ with the sliding contacts' friction for their normal forces: the fixed-point iteration
 * on N (forces evaluated; λ always computed when the model has contacts) */
int mbd_contact_dynamics(void *self, mbd_form_solve_fn solve, const mbd_model *m, mbd_data *d,
                         int want_lambda, mbd_error *err);
/* the contacts' root functions (three per contact) and their switches (the ops nroot, roots,
 * event of formulation ops; event re-solves with solve after rebase, and packs y itself when its
 * size stands — no reallocation — else returns MBD_EVENT_RESIZED) */
int mbd_contact_nroot(const void *self, const mbd_model *m);
int mbd_contact_roots(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
                      mbd_error *err);
int mbd_contact_event(const mbd_form_ops *ops, void *self, mbd_form_solve_fn solve,
                      mbd_form_rebase_fn rebase, const mbd_model *m, mbd_data *d, double t,
                      double *y, const int *found, mbd_error *err);

/* udwadia_kalaba.c: the core shared with coordinate-level systems (paper 004 eq 5, 10):
 *   v̇ = a + S (C S)⁺ (b* − C a)
 * for a constraint matrix C (mc×n, ld mc), a residual b*, the free motion a and a square root S
 * of M⁻¹ given either as a diagonal (sdiag, n entries), a dense n×n matrix (sfull) or a Cholesky
 * factor L of M (S = L⁻ᵀ, lchol).  Workspace: B (mc×n), X (n×mc), tmp (n), and an SVD workspace
 * sized for mc×n.  res is overwritten.  MBD_OK or the SVD's status. */
typedef struct mbd_uk_root {
  const double *sdiag; /* n: diagonal square root, or NULL */
  const double *sfull; /* n×n dense square root (column-major), or NULL */
  const double *lchol; /* n×n lower Cholesky factor of M (S = L⁻ᵀ), or NULL */
} mbd_uk_root;
int mbd_uk_solve(int mc, int n, const double *C, const mbd_uk_root *S, const double *a, double *res,
                 double rcond, double *B, double *X, double *tmp, mbd_lsq_ws *lsq, double *vdot);

/* singular.c, the pieces of Gauss's principle that udwadia_kalaba shares:
 * the free motion a = M̃⁻¹Q̃ and a square root S of M̃⁻¹ — S->sdiag = diag (n) when M is diagonal
 * (planar rigid bodies), else S->lchol = L (n×n) the Cholesky factor of M̃ = M + Σ s(2p)(2p)ᵀ over
 * the Euler parameters p (Q̃ = Q + Σ s(2p)(−2ṗᵀṗ)); 0, or the Cholesky's failed pivot (> 0) */
int mbd_gauss_free_motion(const mbd_model *m, const mbd_data *d, double *L, double *diag, double *a,
                          mbd_uk_root *S);
/* B = C S (mr×n, ld mr) */
void mbd_gauss_scale(int mr, int n, const double *C, const mbd_uk_root *S, double *B);
/* w_k (mn) from the SVD U diag(sv) Vᵀ of B: (U_kᵀ res)/σ_k for σ_k > rank_tol σ₁, plus
 * (U_kᵀ rs) σ_k/(σ_k² + μ²), μ = mu_rel σ₁, when rs is given (the stabilization's filter) */
void mbd_gauss_filter(int mr, int mn, const double *U, const double *sv, const double *res,
                      const double *rs, double rank_tol, double mu_rel, double *w);
/* v̇ = a + S x (x, n entries, is overwritten) */
void mbd_gauss_apply(int n, const mbd_uk_root *S, const double *a, double *x, double *vdot);

/* linear_solver.c: whether udwadia_kalaba's sparse form applies to m on d — planar rigid bodies (M
 * diagonal), no contacts nor joint friction, every row active (none set aside by the rank test) */
int mbd_uk_sparse_fits(const mbd_model *m, const mbd_data *d);

/* linear_solver.c: the linear solver of a run (linear_solver; "auto" by size and structure) for
 * formulation form on the data d of its integration: MBD_LINSOLVE_DENSE, or MBD_LINSOLVE_SPARSE
 * with the sparse form switched on in d; MBD_E_INPUT when "sparse" was asked where it is not
 * written (err says why) */
int mbd_form_choose_solver(const mbd_model *m, mbd_data *d, const mbd_sim_opts *o, int form,
                           mbd_error *err);

#endif
