/* drawings of surfaces: each shape sampled once, in its body's frame, for the page of run:animate.
 *
 *   planar shapes: a polyline with the unit normal at each point (out of the material);
 *     line and sine cut to the window, circle closed, curve over its range (or the window of
 *     parameters the caller asks for, else u0 ± 5, the contact search's own window);
 *   spatial shapes: a triangle mesh; plane cut to the window, sphere by latitude and longitude,
 *     surface of revolution by its profile ρ(z) over the window's z range, parametric over its
 *     ranges like a curve, implicit f = 0 by marching tetrahedra in the window (a cube split in
 *     six tetrahedra along its diagonal; the zero crossing on each cut edge by linear
 *     interpolation of f/|∇f|, a distance in metres).
 * Set-up work: it allocates, and is never called while a simulation integrates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact_impl.h"
#include "contact_msg.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* sampling densities */
enum {
  NCIRCLE = 192,   /* circle segments: the inscribed polygon's area is 0.99982 π r² */
  NCURVE = 400,    /* curve segments */
  NSINE_MAX = 4000, /* sine segments, at most (24 per wavelength) */
  NLAT = 24,       /* sphere: latitudes */
  NLON = 48,       /* sphere and revolution: longitudes */
  NAXIAL = 40,     /* revolution: profile samples */
  NGRID = 32,      /* parametric: samples per parameter */
  NCUBE = 24       /* implicit: cubes per side of the window */
};

/* a growing drawing: room for more points and triangles */
typedef struct buf {
  mbd_surface_drawing *d;
  int cpoint, ctri;
  int bad; /* out of memory */
} buf;

static int add_point(buf *b, const double *x, const double *n) {
  mbd_surface_drawing *d = b->d;
  if (b->bad) {
    return -1;
  }
  if (d->npoint == b->cpoint) {
    int cap = b->cpoint ? 2 * b->cpoint : 256;
    double *xyz = realloc(d->xyz, 3 * sizeof(double) * (size_t)cap);
    if (xyz) {
      d->xyz = xyz;
    }
    double *nrm = d->dim == 2 ? realloc(d->nrm, 3 * sizeof(double) * (size_t)cap) : NULL;
    if (nrm) {
      d->nrm = nrm;
    }
    if (!xyz || (d->dim == 2 && !nrm)) {
      b->bad = 1;
      return -1;
    }
    b->cpoint = cap;
  }
  memcpy(d->xyz + 3 * d->npoint, x, 3 * sizeof(double));
  if (d->dim == 2 && n) {
    memcpy(d->nrm + 3 * d->npoint, n, 3 * sizeof(double));
  }
  return d->npoint++;
}

static void add_tri(buf *b, int i, int j, int k) {
  mbd_surface_drawing *d = b->d;
  if (b->bad || i < 0 || j < 0 || k < 0) {
    return;
  }
  if (d->ntri == b->ctri) {
    int cap = b->ctri ? 2 * b->ctri : 256;
    int *tri = realloc(d->tri, 3 * sizeof(int) * (size_t)cap);
    if (!tri) {
      b->bad = 1;
      return;
    }
    d->tri = tri;
    b->ctri = cap;
  }
  int *t = d->tri + 3 * d->ntri++;
  t[0] = i;
  t[1] = j;
  t[2] = k;
}

/* the range [lo, hi] of p·e over the corners of the window, p relative to `at` */
static void project(const double *lo, const double *hi, const double *at, const double *e,
                    int dim, double *a, double *b) {
  *a = INFINITY;
  *b = -INFINITY;
  for (int c = 0; c < 8; c++) {
    double s = 0;
    for (int i = 0; i < dim; i++) {
      s += ((((c >> i) & 1) ? hi[i] : lo[i]) - at[i]) * e[i];
    }
    *a = fmin(*a, s);
    *b = fmax(*b, s);
  }
}

