/* mbd — joint trees of the relative formulation (paper 002 eq 1–5): private to model/,
 * kinematics/, formulations/ and sym/.
 *
 * The joint graph of a model (bodies as nodes, ground included; joints as edges) becomes a
 * spanning tree rooted at the ground: each moving body is the child of exactly one tree joint, and
 * the joints left out (cut joints) close the loops as constraint rows.  A body with no path to the
 * ground hangs from it by a floating joint (6 or 3 degrees of freedom).  The coordinates are the
 * joints' own: an angle, a displacement, two angles of a universal joint, the Euler parameters of
 * a spherical joint (with their normalization row), the Cartesian coordinates of a floating joint.
 *
 * A tree joint relates body2 to body1 through the relative rotation R(q) and the translation T(q)
 * of the joint, both in body1's frame and the identity at q = 0:
 *
 *   A2 = A1 R(q) C,     r2 + A2 s2 = r1 + A1 (s1 + d0 + T(q))
 *
 * with C = A1ᵀA2 and d0 = A1ᵀ(r2 + A2 s2 − r1 − A1 s1) taken at the assembled state, so that q = 0
 * is the assembled configuration (the paper: "the origin of the joint coordinates is the initial
 * assembly").  In Euler parameters A2 = A1 R C is p2 = p1 ⊗ ε(q) ⊗ c (Hamilton product, A(a ⊗ b) =
 * A(a) A(b)): the relative rotation is composed through the constant frame c of the joint — the
 * intermediate axis of Wehage's algorithm (paper 002 eq 3).  Revolute: ε = (cos θ/2, sin θ/2 u);
 * universal: ε = ε(u, θ1) ⊗ ε(w, θ2) with w = C axis2; spherical: ε = e, the coordinates
 * themselves (no singular chart; eᵀe = 1 is a row).  When the tree runs from body2 to body1 the
 * same relation is inverted, so a joint's coordinates always mean body2 relative to body1, as the
 * Cartesian channels do (an angle is the channel's value minus its value at assembly). */
#ifndef MBD_TREE_IMPL_H
#define MBD_TREE_IMPL_H

#include "model_impl.h"

/* a tree joint: one of the model's joints (moving its child as its type's tree motion says,
 * model_impl.h mbd_tree_motion), or a floating joint (the child's own Cartesian coordinates) */
typedef enum mbd_tree_kind { MBD_TJ_JOINT = 0, MBD_TJ_FLOATING, MBD_TJ_NKINDS } mbd_tree_kind;

typedef struct mbd_tree_joint {
  int joint;           /* the model's joint, −1 for a floating joint */
  int kind;            /* mbd_tree_kind */
  int rotk;            /* its rotation, mbd_tree_rot (MBD_TROT_NONE for a floating joint) */
  int pin;             /* 1: a rotation about u alone, no displacement (the revolute) */
  int parent, child;   /* bodies; the parent is nearer the ground */
  int sigma;           /* +1: the child is the joint's body2; −1: its body1 */
  int qadr, nq;        /* its coordinates q[qadr .. qadr + nq); q̇ = v, the same addresses in v */
  int rot;             /* first rotation coordinate (angle or e0) within its own, −1 for none */
  int disp;            /* its first displacement coordinate within its own, −1 for none */
  int ndisp;           /* displacements: the coordinates disp .. disp + ndisp (a screw's is its
                          angle: disp = rot) */
  int norm;            /* the model row normalizing its Euler parameters, −1 for none */
  double s1[3], s2[3]; /* the joint's points in body1's and body2's frames */
  double d0[3];        /* body1-frame separation of the points at the assembled state */
  double u[3];         /* axis1 in body1's frame (unit) */
  double dax[2][3];    /* the displacements' directions in body1's frame, per unit of their
                          coordinate: u (translational, cylindrical), lead u (screw), ref1 and
                          axis1 × ref1 (planar) */
  double w[3];         /* universal: axis2 seen in body1's frame at the assembled state */
  double c[4];         /* spatial: Euler parameters of C = A1ᵀA2 at assembly (unit);
                          planar: c[0] = θ2 − θ1 at assembly */
  double coord0[MBD_JOINT_MAXCOORD]; /* the joint's channel coordinates (its type's coord) at q = 0 */
  /* planar pins (pin = 1, dim 2): the joint's point where the pose pass and the pin sweeps
     (relative_aba.c) read it, chosen by sigma once */
  double pa[2]; /* in the parent's frame (s1 + d0 when the child is body2, else s2) */
  double pc[2]; /* in the child's frame (the other one) */
  double pcc;   /* |pc|² */
  /* the tree's order as the pin sweeps walk it (set for every tree) */
  int ptk;      /* the parent's tree joint, −1 for the ground */
  int pfirst;   /* 1: the first of its parent's children the inward sweep meets (the last in
                   the tree's order): it sets the parent's shares, the others add to them */
  int pleaf;    /* 1: no child (its shares in d->pin stay the allocation's zeros) */
} mbd_tree_joint;

