/* macro elements (paper 002, section 4): each copy of a sub-mechanism seen in its own frame.
 *
 * The tree keeps a copy's joints and cuts the joints between copies (kinematics/tree.c), so a
 * copy's bodies hang from the ground through its own joints only, and its coordinates, its bodies'
 * motion and its internal loops depend on nothing else.  Written in the copy's frame — the ground
 * is the copy's frame, its ground points and axes turned back by the placement — a copy is the
 * same small tree model for every copy of a shape, up to what its assembly made of it: the
 * constant frames c, separations d0 and universal axes w of its joints.  Those become parameters
 * of the shape's equations, with the placement's rotation R (the internal point rows are turned
 * into the global frame, where the model's multipliers live) and the gravity seen in the copy's
 * frame.  So the shape's equations are derived once, and each copy evaluates them with its own
 * coordinates and parameters.  The copies' bodies' poses, pose Jacobians and quadratic terms in
 * their frames are outputs too: the model's own equations (joints between copies, forces and
 * springs on copies' bodies, drives) read them as inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "mbd/vec3.h"

/* the placement's rotation as a row-major 3×3 (planar: about z) */
static void placement(const mbd_model *m, const mbd_copy *cp, double *R) {
  if (m->dim == 3) {
    mbd_ep_A(cp->rot, R);
  } else {
    double c = cos(cp->rot[0]), s = sin(cp->rot[0]);
    double A[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, A, sizeof A);
  }
}

/* a point of the ground in the copy's frame: Rᵀ(x − origin) */
static void ground_point(const mbd_model *m, const mbd_copy *cp, const double *R, const double *x,
                         double *y) {
  double d[3] = {x[0] - cp->origin[0], x[1] - cp->origin[1],
                 m->dim == 3 ? x[2] - cp->origin[2] : 0};
  mbd_mat3_tvec(R, d, y);
}

void mbd_eqs_macros_free(mbd_eqs_macros *P) {
  if (!P) {
    return;
  }
  for (int s = 0; s < P->nshape; s++) {
    mbd_model_free(P->shape[s].local);
    mbd_eqs_layout_free(&P->shape[s].L);
  }
  for (int c = 0; c < P->ncopy; c++) {
    free(P->copy[c].qmap);
    free(P->copy[c].rowmap);
    free(P->copy[c].bodymap);
    free(P->copy[c].par);
  }
  free(P->shape);
  free(P->copy);
  free(P->body_copy);
  free(P->row_internal);
  free(P);
}

/* FNV-1a over text */
static uint64_t fnv(uint64_t h, const char *s) {
  for (; *s; s++) {
    h ^= (uint8_t)*s;
    h *= 1099511628211ull;
  }
  return h;
}

/* a number to 1e-9 (absolute): copies placed by rounded transforms agree (a coordinate that is
 * zero in one copy is 1e-17 in the next) */
static uint64_t hnum(uint64_t h, double x) {
  char b[48];
  double r = nearbyint(x * 1e9);
  snprintf(b, sizeof b, "%.0f,", r == 0 ? 0.0 : r);
  return fnv(h, b);
}

static uint64_t hvec(uint64_t h, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    h = hnum(h, v[i]);
  }
  return h;
}

/* the description of a local model, without its parameters: equal for the copies of a shape */
static uint64_t shape_key(const mbd_model *lm) {
  // the version: change it with any change to a shape's equations or parameters (cache key)
  uint64_t h = fnv(14695981039346656037ull, "mbd macro shape 3");
  h = hnum(h, lm->dim);
  for (int b = 1; b < lm->nbody; b++) {
    h = hnum(h, lm->body[b].mass);
    h = hvec(h, lm->body[b].inertia, 9);
  }
  for (int j = 0; j < lm->njoint; j++) {
    const mbd_joint *jo = &lm->joint[j];
    double ints[4] = {jo->type, jo->body1, jo->body2, jo->nrow};
    h = hvec(h, ints, 4);
    if (lm->tree->joint_tj[j] >= 0) {
      continue;  // a tree joint's geometry is its tree joint's (below); its reference axes only
                 // name its angle channel, which the shape does not compute
    }
    h = hvec(h, jo->at1, 3);
    h = hvec(h, jo->at2, 3);
    h = hvec(h, jo->axis1, 3);
    h = hvec(h, jo->axis2, 3);
    h = hvec(h, jo->ref1, 3);
    h = hvec(h, jo->ref2, 3);
    h = hnum(h, jo->angle0);
    h = hnum(h, jo->lead);
    h = hnum(h, jo->disp0);
  }
  const mbd_tree *t = lm->tree;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    double ints[9] = {tj->joint, 8 * tj->kind + tj->rotk, tj->parent, tj->child, tj->sigma,
                      tj->qadr,  tj->nq,   tj->rot,    tj->disp};
    h = hvec(h, ints, 9);
    h = hvec(h, tj->s1, 3);
    h = hvec(h, tj->s2, 3);
    h = hvec(h, tj->u, 3);
    h = hvec(h, tj->dax[0], 3);
    h = hvec(h, tj->dax[1], 3);
  }
  for (int r = 0; r < lm->mrow; r++) {
    double ints[3] = {lm->row[r].owner, lm->row[r].index, lm->row[r].local};
    h = hvec(h, ints, 3);
  }
  return h;
}

