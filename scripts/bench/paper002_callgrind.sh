#!/usr/bin/env bash
# Instruction counts (valgrind callgrind: repeatable on any machine, unlike CPU times) of paper
# 002's timing table, the same configurations at the same tolerances as scripts/bench/paper002.lua
# (part "table"): each configuration at the loosest tolerance at which every recorded coordinate
# stays within 1e-6 of the reference (scripts/paper002/accuracy.lua; chosen first, outside
# valgrind), then one run under callgrind counting
#   - simulations: the integration alone (mbd_ode_integrate_until and below: steps, evaluations,
#     one sample at the end; the derivation and the compiled code's loading come before it);
#   - the RSCR's kinematic analyses: mbd_kinematics with 720 analyses minus the same with 1 (what
#     is left is 719 analyses: the set-up and the code's loading cancel; a run before both, outside
#     valgrind, puts the generated code in the cache).
# Columns: evaluations (Newton iterations for the analyses), instructions, per evaluation, and the
# ratio to Cartesian augmented ("DADS").  About ten minutes.
#   bash scripts/bench/paper002_callgrind.sh [path/to/mbd]     (a Release build; default build/)
set -euo pipefail
cd "$(dirname "$0")/../.."
mbd=${1:-build/interp/mbd}
one=$(mktemp --suffix=.lua)
trap 'rm -f "$one"' EXIT
cat > "$one" <<'LUA'
-- one configuration of paper 002's timing table: "pick MECH" prints each configuration's chosen
-- tolerance; "run MECH CONFIG RTOL [STEPS]" runs it once and prints its evaluations
local P = dofile("scripts/paper002/models.lua")
local A = dofile("scripts/paper002/accuracy.lua")
local mode, mech = arg[1], arg[2]
local models = {
  rscr_kin = function() return P.rscr_model { drive = mbd.sym.t * 2 * math.pi }, 2 end,
  rsst_kin = function() return P.rsst_model { drive = mbd.sym.t * 2 * math.pi }, 2 end,
  rscr = function() return P.rscr_model { torque = 10 }, 2 end,
  rsst = function() return P.rsst_model { torque = 0.1 }, 2 end,
  rssr = function() return P.rssr_model { torque = 10 }, 2 end,
  composite = function() return P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi }), 1 end,
}
local configs = {
  { "cartesian_augmented", { formulation = "augmented" } },
  { "cartesian_kane", { formulation = "kane" } },
  { "relative_paper_numeric", { formulation = "relative", solver = "baumgarte" } },
  { "relative_paper_compiled", { formulation = "relative", solver = "baumgarte",
                                 code = "compiled" } },
  { "relative_paper_tape", { formulation = "relative", solver = "baumgarte",
                             code = "tape" }, as = "relative_paper_compiled" },
  { "relative_augmented", { formulation = "relative", solver = "augmented", code = "compiled" } },
  { "relative_kane", { formulation = "relative", solver = "kane", code = "compiled" } },
}
local m, T = models[mech]()
if mode == "pick" then
  if mech == "rscr_kin" then
    for _, c in ipairs { "cartesian_augmented", "relative_paper_numeric", "relative_paper_compiled",
                         "relative_paper_tape" } do print(c, "-") end
    return
  end
  local ref, tols = A.reference(m, T), {}
  for _, c in ipairs(configs) do
    local tol = c.as and tols[c.as]
    if not c.as then
      local pick = A.loosest(m, c[2], ref, T)
      tol = pick and pick.tol
    end
    tols[c[1]] = tol
    if tol then print(c[1], tol) end
  end
  return
end
local name, tol, steps = arg[3], tonumber(arg[4]), tonumber(arg[5])
local opts
for _, c in ipairs(configs) do if c[1] == name then opts = c[2] end end
if mech == "rscr_kin" then
  -- 720 analyses over two turns, or one analysis over the first 720th (the set-up alone)
  local o = { t_end = steps == 1 and T / 720 or T, steps = steps or 720, quiet = true }
  for k, v in pairs(opts) do if k ~= "solver" then o[k] = v end end
  if name == "cartesian_augmented" then o.formulation = nil end
  print("evaluations", m:kinematics(o).stats.newton_iterations)
else
  print("evaluations", m:simulate(A.options(opts, tol, T, T)).stats.nfev)
end
LUA

# instructions inside function $1 for "mbd ARGS...", and the evaluations the run printed
count() {
  local fn=$1
  shift
  local out n e
  out=$(valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file=/dev/null "$@" \
          2>&1 </dev/null)
  n=$(printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  e=$(printf '%s\n' "$out" | sed -n 's/^evaluations\t\([0-9]*\)$/\1/p')
  echo "$n $e"
}

printf "%-10s %-24s %7s %6s %14s %10s %7s\n" mechanism configuration rtol nfev instructions \
  "per eval" "/DADS"
for mech in rscr_kin rsst_kin rscr rsst rssr composite; do
  dads=0
  while read -r cfg tol; do
    if [ "$mech" = rscr_kin ]; then
      # one analysis outside valgrind first: generated code derived and compiled on a cold cache
      # would be counted in the first run only, not cancelled by the second
      "$mbd" "$one" run "$mech" "$cfg" 0 1 >/dev/null 2>&1 </dev/null
      read -r n1 e < <(count mbd_kinematics "$mbd" "$one" run "$mech" "$cfg" 0 720)
      read -r n0 _ < <(count mbd_kinematics "$mbd" "$one" run "$mech" "$cfg" 0 1)
      n=$((n1 - n0))
    else
      read -r n e < <(count mbd_ode_integrate_until "$mbd" "$one" run "$mech" "$cfg" "$tol")
    fi
    [ "$cfg" = cartesian_augmented ] && dads=$n
    awk -v m="$mech" -v c="$cfg" -v t="$tol" -v n="$n" -v e="$e" -v d="$dads" \
      'BEGIN { printf "%-10s %-24s %7s %6d %14d %10.0f %7.2f\n", m, c, t, e, n, n / e, n / d }'
  done < <("$mbd" "$one" pick "$mech")
done

