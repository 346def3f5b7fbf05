#!/usr/bin/env bash
# Instruction counts (valgrind callgrind: repeatable on any machine) of one m:simulate call on a
# small model, all of it — what a sweep or a study's tolerance ladder pays per run — beside the
# integration's part (the steps, the evaluations and the samples: mbd_ode_integrate_until).  The
# rest is the run's set-up and tear-down: the formulation's records, the generated code's lookup,
# the data, the manifest, the result.
#   bash scripts/bench/per_call_callgrind.sh [MBD [BEFORE_MBD]]
# (Release builds; default build/interp/mbd.)  Each configuration runs the same model 8 and then
# 14 times in one process, after a run outside valgrind that fills the code cache; the figures
# are the differences divided by 6: a warm call (the first calls of a process load the compiled
# code and resolve the shared libraries' symbols).
# Models: paper 000's double pendulum (10 s, adams 1e-7, a sample every 2.5 s) and the four-bar
# of examples/fourbar.lua (2 s, adams 1e-7, a sample every 0.5 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
before=${2:-}

script=$(mktemp --suffix=.lua)
trap 'rm -f "$script"' EXIT
cat > "$script" <<'LUA'
local which, form, code, n = arg[1], arg[2], arg[3], tonumber(arg[4])
local m, o
if which == "pendulum" then
  m = dofile("scripts/paper000/models.lua").double_pendulum()
  o = { t_end = 10, output_every = 2.5 }
else
  -- examples/fourbar.lua's four-bar, released at rest (bars of 1, 3 and 2 kg)
  m = mbd.model { name = "four-bar", dim = 2, gravity = { 0, -9.81 } }
  local function bar(name, mass, len, p1, p2)
    return m:body { name = name, mass = mass, inertia = mass * len ^ 2 / 12,
                    pos = { (p1[1] + p2[1]) / 2, (p1[2] + p2[2]) / 2 },
                    angle = math.atan(p2[2] - p1[2], p2[1] - p1[1]) }
  end
  local a, B = { 0.4 * math.cos(1.2), 0.4 * math.sin(1.2) }, { 1.3, 0.75 }
  local crank, coupler = bar("crank", 1, 0.4, { 0, 0 }, a), bar("coupler", 3, 1.2, a, B)
  local rocker = bar("rocker", 2, 0.8, B, { 1, 0 })
  m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0 }, body2 = crank, at2 = { -0.2, 0 } }
  m:revolute { name = "A", body1 = crank, at1 = { 0.2, 0 }, body2 = coupler, at2 = { -0.6, 0 } }
  m:revolute { name = "B", body1 = coupler, at1 = { 0.6, 0 }, body2 = rocker, at2 = { -0.4, 0 } }
  m:revolute { name = "C", body1 = rocker, at1 = { 0.4, 0 }, body2 = m.ground, at2 = { 1, 0 } }
  o = { t_end = 2, output_every = 0.5 }
end
o.formulation, o.code, o.rtol, o.atol, o.quiet = form, code, 1e-7, 1e-7, true
local nfev
for _ = 1, n do nfev = m:simulate(o).stats.nfev end
print(nfev)
LUA

# instructions of "simulate" (the binding's call) and of the integration inside it, for n calls
count() {
  local exe=$1 n=$2
  shift 2
  local f
  f=$(mktemp)
  valgrind --tool=callgrind --toggle-collect=l_model_simulate --callgrind-out-file="$f" \
    "$exe" "$script" "$@" "$n" > /dev/null 2>&1
  local all integ
  all=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | grep -m1 "l_model_simulate" |
    awk '{gsub(",", "", $1); print $1}')
  integ=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | grep -m1 "mbd_ode_integrate_until" |
    awk '{gsub(",", "", $1); print $1}')
  rm -f "$f"
  echo "${all:-0} ${integ:-0}"
}

# a warm call: total and integration
per_call() {
  local exe=$1
  shift
  # once outside valgrind first: a cold code cache would put the derivation in one count only
  "$exe" "$script" "$@" 1 > /dev/null 2>&1
  read -r a8 i8 < <(count "$exe" 8 "$@")
  read -r a14 i14 < <(count "$exe" 14 "$@")
  echo $(((a14 - a8) / 6)) $(((i14 - i8) / 6))
}

printf "%-9s %-10s %-9s %12s %12s %12s" model formulation code "per call" integration "set-up"
[ -n "$before" ] && printf " %12s %7s" "before" "ratio"
echo
for cfg in "pendulum relative compiled" "pendulum relative numeric" "pendulum kane numeric" \
           "pendulum augmented numeric" "fourbar relative compiled" "fourbar kane numeric"; do
  read -r model form code <<< "$cfg"
  read -r all integ < <(per_call "$mbd" "$model" "$form" "$code")
  printf "%-9s %-10s %-9s %12d %12d %12d" "$model" "$form" "$code" "$all" "$integ" $((all - integ))
  if [ -n "$before" ]; then
    read -r ball _ < <(per_call "$before" "$model" "$form" "$code")
    awk -v a="$all" -v b="$ball" 'BEGIN { printf " %12d %7.2f", b, a / b }'
  fi
  echo
done
