-- Lesson 9 (docs/tutorial/09-screw-planar.md): the screw joint and the planar joint — one degree
-- of freedom shared by a turn and a slide, three in a plane — against their closed forms, in every
-- formulation and in joint coordinates.
--
--   mbd examples/tutorial/09_screw_planar.lua [OUTDIR]      (default out/tutorial)
--   mbd -i examples/tutorial/09_screw_planar.lua            then: m, run, puck
--
-- A nut (0.2 kg, I3 = 2e-5 kg m^2 about its axis) on a vertical screw of pitch 5 mm per turn is
-- let go: it turns down the thread.  With the lead lambda = pitch / 2 pi, its angle obeys
-- (I3 + m lambda^2) theta'' = -m g lambda, a constant: theta = theta'' t^2 / 2.  A puck on a plane
-- tilted 30 degrees slides down it from rest, x = g sin(30 deg) t^2 / 2 along the slope, while it
-- keeps the spin it was given about the plane's normal.
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local mass, I3, g, pitch = 0.2, 2e-5, 9.81, 0.005
local lambda = pitch / (2 * math.pi)
local acc = -mass * g * lambda / (I3 + mass * lambda ^ 2)          -- theta'', rad/s^2

m = mbd.model { name = "screw and plane", dim = 3, gravity = {0, 0, -g} }
local nut = m:body { name = "nut", mass = mass, inertia = {1e-5, 1e-5, I3}, pos = {0, 0, 0.1} }
m:screw { name = "S", body1 = m.ground, at1 = {0, 0, 0.1}, body2 = nut, at2 = {0, 0, 0},
          axis1 = {0, 0, 1}, axis2 = {0, 0, 1}, pitch = pitch }

-- the plane through (1, 0, 0) tilted 30 degrees about the y axis: its normal n, and down the
-- slope the direction d (the puck's x); the puck spins at 2 rad/s about n
local tilt = math.rad(30)
local n = {math.sin(tilt), 0, math.cos(tilt)}
local down = {math.cos(tilt), 0, -math.sin(tilt)}
puck = m:body { name = "puck", mass = 0.5, inertia = {1e-3, 1e-3, 2e-3}, pos = {1, 0, 0},
                rot = mbd.rot.axis_angle({0, 1, 0}, tilt), omega = {2 * n[1], 2 * n[2], 2 * n[3]} }
m:planar { name = "P", body1 = m.ground, at1 = {1, 0, 0}, body2 = puck, at2 = {0, 0, 0},
           axis1 = n, axis2 = {0, 0, 1}, ref1 = down }
print(m:info())

-- every formulation against the closed forms at t = 0.5 s
local t = 0.5
local theta, slide = acc * t * t / 2, g * math.sin(tilt) * t * t / 2
print(string.format("closed forms at %.1f s: nut angle %.4f rad, advance %.6f m; puck x %.6f m, angle %.1f rad",
                    t, theta, lambda * theta, slide, 2 * t))
for _, f in ipairs { "kane", "augmented", "baumgarte", "gcp", "udwadia_kalaba", "relative" } do
  run = m:simulate { t_end = t, formulation = f, rtol = 1e-10, atol = 1e-10, quiet = true }
  local worst = math.max(math.abs(run:value("S.angle", t) - theta) / math.abs(theta),
                         math.abs(run:value("S.displacement", t) - lambda * theta) / math.abs(lambda * theta),
                         math.abs(run:value("P.x", t) - slide) / slide,
                         math.abs(run:value("P.angle", t) - 2 * t) / (2 * t))
  print(string.format("  %-15s %s", f, worst < 1e-6 and "agrees (relative difference below 1e-6)"
                                                      or string.format("differs by %.1e", worst)))
end

-- in joint coordinates: one angle for the screw, x, y and the angle for the planar joint
print(m:tree())

-- the last run (joint coordinates) as a page: the nut turning down its screw, the puck sliding
-- and spinning down the slope
run = m:simulate { t_end = 1, formulation = "relative", quiet = true }
run:animate { file = out .. "/09_screw_planar.html",
              shapes = { nut = { cylinder = {0.02, 0.01} }, puck = { cylinder = {0.05, 0.01} } } }
print("wrote " .. out .. "/09_screw_planar.html")
