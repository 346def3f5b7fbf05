-- Benchmark (issue 2): right-hand-side evaluations per second for the double pendulum and a
-- 32-link planar pendulum chain, and how the time per simulated second grows with the number of
-- links (2, 8, 32, 128).
--
--   mbd scripts/bench/planar.lua          (build in Release: cmake -DCMAKE_BUILD_TYPE=Release)
--
-- Each figure is the best of 3 repeats (least CPU).  The chain hangs from the origin, links 1 m
-- long (CM in the middle, m = 1 kg, J = 1/12 kg·m²), released at 0.3 rad from the vertical under
-- gravity; formulation augmented, CVODE Adams, rtol = atol = 1e-6.  The augmented matrix has
-- n + m = 5N rows for N links: linear_solver "auto" factors it densely (O(N³) per LU) below 20
-- unknowns and sparsely (KLU, O(N) for a chain) from there, so the scaling table grows about
-- linearly per evaluation; scripts/bench/chain.lua compares the dense and the sparse solve.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local chain = dofile(here .. "/chains.lua").planar
local double_pendulum = dofile(here .. "/../paper000/models.lua").double_pendulum

local function bench(m, t_end, form)
  return study.best_of(3, function()
    return m:simulate { t_end = t_end, formulation = form or "augmented", rtol = 1e-6, atol = 1e-6,
                        output_every = t_end }
  end)
end

local rows = {}
for _, case in ipairs { { "double pendulum", double_pendulum(), 50 }, { "32-link chain", chain(32), 2 } } do
  for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane" } do
    local r, cpu = bench(case[2], case[3], f)
    rows[#rows + 1] = { case[1], f, case[3], r.stats.nfev, cpu * 1000, r.stats.nfev / cpu }
  end
end
study.table { title = "Right-hand-side evaluations per second (CPU time of the whole run)",
              header = { "mechanism", "formulation", "t_end [s]", "nfev", "cpu [ms]", "nfev/s" },
              formats = { nil, nil, nil, nil, "%.1f", "%.0f" }, rows = rows }

rows = {}
local prev
for _, N in ipairs { 2, 8, 32, 128 } do
  local t_end = N >= 128 and 0.25 or 1
  local r, cpu = bench(chain(N), t_end)
  local per = cpu / t_end
  rows[#rows + 1] = { N, 5 * N, t_end, r.stats.nfev, cpu * 1000, per * 1000, 1e6 * cpu / r.stats.nfev,
                      prev and string.format("%.1f", per / prev) or "-" }
  prev = per
end
study.table { title = "Chain of N links (augmented + adams): time per simulated second",
              header = { "N", "n+m", "t_end [s]", "nfev", "cpu [ms]", "ms per sim. s", "us per rhs",
                         "growth vs N/4" },
              formats = { nil, nil, nil, nil, "%.1f", "%.1f", "%.1f" }, rows = rows }
