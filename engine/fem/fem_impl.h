/* mbd — the FE model (private to fem/) */
#ifndef MBD_FEM_IMPL_H
#define MBD_FEM_IMPL_H

#include "mbd/fem.h"
#include "mbd/linalg.h"

struct mbd_fe {
  int nnode;     /* nodes, numbered from 1 for the user */
  int ndof;      /* 6 nnode */
  double *xyz;   /* 3 × nnode node positions */
  double *M, *K; /* ndof × ndof consistent mass and stiffness, column-major */
  double *lm;    /* nnode lumped masses */
  double *lr;    /* 3 × nnode lumped rotary inertias */
  int nelem;     /* beam elements (mbd_fe_beam), 0 for a model from matrices */
  int *elem;     /* 2 × nelem node numbers, from 1 */
};

/* an empty model of nnode nodes (matrices zero), or NULL with err filled */
mbd_fe *mbd_fe_alloc(int nnode, mbd_error *err);
/* the lumped masses from the consistent mass of the whole model (models from matrices) */
void mbd_fe_lump_global(mbd_fe *fe);

/* G (n × n, the model's DOF) += the consistent geometric stiffness of a beam element along x of
 * length L between nodes node_a and node_b (from 0) carrying the axial tension N */
void mbd_fe_geometric_element(double L, double N, int node_a, int node_b, double *G, int n);

/* a modes record for nnode nodes, nmode modes, nfixed clamped nodes, nelem elements (zeroed),
 * or NULL */
mbd_modes *mbd_modes_alloc(int nnode, int nmode, int nfixed, int nelem);

/* the name of DOF k (0..5) of a node: "ux" .. "rz" */
const char *mbd_fe_dof_name(int k);

#endif
