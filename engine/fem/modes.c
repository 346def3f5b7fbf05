/* modes of an FE model (paper 003: "mode shapes from an FE modal analysis"): the generalized
 * symmetric eigenproblem K φ = ω² M φ on the free DOF by LAPACK's dsygvd (dense: the models of a
 * flexible body have tens to a few thousand DOF), classification of each mode by the DOF group
 * that carries most of its kinetic energy, and the geometric stiffness of centrifugal axial loads
 * in modal coordinates (stress stiffening). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fem_impl.h"
#include "fem_msg.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *const kind_names[MBD_MODE_NKINDS] = {"rigid", "axial", "bending-y", "bending-z",
                                                        "torsion"};

const char *mbd_mode_kind_name(int kind) {
  return (kind >= 0 && kind < MBD_MODE_NKINDS) ? kind_names[kind] : NULL;
}

int mbd_mode_kind_from_name(const char *name) {
  for (int k = 0; k < MBD_MODE_NKINDS; k++) {
    if (strcmp(name, kind_names[k]) == 0) {
      return k;
    }
  }
  return -1;
}

void mbd_modes_free(mbd_modes *mo) {
  if (!mo) {
    return;
  }
  void *ps[] = {mo->xyz,   mo->mass, mo->rot,   mo->shape, mo->freq,
                mo->gmass, mo->kind, mo->fixed, mo->elem};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    free(ps[i]);
  }
  free(mo);
}

mbd_modes *mbd_modes_alloc(int nnode, int nmode, int nfixed, int nelem) {
  mbd_modes *mo = calloc(1, sizeof *mo);
  if (!mo) {
    return NULL;
  }
  size_t N = (size_t)nnode, K = (size_t)(nmode > 0 ? nmode : 1);
  mo->nnode = nnode;
  mo->nmode = nmode;
  mo->nfixed = nfixed;
  mo->nelem = nelem;
  mo->xyz = calloc(3 * N, sizeof(double));
  mo->mass = calloc(N, sizeof(double));
  mo->rot = calloc(3 * N, sizeof(double));
  mo->shape = calloc(6 * N * K, sizeof(double));
  mo->freq = calloc(K, sizeof(double));
  mo->gmass = calloc(K, sizeof(double));
  mo->kind = calloc(K, sizeof(int));
  mo->fixed = calloc((size_t)(nfixed > 0 ? nfixed : 1), sizeof(int));
  mo->elem = calloc(2 * (size_t)(nelem > 0 ? nelem : 1), sizeof(int));
  if (!mo->xyz || !mo->mass || !mo->rot || !mo->shape || !mo->freq || !mo->gmass || !mo->kind ||
      !mo->fixed || !mo->elem) {
    mbd_modes_free(mo);
    return NULL;
  }
  return mo;
}

/* the DOF group of DOF k (0..5) of a node: which kind of mode it carries */
static int dof_kind(int k) {
  static const int g[6] = {MBD_MODE_AXIAL,   MBD_MODE_BENDING_Y, MBD_MODE_BENDING_Z,
                           MBD_MODE_TORSION, MBD_MODE_BENDING_Z, MBD_MODE_BENDING_Y};
  return g[k];
}

/* modes of equal frequency (a square section's two bendings, a free model's rigid modes) come
 * out of the eigensolver as any orthonormal basis of their space: turn each such cluster to the
 * basis that diagonalizes Σ_g c_g X ᵀ P_g M X (P_g the DOF group g, weights c_g distinct), so a
 * mode is a pure bending in y or z, torsion or axial motion where the model allows it.  X (the
 * eigenvectors on the free DOF, nf × nf) is turned in place; an orthogonal turn keeps XᵀMX = I. */
