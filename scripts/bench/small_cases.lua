-- Benchmark (issue 14, small models): the paper 000 examples and the four-bar under gravity with
-- every Cartesian formulation and integrator, for before/after comparisons of the per-evaluation
-- overhead (scripts/bench/small_callgrind.sh runs it under two builds).
--
--   mbd scripts/bench/small_cases.lua                       every cell: CPU (least of 5), counts
--   mbd scripts/bench/small_cases.lua CASE FORM INTEGRATOR  one run (for callgrind): prints nfev
--   mbd scripts/bench/small_cases.lua CASE FORM INTEGRATOR N   also the least CPU of N runs (ms)
--
-- Cases: pendulum (paper 000 ex. 1, 10 s), fourbar-I and fourbar-II (ex. 2, 10 s), spatial (ex. 3,
-- 10 s, rtol 1e-5 and position_tol 1e-3 as the paper's first row), gravity (the four-bar of
-- examples/fourbar.lua under gravity, 5 s).  rtol = atol = 1e-6 otherwise, position_tol 1e-6,
-- rk4 with a step of 2 ms; samples every 10 ms (recording counts: it is part of a run).
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")

local example_model = dofile(here .. "/../example_model.lua")

-- examples/fourbar.lua's mechanism: crank 0.4 m, coupler 1.2 m, rocker 0.8 m, uniform bars
local function gravity_fourbar() return example_model("fourbar") end

local cases = {
  { "pendulum", models.double_pendulum, 10 },
  { "fourbar-I", function() return models.fourbar(2.0, 1.047) end, 10 },
  { "fourbar-II", function() return models.fourbar(1.9, 1.1036) end, 10 },
  { "spatial", models.spatial_fourbar, 10 },
  { "gravity", gravity_fourbar, 5 },
}
local forms = { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" }
local integrators = { "adams", "bdf", "rk45", "rk4" }

local function run(m, t_end, f, integ)
  local spatial = m.dim == 3
  local tol = spatial and 1e-5 or 1e-6
  return m:simulate { t_end = t_end, formulation = f, integrator = integ, rtol = tol, atol = tol,
                      step = integ == "rk4" and 2e-3 or nil,
                      position_tol = spatial and 1e-3 or 1e-6,
                      stabilization = { alpha = 5, beta = 5 }, output_every = 0.01 }
end

if arg[1] then
  for _, c in ipairs(cases) do
    if c[1] == arg[1] then
      local m = c[2]()
      local ok, r = pcall(run, m, c[3], arg[2] or "kane", arg[3] or "adams")
      local best = ok and r.stats.cpu_time or nil
      for _ = 2, tonumber(arg[4]) or 1 do
        if not ok then break end
        best = math.min(best, run(m, c[3], arg[2], arg[3]).stats.cpu_time)
      end
      if arg[4] and ok then
        print(arg[1], arg[2], arg[3], string.format("%.4f", best * 1e3), r.stats.nfev)
      else
        print(arg[1], arg[2], arg[3], ok and r.stats.nfev or ("failed: " .. tostring(r)))
      end
      return
    end
  end
  error("unknown case " .. arg[1])
end

print("case        formulation     integrator   nfev   steps  cpu [ms]")
for _, c in ipairs(cases) do
  local m = c[2]()
  for _, f in ipairs(forms) do
    for _, integ in ipairs(integrators) do
      local best, r
      for _ = 1, 5 do
        local ok, x = pcall(run, m, c[3], f, integ)
        if not ok then r = nil; break end
        r = x
        best = math.min(best or math.huge, x.stats.cpu_time)
      end
      if r then
        print(string.format("%-11s %-15s %-10s %6d %7d %9.3f", c[1], f, integ, r.stats.nfev,
                            r.stats.steps, best * 1e3))
      else
        print(string.format("%-11s %-15s %-10s %6s %7s %9s", c[1], f, integ, "-", "-", "failed"))
      end
    end
  end
end
