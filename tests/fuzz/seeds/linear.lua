local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
m:rotational_spring { joint = O, k = 10, c = 0.1, angle = 0 }
local eq = m:equilibrium { tol = 1e-10, fixed = {} }
local lin = m:linearize { at = eq, inputs = { {joint = O}, {torque = b} }, outputs = {"O.angle"} }
local l2 = m:linearize { at = eq, formulation = "relative", method = "analytic" }
lin:write("x.mtx")
lin:animate { mode = 1, file = "x.html" }
local s = tostring(lin) .. tostring(l2) .. tostring(m:explain { run = eq, linearize = true })
