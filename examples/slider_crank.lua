-- A slider-crank under gravity with a spring-damper on the slider, simulated with Kane's method.
--
--   mbd examples/slider_crank.lua [OUTDIR]
--
-- The crank (0.3 m, pinned at its end to the ground at the origin) drives a 0.8 m connecting rod
-- whose far end is pinned to a slider on the ground's x axis.  A spring-damper (k = 200 N/m,
-- c = 5 N·s/m, free length 0.6 m) ties the slider to the ground point (2, 0).  Released at rest
-- from crank angle 45°, the mechanism oscillates and the damper takes the energy out.
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local m = mbd.model { name = "slider crank", dim = 2, gravity = {0, -9.81} }

local r, l = 0.3, 0.8
local th = math.pi / 4
-- rough poses are enough: assembly moves them onto the constraints (as little as it can)
local crank = m:body { name = "crank", mass = 2, inertia = 0.015,
                       pos = {r / 2 * math.cos(th), r / 2 * math.sin(th)}, angle = th }
local bx = r * math.cos(th) + math.sqrt(l ^ 2 - (r * math.sin(th)) ^ 2)   -- slider position
local phi = -math.asin(r * math.sin(th) / l)                               -- rod angle
local rod = m:body { name = "rod", mass = 1.5, inertia = 0.08,
                     pos = {r * math.cos(th) + l / 2 * math.cos(phi), r * math.sin(th) / 2},
                     angle = phi }
local slider = m:body { name = "slider", mass = 1, inertia = 0.001, pos = {bx, 0} }

m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-r / 2, 0} }
m:revolute { name = "A", body1 = crank, at1 = {r / 2, 0}, body2 = rod, at2 = {-l / 2, 0} }
m:revolute { name = "B", body1 = rod, at1 = {l / 2, 0}, body2 = slider, at2 = {0, 0} }
m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0},
                  axis1 = {1, 0} }
m:spring { name = "k", body1 = slider, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0},
           k = 200, c = 5, length = 0.6 }

print(m:info())
local run = m:simulate { t_end = 5, formulation = "kane", rtol = 1e-8, atol = 1e-8,
                         output_every = 0.01 }
print(run)

-- energy only decreases (the damper dissipates): report the loss
local _, e = run:series("energy")
print(string.format("energy: %.4f J at t = 0, %.4f J at t = 5 s (damper took %.4f J)",
                    e[1], e[#e], e[1] - e[#e]))
local _, x = run:series("slider.x")
local lo, hi = math.huge, -math.huge
for i = 1, #x do lo, hi = math.min(lo, x[i]), math.max(hi, x[i]) end
print(string.format("slider travel: %.4f .. %.4f m", lo, hi))

mbd.plot { run = run, y = {"slider.x", "crank.theta"}, file = out .. "/slider_crank.png",
           title = "Slider-crank with a spring-damper (kane + adams)" }
print("wrote " .. out .. "/slider_crank.png")

-- left in globals for `mbd -i examples/slider_crank.lua`: model (the model), run
_G.model, _G.run = m, run
