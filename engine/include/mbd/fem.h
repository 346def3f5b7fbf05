/* mbd — finite elements for flexible bodies (paper 003): a 3-D Euler–Bernoulli beam model, point
 * masses, the consistent mass and stiffness of an FE model, its lumped nodal masses and rotary
 * inertias, its modes (the generalized symmetric eigenproblem by LAPACK's dsygvd), mode files
 * and Matrix Market import, and the geometric stiffness of centrifugal axial loads.
 *
 * Degrees of freedom: 6 per node, node-major, in the order ux uy uz rx ry rz (translations, then
 * small rotations about the x, y, z axes of the FE frame, which is the flexible body's frame).
 * Matrices are dense, column-major, 6N × 6N.  Nodes are numbered from 1 in this API, as the user
 * numbers them.  Everything here is set-up work: it allocates, and is never called while a
 * simulation integrates. */
#ifndef MBD_FEM_H
#define MBD_FEM_H

#include "mbd/status.h"

/* an FE model: node positions, consistent mass and stiffness, lumped masses */
typedef struct mbd_fe mbd_fe;

typedef struct mbd_beam_spec {
  double length;      /* m, > 0: from node 1 at (x0, 0, 0) along +x */
  int elements;       /* number of beam elements, ≥ 1 (nodes 1 .. elements + 1) */
  double E, G;        /* Young's and shear modulus, Pa, > 0 */
  double rho;         /* density, kg/m³, > 0 */
  double A;           /* section area, m², > 0 */
  double Iy, Iz;      /* second moments of the section about y and z, m⁴, > 0 */
  double J;           /* torsion constant, m⁴, > 0 (the torsional mass uses Iy + Iz) */
  int section_rotary; /* 1: the section's rotary inertia (Rayleigh terms) in the bending mass */
  double x0;          /* x of node 1 in the body frame, m */
} mbd_beam_spec;

/* a uniform straight beam of `elements` 12-DOF Euler–Bernoulli elements (axial, torsion, two
 * bendings).  NULL with err filled on bad input or no memory. */
mbd_fe *mbd_fe_beam(const mbd_beam_spec *s, mbd_error *err);

/* an FE model from its matrices: nnode nodes at xyz (3 × nnode), consistent mass M and stiffness K
 * (6nnode × 6nnode, column-major, copied; symmetric: the upper triangle is read).  The lumped
 * masses follow from M (mbd_fe_lump).  NULL with err filled on bad input or no memory. */
mbd_fe *mbd_fe_from_matrices(int nnode, const double *xyz, const double *M, const double *K,
                             mbd_error *err);

/* the same from files: Matrix Market mass and stiffness (coordinate or array, real, general or
 * symmetric; the DOF order above) and a node table (CSV lines "node,x,y,z"; a header line and
 * '#' comments are skipped; nodes 1..N in any order) */
mbd_fe *mbd_fe_read_matrices(const char *mass_file, const char *stiffness_file,
                             const char *nodes_file, mbd_error *err);

/* write the model's mass and stiffness (Matrix Market, coordinate real symmetric, lower
 * triangle) and its node table (CSV) — the files mbd_fe_read_matrices reads */
int mbd_fe_write_matrices(const mbd_fe *fe, const char *mass_file, const char *stiffness_file,
                          const char *nodes_file, mbd_error *err);

void mbd_fe_free(mbd_fe *fe);

int mbd_fe_nnode(const mbd_fe *fe);

/* a point mass with principal rotary inertias (Jxx, Jyy, Jzz about the node, FE axes) at a node
 * (from 1): added to the consistent mass's diagonal and to the lumped masses as they are */
int mbd_fe_add_mass(mbd_fe *fe, int node, double mass, const double inertia[3], mbd_error *err);

/* lumped nodal masses (nnode) and rotary inertias (3 × nnode, Jxx Jyy Jzz) from the consistent
 * mass (paper 003 sect. 3): nodal mass = row sum of the translational entries; rotary inertia =
 * the rotational diagonal entry times a correction factor (our reading of Yeh & Dopker, whose
 * report is not public: the HRZ factor — an element's mass over the sum of its translational
 * diagonal entries along the same axis — so the torsional inertia of a beam is exact) */
void mbd_fe_lump(const mbd_fe *fe, double *mass, double *rot);

/* the kind of a mode, by the DOF group that carries most of its kinetic energy */
typedef enum mbd_mode_kind {
  MBD_MODE_RIGID = 0, /* a rigid-body mode (zero frequency, free model) */
  MBD_MODE_AXIAL,     /* ux */
  MBD_MODE_BENDING_Y, /* deflection along y: uy and rz */
  MBD_MODE_BENDING_Z, /* deflection along z: uz and ry */
  MBD_MODE_TORSION,   /* rx */
  MBD_MODE_NKINDS
} mbd_mode_kind;

