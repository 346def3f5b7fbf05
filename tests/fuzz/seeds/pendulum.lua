local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
local r = m:simulate { t_end = 0.2, formulation = "kane", output_every = 0.01 }
print(r:value("b.theta", 0.1), r.stats.nfev, m:info().dof)
