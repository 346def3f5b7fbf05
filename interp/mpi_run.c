/* the mbd program under mpirun: MPI's side of mbd.parallel_map (see mpi_run.h and l_parallel.h).
 * Every rank runs the whole script; a parallel map shares its points among the ranks (rank r
 * computes points r+1, r+1+size, …, in its own process) and gathers every rank's results to
 * every rank, so each holds the same result table as a local run and the script goes on the same
 * way on all of them. */
#include "mpi_run.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "l_msg.h"
#include "l_parallel.h"

#ifdef MBD_HAVE_MPI
#include <mpi.h>

static l_dist world;  /* the ranks of MPI_COMM_WORLD, once started (MPI's state is per process) */
static int started = 0;

/* every rank's bytes, concatenated in rank order, into *all (malloc'd) */
static int allgather(const char *mine, size_t len, char **all, size_t *total) {
  int size = world.size;
  if (len > (size_t)INT32_MAX) {
    return -1;
  }
  int n = (int)len;
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  if (!counts || !displs ||
      MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) {
    free(counts);
    free(displs);
    return -1;
  }
  long long sum = 0;
  for (int r = 0; r < size; r++) {
    displs[r] = (int)sum;
    sum += counts[r];
  }
  *all = sum <= INT32_MAX ? malloc(sum > 0 ? (size_t)sum : 1) : NULL;
  int rc = -1;
  if (*all && MPI_Allgatherv(mine, n, MPI_BYTE, *all, counts, displs, MPI_BYTE,
                             MPI_COMM_WORLD) == MPI_SUCCESS) {
    *total = (size_t)sum;
    rc = 0;
  }
  free(counts);
  free(displs);
  return rc;
}

int mbd_mpi_start(int *argc, char ***argv) {
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) {
    return 0;  // not started by a launcher: sweeps stay on local worker processes
  }
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    fprintf(stderr, LMSG_MPI_INIT);
    return -1;
  }
  started = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  world.allgather = allgather;
  // one voice: ranks above 0 run the same script, their standard output is dropped
  if (world.rank > 0) {
    fflush(stdout);
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      close(fd);
    }
  }
  return 1;
}

void mbd_mpi_attach(lua_State *L) {
  if (started) {
    l_parallel_set_dist(L, &world);
  }
}

void mbd_mpi_stop(int ok) {
  if (!started) {
    return;
  }
  fflush(stdout);
  fflush(stderr);
  if (ok) {
    MPI_Finalize();
  } else {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  started = 0;
}

#else

int mbd_mpi_start(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

void mbd_mpi_attach(lua_State *L) { (void)L; }

void mbd_mpi_stop(int ok) { (void)ok; }

#endif
