-- Benchmark (issue 3): right-hand-side evaluations per second for spatial models: the spatial
-- four-bar of paper 000 example 3 and a 16-body spatial chain with spherical joints.
--
--   mbd scripts/bench/spatial.lua          (build in Release: cmake -DCMAKE_BUILD_TYPE=Release)
--
-- Each figure is the best of 3 repeats (least CPU).  Four-bar: the geometry and data of
-- scripts/paper000/models.lua (3 bodies, 21 coordinates, 20 constraints), 10 s, tolerance 1e-5
-- as in the paper's Table 3.  Chain: 16 rods 1 m long (1 kg, CM in the middle, inertia
-- {0.001, 1/12, 1/12} about the rod's x axis and across it) joined by spherical joints, hanging
-- from the origin, released 0.3 rad from the vertical with a sideways push, under gravity; 2 s,
-- rtol = atol = 1e-6 (112 coordinates, 64 constraints: 48 joint equations and 16 Euler-parameter
-- norms).  One evaluation assembles M, Q, Φ, Φq, γ and factors the (n + m)² augmented matrix.
local study = require "mbd.study"
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")
local fourbar = models.spatial_fourbar

local chain = chains.spherical

local cases = {
  { "spatial four-bar", fourbar(), 10, 1e-5 },
  { "16-body chain", chain(16), 2, 1e-6 },
}
local rows = {}
for _, case in ipairs(cases) do
  local name, m, t_end, tol = table.unpack(case)
  for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane" } do
    local ok, r, cpu = pcall(study.best_of, 3, function()
      return m:simulate { t_end = t_end, formulation = f, rtol = tol, atol = tol,
                          position_tol = tol, output_every = t_end }
    end)
    if ok then
      rows[#rows + 1] = { name, f, t_end, r.stats.nfev, cpu * 1000, r.stats.nfev / cpu }
    else
      rows[#rows + 1] = { name, f, t_end, "-", "-", "failed: " .. tostring(r):sub(1, 60) }
    end
  end
end
study.table { title = "Spatial models: right-hand-side evaluations per second (CPU of the whole run)",
              header = { "mechanism", "formulation", "t_end [s]", "nfev", "cpu [ms]", "nfev/s" },
              formats = { nil, nil, nil, nil, "%.1f", "%.0f" }, rows = rows }
