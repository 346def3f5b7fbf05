/* formulation "relative": relative joint coordinates on a spanning tree (paper 002)
 *
 * The joint graph becomes a spanning tree rooted at the ground (kinematics/tree.c); its joint
 * coordinates q are the state, the body poses Y(q) are built outward with Ẏ = B q̇ (eq 1–5), and
 * the equations of motion are the Cartesian ones transformed by B (eq 9–11):
 *
 *   M̄ = BᵀMB,  ḡ = Bᵀ(f − M (Bq̇)_q q̇ − h),  [M̄ Φqᵀ; Φq 0][q̈; λ] = [ḡ; γ*]
 *
 * with the rows Φ of the cut joints (points coincide, vectors perpendicular, vectors parallel),
 * the drives and the norms of Euler parameters.  The model in joint coordinates is a model of its
 * own (built at create): the pose stage fills each body's B rows as its pose Jacobian, so the
 * row and force stages of the Cartesian formulations give M̄, ḡ, Φq and γ unchanged; one of those
 * formulations then solves on the joint coordinates — baumgarte with the paper's α = 199.94,
 * β = 282.8 (CVSM, the leading matrix's pivots checked at every evaluation), or augmented, or gcp
 * and kane (Kane's partial velocities as the null space of the cut-joint Jacobian), which go
 * beyond the paper.
 *
 * Every channel is the Cartesian model's: at a sample the joint-coordinate state is written as
 * Cartesian poses and velocities of the driver's model, its rows and forces evaluated there, and
 * the multipliers of the cut joints and drives copied; the tree joints' multipliers follow by a
 * backward Newton–Euler pass from the leaves to the ground — for each body, the equations
 * M_Y Ÿ + Φ_Yᵀλ = Q_Y of its own pose coordinates with the multipliers of its tree joint (and its
 * norm) unknown, the rows of its children already known.  A script switches formulation without
 * other changes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../kinematics/kinematics_msg.h"
#include "../kinematics/tree.h"
#include "formulations.h"
#include "formulations_msg.h"
#include "relative_aba.h"

/* linear_solver = "auto": the recursive solve from this many moving bodies on.  Measured on
 * chains (µs per evaluation, dense / recursive): planar 4 links 2.0 / 1.7, 8 links 3.5 / 2.7,
 * 16 links 10.3 / 4.7; spatial 4 links 3.1 / 3.5, 8 links 6.5 / 6.2, 16 links 17.8 / 11.5.
 * Below it the dense M̄ costs no more, and small models keep the paper's solve. */
#define REL_RECURSIVE_BODIES 8

typedef struct relative {
  mbd_model *mr;             /* the model in joint coordinates */
  mbd_data *dr;              /* the integration's state in joint coordinates */
  mbd_data *drs;             /* samples and root functions: a copy of dr's state */
  const mbd_data *d_int;     /* the driver's integration data (of the Cartesian model) */
  const mbd_form_ops *inner; /* the solution on the joint coordinates */
  void *inner_self;
  mbd_sim_opts io;    /* the options it runs with */
  mbd_gencode *code;  /* generated equations (code = "tape" | "compiled"), or NULL */
  mbd_code_info info; /* how they were made */
  int cartesian;      /* 1: Cartesian coordinates (every joint cut) for generated code */
  int recursive;      /* 1: the articulated-body recursion (relative_aba.c) instead of M̄ */
  int direct;         /* 1: the integration's evaluation calls the generated code and the solve
                         straight (see direct_eval) */
} relative;

/* Cartesian coordinates with generated code (code = "tape" | "compiled" for a formulation other
 * than relative): the tree with every joint cut has the Cartesian model's coordinates and rows —
 * each body hangs from the ground by a floating joint, the joints in declaration order, then the
 * drives and the norms — and the formulation asked for solves on it */
static int cartesian_mode(const mbd_sim_opts *o) { return o->formulation != MBD_FORM_RELATIVE; }

