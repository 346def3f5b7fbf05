-- Benchmark (issue 24): closed loops in relative coordinates against the Cartesian formulations,
-- like with like.  Each mechanism below is run by every configuration at the loosest tolerance at
-- which every recorded coordinate (positions, Euler parameters, joint angles) stays within 1e-6
-- of a reference, Cartesian kane at rtol = atol = 1e-12 (scripts/paper002/accuracy.lua: the
-- ladder of half decades, the rung chosen only when every tighter one is within the bound too).
-- Printed: the chosen tolerance, the error, evaluations (run.stats.nfev) and steps — counts that
-- do not depend on the machine — and each configuration's evaluations against Cartesian kane's.
-- Instruction counts of the same runs: scripts/bench/relative_loops_callgrind.sh.
--
--   mbd scripts/bench/relative_loops.lua                      the table, and its claims checked
--   mbd scripts/bench/relative_loops.lua pick MECH            each configuration's tolerance
--   mbd scripts/bench/relative_loops.lua run MECH CONFIG TOL  one run: prints its evaluations
--
-- Mechanisms (adams, the default integrator):
--   fourbar     the four-bar of examples/fourbar.lua released at rest under gravity, 5 s
--               (crank 0.4 m, coupler 1.2 m, rocker 0.8 m, uniform bars of 1, 3 and 2 kg)
--   fourbar2    the four-bar of scripts/bench/peers.lua: the same bars, the joint B placed where
--               the two circles meet (assembled exactly), 5 s
--   rssr        paper 002's RSSR under a constant crank torque of 10 N m, 2 s
--   composite   paper 002's composite RSSR (four RSSR macro copies), the first crank driven one
--               turn in 1 s
-- Configurations: Cartesian kane and augmented; relative coordinates with the default solver
-- (numeric and compiled code), and with solver = "baumgarte", the paper's gains α = 199.94,
-- β = 282.8 (the default before issue 24; numeric and compiled).  The composite RSSR adds
-- relative_cut_s1S2: the default solver on the tree of the declaration order, which cuts s1.S2
-- (the first coupler hangs from the crank that the drive turns a whole turn), the default before
-- the tree kept the slower joints first (see the claims below).
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local P = dofile(here .. "/../paper002/models.lua")
local A = dofile(here .. "/../paper002/accuracy.lua")

local function bar_fourbar(B)
  local m = mbd.model { name = "four-bar", dim = 2, gravity = { 0, -9.81 } }
  local function bar(name, mass, len, p1, p2)
    return m:body { name = name, mass = mass, inertia = mass * len ^ 2 / 12,
                    pos = { (p1[1] + p2[1]) / 2, (p1[2] + p2[2]) / 2 },
                    angle = math.atan(p2[2] - p1[2], p2[1] - p1[1]) }
  end
  local a = { 0.4 * math.cos(1.2), 0.4 * math.sin(1.2) }
  local crank = bar("crank", 1.0, 0.4, { 0, 0 }, a)
  local coupler = bar("coupler", 3.0, 1.2, a, B)
  local rocker = bar("rocker", 2.0, 0.8, B, { 1, 0 })
  m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0 }, body2 = crank, at2 = { -0.2, 0 } }
  m:revolute { name = "A", body1 = crank, at1 = { 0.2, 0 }, body2 = coupler, at2 = { -0.6, 0 } }
  m:revolute { name = "B", body1 = coupler, at1 = { 0.6, 0 }, body2 = rocker, at2 = { -0.4, 0 } }
  m:revolute { name = "C", body1 = rocker, at1 = { 0.4, 0 }, body2 = m.ground, at2 = { 1, 0 } }
  return m
end

-- B where the circles about A (1.2 m) and C = (1, 0) (0.8 m) meet, the upper one
local function exact_B()
  local a = { 0.4 * math.cos(1.2), 0.4 * math.sin(1.2) }
  local dx, dy = 1 - a[1], -a[2]
  local d = math.sqrt(dx * dx + dy * dy)
  local l = (1.2 ^ 2 - 0.8 ^ 2 + d * d) / (2 * d)
  local h = math.sqrt(1.2 ^ 2 - l * l)
  return { a[1] + l * dx / d - h * dy / d, a[2] + l * dy / d + h * dx / d }
end

