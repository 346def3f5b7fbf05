/* MuJoCo driver of scripts/bench/peers.lua: loads an MJCF model written by that script (planar
 * bodies turning about z on hinges, qpos0 the initial state, integrator RK4), steps it with a fixed
 * step and prints the absolute angle of every body at NSAMPLES equally spaced times.
 *
 *   mujoco_bench MODEL.xml T_END STEP NSAMPLES REPEATS
 *
 * T_END / STEP must be a whole number of steps, a multiple of NSAMPLES.  Constant loads come from
 * the model's custom numeric "loads": records of 6 numbers (body id, x, y of a point in the body's
 * frame, fx, fy of a force in the world frame, tz of a torque), applied at every evaluation (RK4's
 * four stages each call mj_forward, and so the control callback) with mj_applyFT.
 *
 * Output, one item a line (the protocol of every driver of peers.lua):
 *   engine  MuJoCo <version>
 *   evals   right-hand-side evaluations of one run (RK4: 4 per step)
 *   steps   steps of one run
 *   cpu     in-process CPU time of each repeat (s): mj_resetData, the steps, the samples
 *   sample  t a_1 .. a_n   (absolute angle of body i about z, atan2 of its rotation, rad)
 * An error prints "error <message>" and exits with status 1. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const mjtNum *loads = NULL; /* the numeric "loads", 6 per record */
static int nloads = 0;

/* the control callback: the constant loads as generalized forces of this evaluation's pose */
static void apply_loads(const mjModel *m, mjData *d) {
  mju_zero(d->qfrc_applied, m->nv);
  for (int k = 0; k < nloads; k++) {
    const mjtNum *l = loads + 6 * k;
    int b = (int)l[0];
    const mjtNum *R = d->xmat + 9 * b, *o = d->xpos + 3 * b;
    // the point in the world: the body's origin plus its rotation of the local point
    mjtNum p[3] = {o[0] + R[0] * l[1] + R[1] * l[2], o[1] + R[3] * l[1] + R[4] * l[2],
                   o[2] + R[6] * l[1] + R[7] * l[2]};
    mjtNum f[3] = {l[3], l[4], 0}, tq[3] = {0, 0, l[5]};
    mj_applyFT(m, d, f, tq, p, b, d->qfrc_applied);
  }
}

static char warned[300] = ""; /* MuJoCo's last warning (instead of its log file) */

static void on_warning(const char *msg) {
  snprintf(warned, sizeof warned, "%s", msg);
  for (char *c = warned; *c; c++) {
    *c = *c == '\n' ? ' ' : *c;
  }
}

static void on_error(const char *msg) {
  printf("error MuJoCo: %s\n", msg);
  exit(1);
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    printf("error usage: mujoco_bench MODEL.xml T_END STEP NSAMPLES REPEATS\n");
    return 1;
  }
  double t_end = atof(argv[2]), h = atof(argv[3]);
  int nsamples = atoi(argv[4]), repeats = atoi(argv[5]);
  long nsteps = lround(t_end / h);
  if (h <= 0 || nsamples < 1 || repeats < 1 || nsteps % nsamples != 0 ||
      fabs((double)nsteps * h - t_end) > 1e-9 * t_end) {
    printf("error T_END / STEP must be a whole multiple of NSAMPLES steps\n");
    return 1;
  }
  mju_user_warning = on_warning;
  mju_user_error = on_error;
  char msg[1000] = "";
  mjModel *m = mj_loadXML(argv[1], NULL, msg, sizeof msg);
  if (!m) {
    printf("error %s\n", msg);
    return 1;
  }
  if (m->opt.integrator != mjINT_RK4) {
    printf("error the model's integrator is not RK4\n");
    return 1;
  }
  m->opt.timestep = h;
  int id = mj_name2id(m, mjOBJ_NUMERIC, "loads");
  if (id >= 0) {
    loads = m->numeric_data + m->numeric_adr[id];
    nloads = m->numeric_size[id] / 6;
  }
  mjcb_control = apply_loads;
  mjData *d = mj_makeData(m);
  int nb = m->nbody - 1;
  double *angles = malloc(sizeof(double) * (size_t)(nb * nsamples) + 1);
  double *cpu = malloc(sizeof(double) * (size_t)repeats);
  long per = nsteps / nsamples;
  for (int r = 0; r < repeats; r++) {
    double c0 = cpu_now();
    mj_resetData(m, d);
    for (int s = 0; s < nsamples; s++) {
      for (long k = 0; k < per; k++) {
        mj_step(m, d);
      }
      // the poses of the state reached: mj_step leaves xmat at the start of its last step
      mj_kinematics(m, d);
      for (int b = 1; b <= nb; b++) {
        angles[s * nb + b - 1] = atan2(d->xmat[9 * b + 3], d->xmat[9 * b]);
      }
    }
    cpu[r] = cpu_now() - c0;
    if (warned[0]) {
      printf("error MuJoCo: %s\n", warned);
      return 1;
    }
  }
  printf("engine MuJoCo %s\nevals %ld\nsteps %ld\ncpu", mj_versionString(), 4 * nsteps, nsteps);
  for (int r = 0; r < repeats; r++) {
    printf(" %.9f", cpu[r]);
  }
  printf("\n");
  for (int s = 0; s < nsamples; s++) {
    printf("sample %.17g", t_end * (s + 1) / nsamples);
    for (int b = 0; b < nb; b++) {
      printf(" %.17g", angles[s * nb + b]);
    }
    printf("\n");
  }
  free(angles);
  free(cpu);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
