/* mbd — Lua binding of flexible bodies (private to interp/): mbd.fem (beam, from_matrices, load),
 * the mbd.FE and mbd.Modes userdata, m:flexible_body and a flexible body's node(k) */
#ifndef MBD_L_FEM_H
#define MBD_L_FEM_H

#include <lua.h>

#include "mbd/model.h"

/* m:flexible_body { ... } (the model at 1, the table at 2): pushes the new mbd.Body */
int l_fem_flexible_body(lua_State *L);

/* the fields of a body that flexible bodies add — body:node (a method), body.nodes,
 * body.modes — pushed for `key` when it is one of them (1), else nothing (0) */
int l_fem_body_field(lua_State *L, const mbd_model *m, int body, const char *key);

/* registers the mbd.FE and mbd.Modes metatables and pushes the mbd.fem table (returns 1) */
int mbd_open_fem(lua_State *L);

#endif
