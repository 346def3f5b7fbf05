/* the run object: recorded channels on a time grid, statistics, status; the output grid and the
 * clocks every driver shares */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/model_impl.h"
#include "mbd/output.h"
#include "mbd/text.h"
#include "run_impl.h"
#include "sim_msg.h"

int mbd_sim_grid(double t_end, double h, double **out) {
  double cnt = floor(t_end / h + 1e-9);
  if (!(cnt < MBD_SIM_MAX_SAMPLES)) {
    return -1;
  }
  int n = (int)cnt + 1;
  int extra = fabs(cnt * h - t_end) > 1e-9 * t_end ? 1 : 0;
  double *g = malloc((size_t)(n + extra) * sizeof(double));
  if (!g) {
    return -1;
  }
  for (int i = 0; i < n; i++) {
    g[i] = i * h;
  }
  g[n + extra - 1] = t_end;
  *out = g;
  return n + extra;
}

double mbd_clock_wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mbd_clock_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mbd_run_warn(mbd_run *r, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (int i = 0; i < r->nwarning; i++) {
    if (strcmp(r->warning[i], buf) == 0) {
      return;
    }
  }
  if (r->nwarning < MBD_RUN_MAX_WARNINGS) {
    memcpy(r->warning[r->nwarning++], buf, sizeof buf);
  }
}

const char *mbd_run_note(const mbd_run *r) { return (r && r->note[0]) ? r->note : NULL; }

int mbd_run_formulation_kind(const mbd_run *r) { return r ? r->form : -1; }

const char *mbd_run_warning(const mbd_run *r, int i) {
  return (r && i >= 0 && i < r->nwarning) ? r->warning[i] : NULL;
}

void mbd_run_finish(mbd_run *r, int status, const mbd_error *err) {
  r->status = status;
  if (status < 0 && err) {
    snprintf(r->message, sizeof r->message, "%s", err->msg);
  }
}

int mbd_run_fits(int nchan, int cap, const char *who, const char *remedy, mbd_error *err) {
  // the times and values of every sample, and the channel names
  double bytes = (double)cap * (double)(nchan + 1) * sizeof(double) +
                 (double)nchan * sizeof(((mbd_run *)0)->names[0]);
  double limit = mbd_memory_limit();
  if (limit > 0 && bytes > limit) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_RECORDER_TOO_LARGE, who, cap, nchan, bytes / 1e9,
                    limit / 1e9, remedy);
  }
  return MBD_OK;
}

mbd_run *mbd_run_alloc(const mbd_model *m, int cap) {
  mbd_run *r = calloc(1, sizeof *r);
  if (!r) {
    return NULL;
  }
  r->nchan = m->nchannel;
  r->t_stop = NAN;
  r->form = -1;
  r->cap = cap > 0 ? cap : 1;
  r->names = calloc((size_t)(r->nchan ? r->nchan : 1), sizeof *r->names);
  r->t = calloc((size_t)r->cap, sizeof(double));
  r->val = calloc((size_t)r->cap * (size_t)(r->nchan ? r->nchan : 1), sizeof(double));
  if (!r->names || !r->t || !r->val) {
    mbd_run_free(r);
    return NULL;
  }
  r->units = calloc((size_t)(r->nchan ? r->nchan : 1), sizeof *r->units);
  if (!r->units) {
    mbd_run_free(r);
    return NULL;
  }
  for (int c = 0; c < r->nchan; c++) {
    mbd_text_join(r->names[c], sizeof r->names[c], m->channel[c].name, NULL, NULL);
    r->units[c] = mbd_channel_unit(m, c);
  }
  return r;
}

mbd_run *mbd_run_alloc_names(int nchan, const char *const *names, int cap) {
  mbd_run *r = calloc(1, sizeof *r);
  if (!r) {
    return NULL;
  }
  r->nchan = nchan;
  r->t_stop = NAN;
  r->form = -1;
  r->cap = cap > 0 ? cap : 1;
  r->names = calloc((size_t)(nchan ? nchan : 1), sizeof *r->names);
  r->t = calloc((size_t)r->cap, sizeof(double));
  r->val = calloc((size_t)r->cap * (size_t)(nchan ? nchan : 1), sizeof(double));
  if (!r->names || !r->t || !r->val) {
    mbd_run_free(r);
    return NULL;
  }
  for (int c = 0; c < nchan; c++) {
    snprintf(r->names[c], sizeof r->names[c], "%s", names[c]);
  }
  return r;
}

