/* the constructor-table field walker (STYLE.md #12): every DSL constructor checks its table */
#include "l_util.h"

#include <string.h>

#include "mbd/integrators.h"

const char *lu_typename(lua_State *L, int idx) {
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

void lu_check_fields(lua_State *L, int idx, const char *ctor, const char *const *allowed) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_error(L, "%s: expects a table of named fields, got %s", ctor, lu_typename(L, idx));
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      luaL_error(L, "%s: expects a table of named fields (found a %s key)", ctor,
                 luaL_typename(L, -2));
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
      luaL_error(L, "%s: unknown field '%s' (fields: %s)", ctor, k, lua_tostring(L, -1));
    }
    lua_pop(L, 1);
  }
}

int lu_has(lua_State *L, int idx, const char *key) {
  int t = lua_getfield(L, idx, key);
  lua_pop(L, 1);
  return t != LUA_TNIL;
}

int lu_opt_number(lua_State *L, int idx, const char *ctor, const char *key, double *out) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int isnum = 0;
  double v = lua_tonumberx(L, -1, &isnum);
  if (t != LUA_TNUMBER || !isnum) {
    luaL_error(L, "%s: field '%s' expects a number, got %s", ctor, key, lu_typename(L, -1));
  }
  lua_pop(L, 1);
  *out = v;
  return 1;
}

double lu_req_number(lua_State *L, int idx, const char *ctor, const char *key) {
  double v = 0;
  if (!lu_opt_number(L, idx, ctor, key, &v)) {
    luaL_error(L, "%s: missing field '%s'", ctor, key);
  }
  return v;
}

int lu_opt_int(lua_State *L, int idx, const char *ctor, const char *key, int *out) {
  double v = 0;
  if (!lu_opt_number(L, idx, ctor, key, &v)) {
    return 0;
  }
  if (v != (double)(int)v) {
    luaL_error(L, "%s: field '%s' expects an integer, got %f", ctor, key, v);
  }
  *out = (int)v;
  return 1;
}

int lu_read_numbers(lua_State *L, int idx, double *out, int n) {
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

int lu_opt_vec(lua_State *L, int idx, const char *ctor, const char *key, int n, double *out) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int got = lu_read_numbers(L, lua_gettop(L), out, n);
  if (got != n) {
    if (got < 0) {
      luaL_error(L, "%s: field '%s' expects %d numbers, got %s", ctor, key, n,
                 t == LUA_TTABLE ? "a table with a non-number entry" : lu_typename(L, -1));
    }
    luaL_error(L, "%s: field '%s' expects %d numbers, got %d", ctor, key, n, got);
  }
  lua_pop(L, 1);
  return 1;
}

const char *lu_opt_string(lua_State *L, int idx, const char *ctor, const char *key) {
  idx = lua_absindex(L, idx);
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return NULL;
  }
  if (t != LUA_TSTRING) {
    luaL_error(L, "%s: field '%s' expects a string, got %s", ctor, key, lu_typename(L, -1));
  }
  const char *s = lua_tostring(L, -1);
  lua_pop(L, 1);  // the table still references the string
  return s;
}

double *lu_read_square(lua_State *L, int idx, const char *ctor, const char *key, int want, int *n) {
  idx = lua_absindex(L, idx);
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER) {
    if (want <= 0) {
      luaL_error(L, "%s: field '%s' expects a matrix {{...}, ...} or a list of its diagonal", ctor,
                 key);
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
    luaL_error(L, "%s: field '%s' expects a number, a list or a matrix, got %s", ctor, key,
               lu_typename(L, idx));
  }
  int len = (int)luaL_len(L, idx);
  if (len < 1 || (want > 0 && len != want)) {
    luaL_error(L, "%s: field '%s' expects %d rows, got %d", ctor, key, want > 0 ? want : 1, len);
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
        luaL_error(L, "%s: field '%s': at most 64 rows", ctor, key);
      }
      int got = lu_read_numbers(L, lua_gettop(L), row, len);
      if (got != len) {
        luaL_error(L, "%s: field '%s': row %d expects %d numbers", ctor, key, i + 1, len);
      }
      for (int j = 0; j < len; j++) {
        m[i + (size_t)len * j] = row[j];
      }
    } else {
      int isnum = 0;
      double v = lua_tonumberx(L, -1, &isnum);
      if (!isnum) {
        luaL_error(L, "%s: field '%s': entry %d is not a number", ctor, key, i + 1);
      }
      m[i + (size_t)len * i] = v;
    }
    lua_pop(L, 1);
  }
  *n = len;
  return m;
}

void lu_read_ode_fields(lua_State *L, int idx, lu_ode_fields *f) {
  const char *ig = lu_opt_string(L, idx, "simulate", "integrator");
  if (ig) {
    f->integrator = mbd_integrator_from_name(ig);
    if (f->integrator < 0) {
      luaL_error(L, "simulate: unknown integrator '%s' (adams, rk45, bdf, rk4)", ig);
    }
  }
  lu_opt_number(L, idx, "simulate", "rtol", &f->rtol);
  lu_opt_number(L, idx, "simulate", "atol", &f->atol);
  int has_step = lu_opt_number(L, idx, "simulate", "step", &f->step);
  if (f->integrator == MBD_INT_RK4 && !has_step) {
    luaL_error(L, "simulate: integrator 'rk4' needs field 'step' (the fixed step h)");
  }
  lu_opt_number(L, idx, "simulate", "max_step", &f->max_step);
  lu_opt_number(L, idx, "simulate", "output_every", &f->output_every);
  if (!(f->rtol > 0) || !(f->atol > 0)) {
    luaL_error(L, "simulate: rtol and atol must be positive");
  }
}
