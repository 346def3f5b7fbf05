/* mbd — parallel map over forked worker processes (private to interp/) */
#ifndef MBD_L_PARALLEL_H
#define MBD_L_PARALLEL_H

#include <lua.h>
#include <stddef.h>

/* adds wall_clock(), parallel_map() and ncores() to the mbd table on top of the stack; pushes
 * nothing, returns 0 */
int mbd_open_parallel(lua_State *L);

/* the number of online cores (sysconf), at least 1 */
int mbd_ncores(void);

/* processes of a distributed run (the mbd program under mpirun: interp/mpi_run.c): parallel_map then
 * shares its points among the ranks and gathers the results to every rank */
typedef struct l_dist {
  int rank, size;  /* this process's rank, and how many there are */
  /* every rank's bytes concatenated in rank order into *all (malloc'd, the caller frees): 0, or
   * −1 on failure.  Collective: every rank calls it once per map. */
  int (*allgather)(const char *mine, size_t len, char **all, size_t *total);
} l_dist;

/* make the ranks known to the state's parallel_map (kept in the registry; d outlives L) */
void l_parallel_set_dist(lua_State *L, const l_dist *d);

#endif
