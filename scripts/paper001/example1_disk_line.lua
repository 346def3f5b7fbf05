-- Paper 001 (Park, Yoo, Hwang 1999), example 1: a disk on a straight line (Fig. 3-5, Table 1).
-- Regenerates Fig. 4 (position, velocity and acceleration of the disk along the line over 1 s)
-- and Fig. 5 (the same magnified around the switch from slip to rolling), and checks the text's
-- figures: the normal force 29.43 N and the acceleration jump "near 0.32 s" where slip turns into
-- rolling.
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
-- F_t = -F_D (J/R²)/(m + J/R²) = -9.434 N, within mu_s N = 10.30 N, so it keeps rolling.
--
-- Why numbers differ from the paper's: the paper reads the switch off its plots ("near 0.32 s");
-- mbd locates it as a root of the slip speed on the integrator's interpolant, to about 1e-14 s of
-- the closed form (CVODE Adams at rtol = atol = 1e-10: between switches the motion is a
-- polynomial of degree two).  The paper integrated with DE (Shampine-Gordon); its switching rule
-- is not described.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper001")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/models.lua")

local m_, J, R, F, g, mu, mus = 3, 2, 0.2, 10, 9.81, 0.3, 0.35
local N = m_ * g
local xdd_slip = (F + mu * N) / m_
local tstar = 2 / (xdd_slip + mu * N * R * R / J)
local xdd_roll = F / (m_ + J / R ^ 2)
local ft_roll = -F * (J / R ^ 2) / (m_ + J / R ^ 2)

local m = models.disk_line()
local runs = {}
local rows = {}
for _, f in ipairs { "kane", "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  local run = m:simulate { t_end = 1, formulation = f, rtol = 1e-10, atol = 1e-10,
                           position_tol = 1e-12, output_every = 0.002 }
  runs[f] = run
  local ev = run.events[1]
  rows[#rows + 1] = { f, run:value("c.normal", 0.5), ev.kind, ev.t - tstar, #run.events,
                      run.stats.nfev, run.stats.steps, run.stats.contact_iterations,
                      run.stats.max_velocity_violation }
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
