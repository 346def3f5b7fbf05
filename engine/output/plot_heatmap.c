/* Heat maps (see mbd/output.h): z over an x-y grid as coloured cells, a colour bar and optional
 * contour lines, e.g. error norms over a two-parameter grid (paper 004: E1 over alpha and beta). */
#include <math.h>
#include <plplot.h>
#include <stdlib.h>

#include "output_impl.h"

/* everything the drawing callback needs, prepared before PLplot starts (it allocates nothing) */
typedef struct heat_ctx {
  const mbd_plot_heatmap_spec *spec;
  double *cell;        /* nx*ny colour values, cell[i*ny + j] for (x[i], y[j]); NaN = none */
  const double **rows; /* nx row pointers into cell: PLplot's f[i][j] */
  double *xe, *ye;     /* cell edges: nx+1 and ny+1 values (midpoints, ends extrapolated) */
  double *xc, *yc;     /* cell centres: copies of x and y for the contour transform */
  double *levels;      /* ncontour contour levels, in colour units */
  double vmin, vmax;   /* colour range (log10 units when log_scale: whole decades) */
  double tick;         /* colour bar: interval between labelled ticks (0: PLplot's choice) */
} heat_ctx;

/* a perceptually uniform colour map (viridis, sampled at 9 points and interpolated in RGB) */
static void set_viridis(void) {
  static const PLFLT pos[9] = {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0};
  static const double rgb[9][3] = {{68, 1, 84},    {72, 40, 120},  {62, 73, 137},
                                   {49, 104, 142}, {38, 130, 142}, {31, 158, 137},
                                   {53, 183, 121}, {110, 206, 88}, {253, 231, 37}};
  PLFLT r[9], g[9], b[9];
  for (int i = 0; i < 9; i++) {
    r[i] = rgb[i][0] / 255.0;
    g[i] = rgb[i][1] / 255.0;
    b[i] = rgb[i][2] / 255.0;
  }
  plscmap1n(256);
  plscmap1l(1, 9, pos, r, g, b, NULL);
}

/* cell edges from centres: midpoints inside, half a spacing beyond each end */
static void edges(double *e, const double *c, int n) {
  if (n == 1) {
    e[0] = e[1] = c[0];
    plot_pad_range(&e[0], &e[1], 0.0);
    return;
  }
  for (int i = 1; i < n; i++) {
    e[i] = 0.5 * (c[i - 1] + c[i]);
  }
  e[0] = c[0] - 0.5 * (c[1] - c[0]);
  e[n] = c[n - 1] + 0.5 * (c[n - 1] - c[n - 2]);
}

/* the figure: viewport leaving room for the bar, cells, contours, frame, colour bar */
static void draw_heatmap(void *ctx) {
  const heat_ctx *c = ctx;
  const mbd_plot_heatmap_spec *spec = c->spec;
  int nx = spec->nx, ny = spec->ny;

  // viewport on the left three quarters, window on the cell edges
  pladv(0);
  plvpor(0.11, 0.80, 0.11, 0.91);
  plwind(c->xe[0], c->xe[nx], c->ye[0], c->ye[ny]);

  // cells: corner (i, j) of the index grid maps to (xe[i], ye[j]); NaN cells stay white
  set_viridis();
  PLcGrid edge_grid = {.xg = c->xe, .yg = c->ye, .nx = nx + 1, .ny = ny + 1};
  plimagefr(c->rows, nx, ny, c->xe[0], c->xe[nx], c->ye[0], c->ye[ny], c->vmin, c->vmax, c->vmin,
            c->vmax, pltr1, &edge_grid);

  // contour lines through the cell centres, thin black
  if (spec->ncontour > 0 && nx >= 2 && ny >= 2) {
    PLcGrid centre_grid = {.xg = c->xc, .yg = c->yc, .nx = nx, .ny = ny};
    plcol0(PLOT_COL_INK);
    plwidth(1.0);
    pllsty(1);
    plcont(c->rows, nx, ny, 1, nx, 1, ny, c->levels, spec->ncontour, pltr1, &centre_grid);
  }

  // frame and labels over the image
  plot_frame(spec->xlabel, spec->ylabel, spec->title);

  // colour bar right of the viewport, as tall as it; log scale labels its ticks 10^k
  PLFLT cw = 0.0, ch = 0.0;
  PLINT label_opts[1] = {PL_COLORBAR_LABEL_RIGHT};
  const char *labels[1] = {spec->zlabel};
  const char *axis_opts[1] = {spec->log_scale ? "bcmtvls" : "bcmtvs"};
  PLFLT ticks[1] = {c->tick};
  PLINT sub_ticks[1] = {0};
  PLINT n_values[1] = {2};
  PLFLT range[2] = {c->vmin, c->vmax};
  const PLFLT *values[1] = {range};
  plcolorbar(&cw, &ch, PL_COLORBAR_IMAGE,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_VIEWPORT, 0.03, 0.0, 0.04, 1.0,
             PLOT_COL_BG, PLOT_COL_INK, 1, 0.0, 1.0, PLOT_COL_INK, 0.0, spec->zlabel ? 1 : 0,
             label_opts, labels, 1, axis_opts, ticks, sub_ticks, n_values, values);
}

