/* mbd — Lua binding of the mechanism model, mbd.Model (private to interp/) */
#ifndef MBD_L_MODEL_H
#define MBD_L_MODEL_H

#include <lua.h>

#include "l_callback.h"
#include "mbd/model.h"

/* the mbd.Model userdata: the engine model, its Lua callbacks, the warnings already shown */
typedef struct lmodel {
  mbd_model *m;
  l_cbset cbs;          /* the Lua functions the engine calls back, and the state they run in */
  int nprinted;         /* warnings already shown */
  char printed[16][256];
} lmodel;

/* the mbd.Model userdata at idx, or a type error (l_model_core.c, as the readers below) */
lmodel *l_model_check(lua_State *L, int idx);

/* the engine model of the mbd.Model at idx; raises "mbd.Model expected, got <type>" otherwise */
mbd_model *l_model_get(lua_State *L, int idx);

/* the same, with the model's Lua callbacks (forces, drives) set to run in L: call it before an
 * engine call that may call them */
mbd_model *l_model_enter(lua_State *L, int idx);
/* the callback set of the model at idx (its Lua functions and the state they run in) */
struct l_cbset *l_model_callbacks(lua_State *L, int idx);

/* show the warnings of the mbd.Model at idx on standard error ("mbd: warning: ..."), each once
 * per model */
void l_model_show_warnings(lua_State *L, int idx);

/* adds model() to the mbd table on top of the stack and registers the mbd.Model metatable; pushes
 * nothing, returns 0 (mbd.fem is l_fem.c's) */
int mbd_open_model(lua_State *L);

#endif
