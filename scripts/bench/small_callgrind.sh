#!/usr/bin/env bash
# Instruction counts (valgrind callgrind: repeatable on any machine) for issue 14's small models,
# of one build or of two side by side (before → after):
#   1. per right-hand-side evaluation of the double pendulum (paper 000, 10 s, CVODE Adams at
#      rtol = atol = 1e-7): the driver's rhs and everything below it, divided by nfev;
#   2. per run (mbd_sim_run: integration, samples every 10 ms, set-up) of every case, formulation
#      and integrator of scripts/bench/small_cases.lua.
#   bash scripts/bench/small_callgrind.sh [MBD [BEFORE_MBD]] [--rhs-only]
# (Release builds; default build/interp/mbd.  Part 2 takes about ten minutes per build.)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
before=${2:-}
part2=1
for a in "$@"; do [ "$a" = --rhs-only ] && part2=0; done
[ "$before" = --rhs-only ] && before=""

# instructions inside function $1 for "mbd ARGS...", and the last number the script printed
count() {
  local fn=$1
  shift
  local out
  out=$(valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file=/dev/null "$@" 2>&1)
  local n nfev
  n=$(printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  nfev=$(printf '%s\n' "$out" | grep -v '^==' | grep -v warning | tail -1 | awk '{print $NF}')
  echo "$n $nfev"
}

pendulum=$(mktemp --suffix=.lua)
trap 'rm -f "$pendulum"' EXIT
cat > "$pendulum" <<'LUA'
local models = dofile("scripts/paper000/models.lua")
local r = models.double_pendulum():simulate { t_end = 10, formulation = arg[1], rtol = 1e-7,
  atol = 1e-7, position_tol = 1e-8, output_every = 10 }
print(arg[1], r.stats.nfev)
LUA

echo "1. double pendulum, 10 s, adams 1e-7: instructions per right-hand side"
if [ -n "$before" ]; then
  printf "%-15s %6s %12s %12s %7s\n" formulation nfev before after ratio
else
  printf "%-15s %6s %12s\n" formulation nfev "per rhs"
fi
for f in augmented baumgarte gcp kane udwadia_kalaba; do
  read -r n nfev < <(count rhs "$mbd" "$pendulum" "$f")
  if [ -n "$before" ]; then
    read -r nb nfevb < <(count rhs "$before" "$pendulum" "$f")
    awk -v f="$f" -v e="$nfev" -v a="$n" -v b="$nb" -v eb="$nfevb" \
      'BEGIN { printf "%-15s %6d %12.0f %12.0f %7.2f\n", f, e, b / eb, a / e, (a / e) / (b / eb) }'
  else
    awk -v f="$f" -v e="$nfev" -v a="$n" 'BEGIN { printf "%-15s %6d %12.0f\n", f, e, a / e }'
  fi
done
[ "$part2" = 1 ] || exit 0

echo
echo "2. instructions per run (mbd_sim_run), scripts/bench/small_cases.lua"
if [ -n "$before" ]; then
  printf "%-11s %-15s %-6s %7s %7s %13s %13s %7s\n" case formulation integ nfev0 nfev before \
    after ratio
else
  printf "%-11s %-15s %-6s %7s %13s\n" case formulation integ nfev instructions
fi
for c in pendulum fourbar-I fourbar-II spatial gravity; do
  for f in augmented baumgarte gcp kane udwadia_kalaba; do
    for i in adams bdf rk45 rk4; do
      read -r n nfev < <(count mbd_sim_run "$mbd" scripts/bench/small_cases.lua "$c" "$f" "$i")
      if [ -n "$before" ]; then
        read -r nb nfevb < <(count mbd_sim_run "$before" scripts/bench/small_cases.lua "$c" "$f" "$i")
        awk -v c="$c" -v f="$f" -v i="$i" -v e="$nfev" -v eb="$nfevb" -v a="$n" -v b="$nb" \
          'BEGIN { printf "%-11s %-15s %-6s %7s %7s %13.0f %13.0f %7.2f\n", c, f, i, eb, e, b, a,
                   (b > 0 ? a / b : 0) }'
      else
        printf "%-11s %-15s %-6s %7s %13s\n" "$c" "$f" "$i" "$nfev" "$n"
      fi
    done
  done
done
