/* the FE layer of flexible bodies (engine/fem, paper 003): beam frequencies against the
 * Euler–Bernoulli closed forms and their convergence with the element count (bending, torsion,
 * axial), a tip mass against the transcendental frequency equation, a free beam's six rigid modes,
 * lumped masses and rotary inertias, mode files and Matrix Market round trips, the geometric
 * stiffness of centrifugal loads against Southwell's coefficient, and the errors. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../engine/fem/fem_msg.h"
#include "mbd/fem.h"
#include "mbd/linalg.h"
#include "mbd_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* a steel bar 20 mm × 20 mm, 1 m: the DSL.md example's section */
static mbd_beam_spec steel(int elements) {
  mbd_beam_spec s = {.length = 1,
                     .elements = elements,
                     .E = 210e9,
                     .G = 80.8e9,
                     .rho = 7850,
                     .A = 4e-4,
                     .Iy = 1.333e-8,
                     .Iz = 1.333e-8,
                     .J = 2.25e-8};
  return s;
}

/* the first `count` modes of a cantilever (node 1 clamped) */
static mbd_modes *cantilever(const mbd_beam_spec *s, int count) {
  mbd_error err;
  mbd_fe *fe = mbd_fe_beam(s, &err);
  assert_non_null(fe);
  int fixed[1] = {1};
  mbd_modes *mo = NULL;
  int rc = mbd_fe_modes(fe, fixed, 1, count, &mo, &err);
  if (rc != MBD_OK) {
    fail_msg("%s", err.msg);
  }
  mbd_fe_free(fe);
  return mo;
}

/* the k-th mode (from 0) of the given kind, or −1 */
static int nth_kind(const mbd_modes *mo, int kind, int k) {
  for (int i = 0; i < mo->nmode; i++) {
    if (mo->kind[i] == kind && k-- == 0) {
      return i;
    }
  }
  return -1;
}

/* Euler–Bernoulli cantilever: ω_n = (β_n L)² √(EI / (ρ A L⁴)), β_n L the roots of
 * 1 + cos βL cosh βL = 0 */
static const double beta_cantilever[3] = {1.8751040687119611, 4.6940911329741745,
                                          7.8547574382376126};

static double bending_hz(const mbd_beam_spec *s, double I, int n) {
  double bl = beta_cantilever[n];
  return bl * bl * sqrt(s->E * I / (s->rho * s->A * pow(s->length, 4))) / (2 * M_PI);
}

/* bending in both planes converges to the closed form from above at O(h⁴) (cubic Hermite,
 * consistent mass): the error of the first mode falls at least eightfold per halving of h (the
 * asymptotic factor is 16), and with 16 elements the first three modes are within 1e-6, 2e-5 and
 * 1e-4 (measured 1.3e-7, 5.1e-6, 4.0e-5: the tolerances leave room for other LAPACK builds) */
static void test_bending_convergence(void **state) {
  (void)state;
  double prev = INFINITY;
  for (int ne = 2; ne <= 16; ne *= 2) {
    mbd_beam_spec s = steel(ne);
    mbd_modes *mo = cantilever(&s, 8);
    int iy = nth_kind(mo, MBD_MODE_BENDING_Y, 0), iz = nth_kind(mo, MBD_MODE_BENDING_Z, 0);
    assert_true(iy >= 0 && iz >= 0);
    double exact = bending_hz(&s, s.Iz, 0);
    double e = (mo->freq[iy] - exact) / exact;
    assert_true(e > 0);  // a Rayleigh–Ritz discretization is stiffer than the beam
    assert_true(e < prev / 8);
    prev = e;
    // square section: the two planes are the same beam
    MBD_ASSERT_NEAR(mo->freq[iz], mo->freq[iy], 1e-9 * exact);
    if (ne == 16) {
      const double tol[3] = {1e-6, 2e-5, 1e-4};
      for (int n = 0; n < 3; n++) {
        int i = nth_kind(mo, MBD_MODE_BENDING_Y, n);
        assert_true(i >= 0);
        double ex = bending_hz(&s, s.Iz, n);
        MBD_ASSERT_NEAR(mo->freq[i] / ex, 1.0, tol[n]);
      }
    }
    mbd_modes_free(mo);
  }
}

/* torsion and axial modes (linear elements, consistent mass) converge at O(h²) from above to
 * ω_n = (2n − 1) π / (2L) · c, c = √(GJ / (ρ Ip)) and √(E / ρ): the relative error is close to
 * (k h)² / 24 (k = ω / c), 4.0e-4 for the first mode with 16 elements; asserted below 6e-4, and
 * the error falls at least threefold per halving (asymptotically fourfold) */
