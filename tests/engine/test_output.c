/* tests of engine/output: CSV round trip and errors, PLplot line plots and heat maps.
 * Files go to a fresh folder under /tmp, removed at the end (set MBD_TEST_KEEP=1 to keep it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbd/output.h"
#include "mbd_test.h"

static char g_dir[64]; /* the temporary folder of this run */

/* path of a file in the temporary folder (a ring of static buffers: up to 8 alive at once) */
static const char *tmp_path(const char *name) {
  static char path[8][384]; /* g_dir (64) + "/" + a name of up to 255 */
  static int next = 0;
  char *p = path[next];
  next = (next + 1) % 8;
  snprintf(p, sizeof path[0], "%s/%s", g_dir, name);
  return p;
}

/* size of a file in bytes, -1 if it does not exist */
static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* whole file into a NUL-terminated malloc'd buffer */
static char *slurp(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)*n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)*n, f), (size_t)*n);
  buf[*n] = '\0';
  fclose(f);
  return buf;
}

/* a PNG file: check the signature and read the pixel size from the IHDR chunk */
static void assert_png(const char *path, int width, int height) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  long n = 0;
  unsigned char *b = (unsigned char *)slurp(path, &n);
  assert_true(n > 33);
  assert_memory_equal(b, sig, 8);
  // IHDR is the first chunk: length (4), "IHDR" (4), width (4, big endian), height (4)
  assert_memory_equal(b + 12, "IHDR", 4);
  long w = ((long)b[16] << 24) | ((long)b[17] << 16) | ((long)b[18] << 8) | b[19];
  long h = ((long)b[20] << 24) | ((long)b[21] << 16) | ((long)b[22] << 8) | b[23];
  assert_int_equal(w, width);
  assert_int_equal(h, height);
  free(b);
}

/* stdout and stderr redirected to a file, to prove the plots never print */
typedef struct quiet {
  int saved_out, saved_err, fd;
} quiet;

static void quiet_begin(quiet *q) {
  fflush(stdout);
  fflush(stderr);
  q->fd = open(tmp_path("console.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(q->fd >= 0);
  q->saved_out = dup(1);
  q->saved_err = dup(2);
  dup2(q->fd, 1);
  dup2(q->fd, 2);
}

/* restore the console; returns what was printed meanwhile (bytes) */
static long quiet_end(quiet *q) {
  fflush(stdout);
  fflush(stderr);
  dup2(q->saved_out, 1);
  dup2(q->saved_err, 2);
  close(q->saved_out);
  close(q->saved_err);
  close(q->fd);
  return file_size(tmp_path("console.txt"));
}

/* ---- fixtures ---------------------------------------------------------------------------- */

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/mbd_test_output_XXXXXX");
  return mkdtemp(g_dir) == NULL ? -1 : 0;
}

/* remove every file of the folder, then the folder, unless MBD_TEST_KEEP is set */
static int teardown(void **state) {
  (void)state;
  if (getenv("MBD_TEST_KEEP")) {
    fprintf(stderr, "kept %s\n", g_dir);
    return 0;
  }
  DIR *d = opendir(g_dir);
  if (d == NULL) {
    return -1;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      unlink(tmp_path(e->d_name));
    }
  }
  closedir(d);
  return rmdir(g_dir);
}

/* ---- CSV --------------------------------------------------------------------------------- */

/* values that a short format would lose, read back with strtod, compared bit for bit */
static void test_csv_roundtrip_exact(void **state) {
  (void)state;
  enum { N = 9 };
  double a[N] = {0.1,
                 1.0 / 3.0,
                 -0.0,
                 1e-300,
                 DBL_MAX,
                 DBL_MIN,
                 4.9406564584124654e-324,
                 3.141592653589793,
                 -2.0 / 7.0};
  double b[N];
  for (int i = 0; i < N; i++) {
    b[i] = exp(0.37 * i) * (i % 2 ? -1.0 : 1.0) + 1e-17 * i;
  }
  const char *names[2] = {"t", "x,quoted \"name\""};
  const double *cols[2] = {a, b};
  mbd_error err = {0};
  const char *path = tmp_path("round.csv");
  assert_int_equal(mbd_csv_write(path, 2, names, cols, N, &err), MBD_OK);

  // header: plain name, then the quoted one with doubled quotes
  long n = 0;
  char *text = slurp(path, &n);
  assert_true(strncmp(text, "t,\"x,quoted \"\"name\"\"\"\n", 22) == 0);

  // rows: parse each field with strtod and compare the bits
  char *p = strchr(text, '\n') + 1;
  for (int i = 0; i < N; i++) {
    char *end = NULL;
    double ra = strtod(p, &end);
    assert_int_equal(*end, ',');
    double rb = strtod(end + 1, &end);
    assert_int_equal(*end, '\n');
    p = end + 1;
    assert_memory_equal(&ra, &a[i], sizeof ra);
    assert_memory_equal(&rb, &b[i], sizeof rb);
  }
  assert_int_equal(*p, '\0');
  free(text);
  unlink(path);
}

