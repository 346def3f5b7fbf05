/* Lua binding of flexible bodies (DSL.md "Flexible bodies", paper 003): mbd.fem.beam,
 * mbd.fem.from_matrices and mbd.fem.load; the mbd.FE and mbd.Modes userdata; m:flexible_body and a
 * flexible body's arm:node(k).
 *
 *   fe = mbd.fem.beam { length, elements, E, G, rho, A, Iy, Iz, J [, rotary, x0] }
 *   fe:add_mass { node, mass [, inertia = {Ixx, Iyy, Izz}] }
 *   modes = fe:modes { fixed = {1}, count = 6 }      modes.frequency[i], modes.kind[i], modes.count
 *   modes:save("arm.modes"); mbd.fem.load("arm.modes"); modes:shape(i); modes:node(k)
 *   fe:write_matrices { mass = "M.mtx", stiffness = "K.mtx", nodes = "nodes.csv" }
 *   mbd.fem.from_matrices { mass = "M.mtx", stiffness = "K.mtx", nodes = "nodes.csv" }
 *   arm = m:flexible_body { name, fe, modes, select, rotary_inertia, damping,
 *                           geometric_stiffening, pos, rot | angle, vel, omega, a, adot }
 *   arm:node(9), arm.nodes, arm.modes
 *
 * An mbd.FE owns its engine FE model; an mbd.Modes owns its modes and keeps the mbd.FE it came
 * from in its user value (nil for modes read from a file).  Engine errors are raised after the
 * engine's memory is freed. */
#include "l_fem.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "l_model.h"
#include "l_msg.h"
#include "l_objects.h"
#include "l_util.h"
#include "mbd/fem.h"

#define FE_MT "mbd.FE"
#define MODES_MT "mbd.Modes"

typedef struct lfe {
  mbd_fe *fe;
} lfe;

typedef struct lmodes {
  mbd_modes *mo;
} lmodes;

static int raise_err(lua_State *L, const mbd_error *err) { return luaL_error(L, "%s", err->msg); }

/* ------------------------------------------------------------------------------------------ */
/* FE models                                                                                   */

static lfe *check_fe(lua_State *L, int idx) { return luaL_checkudata(L, idx, FE_MT); }

static void push_fe(lua_State *L, mbd_fe *fe) {
  lfe *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->fe = fe;
  luaL_setmetatable(L, FE_MT);
}

