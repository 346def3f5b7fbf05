/* fixture for message_literals.sh: one binding call with a literal message (reported), then calls
 * that only look like it (not reported).  Never compiled. */
#include "l_msg.h"

static int bad(lua_State *L, int x) {
  // 6. the binding's plain case
  return luaL_error(L, "simulate: x = %d", x);
}

static int good(lua_State *L, const char *msg) {
  // a message made elsewhere, raised as it is; a template; literals after the template
  if (msg) {
    return luaL_error(L, "%s", msg);
  }
  luaL_argerror(L, 1, LMSG_SYM_VARIABLE_EXPECTED);
  return luaL_error(L, LMSG_UTIL_FIELD_NUMBER, "simulate", "t_end", "string");
}
