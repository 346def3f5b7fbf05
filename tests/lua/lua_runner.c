/* a minimal runner for Lua-level tests: opens the standard libraries and the sym module (as the
 * global `sym` and as `mbd.sym`), then runs the script given on the command line.  Exit status 0
 * when the script runs to its end, 1 with "file:line: message" and a traceback otherwise. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>

#include "l_sym.h"

static int traceback(lua_State *L) {
  luaL_traceback(L, L, luaL_tolstring(L, 1, NULL), 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s script.lua\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "cannot create a Lua state\n");
    return 1;
  }
  luaL_openlibs(L);
  lua_pushcfunction(L, mbd_open_sym);
  lua_call(L, 0, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "sym");
  lua_newtable(L);
  lua_insert(L, -2);
  lua_setfield(L, -2, "sym");
  lua_setglobal(L, "mbd");
  lua_pushcfunction(L, traceback);
  int rc = luaL_loadfile(L, argv[1]);
  if (rc == LUA_OK) {
    rc = lua_pcall(L, 0, 0, -2);
  }
  if (rc != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
  }
  lua_close(L);
  return rc == LUA_OK ? 0 : 1;
}
