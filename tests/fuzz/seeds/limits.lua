-- sizes near the limits: a sum past the flattening threshold, a recorder and a sample grid too
-- large (refused with a message), the memory limit itself
local x = mbd.sym.var("x")
local e = 0
for i = 1, 300 do e = e + mbd.sym.sin(i * x) * x^(i % 3) end
print(mbd.sym.eval(mbd.sym.diff(e - 2 * e, x), {x = 0.5}), mbd.memory_limit())
local m = mbd.model { name = "c", dim = 2, gravity = {0, -9.81} }
local prev, at = m.ground, {0, 0}
for i = 1, 40 do
  local b = m:body { name = "b" .. i, mass = 1, inertia = 0.1, pos = {i - 0.5, 0} }
  m:revolute { name = "j" .. i, body1 = prev, at1 = at, body2 = b, at2 = {-0.5, 0} }
  prev, at = b, {0.5, 0}
end
print(pcall(m.simulate, m, { t_end = 1, output_every = 1e-6 }))
print(pcall(m.simulate, m, { t_end = 1, output_every = 1e-12 }))
print(pcall(m.kinematics, m, { t_end = 1, steps = 2^31 - 1 }))
