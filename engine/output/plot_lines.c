/* Line plots (see mbd/output.h): one or more series, grid, legend, equal axes for loci. */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>

#include "output_impl.h"

/* everything the drawing callback needs, prepared before PLplot starts (it allocates nothing) */
typedef struct lines_ctx {
  const mbd_plot_spec *spec;
  double dx0, dx1, dy0, dy1;     /* padded data range */
  double xmin, xmax, ymin, ymax; /* window: the data range, widened for equal scales */
  int legend;                    /* 1: draw a legend */
  PLINT position;                /* legend corner inside the plot, PL_POSITION_* (drawing) */
  int outside;                   /* 1: no free corner, legend right of the plot (drawing) */
  double plot_width;             /* legend line sample length, viewport units (drawing) */
  PLINT *opt, *color, *style;    /* per series: legend entry kind, cmap0 colour, line style */
  PLINT *ink;                    /* per series: legend text colour (black) */
  PLFLT *width;                  /* per series: line width */
  const char **text;             /* per series: legend text */
  char *autotext;                /* storage for "series k" labels, 20 bytes per series */
} lines_ctx;

/* range of the finite points of all series; returns the number of finite points */
static long finite_range(const mbd_plot_spec *spec, double *xmin, double *xmax, double *ymin,
                         double *ymax) {
  long count = 0;
  *xmin = *ymin = INFINITY;
  *xmax = *ymax = -INFINITY;
  for (int k = 0; k < spec->nseries; k++) {
    const mbd_plot_series *s = &spec->series[k];
    for (int i = 0; i < s->n; i++) {
      if (isfinite(s->x[i]) && isfinite(s->y[i])) {
        *xmin = fmin(*xmin, s->x[i]);
        *xmax = fmax(*xmax, s->x[i]);
        *ymin = fmin(*ymin, s->y[i]);
        *ymax = fmax(*ymax, s->y[i]);
        count++;
      }
    }
  }
  return count;
}

/* the first legend corner with no data point (or segment midpoint) under it, in the order
 * top right, top left, bottom right, bottom left; -1 when every corner holds data */
static PLINT legend_corner(const lines_ctx *c) {
  static const PLINT corner[4] = {
      PL_POSITION_TOP | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_LEFT,
      PL_POSITION_BOTTOM | PL_POSITION_RIGHT, PL_POSITION_BOTTOM | PL_POSITION_LEFT};
  // the legend box covers roughly 40% of the width and 8% of the height per entry (capped)
  const mbd_plot_spec *spec = c->spec;
  double bw = 0.40, bh = fmin(0.08 * spec->nseries + 0.04, 0.6);
  long hits[4] = {0, 0, 0, 0};
  for (int k = 0; k < spec->nseries; k++) {
    const mbd_plot_series *s = &spec->series[k];
    double pu = NAN, pv = NAN;
    for (int i = 0; i < s->n; i++) {
      if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
        pu = pv = NAN;
        continue;
      }
      // the point, and the midpoint of the segment that ends at it
      double u = (s->x[i] - c->xmin) / (c->xmax - c->xmin);
      double v = (s->y[i] - c->ymin) / (c->ymax - c->ymin);
      double pts[2][2] = {{u, v}, {0.5 * (u + pu), 0.5 * (v + pv)}};
      for (int p = 0; p < 2; p++) {
        double pu2 = pts[p][0], pv2 = pts[p][1];
        if (isnan(pu2)) {
          continue;
        }
        int right = pu2 > 1.0 - bw, left = pu2<bw, top = pv2> 1.0 - bh, bottom = pv2 < bh;
        hits[0] += top && right;
        hits[1] += top && left;
        hits[2] += bottom && right;
        hits[3] += bottom && left;
      }
      pu = u;
      pv = v;
    }
  }
  for (int q = 0; q < 4; q++) {
    if (hits[q] == 0) {
      return corner[q];
    }
  }
  return -1;
}

/* draw one series as polylines over its runs of finite points; a lone point gets a marker */
static void draw_series(const mbd_plot_series *s) {
  int i = 0;
  while (i < s->n) {
    // skip the non-finite points that break the line
    while (i < s->n && !(isfinite(s->x[i]) && isfinite(s->y[i]))) {
      i++;
    }
    int start = i;
    while (i < s->n && isfinite(s->x[i]) && isfinite(s->y[i])) {
      i++;
    }
    // the run [start, i)
    if (i - start >= 2) {
      plline(i - start, s->x + start, s->y + start);
    } else if (i - start == 1) {
      plpoin(1, s->x + start, s->y + start, 4);
    }
  }
}

/* characters of a UTF-8 label (code points; PLplot escapes such as "#u" count, a small excess) */
static int label_chars(const char *text) {
  int n = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    n += (*p & 0xC0) != 0x80;
  }
  return n;
}

