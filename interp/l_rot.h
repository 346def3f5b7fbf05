/* mbd — Lua binding of the rotation helpers mbd.rot (private to interp/) */
#ifndef MBD_L_ROT_H
#define MBD_L_ROT_H

#include <lua.h>

/* open the rot module: pushes its table (axis_angle, euler_zyx, compose, rotate, from_axes), stored
 * by the caller as mbd.rot.  lua_CFunction convention: returns 1. */
int mbd_open_rot(lua_State *L);

#endif
