/* mbd — the Lua side of paper 002 (private to interp/): the relative formulation's run options
 * (cut, solver, code), m:tree() and m:export_c{}. */
#ifndef MBD_L_RELATIVE_H
#define MBD_L_RELATIVE_H

#include <lua.h>

#include "mbd/model.h"

/* the fields cut = {"S1", ...}, solver = "kane" and code = "compiled" of the simulate table at idx
 * into o (the table's fields already checked).  The list of cut names lives in a buffer pushed on
 * the stack (keep it there until the run has returned); returns the number of values pushed.
 * Raises "simulate: field 'cut' expects a list of joint names", "simulate: unknown solver
 * '<name>' (augmented, baumgarte, gcp, kane)", "simulate: unknown code '<name>' (numeric, tape,
 * compiled)", and "simulate: fields cut and solver are for formulation 'relative'". */
int l_relative_read(lua_State *L, int idx, mbd_sim_opts *o);

/* formulation = "relative", cut and code of the m:kinematics table at idx into o (its fields
 * already checked); the cut names' buffer is pushed as in l_relative_read; returns 1 */
int l_relative_read_kin(lua_State *L, int idx, mbd_kin_opts *o);

/* m:export_c { dir, t_end, rtol, atol, output_every, solver, stabilization, cut } -> dir */
int l_model_export_c(lua_State *L);

/* mbd._copy_open(m, shape, name, origin, rot) -> index and mbd._copy_close(m): the engine side of
 * mbd.macro (stdlib/mbd/macro.lua), added to the mbd table; returns 0 */
int mbd_open_relative(lua_State *L);

/* m:tree { cut = {...} } -> the description of the spanning tree (a string) */
int l_model_tree(lua_State *L);

#endif
