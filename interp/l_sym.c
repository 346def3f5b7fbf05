/* mbd.sym: symbolic expressions in Lua (operators build expressions: x^2 + y^2 - L^2) */
#include "l_sym.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "l_msg.h"

#define SYM_MT "mbd.Sym"          /* metatable of expressions */
#define CTX_MT "mbd.SymCtx"       /* metatable of the context sentinel (its __gc frees it) */
#define CTX_KEY "mbd.sym.ctx"     /* registry: the context sentinel */
#define CACHE_KEY "mbd.sym.cache" /* registry: weak-valued table node id -> expression userdata */

typedef struct ctx_box {
  mbd_sym_ctx *ctx; /* owned */
} ctx_box;

typedef struct sym_ud {
  int32_t id; /* node id in the state's context */
} sym_ud;

/* ---- context and expression values -------------------------------------------------------------
 */

static int l_ctx_gc(lua_State *L) {
  ctx_box *b = luaL_checkudata(L, 1, CTX_MT);
  mbd_sym_ctx_free(b->ctx);
  b->ctx = NULL;
  return 0;
}

mbd_sym_ctx *l_sym_ctx(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, CTX_KEY) == LUA_TUSERDATA) {
    ctx_box *b = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return b->ctx;
  }
  lua_pop(L, 1);
  ctx_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->ctx = NULL;
  if (luaL_newmetatable(L, CTX_MT)) {
    lua_pushcfunction(L, l_ctx_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  b->ctx = mbd_sym_ctx_new();
  if (!b->ctx) {
    luaL_error(L, LMSG_SYM_OUT_MEMORY);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, CTX_KEY);
  /* the cache of expression userdata, weak in its values */
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
  return b->ctx;
}

/* raise the context's last error */
static int raise_ctx(lua_State *L, mbd_sym_ctx *ctx) {
  const mbd_error *e = mbd_sym_ctx_error(ctx);
  char msg[sizeof e->msg];
  snprintf(msg, sizeof msg, "%s", e->code ? e->msg : LMSG_SYM_INVALID);
  mbd_sym_ctx_clear_error(ctx);
  return luaL_error(L, "%s", msg);
}

void l_sym_push(lua_State *L, int id) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  if (id < 0) {
    raise_ctx(L, ctx);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
  if (lua_rawgeti(L, -1, id) == LUA_TUSERDATA) {
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  sym_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->id = id;
  luaL_setmetatable(L, SYM_MT);
  lua_pushvalue(L, -1);
  lua_rawseti(L, -3, id);
  lua_remove(L, -2);
}

int l_sym_is(lua_State *L, int idx) { return luaL_testudata(L, idx, SYM_MT) != NULL; }

int l_sym_check(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    mbd_sym_ctx *ctx = l_sym_ctx(L);
    int id = mbd_sym_const(ctx, lua_tonumber(L, idx));
    if (id < 0) {
      raise_ctx(L, ctx);
    }
    return id;
  }
  sym_ud *u = luaL_checkudata(L, idx, SYM_MT);
  return u->id;
}

/* the variable at idx (an mbd.Sym variable), else an argument error */
static int check_var(lua_State *L, int idx) {
  int id = l_sym_check(L, idx);
  if (mbd_sym_op_of(l_sym_ctx(L), id) != MBD_SYM_VAR) {
    luaL_argerror(L, idx, LMSG_SYM_VARIABLE_EXPECTED);
  }
  return id;
}

/* ---- operators ---------------------------------------------------------------------------------
 */

#define BINOP(lname, cname)                           \
  static int lname(lua_State *L) {                    \
    int a = l_sym_check(L, 1), b = l_sym_check(L, 2); \
    l_sym_push(L, cname(l_sym_ctx(L), a, b));         \
    return 1;                                         \
  }
BINOP(l_sym_add, mbd_sym_add)
BINOP(l_sym_sub, mbd_sym_sub)
BINOP(l_sym_mul, mbd_sym_mul)
BINOP(l_sym_div, mbd_sym_div)
BINOP(l_sym_pow, mbd_sym_pow)
BINOP(l_sym_atan2, mbd_sym_atan2)

static int l_sym_unm(lua_State *L) {
  l_sym_push(L, mbd_sym_neg(l_sym_ctx(L), l_sym_check(L, 1)));
  return 1;
}

#define FN1(lname, cname)                  \
  static int lname(lua_State *L) {         \
    int a = l_sym_check(L, 1);             \
    l_sym_push(L, cname(l_sym_ctx(L), a)); \
    return 1;                              \
  }
FN1(l_sym_sin, mbd_sym_sin)
FN1(l_sym_cos, mbd_sym_cos)
FN1(l_sym_tan, mbd_sym_tan)
FN1(l_sym_exp, mbd_sym_exp)
FN1(l_sym_log, mbd_sym_log)
FN1(l_sym_sqrt, mbd_sym_sqrt)
FN1(l_sym_abs, mbd_sym_abs)
FN1(l_sym_sign, mbd_sym_sign)

/* ifelse(c, a, b): a where c > 0, else b */
static int l_sym_ifelse(lua_State *L) {
  int c = l_sym_check(L, 1), a = l_sym_check(L, 2), b = l_sym_check(L, 3);
  l_sym_push(L, mbd_sym_ifelse(l_sym_ctx(L), c, a, b));
  return 1;
}

static int l_sym_tostring(lua_State *L) {
  char *s = mbd_sym_to_string(l_sym_ctx(L), l_sym_check(L, 1));
  if (!s) {
    return luaL_error(L, LMSG_SYM_OUT_MEMORY);
  }
  lua_pushstring(L, s);
  free(s);
  return 1;
}

/* "x = " .. e */
static int l_sym_concat(lua_State *L) {
  for (int i = 1; i <= 2; i++) {
    if (l_sym_is(L, i)) {
      lua_pushcfunction(L, l_sym_tostring);
      lua_pushvalue(L, i);
      lua_call(L, 1, 1);
    } else {
      luaL_tolstring(L, i, NULL);
    }
  }
  lua_concat(L, 2);
  return 1;
}

/* ---- module functions --------------------------------------------------------------------------
 */

/* var(name [, index]) */
static int l_sym_var(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  int index = (int)luaL_optinteger(L, 2, -1);
  l_sym_push(L, mbd_sym_var(l_sym_ctx(L), name, index));
  return 1;
}

/* const(c) */
static int l_sym_const(lua_State *L) {
  lua_Number c = luaL_checknumber(L, 1);
  l_sym_push(L, mbd_sym_const(l_sym_ctx(L), c));
  return 1;
}

/* diff(e, v) */
static int l_sym_diff(lua_State *L) {
  int e = l_sym_check(L, 1), v = check_var(L, 2);
  l_sym_push(L, mbd_sym_diff(l_sym_ctx(L), e, v));
  return 1;
}

/* the variable named by key at idx: a variable expression or its name */
static int subs_key(lua_State *L, mbd_sym_ctx *ctx, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    int v = mbd_sym_find_var(ctx, lua_tostring(L, idx));
    if (v < 0) {
      luaL_error(L, LMSG_SYM_SUBS_UNKNOWN_VARIABLE, lua_tostring(L, idx));
    }
    return v;
  }
  if (!l_sym_is(L, idx) || mbd_sym_op_of(ctx, l_sym_check(L, idx)) != MBD_SYM_VAR) {
    luaL_error(L, LMSG_SYM_SUBS_KEYS_VARIABLES_VARIABLE, luaL_typename(L, idx));
  }
  return l_sym_check(L, idx);
}

