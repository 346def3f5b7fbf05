-- Benchmark (issue 14, small models): paper 000's double pendulum over 10 s with CVODE Adams at
-- rtol = atol = 1e-7 (error of link 2's angle at 10 s below 1e-6 rad against a run at 1e-12),
-- every formulation of mbd against the hand-written 2-DOF right-hand side integrated by the same
-- CVODE settings (scripts/bench/double_pendulum_hand.c, the practical limit), in one run.
--
--   mbd scripts/bench/small.lua [REPEATS]        (a Release build; default 200 repeats)
--
-- mbd's time is run.stats.cpu_time (set-up of the integrator, the steps, the one sample at the
-- end, tear-down: in-process CPU time, least of REPEATS), the hand-written program's the same span
-- of its own run (least of 2000).  "whole call" is the CPU time of the m:simulate call seen from
-- Lua (assembly, the run object, the Lua side included), for reference.  The hand-written program
-- is found beside the mbd program (build/engine/codegen/bench_double_pendulum) or in
-- $MBD_BENCH_PENDULUM.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")
local repeats = tonumber(arg and arg[1]) or 200

local m = models.double_pendulum()
local ref = m:simulate { t_end = 10, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                         position_tol = 1e-12, output_every = 10 }
local want = ref:value("link2.theta", 10)

-- the hand-written program, run first (its least of 2000 repeats)
local exe = os.getenv("MBD_BENCH_PENDULUM") or "build/engine/codegen/bench_double_pendulum"
local p = io.popen("'" .. exe .. "' 1e-7 2000 2>/dev/null")
local out = p and p:read("a") or ""
if p then p:close() end
local hand = {}
for k, v in out:gmatch("(%S+) (%S+)") do hand[k] = tonumber(v) end
if not hand.cpu_ms then
  error("hand-written reference not found: build bench_double_pendulum or set MBD_BENCH_PENDULUM")
end

local methods = {
  { "augmented", { formulation = "augmented" } },
  { "baumgarte", { formulation = "baumgarte" } },
  { "gcp", { formulation = "gcp", position_tol = 1e-8 } },
  { "kane", { formulation = "kane", position_tol = 1e-8 } },
  { "udwadia_kalaba", { formulation = "udwadia_kalaba", position_tol = 1e-8 } },
  { "relative (numeric)", { formulation = "relative", solver = "augmented" } },
  { "relative (compiled)", { formulation = "relative", solver = "augmented", code = "compiled" } },
}
local rows, worst = {}, 0
for _, meth in ipairs(methods) do
  local opts = { t_end = 10, rtol = 1e-7, atol = 1e-7, output_every = 10 }
  for k, v in pairs(meth[2]) do opts[k] = v end
  local whole = math.huge
  local r, cpu = study.best_of(repeats, function()
    local c0 = os.clock()
    local run = m:simulate(opts)
    whole = math.min(whole, os.clock() - c0)
    return run
  end)
  local err = math.abs(r:value("link2.theta", 10) - want)
  worst = math.max(worst, err)
  rows[#rows + 1] = { meth[1], err, r.stats.nfev, r.stats.steps, cpu * 1e3, cpu / r.stats.nfev * 1e6,
                      string.format("%.2f", cpu * 1e3 / hand.cpu_ms), whole * 1e3 }
end
rows[#rows + 1] = { "hand-written (C, CVODE)", math.abs(hand["theta2(10)"] - want), hand.rhs,
                    hand.steps, hand.cpu_ms, hand.rhs_us, "1.00", nil }
study.table {
  title = string.format("Double pendulum (paper 000), 10 s, CVODE Adams, rtol = atol = 1e-7; "
                        .. "CPU least of %d", repeats),
  header = { "method", "error [rad]", "nfev", "steps", "CPU [ms]", "per rhs [us]", "ratio",
             "whole call [ms]" },
  formats = { nil, "%.1e", nil, nil, "%.4f", "%.3f", nil, "%.4f" },
  rows = rows,
}
print(string.format("largest error %.1e rad (bound 1e-6)", worst))
