/* mbd — Lua binding of contacts (paper 001), private to interp/: m:surface, m:contact, the
 * joints' friction field, and the mbd.Surface and mbd.Contact objects. */
#ifndef MBD_L_CONTACT_H
#define MBD_L_CONTACT_H

#include <lua.h>

#include "mbd/model.h"

/* m:surface { ... } and m:contact { ... } (methods of mbd.Model, at 1) */
int l_model_surface(lua_State *L);
int l_model_contact(lua_State *L);

/* the field friction = { mu, radius } of a joint constructor table at tidx, for joint `joint`
 * of m (what names the joint for messages); nothing when absent */
void l_joint_friction(lua_State *L, int tidx, mbd_model *m, int joint, const char *what);

/* push the contact called name of m (the model userdata at midx) and return 1, or return 0 */
int l_contact_push_named(lua_State *L, int midx, const mbd_model *m, const char *name);

/* register the metatables of mbd.Surface and mbd.Contact; pushes nothing, returns 0 */
int mbd_open_contact(lua_State *L);

#endif
