/* Lua binding of the mechanism model (DSL.md "Models, bodies, joints", "Forces"): the mbd.Model
 * userdata, mbd.model { name, dim, gravity }, the constructors of bodies, joints, drives, forces
 * and springs, m:info() and the model's __index.  The objects these return are in l_objects.c,
 * the Lua functions the engine calls back in l_callback.c, m:simulate and m:kinematics in
 * l_simulate.c.
 *
 * An mbd.Model owns the engine model and the records of its Lua callbacks; its user value is a
 * table holding m.ground and m.last_run.  Engine errors are raised only after the engine call
 * returned, so no longjmp crosses an engine frame.
 *
 * m.<key> looks up, in this order (the first found wins):
 *   1. a method: body, contact, cylindrical, drive, explain, export_c, find, fixed,
 *      flexible_body (l_fem.c), force, info, kinematics, planar, revolute, rotational_spring,
 *      screw, simulate, spherical, spring, surface, torque, translational, tree, universal;
 *   2. a field: ground, last_run, name, dim;
 *   3. a body by name, then a joint by name, then a contact by name (m.crank).
 * So a body or joint named like a method or a field ("info", "name") is not m.<name>: m:find(name)
 * reaches every body and joint by name (a body first), whatever its name. */
#include "l_model.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "l_callback.h"
#include "l_contact.h"
#include "l_explain.h"
#include "l_fem.h"
#include "l_linear.h"
#include "l_msg.h"
#include "l_objects.h"
#include "l_relative.h"
#include "l_simulate.h"
#include "l_util.h"

/* ------------------------------------------------------------------------------------------ */
/* model userdata (the type and its readers: l_model_core.c)                                  */

static int l_model_gc(lua_State *L) {
  lmodel *lm = luaL_checkudata(L, 1, MODEL_MT);
  if (lm->m) {
    mbd_model_free(lm->m);
    lm->m = NULL;
  }
  l_cbset_free(L, &lm->cbs);
  return 0;
}

/* raise an engine error (message already names the object); the caller's line is prepended */
static int raise_err(lua_State *L, const mbd_error *err) {
  return luaL_error(L, "%s", err->msg);
}

/* show the warnings an object constructor raised, at the script line that made the object */
static void show_new_warnings(lua_State *L, lmodel *lm, int from) {
  char pos[96];
  lx_where(L, pos, sizeof pos);
  for (int i = from; mbd_model_warning(lm->m, i); i++) {
    fprintf(stderr, LMSG_WARNING_POS, pos, mbd_model_warning(lm->m, i));
  }
}

/* a point field every joint, spring and force needs (DSL.md: a missing required key is an
 * error): its absence used to mean the centre of mass, silently building another mechanism.  A
 * flexible body's node (arm:node(k)) is itself a point: there the field is optional, the node */
