/* the bridge from the engine into Lua: callback records, the pcall that turns a Lua error into an
 * engine error naming the object, the force/torque and drive callbacks of models, and the
 * interrupt poll of runs started from Lua (l_callback.h) */
#include "l_callback.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "l_msg.h"
#include "l_sym.h"
#include "l_util.h"

volatile sig_atomic_t mbd_lua_interrupted = 0;

/* ------------------------------------------------------------------------------------------ */
/* records                                                                                     */

void l_cbset_init(l_cbset *s) {
  s->L = NULL;
  s->cb = NULL;
  s->ncb = s->ccb = 0;
  s->state_ref = LUA_NOREF;
}

void l_cbset_free(lua_State *L, l_cbset *s) {
  for (int i = 0; i < s->ncb; i++) {
    luaL_unref(L, LUA_REGISTRYINDEX, s->cb[i]->fnref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->cb[i]->vref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->cb[i]->aref);
    mbd_sym_tape_free(s->cb[i]->tape);
    free(s->cb[i]);
  }
  free(s->cb);
  s->cb = NULL;
  s->ncb = s->ccb = 0;
  luaL_unref(L, LUA_REGISTRYINDEX, s->state_ref);
  s->state_ref = LUA_NOREF;
}

l_cb *l_cb_new(lua_State *L, l_cbset *s, int kind, const char *what) {
  if (s->ncb == s->ccb) {
    int nc = s->ccb ? 2 * s->ccb : 8;
    l_cb **p = realloc(s->cb, (size_t)nc * sizeof *p);
    if (!p) {
      luaL_error(L, LMSG_CALLBACK_OUT_MEMORY);
    }
    s->cb = p;
    s->ccb = nc;
  }
  l_cb *cb = calloc(1, sizeof *cb);
  if (!cb) {
    luaL_error(L, LMSG_CALLBACK_OUT_MEMORY);
  }
  cb->owner = s;
  cb->kind = kind;
  cb->fnref = cb->vref = cb->aref = LUA_NOREF;
  snprintf(cb->what, sizeof cb->what, "%s", what);
  s->cb[s->ncb++] = cb;
  return cb;
}

/* ------------------------------------------------------------------------------------------ */
/* a drive's record from its constructor table                                                 */

