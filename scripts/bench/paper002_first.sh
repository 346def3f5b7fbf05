#!/usr/bin/env bash
# Time to the first result of the composite RSSR (issue 9): a fresh mbd process derives, compiles
# and runs it with an empty cache (cold), then again with the cache it filled (warm).  Wall times
# of the whole process, and the run's own split (scripts/bench/paper002.lua, part "first").
#   bash scripts/bench/paper002_first.sh [path/to/mbd]     (a Release build; default build/)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for label in cold warm; do
  t0=$(date +%s.%N)
  line=$(MBD_CACHE="$cache" "$mbd" scripts/bench/paper002.lua first)
  t1=$(date +%s.%N)
  awk -v l="$label" -v a="$t0" -v b="$t1" -v s="$line" \
    'BEGIN { printf "%-5s %.3f s wall for the process; %s\n", l, b - a, s }'
done
