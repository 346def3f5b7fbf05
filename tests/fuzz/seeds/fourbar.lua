local m = mbd.model { name = "fourbar", dim = 2, gravity = {0, -9.81} }
local a = m:body { name = "a", mass = 1, inertia = 0.08, pos = {0, 0.5}, angle = math.pi / 2 }
local c = m:body { name = "c", mass = 1, inertia = 0.08, pos = {0.5, 1}, angle = 0 }
local d = m:body { name = "d", mass = 1, inertia = 0.08, pos = {1, 0.5}, angle = math.pi / 2 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = a, at2 = {-0.5, 0} }
m:revolute { name = "A", body1 = a, at1 = {0.5, 0}, body2 = c, at2 = {-0.5, 0} }
m:revolute { name = "B", body1 = c, at1 = {0.5, 0}, body2 = d, at2 = {0.5, 0} }
m:revolute { name = "C", body1 = d, at1 = {-0.5, 0}, body2 = m.ground, at2 = {1, 0} }
m:spring { name = "s", body1 = c, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0}, k = 10, c = 1, length = 1 }
for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" } do
  local ok, r = pcall(m.simulate, m, { t_end = 0.1, formulation = f, output_every = 0.02 })
  print(f, ok, ok and r:value("energy", 0.1) or r)
end