/* copy c of model m (a tree model) as a local tree model in its own frame, the maps to m and
 * the parameter values; 0 or −1 (out of memory) */
static int local_model(const mbd_model *m, int c, mbd_model **out, mbd_eqs_copy *cp) {
  const mbd_tree *t = m->tree;
  const mbd_copy *mc = &m->copy[c];
  double R[9];
  placement(m, mc, R);
  mbd_model *lm = calloc(1, sizeof *lm);
  mbd_tree *lt = calloc(1, sizeof *lt);
  int *lbody = calloc((size_t)m->nbody, sizeof(int));  // model body → local body (0: ground/none)
  int *ljoint = calloc((size_t)(m->njoint ? m->njoint : 1), sizeof(int));
  if (!lm || !lt || !lbody || !ljoint) {
    free(lm), free(lt), free(lbody), free(ljoint);
    return -1;
  }
  lm->tree = lt;
  lm->dim = m->dim;
  snprintf(lm->name, sizeof lm->name, "%s", mc->shape);
  int ok = 1;
  // bodies: the copy's, in the model's order
  int nb = 1;
  for (int b = 1; b < m->nbody; b++) {
    nb += m->body[b].copy == c;
  }
  lm->nbody = lm->cbody = nb;
  lm->body = calloc((size_t)nb, sizeof *lm->body);
  cp->bodymap = calloc((size_t)nb, sizeof(int));
  ok &= lm->body && cp->bodymap;
  if (ok) {
    lm->body[0] = m->body[0];
    nb = 1;
    for (int b = 1; b < m->nbody; b++) {
      if (m->body[b].copy == c) {
        lbody[b] = nb;
        cp->bodymap[nb] = b;
        lm->body[nb++] = m->body[b];
      }
    }
  }
  // internal joints: both sides in the copy or on the ground; ground geometry in the copy's frame
  int nj = 0;
  for (int j = 0; j < m->njoint; j++) {
    const mbd_joint *jo = &m->joint[j];
    int in1 = jo->body1 == 0 || m->body[jo->body1].copy == c;
    int in2 = jo->body2 == 0 || m->body[jo->body2].copy == c;
    ljoint[j] = -1;
    if (in1 && in2 && (jo->body1 || jo->body2)) {
      ljoint[j] = nj++;
    }
  }
  lm->njoint = lm->cjoint = nj;
  lm->joint = calloc((size_t)(nj ? nj : 1), sizeof *lm->joint);
  ok &= lm->joint != NULL;
  for (int j = 0; ok && j < m->njoint; j++) {
    if (ljoint[j] < 0) {
      continue;
    }
    mbd_joint jo = m->joint[j];
    jo.body1 = lbody[jo.body1];
    jo.body2 = lbody[jo.body2];
    jo.drive = jo.rspring = -1;
    double tmp[3];
    if (m->joint[j].body1 == 0) {
      ground_point(m, mc, R, m->joint[j].at1, jo.at1);
      mbd_mat3_tvec(R, m->joint[j].axis1, tmp), memcpy(jo.axis1, tmp, sizeof tmp);
      mbd_mat3_tvec(R, m->joint[j].ref1, tmp), memcpy(jo.ref1, tmp, sizeof tmp);
      jo.angle0 = m->dim == 2 ? m->joint[j].angle0 - mc->rot[0] : jo.angle0;
    }
    if (m->joint[j].body2 == 0) {
      ground_point(m, mc, R, m->joint[j].at2, jo.at2);
      mbd_mat3_tvec(R, m->joint[j].axis2, tmp), memcpy(jo.axis2, tmp, sizeof tmp);
      mbd_mat3_tvec(R, m->joint[j].ref2, tmp), memcpy(jo.ref2, tmp, sizeof tmp);
      jo.angle0 = m->dim == 2 ? m->joint[j].angle0 + mc->rot[0] : jo.angle0;
    }
    lm->joint[ljoint[j]] = jo;
  }
  // tree joints: those whose child is the copy's, in the model's order; local coordinates
  int ntj = 0;
  for (int k = 0; k < t->ntj; k++) {
    ntj += t->tj[k].child && m->body[t->tj[k].child].copy == c;
  }
  lt->tj = calloc((size_t)(ntj ? ntj : 1), sizeof *lt->tj);
  lt->body_tj = calloc((size_t)lm->nbody, sizeof(int));
  lt->joint_tj = calloc((size_t)(nj ? nj : 1), sizeof(int));
  lt->cut = calloc((size_t)(nj ? nj : 1), sizeof(int));
  int nq = 0;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (tj->child && m->body[tj->child].copy == c) {
      nq += tj->nq;
    }
  }
  cp->qmap = calloc((size_t)(nq ? nq : 1), sizeof(int));
  cp->par = calloc((size_t)(MBD_EQS_TJ_PAR * (ntj ? ntj : 1) + 12), sizeof(double));
  ok &= lt->tj && lt->body_tj && lt->joint_tj && lt->cut && cp->qmap && cp->par;
  if (!ok) {
    free(lbody), free(ljoint);
    mbd_model_free(lm);
    return -1;
  }
  for (int b = 0; b < lm->nbody; b++) {
    lt->body_tj[b] = -1;
  }
  for (int j = 0; j < nj; j++) {
    lt->joint_tj[j] = -1;
  }
  nq = 0;
  for (int k = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (!tj->child || m->body[tj->child].copy != c) {
      continue;
    }
    mbd_tree_joint l = *tj;
    l.joint = tj->joint >= 0 ? ljoint[tj->joint] : -1;
    l.parent = lbody[tj->parent];
    l.child = lbody[tj->child];
    l.qadr = nq;
    for (int i = 0; i < tj->nq; i++) {
      cp->qmap[nq + i] = tj->qadr + i;
    }
    nq += tj->nq;
    // constants in the copy's frame (tree_impl.h): a ground side's point and axis; the
    // parameters c, d0, w
    double *par = cp->par + MBD_EQS_TJ_PAR * lt->ntj;
    double c4[4] = {tj->c[0], tj->c[1], tj->c[2], tj->c[3]}, d0[3], w[3], l4[4] = {1, 0, 0, 0};
    memcpy(d0, tj->d0, sizeof d0);
    memcpy(w, tj->w, sizeof w);
    if (tj->kind == MBD_TJ_FLOATING) {
      // the body's own coordinates: the copy's frame must be the global one (a shape with a free
      // body is one copy, its parameters carry no placement)
      memset(c4, 0, sizeof c4);
      c4[0] = 1;
    } else {
      const mbd_joint *jo = &m->joint[tj->joint];
      if (jo->body1 == 0) {
        // body1 the ground: s1 and u in the copy's frame; c = p2 ⇒ p_Rᵀ ⊗ c; d0, w global ⇒ Rᵀ
        ground_point(m, mc, R, jo->at1, l.s1);
        mbd_mat3_tvec(R, tj->u, l.u);
        mbd_mat3_tvec(R, tj->dax[0], l.dax[0]);
        mbd_mat3_tvec(R, tj->dax[1], l.dax[1]);
        mbd_mat3_tvec(R, tj->d0, d0);
        mbd_mat3_tvec(R, tj->w, w);
        if (m->dim == 3 && tj->rotk == MBD_TROT_EULER) {
          // a ball joint's coordinates turn about the ground's axes: K = p_Rᵀ ⊗ e ⊗ c
          double pc[4] = {mc->rot[0], -mc->rot[1], -mc->rot[2], -mc->rot[3]};
          memcpy(l4, pc, sizeof pc);
        } else if (m->dim == 3) {
          // an axis turned into the copy's frame turns the joint's rotation with it
          double pc[4] = {mc->rot[0], -mc->rot[1], -mc->rot[2], -mc->rot[3]};
          mbd_ep_mul(pc, tj->c, c4);
        } else {
          c4[0] = tj->c[0] - mc->rot[0];
        }
      } else if (jo->body2 == 0) {
        // body2 the ground: s2 in the copy's frame; c = p1* ⇒ c ⊗ p_R; d0, w in body1's frame
        ground_point(m, mc, R, jo->at2, l.s2);
        if (m->dim == 3) {
          mbd_ep_mul(tj->c, mc->rot, c4);
        } else {
          c4[0] = tj->c[0] + mc->rot[0];
        }
      }
    }
    memcpy(par, c4, sizeof c4);
    memcpy(par + 4, d0, sizeof d0);
    memcpy(par + 7, w, sizeof w);
    memcpy(par + 10, l4, sizeof l4);
    memset(l.c, 0, sizeof l.c);
    memset(l.d0, 0, sizeof l.d0);
    memset(l.w, 0, sizeof l.w);
    lt->body_tj[l.child] = lt->ntj;
    if (l.joint >= 0) {
      lt->joint_tj[l.joint] = lt->ntj;
    }
    l.norm = -1;
    lt->tj[lt->ntj++] = l;
  }
  // R and the gravity in the copy's frame
  memcpy(cp->par + MBD_EQS_TJ_PAR * lt->ntj, R, sizeof R);
  mbd_mat3_tvec(R, m->gravity, cp->par + MBD_EQS_TJ_PAR * lt->ntj + 9);
  lm->nq = lm->nv = nq;
  // rows: the internal cut joints' (in the model's order), the norms of the copy's tree joints
  int rows = 0;
  for (int j = 0; j < nj; j++) {
    lm->joint[j].row0 = rows;
    lm->joint[j].nrow =
        lt->joint_tj[j] < 0 ? mbd_joint_type_get(lm->joint[j].type)->nrow[MBD_DIMX(m)] : 0;
    rows += lm->joint[j].nrow;
    if (lt->joint_tj[j] < 0) {
      lt->cut[lt->ncut++] = j;
    }
  }
  int nnorm = 0;
  for (int k = 0; k < lt->ntj; k++) {
    nnorm += lt->tj[k].rotk == MBD_TROT_EULER;
  }
  lm->mrow = rows + nnorm;
  lm->row = calloc((size_t)(lm->mrow ? lm->mrow : 1), sizeof *lm->row);
  cp->rowmap = calloc((size_t)(lm->mrow ? lm->mrow : 1), sizeof(int));
  if (!lm->row || !cp->rowmap) {
    free(lbody), free(ljoint);
    mbd_model_free(lm);
    return -1;
  }
  for (int j = 0; j < m->njoint; j++) {
    int lj = ljoint[j];
    if (lj < 0) {
      continue;
    }
    for (int r = 0; r < lm->joint[lj].nrow; r++) {
      lm->row[lm->joint[lj].row0 + r] = (mbd_rowinfo){MBD_ROW_JOINT, lj, r, MBD_ROW_POSITION};
      cp->rowmap[lm->joint[lj].row0 + r] = m->joint[j].row0 + r;
    }
  }
  for (int k = 0, tk = 0; k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (!tj->child || m->body[tj->child].copy != c) {
      continue;
    }
    if (tj->rotk == MBD_TROT_EULER) {
      mbd_tree_joint *l = &lt->tj[tk];
      l->norm = rows;
      lm->row[rows] = (mbd_rowinfo){MBD_ROW_TREE, l->qadr + l->rot, l->joint, MBD_ROW_POSITION};
      cp->rowmap[rows++] = tj->norm;
    }
    tk++;
  }
  free(lbody);
  free(ljoint);
  *out = lm;
  return 0;
}

