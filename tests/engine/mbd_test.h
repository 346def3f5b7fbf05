/* shared helpers for the cmocka engine tests */
#ifndef MBD_TEST_H
#define MBD_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* Debian's cmocka 1.1.5 compares doubles as floats: this compares in double and prints both values */
#define MBD_ASSERT_NEAR(a, b, tol)                                                          \
  do {                                                                                      \
    double mbd_a_ = (a), mbd_b_ = (b), mbd_t_ = (tol);                                      \
    if (!(fabs(mbd_a_ - mbd_b_) <= mbd_t_)) {                                               \
      fail_msg("%s = %.17g, %s = %.17g, |diff| = %.3g > tol %.3g", #a, mbd_a_, #b, mbd_b_, \
               fabs(mbd_a_ - mbd_b_), mbd_t_);                                              \
    }                                                                                       \
  } while (0)

#endif
