/* the sparse form's accelerations and multipliers through the Schur complement of M (kane)
 *
 * In Cartesian coordinates M is block diagonal (one block per body, diagonal for a planar body),
 * so the leading matrix [M Φqᵀ; Φq 0] of eq 13 needs no general sparse LU: with W = M⁻¹Φqᵀ
 * (block by block, the pattern of Φqᵀ widened to whole blocks) and S = Φq W,
 *
 *   S λ = Φq M⁻¹ Q − γ,   v̇ = M⁻¹ Q − W λ.
 *
 * S (active rows × active rows) is symmetric positive definite when M is and the active rows are
 * independent (the rank test keeps them so), and S_kl is set only where rows k and l share a
 * body: for a chain it is banded.  It is factored by Cholesky on its envelope (the lower profile
 * in the active rows' own order), with no pivoting and no fill outside it.  The pattern — the
 * rows' blocks, the envelope, the pairs of rows meeting in a block — is built once per set of
 * active rows; every evaluation writes values only, and M's blocks are factored again only when
 * they changed (a planar body's never do: once factored from the constant M that forces.c builds
 * once per data, they are not even compared).  On the 8-link chain of scripts/bench/chains.lua
 * (callgrind, scripts/bench/chain_kane_callgrind.sh) the solve costs 7.9 thousand instructions
 * per evaluation where KLU's refactorization of the 40 × 40 leading matrix and its solve cost
 * 23.2 thousand.
 *
 * Not used (mbd_schur_dynamics returns 0 and the caller takes the KLU path): a block of M that is
 * not positive definite (Euler-parameter bodies: their rotational block has rank 3), an envelope
 * wider than SCHUR_MAX_ENV entries per row on average (orderings the active rows' numbering does
 * not keep narrow), a pivot of S not positive, or a pivot ratio fallen by SCHUR_FALL from the
 * run's first (near a singular configuration the KLU path's watch, re-selection of rows and
 * Gauss's principle take over). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"

/* the envelope's average width per row above which the KLU path is kept */
#define SCHUR_MAX_ENV 16
/* the fall of the pivot ratio (relative to the first factorization) from which the KLU path
 * serves: above augmented_solve.c's re-selection (1e-3) and Gauss (1e-4) thresholds, so those act
 * on the KLU path's own pivots */
#define SCHUR_FALL 1e-2

typedef struct {
  int k, sk, l, sl; /* rows k ≥ l of the active ones and their sides in the shared block */
  int pos;          /* the place of S_kl in the envelope */
} schur_pair;

struct mbd_schur {
  int n, ma;        /* coordinates, active rows the pattern was made for (−1: none) */
  int *act;         /* mrow: those rows */
  int nb;           /* blocks with velocities */
  int *b0, *bn;     /* nb: their first column and size */
  int *colb;        /* n: a column's block, −1 none */
  double *L;        /* Σ bn²: Cholesky factors of M's blocks (lower, column-major) */
  int *loff;        /* nb: a block's place in L */
  int *diag;        /* nb: 1 when its off-diagonal entries are zero (L holds 1/m_ii then) */
  int *ns;          /* ma: sides of an active row (1 or 2) */
  int *sb;          /* 2 ma: a side's block */
  int *se0, *se1;   /* 2 ma: its entries [se0, se1) of the sparse rows */
  int *woff;        /* 2 ma: its block vector's place in w */
  double *w;        /* W = M⁻¹Φqᵀ by row sides, whole blocks */
  int *fc;          /* ma: first column of row k's envelope */
  int *eoff;        /* ma + 1: row k's envelope entries S_k,fc..k at [eoff[k], eoff[k+1]) */
  double *S;        /* the envelope, then its Cholesky factor */
  schur_pair *pair; /* the pairs of row sides meeting in a block */
  int npair;
  double *u, *b; /* n: M⁻¹Q; ma: the right-hand side, then λ */
  double ratio0; /* the first factorization's pivot ratio, 0 before it */
  /* M diagonal (planar rigid bodies): W has Φqᵀ's pattern, S_kl = Σ_c φ_kc φ_lc / m_cc */
  int dmode;       /* 1: every block was diagonal at the last evaluation */
  double *Mc;      /* Σ bn²: M's blocks as last factored (unchanged: no new factors) */
  double *minv;    /* n: 1 / m_cc (dmode) */
  double mlo, mhi; /* the least and largest pivot of M's blocks */
  double *wv;      /* nnz: W's entries in the sparse rows' places (dmode) */
  int *dp;         /* 4 npair: the pairs' first entries e_k, e_l, count, place of S_kl (dmode:
                      two sides in one block reach the same columns, as a body's rows do) */
  int dpok;        /* 1: every pair's sides reach the same columns (dp holds them) */
  int nl;          /* Σ bn² */
  int *midx;       /* Σ bn²: the places of M's block entries in d->M (the order of Mc) */
  int off;         /* 1: this model does not fit (blocks not positive definite, wide envelope) */
  int general;     /* 1: every block by its Cholesky factor, diagonal ones too (a test's
                      MBD_KANE_SCHUR=general: the path of blocks that are not diagonal) */
  int mconst;      /* 1: Mc is the constant M of d->inertia_ready (forces.c builds it once for
                      bodies of constant inertia; the same for every data of the model) */
};

