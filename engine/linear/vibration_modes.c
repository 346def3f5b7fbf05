/* the eigenvalues of a linearization, its modes and which coordinates and bodies take part in
 * each (mbd/linear.h)
 *
 * The eigenvalues and right eigenvectors of A (dgeev) are ordered by |λ|; each eigenvector is
 * scaled so that the largest component of its position part is 1.  A conjugate pair is one
 * oscillatory mode (ω = |λ|, ζ = −Re λ / |λ|), a real λ a real mode (decaying or diverging), and
 * eigenvalues within LIN_RIGID_REL of the largest |λ| rigid modes (a free direction: a double zero
 * that differences split by about the square root of their relative error).
 *
 * Participation: for a mode shape φ over the coordinates, the share of its kinetic energy on
 * coordinate k is Re(φ̄_k (Mφ)_k) / Re(φᴴMφ) and of its potential energy Re(φ̄_k (K_s φ)_k) /
 * Re(φᴴK_sφ) with K_s the symmetric part of K (the shares sum to 1; a coupled coordinate's may be
 * negative).  Per body the kinetic energy of its own coordinates, δqᴴ M_b δq over its block of the
 * model's mass matrix, with δq the model's coordinates moved by the mode (their derivative by the
 * independent ones, by central differences of the completed states). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linear_impl.h"
#include "mbd/rot.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* eigenvalues below this share of the largest |λ| belong to rigid modes: a free direction's double
 * zero splits into ±√δ for a relative error δ ~ 1e-10 of A's entries (3e-5 |λ|max at most) */
#define LIN_RIGID_REL 1e-4
/* the largest real part counted as zero (stable) against the largest |λ|: differences leave
 * Re λ ~ 1e-10 |λ| on an undamped oscillator */
#define LIN_STABLE_REL 1e-7

/* an eigenvalue's sort key: ascending |λ|, then the one with im > 0 first, then re */
typedef struct eig_key {
  double mod, re, im;
  int j;
} eig_key;

static int by_modulus(const void *a, const void *b) {
  const eig_key *x = a, *y = b;
  if (x->mod != y->mod) {
    return x->mod < y->mod ? -1 : 1;
  }
  if (x->im != y->im) {
    return x->im > y->im ? -1 : 1;
  }
  if (x->re != y->re) {
    return x->re < y->re ? -1 : 1;
  }
  return x->j - y->j;
}

/* the eigenvector of λ_j from dgeev's columns (pairs: real and imaginary parts) */
static void eigvec(int nx, const double *V, const double *wi, int j, double *vr, double *vi) {
  if (wi[j] == 0) {
    memcpy(vr, V + (size_t)j * nx, (size_t)nx * sizeof(double));
    memset(vi, 0, (size_t)nx * sizeof(double));
    return;
  }
  // column c of the pair's real part, c + 1 its imaginary part; the second of a pair is the
  // conjugate
  int c = wi[j] > 0 ? j : j - 1;
  double sg = wi[j] > 0 ? 1 : -1;
  for (int i = 0; i < nx; i++) {
    vr[i] = V[(size_t)c * nx + i];
    vi[i] = sg * V[(size_t)(c + 1) * nx + i];
  }
}

/* scale (vr, vi) so that its largest component among the first f is 1 (all nx when those are 0) */
static void normalize(int nx, int f, double *vr, double *vi) {
  int at = 0;
  double big = 0;
  for (int pass = 0; pass < 2 && !(big > 0); pass++) {
    int n = pass ? nx : f;
    for (int i = 0; i < n; i++) {
      double a = hypot(vr[i], vi[i]);
      // (a margin against ties decided by round-off: the first of nearly equal ones)
      if (a > big * (1 + 1e-9)) {
        big = a;
        at = i;
      }
    }
  }
  if (!(big > 0)) {
    return;
  }
  double cr = vr[at], ci = vi[at], c2 = cr * cr + ci * ci;
  for (int i = 0; i < nx; i++) {
    double r = vr[i], m = vi[i];
    vr[i] = (r * cr + m * ci) / c2;
    vi[i] = (m * cr - r * ci) / c2;
  }
  vi[at] = 0;
}

