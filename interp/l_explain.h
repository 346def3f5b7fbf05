/* mbd — m:explain, the equations of motion at one instant (private to interp/) */
#ifndef MBD_L_EXPLAIN_H
#define MBD_L_EXPLAIN_H

#include <lua.h>

#include "mbd/model.h"

/* m:explain { run = r, t = s } | m:explain { } (the assembled initial state) -> table whose
 * tostring is a compact report (stdlib/mbd/explain.lua writes it) */
int l_model_explain(lua_State *L);

/* m:explain's and s:explain's options at 2 (a table, or none): the run (NULL: the initial
 * state) and t; raises on an unknown field, a run of another model or system (owner: "model",
 * "system"), a run without t, or t without a run.  The stack is left as [self, options]. */
struct mbd_run *l_explain_args(lua_State *L, const char *owner, double *t);
/* the explanation's table at the top made printable (stdlib/mbd/explain.lua sets its text and
 * tostring); returns 1, the table */
int l_explain_finish(lua_State *L);

#endif
