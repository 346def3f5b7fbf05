/* mbd — private run structure */
#ifndef MBD_RUN_IMPL_H
#define MBD_RUN_IMPL_H

#include "mbd/model.h"

struct mbd_run {
  int nchan;               /* channels */
  char (*names)[80];       /* nchan names */
  int nsamp, cap;          /* samples recorded, capacity (fixed at the start) */
  double *t;               /* cap sample times */
  double *val;             /* cap × nchan values, row i = sample i */
  mbd_run_stats stats;
  int status;              /* MBD_OK or the failure */
  char message[512];       /* failure message */
  char formulation[32], integrator[16];
  double t_end;            /* requested end time */
};

/* a run sized for cap samples of m's channels; NULL without memory */
mbd_run *mbd_run_alloc(const mbd_model *m, int cap);
/* append a sample of every channel from the state in d; MBD_E_NAN names a non-finite channel */
int mbd_run_record(mbd_run *r, const mbd_model *m, const mbd_data *d, mbd_error *err);

#endif
