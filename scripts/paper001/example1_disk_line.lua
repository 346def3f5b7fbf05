-- Paper 001 (Park, Yoo, Hwang 1999), example 1: a disk on a straight line (Fig. 3-5, Table 1).
-- Regenerates Fig. 4 (position, velocity and acceleration of the disk along the line over 1 s)
-- and Fig. 5 (the same magnified around the switch from slip to rolling), and checks the text's
-- figures — the normal force 29.43 N and the acceleration jump "near 0.32 s" where slip turns into
-- rolling — against closed forms: the script ends with exit status 1 when a claim fails.
--
--   mbd scripts/paper001/example1_disk_line.lua [OUTDIR]     (default out/paper001)
--
-- Data (Table 1, DIGEST.md): m = 3 kg, J = 2 kg·m² (printed "3,000", "2,000" with a decimal
-- comma), radius R = 0.2 m, gravity 9.81 along -y, F_D = 10 N along +x at the centre, mu = 0.3,
-- mu_s = 0.35; r(0) = (0, 0.2), theta(0) = 0, rdot(0) = (10, 0), thetadot(0) = -60 rad/s.
--
-- Closed form (ours).  N = m g = 29.43 N.  The contact point slips at s = xdot + R thetadot =
-- 10 - 12 = -2 m/s (backwards), so kinetic friction mu N pushes the disk forward and turns it
-- against its spin:  xddot = (F_D + mu N)/m,  thetaddot = mu N R / J,  sdot = xddot + R thetaddot
-- = (F_D + mu N)/m + mu N R²/J  (constant).  The slip stops at t* = 2 / sdot = 0.309938 s; from
-- then on the disk rolls with xddot = F_D / (m + J/R²) = 0.18868 m/s², held by a static friction
-- F_t = -F_D (J/R²)/(m + J/R²) = -9.434 N, within mu_s N = 10.30 N, so it keeps rolling.  Energy:
-- while slipping, friction takes mu N (2 t - sdot t²/2) (its force times the slip speed,
-- integrated); while rolling it does no work and the kinetic energy grows by F_D times the
-- distance.
--
-- What reproduces:
--  * N = 29.43 N: reproduced (every formulation, to 1e-9 N).
--  * the switch: reproduced against the closed form (every formulation's event within 1e-12 s of
--    t* = 0.30994 s).  The paper's "near 0.32 s" is 0.0101 s (3 %) later than t*: a reading off
--    its plots (its own Fig. 5 caption puts the jump "near 0.5 s"), or its integrator's switching
--    rule, which it does not describe; one unit of its last digit (0.01 s) would just miss, so the
--    claim below allows 0.02 s and says so.  mbd locates the switch as a root of the slip speed on
--    the integrator's interpolant (CVODE Adams at rtol = atol = 1e-10: between switches the
--    motion is a polynomial of degree two); the paper integrated with DE (Shampine-Gordon).
--  * Figs. 4-5: reproduced in kind (the curves are the closed form's: slip acceleration 6.2763,
--    rolling 0.18868 m/s², checked; the figures are drawn from the run).
--  * section 2.1, a contact removes one degree of freedom: the disk keeps 2 of its 3.
--  * the paper's conclusion, that the reduced equations (28) (mbd's "kane") iterate more cheaply
--    than Haug's augmented system: not reproduced.  At equal accuracy (error <= 1e-6 against a
--    1e-12 reference, scripts/paper001/cost.lua) both take 24 evaluations at rtol 3.2e-6 (the
--    switch decides the steps), and kane's cost 1.9 times augmented's instructions and 1.8 times
--    its CPU: its position analysis re-evaluates the constraints and the contact, 2.4 times what
--    augmented's one kinematic update costs (scripts/bench/paper001.lua, paper001_callgrind.sh).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper001")
local claims = study.claims()
local models = study.beside(arg, "models.lua")
local cost = study.beside(arg, "cost.lua")

local m_, J, R, F, g, mu, mus = 3, 2, 0.2, 10, 9.81, 0.3, 0.35
local N = m_ * g
local xdd_slip = (F + mu * N) / m_
local tstar = 2 / (xdd_slip + mu * N * R * R / J)
local xdd_roll = F / (m_ + J / R ^ 2)
local ft_roll = -F * (J / R ^ 2) / (m_ + J / R ^ 2)

