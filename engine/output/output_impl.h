/* mbd — output internals: message templates and the guarded PLplot session shared by the plots.
 * Not a public header: only engine/output/ sources include it. */
#ifndef MBD_OUTPUT_IMPL_H
#define MBD_OUTPUT_IMPL_H

#include <stdio.h>

#include "mbd/output.h"

/* message templates, one place for all of output/ (tests match these, not copies of the text) */
#define MSG_OUT_NULL "%s: %s is NULL"                       /* function, argument */
#define MSG_OUT_COUNT "%s: %s must be %s, got %d"           /* function, what, rule, value */
#define MSG_OUT_OPEN "%s '%s': cannot open for writing: %s" /* kind, file, strerror */
#define MSG_OUT_WRITE "%s '%s': write failed: %s"           /* kind, file, strerror */
#define MSG_OUT_EXT "plot '%s': unknown extension (use .png or .svg)"  /* file */
#define MSG_OUT_NODATA "plot '%s': %s has no finite point"             /* file, what */
#define MSG_OUT_NSERIES "plot '%s': needs at least one series, got %d" /* file, nseries */
#define MSG_OUT_SERIES "plot '%s': series %d has n < 0 or NULL data"   /* file, 1-based index */
#define MSG_OUT_GRID "plot '%s': %s must be strictly increasing"       /* file, axis */
#define MSG_OUT_PLPLOT "plot '%s': PLplot: %s"                         /* file, PLplot message */
#define MSG_OUT_EMPTY "plot '%s': no output was written"               /* file */
#define MSG_OUT_NOMEM_SERIES "plot '%s': out of memory for %d series"  /* file, nseries */
#define MSG_OUT_TEXT "plot '%s': the %s is not UTF-8 text (a malformed byte at offset %ld)" \
  /* file, what, offset */
#define MSG_OUT_NOMEM_GRID "heatmap '%s': out of memory for a %d x %d grid" /* file, nx, ny */

/* the figure PLplot rendered is not whole (a full temporary folder): file, bytes, folder */
#define MSG_OUT_CUT "plot '%s': the figure came out cut short (%zu bytes in '%s': is that folder full?)"
/* no private file for PLplot to render into: file, folder, strerror */
#define MSG_OUT_RENDER "plot '%s': cannot make a temporary file in '%s' to draw in: %s"

/* the whole file into a malloc'd buffer (*len bytes); NULL with errno set on failure */
unsigned char *out_slurp(const char *file, size_t *len);

/* whether buf (len bytes) is a whole PNG (png = 1: signature, IHDR, chunks up to IEND at the end)
 * or SVG (png = 0: an <svg> start tag and the closing tag at the end); *at: where metadata goes.
 * 0, or -1 when it is not */
int out_figure_check(const unsigned char *buf, size_t len, int png, size_t *at);

/* the figure with n metadata entries inserted at at (mbd_plot_meta's format) to f; 0 or -1 */
int out_figure_write(FILE *f, const unsigned char *buf, size_t len, int png, size_t at,
                     const char *const *keys, const char *const *values, int n);

/* default and largest figure sizes in pixels */
#define PLOT_DEFAULT_W 800
#define PLOT_DEFAULT_H 600
#define PLOT_MAX_SIDE 16384

/* cmap0 entries set by every figure: background, ink, grid, then the series colours */
enum { PLOT_COL_BG = 0, PLOT_COL_INK = 1, PLOT_COL_GRID = 2, PLOT_COL_SERIES = 3 };
#define PLOT_NSERIES_COLORS 10 /* distinct series colours before they repeat with a new dash */

/* a figure-drawing callback: issues PLplot calls on the current stream, after plinit */
typedef void (*plot_draw_fn)(void *ctx);

/* validate file extension and size; fill the PLplot device name ("pngcairo" or "svg") and the
 * pixel size (0 → default).  Returns MBD_OK or MBD_E_INPUT naming the file. */
int plot_check_target(const char *file, int width, int height, const char **device, int *w, int *h,
                      mbd_error *err);

/* text drawn on a figure (a title, an axis label, a series' label; NULL: none) must be UTF-8:
 * PLplot's cairo driver renders a malformed sequence as nothing and leaks its text buffers.
 * MBD_OK, or MBD_E_INPUT naming the file, the text (what) and the offset of the bad byte */
int plot_check_text(const char *file, const char *what, const char *text, mbd_error *err);

/* run one figure on its own PLplot stream: check the file can be written (mbd/fileout.h), render
 * into a private temporary file (white background and the palette, plinit, draw(ctx), plend1),
 * restore the caller's stream, check the figure is whole, add the metadata (meta may be NULL)
 * and write it to its name whole or not at all.
 * PLplot's abort and exit handlers are installed for the duration, so it never prints in normal
 * use and never exits.  Returns MBD_OK, MBD_E_IO (cannot write, PLplot error) with the message. */
int plot_run(const char *file, const char *device, int w, int h, plot_draw_fn draw, void *ctx,
             const mbd_plot_meta *meta, mbd_error *err);

/* expand [*lo, *hi] by a fraction of its width on each side; a zero-width range becomes a small
 * interval around the value so PLplot never sees equal window limits */
void plot_pad_range(double *lo, double *hi, double frac);

/* light grey grid at the major ticks of the current window; call before drawing data */
void plot_grid(void);

/* black frame with ticks and numeric labels, then axis labels and title (NULL = none) */
void plot_frame(const char *xlabel, const char *ylabel, const char *title);

#endif