struct mbd_tree {
  int ntj;            /* tree joints: one per moving body, parents before children */
  mbd_tree_joint *tj; /* ntj */
  int *body_tj;       /* nbody: the tree joint whose child is body b, −1 for the ground */
  int *joint_tj;      /* njoint: the tree joint of model joint j, −1 for a cut joint */
  int ncut;           /* cut joints, in model order */
  int *cut;           /* ncut model joint indices */
  int nfloat;         /* floating joints */
  int *body_jadr;     /* nbody + 1: the joints at body b are body_j[body_jadr[b] ..
                         body_jadr[b + 1]) (reactions of the recursive solve) */
  int *body_j;        /* 2·njoint joint indices */
  int recursive;      /* 1: the recursive solve (linear_solver = "recursive"): the pose stage
                         leaves each body's recursion F, S, c (mbd_tree_rec) instead of the
                         Jacobians over every coordinate, and the rows and forces go through
                         the tree's own stage (kinematics/tree_rec.c) */
  int pins;           /* 1: a planar recursive tree whose every joint is a pin (tj->pin) and
                         every moving body a planar rigid body (M_Y = diag(m, m, J)): without
                         cut-joint or drive rows the recursion runs as the pin sweeps of
                         relative_aba.c, over d->pin (below, mbd_pin_rec) */
  int norms_implicit; /* 1: a recursive tree whose rows are all Euler-parameter norms, past
                         TREE_NORMS_IMPLICIT_NV coordinates: the rows' entries 2pᵀ stay out of
                         the dense Φq and its active copy (one nonzero in every column, which
                         would take a page of each array per coordinate) until the data's dense
                         algebra is asked for (mbd_data_dense writes them from q, the rows stage
                         from then on); the recursion reads them from q */
};

/* the recursive solve (paper 002's joint coordinates with an articulated-body recursion, in the
 * manner of Featherstone's ABA): what the outward pass leaves for each moving body, and the
 * recursion's work on it.  A body's pose coordinates Y (planar x y θ, spatial r p, ny of them)
 * follow its parent's and its tree joint's coordinates q_j (nq of them) as
 *
 *   Ẏ_c = F Ẏ_p + S q̇_j,     Ÿ_c = F Ÿ_p + S q̈_j + c
 *
 * (F = ∂Y_c/∂Y_p at fixed q_j, S = ∂Y_c/∂q_j, c the quadratic terms of the joint alone), so the
 * pose Jacobian J of the dense solve is the product of these along the path to the ground.
 * Matrices are column-major with leading dimension ny (the first ny·ny, ny·nq entries used). */
typedef struct mbd_tree_rec {
  double F[49];  /* ny×ny */
  double S[49];  /* ny×nq */
  double c[7];   /* ny */
  double MY[49]; /* ny×ny: the body's mass matrix M_Y (the force stage) */
  double QY[7];  /* ny: its generalized applied force Q_Y (gravity, velocity terms, forces) */
  double IA[49]; /* ny×ny: what its children add to its articulated inertia (M_Y + IA) */
  double pA[7];  /* ny: what they add to its articulated bias force (−Q_Y + pA) */
  double U[49];  /* ny×nq: IA S */
  double K[49];  /* nq×nq: the joint's inverse, (SᵀIA S)⁻¹ bordered by its local row */
  double k[7];   /* nq: the local row's column of that inverse */
  double kap;    /* its corner */
  double n[7];   /* nq: the local row (the Euler-parameter norm of a spherical or floating
                    joint) over the joint's coordinates */
  double u[7];   /* nq: τ − Sᵀ pA */
  double a[7];   /* ny: the body's Ÿ */
  double gl;     /* the local row's γ* */
  double mu;     /* its multiplier */
  int nl;        /* local rows: 0 or 1 */
} mbd_tree_rec;

/* the pin sweeps (relative_aba.c) keep what goes from one joint to the next in one small record
 * per tree joint, d->pin[k], in the tree's order (parents first): the pose pass and each sweep
 * walk the array once in order (the inward sweep backwards), reading a joint's own record and
 * its parent's, where the records of mbd_tree_rec (2.9 KB a body, sized for the general joints)
 * would put the same dozen numbers a stride of that size apart.  The hand-written program keeps
 * one array per field instead; a record of 192 bytes streams through the cache the same way and
 * reaches all its fields from one address. */
typedef struct mbd_pin_rec {
  double ax, ay; /* A_c a_C: from the body's centre to its joint point (the pose pass) */
  double lx, ly; /* A_p l: from the parent's joint point to this one (the pose pass) */
  double w2;     /* the body's θ̇² (the pose pass) */
  double s[9];   /* the children's shares: Σ Fᵀ Ia F (entries 00 01 02 11 12 22) and Σ Fᵀ pa
                    (the inward sweep: the first child met sets them, the others add) */
  double f0, f1; /* F's column over the parent's angle, R90 A_p l */
  double c0, c1; /* c: the joint point's quadratic term, −A_p l θ̇_p² */
  double k0, k1, kp; /* the joint's terms of q̈ (left by the inward sweep) */
  double a0, a1, a2; /* the joint point's Z̈ (left by the outward sweep) */
} mbd_pin_rec;

/* the size above which a norms-only recursive tree keeps its rows out of the dense Φq: above the
 * limit of the passage of singular configurations (augmented.c, AUG_PASS_MAX_NV), which reads Φq
 * without asking for the dense algebra */
#define TREE_NORMS_IMPLICIT_NV 300

/* the number of coordinates a joint of type `type` takes in a tree, in a model of dimension dim
 * (−1 when the type has no equations in that dimension) */
int mbd_tree_joint_nq(int type, int dim);

/* model/tree_model.c: the tree's lifetime and names */
void mbd_tree_free(mbd_tree *t);
/* the name of coordinate i of a tree model ("O.angle", "S.e2", "body.x") into buf */
void mbd_tree_coord_name(const mbd_model *m, int i, char *buf, size_t len);
/* a readable description of the tree (for m:tree()): the tree joints outward with their
 * coordinates, the cut joints and their rows; malloc'd text, NULL when out of memory */
char *mbd_tree_describe(const mbd_model *m);

#endif
