/* shared helpers for the cmocka engine tests */
#ifndef MBD_TEST_H
#define MBD_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mbd/status.h"

/* Debian's cmocka 1.1.5 compares doubles as floats: this compares in double and prints both values */
#define MBD_ASSERT_NEAR(a, b, tol)                                                          \
  do {                                                                                      \
    double mbd_a_ = (a), mbd_b_ = (b), mbd_t_ = (tol);                                      \
    if (!(fabs(mbd_a_ - mbd_b_) <= mbd_t_)) {                                               \
      fail_msg("%s = %.17g, %s = %.17g, |diff| = %.3g > tol %.3g", #a, mbd_a_, #b, mbd_b_, \
               fabs(mbd_a_ - mbd_b_), mbd_t_);                                              \
    }                                                                                       \
  } while (0)

/* expected errors check code and template (STYLE.md 17): the templates are the engine's private
 * MSG_* macros (engine/<library>/<library>_msg.h), never copies of their text */

/* 1 when msg is an instance of the printf template tmpl: its literal text in order, each
 * conversion standing for any text (the engine writes a not-a-number as "NaN") */
static inline int mbd_msg_fits(const char *msg, const char *tmpl) {
  while (*tmpl) {
    if (tmpl[0] == '%' && tmpl[1] == '%') {
      if (*msg != '%') {
        return 0;
      }
      msg++;
      tmpl += 2;
    } else if (*tmpl == '%') {
      const char *rest = tmpl + 1 + strspn(tmpl + 1, "-+ #0123456789.hlLzjt");
      if (*rest == '\0') {
        return 0;
      }
      rest++;
      // the conversion takes the shortest text after which the rest of the template fits
      for (const char *m = msg;; m++) {
        if (mbd_msg_fits(m, rest)) {
          return 1;
        }
        if (*m == '\0') {
          return 0;
        }
      }
    } else {
      if (*msg != *tmpl) {
        return 0;
      }
      msg++;
      tmpl++;
    }
  }
  return *msg == '\0';
}

/* the message is an instance of the template (for arguments the test cannot know: a time the
 * integrator chose, a NaN, an errno text) */
#define MBD_ASSERT_FITS(text, tmpl)                                                          \
  do {                                                                                       \
    const char *mbd_m_ = (text);                                                             \
    if (!mbd_msg_fits(mbd_m_, (tmpl))) {                                                     \
      fail_msg("message '%s' does not fit the template %s = \"%s\"", mbd_m_, #tmpl, (tmpl)); \
    }                                                                                        \
  } while (0)

/* 1 when msg is the template formatted with the arguments; want receives that text */
static inline int mbd_msg_equals(const char *msg, char *want, size_t cap, const char *tmpl, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static inline int mbd_msg_equals(const char *msg, char *want, size_t cap, const char *tmpl, ...) {
  va_list ap;
  va_start(ap, tmpl);
  vsnprintf(want, cap, tmpl, ap);
  va_end(ap);
  return strcmp(msg, want) == 0;
}

/* the message is the template formatted with the arguments the engine was given:
 * MBD_ASSERT_MSG(msg, MSG_X, args...) */
#define MBD_ASSERT_MSG(text, ...)                                              \
  do {                                                                         \
    const char *mbd_got_ = (text);                                             \
    char mbd_want_[sizeof((mbd_error *)0)->msg];                               \
    if (!mbd_msg_equals(mbd_got_, mbd_want_, sizeof mbd_want_, __VA_ARGS__)) { \
      fail_msg("message '%s', expected '%s'", mbd_got_, mbd_want_);            \
    }                                                                          \
  } while (0)

/* rc (the status returned) and err->code are status, and err->msg is the template formatted with
 * the given arguments */
#define MBD_EXPECT_ERROR(rc, err, status, ...)                                          \
  do {                                                                                  \
    int mbd_rc_ = (rc), mbd_status_ = (status);                                         \
    const mbd_error *mbd_e_ = (err);                                                    \
    if (mbd_rc_ != mbd_status_ || mbd_e_->code != mbd_status_) {                        \
      fail_msg("expected %s, got %d / %d: '%s'", mbd_status_name(mbd_status_), mbd_rc_, \
               mbd_e_->code, mbd_e_->msg);                                              \
    }                                                                                   \
    MBD_ASSERT_MSG(mbd_e_->msg, __VA_ARGS__);                                           \
  } while (0)

#endif
