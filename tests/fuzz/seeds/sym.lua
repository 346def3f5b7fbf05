local x, t = mbd.sym.var("x"), mbd.sym.t
local e = mbd.sym.sin(x * t) + x^2 / (1 + t)
print(tostring(e), tostring(mbd.sym.diff(e, x)), mbd.sym.eval(e, {x = 2, t = 1}))
print(mbd.sym.subs(e, {[x] = t * 2}))
local m = mbd.model { name = "d", dim = 2 }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0} }
local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
m:drive { joint = O, position = 0.5 * mbd.sym.sin(3 * t) }
print(m:kinematics { t_end = 0.3, steps = 5 })