/* "rigid", "axial", "bending-y", "bending-z", "torsion"; NULL for others */
const char *mbd_mode_kind_name(int kind);
/* the kind of a name above, or −1 */
int mbd_mode_kind_from_name(const char *name);

/* the modes of an FE model with everything a flexible body needs: its nodes with their lumped
 * masses and rotary inertias, and the mode shapes.  Owned by the caller (mbd_modes_free). */
typedef struct mbd_modes {
  int nnode, nmode;
  double *xyz;   /* 3 × nnode node positions */
  double *mass;  /* nnode lumped masses, kg */
  double *rot;   /* 3 × nnode lumped rotary inertias Jxx Jyy Jzz, kg·m² */
  double *shape; /* 6nnode × nmode shapes (column-major), zero at clamped nodes */
  double *freq;  /* nmode frequencies, Hz */
  double *gmass; /* nmode generalized masses shapeᵀ M shape (1: mass-normalized) */
  int *kind;     /* nmode mbd_mode_kind */
  int nfixed;    /* clamped nodes (all 6 DOF) */
  int *fixed;    /* nfixed node numbers, from 1 */
  int nelem;     /* beam elements along x (geometric stiffness), 0 when unknown */
  int *elem;     /* 2 × nelem node numbers, from 1 */
} mbd_modes;

/* modal analysis: the count lowest modes of K φ = ω² M φ with the listed nodes clamped (all six
 * DOF), mass-normalized (φᵀMφ = 1), sorted by frequency, classified.  MBD_OK, MBD_E_INPUT (a node
 * out of range, count < 1 or more than the free DOF), MBD_E_SINGULAR (M not positive definite:
 * the message names the node and DOF; no convergence) or MBD_E_NOMEM. */
int mbd_fe_modes(const mbd_fe *fe, const int *fixed, int nfixed, int count, mbd_modes **out,
                 mbd_error *err);

void mbd_modes_free(mbd_modes *mo);

/* the mode file (docs/paper003.md "Mode files"): nodes with lumped masses and rotary inertias,
 * clamped nodes, beam elements, and each mode's frequency, kind, generalized mass and shape.
 * Written with 17 significant digits, so a file read back gives the same numbers. */
int mbd_modes_save(const mbd_modes *mo, const char *file, mbd_error *err);
int mbd_modes_load(const char *file, mbd_modes **out, mbd_error *err);

/* the geometric stiffness, in the coordinates of n shapes (6nnode × n, column-major, as a flexible
 * body scales them), of the centrifugal axial load of a unit (ω'y² + ω'z²): each beam element
 * carries the tension Σ m_i x_i of the lumped masses beyond it (seen from the clamped node), and
 * its consistent geometric stiffness (Cook et al.) is summed over the elements: G (n × n).
 * Needs the modes of a beam along x clamped at one node (MBD_E_INPUT otherwise). */
int mbd_modes_geometric(const mbd_modes *mo, const double *shape, int n, double *G, mbd_error *err);

/* the modes a flexible body uses: a selection of modes scaled so that each mode's largest nodal
 * translation is 1 m (a mode with no translation, pure torsion: its largest rotation 1 rad), so a
 * modal coordinate reads as the largest deflection it causes; with the nodes' lumped masses and
 * (when rotary) rotary inertias, and the modal matrices in those coordinates. */
typedef struct mbd_modal_set {
  int nnode, nmode;
  const double *xyz;  /* 3 × nnode (the modes' own arrays) */
  const double *mass; /* nnode */
  double *rot;        /* 3 × nnode rotary inertias, zero when dropped */
  double *shape;      /* 6nnode × nmode scaled shapes */
  double *scale;      /* nmode factors applied to the mass-normalized shapes */
  double *kmodal;     /* nmode × nmode: diag (2π f)² · generalized mass · scale² */
  double *dmodal;     /* nmode × nmode: diag 2 ζ ω · generalized mass · scale², or NULL */
  double *gmodal;     /* nmode × nmode geometric stiffness (mbd_modes_geometric), or NULL */
  char (*label)[64];  /* "mode 3 (torsion, 738 Hz)" */
} mbd_modal_set;

/* the modes sel[0..nsel) (from 1) of mo; zeta: nsel modal damping ratios (NULL: none); rotary = 0
 * drops the nodal rotary inertias (paper 003's lumped-mass model); geometric = 1 computes the
 * geometric stiffness.  MBD_OK, MBD_E_INPUT (a mode out of range, a negative damping ratio, or
 * mbd_modes_geometric's) or MBD_E_NOMEM. */
int mbd_modes_select(const mbd_modes *mo, const int *sel, int nsel, const double *zeta, int rotary,
                     int geometric, mbd_modal_set **out, mbd_error *err);
void mbd_modal_set_free(mbd_modal_set *set);

#endif
