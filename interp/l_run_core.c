/* the mbd.Run userdata and what other binding files do with it: push a run, check one, its
 * maker (run.model).  Apart from l_run.c (its methods and mbd.plot, which point at l_animate.c
 * and l_manifest.c) so that those files call down here, not back up. */
#include <lauxlib.h>

#include "l_run.h"

void l_run_push(lua_State *L, mbd_run *r) {
  lrun *lr = lua_newuserdatauv(L, sizeof *lr, 1);
  lr->r = r;
  luaL_setmetatable(L, RUN_MT);
}

void l_run_set_owner(lua_State *L, int idx, int owner) {
  idx = lua_absindex(L, idx);
  owner = lua_absindex(L, owner);
  l_run_check(L, idx);
  lua_pushvalue(L, owner);
  lua_setiuservalue(L, idx, 1);
}

int l_run_push_owner(lua_State *L, int idx) {
  l_run_check(L, idx);
  return lua_getiuservalue(L, idx, 1);
}

mbd_run *l_run_check(lua_State *L, int idx) {
  lrun *lr = luaL_checkudata(L, idx, RUN_MT);
  return lr->r;
}
