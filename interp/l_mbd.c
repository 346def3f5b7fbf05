/* the `mbd` module: registration of every concern's bindings */
#include "l_mbd.h"

#include "l_model.h"
#include "l_objects.h"
#include "l_parallel.h"
#include "l_relative.h"
#include "l_rot.h"
#include "l_run.h"
#include "l_sym.h"
#include "l_system.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>

#ifndef MBD_STDLIB_DIR
#define MBD_STDLIB_DIR "stdlib"
#endif
#ifndef MBD_VERSION_STRING
#define MBD_VERSION_STRING "0.0.0"
#endif

const char *mbd_version(void) { return MBD_VERSION_STRING; }

/* prepend DIR/?.lua;DIR/?/init.lua to package.path */
static void set_path(lua_State *L) {
  const char *dir = getenv("MBD_STDLIB");
  if (!dir || !*dir) {
    dir = MBD_STDLIB_DIR;
  }
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", dir, dir, lua_tostring(L, -1));
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
}

/* every concern's bindings, in registration order.  Each mbd_open_<concern>(L) either adds its
 * functions to the mbd table on top of the stack and returns 0, or pushes its own table and
 * returns 1: that table becomes mbd.<name>. */
static const struct {
  const char *name; /* the field of a concern with its own table, else NULL */
  int (*open)(lua_State *L);
} concerns[] = {
    {NULL, mbd_open_model}, {NULL, mbd_open_objects}, {NULL, mbd_open_run},
    {"rot", mbd_open_rot},  {NULL, mbd_open_system},  {NULL, mbd_open_parallel},
    {"sym", mbd_open_sym},   {NULL, mbd_open_relative},
};

int mbd_open(lua_State *L) {
  set_path(L);
  lua_newtable(L);
  lua_pushstring(L, mbd_version());
  lua_setfield(L, -2, "version");
  for (size_t i = 0; i < sizeof concerns / sizeof concerns[0]; i++) {
    if (concerns[i].open(L) == 1) {
      lua_setfield(L, -2, concerns[i].name);
    }
  }
  lua_pushvalue(L, -1);
  lua_setglobal(L, "mbd");
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "mbd");
  lua_pop(L, 1);
  // mbd.sweep is written in Lua (stdlib/mbd/sweep.lua)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.sweep");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "sweep");
  // mbd.macro (paper 002's macro elements) is written in Lua too (stdlib/mbd/macro.lua)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.macro");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "macro");
  return 1;
}
