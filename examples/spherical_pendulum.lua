-- A spherical pendulum: a ball on a light rod, hung from a ball joint, swinging in a cone.
--
--   mbd examples/spherical_pendulum.lua [OUTDIR]
--
-- A ball (radius 5 cm, 1 kg) hangs on a massless rod of length L = 1 m from a spherical joint at
-- the origin.  Started at the cone angle α from the vertical with the right speed, it circles
-- the vertical at the constant rate of the conical pendulum:
--
--     Ω² = g / (L cos α)
--
-- (exact for a ball too: its inertia is the same about every axis, so the rigid body adds nothing
-- to the point mass).  The script compares the measured rate with this closed form, then starts
-- the same pendulum a little too slow to show the rosette of a general spherical pendulum.
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local g, L, alpha = 9.81, 1.0, math.rad(30)
local mass, radius = 1.0, 0.05
local I = 2 / 5 * mass * radius ^ 2     -- a solid ball: the same moment about every axis
local Omega = math.sqrt(g / (L * math.cos(alpha)))

-- a model with the ball at the cone angle, moving along the cone at `speed` times the conical
-- rate.  The ball turns with the rod (spherical joint at the rod's top): its angular velocity
-- is Ω about the vertical, and its centre moves at v = ω × r.
local function pendulum(speed)
  local m = mbd.model { name = "spherical pendulum", dim = 3, gravity = {0, 0, -g} }
  local r = {L * math.sin(alpha), 0, -L * math.cos(alpha)}
  local w = speed * Omega
  local ball = m:body { name = "ball", mass = mass, inertia = {I, I, I}, pos = r,
                        vel = {0, w * r[1], 0}, omega = {0, 0, w} }
  -- the joint: the origin on the ground, and the point L above the ball's centre along the rod
  -- (the rod's direction in the ball's frame is the start direction, since the ball starts
  -- unrotated)
  m:spherical { name = "pivot", body1 = m.ground, at1 = {0, 0, 0},
                body2 = ball, at2 = {-r[1], -r[2], -r[3]} }
  return m
end

local m = pendulum(1.0)
print(m:info())   -- 7 coordinates, 4 constraints (3 joint + 1 Euler-parameter norm), 3 dof
print()

-- measured rate: the unwrapped azimuth of the ball after a few turns
local T = 5 * 2 * math.pi / Omega
local run = m:simulate { t_end = T, rtol = 1e-10, atol = 1e-10, output_every = T / 1000 }
local t, x = run:series("ball.x")
local _, y = run:series("ball.y")
local _, z = run:series("ball.z")
local phi, prev = 0, 0
local zmin, zmax = math.huge, -math.huge
for i = 2, #t do
  local a = math.atan(y[i], x[i])
  local d = a - prev
  d = d - 2 * math.pi * math.floor((d + math.pi) / (2 * math.pi))
  phi, prev = phi + d, a
  zmin, zmax = math.min(zmin, z[i]), math.max(zmax, z[i])
end
local measured = phi / t[#t]
print(string.format("conical pendulum, cone angle %.0f degrees, rod %.1f m:", math.deg(alpha), L))
print(string.format("  rate  closed form sqrt(g/(L cos a)) = %.8f rad/s", Omega))
print(string.format("        measured over 5 turns         = %.8f rad/s (relative error %.1e)",
                    measured, math.abs(measured - Omega) / Omega))
print(string.format("  height of the ball stays within %.1e m of -L cos a", math.max(
  math.abs(zmax + L * math.cos(alpha)), math.abs(zmin + L * math.cos(alpha)))))
local _, e = run:series("energy")
local drift = 0
for i = 1, #e do drift = math.max(drift, math.abs(e[i] - e[1])) end
print(string.format("  energy drift %.1e J, largest constraint violation %.1e (incl. |p| - 1)",
                    drift, run.stats.max_position_violation))
print(string.format("  %d function evaluations, %.1f ms CPU", run.stats.nfev,
                    1000 * run.stats.cpu_time))

-- a slower start: the ball drops below the cone and the orbit's turning points precess
local slow = pendulum(0.8):simulate { t_end = 10, rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
mbd.plot { runs = {run, slow}, labels = {"conical (steady)", "80 % of the conical speed"},
           x = "ball.x", y = "ball.y", equal_axes = true, file = out .. "/spherical_pendulum.png",
           title = "Spherical pendulum seen from above", xlabel = "x [m]", ylabel = "y [m]" }
print("wrote " .. out .. "/spherical_pendulum.png")

-- left in globals for `mbd -i examples/spherical_pendulum.lua`: model (the model), run, slow_run
_G.model, _G.run, _G.slow_run = m, run, slow
