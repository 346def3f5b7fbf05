-- Benchmark (issue 24): udwadia_kalaba against kane on the N-four-bar (the MBS benchmark library's
-- A02 mechanism, tests/lua/singular_chain.lua) at N = 16 (10 s, 13 flat configurations) and N = 40
-- (A02 itself: 20 s, 26 flat configurations), both formulations on the same model with the same
-- settings (adams, rtol = atol = 1e-7, position_tol = 1e-8, 400 output steps).
--
--   mbd scripts/bench/udwadia_kalaba.lua [ROUNDS] [SIZES]     (a Release build; default 3 rounds,
--                                                             sizes 16,40)
--
-- Accuracy, the same bound on every output: at every output step, the position (x, y) and angle
-- of every body against the one-coordinate solution of the parallelogram branch (every crank at
-- θ, every coupler translating; singular_chain.lua's reference, RK4 at 1e-4 s); both must be within
-- BOUND = 1e-3 (A02's high-precision criterion) and the largest error is printed.
-- Timing: ROUNDS interleaved rounds, each running both in a fresh random order; run.stats.cpu_time
-- (in-process CPU time of the run).  Printed: the median over rounds (min–max), the ratio
-- udwadia_kalaba / kane paired round by round, the right-hand-side evaluations, Newton iterations
-- and the evaluations that took the SVD (udwadia_kalaba's sparse form near a flat configuration).
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local C = dofile(here .. "/../../tests/lua/singular_chain.lua")
local rounds = tonumber(arg and arg[1]) or 3
local sizes = {}
for s in ((arg and arg[2]) or "16,40"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
local BOUND = 1e-3

local function opts(f, N)
  local T = N >= 40 and 20 or 10
  return { t_end = T, formulation = f, rtol = 1e-7, atol = 1e-7, position_tol = 1e-8,
           output_every = T / 400, quiet = true }
end

-- the largest error over every output: x, y, θ of each crank and coupler at every sample
local function max_error(run, N)
  local t = run:series("c0.theta")
  local ref = C.reference(N, t)
  local worst = 0
  local function check(name, fx, fy, fth)
    local _, x = run:series(name .. ".x")
    local _, y = run:series(name .. ".y")
    local _, th = run:series(name .. ".theta")
    for k = 1, #t do
      local a = ref[k][1]
      worst = math.max(worst, math.abs(x[k] - fx(a)), math.abs(y[k] - fy(a)),
                       math.abs(th[k] - fth(a)))
    end
  end
  for i = 0, N do
    check("c" .. i, function(a) return i + 0.5 * math.cos(a) end,
          function(a) return 0.5 * math.sin(a) end, function(a) return a end)
  end
  for i = 1, N do
    check("k" .. i, function(a) return i - 0.5 + math.cos(a) end,
          function(a) return math.sin(a) end, function() return 0 end)
  end
  return worst
end

local function median(v)
  local s = {}
  for i, x in ipairs(v) do s[i] = x end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) / 2] or 0.5 * (s[n / 2] + s[n / 2 + 1])
end

math.randomseed(24)
local forms = { "kane", "udwadia_kalaba" }
print(string.format("N-four-bar: udwadia_kalaba against kane, adams, rtol = atol = 1e-7, "
                    .. "position_tol = 1e-8; error bound %g on x, y, θ of every body at 400 steps; "
                    .. "%d rounds", BOUND, rounds))
local ok = true
for _, N in ipairs(sizes) do
  local cpu, rec = { kane = {}, udwadia_kalaba = {} }, {}
  for r = 1, rounds do
    local order = { 1, 2 }
    if math.random() < 0.5 then order = { 2, 1 } end
    for _, k in ipairs(order) do
      local f = forms[k]
      local run = C.build(N):simulate(opts(f, N))
      cpu[f][r] = run.stats.cpu_time
      if r == 1 then
        rec[f] = { err = max_error(run, N), nfev = run.stats.nfev,
                   newton = run.stats.newton_iterations, svd = run.stats.singular_evaluations,
                   solver = run.stats.linear_solver }
      end
    end
  end
  local ratios = {}
  for r = 1, rounds do ratios[r] = cpu.udwadia_kalaba[r] / cpu.kane[r] end
  print(string.format("\nN = %d (%d coordinates, %d rows), %g s", N, 3 * (2 * N + 1),
                      2 * (N + 1) + 4 * N, opts("kane", N).t_end))
  print(string.format("%-16s %8s %10s %10s %9s %8s %6s %9s", "formulation", "solver", "cpu (s)",
                      "min–max", "max error", "rhs", "newton", "SVD evals"))
  for _, f in ipairs(forms) do
    local v = cpu[f]
    print(string.format("%-16s %8s %10.4f %4.3f–%-4.3f %9.2e %8d %6d %9d", f, rec[f].solver,
                        median(v), math.min(table.unpack(v)), math.max(table.unpack(v)),
                        rec[f].err, rec[f].nfev, rec[f].newton, rec[f].svd))
    if not (rec[f].err <= BOUND) then
      print(string.format("  %s: error %.2e above the bound %g", f, rec[f].err, BOUND))
      ok = false
    end
  end
  print(string.format("udwadia_kalaba / kane: %.2f (%.2f–%.2f), rhs evaluations %.2f", median(ratios),
                      math.min(table.unpack(ratios)), math.max(table.unpack(ratios)),
                      rec.udwadia_kalaba.nfev / rec.kane.nfev))
end
if not ok then error("an error above the bound") end
