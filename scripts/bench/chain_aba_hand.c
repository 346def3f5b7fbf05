/* The hand-written reference of the recursive solve (issue 24, item 3): Featherstone's
 * articulated-body algorithm (Rigid Body Dynamics Algorithms, 2008, table 7.1) for the planar
 * pendulum chain of scripts/bench/chains.lua (N links 1 m long, 1 kg, J = 1/12 kg·m² about the
 * CM in the middle, revolute joints, hanging from the origin and released 0.3 rad from the
 * vertical under g = 9.81), written out for this chain alone: planar spatial vectors (ω, vx, vy)
 * in each link's frame at its proximal joint, gravity as an upward acceleration of the ground,
 * the records in structure-of-arrays form, each joint's sin/cos once per evaluation, three passes.
 * Integrated by classical RK4 with a fixed step (mbd's integrator "rk4").
 *
 *   bench_chain_aba N [T_END [STEP [REPEATS]]]      (default 0.5 s, 1e-3 s, 3)
 *
 * Prints N, the evaluations, the CPU time of one integration (least of REPEATS) and per
 * evaluation in ns, and the absolute angles of the first and last link at T_END (to compare with
 * mbd's l1.theta and lN.theta on the same steps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct chain {
  int n;
  double *c, *s;                              /* n: cos, sin of each joint angle */
  double *vw, *vx, *vy;                       /* n: each link's velocity in its frame */
  double *cx, *cy;                            /* n: velocity-product accelerations (cω = 0) */
  double *I00, *I01, *I02, *I11, *I12, *I22; /* n: articulated inertias (symmetric) */
  double *p0, *p1, *p2;                       /* n: articulated bias forces */
  double *U0, *U1, *U2, *Dinv, *u;            /* n: IA s, 1/sᵀIA s, τ − sᵀpA */
} chain;

static const double M = 1, J = 1.0 / 12, CX = 0.5, L = 1, G = 9.81;

static double *col(int n) { return calloc((size_t)n, sizeof(double)); }

static long nrhs = 0;