/* window = the padded data range; with equal scales one side is widened about its centre so the
 * data fill a viewport region of w_mm x h_mm (loci use the whole figure, not a thin strip) */
static void fit_window(lines_ctx *c, double w_mm, double h_mm) {
  c->xmin = c->dx0;
  c->xmax = c->dx1;
  c->ymin = c->dy0;
  c->ymax = c->dy1;
  if (!c->spec->equal_axes) {
    return;
  }
  double wx = c->xmax - c->xmin, wy = c->ymax - c->ymin;
  if (wy / wx < h_mm / w_mm) {
    double half = 0.5 * wx * h_mm / w_mm, mid = 0.5 * (c->ymin + c->ymax);
    c->ymin = mid - half;
    c->ymax = mid + half;
  } else {
    double half = 0.5 * wy * w_mm / h_mm, mid = 0.5 * (c->xmin + c->xmax);
    c->xmin = mid - half;
    c->xmax = mid + half;
  }
}

/* viewport and window: PLplot's standard viewport; the legend goes in a free corner or, when
 * the data cover all four, right of a narrowed viewport.  Sets c->plot_width, the legend's line
 * sample length in viewport units. */
static void set_viewport(lines_ctx *c) {
  const mbd_plot_spec *spec = c->spec;
  plvsta();
  PLFLT xl, xr, yb, yt;
  plgvpd(&xl, &xr, &yb, &yt);

  // sizes in mm: subpage and character height
  PLFLT sx0, sx1, sy0, sy1, def, ht;
  plgspa(&sx0, &sx1, &sy0, &sy1);
  plgchr(&def, &ht);
  double page_w = sx1 - sx0, page_h = sy1 - sy0;
  double line_mm = 4.0 * ht;

  // first try: full standard viewport, legend inside if a corner is free
  fit_window(c, (xr - xl) * page_w, (yt - yb) * page_h);
  c->outside = 0;
  if (c->legend) {
    c->position = legend_corner(c);
    c->outside = c->position < 0;
  }

  // an outside legend reserves its estimated width: line sample, gaps, longest label
  if (c->outside) {
    int longest = 0;
    for (int k = 0; k < spec->nseries; k++) {
      longest = label_chars(c->text[k]) > longest ? label_chars(c->text[k]) : longest;
    }
    double reserve_mm = line_mm + 3.0 * ht + 0.9 * 0.7 * ht * longest;
    xr = fmax(xl + 0.3, fmin(xr, 0.98 - reserve_mm / page_w));
    fit_window(c, (xr - xl) * page_w, (yt - yb) * page_h);
  }

  // the window now has the viewport's aspect when scales must be equal
  plvpor(xl, xr, yb, yt);
  plwind(c->xmin, c->xmax, c->ymin, c->ymax);
  c->plot_width = line_mm / ((xr - xl) * page_w);
}

/* the figure: viewport and window, grid, series, frame and labels, legend */
static void draw_lines(void *ctx) {
  lines_ctx *c = ctx;
  const mbd_plot_spec *spec = c->spec;

  // page, viewport, window; the axes are drawn after the data
  pladv(0);
  set_viewport(c);
  if (spec->log_y) {
    // y holds log10 of the data: grid and labels of a logarithmic axis
    plcol0(PLOT_COL_GRID);
    pllsty(1);
    plwidth(0.8);
    plbox("g", 0.0, 0, "gl", 0.0, 0);
  } else {
    plot_grid();
  }

  // the series, colour and dash from the legend arrays
  for (int k = 0; k < spec->nseries; k++) {
    plcol0(c->color[k]);
    pllsty(c->style[k]);
    plwidth(c->width[k]);
    draw_series(&spec->series[k]);
  }
  pllsty(1);

  // frame over the data ends of the lines, then labels
  if (spec->log_y) {
    plcol0(PLOT_COL_INK);
    plwidth(1.0);
    plbox("bcnst", 0.0, 0, "bcnstvl", 0.0, 0);
    pllab(spec->xlabel ? spec->xlabel : "", spec->ylabel ? spec->ylabel : "",
          spec->title ? spec->title : "");
  } else {
    plot_frame(spec->xlabel, spec->ylabel, spec->title);
  }

  // legend on a white box: in an empty corner, else right of the plot
  if (c->legend) {
    PLFLT lw = 0.0, lh = 0.0;
    PLINT position =
        c->outside ? PL_POSITION_OUTSIDE | PL_POSITION_RIGHT : c->position | PL_POSITION_INSIDE;
    pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             position | PL_POSITION_VIEWPORT, 0.02, c->outside ? 0.0 : 0.03, c->plot_width,
             PLOT_COL_BG, PLOT_COL_INK, 1, 0, 0, spec->nseries, c->opt, 1.0, 0.9, 2.0, 0.0, c->ink,
             c->text, NULL, NULL, NULL, NULL, c->color, c->style, c->width, NULL, NULL, NULL, NULL);
  }
}