int mbd_eqs_macros_make(const mbd_model *m, mbd_eqs_macros **out, mbd_error *err) {
  *out = NULL;
  if (m->ncopy < 2) {
    return MBD_OK;  // no copies: the model's equations are one
  }
  mbd_eqs_macros *P = calloc(1, sizeof *P);
  if (P) {
    P->shape = calloc((size_t)m->ncopy, sizeof *P->shape);
    P->copy = calloc((size_t)m->ncopy, sizeof *P->copy);
    P->body_copy = calloc((size_t)m->nbody, sizeof(int));
    P->row_internal = calloc((size_t)(m->mrow ? m->mrow : 1), 1);
  }
  if (!P || !P->shape || !P->copy || !P->body_copy || !P->row_internal) {
    mbd_eqs_macros_free(P);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "macro elements");
  }
  for (int b = 0; b < m->nbody; b++) {
    P->body_copy[b] = -1;
  }
  int n = m->nv, slot = 2 * n;
  for (int c = 1; c < m->ncopy; c++) {
    int has = 0, floats = 0;
    for (int b = 1; b < m->nbody; b++) {
      has |= m->body[b].copy == c;
      int k = m->tree->body_tj[b];
      floats |= m->body[b].copy == c && k >= 0 && m->tree->tj[k].kind == MBD_TJ_FLOATING;
    }
    if (!has || floats) {
      // no body (only forces, say): nothing to derive; a free body: its coordinates are global,
      // not the copy's — its copy is derived with the model's own equations
      continue;
    }
    mbd_eqs_copy *cp = &P->copy[P->ncopy];
    mbd_model *lm = NULL;
    if (local_model(m, c, &lm, cp) < 0) {
      mbd_eqs_macros_free(P);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "macro elements");
    }
    // its shape: the first copy with the same description, or a new one
    uint64_t key = shape_key(lm);
    int s = 0;
    while (s < P->nshape && P->shape[s].key != key) {
      s++;
    }
    if (s == P->nshape) {
      mbd_eqs_shape *sh = &P->shape[P->nshape++];
      sh->local = lm;
      sh->key = key;
      if (mbd_eqs_layout_make(lm, &sh->L, err) != MBD_OK) {
        mbd_eqs_macros_free(P);
        return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "macro elements");
      }
      sh->npar = MBD_EQS_TJ_PAR * lm->tree->ntj + 12;
      sh->ny = m->dim == 3 ? 7 : 3;
      sh->obody = sh->L.oang + sh->L.nang;
      sh->nout = sh->obody + (lm->nbody - 1) * sh->ny * (2 + lm->nv);
    } else {
      mbd_model_free(lm);
    }
    cp->shape = s;
    cp->vslot = slot;
    const mbd_eqs_shape *sh = &P->shape[s];
    slot += (sh->local->nbody - 1) * sh->ny * (2 + sh->local->nv);
    for (int b = 1; b < sh->local->nbody; b++) {
      P->body_copy[cp->bodymap[b]] = P->ncopy;
    }
    for (int r = 0; r < sh->local->mrow; r++) {
      P->row_internal[cp->rowmap[r]] = 1;
    }
    cp->model_copy = c;
    P->ncopy++;
  }
  P->nvin = slot;
  *out = P;
  return MBD_OK;
}

