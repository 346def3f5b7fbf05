/* Lua binding of the mechanism model (DSL.md "Models, bodies, joints", "Forces", "Running").
 *
 * Userdata types: mbd.Model (owns the engine model and the Lua callbacks it calls), mbd.Body,
 * mbd.Joint, mbd.Force, mbd.Drive (each keeps its model alive through its user value), mbd.State
 * (the state handed to force functions).  Engine errors are raised only after the engine call
 * returned, so no longjmp crosses an engine frame. */
#include "l_model.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_sym.h"
#include "l_util.h"
#include "mbd/integrators.h"

volatile sig_atomic_t mbd_lua_interrupted = 0;

#define MODEL_MT "mbd.Model"
#define BODY_MT "mbd.Body"
#define JOINT_MT "mbd.Joint"
#define FORCE_MT "mbd.Force"
#define DRIVE_MT "mbd.Drive"
#define STATE_MT "mbd.State"

/* a Lua function the engine calls back: forces, torques, drives */
typedef enum { CB_FORCE, CB_TORQUE, CB_DRIVE } cb_kind;

typedef struct lcb {
  struct lmodel *owner;
  int kind;             /* cb_kind */
  int fnref, vref, aref;/* registry refs: function (or position), velocity, acceleration */
  double constant;      /* drive: constant position when fnref is LUA_NOREF */
  mbd_sym_tape *tape;   /* drive: symbolic position, tape of [f, f', f''] of t, else NULL */
  char what[160];       /* "force on body 'link2' (ex.lua:12)" for messages */
} lcb;

typedef struct lmodel {
  mbd_model *m;
  lua_State *L;         /* the state running the current engine call */
  lcb **cb;             /* callbacks owned by this model */
  int ncb, ccb;
  int state_ref;        /* registry ref of the State userdata handed to force functions */
  int nprinted;         /* warnings already shown */
  char printed[16][256];
} lmodel;

typedef struct lobj {
  int index;            /* body / joint / force / drive index in the engine model */
} lobj;

typedef struct lstate {
  const mbd_model *m;
  const mbd_data *d;    /* NULL outside a callback */
} lstate;

/* ------------------------------------------------------------------------------------------ */
/* model userdata                                                                              */

static lmodel *check_model(lua_State *L, int idx) { return luaL_checkudata(L, idx, MODEL_MT); }

static int l_model_gc(lua_State *L) {
  lmodel *lm = luaL_checkudata(L, 1, MODEL_MT);
  if (lm->m) {
    mbd_model_free(lm->m);
    lm->m = NULL;
  }
  for (int i = 0; i < lm->ncb; i++) {
    luaL_unref(L, LUA_REGISTRYINDEX, lm->cb[i]->fnref);
    luaL_unref(L, LUA_REGISTRYINDEX, lm->cb[i]->vref);
    luaL_unref(L, LUA_REGISTRYINDEX, lm->cb[i]->aref);
    mbd_sym_tape_free(lm->cb[i]->tape);
    free(lm->cb[i]);
  }
  free(lm->cb);
  lm->cb = NULL;
  lm->ncb = 0;
  luaL_unref(L, LUA_REGISTRYINDEX, lm->state_ref);
  lm->state_ref = LUA_NOREF;
  return 0;
}

/* a new object userdata of metatable mt with index i, user value 1 = the model at midx */
static void push_obj(lua_State *L, int midx, const char *mt, int i) {
  midx = lua_absindex(L, midx);
  lobj *o = lua_newuserdatauv(L, sizeof *o, 1);
  o->index = i;
  lua_pushvalue(L, midx);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, mt);
}

/* the model of an object at idx: pushes the model userdata and returns it */
static lmodel *obj_model(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
  return luaL_checkudata(L, -1, MODEL_MT);
}

/* a body field: mbd.Body of the same model (or m.ground); returns the body index */
static int get_body(lua_State *L, int tidx, int midx, const char *ctor, const char *key,
                    int required) {
  tidx = lua_absindex(L, tidx);
  midx = lua_absindex(L, midx);
  int t = lua_getfield(L, tidx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    if (required) {
      luaL_error(L, "%s: missing field '%s'", ctor, key);
    }
    return -1;
  }
  lobj *o = luaL_testudata(L, -1, BODY_MT);
  if (!o) {
    luaL_error(L, "%s: field '%s' expects an mbd.Body, got %s", ctor, key, lu_typename(L, -1));
  }
  lua_getiuservalue(L, -1, 1);
  if (!lua_rawequal(L, -1, midx)) {
    luaL_error(L, "%s: field '%s' is a body of another model", ctor, key);
  }
  lua_pop(L, 2);
  return o->index;
}

/* a joint field of the same model; returns the joint index */
static int get_joint(lua_State *L, int tidx, int midx, const char *ctor, const char *key) {
  tidx = lua_absindex(L, tidx);
  midx = lua_absindex(L, midx);
  if (lua_getfield(L, tidx, key) == LUA_TNIL) {
    luaL_error(L, "%s: missing field '%s'", ctor, key);
  }
  lobj *o = luaL_testudata(L, -1, JOINT_MT);
  if (!o) {
    luaL_error(L, "%s: field '%s' expects an mbd.Joint, got %s", ctor, key, lu_typename(L, -1));
  }
  lua_getiuservalue(L, -1, 1);
  if (!lua_rawequal(L, -1, midx)) {
    luaL_error(L, "%s: field '%s' is a joint of another model", ctor, key);
  }
  lua_pop(L, 2);
  return o->index;
}

