/* mbd — Lua binding of the symbolic engine (mbd.sym) and its C API for other bindings.
 *
 * All symbolic expressions of one Lua state live in one mbd_sym_ctx, kept in the registry and
 * freed with the state.  An expression is a userdata with metatable "mbd.Sym" holding a node id;
 * identical expressions are the same userdata (a weak cache), so == and table keys work by
 * structure. */
#ifndef MBD_L_SYM_H
#define MBD_L_SYM_H

#include <lua.h>

#include "mbd/sym.h"

/* open the sym module: leaves its table on the stack (stored by the caller as mbd.sym).
 * lua_CFunction convention: returns 1. */
int mbd_open_sym(lua_State *L);

/* the state's symbolic context, created on first use (raises a Lua error when out of memory) */
mbd_sym_ctx *l_sym_ctx(lua_State *L);

/* the node id of argument idx: an mbd.Sym, or a number (made a constant); raises a Lua argument
 * error ("mbd.Sym expected, got table") otherwise */
int l_sym_check(lua_State *L, int idx);

/* 1 when the value at idx is an mbd.Sym */
int l_sym_is(lua_State *L, int idx);

/* push the expression with node id; id < 0 raises the context's error as a Lua error */
void l_sym_push(lua_State *L, int id);

#endif