/* 1 when the n values are finite and strictly increasing */
static int increasing(const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i]) || (i > 0 && !(v[i] > v[i - 1]))) {
      return 0;
    }
  }
  return 1;
}

int mbd_plot_heatmap(const mbd_plot_heatmap_spec *spec, mbd_error *err) {
  // validate the specification and the target file name
  if (spec == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "heatmap", "spec");
  }
  const char *device = NULL;
  int w = 0, h = 0;
  int rc = plot_check_target(spec->file, spec->width, spec->height, &device, &w, &h, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if ((rc = plot_check_text(spec->file, "title", spec->title, err)) != MBD_OK ||
      (rc = plot_check_text(spec->file, "x label", spec->xlabel, err)) != MBD_OK ||
      (rc = plot_check_text(spec->file, "y label", spec->ylabel, err)) != MBD_OK ||
      (rc = plot_check_text(spec->file, "z label", spec->zlabel, err)) != MBD_OK) {
    return rc;
  }
  if (spec->x == NULL || spec->y == NULL || spec->z == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "heatmap",
                    spec->x == NULL   ? "x"
                    : spec->y == NULL ? "y"
                                      : "z");
  }
  if (spec->nx < 1 || spec->ny < 1 || spec->ncontour < 0 || spec->ncontour > 1000) {
    int bad = spec->nx < 1 ? spec->nx : spec->ny < 1 ? spec->ny : spec->ncontour;
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_COUNT, "heatmap", "nx, ny (and ncontour)",
                    "at least 1 (ncontour 0..1000)", bad);
  }
  if (!increasing(spec->x, spec->nx) || !increasing(spec->y, spec->ny)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_GRID, spec->file,
                    increasing(spec->x, spec->nx) ? "y" : "x");
  }

  // one block for every array the figure needs: nothing is allocated while PLplot runs
  int nx = spec->nx, ny = spec->ny, nc = spec->ncontour;
  size_t nd = (size_t)nx * ny + (size_t)(nx + 1) + (size_t)(ny + 1) + nx + ny + (size_t)nc;
  double *block = malloc(nd * sizeof(double) + (size_t)nx * sizeof(double *));
  if (block == NULL) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_OUT_NOMEM_GRID, spec->file, nx, ny);
  }
  heat_ctx c = {.spec = spec, .cell = block};
  c.xe = c.cell + (size_t)nx * ny;
  c.ye = c.xe + nx + 1;
  c.xc = c.ye + ny + 1;
  c.yc = c.xc + nx;
  c.levels = c.yc + ny;
  c.rows = (const double **)(c.levels + nc);

  // colour values, transposed to PLplot's f[i][j]; log10 where asked, z <= 0 then has no colour
  c.vmin = INFINITY;
  c.vmax = -INFINITY;
  for (int i = 0; i < nx; i++) {
    c.rows[i] = c.cell + (size_t)i * ny;
    for (int j = 0; j < ny; j++) {
      double z = spec->z[i + (size_t)nx * j];
      double v = spec->log_scale ? (z > 0.0 ? log10(z) : NAN) : z;
      v = isfinite(v) ? v : NAN;
      c.cell[(size_t)i * ny + j] = v;
      if (!isnan(v)) {
        c.vmin = fmin(c.vmin, v);
        c.vmax = fmax(c.vmax, v);
      }
    }
  }
  if (!(c.vmin <= c.vmax)) {
    free(block);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NODATA, spec->file,
                    spec->log_scale ? "z (log scale needs z > 0)" : "z");
  }
  // a constant map still needs a colour range
  plot_pad_range(&c.vmin, &c.vmax, 0.0);

  // geometry: cell edges and centres
  edges(c.xe, spec->x, nx);
  edges(c.ye, spec->y, ny);
  for (int i = 0; i < nx; i++) {
    c.xc[i] = spec->x[i];
  }
  for (int j = 0; j < ny; j++) {
    c.yc[j] = spec->y[j];
  }

  // contour levels evenly spaced strictly inside the range of the data
  for (int k = 0; k < nc; k++) {
    c.levels[k] = c.vmin + (k + 1) * (c.vmax - c.vmin) / (nc + 1);
  }

  // log scale: the colours span whole decades and the bar labels every one of them (every
  // second, third ... beyond 12 decades, so that the labels do not overlap)
  if (spec->log_scale) {
    c.vmin = floor(c.vmin);
    c.vmax = fmax(ceil(c.vmax), c.vmin + 1.0);
    c.tick = ceil((c.vmax - c.vmin) / 12.0);
  }

  rc = plot_run(spec->file, device, w, h, draw_heatmap, &c, spec->meta, err);
  free(block);
  return rc;
}
