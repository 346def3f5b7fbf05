/* the modes a flexible body uses (mbd_modes_select): the selection, each shape scaled to a unit
 * largest nodal translation (or rotation, for a pure torsion mode) so that a modal coordinate
 * reads as a deflection in metres, the modal stiffness (2πf)² and damping 2ζω in those
 * coordinates, the lumped rotary inertias kept or dropped, and the geometric stiffness */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fem_impl.h"
#include "fem_msg.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void mbd_modal_set_free(mbd_modal_set *set) {
  if (!set) {
    return;
  }
  free(set->rot);
  free(set->shape);
  free(set->scale);
  free(set->kmodal);
  free(set->dmodal);
  free(set->gmodal);
  free(set->label);
  free(set);
}

int mbd_modes_select(const mbd_modes *mo, const int *sel, int nsel, const double *zeta, int rotary,
                     int geometric, mbd_modal_set **out, mbd_error *err) {
  *out = NULL;
  for (int k = 0; k < nsel; k++) {
    if (sel[k] < 1 || sel[k] > mo->nmode) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_SELECT, sel[k], mo->nmode);
    }
    if (zeta && (!(zeta[k] >= 0) || !isfinite(zeta[k]))) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_FEM_DAMPING, sel[k]);
    }
  }
  int N = mo->nnode, n6 = 6 * N;
  size_t K = (size_t)(nsel ? nsel : 1);
  mbd_modal_set *set = calloc(1, sizeof *set);
  if (set) {
    set->nnode = N;
    set->nmode = nsel;
    set->xyz = mo->xyz;
    set->mass = mo->mass;
    set->rot = calloc(3 * (size_t)N, sizeof(double));
    set->shape = calloc((size_t)n6 * K, sizeof(double));
    set->scale = calloc(K, sizeof(double));
    set->kmodal = calloc(K * K, sizeof(double));
    set->dmodal = zeta ? calloc(K * K, sizeof(double)) : NULL;
    set->gmodal = geometric ? calloc(K * K, sizeof(double)) : NULL;
    set->label = calloc(K, sizeof *set->label);
  }
  if (!set || !set->rot || !set->shape || !set->scale || !set->kmodal || (zeta && !set->dmodal) ||
      (geometric && !set->gmodal) || !set->label) {
    mbd_modal_set_free(set);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_FEM_NOMEM, "flexible_body");
  }
  if (rotary) {
    memcpy(set->rot, mo->rot, 3 * (size_t)N * sizeof(double));
  }
  // the model's size: how far from its centroid a node can be (rotations compare with
  // translations through it)
  double c[3] = {0, 0, 0}, ext = 0;
  for (int i = 0; i < N; i++) {
    for (int d = 0; d < 3; d++) {
      c[d] += mo->xyz[3 * i + d] / N;
    }
  }
  for (int i = 0; i < N; i++) {
    for (int d = 0; d < 3; d++) {
      ext = fmax(ext, fabs(mo->xyz[3 * i + d] - c[d]));
    }
  }
  ext = ext > 0 ? ext : 1;
  for (int k = 0; k < nsel; k++) {
    int j = sel[k] - 1;
    const double *phi = mo->shape + (size_t)j * n6;
    double t = 0, r = 0;
    for (int i = 0; i < N; i++) {
      for (int d = 0; d < 3; d++) {
        t = fmax(t, fabs(phi[6 * i + d]));
        r = fmax(r, fabs(phi[6 * i + 3 + d]));
      }
    }
    // translation-scaled unless the mode barely translates (torsion of a beam: roundoff only)
    double s = t >= 1e-6 * r * ext ? 1 / t : (r > 0 ? 1 / r : 1);
    set->scale[k] = s;
    for (int i = 0; i < n6; i++) {
      set->shape[(size_t)k * n6 + i] = s * phi[i];
    }
    double w = 2 * M_PI * mo->freq[j], gm = mo->gmass[j] * s * s;
    set->kmodal[k + K * k] = w * w * gm;
    if (zeta) {
      set->dmodal[k + K * k] = 2 * zeta[k] * w * gm;
    }
    snprintf(set->label[k], sizeof set->label[k], "mode %d (%s, %.4g Hz)", sel[k],
             mbd_mode_kind_name(mo->kind[j]), mo->freq[j]);
  }
  if (geometric && nsel > 0) {
    int rc = mbd_modes_geometric(mo, set->shape, nsel, set->gmodal, err);
    if (rc != MBD_OK) {
      mbd_modal_set_free(set);
      return rc;
    }
  }
  *out = set;
  return MBD_OK;
}
