#!/usr/bin/env bash
# CPU times of scripts/bench/small_cases.lua's table under two builds in one run (before: e.g. main
# built in another folder; after: this tree), cell by cell, with their ratio after / before.
#   bash scripts/bench/small_before_after.sh BEFORE_MBD [AFTER_MBD]
# Timings of one machine, least of 5 runs per cell; the counts (nfev) must agree.
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$1
after=${2:-build/interp/mbd}
b=$(mktemp) a=$(mktemp)
trap 'rm -f "$b" "$a"' EXIT
"$before" scripts/bench/small_cases.lua 2>/dev/null > "$b"
"$after" scripts/bench/small_cases.lua 2>/dev/null > "$a"
printf "%-11s %-15s %-6s %6s %6s %11s %11s %6s\n" case formulation integ nfev0 nfev "before[ms]" \
  "after[ms]" ratio
paste "$b" "$a" | awk 'NR > 1 {
  if ($6 == "failed" || $12 == "failed") { printf "%-11s %-15s %-6s %6s %6s %11s %11s %6s\n", $1, $2, $3, $4, $10, $6, $12, "-"; next }
  r = $12 / $6; s += log(r); k++; if (r > worst) { worst = r; wc = $1 " " $2 " " $3 }
  printf "%-11s %-15s %-6s %6s %6s %11.3f %11.3f %6.2f\n", $1, $2, $3, $4, $10, $6, $12, r }
  END { printf "geometric mean of the ratios %.2f; largest %.2f (%s)\n", exp(s / k), worst, wc }'
