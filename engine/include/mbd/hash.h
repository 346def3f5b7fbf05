/* a 64-bit FNV-1a hash of a description, field by field (run manifests: model_hash for models
 * and systems).  Not cryptographic: it tells two descriptions apart, it does not guard them.
 * SHA-256 (from nettle, Debian's nettle-dev) where a digest must guard something: the names and
 * contents of the compiled-code cache, a sweep's checkpoint. */
#ifndef MBD_HASH_H
#define MBD_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct mbd_hash {
  uint64_t h;
} mbd_hash;

/* the FNV offset basis */
void mbd_hash_init(mbd_hash *s);
void mbd_hash_bytes(mbd_hash *s, const void *p, size_t n);
/* as a 64-bit integer, so the width of int does not matter */
void mbd_hash_int(mbd_hash *s, int v);
/* doubles by value: -0 and 0 hash alike */
void mbd_hash_doubles(mbd_hash *s, const double *v, int n);
/* a string with its terminator, so "ab" + "c" and "a" + "bc" differ */
void mbd_hash_str(mbd_hash *s, const char *str);
/* the hash as 16 hexadecimal digits */
void mbd_hash_hex(const mbd_hash *s, char out[17]);

/* SHA-256 by parts: init, update with each piece, final (the state is nettle's sha256_ctx) */
typedef struct mbd_sha256 {
  uint64_t state[16]; /* nettle's context, opaque */
} mbd_sha256;
void mbd_sha256_init(mbd_sha256 *s);
void mbd_sha256_update(mbd_sha256 *s, const void *p, size_t n);
/* the digest as 64 lowercase hexadecimal digits and a terminator; s is spent */
void mbd_sha256_final(mbd_sha256 *s, char out[65]);

/* SHA-256 of k byte ranges (p[i], n[i]) taken one after another, as 64 lowercase hexadecimal
 * digits and a terminator */
void mbd_sha256_parts(char out[65], const void *const *p, const size_t *n, int k);
/* SHA-256 of n bytes at p, in hexadecimal */
void mbd_sha256_hex(char out[65], const void *p, size_t n);

#endif
