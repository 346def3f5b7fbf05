/* m:explain { run, t } (DSL.md "Analysis helpers"): the engine's mbd_explain as Lua tables —
 * vectors as lists, matrices as lists of rows, names beside them — then stdlib/mbd/explain.lua
 * gives the table its compact printed form. */
#include "l_explain.h"

#include <lauxlib.h>
#include <string.h>

#include "l_model.h"
#include "l_msg.h"
#include "l_run.h"
#include "l_util.h"
#include "mbd/explain.h"

/* t[key] = a string or a number, t the table on top */
/* a column-major rows × cols matrix with leading dimension ld as a list of rows */
static void push_matrix(lua_State *L, const double *a, int rows, int cols, int ld) {
  lua_createtable(L, rows, 0);
  for (int i = 0; i < rows; i++) {
    lua_createtable(L, cols, 0);
    for (int j = 0; j < cols; j++) {
      lua_pushnumber(L, a[(size_t)j * (size_t)ld + (size_t)i]);
      lua_rawseti(L, -2, j + 1);
    }
    lua_rawseti(L, -2, i + 1);
  }
}

static void push_names(lua_State *L, char (*names)[MBD_EXPLAIN_NAME], int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void push_explain(lua_State *L, const mbd_explain *e, int dim) {
  lua_newtable(L);
  lx_set_number(L, "t", e->t);
  lx_set_number(L, "residual", e->residual);
  lua_pushinteger(L, e->f);
  lua_setfield(L, -2, "dof");
  lua_pushinteger(L, e->rank);
  lua_setfield(L, -2, "rank");
  lx_set_number(L, "pivot_ratio", e->pivot_ratio);
  lua_pushinteger(L, dim);
  lua_setfield(L, -2, "dim");
  push_names(L, e->coord, e->n);
  lua_setfield(L, -2, "coordinates");
  push_names(L, e->row, e->nrow);
  lua_setfield(L, -2, "rows");
  push_names(L, e->meaning, e->nrow);
  lua_setfield(L, -2, "meaning");
  push_names(L, e->lambda_is, e->nrow);
  lua_setfield(L, -2, "lambda_is");
  lua_createtable(L, e->nrow, 0);
  for (int i = 0; i < e->nrow; i++) {
    lua_pushboolean(L, e->active[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "active");
  lx_push_numbers(L, e->q, e->nq);
  lua_setfield(L, -2, "q");
  lx_push_numbers(L, e->v, e->n);
  lua_setfield(L, -2, "v");
  lx_push_numbers(L, e->phi, e->nrow);
  lua_setfield(L, -2, "Phi");
  push_matrix(L, e->phiq, e->nrow, e->n, e->nrow);
  lua_setfield(L, -2, "Phiq");
  lx_push_numbers(L, e->phit, e->nrow);
  lua_setfield(L, -2, "Phit");
  lx_push_numbers(L, e->gamma, e->nrow);
  lua_setfield(L, -2, "gamma");
  push_matrix(L, e->M, e->n, e->n, e->n);
  lua_setfield(L, -2, "M");
  lx_push_numbers(L, e->Q, e->n);
  lua_setfield(L, -2, "Q");
  lx_push_numbers(L, e->vdot, e->n);
  lua_setfield(L, -2, "qdd");
  lx_push_numbers(L, e->lambda, e->nrow);
  lua_setfield(L, -2, "lambda");
  push_matrix(L, e->B, e->n, e->f, e->n);
  lua_setfield(L, -2, "B");
  // the partition by coordinate names
  lua_createtable(L, 0, 2);
  lua_createtable(L, e->ma, 0);
  for (int k = 0; k < e->ma; k++) {
    lua_pushstring(L, e->coord[e->dependent[k]]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "dependent");
  lua_createtable(L, e->f, 0);
  for (int k = 0; k < e->f; k++) {
    lua_pushstring(L, e->coord[e->independent[k]]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "independent");
  lua_setfield(L, -2, "partition");
  // reactions per joint
  lua_createtable(L, e->nreaction, 0);
  for (int j = 0; j < e->nreaction; j++) {
    const struct mbd_explain_reaction *re = &e->reaction[j];
    lua_createtable(L, 0, 5);
    lx_set_string(L, "joint", re->joint);
    lx_set_string(L, "body", re->body);
    lx_push_numbers(L, re->force, dim);
    lua_setfield(L, -2, "force");
    if (dim == 2) {
      lua_pushnumber(L, re->torque[2]);
    } else {
      lx_push_numbers(L, re->torque, 3);
    }
    lua_setfield(L, -2, "torque");
    if (re->driven) {
      lx_set_number(L, "effort", re->effort);
    }
    lua_rawseti(L, -2, j + 1);
  }
  lua_setfield(L, -2, "reactions");
  // contacts and frictional joints: regime and forces
  static const char *const modes[] = {"slip", "stick", "open"};
  lua_createtable(L, e->ncontact, 0);
  for (int k = 0; k < e->ncontact; k++) {
    const struct mbd_explain_contact *ec = &e->contact[k];
    lua_createtable(L, 0, 7);
    lx_set_string(L, "name", ec->name);
    lx_set_string(L, "kind", ec->joint ? "joint" : "contact");
    lx_set_string(L, "mode", modes[ec->mode]);
    lx_set_number(L, "friction", ec->friction);
    if (!ec->joint) {
      lx_set_number(L, "normal", ec->normal);
      lx_set_number(L, "gap", ec->gap);
      lx_set_number(L, "slip", ec->slip);
    }
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "contacts");
}

mbd_run *l_explain_args(lua_State *L, const char *owner, double *t) {
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  static const char *const fields[] = {"run", "t", "linearize", NULL};
  lx_check_fields(L, 2, "explain", fields);
  lua_settop(L, 2);
  if (strcmp(owner, "model") != 0 && lx_has(L, 2, "linearize")) {
    luaL_error(L, LMSG_EXPLAIN_FIELD_LINEARIZE_MODELS_M);
  }
  *t = 0;
  int has_t = lx_opt_number(L, 2, "explain", "t", t);
  mbd_run *run = NULL;
  if (lua_getfield(L, 2, "run") != LUA_TNIL) {
    run = l_run_check(L, -1);
    // the run must be this model's (this system's)
    if (l_run_push_owner(L, -1) != LUA_TNIL && !lua_rawequal(L, -1, 1)) {
      luaL_error(L, LMSG_EXPLAIN_FIELD_RUN_RUN_ANOTHER, owner);
    }
    lua_pop(L, 1);
    // a run of one sample (an equilibrium) is explained at its time
    if (!has_t && mbd_run_nsample(run) == 1) {
      *t = mbd_run_times(run)[0];
    } else if (!has_t) {
      luaL_error(L, LMSG_EXPLAIN_MISSING_FIELD_T_TIME);
    }
  } else if (has_t && *t != 0) {
    luaL_error(L, LMSG_EXPLAIN_FIELD_T_NEEDS_FIELD,
               strcmp(owner, "model") == 0 ? "assembled" : "given");
  }
  lua_pop(L, 1);
  return run;
}

int l_explain_finish(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.explain");
  lua_call(L, 1, 1);
  lua_insert(L, -2);
  lua_call(L, 1, 1);
  return 1;
}

int l_model_explain(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  double t = 0;
  mbd_run *run = l_explain_args(L, "model", &t);
  mbd_error err;
  mbd_error_clear(&err);
  // the initial state needs an assembled model: assemble as m:info() does
  l_model_enter(L, 1);
  int rc = MBD_OK;
  if (!mbd_model_is_assembled(m)) {
    rc = mbd_model_assemble(m, NULL, &err);
    l_model_show_warnings(L, 1);
  }
  mbd_explain *e = NULL;
  if (rc == MBD_OK) {
    rc = run ? mbd_explain_run(m, run, t, &e, &err) : mbd_explain_initial(m, &e, &err);
  }
  if (rc != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  push_explain(L, e, mbd_model_dim(m));
  mbd_explain_free(e);
  // linearize = true: the linearization at that state, its equations written term by term
  if (lua_getfield(L, 2, "linearize") != LUA_TNIL) {
    if (!lua_isboolean(L, -1)) {
      return luaL_error(L, LMSG_EXPLAIN_FIELD_LINEARIZE_TRUE_FALSE, lx_typename(L, -1));
    }
    if (lua_toboolean(L, -1)) {
      lua_getfield(L, 1, "linearize");
      lua_pushvalue(L, 1);
      lua_createtable(L, 0, 2);
      if (run) {
        lua_getfield(L, 2, "run");
        lua_setfield(L, -2, "at");
        lua_pushnumber(L, t);
        lua_setfield(L, -2, "t");
      }
      lua_call(L, 2, 1);
      lua_setfield(L, -3, "linear");
    }
  }
  lua_pop(L, 1);
  return l_explain_finish(L);
}
