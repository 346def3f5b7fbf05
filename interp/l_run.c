/* Lua binding of runs (DSL.md "Running") and of mbd.plot: the mbd.Run userdata (methods value,
 * series, write_csv; fields channels, stats, ok, error, formulation, integrator, t_end, samples,
 * E1, E2) and the line and heatmap plots (l_run.h) */
#include "l_run.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_animate.h"
#include "l_manifest.h"
#include "l_msg.h"
#include "l_plot_series.h"
#include "l_util.h"
#include "mbd/manifest.h"
#include "mbd/output.h"

static int l_run_gc(lua_State *L) {
  lrun *lr = luaL_checkudata(L, 1, RUN_MT);
  mbd_run_free(lr->r);
  lr->r = NULL;
  return 0;
}

/* a channel index or an error naming the channel and where to find the list */
static int check_channel(lua_State *L, mbd_run *r, int idx, const char *fn) {
  const char *name = luaL_checkstring(L, idx);
  int c = mbd_run_find(r, name);
  if (c < 0) {
    luaL_error(L, LMSG_RUN_CHANNEL_RUN_CHANNELS_LISTS, fn, name);
  }
  return c;
}

/* run:value(name, t) */
static int l_run_value(lua_State *L) {
  mbd_run *r = l_run_check(L, 1);
  int c = check_channel(L, r, 2, "value");
  double t = luaL_checknumber(L, 3);
  int ok = 0;
  double v = mbd_run_value(r, c, t, &ok);
  if (!ok) {
    int n = mbd_run_nsample(r);
    return luaL_error(L, LMSG_RUN_VALUE_T_OUTSIDE_RECORDED, t, n ? mbd_run_times(r)[n - 1] : 0.0);
  }
  lua_pushnumber(L, v);
  return 1;
}

/* run:series(name) → times, values (two arrays) */
static int l_run_series(lua_State *L) {
  mbd_run *r = l_run_check(L, 1);
  int c = check_channel(L, r, 2, "series");
  int n = mbd_run_nsample(r);
  const double *t = mbd_run_times(r);
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, t[i]);
    lua_rawseti(L, -3, i + 1);
    lua_pushnumber(L, mbd_run_sample(r, c, i));
    lua_rawseti(L, -2, i + 1);
  }
  return 2;
}

/* run:write_csv(file, {names}) */
static int l_run_write_csv(lua_State *L) {
  mbd_run *r = l_run_check(L, 1);
  const char *file = luaL_checkstring(L, 2);
  const char **names = NULL;
  int nn = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    nn = (int)luaL_len(L, 3);
    names = lua_newuserdatauv(L, sizeof(char *) * (size_t)(nn ? nn : 1), 0);  // GC-owned
    for (int i = 0; i < nn; i++) {
      lua_geti(L, 3, i + 1);
      names[i] = lua_tostring(L, -1);
      if (!names[i]) {
        return luaL_error(L, LMSG_RUN_WRITE_CSV_CHANNEL_NAMES_STRINGS);
      }
      if (mbd_run_find(r, names[i]) < 0) {
        return luaL_error(L, LMSG_RUN_WRITE_CSV_CHANNEL, names[i]);
      }
      lua_pop(L, 1);  // the table keeps the string alive
    }
  }
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_run_write_csv(r, file, names, nn, &err) < 0) {
    return luaL_error(L, LMSG_RUN_WRITE_CSV, err.msg);
  }
  lua_pushvalue(L, 1);
  return 1;
}

