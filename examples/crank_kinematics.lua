-- Kinematic analysis of a driven slider-crank, checked against the closed form.
--
--   mbd examples/crank_kinematics.lua [OUTDIR]
--
-- The crank turns at one revolution per second (a drive on its ground joint), so the mechanism
-- has no degree of freedom left: m:kinematics solves position, velocity and acceleration at each
-- output time, and the torque the drive must give (its "effort") by inverse dynamics.
-- Closed form of the slider position: x(θ) = r cos θ + √(l² − r² sin² θ).
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local m = mbd.model { name = "driven slider crank", dim = 2, gravity = {0, -9.81} }
local r, l = 0.1, 0.35
local crank = m:body { name = "crank", mass = 0.5, inertia = 0.5 * 0.2 ^ 2 / 12,
                       pos = {r / 2, 0}, angle = 0 }
local rod = m:body { name = "rod", mass = 1.0, inertia = 1.0 * l ^ 2 / 12,
                     pos = {r + l / 2, 0}, angle = 0 }
local slider = m:body { name = "slider", mass = 2.0, inertia = 1e-3, pos = {r + l, 0} }

local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-r / 2, 0} }
m:revolute { name = "A", body1 = crank, at1 = {r / 2, 0}, body2 = rod, at2 = {-l / 2, 0} }
m:revolute { name = "B", body1 = rod, at1 = {l / 2, 0}, body2 = slider, at2 = {0, 0} }
m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0},
                 axis1 = {1, 0} }

-- θ(t) = 2πt with its exact derivatives (without them mbd differentiates numerically)
m:drive { joint = O, position = function(t) return 2 * math.pi * t end,
          velocity = function(t) return 2 * math.pi end,
          acceleration = function(t) return 0 end }

local k = m:kinematics { t_end = 2, steps = 720 }      -- two turns, every degree
print(k)

local worst = 0
local t, x = k:series("slider.x")
for i = 1, #t do
  local th = 2 * math.pi * t[i]
  local exact = r * math.cos(th) + math.sqrt(l ^ 2 - (r * math.sin(th)) ^ 2)
  worst = math.max(worst, math.abs(x[i] - exact))
end
print(string.format("slider position vs closed form: max error %.2e m over %d positions",
                    worst, #t))
local _, tq = k:series("O.effort")
local tmin, tmax = math.huge, -math.huge
for i = 1, #tq do tmin, tmax = math.min(tmin, tq[i]), math.max(tmax, tq[i]) end
print(string.format("drive torque needed: %.3f .. %.3f N·m", tmin, tmax))

mbd.plot { run = k, y = {"slider.x", "slider.vx"}, file = out .. "/crank_kinematics.png",
           title = "Driven slider-crank: slider position and velocity" }
mbd.plot { run = k, y = "O.effort", file = out .. "/crank_torque.png", ylabel = "torque [N m]",
           title = "Driven slider-crank: drive torque (inverse dynamics)" }
print("wrote " .. out .. "/crank_kinematics.png and " .. out .. "/crank_torque.png")

-- left in globals for `mbd -i examples/crank_kinematics.lua`: model (the model), run (its kinematic run)
_G.model, _G.run = m, k
