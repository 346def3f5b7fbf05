/* the mbd.Model userdata and what every binding file reads of it: the engine model, its callbacks
 * set to run in the calling interpreter, its warnings shown once.  Apart from l_model.c (the
 * constructors and the method table, which points at the files implementing the methods) so that
 * those files call down here, not back up. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "l_model.h"
#include "l_msg.h"
#include "l_objects.h"

/* ------------------------------------------------------------------------------------------ */
/* model userdata                                                                              */

lmodel *l_model_check(lua_State *L, int idx) { return luaL_checkudata(L, idx, MODEL_MT); }

mbd_model *l_model_get(lua_State *L, int idx) { return l_model_check(L, idx)->m; }

mbd_model *l_model_enter(lua_State *L, int idx) {
  lmodel *lm = l_model_check(L, idx);
  lm->cbs.L = L;
  return lm->m;
}

struct l_cbset *l_model_callbacks(lua_State *L, int idx) {
  return &l_model_check(L, idx)->cbs;
}

/* warnings once per model (stderr): counted, never repeated */
void l_model_show_warnings(lua_State *L, int idx) {
  lmodel *lm = l_model_check(L, idx);
  for (int i = 0;; i++) {
    const char *w = mbd_model_warning(lm->m, i);
    if (!w) {
      break;
    }
    int seen = 0;
    for (int k = 0; k < lm->nprinted; k++) {
      if (strcmp(lm->printed[k], w) == 0) {
        seen = 1;
        break;
      }
    }
    if (!seen) {
      fprintf(stderr, LMSG_WARNING, w);
      if (lm->nprinted < 16) {
        snprintf(lm->printed[lm->nprinted++], sizeof lm->printed[0], "%s", w);
      }
    }
  }
}
