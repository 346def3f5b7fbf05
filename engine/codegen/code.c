/* generated equations at run time (paper 002, section 3): the derived list of derive.c evaluated
 * on the tape, or emitted as C, compiled by the system compiler and loaded, then plugged into the
 * tree model's constraint and force stages.
 *
 * The compiled code is cached twice over: the symbolic engine keeps the shared object under a
 * hash of its source, compiler and flags (mbd_sym_compile_c), and this file keeps the source under
 * a hash of the model (every number that enters the equations: masses, inertias, joint geometry,
 * the tree and its assembled constants, forces, springs), so an unchanged model loads its code
 * without deriving anything and a changed mass or length derives and compiles again.  A missing
 * compiler, a failed compile, an unloadable object or an unwritable cache make the run use the
 * tape (the same expressions, in process) with a warning: never a failed run. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbd/hash.h"
#include "mbd/sym.h"

#include "../kinematics/kinematics.h"
#include "../kinematics/kinematics_msg.h"
#include "../model/model_msg.h"
#include "codegen.h"
#include "codegen_msg.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define EQS_NAME "mbd_relative_eqs"
/* the rows alone (Φ, Φq, the angle memos: functions of q), in the same source */
#define EQS_ROWS_NAME "mbd_relative_rows"
/* the model's other outputs (γ, M̄, ḡ) given the rows' calls of math functions at the same q (the
 * rows' function returns them after its own outputs), in the same source after a marker with their
 * count */
#define EQS_AT_ROWS_NAME "mbd_relative_eqs_at_rows"
#define EQS_GIVEN_MARK "/* mbd_relative_rows: calls given to " EQS_AT_ROWS_NAME ": "
/* part of the model's cache key: change it with any change to what derive.c emits (a cached source
 * of an older derivation would otherwise be loaded) */
#define EQS_VERSION "mbd relative equations 8"

/* one function of the equations: a tape or compiled code */
typedef struct evaluator {
  mbd_sym_tape *tape;
  mbd_sym_cfn fn;
  mbd_sym_lib *lib;
} evaluator;

static void ev_run(evaluator *e, const double *v, double *out) {
  if (e->fn) {
    e->fn(v, out);
  } else {
    mbd_sym_tape_eval(e->tape, v, out);
  }
}

static void ev_free(evaluator *e) {
  mbd_sym_tape_free(e->tape);
  mbd_sym_lib_close(e->lib);
  memset(e, 0, sizeof *e);
}

struct mbd_gencode {
  const mbd_model *m; /* the tree model */
  mbd_eqs_layout L;
  int kind;           /* MBD_CODE_TAPE or MBD_CODE_COMPILED */
  evaluator model;    /* the model's equations */
  evaluator rows;     /* its rows alone (no macro copies), for Newton iterations: functions of q
                         alone (their function reads q only; a row of q̇ would fail to emit and
                         leave the rows to the model's function); or empty */
  double *rout;       /* their outputs: Φ (mrow), Φq (mrow × n by columns, as d's), angle memos
                         (nang), then the ngiven calls the equations at the same q are given */
  evaluator at;       /* γ, M̄ (n × n, as d's), ḡ given (q, q̇) and the rows' calls; or empty */
  int ngiven;         /* the rows' calls (rout's last outputs; at's inputs after q, q̇) */
  double *rows_q;     /* the positions rout was evaluated at (n), when rows_valid */
  int rows_valid;
  int ndrive, *drive; /* the drives' rows */
  int split;          /* compiled closed loop: the rows' and the rest's functions, no model's (every
                         evaluation is the rows', unless they stand for d's positions, then the
                         rest's) */
  evaluator *shape;   /* macro shapes' equations (L.macros->nshape) */
  double *vin;        /* L.nvin: q, q̇, the copies' bodies' outputs */
  double *out;        /* L.nout */
  double *sin, *sout; /* a copy's inputs (q', q̇', parameters) and outputs */
  double **cout;      /* per copy: its outputs (kept for the assembly) */
  mbd_eqs_hook hook;
  const mbd_data *sd[2]; /* the data last evaluated (integration and sampling) */
  double *stamp[2];      /* their state then: t, q, v (1 + 2n) */
  int next;              /* the stamp slot to reuse */
};

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------------ */
/* evaluation                                                                                  */

/* the same bits (as memcmp; a loop: the calls cost more than a small model's compare) */
static int same_bits(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t x, y;
    memcpy(&x, a + i, sizeof x);
    memcpy(&y, b + i, sizeof y);
    if (x != y) {
      return 0;
    }
  }
  return 1;
}

static void copy_n(double *restrict dst, const double *restrict src, int n) {
  for (int i = 0; i < n; i++) {
    dst[i] = src[i];
  }
}

static int stamped(const mbd_gencode *c, const mbd_data *d) {
  int n = c->L.n;
  for (int s = 0; s < 2; s++) {
    if (c->sd[s] == d && c->stamp[s][0] == d->t && same_bits(c->stamp[s] + 1, d->q, n) &&
        same_bits(c->stamp[s] + 1 + n, d->v, n)) {
      return 1;
    }
  }
  return 0;
}

static void stamp(mbd_gencode *c, const mbd_data *d) {
  int n = c->L.n, s = c->sd[0] == d ? 0 : (c->sd[1] == d ? 1 : c->next);
  if (s == c->next) {
    c->next = 1 - c->next;
  }
  c->sd[s] = d;
  c->stamp[s][0] = d->t;
  copy_n(c->stamp[s] + 1, d->q, n);
  copy_n(c->stamp[s] + 1 + n, d->v, n);
}

/* a drive's row from its coordinate c(q) (out of the equations) and f(t): Φ = c − f (a spatial
 * angle modulo 2π), Φt = −f'; f'' into *f2 */
static int drive_row(const mbd_model *m, mbd_data *d, int r, double coord, double *f2,
                     mbd_error *err) {
  const mbd_drive *dr = &m->drive[m->row[r].index];
  double f[3] = {0, 0, 0};
  int rc = dr->fn(dr->ud, d->t, f, err);
  if (rc < 0) {
    return rc;
  }
  if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
    return MBD_FAIL(err, MBD_E_NAN, MSG_KIN_DRIVE_VALUE, m->joint[dr->joint].name, f[0], d->t);
  }
  d->phi[r] = (m->dim == 3 && dr->coord == MBD_COORD_ANGLE) ? remainder(coord - f[0], 2 * M_PI)
                                                            : coord - f[0];
  d->phit[r] = -f[1];
  *f2 = f[2];
  return MBD_OK;
}