local mechanisms = {
  { "fourbar", function() return bar_fourbar { 1.3, 0.75 }, 5 end },
  { "fourbar2", function() return bar_fourbar(exact_B()), 5 end },
  { "rssr", function() return P.rssr_model { torque = 10 }, 2 end },
  { "composite", function()
    return P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi }), 1
  end, extra = { { "relative_cut_s1S2", { formulation = "relative", cut = { "s1.S2" } } } } },
}
local configs = {
  { "cartesian_kane", { formulation = "kane" } },
  { "cartesian_augmented", { formulation = "augmented" } },
  { "relative", { formulation = "relative" } },
  { "relative_compiled", { formulation = "relative", code = "compiled" } },
  { "relative_paper_gains", { formulation = "relative", solver = "baumgarte" } },
  { "relative_paper_gains_compiled", { formulation = "relative", solver = "baumgarte",
                                       code = "compiled" } },
}
local function find(list, name)
  for _, e in ipairs(list) do
    if e[1] == name then return e end
  end
  error("unknown name " .. tostring(name), 2)
end
-- the configurations a mechanism runs: every one of configs, then its own extra ones
local function configs_of(mech)
  local out = {}
  for _, c in ipairs(configs) do out[#out + 1] = c end
  for _, c in ipairs(mech.extra or {}) do out[#out + 1] = c end
  return out
end

-- quiet: the four-bar's rough pose is assembled with a warning on every run
local function quiet(o)
  o.quiet = true
  return o
end

local mode = arg and arg[1]
if mode == "run" then
  local mech = find(mechanisms, arg[2])
  local m, T = mech[2]()
  local opts = find(configs_of(mech), arg[3])[2]
  local r = m:simulate(quiet(A.options(opts, tonumber(arg[4]), T, T)))
  print("evaluations", r.stats.nfev)
  return
end

-- every configuration of a mechanism at its loosest tolerance
local function picks(mech)
  local m, T = mech[2]()
  local ref = A.reference(m, T)
  local out = {}
  for _, c in ipairs(configs_of(mech)) do
    local p = A.loosest(m, c[2], ref, T)
    out[#out + 1] = { config = c[1], pick = p }
  end
  return out
end

if mode == "pick" then
  for _, e in ipairs(picks(find(mechanisms, arg[2]))) do
    if e.pick then print(e.config, e.pick.tol) end
  end
  return
end

local study = require "mbd.study"
local claims = study.claims()
local rows, nfev = {}, {}
for _, mech in ipairs(mechanisms) do
  nfev[mech[1]] = {}
  local ps = picks(mech)
  local kane = ps[1].pick
  for _, e in ipairs(ps) do
    local p = e.pick
    if p then
      nfev[mech[1]][e.config] = p.nfev
      rows[#rows + 1] = { mech[1], e.config, string.format("%.0e", p.tol), p.err, p.nfev, p.steps,
                          string.format("%.2f", p.nfev / kane.nfev) }
    else
      rows[#rows + 1] = { mech[1], e.config, "-", "-", "-", "-", "not within 1e-6" }
    end
  end
end
study.table {
  title = "Closed loops at equal accuracy (every recorded coordinate within 1e-6 of Cartesian kane "
          .. "at 1e-12), adams",
  header = { "mechanism", "configuration", "rtol", "error", "nfev", "steps", "nfev/kane" },
  formats = { nil, nil, nil, "%.1e" },
  rows = rows,
}
-- issue 24 asks the default relative solver for no more evaluations than Cartesian kane on every
-- closed loop.  Measured (one build, Haswell kernel): the four-bars 1.06 and 1.16 (the ladder's
-- rung: at one tolerance the two take the same steps within 5 %, the errors land on either side of
-- the bound), the RSSR 0.56, the composite RSSR 1.12 (numeric and compiled alike): met on the RSSR
-- only, the others within 16 %.  The composite's figure was 2.74 on the tree of the declaration
-- order (relative_cut_s1S2, printed, not claimed): that tree cuts the last-declared s1.S2, so the
-- first coupler hangs from the crank (s1.S1), which the drive turns a whole turn; that joint's
-- Euler parameters sweep e0 from 1 to −1: two re-partitions (each restarting the integrator), and
-- between them an independent parameter (s1.S1.e2) needing 2.5 times kane's steps with ten times
-- its error growth (README).  The default tree now keeps, among joints adding as many
-- coordinates, the one turning less than half as fast at the start (kinematics/tree_build.c):
-- s1.S1 turns with the crank, so it is cut and the coupler hangs from its rocker (1.4 rad of
-- swing, no re-partition).  The rest, 1.12 rather than 1: the couplers' Euler parameters relative
-- to their rockers still vary more than their absolute ones.  Re-basing the spherical joints'
-- parameters as they rotate (c ← ε ⊗ c, ε ← identity past π/2) was tried and left out: on the
-- declaration-order tree 323 evaluations against 303 at rtol 1e-7 (three re-bases instead of two
-- re-partitions: the independent parameter still turns with the crank), at the re-partitions 300
-- against 303, and the RSSR (free crank, many turns) 1091 against 802 at 1e-8 (a restart per
-- quarter turn).
-- The claims below are what holds, with room for round-off's other rungs; the paper's gains take
-- 2.5 to 6.9 times the default's evaluations here
local bounds = { fourbar = 1.3, fourbar2 = 1.3, rssr = 0.8, composite = 1.3 }
for _, name in ipairs { "fourbar", "fourbar2", "rssr", "composite" } do
  local n = nfev[name]
  claims:within(name .. ": relative (default) / Cartesian kane evaluations",
                n.relative / n.cartesian_kane, nil, bounds[name])
  claims:within(name .. ": relative compiled / Cartesian kane evaluations",
                n.relative_compiled / n.cartesian_kane, nil, bounds[name])
  claims:within(name .. ": relative, paper gains / relative (default) evaluations",
                n.relative_paper_gains / n.relative, 2, nil)
end

-- The counts above sit within the noise of adaptive step control: two formulations integrating the
-- same independent coordinate (crank.theta on the four-bars, m:explain) take different steps once
-- their accelerations differ in the last digits, and so does one formulation under an immaterial
-- change — the four-bar's relative run at the default tolerance takes 1135, 1126 and 1235
-- evaluations with position_tol = 1e-8, 1e-10 and 1e-12, Cartesian kane 1133, 1153 and 1151.  So
-- each mechanism also runs both at ten tolerances from 1e-7 to 1e-10 (the same for both, position
-- analysis ten times tighter as above): the geometric means over them of the ratio of evaluations
-- and of the ratio of errors (every recorded coordinate against the reference) say what one rung
-- cannot.
local EQUAL_TOLS = { 1e-7, 5e-8, 2e-8, 1e-8, 5e-9, 2e-9, 1e-9, 5e-10, 2e-10, 1e-10 }
local mean_rows = {}
for _, mech in ipairs(mechanisms) do
  local m, T = mech[2]()
  local ref = A.reference(m, T)
  local chans = A.coordinates(ref)
  local lr, le, lo, hi = 0, 0, math.huge, 0
  for _, tol in ipairs(EQUAL_TOLS) do
    local k = m:simulate(A.options({ formulation = "kane" }, tol, T, T / A.SAMPLES))
    local r = m:simulate(A.options({ formulation = "relative" }, tol, T, T / A.SAMPLES))
    local ratio = r.stats.nfev / k.stats.nfev
    lr = lr + math.log(ratio)
    le = le + math.log(A.max_error(r, ref, chans) / A.max_error(k, ref, chans))
    lo, hi = math.min(lo, ratio), math.max(hi, ratio)
  end
  local gm, ge = math.exp(lr / #EQUAL_TOLS), math.exp(le / #EQUAL_TOLS)
  mean_rows[#mean_rows + 1] = { mech[1], string.format("%.3f", gm), string.format("%.2f–%.2f", lo, hi),
                                string.format("%.2f", ge) }
  -- relative coordinates at no more evaluations than kane on average, and no less accurate (room
  -- for round-off's other step sequences: 5 % on the evaluations, a factor 1.5 on the errors,
  -- which vary by more than 10 between neighbouring tolerances).  Measured (one build): the
  -- four-bars 0.997 and 1.004 with 0.73 and 0.85 of kane's error, the RSSR 0.76 with 0.10 of it —
  -- and the composite RSSR 1.13 with 1.29 of it, which is not noise: its independent coordinates
  -- are the couplers' Euler parameters relative to their rockers (s<k>.S2.e1, where kane takes the
  -- couplers' own, s<k>.coupler.e1), and each rocker's swing enters them; 1.2 is what holds there.
  claims:within(mech[1] .. ": relative / kane evaluations at equal tolerance, geometric mean", gm,
                nil, mech[1] == "composite" and 1.2 or mech[1] == "rssr" and 0.85 or 1.05)
  claims:within(mech[1] .. ": relative / kane error at equal tolerance, geometric mean", ge, nil,
                1.5)
end
study.table {
  title = "Relative coordinates (default solver) against Cartesian kane at the same ten tolerances, "
          .. "1e-7 to 1e-10",
  header = { "mechanism", "nfev ratio (geometric mean)", "nfev ratio range", "error ratio (geometric mean)" },
  rows = mean_rows,
}
claims:finish()
