/* mbd — running from Lua (private to interp/): the run options shared by m:simulate,
 * m:kinematics and sys:simulate, and the end of a run (the run kept in last_run, a failure raised
 * at the user's line).  m:simulate and m:kinematics themselves live here too. */
#ifndef MBD_L_SIMULATE_H
#define MBD_L_SIMULATE_H

#include <lua.h>

#include "mbd/integrators.h"
#include "mbd/model.h"

/* the fields of a run table every caller shares, as places in the caller's engine options
 * (mbd_sim_opts, mbd_kin_opts, mbd_sys_opts).  A NULL place is not a field of that table; a
 * field absent from the table leaves its place as it was (the engine's default).  Read in this
 * order, so the first bad field is the one reported:
 *   t_end (required), formulation (through check), integrator, rtol, atol, step, max_step,
 *   output_every, steps, position_tol, max_newton
 * The fields only one formulation uses (stabilization) stay with the caller. */
typedef struct l_sim_fields {
  const char *fn;   /* the table's name in messages: "simulate" or "kinematics" */
  double *t_end;    /* s, required */
  int *formulation; /* with check: the formulation named, when the field is given */
  /* the caller's formulation called name, or raises naming the ones the caller runs */
  int (*check)(lua_State *L, const char *name);
  /* the integrator fields (simulate): integrator (kind), rtol, atol (> 0), step (rk4: the fixed
   * step, then required; others: the initial step), max_step (s), max_order (adams 1–12, bdf 1–5;
   * 0: the method's own) */
  mbd_ode_opts *ode;
  double *output_every; /* s */
  int *steps;           /* kinematics: number of output intervals */
  double *position_tol; /* models: Newton tolerance of position analyses */
  int *max_newton;      /* models: Newton iterations per analysis */
} l_sim_fields;

/* read the fields f names from the run table at idx (already checked for unknown keys).  Raises
 * "<fn>: missing field 't_end'", "simulate: unknown integrator '<name>' (adams, rk45, bdf, rk4, rkf45)",
 * "simulate: integrator 'rk4' needs field 'step' (the fixed step h)", "simulate: rtol and atol
 * must be positive" and the type errors of the field walker. */
void l_sim_read(lua_State *L, int idx, const l_sim_fields *f);

/* after an engine run, its warnings already shown: the run (when there is one) is stored as
 * last_run in the user-value table of the owner (the model or system userdata at owner) and
 * returned on the stack (1 result).  When rc < 0 raises err's message instead, with
 * " (the run up to t = <t> is kept in <kept>)" appended for a run with samples, or for any run
 * when name_empty (systems: t = 0 then).  The run's warnings are printed to stderr at the
 * script's line unless quiet. */
int l_sim_finish(lua_State *L, int owner, int rc, mbd_run *run, const mbd_error *err,
                 const char *kept, int name_empty, int quiet);

/* the options' field quiet at idx (absent: false; anything but a boolean raises "<fn>: field
 * 'quiet' expects true or false, got <type>"): the run's warnings are kept in run.warnings and
 * not printed */
int l_sim_quiet(lua_State *L, int idx, const char *fn);

/* m:simulate { t_end, formulation, integrator, rtol, atol, step, max_step, position_tol,
 * max_newton, stabilization, output_every } -> mbd.Run */
int l_model_simulate(lua_State *L);

/* m:kinematics { t_end, steps, position_tol, max_newton } -> mbd.Run */
int l_model_kinematics(lua_State *L);

#endif