/* non-finite values are written so strtod reads them back */
static void test_csv_nonfinite(void **state) {
  (void)state;
  double v[3] = {NAN, INFINITY, -INFINITY};
  const char *names[1] = {"v"};
  const double *cols[1] = {v};
  mbd_error err = {0};
  const char *path = tmp_path("nonfinite.csv");
  assert_int_equal(mbd_csv_write(path, 1, names, cols, 3, &err), MBD_OK);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[64];
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "v\n");
  for (int i = 0; i < 3; i++) {
    assert_non_null(fgets(line, sizeof line, f));
    double r = strtod(line, NULL);
    assert_true(i == 0 ? isnan(r) : r == v[i]);
  }
  fclose(f);
  unlink(path);
}

/* a path in a folder that does not exist: MBD_E_IO naming the path */
static void test_csv_unwritable(void **state) {
  (void)state;
  double v[1] = {1.0};
  const char *names[1] = {"v"};
  const double *cols[1] = {v};
  mbd_error err = {0};
  char path[300];
  snprintf(path, sizeof path, "%s/no_such_folder/out.csv", g_dir);
  assert_int_equal(mbd_csv_write(path, 1, names, cols, 1, &err), MBD_E_IO);
  assert_int_equal(err.code, MBD_E_IO);
  assert_non_null(strstr(err.msg, path));
  assert_non_null(strstr(err.msg, strerror(ENOENT)));

  // a folder is not a file either
  mbd_error_clear(&err);
  assert_int_equal(mbd_csv_write(g_dir, 1, names, cols, 1, &err), MBD_E_IO);
  assert_non_null(strstr(err.msg, g_dir));
}

/* bad arguments are MBD_E_INPUT before any file is touched */
static void test_csv_bad_input(void **state) {
  (void)state;
  const char *names[1] = {"v"};
  mbd_error err = {0};
  const char *path = tmp_path("bad.csv");
  assert_int_equal(mbd_csv_write(path, 0, names, NULL, 0, &err), MBD_E_INPUT);
  assert_int_equal(mbd_csv_write(path, 1, names, NULL, 2, &err), MBD_E_INPUT);
  assert_int_equal(mbd_csv_write(NULL, 1, names, NULL, 0, &err), MBD_E_INPUT);
  assert_int_equal(file_size(path), -1);
  // no rows is a valid, header-only file
  assert_int_equal(mbd_csv_write(path, 1, names, NULL, 0, &err), MBD_OK);
  assert_int_equal(file_size(path), 2);
  unlink(path);
}

/* ---- line plots -------------------------------------------------------------------------- */

enum { NP = 200 };
static double g_t[NP], g_sin[NP], g_cos[NP], g_damped[NP]; /* shared sample curves */

static void fill_curves(void) {
  for (int i = 0; i < NP; i++) {
    g_t[i] = 10.0 * i / (NP - 1);
    g_sin[i] = sin(g_t[i]);
    g_cos[i] = cos(g_t[i]);
    g_damped[i] = exp(-0.3 * g_t[i]) * cos(3.0 * g_t[i]);
  }
}

/* one series to PNG at a requested size: signature and IHDR size */
static void test_plot_png_size(void **state) {
  (void)state;
  fill_curves();
  mbd_plot_series s = {NULL, g_t, g_sin, NP};
  mbd_plot_spec spec = {.file = tmp_path("size.png"),
                        .title = "sin t",
                        .xlabel = "t (s)",
                        .ylabel = "x (m)",
                        .series = &s,
                        .nseries = 1,
                        .width = 640,
                        .height = 480};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 640, 480);

  // 0 x 0 means the default 800 x 600
  spec.file = tmp_path("default.png");
  spec.width = spec.height = 0;
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);
}