/* the layout of a model's equations: offsets of M̄, ḡ, Φ, Φq, γ and the angle memos in the
 * output vector, what stays numeric, and the macro copies above (a copy's shape has a layout of
 * its own: the two recurse, so they live in one file) */
void mbd_eqs_layout_free(mbd_eqs_layout *L) {
  free(L->ang_joint);
  free(L->force_numeric);
  free(L->rspring_numeric);
  mbd_eqs_macros_free(L->macros);
  memset(L, 0, sizeof *L);
}

int mbd_eqs_layout_make(const mbd_model *m, mbd_eqs_layout *L, mbd_error *err) {
  memset(L, 0, sizeof *L);
  const mbd_tree *t = m->tree;
  int n = m->nv;
  L->n = n;
  L->mrow = m->mrow;
  L->oM = 0;
  L->og = n * (n + 1) / 2;
  L->ophi = L->og + n;
  L->ophiq = L->ophi + m->mrow;
  L->ogam = L->ophiq + m->mrow * n;
  L->oang = L->ogam + m->mrow;
  L->ang_joint = calloc((size_t)(t->ncut ? t->ncut : 1), sizeof(int));
  L->force_numeric = calloc((size_t)(m->nforce ? m->nforce : 1), 1);
  L->rspring_numeric = calloc((size_t)(m->nrspring ? m->nrspring : 1), 1);
  if (!L->ang_joint || !L->force_numeric || !L->rspring_numeric) {
    mbd_eqs_layout_free(L);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CODE_NOMEM, "derivation");
  }
  // cut joints whose angle memo follows the motion (spatial angles)
  for (int k = 0; k < t->ncut; k++) {
    const mbd_joint *j = &m->joint[t->cut[k]];
    if (m->dim == 3 && mbd_joint_type_get(j->type)->angle_coord[1] >= 0) {
      L->ang_joint[L->nang++] = t->cut[k];
    }
  }
  L->nout = L->oang + L->nang;
  // what stays numeric: forces given as functions; springs on a cut joint's angle
  for (int i = 0; i < m->nforce; i++) {
    L->force_numeric[i] = m->force[i].fn != NULL;
    L->need_poses |= L->force_numeric[i];
  }
  for (int i = 0; i < m->nrspring; i++) {
    L->rspring_numeric[i] = t->joint_tj[m->rspring[i].joint] < 0;
    L->need_poses |= L->rspring_numeric[i];
  }
  // macro copies: each shape's equations derived once (macro.c)
  L->nvin = 2 * n;
  if (m->ncopy >= 2) {
    int rc = mbd_eqs_macros_make(m, &L->macros, err);
    if (rc != MBD_OK) {
      mbd_eqs_layout_free(L);
      return rc;
    }
    if (L->macros) {
      L->nvin = L->macros->nvin;
    }
  }
  return MBD_OK;
}
