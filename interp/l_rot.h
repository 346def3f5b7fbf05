/* mbd — Lua binding of the rotation helpers mbd.rot (private to interp/) */
#ifndef MBD_L_ROT_H
#define MBD_L_ROT_H

#include <lua.h>

/* adds the table `rot` (axis_angle, euler_zyx, compose, rotate, from_axes) to the mbd table on top
 * of the stack */
void mbd_open_rot(lua_State *L);

#endif
