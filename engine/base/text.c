/* names and numbers as text: UTF-8 validation and escaping for messages, the shortest text of a
 * number (mbd/text.h) */
#include "mbd/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the length of the well-formed UTF-8 sequence at p (RFC 3629's table), 0 when malformed */
static size_t sequence(const unsigned char *p) {
  unsigned c = p[0];
  if (c < 0x80) {
    return 1;
  }
  // lead byte: the length, and the range of the second byte
  size_t n;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi) {
    return 0;
  }
  for (size_t k = 2; k < n; k++) {
    if (p[k] < 0x80 || p[k] > 0xBF) {
      return 0;
    }
  }
  return n;
}

long mbd_text_utf8_error(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; p[i];) {
    size_t n = sequence(p + i);
    if (!n) {
      return (long)i;
    }
    i += n;
  }
  return -1;
}

void mbd_text_escape(char *out, size_t cap, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t o = 0;
  for (size_t i = 0; p[i];) {
    size_t n = sequence(p + i);
    char buf[8];
    if (n == 1 && (p[i] < 0x20 || p[i] == 0x7F)) {
      n = 0;  // control characters are escaped too
    }
    if (n) {
      memcpy(buf, p + i, n);
      i += n;
    } else {
      snprintf(buf, sizeof buf, "\\x%02X", p[i]);
      n = 4;
      i++;
    }
    if (o + n >= cap) {
      break;
    }
    memcpy(out + o, buf, n);
    o += n;
  }
  out[o] = '\0';
}

const char *mbd_text_num(char *buf, size_t cap, double v) {
  if (isnan(v)) {
    snprintf(buf, cap, "NaN");
    return buf;
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, cap, "%.*g", p, v);
    if (strtod(buf, NULL) == v) {
      break;
    }
  }
  return buf;
}

/* the bytes of s that fit from out[*at] (cap bytes with the terminator), *at advanced */
static void append(char *out, size_t cap, size_t *at, const char *s) {
  size_t n = strlen(s), room = cap - 1 - *at;
  n = n < room ? n : room;
  memcpy(out + *at, s, n);
  *at += n;
}

char *mbd_text_join(char *out, size_t cap, const char *a, const char *sep, const char *b) {
  size_t at = 0;
  append(out, cap, &at, a);
  if (b) {
    append(out, cap, &at, sep);
    append(out, cap, &at, b);
  }
  out[at] = '\0';
  return out;
}
