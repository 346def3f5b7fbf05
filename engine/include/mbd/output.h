/* mbd — output: CSV files and plots (PNG or SVG through PLplot's pngcairo and svg devices). */
#ifndef MBD_OUTPUT_H
#define MBD_OUTPUT_H

#include <stddef.h>

#include "mbd/status.h"

/* write a CSV file: a header line with the column names, then nrows rows; cols[j][i] is row i of
 * column j.  Numbers are written with 17 significant digits (%.17g) so they read back exactly.
 * Returns MBD_OK or MBD_E_IO with a message naming the file and the system error. */
int mbd_csv_write(const char *file, int ncols, const char *const *names, const double *const *cols,
                  int nrows, mbd_error *err);

/* the same with comment lines above the header: each line of comment (split at '\n') is written
 * as "# <line>" (the run manifest); comment may be NULL */
int mbd_csv_write_commented(const char *file, const char *comment, int ncols,
                            const char *const *names, const double *const *cols, int nrows,
                            mbd_error *err);

/* a number as the CSV writers write it: %.17g (it reads back exactly), and "nan" for every NaN
 * (printf would write "-nan" for one with its sign bit set) */
void mbd_csv_number(char *buf, size_t cap, double v);

/* text metadata written into a figure before it reaches its name: n entries keys[i], values[i].
 * PNG files get one iTXt chunk per entry (keyword "mbd.<key>", UTF-8 text) after the header
 * chunk; SVG files a <metadata id="mbd-manifest"> element, one "key: value" line per entry,
 * right after the <svg> start tag. */
typedef struct mbd_plot_meta {
  const char *const *keys;
  const char *const *values;
  int n;
} mbd_plot_meta;

/* one curve of a line plot: n points (x[i], y[i]); label shown in the legend (may be NULL) */
typedef struct mbd_plot_series {
  const char *label;
  const double *x;
  const double *y;
  int n;
} mbd_plot_series;

typedef struct mbd_plot_spec {
  const char *file;   /* output file; the extension picks the device: .png or .svg */
  const char *title;  /* may be NULL */
  const char *xlabel; /* may be NULL */
  const char *ylabel; /* may be NULL */
  const mbd_plot_series *series;
  int nseries;
  int width, height;  /* pixels; 0 = 800 x 600 */
  int equal_axes;     /* 1: same scale on both axes (loci y-vs-x) */
  int log_y;          /* 1: logarithmic y axis (points with y <= 0 are skipped) */
  const mbd_plot_meta *meta; /* metadata of the figure (the runs' manifests); NULL = none */
} mbd_plot_spec;

/* Figures are written whole or not at all (mbd/fileout.h): PLplot draws into a private temporary
 * file ($TMPDIR, else /tmp), the figure is checked whole (a PNG up to its end chunk, an SVG up to
 * its closing tag), its metadata added, and it is written to its name through a temporary
 * sibling renamed when complete; links are followed, FIFOs and devices written directly.  The
 * destination is checked before drawing. */

/* line plot of one or more series on white background, with axes, grid, labels and a legend.
 * Non-finite points are skipped (they break the line).  The legend (shown when there are several
 * series or a labelled one; unlabelled series read "series k") sits in a corner free of data, or
 * right of the plot when none is free.  Each call uses its own PLplot stream and ends it, never
 * prints and never exits; not thread-safe (PLplot keeps global state).  Returns MBD_OK,
 * MBD_E_INPUT (no series, unknown extension, no finite point, size outside 1..16384) or MBD_E_IO
 * (file cannot be written, PLplot error, empty output), with a message naming the file. */
int mbd_plot_lines(const mbd_plot_spec *spec, mbd_error *err);

/* heat map of z over a grid: z[i + nx*j] at (x[i], y[j]), with a colour bar and optional contour
 * lines (ncontour > 0).  Same devices and statuses as mbd_plot_lines.
 * Each value fills the cell between the midpoints to its neighbours; x and y must be strictly
 * increasing.  Non-finite z (and z <= 0 with log_scale) leaves its cell white.  Contour levels are
 * evenly spaced inside the range of z (in log10 units with log_scale).  With log_scale the colours
 * span whole decades, from the one below the least z to the one above the largest, and the colour
 * bar labels every decade (every k-th beyond 12 decades). */
typedef struct mbd_plot_heatmap_spec {
  const char *file, *title, *xlabel, *ylabel, *zlabel;
  const double *x; int nx;
  const double *y; int ny;
  const double *z;    /* nx*ny values, x fastest */
  int ncontour;       /* number of contour levels drawn over the map, 0 = none */
  int log_scale;      /* 1: colour by log10(z) (z > 0) */
  int width, height;
  const mbd_plot_meta *meta; /* metadata of the figure; NULL = none */
} mbd_plot_heatmap_spec;

int mbd_plot_heatmap(const mbd_plot_heatmap_spec *spec, mbd_error *err);

#endif
