local m = mbd.model { name = "e", dim = 2 }
local b = m:body { name = "b", mass = 1, inertia = 0.1 }
print(pcall(m.revolute, m, { name = "J", body1 = b, at1 = {0, 0}, body2 = b, at2 = {0, 0} }))
print(pcall(m.simulate, m, { t_end = -1 }))
print(pcall(m.body, m, { name = "c", mass = 0/0, inertia = 1 }))
print(pcall(m.simulate, m, { t_end = 1, rtol = 2 }))
