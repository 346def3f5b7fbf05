-- MBS benchmark library, problem A03: Andrews' squeezing mechanism (González, Dopico, Cuadrado
-- et al. 2006, after Schiehlen 1990).  Seven bodies and ten revolute joints in a plane: the crank
-- OF (driven by a constant 0.033 N·m motor torque at O), the coupler FE, the triangle BDE pinned
-- to the ground at B and pulled towards C by a spring (4530 N/m, free length 0.07785 m), and the
-- two dyads E–G–A and E–H–A closing on the ground pivot A.  No gravity; released at rest.  The
-- crank turns about 2.5 times in 0.03 s at up to 1400 rad/s: a very small time scale.
--
-- Data: the library's tables (as the OpenSim implementation of the benchmark prints them) are
-- those of Hairer & Wanner, "Solving ODEs II", sect. VII.7, and of the IVP test set (Mazzia et
-- al., problem "andrews"): the same masses, inertias and points; B is (−0.03635, 0.03273) (the
-- OpenSim page prints +0.03635, its code uses −0.03635, the constraint equations need −0.03635)
-- and m3 = 0.02373 kg (the test set; the OpenSim page prints 0.02372).  The initial angles are the
-- test set's consistent ones (β0 = −0.0617138900142764, the library rounds to −0.0620).
--
-- The angles compared are Hairer & Wanner's seven: β (crank, from x), Θ (coupler relative to the
-- crank), γ (triangle), Φ and δ (the dyad E–G–A: δ of AG, Φ of EG relative to AG), Ω and ε (the
-- dyad E–H–A: ε of AH, Ω of HE relative to AH); each body's mbd angle is the absolute one
-- (β, β + Θ, γ, Φ + δ, δ, Ω + ε, ε).
--
-- References:
--   * at t = 0.03 s, the IVP test set's published solution (PSIDE at rtol = atol = 1e-14) of the
--     seven angles: an independent reference;
--   * at the output steps (every 1e-4 s), mbd's relative joint coordinates (formulation =
--     "relative": a spanning tree of joint angles closed by cut joints, a different set of
--     equations) at rtol = atol = 1e-12; its own distance to the published values at 0.03 s is
--     printed.
-- "High precision": every angle within 1e-3 rad at every output step (the crank's tip F moves
-- 7 mm × the angle error: ≤ 7e-6 m).  The run is conservative but for the motor:
-- E − E0 − τ (β − β0) = 0 (the energy drift column).
--
--   mbd A03_andrews_squeezer.lua          the full problem (0.03 s, every formulation)
--   mbd A03_andrews_squeezer.lua short    the same 0.03 s, kane and gcp only, checked (ctest)
local B = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/bench.lua")
local short = arg[1] == "short"
local T = 0.03

-- Hairer & Wanner's data (SI units)
local m1, m2, m3, m4, m5, m6, m7 = .04325, .00365, .02373, .00706, .07050, .00706, .05498
local i1, i2, i3, i4, i5, i6, i7 = 2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7,
                                   1.912e-5
local xa, ya, xb, yb, xc, yc = -.06934, -.00227, -.03635, .03273, .014, .072
local d, da, e, ea, rr, ra = 28e-3, 115e-4, 2e-2, 1421e-5, 7e-3, 92e-5
local ss, sa, sb, sc, sd = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
local ta, tb, u, ua, ub = 2308e-5, 916e-5, 4e-2, 1228e-5, 449e-5
local zf, zt, fa = 2e-2, 4e-2, 1421e-5
local mom, c0, l0 = 0.033, 4530, 0.07785
-- the consistent initial angles β, Θ, γ, Φ, δ, Ω, ε of the test set
local q0 = { -0.0617138900142764496358948458001, 0, 0.455279819163070380255912382449,
             0.222668390165885884674473185609, 0.487364979543842550225598953530,
             -0.222668390165885884674473185609, 1.23054744454982119249735015568 }
-- the test set's solution at t = 0.03 s
local published = { 0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
                    -0.5347301163226948, 0.5244099658805304, 0.5347301163226948,
                    0.1048080741042263e+1 }
local names = { "beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon" }

-- a point p + a·(cos t, sin t) + b·(−sin t, cos t): a along a body's x axis, b along its y axis
local function at(p, t, a, b)
  local c, s = math.cos(t), math.sin(t)
  return { p[1] + a * c - b * s, p[2] + a * s + b * c }
end

