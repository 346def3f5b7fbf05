/* the memory one large structure of a run may take (dense workspaces, the recorder, a symbolic
 * context, a sweep's results): Linux grants large allocations lazily and then ends the process
 * with an out-of-memory kill, so sizes are checked against this limit before allocating */
#include <stdlib.h>
#include <unistd.h>

#include "mbd/status.h"

/* physical memory of the machine, bytes (0 when unknown) */
static double physical_memory(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
#else
  return 0;
#endif
}

double mbd_memory_limit(void) {
  double limit = 0.25 * physical_memory();
  // MBD_MAX_WORKSPACE_GB lowers the limit (a shared machine, the fuzzer)
  const char *cap = getenv("MBD_MAX_WORKSPACE_GB");
  double gb = cap ? atof(cap) : 0;
  if (gb > 0 && (limit <= 0 || gb * 1e9 < limit)) {
    limit = gb * 1e9;
  }
  return limit;
}
