/* mbd — run:animate, the 3-D replay of a run in one self-contained HTML page (private to
 * interp/) */
#ifndef MBD_L_ANIMATE_H
#define MBD_L_ANIMATE_H

#include <lua.h>

/* run:animate { file, title, trace, shapes, every } -> file (the method of mbd.Run) */
int l_run_animate(lua_State *L);

#endif