/* the parameter window of parameter k: its range, else u0 ± 5 widened to take [want_lo, want_hi] */
static void window(const mbd_surface *sf, int k, const double *want_lo, const double *want_hi,
                   double *a, double *b) {
  if (isfinite(sf->lo[k]) && isfinite(sf->hi[k])) {
    *a = sf->lo[k];
    *b = sf->hi[k];
    return;
  }
  *a = isfinite(sf->lo[k]) ? sf->lo[k] : sf->u0[k] - 5;
  *b = isfinite(sf->hi[k]) ? sf->hi[k] : sf->u0[k] + 5;
  if (want_lo && want_hi && isfinite(want_lo[k]) && isfinite(want_hi[k])) {
    double pad = 0.1 * (want_hi[k] - want_lo[k]) + 1;
    if (!isfinite(sf->lo[k])) {
      *a = fmin(*a, want_lo[k] - pad);
    }
    if (!isfinite(sf->hi[k])) {
      *b = fmax(*b, want_hi[k] + pad);
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* planar                                                                                      */

static void draw_planar(const mbd_surface *sf, const double *lo, const double *hi,
                        const double *want_lo, const double *want_hi, buf *b) {
  double a, c;
  int n;
  switch (sf->shape) {
    case MBD_SHAPE_LINE:
      project(lo, hi, sf->at, sf->e1, 2, &a, &c);
      a = fmax(a, sf->lo[0]);
      c = fmin(c, sf->hi[0]);
      n = 1;
      break;
    case MBD_SHAPE_CIRCLE:
      a = 0;
      c = 2 * M_PI;
      n = NCIRCLE;
      b->d->closed = 1;
      break;
    case MBD_SHAPE_SINE: {
      const double ex[3] = {1, 0, 0};
      project(lo, hi, sf->at, ex, 2, &a, &c);
      double per = 2 * M_PI / sf->wavenumber;
      n = (int)fmin(NSINE_MAX, fmax(16, 24 * (c - a) / per));
      break;
    }
    default:  // curve
      window(sf, 0, want_lo, want_hi, &a, &c);
      n = NCURVE;
      break;
  }
  if (!(c > a)) {
    return;  // the window misses it
  }
  for (int i = 0; i <= n; i++) {
    double u = i == n ? c : a + (c - a) * i / n;
    mbd_surf_geo g;
    if (mbd_surface_eval(sf, &u, &g) == MBD_OK) {
      add_point(b, g.s, g.n);
    }
  }
  // a curve whose ends meet is closed too
  mbd_surface_drawing *d = b->d;
  if (sf->shape == MBD_SHAPE_CURVE && d->npoint > 2) {
    const double *p = d->xyz, *q = d->xyz + 3 * (d->npoint - 1);
    double span = 0;
    for (int i = 1; i < d->npoint; i++) {
      span = fmax(span, fabs(d->xyz[3 * i] - p[0]) + fabs(d->xyz[3 * i + 1] - p[1]));
    }
    d->closed = fabs(p[0] - q[0]) + fabs(p[1] - q[1]) <= 1e-9 * span;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* spatial                                                                                     */

/* a grid of ni+1 × nj+1 points already added from index base: two triangles a cell */
static void grid_tris(buf *b, int base, int ni, int nj, const int *ok) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) {
      int p = i * (nj + 1) + j;
      int q = p + nj + 1;
      if (ok[p] && ok[p + 1] && ok[q] && ok[q + 1]) {
        add_tri(b, base + p, base + q, base + q + 1);
        add_tri(b, base + p, base + q + 1, base + p + 1);
      }
    }
  }
}

/* the grid of point(i, j) for i ≤ ni, j ≤ nj; points that fail are left out with their cells */
static void draw_grid(buf *b, int ni, int nj, void *ctx,
                      int (*point)(void *ctx, int i, int j, double *x)) {
  int *ok = calloc((size_t)(ni + 1) * (nj + 1), sizeof(int));
  if (!ok) {
    b->bad = 1;
    return;
  }
  int base = b->d->npoint;
  for (int i = 0; i <= ni; i++) {
    for (int j = 0; j <= nj; j++) {
      double x[3] = {0, 0, 0};
      ok[i * (nj + 1) + j] = point(ctx, i, j, x) == MBD_OK;
      add_point(b, x, NULL);
    }
  }
  grid_tris(b, base, ni, nj, ok);
  free(ok);
}

typedef struct gridctx {
  const mbd_surface *sf;
  double a[2], c[2]; /* parameter windows (sphere: angles; revolution: z, angle) */
  int ni, nj;
} gridctx;

static int pt_parametric(void *p, int i, int j, double *x) {
  const gridctx *g = p;
  double u[2] = {g->a[0] + (g->c[0] - g->a[0]) * i / g->ni,
                 g->a[1] + (g->c[1] - g->a[1]) * j / g->nj};
  mbd_surf_geo geo;
  int rc = mbd_surface_eval(g->sf, u, &geo);
  memcpy(x, geo.s, 3 * sizeof(double));
  return rc == MBD_OK && isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) ? MBD_OK
                                                                            : MBD_E_SINGULAR;
}

static int pt_sphere(void *p, int i, int j, double *x) {
  const gridctx *g = p;
  double th = M_PI * i / g->ni, ph = 2 * M_PI * j / g->nj, R = g->sf->radius;
  x[0] = g->sf->at[0] + R * sin(th) * cos(ph);
  x[1] = g->sf->at[1] + R * sin(th) * sin(ph);
  x[2] = g->sf->at[2] + R * cos(th);
  return MBD_OK;
}

static int pt_revolution(void *p, int i, int j, double *x) {
  const gridctx *g = p;
  double z = g->a[0] + (g->c[0] - g->a[0]) * i / g->ni, ph = 2 * M_PI * j / g->nj, P;
  if (mbd_surface_profile2(g->sf, z, &P) != MBD_OK || !(P >= 0)) {
    return MBD_E_SINGULAR;
  }
  double r = sqrt(P);
  x[0] = g->sf->at[0] + r * cos(ph);
  x[1] = g->sf->at[1] + r * sin(ph);
  x[2] = g->sf->at[2] + z;
  return MBD_OK;
}

/* f/|∇f| of an implicit surface at x (NaN where it is singular) */
static double fval(const mbd_surface *sf, const double *x) {
  mbd_surf_geo g;
  return mbd_surface_eval(sf, x, &g) == MBD_OK ? g.f : NAN;
}

/* marching tetrahedra over NCUBE³ cubes of the window */
static void draw_implicit(const mbd_surface *sf, const double *lo, const double *hi, buf *b) {
  const int n = NCUBE, n1 = NCUBE + 1;
  double *f = malloc(sizeof(double) * (size_t)n1 * n1 * n1);
  if (!f) {
    b->bad = 1;
    return;
  }
  double h[3];
  for (int k = 0; k < 3; k++) {
    h[k] = (hi[k] - lo[k]) / n;
  }
#define IDX(i, j, k) (((size_t)(i) * n1 + (j)) * n1 + (k))
  for (int i = 0; i < n1; i++) {
    for (int j = 0; j < n1; j++) {
      for (int k = 0; k < n1; k++) {
        double x[3] = {lo[0] + i * h[0], lo[1] + j * h[1], lo[2] + k * h[2]};
        f[IDX(i, j, k)] = fval(sf, x);
      }
    }
  }
  // the six tetrahedra of a cube along its diagonal 0–7 (corner c = 4i + 2j + k)
  static const int tet[6][4] = {{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7},
                                {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}};
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < n; k++) {
        double cx[8][3], cf[8];
        int finite = 1;
        for (int c = 0; c < 8; c++) {
          int di = (c >> 2) & 1, dj = (c >> 1) & 1, dk = c & 1;
          cx[c][0] = lo[0] + (i + di) * h[0];
          cx[c][1] = lo[1] + (j + dj) * h[1];
          cx[c][2] = lo[2] + (k + dk) * h[2];
          cf[c] = f[IDX(i + di, j + dj, k + dk)];
          finite &= isfinite(cf[c]);
        }
        if (!finite) {
          continue;
        }
        for (int t = 0; t < 6; t++) {
          // the cut edges of the tetrahedron: between a corner inside (f < 0) and one outside
          int in[4], nin = 0, out[4], nout = 0;
          for (int v = 0; v < 4; v++) {
            if (cf[tet[t][v]] < 0) {
              in[nin++] = tet[t][v];
            } else {
              out[nout++] = tet[t][v];
            }
          }
          if (nin == 0 || nout == 0) {
            continue;
          }
          int id[4], m = 0;
          for (int p = 0; p < nin; p++) {
            for (int q = 0; q < nout; q++) {
              double s = cf[in[p]] / (cf[in[p]] - cf[out[q]]), x[3];
              for (int r = 0; r < 3; r++) {
                x[r] = cx[in[p]][r] + s * (cx[out[q]][r] - cx[in[p]][r]);
              }
              id[m++] = add_point(b, x, NULL);
            }
          }
          // one triangle (1 or 3 corners inside) or a quad (2 and 2: edges 00 01 11 10)
          if (m == 3) {
            add_tri(b, id[0], id[1], id[2]);
          } else {
            add_tri(b, id[0], id[1], id[3]);
            add_tri(b, id[0], id[3], id[2]);
          }
        }
      }
    }
  }
