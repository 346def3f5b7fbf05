/* mbd.plot { series = {...} }: curves given as lists of numbers rather than run channels — a
 * quantity computed in a script (an acceleration by differences, a locus in a moving frame) plotted
 * like the channels of a run (engine: mbd_plot_lines). */
#include "l_plot_series.h"

#include <lauxlib.h>
#include <string.h>

#include "l_msg.h"
#include "l_util.h"
#include "mbd/output.h"

int l_plot_series(lua_State *L) {
  lua_settop(L, 1);
  static const char *const fields[] = {"series", "file",   "title",      "xlabel", "ylabel",
                                       "width",  "height", "equal_axes", NULL};
  lx_check_fields(L, 1, "plot", fields);
  const char *file = lx_opt_string(L, 1, "plot", "file");
  if (!file) {
    return luaL_error(L, LMSG_PLOT_MISSING_FIELD_FILE_PNG);
  }
  lua_getfield(L, 1, "series");
  luaL_argexpected(L, lua_istable(L, 2), 1, "series = { {x = {..}, y = {..}}, ... }");
  int ns = (int)luaL_len(L, 2);
  if (ns < 1) {
    return luaL_error(L, LMSG_PLOT_FIELD_SERIES_EMPTY);
  }
  // every curve's numbers in GC-owned blocks (an error below leaks nothing), kept alive by the
  // anchor table at 4 with the labels
  mbd_plot_series *series = lua_newuserdatauv(L, sizeof *series * (size_t)ns, 0);
  lua_newtable(L);
  for (int k = 0; k < ns; k++) {
    if (lua_geti(L, 2, k + 1) != LUA_TTABLE) {
      return luaL_error(L, LMSG_PLOT_SERIES_TABLE_X_Y, k + 1);
    }
    int s = lua_gettop(L);
    static const char *const sf[] = {"x", "y", "label", NULL};
    lx_check_fields(L, s, "plot: series", sf);
    lua_getfield(L, s, "x");
    lua_getfield(L, s, "y");
    if (!lua_istable(L, -2) || !lua_istable(L, -1) || luaL_len(L, -2) != luaL_len(L, -1)) {
      return luaL_error(L, LMSG_PLOT_SERIES_NEEDS_LISTS_X, k + 1);
    }
    int n = (int)luaL_len(L, -1);
    double *xy = lua_newuserdatauv(L, sizeof(double) * 2 * (size_t)(n ? n : 1), 0);
    if (lx_read_numbers(L, s + 1, xy, n) != n || lx_read_numbers(L, s + 2, xy + n, n) != n) {
      return luaL_error(L, LMSG_PLOT_SERIES_X_Y_HOLD, k + 1);
    }
    series[k].x = xy;
    series[k].y = xy + n;
    series[k].n = n;
    series[k].label = lx_opt_string(L, s, "plot: series", "label");
    lua_rawseti(L, 4, 2 * k + 1);  // the numbers
    lua_pop(L, 2);                 // x, y lists
    lua_rawseti(L, 4, 2 * k + 2);  // the series table (it holds the label)
  }
  mbd_plot_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.file = file;
  spec.series = series;
  spec.nseries = ns;
  lx_plot_frame(L, 1, &spec.title, &spec.xlabel, &spec.ylabel, &spec.width, &spec.height);
  lx_opt_flag(L, 1, "equal_axes", &spec.equal_axes);
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_plot_lines(&spec, &err) < 0) {
    return luaL_error(L, "%s", err.msg);  // the engine names "plot" and the file
  }
  lua_pushstring(L, file);
  return 1;
}
