-- Benchmark (issue 14, small models; issue 22: every output checked): paper 000's double pendulum
-- over 10 s, every formulation of mbd against the hand-written 2-DOF right-hand side integrated by
-- CVODE Adams (scripts/bench/double_pendulum_hand.c, the practical limit), at equal accuracy.
--
--   mbd scripts/bench/small.lua [ROUNDS]        (a Release build; default 7 rounds)
--
-- Accuracy: both link angles θ1 and θ2 at t = 2.5, 5, 7.5 and 10 s against a run of kane at
-- rtol = atol = 1e-12 (checked against relative coordinates at 1e-12, printed); each method, and
-- the limit, takes the loosest rtol = atol of 1, 2, 5 × 10^-k whose largest error over those eight
-- values is at most 1e-6 rad, and the next tighter one's too (CVODE Adams, as the limit, unless
-- the row names another of mbd's integrators; position_tol 1e-8, the default, for gcp, kane and
-- udwadia_kalaba).  The last line names mbd's best setting, the row of least median CPU: issue 24
-- asks it to stay within 1.25 times the hand-written program at that program's own settings.
-- Timing: ROUNDS interleaved rounds, each running every method once in a fresh random order: K
-- repeats in this process (the limit: K repeats in its own process), the round's figure the median
-- of repeats 2..K.  mbd's time is run.stats.cpu_time (set-up of the integrator, the steps, the
-- four samples, tear-down: in-process CPU time), the limit's the same span of its own run.  Printed:
-- the median over rounds (min–max) and the ratio to the limit paired round by round.  The
-- hand-written program is build/engine/codegen/bench_double_pendulum or $MBD_BENCH_PENDULUM.
-- mbd installs its own vector operations (engine/integrators/lean_vectors.c: the
-- library's rounding, without its layer of special cases), which makes CVODE's own work per step
-- cheaper than the hand-written program's: the program built with the same operations
-- (bench_double_pendulum_lean, or $MBD_BENCH_PENDULUM_LEAN) runs in the same rounds, and the last
-- column is each method's ratio to it, paired by round: what mbd adds to the same integrator.
-- scripts/bench/peers.lua compares the same model with MuJoCo, Simbody and DART.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")
local rounds = tonumber(arg and arg[1]) or 7
local BOUND, T = 1e-6, 10
local TIMES = { 2.5, 5, 7.5, 10 }

local m = models.double_pendulum()
local function values(r)
  local v = {}
  for _, t in ipairs(TIMES) do
    v[#v + 1] = r:value("link1.theta", t)
    v[#v + 1] = r:value("link2.theta", t)
  end
  return v
end
local function distance(a, b)
  local e = 0
  for i = 1, #a do e = math.max(e, math.abs(a[i] - b[i])) end
  return e
end
local ref = values(m:simulate { t_end = T, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                                position_tol = 1e-12, output_every = 2.5 })
local check = distance(values(m:simulate { t_end = T, formulation = "relative", rtol = 1e-12,
                                           atol = 1e-12, output_every = 2.5 }), ref)

-- the hand-written program: K repeats at tol, its record (cpu of each repeat, samples)
local exe = os.getenv("MBD_BENCH_PENDULUM") or "build/engine/codegen/bench_double_pendulum"
local exe_lean = os.getenv("MBD_BENCH_PENDULUM_LEAN")
                 or "build/engine/codegen/bench_double_pendulum_lean"
local function hand(tol, K, which)
  local p = io.popen(string.format("'%s' %.17g %d %d 2>/dev/null", which or exe, tol, K, #TIMES))
  local out = p and p:read("a") or ""
  if p then p:close() end
  local res = { cpu = {}, v = {} }
  for line in out:gmatch("[^\n]+") do
    local key, rest = line:match("^(%S+)%s*(.*)$")
    if key == "evals" then res.nfev = tonumber(rest)
    elseif key == "steps" then res.steps = tonumber(rest)
    elseif key == "cpu" then for w in rest:gmatch("%S+") do res.cpu[#res.cpu + 1] = tonumber(w) end
    elseif key == "sample" then
      local t, a, b = rest:match("(%S+) (%S+) (%S+)")
      res.v[#res.v + 1] = tonumber(a)
      res.v[#res.v + 1] = tonumber(b)
    end
  end
  if not res.nfev then
    error("hand-written reference not found: build bench_double_pendulum or set MBD_BENCH_PENDULUM")
  end
  return res
end

local methods = {
  { "augmented", { formulation = "augmented" } },
  { "baumgarte", { formulation = "baumgarte" } },
  { "gcp", { formulation = "gcp" } },
  { "kane", { formulation = "kane" } },
  { "udwadia_kalaba", { formulation = "udwadia_kalaba" } },
  { "relative (numeric)", { formulation = "relative" } },
  { "relative (compiled)", { formulation = "relative", code = "compiled" } },
  -- mbd's other integrators (the issue asks for mbd's best setting against the program at its own
  -- CVODE Adams): ARKODE's Dormand–Prince, CVODE's BDF, mbd's own Runge–Kutta–Fehlberg
  { "relative (numeric), rkf45", { formulation = "relative", integrator = "rkf45" } },
  { "relative (compiled), rk45", { formulation = "relative", code = "compiled", integrator = "rk45" } },
  { "relative (compiled), bdf", { formulation = "relative", code = "compiled", integrator = "bdf" } },
  { "relative (compiled), rkf45", { formulation = "relative", code = "compiled",
                                    integrator = "rkf45" } },
  { "kane, rkf45", { formulation = "kane", integrator = "rkf45" } },
}
local function opts_of(meth, tol)
  local o = { t_end = T, rtol = tol, atol = tol, output_every = 2.5, quiet = true }
  for k, v in pairs(meth[2]) do o[k] = v end
  return o
end

-- the tolerance ladder, looser first, and the chosen setting: the loosest within the bound whose
-- next tighter one is within it too (errors are not monotone in the tolerance: one setting under
-- the bound between two over it is luck), walking from 1e-7 (scripts/bench/peers.lua's rule)
local TOLS = {}
for k = 5, 12 do
  for _, f in ipairs { 1, 0.5, 0.2 } do TOLS[#TOLS + 1] = f * 10.0 ^ -k end
end
local function loosest(err_of)
  local errs = {}
  local function e(i)
    errs[i] = errs[i] or err_of(TOLS[i])
    return errs[i]
  end
  local function qualifies(i) return e(i) <= BOUND and (i == #TOLS or e(i + 1) <= BOUND) end
  local i = 7                                        -- 1e-7
  if qualifies(i) then
    while i > 1 and e(i - 1) <= BOUND do i = i - 1 end
    return TOLS[i], e(i)
  end
  while i < #TOLS do
    i = i + 1
    if qualifies(i) then return TOLS[i], e(i) end
  end
  error("no tolerance down to 1e-12 within the bound")
end

local rows = {}
local limit = { name = "hand-written (C, CVODE)", rounds = {} }
limit.tol, limit.err = loosest(function(tol) return distance(hand(tol, 1).v, ref) end)
local h = hand(limit.tol, 5)
limit.nfev, limit.steps = h.nfev, h.steps
-- the same program with mbd's vector operations: the same tolerance, steps and values
local lean = { name = "hand-written, mbd's vector ops", rounds = {}, tol = limit.tol,
               err = limit.err, exe = exe_lean }
local hl = hand(limit.tol, 1, exe_lean)
if not hl.nfev then
  error("hand-written reference not found: build bench_double_pendulum_lean or set "
        .. "MBD_BENCH_PENDULUM_LEAN")
end
lean.nfev, lean.steps = hl.nfev, hl.steps
for _, meth in ipairs(methods) do
  local e = { name = meth[1], meth = meth, rounds = {} }
  e.tol, e.err = loosest(function(tol) return distance(values(m:simulate(opts_of(meth, tol))), ref) end)
  local r = m:simulate(opts_of(meth, e.tol))
  e.nfev, e.steps = r.stats.nfev, r.stats.steps
  rows[#rows + 1] = e
end

local function median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end
local function figure(cpu)
  return #cpu == 1 and cpu[1] or median { table.unpack(cpu, 2) }
end

-- interleaved rounds; K repeats per entry (about 0.1 s of CPU)
local entries = { limit, lean }
for _, e in ipairs(rows) do entries[#entries + 1] = e end
for _, e in ipairs(entries) do e.K = 21 end
for _ = 1, rounds do
  for _, i in ipairs(study.shuffled(#entries)) do
    local e = entries[i]
    local cpu = {}
    if e == limit or e == lean then
      cpu = hand(e.tol, e.K, e.exe).cpu
    else
      for k = 1, e.K do cpu[k] = m:simulate(opts_of(e.meth, e.tol)).stats.cpu_time end
    end
    e.rounds[#e.rounds + 1] = figure(cpu)
  end
end

local function range(t)
  local s = { table.unpack(t) }
  table.sort(s)
  return string.format("%.4f (%.4f–%.4f)", median(t) * 1e3, s[1] * 1e3, s[#s] * 1e3)
end
-- e's ratio to the reference ref, paired round by round: median (min–max)
local function paired(e, ref)
  if e == ref then return "1" end
  local r = {}
  for k = 1, rounds do r[k] = e.rounds[k] / ref.rounds[k] end
  local s = { table.unpack(r) }
  table.sort(s)
  return string.format("%.2f (%.2f–%.2f)", median(r), s[1], s[#s])
end
local out = {}
for _, e in ipairs(entries) do
  out[#out + 1] = { e.name, string.format("%.0e", e.tol), string.format("%.1e", e.err), e.nfev,
                    e.steps, range(e.rounds), string.format("%.3f", median(e.rounds) / e.nfev * 1e6),
                    paired(e, limit), paired(e, lean) }
end
study.table {
  title = string.format("Double pendulum (paper 000), 10 s, CVODE Adams unless a row names another "
                        .. "integrator, each at the loosest tolerance "
                        .. "within 1e-6 rad on θ1 and θ2 at 2.5, 5, 7.5, 10 s (the next tighter "
                        .. "too); %d interleaved rounds", rounds),
  header = { "method", "tol", "error [rad]", "nfev", "steps", "CPU [ms] median (min–max)",
             "per rhs [us]", "/ limit (paired)", "/ same vector ops" },
  rows = out,
}
print(string.format("reference: kane at 1e-12; relative at 1e-12 differs by %.1e rad", check))
-- mbd's best setting: the method of least median CPU (every one within the bound, the next tighter
-- tolerance too), against both programs at their own CVODE Adams
local best
for _, e in ipairs(rows) do
  if not best or median(e.rounds) < median(best.rounds) then best = e end
end
print(string.format("mbd's best setting: %s at %.0e, %s the hand-written program, %s the same "
                    .. "program with mbd's vector operations (paired by round)", best.name,
                    best.tol, paired(best, limit), paired(best, lean)))