void mbd_schur_free(mbd_schur *s) {
  if (!s) {
    return;
  }
  free(s->act), free(s->b0), free(s->bn), free(s->colb), free(s->L), free(s->loff);
  free(s->diag), free(s->ns), free(s->sb), free(s->se0), free(s->se1), free(s->woff);
  free(s->w), free(s->fc), free(s->eoff), free(s->S), free(s->pair), free(s->u), free(s->b);
  free(s->Mc), free(s->minv), free(s->wv), free(s->dp), free(s->midx);
  free(s);
}

/* the blocks of M (once per run) */
static int schur_blocks(mbd_schur *s, const mbd_model *m) {
  int n = m->nv;
  s->n = n;
  s->ma = -1;
  s->colb = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  s->b0 = malloc((size_t)(m->nblock + 1) * sizeof(int));
  s->bn = malloc((size_t)(m->nblock + 1) * sizeof(int));
  s->loff = malloc((size_t)(m->nblock + 1) * sizeof(int));
  s->diag = malloc((size_t)(m->nblock + 1) * sizeof(int));
  s->act = malloc((size_t)(m->mrow + 1) * sizeof(int));
  s->u = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!s->colb || !s->b0 || !s->bn || !s->loff || !s->diag || !s->act || !s->u) {
    return MBD_E_NOMEM;
  }
  for (int c = 0; c < n; c++) {
    s->colb[c] = -1;
  }
  int nl = 0;
  s->nb = 0;
  for (int i = 0; i < m->nblock; i++) {
    const mbd_block *bl = &m->block[i];
    if (bl->nv <= 0) {
      continue;
    }
    int b = s->nb++;
    s->b0[b] = bl->vadr;
    s->bn[b] = bl->nv;
    s->loff[b] = nl;
    nl += bl->nv * bl->nv;
    for (int c = bl->vadr; c < bl->vadr + bl->nv; c++) {
      s->colb[c] = b;
    }
  }
  for (int c = 0; c < n; c++) {
    if (s->colb[c] < 0) {
      s->off = 1;  // a column outside every block: M is not block diagonal as assumed
    }
  }
  s->L = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(double));
  s->Mc = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(double));
  s->midx = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(int));
  s->minv = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!s->L || !s->Mc || !s->midx || !s->minv) {
    return MBD_E_NOMEM;
  }
  s->nl = nl;
  for (int b = 0; b < s->nb; b++) {
    for (int j = 0; j < s->bn[b]; j++) {
      for (int i = 0; i < s->bn[b]; i++) {
        s->midx[s->loff[b] + j * s->bn[b] + i] = (s->b0[b] + j) * n + s->b0[b] + i;
      }
    }
  }
  for (int i = 0; i < nl; i++) {
    s->Mc[i] = NAN;  // (never equal: the first evaluation factors)
  }
  return MBD_OK;
}

