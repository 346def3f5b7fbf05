/* allocation counting for the tests linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc:
 * every allocation made by the engine's static libraries (and the test itself) goes through the
 * wrappers below and bumps `allocations`.  (SUNDIALS and OpenBLAS are shared libraries and are not
 * counted.)  Include it in exactly one file of such a test. */
#ifndef MBD_ALLOC_COUNT_H
#define MBD_ALLOC_COUNT_H

#include <stddef.h>

static long allocations = 0; /* allocations made since the test started */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n) {
  allocations++;
  return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
  allocations++;
  return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
  allocations++;
  return __real_realloc(p, n);
}

#endif
