/* analyses beyond time integration (DSL.md "Equilibrium and linearization"): m:equilibrium, which
 * returns an mbd.Run of one sample, and m:linearize, which returns an mbd.Linear — a userdata
 * owning the engine's mbd_linear, its fields (A, B, C, D, coordinates, eigenvalues, frequencies,
 * damping, modes, ...) a Lua table made once (user value 1), its model (user value 2, for
 * lin:animate), the names of its inputs and outputs (user value 3).  tostring(lin) is
 * stdlib/mbd/linear.lua's report. */
#include "l_linear.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_animate.h"
#include "l_callback.h"
#include "l_model.h"
#include "l_msg.h"
#include "l_objects.h"
#include "l_run.h"
#include "l_simulate.h"
#include "l_util.h"
#include "mbd/explain.h"
#include "mbd/formulation.h"
#include "mbd/linear.h"

#define LINEAR_MT "mbd.Linear"

typedef struct llinear {
  mbd_linear *l;
} llinear;

/* ------------------------------------------------------------------------------------------ */
/* reading options                                                                             */

/* the model's joint given at idx: an mbd.Joint of the model at midx, or a joint's name */
static int joint_at(lua_State *L, int idx, int midx, const mbd_model *m, const char *what) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING) {
    int j = mbd_model_find_joint(m, lua_tostring(L, idx));
    if (j < 0) {
      luaL_error(L, LMSG_LINEAR_JOINT_MODEL, what, lua_tostring(L, idx), mbd_model_name(m));
    }
    return j;
  }
  l_obj *o = luaL_testudata(L, idx, JOINT_MT);
  if (!o) {
    luaL_error(L, LMSG_LINEAR_MBD_JOINT_JOINT_S, what, lx_typename(L, idx));
  }
  lua_getiuservalue(L, idx, 1);
  if (!lua_rawequal(L, -1, midx)) {
    luaL_error(L, LMSG_LINEAR_JOINT_JOINT_ANOTHER_MODEL, what);
  }
  lua_pop(L, 1);
  return o->index;
}

/* the model's moving body given at idx: an mbd.Body of the model at midx, or a body's name */
static int body_at(lua_State *L, int idx, int midx, const mbd_model *m, const char *what) {
  idx = lua_absindex(L, idx);
  int b = -1;
  if (lua_type(L, idx) == LUA_TSTRING) {
    b = mbd_model_find_body(m, lua_tostring(L, idx));
    if (b < 0) {
      luaL_error(L, LMSG_LINEAR_BODY_MODEL, what, lua_tostring(L, idx), mbd_model_name(m));
    }
  } else {
    l_obj *o = luaL_testudata(L, idx, BODY_MT);
    if (!o) {
      luaL_error(L, LMSG_LINEAR_MBD_BODY_BODY_S, what, lx_typename(L, idx));
    }
    lua_getiuservalue(L, idx, 1);
    if (!lua_rawequal(L, -1, midx)) {
      luaL_error(L, LMSG_LINEAR_BODY_BODY_ANOTHER_MODEL, what);
    }
    lua_pop(L, 1);
    b = o->index;
  }
  if (b == 0) {
    luaL_error(L, LMSG_LINEAR_GROUND_DOES_MOVE, what);
  }
  return b;
}

/* a list of names (strings) at field key of the table at idx, in a buffer pushed on the stack;
 * NULL (and nil pushed) when absent */
