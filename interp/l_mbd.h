/* mbd — the Lua binding: opening the `mbd` module in a Lua state. */
#ifndef MBD_L_MBD_H
#define MBD_L_MBD_H

#include <lua.h>

/* open the mbd module in L: prepends the stdlib folder (env MBD_STDLIB, else the build's
 * MBD_STDLIB_DIR) to package.path, builds the `mbd` table, sets it as the global `mbd` and as
 * package.loaded.mbd, defines the global help(x), and leaves the table on the stack.
 * Returns 1 (lua_CFunction convention); raises a Lua error if the stdlib cannot be loaded. */
int mbd_open(lua_State *L);

/* the program's version string ("0.1.0"; l_manifest.c, which stamps it in every manifest) */
const char *mbd_version(void);

#endif