static int check(const mbd_model *m, const mbd_sim_opts *o, mbd_error *err) {
  // (its event op serves the inner formulation's passage of singular configurations, not
  // contacts: the driver's own test of contacts does not see that)
  if (m->ncontact > 0 || m->njfric > 0) {
    const char *f = mbd_formulation_name(o->formulation);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_CONTACTS, f ? f : "?", m->name);
  }
  int s = cartesian_mode(o) ? o->formulation : o->solver;
  if (s != MBD_FORM_AUGMENTED && s != MBD_FORM_BAUMGARTE && s != MBD_FORM_GCP &&
      s != MBD_FORM_KANE && !(cartesian_mode(o) && s == MBD_FORM_UK)) {
    const char *f = mbd_formulation_name(s);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_SOLVER, f ? f : "?");
  }
  if (o->code < 0 || o->code >= MBD_CODE_N) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_CODE, o->code);
  }
  if (!cartesian_mode(o)) {
    // (the names of sim/simulate.c's lists: this layer is below it)
    if (o->linear_solver != MBD_LINSOLVE_AUTO && o->linear_solver != MBD_LINSOLVE_DENSE &&
        o->linear_solver != MBD_LINSOLVE_RECURSIVE) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_LINSOLVE,
                      o->linear_solver == MBD_LINSOLVE_SPARSE ? "sparse" : "?");
    }
    if (o->linear_solver == MBD_LINSOLVE_RECURSIVE && o->code != MBD_CODE_NUMERIC) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_RECURSIVE_CODE,
                      o->code == MBD_CODE_TAPE ? "tape" : "compiled");
    }
  }
  for (int k = 0; k < o->ncut; k++) {
    if (!o->cut || !o->cut[k] || mbd_model_find_joint(m, o->cut[k]) < 0) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FORM_REL_CUT, o->cut && o->cut[k] ? o->cut[k] : "",
                      m->name);
    }
  }
  const mbd_form_ops *in = mbd_form_kernel(s);
  return in->check ? in->check(m, o, err) : MBD_OK;
}

static void destroy(void *self) {
  relative *r = self;
  if (!r) {
    return;
  }
  if (r->inner && r->inner_self && r->inner->destroy) {
    r->inner->destroy(r->inner_self);
  }
  mbd_data_free(r->dr);
  mbd_data_free(r->drs);
  mbd_model_free(r->mr);
  mbd_code_free(r->code);
  free(r);
}

/* the recursive solve, asked for or chosen: numeric code on a tree of REL_RECURSIVE_BODIES
 * moving bodies or more (the generated equations of "tape" and "compiled" form M̄ densely) */
static int use_recursive(const mbd_model *m, const mbd_sim_opts *o) {
  if (cartesian_mode(o) || o->code != MBD_CODE_NUMERIC) {
    return 0;
  }
  if (o->linear_solver == MBD_LINSOLVE_AUTO) {
    return m->nbody - 1 >= REL_RECURSIVE_BODIES;
  }
  return o->linear_solver == MBD_LINSOLVE_RECURSIVE;
}

/* the recursive solve reads the Cartesian model's rows only at the samples, sparse */
static int rows_sparse(const mbd_model *m, const mbd_sim_opts *o) { return use_recursive(m, o); }

/* the tree from the Cartesian state of d (assembled, rows evaluated), its data, the inner run */
static int create(void **self, const mbd_model *m, mbd_data *d, const mbd_sim_opts *o,
                  mbd_error *err) {
  *self = NULL;
  relative *r = calloc(1, sizeof *r);
  if (!r) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "relative");
  }
  int rc = MBD_OK;
  const char **all = NULL;
  if (cartesian_mode(o)) {
    // every joint cut: the Cartesian model's coordinates and rows
    all = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof *all);
    rc = all ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "relative");
    for (int j = 0; all && j < m->njoint; j++) {
      all[j] = m->joint[j].name;
    }
  }
  r->recursive = use_recursive(m, o);
  if (rc == MBD_OK) {
    rc = all ? mbd_tree_build(m, d, all, m->njoint, &r->mr, err)
             : mbd_tree_build_ex(m, d, o->cut, o->ncut, r->recursive,
                                 o->solver == MBD_FORM_KANE || o->solver == MBD_FORM_GCP, &r->mr,
                                 err);
  }
  free(all);
  // generated equations (paper 002, section 3): derived, then on the tape or compiled; the tree
  // model's rows and forces go through them
  r->info.code = MBD_CODE_NUMERIC;
  if (rc == MBD_OK && o->code != MBD_CODE_NUMERIC) {
    rc = mbd_code_new(r->mr, o->code, &r->code, &r->info, err);
    if (rc == MBD_OK) {
      r->mr->eqs = mbd_code_hook(r->code);
    }
  }
  if (rc == MBD_OK) {
    r->dr = mbd_data_alloc(r->mr, err);
    r->drs = r->dr ? mbd_data_alloc(r->mr, err) : NULL;
    rc = r->drs ? MBD_OK : MBD_E_NOMEM;
  }
  if (rc == MBD_OK) {
    mbd_data_reset(r->mr, r->dr);
    r->dr->t = d->t;
    rc = mbd_eval_to(r->mr, r->dr, MBD_STAGE_VELOCITY, err);
  }
  if (rc == MBD_OK) {
    r->io = *o;
    r->cartesian = cartesian_mode(o);
    r->io.formulation = r->cartesian ? o->formulation : o->solver;
    // an open tree has no rows: gcp and kane have nothing to partition, and all four solve
    // M̄ q̈ = ḡ — the augmented solve does it without a partition
    if (r->mr->ma0 == 0 && (o->solver == MBD_FORM_GCP || o->solver == MBD_FORM_KANE)) {
      r->io.formulation = MBD_FORM_AUGMENTED;
    }
    r->inner = mbd_form_kernel(r->io.formulation);
    if (r->recursive) {
      // the same solvers on the recursion: augmented and baumgarte integrate [q; v], gcp and
      // kane the partition's independent coordinates
      int part = r->io.formulation == MBD_FORM_GCP || r->io.formulation == MBD_FORM_KANE;
      r->inner = part ? &mbd_form_relative_rec_part : &mbd_form_relative_rec_cart;
    }
    rc = r->inner->create(&r->inner_self, r->mr, r->dr, &r->io, err);
  }
  if (rc < 0) {
    destroy(r);
    return rc;
  }
  r->d_int = d;
  // an open tree (no rows, so no passage of singular configurations and no drives) whose
  // generated code holds every force and whose mass matrix is solved by augmented's dense LU
  const mbd_model *mr = r->mr;
  r->direct = r->code && !r->recursive && r->inner == &mbd_form_augmented && mr->eqs &&
              !mr->eqs->need_poses && mr->mrow == 0 && mr->ncontact == 0 && mr->njfric == 0;
  *self = r;
  return MBD_OK;
}

