/* mbd — Lua binding of models, bodies, joints, forces, drives and runs (private to interp/) */
#ifndef MBD_L_MODEL_H
#define MBD_L_MODEL_H

#include <lua.h>
#include <signal.h>

#include "mbd/model.h"

/* set by the REPL's SIGINT handler; a running simulation stops at its next output sample */
extern volatile sig_atomic_t mbd_lua_interrupted;

/* the poll callback of simulations run from Lua: stops the run after a Ctrl-C */
int l_poll_interrupt(void *ud, double t, mbd_error *err);

/* adds model(), plot() and friends to the mbd table on top of the stack */
void mbd_open_model(lua_State *L);

/* push a Run userdata that takes ownership of r */
void l_run_push(lua_State *L, mbd_run *r);
/* the run at idx or a type error */
mbd_run *l_run_check(lua_State *L, int idx);
/* adds plot() to the mbd table on top of the stack */
void mbd_open_run(lua_State *L);

#endif
