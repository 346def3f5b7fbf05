local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0} }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
m:force { body = b, at = {0.1, 0}, value = function(t, s) return {0, -s:get("b.vy")} end }
local r = m:simulate { t_end = 2, integrator = "rk4", step = 0.01,
                       stop_when = function(t, s) return s:get("b.x") end }
print(r.stop_time, r.warnings and #r.warnings)
