-- Lesson 4 (docs/tutorial/04-spinning-top.md): a spatial body — Euler parameters and their
-- normalization constraint, a ball joint, gyroscopic precession against the closed form.
--
--   mbd examples/tutorial/04_spinning_top.lua [OUTDIR]      (default out/tutorial)
--   mbd -i examples/tutorial/04_spinning_top.lua            then: m, run, ex
--
-- A symmetric top (0.5 kg; centre of mass l = 4 cm above the tip; I1 = I2 = 2e-4, I3 = 3e-4
-- kg m^2 about the centre of mass) stands on its tip, a ball joint at the origin, tilted 30
-- degrees and spinning at w3 = 300 rad/s.  Started in steady precession it keeps its tilt, and its
-- axis turns about the vertical at the rate W that solves  I1' cos(theta) W^2 - I3 w3 W + m g l = 0
-- (I1' = I1 + m l^2, about the tip).  With its centre of mass at a constant height, the tip
-- carries exactly the weight m g upward.
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local mass, l, g = 0.5, 0.04, 9.81
local I1, I3 = 2e-4, 3e-4
local theta, w3 = math.rad(30), 300
local a, b = (I1 + mass * l ^ 2) * math.cos(theta), I3 * w3
local W = (b - math.sqrt(b * b - 4 * a * mass * g * l)) / (2 * a)   -- the slow, steady root

m = mbd.model { name = "spinning top", dim = 3, gravity = {0, 0, -g} }
local rot = mbd.rot.axis_angle({1, 0, 0}, theta)                  -- body z tilted by theta
local e3 = mbd.rot.rotate(rot, {0, 0, 1})                          -- the symmetry axis, global
local psidot = w3 - W * math.cos(theta)                            -- spin relative to the precession
local w = {psidot * e3[1], psidot * e3[2], W + psidot * e3[3]}     -- omega, global
local r = {l * e3[1], l * e3[2], l * e3[3]}
local v = {w[2] * r[3] - w[3] * r[2], w[3] * r[1] - w[1] * r[3], w[1] * r[2] - w[2] * r[1]}
local top = m:body { name = "top", mass = mass, inertia = {I1, I1, I3}, pos = r, rot = rot,
                     vel = v, omega = w }
m:spherical { name = "tip", body1 = m.ground, at1 = {0, 0, 0}, body2 = top, at2 = {0, 0, -l} }
print(m:info())

local T = 2 * math.pi / W
run = m:simulate { t_end = T, formulation = "kane", rtol = 1e-10, atol = 1e-10, output_every = T / 500 }

-- the precession rate: the azimuth of the centre of mass, unwrapped, over the time
local t, x = run:series("top.x")
local _, y = run:series("top.y")
local phi, prev = 0, math.atan(y[1], x[1])
for i = 2, #t do
  local d = math.atan(y[i], x[i]) - prev
  phi, prev = phi + d - 2 * math.pi * math.floor((d + math.pi) / (2 * math.pi)), prev + d
end
local measured = phi / t[#t]
print(string.format("precession: measured %.6f rad/s, closed form %.6f rad/s (relative difference %s)",
                    measured, W, math.abs(measured - W) / W < 1e-6 and "below 1e-6" or "ABOVE 1e-6"))
local zmin, zmax = math.huge, -math.huge
for _, z in ipairs((select(2, run:series("top.z")))) do zmin, zmax = math.min(zmin, z), math.max(zmax, z) end
print(string.format("the centre of mass stays at height %.6f m (it moves by %s)", zmin,
                    zmax - zmin < 1e-6 and "less than a micrometre" or "MORE than a micrometre"))

-- the equations at a quarter period: seven coordinates (x y z e0 e1 e2 e3), four rows: the ball
-- joint's three and the Euler parameters' norm
ex = m:explain { run = run, t = T / 4 }
print("coordinates: " .. table.concat(ex.coordinates, " "))
print("rows: " .. table.concat(ex.rows, " ") .. "; degrees of freedom " .. ex.dof)
print("  " .. ex.rows[4] .. ": " .. ex.meaning[4] .. "; its lambda: " .. ex.lambda_is[4])
local f = ex.reactions[1].force
print(string.format("tip reaction (%.4f, %.4f, %.4f) N; vertical part against m g = %.4f N", f[1], f[2], f[3],
                    mass * g))

run:animate { file = out .. "/04_spinning_top.html", shapes = { top = { cylinder = {0.03, 0.012} } },
              trace = { { body = top, at = {0, 0, 0.02} } } }
print("wrote " .. out .. "/04_spinning_top.html")
