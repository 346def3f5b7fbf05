/* running from Lua (DSL.md "Running"): one reader of the run options shared by m:simulate,
 * m:kinematics and sys:simulate, the end of a run (kept in last_run, a failure raised at the
 * user's line after the engine returned), and the model's run methods m:simulate and
 * m:kinematics (l_simulate.h).  sys:simulate is in l_system.c. */
#include "l_simulate.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "l_callback.h"
#include "l_manifest.h"
#include "l_model.h"
#include "l_msg.h"
#include "l_relative.h"
#include "l_run.h"
#include "l_util.h"
#include "mbd/formulation.h"
#include "mbd/integrators.h"

/* ------------------------------------------------------------------------------------------ */
/* run options and the end of a run                                                            */

void l_sim_read(lua_State *L, int idx, const l_sim_fields *f) {
  const char *fn = f->fn;
  char nb0[32], nb1[32];  // numbers as message text
  *f->t_end = lx_req_number(L, idx, fn, "t_end");
  if (f->check) {
    const char *name = lx_opt_string(L, idx, fn, "formulation");
    if (name) {
      *f->formulation = f->check(L, name);
    }
  }
  // the integrator: a name, tolerances, steps, the output interval
  if (f->ode) {
    mbd_ode_opts *io = f->ode;
    const char *ig = lx_opt_string(L, idx, fn, "integrator");
    if (ig) {
      io->kind = mbd_integrator_from_name(ig);
      if (io->kind < 0) {
        luaL_error(L, LMSG_SIMULATE_UNKNOWN_INTEGRATOR_ADAMS_RK45, fn, ig);
      }
    }
    lx_opt_number(L, idx, fn, "rtol", &io->rtol);
    lx_opt_number(L, idx, fn, "atol", &io->atol);
    int has_step = lx_opt_number(L, idx, fn, "step", &io->step);
    if (io->kind == MBD_INT_RK4 && !has_step) {
      luaL_error(L, LMSG_SIMULATE_INTEGRATOR_RK4_NEEDS_FIELD, fn);
    }
    int has_max_step = lx_opt_number(L, idx, fn, "max_step", &io->max_step);
    if (lx_opt_int(L, idx, fn, "max_order", &io->max_order)) {
      int top = io->kind == MBD_INT_ADAMS ? 12 : io->kind == MBD_INT_BDF ? 5 : 0;
      if (top == 0) {
        luaL_error(L, LMSG_SIMULATE_FIELD_MAX_ORDER_INTEGRATORS_ADAMS, fn,
                   mbd_integrator_name(io->kind));
      }
      if (io->max_order < 1 || io->max_order > top) {
        luaL_error(L, LMSG_SIMULATE_FIELD_MAX_ORDER_INTEGRATOR, fn, top,
                   mbd_integrator_name(io->kind), io->max_order);
      }
    }
    int has_every = lx_opt_number(L, idx, fn, "output_every", f->output_every);
    mbd_error terr;
    if (mbd_ode_check_tolerances(fn, io->rtol, io->atol, &terr) != MBD_OK) {
      luaL_error(L, "%s", terr.msg);
    }
    if (has_step && (!(io->step > 0) || !isfinite(io->step) || io->step > *f->t_end)) {
      luaL_error(L, LMSG_SIMULATE_FIELD_STEP_POSITIVE_FINITE, fn,
                 lx_num(nb0, sizeof nb0, io->step));
    }
    // below 1e-9·t_end the integrator could not take such a step at all (its smallest step is
    // 64 rounding units of the time)
    if (has_max_step && (!(io->max_step >= 1e-9 * *f->t_end) || !isfinite(io->max_step))) {
      luaL_error(L, LMSG_SIMULATE_FIELD_MAX_STEP_FINITE_LEAST, fn,
                 lx_num(nb1, sizeof nb1, 1e-9 * *f->t_end), lx_num(nb0, sizeof nb0, io->max_step));
    }
    if (has_every && (!(*f->output_every > 0) || !isfinite(*f->output_every))) {
      luaL_error(L, LMSG_SIMULATE_FIELD_OUTPUT_EVERY_POSITIVE_FINITE, fn,
                 lx_num(nb0, sizeof nb0, *f->output_every));
    }
  }
  // kinematics' output intervals; the position analyses of models
  if (f->steps) {
    lx_opt_int(L, idx, fn, "steps", f->steps);
  }
  if (f->position_tol && lx_opt_number(L, idx, fn, "position_tol", f->position_tol) &&
      (!(*f->position_tol > 0) || !isfinite(*f->position_tol))) {
    luaL_error(L, LMSG_SIMULATE_FIELD_POSITION_TOL_POSITIVE_FINITE, fn,
               lx_num(nb0, sizeof nb0, *f->position_tol));
  }
  if (f->max_newton && lx_opt_int(L, idx, fn, "max_newton", f->max_newton) &&
      *f->max_newton < 1) {
    luaL_error(L, LMSG_SIMULATE_FIELD_MAX_NEWTON_LEAST, fn, *f->max_newton);
  }
  if (f->steps && *f->steps < 1) {
    luaL_error(L, LMSG_SIMULATE_FIELD_STEPS_LEAST, fn, *f->steps);
  }
}