/* the pattern for the active rows of d: the rows' sides, W's places, the envelope, the pairs */
static int schur_pattern(mbd_schur *s, const mbd_data *d) {
  const mbd_sparse *sp = d->sp;
  int ma = d->ma;
  free(s->ns), free(s->sb), free(s->se0), free(s->se1), free(s->woff), free(s->w);
  free(s->fc), free(s->eoff), free(s->S), free(s->pair), free(s->b), free(s->wv), free(s->dp);
  s->w = s->S = s->b = s->wv = NULL;
  s->pair = NULL;
  s->dp = NULL;
  s->ma = -1;
  size_t a = (size_t)(ma > 0 ? ma : 1);
  s->ns = malloc(a * sizeof(int));
  s->sb = malloc(2 * a * sizeof(int));
  s->se0 = malloc(2 * a * sizeof(int));
  s->se1 = malloc(2 * a * sizeof(int));
  s->woff = malloc(2 * a * sizeof(int));
  s->fc = malloc(a * sizeof(int));
  s->eoff = malloc((a + 1) * sizeof(int));
  s->b = malloc(a * sizeof(double));
  if (!s->ns || !s->sb || !s->se0 || !s->se1 || !s->woff || !s->fc || !s->eoff || !s->b) {
    return MBD_E_NOMEM;
  }
  // the sides of each row: runs of entries in one block (a row's entries increase by column)
  int nw = 0;
  for (int k = 0; k < ma; k++) {
    int r = d->active[k];
    s->ns[k] = 0;
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      int b = s->colb[sp->ci[e]];
      int t = s->ns[k];
      if (t > 0 && s->sb[2 * k + t - 1] == b) {
        s->se1[2 * k + t - 1] = e + 1;
        continue;
      }
      if (t == 2) {
        s->off = 1;  // a row over three blocks (not made by the sparse form's rows)
        return MBD_OK;
      }
      s->sb[2 * k + t] = b;
      s->se0[2 * k + t] = e;
      s->se1[2 * k + t] = e + 1;
      s->woff[2 * k + t] = nw;
      nw += s->bn[b];
      s->ns[k] = t + 1;
    }
  }
  // the envelope: row k's first column is the least row l < k sharing a block with it
  int *first = malloc((size_t)(s->nb > 0 ? s->nb : 1) * sizeof(int));
  if (!first) {
    return MBD_E_NOMEM;
  }
  for (int b = 0; b < s->nb; b++) {
    first[b] = -1;
  }
  long env = 0, npair = 0;
  for (int k = 0; k < ma; k++) {
    s->fc[k] = k;
    for (int t = 0; t < s->ns[k]; t++) {
      int b = s->sb[2 * k + t];
      if (first[b] < 0) {
        first[b] = k;
      }
      s->fc[k] = first[b] < s->fc[k] ? first[b] : s->fc[k];
    }
    s->eoff[k] = (int)env;
    env += k - s->fc[k] + 1;
  }
  s->eoff[ma] = (int)env;
  if (env > (long)SCHUR_MAX_ENV * ma + 64) {
    free(first);
    s->off = 1;
    return MBD_OK;
  }
  // the pairs (k ≥ l) meeting in a block: by blocks, over the row sides touching each
  int *cnt = calloc((size_t)s->nb + 1, sizeof(int));
  int *lst = malloc((size_t)(2 * a) * sizeof(int)); /* 2k + t, by blocks */
  if (!cnt || !lst) {
    free(first), free(cnt), free(lst);
    return MBD_E_NOMEM;
  }
  for (int k = 0; k < ma; k++) {
    for (int t = 0; t < s->ns[k]; t++) {
      cnt[s->sb[2 * k + t] + 1]++;
    }
  }
  for (int b = 0; b < s->nb; b++) {
    cnt[b + 1] += cnt[b];
  }
  for (int b = 0; b < s->nb; b++) {
    first[b] = cnt[b];  // cursors
  }
  for (int k = 0; k < ma; k++) {
    for (int t = 0; t < s->ns[k]; t++) {
      lst[first[s->sb[2 * k + t]]++] = 2 * k + t;
    }
  }
  for (int b = 0; b < s->nb; b++) {
    long c = cnt[b + 1] - cnt[b];
    npair += c * (c + 1) / 2;
  }
  s->pair = malloc((size_t)(npair > 0 ? npair : 1) * sizeof(schur_pair));
  s->w = malloc((size_t)(nw > 0 ? nw : 1) * sizeof(double));
  s->S = malloc((size_t)(env > 0 ? env : 1) * sizeof(double));
  if (!s->pair || !s->w || !s->S) {
    free(first), free(cnt), free(lst);
    return MBD_E_NOMEM;
  }
  s->npair = 0;
  for (int b = 0; b < s->nb; b++) {
    for (int i = cnt[b]; i < cnt[b + 1]; i++) {
      for (int j = cnt[b]; j <= i; j++) {
        // (the list is in increasing rows: lst[i] ≥ lst[j])
        schur_pair *p = &s->pair[s->npair++];
        p->k = lst[i] / 2, p->sk = lst[i] % 2;
        p->l = lst[j] / 2, p->sl = lst[j] % 2;
        p->pos = s->eoff[p->k] + p->l - s->fc[p->k];
      }
    }
  }
  // the diagonal form's pairs: both sides over the same columns (a body's rows reach its ny
  // columns in order), S_kl += Σ_i φ_k,e_k+i W_l,e_l+i
  s->wv = malloc((size_t)(sp->nnz > 0 ? sp->nnz : 1) * sizeof(double));
  s->dp = malloc((size_t)(4 * (s->npair > 0 ? s->npair : 1)) * sizeof(int));
  if (!s->wv || !s->dp) {
    free(first), free(cnt), free(lst);
    return MBD_E_NOMEM;
  }
  s->dpok = 1;
  for (int i = 0; i < s->npair; i++) {
    const schur_pair *p = &s->pair[i];
    int ek = s->se0[2 * p->k + p->sk], nk = s->se1[2 * p->k + p->sk] - ek;
    int el = s->se0[2 * p->l + p->sl], nl = s->se1[2 * p->l + p->sl] - el;
    int same = nk == nl;
    for (int e = 0; e < nk && same; e++) {
      same = sp->ci[ek + e] == sp->ci[el + e];
    }
    s->dpok &= same;
    int *q = s->dp + 4 * i;
    q[0] = ek, q[1] = el, q[2] = nk, q[3] = p->pos;
  }
  free(first), free(cnt), free(lst);
  s->ma = ma;
  memcpy(s->act, d->active, (size_t)ma * sizeof(int));
  return MBD_OK;
}

