-- A spatial slider-crank: the crank turns about x, the slider runs along a line skew to the
-- crank's plane, the connecting rod has a ball joint at the crank and a universal joint at the
-- slider (Haug's spatial slider-crank, with our own dimensions).
--
--   mbd examples/spatial_slider_crank.lua [OUTDIR]
--
-- Crank: radius r = 0.08 m, turning about the global x axis at the origin.  Slider: along the
-- line through (0, y0, z0) = (0, 0.1, 0.05) parallel to x.  Rod: length l = 0.3 m.  With the crank
-- angle φ measured from +y toward +z, the crank pin is P = (0, r cos φ, r sin φ) and the slider
-- sits at x = s with
--
--     s(φ) = sqrt(l² − (y0 − r cos φ)² − (z0 − r sin φ)²).
--
-- Part 1 drives the crank at one turn per second (a kinematic analysis: 0 degrees of freedom) and
-- compares the slider position with s(φ); it also reports the torque the motor needs against a
-- 50 N load on the slider.  Part 2 lets the mechanism run freely from a spin of the crank, with a
-- spring on the slider, and checks that the energy stays constant.
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local r, l, y0, z0 = 0.08, 0.3, 0.1, 0.05
local function s_of(phi)
  return math.sqrt(l ^ 2 - (y0 - r * math.cos(phi)) ^ 2 - (z0 - r * math.sin(phi)) ^ 2)
end

local function build(driven, spin)
  local m = mbd.model { name = "spatial slider-crank", dim = 3 }
  -- the start: φ = 0, pin P on +y, slider at S = (s(0), y0, z0)
  local P, S = {0, r, 0}, {s_of(0), y0, z0}
  local u = {S[1] - P[1], S[2] - P[2], S[3] - P[3]}          -- the rod's direction, P to S
  -- the crank: a bar along its body y axis from the axis to the pin
  -- (spin: its angular velocity about x, rad/s; its centre then moves at ω × r_cm)
  local crank = m:body { name = "crank", mass = 0.5, inertia = {1e-3, 2e-4, 1e-3},
                         pos = {0, r / 2, 0}, omega = {spin, 0, 0}, vel = {0, 0, spin * r / 2} }
  -- the rod: body x along the rod; its body y horizontal (the universal joint's arm on the rod)
  local rod = m:body { name = "rod", mass = 0.8, inertia = {1e-4, 6e-3, 6e-3},
                       pos = {(P[1] + S[1]) / 2, (P[2] + S[2]) / 2, (P[3] + S[3]) / 2},
                       rot = mbd.rot.from_axes(u, {-u[2], u[1], 0}) }
  local slider = m:body { name = "slider", mass = 1.0, inertia = {1e-3, 1e-3, 1e-3}, pos = S }

  local crank_axis = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {1, 0, 0},
                                  body2 = crank, at2 = {0, -r / 2, 0}, axis2 = {1, 0, 0} }
  m:spherical { name = "P", body1 = crank, at1 = {0, r / 2, 0}, body2 = rod, at2 = {-l / 2, 0, 0} }
  -- the universal joint's cross: the slider's z arm and the rod's y arm (perpendicular at start)
  m:universal { name = "S", body1 = slider, at1 = {0, 0, 0}, axis1 = {0, 0, 1},
                body2 = rod, at2 = {l / 2, 0, 0}, axis2 = {0, 1, 0} }
  m:translational { name = "guide", body1 = m.ground, at1 = {0, y0, z0}, axis1 = {1, 0, 0},
                    body2 = slider, at2 = {0, 0, 0}, axis2 = {1, 0, 0} }
  if driven then
    m:drive { joint = crank_axis, position = function(t) return 2 * math.pi * t end,
              velocity = function() return 2 * math.pi end, acceleration = function() return 0 end }
    m:force { body = slider, at = {0, 0, 0}, value = {-50, 0, 0} }   -- the load
  else
    m:spring { name = "return", body1 = m.ground, at1 = {0, y0, z0}, body2 = slider,
               at2 = {0, 0, 0}, k = 2000, c = 0, length = 0.2 }
  end
  return m
end

-- part 1: kinematics through two turns
local m = build(true, 0)
print(m:info())   -- 21 coordinates, 21 constraints (17 joint + 1 drive + 3 norms): fully driven
print()
local kin = m:kinematics { t_end = 2, steps = 720 }
local t, x = kin:series("slider.x")
local _, angle = kin:series("O.angle")
local _, torque = kin:series("O.effort")
local err, tmax = 0, 0
for i = 1, #t do
  err = math.max(err, math.abs(x[i] - s_of(2 * math.pi * t[i])))
  tmax = math.max(tmax, math.abs(torque[i]))
end
print(string.format("driven crank, two turns: crank angle at t = 2 s is %.6f rad (4π = %.6f)",
                    angle[#angle], 4 * math.pi))
print(string.format("  slider stroke %.4f m to %.4f m; largest difference from s(φ): %.1e m",
                    math.min(table.unpack(x)), math.max(table.unpack(x)), err))
print(string.format("  motor torque against the 50 N load and the inertia: up to %.2f N·m", tmax))
-- power balance: motor power T φ̇ plus the load's power F ẋ is the rate of the kinetic energy
local _, E = kin:series("energy")
local _, vx = kin:series("slider.vx")
local worst = 0
for i = 2, #t - 1 do
  local dEdt = (E[i + 1] - E[i - 1]) / (t[i + 1] - t[i - 1])
  worst = math.max(worst, math.abs(torque[i] * 2 * math.pi - 50 * vx[i] - dEdt))
end
print(string.format("  power balance T·dφ/dt − 50·v_slider − dE/dt: within %.1e W (differences "
                    .. "of E over %.4f s)", worst, t[2] - t[1]))

-- part 2: free motion from a spin of the crank (the rod and slider velocities follow from the
-- velocity analysis at assembly), a spring on the slider; no damping, no gravity: the energy must
-- stay constant
local free = build(false, 10)
-- (Baumgarte stabilization keeps the joints closed, so the energy measured on the state is not
-- spoiled by drift off the constraints; its drift then follows the integration tolerance)
local dyn = free:simulate { t_end = 2, formulation = "baumgarte", rtol = 1e-9, atol = 1e-9,
                            output_every = 0.002 }
local _, e = dyn:series("energy")
local drift = 0
for i = 1, #e do drift = math.max(drift, math.abs(e[i] - e[1])) end
print(string.format("free motion with the spring: crank speed at start %.3f rad/s, energy %.4f J,",
                    dyn:value("crank.wx", 0), e[1]))
print(string.format("  energy drift %.1e J over 2 s (%d evaluations); crank angle at 2 s %.3f rad",
                    drift, dyn.stats.nfev, dyn:value("O.angle", 2)))

mbd.plot { run = kin, x = "O.angle", y = {"slider.x"}, file = out .. "/spatial_slider_crank.png",
           title = "Spatial slider-crank: slider position over two crank turns",
           xlabel = "crank angle [rad]", ylabel = "m" }
mbd.plot { run = dyn, y = {"O.angle"}, file = out .. "/spatial_slider_crank_free.png",
           title = "Spatial slider-crank, free with a spring: crank angle", ylabel = "rad" }
mbd.plot { run = kin, x = "O.angle", y = {"O.effort"}, file = out .. "/spatial_slider_crank_torque.png",
           title = "Spatial slider-crank: motor torque (50 N load)", xlabel = "crank angle [rad]",
           ylabel = "N·m" }
print("wrote " .. out .. "/spatial_slider_crank.png, spatial_slider_crank_torque.png and "
      .. "spatial_slider_crank_free.png")

-- left in globals for `mbd -i examples/spatial_slider_crank.lua`: model (the model), run (its kinematic run)
_G.model, _G.run = m, kin
