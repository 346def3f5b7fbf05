/* mbd — the mbd program under mpirun (interp/mpi_run.c): MPI started when the environment shows an
 * MPI launcher, the ranks made known to mbd.parallel_map (and so to mbd.sweep), MPI finished at
 * exit.  Built without MPI (not found by CMake), every function is a no-op and sweeps stay on
 * local worker processes. */
#ifndef MBD_MPI_RUN_H
#define MBD_MPI_RUN_H

#include <lua.h>

/* MPI_Init when started by an MPI launcher (OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMI_SIZE
 * and PMIX_RANK for others), before anything else of the program; ranks above 0 then write their
 * standard output to /dev/null (every rank runs the script; rank 0 speaks for them).  0 when not
 * under a launcher or built without MPI, 1 when started, −1 (a message on stderr) when MPI_Init
 * failed. */
int mbd_mpi_start(int *argc, char ***argv);

/* give the state's mbd.parallel_map the ranks (no-op when MPI was not started) */
void mbd_mpi_attach(lua_State *L);

/* MPI_Finalize at the end of a run that succeeded; MPI_Abort after a failure, so ranks waiting
 * for the failed one in a sweep do not wait forever.  No-op when not started. */
void mbd_mpi_stop(int ok);

#endif
