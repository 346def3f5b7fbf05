/* tests of engine/base/text.c: names as UTF-8 text (RFC 3629's well-formed sequences), their
 * escaped form in messages and their joining; and of engine/base/hash.c's digests as text */
#include <stdio.h>
#include <string.h>

#include "mbd/hash.h"
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

/* joined: the same bytes as snprintf's "%s%s%s" at every size, from a single byte up (a name
 * longer than its field is cut where snprintf cuts it) */
static void test_join(void **state) {
  (void)state;
  const char *a[] = {"", "link2", "b\xc3\xa4rm", "a_rather_long_body_name"};
  const char *b[] = {NULL, "", "x", "theta_dot"};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    for (size_t j = 0; j < sizeof b / sizeof *b; j++) {
      for (size_t cap = 1; cap <= 40; cap++) {
        char want[64], got[64];
        memset(got, '#', sizeof got);
        snprintf(want, cap, "%s%s%s", a[i], b[j] ? "." : "", b[j] ? b[j] : "");
        assert_ptr_equal(mbd_text_join(got, cap, a[i], ".", b[j]), got);
        assert_string_equal(got, want);
        assert_int_equal(got[cap], '#');  // nothing written past the field
      }
    }
  }
}

/* digests as text: SHA-256 of "abc" (FIPS 180-2's first example), and the 64-bit hash in the
 * digits printf gives it */
static void test_digests(void **state) {
  (void)state;
  char out[65];
  mbd_sha256_hex(out, "abc", 3);
  assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  mbd_hash h;
  mbd_hash_init(&h);
  for (int k = 0; k < 5; k++) {
    char hex[17], want[17];
    mbd_hash_hex(&h, hex);
    snprintf(want, sizeof want, "%016llx", (unsigned long long)h.h);
    assert_string_equal(hex, want);
    mbd_hash_int(&h, 1000003 * k);
  }
  h.h = 0x00f0000000000a01ULL;  // leading zeros, and digits on both sides of 9
  mbd_hash_hex(&h, out);
  assert_string_equal(out, "00f0000000000a01");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_join),
      cmocka_unit_test(test_digests),
      cmocka_unit_test(test_utf8_valid),
      cmocka_unit_test(test_utf8_invalid),
      cmocka_unit_test(test_escape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
