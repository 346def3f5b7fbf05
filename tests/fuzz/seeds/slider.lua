local m = mbd.model { name = "sc", dim = 2 }
local crank = m:body { name = "crank", mass = 1, inertia = 0.01, pos = {0.05, 0}, angle = 0 }
local rod = m:body { name = "rod", mass = 1, inertia = 0.02, pos = {0.25, 0}, angle = 0 }
local sl = m:body { name = "slider", mass = 1, inertia = 0.01, pos = {0.4, 0} }
local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.05, 0} }
m:revolute { name = "A", body1 = crank, at1 = {0.05, 0}, body2 = rod, at2 = {-0.15, 0} }
m:revolute { name = "B", body1 = rod, at1 = {0.15, 0}, body2 = sl, at2 = {0, 0} }
m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = sl, at2 = {0, 0}, axis1 = {1, 0} }
m:drive { joint = O, position = function(t) return 2 * math.pi * t end }
print(m:kinematics { t_end = 0.5, steps = 20 }:value("slider.x", 0.25))
