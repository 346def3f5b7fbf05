#!/usr/bin/env bash
# mbd.sweep over MPI: the CSV of `mpirun -np 2 mbd sweep_mpi.lua` must be byte for byte the CSV of
# the same sweep on local worker processes.  Skipped (exit 77, said on standard output) when
# mpirun is not installed (Debian's openmpi-bin) or the program was built without MPI.
#   sweep_mpi.sh MBD OUTDIR WITH_MPI(0|1)
set -u
mbd=$1 out=$2 with_mpi=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ "$with_mpi" != 1 ]; then
  echo "SKIPPED: mbd was built without MPI (libopenmpi-dev not found): sweeps stay local"
  exit 77
fi
if ! command -v mpirun > /dev/null 2>&1; then
  echo "SKIPPED: mpirun not found (install openmpi-bin): the MPI sweep is not tested"
  exit 77
fi
mkdir -p "$out"
local_csv="$out/sweep_local.csv" mpi_csv="$out/sweep_mpi.csv"
rm -f "$local_csv" "$mpi_csv"
"$mbd" "$here/sweep_mpi.lua" "$local_csv" 1 || { echo "FAILED: the local sweep"; exit 1; }
# as root OpenMPI needs --allow-run-as-root; two ranks on a machine of fewer cores: --oversubscribe
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
# (under the sanitizers: OpenMPI's plugins, unloaded at MPI_Finalize, leave allocations that
# LeakSanitizer reports and cannot attribute; the leak check stays on for the local sweep above)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
  mpirun "${flags[@]}" -np 2 "$mbd" "$here/sweep_mpi.lua" "$mpi_csv" 2 ||
  { echo "FAILED: the sweep under mpirun -np 2"; exit 1; }
if ! cmp "$local_csv" "$mpi_csv"; then
  echo "FAILED: the CSV of the MPI sweep differs from the local one"
  diff "$local_csv" "$mpi_csv" | head -20
  exit 1
fi
echo "ok: mpirun -np 2 wrote the same CSV as the local sweep ($(wc -l < "$mpi_csv") lines)"
