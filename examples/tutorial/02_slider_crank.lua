-- Lesson 2 (docs/tutorial/02-slider-crank.md): a slider-crank — closed loops, a drive and
-- kinematic analysis, then dynamics with a spring-damper; the partition of the coordinates and
-- the partial velocity matrix B of Kane's method.
--
--   mbd examples/tutorial/02_slider_crank.lua [OUTDIR]      (default out/tutorial)
--   mbd -i examples/tutorial/02_slider_crank.lua            then: m, kin, run, ex
--
-- Crank r = 0.3 m pinned at the origin, rod l = 0.8 m, slider on the x axis.  With the crank at
-- angle th the slider is at x = r cos th + sqrt(l^2 - r^2 sin^2 th): the loop closes.
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local r, l = 0.3, 0.8

-- the mechanism, built by a function so that the same geometry serves twice
local function slider_crank(name)
  local mdl = mbd.model { name = name, dim = 2, gravity = {0, -9.81} }
  local th = math.pi / 4
  local bx = r * math.cos(th) + math.sqrt(l ^ 2 - (r * math.sin(th)) ^ 2)
  local phi = -math.asin(r * math.sin(th) / l)
  local crank = mdl:body { name = "crank", mass = 2, inertia = 0.015,
                           pos = {r / 2 * math.cos(th), r / 2 * math.sin(th)}, angle = th }
  local rod = mdl:body { name = "rod", mass = 1.5, inertia = 0.08,
                         pos = {r * math.cos(th) + l / 2 * math.cos(phi), r * math.sin(th) / 2},
                         angle = phi }
  local slider = mdl:body { name = "slider", mass = 1, inertia = 0.001, pos = {bx, 0} }
  local O = mdl:revolute { name = "O", body1 = mdl.ground, at1 = {0, 0}, body2 = crank, at2 = {-r / 2, 0} }
  mdl:revolute { name = "A", body1 = crank, at1 = {r / 2, 0}, body2 = rod, at2 = {-l / 2, 0} }
  mdl:revolute { name = "B", body1 = rod, at1 = {l / 2, 0}, body2 = slider, at2 = {0, 0} }
  mdl:translational { name = "S", body1 = mdl.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0},
                      axis1 = {1, 0} }
  return mdl, O
end

-- 1. kinematics: the crank driven at one turn per second; no degree of freedom is left
local mk, O = slider_crank("slider-crank, driven")
local th0 = math.pi / 4
mk:drive { joint = O, position = th0 + 2 * math.pi * mbd.sym.t }   -- exact velocity, acceleration
print(mk:info())
kin = mk:kinematics { t_end = 1, steps = 360 }
local worst = 0
for i = 0, 360 do
  local t = i / 360
  local th = th0 + 2 * math.pi * t
  local x = r * math.cos(th) + math.sqrt(l ^ 2 - (r * math.sin(th)) ^ 2)
  worst = math.max(worst, math.abs(kin:value("slider.x", t) - x))
end
print(string.format("kinematics: slider.x against the closed form, largest difference %.1e m", worst))
print(string.format("drive torque (inverse dynamics) at t = 0.25 s: %.4f N m", kin:value("O.effort", 0.25)))
local exk = mk:explain { run = kin, t = 0.25 }
print(string.format("explain at t = 0.25 s: %d rows for %d coordinates, %d degrees of freedom; row %s: %s",
                    #exk.rows, #exk.coordinates, exk.dof, exk.rows[9], exk.meaning[9]))

-- 2. dynamics: no drive; a spring-damper pulls the slider toward x = 2 m
m = slider_crank("slider-crank with a spring-damper")
m:spring { name = "k", body1 = m:find("slider"), at1 = {0, 0}, body2 = m.ground, at2 = {2, 0},
           k = 200, c = 5, length = 0.6 }
run = m:simulate { t_end = 5, formulation = "kane", rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
local _, e = run:series("energy")
print(string.format("dynamics: energy %.4f J at t = 0, %.4f J at t = 5 s (the damper took %.4f J)",
                    e[1], e[#e], e[1] - e[#e]))

-- the partition kane uses at t = 1 s, and B: every velocity is B times the independent one
ex = m:explain { run = run, t = 1 }
print("partition at t = 1 s: independent " .. table.concat(ex.partition.independent, " ") ..
      "; dependent " .. table.concat(ex.partition.dependent, " "))
print("partial velocities B (one column per independent coordinate):")
for i, name in ipairs(ex.coordinates) do
  print(string.format("  %-14s %10.5f", name, ex.B[i][1]))
end
-- B is in the null space of Phi_q: Phi_q B = 0, row by row
local worst_null = 0
for i = 1, #ex.rows do
  local s = 0
  for j = 1, #ex.coordinates do s = s + ex.Phiq[i][j] * ex.B[j][1] end
  worst_null = math.max(worst_null, math.abs(s))
end
print(string.format("check: largest |Phi_q B| = %.1e", worst_null))
print(string.format("the slide's normal force at t = 1 s: %.4f N", ex.reactions[4].force[2]))

run:animate { file = out .. "/02_slider_crank.html", trace = { { body = m:find("rod"), at = {0, 0} } } }
mbd.plot { run = run, y = {"slider.x", "crank.theta"}, file = out .. "/02_slider_crank.png",
           title = "Slider-crank with a spring-damper (kane)" }
print("wrote " .. out .. "/02_slider_crank.html and " .. out .. "/02_slider_crank.png")