/* subs(e, {[v] = expr_or_number, ...}) */
static int l_sym_subs(lua_State *L) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  int e = l_sym_check(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    n++;
    lua_pop(L, 1);
  }
  /* GC-owned buffers: nothing leaks if an error is raised below */
  int32_t *vars = lua_newuserdatauv(L, sizeof(int32_t) * (size_t)(2 * n + 1), 0);
  int32_t *repl = vars + n;
  int k = 0;
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    vars[k] = subs_key(L, ctx, -2);
    if (lua_type(L, -1) != LUA_TNUMBER && !l_sym_is(L, -1)) {
      return luaL_error(L, LMSG_SYM_SUBS_VALUE_NUMBER_MBD, mbd_sym_var_name(ctx, vars[k]),
                        luaL_typename(L, -1));
    }
    repl[k] = l_sym_check(L, lua_gettop(L));
    k++;
    lua_pop(L, 1);
  }
  l_sym_push(L, mbd_sym_subs(ctx, e, k, vars, repl));
  return 1;
}

/* eval(e, {x = 1, y = 2}): a number; every variable of e needs a value */
static int l_sym_eval(lua_State *L) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  int e = l_sym_check(L, 1);
  int have = !lua_isnoneornil(L, 2);
  if (have) {
    luaL_checktype(L, 2, LUA_TTABLE);
  }
  int nv = mbd_sym_vars(ctx, e, 0, NULL);
  if (nv < 0) {
    return raise_ctx(L, ctx);
  }
  int32_t *vars = lua_newuserdatauv(L, sizeof(int32_t) * (size_t)(nv + 1), 0);
  mbd_sym_vars(ctx, e, nv, vars);
  int ns = mbd_sym_nslots(ctx);
  double *vals = lua_newuserdatauv(L, sizeof(double) * (size_t)(ns + 1), 0);
  for (int i = 0; i < nv; i++) {
    const char *name = mbd_sym_var_name(ctx, vars[i]);
    if (!have || lua_getfield(L, 2, name) == LUA_TNIL) {
      return luaL_error(L, LMSG_SYM_EVAL_VALUE_VARIABLE, name);
    }
    if (lua_type(L, -1) != LUA_TNUMBER) {
      return luaL_error(L, LMSG_SYM_EVAL_VALUE_NUMBER, name, luaL_typename(L, -1));
    }
    vals[mbd_sym_var_index(ctx, vars[i])] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  double out;
  mbd_error err;
  if (mbd_sym_eval(ctx, e, vals, &out, &err)) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushnumber(L, out);
  return 1;
}