static void push_stats(lua_State *L, mbd_run *r) {
  const mbd_run_stats *s = mbd_run_get_stats(r);
  lua_newtable(L);
#define NUM(k)               \
  lua_pushnumber(L, s->k);   \
  lua_setfield(L, -2, #k)
#define INT(k)               \
  lua_pushinteger(L, s->k);  \
  lua_setfield(L, -2, #k)
  NUM(wall_time);
  NUM(cpu_time);
  INT(nfev);
  INT(sample_evaluations);
  INT(samples_reused);
  INT(steps);
  INT(rejected);
  NUM(avg_step);
  INT(newton_iterations);
  NUM(max_position_violation);
  NUM(max_velocity_violation);
  INT(repartitions);
  INT(lu_factorizations);
  INT(singular_evaluations);
  INT(singular_passages);
  INT(contact_iterations);
  INT(stick_events);
  INT(slip_events);
  INT(separations);
  INT(impacts);
  // relative (paper 002): generated code
  lua_pushstring(L, mbd_code_name(s->code) ? mbd_code_name(s->code) : "numeric");
  lua_setfield(L, -2, "code");
  NUM(derive_time);
  NUM(compile_time);
  lua_pushboolean(L, s->cache_hit);
  lua_setfield(L, -2, "cache_hit");
  // the linear solver that ran ("dense", "sparse", "recursive") and the sparse one's symbolic
  // analyses
  if (s->linear_solver) {
    lua_pushstring(L, mbd_linear_solver_name(s->linear_solver));
    lua_setfield(L, -2, "linear_solver");
  }
  INT(symbolic_analyses);
  // a static equilibrium (m:equilibrium): its Newton iterations, the generalized force left and
  // the coordinate it is on, the verdict on stability and the least ω² of the reduced K, M
  if (strcmp(mbd_run_integrator(r), "equilibrium") == 0) {
    INT(iterations);
    NUM(residual);
    lua_pushstring(L, s->residual_coord);
    lua_setfield(L, -2, "residual_coordinate");
    lua_pushboolean(L, s->stable);
    lua_setfield(L, -2, "stable");
    NUM(min_omega2);
  }
#undef NUM
#undef INT
}

static const luaL_Reg run_methods[] = {{"animate", l_run_animate},
                                       {"series", l_run_series},
                                       {"value", l_run_value},
                                       {"write_csv", l_run_write_csv},
                                       {NULL, NULL}};

/* the fields of run.<key> once the methods are looked up: channels, stats, ok, error,
 * formulation, integrator, t_end, stop_time, samples, events, warnings, note, E1, E2 */
static int l_run_fields(lua_State *L) {
  mbd_run *r = l_run_check(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "channels") == 0) {
    int n = mbd_run_nchannel(r);
    lua_createtable(L, n, 0);
    for (int c = 0; c < n; c++) {
      lua_pushstring(L, mbd_run_channel_name(r, c));
      lua_rawseti(L, -2, c + 1);
    }
  } else if (strcmp(k, "stats") == 0) {
    push_stats(L, r);
  } else if (strcmp(k, "ok") == 0) {
    lua_pushboolean(L, mbd_run_status(r) >= 0);
  } else if (strcmp(k, "error") == 0) {
    if (mbd_run_status(r) < 0) {
      lua_pushstring(L, mbd_run_message(r));
    } else {
      lua_pushnil(L);
    }
  } else if (strcmp(k, "formulation") == 0) {
    lua_pushstring(L, mbd_run_formulation(r));
  } else if (strcmp(k, "integrator") == 0) {
    lua_pushstring(L, mbd_run_integrator(r));
  } else if (strcmp(k, "t_end") == 0) {
    lua_pushnumber(L, mbd_run_t_end(r));
  } else if (strcmp(k, "stop_time") == 0) {
    // where stop_when ended the run, nil when it did not
    double ts = mbd_run_stop_time(r);
    if (ts == ts) {
      lua_pushnumber(L, ts);
    } else {
      lua_pushnil(L);
    }
  } else if (strcmp(k, "manifest") == 0) {
    // how the run was made (l_manifest.c)
    l_manifest_push(L, r);
  } else if (strcmp(k, "model") == 0) {
    // the model or system that made the run
    l_run_push_owner(L, 1);
  } else if (strcmp(k, "warnings") == 0) {
    lua_newtable(L);
    for (int i = 0; mbd_run_warning(r, i); i++) {
      lua_pushstring(L, mbd_run_warning(r, i));
      lua_rawseti(L, -2, i + 1);
    }
  } else if (strcmp(k, "note") == 0) {
    // a choice the run made for the user (the default formulation's fallback), nil when none
    const char *note = mbd_run_note(r);
    if (note) {
      lua_pushstring(L, note);
    } else {
      lua_pushnil(L);
    }
  } else if (strcmp(k, "samples") == 0) {
    lua_pushinteger(L, mbd_run_nsample(r));
  } else if (strcmp(k, "events") == 0) {
    // contact events in time order: {t = , contact = , kind = "stick" | "slip" | "separate" |
    // "impact"}
    int ne = mbd_run_nevent(r);
    lua_createtable(L, ne, 0);
    for (int i = 0; i < ne; i++) {
      double t = 0;
      const char *contact = NULL, *kind = NULL;
      mbd_run_event(r, i, &t, &contact, &kind);
      lua_createtable(L, 0, 3);
      lua_pushnumber(L, t);
      lua_setfield(L, -2, "t");
      lua_pushstring(L, contact);
      lua_setfield(L, -2, "contact");
      lua_pushstring(L, kind);
      lua_setfield(L, -2, "kind");
      lua_rawseti(L, -2, i + 1);
    }
  } else if (strcmp(k, "E1") == 0 || strcmp(k, "E2") == 0) {
    // paper 004's RMS errors per constraint (mbd.system runs; empty for models)
    int ne = mbd_run_nerrors(r);
    lua_createtable(L, ne, 0);
    for (int i = 0; i < ne; i++) {
      lua_pushnumber(L, k[1] == '1' ? mbd_run_E1(r, i) : mbd_run_E2(r, i));
      lua_rawseti(L, -2, i + 1);
    }
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int l_run_tostring(lua_State *L) {
  mbd_run *r = l_run_check(L, 1);
  const mbd_run_stats *s = mbd_run_get_stats(r);
  int n = mbd_run_nsample(r);
  double tl = n ? mbd_run_times(r)[n - 1] : 0;
  char buf[1024];
  if (strcmp(mbd_run_integrator(r), "equilibrium") == 0) {
    // m:equilibrium: one sample
    snprintf(buf, sizeof buf,
             "mbd.Run equilibrium (%s): %d channels at t = 0; %ld iterations, residual %.3g on "
             "'%s', %s%s%s",
             mbd_run_formulation(r), mbd_run_nchannel(r), s->iterations, s->residual,
             s->residual_coord, mbd_run_status(r) < 0 ? "not found" : s->stable ? "stable" : "unstable",
             mbd_run_status(r) < 0 ? "\n  FAILED: " : "",
             mbd_run_status(r) < 0 ? mbd_run_message(r) : "");
  } else if (strcmp(mbd_run_formulation(r), "kinematics") == 0) {
    snprintf(buf, sizeof buf,
             "mbd.Run kinematics: t = 0 .. %g s, %d samples, %d channels; %ld Newton iterations, "
             "max violation %.3g",
             tl, n, mbd_run_nchannel(r), s->newton_iterations, s->max_position_violation);
  } else {
    // a sparse or recursive solve is named; the dense one (small models, the default) is not
    snprintf(buf, sizeof buf,
             "mbd.Run %s + %s%s: t = 0 .. %g s, %d samples, %d channels; %ld steps, %ld rhs "
             "evaluations, cpu %.3g s, max violation %.3g%s%s",
             mbd_run_formulation(r), mbd_run_integrator(r),
             s->linear_solver == MBD_LINSOLVE_SPARSE      ? " (sparse)"
             : s->linear_solver == MBD_LINSOLVE_RECURSIVE ? " (recursive)"
                                                          : "",
             tl, n, mbd_run_nchannel(r), s->steps, s->nfev, s->cpu_time, s->max_position_violation,
             mbd_run_status(r) < 0 ? "\n  FAILED: " : "",
             mbd_run_status(r) < 0 ? mbd_run_message(r) : "");
  }
  lua_pushstring(L, buf);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* mbd.plot { run = r | runs = {r1, r2}, labels = {..}, y = {"a", "b"} | "a", x = "t" | channel,
 *            file = "out.png", title, xlabel, ylabel, width, height, equal_axes }              */

typedef struct plot_buf {
  mbd_plot_series *series;
  double *data;
} plot_buf;

/* a list of n numbers at field key of table 1, as a GC-owned buffer on the stack */
static double *num_list(lua_State *L, const char *key, int *n) {
  if (lua_getfield(L, 1, key) != LUA_TTABLE) {
    luaL_error(L, LMSG_RUN_PLOT_FIELD_LIST_NUMBERS, key, lx_typename(L, -1));
  }
  int len = (int)luaL_len(L, -1);
  double *v = lua_newuserdatauv(L, sizeof(double) * (size_t)(len ? len : 1), 0);
  if (lx_read_numbers(L, lua_gettop(L) - 1, v, len) != len) {
    luaL_error(L, LMSG_RUN_PLOT_FIELD_ENTRY_NUMBER, key);
  }
  lua_remove(L, -2);
  *n = len;
  return v;
}

/* mbd.plot { kind = "heatmap", x = {..}, y = {..}, z = {{..}, ..} (z[j][i] at x[i], y[j]) or a flat
 *            list (x fastest), file, title, xlabel, ylabel, zlabel, contours = n, log = bool,
 *            width, height } */
static int l_plot_heatmap(lua_State *L) {
  static const char *const fields[] = {"kind",   "x",     "y",        "z",   "file",  "title",
                                       "xlabel", "ylabel", "zlabel", "contours", "log",
                                       "width",  "height", NULL};
  lx_check_fields(L, 1, "plot", fields);
  mbd_plot_heatmap_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.file = lx_opt_string(L, 1, "plot", "file");
  if (!spec.file) {
    return luaL_error(L, LMSG_PLOT_MISSING_FIELD_FILE_PNG);
  }
  double *x = num_list(L, "x", &spec.nx), *y = num_list(L, "y", &spec.ny);
  int nx = spec.nx, ny = spec.ny;
  if (nx < 1 || ny < 1) {
    return luaL_error(L, LMSG_RUN_PLOT_HEATMAP_NEEDS_NON);
  }
  double *z = lua_newuserdatauv(L, sizeof(double) * (size_t)nx * (size_t)ny, 0);
  if (lua_getfield(L, 1, "z") != LUA_TTABLE) {
    return luaL_error(L, LMSG_RUN_PLOT_FIELD_Z_MATRIX, lx_typename(L, -1));
  }
  int zi = lua_gettop(L);
  lua_geti(L, zi, 1);
  int nested = lua_type(L, -1) == LUA_TTABLE;
  lua_pop(L, 1);
  if (nested) {
    if ((int)luaL_len(L, zi) != ny) {
      return luaL_error(L, LMSG_RUN_PLOT_FIELD_Z_ROWS, ny, (int)luaL_len(L, zi));
    }
    for (int j = 0; j < ny; j++) {
      lua_geti(L, zi, j + 1);
      if (lx_read_numbers(L, lua_gettop(L), z + (size_t)j * nx, nx) != nx) {
        return luaL_error(L, LMSG_RUN_PLOT_FIELD_Z_ROW, j + 1, nx);
      }
      lua_pop(L, 1);
    }
  } else if (lx_read_numbers(L, zi, z, nx * ny) != nx * ny) {
    return luaL_error(L, LMSG_RUN_PLOT_FIELD_Z_NUMBERS, nx * ny);
  }
  spec.x = x;
  spec.y = y;
  spec.z = z;
  lx_plot_frame(L, 1, &spec.title, &spec.xlabel, &spec.ylabel, &spec.width, &spec.height);
  spec.zlabel = lx_opt_string(L, 1, "plot", "zlabel");
  lx_opt_int(L, 1, "plot", "contours", &spec.ncontour);
  lx_opt_flag(L, 1, "log", &spec.log_scale);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_plot_heatmap(&spec, &err) < 0) {
    return luaL_error(L, "%s", err.msg);  // the engine names "plot"
  }
  lua_pushstring(L, spec.file);
  return 1;
}

/* the manifests of the plotted runs as the figure's metadata: the keys of one run as they are,
 * of several runs as "run<i>.<key>".  The arrays and strings stay on the Lua stack (two values)
 * until the figure is written. */
static void plot_meta(lua_State *L, int runs_idx, int nruns, mbd_plot_meta *meta) {
  int total = 0;
  for (int i = 1; i <= nruns; i++) {
    lua_rawgeti(L, runs_idx, i);
    total += mbd_run_manifest_count(l_run_check(L, -1));
    lua_pop(L, 1);
  }
  const char **keys = lua_newuserdatauv(L, 2 * sizeof(char *) * (size_t)(total + 1), 0);
  const char **values = keys + total + 1;
  lua_newtable(L);  // the "run<i>.<key>" strings, kept alive here
  int k = 0;
  for (int i = 1; i <= nruns; i++) {
    lua_rawgeti(L, runs_idx, i);
    const mbd_run *r = l_run_check(L, -1);
    lua_pop(L, 1);  // runs_idx keeps the run alive
    for (int e = 0; e < mbd_run_manifest_count(r); e++, k++) {
      if (nruns > 1) {
        keys[k] = lua_pushfstring(L, "run%d.%s", i, mbd_run_manifest_key(r, e));
        lua_rawseti(L, -2, k + 1);
      } else {
        keys[k] = mbd_run_manifest_key(r, e);
      }
      values[k] = mbd_run_manifest_value(r, e);
    }
  }
  meta->keys = keys;
  meta->values = values;
  meta->n = total;
}

/* the label of a plot's axis for the channels list[1..n] (a table at index list, the names
 * strings), pushed: "crank.theta [rad]"; channels of one unit share it ("O.fx, O.fy [N]"), channels
 * of several each carry theirs ("disk.x [m], disk.theta [rad]"); a channel without a unit is its
 * name alone.  A long list keeps only the units ("[N]").  Returns the label. */
static const char *axis_label(lua_State *L, const mbd_run *r, int list, int n) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char *first_unit = NULL;
  int same = 1;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    const char *u = mbd_run_channel_unit(r, mbd_run_find(r, lua_tostring(L, -1)));
    lua_pop(L, 1);
    if (i == 1) {
      first_unit = u;
    } else if (strcmp(u, first_unit) != 0) {
      same = 0;
    }
  }
  size_t len = 0;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    const char *name = lua_tostring(L, -1);
    const char *u = mbd_run_channel_unit(r, mbd_run_find(r, name));
    lua_pop(L, 1);
    len += strlen(name) + strlen(u) + 5;
    if (i > 1) {
      luaL_addstring(&b, ", ");
    }
    luaL_addstring(&b, name);
    if (*u && (!same || i == n)) {
      luaL_addstring(&b, " [");
      luaL_addstring(&b, u);
      luaL_addstring(&b, "]");
    }
  }
  luaL_pushresult(&b);
  if (len > 60 && same && *first_unit) {
    lua_pop(L, 1);
    lua_pushfstring(L, "[%s]", first_unit);
  } else if (len > 60) {
    lua_pop(L, 1);
    lua_pushliteral(L, "");
  }
  return lua_tostring(L, -1);
}

