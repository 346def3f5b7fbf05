/* mbd — Lua binding of coordinate-level systems and mbd.stability (private to interp/) */
#ifndef MBD_L_SYSTEM_H
#define MBD_L_SYSTEM_H

#include <lua.h>

/* adds system() and stability() to the mbd table on top of the stack and registers the
 * mbd.System metatable; pushes nothing, returns 0 */
int mbd_open_system(lua_State *L);

#endif