static void test_torsion_axial(void **state) {
  (void)state;
  double prev_t = INFINITY, prev_a = INFINITY;
  for (int ne = 4; ne <= 16; ne *= 2) {
    mbd_beam_spec s = steel(ne);
    mbd_modes *mo = cantilever(&s, 20);
    int it = nth_kind(mo, MBD_MODE_TORSION, 0), ia = nth_kind(mo, MBD_MODE_AXIAL, 0);
    assert_true(it >= 0 && ia >= 0);
    double ft = M_PI / (2 * s.length) * sqrt(s.G * s.J / (s.rho * (s.Iy + s.Iz))) / (2 * M_PI);
    double fa = M_PI / (2 * s.length) * sqrt(s.E / s.rho) / (2 * M_PI);
    double et = mo->freq[it] / ft - 1, ea = mo->freq[ia] / fa - 1;
    assert_true(et > 0 && ea > 0);
    assert_true(et < prev_t / 3 && ea < prev_a / 3);
    prev_t = et;
    prev_a = ea;
    if (ne == 16) {
      assert_true(et < 6e-4 && ea < 6e-4);
    }
    mbd_modes_free(mo);
  }
}

/* a tip mass M on a cantilever: βL solves 1 + cos βL cosh βL + (M/(ρAL)) βL (cos βL sinh βL −
 * sin βL cosh βL) = 0 (Blevins, Formulas for Natural Frequency and Mode Shape, table 8-8, no
 * rotary inertia at the tip).  20 elements give the first mode within 1e-6 (measured 2.4e-9). */
static double tip_equation(double x, double r) {
  return 1 + cos(x) * cosh(x) + r * x * (cos(x) * sinh(x) - sin(x) * cosh(x));
}