/* SVG output is an SVG document */
static void test_plot_svg(void **state) {
  (void)state;
  fill_curves();
  mbd_plot_series s[2] = {{"sin", g_t, g_sin, NP}, {"cos", g_t, g_cos, NP}};
  mbd_plot_spec spec = {.file = tmp_path("lines.svg"),
                        .title = "SVG",
                        .xlabel = "t",
                        .ylabel = "y",
                        .series = s,
                        .nseries = 2};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  long n = 0;
  char *text = slurp(spec.file, &n);
  assert_non_null(strstr(text, "<svg"));
  free(text);
}

/* several series with a legend, including more series than distinct colours */
static void test_plot_legend(void **state) {
  (void)state;
  fill_curves();
  mbd_plot_series s[3] = {{"sin t", g_t, g_sin, NP},
                          {"cos t", g_t, g_cos, NP},
                          {"exp(-0.3 t) cos 3t", g_t, g_damped, NP}};
  mbd_plot_spec spec = {.file = tmp_path("legend.png"),
                        .title = "Three series",
                        .xlabel = "time t (s)",
                        .ylabel = "response",
                        .series = s,
                        .nseries = 3};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // twelve unlabelled series: colours repeat with a dash, legend says "series k"
  enum { NS = 12 };
  static double y[NS][NP];
  mbd_plot_series many[NS];
  for (int k = 0; k < NS; k++) {
    for (int i = 0; i < NP; i++) {
      y[k][i] = sin(g_t[i] + 0.25 * k) + 0.2 * k;
    }
    many[k] = (mbd_plot_series){NULL, g_t, y[k], NP};
  }
  spec.file = tmp_path("many.png");
  spec.series = many;
  spec.nseries = NS;
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_true(file_size(spec.file) > 0);
}

/* a constant series (zero y range), and a single repeated point (zero x and y range) */
static void test_plot_constant(void **state) {
  (void)state;
  fill_curves();
  double c[NP], zero[NP];
  for (int i = 0; i < NP; i++) {
    c[i] = 2.5;
    zero[i] = 0.0;
  }
  mbd_plot_series s = {"constant", g_t, c, NP};
  mbd_plot_spec spec = {
      .file = tmp_path("constant.png"), .title = "constant", .series = &s, .nseries = 1};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // every point at the origin
  s = (mbd_plot_series){NULL, zero, zero, NP};
  spec.file = tmp_path("origin.svg");
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_true(file_size(spec.file) > 0);
}

/* NaN and infinite points break the line; a lone finite point still shows */
static void test_plot_nan(void **state) {
  (void)state;
  fill_curves();
  double y[NP];
  for (int i = 0; i < NP; i++) {
    y[i] = (i >= 50 && i < 60) || i == 62 ? NAN : g_sin[i];
  }
  y[0] = INFINITY;
  y[120] = -INFINITY;
  mbd_plot_series s = {"sin with gaps", g_t, y, NP};
  mbd_plot_spec spec = {.file = tmp_path("nan.png"),
                        .title = "gaps",
                        .xlabel = "t",
                        .ylabel = "y",
                        .series = &s,
                        .nseries = 1};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // no finite point at all is an input error
  double nan_y[3] = {NAN, NAN, NAN};
  s = (mbd_plot_series){NULL, g_t, nan_y, 3};
  spec.file = tmp_path("allnan.png");
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));
}

/* a locus with equal scales on both axes */
static void test_plot_equal_axes(void **state) {
  (void)state;
  double x[NP], y[NP];
  for (int i = 0; i < NP; i++) {
    double a = 6.283185307179586 * i / (NP - 1);
    x[i] = 2.0 * cos(a) + 1.0;
    y[i] = 0.5 * sin(a);
  }
  mbd_plot_series s = {"coupler point", x, y, NP};
  mbd_plot_spec spec = {.file = tmp_path("locus.png"),
                        .title = "locus",
                        .xlabel = "x (m)",
                        .ylabel = "y (m)",
                        .series = &s,
                        .nseries = 1,
                        .equal_axes = 1,
                        .width = 600,
                        .height = 600};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 600, 600);
}

