/* mbd — parallel map over forked worker processes (private to interp/) */
#ifndef MBD_L_PARALLEL_H
#define MBD_L_PARALLEL_H

#include <lua.h>

/* adds wall_clock(), parallel_map() and ncores() to the mbd table on top of the stack; pushes
 * nothing, returns 0 */
int mbd_open_parallel(lua_State *L);

/* the number of online cores (sysconf), at least 1 */
int mbd_ncores(void);

#endif