static void test_tip_mass(void **state) {
  (void)state;
  mbd_beam_spec s = steel(20);
  double r = 0.8;  // tip mass over beam mass
  double lo = 0.5, hi = 1.875;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if ((tip_equation(lo, r) > 0) == (tip_equation(mid, r) > 0)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double bl = 0.5 * (lo + hi);
  double exact = bl * bl * sqrt(s.E * s.Iz / (s.rho * s.A)) / (2 * M_PI);
  mbd_error err;
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  double J[3] = {0, 0, 0};
  assert_int_equal(mbd_fe_add_mass(fe, 21, r * s.rho * s.A * s.length, J, &err), MBD_OK);
  int fixed[1] = {1};
  mbd_modes *mo = NULL;
  assert_int_equal(mbd_fe_modes(fe, fixed, 1, 4, &mo, &err), MBD_OK);
  int i = nth_kind(mo, MBD_MODE_BENDING_Y, 0);
  MBD_ASSERT_NEAR(mo->freq[i] / exact, 1.0, 1e-6);
  mbd_modes_free(mo);
  mbd_fe_free(fe);
}

/* a free beam: six rigid modes at zero (below 1e-5 of the first elastic frequency, 106 Hz: the
 * eigensolver's noise left 3.6e-6 of it here), then the free–free bending mode
 * βL = 4.730040745 (error below 1e-5 with 16 elements, as the cantilever's second mode) */
static void test_free_free(void **state) {
  (void)state;
  mbd_beam_spec s = steel(16);
  mbd_error err;
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  mbd_modes *mo = NULL;
  assert_int_equal(mbd_fe_modes(fe, NULL, 0, 8, &mo, &err), MBD_OK);
  for (int k = 0; k < 6; k++) {
    assert_int_equal(mo->kind[k], MBD_MODE_RIGID);
    assert_true(mo->freq[k] < 1e-5 * mo->freq[6]);
  }
  double bl = 4.730040744862704;
  double exact = bl * bl * sqrt(s.E * s.Iz / (s.rho * s.A)) / (2 * M_PI);
  assert_int_not_equal(mo->kind[6], MBD_MODE_RIGID);
  MBD_ASSERT_NEAR(mo->freq[6] / exact, 1.0, 1e-5);
  mbd_modes_free(mo);
  mbd_fe_free(fe);
}

/* lumping: the nodal masses sum to the beam's mass plus the point mass exactly (row sums of the
 * translational entries); the torsional rotary inertias sum to ρ(Iy+Iz)L (the HRZ factor 3/2
 * makes torsion exact) plus the point inertia; bending rotary inertias are ρAh³/78 per element
 * end (diagonal 4h²ρAh/420 × 420/312).  Rounding only: tolerances 1e-12 relative. */
static void test_lumping(void **state) {
  (void)state;
  mbd_beam_spec s = steel(8);
  mbd_error err;
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  double Jt[3] = {0.1, 0.05, 0.06};
  assert_int_equal(mbd_fe_add_mass(fe, 9, 5, Jt, &err), MBD_OK);
  double m[9], J[27];
  mbd_fe_lump(fe, m, J);
  double msum = 0, jx = 0;
  for (int i = 0; i < 9; i++) {
    msum += m[i];
    jx += J[3 * i];
  }
  double beam = s.rho * s.A * s.length, h = s.length / 8;
  MBD_ASSERT_NEAR(msum, beam + 5, 1e-12 * beam);
  MBD_ASSERT_NEAR(jx, s.rho * (s.Iy + s.Iz) * s.length + 0.1, 1e-12);
  MBD_ASSERT_NEAR(m[0], s.rho * s.A * h / 2, 1e-12);
  MBD_ASSERT_NEAR(J[3 * 4 + 2], 2 * s.rho * s.A * h * h * h / 78, 1e-15);
  MBD_ASSERT_NEAR(J[3 * 8 + 1], s.rho * s.A * h * h * h / 78 + 0.05, 1e-12);
  mbd_fe_free(fe);
}

/* mbd's own beam through both exchange formats: the mode file gives every number back exactly
 * (17 digits); Matrix Market matrices with the node table give the same FE model, so the same
 * frequencies (the eigensolver on identical matrices: 1e-12) and the same lumped masses (the
 * global rule equals the element-wise one for a uniform beam without point masses: 1e-12) */
static void test_round_trip(void **state) {
  (void)state;
  mbd_beam_spec s = steel(6);
  mbd_error err;
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  int fixed[1] = {1};
  mbd_modes *mo = NULL, *back = NULL, *mo2 = NULL;
  assert_int_equal(mbd_fe_modes(fe, fixed, 1, 6, &mo, &err), MBD_OK);
  char dir[] = "/tmp/mbd-fem-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char file[128], mf[128], kf[128], nf[128];
  snprintf(file, sizeof file, "%s/beam.modes", dir);
  snprintf(mf, sizeof mf, "%s/M.mtx", dir);
  snprintf(kf, sizeof kf, "%s/K.mtx", dir);
  snprintf(nf, sizeof nf, "%s/nodes.csv", dir);
  assert_int_equal(mbd_modes_save(mo, file, &err), MBD_OK);
  assert_int_equal(mbd_modes_load(file, &back, &err), MBD_OK);
  assert_int_equal(back->nnode, mo->nnode);
  assert_int_equal(back->nmode, mo->nmode);
  assert_int_equal(back->nelem, 6);
  assert_int_equal(back->nfixed, 1);
  for (int k = 0; k < mo->nmode; k++) {
    assert_true(back->freq[k] == mo->freq[k]);
    assert_int_equal(back->kind[k], mo->kind[k]);
    for (int i = 0; i < 6 * mo->nnode; i++) {
      assert_true(back->shape[(size_t)k * 6 * mo->nnode + i] ==
                  mo->shape[(size_t)k * 6 * mo->nnode + i]);
    }
  }
  for (int i = 0; i < mo->nnode; i++) {
    assert_true(back->mass[i] == mo->mass[i] && back->rot[3 * i] == mo->rot[3 * i]);
  }
  assert_int_equal(mbd_fe_write_matrices(fe, mf, kf, nf, &err), MBD_OK);
  mbd_fe *fe2 = mbd_fe_read_matrices(mf, kf, nf, &err);
  if (!fe2) {
    fail_msg("%s", err.msg);
  }
  assert_int_equal(mbd_fe_modes(fe2, fixed, 1, 6, &mo2, &err), MBD_OK);
  for (int k = 0; k < mo->nmode; k++) {
    MBD_ASSERT_NEAR(mo2->freq[k] / mo->freq[k], 1.0, 1e-12);
    assert_int_equal(mo2->kind[k], mo->kind[k]);
  }
  for (int i = 0; i < mo->nnode; i++) {
    MBD_ASSERT_NEAR(mo2->mass[i], mo->mass[i], 1e-12 * mo->mass[i]);
    for (int d = 0; d < 3; d++) {
      MBD_ASSERT_NEAR(mo2->rot[3 * i + d], mo->rot[3 * i + d], 1e-12 * mo->rot[3 * i + d]);
    }
  }
  remove(file);
  remove(mf);
  remove(kf);
  remove(nf);
  rmdir(dir);
  mbd_modes_free(mo);
  mbd_modes_free(mo2);
  mbd_modes_free(back);
  mbd_fe_free(fe);
  mbd_fe_free(fe2);
}

/* Southwell's relation for a uniform cantilever spinning about an axis through its root,
 * perpendicular to it: ω² = ω0² + K Ω² with K = 1.1933 for the first flapwise mode (Bhat 1986;
 * Wright et al. 1982, hub radius 0).  In mass-normalized modal coordinates K is the geometric
 * stiffness of a unit Ω² itself.  The centrifugal tension from lumped masses approaches the
 * continuous ρAΩ²(L² − x²)/2 as O(h²): K is 3.4 %, 0.86 %, 0.22 % high with 5, 10, 20 elements;
 * asserted within 0.5 % with 20 */
static void test_southwell(void **state) {
  (void)state;
  mbd_beam_spec s = steel(20);
  mbd_modes *mo = cantilever(&s, 4);
  int i = nth_kind(mo, MBD_MODE_BENDING_Z, 0);
  double G = 0;
  mbd_error err;
  assert_int_equal(mbd_modes_geometric(mo, mo->shape + (size_t)i * 6 * mo->nnode, 1, &G, &err),
                   MBD_OK);
  MBD_ASSERT_NEAR(G, 1.1933, 0.006);
  // free modes have no root to carry the load from
  mbd_modes *fm = NULL;
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  assert_int_equal(mbd_fe_modes(fe, NULL, 0, 7, &fm, &err), MBD_OK);
  MBD_EXPECT_ERROR(mbd_modes_geometric(fm, fm->shape, 1, &G, &err), &err, MBD_E_INPUT,
                   MSG_FEM_GEOMETRIC, "the modes have no clamped node");
  mbd_modes_free(fm);
  mbd_fe_free(fe);
  mbd_modes_free(mo);
}

/* errors name what is wrong: a bad property, a node out of range, a mass matrix that is not
 * positive definite (a rotational DOF with no inertia: node and DOF named), a malformed file */
static void test_errors(void **state) {
  (void)state;
  mbd_error err;
  mbd_beam_spec s = steel(4);
  s.Iy = -1;
  assert_null(mbd_fe_beam(&s, &err));
  MBD_ASSERT_MSG(err.msg, MSG_FEM_BEAM_VALUE, "Iy", -1.0);
  s = steel(0);
  assert_null(mbd_fe_beam(&s, &err));
  MBD_ASSERT_MSG(err.msg, MSG_FEM_BEAM_ELEMENTS, 0);
  s = steel(4);
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  MBD_EXPECT_ERROR(mbd_fe_add_mass(fe, 6, 1, NULL, &err), &err, MBD_E_INPUT, MSG_FEM_NODE,
                   "add_mass", 6, 5);
  int bad[1] = {9};
  mbd_modes *mo = NULL;
  MBD_EXPECT_ERROR(mbd_fe_modes(fe, bad, 1, 3, &mo, &err), &err, MBD_E_INPUT, MSG_FEM_NODE, "modes",
                   9, 5);
  int one[1] = {1};
  MBD_EXPECT_ERROR(mbd_fe_modes(fe, one, 1, 25, &mo, &err), &err, MBD_E_INPUT, MSG_FEM_MODES_COUNT,
                   24, 25);
  // two nodes joined by a spring along x, with masses but no rotary inertia
  double xyz[6] = {0, 0, 0, 1, 0, 0}, M[144] = {0}, K[144] = {0};
  for (int i = 0; i < 3; i++) {
    MBD_AT(M, 12, i, i) = MBD_AT(M, 12, 6 + i, 6 + i) = 1;
  }
  MBD_AT(K, 12, 0, 0) = MBD_AT(K, 12, 6, 6) = 1;
  MBD_AT(K, 12, 0, 6) = MBD_AT(K, 12, 6, 0) = -1;
  mbd_fe *fm = mbd_fe_from_matrices(2, xyz, M, K, &err);
  assert_non_null(fm);
  MBD_EXPECT_ERROR(mbd_fe_modes(fm, NULL, 0, 2, &mo, &err), &err, MBD_E_SINGULAR,
                   MSG_FEM_MODES_MASS, 1, "rx");
  assert_null(mo);
  // a malformed mode file: the line is named
  char path[] = "/tmp/mbd-fem-bad-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "# a comment\nnodes 2\n1 0 0 0 1 0 0 0\n2 1 0 0 x 0 0 0\n");
  fclose(f);
  MBD_EXPECT_ERROR(mbd_modes_load(path, &mo, &err), &err, MBD_E_INPUT, MSG_FEM_PARSE, path, 4,
                   "expected a node line 'k x y z mass Jxx Jyy Jzz' with k = 1, 2, ... in order");
  remove(path);
  mbd_fe_free(fm);
  mbd_fe_free(fe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bending_convergence),
      cmocka_unit_test(test_torsion_axial),
      cmocka_unit_test(test_tip_mass),
      cmocka_unit_test(test_free_free),
      cmocka_unit_test(test_lumping),
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_southwell),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
