-- MBS benchmark library, problem A02: the N-four-bar mechanism (González, Dopico, Cuadrado et
-- al. 2006).  N = 40 parallelogram windows: 2N + 1 uniform links of 1 m and 1 kg (N + 1 cranks on
-- ground pivots 1 m apart, N couplers), gravity 9.81 N/kg along −y, released with the cranks at
-- 45° and the x velocity of B0 (the tip of the first crank) at +1 m/s; 20 s.  At the horizontal
-- position the degrees of freedom jump from 1 to N + 1 (a singular configuration, passed twice
-- per swing).  The library's reference is the time history of B0; "high precision": error ≤ 1e-3
-- at 400 output steps.
--
-- Reference here: on its parallelogram branch the mechanism is one coordinate, the cranks' angle θ
-- (every crank parallel, every coupler translating):
--   A θ̈ = −G cos θ,  A = (N + 1)/3 + N,  G = g ((N + 1)/2 + N),  B0 = (cos θ, sin θ),
-- integrated by classical RK4 with h = 1e-4 s (global error ~1e-13 m).
--
--   mbd A02_n_four_bar.lua          the full problem (N = 40, 20 s)
--   mbd A02_n_four_bar.lua short    N = 4, 5 s, checked (ctest)
local B = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/bench.lua")
local short = arg[1] == "short"
local N = short and 4 or 40
local T = short and 5 or 20
local g = 9.81
local th0, w0 = math.pi / 4, -math.sqrt(2)   -- B0's velocity L w (−sin θ, cos θ) has x = +1 m/s

local function build()
  local m = mbd.model { name = "A02 N-four-bar", dim = 2, gravity = {0, -g} }
  local c, s = math.cos(th0), math.sin(th0)
  local cranks = {}
  for i = 0, N do
    cranks[i] = m:body { name = "c" .. i, mass = 1, inertia = 1 / 12, pos = {i + 0.5 * c, 0.5 * s},
                         angle = th0, vel = {-0.5 * s * w0, 0.5 * c * w0}, omega = w0 }
    m:revolute { name = "O" .. i, body1 = m.ground, at1 = {i, 0}, body2 = cranks[i],
                 at2 = {-0.5, 0} }
  end
  for i = 1, N do
    local k = m:body { name = "k" .. i, mass = 1, inertia = 1 / 12, pos = {i - 0.5 + c, s},
                       angle = 0, vel = {-s * w0, c * w0}, omega = 0 }
    m:revolute { name = "A" .. i, body1 = cranks[i - 1], at1 = {0.5, 0}, body2 = k,
                 at2 = {-0.5, 0} }
    m:revolute { name = "B" .. i, body1 = cranks[i], at1 = {0.5, 0}, body2 = k, at2 = {0.5, 0} }
  end
  return m
end

-- the one-coordinate reference at the output steps
local A, G = (N + 1) / 3 + N, g * ((N + 1) / 2 + N)
local times = B.grid(T, short and 100 or 400)
local ref = {}
do
  local th, w, t, h = th0, w0, 0, 1e-4
  local function f(a, b) return b, -G * math.cos(a) / A end
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
    ref[ti] = { math.cos(th), math.sin(th) }
  end
end

-- B0: the tip of crank c0 from its centre and angle
local function B0_error(run)
  local worst, spread = 0, 0
  for _, t in ipairs(times) do
    local th = run:value("c0.theta", t)
    local x = run:value("c0.x", t) + 0.5 * math.cos(th)
    local y = run:value("c0.y", t) + 0.5 * math.sin(th)
    worst = math.max(worst, math.abs(x - ref[t][1]), math.abs(y - ref[t][2]))
    spread = math.max(spread, math.abs(run:value("c" .. N .. ".theta", t) - th))
  end
  return worst, spread
end

local base = { t_end = T, rtol = 1e-7, atol = 1e-7, position_tol = 1e-8, output_every = T / 400 }
local rows = {}
for _, f in ipairs { "kane", "gcp", "udwadia_kalaba", "augmented" } do
  local run, err = B.try(build(), base, f)
  if run then
    local e, spread = B0_error(run)
    rows[#rows + 1] = { f = f, err = e, spread = spread, drift = B.energy_drift(run),
                        cpu = run.stats.cpu_time, nfev = run.stats.nfev }
  else
    rows[#rows + 1] = { f = f .. " (stopped)", msg = err }
    print(f .. ": " .. err:gsub("^.-: ", "", 1):sub(1, 160))
  end
end
B.table(string.format("A02 N-four-bar, N = %d, %g s, rtol = atol = 1e-7, position_tol = 1e-8 "
                      .. "(error of B0 against the one-coordinate solution at %d output steps; "
                      .. "criterion 1e-3)", N, T, #times - 1), rows, {
  { name = "formulation", key = "f", fmt = "%-20s", fmt_h = "%-20s" },
  { name = "max error (m)", key = "err", fmt = "%13.2e", fmt_h = "%13s" },
  { name = "branch spread", key = "spread", fmt = "%13.1e", fmt_h = "%13s" },
  { name = "energy drift (J)", key = "drift", fmt = "%16.2e", fmt_h = "%16s" },
  { name = "rhs evals", key = "nfev", fmt = "%9d", fmt_h = "%9s" },
  { name = "cpu (s)", key = "cpu", fmt = "%8.3f", fmt_h = "%8s" } })
-- kane, gcp and udwadia_kalaba must pass; augmented stops at a flat configuration
for _, r in ipairs(rows) do
  if not r.f:match("^augmented") then
    B.check(r.err and r.err <= 1e-3 and r.spread < 1e-6, "A02 " .. r.f .. ": error above 1e-3")
  end
end
