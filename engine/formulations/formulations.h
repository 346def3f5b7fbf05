/* mbd — private interface of the formulations */
#ifndef MBD_FORMULATIONS_H
#define MBD_FORMULATIONS_H

#include "../model/model_impl.h"

/* γ* = γ − 2α Φ̇ − β² Φ on the active rows (constraints evaluated and gathered) */
void mbd_baumgarte_gamma(const mbd_model *m, const mbd_data *d, double alpha, double beta,
                         double *gstar);

#endif
