/* mbd — the bridge from the engine into Lua (private to interp/).
 *
 * A model hands the engine C callbacks (forces, torques, drives) whose user data is a record of
 * the Lua function to call; the engine calls them during a run.  Each call runs under lua_pcall:
 * a Lua error becomes an engine error value naming the object and the script line that made it
 * ("force on body 'b' (ex.lua:12): ex.lua:12: boom"), the engine unwinds normally, and the binding
 * raises it only after the engine call returned — no longjmp crosses an engine frame (STYLE.md
 * #8).  Also here: the interrupt poll that stops runs started from Lua (models and systems). */
#ifndef MBD_L_CALLBACK_H
#define MBD_L_CALLBACK_H

#include <lua.h>
#include <signal.h>

#include "mbd/model.h"
#include "mbd/sym.h"

/* set by the REPL's SIGINT handler; a running simulation stops at its next output sample */
extern volatile sig_atomic_t mbd_lua_interrupted;

/* the poll callback of runs started from Lua (mbd_sim_opts, mbd_kin_opts, mbd_sys_opts): after a
 * Ctrl-C stops the run with MBD_E_CALLBACK "interrupted at t = <t>" and clears the flag */
int l_poll_interrupt(void *ud, double t, mbd_error *err);

/* what a callback record calls back for */
typedef enum { L_CB_FORCE, L_CB_TORQUE, L_CB_DRIVE, L_CB_STATE } l_cb_kind;

typedef struct l_cbset l_cbset;

/* a Lua function the engine calls back: the user data of l_cb_force and l_cb_drive */
typedef struct l_cb {
  l_cbset *owner;        /* the set holding this record (and the state to run in) */
  int kind;              /* l_cb_kind */
  int fnref, vref, aref; /* registry refs: function (or position), velocity, acceleration */
  double constant;       /* drive: constant position when fnref is LUA_NOREF */
  mbd_sym_tape *tape;    /* drive: symbolic position, tape of [f, f', f''] of t, else NULL */
  char what[160];        /* "force on body 'link2' (ex.lua:12)" for messages */
} l_cb;

/* the callback records of one model, owned by it */
struct l_cbset {
  lua_State *L;  /* the state running the current engine call: set before each call */
  l_cb **cb;     /* the records, each allocated once and freed with the set */
  int ncb, ccb;  /* count, capacity */
  int state_ref; /* registry ref of the mbd.State handed to force functions */
};

/* the state handed to force functions (metatable "mbd.State", l_objects.c): the engine's model
 * and data while a force function runs, d = NULL otherwise */
typedef struct l_state {
  const mbd_model *m;
  const mbd_data *d; /* NULL outside a callback */
} l_state;

/* an empty set (no records, no state) */
void l_cbset_init(l_cbset *s);

/* free every record of s (registry refs and tapes too) and unref its state; s is empty after */
void l_cbset_free(lua_State *L, l_cbset *s);

/* a new record of s of the given kind, no function yet (refs LUA_NOREF); what names the object in
 * messages.  Raises "out of memory". */
l_cb *l_cb_new(lua_State *L, l_cbset *s, int kind, const char *what);

/* fill the drive record cb from the fields position (a function of t, a symbolic expression of
 * mbd.sym.t or a number), velocity and acceleration (functions) of the constructor table at tidx.
 * Raises "drive: ..." on bad fields. */
void l_cb_read_drive(lua_State *L, int tidx, l_cb *cb);

/* call the function below its nargs arguments on the stack, under lua_pcall.  0 with nres results
 * pushed; on a Lua error MBD_E_CALLBACK with "<what>: <message>" in err, nothing left pushed. */
int l_cb_pcall(lua_State *L, const char *what, int nargs, int nres, mbd_error *err);

/* the mbd_vec_fn of forces and torques (ud: an l_cb of kind L_CB_FORCE or L_CB_TORQUE): calls
 * f(t, state) and reads a {x, y} / {x, y, z} force, or a number / {x, y, z} torque, into out */
int l_cb_force(void *ud, double t, const mbd_model *m, const mbd_data *d, double *out,
               mbd_error *err);

/* the mbd_state_fn of stop_when (ud: an l_cb of kind L_CB_STATE): *g = f(t, state), a number */
int l_cb_state(void *ud, double t, const mbd_model *m, const mbd_data *d, double *g,
               mbd_error *err);

/* the mbd_time_fn of drives (ud: an l_cb of kind L_CB_DRIVE): out = position, velocity and
 * acceleration at t, from the tape, the constant, or the Lua functions (central differences for
 * those not given) */
int l_cb_drive(void *ud, double t, double out[3], mbd_error *err);

#endif