/* raise an engine error (message already names the object); the caller's line is prepended */
static int raise_err(lua_State *L, const mbd_error *err) {
  return luaL_error(L, "%s", err->msg);
}

/* the user's script position "file.lua:12" of the calling Lua function */
static void where(lua_State *L, char *buf, size_t len) {
  luaL_where(L, 1);
  const char *w = lua_tostring(L, -1);
  size_t n = strlen(w);
  // luaL_where gives "chunk:line: " — drop the trailing ": "
  snprintf(buf, len, "%.*s", (int)(n >= 2 ? n - 2 : n), w);
  lua_pop(L, 1);
}

/* show warnings once per model (stderr): counted, never repeated */
static void show_warnings(lmodel *lm) {
  for (int i = 0;; i++) {
    const char *w = mbd_model_warning(lm->m, i);
    if (!w) {
      break;
    }
    int seen = 0;
    for (int k = 0; k < lm->nprinted; k++) {
      if (strcmp(lm->printed[k], w) == 0) {
        seen = 1;
        break;
      }
    }
    if (!seen) {
      fprintf(stderr, "mbd: warning: %s\n", w);
      if (lm->nprinted < 16) {
        snprintf(lm->printed[lm->nprinted++], sizeof lm->printed[0], "%s", w);
      }
    }
  }
}

/* a vector field of n numbers.  what names the object ("body 'crank'"); dim > 0 marks a
 * position-like field, so a vector of the other model's size gets a hint (a 2-vector in a spatial
 * model is the usual slip when a planar script is turned into a spatial one).  1 when present. */
static int vec_field(lua_State *L, int tidx, const char *what, const char *key, int n, int dim,
                     double *out) {
  tidx = lua_absindex(L, tidx);
  int t = lua_getfield(L, tidx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t == LUA_TTABLE && dim > 0) {
    lua_Integer len = luaL_len(L, -1);
    if (len != n && (len == 2 || len == 3)) {
      // "revolute: field 'at1' expects 2 numbers, got 3" first (the documented form), then the
      // object and the hint; what is "<ctor> '<name>'" or "force on body '<name>'"
      const char *q = strchr(what, ' ');
      int clen = q ? (int)(q - what) : (int)strlen(what);
      char msg[320];
      snprintf(msg, sizeof msg,
               "%.*s: field '%s' expects %d numbers, got %d (%s; the model is %s, dim = %d: %s)",
               clen, what, key, n, (int)len, what, dim == 3 ? "spatial" : "planar", dim,
               n == 3 ? "{x, y, z}" : "{x, y}");
      luaL_error(L, "%s", msg);
    }
  }
  lua_pop(L, 1);
  return lu_opt_vec(L, tidx, what, key, n, out);
}

/* show the warnings an object constructor raised, at the script line that made the object */
static void show_new_warnings(lua_State *L, lmodel *lm, int from) {
  char pos[96];
  where(L, pos, sizeof pos);
  for (int i = from; mbd_model_warning(lm->m, i); i++) {
    fprintf(stderr, "mbd: warning: %s: %s\n", pos, mbd_model_warning(lm->m, i));
  }
}

static lcb *new_cb(lua_State *L, lmodel *lm, int kind, const char *what) {
  if (lm->ncb == lm->ccb) {
    int nc = lm->ccb ? 2 * lm->ccb : 8;
    lcb **p = realloc(lm->cb, (size_t)nc * sizeof *p);
    if (!p) {
      luaL_error(L, "out of memory");
    }
    lm->cb = p;
    lm->ccb = nc;
  }
  lcb *cb = calloc(1, sizeof *cb);
  if (!cb) {
    luaL_error(L, "out of memory");
  }
  cb->owner = lm;
  cb->kind = kind;
  cb->fnref = cb->vref = cb->aref = LUA_NOREF;
  snprintf(cb->what, sizeof cb->what, "%s", what);
  lm->cb[lm->ncb++] = cb;
  return cb;
}

/* ------------------------------------------------------------------------------------------ */
/* callbacks from the engine into Lua                                                          */

/* call the function ref with nargs already pushed after it; 0 ok (results on the stack) */
static int pcall_cb(lua_State *L, lcb *cb, int nargs, int nres, mbd_error *err) {
  if (lua_pcall(L, nargs, nres, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    MBD_FAIL(err, MBD_E_CALLBACK, "%s: %s", cb->what, msg ? msg : "error object is not a string");
    lua_pop(L, 1);
    return MBD_E_CALLBACK;
  }
  return 0;
}

static int force_cb(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
                    mbd_error *err) {
  lcb *cb = ud;
  lmodel *lm = cb->owner;
  lua_State *L = lm->L;
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, cb->fnref);
  lua_pushnumber(L, t);
  lua_rawgeti(L, LUA_REGISTRYINDEX, lm->state_ref);
  lstate *st = lua_touserdata(L, -1);
  st->m = m;
  st->d = d;
  int rc = pcall_cb(L, cb, 2, 1, err);
  st->d = NULL;
  if (rc) {
    lua_settop(L, top);
    return rc;
  }
  int dim = mbd_model_dim(m);
  int want = cb->kind == CB_TORQUE ? (dim == 2 ? 1 : 3) : dim;
  int got = -1;
  if (want == 1 && lua_type(L, -1) == LUA_TNUMBER) {
    out[0] = lua_tonumber(L, -1);
    got = 1;
  } else {
    got = lu_read_numbers(L, lua_gettop(L), out, want);
  }
  if (got != want) {
    const char *shape = want == 1 ? "a number" : (want == 2 ? "{x, y}" : "{x, y, z}");
    MBD_FAIL(err, MBD_E_CALLBACK, "%s: the function must return %s, got %s at t = %g", cb->what,
             shape, got > 0 ? "a table of the wrong size" : luaL_typename(L, -1), t);
    lua_settop(L, top);
    return MBD_E_CALLBACK;
  }
  lua_settop(L, top);
  return 0;
}