int mbd_run_record_values(mbd_run *r, double t, const double *vals, mbd_error *err) {
  if (r->nsamp >= r->cap) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_SIM_RECORDER_FULL, t, r->cap);
  }
  double *row = r->val + (size_t)r->nsamp * r->nchan;
  for (int c = 0; c < r->nchan; c++) {
    row[c] = vals[c];
    if (!isfinite(row[c])) {
      return MBD_FAIL(err, MBD_E_NAN, MSG_SIM_CHANNEL_NAN, r->names[c], row[c], t);
    }
  }
  r->t[r->nsamp++] = t;
  return MBD_OK;
}

int mbd_run_set_errors(mbd_run *r, int nerr, const double *E1, const double *E2) {
  free(r->E1);
  free(r->E2);
  r->nerr = 0;
  r->E1 = calloc((size_t)(nerr ? nerr : 1), sizeof(double));
  r->E2 = calloc((size_t)(nerr ? nerr : 1), sizeof(double));
  if (!r->E1 || !r->E2) {
    return MBD_E_NOMEM;
  }
  memcpy(r->E1, E1, (size_t)nerr * sizeof(double));
  memcpy(r->E2, E2, (size_t)nerr * sizeof(double));
  r->nerr = nerr;
  return MBD_OK;
}

int mbd_run_nerrors(const mbd_run *r) { return r->nerr; }
double mbd_run_E1(const mbd_run *r, int i) { return (i >= 0 && i < r->nerr) ? r->E1[i] : NAN; }
double mbd_run_E2(const mbd_run *r, int i) { return (i >= 0 && i < r->nerr) ? r->E2[i] : NAN; }

int mbd_run_set_events(mbd_run *r, const mbd_model *m, const mbd_data *d) {
  static const char *const kinds[] = {"stick", "slip", "separate", "impact"};
  if (d->nevlog == 0) {
    return MBD_OK;
  }
  r->event = calloc((size_t)d->nevlog, sizeof *r->event);
  if (!r->event) {
    return MBD_E_NOMEM;
  }
  r->nevent = d->nevlog;
  for (int i = 0; i < d->nevlog; i++) {
    const mbd_contact_event_rec *e = &d->evlog[i];
    r->event[i].t = e->t;
    // a contact, or a frictional joint after the contacts
    const char *who = e->contact < m->ncontact
                          ? m->contact[e->contact].name
                          : m->joint[m->jfric[e->contact - m->ncontact].joint].name;
    snprintf(r->event[i].contact, sizeof r->event[i].contact, "%s", who);
    snprintf(r->event[i].kind, sizeof r->event[i].kind, "%s", kinds[e->kind & 3]);
  }
  return MBD_OK;
}

int mbd_run_nevent(const mbd_run *r) { return r->nevent; }

int mbd_run_event(const mbd_run *r, int i, double *t, const char **contact, const char **kind) {
  if (i < 0 || i >= r->nevent) {
    return MBD_E_INPUT;
  }
  *t = r->event[i].t;
  *contact = r->event[i].contact;
  *kind = r->event[i].kind;
  return MBD_OK;
}

void mbd_run_free(mbd_run *r) {
  if (!r) {
    return;
  }
  free(r->E1);
  free(r->E2);
  free(r->event);
  free(r->names);
  free(r->units);
  free(r->t);
  free(r->val);
  free(r->mf);
  free(r);
}

int mbd_run_record(mbd_run *r, const mbd_model *m, const mbd_data *d, mbd_error *err) {
  if (r->nsamp >= r->cap) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_SIM_RECORDER_FULL, d->t, r->cap);
  }
  double *row = r->val + (size_t)r->nsamp * r->nchan;
  for (int c = 0; c < r->nchan; c++) {
    row[c] = mbd_channel_value(m, d, c, NULL);
    if (!isfinite(row[c])) {
      return MBD_FAIL(err, MBD_E_NAN, MSG_SIM_CHANNEL_NAN, r->names[c], row[c], d->t);
    }
  }
  r->t[r->nsamp++] = d->t;
  return MBD_OK;
}

