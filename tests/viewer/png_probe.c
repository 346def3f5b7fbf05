/* png_probe: pixel facts of screenshots, for the viewer's tests (libpng's simplified API).
 *   png_probe size FILE                     prints "W H"
 *   png_probe centroid FILE RRGGBB TOL      prints "N CX CY": the N pixels within TOL (per
 *                                           channel, 0..255) of the colour, and their centroid in
 *                                           pixel coordinates (x right, y down, pixel centres at
 *                                           i + 0.5); N = 0 prints "0 nan nan"
 *   png_probe far FILE RRGGBB TOL X Y W     the far end of a body drawn in that colour seen from
 *                                           the pixel point (X, Y) (a pin): prints "N DMAX CX CY
 *                                           BEHIND": the N pixels of the colour, the largest
 *                                           distance DMAX of one from (X, Y), the centroid of those
 *                                           farther than DMAX − W, and the count BEHIND of those
 *                                           more than W behind (X, Y) seen from the centroid of all
 *   png_probe diff FILE1 FILE2 TOL          prints the number of pixels whose colours differ by
 *                                           more than TOL in some channel (same sizes required)
 * Exit 0, or 1 with a message on standard error. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
  int w, h;
  unsigned char *px; /* RGB, row-major, 3 bytes a pixel */
} image;

static int load(const char *file, image *im) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, file)) {
    fprintf(stderr, "png_probe: %s: %s\n", file, png.message);
    return 0;
  }
  png.format = PNG_FORMAT_RGB;
  im->w = (int)png.width;
  im->h = (int)png.height;
  im->px = malloc(PNG_IMAGE_SIZE(png));
  if (!im->px || !png_image_finish_read(&png, NULL, im->px, 0, NULL)) {
    fprintf(stderr, "png_probe: %s: %s\n", file, im->px ? png.message : "out of memory");
    free(im->px);
    png_image_free(&png);
    return 0;
  }
  return 1;
}

static int near(const unsigned char *a, const unsigned char *b, int tol) {
  for (int k = 0; k < 3; k++) {
    if (abs((int)a[k] - (int)b[k]) > tol) {
      return 0;
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "size") == 0) {
    image im;
    if (!load(argv[2], &im)) {
      return 1;
    }
    printf("%d %d\n", im.w, im.h);
    free(im.px);
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "centroid") == 0) {
    image im;
    unsigned rgb = (unsigned)strtoul(argv[3], NULL, 16);
    unsigned char want[3] = {(unsigned char)(rgb >> 16), (unsigned char)(rgb >> 8),
                             (unsigned char)rgb};
    int tol = atoi(argv[4]);
    if (!load(argv[2], &im)) {
      return 1;
    }
    long n = 0;
    double sx = 0, sy = 0;
    for (int y = 0; y < im.h; y++) {
      for (int x = 0; x < im.w; x++) {
        if (near(im.px + 3 * ((size_t)y * im.w + x), want, tol)) {
          n++;
          sx += x + 0.5;
          sy += y + 0.5;
        }
      }
    }
    if (n) {
      printf("%ld %.3f %.3f\n", n, sx / n, sy / n);
    } else {
      printf("0 nan nan\n");
    }
    free(im.px);
    return 0;
  }
  if (argc == 8 && strcmp(argv[1], "far") == 0) {
    image im;
    unsigned rgb = (unsigned)strtoul(argv[3], NULL, 16);
    unsigned char want[3] = {(unsigned char)(rgb >> 16), (unsigned char)(rgb >> 8),
                             (unsigned char)rgb};
    int tol = atoi(argv[4]);
    double px = atof(argv[5]), py = atof(argv[6]), w = atof(argv[7]);
    if (!load(argv[2], &im)) {
      return 1;
    }
    // pass 1: count, centroid of all, farthest distance; pass 2: the far end and those behind
    long n = 0, nf = 0, behind = 0;
    double gx = 0, gy = 0, dmax = 0, fx = 0, fy = 0;
    for (int pass = 0; pass < 2; pass++) {
      double ux = gx - px, uy = gy - py, ul = sqrt(ux * ux + uy * uy);
      for (int y = 0; y < im.h; y++) {
        for (int x = 0; x < im.w; x++) {
          if (!near(im.px + 3 * ((size_t)y * im.w + x), want, tol)) {
            continue;
          }
          double dx = x + 0.5 - px, dy = y + 0.5 - py, d = sqrt(dx * dx + dy * dy);
          if (pass == 0) {
            n++;
            gx += x + 0.5;
            gy += y + 0.5;
            dmax = d > dmax ? d : dmax;
          } else {
            if (d >= dmax - w) {
              nf++;
              fx += x + 0.5;
              fy += y + 0.5;
            }
            if (ul > 0 && (dx * ux + dy * uy) / ul < -w) {
              behind++;
            }
          }
        }
      }
      if (pass == 0 && n) {
        gx /= n;
        gy /= n;
      }
    }
    if (nf) {
      printf("%ld %.3f %.3f %.3f %ld\n", n, dmax, fx / nf, fy / nf, behind);
    } else {
      printf("0 0 nan nan 0\n");
    }
    free(im.px);
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "diff") == 0) {
    image a, b;
    int tol = atoi(argv[4]);
    if (!load(argv[2], &a)) {
      return 1;
    }
    if (!load(argv[3], &b)) {
      free(a.px);
      return 1;
    }
    if (a.w != b.w || a.h != b.h) {
      fprintf(stderr, "png_probe: sizes differ: %dx%d and %dx%d\n", a.w, a.h, b.w, b.h);
      free(a.px);
      free(b.px);
      return 1;
    }
    long n = 0;
    for (size_t i = 0; i < (size_t)a.w * a.h; i++) {
      n += !near(a.px + 3 * i, b.px + 3 * i, tol);
    }
    printf("%ld\n", n);
    free(a.px);
    free(b.px);
    return 0;
  }
  fprintf(stderr, "usage: png_probe size FILE | centroid FILE RRGGBB TOL | far FILE RRGGBB TOL X Y W | "
                  "diff FILE1 FILE2 TOL\n");
  return 1;
}