/* the shares of φᴴSφ per coordinate (S f×f symmetric) into share; 0 everywhere when it is 0 */
static void shares(int f, const double *S, const double *pr, const double *pi, double *share) {
  double tot = 0;
  for (int k = 0; k < f; k++) {
    double sr = 0, si = 0;
    for (int j = 0; j < f; j++) {
      sr += MBD_AT(S, f, k, j) * pr[j];
      si += MBD_AT(S, f, k, j) * pi[j];
    }
    share[k] = pr[k] * sr + pi[k] * si;  // Re(φ̄_k (Sφ)_k)
    tot += share[k];
  }
  for (int k = 0; k < f; k++) {
    share[k] = fabs(tot) > 0 ? share[k] / tot : 0;
  }
}

/* the model's coordinates at the state x (w's completed, as m's) */
static int cartesian_q(lin_sys *s, const double *x, double *out, void *ctx, mbd_error *err) {
  (void)ctx;
  int rc = lin_sys_complete(s, x, err);
  if (rc == MBD_OK) {
    rc = lin_sys_cartesian(s, s->d, s->dc, err);
  }
  if (rc == MBD_OK) {
    memcpy(out, s->dc->q, (size_t)s->m->nq * sizeof(double));
  }
  return rc;
}

/* Jq (nq × f): the model's coordinates' derivative by the independent positions */
static int position_jacobian(lin_sys *s, double *Jq, mbd_error *err) {
  int rc = MBD_OK;
  for (int k = 0; rc == MBD_OK && k < s->f; k++) {
    rc = lin_sys_derivative(s, k, cartesian_q, NULL, s->m->nq, Jq + (size_t)k * s->m->nq, err);
  }
  return rc;
}