/* x ← M_b⁻¹ x on block b's factor */
static void block_solve(const mbd_schur *s, int b, double *x) {
  int nb = s->bn[b];
  const double *L = s->L + s->loff[b];
  if (s->diag[b]) {
    for (int i = 0; i < nb; i++) {
      x[i] *= L[i * nb + i];
    }
    return;
  }
  for (int i = 0; i < nb; i++) {  // L y = x
    double v = x[i];
    for (int j = 0; j < i; j++) {
      v -= L[j * nb + i] * x[j];
    }
    x[i] = v / L[i * nb + i];
  }
  for (int i = nb - 1; i >= 0; i--) {  // Lᵀ x = y
    double v = x[i];
    for (int j = i + 1; j < nb; j++) {
      v -= L[i * nb + j] * x[j];
    }
    x[i] = v / L[i * nb + i];
  }
}

int mbd_schur_prepare(mbd_schur **ps, const mbd_model *m, mbd_data *d, mbd_error *err) {
  mbd_schur *s = *ps;
  if (!s) {
    s = *ps = calloc(1, sizeof *s);
    if (!s || schur_blocks(s, m) < 0) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "Schur complement");
    }
    const char *env = getenv("MBD_KANE_SCHUR");
    s->general = env && strcmp(env, "general") == 0;
  }
  if (!s->off && (s->ma != d->ma || memcmp(s->act, d->active, (size_t)d->ma * sizeof(int)) != 0)) {
    if (schur_pattern(s, d) < 0) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_FORM_NOMEM, "Schur complement");
    }
  }
  return MBD_OK;
}

