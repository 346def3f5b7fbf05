/* One guarded PLplot session per figure: device choice, white palette, private stream, handlers.
 *
 * PLplot reports trouble two ways.  plabort() calls the abort handler and, when the stream has an
 * error buffer (plsError), stays silent and returns; we record the message and fail the figure.
 * plexit() calls the exit handler and then prints and exit()s whatever the handler returns, so the
 * only way to keep the process alive is to leave the handler with longjmp back to plot_run().  The
 * jump crosses only PLplot frames (never an engine frame that holds memory): plot_run() is the
 * setjmp point and the drawing callbacks allocate nothing they cannot lose.
 *
 * PLplot keeps its current stream and handlers in globals, so figures are not thread-safe; that is
 * PLplot's limit, not ours to lift. */
#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <unistd.h>

#include "mbd/fileout.h"

#include "mbd/text.h"
#include "output_impl.h"

/* the figure being drawn, seen by the handlers (PLplot's handlers take no user data) */
typedef struct session {
  jmp_buf jump;      /* where the exit handler returns to */
  char msg[256];     /* first PLplot message of this figure, "" if none */
  char errbuf[1024]; /* PLplot's own error buffer (plsError); keeps plabort from printing */
  PLINT errcode;     /* set to 1 by plabort */
} session;

static session *g_session; /* current figure; NULL outside plot_run */

/* record PLplot's first message; later ones are usually consequences of it */
static void note(const char *msg) {
  if (g_session && g_session->msg[0] == '\0') {
    snprintf(g_session->msg, sizeof g_session->msg, "%s", msg ? msg : "unknown error");
  }
}

/* plsabort handler: record and return (plabort then returns to its caller) */
static void on_abort(PLCHAR_VECTOR msg) { note(msg); }

/* plsexit handler: record and jump back to plot_run, since returning would exit() */
static int on_exit_request(PLCHAR_VECTOR msg) {
  note(msg);
  if (g_session) {
    longjmp(g_session->jump, 1);
  }
  return 1;
}

int plot_check_text(const char *file, const char *what, const char *text, mbd_error *err) {
  long bad = text ? mbd_text_utf8_error(text) : -1;
  return bad < 0 ? MBD_OK : MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_TEXT, file, what, bad);
}

int plot_check_target(const char *file, int width, int height, const char **device, int *w, int *h,
                      mbd_error *err) {
  // the extension picks the device, case-insensitively
  if (file == NULL) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_NULL, "plot", "file");
  }
  const char *dot = strrchr(file, '.');
  const char *slash = strrchr(file, '/');
  if (dot == NULL || (slash && dot < slash)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_EXT, file);
  }
  if (strcasecmp(dot, ".png") == 0) {
    *device = "pngcairo";
  } else if (strcasecmp(dot, ".svg") == 0) {
    *device = "svg";
  } else {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_EXT, file);
  }

  // pixel size: 0 takes the default, otherwise 1..PLOT_MAX_SIDE
  *w = width == 0 ? PLOT_DEFAULT_W : width;
  *h = height == 0 ? PLOT_DEFAULT_H : height;
  if (*w < 1 || *w > PLOT_MAX_SIDE || *h < 1 || *h > PLOT_MAX_SIDE) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_OUT_COUNT, "plot", "width and height",
                    "between 1 and 16384 pixels", *w < 1 || *w > PLOT_MAX_SIDE ? *w : *h);
  }
  return MBD_OK;
}

/* print-ready palette: white background, black ink, light grey grid, then ten distinct colours
 * (matplotlib's "tab10", readable in colour and distinct enough in grey) */