/* mbd.fem.beam { length, elements, E, G, rho, A, Iy, Iz, J, rotary, x0 } */
static int l_fem_beam(lua_State *L) {
  static const char *const fields[] = {"length", "elements", "E", "G",      "rho", "A",
                                       "Iy",     "Iz",       "J", "rotary", "x0",  NULL};
  const char *ctor = "fem.beam";
  lx_check_fields(L, 1, ctor, fields);
  mbd_beam_spec s;
  memset(&s, 0, sizeof s);
  s.length = lx_req_number(L, 1, ctor, "length");
  if (!lx_opt_int(L, 1, ctor, "elements", &s.elements)) {
    return luaL_error(L, LMSG_FEM_MISSING_FIELD_ELEMENTS, ctor);
  }
  s.E = lx_req_number(L, 1, ctor, "E");
  s.G = lx_req_number(L, 1, ctor, "G");
  s.rho = lx_req_number(L, 1, ctor, "rho");
  s.A = lx_req_number(L, 1, ctor, "A");
  s.Iy = lx_req_number(L, 1, ctor, "Iy");
  s.Iz = lx_req_number(L, 1, ctor, "Iz");
  s.J = lx_req_number(L, 1, ctor, "J");
  lx_opt_number(L, 1, ctor, "x0", &s.x0);
  if (lua_getfield(L, 1, "rotary") != LUA_TNIL) {
    if (!lua_isboolean(L, -1)) {
      return luaL_error(L, LMSG_FEM_FIELD_ROTARY_BOOLEAN, ctor, lx_typename(L, -1));
    }
    s.section_rotary = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  mbd_fe *fe = mbd_fe_beam(&s, &err);
  if (!fe) {
    return raise_err(L, &err);
  }
  push_fe(L, fe);
  return 1;
}

/* a required string field */
static const char *req_string(lua_State *L, int idx, const char *ctor, const char *key) {
  const char *s = lx_opt_string(L, idx, ctor, key);
  if (!s) {
    luaL_error(L, LMSG_FEM_MISSING_FIELD, ctor, key);
  }
  return s;
}

/* mbd.fem.from_matrices { mass, stiffness, nodes } */
static int l_fem_from_matrices(lua_State *L) {
  static const char *const fields[] = {"mass", "stiffness", "nodes", NULL};
  const char *ctor = "fem.from_matrices";
  lx_check_fields(L, 1, ctor, fields);
  const char *mf = req_string(L, 1, ctor, "mass"), *kf = req_string(L, 1, ctor, "stiffness"),
             *nf = req_string(L, 1, ctor, "nodes");
  mbd_error err;
  mbd_error_clear(&err);
  mbd_fe *fe = mbd_fe_read_matrices(mf, kf, nf, &err);
  if (!fe) {
    return raise_err(L, &err);
  }
  push_fe(L, fe);
  return 1;
}

/* fe:add_mass { node, mass, inertia } */
static int l_fe_add_mass(lua_State *L) {
  lfe *u = check_fe(L, 1);
  static const char *const fields[] = {"node", "mass", "inertia", NULL};
  lx_check_fields(L, 2, "add_mass", fields);
  int node = 0;
  if (!lx_opt_int(L, 2, "add_mass", "node", &node)) {
    return luaL_error(L, LMSG_FEM_ADD_MASS_MISSING_FIELD_NODE);
  }
  double mass = lx_req_number(L, 2, "add_mass", "mass"), J[3] = {0, 0, 0};
  lx_opt_vec(L, 2, "add_mass", "inertia", 3, J);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_fe_add_mass(u->fe, node, mass, J, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  lua_settop(L, 1);
  return 1;
}

/* fe:modes { fixed = {nodes}, count = n } */
static int l_fe_modes(lua_State *L) {
  lfe *u = check_fe(L, 1);
  static const char *const fields[] = {"fixed", "count", NULL};
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  lx_check_fields(L, 2, "modes", fields);
  int count = 6, nfixed = 0;
  lx_opt_int(L, 2, "modes", "count", &count);
  int *fixed = NULL;
  if (lua_getfield(L, 2, "fixed") != LUA_TNIL) {
    if (!lua_istable(L, -1)) {
      return luaL_error(L, LMSG_FEM_MODES_FIELD_FIXED_LIST, lx_typename(L, -1));
    }
    nfixed = (int)luaL_len(L, -1);
    fixed = lua_newuserdatauv(L, sizeof(int) * (size_t)(nfixed ? nfixed : 1), 0);
    for (int k = 0; k < nfixed; k++) {
      lua_geti(L, -2, k + 1);
      int isint = 0;
      lua_Integer v = lua_tointegerx(L, -1, &isint);
      if (!isint) {
        return luaL_error(L, LMSG_FEM_MODES_FIELD_FIXED_NODE, k + 1, lx_typename(L, -1));
      }
      fixed[k] = (int)v;
      lua_pop(L, 1);
    }
  }
  mbd_error err;
  mbd_error_clear(&err);
  mbd_modes *mo = NULL;
  if (mbd_fe_modes(u->fe, fixed, nfixed, count, &mo, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  lmodes *lm = lua_newuserdatauv(L, sizeof *lm, 1);
  lm->mo = mo;
  luaL_setmetatable(L, MODES_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);  // the FE model the modes belong to
  return 1;
}

/* fe:write_matrices { mass, stiffness, nodes } */
static int l_fe_write_matrices(lua_State *L) {
  lfe *u = check_fe(L, 1);
  static const char *const fields[] = {"mass", "stiffness", "nodes", NULL};
  const char *ctor = "write_matrices";
  lx_check_fields(L, 2, ctor, fields);
  const char *mf = req_string(L, 2, ctor, "mass"), *kf = req_string(L, 2, ctor, "stiffness"),
             *nf = req_string(L, 2, ctor, "nodes");
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_fe_write_matrices(u->fe, mf, kf, nf, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  return 0;
}

/* fe.nodes (count), fe.mass (lumped total) */
static int l_fe_fields(lua_State *L) {
  lfe *u = check_fe(L, 1);
  const char *k = luaL_checkstring(L, 2);
  int N = mbd_fe_nnode(u->fe);
  if (strcmp(k, "nodes") == 0) {
    lua_pushinteger(L, N);
  } else if (strcmp(k, "mass") == 0) {
    double *m = lua_newuserdatauv(L, sizeof(double) * 4 * (size_t)N, 0), s = 0;
    mbd_fe_lump(u->fe, m, m + N);
    for (int i = 0; i < N; i++) {
      s += m[i];
    }
    lua_pushnumber(L, s);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_fe_tostring(lua_State *L) {
  lfe *u = check_fe(L, 1);
  lua_pushfstring(L, "mbd.FE (%d nodes, %d DOF)", mbd_fe_nnode(u->fe), 6 * mbd_fe_nnode(u->fe));
  return 1;
}

static int l_fe_gc(lua_State *L) {
  lfe *u = check_fe(L, 1);
  mbd_fe_free(u->fe);
  u->fe = NULL;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* modes                                                                                       */

static lmodes *check_modes(lua_State *L, int idx) { return luaL_checkudata(L, idx, MODES_MT); }

/* mbd.fem.load(file) */
static int l_fem_load(lua_State *L) {
  const char *file = luaL_checkstring(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  mbd_modes *mo = NULL;
  if (mbd_modes_load(file, &mo, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  lmodes *lm = lua_newuserdatauv(L, sizeof *lm, 1);
  lm->mo = mo;
  luaL_setmetatable(L, MODES_MT);
  return 1;
}

/* modes:save(file) */
static int l_modes_save(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  const char *file = luaL_checkstring(L, 2);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_modes_save(lm->mo, file, &err) != MBD_OK) {
    return raise_err(L, &err);
  }
  return 0;
}

/* modes:shape(i): a list per node of {ux, uy, uz, rx, ry, rz} (mass-normalized) */
static int l_modes_shape(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 1 || i > lm->mo->nmode) {
    return luaL_error(L, LMSG_FEM_MODES_SHAPE_MODE_ONE, (int)i, lm->mo->nmode);
  }
  int N = lm->mo->nnode;
  const double *phi = lm->mo->shape + (size_t)(i - 1) * 6 * N;
  lua_createtable(L, N, 0);
  for (int k = 0; k < N; k++) {
    lua_createtable(L, 6, 0);
    for (int d = 0; d < 6; d++) {
      lua_pushnumber(L, phi[6 * k + d]);
      lua_rawseti(L, -2, d + 1);
    }
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

/* modes:node(k): {pos = {x, y, z}, mass = m, inertia = {Jxx, Jyy, Jzz}}, the lumped node */
static int l_modes_node(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2);
  const mbd_modes *mo = lm->mo;
  if (k < 1 || k > mo->nnode) {
    return luaL_error(L, LMSG_FEM_MODES_NODE_NODE_ONE, (int)k, mo->nnode);
  }
  lua_createtable(L, 0, 3);
  const double *v[2] = {mo->xyz + 3 * (k - 1), mo->rot + 3 * (k - 1)};
  const char *key[2] = {"pos", "inertia"};
  for (int t = 0; t < 2; t++) {
    lua_createtable(L, 3, 0);
    for (int d = 0; d < 3; d++) {
      lua_pushnumber(L, v[t][d]);
      lua_rawseti(L, -2, d + 1);
    }
    lua_setfield(L, -2, key[t]);
  }
  lua_pushnumber(L, mo->mass[k - 1]);
  lua_setfield(L, -2, "mass");
  return 1;
}

/* modes.count, .frequency, .kind, .nodes, .fixed */
static int l_modes_fields(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  const char *k = luaL_checkstring(L, 2);
  const mbd_modes *mo = lm->mo;
  if (strcmp(k, "count") == 0) {
    lua_pushinteger(L, mo->nmode);
  } else if (strcmp(k, "nodes") == 0) {
    lua_pushinteger(L, mo->nnode);
  } else if (strcmp(k, "frequency") == 0 || strcmp(k, "kind") == 0) {
    int freq = k[0] == 'f';
    lua_createtable(L, mo->nmode, 0);
    for (int i = 0; i < mo->nmode; i++) {
      if (freq) {
        lua_pushnumber(L, mo->freq[i]);
      } else {
        lua_pushstring(L, mbd_mode_kind_name(mo->kind[i]));
      }
      lua_rawseti(L, -2, i + 1);
    }
  } else if (strcmp(k, "fixed") == 0) {
    lua_createtable(L, mo->nfixed, 0);
    for (int i = 0; i < mo->nfixed; i++) {
      lua_pushinteger(L, mo->fixed[i]);
      lua_rawseti(L, -2, i + 1);
    }
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_modes_tostring(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char line[128];
  snprintf(line, sizeof line, "mbd.Modes (%d modes, %d nodes):", lm->mo->nmode, lm->mo->nnode);
  luaL_addstring(&b, line);
  for (int i = 0; i < lm->mo->nmode; i++) {
    snprintf(line, sizeof line, "\n  %2d  %12.6g Hz  %s", i + 1, lm->mo->freq[i],
             mbd_mode_kind_name(lm->mo->kind[i]));
    luaL_addstring(&b, line);
  }
  luaL_pushresult(&b);
  return 1;
}

static int l_modes_gc(lua_State *L) {
  lmodes *lm = check_modes(L, 1);
  mbd_modes_free(lm->mo);
  lm->mo = NULL;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* m:flexible_body                                                                             */

/* an optional list of n numbers (or, when scalar_ok, one number for all) into out; 1 if given */
static int opt_list(lua_State *L, int idx, const char *what, const char *key, int n, double *out,
                    int scalar_ok) {
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (scalar_ok && t == LUA_TNUMBER) {
    double v = lua_tonumber(L, -1);
    for (int i = 0; i < n; i++) {
      out[i] = v;
    }
    lua_pop(L, 1);
    return 1;
  }
  int got = lx_read_numbers(L, lua_gettop(L), out, n);
  if (got != n) {
    luaL_error(L, LMSG_FEM_FIELD_NUMBERS_ONE_PER, what, key, scalar_ok ? LMSG_FEM_NUMBER_OR : "", n,
               got < 0 ? "" : LMSG_FEM_OTHER_COUNT);
  }
  lua_pop(L, 1);
  return 1;
}

int l_fem_flexible_body(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  int dim = mbd_model_dim(m);
  static const char *const f2[] = {
      "name",  "fe",  "modes", "select", "rotary_inertia", "damping", "geometric_stiffening", "pos",
      "angle", "vel", "omega", "a",      "adot",           NULL};
  static const char *const f3[] = {
      "name", "fe",  "modes", "select", "rotary_inertia", "damping", "geometric_stiffening", "pos",
      "rot",  "vel", "omega", "a",      "adot",           NULL};
  const char *ctor = "flexible_body";
  lx_check_fields(L, 2, ctor, dim == 2 ? f2 : f3);
  mbd_flex_spec s;
  memset(&s, 0, sizeof s);
  s.frame.name = lx_opt_string(L, 2, ctor, "name");
  char what[96];
  snprintf(what, sizeof what, "flexible body '%s'", s.frame.name ? s.frame.name : "(unnamed)");
  // the modes, and the FE model they came from
  if (lua_getfield(L, 2, "modes") == LUA_TNIL) {
    return luaL_error(L, LMSG_FEM_MISSING_FIELD_MODES_FE, ctor);
  }
  lmodes *lm = luaL_testudata(L, -1, MODES_MT);
  if (!lm) {
    return luaL_error(L, LMSG_FEM_FIELD_MODES, ctor, MODES_MT, lx_typename(L, -1));
  }
  int midx = lua_gettop(L);
  if (lua_getfield(L, 2, "fe") != LUA_TNIL) {
    if (!luaL_testudata(L, -1, FE_MT)) {
      return luaL_error(L, LMSG_FEM_FIELD_FE, ctor, FE_MT, lx_typename(L, -1));
    }
    lua_getiuservalue(L, midx, 1);
    if (!lua_rawequal(L, -1, -2)) {
      return luaL_error(L, LMSG_FEM_FIELD_MODES_HOLDS_MODES, ctor);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  const mbd_modes *mo = lm->mo;
  // the selection: every elastic mode when not given
  int nsel = 0;
  int *sel = lua_newuserdatauv(L, sizeof(int) * (size_t)(mo->nmode + 1), 0);
  if (lua_getfield(L, 2, "select") != LUA_TNIL) {
    if (!lua_istable(L, -1)) {
      return luaL_error(L, LMSG_FEM_FIELD_SELECT_LIST_MODE, ctor, lx_typename(L, -1));
    }
    int n = (int)luaL_len(L, -1);
    if (n > mo->nmode) {
      return luaL_error(L, LMSG_FEM_FIELD_SELECT_LISTS_MODES, ctor, n, mo->nmode);
    }
    if (n == 0) {
      // an empty selection leaves a rigid body, whose model may then have nothing left to move:
      // say so here rather than at the run
      return luaL_error(L, LMSG_FEM_FIELD_SELECT_EMPTY_LIST, ctor);
    }
    for (int k = 0; k < n; k++) {
      lua_geti(L, -1, k + 1);
      int isint = 0;
      lua_Integer v = lua_tointegerx(L, -1, &isint);
      if (!isint) {
        return luaL_error(L, LMSG_FEM_FIELD_SELECT_MODE_NUMBERS, ctor, k + 1, lx_typename(L, -1));
      }
      sel[nsel++] = (int)v;
      lua_pop(L, 1);
    }
  } else {
    for (int k = 0; k < mo->nmode; k++) {
      if (mo->kind[k] != MBD_MODE_RIGID) {
        sel[nsel++] = k + 1;
      }
    }
  }
  lua_pop(L, 1);
  int rotary = 1, geometric = 0;
  if (lua_getfield(L, 2, "rotary_inertia") != LUA_TNIL) {
    if (!lua_isboolean(L, -1)) {
      return luaL_error(L, LMSG_FEM_FIELD_ROTARY_INERTIA_BOOLEAN, ctor, lx_typename(L, -1));
    }
    rotary = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  if (lua_getfield(L, 2, "geometric_stiffening") != LUA_TNIL) {
    if (!lua_isboolean(L, -1)) {
      return luaL_error(L, LMSG_FEM_FIELD_GEOMETRIC_STIFFENING_BOOLEAN, ctor, lx_typename(L, -1));
    }
    geometric = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  size_t nb = sizeof(double) * (size_t)(nsel ? nsel : 1);
  double *zeta = lua_newuserdatauv(L, nb, 0), *a0 = lua_newuserdatauv(L, nb, 0),
         *ad0 = lua_newuserdatauv(L, nb, 0);
  int damped = opt_list(L, 2, what, "damping", nsel, zeta, 1);
  int has_a = opt_list(L, 2, what, "a", nsel, a0, 0);
  int has_ad = opt_list(L, 2, what, "adot", nsel, ad0, 0);
  // the frame: the keys of m:body
  s.frame.rot[0] = 1;
  lx_opt_vec_dim(L, 2, what, "pos", dim, dim, s.frame.pos);
  lx_opt_vec_dim(L, 2, what, "vel", dim, dim, s.frame.vel);
  if (dim == 2) {
    lx_opt_number(L, 2, ctor, "angle", &s.frame.angle);
    lx_opt_number(L, 2, ctor, "omega", &s.frame.omega[0]);
  } else {
    lx_opt_vec(L, 2, what, "rot", 4, s.frame.rot);
    lx_opt_vec_dim(L, 2, what, "omega", 3, 3, s.frame.omega);
  }
  // the engine: the selected, scaled modes, then the body (errors raised after freeing)
  mbd_error err;
  mbd_error_clear(&err);
  mbd_modal_set *set = NULL;
  int rc = mbd_modes_select(mo, sel, nsel, damped ? zeta : NULL, rotary, geometric, &set, &err);
  int body = -1;
  if (rc == MBD_OK) {
    const char **labels = lua_newuserdatauv(L, sizeof(char *) * (size_t)(nsel ? nsel : 1), 0);
    for (int k = 0; k < nsel; k++) {
      labels[k] = set->label[k];
    }
    s.nnode = set->nnode;
    s.nmode = set->nmode;
    s.xyz = set->xyz;
    s.mass = set->mass;
    s.rot = set->rot;
    s.shape = set->shape;
    s.kmodal = set->kmodal;
    s.dmodal = set->dmodal;
    s.gmodal = set->gmodal;
    s.a0 = has_a ? a0 : NULL;
    s.adot0 = has_ad ? ad0 : NULL;
    s.label = labels;
    s.nelem = mo->nelem;
    s.elem = mo->elem;
    body = mbd_model_add_flexible_body(m, &s, &err);
    mbd_modal_set_free(set);
  }
  if (rc != MBD_OK || body < 0) {
    return raise_err(L, &err);
  }
  l_obj_push(L, 1, BODY_MT, body);
  return 1;
}

/* arm:node(k): the body of node k of a flexible body */
static int l_body_node(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, BODY_MT);
  lua_Integer k = luaL_checkinteger(L, 2);
  lua_getiuservalue(L, 1, 1);
  const mbd_model *m = l_model_get(L, -1);
  int n = mbd_model_flex_nnode(m, o->index);
  if (n == 0) {
    return luaL_error(L, LMSG_FEM_NODE_BODY_FLEXIBLE_BODY, mbd_model_body_name(m, o->index));
  }
  int b = mbd_model_flex_node(m, o->index, (int)k);
  if (b < 0) {
    return luaL_error(L, LMSG_FEM_NODE_FLEXIBLE_BODY_NODES, mbd_model_body_name(m, o->index), n,
                      (int)k);
  }
  l_obj_push(L, -1, BODY_MT, b);
  return 1;
}

int l_fem_body_field(lua_State *L, const mbd_model *m, int body, const char *key) {
  if (strcmp(key, "node") == 0) {
    lua_pushcfunction(L, l_body_node);
    return 1;
  }
  if (strcmp(key, "nodes") == 0 && mbd_model_flex_nnode(m, body) > 0) {
    lua_pushinteger(L, mbd_model_flex_nnode(m, body));
    return 1;
  }
  if (strcmp(key, "modes") == 0 && mbd_model_flex_nnode(m, body) > 0) {
    lua_pushinteger(L, mbd_model_flex_nmode(m, body));
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* registration                                                                                */

static const luaL_Reg fe_methods[] = {{"add_mass", l_fe_add_mass},
                                      {"modes", l_fe_modes},
                                      {"write_matrices", l_fe_write_matrices},
                                      {NULL, NULL}};

static const luaL_Reg modes_methods[] = {
    {"node", l_modes_node}, {"save", l_modes_save}, {"shape", l_modes_shape}, {NULL, NULL}};

static const luaL_Reg fem_functions[] = {{"beam", l_fem_beam},
                                         {"from_matrices", l_fem_from_matrices},
                                         {"load", l_fem_load},
                                         {NULL, NULL}};

int mbd_open_fem(lua_State *L) {
  luaL_newmetatable(L, FE_MT);
  lx_set_index(L, fe_methods, l_fe_fields);
  lua_pushcfunction(L, l_fe_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_fe_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_newmetatable(L, MODES_MT);
  lx_set_index(L, modes_methods, l_modes_fields);
  lua_pushcfunction(L, l_modes_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_modes_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_newlib(L, fem_functions);
  return 1;
}
