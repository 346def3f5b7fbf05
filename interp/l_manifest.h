/* mbd — the manifest of a run from Lua (private to interp/): filled when a run ends, read as
 * run.manifest, written by run:write_csv (comment lines) and put into plots' metadata */
#ifndef MBD_L_MANIFEST_H
#define MBD_L_MANIFEST_H

#include <lua.h>

#include "mbd/model.h"
#include "mbd/system.h"

/* the manifest of a dynamic run of model m with options o: program, lua, model, model_hash,
 * formulation, integrator, rtol, atol, step (rk4), position_tol, stabilization (baumgarte,
 * udwadia_kalaba), t_end, output_every, stop_when, date (UTC, ISO 8601) */
void l_manifest_simulate(mbd_run *r, const mbd_model *m, const mbd_sim_opts *o, int stop_when);
/* of a kinematic run: program, lua, model, model_hash, formulation "kinematics", t_end, steps,
 * position_tol, date */
void l_manifest_kinematics(mbd_run *r, const mbd_model *m, const mbd_kin_opts *o);
/* of a system run: program, lua, model (the system's name), formulation, integrator, rtol, atol,
 * step, t_end, output_every, date */
void l_manifest_system(mbd_run *r, const mbd_system *s, const mbd_sys_opts *o);

/* push run r's manifest as a table {key = value, ...} */
void l_manifest_push(lua_State *L, const mbd_run *r);

#endif