#undef IDX
  free(f);
}

static void draw_spatial(const mbd_surface *sf, const double *lo, const double *hi,
                         const double *want_lo, const double *want_hi, buf *b) {
  gridctx g = {sf, {0, 0}, {0, 0}, 0, 0};
  switch (sf->shape) {
    case MBD_SHAPE_PLANE:
      project(lo, hi, sf->at, sf->e1, 3, &g.a[0], &g.c[0]);
      project(lo, hi, sf->at, sf->e2, 3, &g.a[1], &g.c[1]);
      for (int k = 0; k < 2; k++) {
        g.a[k] = fmax(g.a[k], sf->lo[k]);
        g.c[k] = fmin(g.c[k], sf->hi[k]);
      }
      if (g.c[0] > g.a[0] && g.c[1] > g.a[1]) {
        g.ni = g.nj = 1;
        draw_grid(b, 1, 1, &g, pt_parametric);
      }
      return;
    case MBD_SHAPE_SPHERE:
      g.ni = NLAT;
      g.nj = NLON;
      draw_grid(b, NLAT, NLON, &g, pt_sphere);
      return;
    case MBD_SHAPE_REVOLUTION:
      g.a[0] = lo[2] - sf->at[2];
      g.c[0] = hi[2] - sf->at[2];
      g.ni = NAXIAL;
      g.nj = NLON;
      draw_grid(b, NAXIAL, NLON, &g, pt_revolution);
      return;
    case MBD_SHAPE_PARAMETRIC:
      window(sf, 0, want_lo, want_hi, &g.a[0], &g.c[0]);
      window(sf, 1, want_lo, want_hi, &g.a[1], &g.c[1]);
      g.ni = g.nj = NGRID;
      draw_grid(b, NGRID, NGRID, &g, pt_parametric);
      return;
    default:
      draw_implicit(sf, lo, hi, b);
      return;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the public side                                                                             */

int mbd_model_describe_surface(const mbd_model *m, int s, mbd_surface_desc *out) {
  memset(out, 0, sizeof *out);
  if (s < 0 || s >= m->nsurface) {
    return MBD_E_INPUT;
  }
  const mbd_surface *sf = &m->surface[s];
  out->name = sf->name;
  out->body = sf->body;
  out->shape = sf->shape;
  out->inner = sf->sign < 0;
  memcpy(out->at, sf->at, sizeof out->at);
  memcpy(out->e1, sf->e1, sizeof out->e1);
  memcpy(out->e2, sf->e2, sizeof out->e2);
  memcpy(out->normal, sf->nrm, sizeof out->normal);
  out->radius = sf->radius;
  out->amplitude = sf->amplitude;
  out->wavelength = sf->wavenumber > 0 ? 2 * M_PI / sf->wavenumber : 0;
  out->np = sf->implicit ? 3 : sf->np;
  for (int k = 0; k < 2; k++) {
    out->range[k][0] = sf->lo[k];
    out->range[k][1] = sf->hi[k];
  }
  return MBD_OK;
}

int mbd_surface_draw(const mbd_model *m, int s, const double lo[3], const double hi[3],
                     const double *want_lo, const double *want_hi, mbd_surface_drawing *out,
                     mbd_error *err) {
  memset(out, 0, sizeof *out);
  if (s < 0 || s >= m->nsurface) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_DRAW_INDEX, s, m->nsurface);
  }
  const mbd_surface *sf = &m->surface[s];
  for (int k = 0; k < 3; k++) {
    if (!(hi[k] >= lo[k]) || !isfinite(lo[k]) || !isfinite(hi[k])) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_SURF_DRAW_WINDOW, sf->name);
    }
  }
  out->dim = m->dim;
  buf b = {out, 0, 0, 0};
  if (m->dim == 2) {
    draw_planar(sf, lo, hi, want_lo, want_hi, &b);
  } else {
    draw_spatial(sf, lo, hi, want_lo, want_hi, &b);
  }
  if (b.bad) {
    mbd_surface_drawing_free(out);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_CONTACT_NOMEM, sf->name);
  }
  return MBD_OK;
}

void mbd_surface_drawing_free(mbd_surface_drawing *d) {
  free(d->xyz);
  free(d->nrm);
  free(d->tri);
  memset(d, 0, sizeof *d);
}
