#!/usr/bin/env bash
# Instruction counts (valgrind callgrind: repeatable on any machine, unlike CPU times) of the runs
# of scripts/bench/relative_loops.lua: each configuration at the loosest tolerance keeping every
# recorded coordinate within 1e-6 of the reference (chosen first, outside valgrind), then one run
# under callgrind counting the integration alone (mbd_ode_integrate_until and below: steps,
# evaluations, one sample at the end; the derivation and the compiled code's loading come before
# it).  Columns: evaluations, instructions, per evaluation, and the ratio to Cartesian kane.
#   bash scripts/bench/relative_loops_callgrind.sh [path/to/mbd] [mechanisms...]
#   (a Release build; default build/interp/mbd and every mechanism: fourbar fourbar2 rssr composite)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
shift || true
mechs=${*:-fourbar fourbar2 rssr composite}
script=scripts/bench/relative_loops.lua

printf "%-10s %-30s %7s %6s %14s %10s %7s\n" mechanism configuration rtol nfev instructions \
  "per eval" "/kane"
for mech in $mechs; do
  kane=0
  while read -r cfg tol; do
    out=$(valgrind --tool=callgrind --toggle-collect=mbd_ode_integrate_until \
            --callgrind-out-file=/dev/null "$mbd" "$script" run "$mech" "$cfg" "$tol" 2>&1 </dev/null)
    n=$(printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    e=$(printf '%s\n' "$out" | sed -n 's/^evaluations\t\([0-9]*\)$/\1/p')
    [ "$cfg" = cartesian_kane ] && kane=$n
    awk -v m="$mech" -v c="$cfg" -v t="$tol" -v n="$n" -v e="$e" -v k="$kane" \
      'BEGIN { printf "%-10s %-30s %7s %6d %14d %10.0f %7.2f\n", m, c, t, e, n, n / e, n / k }'
  done < <("$mbd" "$script" pick "$mech")
done
