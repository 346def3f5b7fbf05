/* mbd — what a formulation is, as data (engine/formulations/table.c).
 *
 * A formulation is a state layout (what y holds: every coordinate, the independent ones of a
 * partition, or joint coordinates) and a solve kernel, with its capabilities stated here: whether
 * it reads stabilization, holds the constraints by projection, partitions, which linear solvers it
 * takes and what it says about the others, its warnings, its manifest keys and its option
 * defaults.  The driver, the analyses and the binding ask this table instead of testing a
 * formulation's number: a new formulation is its ops file and one entry of the table. */
#ifndef MBD_FORMULATION_H
#define MBD_FORMULATION_H

#include <stddef.h>

#include "mbd/model.h"

/* capabilities (mbd_formulation_info.caps) */
enum {
  MBD_FCAP_STABILIZED = 1 << 0,    /* reads stabilization alpha, beta (its defaults below) */
  MBD_FCAP_STAB_MATRICES = 1 << 1, /* also full stabilization matrices S, T (paper 004 eq 26–27) */
  MBD_FCAP_PARTITIONED = 1 << 2,   /* y holds the independent coordinates of a partition */
  MBD_FCAP_JOINT_COORDS = 1 << 3,  /* joint coordinates of a spanning tree (cut, solver, code;
                                      runs the generated code of the others too) */
  MBD_FCAP_WRAPPED = 1 << 4,       /* may solve for the joint-coordinate formulation (solver = ) */
  MBD_FCAP_EXPORTED = 1 << 5,      /* export_c writes its solve (solver = ) */
  MBD_FCAP_SYSTEM = 1 << 6,        /* runs coordinate-level systems (mbd.system) */
  MBD_FCAP_DEFAULT = 1 << 7,       /* the default where it serves the model */
  MBD_FCAP_FALLBACK = 1 << 8       /* the default where that one does not serve */
};

/* manifest keys a run of it records besides the common ones (mbd_formulation_info.manifest) */
enum {
  MBD_FMAN_POSITION_TOL = 1 << 0, /* position_tol: its analyses hold the constraints to it */
  MBD_FMAN_STABILIZATION = 1 << 1 /* stabilization: alpha and beta, or S and T */
};

typedef struct mbd_formulation_info {
  int id;             /* mbd_formulation */
  const char *name;   /* the DSL's name (formulation = "..."): a stable contract */
  const char *state;  /* its state layout: "cartesian" y = [q; v], "partitioned" y = [q_i; v_i],
                         "joint" (one of the others' on a tree's joint coordinates) */
  const char *kernel; /* its solve for the accelerations */
  unsigned caps;      /* MBD_FCAP_* */
  unsigned manifest;  /* MBD_FMAN_* */
  double alpha, beta; /* its stabilization when none is given (MBD_FCAP_STABILIZED) */
  unsigned linear_solvers; /* (1 << MBD_LINSOLVE_*) for each linear_solver it takes */
  /* why it refuses the others: a message template, %s the refused solver's name */
  const char *linear_solver_refused;
  int solver;       /* the formulation it solves with by default (joint coordinates), else −1 */
  int without_rows; /* the formulation that runs for it on a model without constraint rows
                       (a partition of nothing: the augmented solve), else itself */
  /* warnings of a run that succeeded, NULL when it has none: */
  const char *drift;         /* positions drifted past position_tol: the largest violation,
                                position_tol, alpha, beta */
  const char *drift_default; /* the same when the default chose it (NULL: drift) */
  const char *near_singular; /* passed near a singular configuration without its passage in
                                partitioned coordinates: the name, t, pivot ratio */
} mbd_formulation_info;

/* the descriptor of formulation f (mbd_formulation), NULL outside the table */
const mbd_formulation_info *mbd_formulation_info_of(int f);
/* the descriptor named name, NULL for an unknown name */
const mbd_formulation_info *mbd_formulation_find(const char *name);
/* 1 when formulation f has every capability of caps (0 for a number outside the table) */
int mbd_formulation_has(int f, unsigned caps);
/* the first formulation with every capability of caps, −1 when none has them */
int mbd_formulation_with(unsigned caps);
/* the names of the formulations with every capability of caps (0: all), in the table's order,
 * joined by ", " into buf (len bytes); buf */
const char *mbd_formulation_names(char *buf, size_t len, unsigned caps);
/* 1 when formulation f (MBD_FORM_DEFAULT: the default) takes linear_solver ls; else 0 with the
 * table's message in why (len bytes) */
int mbd_formulation_takes(int f, int ls, char *why, size_t len);

#endif
