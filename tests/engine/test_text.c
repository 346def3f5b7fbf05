/* tests of engine/base/text.c: names as UTF-8 text (RFC 3629's well-formed sequences) and their
 * escaped form in messages */
#include <string.h>

#include "mbd/text.h"
#include "mbd_test.h"

/* well-formed: ASCII, two-, three- and four-byte sequences at the edges of their ranges */
static void test_utf8_valid(void **state) {
  (void)state;
  assert_int_equal(mbd_text_utf8_error(""), -1);
  assert_int_equal(mbd_text_utf8_error("link2"), -1);
  assert_int_equal(mbd_text_utf8_error("\xc3\xa4rm"), -1);        // U+00E4
  assert_int_equal(mbd_text_utf8_error("\xe2\x80\x94"), -1);      // U+2014
  assert_int_equal(mbd_text_utf8_error("\xed\x9f\xbf"), -1);      // U+D7FF, below surrogates
  assert_int_equal(mbd_text_utf8_error("\xf0\x90\x80\x80"), -1);  // U+10000
  assert_int_equal(mbd_text_utf8_error("\xf4\x8f\xbf\xbf"), -1);  // U+10FFFF
}

/* malformed: the offset of the first bad sequence */
static void test_utf8_invalid(void **state) {
  (void)state;
  assert_int_equal(mbd_text_utf8_error("b\xe4rm"), 1);           // Latin-1 ä
  assert_int_equal(mbd_text_utf8_error("ab\x80"), 2);            // a lone continuation byte
  assert_int_equal(mbd_text_utf8_error("\xc3"), 0);              // cut short
  assert_int_equal(mbd_text_utf8_error("\xc0\xaf"), 0);          // overlong '/'
  assert_int_equal(mbd_text_utf8_error("\xe0\x80\xaf"), 0);      // overlong, three bytes
  assert_int_equal(mbd_text_utf8_error("\xed\xa0\x80"), 0);      // a surrogate
  assert_int_equal(mbd_text_utf8_error("\xf4\x90\x80\x80"), 0);  // above U+10FFFF
  assert_int_equal(mbd_text_utf8_error("ok\xc3\xa4\xff"), 4);    // after a good one
}

/* escaped: good text as it is, bad bytes and control characters as \xNN, cut to fit */
static void test_escape(void **state) {
  (void)state;
  char out[64];
  mbd_text_escape(out, sizeof out, "b\xe4rm \xc3\xa4\n");
  assert_string_equal(out, "b\\xE4rm \xc3\xa4\\x0A");
  char small[6];
  mbd_text_escape(small, sizeof small,
                  "ab\xff"
                  "cd");
  assert_string_equal(small, "ab");  // "\xFF" does not fit: cut before it
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8_valid),
      cmocka_unit_test(test_utf8_invalid),
      cmocka_unit_test(test_escape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