static const char **name_list(lua_State *L, int idx, const char *fn, const char *key, int *n) {
  *n = 0;
  if (lua_getfield(L, idx, key) == LUA_TNIL) {
    return NULL;
  }
  if (!lua_istable(L, -1)) {
    luaL_error(L, LMSG_LINEAR_FIELD_LIST_NAMES, fn, key, lx_typename(L, -1));
  }
  int len = (int)luaL_len(L, -1);
  const char **names = lua_newuserdatauv(L, sizeof(char *) * (size_t)(len ? len : 1), 0);
  for (int i = 1; i <= len; i++) {
    if (lua_geti(L, -2, i) != LUA_TSTRING) {
      luaL_error(L, LMSG_LINEAR_FIELD_ENTRY_NAME, fn, key, i, lx_typename(L, -1));
    }
    names[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_remove(L, -2);  // (the strings stay alive in the options table)
  *n = len;
  return names;
}

/* a formulation's name at field "formulation" (default kane) */
static int read_formulation(lua_State *L, int idx, const char *fn) {
  const char *name = lx_opt_string(L, idx, fn, "formulation");
  if (!name) {
    return mbd_formulation_with(MBD_FCAP_DEFAULT);
  }
  int f = mbd_formulation_from_name(name);
  if (f < 0) {
    char all[160];
    luaL_error(L, LMSG_LINEAR_UNKNOWN_FORMULATION, fn, name,
               mbd_formulation_names(all, sizeof all, 0));
  }
  return f;
}

/* the engine's error raised at the script's line, after the model's warnings */
static int raise_err(lua_State *L, const mbd_error *err) { return luaL_error(L, "%s", err->msg); }

/* ------------------------------------------------------------------------------------------ */
/* m:equilibrium                                                                               */

int l_model_equilibrium(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  static const char *const fields[] = {"formulation", "tol", "max_iterations", "fixed", "cut",
                                       "quiet",       NULL};
  lx_check_fields(L, 2, "equilibrium", fields);
  lua_settop(L, 2);
  int quiet = l_sim_quiet(L, 2, "equilibrium");
  mbd_eq_opts o;
  mbd_eq_opts_default(&o);
  o.formulation = read_formulation(L, 2, "equilibrium");
  char nb[32];
  if (lx_opt_number(L, 2, "equilibrium", "tol", &o.tol) && (!(o.tol > 0) || !isfinite(o.tol))) {
    luaL_error(L, LMSG_LINEAR_EQUILIBRIUM_FIELD_TOL_POSITIVE, lx_num(nb, sizeof nb, o.tol));
  }
  if (lx_opt_int(L, 2, "equilibrium", "max_iterations", &o.max_iter) && o.max_iter < 1) {
    luaL_error(L, LMSG_LINEAR_EQUILIBRIUM_FIELD_MAX_ITERATIONS_LEAST, o.max_iter);
  }
  // fixed = {joints}: their relative coordinates held during the search
  int *fixed = NULL, nfixed = 0;
  if (lua_getfield(L, 2, "fixed") != LUA_TNIL) {
    if (!lua_istable(L, -1)) {
      luaL_error(L, LMSG_LINEAR_EQUILIBRIUM_FIELD_FIXED_LIST, lx_typename(L, -1));
    }
    nfixed = (int)luaL_len(L, -1);
    fixed = lua_newuserdatauv(L, sizeof(int) * (size_t)(nfixed ? nfixed : 1), 0);
    for (int i = 1; i <= nfixed; i++) {
      lua_geti(L, -2, i);
      fixed[i - 1] = joint_at(L, -1, 1, m, "equilibrium: field 'fixed'");
      lua_pop(L, 1);
    }
  } else {
    lua_pushnil(L);
  }
  o.fixed = fixed;
  o.nfixed = nfixed;
  int ncut = 0;
  o.cut = name_list(L, 2, "equilibrium", "cut", &ncut);
  o.ncut = ncut;
  if (o.cut && !mbd_formulation_has(o.formulation, MBD_FCAP_JOINT_COORDS)) {
    luaL_error(L, LMSG_LINEAR_EQUILIBRIUM_FIELD_CUT_FORMULATION);
  }
  o.poll = l_poll_interrupt;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  lua_State *L_outer = l_model_callbacks(L, 1)->L;
  l_model_enter(L, 1);
  int rc = mbd_equilibrium(m, &o, &run, &err);
  l_model_callbacks(L, 1)->L = mbd_model_running(m) ? L_outer : L;
  l_model_show_warnings(L, 1);
  if (run && !quiet && mbd_run_warning(run, 0)) {
    char pos[96];
    lx_where(L, pos, sizeof pos);
    for (int i = 0; mbd_run_warning(run, i); i++) {
      fprintf(stderr, LMSG_WARNING_AT, pos, pos[0] ? ": " : "", mbd_run_warning(run, i));
    }
  }
  if (run) {
    // returned and kept as m.last_run, failed or not (the last iterate of a failed search)
    l_run_push(L, run);
    l_run_set_owner(L, -1, 1);
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "last_run");
    lua_pop(L, 1);
  }
  if (rc < 0) {
    if (run && mbd_run_nsample(run) > 0) {
      return luaL_error(L, LMSG_LINEAR_LAST_ITERATE_KEPT_MODEL, err.msg);
    }
    return raise_err(L, &err);
  }
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* m:linearize                                                                                 */

/* entry i of the list at tidx pushed and checked: a table with only the given fields; what gets
 * "linearize: <kind> <i>" for messages; returns the entry's stack index */
static int list_entry(lua_State *L, int tidx, int i, const char *kind, const char *const *fields,
                      char *what, size_t cap, const char *expects) {
  snprintf(what, cap, "linearize: %s %d", kind, i);
  lua_geti(L, tidx, i);
  int e = lua_gettop(L);
  if (!lua_istable(L, e)) {
    luaL_error(L, LMSG_LINEAR_TABLE, what, expects, lx_typename(L, e));
  }
  lx_check_fields(L, e, what, fields);
  return e;
}

/* inputs = { {torque = body}, {force = body, at = {..}, direction = {..}}, {joint = J,
 * coordinate = "angle" | "displacement"}, name = "..." each }: into u, their names into the
 * table at nidx */
static void read_inputs(lua_State *L, int tidx, int midx, const mbd_model *m, mbd_lin_input *u,
                        int n, int nidx) {
  static const char *const fields[] = {"torque",    "force",      "joint", "at",
                                       "direction", "coordinate", "name",  NULL};
  int dim = mbd_model_dim(m);
  for (int i = 1; i <= n; i++) {
    char what[48];
    int e = list_entry(L, tidx, i, "input", fields, what, sizeof what,
                       "{torque = body}, {force = body, at = ..., direction = ...}, {joint = J}");
    mbd_lin_input *in = &u[i - 1];
    memset(in, 0, sizeof *in);
    int kinds = lx_has(L, e, "torque") + lx_has(L, e, "force") + lx_has(L, e, "joint");
    if (kinds != 1) {
      luaL_error(L, LMSG_LINEAR_ONE_TORQUE_BODY_FORCE, what);
    }
    char name[160];
    if (lx_has(L, e, "joint")) {
      lua_getfield(L, e, "joint");
      in->kind = MBD_LIN_IN_JOINT;
      in->joint = joint_at(L, -1, midx, m, what);
      lua_pop(L, 1);
      const char *c = lx_opt_string(L, e, what, "coordinate");
      // by default the joint's first coordinate: a force along a displacement, else a torque
      const char *c0 = mbd_model_joint_coord_name(m, in->joint, 0);
      in->coord = c0 && strcmp(c0, "displacement") == 0;
      if (c) {
        if (strcmp(c, "angle") != 0 && strcmp(c, "displacement") != 0) {
          luaL_error(L, LMSG_LINEAR_FIELD_COORDINATE_ANGLE_DISPLACEMENT, what, c);
        }
        in->coord = strcmp(c, "displacement") == 0;
      }
      snprintf(name, sizeof name, "%s(%s)", in->coord ? "force" : "torque",
               mbd_model_joint_name(m, in->joint));
    } else {
      int force = lx_has(L, e, "force");
      lua_getfield(L, e, force ? "force" : "torque");
      in->kind = force ? MBD_LIN_IN_FORCE : MBD_LIN_IN_TORQUE;
      in->body = body_at(L, -1, midx, m, what);
      lua_pop(L, 1);
      if (force) {
        lx_opt_vec_dim(L, e, what, "at", dim, dim, in->at);
        if (!lx_opt_vec_dim(L, e, what, "direction", dim, dim, in->dir)) {
          luaL_error(L, LMSG_LINEAR_FORCE_NEEDS_FIELD_DIRECTION, what);
        }
      } else if (dim == 3 && !lx_opt_vec_dim(L, e, what, "direction", 3, 3, in->dir)) {
        luaL_error(L, LMSG_LINEAR_SPATIAL_TORQUE_NEEDS_FIELD, what);
      } else if (dim == 2 && lx_has(L, e, "direction")) {
        luaL_error(L, LMSG_LINEAR_PLANAR_TORQUE_ACTS_ABOUT, what);
      }
      if (!force && lx_has(L, e, "at")) {
        luaL_error(L, LMSG_LINEAR_TORQUE_POINT_FIELD, what);
      }
      snprintf(name, sizeof name, "%s(%s)", force ? "force" : "torque",
               mbd_model_body_name(m, in->body));
    }
    const char *given = lx_opt_string(L, e, what, "name");
    lua_pushstring(L, given ? given : name);
    lua_rawseti(L, nidx, i);
    lua_settop(L, e - 1);
  }
}

/* steady = { {axis = {..}, at = {..}}, {body = b, axis = {..}} }: the symmetries of a steady
 * motion (a whole-model rotation about a fixed axis; an axisymmetric body's spin) */
static void read_steady(lua_State *L, int tidx, int midx, const mbd_model *m, mbd_lin_steady *g,
                        int n) {
  static const char *const fields[] = {"axis", "at", "body", NULL};
  int dim = mbd_model_dim(m);
  for (int i = 1; i <= n; i++) {
    char what[48];
    int e = list_entry(L, tidx, i, "steady", fields, what, sizeof what,
                       "{axis = ..., at = ...} or {body = b, axis = ...}");
    mbd_lin_steady *s = &g[i - 1];
    memset(s, 0, sizeof *s);
    s->body = -1;
    s->axis[2] = 1;
    if (lua_getfield(L, e, "body") != LUA_TNIL) {
      s->body = body_at(L, -1, midx, m, what);
      if (lx_has(L, e, "at")) {
        luaL_error(L, LMSG_LINEAR_BODY_SPINS_ABOUT_OWN, what);
      }
    }
    lua_pop(L, 1);
    if (dim == 3 && !lx_opt_vec_dim(L, e, what, "axis", 3, 3, s->axis)) {
      luaL_error(L, LMSG_LINEAR_MISSING_FIELD_AXIS, what,
                 s->body > 0 ? LMSG_LINEAR_AXIS_BODY : LMSG_LINEAR_AXIS_GLOBAL);
    }
    if (dim == 2 && lx_has(L, e, "axis")) {
      luaL_error(L, LMSG_LINEAR_PLANAR_ROTATION_ABOUT_Z, what);
    }
    lx_opt_vec_dim(L, e, what, "at", dim, dim, s->at);
    lua_settop(L, e - 1);
  }
}

/* a column-major rows × cols matrix as a list of rows */
static void push_matrix(lua_State *L, const double *a, int rows, int cols) {
  lua_createtable(L, rows, 0);
  for (int i = 0; i < rows; i++) {
    lua_createtable(L, cols, 0);
    for (int j = 0; j < cols; j++) {
      lua_pushnumber(L, a[(size_t)j * (size_t)rows + (size_t)i]);
      lua_rawseti(L, -2, j + 1);
    }
    lua_rawseti(L, -2, i + 1);
  }
}

static void push_names(lua_State *L, char (*names)[MBD_LIN_NAME], int n, const char *suffix) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushfstring(L, "%s%s", names[i], suffix);
    lua_rawseti(L, -2, i + 1);
  }
}