/* spatial angle memos: a tree joint's angle is its value at assembly plus its coordinate; a cut
 * joint's continues from its memo (ang: the raw angles of the equations' outputs) */
static void angle_memos(const mbd_gencode *c, const mbd_model *m, mbd_data *d, const double *ang) {
  const mbd_eqs_layout *L = &c->L;
  if (m->dim != 3) {
    return;
  }
  const mbd_tree *t = m->tree;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    int ac = tj->joint >= 0 ? mbd_joint_type_get(m->joint[tj->joint].type)->angle_coord[1] : -1;
    if (ac >= 0) {
      d->angle_memo[tj->joint] = tj->coord0[ac] + d->q[tj->qadr + tj->rot];
    }
  }
  for (int k = 0; k < L->nang; k++) {
    const mbd_joint *j = &m->joint[L->ang_joint[k]];
    double memo = d->angle_memo[L->ang_joint[k]];
    double th = memo + remainder(ang[k] - memo, 2 * M_PI);
    d->angle_memo[L->ang_joint[k]] = th;
    // a cut screw's advance: the equations' angle is atan2's, the joint's counts its turns
    const mbd_joint_type_desc *jt = mbd_joint_type_get(j->type);
    for (int r = 0; r < j->nrow; r++) {
      if (jt->row[1][r].op == MBD_JR_SCREW) {
        d->phi[j->row0 + r] -= j->lead * (th - ang[k]);
      }
    }
  }
}

/* the drives' rows of d from their coordinates c(q) in d->phi and the quadratic parts of c̈ in
 * d->gamma (as the equations return them): Φ = c − f(t), Φt = −f', γ = f'' − (c_q q̇)_q q̇ (with
 * gamma, else γ is left alone) */
static int drive_rows(const mbd_gencode *c, const mbd_model *m, mbd_data *d, int gamma,
                      mbd_error *err) {
  for (int k = 0; k < c->ndrive; k++) {
    int r = c->drive[k];
    double f2 = 0;
    int rc = drive_row(m, d, r, d->phi[r], &f2, err);
    if (rc < 0) {
      return rc;
    }
    if (gamma) {
      d->gamma[r] = f2 - d->gamma[r];
    }
  }
  return MBD_OK;
}

/* Φ, Φq, Φt and the angle memos alone at the positions of d (a Newton iteration: rows has no
 * macro copies); γ, M̄ and ḡ keep their values until the next eval_all */
static int eval_rows(mbd_gencode *c, const mbd_model *m, mbd_data *d, mbd_error *err) {
  const mbd_eqs_layout *L = &c->L;
  int n = L->n, mrow = m->mrow;
  ev_run(&c->rows, d->q, c->rout);
  if (c->at.fn) {
    copy_n(c->rows_q, d->q, n);
    c->rows_valid = 1;
  }
  const double *o = c->rout;
  copy_n(d->phi, o, mrow);
  copy_n(d->phiq, o + mrow, mrow * n);  // (by columns, as d's)
  memset(d->phit, 0, (size_t)mrow * sizeof(double));
  int rc = drive_rows(c, m, d, 0, err);
  if (rc < 0) {
    return rc;
  }
  angle_memos(c, m, d, o + mrow + (size_t)mrow * n);
  return MBD_OK;
}

/* M̄ (um: its upper triangle by rows) and ḡ (g) into d */
static void mass_forces(int n, const double *restrict um, const double *restrict g, mbd_data *d) {
  double *restrict M = d->M, *restrict Q = d->Q;
  for (int i = 0; i < n; i++) {
    Q[i] = g[i];
    for (int j = i; j < n; j++) {
      double v = *um++;  // (the upper triangle by rows: M̄_ij in the order i, then j ≥ i)
      MBD_AT(M, n, i, j) = v;
      MBD_AT(M, n, j, i) = v;
    }
  }
}

/* the model's function at the state of d into c->out, after the macro copies' shapes (paper 002
 * section 4): each copy's shape with its own coordinates and parameters; its bodies' poses become
 * inputs of the model's equations */
static void eval_model(mbd_gencode *c, const mbd_data *d) {
  const mbd_eqs_layout *L = &c->L;
  int n = L->n;
  copy_n(c->vin, d->q, n);
  copy_n(c->vin + n, d->v, n);
  const mbd_eqs_macros *P = L->macros;
  for (int k = 0; P && k < P->ncopy; k++) {
    const mbd_eqs_copy *cp = &P->copy[k];
    const mbd_eqs_shape *sh = &P->shape[cp->shape];
    int nc = sh->local->nv;
    for (int i = 0; i < nc; i++) {
      c->sin[i] = d->q[cp->qmap[i]];
      c->sin[nc + i] = d->v[cp->qmap[i]];
    }
    memcpy(c->sin + 2 * nc, cp->par, (size_t)sh->npar * sizeof(double));
    ev_run(&c->shape[cp->shape], c->sin, c->cout[k]);
    memcpy(c->vin + cp->vslot, c->cout[k] + sh->obody,
           (size_t)(sh->nout - sh->obody) * sizeof(double));
  }
  ev_run(&c->model, c->vin, c->out);
}

/* the macro copies' blocks of M̄ and ḡ and their own rows (their outputs of eval_model) */
static void copies_blocks(mbd_gencode *c, mbd_data *d) {
  const mbd_eqs_macros *P = c->L.macros;
  int n = c->L.n, mrow = c->m->mrow;
  for (int k = 0; P && k < P->ncopy; k++) {
    const mbd_eqs_copy *cp = &P->copy[k];
    const mbd_eqs_shape *sh = &P->shape[cp->shape];
    const mbd_eqs_layout *Ls = &sh->L;
    const double *co = c->cout[k];
    int nc = sh->local->nv;
    for (int i = 0; i < nc; i++) {
      int gi = cp->qmap[i];
      d->Q[gi] += co[Ls->og + i];
      for (int j = i; j < nc; j++) {
        int gj = cp->qmap[j];
        double v = co[Ls->oM + i * nc - i * (i - 1) / 2 + (j - i)];
        MBD_AT(d->M, n, gi, gj) += v;
        if (gi != gj) {
          MBD_AT(d->M, n, gj, gi) += v;
        }
      }
    }
    for (int r = 0; r < sh->local->mrow; r++) {
      int gr = cp->rowmap[r];
      d->phi[gr] = co[Ls->ophi + r];
      d->gamma[gr] = co[Ls->ogam + r];
      for (int i = 0; i < nc; i++) {
        MBD_AT(d->phiq, mrow, gr, cp->qmap[i]) = co[Ls->ophiq + (size_t)r * nc + i];
      }
    }
  }
}