int mbd_run_nchannel(const mbd_run *r) { return r->nchan; }
const char *mbd_run_channel_name(const mbd_run *r, int c) {
  return (c >= 0 && c < r->nchan) ? r->names[c] : NULL;
}
const char *mbd_run_channel_unit(const mbd_run *r, int c) {
  return (r->units && c >= 0 && c < r->nchan && r->units[c]) ? r->units[c] : "";
}
int mbd_run_find(const mbd_run *r, const char *name) {
  for (int c = 0; c < r->nchan; c++) {
    if (strcmp(r->names[c], name) == 0) {
      return c;
    }
  }
  return -1;
}
int mbd_run_nsample(const mbd_run *r) { return r->nsamp; }
const double *mbd_run_times(const mbd_run *r) { return r->t; }
double mbd_run_sample(const mbd_run *r, int c, int i) { return r->val[(size_t)i * r->nchan + c]; }
const mbd_run_stats *mbd_run_get_stats(const mbd_run *r) { return &r->stats; }
int mbd_run_status(const mbd_run *r) { return r->status; }
const char *mbd_run_message(const mbd_run *r) { return r->message; }
const char *mbd_run_formulation(const mbd_run *r) { return r->formulation; }
const char *mbd_run_integrator(const mbd_run *r) { return r->integrator; }
double mbd_run_t_end(const mbd_run *r) { return r->t_end; }
double mbd_run_stop_time(const mbd_run *r) { return r->t_stop; }

void mbd_run_series(const mbd_run *r, int c, double *out) {
  for (int i = 0; i < r->nsamp; i++) {
    out[i] = mbd_run_sample(r, c, i);
  }
}

double mbd_run_value(const mbd_run *r, int c, double t, int *ok) {
  *ok = 0;
  int n = r->nsamp;
  if (n == 0 || c < 0 || c >= r->nchan || !(t >= r->t[0] - 1e-12) ||
      !(t <= r->t[n - 1] + 1e-12)) {
    return NAN;
  }
  *ok = 1;
  if (n == 1 || t <= r->t[0]) {
    return mbd_run_sample(r, c, 0);
  }
  if (t >= r->t[n - 1]) {
    return mbd_run_sample(r, c, n - 1);
  }
  // bisection for the interval [t_lo, t_hi] containing t
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (r->t[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double s = (t - r->t[lo]) / (r->t[hi] - r->t[lo]);
  return (1 - s) * mbd_run_sample(r, c, lo) + s * mbd_run_sample(r, c, hi);
}

int mbd_run_write_csv(const mbd_run *r, const char *file, const char *const *names, int nnames,
                      mbd_error *err) {
  int nc = names ? nnames : r->nchan;
  const char **hdr = calloc((size_t)nc + 1, sizeof *hdr);
  double *cols = calloc(((size_t)nc + 1) * (size_t)(r->nsamp ? r->nsamp : 1), sizeof(double));
  const double **colp = calloc((size_t)nc + 1, sizeof *colp);
  if (!hdr || !cols || !colp) {
    free(hdr);
    free(cols);
    free(colp);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "write_csv");
  }
  hdr[0] = "t";
  colp[0] = r->t;
  int rc = MBD_OK;
  for (int k = 0; k < nc; k++) {
    int c = names ? mbd_run_find(r, names[k]) : k;
    if (c < 0) {
      rc = MBD_FAIL(err, MBD_E_INPUT, MSG_SIM_NO_CHANNEL, names[k]);
      break;
    }
    hdr[k + 1] = r->names[c];
    double *col = cols + (size_t)k * r->nsamp;
    mbd_run_series(r, c, col);
    colp[k + 1] = col;
  }
  // the run's manifest as "# key: value" lines above the header
  char *comment = NULL;
  if (rc == MBD_OK && r->nmf > 0) {
    size_t len = (size_t)r->nmf * (sizeof r->mf[0] + 4) + 1;
    comment = malloc(len);
    if (!comment) {
      rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_SIM_NOMEM, "write_csv");
    } else {
      size_t at = 0;
      for (int i = 0; i < r->nmf; i++) {
        at += (size_t)snprintf(comment + at, len - at, "%s: %s\n", r->mf[i].key, r->mf[i].value);
      }
    }
  }
  if (rc == MBD_OK) {
    rc = mbd_csv_write_commented(file, comment, nc + 1, hdr, colp, r->nsamp, err);
  }
  free(comment);
  free(hdr);
  free(cols);
  free(colp);
  return rc;
}

void mbd_sim_warn_start(const mbd_model *m, mbd_run *r) {
  // the model's size sets what counts as a move: 1e-6 of it, the scale of position_tol
  if (m->moved_dist_body > 0 && m->moved_dist > SIM_MOVED_REL * m->size) {
    mbd_run_warn(r, MSG_SIM_MOVED, m->body[m->moved_dist_body].name, m->moved_dist, m->size);
  }
  if (m->moved_angle_body > 0 && m->moved_angle > SIM_MOVED_REL) {
    mbd_run_warn(r, MSG_SIM_TURNED, m->body[m->moved_angle_body].name,
                 m->moved_angle * 180 / 3.14159265358979323846);
  }
}
