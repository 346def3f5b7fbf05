/* fixture for message_literals.sh: five calls with a literal format (reported), then calls and
 * text that only look like them (not reported).  Never compiled. */
#include "model_msg.h"

int bad(mbd_model *m, mbd_error *err, int x) {
  // 1. the plain case
  MBD_FAIL(err, MBD_E_INPUT, "model: x = %d", x);
  // 2. the literal on a later line, in two pieces
  MBD_FAIL(err,
           MBD_E_INPUT,
           "model: a long message "
           "in two pieces");
  // 3. a context error of the symbolic engine
  SYM_FAIL(ctx, MBD_E_NOMEM, "sym: out of memory");
  // 4. a warning
  mbd_model_warn(m, "body '%s': a warning", "b");
  // 5. a literal behind a condition
  return MBD_FAIL(err, MBD_E_INPUT, x ? "yes" : MSG_MODEL_NO);
}

int good(mbd_model *m, mbd_error *err, int x) {
  /* a call in a comment is not one: MBD_FAIL(err, MBD_E_INPUT, "in a comment") */
  // nor here: mbd_model_warn(m, "in a line comment");
  const char *s = "MBD_FAIL(err, MBD_E_INPUT, \"in a string\")";
  char c = '(', d = ',', q = '"';
  // literals as arguments after the template, commas inside the arguments before it
  MBD_FAIL(pick(err, x), MBD_E_INPUT, MSG_MODEL_SAME_BODY, "revolute", name(m, "j"), "b");
  mbd_model_warn(m, MSG_MODEL_EULER_NORM, x ? "a" : "b", 2.0);
  mbd_error_set(err, MBD_E_INPUT, __func__, __LINE__, MSG_MODEL_DIM, "m", 4);
  return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_JOINT_INDEX, s[0] == c || d == q ? "drive" : "x");
}

/* the definition of a recording function takes its format as a parameter */
void mbd_model_warn(mbd_model *m, const char *fmt, ...) { (void)m, (void)fmt; }
