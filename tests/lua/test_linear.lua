-- Lua-level tests of m:equilibrium and m:linearize (DSL.md "Equilibrium and linearization"):
-- equilibria and frequencies against closed forms and independent computations, to 1e-8 in
-- coordinates and 1e-6 relative in frequencies; every formulation's A; the analytic derivatives
-- against the differences; a steady motion (a top) in the frame that moves with it; flexible
-- bodies (a clamped beam, a spinning beam's geometric stiffening); a time-integration cross-check;
-- invariance under a rigid motion of the whole scene and a change of units; and the messages of
-- bad input.
-- Run with the mbd program:  mbd tests/lua/test_linear.lua   (cases: see harness.lua)
--
-- Tolerances.  The closed forms are exact to rounding, and so is the linearization but for its
-- differences: Richardson's extrapolation of central differences (engine/linear/sys.c) leaves
-- ~1e-12 relative in A and in the frequencies (measured on these models: frequencies 4e-16 ..
-- 5e-14, damping ratios 2e-12, the formulations' A within 9e-12 of its largest entry, analytic
-- and differences within 2e-12; the same digits under the OpenBLAS kernels Prescott, Sandybridge
-- and Haswell), the equilibrium's Newton iteration stops at 1e-10 of the scales and converges
-- quadratically (measured errors 0 .. 4e-14 rad).
-- The issue's tolerances, 1e-8 in coordinates and 1e-6 relative in frequencies, are used as they
-- stand: over 1000× the measured errors and their spread.  Where a check's own computation is
-- less exact (second differences of a potential in Lua: ~1e-9), that is said at the case.
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

local pi, sin, cos, sqrt, abs, atan = math.pi, math.sin, math.cos, math.sqrt, math.abs, math.atan
local G = 9.81
local FREQ = 1e-6 -- relative, frequencies and eigenvalues
local COORD = 1e-8 -- coordinates of an equilibrium (m, rad)
local tmp = os.tmpname()
os.remove(tmp)

local function rel(a, b) return abs(a - b) / math.max(abs(b), 1e-300) end
local function check_rel(a, b, tol, what)
  if rel(a, b) <= tol then return true end
  return false, string.format("%s: %.15g vs %.15g (relative %.3g > %.3g)", what, a, b, rel(a, b), tol)
end
local function check_abs(a, b, tol, what)
  if abs(a - b) <= tol then return true end
  return false, string.format("%s: %.15g vs %.15g (|diff| %.3g > %.3g)", what, a, b, abs(a - b), tol)
end
-- all the checks, the first failure's message
local function all(...)
  for _, r in ipairs { ... } do
    if r ~= true then return false, r end
  end
  return true
end
local function ok(good, msg) return good and true or msg end

-- derivatives of a scalar function by Richardson's extrapolation of central differences
local function d1(fn, x, h)
  local a = (fn(x + h) - fn(x - h)) / (2 * h)
  local b = (fn(x + h / 2) - fn(x - h / 2)) / h
  return (4 * b - a) / 3
end
local function d2(fn, x, h)
  local a = (fn(x + h) - 2 * fn(x) + fn(x - h)) / h ^ 2
  local b = (fn(x + h / 2) - 2 * fn(x) + fn(x - h / 2)) / (h / 2) ^ 2
  return (4 * b - a) / 3
end
-- a root of fn in [lo, hi] by bisection
local function bisect(fn, lo, hi)
  local flo = fn(lo)
  for _ = 1, 200 do
    local mid = 0.5 * (lo + hi)
    local fm = fn(mid)
    if (fm > 0) == (flo > 0) then lo, flo = mid, fm else hi = mid end
    if hi - lo < 1e-16 then break end
  end
  return 0.5 * (lo + hi)
end

-- ------------------------------------------------------------------------------------------------
-- a rod pendulum with a rotational spring and damper at its pin (θ from the horizontal)

local PM, PL, PK, PC = 2, 1.2, 30, 0.4
local function pendulum(th, opts)
  opts = opts or {}
  local m = mbd.model { name = "pendulum", dim = 2, gravity = opts.gravity or {0, -G} }
  local rod = m:body { name = "rod", mass = PM, inertia = PM * PL ^ 2 / 12,
                       pos = {PL / 2 * cos(th), PL / 2 * sin(th)}, angle = th }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-PL / 2, 0} }
  if not opts.free then m:rotational_spring { joint = O, k = PK, c = PC, angle = 0 } end
  return m, rod, O
end
-- k θ + m g (L/2) cos θ = 0; about it I θ'' + c θ' + (k − m g (L/2) sin θ) θ = 0, I = m L²/3
local P_TH = bisect(function(t) return PK * t + PM * G * PL / 2 * cos(t) end, -pi / 2, 0)
local P_I, P_K = PM * PL ^ 2 / 3, PK - PM * G * PL / 2 * sin(P_TH)
local P_W, P_Z = sqrt(P_K / P_I), PC / (2 * sqrt(P_K * P_I))

