/* metadata in figure files (mbd/output.h: mbd_plot_meta): PNG iTXt chunks after the header
 * chunk, or an SVG <metadata> element after the <svg> start tag.  The plots check the figure
 * PLplot rendered and write it with its metadata here, before it reaches its name. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_impl.h"

/* the whole file into a malloc'd buffer (*len bytes); NULL with errno set on failure */
unsigned char *out_slurp(const char *file, size_t *len) {
  FILE *f = fopen(file, "rb");
  if (!f) {
    return NULL;
  }
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      unsigned char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      break;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  *len = n;
  return buf;
}

/* CRC-32 of PNG chunks (ISO 3309, the polynomial of zlib); the table is made per call (a few
 * microseconds, and no shared state) */
static uint32_t crc32_png(const unsigned char *p, size_t n) {
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) {
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    table[i] = c;
  }
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  }
  return c ^ 0xffffffffu;
}

static int put_be32(FILE *f, uint32_t v) {
  unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                        (unsigned char)v};
  return fwrite(b, 1, 4, f) == 4 ? 0 : -1;
}

/* one iTXt chunk: keyword "mbd.<key>", no compression, no language, UTF-8 text */
static int put_itxt(FILE *f, const char *key, const char *value) {
  char kw[80];
  snprintf(kw, sizeof kw, "mbd.%s", key);
  size_t kn = strlen(kw), vn = strlen(value);
  size_t n = 4 + kn + 5 + vn;  // type, keyword\0, flag, method, language\0, translated\0, text
  unsigned char *c = malloc(n);
  if (!c) {
    return -1;
  }
  memcpy(c, "iTXt", 4);
  memcpy(c + 4, kw, kn + 1);
  c[4 + kn + 1] = 0;  // not compressed
  c[4 + kn + 2] = 0;  // compression method
  c[4 + kn + 3] = 0;  // empty language tag
  c[4 + kn + 4] = 0;  // empty translated keyword
  memcpy(c + 4 + kn + 5, value, vn);
  int bad = put_be32(f, (uint32_t)(n - 4)) != 0 || fwrite(c, 1, n, f) != n ||
            put_be32(f, crc32_png(c, n)) != 0;
  free(c);
  return bad ? -1 : 0;
}

/* an SVG gets a <metadata> element (an empty one when there is no entry, as before) */
static int svg_meta(int png, int n) {
  return !png && n > 0;
}

/* SVG text with &, <, > escaped */
static int put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : NULL;
    if (e ? fputs(e, f) < 0 : fputc(*s, f) == EOF) {
      return -1;
    }
  }
  return 0;
}

int out_figure_check(const unsigned char *buf, size_t len, int png, size_t *at) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (png) {
    // signature, IHDR first, then every chunk within the file up to IEND, which ends it
    if (len < 33 || memcmp(buf, sig, 8) != 0 || memcmp(buf + 12, "IHDR", 4) != 0) {
      return -1;
    }
    size_t off = 8;
    for (;;) {
      if (len - off < 12) {
        return -1;
      }
      uint32_t n = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
                   (uint32_t)buf[off + 2] << 8 | buf[off + 3];
      if (n > len - off - 12) {
        return -1;
      }
      int end = memcmp(buf + off + 4, "IEND", 4) == 0;
      off += 12 + (size_t)n;
      if (end) {
        break;
      }
    }
    if (off != len) {
      return -1;
    }
    *at = 33;  // signature, IHDR length, type, 13 data bytes, CRC
    return 0;
  }
  // SVG: the start tag's end, and the closing tag near the end of the file
  const char *s = memmem(buf, len, "<svg", 4);
  const char *e = s ? memchr(s, '>', len - (size_t)((const unsigned char *)s - buf)) : NULL;
  size_t tail = len < 64 ? len : 64;
  if (!e || !memmem(buf + len - tail, tail, "</svg>", 6)) {
    return -1;
  }
  *at = (size_t)((const unsigned char *)e - buf) + 1;
  return 0;
}

int out_figure_write(FILE *f, const unsigned char *buf, size_t len, int png, size_t at,
                     const char *const *keys, const char *const *values, int n) {
  int bad = fwrite(buf, 1, at, f) != at;
  if (svg_meta(png, n) && !bad) {
    bad = fputs("\n<metadata id=\"mbd-manifest\">\n", f) < 0;
  }
  for (int i = 0; i < n && !bad; i++) {
    const char *k = keys[i] ? keys[i] : "", *v = values[i] ? values[i] : "";
    if (png) {
      bad = put_itxt(f, k, v) != 0;
    } else {
      bad = put_escaped(f, k) != 0 || fputs(": ", f) < 0 || put_escaped(f, v) != 0 ||
            fputc('\n', f) == EOF;
    }
  }
  if (svg_meta(png, n) && !bad) {
    bad = fputs("</metadata>", f) < 0;
  }
  bad = bad || fwrite(buf + at, 1, len - at, f) != len - at;
  return bad ? -1 : 0;
}
