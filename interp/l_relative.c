/* the Lua side of paper 002 (DSL.md "Relative joint coordinates and generated code"): the
 * relative formulation's run options, m:tree() */
#include "l_relative.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "l_model.h"
#include "l_msg.h"
#include "l_util.h"
#include "mbd/formulation.h"

/* the names of a list of strings at the field `key` of the table at idx, in a buffer of pointers
 * pushed on the stack (the strings stay referenced by the table) */
static const char **read_names(lua_State *L, int idx, const char *key, int *n) {
  *n = 0;
  if (lua_getfield(L, idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_pushnil(L);  // keeps the stack count the same
    return NULL;
  }
  if (!lua_istable(L, -1)) {
    luaL_error(L, LMSG_RELATIVE_SIMULATE_FIELD_LIST_JOINT, key, lx_typename(L, -1));
  }
  int len = (int)luaL_len(L, -1);
  const char **names = lua_newuserdatauv(L, sizeof(char *) * (size_t)(len ? len : 1), 0);
  for (int i = 1; i <= len; i++) {
    if (lua_geti(L, -2, i) != LUA_TSTRING) {
      luaL_error(L, LMSG_RELATIVE_SIMULATE_FIELD_JOINT_ENTRY, key, i, lx_typename(L, -1));
    }
    names[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_remove(L, -2);  // the list stays alive in the options table
  *n = len;
  return names;
}

int l_relative_read(lua_State *L, int idx, mbd_sim_opts *o) {
  idx = lua_absindex(L, idx);
  int ncut = 0;
  const char **cut = read_names(L, idx, "cut", &ncut);
  const char *solver = lx_opt_string(L, idx, "simulate", "solver");
  if (!mbd_formulation_has(o->formulation, MBD_FCAP_JOINT_COORDS) && (cut || solver)) {
    luaL_error(L, LMSG_RELATIVE_SIMULATE_FIELDS_CUT_SOLVER,
               mbd_formulation_name(mbd_formulation_with(MBD_FCAP_JOINT_COORDS)));
  }
  o->cut = cut;
  o->ncut = ncut;
  if (solver) {
    // the formulations that solve on joint coordinates
    o->solver = mbd_formulation_from_name(solver);
    if (!mbd_formulation_has(o->solver, MBD_FCAP_WRAPPED)) {
      char all[160];
      luaL_error(L, LMSG_RELATIVE_SIMULATE_UNKNOWN_SOLVER, solver,
                 mbd_formulation_names(all, sizeof all, MBD_FCAP_WRAPPED));
    }
  }
  const char *code = lx_opt_string(L, idx, "simulate", "code");
  if (code) {
    o->code = mbd_code_from_name(code);
    if (o->code < 0) {
      luaL_error(L, LMSG_RELATIVE_SIMULATE_UNKNOWN_CODE_NUMERIC, code);
    }
  }
  return 1;
}

int l_relative_read_kin(lua_State *L, int idx, mbd_kin_opts *o) {
  idx = lua_absindex(L, idx);
  const char *f = lx_opt_string(L, idx, "kinematics", "formulation");
  // joint coordinates, or Cartesian coordinates (the caller's zeroed options)
  int joint = mbd_formulation_with(MBD_FCAP_JOINT_COORDS);
  if (f && mbd_formulation_from_name(f) != joint) {
    luaL_error(L, LMSG_RELATIVE_KINEMATICS_FORMULATION_ABSENT_CARTESIAN,
               mbd_formulation_name(joint), f);
  }
  if (f) {
    o->formulation = joint;
  }
  int ncut = 0;
  const char **cut = read_names(L, idx, "cut", &ncut);
  if (cut && !f) {
    luaL_error(L, LMSG_RELATIVE_KINEMATICS_FIELD_CUT_FORMULATION, mbd_formulation_name(joint));
  }
  o->cut = cut;
  o->ncut = ncut;
  const char *code = lx_opt_string(L, idx, "kinematics", "code");
  if (code) {
    o->code = mbd_code_from_name(code);
    if (o->code < 0) {
      luaL_error(L, LMSG_RELATIVE_KINEMATICS_UNKNOWN_CODE_NUMERIC, code);
    }
  }
  return 1;
}

int l_model_export_c(lua_State *L) {
  l_model_get(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const fields[] = {"dir",    "t_end",         "rtol", "atol", "output_every",
                                       "solver", "stabilization", "cut",  NULL};
  lx_check_fields(L, 2, "export_c", fields);
  // the program integrates as m:simulate{formulation = "relative"}: simulate's defaults, the
  // relative formulation's stabilization
  mbd_sim_opts so;
  mbd_sim_opts_default(&so);
  const mbd_formulation_info *rel =
      mbd_formulation_info_of(mbd_formulation_with(MBD_FCAP_JOINT_COORDS));
  mbd_export_opts o = {.t_end = so.t_end,
                       .rtol = so.ode.rtol,
                       .atol = so.ode.atol,
                       .solver = mbd_formulation_from_name("baumgarte"),
                       .alpha = rel->alpha,
                       .beta = rel->beta};
  o.dir = lx_opt_string(L, 2, "export_c", "dir");
  if (!o.dir) {
    return luaL_error(L, LMSG_RELATIVE_EXPORT_C_MISSING_FIELD_DIR);
  }
  lx_opt_number(L, 2, "export_c", "t_end", &o.t_end);
  lx_opt_number(L, 2, "export_c", "rtol", &o.rtol);
  lx_opt_number(L, 2, "export_c", "atol", &o.atol);
  lx_opt_number(L, 2, "export_c", "output_every", &o.output_every);
  const char *solver = lx_opt_string(L, 2, "export_c", "solver");
  if (solver) {
    // the formulations whose solve it writes
    o.solver = mbd_formulation_from_name(solver);
    if (!mbd_formulation_has(o.solver, MBD_FCAP_EXPORTED)) {
      return luaL_error(L, LMSG_RELATIVE_EXPORT_C_UNKNOWN_SOLVER_BAUMGARTE, solver);
    }
  }
  if (lua_getfield(L, 2, "stabilization") != LUA_TNIL) {
    static const char *const sf[] = {"alpha", "beta", NULL};
    lx_check_fields(L, -1, "export_c: stabilization", sf);
    lx_opt_number(L, -1, "stabilization", "alpha", &o.alpha);
    lx_opt_number(L, -1, "stabilization", "beta", &o.beta);
  }
  lua_pop(L, 1);
  int ncut = 0;
  o.cut = read_names(L, 2, "cut", &ncut);
  o.ncut = ncut;
  mbd_model *m = l_model_enter(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  mbd_model_clear_warnings(m);
  int rc = mbd_model_export_c(m, &o, &err);
  l_model_show_warnings(L, 1);
  if (rc < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushstring(L, o.dir);
  return 1;
}

int l_model_tree(lua_State *L) {
  l_model_get(L, 1);
  int ncut = 0;
  const char **cut = NULL;
  if (!lua_isnoneornil(L, 2)) {
    static const char *const fields[] = {"cut", NULL};
    luaL_checktype(L, 2, LUA_TTABLE);
    lx_check_fields(L, 2, "tree", fields);
    cut = read_names(L, 2, "cut", &ncut);
  }
  mbd_model *m = l_model_enter(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  char *text = NULL;
  mbd_model_clear_warnings(m);
  int rc = mbd_model_tree(m, cut, ncut, &text, &err);
  l_model_show_warnings(L, 1);
  if (rc < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushstring(L, text);
  free(text);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* the engine side of mbd.macro                                                                */

/* mbd._copy_open(m, shape, name, origin, rot) -> copy index */
static int l_copy_open(lua_State *L) {
  mbd_model *m = l_model_enter(L, 1);
  const char *shape = luaL_checkstring(L, 2), *name = luaL_checkstring(L, 3);
  int dim = mbd_model_dim(m);
  double origin[3] = {0, 0, 0}, rot[4] = {1, 0, 0, 0};
  if (lx_read_numbers(L, 4, origin, dim) != dim) {
    return luaL_error(L, LMSG_RELATIVE_MACRO_COPY_ORIGIN_NUMBERS, name, dim);
  }
  if (dim == 2) {
    rot[0] = luaL_checknumber(L, 5);
  } else if (lx_read_numbers(L, 5, rot, 4) != 4) {
    return luaL_error(L, LMSG_RELATIVE_MACRO_COPY_ROT_NUMBERS, name);
  }
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_open_copy(m, shape, name, origin, rot, &err);
  if (k < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushinteger(L, k);
  return 1;
}

static int l_copy_close(lua_State *L) {
  mbd_model_close_copy(l_model_enter(L, 1));
  return 0;
}

int mbd_open_relative(lua_State *L) {
  static const luaL_Reg fns[] = {
      {"_copy_close", l_copy_close}, {"_copy_open", l_copy_open}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  return 0;
}
