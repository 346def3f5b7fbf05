/* the ops of the Cartesian kernels — augmented, baumgarte, gcp, kane, udwadia_kalaba — by their
 * number (mbd_formulation).  Apart from the whole lookup (lookup.c) because formulation relative
 * solves with one of them: it asks here, below itself, and the lookup of every formulation, which
 * points at relative too, stands above it. */
#include "formulations.h"

static const mbd_form_ops *const ops[MBD_FORM_N] = {[MBD_FORM_AUGMENTED] = &mbd_form_augmented,
                                                    [MBD_FORM_BAUMGARTE] = &mbd_form_baumgarte,
                                                    [MBD_FORM_GCP] = &mbd_form_gcp,
                                                    [MBD_FORM_KANE] = &mbd_form_kane,
                                                    [MBD_FORM_UK] = &mbd_form_udwadia_kalaba};

const mbd_form_ops *mbd_form_kernel(int f) { return (f >= 0 && f < MBD_FORM_N) ? ops[f] : NULL; }