static int ny(const void *self, const mbd_model *m) {
  (void)m;
  const relative *r = self;
  return r->inner->ny(r->inner_self, r->mr);
}

static void pack(const void *self, const mbd_model *m, const mbd_data *d, double *y) {
  (void)m;
  (void)d;
  const relative *r = self;
  r->inner->pack(r->inner_self, r->mr, r->dr, y);
}

static void deriv(const void *self, const mbd_model *m, const mbd_data *d, double *ydot) {
  (void)m;
  (void)d;
  const relative *r = self;
  r->inner->deriv(r->inner_self, r->mr, r->dr, ydot);
}

static int ycoord(const void *self, const mbd_model *m, int i, int *accel) {
  (void)m;
  const relative *r = self;
  return r->inner->ycoord(r->inner_self, r->mr, i, accel);
}

static const mbd_model *ymodel(const void *self) { return ((const relative *)self)->mr; }

/* "relative", or the Cartesian formulation that runs on generated code */
static const char *display(const void *self) {
  const relative *r = self;
  return r->cartesian ? r->inner->name : "relative";
}

/* ------------------------------------------------------------------------------------------ */
/* the Cartesian state behind the channels                                                     */

/* the state of x (joint coordinates) as the Cartesian state of d: poses and velocities, rows,
 * and unless kinematic, accelerations Ÿ = B q̈ + (Bq̇)_q q̇, forces and every multiplier */
static int to_cartesian(const relative *r, const mbd_model *m, mbd_data *d, mbd_data *x, int flags,
                        mbd_error *err) {
  // the poses of x (generated equations skip the pose stage; the recursive solve's eval has
  // just made them), then d's state from them
  if (!r->recursive) {
    mbd_tree_poses(r->mr, x);
  }
  int accel = !(flags & MBD_DERIV_KINEMATIC) && mbd_stage_has(r->mr, x, MBD_STAGE_ACCELERATION);
  mbd_tree_to_cartesian(r->mr, x, m, d, accel);
  // the recursive solve's rows in the sparse form (O(rows): the reactions read the local rows,
  // and the gather copies no Φq)
  if (r->recursive) {
    mbd_sparse_set(m, d, 1);
  }
  int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc < 0 || !accel) {
    return rc;
  }
  // the recursive solve has each body's forces in its records: the Cartesian M (nv × nv) and Q
  // are not formed, so its data go from the velocity stage straight to the multipliers
  rc = r->recursive ? MBD_OK : mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
  if (rc == MBD_OK) {
    rc = mbd_tree_multipliers(r->mr, x, m, d, err);
  }
  if (rc == MBD_OK) {
    mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  }
  return rc;
}

/* the integration's evaluation of an open tree with generated code (r->direct): the stages
 * augmented's eval runs for it, without the layers that have nothing to do — q and v from y, the
 * generated M̄ and ḡ (the rows are none, the poses not needed, every force in the code, so the
 * forces stage adds nothing), then the solve M̄ q̈ = ḡ (mbd_dynamics_augmented, dense or sparse as
 * chosen).  When y is the code's own input ([q; q̇], as many coordinates as rates, no macro
 * copies) the code reads it where it stands (the hook's open); otherwise through the rows hook. */
