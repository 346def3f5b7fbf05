/* helpers shared by the Lua bindings: the constructor-table field walker (STYLE.md #12) with which
 * every DSL constructor checks its table, the field readers, script positions, and the __index of
 * the DSL types (l_util.h) */
#include "l_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_msg.h"
#include "mbd/text.h"

void lx_push_numbers(lua_State *L, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

void lx_set_number(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

void lx_set_string(lua_State *L, const char *key, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, key);
}

const char *lx_typename(lua_State *L, int idx) {
  if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
    const char *s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s;  // metatable names are interned and kept alive by the registry
  }
  if (lua_type(L, idx) != LUA_TNIL && lua_type(L, idx) != LUA_TNONE) {
    // luaL_getmetafield pushed nothing when absent
  }
  return luaL_typename(L, idx);
}

void lx_check_fields(lua_State *L, int idx, const char *ctor, const char *const *allowed) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_error(L, LMSG_UTIL_TABLE_NAMED_FIELDS, ctor, lx_typename(L, idx));
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      luaL_error(L, LMSG_UTIL_TABLE_NAMED_FIELDS_FOUND, ctor, luaL_typename(L, -2));
    }
    const char *k = lua_tostring(L, -2);
    int ok = 0;
    for (const char *const *a = allowed; *a; a++) {
      if (strcmp(*a, k) == 0) {
        ok = 1;
        break;
      }
    }
    if (!ok) {
      // suggest the allowed names so a typo is obvious
      luaL_Buffer b;
      luaL_buffinit(L, &b);
      for (const char *const *a = allowed; *a; a++) {
        luaL_addstring(&b, a == allowed ? "" : ", ");
        luaL_addstring(&b, *a);
      }
      luaL_pushresult(&b);
      luaL_error(L, LMSG_UTIL_UNKNOWN_FIELD_FIELDS, ctor, k, lua_tostring(L, -1));
    }
    lua_pop(L, 1);
  }
}

int lx_has(lua_State *L, int idx, const char *key) {
  int t = lua_getfield(L, idx, key);
  lua_pop(L, 1);
  return t != LUA_TNIL;
}

int lx_opt_number(lua_State *L, int idx, const char *ctor, const char *key, double *out) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int isnum = 0;
  double v = lua_tonumberx(L, -1, &isnum);
  if (t != LUA_TNUMBER || !isnum) {
    luaL_error(L, LMSG_UTIL_FIELD_NUMBER, ctor, key, lx_typename(L, -1));
  }
  lua_pop(L, 1);
  *out = v;
  return 1;
}

double lx_req_number(lua_State *L, int idx, const char *ctor, const char *key) {
  double v = 0;
  if (!lx_opt_number(L, idx, ctor, key, &v)) {
    luaL_error(L, LMSG_FEM_MISSING_FIELD, ctor, key);
  }
  return v;
}

const char *lx_num(char *buf, size_t cap, double v) { return mbd_text_num(buf, cap, v); }

int lx_opt_int(lua_State *L, int idx, const char *ctor, const char *key, int *out) {
  double v = 0;
  if (!lx_opt_number(L, idx, ctor, key, &v)) {
    return 0;
  }
  // a NaN, an infinity or a value outside int (its conversion would be undefined) is no integer
  if (!(v >= INT_MIN && v <= INT_MAX) || v != floor(v)) {
    char num[32];
    if (isnan(v)) {
      snprintf(num, sizeof num, "NaN");
    } else {
      snprintf(num, sizeof num, "%.17g", v);
    }
    luaL_error(L, LMSG_UTIL_FIELD_INTEGER, ctor, key, num);
  }
  *out = (int)v;
  return 1;
}

int lx_read_numbers(lua_State *L, int idx, double *out, int n) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    return -1;
  }
  int len = (int)luaL_len(L, idx);
  for (int i = 1; i <= len && i <= n; i++) {
    lua_geti(L, idx, i);
    int isnum = 0;
    double v = lua_tonumberx(L, -1, &isnum);
    int ty = lua_type(L, -1);
    lua_pop(L, 1);
    if (!isnum || ty != LUA_TNUMBER) {
      return -1;
    }
    out[i - 1] = v;
  }
  return len;
}

int lx_opt_vec(lua_State *L, int idx, const char *ctor, const char *key, int n, double *out) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int got = lx_read_numbers(L, lua_gettop(L), out, n);
  if (got != n) {
    if (got < 0) {
      luaL_error(L, LMSG_UTIL_FIELD_NUMBERS, ctor, key, n,
                 t == LUA_TTABLE ? LMSG_UTIL_NON_NUMBER_ENTRY : lx_typename(L, -1));
    }
    luaL_error(L, LMSG_UTIL_FIELD_NUMBERS_COUNT, ctor, key, n, got);
  }
  lua_pop(L, 1);
  return 1;
}

const char *lx_opt_string(lua_State *L, int idx, const char *ctor, const char *key) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return NULL;
  }
  if (t != LUA_TSTRING) {
    luaL_error(L, LMSG_UTIL_FIELD_STRING, ctor, key, lx_typename(L, -1));
  }
  const char *s = lua_tostring(L, -1);
  lua_pop(L, 1);  // the table still references the string
  return s;
}

void lx_plot_frame(lua_State *L, int idx, const char **title, const char **xlabel,
                   const char **ylabel, int *width, int *height) {
  *title = lx_opt_string(L, idx, "plot", "title");
  *xlabel = lx_opt_string(L, idx, "plot", "xlabel");
  *ylabel = lx_opt_string(L, idx, "plot", "ylabel");
  lx_opt_int(L, idx, "plot", "width", width);
  lx_opt_int(L, idx, "plot", "height", height);
}

