/* the FE model of a flexible body: a 3-D Euler–Bernoulli beam (12-DOF elements: axial, torsion and
 * the two bendings), point masses, models given by their matrices, and the lumping of the
 * consistent mass into nodal masses and rotary inertias (paper 003 sect. 3).
 *
 * Element matrices (Cook, Malkus, Plesha, Concepts and Applications of FEA, ch. 2 and 11;
 * Przemieniecki, Theory of Matrix Structural Analysis, ch. 5 and 11), element along x, DOF per node
 * (u, v, w, θx, θy, θz):
 *   axial    EA/L [1 −1; −1 1],               mass ρAL/6 [2 1; 1 2]
 *   torsion  GJ/L [1 −1; −1 1],               mass ρ(Iy+Iz)L/6 [2 1; 1 2]
 *   bending in x–y (v, θz), Iz: EIz/L³ [12 6L −12 6L; 6L 4L² −6L 2L²; …],
 *            mass ρAL/420 [156 22L 54 −13L; 22L 4L² 13L −3L²; …]
 *            + (section rotary inertia, Rayleigh) ρIz/(30L) [36 3L −36 3L; 3L 4L² −3L −L²; …]
 *   bending in x–z (w, θy), Iy: the same with θy = −dw/dx (the coupling terms change sign). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fem_impl.h"
#include "fem_msg.h"

const char *mbd_fe_dof_name(int k) {
  static const char *const n[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  return (k >= 0 && k < 6) ? n[k] : "?";
}

mbd_fe *mbd_fe_alloc(int nnode, mbd_error *err) {
  if (nnode < 1) {
    MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_NNODE, nnode);
    return NULL;
  }
  mbd_fe *fe = calloc(1, sizeof *fe);
  size_t n = (size_t)nnode, nd = 6 * n;
  if (fe) {
    fe->nnode = nnode;
    fe->ndof = (int)nd;
    fe->xyz = calloc(3 * n, sizeof(double));
    fe->M = calloc(nd * nd, sizeof(double));
    fe->K = calloc(nd * nd, sizeof(double));
    fe->lm = calloc(n, sizeof(double));
    fe->lr = calloc(3 * n, sizeof(double));
  }
  if (!fe || !fe->xyz || !fe->M || !fe->K || !fe->lm || !fe->lr) {
    mbd_fe_free(fe);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem");
    return NULL;
  }
  return fe;
}

void mbd_fe_free(mbd_fe *fe) {
  if (!fe) {
    return;
  }
  free(fe->xyz);
  free(fe->M);
  free(fe->K);
  free(fe->lm);
  free(fe->lr);
  free(fe->elem);
  free(fe);
}

int mbd_fe_nnode(const mbd_fe *fe) { return fe->nnode; }

/* ------------------------------------------------------------------------------------------ */
/* the beam element                                                                            */

/* add c·T to the 4×4 bending block of a (ndof square) on DOFs d[4], where T is the pattern
 * [t0 t1 t2 t3 …] of a Hermite-cubic matrix with L, given in the x–y plane (v, θz); sgn = −1 turns
 * it into the x–z plane (w, θy): the entries coupling a translation with a rotation change sign */
static void add_bend(double *a, int n, const int *d, const double T[4][4], double c, int sgn) {
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      int mixed = (i % 2) != (j % 2);  // one translation (even) and one rotation (odd)
      MBD_AT(a, n, d[i], d[j]) += c * T[i][j] * ((sgn < 0 && mixed) ? -1 : 1);
    }
  }
}

/* add c·[2 1; 1 2]-like or [1 −1; −1 1]-like 2×2 blocks */
static void add_bar(double *a, int n, int d0, int d1, double c, double diag, double off) {
  MBD_AT(a, n, d0, d0) += c * diag;
  MBD_AT(a, n, d1, d1) += c * diag;
  MBD_AT(a, n, d0, d1) += c * off;
  MBD_AT(a, n, d1, d0) += c * off;
}

/* the Hermite patterns of length L: stiffness (× EI/L³), mass (× ρAL/420), rotary inertia and
 * geometric stiffness (× ρI/(30L) and × N/(30L): the same pattern) */
static void patterns(double L, double Ks[4][4], double Mc[4][4], double Mr[4][4]) {
  const double ks[4][4] = {{12, 6 * L, -12, 6 * L},
                           {6 * L, 4 * L * L, -6 * L, 2 * L * L},
                           {-12, -6 * L, 12, -6 * L},
                           {6 * L, 2 * L * L, -6 * L, 4 * L * L}};
  const double mc[4][4] = {{156, 22 * L, 54, -13 * L},
                           {22 * L, 4 * L * L, 13 * L, -3 * L * L},
                           {54, 13 * L, 156, -22 * L},
                           {-13 * L, -3 * L * L, -22 * L, 4 * L * L}};
  const double mr[4][4] = {{36, 3 * L, -36, 3 * L},
                           {3 * L, 4 * L * L, -3 * L, -L * L},
                           {-36, -3 * L, 36, -3 * L},
                           {3 * L, -L * L, -3 * L, 4 * L * L}};
  memcpy(Ks, ks, sizeof ks);
  memcpy(Mc, mc, sizeof mc);
  memcpy(Mr, mr, sizeof mr);
}