int mbd_plot_lines(const mbd_plot_spec *spec, mbd_error *err) {
  // validate the specification and the target file name
  if (spec == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "plot", "spec");
  }
  const char *device = NULL;
  int w = 0, h = 0;
  int rc = plot_check_target(spec->file, spec->width, spec->height, &device, &w, &h, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (spec->nseries < 1 || spec->series == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NSERIES, spec->file, spec->nseries);
  }
  for (int k = 0; k < spec->nseries; k++) {
    const mbd_plot_series *s = &spec->series[k];
    if (s->n < 0 || (s->n > 0 && (s->x == NULL || s->y == NULL))) {
      return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_SERIES, spec->file, k + 1);
    }
    char what[40];
    snprintf(what, sizeof what, "label of series %d", k + 1);
    if ((rc = plot_check_text(spec->file, what, s->label, err)) != MBD_OK) {
      return rc;
    }
  }
  if ((rc = plot_check_text(spec->file, "title", spec->title, err)) != MBD_OK ||
      (rc = plot_check_text(spec->file, "x label", spec->xlabel, err)) != MBD_OK ||
      (rc = plot_check_text(spec->file, "y label", spec->ylabel, err)) != MBD_OK) {
    return rc;
  }

  // a logarithmic y axis plots log10(y): the series copied with y ≤ 0 as gaps
  mbd_plot_spec logspec;
  mbd_plot_series *logseries = NULL;
  double *logy = NULL;
  if (spec->log_y) {
    size_t total = 0;
    for (int k = 0; k < spec->nseries; k++) {
      total += (size_t)spec->series[k].n;
    }
    logseries = calloc((size_t)spec->nseries, sizeof *logseries);
    logy = malloc((total ? total : 1) * sizeof(double));
    if (!logseries || !logy) {
      free(logseries);
      free(logy);
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_OUT_NOMEM_SERIES, spec->file, spec->nseries);
    }
    size_t at = 0;
    for (int k = 0; k < spec->nseries; k++) {
      const mbd_plot_series *s = &spec->series[k];
      logseries[k] = *s;
      logseries[k].y = logy + at;
      for (int i = 0; i < s->n; i++) {
        logy[at + (size_t)i] = s->y[i] > 0 ? log10(s->y[i]) : NAN;
      }
      at += (size_t)s->n;
    }
    logspec = *spec;
    logspec.series = logseries;
    spec = &logspec;
  }

  // window: the finite data, padded a little (more on y, where curves touch the frame)
  lines_ctx c = {.spec = spec};
  if (finite_range(spec, &c.dx0, &c.dx1, &c.dy0, &c.dy1) == 0) {
    free(logseries);
    free(logy);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NODATA, spec->file,
                    spec->log_y ? "the data (log y: y > 0)" : "the data");
  }
  plot_pad_range(&c.dx0, &c.dx1, spec->equal_axes ? 0.05 : 0.02);
  plot_pad_range(&c.dy0, &c.dy1, 0.05);

  // per-series legend arrays: one allocation, freed below whatever PLplot does
  int n = spec->nseries;
  void *block = calloc((size_t)n, 4 * sizeof(PLINT) + sizeof(PLFLT) + sizeof(char *) + 20);
  if (block == NULL) {
    free(logseries);
    free(logy);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_OUT_NOMEM_SERIES, spec->file, n);
  }
  c.width = block;
  c.text = (const char **)(c.width + n);
  c.opt = (PLINT *)(c.text + n);
  c.color = c.opt + n;
  c.style = c.color + n;
  c.ink = c.style + n;
  c.autotext = (char *)(c.ink + n);

  // colours cycle through the palette; after each cycle the dash pattern changes
  for (int k = 0; k < n; k++) {
    c.opt[k] = PL_LEGEND_LINE;
    c.ink[k] = PLOT_COL_INK;
    c.color[k] = PLOT_COL_SERIES + k % PLOT_NSERIES_COLORS;
    c.style[k] = 1 + (k / PLOT_NSERIES_COLORS) % 8;
    c.width[k] = 2.0;
    if (spec->series[k].label) {
      c.text[k] = spec->series[k].label;
    } else {
      snprintf(c.autotext + 20 * k, 20, "series %d", k + 1);
      c.text[k] = c.autotext + 20 * k;
    }
  }

  // legend when there is more than one curve or a named one (placed once the page is known)
  c.legend = n > 1 || spec->series[0].label != NULL;

  rc = plot_run(spec->file, device, w, h, draw_lines, &c, spec->meta, err);
  free(block);
  free(logseries);
  free(logy);
  return rc;
}