void lx_opt_flag(lua_State *L, int idx, const char *key, int *out) {
  if (lua_getfield(L, idx, key) != LUA_TNIL) {
    *out = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
}

/* a vector field of n numbers.  what names the object ("body 'crank'"); dim > 0 marks a
 * position-like field, so a vector of the other model's size gets a hint (a 2-vector in a spatial
 * model is the usual slip when a planar script is turned into a spatial one).  1 when present. */
int lx_opt_vec_dim(lua_State *L, int tidx, const char *what, const char *key, int n, int dim,
                   double *out) {
  tidx = lua_absindex(L, tidx);
  int t = lua_getfield(L, tidx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t == LUA_TTABLE && dim > 0) {
    lua_Integer len = luaL_len(L, -1);
    if (len != n && (len == 2 || len == 3)) {
      // "revolute: field 'at1' expects 2 numbers, got 3" first (the documented form), then the
      // object and the hint; what is "<ctor> '<name>'" or "force on body '<name>'"
      const char *q = strchr(what, ' ');
      int clen = q ? (int)(q - what) : (int)strlen(what);
      char msg[320];
      snprintf(msg, sizeof msg, LMSG_UTIL_FIELD_NUMBERS_DIM, clen, what, key, n, (int)len, what,
               dim == 3 ? "spatial" : "planar", dim, n == 3 ? "{x, y, z}" : "{x, y}");
      luaL_error(L, "%s", msg);
    }
  }
  lua_pop(L, 1);
  return lx_opt_vec(L, tidx, what, key, n, out);
}

/* a function field stored as a registry ref; LUA_NOREF when absent */
int lx_opt_function(lua_State *L, int tidx, const char *ctor, const char *key) {
  int t = lua_getfield(L, tidx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return LUA_NOREF;
  }
  if (t != LUA_TFUNCTION) {
    luaL_error(L, LMSG_UTIL_FIELD_FUNCTION, ctor, key, lx_typename(L, -1));
  }
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

double *lx_read_square(lua_State *L, int idx, const char *ctor, const char *key, int want, int *n) {
  idx = lua_absindex(L, idx);
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER) {
    if (want <= 0) {
      luaL_error(L, LMSG_UTIL_FIELD_MATRIX_LIST_DIAGONAL, ctor, key);
    }
    double v = lua_tonumber(L, idx);
    double *m = lua_newuserdatauv(L, sizeof(double) * (size_t)want * (size_t)want, 0);
    for (int i = 0; i < want * want; i++) {
      m[i] = (i % (want + 1) == 0) ? v : 0.0;
    }
    *n = want;
    return m;
  }
  if (t != LUA_TTABLE) {
    luaL_error(L, LMSG_UTIL_FIELD_NUMBER_LIST_MATRIX, ctor, key, lx_typename(L, idx));
  }
  int len = (int)luaL_len(L, idx);
  if (len < 1 || (want > 0 && len != want)) {
    luaL_error(L, LMSG_UTIL_FIELD_ROWS, ctor, key, want > 0 ? want : 1, len);
  }
  double *m = lua_newuserdatauv(L, sizeof(double) * (size_t)len * (size_t)len, 0);
  memset(m, 0, sizeof(double) * (size_t)len * (size_t)len);
  lua_geti(L, idx, 1);
  int full = lua_type(L, -1) == LUA_TTABLE;
  lua_pop(L, 1);
  for (int i = 0; i < len; i++) {
    lua_geti(L, idx, i + 1);
    if (full) {
      double row[64];
      if (len > 64) {
        luaL_error(L, LMSG_UTIL_FIELD_MOST_ROWS, ctor, key);
      }
      int got = lx_read_numbers(L, lua_gettop(L), row, len);
      if (got != len) {
        luaL_error(L, LMSG_UTIL_FIELD_ROW_NUMBERS, ctor, key, i + 1, len);
      }
      for (int j = 0; j < len; j++) {
        m[i + (size_t)len * j] = row[j];
      }
    } else {
      int isnum = 0;
      double v = lua_tonumberx(L, -1, &isnum);
      if (!isnum) {
        luaL_error(L, LMSG_UTIL_FIELD_ENTRY_NUMBER, ctor, key, i + 1);
      }
      m[i + (size_t)len * i] = v;
    }
    lua_pop(L, 1);
  }
  *n = len;
  return m;
}

void lx_where(lua_State *L, char *buf, size_t len) {
  luaL_where(L, 1);
  const char *w = lua_tostring(L, -1);
  size_t n = strlen(w);
  // luaL_where gives "chunk:line: " — drop the trailing ": "
  snprintf(buf, len, "%.*s", (int)(n >= 2 ? n - 2 : n), w);
  lua_pop(L, 1);
}

/* __index with upvalues (methods table, fields function or nil): a method by a raw table lookup,
 * else the fields function, called directly so its errors name '__index' as before */
static int index_methods(lua_State *L) {
  lua_settop(L, 2);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
    return 1;
  }
  lua_pop(L, 1);
  lua_CFunction fields = lua_tocfunction(L, lua_upvalueindex(2));
  if (!fields) {
    lua_pushnil(L);
    return 1;
  }
  return fields(L);
}

void lx_set_index(lua_State *L, const luaL_Reg *methods, lua_CFunction fields) {
  lua_newtable(L);
  if (methods) {
    luaL_setfuncs(L, methods, 0);
  }
  if (fields) {
    lua_pushcfunction(L, fields);
  } else {
    lua_pushnil(L);
  }
  lua_pushcclosure(L, index_methods, 2);
  lua_setfield(L, -2, "__index");
}