/* call a time function ref: one number */
static int time_value(lua_State *L, lcb *cb, int ref, double t, double *out, mbd_error *err) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  lua_pushnumber(L, t);
  int rc = pcall_cb(L, cb, 1, 1, err);
  if (rc) {
    return rc;
  }
  int isnum = 0;
  *out = lua_tonumberx(L, -1, &isnum);
  if (!isnum) {
    MBD_FAIL(err, MBD_E_CALLBACK, "%s: the function must return a number, got %s at t = %g",
             cb->what, luaL_typename(L, -1), t);
    lua_pop(L, 1);
    return MBD_E_CALLBACK;
  }
  lua_pop(L, 1);
  return 0;
}

/* drive: f, f', f''.  Given only f, the derivatives are central differences with
 * h = 1e-4·(1 + |t|): truncation O(h²) ≈ 1e-8·|f'''| and round-off ≈ 1e-16·|f|/h² ≈ 1e-8·|f| in f''
 * — good for kinematics and for integration tolerances down to about 1e-7; give velocity and
 * acceleration functions (or a symbolic position) for exact values. */
static int drive_cb(void *ud, double t, double out[3], mbd_error *err) {
  lcb *cb = ud;
  lua_State *L = cb->owner->L;
  if (cb->tape) {
    // symbolic position: exact derivatives from the tape
    mbd_sym_tape_eval(cb->tape, &t, out);
    (void)err;
    return 0;
  }
  if (cb->fnref == LUA_NOREF) {
    out[0] = cb->constant;
    out[1] = out[2] = 0;
    return 0;
  }
  int rc = time_value(L, cb, cb->fnref, t, &out[0], err);
  if (rc) {
    return rc;
  }
  double h = 1e-4 * (1 + fabs(t)), fp = 0, fm = 0;
  if (cb->vref != LUA_NOREF) {
    rc = time_value(L, cb, cb->vref, t, &out[1], err);
  } else {
    rc = time_value(L, cb, cb->fnref, t + h, &fp, err);
    if (!rc) {
      rc = time_value(L, cb, cb->fnref, t - h, &fm, err);
    }
    out[1] = (fp - fm) / (2 * h);
  }
  if (rc) {
    return rc;
  }
  if (cb->aref != LUA_NOREF) {
    rc = time_value(L, cb, cb->aref, t, &out[2], err);
  } else if (cb->vref != LUA_NOREF) {
    double vp = 0, vm = 0;
    rc = time_value(L, cb, cb->vref, t + h, &vp, err);
    if (!rc) {
      rc = time_value(L, cb, cb->vref, t - h, &vm, err);
    }
    out[2] = (vp - vm) / (2 * h);
  } else {
    out[2] = (fp - 2 * out[0] + fm) / (h * h);
  }
  return rc;
}

