/* what leaves a linearization: its matrices in a file, and a mode as a run to animate */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/run_impl.h"
#include "linear_impl.h"
#include "mbd/fileout.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* the name of state k: the coordinate, or its rate "<coordinate>_dot" */
static void state_name(const mbd_linear *l, int k, char *buf, size_t len) {
  if (k < l->f) {
    snprintf(buf, len, "%s", l->coord[k]);
  } else {
    snprintf(buf, len, "%s_dot", l->coord[k - l->f]);
  }
}

/* entry (i, j) of the packed matrix [A B; C D] */
static double packed(const mbd_linear *l, int i, int j) {
  int nx = l->nx;
  if (i < nx) {
    return j < nx ? MBD_AT(l->A, nx, i, j) : MBD_AT(l->B, nx, i, j - nx);
  }
  return j < nx ? MBD_AT(l->C, l->ny, i - nx, j) : MBD_AT(l->D, l->ny, i - nx, j - nx);
}

/* a CSV field: quoted when it holds a comma or a quote */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') {
      fputc('"', f);
    }
    fputc(*s, f);
  }
  fputc('"', f);
}

int mbd_linear_write(const mbd_linear *l, const char *file, int format,
                     const char *const *input_names, const char *const *output_names,
                     mbd_error *err) {
  if (format != 0 && format != 1) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_WRITE_FORMAT, format);
  }
  mbd_out o;
  int rc = mbd_out_open(&o, "linearize", file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  FILE *f = o.f;
  int rows = l->nx + l->ny, cols = l->nx + l->nu;
  char nm[MBD_LIN_NAME + 8];
  if (format == 0) {
    // Matrix Market, dense ("array", column-major): the packed state-space matrix [A B; C D]
    fprintf(f, "%%%%MatrixMarket matrix array real general\n");
    fprintf(f, "%% mbd linearization at t = %.17g: [A B; C D], x' = A x + B u, y = C x + D u\n",
            l->t);
    fprintf(f, "%% %d states, %d inputs, %d outputs\n", l->nx, l->nu, l->ny);
    for (int k = 0; k < l->nx; k++) {
      state_name(l, k, nm, sizeof nm);
      fprintf(f, "%% state %d: %s\n", k + 1, nm);
    }
    for (int k = 0; k < l->nu; k++) {
      fprintf(f, "%% input %d: %s\n", k + 1, input_names ? input_names[k] : "u");
    }
    for (int k = 0; k < l->ny; k++) {
      fprintf(f, "%% output %d: %s\n", k + 1, output_names ? output_names[k] : "y");
    }
    fprintf(f, "%d %d\n", rows, cols);
    for (int j = 0; j < cols; j++) {
      for (int i = 0; i < rows; i++) {
        fprintf(f, "%.17g\n", packed(l, i, j));
      }
    }
  } else {
    // CSV: the packed matrix with its rows and columns named
    fputs("row", f);
    for (int j = 0; j < cols; j++) {
      fputc(',', f);
      if (j < l->nx) {
        state_name(l, j, nm, sizeof nm);
        csv_field(f, nm);
      } else {
        csv_field(f, input_names ? input_names[j - l->nx] : "u");
      }
    }
    fputc('\n', f);
    for (int i = 0; i < rows; i++) {
      if (i < l->nx) {
        state_name(l, i, nm, sizeof nm);
        snprintf(nm + strlen(nm), sizeof nm - strlen(nm), "'");
        csv_field(f, nm);
      } else {
        csv_field(f, output_names ? output_names[i - l->nx] : "y");
      }
      for (int j = 0; j < cols; j++) {
        fprintf(f, ",%.17g", packed(l, i, j));
      }
      fputc('\n', f);
    }
  }
  return mbd_out_commit(&o, err);
}

