-- Benchmark (issue 4): CPU-time ratios KANE : GCP : CS (baumgarte) for the examples of paper
-- 000, measured in one run on one machine, with the counts that do not depend on the machine
-- (function evaluations, steps, Newton iterations, LU factorizations).
--
--   mbd scripts/bench/paper000.lua                 the table (best of 7 repeats per cell)
--   mbd scripts/bench/paper000.lua CASE FORM       one run, for callgrind (see paper000_callgrind.sh)
--
-- Cases: ex1-5, ex1-10, ex1-50 (double pendulum, t_end), ex2-I, ex2-II (four-bar, 10 s), ex3
-- (spatial four-bar, 10 s, ε_int = 1e-5 and ε_pos = 1e-3 as in the first row of Table 3).
-- Tolerances as in the reproductions: CVODE Adams, rtol = atol = 1e-6, ε_pos = 1e-6, α = β = 5.
-- Output is sampled only at the end (output_every = t_end) so that recording does not count.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")

local cases = {
  { "ex1-5", models.double_pendulum, 5 },
  { "ex1-10", models.double_pendulum, 10 },
  { "ex1-50", models.double_pendulum, 50 },
  { "ex2-I", function() return models.fourbar(2.0, 1.047) end, 10 },
  { "ex2-II", function() return models.fourbar(1.9, 1.1036) end, 10 },
  { "ex3", models.spatial_fourbar, 10 },
}

local function run(m, t_end, f)
  local spatial = m.dim == 3
  return m:simulate { t_end = t_end, formulation = f, integrator = "adams",
                      rtol = spatial and 1e-5 or 1e-6, atol = spatial and 1e-5 or 1e-6,
                      position_tol = spatial and 1e-3 or 1e-6,
                      stabilization = { alpha = 5, beta = 5 }, output_every = t_end }
end

if arg[1] then
  for _, c in ipairs(cases) do
    if c[1] == arg[1] then
      local r = run(c[2](), c[3], arg[2] or "kane")
      print(arg[1], arg[2], r.stats.nfev)
      return
    end
  end
  error("unknown case " .. arg[1])
end

local rows = {}
for _, c in ipairs(cases) do
  local m = c[2]()
  local cpu_kane
  for _, f in ipairs { "kane", "gcp", "baumgarte" } do
    local r, cpu = study.best_of(7, function() return run(m, c[3], f) end)
    if f == "kane" then cpu_kane = cpu end
    local s = r.stats
    rows[#rows + 1] = { c[1], f, 1e6 * cpu, string.format("%.2f", cpu / cpu_kane), s.nfev, s.steps,
                        s.newton_iterations, s.lu_factorizations, 1e9 * cpu / s.nfev }
  end
end
study.table { title = "Paper 000 examples: CPU ratios to KANE and counts (one run, this machine)",
              header = { "case", "method", "cpu [us]", "ratio", "nfev", "steps", "Newton", "LU",
                         "ns per rhs" },
              formats = { nil, nil, "%.0f", nil, nil, nil, nil, nil, "%.0f" }, rows = rows }