/* unknown or missing extension, no series, unwritable path */
static void test_plot_errors(void **state) {
  (void)state;
  fill_curves();
  mbd_plot_series s = {NULL, g_t, g_sin, NP};
  mbd_plot_spec spec = {.file = tmp_path("figure.jpg"), .series = &s, .nseries = 1};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));
  assert_int_equal(file_size(spec.file), -1);
  spec.file = tmp_path("figure");
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));

  // zero series
  mbd_error_clear(&err);
  spec.file = tmp_path("zero.png");
  spec.nseries = 0;
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_E_INPUT);
  assert_int_equal(err.code, MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));
  assert_int_equal(mbd_plot_lines(NULL, &err), MBD_E_INPUT);

  // a folder that does not exist: MBD_E_IO naming the file, and PLplot never ran
  char path[300];
  snprintf(path, sizeof path, "%s/no_such_folder/plot.png", g_dir);
  spec.file = path;
  spec.nseries = 1;
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_E_IO);
  assert_non_null(strstr(err.msg, path));

  // a plot after failures still works (no stream or handler left behind)
  spec.file = tmp_path("after_errors.png");
  assert_int_equal(mbd_plot_lines(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);
}

/* ---- heat maps --------------------------------------------------------------------------- */

/* an error-norm-like surface over alpha, beta in 2..40 (paper 004's E1 grid) */
enum { HX = 20, HY = 15 };
static double g_hx[HX], g_hy[HY], g_hz[HX * HY];

static void fill_grid(void) {
  for (int i = 0; i < HX; i++) {
    g_hx[i] = 2.0 + 38.0 * i / (HX - 1);
  }
  for (int j = 0; j < HY; j++) {
    g_hy[j] = 2.0 + 38.0 * j / (HY - 1);
  }
  for (int j = 0; j < HY; j++) {
    for (int i = 0; i < HX; i++) {
      double a = g_hx[i], b = g_hy[j];
      g_hz[i + HX * j] = 1e-6 * exp(0.004 * (a - 15) * (a - 15) + 0.006 * (b - 25) * (b - 25));
    }
  }
}

static void test_heatmap(void **state) {
  (void)state;
  fill_grid();
  mbd_plot_heatmap_spec spec = {.file = tmp_path("heat.png"),
                                .title = "E1 over the grid",
                                .xlabel = "alpha",
                                .ylabel = "beta",
                                .zlabel = "E1",
                                .x = g_hx,
                                .nx = HX,
                                .y = g_hy,
                                .ny = HY,
                                .z = g_hz};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // with contour lines, at another size
  spec.file = tmp_path("heat_contour.png");
  spec.ncontour = 6;
  spec.width = 1000;
  spec.height = 700;
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  assert_png(spec.file, 1000, 700);

  // log10 colouring with contours; a zero and a NaN cell have no colour
  double z[HX * HY];
  memcpy(z, g_hz, sizeof z);
  z[3 + HX * 4] = 0.0;
  z[10 + HX * 10] = NAN;
  spec.z = z;
  spec.file = tmp_path("heat_log.png");
  spec.log_scale = 1;
  spec.zlabel = "E1 (log scale)";
  spec.width = spec.height = 0;
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // SVG as well
  spec.file = tmp_path("heat_log.svg");
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  long n = 0;
  char *text = slurp(spec.file, &n);
  assert_non_null(strstr(text, "<svg"));
  free(text);
}

/* the texts of an SVG file, each <text> element's content without its tags, hexadecimal
 * character references (PLplot's "&#x31;") decoded, joined by '|' into out */
static void svg_texts(const char *svg, char *out, size_t cap) {
  size_t o = 0;
  const char *p = svg;
  while ((p = strstr(p, "<text")) != NULL) {
    const char *end = strstr(p, "</text>");
    assert_non_null(end);
    // skip the opening tag, then copy the content outside tags
    p = strchr(p, '>') + 1;
    int in_tag = 0;
    for (; p < end && o + 2 < cap; p++) {
      if (*p == '<' || *p == '>') {
        in_tag = *p == '<';
      } else if (!in_tag && strncmp(p, "&#x", 3) == 0) {
        out[o++] = (char)strtol(p + 3, (char **)&p, 16);
      } else if (!in_tag && *p != '\n' && *p != ' ') {
        out[o++] = *p;
      }
    }
    out[o++] = '|';
    p = end;
  }
  out[o] = '\0';
}

/* a log colour bar labels every decade: z from 7.5e-12 to 3e-10 (log10 -11.1 .. -9.5) is coloured
 * over the whole decades 1e-12 .. 1e-9, and the bar carries 10^-12, 10^-11, 10^-10, 10^-9 and no
 * other (PLplot writes "10" and the exponent as two spans: "10-12") */
