#!/bin/sh
# Benchmark (issue 24, item 3): peak memory (the maximum resident set of /usr/bin/time -v) of the
# recursive solve of relative joint coordinates on long chains, then its time per evaluation
# beside the hand-written articulated-body program (aba_hand.lua: ratio and growth exponent).
#   scripts/bench/large.sh [BUILD]          (BUILD: the Release build folder, default build)
B=${1:-build}
here=$(dirname "$0")
for run in "planar 2048" "planar 8192" "spherical 1024" "spherical 2048" "spherical 4096"; do
  /usr/bin/time -v "$B/interp/mbd" "$here/large.lua" $run 0.01 2>"${TMPDIR:-/tmp}/large.$$" |
    tr '\n' ' '
  grep "Maximum resident" "${TMPDIR:-/tmp}/large.$$" | awk '{printf "peak RSS %.0f MB\n", $6 / 1024}'
done
rm -f "${TMPDIR:-/tmp}/large.$$"
MBD_BENCH_ABA="$B/engine/codegen/bench_chain_aba" "$B/interp/mbd" "$here/aba_hand.lua" 2048 0.1