static int l_plot(lua_State *L) {
  // series = {...}: curves of numbers computed in the script (l_plot_series.c)
  if (lua_type(L, 1) == LUA_TTABLE && lx_has(L, 1, "series")) {
    return l_plot_series(L);
  }
  if (lua_type(L, 1) == LUA_TTABLE && lua_getfield(L, 1, "kind") == LUA_TSTRING &&
      strcmp(lua_tostring(L, -1), "heatmap") == 0) {
    lua_pop(L, 1);
    return l_plot_heatmap(L);
  }
  lua_settop(L, 1);
  static const char *const fields[] = {"run",    "runs",  "labels", "y",     "x",
                                       "file",   "title", "xlabel", "ylabel", "width",
                                       "height", "equal_axes", "kind", "log_y", NULL};
  lx_check_fields(L, 1, "plot", fields);
  const char *kind = lx_opt_string(L, 1, "plot", "kind");
  if (kind && strcmp(kind, "lines") != 0) {
    // other kinds (heatmap) are provided by the stdlib wrapper when available
    return luaL_error(L, LMSG_RUN_PLOT_UNKNOWN_KIND_LINES, kind);
  }
  const char *file = lx_opt_string(L, 1, "plot", "file");
  if (!file) {
    return luaL_error(L, LMSG_PLOT_MISSING_FIELD_FILE_PNG);
  }
  // the runs: run = r or runs = {r1, r2, ...}
  int nruns = 0;
  lua_newtable(L);
  int runs_idx = lua_gettop(L);
  if (lua_getfield(L, 1, "run") != LUA_TNIL) {
    if (!luaL_testudata(L, -1, RUN_MT)) {
      return luaL_error(L, LMSG_RUN_PLOT_FIELD_RUN_MBD, lx_typename(L, -1));
    }
    lua_rawseti(L, runs_idx, ++nruns);
  } else {
    lua_pop(L, 1);
  }
  if (lua_getfield(L, 1, "runs") != LUA_TNIL) {
    luaL_checktype(L, -1, LUA_TTABLE);
    int n = (int)luaL_len(L, -1);
    for (int i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      if (!luaL_testudata(L, -1, RUN_MT)) {
        return luaL_error(L, LMSG_RUN_PLOT_RUNS_MBD_RUN, i);
      }
      lua_rawseti(L, runs_idx, ++nruns);
    }
  }
  lua_pop(L, 1);
  if (nruns == 0) {
    return luaL_error(L, LMSG_RUN_PLOT_MISSING_FIELD_RUN);
  }
  // y channels: a string or a list
  lua_newtable(L);
  int y_idx = lua_gettop(L);
  int ny = 0;
  int t = lua_getfield(L, 1, "y");
  if (t == LUA_TSTRING) {
    lua_rawseti(L, y_idx, ++ny);
  } else if (t == LUA_TTABLE) {
    int n = (int)luaL_len(L, -1);
    for (int i = 1; i <= n; i++) {
      if (lua_geti(L, -1, i) != LUA_TSTRING) {
        return luaL_error(L, LMSG_RUN_PLOT_Y_CHANNEL_NAME, i);
      }
      lua_rawseti(L, y_idx, ++ny);
    }
    lua_pop(L, 1);
  } else {
    return luaL_error(L, LMSG_RUN_PLOT_FIELD_Y_CHANNEL);
  }
  if (ny == 0) {
    return luaL_error(L, LMSG_RUN_PLOT_FIELD_Y_EMPTY);
  }
  const char *xname = lx_opt_string(L, 1, "plot", "x");
  int use_t = !xname || strcmp(xname, "t") == 0;
  int ns = nruns * ny;
  // all buffers in one GC-owned block so an error below leaks nothing
  size_t total = 0;
  for (int i = 1; i <= nruns; i++) {
    lua_rawgeti(L, runs_idx, i);
    total += (size_t)mbd_run_nsample(l_run_check(L, -1)) * 2 * (size_t)ny;
    lua_pop(L, 1);
  }
  mbd_plot_series *series = lua_newuserdatauv(L, sizeof *series * (size_t)ns, 0);
  double *data = lua_newuserdatauv(L, sizeof(double) * (total ? total : 1), 0);
  lua_newtable(L);  // label strings kept alive here
  int lab_idx = lua_gettop(L);
  int has_labels = lua_getfield(L, 1, "labels") == LUA_TTABLE;
  int labels_idx = lua_gettop(L);
  size_t off = 0;
  int k = 0;
  for (int i = 1; i <= nruns; i++) {
    lua_rawgeti(L, runs_idx, i);
    mbd_run *r = l_run_check(L, -1);
    int n = mbd_run_nsample(r);
    int xc = -1;
    if (!use_t) {
      xc = mbd_run_find(r, xname);
      if (xc < 0) {
        return luaL_error(L, LMSG_RUN_PLOT_CHANNEL_RUN, xname, i);
      }
    }
    for (int j = 1; j <= ny; j++, k++) {
      lua_rawgeti(L, y_idx, j);
      const char *yname = lua_tostring(L, -1);
      int yc = mbd_run_find(r, yname);
      if (yc < 0) {
        return luaL_error(L, LMSG_RUN_PLOT_CHANNEL_RUN_RUN, yname, i);
      }
      double *xs = data + off, *ys = data + off + n;
      off += 2 * (size_t)n;
      if (use_t) {
        memcpy(xs, mbd_run_times(r), sizeof(double) * (size_t)n);
      } else {
        mbd_run_series(r, xc, xs);
      }
      mbd_run_series(r, yc, ys);
      // label: "<label of run>: <channel>" or the channel alone
      if (has_labels && lua_geti(L, labels_idx, i) == LUA_TSTRING) {
        if (ny > 1) {
          lua_pushfstring(L, "%s: %s", lua_tostring(L, -1), yname);
          lua_remove(L, -2);
        }
      } else {
        if (has_labels) {
          lua_pop(L, 1);
        }
        if (nruns > 1) {
          lua_pushfstring(L, "%s (%s)", yname, mbd_run_formulation(r));
        } else {
          lua_pushstring(L, yname);
        }
      }
      series[k].label = lua_tostring(L, -1);
      lua_rawseti(L, lab_idx, k + 1);
      series[k].x = xs;
      series[k].y = ys;
      series[k].n = n;
      lua_pop(L, 1);  // yname
    }
    lua_pop(L, 1);  // run
  }
  mbd_plot_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.file = file;
  spec.title = lx_opt_string(L, 1, "plot", "title");
  // axis labels: the channels with their units (from the first run; the label strings are kept
  // alive in lab_idx)
  lua_rawgeti(L, runs_idx, 1);
  const mbd_run *r1 = l_run_check(L, -1);
  lua_pop(L, 1);
  spec.xlabel = lx_opt_string(L, 1, "plot", "xlabel");
  if (!spec.xlabel) {
    if (use_t) {
      spec.xlabel = "t [s]";
    } else {
      lua_createtable(L, 1, 0);
      lua_pushstring(L, xname);
      lua_rawseti(L, -2, 1);
      spec.xlabel = axis_label(L, r1, lua_gettop(L), 1);
      lua_rawseti(L, lab_idx, ++k);
      lua_pop(L, 1);
    }
  }
  spec.ylabel = lx_opt_string(L, 1, "plot", "ylabel");
  if (!spec.ylabel) {
    spec.ylabel = axis_label(L, r1, y_idx, ny);
    lua_rawseti(L, lab_idx, ++k);
  }
  spec.series = series;
  spec.nseries = ns;
  lx_opt_int(L, 1, "plot", "width", &spec.width);
  lx_opt_int(L, 1, "plot", "height", &spec.height);
  lx_opt_flag(L, 1, "equal_axes", &spec.equal_axes);
  lx_opt_flag(L, 1, "log_y", &spec.log_y);
  // the runs' manifests go into the figure before it reaches its name
  mbd_plot_meta meta;
  plot_meta(L, runs_idx, nruns, &meta);
  spec.meta = &meta;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_plot_lines(&spec, &err) < 0) {
    return luaL_error(L, "%s", err.msg);  // the engine names "plot"
  }
  lua_pop(L, 2);
  lua_pushstring(L, file);
  return 1;
}

int mbd_open_run(lua_State *L) {
  luaL_newmetatable(L, RUN_MT);
  lx_set_index(L, run_methods, l_run_fields);
  lua_pushcfunction(L, l_run_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, l_run_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_plot);
  lua_setfield(L, -2, "plot");
  return 0;
}
