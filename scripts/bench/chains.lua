-- The chains of the benchmarks (chain.lua, chain_steps.lua, crossover.lua, planar.lua,
-- recursive.lua, spatial.lua), and how their runs are compared.  Load it beside the script:
--   local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")
local chains = {}

-- the planar pendulum chain of issue 14: N links 1 m long (CM in the middle, m = 1 kg,
-- J = 1/12 kg·m²), hanging from the origin, released at 0.3 rad from the vertical under gravity;
-- bodies l1..lN, revolute joints j1..jN
function chains.planar(N, name)
  local m = mbd.model { name = name or (N .. "-link chain"), dim = 2, gravity = { 0, -9.81 } }
  local a = -math.pi / 2 + 0.3
  local prev, x, y, at_prev = m.ground, 0, 0, { 0, 0 }
  for i = 1, N do
    local b = m:body { name = "l" .. i, mass = 1, inertia = 1 / 12,
                       pos = { x + 0.5 * math.cos(a), y + 0.5 * math.sin(a) }, angle = a }
    m:revolute { name = "j" .. i, body1 = prev, at1 = at_prev, body2 = b, at2 = { -0.5, 0 } }
    x, y = x + math.cos(a), y + math.sin(a)
    prev, at_prev = b, { 0.5, 0 }
  end
  return m
end

-- N rods 1 m long (1 kg, CM in the middle, inertia {0.001, 1/12, 1/12} about the rod's x axis
-- and across it) joined by spherical joints, hanging from the origin 0.3 rad from the vertical,
-- with a sideways push; bodies l1..lN, joints j1..jN
function chains.spherical(N, name)
  local m = mbd.model { name = name or (N .. "-body spatial chain"), dim = 3,
                        gravity = { 0, 0, -9.81 } }
  local a = 0.3
  local dir = { math.sin(a), 0, -math.cos(a) }            -- every rod along this direction
  local rot = mbd.rot.from_axes(dir, { 0, 1, 0 })         -- body x along the rod
  local prev, at_prev = m.ground, { 0, 0, 0 }
  for i = 1, N do
    local c = i - 0.5
    local b = m:body { name = "l" .. i, mass = 1, inertia = { 0.001, 1 / 12, 1 / 12 }, rot = rot,
                       pos = { c * dir[1], c * dir[2], c * dir[3] },
                       vel = { 0, 0.5 * c, 0 }, omega = { 0.5 * math.cos(a), 0, 0.5 * math.sin(a) } }
    m:spherical { name = "j" .. i, body1 = prev, at1 = at_prev, body2 = b, at2 = { -0.5, 0, 0 } }
    prev, at_prev = b, { 0.5, 0, 0 }
  end
  return m
end

-- the compared values of a planar chain's run at t: every link's angle, the tip's x and y
function chains.values(r, N, t)
  local v = {}
  for i = 1, N do v[i] = r:value("l" .. i .. ".theta", t) end
  v[N + 1], v[N + 2] = r:value("l" .. N .. ".x", t), r:value("l" .. N .. ".y", t)
  return v
end

-- the largest difference between two lists of values
function chains.distance(a, b)
  local e = 0
  for i = 1, #a do e = math.max(e, math.abs(a[i] - b[i])) end
  return e
end

return chains