/* every output at the state of d into its arrays: rows (drives with f(t) added), angle memos,
 * M̄ and ḡ.  When the rows' function last ran at these positions (a Newton iteration's last), Φ,
 * Φq and the angles are its outputs and the rest comes from the function given its calls: the
 * same values to the bit, without calling sin and cos again, laid out as d's arrays. */
static int eval_all(mbd_gencode *c, const mbd_model *m, mbd_data *d, mbd_error *err) {
  const mbd_eqs_layout *L = &c->L;
  int n = L->n, mrow = m->mrow;
  const double *ang;
  int have = c->rows_valid && same_bits(c->rows_q, d->q, n);
  if (c->split && !have) {
    ev_run(&c->rows, d->q, c->rout);
    copy_n(c->rows_q, d->q, n);
    c->rows_valid = have = 1;
  }
  if (have) {
    int nr = mrow * (n + 1) + L->nang;
    copy_n(c->vin, d->q, n);
    copy_n(c->vin + n, d->v, n);
    copy_n(c->vin + 2 * n, c->rout + nr, c->ngiven);
    ev_run(&c->at, c->vin, c->out);
    copy_n(d->phi, c->rout, mrow);
    copy_n(d->phiq, c->rout + mrow, mrow * n);
    copy_n(d->gamma, c->out, mrow);
    copy_n(d->M, c->out + mrow, n * n);
    copy_n(d->Q, c->out + mrow + n * n, n);
    ang = c->rout + mrow + (size_t)mrow * n;
  } else {
    eval_model(c, d);
    const double *o = c->out;
    for (int r = 0; r < mrow; r++) {
      for (int k = 0; k < n; k++) {
        MBD_AT(d->phiq, mrow, r, k) = o[L->ophiq + (size_t)r * n + k];
      }
      d->phi[r] = o[L->ophi + r];
      d->gamma[r] = o[L->ogam + r];
    }
    mass_forces(n, o + L->oM, o + L->og, d);
    ang = o + L->oang;
  }
  memset(d->phit, 0, (size_t)mrow * sizeof(double));
  int rc = drive_rows(c, m, d, 1, err);
  if (rc < 0) {
    return rc;
  }
  angle_memos(c, m, d, ang);
  copies_blocks(c, d);
  stamp(c, d);
  return MBD_OK;
}

static int hook_rows(void *ud, const mbd_model *m, mbd_data *d, int flags, mbd_error *err) {
  mbd_gencode *c = ud;
  // a Newton iteration reads the rows alone; otherwise every output is evaluated together (Φq
  // too when only q̇ changed)
  if (flags == MBD_EVAL_POSITION && (c->rows.fn || c->rows.tape)) {
    return eval_rows(c, m, d, err);
  }
  return eval_all(c, m, d, err);
}

/* an open tree's M̄ and ḡ straight from the integrator's y = [q; q̇] (the equations' own input:
 * no macro copies, as many coordinates as rates): d's t, q, v, M and Q, nothing else to do (no
 * rows, every force in the code).  d's stamp is dropped (its M and Q no longer come from
 * eval_all, so hook_forces evaluates again); another data's stamp stands. */
static void hook_open(void *ud, const mbd_model *m, mbd_data *d, double t, const double *y) {
  mbd_gencode *c = ud;
  const mbd_eqs_layout *L = &c->L;
  int n = L->n;
  d->t = t;
  for (int i = 0; i < n; i++) {
    d->q[i] = y[i];
    d->v[i] = y[n + i];
  }
  ev_run(&c->model, y, c->out);
  const double *o = c->out;
  angle_memos(c, m, d, o + L->oang);
  mass_forces(n, o + L->oM, o + L->og, d);
  for (int k = 0; k < 2; k++) {
    c->sd[k] = c->sd[k] == d ? NULL : c->sd[k];
  }
}

/* Q += Jᵀ Q_Y of body b (the pose stage ran: need_poses) */
static void scatter(const mbd_model *m, mbd_data *d, int b, const double *QY) {
  const mbd_pose *ps = &d->pose[b];
  if (ps->vadr < 0) {
    return;
  }
  for (int c = 0; c < m->nv; c++) {
    double s = 0;
    for (int k = 0; k < ps->ny; k++) {
      s += MBD_AT(ps->J, ps->ny, k, c) * QY[k];
    }
    d->Q[c] += s;
  }
}

/* M̄ and ḡ, plus the forces the code does not hold: functions of time and state, springs on a cut
 * joint's angle (numerically, as model/forces.c) */
