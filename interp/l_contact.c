/* Lua binding of contacts (DSL.md "Contact", paper 001): m:surface { ... } -> mbd.Surface,
 * m:contact { ... } -> mbd.Contact, and the joints' friction field.
 *
 *   m:surface { name, body, shape, ... }     shape "line" {at, direction}, "circle" {radius, at},
 *       "sine" {amplitude, wavelength, at}, "curve" {x, y: symbolic of param (default the
 *       variable u), range, u0}; spatial "plane" {at, normal}, "sphere" {radius, at},
 *       "revolution" {profile: symbolic radius of the axial coordinate z (or a number), at},
 *       "implicit" {f: symbolic of x, y, z}, "parametric" {x, y, z: symbolic of params (default
 *       u, v), range, u0}; every shape: inner = true turns the normal over (the body lies on the
 *       other side)
 *   m:contact { name, surface1, surface2, friction, mu, mu_static, slope, restitution }
 *
 * Surfaces and contacts are objects holding an index and their model (user value), like bodies. */
#include "l_contact.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "l_model.h"
#include "l_msg.h"
#include "l_objects.h"
#include "l_sym.h"
#include "l_util.h"
#include "mbd/contact.h"

#define SURFACE_MT "mbd.Surface"
#define CONTACT_MT "mbd.Contact"

/* the engine model of the object at idx (pushes its model userdata, which keeps it alive) */
static const mbd_model *obj_model(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
  return l_model_get(L, -1);
}

/* ------------------------------------------------------------------------------------------ */
/* m:surface                                                                                   */

/* the keys each shape takes besides name, body, shape, inner */
static const char *const shape_keys[MBD_SHAPE_N][8] = {
    [MBD_SHAPE_LINE] = {"at", "direction", "range", NULL},
    [MBD_SHAPE_CIRCLE] = {"at", "radius", NULL},
    [MBD_SHAPE_SINE] = {"at", "amplitude", "wavelength", "range", NULL},
    [MBD_SHAPE_CURVE] = {"x", "y", "param", "range", "u0", NULL},
    [MBD_SHAPE_PLANE] = {"at", "normal", NULL},
    [MBD_SHAPE_SPHERE] = {"at", "radius", NULL},
    [MBD_SHAPE_REVOLUTION] = {"at", "profile", NULL},
    [MBD_SHAPE_IMPLICIT] = {"f", NULL},
    [MBD_SHAPE_PARAMETRIC] = {"x", "y", "z", "params", "range", "u0", NULL},
};

static int takes(int shape, const char *key) {
  for (int k = 0; shape_keys[shape][k]; k++) {
    if (strcmp(shape_keys[shape][k], key) == 0) {
      return 1;
    }
  }
  return 0;
}

/* a symbolic field (an mbd.Sym or a number): its node id, or MBD_SYM_NONE when absent */
static mbd_sym_id sym_field(lua_State *L, int tidx, const char *what, const char *key) {
  if (lua_getfield(L, tidx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return MBD_SYM_NONE;
  }
  if (!l_sym_is(L, -1) && lua_type(L, -1) != LUA_TNUMBER) {
    luaL_error(L, LMSG_CONTACT_FIELD_SYMBOLIC_EXPRESSION_MBD, what, key, lx_typename(L, -1));
  }
  mbd_sym_id id = l_sym_check(L, lua_gettop(L));
  lua_pop(L, 1);
  return id;
}

/* a symbolic variable field: its id (a variable), or MBD_SYM_NONE when absent */
static mbd_sym_id var_value(lua_State *L, int idx, const char *what, const char *key) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  if (!l_sym_is(L, idx) || mbd_sym_op_of(ctx, l_sym_check(L, idx)) != MBD_SYM_VAR) {
    luaL_error(L, LMSG_CONTACT_FIELD_SYMBOLIC_VARIABLE_MBD, what, key, lx_typename(L, idx));
  }
  return l_sym_check(L, idx);
}

/* the parameter of expressions e[0..n): the variable named `name` when they use it, else their
 * only variable, else a new variable of that name (a constant curve is refused by the engine) */
static mbd_sym_id default_param(lua_State *L, const mbd_sym_id *e, int n, const char *name,
                                const char *what) {
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  mbd_sym_id found = MBD_SYM_NONE, named = mbd_sym_find_var(ctx, name);
  int count = 0;
  for (int i = 0; i < n; i++) {
    mbd_sym_id vs[8];
    int nv = mbd_sym_vars(ctx, e[i], 8, vs);
    for (int k = 0; k < nv && k < 8; k++) {
      if (vs[k] == named) {
        return named;
      }
      if (vs[k] != found) {
        count += found == MBD_SYM_NONE || vs[k] != found;
        found = vs[k];
      }
    }
  }
  if (count > 1) {
    luaL_error(L, LMSG_CONTACT_EXPRESSIONS_SEVERAL_VARIABLES_NAME, what);
  }
  return found != MBD_SYM_NONE ? found : mbd_sym_var(ctx, name, -1);
}