int mbd_schur_dynamics(mbd_schur **ps, const mbd_model *m, mbd_data *d, mbd_error *err) {
  const mbd_sparse *sp = d->sp;
  int rc = mbd_schur_prepare(ps, m, d, err);
  if (rc < 0) {
    return rc;
  }
  mbd_schur *s = *ps;
  if (s->off) {
    return 0;
  }
  int n = s->n, ma = d->ma;
  // M's blocks: Cholesky (1/m_ii for a diagonal block), again only when they changed (a planar
  // body's block is constant: once factored from the constant M, not even compared); their
  // pivots enter the ratio
  int changed = 0;
  for (int i = 0; i < s->nl && !(s->mconst && d->inertia_ready); i++) {
    if (s->Mc[i] != d->M[s->midx[i]]) {
      changed = 1;
      break;
    }
  }
  if (changed) {
    double lo = INFINITY, hi = 0;
    s->dmode = 1;
    for (int b = 0; b < s->nb; b++) {
      int nb = s->bn[b], c0 = s->b0[b];
      double *L = s->L + s->loff[b], *Mb = s->Mc + s->loff[b];
      int diag = !s->general;
      for (int j = 0; j < nb; j++) {
        const double *Mc = d->M + (size_t)(c0 + j) * n + c0;
        for (int i = 0; i < nb; i++) {
          L[j * nb + i] = Mb[j * nb + i] = Mc[i];
          diag &= i == j || Mc[i] == 0;
        }
      }
      s->diag[b] = diag;
      s->dmode &= diag;
      for (int j = 0; j < nb; j++) {
        double v = L[j * nb + j];
        for (int k = 0; k < j && !diag; k++) {
          v -= L[k * nb + j] * L[k * nb + j];
        }
        if (!(v > 0)) {
          s->off = 1;  // not positive definite (an Euler-parameter block): the KLU path
          return 0;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (diag) {
          L[j * nb + j] = s->minv[c0 + j] = 1 / v;
          continue;
        }
        double ljj = sqrt(v);
        L[j * nb + j] = ljj;
        for (int i = j + 1; i < nb; i++) {
          double x = L[j * nb + i];
          for (int k = 0; k < j; k++) {
            x -= L[k * nb + i] * L[k * nb + j];
          }
          L[j * nb + i] = x / ljj;
        }
      }
    }
    s->mlo = lo, s->mhi = hi;
  }
  s->mconst = d->inertia_ready;
  memset(s->S, 0, (size_t)s->eoff[ma] * sizeof(double));
  int fast = s->dmode && s->dpok;
  if (fast) {
    // W's entries φ_kc / m_cc, S_kl = Σ_c φ_kc W_lc over the columns rows k and l share; in the
    // same pass over the rows u = M⁻¹Q and the right-hand side b = Φq u − γ (below otherwise)
    for (int c = 0; c < n; c++) {
      s->u[c] = d->Q[c] * s->minv[c];
    }
    for (int k = 0; k < ma; k++) {
      int r = d->active[k];
      double v = -d->gamma_a[k];
      for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
        s->wv[e] = sp->val[e] * s->minv[sp->ci[e]];
        v += sp->val[e] * s->u[sp->ci[e]];
      }
      s->b[k] = v;
    }
    const int *q = s->dp;
    for (int i = 0; i < s->npair; i++, q += 4) {
      const double *a = sp->val + q[0], *w = s->wv + q[1];
      if (q[2] == 3) {  // a planar body's columns
        s->S[q[3]] += a[0] * w[0] + a[1] * w[1] + a[2] * w[2];
        continue;
      }
      double v = 0;
      for (int e = 0; e < q[2]; e++) {
        v += a[e] * w[e];
      }
      s->S[q[3]] += v;
    }
  } else {
    // W = M⁻¹Φqᵀ by row sides (whole blocks), S = Φq W on its envelope
    for (int k = 0; k < ma; k++) {
      for (int t = 0; t < s->ns[k]; t++) {
        int b = s->sb[2 * k + t];
        double *w = s->w + s->woff[2 * k + t];
        int c0 = s->b0[b];
        memset(w, 0, (size_t)s->bn[b] * sizeof(double));
        for (int e = s->se0[2 * k + t]; e < s->se1[2 * k + t]; e++) {
          w[sp->ci[e] - c0] = sp->val[e];
        }
        block_solve(s, b, w);
      }
    }
    for (int i = 0; i < s->npair; i++) {
      const schur_pair *p = &s->pair[i];
      const double *w = s->w + s->woff[2 * p->l + p->sl];
      int c0 = s->b0[s->sb[2 * p->l + p->sl]];
      double v = 0;
      for (int e = s->se0[2 * p->k + p->sk]; e < s->se1[2 * p->k + p->sk]; e++) {
        v += sp->val[e] * w[sp->ci[e] - c0];
      }
      s->S[p->pos] += v;
    }
  }
  // Cholesky on the envelope (row by row: L_kj for j in [fc_k, k])
  double slo = INFINITY, shi = 0;
  for (int k = 0; k < ma; k++) {
    double *Lk = s->S + s->eoff[k] - s->fc[k];  // Lk[j] = L_kj
    for (int j = s->fc[k]; j < k; j++) {
      const double *Lj = s->S + s->eoff[j] - s->fc[j];
      int j0 = s->fc[k] > s->fc[j] ? s->fc[k] : s->fc[j];
      double x = Lk[j];
      for (int i = j0; i < j; i++) {
        x -= Lk[i] * Lj[i];
      }
      Lk[j] = x / Lj[j];
    }
    double x = Lk[k];
    for (int i = s->fc[k]; i < k; i++) {
      x -= Lk[i] * Lk[i];
    }
    if (!(x > 0)) {
      return 0;  // S not positive definite here: the KLU path (singular, or rows dependent)
    }
    slo = x < slo ? x : slo;
    shi = x > shi ? x : shi;
    Lk[k] = sqrt(x);
  }
  // the pivots of the block elimination of [M Φqᵀ; Φq 0]: M's, then −S's
  double lo = slo < s->mlo ? slo : s->mlo;
  double hi = shi > s->mhi ? shi : s->mhi;
  double ratio = hi > 0 ? lo / hi : 1;
  if (s->ratio0 == 0) {
    s->ratio0 = ratio;
  }
  double rel = ratio / s->ratio0;
  if (rel < SCHUR_FALL) {
    return 0;  // near a singular configuration: the KLU path and its watch
  }
  if (rel < d->sing_ratio) {
    d->sing_ratio = rel;
    d->sing_t = d->t;
  }
  // u = M⁻¹Q, b = Φq u − γ (made with W in the diagonal form)
  if (s->dmode && !fast) {
    for (int c = 0; c < n; c++) {
      s->u[c] = d->Q[c] * s->minv[c];
    }
  } else if (!fast) {
    memcpy(s->u, d->Q, (size_t)n * sizeof(double));
    for (int b = 0; b < s->nb; b++) {
      block_solve(s, b, s->u + s->b0[b]);
    }
  }
  for (int k = 0; k < ma && !fast; k++) {
    int r = d->active[k];
    double v = -d->gamma_a[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      v += sp->val[e] * s->u[sp->ci[e]];
    }
    s->b[k] = v;
  }
  // S λ = b: L y = b, Lᵀ λ = y
  for (int k = 0; k < ma; k++) {
    const double *Lk = s->S + s->eoff[k] - s->fc[k];
    double v = s->b[k];
    for (int i = s->fc[k]; i < k; i++) {
      v -= Lk[i] * s->b[i];
    }
    s->b[k] = v / Lk[k];
  }
  for (int k = ma - 1; k >= 0; k--) {
    const double *Lk = s->S + s->eoff[k] - s->fc[k];
    double v = s->b[k] / Lk[k];
    s->b[k] = v;
    for (int i = s->fc[k]; i < k; i++) {
      s->b[i] -= Lk[i] * v;
    }
  }
  // v̇ = u − W λ, the multipliers of the active rows
  memcpy(d->vdot, s->u, (size_t)n * sizeof(double));
  for (int k = 0; k < ma && fast; k++) {
    double lk = s->b[k];
    int r = d->active[k];
    for (int e = sp->rp[r]; e < sp->rp[r + 1]; e++) {
      d->vdot[sp->ci[e]] -= s->wv[e] * lk;
    }
  }
  for (int k = 0; k < ma && !fast; k++) {
    double lk = s->b[k];
    for (int t = 0; t < s->ns[k]; t++) {
      int b = s->sb[2 * k + t];
      const double *w = s->w + s->woff[2 * k + t];
      double *vd = d->vdot + s->b0[b];
      for (int i = 0; i < s->bn[b]; i++) {
        vd[i] -= w[i] * lk;
      }
    }
  }
  memset(d->lambda, 0, (size_t)m->mrow * sizeof(double));
  for (int k = 0; k < ma; k++) {
    d->lambda[d->active[k]] = s->b[k];
  }
  d->lu_factorizations++;
  d->aug_ratio = ratio;
  d->gauss_solved = 0;
  mbd_stage_reached(m, d, MBD_STAGE_ACCELERATION);
  return 1;
}
