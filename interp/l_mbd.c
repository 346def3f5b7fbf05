/* the `mbd` module: registration of every concern's bindings, and where the stdlib is */
#define _GNU_SOURCE /* dladdr */
#include "l_mbd.h"

#include "l_contact.h"
#include "l_fem.h"
#include "l_files.h"
#include "l_linear.h"
#include "l_model.h"
#include "l_objects.h"
#include "l_parallel.h"
#include "l_relative.h"
#include "l_rot.h"
#include "l_run.h"
#include "l_sym.h"
#include "l_system.h"

#include <dlfcn.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MBD_STDLIB_DIR
#define MBD_STDLIB_DIR "stdlib"
#endif

/* does DIR hold the stdlib (DIR/mbd/help.lua)? */
static int has_stdlib(const char *dir) {
  char path[4300];
  snprintf(path, sizeof path, "%s/mbd/help.lua", dir);
  return access(path, R_OK) == 0;
}

/* an installed stdlib, found from where this code is: the program's file (/proc/self/exe) or the
 * module's (dladdr), then MBD_STDLIB_REL, the install's relative path from that file's folder to
 * the stdlib folder.  Fills buf; 0 when there is none. */
static int installed_stdlib(char *buf, size_t len) {
#ifdef MBD_STDLIB_REL
  char self[4096];
#ifdef MBD_LUA_MODULE
  Dl_info info;
  if (!dladdr((void *)mbd_open, &info) || !info.dli_fname) {
    return 0;
  }
  snprintf(self, sizeof self, "%s", info.dli_fname);
#else
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    return 0;
  }
  self[n] = 0;
#endif
  char *slash = strrchr(self, '/');
  if (!slash) {
    return 0;
  }
  *slash = 0;
  char rel[4300];
  snprintf(rel, sizeof rel, "%s/%s", self, MBD_STDLIB_REL);
  // the folder without "..": the path package.path and messages show
  char *real = realpath(rel, NULL);
  if (!real) {
    return 0;
  }
  snprintf(buf, len, "%s", real);
  free(real);
  return has_stdlib(buf);
#else
  (void)buf;
  (void)len;
  return 0;
#endif
}

/* prepend DIR/?.lua;DIR/?/init.lua to package.path, DIR the first of: $MBD_STDLIB (as given),
 * the stdlib of an installation (next to the program or the module), the build's
 * MBD_STDLIB_DIR (the source tree).  None of them: package.path as it is (a stdlib in Lua's own
 * path, as LuaRocks installs it). */
static void set_path(lua_State *L) {
  char found[4200];
  const char *dir = getenv("MBD_STDLIB");
  if (!dir || !*dir) {
    dir = installed_stdlib(found, sizeof found) ? found : MBD_STDLIB_DIR;
    if (!*dir || !has_stdlib(dir)) {
      return;
    }
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
    {NULL, mbd_open_model}, {NULL, mbd_open_objects}, {NULL, mbd_open_contact},
    {NULL, mbd_open_run},
    {"rot", mbd_open_rot},  {NULL, mbd_open_system},  {NULL, mbd_open_parallel},
    {"sym", mbd_open_sym},  {"fem", mbd_open_fem}, {NULL, mbd_open_relative},
    {NULL, mbd_open_files}, {NULL, mbd_open_linear},
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
  // mbd.sweep and mbd.pretty are written in Lua (stdlib/mbd/sweep.lua, pretty.lua)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.sweep");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "sweep");
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.pretty");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "pretty");
  // mbd.macro (paper 002's macro elements) is written in Lua too (stdlib/mbd/macro.lua)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.macro");
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "macro");
  return 1;
}