static int hook_forces(void *ud, const mbd_model *m, mbd_data *d, mbd_error *err) {
  mbd_gencode *c = ud;
  if (!stamped(c, d)) {
    int rc = eval_all(c, m, d, err);
    if (rc < 0) {
      return rc;
    }
  }
  const mbd_eqs_layout *L = &c->L;
  for (int i = 0; i < m->nforce; i++) {
    if (!L->force_numeric[i]) {
      continue;
    }
    const mbd_force *f = &m->force[i];
    double val[3] = {0, 0, 0};
    int rc = f->fn(f->ud, d->t, m, d, val, err);
    if (rc < 0) {
      return rc;
    }
    int nv = m->dim == 3 ? 3 : (f->kind == FORCE_TORQUE ? 1 : 2);
    for (int k = 0; k < nv; k++) {
      if (!isfinite(val[k])) {
        return MBD_FAIL(err, MBD_E_NAN, MSG_MODEL_FORCE_VALUE,
                        f->kind == FORCE_TORQUE ? "torque" : "force", m->body[f->body].name, val[k],
                        d->t);
      }
    }
    const mbd_body_kind_desc *kd = mbd_body_kind_get(m->body[f->body].kind);
    double QY[MBD_NY_MAX] = {0};
    if (f->kind == FORCE_POINT) {
      double F[3] = {val[0], val[1], m->dim == 3 ? val[2] : 0};
      kd->point_force(&d->pose[f->body], f->at, F, QY);
    } else {
      double T[3] = {m->dim == 3 ? val[0] : 0, m->dim == 3 ? val[1] : 0,
                     m->dim == 3 ? val[2] : val[0]};
      kd->torque(&d->pose[f->body], T, QY);
    }
    scatter(m, d, f->body, QY);
  }
  for (int i = 0; i < m->nrspring; i++) {
    if (!L->rspring_numeric[i]) {
      continue;
    }
    const mbd_rspring *r = &m->rspring[i];
    const mbd_joint *j = &m->joint[r->joint];
    mbd_row o;
    mbd_joint_coord_row(m, d, r->joint, MBD_COORD_ANGLE, &o);
    double T = -r->k * (o.val - r->angle) - r->c * o.rate;
    int bs[2] = {j->body1, j->body2};
    for (int side = 0; side < 2; side++) {
      double QY[MBD_NY_MAX];
      for (int k = 0; k < MBD_NY_MAX; k++) {
        QY[k] = T * o.J[side * MBD_NY_MAX + k];
      }
      scatter(m, d, bs[side], QY);
    }
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* the model's key, the cache, the compiler                                                    */

/* the key hashes every value in exact form (each bit of each double, a tag before it) with
 * SHA-256: models that differ in the last bit of any value derive again.  The bytes are the
 * machine's doubles as they stand (the cache is this machine's); a zero of either sign is +0.  The
 * values pass through a buffer: one SHA-256 update per kilobyte instead of a formatted string per
 * value (a model's key cost about as many instructions as its whole run) */
typedef struct keyer {
  mbd_sha256 s;
  size_t n;
  unsigned char buf[1024];
} keyer;

static void kflush(keyer *k) {
  mbd_sha256_update(&k->s, k->buf, k->n);
  k->n = 0;
}

static void kput(keyer *k, char tag, double x) {
  if (k->n + 1 + sizeof x > sizeof k->buf) {
    kflush(k);
  }
  x = x == 0 ? 0.0 : x;
  k->buf[k->n++] = (unsigned char)tag;
  memcpy(k->buf + k->n, &x, sizeof x);
  k->n += sizeof x;
}

static void kvec(keyer *k, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    kput(k, ',', v[i]);
  }
}

/* a key of everything the equations are made of, 64 hexadecimal digits */
static void model_key(const mbd_model *m, char out[65]) {
  keyer k;
  k.n = 0;
  mbd_sha256_init(&k.s);
  mbd_sha256_update(&k.s, EQS_VERSION, strlen(EQS_VERSION) + 1);
  kput(&k, 'd', m->dim);
  kvec(&k, m->gravity, 3);
  kput(&k, 'n', m->nv);
  // the number of each kind of record: each section's length is fixed by them
  double counts[9] = {m->nbody, m->ncopy,  m->njoint, m->tree->ntj, m->mrow,
                      m->ndrive, m->nforce, m->nspring, m->nrspring};
  for (int i = 0; i < 9; i++) {
    kput(&k, 'N', counts[i]);
  }
  for (int b = 1; b < m->nbody; b++) {
    kput(&k, 'b', m->body[b].mass);
    kvec(&k, m->body[b].inertia, 9);
    kput(&k, 'c', m->body[b].copy);
  }
  for (int c = 1; c < m->ncopy; c++) {
    kvec(&k, m->copy[c].origin, 3);
    kvec(&k, m->copy[c].rot, 4);
  }
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jo = &m->joint[j];
    kput(&k, 'j', jo->type);
    kput(&k, ',', jo->body1);
    kput(&k, ',', jo->body2);
    kvec(&k, jo->at1, 3);
    kvec(&k, jo->at2, 3);
    kvec(&k, jo->axis1, 3);
    kvec(&k, jo->axis2, 3);
    kvec(&k, jo->ref1, 3);
    kvec(&k, jo->ref2, 3);
    kput(&k, ',', jo->angle0);
    kput(&k, ',', jo->lead);
    kput(&k, ',', jo->disp0);
  }
  const mbd_tree *t = m->tree;
  for (int i = 0; i < t->ntj; i++) {
    const mbd_tree_joint *tj = &t->tj[i];
    double ints[9] = {tj->joint, 8 * tj->kind + tj->rotk, tj->parent, tj->child, tj->sigma,
                      tj->qadr,  tj->nq,   tj->rot,    tj->disp};
    kvec(&k, ints, 9);
    kvec(&k, tj->s1, 3);
    kvec(&k, tj->s2, 3);
    kvec(&k, tj->d0, 3);
    kvec(&k, tj->u, 3);
    kvec(&k, tj->w, 3);
    kvec(&k, tj->c, 4);
    kvec(&k, tj->coord0, MBD_JOINT_MAXCOORD);
    kvec(&k, tj->dax[0], 3);
    kvec(&k, tj->dax[1], 3);
  }
  for (int r = 0; r < m->mrow; r++) {
    double ints[4] = {m->row[r].owner, m->row[r].index, m->row[r].local, m->row[r].level};
    kvec(&k, ints, 4);
  }
  for (int i = 0; i < m->ndrive; i++) {
    double ints[3] = {m->drive[i].joint, m->drive[i].coord, m->drive[i].row};
    kvec(&k, ints, 3);
  }
  for (int i = 0; i < m->nforce; i++) {
    const mbd_force *f = &m->force[i];
    double ints[3] = {f->kind, f->body, f->fn != NULL};
    kvec(&k, ints, 3);
    kvec(&k, f->at, 3);
    kvec(&k, f->value, 3);
  }
  for (int i = 0; i < m->nspring; i++) {
    const mbd_spring *s = &m->spring[i];
    double v[5] = {s->body1, s->body2, s->k, s->c, s->length};
    kvec(&k, v, 5);
    kvec(&k, s->at1, 3);
    kvec(&k, s->at2, 3);
  }
  for (int i = 0; i < m->nrspring; i++) {
    const mbd_rspring *r = &m->rspring[i];
    double v[4] = {r->joint, r->k, r->c, r->angle};
    kvec(&k, v, 4);
  }
  kflush(&k);
  mbd_sha256_final(&k.s, out);
}

/* a derived source kept in the cache under its model's key: its first line records the SHA-256
 * of the rest ("mbd-sha256 <hex>" in a C comment), checked when it is read back; the file must be the
 * user's and private (mbd_sym_cache_read).  The source, or NULL (derive again) */
#define SIGNED_HEAD "/* mbd-sha256 "
static char *read_source(const char *path) {
  mbd_error e;
  size_t n = 0;
  char *s = mbd_sym_cache_read(path, &n, &e);
  size_t h = strlen(SIGNED_HEAD);
  if (!s || n < h + 64 + 4 || memcmp(s, SIGNED_HEAD, h) != 0 || memcmp(s + h + 64, " */\n", 4)) {
    free(s);
    return NULL;
  }
  const char *body = s + h + 64 + 4;
  char got[65];
  mbd_sha256_hex(got, body, n - (size_t)(body - s));
  if (memcmp(got, s + h, 64) != 0) {
    free(s);
    return NULL;
  }
  memmove(s, body, n - (size_t)(body - s) + 1);
  return s;
}

