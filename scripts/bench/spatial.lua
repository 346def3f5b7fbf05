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

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper000/models.lua")
local fourbar = models.spatial_fourbar

local function chain(N)
  local m = mbd.model { name = N .. "-body spatial chain", dim = 3, gravity = {0, 0, -9.81} }
  local a = 0.3
  local dir = {math.sin(a), 0, -math.cos(a)}                 -- every rod along this direction
  local rot = mbd.rot.from_axes(dir, {0, 1, 0})              -- body x along the rod
  local prev, at_prev = m.ground, {0, 0, 0}
  for i = 1, N do
    local c = (i - 0.5)
    local b = m:body { name = "l" .. i, mass = 1, inertia = {0.001, 1 / 12, 1 / 12}, rot = rot,
                       pos = {c * dir[1], c * dir[2], c * dir[3]},
                       vel = {0, 0.5 * c, 0}, omega = {0.5 * math.cos(a), 0, 0.5 * math.sin(a)} }
    m:spherical { name = "j" .. i, body1 = prev, at1 = at_prev, body2 = b, at2 = {-0.5, 0, 0} }
    prev, at_prev = b, {0.5, 0, 0}
  end
  return m
end

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