int mbd_linear_mode_run(const mbd_model *m, const mbd_linear *l, int k, double amplitude,
                        double cycles, int steps, int (*poll)(void *ud, double t, mbd_error *err),
                        void *poll_ud, mbd_run **out, mbd_error *err) {
  *out = NULL;
  if (!m->assembled || m->nq != l->nq || m->nv != l->nv || m->njoint != l->njoint) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_CHANGED, m->name);
  }
  if (k < 0 || k >= l->nmode) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_MODE, k + 1, l->nmode);
  }
  steps = steps > 0 ? steps : 40;
  cycles = cycles > 0 ? cycles : 2;
  const char **cut = NULL;
  int ncut = l->opts.ncut;
  if (ncut > 0) {
    cut = calloc((size_t)ncut, sizeof *cut);
    if (!cut) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
    }
    for (int i = 0; i < ncut; i++) {
      cut[i] = l->cut[i];
    }
  }
  lin_sys s;
  int analytic = l->method == MBD_LIN_ANALYTIC;
  int rc = lin_sys_open(&s, "linearize", m, l->q0, l->v0, l->memo0, l->t, l->formulation, analytic,
                        analytic ? MBD_CODE_TAPE : MBD_CODE_NUMERIC, cut, ncut, err);
  free(cut);
  if (rc == MBD_OK && s.f != l->f) {
    rc = MBD_FAIL(err, MBD_E_INPUT, MSG_LIN_CHANGED, m->name);
  }
  const mbd_lin_mode *md = &l->mode[k];
  int nx = l->nx, f = l->f;
  const double *vr = l->vre + (size_t)md->eig * nx, *vi = l->vim + (size_t)md->eig * nx;
  // the period shown: the damped oscillation's, or a second for a real or rigid mode
  double w = md->kind == MBD_MODE_OSCILLATORY && md->im > 0 ? md->im : 2 * M_PI;
  double T = 2 * M_PI / w;
  if (!(amplitude > 0)) {
    double big = 0;
    for (int i = 0; rc == MBD_OK && i < f; i++) {
      big = fmax(big, hypot(vr[i], vi[i]) / s.scale[lin_sys_icoord(&s, i)]);
    }
    amplitude = big > 0 ? 0.1 / big : 0;
  }
  int ns = (int)ceil(cycles * steps) + 1;
  mbd_run *run = rc == MBD_OK ? mbd_run_alloc(m, ns) : NULL;
  double *x = calloc((size_t)nx, sizeof(double));
  if (rc == MBD_OK && (!run || !x)) {
    rc = MBD_FAIL(err, MBD_E_NOMEM, MSG_LIN_NOMEM, "linearize");
  }
  if (run) {
    snprintf(run->formulation, sizeof run->formulation, "mode %d", k + 1);
    snprintf(run->integrator, sizeof run->integrator, "linearize");
    run->t_end = (ns - 1) * T / steps;
  }
  for (int i = 0; rc == MBD_OK && i < ns; i++) {
    double t = i * T / steps;
    if (poll && (rc = poll(poll_ud, t, err)) < 0) {
      break;
    }
    double c = cos(w * t), sn = sin(w * t);
    for (int j = 0; j < nx; j++) {
      double dx = md->kind == MBD_MODE_OSCILLATORY ? vr[j] * c - vi[j] * sn : vr[j] * sn;
      x[j] = l->x0[j] + amplitude * dx;
    }
    rc = lin_sys_complete(&s, x, err);
    if (rc == MBD_OK) {
      rc = lin_sys_cartesian(&s, s.d, s.dc, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_eval_to(m, s.dc, MBD_STAGE_FORCES, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_dynamics_augmented(m, s.dc, s.dc->gamma_a, err);
      rc = rc == MBD_RESELECTED ? mbd_dynamics_augmented(m, s.dc, s.dc->gamma_a, err) : rc;
    }
    if (rc == MBD_OK) {
      s.dc->t = t;
      rc = mbd_run_record(run, m, s.dc, err);
    }
  }
  if (run) {
    mbd_run_finish(run, rc, err);
  }
  free(x);
  lin_sys_close(&s);
  if (rc != MBD_OK) {
    mbd_run_free(run);
    return rc;
  }
  *out = run;
  return MBD_OK;
}
