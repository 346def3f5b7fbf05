/* mbd — private run structure, and the helpers every driver shares (output grid, clocks) */
#ifndef MBD_RUN_IMPL_H
#define MBD_RUN_IMPL_H

#include "mbd/model.h"

#define MBD_RUN_MAX_WARNINGS 8

struct mbd_run {
  int nchan;               /* channels */
  char (*names)[80];       /* nchan names */
  const char **units;      /* nchan units (static strings, mbd_channel_unit), NULL when unknown */
  int nsamp, cap;          /* samples recorded, capacity (fixed at the start) */
  double *t;               /* cap sample times */
  double *val;             /* cap × nchan values, row i = sample i */
  mbd_run_stats stats;
  int status;              /* MBD_OK or the failure */
  char message[512];       /* failure message */
  char formulation[32], integrator[16];
  double t_end;            /* requested end time */
  double t_stop;           /* where stop_when ended the run, NaN otherwise */
  int nerr;                /* constraints with error measures (mbd.system runs), else 0 */
  double *E1, *E2;         /* nerr RMS errors of each constraint and of its rate (paper 004) */
  int nmf;                 /* manifest entries (manifest.c) */
  struct mbd_run_mf {
    char key[32];          /* MBD_MANIFEST_KEY */
    char value[160];       /* MBD_MANIFEST_VALUE */
  } *mf;                   /* MBD_MANIFEST_MAX entries once the first is set, else NULL */
  int nevent;              /* contact events: time, contact, kind */
  struct mbd_run_event *event;
  int nwarning;            /* warnings of the run (shown once each by the binding) */
  char warning[MBD_RUN_MAX_WARNINGS][256];
  int form;                /* the formulation that ran (mbd_formulation), −1 for other runs */
  char note[512];          /* a choice made for the user (the default's fallback), or "" */
};

/* a contact event of a run */
struct mbd_run_event {
  double t;
  char contact[64];
  char kind[12];
};
/* the contact events logged in d (model m) copied into r; MBD_E_NOMEM */
int mbd_run_set_events(mbd_run *r, const mbd_model *m, const mbd_data *d);

/* a relative tolerance above this accepts errors of its own size: a run warns (every formulation,
 * kinematics aside) */
#define SIM_LOOSE_RTOL 1e-2
/* assembly moving a body farther than this fraction of the model's size, or turning it more than
 * this many radians, is said by the run (the scale of the position tolerance) */
#define SIM_MOVED_REL 1e-6

/* the warnings about the start every run of model m gives: a body that assembly moved or turned
 * from the pose it was given (MSG_SIM_MOVED, MSG_SIM_TURNED), the largest of each */
void mbd_sim_warn_start(const mbd_model *m, mbd_run *r);

/* a warning of the run (printf-style); a repeated text is kept once, at most
 * MBD_RUN_MAX_WARNINGS */
void mbd_run_warn(mbd_run *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* a run sized for cap samples of m's channels; NULL without memory */
mbd_run *mbd_run_alloc(const mbd_model *m, int cap);
/* append a sample of every channel from the state in d; MBD_E_NAN names a non-finite channel */
int mbd_run_record(mbd_run *r, const mbd_model *m, const mbd_data *d, mbd_error *err);

/* a run sized for cap samples of the nchan named channels (names copied); NULL without memory */
mbd_run *mbd_run_alloc_names(int nchan, const char *const *names, int cap);
/* append a sample at t with one value per channel; MBD_E_NAN names a non-finite channel */
int mbd_run_record_values(mbd_run *r, double t, const double *vals, mbd_error *err);
/* store nerr error measures E1, E2 (copied); MBD_E_NOMEM */
int mbd_run_set_errors(mbd_run *r, int nerr, const double *E1, const double *E2);
/* status and message of a finished run */
void mbd_run_finish(mbd_run *r, int status, const mbd_error *err);

/* the output grid 0, h, 2h, …, t_end (t_end always the last point: a grid point within 1e-9·t_end
 * of it is replaced by it); returns the count, or −1 (too many samples, no memory) */
int mbd_sim_grid(double t_end, double h, double **out);
/* the most samples a grid may have */
#define MBD_SIM_MAX_SAMPLES 10000000
/* whether a recorder of cap samples of nchan channels fits mbd_memory_limit(): MBD_OK, or
 * MBD_E_NOMEM with a message naming who asks ("simulate") and the remedy */
int mbd_run_fits(int nchan, int cap, const char *who, const char *remedy, mbd_error *err);
/* driven_steps.c: Φqᵀλ = Q − M v̇ at the evaluated state of d (reactions and efforts) */
int mbd_inverse_dynamics(const mbd_model *m, mbd_data *d, mbd_error *err);
/* driven_steps.c: a kinematic run's recorder (o->steps + 1 samples, if they fit the memory
 * limit) and data for m; MBD_OK, or MBD_E_NOMEM with both NULL */
int mbd_kin_start(const mbd_model *m, const mbd_kin_opts *o, mbd_run **run, mbd_data **d,
                  mbd_error *err);
/* driven_steps.c: an output of a kinematic run at t (d evaluated): the caller's poll (an
 * interrupt), the largest violations so far, the sample recorded; MBD_OK or the first failure */
int mbd_kin_output(const mbd_kin_opts *o, double t, mbd_run *run, const mbd_model *m,
                   const mbd_data *d, double *maxp, double *maxv, mbd_error *err);
/* driven_steps.c: a kinematic run's counters at its end (clocks started at w0, c0; outputs
 * hstep apart; Newton iterations; the largest position and velocity violations) */
void mbd_kin_stats(mbd_run *run, double w0, double c0, double hstep, long newton, double maxp,
                   double maxv);
/* driven_relative.c: mbd_kinematics on the joint coordinates of a spanning tree, m assembled
 * and fully driven */
int mbd_kinematics_relative(mbd_model *m, const mbd_kin_opts *o, mbd_run **out, mbd_error *err);

/* wall-clock time (monotonic) and CPU time of the calling thread, s: clock() ticks too coarsely
 * (milliseconds here) for runs this short, and process time also counts OpenBLAS's idle worker
 * spinning after a LAPACK call at assembly (it doubled the CPU time of millisecond runs); the
 * engine computes on this thread */
double mbd_clock_wall(void);
double mbd_clock_cpu(void);

#endif