/* text into the cache at path with its digest line, 0600, whole or not at all */
static int write_source(const char *path, const char *text, mbd_error *err) {
  char sum[65];
  mbd_sha256_hex(sum, text, strlen(text));
  size_t h = strlen(SIGNED_HEAD), n = strlen(text);
  char *all = malloc(h + 64 + 4 + n + 1);
  if (!all) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
  }
  memcpy(all, SIGNED_HEAD, h);
  memcpy(all + h, sum, 64);
  memcpy(all + h + 64, " */\n", 4);
  memcpy(all + h + 68, text, n + 1);
  int rc = mbd_sym_cache_write(path, all, h + 68 + n, 0600, err);
  free(all);
  return rc;
}

void mbd_code_free(mbd_gencode *c) {
  if (!c) {
    return;
  }
  ev_free(&c->model);
  ev_free(&c->rows);
  ev_free(&c->at);
  free(c->rout);
  free(c->rows_q);
  free(c->drive);
  int nshape = c->L.macros ? c->L.macros->nshape : 0, ncopy = c->L.macros ? c->L.macros->ncopy : 0;
  for (int s = 0; c->shape && s < nshape; s++) {
    ev_free(&c->shape[s]);
  }
  for (int k = 0; c->cout && k < ncopy; k++) {
    free(c->cout[k]);
  }
  free(c->shape);
  free(c->cout);
  mbd_eqs_layout_free(&c->L);
  free(c->vin);
  free(c->out);
  free(c->sin);
  free(c->sout);
  free(c->stamp[0]);
  free(c->stamp[1]);
  free(c);
}

const mbd_eqs_hook *mbd_code_hook(const mbd_gencode *c) { return &c->hook; }

/* what one function is made of: the model's equations or a shape's */
typedef struct part {
  const mbd_model *m; /* the model (part of the model) */
  const mbd_eqs_layout *L;
  const mbd_eqs_shape *shape; /* a shape's, or NULL for the model's */
  int nin, nout;
  const char *name; /* the C function's name */
  char path[4096];  /* the source under its key in the cache, or "" */
  evaluator *rows;  /* the model's rows alone (EQS_ROWS_NAME, the same source) too, or NULL */
  evaluator *at;    /* with rows, compiled: the rest given the rows' calls (EQS_AT_ROWS_NAME) */
  int *ngiven;      /* with at: how many calls the rows' function returns after its outputs */
} part;

/* the rows' outputs among the model's: Φ, Φq by columns (d's layout), the angle memos (rout's
 * layout); their count */
static int rows_outputs(const mbd_eqs_layout *L, const mbd_sym_id *outs, mbd_sym_id *sel) {
  int k = 0;
  for (int r = 0; r < L->mrow; r++) {
    sel[k++] = outs[L->ophi + r];
  }
  for (int j = 0; j < L->n; j++) {
    for (int r = 0; r < L->mrow; r++) {
      sel[k++] = outs[L->ophiq + r * L->n + j];
    }
  }
  for (int a = 0; a < L->nang; a++) {
    sel[k++] = outs[L->oang + a];
  }
  return k;
}

/* the outputs the rows do not hold: γ (mrow), M̄ whole by columns (d's layout), ḡ (n), in that
 * order (eval_all reads them so); their count */
static int rest_outputs(const mbd_eqs_layout *L, const mbd_sym_id *outs, mbd_sym_id *sel) {
  int k = 0, n = L->n;
  for (int r = 0; r < L->mrow; r++) {
    sel[k++] = outs[L->ogam + r];
  }
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      int a = i < j ? i : j, b = i < j ? j : i;  // (the upper triangle by rows holds (a, b ≥ a))
      sel[k++] = outs[L->oM + a * n - a * (a - 1) / 2 + (b - a)];
    }
  }
  for (int i = 0; i < L->n; i++) {
    sel[k++] = outs[L->og + i];
  }
  return k;
}

/* the definition of helper `head` ("static double mbd_powi(") in src (mbd_sym_emit_c writes each
 * helper followed by a blank line): its start and length, or NULL */
static const char *helper(const char *src, const char *head, size_t *len) {
  const char *h = strstr(src, head), *e = h ? strstr(h, "}\n\n") : NULL;
  *len = e ? (size_t)(e + 2 - h) : 0;
  return e ? h : NULL;
}

/* full with the function `name` of fsrc after it, preceded by the text pre and by the helpers
 * (mbd_powi, mbd_sign) it uses that full does not define; NULL when out of memory */
static char *with_fn(const char *full, const char *fsrc, const char *name, const char *pre) {
  char head[128];
  snprintf(head, sizeof head, "void %s(", name);
  const char *f = strstr(fsrc, head);
  if (!f) {
    return NULL;
  }
  static const char *const helpers[2][2] = {{"mbd_powi(", "static double mbd_powi("},
                                            {"mbd_sign(", "static double mbd_sign("}};
  const char *hs[2] = {NULL, NULL};
  size_t hl[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    if (strstr(f, helpers[k][0]) && !strstr(full, helpers[k][1])) {
      hs[k] = helper(fsrc, helpers[k][1], &hl[k]);
      if (!hs[k]) {
        return NULL;
      }
    }
  }
  size_t a = strlen(full), p = strlen(pre), b = strlen(f);
  char *s = malloc(a + 1 + hl[0] + hl[1] + p + b + 1);
  if (s) {
    char *w = s;
    memcpy(w, full, a);
    w += a;
    *w++ = '\n';
    for (int k = 0; k < 2; k++) {
      memcpy(w, hs[k] ? hs[k] : "", hl[k]);
      w += hl[k];
    }
    memcpy(w, pre, p);
    memcpy(w + p, f, b + 1);
  }
  return s;
}

/* the count of calls given to EQS_AT_ROWS_NAME by a source's marker, −1 without one */
static int given_mark(const char *src) {
  const char *mk = strstr(src, EQS_GIVEN_MARK);
  int ng = -1;
  if (!mk || sscanf(mk + strlen(EQS_GIVEN_MARK), "%d", &ng) != 1 || ng < 0) {
    return -1;
  }
  return ng;
}

