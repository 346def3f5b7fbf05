local m = mbd.model { name = "top", dim = 3, gravity = {0, 0, -9.81} }
local t = m:body { name = "top", mass = 1, inertia = {0.002, 0.002, 0.004}, pos = {0, 0, 0.1},
                   rot = mbd.rot.axis_angle({1, 0, 0}, 0.3), omega = {0, 0, 100} }
m:spherical { name = "tip", body1 = m.ground, at1 = {0, 0, 0}, body2 = t, at2 = {0, 0, -0.1} }
m:torque { body = t, value = {0, 0, 0.01} }
print(m:simulate { t_end = 0.05, formulation = "gcp", rtol = 1e-8, atol = 1e-8 })