/* q̈ of the chain at (q, q̇): the three passes */
static void aba(chain *w, const double *q, const double *qd, double *qdd) {
  int n = w->n;
  nrhs++;
  // link inertia about its proximal joint, order (ω, vx, vy): CM at (CX, 0)
  const double i00 = J + M * CX * CX, i02 = M * CX, i11 = M, i22 = M;
  // outward: velocities, velocity products, the links' own inertia and bias forces
  double pw = 0, px = 0, py = 0;
  for (int i = 0; i < n; i++) {
    double c = cos(q[i]), s = sin(q[i]), l = i ? L : 0;
    w->c[i] = c;
    w->s[i] = s;
    double ux = px, uy = py + pw * l;  // v + ω × r, r = (l, 0)
    double vw = pw + qd[i], vx = c * ux + s * uy, vy = -s * ux + c * uy;
    w->vw[i] = vw;
    w->vx[i] = vx;
    w->vy[i] = vy;
    w->cx[i] = vy * qd[i];  // v ×m (q̇, 0, 0)
    w->cy[i] = -vx * qd[i];
    double hx = i11 * vx, hy = i02 * vw + i22 * vy;  // I v (linear part: v ×f needs no more)
    w->I00[i] = i00;
    w->I01[i] = 0;
    w->I02[i] = i02;
    w->I11[i] = i11;
    w->I12[i] = 0;
    w->I22[i] = i22;
    w->p0[i] = vx * hy - vy * hx;  // v ×f (I v)
    w->p1[i] = -vw * hy;
    w->p2[i] = vw * hx;
    pw = vw;
    px = vx;
    py = vy;
  }
  // inward: the joint's terms, the articulated inertia and bias carried to the parent
  for (int i = n - 1; i >= 0; i--) {
    double U0 = w->I00[i], U1 = w->I01[i], U2 = w->I02[i], Di = 1 / U0, uu = -w->p0[i];
    w->U0[i] = U0;
    w->U1[i] = U1;
    w->U2[i] = U2;
    w->Dinv[i] = Di;
    w->u[i] = uu;
    if (i == 0) {
      break;
    }
    double a00 = w->I00[i] - U0 * U0 * Di, a01 = w->I01[i] - U0 * U1 * Di,
           a02 = w->I02[i] - U0 * U2 * Di, a11 = w->I11[i] - U1 * U1 * Di,
           a12 = w->I12[i] - U1 * U2 * Di, a22 = w->I22[i] - U2 * U2 * Di;
    double cx = w->cx[i], cy = w->cy[i], k = uu * Di;
    double b0 = w->p0[i] + a01 * cx + a02 * cy + U0 * k;
    double b1 = w->p1[i] + a11 * cx + a12 * cy + U1 * k;
    double b2 = w->p2[i] + a12 * cx + a22 * cy + U2 * k;
    // X = [1 0 0; sL c s; cL −s c]: Xᵀ Ia X and Xᵀ pa
    double c = w->c[i], s = w->s[i], sl = s * L, cl = c * L;
    // columns of Ia X
    double y00 = a00 + a01 * sl + a02 * cl, y10 = a01 + a11 * sl + a12 * cl,
           y20 = a02 + a12 * sl + a22 * cl;
    double y01 = a01 * c - a02 * s, y11 = a11 * c - a12 * s, y21 = a12 * c - a22 * s;
    double y02 = a01 * s + a02 * c, y12 = a11 * s + a12 * c, y22 = a12 * s + a22 * c;
    int p = i - 1;
    w->I00[p] += y00 + sl * y10 + cl * y20;
    w->I01[p] += y01 + sl * y11 + cl * y21;
    w->I02[p] += y02 + sl * y12 + cl * y22;
    w->I11[p] += c * y11 - s * y21;
    w->I12[p] += c * y12 - s * y22;
    w->I22[p] += s * y12 + c * y22;
    w->p0[p] += b0 + sl * b1 + cl * b2;
    w->p1[p] += c * b1 - s * b2;
    w->p2[p] += s * b1 + c * b2;
  }
  // outward: accelerations (the ground accelerates upward by g)
  double aw = 0, ax = 0, ay = G;
  for (int i = 0; i < n; i++) {
    double c = w->c[i], s = w->s[i], l = i ? L : 0;
    double ux = ax, uy = ay + aw * l;
    double bw = aw, bx = c * ux + s * uy + w->cx[i], by = -s * ux + c * uy + w->cy[i];
    double qa = (w->u[i] - (w->U0[i] * bw + w->U1[i] * bx + w->U2[i] * by)) * w->Dinv[i];
    qdd[i] = qa;
    aw = bw + qa;
    ax = bx;
    ay = by;
  }
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 128;
  double t_end = argc > 2 ? atof(argv[2]) : 0.5, h = argc > 3 ? atof(argv[3]) : 1e-3;
  int reps = argc > 4 ? atoi(argv[4]) : 3;
  if (n < 1 || !(t_end > 0) || !(h > 0) || reps < 1) {
    fprintf(stderr, "usage: bench_chain_aba N [T_END [STEP [REPEATS]]]\n");
    return 2;
  }
  chain w;
  memset(&w, 0, sizeof w);
  w.n = n;
  double **f[] = {&w.c,  &w.s,  &w.vw, &w.vx, &w.vy, &w.cx, &w.cy, &w.I00, &w.I01, &w.I02,
                  &w.I11, &w.I12, &w.I22, &w.p0, &w.p1, &w.p2, &w.U0, &w.U1, &w.U2, &w.Dinv, &w.u};
  for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
    *f[k] = col(n);
  }
  double *y = col(2 * n), *k1 = col(2 * n), *k2 = col(2 * n), *k3 = col(2 * n), *k4 = col(2 * n),
         *yt = col(2 * n);
  int steps = (int)floor(t_end / h + 0.5);
  double best = INFINITY;
  long evals = 0;
  for (int r = 0; r < reps; r++) {
    // released 0.3 rad from the vertical: the first joint's angle is absolute, the others 0
    memset(y, 0, 2 * (size_t)n * sizeof(double));
    y[0] = -M_PI / 2 + 0.3;
    nrhs = 0;
    double c0 = cpu_now();
    for (int st = 0; st < steps; st++) {
      double *ks[4] = {k1, k2, k3, k4}, cw[4] = {0, 0.5, 0.5, 1};
      for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 2 * n; i++) {
          yt[i] = j ? y[i] + cw[j] * h * ks[j - 1][i] : y[i];
        }
        memcpy(ks[j], yt + n, (size_t)n * sizeof(double));
        aba(&w, yt, yt + n, ks[j] + n);
      }
      for (int i = 0; i < 2 * n; i++) {
        y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
      }
    }
    double c1 = cpu_now() - c0;
    best = c1 < best ? c1 : best;
    evals = nrhs;
  }
  double th = 0;
  for (int i = 0; i < n; i++) {
    th += y[i];
  }
  printf("%d %ld %.6e %.1f %.15g %.15g\n", n, evals, best, 1e9 * best / evals, y[0], th);
  return 0;
}
