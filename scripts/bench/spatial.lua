-- Benchmark (issue 3): right-hand-side evaluations per second for spatial models: the spatial
-- four-bar of paper 000 example 3 and a 16-body spatial chain with spherical joints.
--
--   mbd scripts/bench/spatial.lua          (build in Release: cmake -DCMAKE_BUILD_TYPE=Release)
--
-- Each figure is the best of 3 repeats (least CPU).  Four-bar: the geometry and data of
-- examples/spatial_fourbar.lua (3 bodies, 21 coordinates, 20 constraints), 10 s, tolerance 1e-5
-- as in the paper's Table 3.  Chain: 16 rods 1 m long (1 kg, CM in the middle, inertia
-- {0.001, 1/12, 1/12} about the rod's x axis and across it) joined by spherical joints, hanging
-- from the origin, released 0.3 rad from the vertical with a sideways push, under gravity; 2 s,
-- rtol = atol = 1e-6 (112 coordinates, 64 constraints: 48 joint equations and 16 Euler-parameter
-- norms).  One evaluation assembles M, Q, Φ, Φq, γ and factors the (n + m)² augmented matrix.
local study = require "mbd.study"

local function fourbar()
  local r, b1, b2, c1, c2 = 2, 6, 6, 1, 1
  local m = mbd.model { name = "spatial four-bar", dim = 3, gravity = {0, -9.81, 0} }
  local A, C = {0, r, 0}, {b1, c1, c2}
  local function sub(a, b) return {a[1] - b[1], a[2] - b[2], a[3] - b[3]} end
  local function mid(a, b) return {(a[1] + b[1]) / 2, (a[2] + b[2]) / 2, (a[3] + b[3]) / 2} end
  local function norm(a) return math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2) end
  local function B_of(psi) return {C[1] + b2 * math.cos(psi), C[2] + b2 * math.sin(psi), C[3]} end
  local lo, hi = math.pi / 2, math.pi
  for _ = 1, 60 do
    local psi = (lo + hi) / 2
    if norm(sub(B_of(psi), A)) > b1 then lo = psi else hi = psi end
  end
  local B = B_of((lo + hi) / 2)
  local u2, u3 = sub(B, A), sub(B, C)
  local disk = m:body { name = "link1", mass = 2, inertia = {4, 2, 2} }
  local link2 = m:body { name = "link2", mass = 1, inertia = {12.4, 0.01, 12.4}, pos = mid(A, B),
                         rot = mbd.rot.from_axes({0, -u2[3], u2[2]}, u2) }
  local link3 = m:body { name = "link3", mass = 1, inertia = {4.54, 0.01, 4.54}, pos = mid(C, B),
                         rot = mbd.rot.from_axes({0, 0, 1}, u3) }
  local J1 = m:revolute { name = "J1", body1 = m.ground, axis1 = {1, 0, 0}, body2 = disk,
                          axis2 = {1, 0, 0} }
  m:universal { name = "J2", body1 = disk, at1 = {0, r, 0}, axis1 = {1, 0, 0},
                body2 = link2, at2 = {0, -b1 / 2, 0}, axis2 = {1, 0, 0} }
  m:spherical { name = "J3", body1 = link2, at1 = {0, b1 / 2, 0}, body2 = link3, at2 = {0, b2 / 2, 0} }
  m:revolute { name = "J4", body1 = link3, at1 = {0, -b2 / 2, 0}, axis1 = {1, 0, 0},
               body2 = m.ground, at2 = C, axis2 = {0, 0, 1} }
  m:rotational_spring { joint = J1, k = 1, c = 5, angle = 0 }
  return m
end

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