/* the fields of a linearization as a table (pushed); names at nidx (inputs) and oidx (outputs) */
static void push_fields(lua_State *L, const mbd_linear *l, int dim, int nidx, int oidx) {
  static const char *const kinds[] = {"oscillatory", "real", "rigid"};
  int f = l->f, nx = l->nx;
  lua_newtable(L);
  push_matrix(L, l->A, nx, nx);
  lua_setfield(L, -2, "A");
  push_matrix(L, l->B, nx, l->nu);
  lua_setfield(L, -2, "B");
  push_matrix(L, l->C, l->ny, nx);
  lua_setfield(L, -2, "C");
  push_matrix(L, l->D, l->ny, l->nu);
  lua_setfield(L, -2, "D");
  push_matrix(L, l->M, f, f);
  lua_setfield(L, -2, "M");
  push_matrix(L, l->K, f, f);
  lua_setfield(L, -2, "K");
  push_matrix(L, l->Cv, f, f);
  lua_setfield(L, -2, "Cv");
  push_names(L, l->coord, f, "");
  lua_setfield(L, -2, "coordinates");
  // the states: the coordinates, then their rates
  lua_createtable(L, nx, 0);
  for (int i = 0; i < nx; i++) {
    lua_pushfstring(L, "%s%s", l->coord[i % f], i < f ? "" : "_dot");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "states");
  lua_pushvalue(L, nidx);
  lua_setfield(L, -2, "inputs");
  lua_pushvalue(L, oidx);
  lua_setfield(L, -2, "outputs");
  lx_push_numbers(L, l->x0, nx);
  lua_setfield(L, -2, "x0");
  lx_push_numbers(L, l->xdot0, nx);
  lua_setfield(L, -2, "xdot0");
  lx_set_number(L, "t", l->t);
  lua_pushstring(L, mbd_formulation_name(l->formulation));
  lua_setfield(L, -2, "formulation");
  lua_pushstring(L, mbd_lin_method_name(l->method));
  lua_setfield(L, -2, "method");
  lua_pushboolean(L, l->equilibrium);
  lua_setfield(L, -2, "equilibrium");
  lx_set_number(L, "residual", l->residual);
  if (l->stable >= 0) {
    lua_pushboolean(L, l->stable);
    lua_setfield(L, -2, "stable");
  }
  lx_set_number(L, "max_re", l->max_re);
  lua_pushinteger(L, dim);
  lua_setfield(L, -2, "dim");
  if (l->nsteady > 0) {
    lx_push_numbers(L, l->rate, l->nsteady);
    lua_setfield(L, -2, "rates");
  }
  lua_createtable(L, l->nwarning, 0);
  for (int i = 0; i < l->nwarning; i++) {
    lua_pushstring(L, l->warning[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "warnings");
  // eigenvalues as {re, im} pairs, ascending |λ|
  lua_createtable(L, nx, 0);
  for (int i = 0; i < nx; i++) {
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, l->re[i]);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, l->im[i]);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "eigenvalues");
  // frequencies and damping ratios of the oscillatory modes (ascending), and every mode
  lua_newtable(L);
  lua_newtable(L);
  int nosc = 0;
  for (int k = 0; k < l->nmode; k++) {
    if (l->mode[k].kind == MBD_MODE_OSCILLATORY) {
      nosc++;
      lua_pushnumber(L, l->mode[k].freq);
      lua_rawseti(L, -3, nosc);
      lua_pushnumber(L, l->mode[k].damping);
      lua_rawseti(L, -2, nosc);
    }
  }
  lua_setfield(L, -3, "damping");
  lua_setfield(L, -2, "frequencies");
  push_names(L, l->body_name, l->nbody, "");
  lua_setfield(L, -2, "bodies");
  lua_createtable(L, l->nmode, 0);
  for (int k = 0; k < l->nmode; k++) {
    const mbd_lin_mode *md = &l->mode[k];
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, k + 1);
    lua_setfield(L, -2, "index");
    lua_pushstring(L, kinds[md->kind]);
    lua_setfield(L, -2, "kind");
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, md->re);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, md->im);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, "eigenvalue");
    lx_set_number(L, "frequency", md->freq);
    lx_set_number(L, "damping", md->damping);
    lx_push_numbers(L, l->shape_re + (size_t)k * f, f);
    lua_setfield(L, -2, "shape");
    lx_push_numbers(L, l->shape_im + (size_t)k * f, f);
    lua_setfield(L, -2, "shape_im");
    // participation: energy shares per coordinate, kinetic energy per body
    lua_createtable(L, 0, 3);
    lx_push_numbers(L, l->pkin + (size_t)k * f, f);
    lua_setfield(L, -2, "kinetic");
    lx_push_numbers(L, l->ppot + (size_t)k * f, f);
    lua_setfield(L, -2, "potential");
    lx_push_numbers(L, l->bkin + (size_t)k * l->nbody, l->nbody);
    lua_setfield(L, -2, "bodies");
    lua_setfield(L, -2, "participation");
    // each body's motion (real parts of the normalized shape)
    static const char *const comp[] = {"x", "y", "z", "rx", "ry", "rz"};
    lua_createtable(L, 0, l->nbody);
    for (int j = 0; j < l->nbody; j++) {
      const double *b = l->bre + 6 * ((size_t)k * l->nbody + j);
      lua_createtable(L, 0, 6);
      for (int c = 0; c < 6; c++) {
        if (dim == 2 && (c == 2 || c == 3 || c == 4)) {
          continue;
        }
        lx_set_number(L, comp[c], b[c]);
      }
      lua_setfield(L, -2, l->body_name[j]);
    }
    lua_setfield(L, -2, "bodies");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "modes");
}

