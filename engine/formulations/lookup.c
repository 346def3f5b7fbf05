/* the ops of every formulation by its number (mbd_formulation), for the driver and the other
 * rooms.  Apart and on top: it points at every formulation (the Cartesian kernels through
 * kernels.c, and relative), so nothing in formulations/ calls it. */
#include "formulations.h"

const mbd_form_ops *mbd_form_lookup(int f) {
  return f == MBD_FORM_RELATIVE ? &mbd_form_relative : mbd_form_kernel(f);
}