/* each body's motion and kinetic share in every mode */
static int body_motions(lin_sys *s, mbd_linear *l, mbd_error *err) {
  const mbd_model *m = s->m;
  int f = l->f, nq = m->nq;
  // the bodies with coordinates of their own (a flexible body's nodes have empty blocks)
  int nb = 0;
  for (int b = 1; b < m->nbody; b++) {
    nb += m->body[b].block >= 0 && m->block[m->body[b].block].nq > 0;
  }
  l->nbody = nb;
  size_t NB = (size_t)(nb ? nb : 1), NM = (size_t)(l->nmode ? l->nmode : 1);
  l->body = calloc(NB, sizeof(int));
  l->body_name = calloc(NB, sizeof *l->body_name);
  l->bre = calloc(6 * NB * NM, sizeof(double));
  l->bim = calloc(6 * NB * NM, sizeof(double));
  l->bkin = calloc(NB * NM, sizeof(double));
  double *Jq = calloc((size_t)nq * (size_t)(f ? f : 1), sizeof(double));
  double *dq = calloc(2 * (size_t)nq + 2 * NB, sizeof(double));
  if (!l->body || !l->body_name || !l->bre || !l->bim || !l->bkin || !Jq || !dq) {
    free(Jq);
    free(dq);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  nb = 0;
  for (int b = 1; b < m->nbody; b++) {
    if (m->body[b].block >= 0 && m->block[m->body[b].block].nq > 0) {
      l->body[nb] = b;
      snprintf(l->body_name[nb], MBD_LIN_NAME, "%s", m->body[b].name);
      nb++;
    }
  }
  // the model's mass matrix at the operating point
  int rc = mbd_eval_to(m, s->dm, MBD_STAGE_FORCES, err);
  if (rc == MBD_OK) {
    rc = position_jacobian(s, Jq, err);
  }
  double *dr = dq, *di = dq + nq, *tk = dq + 2 * nq;
  for (int k = 0; rc == MBD_OK && k < l->nmode; k++) {
    const double *pr = l->shape_re + (size_t)k * f, *pi = l->shape_im + (size_t)k * f;
    mbd_gemv(0, nq, f, 1.0, Jq, nq, pr, 0.0, dr);
    mbd_gemv(0, nq, f, 1.0, Jq, nq, pi, 0.0, di);
    double tot = 0;
    for (int j = 0; j < l->nbody; j++) {
      const mbd_block *bl = &m->block[m->body[l->body[j]].block];
      double *br = l->bre + 6 * ((size_t)k * l->nbody + j);
      double *bi = l->bim + 6 * ((size_t)k * l->nbody + j);
      const double *qr = dr + bl->qadr, *qi = di + bl->qadr;
      if (m->dim == 2) {
        br[0] = qr[0], br[1] = qr[1], br[5] = qr[2];
        bi[0] = qi[0], bi[1] = qi[1], bi[5] = qi[2];
      } else {
        // a small rotation δφ = 2 E(p) δp (global)
        double E[12];
        mbd_ep_E(s->dm->q + bl->qadr + 3, E);
        for (int c = 0; c < 3; c++) {
          br[c] = qr[c];
          bi[c] = qi[c];
          double a = 0, b = 0;
          for (int e = 0; e < 4; e++) {
            a += 2 * E[4 * c + e] * qr[3 + e];
            b += 2 * E[4 * c + e] * qi[3 + e];
          }
          br[3 + c] = a;
          bi[3 + c] = b;
        }
      }
      // its kinetic energy: δqᴴ M_b δq over its block (the velocity coordinates are the block's)
      double t = 0;
      for (int r = 0; r < bl->nv; r++) {
        for (int c = 0; c < bl->nv; c++) {
          double M = MBD_AT(s->dm->M, m->nv, bl->vadr + r, bl->vadr + c);
          t += M * (qr[r] * qr[c] + qi[r] * qi[c]);
        }
      }
      tk[j] = t;
      tot += t;
    }
    for (int j = 0; j < l->nbody; j++) {
      l->bkin[(size_t)k * l->nbody + j] = tot > 0 ? tk[j] / tot : 0;
    }
  }
  free(Jq);
  free(dq);
  return rc;
}

int lin_modes(lin_sys *s, mbd_linear *l, mbd_error *err) {
  int nx = l->nx, f = l->f;
  double *V = calloc((size_t)nx * (size_t)nx, sizeof(double));
  double *wr = calloc((size_t)nx, sizeof(double)), *wi = calloc((size_t)nx, sizeof(double));
  eig_key *ord = calloc((size_t)nx, sizeof(eig_key));
  double *Ks = calloc((size_t)f * (size_t)f, sizeof(double));
  int rc =
      V && wr && wi && ord && Ks ? MBD_OK : MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  for (int i = 0; rc == MBD_OK && i < nx * nx; i++) {
    if (!isfinite(l->A[i])) {
      rc = MBD_FAIL(err, MBD_E_NAN, MSG_LIN_EIG, "linearize", "A has an entry that is not finite");
    }
  }
  if (rc == MBD_OK) {
    int e = mbd_eig_general_vec(nx, l->A, nx, wr, wi, V, nx);
    if (e != MBD_OK) {
      rc = MBD_FAIL(err, e, MSG_LIN_EIG, "linearize", mbd_status_text(e));
    }
  }
  if (rc != MBD_OK) {
    free(V), free(wr), free(wi), free(ord), free(Ks);
    return rc;
  }
  // sorted by |λ|, each eigenvector normalized
  for (int i = 0; i < nx; i++) {
    ord[i] = (eig_key){hypot(wr[i], wi[i]), wr[i], wi[i], i};
  }
  qsort(ord, (size_t)nx, sizeof(eig_key), by_modulus);
  double wmax = 0;
  for (int k = 0; k < nx; k++) {
    int j = ord[k].j;
    l->re[k] = wr[j];
    l->im[k] = wi[j];
    wmax = fmax(wmax, hypot(wr[j], wi[j]));
    double *vr = l->vre + (size_t)k * nx, *vi = l->vim + (size_t)k * nx;
    eigvec(nx, V, wi, j, vr, vi);
    normalize(nx, f, vr, vi);
  }
  // the modes: oscillatory (one per pair), real, rigid (one per double zero)
  double thr = LIN_RIGID_REL * wmax;
  l->mode = calloc((size_t)nx + 1, sizeof *l->mode);
  if (!l->mode) {
    free(V), free(wr), free(wi), free(ord), free(Ks);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  int nrig_cand = 0;
  for (int k = 0; k < nx; k++) {
    nrig_cand += hypot(l->re[k], l->im[k]) <= thr;
  }
  int nm = 0, nrig = 0;
  for (int kind = MBD_MODE_OSCILLATORY; kind <= MBD_MODE_RIGID; kind++) {
    for (int k = 0; k < nx; k++) {
      double a = hypot(l->re[k], l->im[k]);
      int rigid = a <= thr;
      int is = kind == MBD_MODE_RIGID ? rigid && (l->im[k] > 0 || (l->im[k] == 0 && l->re[k] >= 0))
               : kind == MBD_MODE_OSCILLATORY ? !rigid && l->im[k] > 0
                                              : !rigid && l->im[k] == 0;
      if (!is || (rigid && nrig >= (nrig_cand + 1) / 2)) {
        continue;
      }
      nrig += rigid;
      mbd_lin_mode *md = &l->mode[nm++];
      md->kind = kind;
      md->eig = k;
      md->re = l->re[k];
      md->im = l->im[k];
      md->freq = rigid ? 0 : a / (2 * M_PI);
      md->damping = a > 0 && !rigid ? -l->re[k] / a : 0;
    }
  }
  l->nmode = nm;
  // the verdict on stability (the caller withdraws it when x0 is not an equilibrium)
  l->max_re = -INFINITY;
  for (int k = 0; k < nx; k++) {
    l->max_re = fmax(l->max_re, l->re[k]);
  }
  // (rigid modes about a steady motion are its symmetries' families: neutral, not unstable)
  l->stable = l->max_re <= LIN_STABLE_REL * wmax && (nrig == 0 || l->nsteady > 0);
  // shapes and participation per coordinate
  size_t NM = (size_t)(nm ? nm : 1);
  l->shape_re = calloc((size_t)f * NM, sizeof(double));
  l->shape_im = calloc((size_t)f * NM, sizeof(double));
  l->pkin = calloc((size_t)f * NM, sizeof(double));
  l->ppot = calloc((size_t)f * NM, sizeof(double));
  if (!l->shape_re || !l->shape_im || !l->pkin || !l->ppot) {
    free(V), free(wr), free(wi), free(ord), free(Ks);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  for (int i = 0; i < f; i++) {
    for (int j = 0; j < f; j++) {
      MBD_AT(Ks, f, i, j) = 0.5 * (MBD_AT(l->K, f, i, j) + MBD_AT(l->K, f, j, i));
    }
  }
  for (int k = 0; k < nm; k++) {
    const double *vr = l->vre + (size_t)l->mode[k].eig * nx;
    const double *vi = l->vim + (size_t)l->mode[k].eig * nx;
    double *pr = l->shape_re + (size_t)k * f, *pi = l->shape_im + (size_t)k * f;
    memcpy(pr, vr, (size_t)f * sizeof(double));
    memcpy(pi, vi, (size_t)f * sizeof(double));
    shares(f, l->M, pr, pi, l->pkin + (size_t)k * f);
    shares(f, Ks, pr, pi, l->ppot + (size_t)k * f);
  }
  free(V), free(wr), free(wi), free(ord), free(Ks);
  return body_motions(s, l, err);
}
