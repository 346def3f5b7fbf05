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
local chain = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/n_four_bar.lua")

local function build() return chain.build(N, "A02 N-four-bar") end

-- the one-coordinate reference at the output steps: B0 = (cos θ, sin θ)
local times = B.grid(T, short and 100 or 400)
local ref = {}
for i, s in ipairs(chain.reference(N, times)) do
  ref[times[i]] = { math.cos(s[1]), math.sin(s[1]) }
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