local function pendulum_checks()
  local m = pendulum(0.9)  -- far from the rest pose
  local eq = m:equilibrium {}
  local lin = m:linearize { at = eq }
  local re, im = -P_Z * P_W, P_W * sqrt(1 - P_Z ^ 2)
  local e = lin.eigenvalues
  return all(ok(check_abs(eq:value("rod.theta", 0), P_TH, COORD, "equilibrium angle")),
             ok(eq.stats.stable == true or "not stable"),
             ok(#lin.frequencies == 1 or "one frequency"),
             ok(check_rel(lin.frequencies[1], P_W / (2 * pi), FREQ, "frequency")),
             ok(check_rel(lin.damping[1], P_Z, FREQ, "damping")),
             ok(check_rel(e[1][1], re, FREQ, "Re λ")), ok(check_rel(e[1][2], im, FREQ, "Im λ")),
             ok(check_rel(e[2][2], -im, FREQ, "Im λ̄")),
             ok(lin.coordinates[1] == "rod.theta" or ("coordinate " .. lin.coordinates[1])),
             ok(lin.stable == true and lin.equilibrium == true or "stable equilibrium"))
end

-- B for a joint torque: 1/I; C for the angle channel: 1; D of the pin's reaction: its response
local function pendulum_io()
  local m, rod, O = pendulum(0.3)
  local eq = m:equilibrium {}
  local lin = m:linearize { at = eq, inputs = { {joint = O}, {torque = rod, name = "T"} },
                            outputs = {"O.angle", "rod.omega", "O.fy"} }
  -- the reaction's response to a torque: I_O θ'' = u, the CM's acceleration (L/2) θ'' ⟂ the rod;
  -- fy = m (ÿ_cm) with ÿ_cm = (L/2) cos θ θ''
  local dfy = PM * PL / 2 * cos(P_TH) / P_I
  return all(ok(check_rel(lin.B[2][1], 1 / P_I, 1e-12, "B of the joint torque")),
             ok(check_rel(lin.B[2][2], 1 / P_I, 1e-12, "B of the body torque")),
             ok(lin.inputs[1] == "torque(O)" and lin.inputs[2] == "T" or "input names"),
             ok(check_rel(lin.C[1][1], 1, 1e-9, "C angle/angle")),
             ok(check_abs(lin.C[1][2], 0, 1e-9, "C angle/rate")),
             ok(check_rel(lin.C[2][2], 1, 1e-9, "C omega/rate")),
             ok(check_rel(lin.D[3][1], dfy, 1e-9, "D reaction/torque")),
             ok(check_abs(lin.D[1][1], 0, 1e-12, "D angle/torque")))
end

-- ------------------------------------------------------------------------------------------------
-- a double pendulum of two rods hanging from the ground, its normal modes from M and K

local D_M1, D_M2, D_L1, D_L2 = 2, 1, 1.0, 0.8
local function double_pendulum(t1, t2)
  local m = mbd.model { name = "double", dim = 2, gravity = {0, -G} }
  local A = {D_L1 * cos(t1), D_L1 * sin(t1)}
  local l1 = m:body { name = "link1", mass = D_M1, inertia = D_M1 * D_L1 ^ 2 / 12,
                      pos = {A[1] / 2, A[2] / 2}, angle = t1 }
  local l2 = m:body { name = "link2", mass = D_M2, inertia = D_M2 * D_L2 ^ 2 / 12,
                      pos = {A[1] + D_L2 / 2 * cos(t2), A[2] + D_L2 / 2 * sin(t2)}, angle = t2 }
  local P1 = m:revolute { name = "P1", body1 = m.ground, at1 = {0, 0}, body2 = l1, at2 = {-D_L1 / 2, 0} }
  m:revolute { name = "P2", body1 = l1, at1 = {D_L1 / 2, 0}, body2 = l2, at2 = {-D_L2 / 2, 0} }
  return m, P1
end
-- about the hanging state, in the absolute angles: M = [[I1 + m1 d1² + m2 L1², m2 L1 d2],
-- [m2 L1 d2, I2 + m2 d2²]], K = diag(g (m1 d1 + m2 L1), g m2 d2); det(K − ω² M) = 0
local DM = { {D_M1 * D_L1 ^ 2 / 3 + D_M2 * D_L1 ^ 2, D_M2 * D_L1 * D_L2 / 2},
             {D_M2 * D_L1 * D_L2 / 2, D_M2 * D_L2 ^ 2 / 3} }
local DK = { G * (D_M1 * D_L1 / 2 + D_M2 * D_L1), G * D_M2 * D_L2 / 2 }
local function double_modes()
  local a = DM[1][1] * DM[2][2] - DM[1][2] ^ 2
  local b = -(DK[1] * DM[2][2] + DK[2] * DM[1][1])
  local c = DK[1] * DK[2]
  local w2 = { (-b - sqrt(b * b - 4 * a * c)) / (2 * a), (-b + sqrt(b * b - 4 * a * c)) / (2 * a) }
  -- shape ratio φ2/φ1 from the first row: (K1 − ω² M11) φ1 − ω² M12 φ2 = 0
  local ratio = {}
  for k = 1, 2 do ratio[k] = (DK[1] - w2[k] * DM[1][1]) / (w2[k] * DM[1][2]) end
  return w2, ratio
end

local function double_checks()
  local m = double_pendulum(0, 0)  -- both links horizontal: far off
  local eq = m:equilibrium {}
  local lin = m:linearize { at = eq }
  local w2, ratio = double_modes()
  local r = {}
  for k = 1, 2 do
    local md = lin.modes[k]
    -- the shape over (link1.theta, link2.theta)
    local i1, i2 = 1, 2
    if lin.coordinates[1] ~= "link1.theta" then i1, i2 = 2, 1 end
    r[#r + 1] = ok(check_rel(lin.frequencies[k], sqrt(w2[k]) / (2 * pi), FREQ, "frequency " .. k))
    r[#r + 1] = ok(check_rel(md.shape[i2] / md.shape[i1], ratio[k], FREQ, "shape " .. k))
  end
  return all(ok(check_abs(eq:value("link1.theta", 0), -pi / 2, COORD, "link1 angle")),
             ok(check_abs(eq:value("link2.theta", 0), -pi / 2, COORD, "link2 angle")),
             ok((lin.coordinates[1] == "link1.theta" and lin.coordinates[2] == "link2.theta") or
                "coordinates " .. table.concat(lin.coordinates, " ")),
             table.unpack(r))
end

-- fixed = {P1}: link1 held at its start, link2 hangs
local function double_fixed()
  local m, P1 = double_pendulum(0.4, 0.8)
  local eq = m:equilibrium { fixed = {P1} }
  return all(ok(check_abs(eq:value("link1.theta", 0), 0.4, COORD, "held link1")),
             ok(check_abs(eq:value("link2.theta", 0), -pi / 2, COORD, "link2 hangs")))
end

-- a run started at the equilibrium plus a small second mode oscillates at its frequency, the
-- first mode not excited (errors of the amplitude's order: ε = 1e-3 rad)
local function double_integration()
  local lin = double_pendulum(-pi / 2, -pi / 2):linearize {}
  local md = lin.modes[2]
  local eps = 1e-3
  local s1, s2 = md.shape[1], md.shape[2]
  local m = double_pendulum(-pi / 2 + eps * s1, -pi / 2 + eps * s2)
  local f = lin.frequencies[2]
  local T = 1 / f
  local run = m:simulate { t_end = 20 * T, formulation = "kane", rtol = 1e-11, atol = 1e-11,
                           output_every = T / 400 }
  local ts, th = run:series("link1.theta")
  -- upward zero crossings of θ1 + π/2, linearly interpolated
  local cross = {}
  for i = 2, #ts do
    local a, b = th[i - 1] + pi / 2, th[i] + pi / 2
    if a < 0 and b >= 0 then cross[#cross + 1] = ts[i - 1] + (ts[i] - ts[i - 1]) * (-a) / (b - a) end
  end
  local period = (cross[#cross] - cross[1]) / (#cross - 1)
  -- the shape holds: θ2's deviation over θ1's at the peaks of θ1
  local worst = 0
  local _, th2 = run:series("link2.theta")
  for i = 2, #ts - 1 do
    local a = th[i] + pi / 2
    if a > 0.9 * eps * abs(s1) and a >= th[i - 1] + pi / 2 and a >= th[i + 1] + pi / 2 then
      worst = math.max(worst, abs((th2[i] + pi / 2) / a - s2 / s1))
    end
  end
  return all(ok(#cross >= 15 or "too few crossings"),
             ok(check_rel(period, T, eps, "period")),
             ok(check_abs(worst, 0, 10 * eps * abs(s2 / s1), "shape ratio")))
end

-- ------------------------------------------------------------------------------------------------
-- a four-bar held by a spring: the potential along its one-coordinate branch

local FA, FB, FC, FD = 0.4, 1.0, 0.8, 0.9
local FMA, FMB, FMC = 1.0, 2.0, 1.5
local FK, FPHI0 = 12, 1.2
local function fb_config(phi)
  local A = {FA * cos(phi), FA * sin(phi)}
  local dx, dy = FD - A[1], -A[2]
  local r = sqrt(dx * dx + dy * dy)
  local ex, ey = dx / r, dy / r
  local x = (FB * FB - FC * FC + r * r) / (2 * r)
  local h = sqrt(FB * FB - x * x)
  return A, {A[1] + x * ex - h * ey, A[2] + x * ey + h * ex}
end
-- the four-bar at crank angle phi through the motion T(p) = R(alpha) s p + shift, masses times mu
local function fourbar(phi, T)
  T = T or {}
  local al, s, mu, sh = T.alpha or 0, T.s or 1, T.mu or 1, T.shift or {0, 0}
  local function P(p) return {s * (cos(al) * p[1] - sin(al) * p[2]) + sh[1], s * (sin(al) * p[1] + cos(al) * p[2]) + sh[2]} end
  local A, B = fb_config(phi)
  local m = mbd.model { name = "fourbar", dim = 2, gravity = {G * s * sin(al), -G * s * cos(al)} }
  local function link(name, mass, len, p, q)
    local mid = P { (p[1] + q[1]) / 2, (p[2] + q[2]) / 2 }
    return m:body { name = name, mass = mu * mass, inertia = mu * s * s * mass * len ^ 2 / 12, pos = mid,
                    angle = atan(q[2] - p[2], q[1] - p[1]) + al }
  end
  local crank = link("crank", FMA, FA, {0, 0}, A)
  local coupler = link("coupler", FMB, FB, A, B)
  local rocker = link("rocker", FMC, FC, {FD, 0}, B)
  local O = m:revolute { name = "O", body1 = m.ground, at1 = P {0, 0}, body2 = crank, at2 = {-s * FA / 2, 0} }
  m:revolute { name = "A", body1 = crank, at1 = {s * FA / 2, 0}, body2 = coupler, at2 = {-s * FB / 2, 0} }
  m:revolute { name = "B", body1 = coupler, at1 = {s * FB / 2, 0}, body2 = rocker, at2 = {s * FC / 2, 0} }
  m:revolute { name = "D", body1 = m.ground, at1 = P {FD, 0}, body2 = rocker, at2 = {-s * FC / 2, 0} }
  m:rotational_spring { joint = O, k = FK * mu * s * s, angle = FPHI0 + al }
  return m
end
local function fb_V(phi)
  local A, B = fb_config(phi)
  return G * (FMA * A[2] / 2 + FMB * (A[2] + B[2]) / 2 + FMC * B[2] / 2) + 0.5 * FK * (phi - FPHI0) ^ 2
end
-- the equilibrium V'(φ) = 0 and the frequency √(V''/m_eff) by the energy method: m_eff =
-- Σ m |dr_cm/dφ|² + I (dθ/dφ)²
local FB_PHI = bisect(function(p) return d1(fb_V, p, 1e-3) end, 0.2, 2.5)
local FB_FREQ
do
  local function geo(phi)
    local A, B = fb_config(phi)
    return { {A[1] / 2, A[2] / 2, phi}, {(A[1] + B[1]) / 2, (A[2] + B[2]) / 2, atan(B[2] - A[2], B[1] - A[1])},
             {(FD + B[1]) / 2, B[2] / 2, atan(B[2], B[1] - FD)} }
  end
  local meff, mass, len = 0, {FMA, FMB, FMC}, {FA, FB, FC}
  for i = 1, 3 do
    local dx = d1(function(p) return geo(p)[i][1] end, FB_PHI, 1e-4)
    local dy = d1(function(p) return geo(p)[i][2] end, FB_PHI, 1e-4)
    local dt = d1(function(p) return geo(p)[i][3] end, FB_PHI, 1e-4)
    meff = meff + mass[i] * (dx * dx + dy * dy) + mass[i] * len[i] ^ 2 / 12 * dt * dt
  end
  FB_FREQ = sqrt(d2(fb_V, FB_PHI, 1e-3) / meff) / (2 * pi)
end

local function fourbar_checks()
  local m = fourbar(0.3)
  local eq = m:equilibrium {}
  local lin = m:linearize { at = eq }
  -- (V'' by second differences in Lua is good to ~1e-9: the tolerance stands)
  return all(ok(check_abs(eq:value("crank.theta", 0), FB_PHI, COORD, "crank angle")),
             ok(check_rel(lin.frequencies[1], FB_FREQ, FREQ, "frequency")),
             ok(lin.stable == true or "stable"))
end

-- every formulation gives the same A (the Cartesian ones in the same coordinates; relative in
-- joint coordinates: the same frequency)
local function fourbar_formulations()
  local m = fourbar(0.3)
  local eq = m:equilibrium {}
  local ref = m:linearize { at = eq }
  local big = 0
  for i = 1, #ref.A do for j = 1, #ref.A do big = math.max(big, abs(ref.A[i][j])) end end
  local r = {}
  for _, f in ipairs { "augmented", "baumgarte", "gcp", "udwadia_kalaba" } do
    local l = m:linearize { at = eq, formulation = f }
    for i = 1, #ref.A do
      for j = 1, #ref.A do
        -- (each A to ~1e-12 of its largest entry: 1e-9 is 1000× that)
        r[#r + 1] = ok(check_abs(l.A[i][j], ref.A[i][j], 1e-9 * big, f .. " A"))
      end
    end
  end
  local l = m:linearize { at = eq, formulation = "relative" }
  r[#r + 1] = ok(check_rel(l.frequencies[1], ref.frequencies[1], 1e-9, "relative"))
  r[#r + 1] = ok(l.coordinates[1]:match("%.angle$") and true or ("relative coordinate " .. l.coordinates[1]))
  return all(table.unpack(r))
end

-- the analytic derivatives of the generated equations against the differences, in the same
-- (joint) coordinates: (differences ~1e-12 of A's scale; 1e-8 leaves the kernels' spread)
local function analytic_checks()
  local r = {}
  local models = { {fourbar(0.3), "relative"}, {double_pendulum(0.3, -0.4), "relative"},
                   {double_pendulum(0.3, -0.4), "kane"} }
  for _, mf in ipairs(models) do
    local m, f = mf[1], mf[2]
    local eq = m:equilibrium {}
    local a = m:linearize { at = eq, formulation = f, method = "analytic" }
    local d = m:linearize { at = eq, formulation = f }
    local big = 0
    for i = 1, #d.A do for j = 1, #d.A do big = math.max(big, abs(d.A[i][j])) end end
    for i = 1, #d.A do
      for j = 1, #d.A do r[#r + 1] = ok(check_abs(a.A[i][j], d.A[i][j], 1e-8 * big, m.name .. " " .. f)) end
    end
    r[#r + 1] = ok(a.method == "analytic" or "method")
  end
  return all(table.unpack(r))
end

-- the frequencies do not change under a rigid motion of the whole scene, nor a change of units
-- (millimetres and grams); the equilibrium moves with the scene
local function invariance_checks()
  local m0 = fourbar(0.3)
  local base = m0:linearize { at = m0:equilibrium {} }
  local r = {}
  local motions = { {alpha = 0.7, shift = {3, -2}}, {alpha = -2.5, shift = {-40, 7}},
                    {s = 1000, mu = 1000}, {alpha = 1.9, shift = {500, 200}, s = 1000, mu = 1000} }
  for k, T in ipairs(motions) do
    local m = fourbar(0.3, T)
    local eq = m:equilibrium {}
    local lin = m:linearize { at = eq }
    r[#r + 1] = ok(check_rel(lin.frequencies[1], base.frequencies[1], 1e-9, "frequency, motion " .. k))
    r[#r + 1] = ok(check_abs(eq:value("crank.theta", 0), FB_PHI + (T.alpha or 0), COORD,
                             "equilibrium, motion " .. k))
  end
  return all(table.unpack(r))
end

-- ------------------------------------------------------------------------------------------------
-- spatial: a heavy symmetric top on its tip

local TM, TL, TA0, TC = 1.5, 0.3, 0.02, 0.03
local TA = TA0 + TM * TL ^ 2  -- the transverse moment about the tip
local function top(th, phid, psid)
  local a = {sin(th), 0, cos(th)}
  local w = {psid * a[1], 0, phid + psid * a[3]}  -- ω = φ̇ e_z + ψ̇ a
  local r = {TL * a[1], 0, TL * a[3]}
  local v = {w[2] * r[3] - w[3] * r[2], w[3] * r[1] - w[1] * r[3], w[1] * r[2] - w[2] * r[1]}
  local m = mbd.model { name = "top", dim = 3, gravity = {0, 0, -G} }
  local body = m:body { name = "top", mass = TM, inertia = {TA0, TA0, TC}, pos = r,
                        rot = mbd.rot.axis_angle({0, 1, 0}, th), vel = v, omega = w }
  m:spherical { name = "tip", body1 = m.ground, at1 = {0, 0, 0}, body2 = body, at2 = {0, 0, -TL} }
  return m, body
end

-- the sleeping top: A ω² − C ω3 ω + m g l = 0 gives the slow precession and the fast nutation
local function sleeping_top()
  local w3 = 60
  local m, body = top(0, 0, w3)
  local lin = m:linearize { steady = { {body = body, axis = {0, 0, 1}} } }
  local disc = sqrt((TC * w3) ^ 2 - 4 * TA * TM * G * TL)
  local slow, fast = (TC * w3 - disc) / (2 * TA), (TC * w3 + disc) / (2 * TA)
  return all(ok(#lin.frequencies == 2 or ("frequencies: " .. #lin.frequencies)),
             ok(check_rel(lin.frequencies[1], slow / (2 * pi), FREQ, "precession")),
             ok(check_rel(lin.frequencies[2], fast / (2 * pi), FREQ, "nutation")),
             ok(check_rel(lin.rates[1], w3, 1e-9, "spin rate")),
             ok(lin.equilibrium == true or "steady"))
end

-- steady precession at θ0: A φ̇² cos θ0 − C ω3 φ̇ + m g l = 0 (the slow one); the nutation about
-- it from the Routhian U(θ) = (pφ − pψ cos θ)²/(2A sin²θ) + pψ²/(2C) + m g l cos θ, ω² = U''/A
local function precessing_top()
  local th0, w3 = 0.5, 60
  local phid = (TC * w3 - sqrt((TC * w3) ^ 2 - 4 * TA * TM * G * TL * cos(th0))) / (2 * TA * cos(th0))
  local psid = w3 - phid * cos(th0)
  local m, body = top(th0, phid, psid)
  local lin = m:linearize { steady = { {axis = {0, 0, 1}, at = {0, 0, 0}}, {body = body, axis = {0, 0, 1}} } }
  local pps, pph = TC * w3, TA * phid * sin(th0) ^ 2 + TC * w3 * cos(th0)
  local function U(t)
    return (pph - pps * cos(t)) ^ 2 / (2 * TA * sin(t) ^ 2) + pps ^ 2 / (2 * TC) + TM * G * TL * cos(t)
  end
  local nut = sqrt(d2(U, th0, 1e-3) / TA) / (2 * pi)
  return all(ok(check_rel(lin.rates[1], phid, 1e-9, "precession rate")),
             ok(check_rel(lin.rates[2], psid, 1e-9, "spin rate")),
             ok(#lin.frequencies == 1 or ("frequencies: " .. #lin.frequencies)),
             ok(check_rel(lin.frequencies[1], nut, FREQ, "nutation")),
             ok(lin.equilibrium == true or "steady"))
end

-- a spherical pendulum hanging at rest: analytic (every joint cut: Cartesian) against differences,
-- the two equal pendulum frequencies √(m g l / (I + m l²)), and the free turn about the vertical
-- (a rigid mode; an equilibrium search names it: a neutral direction)
local function hanging(tilt)
  local m = mbd.model { name = "spherical", dim = 3, gravity = {0, 0, -G} }
  local b = m:body { name = "bob", mass = 2, inertia = {0.05, 0.05, 0.01},
                     pos = {-0.6 * sin(tilt), 0, -0.6 * cos(tilt)}, rot = mbd.rot.axis_angle({0, 1, 0}, tilt) }
  m:spherical { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {0, 0, 0.6} }
  return m
end
local function spherical_pendulum()
  local m = hanging(0)
  local a = m:linearize { method = "analytic" }
  local d = m:linearize {}
  local f = sqrt(2 * G * 0.6 / (0.05 + 2 * 0.36)) / (2 * pi)
  local big = 0
  for i = 1, #d.A do for j = 1, #d.A do big = math.max(big, abs(d.A[i][j])) end end
  local r = {}
  for i = 1, #d.A do for j = 1, #d.A do r[#r + 1] = ok(check_abs(a.A[i][j], d.A[i][j], 1e-8 * big, "A")) end end
  local kinds = {}
  for _, md in ipairs(d.modes) do kinds[#kinds + 1] = md.kind end
  return all(ok(check_rel(d.frequencies[1], f, FREQ, "swing 1")), ok(check_rel(d.frequencies[2], f, FREQ, "swing 2")),
             ok(table.concat(kinds, " ") == "oscillatory oscillatory rigid" or table.concat(kinds, " ")),
             ok(d.stable == false or "a free turn is not stable"),
             table.unpack(r))
end

-- ------------------------------------------------------------------------------------------------
-- flexible bodies

local BE, BG, BRHO, BB = 210e9, 80.8e9, 7850, 0.02
local fe = mbd.fem.beam { length = 1, elements = 8, E = BE, G = BG, rho = BRHO, A = BB * BB,
                          Iy = BB ^ 4 / 12, Iz = BB ^ 4 / 6, J = 0.1406 * BB ^ 4 }
local modes = fe:modes { fixed = {1}, count = 4 }
-- each selected mode (mass-normalized with the consistent mass) with the lumped masses of the
-- flexible body: modal mass, the geometric stiffness of its centrifugal tension per unit Ω²
-- (cubic element shapes under each element's tension Σ m_i x_i beyond it), and the in-plane
-- softening Σ m_i |u_i,xy|²
local function beam_modal(k)
  local sh, N = modes:shape(k), modes.nodes
  local x, mass = {}, {}
  for i = 1, N do local nd = modes:node(i); x[i], mass[i] = nd.pos[1], nd.mass end
  local M, soft, Gk = 0, 0, 0
  for i = 1, N do
    local u = sh[i]
    M = M + mass[i] * (u[1] ^ 2 + u[2] ^ 2 + u[3] ^ 2)
    soft = soft + mass[i] * (u[1] ^ 2 + u[2] ^ 2)
  end
  local flap = abs(sh[N][3]) > abs(sh[N][2])
  for e = 1, N - 1 do
    local le, mid, T = x[e + 1] - x[e], 0.5 * (x[e] + x[e + 1]), 0
    for i = 1, N do if x[i] > mid then T = T + mass[i] * x[i] end end
    local v = flap and {sh[e][3], -sh[e][5], sh[e + 1][3], -sh[e + 1][5]}
                    or {sh[e][2], sh[e][6], sh[e + 1][2], sh[e + 1][6]}
    local K = { {36, 3 * le, -36, 3 * le}, {3 * le, 4 * le ^ 2, -3 * le, -le ^ 2},
                {-36, -3 * le, 36, -3 * le}, {3 * le, -le ^ 2, -3 * le, 4 * le ^ 2} }
    for a = 1, 4 do for c = 1, 4 do Gk = Gk + v[a] * T / (30 * le) * K[a][c] * v[c] end end
  end
  return (2 * pi * modes.frequency[k]) ^ 2, M, Gk, flap and 0 or soft
end

-- a clamped beam: its frequencies are fe:modes' with the lumped masses (within 1 %), exactly the
-- Rayleigh quotients of the lumped modal masses (the two bendings decouple)
local function clamped_beam()
  local m = mbd.model { name = "cantilever", dim = 3 }
  local beam = m:flexible_body { name = "beam", fe = fe, modes = modes, select = {1, 2},
                                 rotary_inertia = false }
  m:fixed { name = "clamp", body1 = m.ground, at1 = {0, 0, 0}, body2 = beam:node(1) }
  local lin = m:linearize {}
  local r = {}
  for k = 1, 2 do
    local K, M = beam_modal(k)
    r[#r + 1] = ok(check_rel(lin.frequencies[k], sqrt(K / M) / (2 * pi), 1e-8, "lumped " .. k))
    r[#r + 1] = ok(check_rel(lin.frequencies[k], modes.frequency[k], 0.01, "fe:modes " .. k))
    r[#r + 1] = ok(lin.coordinates[k] == "beam.a" .. k or ("coordinate " .. lin.coordinates[k]))
  end
  return all(table.unpack(r))
end

-- the beam on a hub driven at Ω about z: flapping stiffens by the centrifugal tension, ω² =
-- (K + G Ω²)/M; the in-plane bending also softens, ω² = (K + G Ω² − S Ω²)/M
local function spinning_beam()
  local r, f = {}, {}
  for _, W in ipairs { 0, 60 } do
    local m = mbd.model { name = "rotor", dim = 3 }
    local hub = m:body { name = "hub", mass = 10, inertia = {1, 1, 1}, pos = {0, 0, 0} }
    local axle = m:revolute { name = "axle", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {0, 0, 1},
                              body2 = hub, at2 = {0, 0, 0}, axis2 = {0, 0, 1} }
    m:drive { joint = axle, position = function(t) return W * t end }
    local beam = m:flexible_body { name = "beam", fe = fe, modes = modes, select = {1, 2},
                                   rotary_inertia = false, geometric_stiffening = true }
    m:fixed { name = "clamp", body1 = hub, at1 = {0, 0, 0}, body2 = beam:node(1) }
    local lin = m:linearize {}
    f[W] = lin.frequencies
    for k = 1, 2 do
      local K, M, Gk, S = beam_modal(k)
      r[#r + 1] = ok(check_rel(lin.frequencies[k], sqrt((K + (Gk - S) * W * W) / M) / (2 * pi), 1e-8,
                               "Ω = " .. W .. ", mode " .. k))
    end
  end
  r[#r + 1] = ok(f[60][1] > 1.15 * f[0][1] or "the flapping mode stiffens")
  return all(table.unpack(r))
end

-- ------------------------------------------------------------------------------------------------
-- what is not an equilibrium, and the results' forms

local function not_equilibrium()
  local m = pendulum(0.3)
  local lin = m:linearize { quiet = true }
  return all(ok(lin.equilibrium == false or "flagged"), ok(lin.stable == nil or "no verdict"),
             ok((lin.warnings[1] or ""):find("not an equilibrium", 1, true) and true or "warning"),
             ok(tostring(lin):find("not an equilibrium", 1, true) and true or "report"))
end

local function outputs_and_report()
  local m, rod, O = pendulum(0.3)
  local eq = m:equilibrium {}
  local lin = m:linearize { at = eq, inputs = { {joint = O} }, outputs = {"O.angle"} }
  local mtx, csv, page = tmp .. ".mtx", tmp .. ".csv", tmp .. ".html"
  lin:write(mtx)
  lin:write(csv)
  lin:animate { mode = 1, file = page }
  local function slurp(f) local h = io.open(f); local s = h:read("a"); h:close(); os.remove(f); return s end
  local a, c, p = slurp(mtx), slurp(csv), slurp(page)
  local text = tostring(lin)
  local ex = tostring(m:explain { run = eq, linearize = true })
  return all(ok(a:find("^%%%%MatrixMarket matrix array real general") and true or "mtx header"),
             ok(a:find("\n3 3\n", 1, true) and true or "mtx size"),
             ok(c:find("row,rod.theta,rod.theta_dot,torque(O)", 1, true) and true or "csv header"),
             ok(p:find("mbd-animation", 1, true) and true or "page"),
             ok(text:find("rod.theta 100%", 1, true) and true or "participation"),
             ok(text:find("rod.theta''", 1, true) and true or "equations"),
             ok(ex:find("linearized equations", 1, true) and true or "explain"),
             ok(lin.modes[1].bodies.rod and lin.modes[1].participation.bodies[1] > 0.99 or "body motion"))
end

local cases = {
  {"rod pendulum: equilibrium and damped eigenvalues", pendulum_checks, {}, true, check = function(g, m) return g, m end},
  {"rod pendulum: B, C, D", pendulum_io, {}, true, check = function(g, m) return g, m end},
  {"double pendulum: normal modes from M and K", double_checks, {}, true, check = function(g, m) return g, m end},
  {"double pendulum: fixed = {P1}", double_fixed, {}, true, check = function(g, m) return g, m end},
  {"double pendulum: a run oscillates at the mode's frequency", double_integration, {}, true, check = function(g, m) return g, m end},
  {"four-bar: equilibrium and the energy method", fourbar_checks, {}, true, check = function(g, m) return g, m end},
  {"four-bar: every formulation's A", fourbar_formulations, {}, true, check = function(g, m) return g, m end},
  {"analytic derivatives against differences", analytic_checks, {}, true, check = function(g, m) return g, m end},
  {"invariance: rigid motion and units", invariance_checks, {}, true, check = function(g, m) return g, m end},
  {"sleeping top: precession and nutation", sleeping_top, {}, true, check = function(g, m) return g, m end},
  {"steady precession: nutation", precessing_top, {}, true, check = function(g, m) return g, m end},
  {"spherical pendulum: analytic and closed form", spherical_pendulum, {}, true, check = function(g, m) return g, m end},
  {"clamped beam: lumped modes", clamped_beam, {}, true, check = function(g, m) return g, m end},
  {"spinning beam: geometric stiffening", spinning_beam, {}, true, check = function(g, m) return g, m end},
  {"not an equilibrium: flagged, no verdict", not_equilibrium, {}, true, check = function(g, m) return g, m end},
  {"write, animate, report, explain", outputs_and_report, {}, true, check = function(g, m) return g, m end},
}

-- ------------------------------------------------------------------------------------------------
-- bad input: one clear message naming the object, at the user's line

local function fully_driven()
  local m = mbd.model { name = "driven", dim = 2 }
  local c = m:body { name = "crank", mass = 1, inertia = 0.1, pos = {0.5, 0} }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = c, at2 = {-0.5, 0} }
  m:drive { joint = O, position = function(t) return t end }
  return m
end
-- a parallelogram (crank and rocker 1 m, coupler and ground 2 m) driven through its flat pose at
-- t = 0.5, where all four bars lie on one line and Phi_q loses rank
local toggle_model
local function toggle()
  if toggle_model then return toggle_model end
  local m = mbd.model { name = "toggle", dim = 2 }
  local th = 0.5
  local A = {cos(th), sin(th)}
  local c = m:body { name = "crank", mass = 1, inertia = 0.1, pos = {A[1] / 2, A[2] / 2}, angle = th }
  local k = m:body { name = "coupler", mass = 1, inertia = 0.3, pos = {A[1] + 1, A[2]} }
  local r = m:body { name = "rocker", mass = 1, inertia = 0.1, pos = {2 + A[1] / 2, A[2] / 2}, angle = th }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = c, at2 = {-0.5, 0} }
  m:revolute { name = "A", body1 = c, at1 = {0.5, 0}, body2 = k, at2 = {-1, 0} }
  m:revolute { name = "B", body1 = k, at1 = {1, 0}, body2 = r, at2 = {0.5, 0} }
  m:revolute { name = "D", body1 = m.ground, at1 = {2, 0}, body2 = r, at2 = {-0.5, 0} }
  m:drive { joint = O, position = function(t) return th - 2 * th * t end }
  toggle_model = m
  return m
end
local toggle_run = toggle():kinematics { t_end = 0.5, steps = 1 }
-- the same parallelogram assembled at rest in its flat pose (crank 0..1, coupler 1..3, rocker
-- folded back 3..2): no velocity tells the rank lost there from a redundant row, so assembly
-- leaves along a generic admissible motion; the row must be kept (not removed as redundant, which
-- would leave a three-link chain with two rigid modes) and the analyses must refuse the pose
local function flat_at_rest()
  local m = mbd.model { name = "flat", dim = 2, gravity = {0, -G} }
  local c = m:body { name = "crank", mass = 1, inertia = 1 / 12, pos = {0.5, 0} }
  local k = m:body { name = "coupler", mass = 1, inertia = 4 / 12, pos = {2, 0} }
  local r = m:body { name = "rocker", mass = 1, inertia = 1 / 12, pos = {2.5, 0} }
  m:revolute { name = "A", body1 = m.ground, at1 = {0, 0}, body2 = c, at2 = {-0.5, 0} }
  m:revolute { name = "B", body1 = c, at1 = {0.5, 0}, body2 = k, at2 = {-1, 0} }
  m:revolute { name = "C", body1 = k, at1 = {1, 0}, body2 = r, at2 = {0.5, 0} }
  m:revolute { name = "D", body1 = r, at1 = {-0.5, 0}, body2 = m.ground, at2 = {2, 0} }
  return m
end
local function free_body()
  local m = mbd.model { name = "free", dim = 2, gravity = {0, -G} }
  m:body { name = "b", mass = 1, inertia = 0.1, pos = {0, 0} }
  return m
end
local other = pendulum(0.2)
local other_run = other:equilibrium {}
local many = pendulum(0.2):simulate { t_end = 0.1 }

local errors = {
  {"no degree of freedom", function() return fully_driven():linearize {} end, {}, false,
   "linearize: model 'driven' has no degree of freedom left"},
  {"no degree of freedom (equilibrium)", function() return fully_driven():equilibrium {} end, {}, false,
   "equilibrium: model 'driven' has no degree of freedom left"},
  {"singular configuration", function() return toggle():linearize { at = toggle_run, t = 0.5 } end, {}, false,
   "linearize: singular configuration at t = 0.5"},
  {"singular configuration assembled at rest", function() return flat_at_rest():linearize {} end, {}, false,
   "linearize: singular configuration at t = 0"},
  {"singular configuration assembled at rest (equilibrium)", function() return flat_at_rest():equilibrium {} end, {}, false,
   "equilibrium: singular configuration at t = 0"},
  {"neutral direction (spatial)", function() return hanging(0.2):equilibrium {} end, {}, false,
   "equilibrium: model 'spherical' has a neutral direction along 'bob.e"},
  {"neutral direction", function() return pendulum(0.3, {gravity = {0, 0}, free = true}):equilibrium {} end, {}, false,
   "equilibrium: model 'pendulum' has a neutral direction along 'rod.theta'"},
  {"no equilibrium: a free body falls", function() return free_body():equilibrium {} end, {}, false,
   "equilibrium: model 'free' has no equilibrium: a generalized force -9.81 acts along 'b.y'"},
  {"unknown field", function() return pendulum(0.3):linearize { att = 1 } end, {}, false,
   "linearize: unknown field 'att'"},
  {"unknown method", function() return pendulum(0.3):linearize { method = "exact" } end, {}, false,
   "linearize: unknown method 'exact' (differences, analytic)"},
  {"analytic with a rotational spring on a cut joint", function() return pendulum(0.3):linearize { method = "analytic" } end, {}, false,
   "linearize: method 'analytic' needs generated equations: a rotational spring acts on a cut joint's angle"},
  {"an output that is no channel", function() return pendulum(0.3):linearize { outputs = {"O.agnle"} } end, {}, false,
   "linearize: output 'O.agnle' is not a channel of model 'pendulum'"},
  {"a force input without direction", function() local m, rod = pendulum(0.3); return m:linearize { inputs = { {force = rod} } } end, {}, false,
   "linearize: input 1: a force needs field 'direction' (global)"},
  {"a joint input without the coordinate", function() local m, _, O = pendulum(0.3); return m:linearize { inputs = { {joint = O, coordinate = "displacement"} } } end, {}, false,
   "linearize: input 1: the joint has no displacement"},
  {"steady with joint coordinates", function() return pendulum(0.3):linearize { formulation = "relative", steady = { {at = {0, 0}} } } end, {}, false,
   "linearize: steady = {...} needs Cartesian coordinates"},
  {"at: a run of another model", function() return pendulum(0.3):linearize { at = other_run } end, {}, false,
   "linearize: field 'at' is a run of another model"},
  {"at: a run without t", function() return many.model:linearize { at = many } end, {}, false,
   "linearize: missing field 't'"},
  {"at: t outside the run", function() return many.model:linearize { at = many, t = 3 } end, {}, false,
   "linearize: t = 3.0 is outside the run (0.0 .. 0.1 s)"},
  {"t without at", function() return pendulum(0.3):linearize { t = 2 } end, {}, false,
   "linearize: field 't' needs field 'at'"},
  {"fixed: a joint without a coordinate", function() local m = mbd.model { name = "w", dim = 2, gravity = {0, -G} }; local b = m:body { name = "b", mass = 1, inertia = 1, pos = {0, 0} }; local F = m:fixed { name = "F", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0} }; return m:equilibrium { fixed = {F} } end, {}, false,
   "equilibrium: fixed joint 'F' (fixed) has no relative coordinate to hold"},
  {"tol must be positive", function() return pendulum(0.3):equilibrium { tol = 0 } end, {}, false,
   "equilibrium: field 'tol' must be positive and finite, got 0"},
  {"animate: no such mode", function() return pendulum(0.3):linearize {}:animate { mode = 3, file = tmp .. ".html" } end, {}, false,
   "lin:animate: mode 3 does not exist (1 modes)"},
}
for _, c in ipairs(errors) do cases[#cases + 1] = c end

H.run(cases, "linear")