static void test_heatmap_decades(void **state) {
  (void)state;
  double x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 2, 3, 4, 5}, z[25];
  for (int j = 0; j < 5; j++) {
    for (int i = 0; i < 5; i++) {
      z[i + 5 * j] = 3e-12 * pow(10.0, (i + j + 2) / 5.0);
    }
  }
  mbd_plot_heatmap_spec spec = {.file = tmp_path("heat_decades.svg"), .x = x, .nx = 5, .y = y,
                                .ny = 5, .z = z, .log_scale = 1, .ncontour = 3};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  long n = 0;
  char *svg = slurp(spec.file, &n);
  char texts[4096];
  svg_texts(svg, texts, sizeof texts);
  free(svg);
  const char *want[4] = {"|10-12|", "|10-11|", "|10-10|", "|10-9|"};
  for (int k = 0; k < 4; k++) {
    if (!strstr(texts, want[k])) {
      fail_msg("colour bar label %s missing from the figure's texts '%s'", want[k], texts);
    }
  }
  assert_null(strstr(texts, "|10-13|"));
  assert_null(strstr(texts, "|10-8|"));
}

/* a constant map, a 1 x 1 grid, and the input errors */
static void test_heatmap_edge_cases(void **state) {
  (void)state;
  fill_grid();
  double c[HX * HY];
  for (int k = 0; k < HX * HY; k++) {
    c[k] = 3.0;
  }
  mbd_plot_heatmap_spec spec = {.file = tmp_path("heat_const.png"),
                                .x = g_hx,
                                .nx = HX,
                                .y = g_hy,
                                .ny = HY,
                                .z = c,
                                .ncontour = 3};
  mbd_error err = {0};
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);
  assert_png(spec.file, 800, 600);

  // a single cell
  spec.file = tmp_path("heat_one.png");
  spec.nx = spec.ny = 1;
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_OK);

  // log scale with no positive value, decreasing x, unknown extension
  double zero[HX * HY] = {0};
  spec.nx = HX;
  spec.ny = HY;
  spec.z = zero;
  spec.log_scale = 1;
  spec.file = tmp_path("heat_zero.png");
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));
  double xr[HX];
  for (int i = 0; i < HX; i++) {
    xr[i] = -g_hx[i];
  }
  spec.x = xr;
  spec.z = c;
  spec.log_scale = 0;
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_E_INPUT);
  spec.x = g_hx;
  spec.file = tmp_path("heat.pdf");
  assert_int_equal(mbd_plot_heatmap(&spec, &err), MBD_E_INPUT);
  assert_non_null(strstr(err.msg, spec.file));
}

/* ---- PLplot stays quiet ------------------------------------------------------------------ */

/* a line plot and a heat map print nothing to stdout or stderr */
static void test_plots_are_silent(void **state) {
  (void)state;
  fill_curves();
  fill_grid();
  mbd_plot_series s[2] = {{"sin", g_t, g_sin, NP}, {"cos", g_t, g_cos, NP}};
  mbd_plot_spec spec = {.file = tmp_path("quiet.png"), .title = "quiet", .series = s, .nseries = 2};
  mbd_plot_heatmap_spec heat = {.file = tmp_path("quiet_heat.svg"),
                                .x = g_hx,
                                .nx = HX,
                                .y = g_hy,
                                .ny = HY,
                                .z = g_hz,
                                .ncontour = 4,
                                .log_scale = 1};
  mbd_error err = {0};
  quiet q;
  quiet_begin(&q);
  int rc1 = mbd_plot_lines(&spec, &err);
  int rc2 = mbd_plot_heatmap(&heat, &err);
  long printed = quiet_end(&q);
  assert_int_equal(rc1, MBD_OK);
  assert_int_equal(rc2, MBD_OK);
  assert_int_equal(printed, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_csv_roundtrip_exact),
      cmocka_unit_test(test_csv_nonfinite),
      cmocka_unit_test(test_csv_unwritable),
      cmocka_unit_test(test_csv_bad_input),
      cmocka_unit_test(test_plot_png_size),
      cmocka_unit_test(test_plot_svg),
      cmocka_unit_test(test_plot_legend),
      cmocka_unit_test(test_plot_constant),
      cmocka_unit_test(test_plot_nan),
      cmocka_unit_test(test_plot_equal_axes),
      cmocka_unit_test(test_plot_errors),
      cmocka_unit_test(test_heatmap),
      cmocka_unit_test(test_heatmap_decades),
      cmocka_unit_test(test_heatmap_edge_cases),
      cmocka_unit_test(test_plots_are_silent),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