local function build()
  local m = mbd.model { name = "A03 Andrews' squeezer", dim = 2 }
  local be, th, ga, ph, de, om, ep = table.unpack(q0)
  local A, Bp = { xa, ya }, { xb, yb }
  -- each body's frame: origin at its centre of mass, x axis along the angle named above
  local F = at({ 0, 0 }, be, rr, 0)
  local G = at(A, de, zt, 0)
  local H = at(A, ep, 0, -u)
  local OF = m:body { name = "OF", mass = m1, inertia = i1, angle = be, pos = at({ 0, 0 }, be, ra, 0) }
  local FE = m:body { name = "FE", mass = m2, inertia = i2, angle = be + th, pos = at(F, be + th, -da, 0) }
  local BDE = m:body { name = "BDE", mass = m3, inertia = i3, angle = ga, pos = at(Bp, ga, sb, -sa) }
  local EG = m:body { name = "EG", mass = m4, inertia = i4, angle = ph + de, pos = at(G, ph + de, 0, -(e - ea)) }
  local AG = m:body { name = "AG", mass = m5, inertia = i5, angle = de, pos = at(A, de, ta, tb) }
  local HE = m:body { name = "HE", mass = m6, inertia = i6, angle = om + ep, pos = at(H, om + ep, zf - fa, 0) }
  local AH = m:body { name = "AH", mass = m7, inertia = i7, angle = ep, pos = at(A, ep, ub, -ua) }
  local function pin(name, b1, at1, b2, at2)
    m:revolute { name = name, body1 = b1, at1 = at1, body2 = b2, at2 = at2 }
  end
  pin("O", m.ground, { 0, 0 }, OF, { -ra, 0 })
  pin("F", OF, { rr - ra, 0 }, FE, { da, 0 })
  pin("E_BDE", FE, { da - d, 0 }, BDE, { -sb, sa - ss })     -- three bodies meet at E
  pin("E_EG", FE, { da - d, 0 }, EG, { 0, -ea })
  pin("E_HE", FE, { da - d, 0 }, HE, { fa, 0 })
  pin("B", m.ground, Bp, BDE, { -sb, sa })
  pin("G", EG, { 0, e - ea }, AG, { zt - ta, -tb })
  pin("A_AG", m.ground, A, AG, { -ta, -tb })
  pin("A_AH", m.ground, A, AH, { -ub, ua })
  pin("H", AH, { -ub, ua - u }, HE, { fa - zf, 0 })
  m:spring { name = "spring", body1 = BDE, at1 = { sd - sb, sa - sc }, body2 = m.ground,
             at2 = { xc, yc }, k = c0, length = l0 }
  m:torque { body = OF, value = mom }
  return m
end

-- the seven angles of a run at t
local function angles(run, t)
  local a = {}
  for i, n in ipairs { "OF", "FE", "BDE", "EG", "AG", "HE", "AH" } do
    a[i] = run:value(n .. ".theta", t)
  end
  return { a[1], a[2] - a[1], a[3], a[4] - a[5], a[5], a[6] - a[7], a[7] }
end
local function max_diff(x, y)
  local w = 0
  for i = 1, 7 do w = math.max(w, math.abs(x[i] - y[i])) end
  return w
end
-- the energy balance E − E0 − τ (β − β0)
local function drift(run)
  return B.energy_drift(run, function(t) return -mom * (run:value("OF.theta", t) - q0[1]) end)
end

local steps = 300
local times = B.grid(T, steps)
-- (relative coordinates close the loops by a position analysis at every evaluation: as tight as
-- the integration)
local refrun = build():simulate { t_end = T, formulation = "relative", rtol = 1e-12, atol = 1e-12,
                                  position_tol = 1e-12, output_every = T / steps }
local ref = {}
for _, t in ipairs(times) do ref[t] = angles(refrun, t) end

local base = { t_end = T, integrator = "bdf", rtol = 1e-8, atol = 1e-8, position_tol = 1e-10,
               output_every = T / steps }
local rows = { { f = "relative 1e-12 (ref.)", err = 0, pub = max_diff(ref[T], published),
                 drift = drift(refrun), cpu = refrun.stats.cpu_time, nfev = refrun.stats.nfev } }
for _, f in ipairs(B.methods(short)) do
  local run, err = B.try(build(), base, f)
  if run then
    local worst = 0
    for _, t in ipairs(times) do worst = math.max(worst, max_diff(angles(run, t), ref[t])) end
    rows[#rows + 1] = { f = f, err = worst, pub = max_diff(angles(run, T), published),
                        drift = drift(run), cpu = run.stats.cpu_time, nfev = run.stats.nfev }
  else
    B.stopped(rows, f, err)
  end
end
B.table(string.format("A03 Andrews' squeezer, %g s, bdf, rtol = atol = 1e-8, position_tol = "
                      .. "1e-10 (largest error of the 7 angles, rad: against relative coordinates "
                      .. "at %d output steps, against the published solution at %g s; criterion "
                      .. "1e-3)", T, steps, T), rows, {
  { name = "formulation", key = "f", fmt = "%-22s", fmt_h = "%-22s" },
  { name = "max error", key = "err", fmt = "%10.2e", fmt_h = "%10s" },
  { name = "vs published", key = "pub", fmt = "%12.2e", fmt_h = "%12s" },
  { name = "energy drift (J)", key = "drift", fmt = "%16.2e", fmt_h = "%16s" },
  { name = "rhs evals", key = "nfev", fmt = "%9d", fmt_h = "%9s" },
  { name = "cpu (s)", key = "cpu", fmt = "%8.3f", fmt_h = "%8s" } })
local a = ref[T]
local line = {}
for i = 1, 7 do line[i] = string.format("%s %.6f", names[i], a[i]) end
print("angles at 0.03 s (reference run): " .. table.concat(line, ", "))
print(string.format("motor work over the run: %.6f J", mom * (a[1] - q0[1])))
B.check(rows[1].pub <= 1e-6, "A03 relative reference: published solution missed by more than 1e-6")
for _, r in ipairs(rows) do
  if r.f == "kane" or r.f == "gcp" or r.f == "udwadia_kalaba" then
    B.check(r.err and r.err <= 1e-3 and r.pub <= 1e-3, "A03 " .. r.f .. ": error above 1e-3")
  end
end
