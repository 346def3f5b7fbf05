-- Lesson 1 (docs/tutorial/01-pendulum.md): a compound pendulum — a model, a run, its channels,
-- an event, the equations at one instant, and a 3-D replay.
--
--   mbd examples/tutorial/01_pendulum.lua [OUTDIR]      (default out/tutorial)
--   mbd -i examples/tutorial/01_pendulum.lua            then look around: m, small, big, ex
--
-- A uniform rod (1 kg, 1 m) hangs from a pin at one end.  About the pin its moment of inertia is
-- I_O = m L^2 / 3 and its centre of mass is d = L/2 below it, so small swings have the period
-- T = 2 pi sqrt(I_O / (m g d)).  Released from the horizontal, the pin first carries a quarter
-- of the weight, and the rod starts with the angular acceleration 3 g / (2 L).
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local L, mass, g = 1.0, 1.0, 9.81

-- the model: planar, gravity along -y; the rod's frame sits at its centre of mass
m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -g} }
local function rod_at(angle)
  return { name = "rod", mass = mass, inertia = mass * L ^ 2 / 12,
           pos = {L / 2 * math.cos(angle), L / 2 * math.sin(angle)}, angle = angle }
end
local rod = m:body(rod_at(-math.pi / 2 + 0.1))          -- hanging, turned 0.1 rad
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-L / 2, 0} }
print(m:info())

-- small swings: the run stops where the rod passes the vertical, a quarter period in
small = m:simulate { t_end = 5, formulation = "kane", rtol = 1e-10, atol = 1e-10,
                     stop_when = function(t, state) return state:get("rod.theta") + math.pi / 2 end }
local T_theory = 2 * math.pi * math.sqrt((mass * L ^ 2 / 3) / (mass * g * L / 2))
print(string.format("small swings: quarter period %.5f s, so T = %.5f s; theory (small angles) %.5f s",
                    small.stop_time, 4 * small.stop_time, T_theory))

-- released from the horizontal: energy is kept to the integrator's tolerance
local m2 = mbd.model { name = "pendulum (horizontal release)", dim = 2, gravity = {0, -g} }
local rod2 = m2:body(rod_at(0))
m2:revolute { name = "O", body1 = m2.ground, at1 = {0, 0}, body2 = rod2, at2 = {-L / 2, 0} }
big = m2:simulate { t_end = 3, formulation = "kane", rtol = 1e-9, atol = 1e-9, output_every = 0.01 }
local _, e = big:series("energy")
local drift = 0
for i = 1, #e do drift = math.max(drift, math.abs(e[i] - e[1])) end
local _, th = big:series("rod.theta")
local lowest = math.huge
for i = 1, #th do lowest = math.min(lowest, th[i]) end
print(string.format("horizontal release: swings to theta = %.4f rad (the other horizontal), energy kept to %.1e J",
                    lowest, drift))

-- the equations at the release: Phi_q, the partition, M, Q, lambda and the pin's reaction
ex = m2:explain { run = big, t = 0 }
print(ex)
print(string.format("check: thetadd = %.4f (theory -3g/(2L) = %.4f), pin force up %.4f N (theory m g / 4 = %.4f)",
                    ex.qdd[3], -3 * g / (2 * L), ex.reactions[1].force[2], mass * g / 4))

-- a figure and a page to watch it swing
mbd.plot { run = big, y = {"rod.theta"}, file = out .. "/01_pendulum_theta.png",
           title = "Compound pendulum released from the horizontal" }
big:animate { file = out .. "/01_pendulum.html", trace = { { body = rod2, at = {L / 2, 0} } } }
print("wrote " .. out .. "/01_pendulum_theta.png and " .. out .. "/01_pendulum.html")
