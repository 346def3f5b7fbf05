#!/usr/bin/env bash
# Paper 001's efficiency claim in instruction counts (valgrind callgrind: repeatable on any
# machine): kane (the paper's reduced equations (28)) against augmented (Haug's system) on the four
# examples, each at its equal-accuracy tolerance (scripts/bench/paper001.lua: the loosest rtol whose
# error against a 1e-12 reference stays within 1e-6), counted in the integration
# (mbd_ode_integrate_until and below), and split into blocks, inclusive of what they call:
#   state      the new state from the integrator's: kane's position analysis (Newton on the
#              dependent coordinates, one kinematic update per iteration) and velocity analysis
#              (mbd_part_state); augmented's one kinematic update (mbd_cart_state)
#   kinematics of which the kinematic updates: poses, constraint rows and their derivatives, the
#              contact point's search (mbd_kin_update; the search alone: cn_solve)
#   dynamics   the equations of motion with the fixed point on N (mbd_contact_dynamics): kane's B,
#              BᵀM, LU of the n×n system of eq 28 and λ by back substitution; augmented's LU of the
#              (n+m)×(n+m) system; both reuse the factors in the fixed point's later passes
#   forces     M and Q of the bodies (mbd_forces_eval)
#   rest       the integrator (CVODE Adams: its nonlinear iteration, error control, root finding's
#              own work) and the samples
# Columns "/rhs": instructions divided by the right-hand-side evaluations (nfev; the root
# functions' evaluations of the state are counted in the blocks, not in nfev).
# Measured (Release build, Debian's gcc; instructions per evaluation, thousands):
#   case  kane/aug  kane: /rhs state kinem search dynamics | augmented: /rhs state kinem search dynamics
#   ex1     1.78          43.1  29.8  28.0   14.5    6.0   |            24.2  13.9  13.8    6.7    3.3
#   ex2     0.83          48.9  35.9  33.9   21.8    5.9   |            28.5  16.1  16.0    9.7    3.9
#   ex3     1.85         136.1  81.1  72.0   23.6   39.8   |           104.3  37.6  37.5   13.4   44.1
#   ex4     1.47         154.1  92.6  82.8   31.4   44.7   |           119.8  43.8  43.7   17.4   49.8
# kane's state costs 2.1-2.2 times augmented's (2.4-2.6 while its Newton iterations also formed γ:
# the contact's parameter rates and moving-point terms; 46.9, 54.2, 150.4, 172.4 thousand per
# evaluation then), its dynamics (the n×n system of eq 28 against the (n+m)×(n+m) augmented one,
# 12×12 against 19×19 in ex3) 0.90 times in the spatial examples and 1.5-1.8 times in the planar
# ones.  What the state still pays: per state evaluation one update of Φ and Φq and one per Newton
# iteration (1.41 updates in ex3), each with the contact search (the gap row's value is the
# solved gap), and a γ pass at the converged positions and new velocities, which forms every row
# again (the joints' in full, the contact search once more from its converged start) and skips
# only the scatter into Φq.  The update at the converged positions is not one too many: it gives
# the Φq of the velocity analysis and of B.  What it would take for eq 28 to be cheaper: with a
# state no dearer than augmented's (one kinematic update per evaluation, e.g. Newton on the
# residual alone, the contact search not repeated per iteration) kane's evaluation would cost
# 1.13, 1.02, 0.89, 0.88 times augmented's on ex1-4, and with its evaluation counts its runs 1.13,
# 0.50, 1.26, 1.00 times augmented's: it would also need no more evaluations than augmented, which
# error control on the independent coordinates alone does not give it in ex3-4.  ex1 is 24
# evaluations and a switch: its counts move by ±20 % with the last digits of rtol (the root
# finding at the switch: 0.58 M instructions for augmented at 10^-5.5, 0.82 M at 3.16228e-6).
#   bash scripts/bench/paper001_callgrind.sh [path/to/mbd]     (a Release build; default build/)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
out=$(mktemp)
trap 'rm -f "$out" "$out.txt"' EXIT
rtols=$("$mbd" scripts/bench/paper001.lua rtols 2>/dev/null)
printf "%-4s %-9s %8s %5s %5s %6s %12s %8s %8s %8s %8s %8s %8s %8s %6s\n" case form rtol nfev steps Newton \
  instructions kane/aug "/rhs" state kinem search dynamics forces rest
kane=0
while read -r c f r; do
  valgrind --tool=callgrind --toggle-collect=mbd_ode_integrate_until --callgrind-out-file="$out" \
    "$mbd" scripts/bench/paper001.lua "$c" "$f" "$r" </dev/null >"$out.txt" 2>/dev/null
  read -r _ _ steps newton _ nfev <"$out.txt"
  callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | awk -v c="$c" -v f="$f" -v r="$r" \
    -v nfev="$nfev" -v steps="$steps" -v newton="$newton" -v kane="$kane" '
    function count(s) { gsub(",", "", s); return s + 0 }
    {
      for (i = 1; i <= NF; i++) {
        if ($i !~ /^\?\?\?:/) continue
        name = substr($i, 5); sub(/\..*/, "", name)
        if (name in want && !(name in got)) got[name] = count($1)
      }
    }
    BEGIN {
      want["mbd_ode_integrate_until"]; want["mbd_part_state"]; want["mbd_cart_state"]
      want["mbd_kin_update"]; want["cn_solve"]; want["mbd_contact_dynamics"]; want["mbd_forces_eval"]
    }
    END {
      all = got["mbd_ode_integrate_until"]
      state = got["mbd_part_state"] + got["mbd_cart_state"]
      dyn = got["mbd_contact_dynamics"]; frc = got["mbd_forces_eval"]
      printf "%-4s %-9s %8.3g %5d %5d %6d %12.0f %8s %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %6.0f\n", c, f, r, nfev,
        steps, newton, all, (kane > 0 ? sprintf("%.2f", kane / all) : ""), all / nfev, state / nfev, got["mbd_kin_update"] / nfev,
        got["cn_solve"] / nfev, dyn / nfev, frc / nfev, (all - state - dyn - frc) / nfev
      print all > "/dev/stderr"
    }' 2>"$out.txt"
  if [ "$f" = kane ]; then kane=$(cat "$out.txt"); else kane=0; fi
done <<<"$rtols"
