/* require "mbd" from a stock Lua 5.4 interpreter: the Lua C module mbd.so.  The same binding as
 * the mbd program's (l_mbd.c), plus help: the module returns the mbd table, sets the globals
 * mbd and help as the program does, and finds the stdlib next to where it is installed
 * (l_mbd.c).  Built without liblua: the interpreter that loads the module provides Lua. */
#include <lauxlib.h>
#include <lua.h>

#include "l_mbd.h"

int luaopen_mbd(lua_State *L);

int luaopen_mbd(lua_State *L) {
  mbd_open(L);
  // help(x) and mbd.help (stdlib/mbd/help.lua sets the global help itself)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.help");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "help");
  return 1;
}