static void set_palette(void) {
  static const PLINT rgb[PLOT_COL_SERIES + PLOT_NSERIES_COLORS][3] = {
      {255, 255, 255}, {0, 0, 0},      {217, 217, 217}, {31, 119, 180}, {255, 127, 14},
      {44, 160, 44},   {214, 39, 40},  {148, 103, 189}, {140, 86, 75},  {227, 119, 194},
      {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
  enum { N = PLOT_COL_SERIES + PLOT_NSERIES_COLORS };
  PLINT r[N], g[N], b[N];
  for (int i = 0; i < N; i++) {
    r[i] = rgb[i][0];
    g[i] = rgb[i][1];
    b[i] = rgb[i][2];
  }
  plscmap0(r, g, b, N);
}

/* the figure drawn into part on a fresh PLplot stream; 0, or -1 with PLplot's message in
 * g_last.msg.  The only setjmp point: nothing of the caller's lives across the longjmp. */
static session g_last; /* the last figure's state; static so it survives the longjmp unchanged */

static int draw_session(const char *part, const char *device, int w, int h, plot_draw_fn draw,
                        void *ctx) {
  session *s = &g_last;
  memset(s, 0, sizeof *s);
  PLINT prev = 0;
  plgstrm(&prev);
  g_session = s;
  plsabort(on_abort);
  plsexit(on_exit_request);

  // a fresh stream: device, file, size and palette are set before plinit, then the figure
  if (setjmp(s->jump) == 0) {
    PLINT strm = -1;
    plmkstrm(&strm);
    if (strm >= 0) {
      plsError(&s->errcode, s->errbuf);
      plsdev(device);
      plsfnam(part);
      plspage(0.0, 0.0, w, h, 0, 0);
      set_palette();
      plinit();
      draw(ctx);
      plend1();
    } else {
      note("no free stream");
    }
  } else if (setjmp(s->jump) == 0) {
    // PLplot wanted to exit: end the broken stream if it lets us (a second exit lands below)
    plend1();
  }

  // back to the caller's stream and PLplot's default handlers
  plsstrm(prev);
  plsabort(NULL);
  plsexit(NULL);
  g_session = NULL;
  return s->msg[0] != '\0' ? -1 : 0;
}

/* a private file for PLplot to draw in: $TMPDIR (else /tmp)/mbd-plot-XXXXXX, mode 0600; its
 * name in path, or -1 with errno */
static int render_file(char *path, size_t cap, const char **dir) {
  const char *t = getenv("TMPDIR");
  *dir = (t && *t) ? t : "/tmp";
  if ((size_t)snprintf(path, cap, "%s/mbd-plot-XXXXXX", *dir) >= cap) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = mkstemp(path);
  if (fd < 0) {
    return -1;
  }
  close(fd);
  return 0;
}

int plot_run(const char *file, const char *device, int w, int h, plot_draw_fn draw, void *ctx,
             const mbd_plot_meta *meta, mbd_error *err) {
  // the destination first: a figure that cannot reach its name is not drawn (and PLplot, which
  // would exit() on an unopenable file, only ever sees our private one)
  mbd_out o;
  int rc = mbd_out_open(&o, "plot", file, 0, err);
  if (rc != MBD_OK) {
    return rc;
  }
  char part[4096];
  const char *tmpdir = NULL;
  if (render_file(part, sizeof part, &tmpdir) != 0) {
    int e = errno;
    mbd_out_discard(&o);
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_RENDER, file, tmpdir, strerror(e));
  }

  if (draw_session(part, device, w, h, draw, ctx) != 0) {
    unlink(part);
    mbd_out_discard(&o);
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_PLPLOT, file, g_last.msg);
  }

  // the driver wrote on plend1 (and does not report a short write): read the figure back and
  // check it is whole before it goes anywhere
  size_t len = 0;
  unsigned char *buf = out_slurp(part, &len);
  unlink(part);
  size_t at = 0;
  int png = strcmp(device, "svg") != 0;
  if (!buf || len == 0 || out_figure_check(buf, len, png, &at) != 0) {
    free(buf);
    mbd_out_discard(&o);
    return MBD_FAIL(err, MBD_E_IO, MSG_OUT_CUT, file, len, tmpdir);
  }
  static const mbd_plot_meta none = {NULL, NULL, 0};
  if (!meta) {
    meta = &none;
  }
  out_figure_write(o.f, buf, len, png, at, meta->keys, meta->values, meta->n);
  free(buf);
  return mbd_out_commit(&o, err);
}

void plot_pad_range(double *lo, double *hi, double frac) {
  // a (nearly) zero-width range: open a window of ±5% of the value, or ±1 around zero
  double mag = fmax(fabs(*lo), fabs(*hi));
  if (!(*hi - *lo > 1e-12 * mag)) {
    double c = 0.5 * *lo + 0.5 * *hi;
    double half = c != 0.0 ? 0.05 * fabs(c) : 1.0;
    *lo = c - half;
    *hi = c + half;
    return;
  }
  // a real range: pad both sides by a fraction of its width
  double pad = frac * (*hi - *lo);
  *lo -= pad;
  *hi += pad;
}

void plot_grid(void) {
  // thin solid light-grey lines at the major ticks, drawn before the data
  plcol0(PLOT_COL_GRID);
  pllsty(1);
  plwidth(0.8);
  plbox("g", 0.0, 0, "g", 0.0, 0);
}

void plot_frame(const char *xlabel, const char *ylabel, const char *title) {
  // black frame with inward ticks, numeric labels and minor ticks
  plcol0(PLOT_COL_INK);
  plwidth(1.0);
  plbox("bcnst", 0.0, 0, "bcnstv", 0.0, 0);

  // axis labels and title
  pllab(xlabel ? xlabel : "", ylabel ? ylabel : "", title ? title : "");
}
