/* the manifest of a run (l_manifest.h): how it was made, set when the run ends so that every CSV
 * and figure made from it can say where it came from */
#include "l_manifest.h"

#include <lauxlib.h>
#include <stdio.h>
#include <time.h>

#include "l_mbd.h"
#include "mbd/describe.h"
#include "mbd/formulation.h"
#include "mbd/integrators.h"
#include "mbd/manifest.h"

#ifndef MBD_VERSION_STRING
#define MBD_VERSION_STRING "0.0.0"
#endif

/* the program's version (l_mbd.h) */
const char *mbd_version(void) { return MBD_VERSION_STRING; }

static void set_num(mbd_run *r, const char *key, double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.6g", v);
  mbd_run_set_manifest(r, key, buf);
}

/* program, lua and the model: the head of every manifest */
static void head(mbd_run *r, const char *model, const char *hash) {
  char buf[64];
  snprintf(buf, sizeof buf, "mbd %s", mbd_version());
  mbd_run_set_manifest(r, "program", buf);
  mbd_run_set_manifest(r, "lua", LUA_RELEASE);
  mbd_run_set_manifest(r, "model", model);
  if (hash) {
    mbd_run_set_manifest(r, "model_hash", hash);
  }
}

/* the date last: when the run ended, UTC */
static void tail(mbd_run *r) {
  char buf[32];
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) {
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    mbd_run_set_manifest(r, "date", buf);
  }
}

/* the integrator fields every dynamic run shares */
static void integration(mbd_run *r, const mbd_ode_opts *io, double t_end, double output_every,
                        int steps_too) {
  mbd_run_set_manifest(r, "integrator", mbd_integrator_name(io->kind));
  if (io->kind == MBD_INT_RK4) {
    set_num(r, "step", io->step);
  } else {
    set_num(r, "rtol", io->rtol);
    set_num(r, "atol", io->atol);
  }
  set_num(r, "t_end", t_end);
  if (output_every > 0 || !steps_too) {
    set_num(r, "output_every", output_every > 0 ? output_every : t_end / 500);
  } else {
    // the default: a grid and the accepted steps between (mbd_sim_opts.output_every)
    char buf[96];
    snprintf(buf, sizeof buf, "steps (at least every %.6g)", t_end / 500);
    mbd_run_set_manifest(r, "output_every", buf);
  }
  if (io->max_order > 0) {
    set_num(r, "max_order", io->max_order);
  }
}

void l_manifest_simulate(mbd_run *r, const mbd_model *m, const mbd_sim_opts *o, int stop_when) {
  if (!r) {
    return;
  }
  char hash[17];
  mbd_model_hash(m, hash);
  head(r, mbd_model_name(m), hash);
  mbd_run_set_manifest(r, "formulation", mbd_formulation_name(o->formulation));
  integration(r, &o->ode, o->t_end, o->output_every, 1);
  // the formulation's own keys (the table's manifest)
  const mbd_formulation_info *fi = mbd_formulation_info_of(o->formulation);
  unsigned keys = fi ? fi->manifest : 0;
  if (keys & MBD_FMAN_POSITION_TOL) {
    set_num(r, "position_tol", o->position_tol);
  }
  if (keys & MBD_FMAN_STABILIZATION) {
    char buf[96];
    if (o->stab_S || o->stab_T) {
      snprintf(buf, sizeof buf, "S, T matrices (%d x %d)", o->stab_n, o->stab_n);
    } else {
      snprintf(buf, sizeof buf, "alpha = %.6g, beta = %.6g", o->alpha, o->beta);
    }
    mbd_run_set_manifest(r, "stabilization", buf);
  }
  if (stop_when) {
    mbd_run_set_manifest(r, "stop_when", "a Lua function");
  }
  tail(r);
}

void l_manifest_kinematics(mbd_run *r, const mbd_model *m, const mbd_kin_opts *o) {
  if (!r) {
    return;
  }
  char hash[17];
  mbd_model_hash(m, hash);
  head(r, mbd_model_name(m), hash);
  mbd_run_set_manifest(r, "formulation", "kinematics");
  set_num(r, "t_end", o->t_end);
  set_num(r, "steps", o->steps);
  set_num(r, "position_tol", o->position_tol > 0 ? o->position_tol : 1e-10);
  tail(r);
}

void l_manifest_system(mbd_run *r, const mbd_system *s, const mbd_sys_opts *o) {
  if (!r) {
    return;
  }
  char hash[17];
  mbd_system_hash(s, hash);
  head(r, mbd_system_name(s), hash);
  mbd_run_set_manifest(r, "formulation", "udwadia_kalaba");
  integration(r, &o->ode, o->t_end, o->output_every, 0);
  tail(r);
}

void l_manifest_push(lua_State *L, const mbd_run *r) {
  int n = mbd_run_manifest_count(r);
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, mbd_run_manifest_value(r, i));
    lua_setfield(L, -2, mbd_run_manifest_key(r, i));
  }
}