/* a source holding the rows' and the rest's functions instead of the model's (a closed loop) */
static int split_source(const part *pt, const char *src) {
  return pt->rows && !strstr(src, "void " EQS_NAME "(");
}

/* the rows' and the rest's functions out of a compiled source holding them (the same source: its
 * object is cached, the compiler does not run again; *ran set when it did).  With the model's
 * function, a source without the rows' leaves every evaluation to it, one without the rest's
 * leaves that evaluation to it; a split source needs both (else an error: the tape runs) */
static int load_rows(const part *pt, const char *src, int *ran, mbd_error *e2) {
  int r = 0;
  if (strstr(src, "void " EQS_ROWS_NAME "(") &&
      mbd_sym_compile_c(src, EQS_ROWS_NAME, &pt->rows->fn, &pt->rows->lib, &r, e2) != MBD_OK) {
    ev_free(pt->rows);
  }
  *ran |= r;
  int ng = pt->rows->fn ? given_mark(src) : -1;
  if (ng >= 0 && strstr(src, "void " EQS_AT_ROWS_NAME "(") &&
      mbd_sym_compile_c(src, EQS_AT_ROWS_NAME, &pt->at->fn, &pt->at->lib, &r, e2) != MBD_OK) {
    ev_free(pt->at);
  }
  *ran |= r;
  // (the rows' function returns the calls whether or not the rest's loaded: they size its buffer)
  *pt->ngiven = ng > 0 ? ng : 0;
  if (split_source(pt, src) && (!pt->rows->fn || !pt->at->fn)) {
    ev_free(pt->rows);
    ev_free(pt->at);
    *pt->ngiven = 0;
    return e2->code ? e2->code : MBD_FAIL(e2, MBD_E_IO, MSG_CODE_SPLIT, EQS_ROWS_NAME,
                                          EQS_AT_ROWS_NAME);
  }
  return MBD_OK;
}

/* the source of a part with rows (*out; NULL when neither form can be written: every evaluation
 * then evaluates the model's function src alone).  A closed loop's: the rows' function, returning
 * after its outputs the calls of math functions the rest also needs, and the rest's function given
 * them (with a marker of their count) — together every output, so the model's function is left
 * out.  An open tree's, or when the rest's cannot be written: the model's function src with the
 * rows' after it. */
