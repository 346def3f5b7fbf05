/* Lua binding of coordinate-level systems (DSL.md "Coordinate-level systems", paper 004) and of
 * mbd.stability (DSL.md "Analysis helpers").
 *
 * mbd.System owns the engine system; its user value is a table holding the symbolic coordinate
 * tables q and qd, the force function and the coordinate names.  Symbolic values come from the
 * state's one context (l_sym.h); s:simulate shares the run options and the end of a run with
 * models (l_simulate.h) and calls the force function through the callback bridge (l_callback.h).
 * s.<key> is a method (holonomic, initial, nonholonomic, simulate), else a field (name,
 * nconstraint, q, qd, names, last_run). */
#include "l_system.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_callback.h"
#include "l_explain.h"
#include "l_manifest.h"
#include "l_msg.h"
#include "l_run.h"
#include "l_simulate.h"
#include "l_sym.h"
#include "l_util.h"
#include "mbd/formulation.h"
#include "mbd/system.h"

#define SYSTEM_MT "mbd.System"

typedef struct lsystem {
  mbd_system *s;
  lua_State *L;         /* the state running the current simulate */
  int udidx;            /* stack index of the user-value table during simulate */
  char what[128];       /* "force of system 'pendulum' (ex.lua:3)" for callback messages */
} lsystem;

static lsystem *check_system(lua_State *L, int idx) { return luaL_checkudata(L, idx, SYSTEM_MT); }

static int l_system_gc(lua_State *L) {
  lsystem *ls = luaL_checkudata(L, 1, SYSTEM_MT);
  mbd_system_free(ls->s);
  ls->s = NULL;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* force function callback: f(t, q, qd) -> {F1, ..., Fn}                                        */

static int force_cb(void *ud, double t, const double *q, const double *qd, double *F,
                    mbd_error *err) {
  lsystem *ls = ud;
  lua_State *L = ls->L;
  int n = mbd_system_ncoord(ls->s), top = lua_gettop(L);
  lua_getfield(L, ls->udidx, "force_fn");
  lua_pushnumber(L, t);
  // q and qd tables are reused between calls (filled in place)
  lua_getfield(L, ls->udidx, "q_buf");
  lua_getfield(L, ls->udidx, "qd_buf");
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, q[i]);
    lua_rawseti(L, -3, i + 1);
    lua_pushnumber(L, qd[i]);
    lua_rawseti(L, -2, i + 1);
  }
  int rc = l_cb_pcall(L, ls->what, 3, 1, err);
  if (rc) {
    lua_settop(L, top);
    return rc;
  }
  int got = lx_read_numbers(L, lua_gettop(L), F, n);
  if (got != n) {
    MBD_FAIL(err, MBD_E_CALLBACK, LMSG_SYSTEM_FORCE_RESULT, ls->what, n,
             got >= 0 ? LMSG_CALLBACK_WRONG_SIZE : luaL_typename(L, -1), t);
    lua_settop(L, top);
    return MBD_E_CALLBACK;
  }
  lua_settop(L, top);
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.system { name, q = {names}, mass = {...} | {{...}} | m, force = {...} | function }        */

