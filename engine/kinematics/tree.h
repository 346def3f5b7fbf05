/* mbd — the spanning tree of the relative formulation (paper 002): building the model in joint
 * coordinates from an assembled Cartesian model, and the body poses outward from the ground with
 * their pose Jacobians (private to kinematics/, formulations/, sym/). */
#ifndef MBD_KIN_TREE_H
#define MBD_KIN_TREE_H

#include "../model/tree_impl.h"
#include "kinematics.h"

/* the model m (assembled, Cartesian) in relative joint coordinates: a new model *out that shares
 * m's bodies, joints, drives and forces (copies; callbacks shared), numbered over the joint
 * coordinates of a spanning tree of the joint graph (tree_impl.h), its rows the cut joints', the
 * drives' and the Euler-parameter norms'.  The tree leaves the fewest coordinates (Kruskal on the
 * joints' coordinate counts, ties in declaration order) unless cut names the joints to cut (ncut
 * names).  d holds m's state the tree starts from (poses and velocities evaluated): the joint
 * coordinates are zero there (Euler parameters the identity), their velocities the least-squares
 * fit of d's velocities.  The new model is assembled (rank test, channels) and read only; free it
 * with mbd_model_free.  MBD_OK, MBD_E_INPUT naming a bad cut, MBD_E_NOMEM. */
int mbd_tree_build(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                   mbd_model **out, mbd_error *err);
/* the same with choices: for the recursive solve (recursive = 1) the model's data keep each body's
 * recursion record (tree_impl.h) instead of pose Jacobians over every coordinate, and its rows and
 * forces go through the tree's own stage (tree_rec.c); the joint velocities are fitted joint by
 * joint.  slow_first = 1 (the partitioned solvers kane and gcp, the default): among joints adding
 * as many coordinates, one turning less than half as fast as another at d's state is kept first
 * (tree_build.c, kept_before); 0: the declaration order alone (mbd_tree_build) */
int mbd_tree_build_ex(const mbd_model *m, const mbd_data *d, const char *const *cut, int ncut,
                      int recursive, int slow_first, mbd_model **out, mbd_error *err);
/* m assembled (ao: NULL for the defaults) and its tree built from the assembled state, as
 * mbd_tree_build_ex (not recursive; slow_first as there), the data of that state made and freed
 * here */
int mbd_tree_of_model(mbd_model *m, const mbd_assembly_opts *ao, const char *const *cut, int ncut,
                      int slow_first, mbd_model **out, mbd_error *err);

/* tree_rec.c: the stage of rows and forces of a recursive tree model (installed as its eqs by
 * mbd_tree_build_ex): Φ, Φq, Φt, γ of every row, and each body's M_Y and −Q_Y in its record */
const mbd_eqs_hook *mbd_tree_rec_hook(void);
/* g += J_bᵀ w for body b of a recursive tree model (poses evaluated): w over b's pose coordinates,
 * g over the joint coordinates with stride ldg — the transpose of the outward recursion along
 * the path from b to the ground, O(depth) */
void mbd_tree_rec_scatter(const mbd_model *m, const mbd_data *d, int b, const double *w, double *g,
                          int ldg);

/* least squares of a small consistent system A x = b (A m×k column-major, m ≤ 7, k ≤ 7, full
 * column rank) by the normal equations; 0, or −1 when AᵀA is singular (tree.c) */
int mbd_tree_small_lsq(int m, int k, const double *A, const double *b, double *x);

/* the poses of every body of a tree model from d->q, d->v outward (paper 002 eq 1–5): r, p and
 * their rates, the pose Jacobians J = ∂Ẏ/∂v (in d->poseJ) and the quadratic terms h */
void mbd_tree_poses(const mbd_model *m, mbd_data *d);

/* the multipliers of m's rows in d (m's rows, forces and accelerations evaluated in d): those of
 * the cut joints and drives copied from x (mr's solution), those of the tree joints and the
 * bodies' norms by a backward Newton–Euler pass from the leaves to the ground.  MBD_OK or
 * MBD_E_SINGULAR. */
int mbd_tree_multipliers(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                         mbd_error *err);

/* the state of x (tree model mr, its poses evaluated) as the state of d of the Cartesian model m
 * it was built from: t, the bodies' coordinates and velocities, the angle memos, and with accel
 * the accelerations Ÿ = J v̇ + h from x->vdot */
void mbd_tree_to_cartesian(const mbd_model *mr, const mbd_data *x, const mbd_model *m, mbd_data *d,
                           int accel);

#endif