void l_cb_read_drive(lua_State *L, int tidx, l_cb *cb) {
  tidx = lua_absindex(L, tidx);
  int t = lua_getfield(L, tidx, "position");
  if (t == LUA_TNUMBER) {
    cb->constant = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else if (t == LUA_TFUNCTION) {
    lua_pop(L, 1);
    cb->fnref = lx_opt_function(L, tidx, "drive", "position");
  } else if (t == LUA_TUSERDATA && l_sym_is(L, -1)) {
    // a symbolic expression of mbd.sym.t: compile f, f', f'' once (exact derivatives)
    if (lx_has(L, tidx, "velocity") || lx_has(L, tidx, "acceleration")) {
      luaL_error(L, LMSG_CALLBACK_DRIVE_SYMBOLIC_POSITION_GIVES);
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
      luaL_error(L, LMSG_CALLBACK_DRIVE_FIELD_POSITION_DRIVE,
                 err.code ? err.msg : LMSG_CALLBACK_NOT_DIFFERENTIABLE);
    }
  } else if (t == LUA_TNIL) {
    luaL_error(L, LMSG_CALLBACK_DRIVE_MISSING_FIELD_POSITION);
  } else {
    luaL_error(L, LMSG_CALLBACK_DRIVE_FIELD_POSITION_FUNCTION, lx_typename(L, -1));
  }
  cb->vref = lx_opt_function(L, tidx, "drive", "velocity");
  cb->aref = lx_opt_function(L, tidx, "drive", "acceleration");
  if (cb->aref != LUA_NOREF && cb->vref == LUA_NOREF) {
    luaL_error(L, LMSG_CALLBACK_DRIVE_FIELD_ACCELERATION_NEEDS);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* calls from the engine into Lua                                                              */

int l_cb_pcall(lua_State *L, const char *what, int nargs, int nres, mbd_error *err) {
  int base = lua_gettop(L) - nargs - 1;  // below the function and its arguments
  if (lua_pcall(L, nargs, nres, 0) != LUA_OK) {
    // an error object that is not a string speaks through its __tostring
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!msg && luaL_callmeta(L, -1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tostring(L, -1);
    }
    MBD_FAIL(err, MBD_E_CALLBACK, LMSG_CALLBACK_FAILED, what, msg ? msg : LMSG_ERROR_NOT_STRING);
    lua_settop(L, base);
    return MBD_E_CALLBACK;
  }
  return 0;
}

/* call cb's function f(t, state) with one result pushed; the State argument sees the engine's
 * data only during this call.  0, or the pcall's status with the stack back at top. */
static int call_with_state_at(l_cb *cb, lua_State *L, int top, double t, const mbd_model *m,
                              const mbd_data *d, mbd_error *err) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, cb->fnref);
  lua_pushnumber(L, t);
  lua_rawgeti(L, LUA_REGISTRYINDEX, cb->owner->state_ref);
  l_state *st = lua_touserdata(L, -1);
  // a nested run of the same model (the function calls m:simulate) uses the same State object:
  // give the outer call its data back afterwards
  const mbd_model *m_outer = st->m;
  const mbd_data *d_outer = st->d;
  st->m = m;
  st->d = d;
  int rc = l_cb_pcall(L, cb->what, 2, 1, err);
  st->m = m_outer;
  st->d = d_outer;
  if (rc) {
    lua_settop(L, top);
  }
  return rc;
}

/* the same for the callback ud: its interpreter in *L, the stack's height before the call in *top
 * (the caller reads the result at −1, then sets the stack back to *top) */
static int call_with_state(void *ud, double t, const mbd_model *m, const mbd_data *d,
                           lua_State **L, int *top, mbd_error *err) {
  l_cb *cb = ud;
  *L = cb->owner->L;
  *top = lua_gettop(*L);
  return call_with_state_at(cb, *L, *top, t, m, d, err);
}

int l_cb_force(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
               mbd_error *err) {
  const l_cb *cb = ud;
  lua_State *L;
  int top, rc = call_with_state(ud, t, m, d, &L, &top, err);
  if (rc) {
    return rc;
  }
  // a force of dim numbers; a torque of 1 (planar) or 3 (spatial)
  int dim = mbd_model_dim(m);
  int want = cb->kind == L_CB_TORQUE ? (dim == 2 ? 1 : 3) : dim;
  int got = -1;
  if (want == 1 && lua_type(L, -1) == LUA_TNUMBER) {
    out[0] = lua_tonumber(L, -1);
    got = 1;
  } else {
    got = lx_read_numbers(L, lua_gettop(L), out, want);
  }
  if (got != want) {
    const char *shape = want == 1 ? "a number" : (want == 2 ? "{x, y}" : "{x, y, z}");
    MBD_FAIL(err, MBD_E_CALLBACK, LMSG_CALLBACK_RESULT, cb->what, shape,
             got > 0 ? LMSG_CALLBACK_WRONG_SIZE : luaL_typename(L, -1), t);
    lua_settop(L, top);
    return MBD_E_CALLBACK;
  }
  lua_settop(L, top);
  return 0;
}

int l_cb_state(void *ud, double t, const mbd_model *m, const mbd_data *d, double *g,
               mbd_error *err) {
  lua_State *L;
  int top, rc = call_with_state(ud, t, m, d, &L, &top, err);
  if (rc) {
    return rc;
  }
  const l_cb *cb = ud;
  int isnum = 0;
  *g = lua_tonumberx(L, -1, &isnum);
  if (!isnum) {
    MBD_FAIL(err, MBD_E_CALLBACK, LMSG_CALLBACK_NUMBER, cb->what, luaL_typename(L, -1), t);
    lua_settop(L, top);
    return MBD_E_CALLBACK;
  }
  lua_settop(L, top);
  return 0;
}

/* call a time function ref: one number */
static int time_value(lua_State *L, l_cb *cb, int ref, double t, double *out, mbd_error *err) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  lua_pushnumber(L, t);
  int rc = l_cb_pcall(L, cb->what, 1, 1, err);
  if (rc) {
    return rc;
  }
  int isnum = 0;
  *out = lua_tonumberx(L, -1, &isnum);
  if (!isnum) {
    MBD_FAIL(err, MBD_E_CALLBACK, LMSG_CALLBACK_NUMBER, cb->what, luaL_typename(L, -1), t);
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
int l_cb_drive(void *ud, double t, double out[3], mbd_error *err) {
  l_cb *cb = ud;
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
  // velocity: its function, else the central difference of the position
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
  // acceleration: its function, else the difference of the velocity function, else the second
  // difference of the position
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

/* ------------------------------------------------------------------------------------------ */
/* interrupt                                                                                   */

int l_poll_interrupt(void *ud, double t, mbd_error *err) {
  (void)ud;
  if (mbd_lua_interrupted) {
    mbd_lua_interrupted = 0;
    return MBD_FAIL(err, MBD_E_CALLBACK, LMSG_CALLBACK_INTERRUPTED, t);
  }
  return 0;
}