static int l_system_new(lua_State *L) {
  static const char *const fields[] = {"name", "q", "mass", "force", NULL};
  lx_check_fields(L, 1, "system", fields);
  const char *name = lx_opt_string(L, 1, "system", "name");
  if (lua_getfield(L, 1, "q") != LUA_TTABLE) {
    return luaL_error(L, LMSG_SYSTEM_FIELD_Q_LIST_COORDINATE, lx_typename(L, -1));
  }
  int qidx = lua_gettop(L);
  int n = (int)luaL_len(L, qidx);
  if (n < 1) {
    return luaL_error(L, LMSG_SYSTEM_FIELD_Q_EMPTY);
  }
  const char **names = lua_newuserdatauv(L, sizeof(char *) * (size_t)n, 0);
  for (int i = 0; i < n; i++) {
    if (lua_geti(L, qidx, i + 1) != LUA_TSTRING) {
      return luaL_error(L, LMSG_SYSTEM_FIELD_Q_ENTRY_NAME, i + 1);
    }
    names[i] = lua_tostring(L, -1);  // kept alive by the q table
    lua_pop(L, 1);
  }
  lsystem *ls = lua_newuserdatauv(L, sizeof *ls, 1);
  memset(ls, 0, sizeof *ls);
  luaL_setmetatable(L, SYSTEM_MT);
  int sidx = lua_gettop(L);
  mbd_error err;
  mbd_error_clear(&err);
  ls->s = mbd_system_new(l_sym_ctx(L), name, n, names, &err);
  if (!ls->s) {
    return luaL_error(L, "%s", err.msg);
  }
  char pos[96];
  lx_where(L, pos, sizeof pos);
  snprintf(ls->what, sizeof ls->what, "force of system '%s' (%s)", mbd_system_name(ls->s), pos);
  // user value: q, qd (name -> Sym), names, buffers for the force function
  lua_newtable(L);
  int ud = lua_gettop(L);
  lua_newtable(L);
  lua_newtable(L);
  lua_newtable(L);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, i + 1);
    l_sym_push(L, mbd_system_q(ls->s, i));
    lua_setfield(L, -4, names[i]);
    l_sym_push(L, mbd_system_qd(ls->s, i));
    lua_setfield(L, -3, names[i]);
  }
  lua_setfield(L, ud, "names");
  lua_setfield(L, ud, "qd");
  lua_setfield(L, ud, "q");
  lua_newtable(L);
  lua_setfield(L, ud, "q_buf");
  lua_newtable(L);
  lua_setfield(L, ud, "qd_buf");
  // mass: a number, a diagonal list or a full matrix
  if (lua_getfield(L, 1, "mass") != LUA_TNIL) {
    int mn = 0;
    double *M = lx_read_square(L, lua_gettop(L), "system", "mass", n, &mn);
    int rc = mbd_system_set_mass(ls->s, M, 1, &err);
    if (rc < 0) {
      return luaL_error(L, "%s", err.msg);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  // force: a list of numbers, of symbolic expressions (or one expression when n = 1), a function
  int ft = lua_getfield(L, 1, "force");
  if (ft == LUA_TFUNCTION) {
    lua_setfield(L, ud, "force_fn");
    mbd_system_set_force_fn(ls->s, force_cb, ls, &err);
  } else if (ft == LUA_TTABLE || (ft == LUA_TUSERDATA && l_sym_is(L, -1) && n == 1)) {
    int fidx = lua_gettop(L);
    int len = ft == LUA_TTABLE ? (int)luaL_len(L, fidx) : 1;
    if (len != n) {
      return luaL_error(L, LMSG_SYSTEM_FIELD_FORCE_ENTRIES_ONE, n, len);
    }
    mbd_sym_id *ids = lua_newuserdatauv(L, sizeof(mbd_sym_id) * (size_t)n, 0);
    double *F = lua_newuserdatauv(L, sizeof(double) * (size_t)n, 0);
    int symbolic = 0;
    for (int i = 0; i < n; i++) {
      if (ft == LUA_TTABLE) {
        lua_geti(L, fidx, i + 1);
      } else {
        lua_pushvalue(L, fidx);
      }
      if (lua_type(L, -1) == LUA_TNUMBER) {
        F[i] = lua_tonumber(L, -1);
      } else if (l_sym_is(L, -1)) {
        symbolic = 1;
      } else {
        return luaL_error(L, LMSG_SYSTEM_FIELD_FORCE_ENTRY_NUMBER, i + 1, lx_typename(L, -1));
      }
      ids[i] = l_sym_check(L, -1);
      lua_pop(L, 1);
    }
    int rc = symbolic ? mbd_system_set_force_sym(ls->s, ids, &err)
                      : mbd_system_set_force_const(ls->s, F, &err);
    if (rc < 0) {
      return luaL_error(L, "%s", err.msg);
    }
    lua_pop(L, 3);
  } else if (ft != LUA_TNIL) {
    return luaL_error(L, LMSG_SYSTEM_FIELD_FORCE_LIST_SYMBOLIC, lx_typename(L, -1));
  } else {
    lua_pop(L, 1);
  }
  lua_setiuservalue(L, sidx, 1);
  lua_pushvalue(L, sidx);
  return 1;
}

/* s:holonomic { e1, e2, ... } and s:nonholonomic { ... }: returns the constraints' indices */
static int add_constraints(lua_State *L, int holo) {
  lsystem *ls = check_system(L, 1);
  const char *fn = holo ? "holonomic" : "nonholonomic";
  if (l_sym_is(L, 2)) {
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_replace(L, 2);
  }
  if (lua_type(L, 2) != LUA_TTABLE) {
    return luaL_error(L, LMSG_SYSTEM_LIST_SYMBOLIC_EXPRESSIONS, fn, lx_typename(L, 2));
  }
  int k = (int)luaL_len(L, 2);
  if (k < 1) {
    return luaL_error(L, LMSG_SYSTEM_LIST_EMPTY, fn);
  }
  lua_createtable(L, k, 0);
  for (int i = 1; i <= k; i++) {
    lua_geti(L, 2, i);
    if (!l_sym_is(L, -1)) {
      return luaL_error(L, LMSG_SYSTEM_ENTRY_SYMBOLIC_EXPRESSION_SYSTEM, fn, i, lx_typename(L, -1));
    }
    int id = l_sym_check(L, -1);
    lua_pop(L, 1);
    mbd_error err;
    mbd_error_clear(&err);
    int idx = holo ? mbd_system_add_holonomic(ls->s, id, &err)
                   : mbd_system_add_nonholonomic(ls->s, id, &err);
    if (idx < 0) {
      return luaL_error(L, "%s", err.msg);
    }
    lua_pushinteger(L, idx + 1);
    lua_rawseti(L, -2, i);
  }
  return 1;
}

static int l_system_holonomic(lua_State *L) { return add_constraints(L, 1); }
static int l_system_nonholonomic(lua_State *L) { return add_constraints(L, 0); }

/* s:initial { q = {...}, qd = {...} } */
static int l_system_initial(lua_State *L) {
  lsystem *ls = check_system(L, 1);
  static const char *const fields[] = {"q", "qd", NULL};
  lx_check_fields(L, 2, "initial", fields);
  int n = mbd_system_ncoord(ls->s);
  double *q = lua_newuserdatauv(L, sizeof(double) * 2 * (size_t)n, 0), *qd = q + n;
  int hq = lx_opt_vec(L, 2, "initial", "q", n, q), hqd = lx_opt_vec(L, 2, "initial", "qd", n, qd);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_system_set_initial(ls->s, hq ? q : NULL, hqd ? qd : NULL, &err) < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_settop(L, 1);
  return 1;
}

/* stabilization { alpha, beta, gamma (numbers or lists), S, T, L (numbers, lists, matrices) }:
 * sets o->S, o->T, o->L to GC-owned buffers left on the stack */
static void read_stabilization(lua_State *L, int tidx, mbd_system *s, mbd_sys_opts *o) {
  static const char *const sf[] = {"alpha", "beta", "gamma", "S", "T", "L", NULL};
  lx_check_fields(L, tidx, "simulate: stabilization", sf);
  int nh = 0, nr = 0, m = mbd_system_nconstraint(s);
  for (int k = 0; k < m; k++) {
    (void)(mbd_system_is_holonomic(s, k) ? nh++ : nr++);
  }
  const char *pairs[3][2] = {{"alpha", "S"}, {"beta", "T"}, {"gamma", "L"}};
  const double **dst[3] = {&o->S, &o->T, &o->L};
  for (int k = 0; k < 3; k++) {
    int want = k < 2 ? nh : nr;
    int ha = lx_has(L, tidx, pairs[k][0]), hm = lx_has(L, tidx, pairs[k][1]);
    if (ha && hm) {
      luaL_error(L, LMSG_SYSTEM_SIMULATE_STABILIZATION_EITHER_BOTH, pairs[k][0], pairs[k][1]);
    }
    if (!ha && !hm) {
      continue;
    }
    const char *key = ha ? pairs[k][0] : pairs[k][1];
    if (want == 0) {
      luaL_error(L, LMSG_SYSTEM_SIMULATE_STABILIZATION_NEEDS_CONSTRAINTS, key,
                 k < 2 ? "holonomic" : "nonholonomic", mbd_system_name(s));
    }
    lua_getfield(L, tidx, key);
    int got = 0;
    if (ha && lua_type(L, -1) == LUA_TTABLE) {
      // alpha = {a1, a2, ...}: the diagonal
      lua_geti(L, -1, 1);
      int nested = lua_type(L, -1) == LUA_TTABLE;
      lua_pop(L, 1);
      if (nested) {
        luaL_error(L, LMSG_SYSTEM_SIMULATE_STABILIZATION_NUMBER_LIST, key, pairs[k][1]);
      }
    }
    *dst[k] = lx_read_square(L, lua_gettop(L), "simulate: stabilization", key, want, &got);
    lua_remove(L, -2);
  }
}

/* the formulations a system runs: udwadia_kalaba only */
static int system_formulation(lua_State *L, const char *name) {
  int f = mbd_formulation_with(MBD_FCAP_SYSTEM);
  if (mbd_formulation_from_name(name) != f) {
    luaL_error(L, LMSG_SYSTEM_SIMULATE_MBD_SYSTEM_RUNS, mbd_formulation_name(f), name);
  }
  return f;
}

/* s:simulate { t_end, formulation, integrator, rtol, atol, step, max_step, output_every,
 *              stabilization } */
static int l_system_simulate(lua_State *L) {
  lsystem *ls = check_system(L, 1);
  static const char *const fields[] = {"t_end",    "formulation",  "integrator",    "rtol",
                                       "atol",     "step",         "max_step",      "output_every",
                                       "stabilization", "quiet", "max_order", NULL};
  lx_check_fields(L, 2, "simulate", fields);
  int quiet = l_sim_quiet(L, 2, "simulate");
  lua_settop(L, 2);
  mbd_sys_opts o;
  mbd_sys_opts_default(&o);
  int formulation = mbd_formulation_with(MBD_FCAP_SYSTEM);
  const l_sim_fields f = {.fn = "simulate", .t_end = &o.t_end, .formulation = &formulation,
                          .check = system_formulation, .ode = &o.ode,
                          .output_every = &o.output_every};
  l_sim_read(L, 2, &f);
  if (lua_getfield(L, 2, "stabilization") != LUA_TNIL) {
    read_stabilization(L, lua_gettop(L), ls->s, &o);
  }
  o.poll = l_poll_interrupt;
  lua_getiuservalue(L, 1, 1);
  ls->udidx = lua_gettop(L);
  ls->L = L;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  int rc = mbd_system_simulate(ls->s, &o, &run, &err);
  l_manifest_system(run, ls->s, &o);
  char pos[96];
  lx_where(L, pos, sizeof pos);
  for (int i = 0; mbd_system_warning(ls->s, i); i++) {
    fprintf(stderr, LMSG_WARNING_POS, pos, mbd_system_warning(ls->s, i));
  }
  // a failed run is kept in s.last_run, also when it recorded nothing
  return l_sim_finish(L, 1, rc, run, &err, "s.last_run", 1, quiet);
}

static int l_system_tostring(lua_State *L) {
  lsystem *ls = check_system(L, 1);
  int n = mbd_system_ncoord(ls->s), m = mbd_system_nconstraint(ls->s), nh = 0;
  for (int k = 0; k < m; k++) {
    nh += mbd_system_is_holonomic(ls->s, k);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "mbd.System '%s': q = (", mbd_system_name(ls->s));
  luaL_addvalue(&b);
  for (int i = 0; i < n; i++) {
    luaL_addstring(&b, i ? ", " : "");
    luaL_addstring(&b, mbd_system_coord_name(ls->s, i));
  }
  lua_pushfstring(L, "), %d holonomic and %d nonholonomic constraints", nh, m - nh);
  luaL_addvalue(&b);
  luaL_pushresult(&b);
  return 1;
}

/* the explanation's numbers into a table at the top: t, coordinates, constraints {text, kind},
 * q, qd, M, F, a, A, b, resid, qdd, Qc, value, rate, acc */
static void push_vec(lua_State *L, const double *v, int n, const char *key) {
  lx_push_numbers(L, v, n);
  lua_setfield(L, -2, key);
}

static void push_mat(lua_State *L, const double *a, int rows, int cols, const char *key) {
  lua_createtable(L, rows, 0);
  for (int i = 0; i < rows; i++) {
    lua_createtable(L, cols, 0);
    for (int j = 0; j < cols; j++) {
      lua_pushnumber(L, a[(size_t)j * rows + i]);
      lua_rawseti(L, -2, j + 1);
    }
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, key);
}

static void push_system_explain(lua_State *L, const mbd_system_explain *e, const char *name) {
  lua_createtable(L, 0, 20);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "system");
  lua_pushnumber(L, e->t);
  lua_setfield(L, -2, "t");
  lua_createtable(L, e->n, 0);
  for (int i = 0; i < e->n; i++) {
    lua_pushstring(L, e->coord[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "coordinates");
  lua_createtable(L, e->m, 0);
  for (int k = 0; k < e->m; k++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, e->con[k]);
    lua_setfield(L, -2, "text");
    lua_pushstring(L, e->holo[k] ? "holonomic" : "nonholonomic");
    lua_setfield(L, -2, "kind");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "constraints");
  push_vec(L, e->q, e->n, "q");
  push_vec(L, e->qd, e->n, "qd");
  push_mat(L, e->M, e->n, e->n, "M");
  push_vec(L, e->F, e->n, "F");
  push_vec(L, e->a, e->n, "a");
  push_mat(L, e->A, e->m, e->n, "A");
  push_vec(L, e->b, e->m, "b");
  push_vec(L, e->resid, e->m, "resid");
  push_vec(L, e->qdd, e->n, "qdd");
  push_vec(L, e->qc, e->n, "Qc");
  push_vec(L, e->val, e->m, "value");
  push_vec(L, e->rate, e->m, "rate");
  push_vec(L, e->acc, e->m, "acc");
}

/* s:explain { run = r, t = ... } | s:explain(): paper 004's equation 5 at one state, every term */
static int l_system_explain(lua_State *L) {
  lsystem *ls = check_system(L, 1);
  double t = 0;
  mbd_run *run = l_explain_args(L, "system", &t);
  int n = mbd_system_ncoord(ls->s);
  double *q = NULL, *qd = NULL;
  if (run) {
    int ns = mbd_run_nsample(run);
    const double *ts = mbd_run_times(run);
    if (ns < 1 || !(t >= ts[0] - 1e-12) || !(t <= ts[ns - 1] + 1e-12)) {
      return luaL_error(L, LMSG_SYSTEM_EXPLAIN_T_OUTSIDE_RUN, t, ns ? ts[0] : 0.0,
                        ns ? ts[ns - 1] : 0.0);
    }
    // the state from the run's channels <name> and <name>_dot (userdata: freed with the stack)
    q = lua_newuserdatauv(L, 2 * (size_t)n * sizeof(double) + 1, 0);
    qd = q + n;
    for (int i = 0; i < 2 * n; i++) {
      char ch[160];
      snprintf(ch, sizeof ch, i < n ? "%s" : "%s_dot", mbd_system_coord_name(ls->s, i % n));
      int c = mbd_run_find(run, ch), ok = 0;
      if (c < 0) {
        return luaL_error(L, LMSG_SYSTEM_EXPLAIN_RUN_CHANNEL_RUN, ch);
      }
      q[i] = mbd_run_value(run, c, t, &ok);
    }
  }
  // the force function runs through the callback bridge, as in simulate
  lua_getiuservalue(L, 1, 1);
  ls->udidx = lua_gettop(L);
  ls->L = L;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_system_explain *e = NULL;
  int rc = mbd_system_explain_state(ls->s, t, q, qd, &e, &err);
  if (rc != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  push_system_explain(L, e, mbd_system_name(ls->s));
  mbd_system_explain_free(e);
  return l_explain_finish(L);
}

static const luaL_Reg system_methods[] = {{"explain", l_system_explain},
                                          {"holonomic", l_system_holonomic},
                                          {"initial", l_system_initial},
                                          {"nonholonomic", l_system_nonholonomic},
                                          {"simulate", l_system_simulate},
                                          {NULL, NULL}};

/* the fields of s.<key> once the methods are looked up: name, nconstraint, q, qd, names,
 * last_run (a method wins over a field of the same name) */
static int l_system_fields(lua_State *L) {
  lsystem *ls = check_system(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_system_name(ls->s));
    return 1;
  }
  if (strcmp(k, "nconstraint") == 0) {
    lua_pushinteger(L, mbd_system_nconstraint(ls->s));
    return 1;
  }
  if (strcmp(k, "q") == 0 || strcmp(k, "qd") == 0 || strcmp(k, "names") == 0 ||
      strcmp(k, "last_run") == 0) {
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, k);
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.stability { S = , T = } | { L = }                                                        */

static int l_stability(lua_State *L) {
  static const char *const fields[] = {"S", "T", "L", NULL};
  lx_check_fields(L, 1, "stability", fields);
  int hs = lx_has(L, 1, "S"), ht = lx_has(L, 1, "T"), hl = lx_has(L, 1, "L");
  if (hl && (hs || ht)) {
    return luaL_error(L, LMSG_SYSTEM_STABILITY_S_T_HOLONOMIC);
  }
  if (!hl && !hs && !ht) {
    return luaL_error(L, LMSG_SYSTEM_STABILITY_MISSING_FIELDS_S);
  }
  // sizes: from the first matrix or list given; numbers are 1×1 unless another field sets it
  int h = 0;
  const char *keys[3] = {"S", "T", "L"};
  for (int k = 0; k < 3; k++) {
    if (lua_getfield(L, 1, keys[k]) == LUA_TTABLE && h == 0) {
      h = (int)luaL_len(L, -1);
    }
    lua_pop(L, 1);
  }
  if (h == 0) {
    h = 1;
  }
  double *mats[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++) {
    if (lua_getfield(L, 1, keys[k]) != LUA_TNIL) {
      int got = 0;
      mats[k] = lx_read_square(L, lua_gettop(L), "stability", keys[k], h, &got);
    }
  }
  int N = hl ? h : 2 * h;
  double *re = lua_newuserdatauv(L, sizeof(double) * 2 * (size_t)N, 0), *im = re + N, mx = 0;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_stability(h, mats[0], mats[1], mats[2], re, im, &mx, &err) < 0) {
    return luaL_error(L, "%s", err.msg);  // the engine names "stability"
  }
  lua_createtable(L, 0, 3);
  lua_createtable(L, N, 0);
  for (int i = 0; i < N; i++) {
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, re[i]);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, im[i]);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "eigenvalues");
  lua_pushboolean(L, mx < 0);
  lua_setfield(L, -2, "stable");
  lua_pushnumber(L, mx);
  lua_setfield(L, -2, "max_real");
  return 1;
}

int mbd_open_system(lua_State *L) {
  luaL_newmetatable(L, SYSTEM_MT);
  lx_set_index(L, system_methods, l_system_fields);
  lua_pushcfunction(L, l_system_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_system_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_stability);
  lua_setfield(L, -2, "stability");
  lua_pushcfunction(L, l_system_new);
  lua_setfield(L, -2, "system");
  return 0;
}