static int source_with_rows(const part *pt, mbd_sym_ctx *ctx, const mbd_sym_id *vars,
                            const mbd_sym_id *outs, const char *src, char **out, mbd_error *e2) {
  *out = NULL;
  const mbd_eqs_layout *L = pt->L;
  int nrows = L->mrow * (L->n + 1) + L->nang, nrest = L->mrow + L->n * (L->n + 1);
  mbd_sym_id *sel = malloc((size_t)(nrows + nrest + 1) * sizeof *sel);
  if (!sel) {
    return MBD_FAIL(e2, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
  }
  rows_outputs(L, outs, sel);
  mbd_sym_id *rest = sel + nrows;
  rest_outputs(L, outs, rest);
  int rc = MBD_OK;
  char *rsrc = NULL, *asrc = NULL;
  if (L->mrow > 0) {
    int ng = mbd_sym_shared_calls(ctx, nrows, sel, nrest, rest, 0, NULL);
    mbd_sym_id *all = ng >= 0 ? malloc((size_t)(nrows + ng + 1) * sizeof *all) : NULL;
    if (!all) {
      rc = MBD_FAIL(e2, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
    } else {
      memcpy(all, sel, (size_t)nrows * sizeof *all);
      mbd_sym_shared_calls(ctx, nrows, sel, nrest, rest, ng, all + nrows);
      int erc = mbd_sym_emit_c_given(ctx, EQS_AT_ROWS_NAME, nrest, rest, pt->nin, vars, ng,
                                     all + nrows, &asrc, e2);
      if (erc == MBD_OK) {
        // (the rows read q alone)
        erc = mbd_sym_emit_c(ctx, EQS_ROWS_NAME, nrows + ng, all, L->n, vars, &rsrc, e2);
      }
      if (erc == MBD_OK) {
        char mark[160];
        snprintf(mark, sizeof mark, EQS_GIVEN_MARK "%d */\n", ng);
        *out = with_fn(rsrc, asrc, EQS_AT_ROWS_NAME, mark);
      }
      // (out of memory fails; a row that is not a function of q alone: the other form)
      rc = erc == MBD_E_NOMEM || (erc == MBD_OK && !*out)
               ? MBD_FAIL(e2, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code")
               : MBD_OK;
      free(all);
    }
    free(rsrc);
    free(asrc);
    rsrc = NULL;
  }
  if (rc == MBD_OK && !*out &&
      mbd_sym_emit_c(ctx, EQS_ROWS_NAME, nrows, sel, L->n, vars, &rsrc, e2) == MBD_OK) {
    *out = with_fn(src, rsrc, EQS_ROWS_NAME, "");
  }
  free(rsrc);
  free(sel);
  return rc;
}

static int derive_part(const part *pt, mbd_sym_ctx **ctx, mbd_sym_id **vars, mbd_sym_id **outs,
                       mbd_error *err) {
  return pt->shape ? mbd_eqs_derive_shape(pt->shape, ctx, vars, outs, err)
                   : mbd_eqs_derive(pt->m, pt->L, ctx, vars, outs, err);
}

/* one function as code of kind `kind` into ev: compiled from the cached source when there is one
 * (no derivation), else derived, then compiled (falling back to the tape, *fell set with the
 * reason in info->warning) or taped */
/* the compiled parts this process has loaded, by their source's path in the cache (the model's
 * or the shape's key) and function name: a model simulated again (a sweep, a study's ladder, a
 * benchmark's repeats) takes its functions from here without reading its source, checking the
 * source's SHA-256 and hashing it again for the object's key (0.4 M instructions a run of the
 * double pendulum, 40 % of its integration).  Only functions of objects that stay loaded
 * (mbd_sym_lib_resident) are kept; PARTS_MAX parts, further ones load as before. */
#define PARTS_MAX 64
static struct {
  char *path, *name;
  mbd_sym_cfn fn, rows, at; /* the part's function, its rows' and rest's (split sources) */
  int ngiven;
} parts[PARTS_MAX];
static int nparts;
static pthread_mutex_t parts_mu = PTHREAD_MUTEX_INITIALIZER;

/* the part of pt from the table into ev (and pt's rows, at, ngiven): 1 when it was there */
static int parts_find(const part *pt, evaluator *ev) {
  int found = 0;
  pthread_mutex_lock(&parts_mu);
  for (int i = 0; i < nparts && !found; i++) {
    if (strcmp(parts[i].path, pt->path) == 0 && strcmp(parts[i].name, pt->name) == 0) {
      found = 1;
      ev->fn = parts[i].fn;
      if (pt->rows) {
        pt->rows->fn = parts[i].rows;
        pt->at->fn = parts[i].at;
        *pt->ngiven = parts[i].ngiven;
      }
    }
  }
  pthread_mutex_unlock(&parts_mu);
  return found;
}

/* the part just loaded into ev (and pt's rows, at) into the table when every function of it is
 * resident */
static void parts_add(const part *pt, const evaluator *ev) {
  const evaluator *e[3] = {ev, pt->rows, pt->at};
  for (int k = 0; k < 3; k++) {
    if (e[k] && (e[k]->tape || (e[k]->fn && !mbd_sym_lib_resident(e[k]->lib)))) {
      return;
    }
  }
  pthread_mutex_lock(&parts_mu);
  if (nparts < PARTS_MAX) {
    char *a = strdup(pt->path), *b = strdup(pt->name);
    if (a && b) {
      parts[nparts].path = a;
      parts[nparts].name = b;
      parts[nparts].fn = ev->fn;
      parts[nparts].rows = pt->rows ? pt->rows->fn : NULL;
      parts[nparts].at = pt->rows ? pt->at->fn : NULL;
      parts[nparts].ngiven = pt->rows ? *pt->ngiven : 0;
      nparts++;
    } else {
      free(a);
      free(b);
    }
  }
  pthread_mutex_unlock(&parts_mu);
}

static int make_part(const part *pt, int kind, evaluator *ev, mbd_code_info *info, int *fell,
                     mbd_error *err) {
  if (kind == MBD_CODE_COMPILED && pt->path[0] && parts_find(pt, ev)) {
    return MBD_OK;  // (a cache hit: no compiler, no time)
  }
  if (kind == MBD_CODE_COMPILED && pt->path[0]) {
    char *src = read_source(pt->path);
    if (src) {
      double t0 = wall();
      int ran = 0;
      mbd_error e2;
      mbd_error_clear(&e2);
      int crc = MBD_OK;
      if (!split_source(pt, src)) {
        crc = mbd_sym_compile_c(src, pt->name, &ev->fn, &ev->lib, &ran, &e2);
      }
      if (crc == MBD_OK && pt->rows) {
        crc = load_rows(pt, src, &ran, &e2);
      }
      free(src);
      if (crc == MBD_OK) {
        info->compile_time += wall() - t0;
        info->cache_hit &= !ran;
        parts_add(pt, ev);
        return MBD_OK;
      }
    }
  }
  double t0 = wall();
  mbd_sym_ctx *ctx = NULL;
  mbd_sym_id *vars = NULL, *outs = NULL;
  int rc = derive_part(pt, &ctx, &vars, &outs, err);
  if (rc != MBD_OK) {
    return rc;
  }
  info->derive_time += wall() - t0;
  info->nodes += mbd_sym_count(ctx);
  if (kind == MBD_CODE_COMPILED) {
    double t1 = wall();
    mbd_error e2;
    mbd_error_clear(&e2);
    char *src = NULL;
    int ran = 0;
    int crc = mbd_sym_emit_c(ctx, pt->name, pt->nout, outs, pt->nin, vars, &src, &e2);
    if (crc == MBD_OK && pt->rows) {
      char *both = NULL;
      crc = source_with_rows(pt, ctx, vars, outs, src, &both, &e2);
      if (both) {
        free(src);
        src = both;
      }
    }
    if (crc == MBD_OK && !split_source(pt, src)) {
      crc = mbd_sym_compile_c(src, pt->name, &ev->fn, &ev->lib, &ran, &e2);
    }
    if (crc == MBD_OK && pt->rows) {
      crc = load_rows(pt, src, &ran, &e2);
    }
    if (crc == MBD_OK && pt->path[0]) {
      // remember the source under its key (a failure only costs a derivation next time)
      mbd_error e3;
      write_source(pt->path, src, &e3);
      parts_add(pt, ev);
    }
    free(src);
    if (crc == MBD_OK) {
      info->compile_time += wall() - t1;
      info->cache_hit &= !ran;
    } else {
      snprintf(info->warning, sizeof info->warning, MSG_CODE_FALLBACK, e2.msg);
      *fell = 1;
      kind = MBD_CODE_TAPE;
    }
  }
  if (kind == MBD_CODE_TAPE) {
    double t1 = wall();
    rc = mbd_sym_tape_new(ctx, pt->nout, outs, pt->nin, vars, &ev->tape, err);
    if (rc == MBD_OK && pt->rows) {
      // the rows alone (no calls given: the tape evaluates every output together otherwise)
      mbd_sym_id *sel = malloc((size_t)(pt->nout ? pt->nout : 1) * sizeof *sel);
      rc = sel ? mbd_sym_tape_new(ctx, rows_outputs(pt->L, outs, sel), sel, pt->L->n, vars,
                                  &pt->rows->tape, err)
               : MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
      free(sel);
      if (rc != MBD_OK && rc != MBD_E_NOMEM) {
        rc = MBD_OK;  // (a row that is not a function of q alone: no rows alone, as above)
        mbd_error_clear(err);
      }
    }
    info->compile_time += wall() - t1;
    if (rc == MBD_OK) {
      info->instructions += mbd_sym_tape_ninstr(ev->tape);
    }
  }
  mbd_sym_ctx_free(ctx);
  free(vars);
  free(outs);
  return rc;
}

int mbd_code_new(const mbd_model *m, int kind, mbd_gencode **out, mbd_code_info *info,
                 mbd_error *err) {
  *out = NULL;
  memset(info, 0, sizeof *info);
  mbd_gencode *c = calloc(1, sizeof *c);
  if (!c) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
  }
  c->m = m;
  int rc = mbd_eqs_layout_make(m, &c->L, err);
  if (rc != MBD_OK) {
    free(c);
    return rc;
  }
  int n = m->nv;
  const mbd_eqs_macros *P = c->L.macros;
  int nshape = P ? P->nshape : 0, ncopy = P ? P->ncopy : 0, smax = 1, omax = 1;
  for (int s = 0; s < nshape; s++) {
    int nin = 2 * P->shape[s].local->nv + P->shape[s].npar;
    smax = nin > smax ? nin : smax;
    omax = P->shape[s].nout > omax ? P->shape[s].nout : omax;
  }
  c->vin = calloc((size_t)(c->L.nvin + 1), sizeof(double));
  c->rout = calloc((size_t)(c->L.mrow * (n + 1) + c->L.nang + 1), sizeof(double));
  c->out = calloc((size_t)(c->L.nout ? c->L.nout : 1), sizeof(double));
  c->stamp[0] = calloc((size_t)(2 * n + 1), sizeof(double));
  c->stamp[1] = calloc((size_t)(2 * n + 1), sizeof(double));
  c->sin = calloc((size_t)smax, sizeof(double));
  c->sout = calloc((size_t)omax, sizeof(double));
  c->shape = calloc((size_t)(nshape ? nshape : 1), sizeof *c->shape);
  c->cout = calloc((size_t)(ncopy ? ncopy : 1), sizeof *c->cout);
  c->drive = calloc((size_t)m->mrow + 1, sizeof *c->drive);
  for (int r = 0; c->drive && r < m->mrow; r++) {
    if (m->row[r].owner == MBD_ROW_DRIVE) {
      c->drive[c->ndrive++] = r;
    }
  }
  int ok = c->drive && c->vin && c->rout && c->out && c->stamp[0] && c->stamp[1] && c->sin &&
           c->sout && c->shape && c->cout;
  for (int k = 0; ok && k < ncopy; k++) {
    c->cout[k] = calloc((size_t)P->shape[P->copy[k].shape].nout, sizeof(double));
    ok = c->cout[k] != NULL;
  }
  if (!ok) {
    mbd_code_free(c);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
  }
  c->hook = (mbd_eqs_hook){hook_rows, hook_forces, c, c->L.need_poses, NULL};
  // the open tree's straight evaluation: y is the equations' input as it stands
  if (!P && m->mrow == 0 && !c->L.need_poses && m->nqi == n && c->L.nvin == 2 * n) {
    c->hook.open = hook_open;
  }
  // the parts: each shape's equations once, then the model's; compiled code is cached under the
  // model's key and under each shape's (other models with copies of a shape reuse its code)
  char dir[3072] = "";
  int cache_error = 0;
  if (kind == MBD_CODE_COMPILED) {
    mbd_error e2;
    mbd_error_clear(&e2);
    if (mbd_sym_cache_private(dir, sizeof dir, &e2) != MBD_OK) {
      // no private cache: no compiled code at all (nothing is read from or written to it)
      dir[0] = '\0';
      cache_error = 1;
      snprintf(info->warning, sizeof info->warning, MSG_CODE_FALLBACK, e2.msg);
    }
  }
  info->cache_hit = kind == MBD_CODE_COMPILED;
  int fell = 0;
  if (cache_error) {
    kind = MBD_CODE_TAPE;
    fell = 1;
  }
  for (int s = 0; rc == MBD_OK && s < nshape; s++) {
    const mbd_eqs_shape *sh = &P->shape[s];
    part pt = {m, &sh->L, sh, 2 * sh->local->nv + sh->npar, sh->nout, "mbd_shape_eqs", "",
               NULL, NULL, NULL};
    if (dir[0]) {
      // under the exact key of the copy whose values the shape's code holds
      char key[65];
      model_key(sh->local, key);
      snprintf(pt.path, sizeof pt.path, "%s/rel-shape-%s.c", dir, key);
    }
    rc = make_part(&pt, kind, &c->shape[s], info, &fell, err);
  }
  if (rc == MBD_OK) {
    // without macro copies the rows are a function of q alone: Newton iterations evaluate them
    // without γ, M̄ and ḡ (with copies every evaluation runs the copies' shapes first)
    part pt = {m, &c->L, NULL, c->L.nvin, c->L.nout, EQS_NAME, "", P ? NULL : &c->rows, &c->at,
               &c->ngiven};
    if (dir[0]) {
      char key[65];
      model_key(m, key);
      snprintf(pt.path, sizeof pt.path, "%s/rel-%s.c", dir, key);
    }
    rc = make_part(&pt, kind, &c->model, info, &fell, err);
  }
  if (rc == MBD_OK && (c->at.fn || c->ngiven > 0)) {
    // the rows' function returns the calls it gives after its outputs; the rest's reads them
    // after (q, q̇)
    int nr = c->L.mrow * (n + 1) + c->L.nang, nin = 2 * n + c->ngiven;
    double *rout = realloc(c->rout, (size_t)(nr + c->ngiven + 1) * sizeof(double));
    c->rout = rout ? rout : c->rout;
    double *vin = nin > c->L.nvin ? realloc(c->vin, (size_t)nin * sizeof(double)) : c->vin;
    c->vin = vin ? vin : c->vin;
    // (the rest's outputs: γ, M̄ whole, ḡ)
    int nrest = c->L.mrow + n * (n + 1);
    double *o = nrest > c->L.nout ? realloc(c->out, (size_t)nrest * sizeof(double)) : c->out;
    c->out = o ? o : c->out;
    c->rows_q = calloc((size_t)n + 1, sizeof(double));
    if (!rout || !vin || !o || !c->rows_q) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "compiled code");
    }
  }
  if (rc != MBD_OK) {
    mbd_code_free(c);
    return rc;
  }
  c->kind = info->code = (kind == MBD_CODE_COMPILED && !fell) ? MBD_CODE_COMPILED : MBD_CODE_TAPE;
  c->split = c->at.fn && c->rows.fn && !c->model.fn && !c->model.tape;
  if (c->kind != MBD_CODE_COMPILED) {
    info->cache_hit = 0;
  }
  *out = c;
  return MBD_OK;
}

int mbd_code_source(const mbd_model *m, const char *name, char **src, mbd_eqs_layout *L,
                    mbd_error *err) {
  *src = NULL;
  int rc = mbd_eqs_layout_make(m, L, err);
  if (rc != MBD_OK) {
    return rc;
  }
  // one function: macro copies are derived with the model (the program has no shape functions)
  mbd_eqs_macros_free(L->macros);
  L->macros = NULL;
  L->nvin = 2 * m->nv;
  mbd_sym_ctx *ctx = NULL;
  mbd_sym_id *vars = NULL, *outs = NULL;
  rc = mbd_eqs_derive(m, L, &ctx, &vars, &outs, err);
  if (rc == MBD_OK) {
    rc = mbd_sym_emit_c(ctx, name, L->nout, outs, 2 * m->nv, vars, src, err);
  }
  mbd_sym_ctx_free(ctx);
  free(vars);
  free(outs);
  return rc;
}
