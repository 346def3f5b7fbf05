/* mbd — output internals: message templates and the guarded PLplot session shared by the plots.
 * Not a public header: only engine/output/ sources include it. */
#ifndef MBD_OUTPUT_IMPL_H
#define MBD_OUTPUT_IMPL_H

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
#define MSG_OUT_READ "%s '%s': cannot read: %s"              /* kind, file, strerror */
#define MSG_OUT_FORMAT "annotate '%s': not a %s file this writer recognizes" /* file, format */
#define MSG_OUT_NOMEM_GRID "heatmap '%s': out of memory for a %d x %d grid" /* file, nx, ny */

/* renaming the finished temporary file onto the final name failed: kind, file, strerror */
#define MSG_OUT_RENAME "%s '%s': cannot replace it with the finished file: %s"
/* a file name too long for its temporary sibling: kind, file */
#define MSG_OUT_NAME "%s '%s': file name too long"

/* results are written to a temporary sibling "<file>.part-<pid>" and renamed onto the final name
 * when complete, so an error, a Ctrl-C or a crash never leaves a half-written file under that
 * name (rename is atomic within a file system).  out_part_name: the sibling's name (0, or −1
 * when it does not fit cap); out_commit: rename it, or remove it when ok is 0 */
int out_part_name(const char *file, char *part, size_t cap);
int out_commit(const char *part, const char *file, int ok, const char *kind, mbd_error *err);

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

/* run one figure on its own PLplot stream: open the file, set a white background and the palette,
 * plinit, draw(ctx), plend1, restore the caller's stream, and check the file is non-empty.
 * PLplot's abort and exit handlers are installed for the duration, so it never prints in normal
 * use and never exits.  Returns MBD_OK, MBD_E_IO (cannot write, PLplot error) with the message. */
int plot_run(const char *file, const char *device, int w, int h, plot_draw_fn draw, void *ctx,
             mbd_error *err);

/* expand [*lo, *hi] by a fraction of its width on each side; a zero-width range becomes a small
 * interval around the value so PLplot never sees equal window limits */
void plot_pad_range(double *lo, double *hi, double frac);

/* light grey grid at the major ticks of the current window; call before drawing data */
void plot_grid(void);

/* black frame with ticks and numeric labels, then axis labels and title (NULL = none) */
void plot_frame(const char *xlabel, const char *ylabel, const char *title);

#endif
