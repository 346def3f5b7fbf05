-- The MBS benchmark library's A02 mechanism, shared by A02_n_four_bar.lua and the tests of singular
-- configurations (tests/lua/singular_chain.lua): a chain of N parallelogram windows (2N + 1 uniform
-- links of 1 m and 1 kg; N + 1 cranks on ground pivots 1 m apart, N couplers), gravity −y,
-- released with the cranks at 45° and the first crank's tip moving at +1 m/s in x.
--
-- On its parallelogram branch every crank has the same angle θ and every coupler translates, so
-- the mechanism is one pendulum-like coordinate (the independent reference):
--   A θ̈ = −G cos θ,   A = (N + 1)/3 + N  (cranks about their pivots, couplers translating),
--                     G = g ((N + 1)/2 + N),
--   E = ½ A θ̇² + G sin θ.
--   local chain = dofile(<this folder> .. "/n_four_bar.lua")
--   chain.build(N, name), chain.constants(N), chain.reference(N, times, h)
local M = {}

M.g = 9.81
M.theta0 = math.pi / 4
M.omega0 = -math.sqrt(2)   -- tip velocity L ω (−sin θ, cos θ) has x component +1 m/s

function M.build(N, name)
  local m = mbd.model { name = name or "chain", dim = 2, gravity = {0, -M.g} }
  local th, w = M.theta0, M.omega0
  local c, s = math.cos(th), math.sin(th)
  local I = 1 / 12
  local cranks = {}
  for i = 0, N do
    cranks[i] = m:body { name = "c" .. i, mass = 1, inertia = I, pos = {i + 0.5 * c, 0.5 * s},
                         angle = th, vel = {-0.5 * s * w, 0.5 * c * w}, omega = w }
    m:revolute { name = "O" .. i, body1 = m.ground, at1 = {i, 0}, body2 = cranks[i],
                 at2 = {-0.5, 0} }
  end
  for i = 1, N do
    local k = m:body { name = "k" .. i, mass = 1, inertia = I, pos = {i - 0.5 + c, s}, angle = 0,
                       vel = {-s * w, c * w}, omega = 0 }
    m:revolute { name = "A" .. i, body1 = cranks[i - 1], at1 = {0.5, 0}, body2 = k,
                 at2 = {-0.5, 0} }
    m:revolute { name = "B" .. i, body1 = cranks[i], at1 = {0.5, 0}, body2 = k, at2 = {0.5, 0} }
  end
  return m
end

-- the constants of the one-coordinate equation and the energy
function M.constants(N)
  local A, G = (N + 1) / 3 + N, M.g * ((N + 1) / 2 + N)
  return A, G, 0.5 * A * M.omega0 ^ 2 + G * math.sin(M.theta0)
end

-- θ(t) at the given times by classical RK4 with step h (default 1e-4 s: the global error is
-- about (h·4 rad/s)⁴ ≈ 1e-13 rad over tens of seconds)
function M.reference(N, times, h)
  local A, G = M.constants(N)
  h = h or 1e-4
  local function f(th, w) return w, -G * math.cos(th) / A end
  local th, w, t = M.theta0, M.omega0, 0
  local out = {}
  for i, ti in ipairs(times) do
    while t < ti - 1e-12 do
      local dt = math.min(h, ti - t)
      local k1a, k1b = f(th, w)
      local k2a, k2b = f(th + 0.5 * dt * k1a, w + 0.5 * dt * k1b)
      local k3a, k3b = f(th + 0.5 * dt * k2a, w + 0.5 * dt * k2b)
      local k4a, k4b = f(th + dt * k3a, w + dt * k3b)
      th = th + dt / 6 * (k1a + 2 * k2a + 2 * k3a + k4a)
      w = w + dt / 6 * (k1b + 2 * k2b + 2 * k3b + k4b)
      t = t + dt
    end
    out[i] = { th, w }
  end
  return out
end

return M