/* poll at each output sample: Ctrl-C at the REPL stops the run (models and systems) */
int l_poll_interrupt(void *ud, double t, mbd_error *err) {
  (void)ud;
  if (mbd_lua_interrupted) {
    mbd_lua_interrupted = 0;
    return MBD_FAIL(err, MBD_E_CALLBACK, "interrupted at t = %g", t);
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.model { name, dim, gravity }                                                            */

static int l_model_new(lua_State *L) {
  static const char *const fields[] = {"name", "dim", "gravity", NULL};
  lu_check_fields(L, 1, "model", fields);
  const char *name = lu_opt_string(L, 1, "model", "name");
  int dim = 2;
  lu_opt_int(L, 1, "model", "dim", &dim);
  if (dim != 2 && dim != 3) {
    return luaL_error(L, "model: field 'dim' must be 2 or 3, got %d", dim);
  }
  double g[3] = {0, 0, 0};
  lu_opt_vec(L, 1, "model", "gravity", dim, g);
  lmodel *lm = lua_newuserdatauv(L, sizeof *lm, 1);
  memset(lm, 0, sizeof *lm);
  lm->state_ref = LUA_NOREF;
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
  push_obj(L, -1, BODY_MT, 0);
  lua_getiuservalue(L, -2, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, "ground");
  lua_pop(L, 1);
  // the state object handed to force functions
  lstate *st = lua_newuserdatauv(L, sizeof *st, 0);
  st->m = lm->m;
  st->d = NULL;
  luaL_setmetatable(L, STATE_MT);
  lm->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

/* m:body { name, mass, inertia, pos, angle/rot, vel, omega } */
static int l_model_body(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  int dim = mbd_model_dim(lm->m);
  static const char *const f2[] = {"name", "mass", "inertia", "pos", "angle",
                                   "vel",  "omega", NULL};
  static const char *const f3[] = {"name", "mass", "inertia", "pos", "rot", "vel", "omega", NULL};
  lu_check_fields(L, 2, "body", dim == 2 ? f2 : f3);
  mbd_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = lu_opt_string(L, 2, "body", "name");
  // the object as messages name it: the engine calls an unnamed body "body<N>"
  char what[96];
  if (s.name) {
    snprintf(what, sizeof what, "body '%s'", s.name);
  } else {
    snprintf(what, sizeof what, "body 'body%d'", mbd_model_nbody(lm->m));
  }
  s.mass = lu_req_number(L, 2, "body", "mass");
  if (dim == 2) {
    s.inertia[0] = lu_req_number(L, 2, "body", "inertia");
    lu_opt_number(L, 2, "body", "angle", &s.angle);
    lu_opt_number(L, 2, "body", "omega", &s.omega[0]);
  } else {
    lua_getfield(L, 2, "inertia");
    double in[6] = {0, 0, 0, 0, 0, 0};
    int got = lu_read_numbers(L, lua_gettop(L), in, 6);
    if (lua_isnil(L, -1)) {
      return luaL_error(L, "body: missing field 'inertia'");
    }
    if (got != 3 && got != 6) {
      return luaL_error(L, "%s: field 'inertia' expects 3 numbers {Ixx, Iyy, Izz} or 6 "
                           "{Ixx, Iyy, Izz, Ixy, Iyz, Izx} in a spatial model",
                        what);
    }
    lua_pop(L, 1);
    memcpy(s.inertia, in, sizeof in);
    s.rot[0] = 1;
    lu_opt_vec(L, 2, what, "rot", 4, s.rot);
    vec_field(L, 2, what, "omega", 3, 3, s.omega);
  }
  vec_field(L, 2, what, "pos", dim, dim, s.pos);
  vec_field(L, 2, what, "vel", dim, dim, s.vel);
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
  push_obj(L, 1, BODY_MT, b);
  return 1;
}

/* joints: m:revolute { name, body1, at1, body2, at2, axis1, axis2 } and the other types */
static int add_joint(lua_State *L, int type) {
  lmodel *lm = check_model(L, 1);
  int dim = mbd_model_dim(lm->m);
  const char *ctor = mbd_joint_type_name(type);
  static const char *const fields[] = {"name", "body1", "at1", "body2", "at2", "axis1", "axis2",
                                       NULL};
  lu_check_fields(L, 2, ctor, fields);
  mbd_joint_spec s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.name = lu_opt_string(L, 2, ctor, "name");
  s.body1 = get_body(L, 2, 1, ctor, "body1", 1);
  s.body2 = get_body(L, 2, 1, ctor, "body2", 1);
  // the joint as messages name it: the engine calls an unnamed joint "<type><N>"
  char what[96];
  if (s.name) {
    snprintf(what, sizeof what, "%s '%s'", ctor, s.name);
  } else {
    snprintf(what, sizeof what, "%s '%s%d'", ctor, ctor, mbd_model_njoint(lm->m) + 1);
  }
  vec_field(L, 2, what, "at1", dim, dim, s.at1);
  vec_field(L, 2, what, "at2", dim, dim, s.at2);
  s.has_axis1 = vec_field(L, 2, what, "axis1", dim, dim, s.axis1);
  s.has_axis2 = vec_field(L, 2, what, "axis2", dim, dim, s.axis2);
  if (dim == 2 && s.has_axis2) {
    return luaL_error(L, "%s: field 'axis2' is not used in planar models", ctor);
  }
  mbd_error err;
  mbd_error_clear(&err);
  int j = mbd_model_add_joint(lm->m, &s, &err);
  if (j < 0) {
    return raise_err(L, &err);
  }
  push_obj(L, 1, JOINT_MT, j);
  return 1;
}

static int l_model_revolute(lua_State *L) { return add_joint(L, MBD_JOINT_REVOLUTE); }
static int l_model_translational(lua_State *L) { return add_joint(L, MBD_JOINT_TRANSLATIONAL); }
static int l_model_fixed(lua_State *L) { return add_joint(L, MBD_JOINT_FIXED); }
static int l_model_spherical(lua_State *L) { return add_joint(L, MBD_JOINT_SPHERICAL); }
static int l_model_universal(lua_State *L) { return add_joint(L, MBD_JOINT_UNIVERSAL); }
static int l_model_cylindrical(lua_State *L) { return add_joint(L, MBD_JOINT_CYLINDRICAL); }

/* a function field stored as a registry ref; LUA_NOREF when absent */
static int opt_function_ref(lua_State *L, int tidx, const char *ctor, const char *key) {
  int t = lua_getfield(L, tidx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return LUA_NOREF;
  }
  if (t != LUA_TFUNCTION) {
    luaL_error(L, "%s: field '%s' expects a function, got %s", ctor, key, lu_typename(L, -1));
  }
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* m:drive { joint, position, velocity, acceleration } */
static int l_model_drive(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  static const char *const fields[] = {"joint", "position", "velocity", "acceleration", NULL};
  lu_check_fields(L, 2, "drive", fields);
  int j = get_joint(L, 2, 1, "drive", "joint");
  char pos[96], what[160];
  where(L, pos, sizeof pos);
  snprintf(what, sizeof what, "drive on joint '%s' (%s)", mbd_model_joint_name(lm->m, j), pos);
  lcb *cb = new_cb(L, lm, CB_DRIVE, what);
  int t = lua_getfield(L, 2, "position");
  if (t == LUA_TNUMBER) {
    cb->constant = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else if (t == LUA_TFUNCTION) {
    lua_pop(L, 1);
    cb->fnref = opt_function_ref(L, 2, "drive", "position");
  } else if (t == LUA_TUSERDATA && l_sym_is(L, -1)) {
    // a symbolic expression of mbd.sym.t: compile f, f', f'' once (exact derivatives)
    if (lu_has(L, 2, "velocity") || lu_has(L, 2, "acceleration")) {
      return luaL_error(L, "drive: a symbolic position gives its own velocity and acceleration; "
                           "remove fields 'velocity' and 'acceleration'");
    }
    mbd_sym_ctx *ctx = l_sym_ctx(L);
    mbd_sym_id f[3], tv = mbd_sym_var(ctx, "t", -1);
    f[0] = l_sym_check(L, -1);
    f[1] = mbd_sym_diff(ctx, f[0], tv);
    f[2] = mbd_sym_diff(ctx, f[1], tv);
    lua_pop(L, 1);
    mbd_error err;
    mbd_error_clear(&err);
    if (f[1] < 0 || f[2] < 0 || mbd_sym_tape_new(ctx, 3, f, 1, &tv, &cb->tape, &err) < 0) {
      return luaL_error(L, "drive: field 'position': %s (a drive's expression may use only "
                           "mbd.sym.t)", err.code ? err.msg : "cannot differentiate it");
    }
  } else if (t == LUA_TNIL) {
    return luaL_error(L, "drive: missing field 'position'");
  } else {
    return luaL_error(L, "drive: field 'position' expects a function of t, a symbolic expression "
                         "of mbd.sym.t or a number, got %s", lu_typename(L, -1));
  }
  cb->vref = opt_function_ref(L, 2, "drive", "velocity");
  cb->aref = opt_function_ref(L, 2, "drive", "acceleration");
  if (cb->aref != LUA_NOREF && cb->vref == LUA_NOREF) {
    return luaL_error(L, "drive: field 'acceleration' needs field 'velocity' too");
  }
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_drive(lm->m, j, drive_cb, cb, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  push_obj(L, 1, DRIVE_MT, k);
  return 1;
}

/* m:force { body, at, value } and m:torque { body, value } */
static int add_force(lua_State *L, int torque) {
  lmodel *lm = check_model(L, 1);
  int dim = mbd_model_dim(lm->m);
  const char *ctor = torque ? "torque" : "force";
  static const char *const ff[] = {"body", "at", "value", NULL};
  static const char *const ft[] = {"body", "value", NULL};
  lu_check_fields(L, 2, ctor, torque ? ft : ff);
  mbd_force_spec s;
  memset(&s, 0, sizeof s);
  s.body = get_body(L, 2, 1, ctor, "body", 1);
  if (s.body == 0) {
    return luaL_error(L, "%s: field 'body' is the ground, which takes no force", ctor);
  }
  char obj[96];
  snprintf(obj, sizeof obj, "%s on body '%s'", ctor, mbd_model_body_name(lm->m, s.body));
  if (!torque) {
    vec_field(L, 2, obj, "at", dim, dim, s.at);
  }
  int want = torque ? (dim == 2 ? 1 : 3) : dim;
  if (torque && dim == 3 && lu_has(L, 2, "value")) {
    lua_getfield(L, 2, "value");
    int isnum = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (isnum) {
      return luaL_error(L, "%s: field 'value' expects 3 numbers {tx, ty, tz} (global) in a "
                           "spatial model, got a number",
                        obj);
    }
  }
  int t = lua_getfield(L, 2, "value");
  if (t == LUA_TFUNCTION) {
    char pos[96], what[160];
    where(L, pos, sizeof pos);
    snprintf(what, sizeof what, "%s on body '%s' (%s)", ctor, mbd_model_body_name(lm->m, s.body),
             pos);
    lcb *cb = new_cb(L, lm, torque ? CB_TORQUE : CB_FORCE, what);
    cb->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
    s.fn = force_cb;
    s.ud = cb;
  } else if (t == LUA_TNIL) {
    return luaL_error(L, "%s: missing field 'value'", ctor);
  } else {
    lua_pop(L, 1);
    if (want == 1) {
      s.value[0] = lu_req_number(L, 2, ctor, "value");
    } else {
      vec_field(L, 2, obj, "value", want, dim, s.value);
    }
  }
  mbd_error err;
  mbd_error_clear(&err);
  int k = torque ? mbd_model_add_torque(lm->m, &s, &err) : mbd_model_add_force(lm->m, &s, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  push_obj(L, 1, FORCE_MT, k);
  return 1;
}

static int l_model_force(lua_State *L) { return add_force(L, 0); }
static int l_model_torque(lua_State *L) { return add_force(L, 1); }

/* m:spring { name, body1, at1, body2, at2, k, c, length } */
static int l_model_spring(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  int dim = mbd_model_dim(lm->m);
  static const char *const fields[] = {"name", "body1", "at1", "body2", "at2",
                                       "k",    "c",     "length", NULL};
  lu_check_fields(L, 2, "spring", fields);
  mbd_spring_spec s;
  memset(&s, 0, sizeof s);
  s.name = lu_opt_string(L, 2, "spring", "name");
  s.body1 = get_body(L, 2, 1, "spring", "body1", 1);
  s.body2 = get_body(L, 2, 1, "spring", "body2", 1);
  char obj[96];
  snprintf(obj, sizeof obj, "spring '%s'", s.name ? s.name : "spring");
  vec_field(L, 2, obj, "at1", dim, dim, s.at1);
  vec_field(L, 2, obj, "at2", dim, dim, s.at2);
  s.k = lu_req_number(L, 2, "spring", "k");
  lu_opt_number(L, 2, "spring", "c", &s.c);
  s.length = lu_req_number(L, 2, "spring", "length");
  mbd_error err;
  mbd_error_clear(&err);
  int k = mbd_model_add_spring(lm->m, &s, &err);
  if (k < 0) {
    return raise_err(L, &err);
  }
  push_obj(L, 1, FORCE_MT, k);
  return 1;
}

/* m:rotational_spring { joint, k, c, angle } */
static int l_model_rotational_spring(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  static const char *const fields[] = {"joint", "k", "c", "angle", NULL};
  lu_check_fields(L, 2, "rotational_spring", fields);
  int j = get_joint(L, 2, 1, "rotational_spring", "joint");
  double k = lu_req_number(L, 2, "rotational_spring", "k"), c = 0, angle = 0;
  lu_opt_number(L, 2, "rotational_spring", "c", &c);
  lu_opt_number(L, 2, "rotational_spring", "angle", &angle);
  mbd_error err;
  mbd_error_clear(&err);
  int r = mbd_model_add_rotational_spring(lm->m, j, k, c, angle, &err);
  if (r < 0) {
    return raise_err(L, &err);
  }
  push_obj(L, 1, FORCE_MT, r);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* running                                                                                     */

/* store the run (top of stack) as the model's last_run */
static void set_last_run(lua_State *L, int midx) {
  lua_getiuservalue(L, midx, 1);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "last_run");
  lua_pop(L, 1);
}

/* after an engine run: show its warnings, return the run (also kept as model.last_run), or raise
 * the engine's error naming how far the run got */
static int finish_run(lua_State *L, lmodel *lm, int rc, mbd_run *run, const mbd_error *err) {
  show_warnings(lm);
  if (run) {
    l_run_push(L, run);
    set_last_run(L, 1);
  }
  if (rc < 0) {
    int n = run ? mbd_run_nsample(run) : 0;
    if (n > 0) {
      return luaL_error(L, "%s (the run up to t = %f is kept in model.last_run)", err->msg,
                        mbd_run_times(run)[n - 1]);
    }
    return raise_err(L, err);
  }
  return 1;
}

/* m:simulate { t_end, formulation, integrator, rtol, atol, step, max_step, position_tol,
 *              max_newton, stabilization = {alpha, beta}, output_every } */
static int l_model_simulate(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  static const char *const fields[] = {"t_end",        "formulation",   "integrator",
                                       "rtol",         "atol",          "step",
                                       "max_step",     "position_tol",  "max_newton",
                                       "stabilization", "output_every", NULL};
  lu_check_fields(L, 2, "simulate", fields);
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  o.t_end = lu_req_number(L, 2, "simulate", "t_end");
  const char *f = lu_opt_string(L, 2, "simulate", "formulation");
  if (f) {
    o.formulation = mbd_formulation_from_name(f);
    if (o.formulation < 0) {
      return luaL_error(L, "simulate: unknown formulation '%s' (augmented, baumgarte, gcp, kane, "
                           "udwadia_kalaba, relative)", f);
    }
  }
  lu_ode_fields of = {o.integrator, o.rtol, o.atol, o.step, o.max_step, o.output_every};
  lu_read_ode_fields(L, 2, &of);
  o.integrator = of.integrator;
  o.rtol = of.rtol;
  o.atol = of.atol;
  o.step = of.step;
  o.max_step = of.max_step;
  o.output_every = of.output_every;
  lu_opt_number(L, 2, "simulate", "position_tol", &o.position_tol);
  lu_opt_int(L, 2, "simulate", "max_newton", &o.max_newton);
  if (o.formulation == MBD_FORM_UK) {
    o.alpha = o.beta = 0;  // udwadia_kalaba: the plain equation 5 unless stabilization is given
  }
  if (lua_getfield(L, 2, "stabilization") != LUA_TNIL) {
    static const char *const sf[] = {"alpha", "beta", "S", "T", NULL};
    lu_check_fields(L, -1, "simulate: stabilization", sf);
    lu_opt_number(L, -1, "stabilization", "alpha", &o.alpha);
    lu_opt_number(L, -1, "stabilization", "beta", &o.beta);
    // udwadia_kalaba: full S, T over all constraint rows (paper 004 eq 26–27)
    int sidx = lua_gettop(L);
    for (int k = 0; k < 2; k++) {
      const char *key = k ? "T" : "S";
      if (lua_getfield(L, sidx, key) == LUA_TNIL) {
        lua_pop(L, 1);
        continue;
      }
      if (o.formulation != MBD_FORM_UK) {
        return luaL_error(L, "simulate: stabilization %s is for formulation 'udwadia_kalaba'", key);
      }
      int h = 0;
      if (lua_type(L, -1) == LUA_TNUMBER) {
        return luaL_error(L, "simulate: stabilization %s: give a matrix (or %s for %s I)", key,
                          k ? "beta" : "alpha", k ? "beta" : "alpha");
      }
      double *mat = lu_read_square(L, lua_gettop(L), "simulate: stabilization", key, 0, &h);
      lua_remove(L, -2);
      if (o.stab_n && h != o.stab_n) {
        return luaL_error(L, "simulate: stabilization S and T must have the same size");
      }
      o.stab_n = h;
      if (k) {
        o.stab_T = mat;
      } else {
        o.stab_S = mat;
      }
      lua_insert(L, sidx);  // keep the matrix userdata alive below the table
      sidx++;
    }
  }
  lua_pop(L, 1);
  o.poll = l_poll_interrupt;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  lm->L = L;
  mbd_lua_interrupted = 0;
  int rc = mbd_simulate(lm->m, &o, &run, &err);
  return finish_run(L, lm, rc, run, &err);
}

/* m:kinematics { t_end, steps, position_tol, max_newton } */
static int l_model_kinematics(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  static const char *const fields[] = {"t_end", "steps", "position_tol", "max_newton", NULL};
  lu_check_fields(L, 2, "kinematics", fields);
  mbd_kin_opts o;
  memset(&o, 0, sizeof o);
  o.t_end = lu_req_number(L, 2, "kinematics", "t_end");
  o.steps = 100;
  lu_opt_int(L, 2, "kinematics", "steps", &o.steps);
  lu_opt_number(L, 2, "kinematics", "position_tol", &o.position_tol);
  lu_opt_int(L, 2, "kinematics", "max_newton", &o.max_newton);
  o.poll = l_poll_interrupt;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  lm->L = L;
  mbd_lua_interrupted = 0;
  int rc = mbd_kinematics(lm->m, &o, &run, &err);
  return finish_run(L, lm, rc, run, &err);
}

static int info_tostring(lua_State *L) {
  lua_getfield(L, 1, "text");
  return 1;
}

/* m:info(): a table {bodies, joints, drives, forces, coordinates, constraints, rank, dof,
 * redundant, warnings, text} whose tostring is a readable summary */
static int l_model_info(lua_State *L) {
  lmodel *lm = check_model(L, 1);
  mbd_error err;
  mbd_error_clear(&err);
  lm->L = L;
  mbd_model_clear_warnings(lm->m);
  int rc = mbd_model_assemble(lm->m, NULL, &err);
  show_warnings(lm);
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
  for (int i = 1; i < mbd_model_nbody(lm->m); i++) {
    luaL_addstring(&b, i == 1 ? " (" : ", ");
    luaL_addstring(&b, mbd_model_body_name(lm->m, i));
  }
  luaL_addstring(&b, in.nbody ? ")\n" : "\n");
  snprintf(line, sizeof line, "  joints: %d", in.njoint);
  luaL_addstring(&b, line);
  for (int i = 0; i < mbd_model_njoint(lm->m); i++) {
    snprintf(line, sizeof line, "%s%s %s", i == 0 ? " (" : ", ",
             mbd_joint_type_name(mbd_model_joint_type(lm->m, i)), mbd_model_joint_name(lm->m, i));
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
  lmodel *lm = check_model(L, 1);
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

/* DSL names of papers not implemented yet (DSL.md "Contact", "Flexible bodies"): a clear error
 * instead of "attempt to call a nil value" */
static int l_not_yet(lua_State *L) {
  return luaL_error(L, "%s", lua_tostring(L, lua_upvalueindex(1)));
}

static const struct {
  const char *name, *msg;
} not_yet[] = {
    {"surface", "m:surface: contact surfaces (paper 001) are not implemented yet"},
    {"contact", "m:contact: contact (paper 001) is not implemented yet"},
    {"flexible_body", "m:flexible_body: flexible bodies (paper 003) are not implemented yet"},
};

static const luaL_Reg model_methods[] = {
    {"body", l_model_body},
    {"cylindrical", l_model_cylindrical},
    {"drive", l_model_drive},
    {"fixed", l_model_fixed},
    {"force", l_model_force},
    {"info", l_model_info},
    {"kinematics", l_model_kinematics},
    {"revolute", l_model_revolute},
    {"rotational_spring", l_model_rotational_spring},
    {"simulate", l_model_simulate},
    {"spherical", l_model_spherical},
    {"spring", l_model_spring},
    {"torque", l_model_torque},
    {"translational", l_model_translational},
    {"universal", l_model_universal},
    {NULL, NULL}};

/* m.ground, m.name, m.dim, m.last_run, m.<method> */
static int l_model_index(lua_State *L) {
  lmodel *lm = check_model(L, 1);
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
  for (const luaL_Reg *r = model_methods; r->name; r++) {
    if (strcmp(r->name, k) == 0) {
      lua_pushcfunction(L, r->func);
      return 1;
    }
  }
  for (size_t i = 0; i < sizeof not_yet / sizeof not_yet[0]; i++) {
    if (strcmp(not_yet[i].name, k) == 0) {
      lua_pushstring(L, not_yet[i].msg);
      lua_pushcclosure(L, l_not_yet, 1);
      return 1;
    }
  }
  // a body or joint by name: m.crank
  int b = mbd_model_find_body(lm->m, k);
  if (b >= 0) {
    push_obj(L, 1, BODY_MT, b);
    return 1;
  }
  int j = mbd_model_find_joint(lm->m, k);
  if (j >= 0) {
    push_obj(L, 1, JOINT_MT, j);
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* bodies, joints, forces, drives, state                                                        */

static int l_body_index(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, BODY_MT);
  const char *k = luaL_checkstring(L, 2);
  lmodel *lm = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_body_name(lm->m, o->index));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else if (strcmp(k, "model") == 0) {
    lua_getiuservalue(L, 1, 1);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_body_tostring(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, BODY_MT);
  lmodel *lm = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Body '%s' of model '%s'", mbd_model_body_name(lm->m, o->index),
                  mbd_model_name(lm->m));
  return 1;
}

static int l_joint_index(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, JOINT_MT);
  const char *k = luaL_checkstring(L, 2);
  lmodel *lm = obj_model(L, 1);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, mbd_model_joint_name(lm->m, o->index));
  } else if (strcmp(k, "type") == 0) {
    lua_pushstring(L, mbd_joint_type_name(mbd_model_joint_type(lm->m, o->index)));
  } else if (strcmp(k, "index") == 0) {
    lua_pushinteger(L, o->index);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_joint_tostring(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, JOINT_MT);
  lmodel *lm = obj_model(L, 1);
  lua_pushfstring(L, "mbd.Joint %s '%s' of model '%s'",
                  mbd_joint_type_name(mbd_model_joint_type(lm->m, o->index)),
                  mbd_model_joint_name(lm->m, o->index), mbd_model_name(lm->m));
  return 1;
}

static int l_force_tostring(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, FORCE_MT);
  lua_pushfstring(L, "mbd.Force #%d", o->index + 1);
  return 1;
}

static int l_drive_tostring(lua_State *L) {
  lobj *o = luaL_checkudata(L, 1, DRIVE_MT);
  lua_pushfstring(L, "mbd.Drive #%d", o->index + 1);
  return 1;
}

/* state:get("link1.theta") inside a force function */
static int l_state_get(lua_State *L) {
  lstate *st = luaL_checkudata(L, 1, STATE_MT);
  const char *name = luaL_checkstring(L, 2);
  if (!st->d) {
    return luaL_error(L, "state:get: the state is only valid inside a force function");
  }
  int ch = mbd_channel_find(st->m, name);
  if (ch < 0) {
    return luaL_error(L, "state:get: no channel '%s'", name);
  }
  int ok = 0;
  double v = mbd_channel_value(st->m, st->d, ch, &ok);
  if (!ok) {
    return luaL_error(L, "state:get: channel '%s' needs accelerations or reactions, which are "
                         "not known while forces are computed", name);
  }
  lua_pushnumber(L, v);
  return 1;
}

static int l_state_tostring(lua_State *L) {
  lstate *st = luaL_checkudata(L, 1, STATE_MT);
  lua_pushstring(L, st->d ? "mbd.State (use state:get(\"body.x\"))" : "mbd.State (not in use)");
  return 1;
}

static void new_meta(lua_State *L, const char *name, lua_CFunction index, lua_CFunction tostr,
                     lua_CFunction gc) {
  luaL_newmetatable(L, name);
  if (index) {
    lua_pushcfunction(L, index);
    lua_setfield(L, -2, "__index");
  }
  lua_pushcfunction(L, tostr);
  lua_setfield(L, -2, "__tostring");
  if (gc) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
}

void mbd_open_model(lua_State *L) {
  new_meta(L, MODEL_MT, l_model_index, l_model_tostring, l_model_gc);
  new_meta(L, BODY_MT, l_body_index, l_body_tostring, NULL);
  new_meta(L, JOINT_MT, l_joint_index, l_joint_tostring, NULL);
  new_meta(L, FORCE_MT, NULL, l_force_tostring, NULL);
  new_meta(L, DRIVE_MT, NULL, l_drive_tostring, NULL);
  luaL_newmetatable(L, STATE_MT);
  lua_newtable(L);
  lua_pushcfunction(L, l_state_get);
  lua_setfield(L, -2, "get");
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_state_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_model_new);
  lua_setfield(L, -2, "model");
  // mbd.fem (paper 003) is not implemented yet: its functions say so
  lua_newtable(L);
  lua_pushstring(L, "mbd.fem.beam: beam finite elements (paper 003) are not implemented yet");
  lua_pushcclosure(L, l_not_yet, 1);
  lua_setfield(L, -2, "beam");
  lua_pushstring(L, "mbd.fem.load: mode import (paper 003) is not implemented yet");
  lua_pushcclosure(L, l_not_yet, 1);
  lua_setfield(L, -2, "load");
  lua_setfield(L, -2, "fem");
}