static int separate(const mbd_fe *fe, const int *freedof, int nf, double *X, const double *w,
                    int count, double lref, mbd_error *err) {
  int n = fe->ndof;
  for (int k = 0; k < count;) {
    int c = 1;
    while (k + c < nf && fabs(w[k + c] - w[k]) <= 1e-7 * fabs(w[k]) + 1e-11 * lref) {
      c++;
    }
    if (c == 1) {
      k++;
      continue;
    }
    double *full = calloc((size_t)n * c, sizeof(double)),
           *Mx = malloc((size_t)n * c * sizeof(double));
    double *S = calloc((size_t)c * c, sizeof(double)), *ev = malloc((size_t)c * sizeof(double));
    double *Y = malloc((size_t)nf * c * sizeof(double));
    if (!full || !Mx || !S || !ev || !Y) {
      free(full), free(Mx), free(S), free(ev), free(Y);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "modes");
    }
    for (int a = 0; a < c; a++) {
      for (int i = 0; i < nf; i++) {
        full[(size_t)a * n + freedof[i]] = MBD_AT(X, nf, i, k + a);
      }
      mbd_gemv(0, n, n, 1.0, fe->M, n, full + (size_t)a * n, 0.0, Mx + (size_t)a * n);
    }
    for (int a = 0; a < c; a++) {
      for (int b = 0; b < c; b++) {
        double s = 0;
        for (int i = 0; i < n; i++) {
          s += (1 + dof_kind(i % 6)) * full[(size_t)a * n + i] * Mx[(size_t)b * n + i];
        }
        MBD_AT(S, c, a, b) += 0.5 * s;
        MBD_AT(S, c, b, a) += 0.5 * s;
      }
    }
    int rc = mbd_eig_sym(c, S, c, ev);
    if (rc == MBD_OK) {
      // Y = X_cluster V
      for (int b = 0; b < c; b++) {
        for (int i = 0; i < nf; i++) {
          double s = 0;
          for (int a = 0; a < c; a++) {
            s += MBD_AT(X, nf, i, k + a) * MBD_AT(S, c, a, b);
          }
          Y[(size_t)b * nf + i] = s;
        }
      }
      for (int b = 0; b < c; b++) {
        memcpy(X + (size_t)(k + b) * nf, Y + (size_t)b * nf, (size_t)nf * sizeof(double));
      }
    }
    free(full), free(Mx), free(S), free(ev), free(Y);
    if (rc != MBD_OK) {
      return MBD_FAIL(err, rc == MBD_E_NOMEM ? rc : MBD_E_SINGULAR, MSG_FEM_MODES_CONVERGE, c);
    }
    k += c;
  }
  return MBD_OK;
}

int mbd_fe_modes(const mbd_fe *fe, const int *fixed, int nfixed, int count, mbd_modes **out,
                 mbd_error *err) {
  *out = NULL;
  int n = fe->ndof, N = fe->nnode;
  char *clamped = calloc((size_t)N, 1);
  int *freedof = malloc((size_t)n * sizeof(int));
  if (!clamped || !freedof) {
    free(clamped);
    free(freedof);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "modes");
  }
  for (int k = 0; k < nfixed; k++) {
    if (fixed[k] < 1 || fixed[k] > N) {
      free(clamped);
      free(freedof);
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_NODE, "modes", fixed[k], N);
    }
    clamped[fixed[k] - 1] = 1;
  }
  int nf = 0, nclamped = 0;
  for (int i = 0; i < N; i++) {
    nclamped += clamped[i];
  }
  for (int i = 0; i < n; i++) {
    if (!clamped[i / 6]) {
      freedof[nf++] = i;
    }
  }
  int rc = MBD_OK;
  if (nf == 0) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MODES_NONE);
  } else if (count < 1 || count > nf) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MODES_COUNT, nf, count);
  }
  double *Kf = NULL, *Mf = NULL, *w = NULL, *Mphi = NULL;
  mbd_modes *mo = NULL;
  if (rc == MBD_OK) {
    Kf = malloc((size_t)nf * nf * sizeof(double));
    Mf = malloc((size_t)nf * nf * sizeof(double));
    w = malloc((size_t)nf * sizeof(double));
    Mphi = malloc((size_t)n * sizeof(double));
    mo = mbd_modes_alloc(N, count, nclamped, fe->nelem);
    if (!Kf || !Mf || !w || !Mphi || !mo) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "modes");
    }
  }
  if (rc == MBD_OK) {
    for (int j = 0; j < nf; j++) {
      for (int i = 0; i < nf; i++) {
        MBD_AT(Kf, nf, i, j) = MBD_AT(fe->K, n, freedof[i], freedof[j]);
        MBD_AT(Mf, nf, i, j) = MBD_AT(fe->M, n, freedof[i], freedof[j]);
      }
    }
    // a reference for "zero": the largest ratio of the diagonals, the scale of the eigenvalues
    double lref = 0;
    for (int i = 0; i < nf; i++) {
      double mi = MBD_AT(Mf, nf, i, i), ki = MBD_AT(Kf, nf, i, i);
      if (mi > 0 && ki / mi > lref) {
        lref = ki / mi;
      }
    }
    int info = mbd_eig_sym_gen(nf, Kf, nf, Mf, nf, w);
    if (info == MBD_E_NOMEM) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "modes");
    } else if (info < 0) {
      rc = MBD_FAIL(err, MBD_E_LAPACK, MSG_FEM_LAPACK);
    } else if (info > nf) {
      int dof = freedof[info - nf - 1];
      rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_FEM_MODES_MASS, dof / 6 + 1, mbd_fe_dof_name(dof % 6));
    } else if (info > 0) {
      rc = MBD_FAIL(err, MBD_E_SINGULAR, MSG_FEM_MODES_CONVERGE, info);
    }
    if (rc == MBD_OK) {
      rc = separate(fe, freedof, nf, Kf, w, count, lref, err);
    }
    for (int k = 0; rc == MBD_OK && k < count; k++) {
      double *phi = mo->shape + (size_t)k * n;
      double big = 0;
      for (int i = 0; i < nf; i++) {
        phi[freedof[i]] = MBD_AT(Kf, nf, i, k);
        big = fabs(phi[freedof[i]]) > fabs(big) ? phi[freedof[i]] : big;
      }
      // a sign that does not depend on the LAPACK build: the largest component positive
      if (big < 0) {
        for (int i = 0; i < n; i++) {
          phi[i] = -phi[i];
        }
      }
      double lam = w[k];
      mo->freq[k] = sqrt(lam > 0 ? lam : 0) / (2 * M_PI);
      mo->gmass[k] = 1;
      // the kinetic-energy share of each DOF group: Σ_{i∈g} φ_i (Mφ)_i (they sum to φᵀMφ = 1)
      mbd_gemv(0, n, n, 1.0, fe->M, n, phi, 0.0, Mphi);
      double share[MBD_MODE_NKINDS] = {0};
      for (int i = 0; i < n; i++) {
        share[dof_kind(i % 6)] += phi[i] * Mphi[i];
      }
      int best = MBD_MODE_AXIAL;
      for (int g = MBD_MODE_AXIAL; g < MBD_MODE_NKINDS; g++) {
        best = share[g] > share[best] ? g : best;
      }
      // zero frequency (a free model's rigid motion): below the eigensolver's noise, 1e-11 of the
      // largest diagonal ratio (a 100-element free beam's first elastic mode sits at 1e-8 of it)
      mo->kind[k] = lam < 1e-11 * lref ? MBD_MODE_RIGID : best;
    }
  }
  if (rc == MBD_OK) {
    memcpy(mo->xyz, fe->xyz, 3 * (size_t)N * sizeof(double));
    mbd_fe_lump(fe, mo->mass, mo->rot);
    for (int i = 0, k = 0; i < N; i++) {
      if (clamped[i]) {
        mo->fixed[k++] = i + 1;
      }
    }
    memcpy(mo->elem, fe->elem ? fe->elem : mo->elem, 2 * (size_t)fe->nelem * sizeof(int));
    *out = mo;
    mo = NULL;
  }
  mbd_modes_free(mo);
  free(Kf);
  free(Mf);
  free(w);
  free(Mphi);
  free(clamped);
  free(freedof);
  return rc;
}

