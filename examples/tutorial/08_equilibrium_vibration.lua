-- Lesson 8 (docs/tutorial/08-equilibrium-vibration.md): where a mechanism rests and how it
-- vibrates about its rest — a pendulum's equilibrium and damped eigenvalues against the closed
-- form, a four-bar held by a spring (its equilibrium from a pose far off, its frequency against
-- the energy method, which body takes part, a run that confirms the frequency), and a sleeping
-- top's precession and nutation, linearized in the frame of its spin.
--
--   mbd examples/tutorial/08_equilibrium_vibration.lua [OUTDIR]   (default out/tutorial)
--   mbd -i examples/tutorial/08_equilibrium_vibration.lua         then: p, peq, plin, m, eq, lin
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)
local pi, sin, cos, sqrt = math.pi, math.sin, math.cos, math.sqrt
local g = 9.81

-- 1. a rod pendulum (2 kg, 1.2 m) with a rotational spring k and a damper c at its pin, the
-- spring's free angle horizontal: released horizontal, it sags to k θ + m g (L/2) cos θ = 0
local M, L, k, c = 2, 1.2, 30, 0.4
p = mbd.model { name = "pendulum", dim = 2, gravity = {0, -g} }
local rod = p:body { name = "rod", mass = M, inertia = M * L ^ 2 / 12, pos = {L / 2, 0}, angle = 0 }
local O = p:revolute { name = "O", body1 = p.ground, at1 = {0, 0}, body2 = rod, at2 = {-L / 2, 0} }
p:rotational_spring { joint = O, k = k, c = c, angle = 0 }
peq = p:equilibrium {}
print(peq)
-- the closed form by bisection
local lo, hi = -pi / 2, 0
for _ = 1, 200 do
  local mid = (lo + hi) / 2
  if k * mid + M * g * L / 2 * cos(mid) > 0 then hi = mid else lo = mid end
end
local th = (lo + hi) / 2
print(string.format("rest angle %.12f rad (closed form %.12f)", peq:value("rod.theta", 0), th))

-- about it: I θ'' + c θ' + (k − m g (L/2) sin θ) θ = 0 with I = m L²/3
plin = p:linearize { at = peq }
print(plin)
local I, K = M * L ^ 2 / 3, k - M * g * L / 2 * sin(th)
local w, z = sqrt(K / I), c / (2 * sqrt(K * I))
print(string.format("eigenvalues %.10f ± %.10fi (closed form -zeta w ± w sqrt(1 - zeta^2): " ..
                    "%.10f ± %.10fi)", plin.eigenvalues[1][1], plin.eigenvalues[1][2], -z * w,
                    w * sqrt(1 - z * z)))

-- 2. a four-bar (crank 0.4 m from O, coupler 1 m, rocker 0.8 m from D, 0.9 m apart) under
-- gravity, held by a rotational spring at the crank's pin (free angle 1.2 rad)
local a, b, cc, d = 0.4, 1.0, 0.8, 0.9
local mass = {1.0, 2.0, 1.5}
local ks, phi0 = 12, 1.2
-- the pose at crank angle phi: A the crank's tip, B the coupler's and rocker's pin (upper branch)
local function pose(phi)
  local A = {a * cos(phi), a * sin(phi)}
  local dx, dy = d - A[1], -A[2]
  local r = sqrt(dx * dx + dy * dy)
  local x = (b * b - cc * cc + r * r) / (2 * r)
  local h = sqrt(b * b - x * x)
  return A, {A[1] + (x * dx - h * dy) / r, A[2] + (x * dy + h * dx) / r}
end
m = mbd.model { name = "four-bar", dim = 2, gravity = {0, -g} }
local A, B = pose(0.3)  -- far from its rest: the equilibrium search starts here
local function link(name, ms, len, P, Q)
  return m:body { name = name, mass = ms, inertia = ms * len ^ 2 / 12,
                  pos = {(P[1] + Q[1]) / 2, (P[2] + Q[2]) / 2}, angle = math.atan(Q[2] - P[2], Q[1] - P[1]) }
end
local crank = link("crank", mass[1], a, {0, 0}, A)
local coupler = link("coupler", mass[2], b, A, B)
local rocker = link("rocker", mass[3], cc, {d, 0}, B)
local pin = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-a / 2, 0} }
m:revolute { name = "A", body1 = crank, at1 = {a / 2, 0}, body2 = coupler, at2 = {-b / 2, 0} }
m:revolute { name = "B", body1 = coupler, at1 = {b / 2, 0}, body2 = rocker, at2 = {cc / 2, 0} }
m:revolute { name = "D", body1 = m.ground, at1 = {d, 0}, body2 = rocker, at2 = {-cc / 2, 0} }
m:rotational_spring { joint = pin, k = ks, angle = phi0 }
eq = m:equilibrium {}
print(eq)
print(string.format("crank at rest: %.10f rad; stable: %s", eq:value("crank.theta", 0),
                    tostring(eq.stats.stable)))

