/* mbd — the recursive solve of the relative formulation (private to formulations/): the
 * articulated-body recursion on a tree model built with mbd_tree_build_ex(recursive = 1), with
 * the cut-joint and drive rows added through Φq M̄⁻¹ Φqᵀ. */
#ifndef MBD_RELATIVE_ABA_H
#define MBD_RELATIVE_ABA_H

#include "formulations.h"

/* v̇ (and λ with MBD_DERIV_LAMBDA in flags) of a recursive tree model whose poses, rows (gathered)
 * and forces are evaluated in d, with γ* (ma, in the order of the active rows) on the right-hand
 * side of every active row: the rows of the Euler-parameter norms inside the recursion, the
 * others through the m×m system Φq M̄⁻¹ Φqᵀ λ = Φq v̇₀ − γ*.  With any flag, each body's Ÿ is left
 * in its record (the Cartesian accelerations of a sample).  MBD_OK, MBD_RESELECTED when the
 * active rows were chosen again (rebuild γ* and call again), MBD_E_SINGULAR naming the joint or
 * the row. */
int mbd_relative_aba(const mbd_model *m, mbd_data *d, const double *gamma_star, int flags,
                     mbd_error *err);

/* the ops on a recursive tree model: "augmented" and "baumgarte" (y = [q; v]; alpha, beta from
 * the options for baumgarte), "gcp" and "kane" (the partition's state; the accelerations of the
 * consistent state, which both define) */
extern const mbd_form_ops mbd_form_relative_rec_cart, mbd_form_relative_rec_part;

#endif