int mbd_modes_geometric(const mbd_modes *mo, const double *shape, int nsel, double *G,
                        mbd_error *err) {
  if (mo->nfixed != 1) {
    return MBD_FAIL(
        err, MBD_E_INPUT, MSG_FEM_GEOMETRIC,
        mo->nfixed == 0 ? "the modes have no clamped node" : "more than one clamped node");
  }
  if (mo->nelem < 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_GEOMETRIC, "the model has no beam elements");
  }
  int N = mo->nnode, n = 6 * N, f = mo->fixed[0] - 1;
  double xf = mo->xyz[3 * f];
  for (int e = 0; e < mo->nelem; e++) {
    int a = mo->elem[2 * e] - 1, b = mo->elem[2 * e + 1] - 1;
    if (a < 0 || a >= N || b < 0 || b >= N ||
        fabs(mo->xyz[3 * a + 1] - mo->xyz[3 * b + 1]) > 1e-12 * (1 + fabs(mo->xyz[3 * a])) ||
        fabs(mo->xyz[3 * a + 2] - mo->xyz[3 * b + 2]) > 1e-12 * (1 + fabs(mo->xyz[3 * a])) ||
        mo->xyz[3 * a] == mo->xyz[3 * b]) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_GEOMETRIC, "an element is not along x");
    }
  }
  double *Kg = calloc((size_t)n * n, sizeof(double)), *tmp = malloc((size_t)n * sizeof(double));
  if (!Kg || !tmp) {
    free(Kg);
    free(tmp);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "geometric stiffness");
  }
  // each element's tension under a unit (ω'y² + ω'z²): the centrifugal forces m_i x_i (along +x)
  // of the nodes beyond it, seen from the clamped node; tension pulls away from that node
  for (int e = 0; e < mo->nelem; e++) {
    int a = mo->elem[2 * e] - 1, b = mo->elem[2 * e + 1] - 1;
    double xa = mo->xyz[3 * a], xb = mo->xyz[3 * b], mid = 0.5 * (xa + xb);
    double side = mid > xf ? 1 : -1, tension = 0;
    for (int i = 0; i < N; i++) {
      double xi = mo->xyz[3 * i];
      if ((side > 0 && xi > mid) || (side < 0 && xi < mid)) {
        tension += side * mo->mass[i] * xi;
      }
    }
    mbd_fe_geometric_element(fabs(xb - xa), tension, xa < xb ? a : b, xa < xb ? b : a, Kg, n);
  }
  // G = Φᵀ Kg Φ
  for (int j = 0; j < nsel; j++) {
    mbd_gemv(0, n, n, 1.0, Kg, n, shape + (size_t)j * n, 0.0, tmp);
    for (int i = 0; i < nsel; i++) {
      double s = 0;
      for (int r = 0; r < n; r++) {
        s += shape[(size_t)i * n + r] * tmp[r];
      }
      MBD_AT(G, nsel, i, j) = s;
    }
  }
  free(Kg);
  free(tmp);
  return MBD_OK;
}
