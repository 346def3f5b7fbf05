#!/usr/bin/env bash
# Instruction counts (valgrind callgrind, repeatable on any machine) of the integration alone
# (mbd_ode_integrate_until and below: steps, evaluations, samples; the runs no longer go through
# mbd_ode_solve, which this counted before and found empty) for each paper-000 case and method,
# and their ratios to KANE.
#   bash scripts/bench/paper000_callgrind.sh [path/to/mbd]     (a Release build; default build/)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
printf "%-8s %-10s %14s %7s\n" case method instructions ratio
for c in ex1-5 ex1-10 ex1-50 ex2-I ex2-II ex3; do
  kane=0
  for f in kane gcp baumgarte; do
    n=$(valgrind --tool=callgrind --toggle-collect=mbd_ode_integrate_until --callgrind-out-file=/dev/null \
          "$mbd" scripts/bench/paper000.lua "$c" "$f" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    [ "$f" = kane ] && kane=$n
    awk -v c="$c" -v f="$f" -v n="$n" -v k="$kane" 'BEGIN { printf "%-8s %-10s %14s %7.2f\n", c, f, n, n / k }'
  done
done