-- the energy method on the one-coordinate branch: V(φ) = Σ m g y + ½ k (φ − φ0)², T = ½ m_eff φ'²
local function geo(phi)
  local P, Q = pose(phi)
  return { {P[1] / 2, P[2] / 2, phi}, {(P[1] + Q[1]) / 2, (P[2] + Q[2]) / 2, math.atan(Q[2] - P[2], Q[1] - P[1])},
           {(d + Q[1]) / 2, Q[2] / 2, math.atan(Q[2], Q[1] - d)} }
end
local function V(phi)
  local gs, pot = geo(phi), 0.5 * ks * (phi - phi0) ^ 2
  for i = 1, 3 do pot = pot + mass[i] * g * gs[i][2] end
  return pot
end
local phi, h = eq:value("crank.theta", 0), 1e-3
local Vpp = (-V(phi + 2 * h) + 16 * V(phi + h) - 30 * V(phi) + 16 * V(phi - h) - V(phi - 2 * h)) / (12 * h * h)
local meff, lens = 0, {a, b, cc}
for i = 1, 3 do
  local p1, m1 = geo(phi + 1e-5)[i], geo(phi - 1e-5)[i]
  local dx, dy, dt = (p1[1] - m1[1]) / 2e-5, (p1[2] - m1[2]) / 2e-5, (p1[3] - m1[3]) / 2e-5
  meff = meff + mass[i] * (dx * dx + dy * dy) + mass[i] * lens[i] ^ 2 / 12 * dt * dt
end
lin = m:linearize { at = eq }
print(lin)
print(string.format("frequency %.8f Hz (energy method sqrt(V''/m_eff)/2pi: %.8f Hz)",
                    lin.frequencies[1], sqrt(Vpp / meff) / (2 * pi)))

-- the time integration agrees: released from the rest pose plus a small turn of the crank, the
-- four-bar swings with the linearization's period
local function released(dphi)
  local mr = mbd.model { name = "four-bar", dim = 2, gravity = {0, -g} }
  local P, Q = pose(phi + dphi)
  local function lk(name, ms, len, S, R)
    return mr:body { name = name, mass = ms, inertia = ms * len ^ 2 / 12,
                     pos = {(S[1] + R[1]) / 2, (S[2] + R[2]) / 2}, angle = math.atan(R[2] - S[2], R[1] - S[1]) }
  end
  local c1, c2, c3 = lk("crank", mass[1], a, {0, 0}, P), lk("coupler", mass[2], b, P, Q),
                     lk("rocker", mass[3], cc, {d, 0}, Q)
  local o = mr:revolute { name = "O", body1 = mr.ground, at1 = {0, 0}, body2 = c1, at2 = {-a / 2, 0} }
  mr:revolute { name = "A", body1 = c1, at1 = {a / 2, 0}, body2 = c2, at2 = {-b / 2, 0} }
  mr:revolute { name = "B", body1 = c2, at1 = {b / 2, 0}, body2 = c3, at2 = {cc / 2, 0} }
  mr:revolute { name = "D", body1 = mr.ground, at1 = {d, 0}, body2 = c3, at2 = {-cc / 2, 0} }
  mr:rotational_spring { joint = o, k = ks, angle = phi0 }
  return mr
end
local T = 1 / lin.frequencies[1]
run = released(1e-3):simulate { t_end = 10 * T, formulation = "kane", rtol = 1e-10, atol = 1e-10,
                                output_every = T / 200 }
local ts, cr = run:series("crank.theta")
local up = {}
for i = 2, #ts do
  local y0, y1 = cr[i - 1] - phi, cr[i] - phi
  if y0 < 0 and y1 >= 0 then up[#up + 1] = ts[i - 1] + (ts[i] - ts[i - 1]) * (-y0) / (y1 - y0) end
end
print(string.format("simulated period %.6f s over %d swings (linearization %.6f s)",
                    (up[#up] - up[1]) / (#up - 1), #up - 1, T))
lin:animate { mode = 1, file = out .. "/08_fourbar_mode1.html" }
lin:write(out .. "/08_fourbar.mtx")

-- 3. a top spinning upright: about its steady spin, in the frame that turns with it, the tilt
-- precesses slowly and nutates fast: A ω² − C ω3 ω + m g l = 0
local mt, l, A0, C, w3 = 1.5, 0.3, 0.02, 0.03, 60
local top = mbd.model { name = "top", dim = 3, gravity = {0, 0, -g} }
local body = top:body { name = "top", mass = mt, inertia = {A0, A0, C}, pos = {0, 0, l},
                        omega = {0, 0, w3} }
top:spherical { name = "tip", body1 = top.ground, at1 = {0, 0, 0}, body2 = body, at2 = {0, 0, -l} }
local tlin = top:linearize { steady = { {body = body, axis = {0, 0, 1}} } }
local At = A0 + mt * l * l
local disc = sqrt((C * w3) ^ 2 - 4 * At * mt * g * l)
print(string.format("top: precession %.8f Hz, nutation %.8f Hz (closed form %.8f, %.8f Hz)",
                    tlin.frequencies[1], tlin.frequencies[2], (C * w3 - disc) / (2 * At) / (2 * pi),
                    (C * w3 + disc) / (2 * At) / (2 * pi)))
print("wrote " .. out .. "/08_fourbar_mode1.html and 08_fourbar.mtx")
