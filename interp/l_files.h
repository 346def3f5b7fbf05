/* mbd — files written whole or not at all, and SHA-256, for scripts (private to interp/) */
#ifndef MBD_L_FILES_H
#define MBD_L_FILES_H

#include <lua.h>

/* adds write_file(), check_writable(), file_is_stream(), mkdir() and sha256() to the mbd table on
 * top of the stack; pushes nothing, returns 0 */
int mbd_open_files(lua_State *L);

#endif