int l_sim_quiet(lua_State *L, int idx, const char *fn) {
  int t = lua_getfield(L, idx, "quiet");
  int quiet = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
    luaL_error(L, LMSG_SIMULATE_FIELD_QUIET_TRUE_FALSE, fn, lua_typename(L, t));
  }
  return quiet;
}

int l_sim_finish(lua_State *L, int owner, int rc, mbd_run *run, const mbd_error *err,
                 const char *kept, int name_empty, int quiet) {
  owner = lua_absindex(L, owner);
  int n = run ? mbd_run_nsample(run) : 0;
  // the run's note (a choice made for the user) and warnings, at the line of the call (a failed
  // run raises its error after them); quiet = true keeps them in run.note and run.warnings only
  if (run && !quiet && (mbd_run_warning(run, 0) || mbd_run_note(run))) {
    char pos[96];
    lx_where(L, pos, sizeof pos);
    if (mbd_run_note(run)) {
      fprintf(stderr, LMSG_NOTE_AT, pos, pos[0] ? ": " : "", mbd_run_note(run));
    }
    for (int i = 0; mbd_run_warning(run, i); i++) {
      fprintf(stderr, LMSG_WARNING_AT, pos, pos[0] ? ": " : "", mbd_run_warning(run, i));
    }
  }
  if (run) {
    // the run is returned and kept as owner.last_run, failed or not
    l_run_push(L, run);
    l_run_set_owner(L, -1, owner);
    lua_getiuservalue(L, owner, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "last_run");
    lua_pop(L, 1);
  }
  if (rc < 0) {
    // raised here, in the method the script called: luaL_error names the script's line
    if (run && (n > 0 || name_empty)) {
      return luaL_error(L, LMSG_SIMULATE_RUN_UP_T_KEPT, err->msg,
                        n > 0 ? mbd_run_times(run)[n - 1] : 0.0, kept);
    }
    return luaL_error(L, "%s", err->msg);
  }
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* m:simulate, m:kinematics                                                                    */

/* the formulations a model runs, by name */
static int model_formulation(lua_State *L, const char *name) {
  int k = mbd_formulation_from_name(name);
  if (k < 0) {
    char all[160];
    luaL_error(L, LMSG_SIMULATE_UNKNOWN_FORMULATION, name,
               mbd_formulation_names(all, sizeof all, 0));
  }
  return k;
}

/* after an engine run of the model at 1: its warnings, then the run or the error */
static int finish_model_run(lua_State *L, int rc, mbd_run *run, const mbd_error *err,
                            int quiet) {
  l_model_show_warnings(L, 1);
  return l_sim_finish(L, 1, rc, run, err, "model.last_run", 0, quiet);
}

/* stabilization = { alpha, beta, S, T } of the table at top into o; the S and T matrices stay
 * on the stack below that table, which is left on top */
static void read_stabilization(lua_State *L, mbd_sim_opts *o) {
  static const char *const sf[] = {"alpha", "beta", "S", "T", NULL};
  lx_check_fields(L, -1, "simulate: stabilization", sf);
  lx_opt_number(L, -1, "stabilization", "alpha", &o->alpha);
  lx_opt_number(L, -1, "stabilization", "beta", &o->beta);
  // udwadia_kalaba: full S, T over all constraint rows (paper 004 eq 26–27)
  int sidx = lua_gettop(L);
  for (int k = 0; k < 2; k++) {
    const char *key = k ? "T" : "S";
    if (lua_getfield(L, sidx, key) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    if (!mbd_formulation_has(o->formulation, MBD_FCAP_STAB_MATRICES)) {
      luaL_error(L, LMSG_SIMULATE_STABILIZATION_FORMULATION, key,
                 mbd_formulation_name(mbd_formulation_with(MBD_FCAP_STAB_MATRICES)));
    }
    int h = 0;
    if (lua_type(L, -1) == LUA_TNUMBER) {
      luaL_error(L, LMSG_SIMULATE_STABILIZATION_MATRIX_I, key, k ? "beta" : "alpha",
                 k ? "beta" : "alpha");
    }
    double *mat = lx_read_square(L, lua_gettop(L), "simulate: stabilization", key, 0, &h);
    lua_remove(L, -2);
    if (o->stab_n && h != o->stab_n) {
      luaL_error(L, LMSG_SIMULATE_STABILIZATION_S_T_SAME);
    }
    o->stab_n = h;
    if (k) {
      o->stab_T = mat;
    } else {
      o->stab_S = mat;
    }
    lua_insert(L, sidx);  // keep the matrix userdata alive below the table
    sidx++;
  }
}

int l_model_simulate(lua_State *L) {
  l_model_get(L, 1);
  static const char *const fields[] = {
      "t_end",    "formulation",  "integrator", "rtol",          "atol",         "step",
      "max_step", "position_tol", "max_newton", "stabilization", "output_every", "stop_when",
      "cut",      "solver",       "code",       "linear_solver", "quiet",        "max_order",
      NULL};
  lx_check_fields(L, 2, "simulate", fields);
  int quiet = l_sim_quiet(L, 2, "simulate");
  mbd_sim_opts o;
  mbd_sim_opts_default(&o);
  const l_sim_fields f = {.fn = "simulate",
                          .t_end = &o.t_end,
                          .formulation = &o.formulation,
                          .check = model_formulation,
                          .ode = &o.ode,
                          .output_every = &o.output_every,
                          .position_tol = &o.position_tol,
                          .max_newton = &o.max_newton};
  l_sim_read(L, 2, &f);
  // the formulation's own stabilization unless one is given (udwadia_kalaba: the plain
  // equation 5; relative: the paper's CVSM)
  if (mbd_formulation_has(o.formulation, MBD_FCAP_STABILIZED)) {
    o.alpha = mbd_formulation_info_of(o.formulation)->alpha;
    o.beta = mbd_formulation_info_of(o.formulation)->beta;
  }
  // relative joint coordinates (paper 002): cut, solver, code; the list of cut names stays on
  // the stack until the run returns
  l_relative_read(L, 2, &o);
  // the linear algebra: auto (by size), dense, sparse (Cartesian), recursive (relative: the
  // articulated-body recursion on the tree)
  const char *ls = lx_opt_string(L, 2, "simulate", "linear_solver");
  if (ls) {
    o.linear_solver = mbd_linear_solver_from_name(ls);
    if (o.linear_solver < 0) {
      luaL_error(L, LMSG_SIMULATE_UNKNOWN_LINEAR_SOLVER_AUTO_DENSE, ls);
    }
    char why[256];
    if (!mbd_formulation_takes(o.formulation, o.linear_solver, why, sizeof why)) {
      luaL_error(L, "%s", why);
    }
  }
  if (lua_getfield(L, 2, "stabilization") != LUA_TNIL) {
    read_stabilization(L, &o);
  }
  lua_pop(L, 1);
  // stop_when = function(t, state): the run ends where it crosses zero (root finding); its
  // record lives for this call only
  l_cb stop = {.owner = l_model_callbacks(L, 1), .kind = L_CB_STATE, .vref = LUA_NOREF,
               .aref = LUA_NOREF};
  stop.fnref = lx_opt_function(L, 2, "simulate", "stop_when");
  if (stop.fnref != LUA_NOREF) {
    char pos[96];
    lx_where(L, pos, sizeof pos);
    snprintf(stop.what, sizeof stop.what, "stop_when (%s)", pos);
    o.stop_fn = l_cb_state;
    o.stop_ud = &stop;
  }
  o.poll = l_poll_interrupt;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  lua_State *L_outer = l_model_callbacks(L, 1)->L;  // a run nested in a callback of this model
  mbd_model *m = l_model_enter(L, 1);
  // a Ctrl-C that came just before (the flag is cleared where an interrupt is raised) is heard
  int rc = mbd_simulate(m, &o, &run, &err);
  l_model_callbacks(L, 1)->L = mbd_model_running(m) ? L_outer : L;
  luaL_unref(L, LUA_REGISTRYINDEX, stop.fnref);
  // the manifest names what ran: the default formulation as it was resolved
  if (run && mbd_run_formulation_kind(run) >= 0) {
    o.formulation = mbd_run_formulation_kind(run);
  }
  l_manifest_simulate(run, m, &o, o.stop_fn != NULL);
  return finish_model_run(L, rc, run, &err, quiet);
}

int l_model_kinematics(lua_State *L) {
  l_model_get(L, 1);
  static const char *const fields[] = {"t_end",       "steps", "position_tol", "max_newton",
                                       "formulation", "cut",   "code",         "quiet", NULL};
  lx_check_fields(L, 2, "kinematics", fields);
  int quiet = l_sim_quiet(L, 2, "kinematics");
  mbd_kin_opts o;
  memset(&o, 0, sizeof o);
  o.steps = 100;
  const l_sim_fields f = {.fn = "kinematics",
                          .t_end = &o.t_end,
                          .steps = &o.steps,
                          .position_tol = &o.position_tol,
                          .max_newton = &o.max_newton};
  l_sim_read(L, 2, &f);
  l_relative_read_kin(L, 2, &o);  // formulation = "relative", cut, code (paper 002)
  o.poll = l_poll_interrupt;
  mbd_error err;
  mbd_error_clear(&err);
  mbd_run *run = NULL;
  lua_State *L_outer = l_model_callbacks(L, 1)->L;  // a run nested in a callback of this model
  mbd_model *m = l_model_enter(L, 1);
  int rc = mbd_kinematics(m, &o, &run, &err);
  l_model_callbacks(L, 1)->L = mbd_model_running(m) ? L_outer : L;
  l_manifest_kinematics(run, m, &o);
  return finish_model_run(L, rc, run, &err, quiet);
}