void mbd_fe_geometric_element(double L, double N, int node_a, int node_b, double *G, int n) {
  double Ks[4][4], Mc[4][4], Mr[4][4];
  patterns(L, Ks, Mc, Mr);
  int a = 6 * node_a, b = 6 * node_b;
  const int dy[4] = {a + 1, a + 5, b + 1, b + 5}, dz[4] = {a + 2, a + 4, b + 2, b + 4};
  add_bend(G, n, dy, Mr, N / (30 * L), 1);
  add_bend(G, n, dz, Mr, N / (30 * L), -1);
}

static int positive(double v) { return v > 0 && isfinite(v); }

mbd_fe *mbd_fe_beam(const mbd_beam_spec *s, mbd_error *err) {
  const struct {
    const char *name;
    double v;
  } props[] = {{"length", s->length}, {"E", s->E},   {"G", s->G},   {"rho", s->rho},
               {"A", s->A},           {"Iy", s->Iy}, {"Iz", s->Iz}, {"J", s->J}};
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    if (!positive(props[i].v)) {
      MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_BEAM_VALUE, props[i].name, props[i].v);
      return NULL;
    }
  }
  if (!isfinite(s->x0)) {
    MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_BEAM_VALUE, "x0", s->x0);
    return NULL;
  }
  if (s->elements < 1 || s->elements > 10000) {
    MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_BEAM_ELEMENTS, s->elements);
    return NULL;
  }
  int ne = s->elements;
  mbd_fe *fe = mbd_fe_alloc(ne + 1, err);
  if (!fe) {
    return NULL;
  }
  fe->elem = calloc(2 * (size_t)ne, sizeof(int));
  if (!fe->elem) {
    mbd_fe_free(fe);
    MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "fem.beam");
    return NULL;
  }
  fe->nelem = ne;
  double L = s->length / ne, Ip = s->Iy + s->Iz, mass = s->rho * s->A * L;
  for (int i = 0; i <= ne; i++) {
    fe->xyz[3 * i] = s->x0 + s->length * i / ne;
  }
  double Ks[4][4], Mc[4][4], Mr[4][4];
  patterns(L, Ks, Mc, Mr);
  int n = fe->ndof;
  for (int e = 0; e < ne; e++) {
    fe->elem[2 * e] = e + 1;
    fe->elem[2 * e + 1] = e + 2;
    int a = 6 * e, b = 6 * (e + 1);
    // stiffness: axial, torsion, bending about z (v, θz) and about y (w, θy)
    add_bar(fe->K, n, a, b, s->E * s->A / L, 1, -1);
    add_bar(fe->K, n, a + 3, b + 3, s->G * s->J / L, 1, -1);
    const int dy[4] = {a + 1, a + 5, b + 1, b + 5}, dz[4] = {a + 2, a + 4, b + 2, b + 4};
    add_bend(fe->K, n, dy, Ks, s->E * s->Iz / (L * L * L), 1);
    add_bend(fe->K, n, dz, Ks, s->E * s->Iy / (L * L * L), -1);
    // consistent mass
    add_bar(fe->M, n, a, b, mass / 6, 2, 1);
    add_bar(fe->M, n, a + 3, b + 3, s->rho * Ip * L / 6, 2, 1);
    add_bend(fe->M, n, dy, Mc, mass / 420, 1);
    add_bend(fe->M, n, dz, Mc, mass / 420, -1);
    double ry = 0, rz = 0;  // the Rayleigh terms' factors, when the section's rotary inertia counts
    if (s->section_rotary) {
      rz = s->rho * s->Iz / (30 * L);
      ry = s->rho * s->Iy / (30 * L);
      add_bend(fe->M, n, dy, Mr, rz, 1);
      add_bend(fe->M, n, dz, Mr, ry, -1);
    }
    // lumping, element by element (paper 003 sect. 3): each end node takes the row sum of the
    // translational entries, mass/2 (the Rayleigh terms sum to zero on a row); the rotational
    // diagonal is scaled by the HRZ factor of the translations along the same axis: element mass
    // over the sum of those translational diagonal entries — 3/2 for torsion (exact: ρ Ip L/2),
    // 420/312 for a bending rotation without the Rayleigh terms
    double ax = mass / (2 * mass / 3);
    double ay = mass / (2 * (156 * mass / 420 + 36 * rz));
    double az = mass / (2 * (156 * mass / 420 + 36 * ry));
    for (int k = 0; k < 2; k++) {
      int nd = e + k;
      fe->lm[nd] += mass / 2;
      fe->lr[3 * nd] += ax * s->rho * Ip * L / 3;
      fe->lr[3 * nd + 1] += az * (4 * L * L * mass / 420 + 4 * L * L * ry);
      fe->lr[3 * nd + 2] += ay * (4 * L * L * mass / 420 + 4 * L * L * rz);
    }
  }
  return fe;
}