int l_model_linearize(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  static const char *const fields[] = {"at",      "t",      "formulation", "method", "inputs",
                                       "outputs", "steady", "cut",         "quiet",  NULL};
  lx_check_fields(L, 2, "linearize", fields);
  lua_settop(L, 2);
  int quiet = l_sim_quiet(L, 2, "linearize");
  mbd_lin_opts o;
  mbd_lin_opts_default(&o);
  o.formulation = read_formulation(L, 2, "linearize");
  const char *method = lx_opt_string(L, 2, "linearize", "method");
  if (method) {
    o.method = mbd_lin_method_from_name(method);
    if (o.method < 0) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_UNKNOWN_METHOD_DIFFERENCES, method);
    }
  }
  // the model assembled (its initial state, or the coordinates a run's state is read into)
  mbd_error err;
  mbd_error_clear(&err);
  lua_State *L_outer = l_model_callbacks(L, 1)->L;  // (a call from inside a run of this model)
  l_model_enter(L, 1);
  if (!mbd_model_is_assembled(m)) {
    if (mbd_model_running(m)) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_MODEL_RUNNING_ASSEMBLED, mbd_model_name(m));
    }
    int rc = mbd_model_assemble(m, NULL, &err);
    l_model_show_warnings(L, 1);
    if (rc != MBD_OK) {
      return raise_err(L, &err);
    }
  }
  // the operating point: at = run (t, or its only sample), or the initial state
  double t = 0;
  int has_t = lx_opt_number(L, 2, "linearize", "t", &t);
  int nq = 0, nv = 0;
  if (lua_getfield(L, 2, "at") != LUA_TNIL) {
    mbd_run *run = luaL_testudata(L, -1, "mbd.Run") ? l_run_check(L, -1) : NULL;
    if (!run) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_MBD_RUN, lx_typename(L, -1));
    }
    if (l_run_push_owner(L, -1) != LUA_TNIL && !lua_rawequal(L, -1, 1)) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_RUN_ANOTHER);
    }
    lua_pop(L, 1);
    int ns = mbd_run_nsample(run);
    if (!has_t && ns != 1) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_MISSING_FIELD_T);
    }
    if (!has_t) {
      t = mbd_run_times(run)[0];
    }
    const double *ts = mbd_run_times(run);
    if (ns < 1 || !(t >= ts[0] - 1e-12) || !(t <= ts[ns - 1] + 1e-12)) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_T_OUTSIDE_RUN, t, ns ? ts[0] : 0.0,
                 ns ? ts[ns - 1] : 0.0);
    }
    mbd_linear_state_size(m, &nq, &nv);
    double *q =
        lua_newuserdatauv(L, sizeof(double) * (size_t)(nq + nv + mbd_model_njoint(m) + 3), 0);
    double *v = q + nq + 1, *memo = v + nv + 1;
    if (mbd_run_state_at(m, run, t, q, v, memo, &err) != MBD_OK) {
      return raise_err(L, &err);
    }
    o.q = q;
    o.v = v;
    o.memo = memo;
    o.t = t;
  } else if (has_t && t != 0) {
    luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_T_NEEDS);
  } else {
    lua_pushnil(L);
  }
  // inputs, outputs, the symmetries of a steady motion, the cut joints of relative
  lua_newtable(L);
  int nidx = lua_gettop(L);
  if (lua_getfield(L, 2, "inputs") != LUA_TNIL) {
    if (!lua_istable(L, -1)) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_INPUTS_LIST, lx_typename(L, -1));
    }
    o.ninput = (int)luaL_len(L, -1);
    mbd_lin_input *u = lua_newuserdatauv(L, sizeof *u * (size_t)(o.ninput + 1), 0);
    read_inputs(L, lua_gettop(L) - 1, 1, m, u, o.ninput, nidx);
    o.input = u;
  } else {
    lua_pushnil(L);
  }
  int nout = 0;
  const char **outs = name_list(L, 2, "linearize", "outputs", &nout);
  o.output = outs;
  o.noutput = nout;
  lua_createtable(L, nout, 0);
  int oidx = lua_gettop(L);
  for (int i = 0; i < nout; i++) {
    lua_pushstring(L, outs[i]);
    lua_rawseti(L, oidx, i + 1);
  }
  if (lua_getfield(L, 2, "steady") != LUA_TNIL) {
    if (!lua_istable(L, -1)) {
      luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_STEADY_LIST, lx_typename(L, -1));
    }
    o.nsteady = (int)luaL_len(L, -1);
    mbd_lin_steady *g = lua_newuserdatauv(L, sizeof *g * (size_t)(o.nsteady + 1), 0);
    read_steady(L, lua_gettop(L) - 1, 1, m, g, o.nsteady);
    o.steady = g;
  } else {
    lua_pushnil(L);
  }
  int ncut = 0;
  o.cut = name_list(L, 2, "linearize", "cut", &ncut);
  o.ncut = ncut;
  if (o.cut && !mbd_formulation_has(o.formulation, MBD_FCAP_JOINT_COORDS)) {
    luaL_error(L, LMSG_LINEAR_LINEARIZE_FIELD_CUT_FORMULATION);
  }
  o.poll = l_poll_interrupt;
  // the engine; the result's userdata made first so that nothing leaks on an error
  llinear *ll = lua_newuserdatauv(L, sizeof *ll, 3);
  ll->l = NULL;
  luaL_setmetatable(L, LINEAR_MT);
  int uidx = lua_gettop(L);
  int rc = mbd_linearize(m, &o, &ll->l, &err);
  l_model_callbacks(L, 1)->L = mbd_model_running(m) ? L_outer : L;
  if (rc != MBD_OK) {
    return raise_err(L, &err);
  }
  if (!quiet && ll->l->nwarning > 0) {
    char pos[96];
    lx_where(L, pos, sizeof pos);
    for (int i = 0; i < ll->l->nwarning; i++) {
      fprintf(stderr, LMSG_LINEAR_WARNING_AT, pos, pos[0] ? ": " : "", ll->l->warning[i]);
    }
  }
  push_fields(L, ll->l, mbd_model_dim(m), nidx, oidx);
  lua_setiuservalue(L, uidx, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, uidx, 2);
  lua_createtable(L, 2, 0);
  lua_pushvalue(L, nidx);
  lua_rawseti(L, -2, 1);
  lua_pushvalue(L, oidx);
  lua_rawseti(L, -2, 2);
  lua_setiuservalue(L, uidx, 3);
  lua_pushvalue(L, uidx);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.Linear                                                                                  */