static int direct_eval(relative *r, double t, const double *y, mbd_error *err) {
  const mbd_model *mr = r->mr;
  mbd_data *x = r->dr;
  mbd_stage_touch(x, MBD_STAGE_NONE);
  if (mr->eqs->open) {
    mr->eqs->open(mr->eqs->ud, mr, x, t, y);
  } else {
    x->t = t;
    for (int i = 0; i < mr->nqi; i++) {
      x->q[i] = y[i];
    }
    for (int i = 0; i < mr->nv; i++) {
      x->v[i] = y[mr->nqi + i];
    }
    // (the generated code gives the rows, M̄ and ḡ in one call: the forces stage)
    int rc = mr->eqs->rows(mr->eqs->ud, mr, x, 0, err);
    if (rc < 0) {
      return rc;
    }
  }
  mbd_stage_reached(mr, x, MBD_STAGE_FORCES);
  return mbd_dynamics_augmented(mr, x, x->gamma_a, err);
}

/* the inner formulation on the joint coordinates; the Cartesian state of d when asked for (a
 * sample, a root function, an event) */
static int eval(void *self, const mbd_model *m, mbd_data *d, double t, const double *y, int flags,
                mbd_error *err) {
  relative *r = self;
  if (flags == 0 && r->direct && d == r->d_int) {
    return direct_eval(r, t, y, err);
  }
  mbd_data *x = r->dr;
  if (d != r->d_int) {
    // the driver's sampling data: evaluate on a copy, the integration's state stays untouched
    mbd_data_copy_state(r->mr, r->drs, r->dr);
    x = r->drs;
  }
  int rc = r->inner->eval(r->inner_self, r->mr, x, t, y, flags, err);
  if (rc != 0 || flags == 0) {
    return rc;
  }
  return to_cartesian(r, m, d, x, flags, err);
}

static int step(void *self, const mbd_model *m, mbd_data *d, double t, double *y, mbd_error *err) {
  (void)m;
  (void)d;
  relative *r = self;
  return r->inner->step ? r->inner->step(r->inner_self, r->mr, r->dr, t, y, err) : 0;
}

/* the inner formulation's root functions and switches (the passage of singular configurations:
 * augmented.c) on the joint coordinates; its roots read the data the driver's eval just filled */
static int nroot(const void *self, const mbd_model *m) {
  (void)m;
  const relative *r = self;
  return r->inner->nroot ? r->inner->nroot(r->inner_self, r->mr) : 0;
}

static int roots_kinematic(const void *self, const mbd_model *m) {
  (void)m;
  const relative *r = self;
  return r->inner->roots_kinematic && r->inner->roots_kinematic(r->inner_self, r->mr);
}

static int roots(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
                 mbd_error *err) {
  (void)m;
  relative *r = self;
  const mbd_data *x = d != r->d_int ? r->drs : r->dr;
  return r->inner->roots(r->inner_self, r->mr, x, t, g, err);
}

static int event(void *self, const mbd_model *m, mbd_data *d, double t, double *y, const int *found,
                 mbd_error *err) {
  (void)m, (void)d;
  relative *r = self;
  return r->inner->event ? r->inner->event(r->inner_self, r->mr, r->dr, t, y, found, err) : MBD_OK;
}

static void stats(const void *self, mbd_run_stats *st) {
  const relative *r = self;
  st->newton_iterations += r->dr->newton_iterations;
  st->lu_factorizations += r->dr->lu_factorizations;
  st->singular_evaluations += r->dr->gauss_evaluations;
  st->repartitions += r->dr->row_reselections;
  st->code = r->info.code;
  st->derive_time = r->info.derive_time;
  st->compile_time = r->info.compile_time;
  st->cache_hit = r->info.cache_hit;
  snprintf(st->code_warning, sizeof st->code_warning, "%s", r->info.warning);
  if (r->inner->stats) {
    r->inner->stats(r->inner_self, st);
  }
  // (after the inner solver's: its partition on the joint coordinates reports a dense solve)
  if (!r->cartesian) {
    st->linear_solver = r->recursive ? MBD_LINSOLVE_RECURSIVE : MBD_LINSOLVE_DENSE;
  }
}

const mbd_form_ops mbd_form_relative = {.name = "relative",
                                        .check = check,
                                        .create = create,
                                        .ny = ny,
                                        .pack = pack,
                                        .eval = eval,
                                        .deriv = deriv,
                                        .ycoord = ycoord,
                                        .step = step,
                                        .nroot = nroot,
                                        .roots = roots,
                                        .roots_kinematic = roots_kinematic,
                                        .event = event,
                                        .stats = stats,
                                        .ymodel = ymodel,
                                        .display = display,
                                        .destroy = destroy,
                                        .rows_sparse = rows_sparse};
