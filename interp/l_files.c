/* mbd.write_file, mbd.file_is_stream, mbd.check_writable, mbd.mkdir, mbd.sha256: the safe writer
 * and folders (mbd/fileout.h) and SHA-256 (mbd/hash.h) for scripts and the Lua stdlib (the
 * sweep's CSV). */
#include "l_files.h"

#include <lauxlib.h>

#include "mbd/fileout.h"
#include "mbd/hash.h"

/* mbd.write_file(path, text [, kind]): true, or nil and the message (nothing half-written is
 * left); kind names the writer in the message (default "write_file") */
static int l_write_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  size_t n = 0;
  const char *text = luaL_checklstring(L, 2, &n);
  const char *kind = luaL_optstring(L, 3, "write_file");
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_out_bytes(kind, path, text, n, 0, &err) != MBD_OK) {
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* mbd.check_writable(path [, kind]): true, or nil and the message that a write would give at
 * its start (missing folder, no permission, a folder in the way); touches nothing */
static int l_check_writable(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  const char *kind = luaL_optstring(L, 2, "write_file");
  if (mbd_out_is_stream(path)) {
    lua_pushboolean(L, 1);  // a FIFO would block until a reader comes: taken as it is
    return 1;
  }
  mbd_error err;
  mbd_error_clear(&err);
  mbd_out o;
  if (mbd_out_open(&o, kind, path, 0, &err) != MBD_OK) {
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  mbd_out_discard(&o);
  lua_pushboolean(L, 1);
  return 1;
}

/* mbd.file_is_stream(path): whether path is written directly (FIFO, device, /dev/stdout) */
static int l_file_is_stream(lua_State *L) {
  lua_pushboolean(L, mbd_out_is_stream(luaL_checkstring(L, 1)));
  return 1;
}

/* mbd.mkdir(path): the folder path and the missing ones above it (as mkdir -p, no shell; mode
 * 0755 less the umask); returns path.  Raises "mkdir 'PATH': ..." naming the part that failed. */
static int l_mkdir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_out_mkdirs("mkdir", path, 0755, &err) != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_settop(L, 1);
  return 1;
}

/* mbd.sha256(text): 64 hexadecimal digits */
static int l_sha256(lua_State *L) {
  size_t n = 0;
  const char *s = luaL_checklstring(L, 1, &n);
  char hex[65];
  mbd_sha256_hex(hex, s, n);
  lua_pushstring(L, hex);
  return 1;
}

int mbd_open_files(lua_State *L) {
  static const luaL_Reg fns[] = {{"check_writable", l_check_writable},
                                 {"file_is_stream", l_file_is_stream},
                                 {"mkdir", l_mkdir},
                                 {"sha256", l_sha256},
                                 {"write_file", l_write_file},
                                 {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  return 0;
}
