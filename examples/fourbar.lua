-- A four-bar linkage swinging under gravity: conservation of energy and the coupler curve.
--
--   mbd examples/fourbar.lua [OUTDIR]
--
-- Ground pivots at (0, 0) and (1, 0); crank 0.4 m, coupler 1.2 m, rocker 0.8 m; each link a
-- uniform bar (inertia m·L²/12 about its centre).  The mechanism is released at rest and only
-- gravity acts, so its energy must stay constant: the run shows how well each formulation keeps
-- it, and how far the plain augmented formulation drifts off the constraints.
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local m = mbd.model { name = "four-bar", dim = 2, gravity = {0, -9.81} }

local function bar(name, mass, len, p1, p2)
  -- a uniform bar between two points (an estimate: assembly closes the loop)
  local cx, cy = (p1[1] + p2[1]) / 2, (p1[2] + p2[2]) / 2
  return m:body { name = name, mass = mass, inertia = mass * len ^ 2 / 12, pos = {cx, cy},
                  angle = math.atan(p2[2] - p1[2], p2[1] - p1[1]) }
end

local A, B = {0.4 * math.cos(1.2), 0.4 * math.sin(1.2)}, {1.3, 0.75}   -- rough joint positions
local crank = bar("crank", 1.0, 0.4, {0, 0}, A)
local coupler = bar("coupler", 3.0, 1.2, A, B)
local rocker = bar("rocker", 2.0, 0.8, B, {1, 0})

m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.2, 0} }
m:revolute { name = "A", body1 = crank, at1 = {0.2, 0}, body2 = coupler, at2 = {-0.6, 0} }
m:revolute { name = "B", body1 = coupler, at1 = {0.6, 0}, body2 = rocker, at2 = {-0.4, 0} }
m:revolute { name = "C", body1 = rocker, at1 = {0.4, 0}, body2 = m.ground, at2 = {1, 0} }

print(m:info())   -- 9 coordinates, 8 constraints, 1 degree of freedom
print()
print(string.format("%-10s %8s %14s %12s", "method", "nfev", "energy drift", "max |Phi|"))
local runs = {}
for _, f in ipairs { "kane", "gcp", "baumgarte", "augmented" } do
  local run = m:simulate { t_end = 10, formulation = f, rtol = 1e-8, atol = 1e-8,
                           output_every = 0.01 }
  local _, e = run:series("energy")
  local drift = 0
  for i = 1, #e do drift = math.max(drift, math.abs(e[i] - e[1])) end
  print(string.format("%-10s %8d %12.2e J %12.2e", f, run.stats.nfev, drift,
                      run.stats.max_position_violation))
  runs[#runs + 1] = run
end

mbd.plot { run = runs[1], x = "coupler.x", y = "coupler.y", equal_axes = true,
           file = out .. "/fourbar_coupler.png", title = "Four-bar: locus of the coupler's centre" }
mbd.plot { runs = runs, labels = { "kane", "gcp", "baumgarte", "augmented" }, y = "rocker.theta",
           file = out .. "/fourbar_rocker.png", title = "Four-bar under gravity: rocker angle" }
print("wrote " .. out .. "/fourbar_coupler.png and " .. out .. "/fourbar_rocker.png")

-- left in globals for `mbd -i examples/fourbar.lua`: model (the model), runs (one run per formulation)
_G.model, _G.runs = m, runs
