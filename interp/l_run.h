/* mbd — Lua binding of runs, mbd.Run, and of mbd.plot (private to interp/) */
#ifndef MBD_L_RUN_H
#define MBD_L_RUN_H

#include <lua.h>

#include "mbd/model.h"

#define RUN_MT "mbd.Run"

/* the mbd.Run userdata (l_run_core.c: the functions below but mbd_open_run) */
typedef struct lrun {
  mbd_run *r;
} lrun;

/* push a Run userdata that takes ownership of r */
void l_run_push(lua_State *L, mbd_run *r);

/* remember the model or system at owner as the maker of the run at idx (run.model; the page
 * of run:animate draws its bodies) */
void l_run_set_owner(lua_State *L, int idx, int owner);
/* push the maker of the run at idx (nil when unknown); returns its Lua type */
int l_run_push_owner(lua_State *L, int idx);

/* the run at idx or a type error */
mbd_run *l_run_check(lua_State *L, int idx);

/* adds plot() to the mbd table on top of the stack and registers the mbd.Run metatable; pushes
 * nothing, returns 0 */
int mbd_open_run(lua_State *L);

#endif