/* eq(a, b): structural equality of canonical forms (numbers accepted) */
static int l_sym_eq(lua_State *L) {
  int a = l_sym_check(L, 1), b = l_sym_check(L, 2);
  lua_pushboolean(L, a == b);
  return 1;
}

/* vars(e): the variables of e, ordered by index */
static int l_sym_vars(lua_State *L) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  int e = l_sym_check(L, 1);
  int nv = mbd_sym_vars(ctx, e, 0, NULL);
  if (nv < 0) {
    return raise_ctx(L, ctx);
  }
  int32_t *vars = lua_newuserdatauv(L, sizeof(int32_t) * (size_t)(nv + 1), 0);
  mbd_sym_vars(ctx, e, nv, vars);
  lua_createtable(L, nv, 0);
  for (int i = 0; i < nv; i++) {
    l_sym_push(L, vars[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* tonumber(e): the value of a constant expression, else nil */
static int l_sym_tonumber(lua_State *L) {
  double v;
  if (mbd_sym_is_const(l_sym_ctx(L), l_sym_check(L, 1), &v)) {
    lua_pushnumber(L, v);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

/* is(x): true when x is an mbd.Sym */
static int l_sym_isfn(lua_State *L) {
  lua_pushboolean(L, l_sym_is(L, 1));
  return 1;
}

/* methods of expressions: e:diff(x), e:subs{...}, e:eval{...}, e:vars(), e:tonumber() */
static const luaL_Reg sym_methods[] = {{"diff", l_sym_diff}, {"eval", l_sym_eval},
                                       {"subs", l_sym_subs}, {"tonumber", l_sym_tonumber},
                                       {"vars", l_sym_vars}, {NULL, NULL}};

static const luaL_Reg sym_meta[] = {
    {"__add", l_sym_add},           {"__concat", l_sym_concat}, {"__div", l_sym_div},
    {"__mul", l_sym_mul},           {"__pow", l_sym_pow},       {"__sub", l_sym_sub},
    {"__tostring", l_sym_tostring}, {"__unm", l_sym_unm},       {NULL, NULL}};

static const luaL_Reg sym_funcs[] = {{"abs", l_sym_abs},           {"atan2", l_sym_atan2},
                                     {"const", l_sym_const},       {"cos", l_sym_cos},
                                     {"diff", l_sym_diff},         {"eq", l_sym_eq},
                                     {"eval", l_sym_eval},         {"exp", l_sym_exp},
                                     {"ifelse", l_sym_ifelse},     {"is", l_sym_isfn},
                                     {"log", l_sym_log},           {"sign", l_sym_sign},
                                     {"sin", l_sym_sin},           {"sqrt", l_sym_sqrt},
                                     {"subs", l_sym_subs},         {"tan", l_sym_tan},
                                     {"tonumber", l_sym_tonumber}, {"var", l_sym_var},
                                     {"vars", l_sym_vars},         {NULL, NULL}};

int mbd_open_sym(lua_State *L) {
  l_sym_ctx(L);
  if (luaL_newmetatable(L, SYM_MT)) {
    luaL_setfuncs(L, sym_meta, 0);
    luaL_newlib(L, sym_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  luaL_newlib(L, sym_funcs);
  /* the time variable */
  l_sym_push(L, mbd_sym_var(l_sym_ctx(L), "t", -1));
  lua_setfield(L, -2, "t");
  return 1;
}
