/* mbd — mbd.plot { series = {...} }: line plots of numbers computed in Lua (private to interp/) */
#ifndef MBD_L_PLOT_SERIES_H
#define MBD_L_PLOT_SERIES_H

#include <lua.h>

/* mbd.plot { series = { {x = {..}, y = {..}, label = ".."}, ... }, file, title, xlabel, ylabel,
 * width, height, equal_axes } with the table at 1: plots the given points; returns the file */
int l_plot_series(lua_State *L);

#endif
