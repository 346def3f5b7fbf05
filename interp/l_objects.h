/* mbd — the objects of a model in Lua (private to interp/): mbd.Body, mbd.Joint, mbd.Force,
 * mbd.Drive (an index into the engine model, kept alive with their model through their user
 * value) and mbd.State (the state handed to force functions). */
#ifndef MBD_L_OBJECTS_H
#define MBD_L_OBJECTS_H

#include <lauxlib.h>
#include <lua.h>

/* metatable names (STYLE.md #11): type errors read "mbd.Body expected, got table" */
#define MODEL_MT "mbd.Model"
#define BODY_MT "mbd.Body"
#define JOINT_MT "mbd.Joint"
#define FORCE_MT "mbd.Force"
#define DRIVE_MT "mbd.Drive"
#define STATE_MT "mbd.State"

/* a Body, Joint, Force or Drive: user value 1 is its model */
typedef struct l_obj {
  int index; /* body / joint / force / drive index in the engine model */
} l_obj;

/* push a new object of metatable mt (BODY_MT ...) with index i of the model at midx (inline: the
 * files that make objects — l_model.c, l_fem.c, l_contact.c — stand below l_objects.c's fields) */
static inline void l_obj_push(lua_State *L, int midx, const char *mt, int i) {
  midx = lua_absindex(L, midx);
  l_obj *o = lua_newuserdatauv(L, sizeof *o, 1);
  o->index = i;
  lua_pushvalue(L, midx);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, mt);
}

/* the body in field key of the constructor table at tidx: an mbd.Body of the model at midx (or
 * m.ground); its index, or -1 when absent and not required.  Raises "<ctor>: missing field
 * '<key>'", "... expects an mbd.Body, got <type>" or "... is a body of another model". */
int l_obj_body(lua_State *L, int tidx, int midx, const char *ctor, const char *key, int required);

/* the same for a required joint field: the joint's index */
int l_obj_joint(lua_State *L, int tidx, int midx, const char *ctor, const char *key);

/* register the metatables of Body, Joint, Force, Drive and State; pushes nothing, returns 0 */
int mbd_open_objects(lua_State *L);

#endif
