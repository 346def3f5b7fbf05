-- A heavy spinning top: gyroscopic precession, checked against the closed form.
--
--   mbd examples/spinning_top.lua [OUTDIR]
--
-- A symmetric top (0.5 kg, centre of mass l = 4 cm above its tip, moments I1 = I2 about the
-- transverse axes and I3 about its symmetry axis, both about the centre of mass) stands on its
-- tip, a ball joint at the origin, tilted by θ from the vertical and spinning at ω3 about its
-- axis.  Gravity pulls it over, and the spin turns that into precession: the axis circles the
-- vertical at the rate Ω.  For a steady precession (θ constant) Ω solves exactly
--
--     I1' cos θ Ω² − I3 ω3 Ω + m g l = 0,      I1' = I1 + m l² (about the tip),
--
-- whose slow root, for a fast top, is close to the gyroscopic approximation Ω ≈ m g l / (I3 ω3).
-- The script starts the top in steady precession and compares; then it lets the same top go
-- without precession: the axis nods (nutation) while it precesses, on average near m g l/(I3 ω3).
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local mass, l, g = 0.5, 0.04, 9.81
local I1, I3 = 2e-4, 3e-4
local theta, w3 = math.rad(30), 300        -- tilt and spin (rad/s, about 2900 rpm)

local I1p, mgl = I1 + mass * l ^ 2, mass * g * l
local a, b = I1p * math.cos(theta), I3 * w3
local Omega = (b - math.sqrt(b * b - 4 * a * mgl)) / (2 * a)   -- the slow (steady) precession
local Omega_gyro = mgl / (I3 * w3)

-- the top started with precession rate W: angular velocity ω = W z + ψ̇ e3 with ω·e3 = ω3
local function top(W)
  local m = mbd.model { name = "spinning top", dim = 3, gravity = {0, 0, -g} }
  local rot = mbd.rot.axis_angle({1, 0, 0}, theta)          -- tilt the body's z axis by θ
  local e3 = mbd.rot.rotate(rot, {0, 0, 1})                  -- the symmetry axis, global
  local psidot = w3 - W * math.cos(theta)
  local w = {psidot * e3[1], psidot * e3[2], W + psidot * e3[3]}
  local r = {l * e3[1], l * e3[2], l * e3[3]}
  local v = {w[2] * r[3] - w[3] * r[2], w[3] * r[1] - w[1] * r[3], w[1] * r[2] - w[2] * r[1]}
  local body = m:body { name = "top", mass = mass, inertia = {I1, I1, I3}, pos = r, rot = rot,
                        vel = v, omega = w }
  m:spherical { name = "tip", body1 = m.ground, at1 = {0, 0, 0}, body2 = body, at2 = {0, 0, -l} }
  return m
end

-- the azimuth of the top's axis, unwrapped, divided by the time
local function precession_rate(run)
  local t, x = run:series("top.x")
  local _, y = run:series("top.y")
  local phi0 = math.atan(y[1], x[1])
  local phi, prev = phi0, phi0
  for i = 2, #t do
    local ang = math.atan(y[i], x[i])
    local d = ang - prev
    d = d - 2 * math.pi * math.floor((d + math.pi) / (2 * math.pi))
    phi, prev = phi + d, ang
  end
  return (phi - phi0) / t[#t]
end

local T = 2 * math.pi / Omega                  -- one precession period
local steady = top(Omega):simulate { t_end = T, formulation = "baumgarte", rtol = 1e-10,
                                     atol = 1e-10, output_every = T / 500 }
local measured = precession_rate(steady)
print(string.format("top tilted %.0f degrees, spinning at %.0f rad/s:", math.deg(theta), w3))
print(string.format("  steady precession, exact relation     %.8f rad/s", Omega))
print(string.format("  measured over one precession period   %.8f rad/s (relative error %.1e)",
                    measured, math.abs(measured - Omega) / Omega))
print(string.format("  gyroscopic approximation m g l/(I3 w3) %.8f rad/s (%.1f %% off: the top is "
                    .. "not infinitely fast)", Omega_gyro, 100 * math.abs(Omega_gyro - Omega) / Omega))
print(string.format("  %d function evaluations, %.1f ms CPU, largest violation %.1e",
                    steady.stats.nfev, 1000 * steady.stats.cpu_time,
                    steady.stats.max_position_violation))

-- released without precession: the tip of the axis traces cusps (nutation)
local free = top(0):simulate { t_end = T, rtol = 1e-9, atol = 1e-9, output_every = T / 2000 }
print(string.format("  released without precession: mean precession %.4f rad/s (gyroscopic "
                    .. "approximation %.4f)", precession_rate(free), Omega_gyro))

mbd.plot { runs = {steady, free}, labels = {"steady precession", "released without precession"},
           x = "top.x", y = "top.y", equal_axes = true, file = out .. "/spinning_top.png",
           title = "Spinning top: centre of mass seen from above", xlabel = "x [m]",
           ylabel = "y [m]" }
print("wrote " .. out .. "/spinning_top.png")

-- left in globals for `mbd -i examples/spinning_top.lua`: run (steady precession), free_run
_G.run, _G.free_run = steady, free
