-- found before the fuzzer (review reproducers): a force function that adds a body to its own
-- model during the run, and one that runs the model again; both must end in a Lua error or a
-- nested run, never in a use after free
local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
local k = 0
m:force { body = b, at = {0, 0}, value = function(t, s)
  k = k + 1
  if k == 3 then pcall(m.body, m, { name = "c", mass = 1, inertia = 1, pos = {3, 0} }) end
  if k == 5 then m:simulate { t_end = 0.01 } end
  return {0, 0}
end }
print(m:simulate { t_end = 0.1 })
