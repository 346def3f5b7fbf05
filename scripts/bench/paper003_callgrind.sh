#!/usr/bin/env bash
# Where the time of a flexible run goes: instruction counts (valgrind callgrind, repeatable on any
# machine) of the integration (mbd_ode_integrate_until and below) of the flexible space robot, 10 s with
# BDF (scripts/bench/paper003_robot.lua), and the share of each block, inclusive of what it calls:
#   mass matrix            mbd_flex_mass_matrix   (eq 17: invariants, node rotary inertias)
#   quadratic velocity     mbd_flex_forces        (S of eq 17, elastic, damping, gravity forces)
#   node poses             mbd_flex_node_pose     (pose Jacobians of the nodes)
#   constraints            mbd_constraints_eval   (joint rows scattered through the Jacobians)
#   constraint solve       mbd_dynamics_augmented (LU of [M Φqᵀ; Φq 0])
#   forces, all            mbd_forces_eval        (M, Q of every body, joints' springs, forces)
# The rest is the integrator: CVODE's Newton iterations and its dense Jacobian by differences.
#   bash scripts/bench/paper003_callgrind.sh [path/to/mbd] [modes per arm | paper] [damping]
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
modes=${2:-paper}
zeta=${3:-0}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --toggle-collect=mbd_ode_integrate_until --callgrind-out-file="$out" \
  "$mbd" scripts/bench/paper003_robot.lua "$modes" "$zeta" 1 >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$out" 2>/dev/null | awk -v modes="$modes" -v zeta="$zeta" '
  function count(s) { gsub(",", "", s); return s + 0 }
  /PROGRAM TOTALS/ { total = count($1) }
  {
    for (i = 1; i <= NF; i++) {
      split($i, f, ":"); name = f[length(f)]; sub(/ .*/, "", name)
      if (name in want && !(name in got)) { got[name] = count($1) }
    }
  }
  BEGIN {
    want["mbd_ode_integrate_until"]; want["mbd_flex_mass_matrix"]; want["mbd_flex_forces"];
    want["mbd_flex_node_pose"]; want["mbd_constraints_eval"]; want["mbd_dynamics_augmented"];
    want["mbd_forces_eval"]
  }
  END {
    all = got["mbd_ode_integrate_until"]
    printf "flexible space robot, %s modes per arm, damping %s: %.0f instructions in mbd_ode_integrate_until\n", modes, zeta, all
    n = split("mbd_flex_mass_matrix mbd_flex_forces mbd_flex_node_pose mbd_constraints_eval mbd_dynamics_augmented mbd_forces_eval", k, " ")
    for (i = 1; i <= n; i++) printf "  %-24s %14.0f  %5.1f %%\n", k[i], got[k[i]], 100 * got[k[i]] / all
  }'