/* range = {lo, hi} (one parameter) or {{lo, hi}, {lo, hi}} (two) */
static void read_range(lua_State *L, int tidx, const char *what, int np, mbd_surface_spec *s) {
  if (lua_getfield(L, tidx, "range") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  int r = lua_gettop(L);
  if (np == 1) {
    if (lx_read_numbers(L, r, s->range[0], 2) != 2) {
      luaL_error(L, LMSG_CONTACT_FIELD_RANGE_NUMBERS_LO, what);
    }
    s->nrange = 1;
  } else {
    for (int k = 0; k < 2; k++) {
      lua_rawgeti(L, r, k + 1);
      if (lx_read_numbers(L, lua_gettop(L), s->range[k], 2) != 2) {
        luaL_error(L, LMSG_CONTACT_FIELD_RANGE_U_LO_U_HI, what);
      }
      lua_pop(L, 1);
    }
    s->nrange = 2;
  }
  lua_pop(L, 1);
}

int l_model_surface(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  int dim = mbd_model_dim(m);
  static const char *const fields[] = {"name",      "body",   "shape",  "inner",     "at",
                                       "direction", "normal", "radius", "amplitude", "wavelength",
                                       "x",         "y",      "z",      "f",         "profile",
                                       "param",     "params", "range",  "u0",        NULL};
  lx_check_fields(L, 2, "surface", fields);
  mbd_surface_spec s;
  memset(&s, 0, sizeof s);
  for (int k = 0; k < 3; k++) {
    s.expr[k] = s.var[k] = MBD_SYM_NONE;
  }
  s.name = lx_opt_string(L, 2, "surface", "name");
  s.body = l_obj_body(L, 2, 1, "surface", "body", 1);
  const char *shape = lx_opt_string(L, 2, "surface", "shape");
  if (!shape) {
    return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD_SHAPE);
  }
  s.shape = mbd_shape_from_name(shape);
  if (s.shape < 0) {
    return luaL_error(L, LMSG_CONTACT_SURFACE_UNKNOWN_SHAPE_PLANAR, shape);
  }
  char what[96];
  snprintf(what, sizeof what, "surface '%s'", s.name ? s.name : "");
  if (!s.name) {
    snprintf(what, sizeof what, "surface '%s%d'", "surface", mbd_model_nsurface(m) + 1);
  }
  if (mbd_shape_dim(s.shape) != dim) {
    return luaL_error(L, LMSG_CONTACT_SHAPE_MODEL_DIM, what, shape, dim == 2 ? "spatial" : "planar",
                      dim == 2 ? "planar" : "spatial", dim);
  }
  // every key given must be one the shape takes
  for (int k = 4; fields[k]; k++) {
    if (lx_has(L, 2, fields[k]) && !takes(s.shape, fields[k])) {
      return luaL_error(L, LMSG_CONTACT_SURFACE_FIELD_USED_SHAPE, fields[k], shape, what);
    }
  }
  if (lx_has(L, 2, "inner")) {
    lua_getfield(L, 2, "inner");
    if (!lua_isboolean(L, -1)) {
      return luaL_error(L, LMSG_CONTACT_SURFACE_FIELD_INNER_BOOLEAN, lx_typename(L, -1));
    }
    s.inner = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  lx_opt_vec_dim(L, 2, what, "at", dim, dim, s.at);
  // the numbers each shape needs
  switch (s.shape) {
    case MBD_SHAPE_LINE:
      if (!lx_opt_vec_dim(L, 2, what, "direction", 2, 2, s.direction)) {
        return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD_DIRECTION, what);
      }
      read_range(L, 2, what, 1, &s);
      break;
    case MBD_SHAPE_CIRCLE:
    case MBD_SHAPE_SPHERE:
      s.radius = lx_req_number(L, 2, "surface", "radius");
      break;
    case MBD_SHAPE_SINE:
      s.amplitude = lx_req_number(L, 2, "surface", "amplitude");
      s.wavelength = lx_req_number(L, 2, "surface", "wavelength");
      read_range(L, 2, what, 1, &s);
      break;
    case MBD_SHAPE_PLANE:
      if (!lx_opt_vec_dim(L, 2, what, "normal", 3, 3, s.normal)) {
        return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD_NORMAL, what);
      }
      break;
    default:
      break;
  }
  // symbolic shapes: expressions and their variables
  mbd_sym_ctx *ctx = l_sym_ctx(L);
  if (s.shape == MBD_SHAPE_CURVE || s.shape == MBD_SHAPE_PARAMETRIC) {
    int ne = s.shape == MBD_SHAPE_CURVE ? 2 : 3;
    static const char *const xyz[] = {"x", "y", "z"};
    for (int k = 0; k < ne; k++) {
      s.expr[k] = sym_field(L, 2, what, xyz[k]);
      if (s.expr[k] == MBD_SYM_NONE) {
        return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD, xyz[k], what);
      }
    }
    if (s.shape == MBD_SHAPE_CURVE) {
      if (lua_getfield(L, 2, "param") != LUA_TNIL) {
        s.var[0] = var_value(L, lua_gettop(L), what, "param");
      } else {
        s.var[0] = default_param(L, s.expr, ne, "u", what);
      }
      lua_pop(L, 1);
      lx_opt_number(L, 2, "surface", "u0", &s.u0[0]);
    } else {
      if (lua_getfield(L, 2, "params") != LUA_TNIL) {
        for (int k = 0; k < 2; k++) {
          lua_rawgeti(L, -1 - k, k + 1);
          s.var[k] = var_value(L, lua_gettop(L), what, "params");
        }
        lua_pop(L, 2);
        if (s.var[0] == s.var[1]) {
          return luaL_error(L, LMSG_CONTACT_SURFACE_FIELD_PARAMS_NAME);
        }
      } else {
        s.var[0] = mbd_sym_var(ctx, "u", -1);
        s.var[1] = mbd_sym_var(ctx, "v", -1);
      }
      lua_pop(L, 1);
      lx_opt_vec(L, 2, what, "u0", 2, s.u0);
    }
    read_range(L, 2, what, s.shape == MBD_SHAPE_CURVE ? 1 : 2, &s);
    s.ctx = ctx;
  } else if (s.shape == MBD_SHAPE_IMPLICIT) {
    s.expr[0] = sym_field(L, 2, what, "f");
    if (s.expr[0] == MBD_SYM_NONE) {
      return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD_F, what);
    }
    s.var[0] = mbd_sym_var(ctx, "x", -1);
    s.var[1] = mbd_sym_var(ctx, "y", -1);
    s.var[2] = mbd_sym_var(ctx, "z", -1);
    s.ctx = ctx;
  } else if (s.shape == MBD_SHAPE_REVOLUTION) {
    s.expr[0] = sym_field(L, 2, what, "profile");
    if (s.expr[0] == MBD_SYM_NONE) {
      return luaL_error(L, LMSG_CONTACT_SURFACE_MISSING_FIELD_PROFILE, what);
    }
    s.var[0] = default_param(L, s.expr, 1, "z", what);
    s.ctx = ctx;
  }
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_surface(m, &s, &err);
  if (k < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  l_obj_push(L, 1, SURFACE_MT, k);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* m:contact                                                                                   */

/* a surface field of the constructor table: an mbd.Surface of the model at 1 */
static int surface_field(lua_State *L, int tidx, const char *key) {
  if (lua_getfield(L, tidx, key) == LUA_TNIL) {
    luaL_error(L, LMSG_CONTACT_MISSING_FIELD, key);
  }
  l_obj *o = luaL_testudata(L, -1, SURFACE_MT);
  if (!o) {
    luaL_error(L, LMSG_CONTACT_FIELD, key, SURFACE_MT, lx_typename(L, -1));
  }
  lua_getiuservalue(L, -1, 1);
  if (!lua_rawequal(L, -1, 1)) {
    luaL_error(L, LMSG_CONTACT_FIELD_SURFACE_ANOTHER_MODEL, key);
  }
  lua_pop(L, 2);
  return o->index;
}

int l_model_contact(lua_State *L) {
  mbd_model *m = l_model_get(L, 1);
  static const char *const fields[] = {"name",      "surface1", "surface2",    "friction", "mu",
                                       "mu_static", "slope",    "restitution", NULL};
  lx_check_fields(L, 2, "contact", fields);
  mbd_contact_spec c;
  memset(&c, 0, sizeof c);
  c.name = lx_opt_string(L, 2, "contact", "name");
  c.surface1 = surface_field(L, 2, "surface1");
  c.surface2 = surface_field(L, 2, "surface2");
  int has_mu = lx_opt_number(L, 2, "contact", "mu", &c.mu);
  const char *fr = lx_opt_string(L, 2, "contact", "friction");
  if (!fr) {
    c.friction = has_mu ? MBD_FRICTION_COULOMB : MBD_FRICTION_NONE;
  } else if (strcmp(fr, "coulomb") == 0) {
    c.friction = MBD_FRICTION_COULOMB;
  } else if (strcmp(fr, "regularized") == 0) {
    c.friction = MBD_FRICTION_REGULARIZED;
  } else if (strcmp(fr, "none") == 0) {
    c.friction = MBD_FRICTION_NONE;
  } else {
    return luaL_error(L, LMSG_CONTACT_UNKNOWN_FRICTION_COULOMB_REGULARIZED, fr);
  }
  if (c.friction != MBD_FRICTION_NONE && !has_mu) {
    return luaL_error(L, LMSG_CONTACT_FRICTION_NEEDS_FIELD_MU, fr ? fr : "coulomb");
  }
  c.mu_static = c.mu;
  int has_ms = lx_opt_number(L, 2, "contact", "mu_static", &c.mu_static);
  if (has_ms && c.friction != MBD_FRICTION_COULOMB) {
    return luaL_error(L, LMSG_CONTACT_FIELD_MU_STATIC_FRICTION_COULOMB);
  }
  int has_slope = lx_opt_number(L, 2, "contact", "slope", &c.slope);
  if (c.friction == MBD_FRICTION_REGULARIZED && !has_slope) {
    return luaL_error(L, LMSG_CONTACT_FRICTION_REGULARIZED_NEEDS_FIELD);
  }
  if (has_slope && c.friction != MBD_FRICTION_REGULARIZED) {
    return luaL_error(L, LMSG_CONTACT_FIELD_SLOPE_FRICTION_REGULARIZED);
  }
  c.has_restitution = lx_opt_number(L, 2, "contact", "restitution", &c.restitution);
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_contact(m, &c, &err);
  if (k < 0) {
    return luaL_error(L, "%s", err.msg);
  }
  l_obj_push(L, 1, CONTACT_MT, k);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* joint friction: friction = { mu, radius } of m:revolute / m:translational                   */

void l_joint_friction(lua_State *L, int tidx, mbd_model *m, int joint, const char *what) {
  tidx = lua_absindex(L, tidx);
  if (lua_getfield(L, tidx, "friction") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1)) {
    luaL_error(L, LMSG_CONTACT_FIELD_FRICTION_TABLE_MU, what, lx_typename(L, -1));
  }
  int f = lua_gettop(L);
  static const char *const fields[] = {"mu", "radius", NULL};
  lx_check_fields(L, f, "friction", fields);
  double mu = lx_req_number(L, f, "friction", "mu"), radius = 0;
  // a moment (friction along an angle) has the radius as its arm
  const char *fc = mbd_model_joint_friction_coord(m, joint);
  if (fc && strcmp(fc, "angle") == 0) {
    radius = lx_req_number(L, f, "friction", "radius");
  } else if (lx_has(L, f, "radius")) {
    luaL_error(L, LMSG_CONTACT_FRICTION_FIELD_RADIUS_REVOLUTE, what);
  }
  lua_pop(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_model_set_joint_friction(m, joint, mu, radius, &err) < 0) {
    luaL_error(L, "%s", err.msg);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the objects                                                                                 */

/* surface.name, surface.shape, surface.body, surface.index */
static int l_surface_fields(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, SURFACE_MT);
  const char *k = luaL_checkstring(L, 2);
  const mbd_model *m = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_surface_name(m, o->index));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else if (strcmp(k, "body") == 0) {
    lua_getiuservalue(L, 1, 1);
    l_obj_push(L, -1, BODY_MT, mbd_model_surface_body(m, o->index));
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_surface_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, SURFACE_MT);
  const mbd_model *m = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Surface '%s' on body '%s' of model '%s'",
                  mbd_model_surface_name(m, o->index),
                  mbd_model_body_name(m, mbd_model_surface_body(m, o->index)), mbd_model_name(m));
  return 1;
}

/* contact.name, contact.index */
static int l_contact_fields(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, CONTACT_MT);
  const char *k = luaL_checkstring(L, 2);
  const mbd_model *m = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_contact_name(m, o->index));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_contact_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, CONTACT_MT);
  const mbd_model *m = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Contact '%s' of model '%s'", mbd_model_contact_name(m, o->index),
                  mbd_model_name(m));
  return 1;
}

int l_contact_push_named(lua_State *L, int midx, const mbd_model *m, const char *name) {
  int c = mbd_model_find_contact(m, name);
  if (c < 0) {
    return 0;
  }
  l_obj_push(L, midx, CONTACT_MT, c);
  return 1;
}

int mbd_open_contact(lua_State *L) {
  luaL_newmetatable(L, SURFACE_MT);
  lua_pushcfunction(L, l_surface_fields);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_surface_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  luaL_newmetatable(L, CONTACT_MT);
  lua_pushcfunction(L, l_contact_fields);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_contact_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  return 0;
}
