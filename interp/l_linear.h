/* mbd — m:equilibrium, m:linearize and the linearization's type mbd.Linear (private to interp/) */
#ifndef MBD_L_LINEAR_H
#define MBD_L_LINEAR_H

#include <lua.h>

/* m:equilibrium { formulation, tol, max_iterations, fixed = {joints}, cut, quiet } -> mbd.Run
 * with one sample at t = 0; the iterations, residual and stability in run.stats */
int l_model_equilibrium(lua_State *L);

/* m:linearize { at = run, t, formulation, method, inputs = {...}, outputs = {...},
 * steady = {...}, cut, quiet } -> mbd.Linear */
int l_model_linearize(lua_State *L);

/* registers the mbd.Linear metatable; pushes nothing, returns 0 */
int mbd_open_linear(lua_State *L);

#endif
