-- MBS benchmark library, problem A01: the planar simple pendulum (González, Dopico, Cuadrado
-- et al. 2006).  A lumped mass of 1 kg on a massless link of 1 m, gravity 9.81 N/kg along −y,
-- released at rest with the link horizontal (P1 at x = +1 m), 2000 s.  The library's reference
-- is the time history of P1; its "high precision" criterion is an error ≤ 1e-3 at 4000 output
-- steps.
--
-- Reference here: the closed form.  φ, the angle from the downward vertical, obeys
-- I_O φ̈ = −m g L sin φ; from rest at φ0 = π/2,  φ(t) = 2 asin(k sn(K − ω t | k²)),
-- k = sin(φ0/2), ω² = m g L / I_O, K = K(k²), and P1 = (L sin φ, −L cos φ).  mbd bodies have a
-- moment of inertia: the bob gets J = 1e-9 m L² about its centre (I_O = m L² + J: the closed form
-- takes it into account; the motion differs from the point mass's by 1e-9 relative).
--
--   mbd A01_simple_pendulum.lua          the full problem (2000 s)
--   mbd A01_simple_pendulum.lua short    20 s, checked (ctest)
local B = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/bench.lua")
local short = arg[1] == "short"
local T = short and 20 or 2000
local g, L, mass = 9.81, 1.0, 1.0
local J = 1e-9 * mass * L * L

local function build()
  local m = mbd.model { name = "A01 simple pendulum", dim = 2, gravity = {0, -g} }
  -- the bob: its centre at P1 = (1, 0); the link is the pin 1 m from it, at the origin
  local bob = m:body { name = "bob", mass = mass, inertia = J, pos = {L, 0}, angle = 0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = bob, at2 = {-L, 0} }
  return m
end

-- the closed form: P1 at t
local IO = mass * L * L + J
local omega = math.sqrt(mass * g * L / IO)
local k = math.sin(math.pi / 4)
local _, K = B.sn(0, k * k)
local function P1(t)
  local s = B.sn(K - omega * t, k * k)
  local phi = 2 * math.asin(k * s)
  return { L * math.sin(phi), -L * math.cos(phi) }
end

local times = B.grid(T, short and 40 or 4000)
local tol = short and 1e-9 or 1e-10   -- 2000 s (950 periods) at 1e-9 left udwadia_kalaba at 6e-3
local base = { t_end = T, rtol = tol, atol = tol, position_tol = 1e-10,
               output_every = T / (short and 40 or 4000) }
local rows = {}
for _, f in ipairs { "kane", "gcp", "udwadia_kalaba", "baumgarte" } do
  local o = base
  if f == "baumgarte" then
    o = {}
    for key, v in pairs(base) do o[key] = v end
    o.stabilization = { alpha = 10, beta = 10 }
  end
  local run, err = B.try(build(), o, f)
  if run then
    rows[#rows + 1] = { f = f, err = B.max_error(run, {"bob.x", "bob.y"}, times, P1),
                        drift = B.energy_drift(run), cpu = run.stats.cpu_time,
                        nfev = run.stats.nfev }
  else
    rows[#rows + 1] = { f = f .. " (failed)" }
    print(f, err)
  end
end
B.table(string.format("A01 simple pendulum, %g s, rtol = atol = %g (error of P1 against the "
                      .. "closed form at %d output steps; criterion 1e-3)", T, tol, #times - 1), rows, {
  { name = "formulation", key = "f", fmt = "%-16s", fmt_h = "%-16s" },
  { name = "max error (m)", key = "err", fmt = "%13.2e", fmt_h = "%13s" },
  { name = "energy drift (J)", key = "drift", fmt = "%16.2e", fmt_h = "%16s" },
  { name = "rhs evals", key = "nfev", fmt = "%9d", fmt_h = "%9s" },
  { name = "cpu (s)", key = "cpu", fmt = "%8.3f", fmt_h = "%8s" } })
for _, r in ipairs(rows) do
  B.check(r.err and r.err <= 1e-3, "A01 " .. r.f .. ": error above 1e-3")
end
