/* the formulations' table: each one's descriptor (mbd/formulation.h) — its state layout, solve
 * kernel, capabilities, option defaults, linear solvers, warnings and manifest keys — with the
 * names of formulations, codes and linear solvers.  Everything outside formulations/ that depends
 * on which formulation runs asks this table; a new formulation is its ops file, one entry here and
 * one in the ops lookup (kernels.c or lookup.c).  Apart from the ops, which point at every
 * formulation: the formulations read their names here, so the table calls none of them. */
#include <stdio.h>
#include <string.h>

#include "formulations.h"
#include "formulations_msg.h"
#include "mbd/formulation.h"

#define LS(s) (1u << (s))
/* the Cartesian formulations' linear solvers: the leading matrix (and Φ_qd) dense or sparse */
#define LS_CARTESIAN (LS(MBD_LINSOLVE_AUTO) | LS(MBD_LINSOLVE_DENSE) | LS(MBD_LINSOLVE_SPARSE))
/* the mbd_sim_opts defaults of alpha and beta (mbd_sim_opts_default): baumgarte's */
#define BAUMGARTE_ALPHA 5
#define BAUMGARTE_BETA 5

/* in the order of mbd_formulation (its numbers index the table) */
static const mbd_formulation_info table[MBD_FORM_N] = {
    [MBD_FORM_AUGMENTED] = {.id = MBD_FORM_AUGMENTED,
                            .name = "augmented",
                            .state = "cartesian",
                            .kernel = "augmented",
                            .caps = MBD_FCAP_WRAPPED | MBD_FCAP_EXPORTED,
                            .linear_solvers = LS_CARTESIAN,
                            .linear_solver_refused = MSG_FORM_LINSOLVE_CARTESIAN,
                            .solver = -1,
                            .without_rows = MBD_FORM_AUGMENTED,
                            .drift = MSG_FORM_DRIFT_AUGMENTED,
                            .near_singular = MSG_FORM_NEAR_SINGULAR},
    [MBD_FORM_BAUMGARTE] = {.id = MBD_FORM_BAUMGARTE,
                            .name = "baumgarte",
                            .state = "cartesian",
                            .kernel = "baumgarte",
                            .caps = MBD_FCAP_STABILIZED | MBD_FCAP_WRAPPED | MBD_FCAP_EXPORTED |
                                    MBD_FCAP_FALLBACK,
                            .manifest = MBD_FMAN_STABILIZATION,
                            .alpha = BAUMGARTE_ALPHA,
                            .beta = BAUMGARTE_BETA,
                            .linear_solvers = LS_CARTESIAN,
                            .linear_solver_refused = MSG_FORM_LINSOLVE_CARTESIAN,
                            .solver = -1,
                            .without_rows = MBD_FORM_BAUMGARTE,
                            .drift = MSG_FORM_DRIFT_BAUMGARTE,
                            .drift_default = MSG_FORM_DRIFT_BAUMGARTE_DEFAULT,
                            .near_singular = MSG_FORM_NEAR_SINGULAR},
    [MBD_FORM_GCP] = {.id = MBD_FORM_GCP,
                      .name = "gcp",
                      .state = "partitioned",
                      .kernel = "gcp",
                      .caps = MBD_FCAP_PARTITIONED | MBD_FCAP_WRAPPED,
                      .manifest = MBD_FMAN_POSITION_TOL,
                      .linear_solvers = LS_CARTESIAN,
                      .linear_solver_refused = MSG_FORM_LINSOLVE_CARTESIAN,
                      .solver = -1,
                      .without_rows = MBD_FORM_AUGMENTED},
    [MBD_FORM_KANE] = {.id = MBD_FORM_KANE,
                       .name = "kane",
                       .state = "partitioned",
                       .kernel = "kane",
                       .caps = MBD_FCAP_PARTITIONED | MBD_FCAP_WRAPPED | MBD_FCAP_DEFAULT,
                       .manifest = MBD_FMAN_POSITION_TOL,
                       .linear_solvers = LS_CARTESIAN,
                       .linear_solver_refused = MSG_FORM_LINSOLVE_CARTESIAN,
                       .solver = -1,
                       .without_rows = MBD_FORM_AUGMENTED},
    /* the plain equation 5 unless stabilization is given */
    [MBD_FORM_UK] = {.id = MBD_FORM_UK,
                     .name = "udwadia_kalaba",
                     .state = "cartesian",
                     .kernel = "udwadia_kalaba",
                     .caps = MBD_FCAP_STABILIZED | MBD_FCAP_STAB_MATRICES | MBD_FCAP_SYSTEM,
                     .manifest = MBD_FMAN_STABILIZATION,
                     .alpha = 0,
                     .beta = 0,
                     .linear_solvers = LS_CARTESIAN,
                     .linear_solver_refused = MSG_FORM_LINSOLVE_CARTESIAN,
                     .solver = -1,
                     .without_rows = MBD_FORM_UK},
    /* the paper's CVSM unless stabilization is given; closed loops by partitioning (kane) */
    [MBD_FORM_RELATIVE] = {.id = MBD_FORM_RELATIVE,
                           .name = "relative",
                           .state = "joint",
                           .kernel = "the solver's, on M̄ = BᵀMB (dense) or the recursion",
                           .caps = MBD_FCAP_STABILIZED | MBD_FCAP_JOINT_COORDS,
                           .manifest = MBD_FMAN_POSITION_TOL,
                           .alpha = MBD_RELATIVE_ALPHA,
                           .beta = MBD_RELATIVE_BETA,
                           .linear_solvers = LS(MBD_LINSOLVE_AUTO) | LS(MBD_LINSOLVE_DENSE) |
                                             LS(MBD_LINSOLVE_RECURSIVE),
                           .linear_solver_refused = MSG_FORM_REL_LINSOLVE,
                           .solver = MBD_FORM_KANE,
                           .without_rows = MBD_FORM_RELATIVE},
};

