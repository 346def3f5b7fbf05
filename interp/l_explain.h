/* mbd — m:explain, the equations of motion at one instant (private to interp/) */
#ifndef MBD_L_EXPLAIN_H
#define MBD_L_EXPLAIN_H

#include <lua.h>

/* m:explain { run = r, t = s } | m:explain { } (the assembled initial state) -> table whose
 * tostring is a compact report (stdlib/mbd/explain.lua writes it) */
int l_model_explain(lua_State *L);

#endif
