#!/bin/sh
# run_compare.sh MBD SCRIPT EXPECTED [ARGS...]: run SCRIPT with the mbd program MBD in the current
# folder, its figures written into the relative folder "out" (so the paths it prints read "out/..."),
# ARGS after that (e.g. "quick"),
# keep its standard output as NAME.actual (NAME from EXPECTED, NAME.out), then compare that with
# EXPECTED by compare.lua, run by MBD itself.  Exit 0 when the script succeeds and its output
# matches.
mbd=$1
script=$2
expected=$3
shift 3
here=$(dirname "$0")
name=$(basename "$expected" .out)
"$mbd" "$script" out "$@" >"$name.actual"
status=$?
if [ "$status" -ne 0 ]; then
  echo "$script exited with status $status"
  exit 1
fi
exec "$mbd" "$here/compare.lua" "$expected" "$name.actual"