/* ------------------------------------------------------------------------------------------ */
/* models from matrices, point masses, lumping                                                 */

mbd_fe *mbd_fe_from_matrices(int nnode, const double *xyz, const double *M, const double *K,
                             mbd_error *err) {
  mbd_fe *fe = mbd_fe_alloc(nnode, err);
  if (!fe) {
    return NULL;
  }
  int n = fe->ndof;
  memcpy(fe->xyz, xyz, 3 * (size_t)nnode * sizeof(double));
  // symmetric: the upper triangle read and mirrored
  for (int j = 0; j < n; j++) {
    for (int i = 0; i <= j; i++) {
      double mij = MBD_AT(M, n, i, j), kij = MBD_AT(K, n, i, j);
      if (!isfinite(mij) || !isfinite(kij)) {
        mbd_fe_free(fe);
        MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MATRIX_FINITE, isfinite(mij) ? "stiffness" : "mass",
                 i + 1, j + 1);
        return NULL;
      }
      MBD_AT(fe->M, n, i, j) = MBD_AT(fe->M, n, j, i) = mij;
      MBD_AT(fe->K, n, i, j) = MBD_AT(fe->K, n, j, i) = kij;
    }
    if (MBD_AT(M, n, j, j) < 0) {
      mbd_fe_free(fe);
      MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MASS_DIAG, j + 1, j / 6 + 1, mbd_fe_dof_name(j % 6));
      return NULL;
    }
  }
  for (int i = 0; i < 3 * nnode; i++) {
    if (!isfinite(xyz[i])) {
      mbd_fe_free(fe);
      MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MATRIX_FINITE, "node", i / 3 + 1, i % 3 + 1);
      return NULL;
    }
  }
  mbd_fe_lump_global(fe);
  return fe;
}

/* the global form of the beam's element-wise rule: nodal mass = the mean over x, y, z of the row
 * sums of the translational entries; the rotational diagonal about axis d times the HRZ factor of
 * the translations along d (total mass along d over the sum of their diagonal entries) */
void mbd_fe_lump_global(mbd_fe *fe) {
  int n = fe->ndof, N = fe->nnode;
  double alpha[3];
  for (int d = 0; d < 3; d++) {
    double total = 0, diag = 0;
    for (int i = d; i < n; i += 6) {
      diag += MBD_AT(fe->M, n, i, i);
      for (int j = d; j < n; j += 6) {
        total += MBD_AT(fe->M, n, i, j);
      }
    }
    alpha[d] = diag > 0 ? total / diag : 0;
  }
  for (int k = 0; k < N; k++) {
    double s = 0;
    for (int d = 0; d < 3; d++) {
      int i = 6 * k + d;
      for (int t = 0; t < N; t++) {
        for (int e = 0; e < 3; e++) {
          s += MBD_AT(fe->M, n, i, 6 * t + e);
        }
      }
      fe->lr[3 * k + d] = alpha[d] * MBD_AT(fe->M, n, 6 * k + 3 + d, 6 * k + 3 + d);
    }
    fe->lm[k] = s / 3;
  }
}

int mbd_fe_add_mass(mbd_fe *fe, int node, double mass, const double inertia[3], mbd_error *err) {
  if (node < 1 || node > fe->nnode) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_NODE, "add_mass", node, fe->nnode);
  }
  double J[3] = {inertia ? inertia[0] : 0, inertia ? inertia[1] : 0, inertia ? inertia[2] : 0};
  if (!(mass >= 0) || !isfinite(mass) || !(J[0] >= 0) || !(J[1] >= 0) || !(J[2] >= 0) ||
      !isfinite(J[0] + J[1] + J[2])) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_MASS_VALUE, node);
  }
  int n = fe->ndof, a = 6 * (node - 1);
  for (int d = 0; d < 3; d++) {
    MBD_AT(fe->M, n, a + d, a + d) += mass;
    MBD_AT(fe->M, n, a + 3 + d, a + 3 + d) += J[d];
    fe->lr[3 * (node - 1) + d] += J[d];
  }
  fe->lm[node - 1] += mass;
  return MBD_OK;
}

void mbd_fe_lump(const mbd_fe *fe, double *mass, double *rot) {
  memcpy(mass, fe->lm, (size_t)fe->nnode * sizeof(double));
  memcpy(rot, fe->lr, 3 * (size_t)fe->nnode * sizeof(double));
}