const mbd_formulation_info *mbd_formulation_info_of(int f) {
  return (f >= 0 && f < MBD_FORM_N) ? &table[f] : NULL;
}

const mbd_formulation_info *mbd_formulation_find(const char *name) {
  for (int f = 0; name && f < MBD_FORM_N; f++) {
    if (strcmp(name, table[f].name) == 0) {
      return &table[f];
    }
  }
  return NULL;
}

const char *mbd_formulation_name(int f) {
  const mbd_formulation_info *fi = mbd_formulation_info_of(f);
  return fi ? fi->name : NULL;
}

int mbd_formulation_from_name(const char *name) {
  const mbd_formulation_info *fi = mbd_formulation_find(name);
  return fi ? fi->id : -1;
}

int mbd_formulation_has(int f, unsigned caps) {
  const mbd_formulation_info *fi = mbd_formulation_info_of(f);
  return fi && (fi->caps & caps) == caps;
}

int mbd_formulation_with(unsigned caps) {
  for (int f = 0; f < MBD_FORM_N; f++) {
    if ((table[f].caps & caps) == caps) {
      return f;
    }
  }
  return -1;
}

const char *mbd_formulation_names(char *buf, size_t len, unsigned caps) {
  size_t at = 0;
  if (len > 0) {
    buf[0] = 0;
  }
  for (int f = 0; f < MBD_FORM_N; f++) {
    if ((table[f].caps & caps) == caps && at < len) {
      int k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", table[f].name);
      at += k > 0 ? (size_t)k : 0;
    }
  }
  return buf;
}

int mbd_formulation_takes(int f, int ls, char *why, size_t len) {
  const mbd_formulation_info *fi =
      mbd_formulation_info_of(f == MBD_FORM_DEFAULT ? mbd_formulation_with(MBD_FCAP_DEFAULT) : f);
  if (!fi || ls < 0 || ls >= MBD_LINSOLVE_N || (fi->linear_solvers & LS(ls))) {
    return 1;  // (an unknown formulation or solver is refused where it is read)
  }
  snprintf(why, len, fi->linear_solver_refused, mbd_linear_solver_name(ls));
  return 0;
}

const char *mbd_code_name(int code) {
  static const char *const names[MBD_CODE_N] = {"numeric", "tape", "compiled"};
  return (code >= 0 && code < MBD_CODE_N) ? names[code] : NULL;
}

int mbd_code_from_name(const char *name) {
  for (int c = 0; c < MBD_CODE_N; c++) {
    if (strcmp(name, mbd_code_name(c)) == 0) {
      return c;
    }
  }
  return -1;
}

const char *mbd_linear_solver_name(int s) {
  static const char *const names[MBD_LINSOLVE_N] = {"auto", "dense", "sparse", "recursive"};
  return (s >= 0 && s < MBD_LINSOLVE_N) ? names[s] : NULL;
}

int mbd_linear_solver_from_name(const char *name) {
  for (int s = 0; s < MBD_LINSOLVE_N; s++) {
    if (strcmp(name, mbd_linear_solver_name(s)) == 0) {
      return s;
    }
  }
  return -1;
}