static llinear *check_linear(lua_State *L, int idx) {
  llinear *ll = luaL_checkudata(L, idx, LINEAR_MT);
  if (!ll->l) {
    luaL_error(L, LMSG_LINEAR_MBD_LINEAR_LINEARIZATION_FAILED);
  }
  return ll;
}

static int l_linear_gc(lua_State *L) {
  llinear *ll = luaL_checkudata(L, 1, LINEAR_MT);
  mbd_linear_free(ll->l);
  ll->l = NULL;
  return 0;
}

/* the names of the inputs (k = 1) or outputs (k = 2) as a buffer of pointers pushed on the stack */
static const char **io_names(lua_State *L, int idx, int k, int n) {
  lua_getiuservalue(L, idx, 3);
  lua_geti(L, -1, k);
  const char **names = lua_newuserdatauv(L, sizeof(char *) * (size_t)(n ? n : 1), 0);
  for (int i = 0; i < n; i++) {
    lua_geti(L, -2, i + 1);
    names[i] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  return names;  // (the strings stay referenced by the user value)
}

/* lin:write(file [, format]): the packed matrix [A B; C D], Matrix Market (.mtx, the default) or
 * CSV (.csv, or format = "csv") -> file */
static int l_linear_write(lua_State *L) {
  llinear *ll = check_linear(L, 1);
  const char *file = luaL_checkstring(L, 2);
  const char *fmt = luaL_optstring(L, 3, NULL);
  size_t len = strlen(file);
  int csv = len >= 4 && strcmp(file + len - 4, ".csv") == 0;
  if (fmt) {
    if (strcmp(fmt, "csv") != 0 && strcmp(fmt, "mtx") != 0) {
      return luaL_error(L, LMSG_LINEAR_LIN_WRITE_FORMAT_MTX, fmt);
    }
    csv = strcmp(fmt, "csv") == 0;
  }
  const char **in = io_names(L, 1, 1, ll->l->nu);
  const char **out = io_names(L, 1, 2, ll->l->ny);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_linear_write(ll->l, file, csv, in, out, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  lua_pushstring(L, file);
  return 1;
}

/* lin:animate { mode = k, file, amplitude, cycles, steps, title, trace, shapes, every } -> file:
 * the mode's motion as a run of the model (mbd_linear_mode_run), animated as run:animate does */
static int l_linear_animate(lua_State *L) {
  llinear *ll = check_linear(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const fields[] = {"mode",  "file",  "amplitude", "cycles", "steps",
                                       "title", "trace", "shapes",    "every",  NULL};
  lx_check_fields(L, 2, "lin:animate", fields);
  int k = 1, steps = 40;
  double amp = 0, cycles = 2;
  lx_opt_int(L, 2, "lin:animate", "mode", &k);
  lx_opt_number(L, 2, "lin:animate", "amplitude", &amp);
  lx_opt_number(L, 2, "lin:animate", "cycles", &cycles);
  lx_opt_int(L, 2, "lin:animate", "steps", &steps);
  if (k < 1 || k > ll->l->nmode) {
    return luaL_error(L, LMSG_LINEAR_LIN_ANIMATE_MODE_DOES, k, ll->l->nmode);
  }
  if (!(cycles > 0) || cycles > 1000 || steps < 2 || steps > 10000) {
    return luaL_error(L, LMSG_LINEAR_LIN_ANIMATE_CYCLES_STEPS);
  }
  if (!(amp >= 0) || !isfinite(amp)) {
    return luaL_error(L, LMSG_LINEAR_LIN_ANIMATE_FIELD_AMPLITUDE);
  }
  lua_getiuservalue(L, 1, 2);
  int midx = lua_gettop(L);
  mbd_model *m = l_model_get(L, midx);
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  l_model_enter(L, midx);
  if (mbd_linear_mode_run(m, ll->l, k - 1, amp, cycles, steps, l_poll_interrupt, NULL, &run,
                          &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  // run:animate with the page's options
  lua_pushcfunction(L, l_run_animate);
  l_run_push(L, run);
  l_run_set_owner(L, -1, midx);
  lua_createtable(L, 0, 5);
  static const char *const pass[] = {"file", "title", "trace", "shapes", "every"};
  for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
    lua_getfield(L, 2, pass[i]);
    lua_setfield(L, -2, pass[i]);
  }
  if (!lx_has(L, 2, "title")) {
    const mbd_lin_mode *md = &ll->l->mode[k - 1];
    lua_pushfstring(L, "%s: mode %d (%f Hz)", mbd_model_name(m), k, md->freq);
    lua_setfield(L, -2, "title");
  }
  lua_call(L, 2, 1);
  return 1;
}

static int l_linear_fields(lua_State *L) {
  check_linear(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_gettable(L, -2);
  return 1;
}

/* tostring(lin): stdlib/mbd/linear.lua's report of the fields */
static int l_linear_tostring(lua_State *L) {
  check_linear(L, 1);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.linear");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "report");
  lua_getiuservalue(L, 1, 1);
  lua_call(L, 1, 1);
  return 1;
}

static const luaL_Reg linear_methods[] = {
    {"animate", l_linear_animate}, {"write", l_linear_write}, {NULL, NULL}};

int mbd_open_linear(lua_State *L) {
  luaL_newmetatable(L, LINEAR_MT);
  lx_set_index(L, linear_methods, l_linear_fields);
  lua_pushcfunction(L, l_linear_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_linear_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  return 0;
}
