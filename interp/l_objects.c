/* the objects of a model in Lua (DSL.md "Models, bodies, joints", "Forces"): the metatables of
 * mbd.Body, mbd.Joint, mbd.Force, mbd.Drive and mbd.State with their fields and methods, and the
 * readers of body and joint fields in constructor tables (l_objects.h).
 *
 *   body.name, body.index (0 = ground), body.model; a flexible body's node(k), nodes, modes
 *   joint.name, joint.type ("revolute" ...), joint.index
 *   state:get("link1.theta")   inside a force function only
 *
 * Forces and drives have no fields (tostring only). */
#include "l_objects.h"

#include <lauxlib.h>
#include <string.h>

#include "l_callback.h"
#include "l_fem.h"
#include "l_model.h"
#include "l_msg.h"
#include "l_util.h"

/* the engine model of the object at idx (pushes its model userdata, which keeps it alive) */
static const mbd_model *obj_model(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
  return l_model_get(L, -1);
}

/* an object field (body or joint, metatable mt) of the constructor table at tidx, of the model
 * at midx: its index, or -1 when absent and not required */
static int obj_field(lua_State *L, int tidx, int midx, const char *ctor, const char *key,
                     const char *mt, const char *noun, int required) {
  tidx = lua_absindex(L, tidx);
  midx = lua_absindex(L, midx);
  if (lua_getfield(L, tidx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    if (required) {
      luaL_error(L, LMSG_FEM_MISSING_FIELD, ctor, key);
    }
    return -1;
  }
  l_obj *o = luaL_testudata(L, -1, mt);
  if (!o) {
    luaL_error(L, LMSG_OBJECTS_FIELD, ctor, key, mt, lx_typename(L, -1));
  }
  // the same model: its user value is the model userdata itself
  lua_getiuservalue(L, -1, 1);
  if (!lua_rawequal(L, -1, midx)) {
    luaL_error(L, LMSG_OBJECTS_FIELD_ANOTHER_MODEL, ctor, key, noun);
  }
  lua_pop(L, 2);
  return o->index;
}

int l_obj_body(lua_State *L, int tidx, int midx, const char *ctor, const char *key, int required) {
  return obj_field(L, tidx, midx, ctor, key, BODY_MT, "body", required);
}

int l_obj_joint(lua_State *L, int tidx, int midx, const char *ctor, const char *key) {
  return obj_field(L, tidx, midx, ctor, key, JOINT_MT, "joint", 1);
}

/* ------------------------------------------------------------------------------------------ */
/* bodies and joints                                                                           */

/* body.name, body.index, body.model */
static int l_body_fields(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, BODY_MT);
  const char *k = luaL_checkstring(L, 2);
  const mbd_model *m = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_body_name(m, o->index));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else if (strcmp(k, "model") == 0) {
    lua_getiuservalue(L, 1, 1);
  } else if (!l_fem_body_field(L, m, o->index, k)) {
    lua_pushnil(L);  // body:node(k), body.nodes, body.modes of a flexible body: l_fem.c
  }
  return 1;
}

static int l_body_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, BODY_MT);
  const mbd_model *m = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Body '%s' of model '%s'", mbd_model_body_name(m, o->index),
                  mbd_model_name(m));
  return 1;
}

/* joint.name, joint.type, joint.index */
static int l_joint_fields(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, JOINT_MT);
  const char *k = luaL_checkstring(L, 2);
  const mbd_model *m = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_joint_name(m, o->index));
  } else if (strcmp(k, "type") == 0) {
    lua_pushstring(L, mbd_joint_type_name(mbd_model_joint_type(m, o->index)));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_joint_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, JOINT_MT);
  const mbd_model *m = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Joint %s '%s' of model '%s'",
                  mbd_joint_type_name(mbd_model_joint_type(m, o->index)),
                  mbd_model_joint_name(m, o->index), mbd_model_name(m));
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* forces, drives                                                                              */

static int l_force_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, FORCE_MT);
  lua_pushfstring(L, "mbd.Force #%d", o->index + 1);
  return 1;
}

static int l_drive_tostring(lua_State *L) {
  l_obj *o = luaL_checkudata(L, 1, DRIVE_MT);
  lua_pushfstring(L, "mbd.Drive #%d", o->index + 1);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* the state handed to force functions                                                         */

/* state:get("link1.theta") inside a force function */
static int l_state_get(lua_State *L) {
  l_state *st = luaL_checkudata(L, 1, STATE_MT);
  const char *name = luaL_checkstring(L, 2);
  if (!st->d) {
    return luaL_error(L, LMSG_OBJECTS_STATE_GET_STATE_VALID);
  }
  int ch = mbd_channel_find(st->m, name);
  if (ch < 0) {
    return luaL_error(L, LMSG_OBJECTS_STATE_GET_CHANNEL, name);
  }
  int ok = 0;
  double v = mbd_channel_value(st->m, st->d, ch, &ok);
  if (!ok) {
    return luaL_error(L, LMSG_OBJECTS_STATE_GET_CHANNEL_NEEDS, name);
  }
  lua_pushnumber(L, v);
  return 1;
}

static int l_state_tostring(lua_State *L) {
  l_state *st = luaL_checkudata(L, 1, STATE_MT);
  lua_pushstring(L, st->d ? "mbd.State (use state:get(\"body.x\"))" : "mbd.State (not in use)");
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* registration                                                                                */

static const luaL_Reg state_methods[] = {{"get", l_state_get}, {NULL, NULL}};

/* a metatable with __tostring and, when index is given, an __index function of fields */
static void new_meta(lua_State *L, const char *name, lua_CFunction index, lua_CFunction tostr) {
  luaL_newmetatable(L, name);
  if (index) {
    lua_pushcfunction(L, index);
    lua_setfield(L, -2, "__index");
  }
  lua_pushcfunction(L, tostr);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
}

int mbd_open_objects(lua_State *L) {
  // bodies and joints have fields only: their __index is the fields function itself
  new_meta(L, BODY_MT, l_body_fields, l_body_tostring);
  new_meta(L, JOINT_MT, l_joint_fields, l_joint_tostring);
  new_meta(L, FORCE_MT, NULL, l_force_tostring);
  new_meta(L, DRIVE_MT, NULL, l_drive_tostring);
  // the state has methods only: its __index is the method table
  luaL_newmetatable(L, STATE_MT);
  luaL_newlib(L, state_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_state_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  return 0;
}
