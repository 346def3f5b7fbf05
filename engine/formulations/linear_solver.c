/* the choice between the dense and the sparse linear algebra of the Cartesian formulations.
 *
 * The sparse form (model_impl.h, mbd_sparse): Φq row by row over the columns of each row's two
 * bodies, M by blocks, the leading matrix [M Φqᵀ; Φq 0] of the active rows factored by KLU
 * (kinematics/kkt.c) — augmented, baumgarte, gcp (Gauss's principle near singular configurations
 * stays dense), udwadia_kalaba on planar rigid bodies (its pseudo-inverse by that matrix away from
 * singular configurations, udwadia_kalaba.c) — and gcp's and kane's dependent block Φ_qd
 * (partition.c).  Everything that reads
 * the pivots — the re-selection of rows, gcp's turn to Gauss's principle, the
 * singular-configuration stop, the partition's watch — reads KLU's pivot ratio as it reads the
 * dense LU's.
 *
 * linear_solver = "auto": dense below SPARSE_MIN_ORDER unknowns (n + active rows), where LAPACK
 * (or the unrolled LU) on a small dense matrix costs less than the indirection of the sparse one,
 * and when more than SPARSE_MAX_FILL of the leading matrix's entries are set (a flexible body with
 * many modes: its block of M is full); sparse above.  Not written for joint coordinates
 * (formulation relative, generated code: a body's pose depends on its whole path, Φq is dense),
 * udwadia_kalaba on spatial or flexible bodies, with contacts or joint friction, or with rows set
 * aside by the assembly's rank test (its pseudo-inverse stays the dense SVD), nor gcp and kane with
 * contacts or frictional joints
 * (the positions' own partition of their velocity-level rows is dense): "auto" is dense there and
 * "sparse" refused with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* the leading matrix's order (nv + active rows) from which auto takes the sparse solve.  Measured
 * here per evaluation, augmented + adams: planar chains of 3 links (n + m = 15) 3.0 µs dense, 3.1
 * sparse; 4 links (20) 4.9 and 3.5; 8 links 13 and 6.7; a spatial double pendulum (22) 1.22 and
 * 0.90 ms per run; the spatial four-bar of paper 000 (41) 3.5 and 2.2 ms.  Measured again after
 * the small-model work (scripts/bench/crossover.lua, every Cartesian formulation): dense/sparse
 * 0.96–1.01 at 15 unknowns, 1.13–1.78 at 20 (spatial 0.95–0.97 at 11, 1.08–1.44 at 22) */
#define SPARSE_MIN_ORDER 20
/* the share of the leading matrix's entries set above which auto keeps the dense solve (the
 * spatial double pendulum has 0.37 and gains from the sparse one) */
#define SPARSE_MAX_FILL 0.5

/* (the solver names: mbd_linear_solver_name in sim/simulate.c) */

/* (udwadia_kalaba's test stands here, below the formulation: the choice reads it) */
int mbd_uk_sparse_fits(const mbd_model *m, const mbd_data *d) {
  if (m->ncontact > 0 || m->njfric > 0 || d->ma != m->mrow) {
    return 0;
  }
  for (int b = 1; b < m->nbody; b++) {
    if (m->body[b].kind != MBD_BODY_RIGID2) {
      return 0;
    }
  }
  return 1;
}

int mbd_form_choose_solver(const mbd_model *m, mbd_data *d, const mbd_sim_opts *o, int form,
                           mbd_error *err) {
  int want = o->linear_solver;
  if (want < 0 || want >= MBD_LINSOLVE_N) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_LINSOLVE, want);
  }
  if (want == MBD_LINSOLVE_RECURSIVE && d->sp) {
    // (on joint coordinates, d->sp NULL, relative runs the recursion itself and its kane or gcp
    // partition stays dense)
    const char *name = mbd_formulation_name(form);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_RECURSIVE_CARTESIAN, name ? name : "?");
  }
  // where the sparse solve is not written
  char why[320];
  why[0] = 0;
  if (!d->sp) {
    snprintf(why, sizeof why,
             "joint coordinates (formulation relative, generated code), "
             "where a body's pose depends on its whole path and Φq is dense");
  } else if (form == MBD_FORM_UK && !mbd_uk_sparse_fits(m, d)) {
    snprintf(why, sizeof why,
             "formulation udwadia_kalaba on model '%s' (its sparse form is written for planar "
             "rigid bodies without contacts or joint friction, every row active)",
             m->name);
  } else if ((form == MBD_FORM_GCP || form == MBD_FORM_KANE) && (m->ncontact || m->njfric)) {
    snprintf(why, sizeof why,
             "formulation %s on model '%s' with contacts or joint friction (the partition of "
             "their velocity-level rows is dense)",
             mbd_formulation_name(form), m->name);
  }
  if (why[0]) {
    if (want == MBD_LINSOLVE_SPARSE) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_SPARSE_REFUSED, why);
    }
    return MBD_LINSOLVE_DENSE;
  }
  if (want == MBD_LINSOLVE_AUTO) {
    double order = (double)m->nv + d->ma;
    double fill = (double)(d->sp->nm + 2.0 * d->sp->nnz) / (order * order);
    want = order >= SPARSE_MIN_ORDER && fill <= SPARSE_MAX_FILL ? MBD_LINSOLVE_SPARSE
                                                                : MBD_LINSOLVE_DENSE;
  }
  if (want == MBD_LINSOLVE_SPARSE && !d->sp->on) {
    // the rows evaluated again into the sparse form (they were written densely)
    mbd_sparse_set(m, d, 1);
    int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
    if (rc < 0) {
      return rc;
    }
  }
  return want;
}

int mbd_form_solver_init(mbd_form_solver *s, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                         int form, mbd_error *err) {
  int rc = mbd_form_choose_solver(m, d, o, form, err);
  if (rc < 0) {
    return rc;
  }
  s->solver = rc;
  s->d = d;
  s->analyses = 0;
  return MBD_OK;
}

void mbd_form_solver_stats(const mbd_form_solver *s, mbd_run_stats *st) {
  if (!s) {
    return;
  }
  st->linear_solver = s->solver;
  st->symbolic_analyses += s->analyses + (s->d && s->d->sp ? s->d->sp->nanalyze : 0);
}
