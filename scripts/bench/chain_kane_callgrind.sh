#!/usr/bin/env bash
# Instructions per right-hand-side evaluation (valgrind callgrind: repeatable on any machine) of
# Cartesian kane with the sparse solve on the planar chain of chains.lua (N links, 0.3 rad from
# the vertical, 2 s, RK4 with h = 5 ms: 4 evaluations a step), beside MuJoCo 2.2's RK4 on the same
# chain when libmujoco-dev is installed (scripts/bench/peers/mujoco_bench.c, built here).  A
# figure is the integration's instructions (mbd_ode_integrate_until; MuJoCo: mj_step) divided by
# the evaluations.  The link angles at 2 s of both are printed (they agree to about 1e-14 rad).
#   bash scripts/bench/chain_kane_callgrind.sh [N [MBD]]          (default 8, build/interp/mbd)
# MBD_KANE_SCHUR=0 in the environment keeps kane's KLU solve of the leading matrix (the build
# before issue 24's Schur-complement path, formulations/schur.c); MBD_PART_KEEP=0 has kane factor
# its dependent block Φ_qd at every Newton iteration, as before issue 24's item 4, also where its
# values have not changed (formulations/partition.c; a chain's are ±1 at every state).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-8}
mbd=${2:-build/interp/mbd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/chain.lua" <<'LUA'
local chains = dofile("scripts/bench/chains.lua")
local N = tonumber(arg[1])
local r = chains.planar(N):simulate { t_end = 2, formulation = arg[2], integrator = "rk4",
  step = 5e-3, position_tol = 1e-6, output_every = 2, linear_solver = arg[3], quiet = true }
local v = chains.values(r, N, 2)
local s = {}
for i = 1, N do s[#s + 1] = string.format("%.15f", v[i]) end
print("angles " .. table.concat(s, " "))
print(r.stats.linear_solver, r.stats.nfev)
LUA
count() {  # instructions inside function $1 for the command after it
  valgrind --tool=callgrind --toggle-collect="$1" --callgrind-out-file=/dev/null "${@:2}" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf "%-34s %6s %12s\n" "N = $N, RK4 h = 5 ms, 2 s" evals "instr/eval"
for c in "kane sparse" "kane dense" "augmented sparse" "augmented dense" "relative dense"; do
  set -- $c
  out=$("$mbd" "$tmp/chain.lua" "$N" "$1" "$2")
  nfev=$(printf '%s\n' "$out" | tail -1 | awk '{print $2}')
  n=$(count mbd_ode_integrate_until "$mbd" "$tmp/chain.lua" "$N" "$1" "$2")
  awk -v c="mbd $c" -v e="$nfev" -v n="$n" 'BEGIN { printf "%-34s %6d %12.0f\n", c, e, n / e }'
  if [ "$c" = "kane sparse" ]; then
    printf '%s\n' "$out" | head -1 | sed 's/^/  mbd    /'
    n=$(MBD_KANE_SCHUR=0 count mbd_ode_integrate_until "$mbd" "$tmp/chain.lua" "$N" kane sparse)
    awk -v e="$nfev" -v n="$n" \
      'BEGIN { printf "%-34s %6d %12.0f\n", "mbd kane sparse, KLU (SCHUR=0)", e, n / e }'
  fi
done
if dpkg-query -W -f='${Status}' libmujoco-dev 2>/dev/null | grep -q "install ok installed"; then
  cc -O2 -o "$tmp/mujoco_bench" scripts/bench/peers/mujoco_bench.c -lmujoco -lm
  # the chain as MJCF: a body per link, its frame at the joint, CM at the middle
  {
    echo '<mujoco model="chain"><compiler angle="radian"/>'
    echo '<option timestep="0.005" integrator="RK4" gravity="0 -9.81 0"><flag contact="disable"/></option>'
    echo '<worldbody>'
    awk -v N="$N" 'BEGIN { a = -atan2(1, 0) + 0.3
      for (i = 1; i <= N; i++)
        printf "<body pos=\"%d 0 0\" axisangle=\"0 0 1 %.17g\"><joint type=\"hinge\" axis=\"0 0 1\"/><inertial pos=\"0.5 0 0\" mass=\"1\" diaginertia=\"%.17g %.17g %.17g\"/>\n",
               (i > 1), (i == 1 ? a : 0), 1 / 12, 1 / 12, 1 / 12
      for (i = 1; i <= N; i++) print "</body>" }'
    echo '</worldbody></mujoco>'
  } > "$tmp/chain.xml"
  out=$("$tmp/mujoco_bench" "$tmp/chain.xml" 2 0.005 1 1)
  evals=$(printf '%s\n' "$out" | awk '$1 == "evals" {print $2}')
  n=$(count mj_step "$tmp/mujoco_bench" "$tmp/chain.xml" 2 0.005 1 1)
  awk -v e="$evals" -v n="$n" 'BEGIN { printf "%-34s %6d %12.0f\n", "MuJoCo RK4 (mj_step)", e, n / e }'
  printf '%s\n' "$out" | awk '$1 == "sample" { s = "angles"; for (i = 3; i <= NF; i++) s = s " " sprintf("%.15f", $i); print "  MuJoCo " s }'
else
  echo "(MuJoCo: libmujoco-dev not installed)"
fi