local m = models.disk_line()
local runs = {}
local rows = {}
-- the five formulations against the closed forms: largest |N - m g|, |t_event - t*|, energy
-- balances (slip: the friction's loss at t = 0.3 s; rolling: from 0.4 to 1 s), events
local dN, dt, dE_slip, dE_roll, nev = 0, 0, 0, 0, {}
-- the mechanical energy (kinetic and gravity's) of the disk at t
local function energy(run, t)
  return 0.5 * m_ * (run:value("disk.vx", t) ^ 2 + run:value("disk.vy", t) ^ 2)
         + 0.5 * J * run:value("disk.omega", t) ^ 2 + m_ * g * run:value("disk.y", t)
end
local sdot = xdd_slip + mu * N * R * R / J
for _, f in ipairs { "kane", "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  local run = m:simulate { t_end = 1, formulation = f, rtol = 1e-10, atol = 1e-10,
                           position_tol = 1e-12, output_every = 0.002 }
  runs[f] = run
  local ev = run.events[1]
  rows[#rows + 1] = { f, run:value("c.normal", 0.5), ev.kind, ev.t - tstar, #run.events,
                      run.stats.nfev, run.stats.steps, run.stats.contact_iterations,
                      run.stats.max_velocity_violation }
  dN = math.max(dN, math.abs(run:value("c.normal", 0.5) - N))
  dt = math.max(dt, math.abs(ev.t - tstar))
  local work = F * (run:value("disk.x", 0.3) - run:value("disk.x", 0))
  local loss = mu * N * (2 * 0.3 - sdot * 0.3 ^ 2 / 2)
  dE_slip = math.max(dE_slip, math.abs(energy(run, 0.3) - energy(run, 0) - work + loss))
  work = F * (run:value("disk.x", 1) - run:value("disk.x", 0.4))
  dE_roll = math.max(dE_roll, math.abs(energy(run, 1) - energy(run, 0.4) - work))
  nev[#nev + 1] = #run.events
end
local k = runs.kane

-- the disk's acceleration along the line: the applied force and the friction (both along x on
-- this flat line), exactly, from the recorded contact force
local function accel(run, t) return (F + run:value("c.fx", t)) / m_ end

study.table {
  title = "Example 1 - disk on a line: paper vs closed form vs mbd (kane, CVODE Adams, rtol = atol = 1e-10)",
  header = { "quantity", "paper", "closed form", "mbd" },
  formats = { nil, nil, "%.10g", "%.10g" },
  rows = {
    { "normal force N [N]", "29.43", N, k:value("c.normal", 0.5) },
    { "slip stops, rolling starts [s]", "near 0.32 (Fig. 4, 5)", tstar, k.events[1].t },
    { "acceleration while slipping [m/s2]", "(Fig. 4)", xdd_slip, accel(k, 0.1) },
    { "acceleration while rolling [m/s2]", "(Fig. 4)", xdd_roll, accel(k, 0.8) },
    { "friction while slipping [N]", "-", mu * N, k:value("c.friction", 0.1) },
    { "friction while rolling [N]", "-", ft_roll, k:value("c.friction", 0.8) },
    { "velocity at 1 s [m/s]", "(Fig. 4)", 10 + xdd_slip * tstar + xdd_roll * (1 - tstar),
      k:value("disk.vx", 1) },
  },
}
study.table {
  title = "The five formulations (event: the slip-to-roll switch; its time less the closed form)",
  header = { "formulation", "N [N]", "event", "t - t* [s]", "events", "nfev", "steps",
             "N iterations", "max|Phi_v|" },
  formats = { nil, "%.10g", nil, "%.1e", nil, nil, nil, nil, "%.1e" },
  rows = rows,
}

-- the paper prints N with four digits: within half a unit of its last
claims:near("ex 1: normal force [N] (paper 29.43)", k:value("c.normal", 0.5), 29.43, { atol = 0.005 })
-- N = m g exactly on a flat line; measured equal in every printed digit in all five (1e-9 N is
-- rounding of the fixed point's 1e-12 relative tolerance, with room)
claims:near("ex 1: largest |N - m g| of the five formulations [N]", dN, 0, { atol = 1e-9 })
-- the root of the slip speed on the interpolant: measured 6.7e-16 .. 3.6e-14 s (kernels and
-- formulations); a switch found by a tolerance on the slip speed would be off by 1e-6 s
claims:near("ex 1: largest |t_switch - t*| of the five formulations [s] (t* = 0.3099375)", dt, 0,
            { atol = 1e-12 })
-- the paper's "near 0.32 s" is a reading (two digits) off plots whose own captions disagree
-- (Fig. 5: "near 0.5 s"); ours is 0.0101 s earlier, just over one unit of its last digit: we
-- allow two units and state it — partly, by 3 %
claims:within("ex 1: switch [s] against the paper's reading 'near 0.32 s' (partly: 0.0101 s, 3 % earlier)",
              k.events[1].t, 0.30, 0.34)
-- accelerations and forces of the closed form: the motion between switches is quadratic in t,
-- which Adams integrates exactly up to round-off (measured equal in 10 digits): rtol 1e-8
claims:near("Fig. 4: acceleration while slipping [m/s2]", accel(k, 0.1), xdd_slip, { rtol = 1e-8 })
claims:near("Fig. 4: acceleration while rolling [m/s2]", accel(k, 0.8), xdd_roll, { rtol = 1e-8 })
claims:near("Fig. 4: velocity at 1 s [m/s]", k:value("disk.vx", 1), 10 + xdd_slip * tstar + xdd_roll * (1 - tstar),
            { rtol = 1e-8 })
claims:near("static friction while rolling [N]", k:value("c.friction", 0.8), ft_roll, { rtol = 1e-8 })
claims:within("static friction holds: |F_t| / (mu_s N) while rolling", math.abs(k:value("c.friction", 0.8)) / (mus * N),
              0, 1)
claims:holds("one switch only: the disk keeps rolling (events per formulation)",
             math.min(table.unpack(nev)) == 1 and math.max(table.unpack(nev)) == 1, table.concat(nev, " "))
-- energy balances of 72 J and 2.7 J: measured 1e-12 J (kane) .. 1e-10 J (baumgarte): 1e-8 J
claims:near("energy while slipping: E(0.3) - E(0) - F_D dx + mu N (2t - sdot t^2/2) [J]", dE_slip, 0,
            { atol = 1e-8 })
claims:near("energy while rolling: E(1) - E(0.4) - F_D dx [J]", dE_roll, 0, { atol = 1e-8 })
-- section 2.1: the contact's gap row removes one of the disk's three coordinates
claims:near("section 2.1: degrees of freedom of the disk on the line (3 - 1)", m:info().dof, 2)
print()

-- the paper's efficiency claim, in counts: at equal accuracy both take the same evaluations
-- (measured 24 and 24: the switch, located as a root, decides the steps); +-10 %
cost.check(claims, "ex1", 0.9, 1.1, " (measured 1.00; instructions 1.9, CPU 1.8: the benchmark)")

-- Fig. 4 and 5: x, v, a of the disk (kane), the whole second and the switch magnified
local t, x = k:series("disk.x")
local _, v = k:series("disk.vx")
local a = {}
for i = 1, #t do a[i] = accel(k, t[i]) end
local function window(lo, hi, ys)
  local xs, w = {}, {}
  for i = 1, #t do
    if t[i] >= lo and t[i] <= hi then xs[#xs + 1], w[#w + 1] = t[i], ys[i] end
  end
  return xs, w
end
local figs = {
  { "fig4_x", "x [m]", 0, 1, x }, { "fig4_v", "v [m/s]", 0, 1, v }, { "fig4_a", "a [m/s2]", 0, 1, a },
  { "fig5_v", "v [m/s]", 0.25, 0.37, v }, { "fig5_a", "a [m/s2]", 0.25, 0.37, a },
}
for _, fg in ipairs(figs) do
  local xs, ys = window(fg[3], fg[4], fg[5])
  local file = out .. "/paper001_ex1_" .. fg[1] .. ".png"
  mbd.plot { series = { { x = xs, y = ys, label = "mbd (kane)" } }, file = file, xlabel = "t [s]",
             ylabel = fg[2], title = "Paper 001 example 1 (Fig. " .. fg[1]:sub(4, 4) .. "): disk on a line" }
  print("wrote " .. file)
end
k:write_csv(out .. "/paper001_ex1.csv", { "disk.x", "disk.vx", "disk.omega", "c.normal", "c.friction",
                                          "c.slip", "c.sticking" })
print("wrote " .. out .. "/paper001_ex1.csv")
claims:finish()
