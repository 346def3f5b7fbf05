/* mbd — flexible bodies in a floating frame with modal coordinates (paper 003), private to the
 * engine.  Included by model_impl.h.
 *
 * A flexible body is a body of kind MBD_BODY_FLEX2 / FLEX3 whose coordinate block is its frame's
 * pose followed by its modal coordinates a (spatial: r, p, a | ṙ, ṗ, ȧ; planar: x, y, θ, a),
 * q̇ = v.  Its pose coordinates Y are the frame's (the head of the block: J = [I 0]).  Each FE
 * node is a body of kind MBD_BODY_NODE2 / NODE3 with an empty block of its own: its pose — the
 * node's position r + A(s' + Φ a) and the node frame turned by the nodal rotation Θ = Ψ a — is
 * computed from the owner's block with the pose Jacobian J over that whole block and the
 * quadratic term h (Ÿ = J v̇ + h).  So joints, forces and springs take a node as they take a
 * body: their rows over (Y1 | Y2) keep MBD_NY_MAX columns a side, and the constraint and force
 * stages scatter them through J into the flexible body's block (Φ_v = Φ_Y J, Q_v = Jᵀ Q_Y).
 * This "node as a body" marker leaves every existing row, joint type and force untouched (a
 * wider local width would have slowed every rigid model's row algebra by the largest block). */
#ifndef MBD_FLEX_IMPL_H
#define MBD_FLEX_IMPL_H

#include <stddef.h>

struct mbd_flex {
  int body;           /* the flexible body's index */
  int dim;            /* 2 or 3 */
  int nnode, nm;      /* FE nodes, modes */
  int node0;          /* body index of node 1 (the nodes follow in order) */
  int ny;             /* pose coordinates of the frame and of a node: 7 (spatial) or 3 */
  int nvb;            /* velocities of the block: ny + nm */
  double *s;          /* 3 × nnode undeformed node positions, body frame */
  double *mass;       /* nnode lumped masses */
  double *J;          /* 3 × nnode lumped rotary inertias (principal, body axes) */
  double *Phi;        /* nnode × 3 × nm translational shapes: Phi[(3i + r) nm + k] */
  double *Psi;        /* nnode × 3 × nm rotational shapes (nodal small rotations) */
  double *K, *D, *G;  /* nm × nm modal stiffness, damping, geometric stiffness per unit
                         (ω'y² + ω'z²) — column-major; D, G NULL when absent */
  double *a0, *adot0; /* nm initial modal coordinates and rates */
  char (*label)[64];  /* nm mode names for messages ("mode 3 (torsion, 738 Hz)") */
  int nelem;          /* beam elements, for drawings (0 when unknown) */
  int *elem;          /* 2 × nelem node numbers from 1, or NULL */
  /* invariants of the mass matrix (paper 003 eq 17), computed once */
  double mt;      /* Σ m_i */
  double c0[3];   /* Σ m_i s_i */
  double Iss[9];  /* Σ m_i s_i s_iᵀ (row-major) */
  double Jsum[9]; /* Σ J_i */
  double I0[9];   /* undeformed inertia about the frame origin, Σ m_i s̃_iᵀ s̃_i + J_i */
  double *C1;     /* 3 × nm: Σ m_i Φ_i, C1[r nm + k] */
  double *T4;     /* 9 × nm: T4[(3k + m) nm + l] = Σ m_i s_ik Φ_i[m, l] */
  double *T5;     /* 9 × nm × nm: T5[(3k + m) nm² + l' + nm l] = Σ m_i Φ_i[k, l'] Φ_i[m, l] */
  double *JPsi;   /* 3 × nm: Σ J_i Ψ_i */
  double *Mff;    /* nm × nm: Σ m_i Φ_iᵀΦ_i + Ψ_iᵀ J_i Ψ_i (column-major), at Θ = 0 */
  double *Mft;    /* nm × nm: Σ m_i Φ_iᵀΦ_i, the translational part */
  size_t ws;      /* its workspace in the data: d->flexws + ws */
  size_t wsize;   /* doubles: node Jacobians (nnode × ny × nvb), M_ω, Q_ω and scratch */
};

/* body kinds of flexible bodies and their nodes (body_kinds.c's table takes these) */
void mbd_flex_node_pose(const mbd_model *m, mbd_data *d, int b, mbd_pose *ps);
int mbd_flex_inertia(const mbd_model *m, mbd_data *d, int b, mbd_error *err);
double mbd_flex_energy(const mbd_model *m, const mbd_data *d, int b);
void mbd_flex_velocity0(const mbd_body *b, const double *q, double *v);
void mbd_flex_node_velocity0(const mbd_body *b, const double *q, double *v);

/* a flexible body's equations in the frame's velocities (ṙ, ω', ȧ), nw = 6 + nm (flex_body.c;
 * separate functions so that profiles show their costs apart): the mass matrix M_ω (nw × nw,
 * column-major) and the forces Q_ω (nw: gravity g, the quadratic velocity vector, elastic,
 * damping, geometric stiffness), from the sums ρ̄, W (9 × nm), P, V of the lumped masses at a, ȧ
 * (A the frame's rotation, ω' its angular velocity in its axes, Y a 3 × nm scratch) */
void mbd_flex_mass_matrix(const struct mbd_flex *fx, const double *A, const double *w,
                          const double *a, const double *ad, const double *rb, const double *W,
                          const double *P, double *Mw, double *Y);
void mbd_flex_forces(const struct mbd_flex *fx, const double *A, const double *w, const double *a,
                     const double *ad, const double *g, const double *rb, const double *W,
                     const double *P, const double *V, double *Qw, double *Y);

/* the initial modal coordinates of flexible body b into its block's q (after the frame's pose) */
void mbd_flex_q0(const mbd_body *b, double *q);
/* component comp (0..2) of node body b's small rotation Θ = Ψ a (body axes), rad */
double mbd_flex_node_rotation(const mbd_model *m, const mbd_data *d, int b, int comp);
/* the model's flexible bodies freed (mbd_model_free) */
void mbd_flex_free_all(mbd_model *m);
/* one body's record and everything it owns (NULL: nothing) */
void mbd_flex_free(struct mbd_flex *fx);

#endif