static void req_point(lua_State *L, const mbd_model *m, int body, int tidx, const char *what,
                      const char *key, int dim, double *out) {
  if (!lx_opt_vec_dim(L, tidx, what, key, dim, dim, out) && mbd_model_body_owner(m, body) < 0) {
    luaL_error(L, LMSG_MODEL_MISSING_FIELD_POINT_BODY, what, key,
               dim == 3 ? "{0, 0, 0}" : "{0, 0}");
  }
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.model { name, dim, gravity }                                                            */

static int l_model_new(lua_State *L) {
  static const char *const fields[] = {"name", "dim", "gravity", NULL};
  lx_check_fields(L, 1, "model", fields);
  const char *name = lx_opt_string(L, 1, "model", "name");
  int dim = 2;
  lx_opt_int(L, 1, "model", "dim", &dim);
  if (dim != 2 && dim != 3) {
    return luaL_error(L, LMSG_MODEL_FIELD_DIM, dim);
  }
  double g[3] = {0, 0, 0};
  lx_opt_vec(L, 1, "model", "gravity", dim, g);
  lmodel *lm = lua_newuserdatauv(L, sizeof *lm, 1);
  memset(lm, 0, sizeof *lm);
  l_cbset_init(&lm->cbs);
  luaL_setmetatable(L, MODEL_MT);
  mbd_error err;
  mbd_error_clear(&err);
  lm->m = mbd_model_new(name ? name : "model", dim, &err);
  if (!lm->m) {
    return raise_err(L, &err);
  }
  mbd_model_set_gravity(lm->m, g);
  // user value: a table holding the ground body and the last run
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  l_obj_push(L, -1, BODY_MT, 0);
  lua_getiuservalue(L, -2, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, "ground");
  lua_pop(L, 1);
  // the state object handed to force functions
  l_state *st = lua_newuserdatauv(L, sizeof *st, 0);
  st->m = lm->m;
  st->d = NULL;
  luaL_setmetatable(L, STATE_MT);
  lm->cbs.state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* bodies and joints                                                                           */

/* m:body { name, mass, inertia, pos, angle/rot, vel, omega } */
static int l_model_body(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  int dim = mbd_model_dim(lm->m);
  static const char *const f2[] = {"name", "mass", "inertia", "pos", "angle",
                                   "vel",  "omega", NULL};
  static const char *const f3[] = {"name", "mass", "inertia", "pos", "rot", "vel", "omega", NULL};
  lx_check_fields(L, 2, "body", dim == 2 ? f2 : f3);
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = lx_opt_string(L, 2, "body", "name");
  // the object as messages name it: the engine calls an unnamed body "body<N>"
  char what[96];
  if (s.name) {
    snprintf(what, sizeof what, "body '%s'", s.name);
  } else {
    snprintf(what, sizeof what, "body 'body%d'", mbd_model_nbody(lm->m));
  }
  s.mass = lx_req_number(L, 2, what, "mass");
  if (dim == 2) {
    s.inertia[0] = lx_req_number(L, 2, what, "inertia");
    lx_opt_number(L, 2, what, "angle", &s.angle);
    s.omega_given = lx_opt_number(L, 2, what, "omega", &s.omega[0]);
  } else {
    lua_getfield(L, 2, "inertia");
    double in[6] = {0, 0, 0, 0, 0, 0};
    int got = lx_read_numbers(L, lua_gettop(L), in, 6);
    if (lua_isnil(L, -1)) {
      return luaL_error(L, LMSG_MODEL_BODY_MISSING_FIELD_INERTIA);
    }
    if (got != 3 && got != 6) {
      return luaL_error(L, LMSG_MODEL_FIELD_INERTIA_NUMBERS_IXX, what);
    }
    lua_pop(L, 1);
    memcpy(s.inertia, in, sizeof in);
    s.rot[0] = 1;
    lx_opt_vec(L, 2, what, "rot", 4, s.rot);
    s.omega_given = lx_opt_vec_dim(L, 2, what, "omega", 3, 3, s.omega);
  }
  lx_opt_vec_dim(L, 2, what, "pos", dim, dim, s.pos);
  s.vel_given = lx_opt_vec_dim(L, 2, what, "vel", dim, dim, s.vel);
  mbd_error err;
  mbd_error_clear(&err);
  int nwarn = 0;
  while (mbd_model_warning(lm->m, nwarn)) {
    nwarn++;
  }
  int b = mbd_model_add_body(lm->m, &s, &err);
  if (b < 0) {
    return raise_err(L, &err);
  }
  show_new_warnings(L, lm, nwarn);  // non-unit Euler parameters, normalized
  l_obj_push(L, 1, BODY_MT, b);
  return 1;
}

/* joints: m:revolute { name, body1, at1, body2, at2, axis1, axis2 } and the other types */
static int add_joint(lua_State *L, int type) {
  lmodel *lm = l_model_check(L, 1);
  int dim = mbd_model_dim(lm->m);
  const char *ctor = mbd_joint_type_name(type);
  static const char *const fields[] = {"name",  "body1", "at1",      "body2",
                                       "at2",   "axis1", "axis2",    "friction", NULL};
  static const char *const screw_fields[] = {"name", "body1", "at1",   "body2", "at2",
                                             "axis1", "axis2", "pitch", NULL};
  static const char *const planar_fields[] = {"name",  "body1", "at1",  "body2", "at2",
                                              "axis1", "axis2", "ref1", NULL};
  lx_check_fields(L, 2, ctor,
                  type == MBD_JOINT_SCREW    ? screw_fields
                  : type == MBD_JOINT_PLANAR ? planar_fields
                                             : fields);
  mbd_joint_spec s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.name = lx_opt_string(L, 2, ctor, "name");
  s.body1 = l_obj_body(L, 2, 1, ctor, "body1", 1);
  s.body2 = l_obj_body(L, 2, 1, ctor, "body2", 1);
  // the joint as messages name it: the engine calls an unnamed joint "<type><N>"
  char what[96];
  if (s.name) {
    snprintf(what, sizeof what, "%s '%s'", ctor, s.name);
  } else {
    snprintf(what, sizeof what, "%s '%s%d'", ctor, ctor, mbd_model_njoint(lm->m) + 1);
  }
  req_point(L, lm->m, s.body1, 2, what, "at1", dim, s.at1);
  req_point(L, lm->m, s.body2, 2, what, "at2", dim, s.at2);
  s.has_axis1 = lx_opt_vec_dim(L, 2, what, "axis1", dim, dim, s.axis1);
  s.has_axis2 = lx_opt_vec_dim(L, 2, what, "axis2", dim, dim, s.axis2);
  if (type == MBD_JOINT_SCREW) {
    s.has_pitch = lx_opt_number(L, 2, what, "pitch", &s.pitch);
  }
  if (type == MBD_JOINT_PLANAR) {
    s.has_ref1 = lx_opt_vec_dim(L, 2, what, "ref1", dim, dim, s.ref1);
  }
  if (dim == 2 && s.has_axis2) {
    return luaL_error(L, LMSG_MODEL_FIELD_AXIS2_USED_PLANAR, ctor);
  }
  mbd_error err;
  mbd_error_clear(&err);
  int j = mbd_model_add_joint(lm->m, &s, &err);
  if (j < 0) {
    return raise_err(L, &err);
  }
  // friction = { mu, radius }: Coulomb friction from the joint's reaction (paper 001)
  l_joint_friction(L, 2, lm->m, j, what);
  l_obj_push(L, 1, JOINT_MT, j);
  return 1;
}

static int l_model_revolute(lua_State *L) { return add_joint(L, MBD_JOINT_REVOLUTE); }
static int l_model_translational(lua_State *L) { return add_joint(L, MBD_JOINT_TRANSLATIONAL); }
static int l_model_fixed(lua_State *L) { return add_joint(L, MBD_JOINT_FIXED); }
static int l_model_spherical(lua_State *L) { return add_joint(L, MBD_JOINT_SPHERICAL); }
static int l_model_universal(lua_State *L) { return add_joint(L, MBD_JOINT_UNIVERSAL); }
static int l_model_cylindrical(lua_State *L) { return add_joint(L, MBD_JOINT_CYLINDRICAL); }
static int l_model_screw(lua_State *L) { return add_joint(L, MBD_JOINT_SCREW); }
static int l_model_planar(lua_State *L) { return add_joint(L, MBD_JOINT_PLANAR); }

/* ------------------------------------------------------------------------------------------ */
/* drives, forces, springs                                                                     */

/* m:drive { joint, position, velocity, acceleration } */
static int l_model_drive(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  static const char *const fields[] = {"joint", "position", "velocity", "acceleration", NULL};
  lx_check_fields(L, 2, "drive", fields);
  int j = l_obj_joint(L, 2, 1, "drive", "joint");
  char pos[96], what[160];
  lx_where(L, pos, sizeof pos);
  snprintf(what, sizeof what, "drive on joint '%s' (%s)", mbd_model_joint_name(lm->m, j), pos);
  l_cb *cb = l_cb_new(L, &lm->cbs, L_CB_DRIVE, what);
  l_cb_read_drive(L, 2, cb);
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_drive(lm->m, j, l_cb_drive, cb, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  l_obj_push(L, 1, DRIVE_MT, k);
  return 1;
}

/* m:force { body, at, value } and m:torque { body, value } */
static int add_force(lua_State *L, int torque) {
  lmodel *lm = l_model_check(L, 1);
  int dim = mbd_model_dim(lm->m);
  const char *ctor = torque ? "torque" : "force";
  static const char *const ff[] = {"body", "at", "value", NULL};
  static const char *const ft[] = {"body", "value", NULL};
  lx_check_fields(L, 2, ctor, torque ? ft : ff);
  mbd_force_spec s;
  memset(&s, 0, sizeof s);
  s.body = l_obj_body(L, 2, 1, ctor, "body", 1);
  if (s.body == 0) {
    return luaL_error(L, LMSG_MODEL_FIELD_BODY_GROUND_WHICH, ctor);
  }
  char obj[96];
  snprintf(obj, sizeof obj, "%s on body '%s'", ctor, mbd_model_body_name(lm->m, s.body));
  if (!torque) {
    req_point(L, lm->m, s.body, 2, obj, "at", dim, s.at);
  }
  int want = torque ? (dim == 2 ? 1 : 3) : dim;
  if (torque && dim == 3 && lx_has(L, 2, "value")) {
    lua_getfield(L, 2, "value");
    int isnum = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (isnum) {
      return luaL_error(L, LMSG_MODEL_FIELD_VALUE_NUMBERS_TX, obj);
    }
  }
  int t = lua_getfield(L, 2, "value");
  if (t == LUA_TFUNCTION) {
    char pos[96], what[160];
    lx_where(L, pos, sizeof pos);
    snprintf(what, sizeof what, "%s on body '%s' (%s)", ctor, mbd_model_body_name(lm->m, s.body),
             pos);
    l_cb *cb = l_cb_new(L, &lm->cbs, torque ? L_CB_TORQUE : L_CB_FORCE, what);
    cb->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
    s.fn = l_cb_force;
    s.ud = cb;
  } else if (t == LUA_TNIL) {
    return luaL_error(L, LMSG_MODEL_MISSING_FIELD_VALUE, ctor);
  } else {
    lua_pop(L, 1);
    if (want == 1) {
      s.value[0] = lx_req_number(L, 2, ctor, "value");
    } else {
      lx_opt_vec_dim(L, 2, obj, "value", want, dim, s.value);
    }
  }
  mbd_error err;
  mbd_error_clear(&err);
  int k = torque ? mbd_model_add_torque(lm->m, &s, &err) : mbd_model_add_force(lm->m, &s, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  l_obj_push(L, 1, FORCE_MT, k);
  return 1;
}

static int l_model_force(lua_State *L) { return add_force(L, 0); }
static int l_model_torque(lua_State *L) { return add_force(L, 1); }

/* m:spring { name, body1, at1, body2, at2, k, c, length } */
static int l_model_spring(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  int dim = mbd_model_dim(lm->m);
  static const char *const fields[] = {"name", "body1", "at1", "body2", "at2",
                                       "k",    "c",     "length", NULL};
  lx_check_fields(L, 2, "spring", fields);
  mbd_spring_spec s;
  memset(&s, 0, sizeof s);
  s.name = lx_opt_string(L, 2, "spring", "name");
  s.body1 = l_obj_body(L, 2, 1, "spring", "body1", 1);
  s.body2 = l_obj_body(L, 2, 1, "spring", "body2", 1);
  char obj[96];
  snprintf(obj, sizeof obj, "spring '%s'", s.name ? s.name : "spring");
  req_point(L, lm->m, s.body1, 2, obj, "at1", dim, s.at1);
  req_point(L, lm->m, s.body2, 2, obj, "at2", dim, s.at2);
  s.k = lx_req_number(L, 2, "spring", "k");
  lx_opt_number(L, 2, "spring", "c", &s.c);
  s.length = lx_req_number(L, 2, "spring", "length");
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_spring(lm->m, &s, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  l_obj_push(L, 1, FORCE_MT, k);
  return 1;
}

/* m:rotational_spring { joint, k, c, angle } */
static int l_model_rotational_spring(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  static const char *const fields[] = {"joint", "k", "c", "angle", NULL};
  lx_check_fields(L, 2, "rotational_spring", fields);
  int j = l_obj_joint(L, 2, 1, "rotational_spring", "joint");
  double k = lx_req_number(L, 2, "rotational_spring", "k"), c = 0, angle = 0;
  lx_opt_number(L, 2, "rotational_spring", "c", &c);
  lx_opt_number(L, 2, "rotational_spring", "angle", &angle);
  mbd_error err;
  mbd_error_clear(&err);
  int r = mbd_model_add_rotational_spring(lm->m, j, k, c, angle, &err);
  if (r < 0) {
    return raise_err(L, &err);
  }
  l_obj_push(L, 1, FORCE_MT, r);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* m:info(), tostring                                                                          */

static int info_tostring(lua_State *L) {
  lua_getfield(L, 1, "text");
  return 1;
}

/* bodies and joints named in m:info()'s text; the rest are counted */
#define INFO_NAMES 40

/* m:info(): a table {bodies, joints, drives, forces, coordinates, constraints, rank, dof,
 * redundant, warnings, text} whose tostring is a readable summary */
static int l_model_info(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  int rc = MBD_OK;
  // during a run of this model (m:info() from its force function) the run's assembly stands
  if (!mbd_model_running(lm->m)) {
    lm->cbs.L = L;
    mbd_model_clear_warnings(lm->m);
    // a large assembly hears Ctrl-C between its steps
    rc = mbd_model_assemble_polled(lm->m, NULL, l_poll_interrupt, NULL, &err);
  }
  l_model_show_warnings(L, 1);
  mbd_model_info in;
  mbd_model_get_info(lm->m, &in);
  lua_newtable(L);
  lua_pushinteger(L, in.nbody);
  lua_setfield(L, -2, "bodies");
  lua_pushinteger(L, in.njoint);
  lua_setfield(L, -2, "joints");
  lua_pushinteger(L, in.ndrive);
  lua_setfield(L, -2, "drives");
  lua_pushinteger(L, in.nforce);
  lua_setfield(L, -2, "forces");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char line[640];
  snprintf(line, sizeof line, "model '%s' (%s)\n  bodies: %d", mbd_model_name(lm->m),
           mbd_model_dim(lm->m) == 2 ? "planar" : "spatial", in.nbody);
  luaL_addstring(&b, line);
  // the names (a flexible body's nodes are points of that body), the first INFO_NAMES of them
  // for a large model
  int shown = 0, named = 0;
  for (int i = 1; i < mbd_model_nbody(lm->m); i++) {
    if (mbd_model_body_owner(lm->m, i) >= 0) {
      continue;
    }
    if (named++ >= INFO_NAMES) {
      continue;
    }
    luaL_addstring(&b, shown++ == 0 ? " (" : ", ");
    luaL_addstring(&b, mbd_model_body_name(lm->m, i));
  }
  if (named > INFO_NAMES) {
    snprintf(line, sizeof line, ", … %d more", named - INFO_NAMES);
    luaL_addstring(&b, line);
  }
  luaL_addstring(&b, in.nbody ? ")\n" : "\n");
  snprintf(line, sizeof line, "  joints: %d", in.njoint);
  luaL_addstring(&b, line);
  for (int i = 0; i < mbd_model_njoint(lm->m) && i < INFO_NAMES; i++) {
    snprintf(line, sizeof line, "%s%s %s", i == 0 ? " (" : ", ",
             mbd_joint_type_name(mbd_model_joint_type(lm->m, i)), mbd_model_joint_name(lm->m, i));
    luaL_addstring(&b, line);
  }
  if (mbd_model_njoint(lm->m) > INFO_NAMES) {
    snprintf(line, sizeof line, ", … %d more", mbd_model_njoint(lm->m) - INFO_NAMES);
    luaL_addstring(&b, line);
  }
  luaL_addstring(&b, in.njoint ? ")\n" : "\n");
  snprintf(line, sizeof line, "  drives: %d, forces: %d\n", in.ndrive, in.nforce);
  luaL_addstring(&b, line);
  if (rc == MBD_OK) {
    snprintf(line, sizeof line,
             "  coordinates: %d, constraints: %d (rank %d, %d redundant)\n"
             "  degrees of freedom: %d",
             in.ncoord, in.nconstraint, in.rank, in.nredundant, in.dof);
    luaL_addstring(&b, line);
    if (in.moved_body > 0 && in.moved > 1e-9) {
      snprintf(line, sizeof line, "\n  assembly moved the given poses by up to %.3g (body '%s')",
               in.moved, mbd_model_body_name(lm->m, in.moved_body));
      luaL_addstring(&b, line);
    }
    if (in.vmoved_body > 0 && in.vmoved > 1e-9) {
      snprintf(line, sizeof line,
               "\n  assembly changed the given velocities by up to %.3g (body '%s')", in.vmoved,
               mbd_model_body_name(lm->m, in.vmoved_body));
      luaL_addstring(&b, line);
    }
  } else {
    snprintf(line, sizeof line, "  not assembled: %s", err.msg);
    luaL_addstring(&b, line);
  }
  luaL_pushresult(&b);
  lua_setfield(L, -2, "text");
  if (rc == MBD_OK) {
    lua_pushinteger(L, in.ncoord);
    lua_setfield(L, -2, "coordinates");
    lua_pushinteger(L, in.nconstraint);
    lua_setfield(L, -2, "constraints");
    lua_pushinteger(L, in.rank);
    lua_setfield(L, -2, "rank");
    lua_pushinteger(L, in.dof);
    lua_setfield(L, -2, "dof");
    lua_pushinteger(L, in.nredundant);
    lua_setfield(L, -2, "redundant");
    lua_pushnumber(L, in.moved);
    lua_setfield(L, -2, "moved");
    lua_newtable(L);
    for (int i = 0; i < mbd_channel_count(lm->m); i++) {
      lua_pushstring(L, mbd_channel_name(lm->m, i));
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "channels");
  } else {
    lua_pushstring(L, err.msg);
    lua_setfield(L, -2, "error");
  }
  lua_newtable(L);
  for (int i = 0; mbd_model_warning(lm->m, i); i++) {
    lua_pushstring(L, mbd_model_warning(lm->m, i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "warnings");
  lua_newtable(L);
  lua_pushcfunction(L, info_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_setmetatable(L, -2);
  return 1;
}

static int l_model_tostring(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  if (!lm->m) {
    lua_pushstring(L, "mbd.Model (freed)");
    return 1;
  }
  mbd_model_info in;
  mbd_model_get_info(lm->m, &in);
  lua_pushfstring(L, "mbd.Model '%s' (%s): %d bodies, %d joints, %d drives, %d forces",
                  mbd_model_name(lm->m), mbd_model_dim(lm->m) == 2 ? "planar" : "spatial",
                  in.nbody, in.njoint, in.ndrive, in.nforce);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* methods, fields, registration                                                               */

static int l_model_flexible_body(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  int nwarn = 0;
  while (mbd_model_warning(lm->m, nwarn)) {
    nwarn++;
  }
  int rc = l_fem_flexible_body(L);
  show_new_warnings(L, lm, nwarn);
  return rc;
}

/* a body (first) or joint by name, or nil: m.<name> without the methods and fields first */
static int push_named(lua_State *L, int midx, const mbd_model *m, const char *name) {
  int b = mbd_model_find_body(m, name);
  if (b >= 0) {
    l_obj_push(L, midx, BODY_MT, b);
    return 1;
  }
  int j = mbd_model_find_joint(m, name);
  if (j >= 0) {
    l_obj_push(L, midx, JOINT_MT, j);
    return 1;
  }
  if (l_contact_push_named(L, midx, m, name)) {
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

/* m:find(name): the body, joint or contact called name, or nil — also one named like a method */
static int l_model_find(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  return push_named(L, 1, lm->m, luaL_checkstring(L, 2));
}

static const luaL_Reg model_methods[] = {
    {"body", l_model_body},
    {"contact", l_model_contact},
    {"cylindrical", l_model_cylindrical},
    {"drive", l_model_drive},
    {"equilibrium", l_model_equilibrium},
    {"explain", l_model_explain},
    {"export_c", l_model_export_c},
    {"find", l_model_find},
    {"fixed", l_model_fixed},
    {"flexible_body", l_model_flexible_body},
    {"force", l_model_force},
    {"info", l_model_info},
    {"kinematics", l_model_kinematics},
    {"linearize", l_model_linearize},
    {"planar", l_model_planar},
    {"revolute", l_model_revolute},
    {"rotational_spring", l_model_rotational_spring},
    {"screw", l_model_screw},
    {"simulate", l_model_simulate},
    {"spherical", l_model_spherical},
    {"spring", l_model_spring},
    {"surface", l_model_surface},
    {"torque", l_model_torque},
    {"translational", l_model_translational},
    {"tree", l_model_tree},
    {"universal", l_model_universal},
    {NULL, NULL}};

/* the fields of m.<key> once the methods are looked up: m.ground, m.last_run, m.name, m.dim,
 * then a body or joint by name */
static int l_model_fields(lua_State *L) {
  lmodel *lm = l_model_check(L, 1);
  const char *k = luaL_checkstring(L, 2);
  lua_getiuservalue(L, 1, 1);
  if (lua_getfield(L, -1, k) != LUA_TNIL) {
    return 1;
  }
  lua_pop(L, 2);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_name(lm->m));
    return 1;
  }
  if (strcmp(k, "dim") == 0) {
    lua_pushinteger(L, mbd_model_dim(lm->m));
    return 1;
  }
  return push_named(L, 1, lm->m, k);
}

int mbd_open_model(lua_State *L) {
  luaL_newmetatable(L, MODEL_MT);
  lx_set_index(L, model_methods, l_model_fields);
  lua_pushcfunction(L, l_model_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_model_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_model_new);
  lua_setfield(L, -2, "model");
  return 0;
}
