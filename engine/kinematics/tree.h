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
