/* mbd — the equations of motion at one instant, for teaching and for looking inside a run
 * (m:explain): the state, the constraints Φ with their Jacobian Φq (rows and columns named), γ,
 * the mass matrix M and the applied forces Q, the partition into dependent and independent
 * coordinates with the partial velocity matrix B (paper 000 eq 10–23), the accelerations and the
 * multipliers λ of the augmented system (eq 13), and what each row's λ is physically.
 * Matrices are column-major. */
#ifndef MBD_EXPLAIN_H
#define MBD_EXPLAIN_H

#include "mbd/model.h"

#define MBD_EXPLAIN_NAME 192  /* bytes of a name or a label */

typedef struct mbd_explain {
  double t;             /* the instant, s */
  int nq, n, nrow;      /* positions, velocity coordinates (columns of Φq), constraint rows */
  int ma, f;            /* active rows (kept by the rank test), degrees of freedom n − ma */
  double residual;      /* max |Φ| of the state as given (read from the run), before projection */
  int rank;             /* numerical rank of the active rows of Φq (QR with column pivoting) */
  double pivot_ratio;   /* smallest / largest |R_kk| of that QR: near 0 at a singular configuration */
  char (*coord)[MBD_EXPLAIN_NAME];   /* n: "crank.theta" */
  char (*row)[MBD_EXPLAIN_NAME];     /* nrow: short row names "O.x", "S.normal", "drive(O)" */
  char (*meaning)[MBD_EXPLAIN_NAME]; /* nrow: the row's equation in words */
  char (*lambda_is)[MBD_EXPLAIN_NAME]; /* nrow: what −λ of the row is physically */
  int *active;          /* nrow: 1 when the row is active */
  double *q;            /* nq positions (spatial: Euler parameters included) */
  double *v;            /* n velocities */
  double *phi;          /* nrow: Φ */
  double *phiq;         /* nrow × n: Φq (ld nrow) */
  double *phit;         /* nrow: Φt */
  double *gamma;        /* nrow: γ, the acceleration right-hand side (Φq v̇ = γ) */
  int *dependent;       /* ma coordinate indices (increasing): q_d */
  int *independent;     /* f coordinate indices (increasing): q_i */
  double *B;            /* n × f partial velocities (ld n): v = B v_i (paper 000 eq 22–23) */
  double *M;            /* n × n mass matrix (ld n) */
  double *Q;            /* n applied forces (gravity, forces, springs, velocity terms) */
  double *vdot;         /* n accelerations */
  double *lambda;       /* nrow multipliers (0 for inactive rows) */
  int nreaction;        /* joints */
  struct mbd_explain_reaction {
    char joint[MBD_EXPLAIN_NAME];   /* the joint's name */
    char body[MBD_EXPLAIN_NAME];    /* the body the reaction acts on (body2) */
    double force[3];    /* reaction force on body2, global (channels <joint>.fx .fy .fz) */
    double torque[3];   /* reaction torque on body2 about the joint point, global (planar:
                           torque[2]); channels <joint>.tx .ty .tz when spatial */
    int driven;         /* 1 when a drive prescribes the joint */
    double effort;      /* the drive's torque or force (channel <joint>.effort) */
  } *reaction;
  int ncontact;         /* contacts, then frictional joints (paper 001) */
  struct mbd_explain_contact {
    char name[MBD_EXPLAIN_NAME];  /* the contact's or the joint's name */
    int joint;          /* 1: a frictional joint */
    int mode;           /* 0 sliding, 1 sticking (rolling), 2 open */
    double normal;      /* contacts: the normal force, compression > 0 (channel <c>.normal);
                           joints: 0 */
    double friction;    /* the friction force (<c>.friction; joints: torque or force along the
                           joint, <joint>.friction) */
    double gap;         /* contacts: the gap along the normal (<c>.gap) */
    double slip;        /* contacts: the slip speed (<c>.slip) */
  } *contact;
} mbd_explain;

/* the equations at the state (q, v) at time t of the assembled model m.  q (nq) and v (nv) are
 * made consistent first (position and velocity analyses on the active rows); e->residual tells
 * how far the given state was from the constraints.  Returns MBD_OK with *out (free with
 * mbd_explain_free), or MBD_E_STATE (not assembled), MBD_E_NEWTON, MBD_E_SINGULAR, MBD_E_NOMEM
 * with err naming the cause. */
int mbd_explain_state(const mbd_model *m, const double *q, const double *v, double t,
                      mbd_explain **out, mbd_error *err);

/* the same at time t of a run of m: the state from the run's channels (body poses and
 * velocities, linearly interpolated between samples; spatial joint angles), then as above.
 * MBD_E_INPUT when t is outside the run or a body's channel is missing. */
int mbd_explain_run(const mbd_model *m, const mbd_run *r, double t, mbd_explain **out,
                    mbd_error *err);

/* the state of m at time t of run r as mbd_explain_run reads it (body poses and velocities from
 * the channels, linearly interpolated; spatial joint angles continued): q (nq), v (nv) and, when
 * memo is not NULL, the joints' angle memos (njoint).  Not yet consistent: the position and
 * velocity analyses follow in the caller.  MBD_OK, MBD_E_STATE (not assembled), MBD_E_INPUT (t
 * outside the run, a channel missing), MBD_E_NOMEM. */
int mbd_run_state_at(const mbd_model *m, const mbd_run *r, double t, double *q, double *v,
                     double *memo, mbd_error *err);

/* the assembled initial state of m (t = 0) */
int mbd_explain_initial(const mbd_model *m, mbd_explain **out, mbd_error *err);

void mbd_explain_free(mbd_explain *e);

#endif
