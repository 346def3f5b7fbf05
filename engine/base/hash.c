/* FNV-1a over a description, SHA-256 through nettle (mbd/hash.h) */
#include "mbd/hash.h"

#include <nettle/sha2.h>
#include <string.h>

void mbd_hash_init(mbd_hash *s) { s->h = 14695981039346656037ull; }

void mbd_hash_bytes(mbd_hash *s, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    s->h ^= c[i];
    s->h *= 1099511628211ull;  // the 64-bit FNV prime
  }
}

void mbd_hash_int(mbd_hash *s, int v) {
  int64_t w = v;
  mbd_hash_bytes(s, &w, sizeof w);
}

void mbd_hash_doubles(mbd_hash *s, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    double x = v[i] == 0 ? 0.0 : v[i];
    mbd_hash_bytes(s, &x, sizeof x);
  }
}

void mbd_hash_str(mbd_hash *s, const char *str) { mbd_hash_bytes(s, str, strlen(str) + 1); }

/* n bytes as 2n lowercase hexadecimal digits and a terminator */
static void hex(const uint8_t *d, int n, char *out) {
  static const char digit[] = "0123456789abcdef";
  for (int i = 0; i < n; i++) {
    out[2 * i] = digit[d[i] >> 4];
    out[2 * i + 1] = digit[d[i] & 15];
  }
  out[2 * n] = '\0';
}

void mbd_hash_hex(const mbd_hash *s, char out[17]) {
  uint8_t d[8];
  for (int i = 0; i < 8; i++) {
    d[i] = (uint8_t)(s->h >> (56 - 8 * i));  // (most significant first, as "%016llx")
  }
  hex(d, 8, out);
}

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(((mbd_sha256 *)0)->state),
               "mbd_sha256 holds nettle's context");

void mbd_sha256_init(mbd_sha256 *s) { sha256_init((struct sha256_ctx *)s->state); }

void mbd_sha256_update(mbd_sha256 *s, const void *p, size_t n) {
  sha256_update((struct sha256_ctx *)s->state, n, p);
}

void mbd_sha256_final(mbd_sha256 *s, char out[65]) {
  uint8_t d[SHA256_DIGEST_SIZE];
  sha256_digest((struct sha256_ctx *)s->state, sizeof d, d);
  hex(d, SHA256_DIGEST_SIZE, out);
}

void mbd_sha256_parts(char out[65], const void *const *p, const size_t *n, int k) {
  mbd_sha256 s;
  mbd_sha256_init(&s);
  for (int i = 0; i < k; i++) {
    mbd_sha256_update(&s, p[i], n[i]);
  }
  mbd_sha256_final(&s, out);
}

void mbd_sha256_hex(char out[65], const void *p, size_t n) {
  mbd_sha256_parts(out, &p, &n, 1);
}
