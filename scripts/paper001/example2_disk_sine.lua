-- Paper 001 (Park, Yoo, Hwang 1999), example 2: a disk on a sine-wave ground (Fig. 6-9, Table 2).
-- Regenerates Fig. 7 (the components N_x, N_y of the normal force at the contact point over 1 s),
-- Fig. 8 (position, velocity and acceleration of the disk along x) and Fig. 9 (magnified around
-- the switch from slip to rolling), and checks the text's figure — rolling starts "near 0.34 s" —
-- and our numbers against an independent model: the script ends with exit status 1 when a claim
-- fails.
--
--   mbd scripts/paper001/example2_disk_sine.lua [OUTDIR]     (default out/paper001)
--
-- Data (Table 2): the disk, forces and friction of example 1 (m = 3, J = 2, R = 0.2, F_D = 10 N,
-- mu = 0.3, mu_s = 0.35), r(0) = (0, 0.2), theta(0) = 0, rdot(0) = (10, 0.25),
-- thetadot(0) = -60 rad/s.
--
-- The wave is not printed; our choice, y = A sin(2 pi x / lambda) with lambda = 7 m and
-- A = 0.025 lambda / (2 pi) = 27.85 mm:
--  * its slope at x = 0 is 2 pi A / lambda = 0.025, the direction of the printed initial velocity
--    (10, 0.25) (r(0) = (0, 0.2) puts the disk's centre a radius above the wave's zero at x = 0);
--  * among such waves, lambda = 7 m was chosen BECAUSE it makes the slip stop at 0.336 s, the
--    paper's "near 0.34 s" (lambda = 3, 4, 5, 6, 7 m give 0.314, 0.311, 0.323, 0.332, 0.336 s);
--    much shorter waves lift the disk off their crests at 10 m/s (N would fall below zero:
--    lambda <= 2 m);
--  * its concave radius 1/(A k²) = 44 m is far above the disk's 0.2 m (a single contact point).
-- On this wave the disk rolls from 0.336 s until, on the next crest, the normal force has fallen
-- so far (N_y ~ 20 N) that mu_s N no longer holds the 9.4 N static friction that rolling under
-- F_D needs: it slips again at 0.657 s.  The paper shows 1 s but mentions only the first switch.
--
-- What reproduces:
--  * the switch "near 0.34 s": partly — 0.3361 s, but the wave was chosen to match it.
--  * our numbers on our wave: an independent model (the disk's centre on the wave's offset curve,
--    two coordinates and the spin, integrated by SciPy with an event on the slip speed) gives the
--    switch at 0.3361226110 s, the slip again at 0.6570806505 s and N(0.5 s) = 38.61387879 N; the
--    five formulations agree with it within 2e-8 s and 3e-7 N, and the energy balance of the
--    rolling phase (friction does no work, F_D does F_D dx) holds to 5e-6 J of 2650 J.
--  * Fig. 7 (N_x, N_y along the wave) and Figs. 8-9: partly — their shapes are our wave's.
--  * the paper's conclusion, that the reduced equations (28) (mbd's "kane") iterate more cheaply
--    than Haug's augmented system: not reproduced overall, though here kane needs half the
--    evaluations — at equal accuracy (error <= 1e-6 against a 1e-12 reference,
--    scripts/paper001/cost.lua) kane runs at rtol 1e-7 with 124 evaluations, augmented needs 1e-8
--    and 256 (its disk.vy is integrated, kane's follows from the wave), yet each of kane's
--    evaluations costs 1.9 times augmented's instructions (its Newton position analysis
--    re-evaluates the contact): 0.92 times the instructions, the same CPU time
--    (scripts/bench/paper001.lua, paper001_callgrind.sh).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper001")
local claims = study.claims()
local models = study.beside(arg, "models.lua")
local cost = study.beside(arg, "cost.lua")

local lambda = 7
local m, A = models.disk_sine(lambda)
local runs, rows = {}, {}
for _, f in ipairs { "kane", "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  local run = m:simulate { t_end = 1, formulation = f, rtol = 1e-10, atol = 1e-10,
                           position_tol = 1e-10, output_every = 0.002 }
  runs[f] = run
  local ev1, ev2 = run.events[1], run.events[2]
  rows[#rows + 1] = { f, ev1.kind, ev1.t, ev2 and ev2.kind or "-", ev2 and ev2.t or 0 / 0,
                      run:value("c.normal", 0.5), run.stats.nfev, run.stats.steps,
                      run.stats.contact_iterations }
end
local k = runs.kane
print(string.format("the wave: lambda = %g m, A = %.6f m (slope 0.025 at x = 0)", lambda, A))
print()
study.table {
  title = "Example 2 - disk on a sine wave: paper vs mbd (CVODE Adams, rtol = atol = 1e-10)",
  header = { "formulation", "1st event", "t [s]", "2nd event", "t [s]", "N(0.5 s) [N]", "nfev",
             "steps", "N iterations" },
  formats = { nil, nil, "%.10f", nil, "%.10f", "%.8f" },
  rows = rows,
}
print("paper: rolling starts near 0.34 s (Fig. 8, 9); mbd (kane): " ..
      string.format("%.6f s", k.events[1].t))
local kane_gcp, kane_cs = 0, 0
for _, name in ipairs { "disk.x", "c.normal" } do
  kane_gcp = math.max(kane_gcp, study.max_difference(runs.gcp, k, name))
  kane_cs = math.max(kane_cs, study.max_difference(runs.baumgarte, k, name))
end
print(string.format("largest difference of disk.x and c.normal: gcp-kane %.1e, baumgarte-kane %.1e",
                    kane_gcp, kane_cs))
local t, nx = k:series("c.nx")
local _, ny = k:series("c.ny")
local lo, hi = math.huge, -math.huge
for i = 1, #t do lo, hi = math.min(lo, ny[i]), math.max(hi, ny[i]) end
print(string.format("Fig. 7: N_y ranges over %.4f .. %.4f N (weight 29.43 N), N_x over the wave's slope", lo, hi))
print()

-- the paper's reading, two digits: lambda was chosen to land there, so this is no test of mbd
claims:within("ex 2: rolling starts [s], paper 'near 0.34 s' (partly: the wave, lambda = 7 m, chosen to match)",
              k.events[1].t, 0.335, 0.345)
-- the independent model (header): the five formulations differ by up to 2.3e-9 s, 6e-10 s and
-- 3e-8 N (baumgarte's stabilized drift; kernels change none of the 10 printed digits): ten times
local indep = { 0.3361226110, 0.6570806505, 38.61387879 }
local worst = { 0, 0, 0 }
for _, run in pairs(runs) do
  worst[1] = math.max(worst[1], math.abs(run.events[1].t - indep[1]))
  worst[2] = math.max(worst[2], math.abs(run.events[2].t - indep[2]))
  worst[3] = math.max(worst[3], math.abs(run:value("c.normal", 0.5) - indep[3]))
end
claims:near("ex 2: rolling starts, five formulations - independent model 0.3361226110 s [s]", worst[1], 0,
            { atol = 2e-8 })
claims:near("ex 2: slips again, five formulations - independent model 0.6570806505 s [s]", worst[2], 0,
            { atol = 2e-8 })
claims:near("Fig. 7: N(0.5 s), five formulations - independent model 38.61387879 N [N]", worst[3], 0,
            { atol = 3e-7 })
-- the independent model's extremes of N_y: 19.5804 and 39.1331 N; ours are sampled every 2 ms,
-- which misses an extreme by up to N'' dt^2 / 8 ~ 1e-4 N (N'' ~ 800 N/s² on this wave): 5e-4
claims:near("Fig. 7: least N_y [N] (independent model 19.5804)", lo, 19.5804, { atol = 5e-4 })
claims:near("Fig. 7: largest N_y [N] (independent model 39.1331)", hi, 39.1331, { atol = 5e-4 })
-- rolling from 0.34 to 0.65 s: static friction does no work, the normal force none on a rolling
-- disk; the energy gain is F_D's work.  The disk carries 2650 J (spin 50 rad/s): measured
-- 4.8e-7 J (kane, gcp: 2e-10 of it, integration error at rtol 1e-10), 6e-8 J the others; 5e-6 J
local dE = 0
for _, run in pairs(runs) do
  local function energy(t)
    return 0.5 * 3 * (run:value("disk.vx", t) ^ 2 + run:value("disk.vy", t) ^ 2)
           + 0.5 * 2 * run:value("disk.omega", t) ^ 2 + 3 * 9.81 * run:value("disk.y", t)
  end
  local work = 10 * (run:value("disk.x", 0.65) - run:value("disk.x", 0.34))
  dE = math.max(dE, math.abs(energy(0.65) - energy(0.34) - work))
end
claims:near("ex 2: energy while rolling, E(0.65) - E(0.34) - F_D dx, five formulations [J]", dE, 0, { atol = 5e-6 })
-- gcp and kane share the partition (measured 1.7e-12 .. 3.8e-12); baumgarte's stabilized
-- drift 6.8e-8 (bounds ten times)
claims:near("ex 2: gcp - kane, disk.x and N [m, N]", kane_gcp, 0, { atol = 1e-10 })
claims:near("ex 2: baumgarte - kane, disk.x and N [m, N]", kane_cs, 0, { atol = 7e-7 })
print()

-- the paper's efficiency claim, in counts: kane takes half the evaluations at equal accuracy
-- (measured 124 / 256 = 0.48: augmented needs rtol 1e-8 for disk.vy, kane 1e-7); [0.35, 0.65]
cost.check(claims, "ex2", 0.35, 0.65, " (measured 0.48; instructions 0.92, CPU 1.0: the benchmark)")

-- Fig. 7: N_x, N_y; Fig. 8 and 9: x, v, a along x (a from the forces on the disk: F_D, friction
-- and normal force; gravity is vertical)
mbd.plot { run = k, y = { "c.nx", "c.ny" }, file = out .. "/paper001_ex2_fig7_normal.png",
           ylabel = "N [N]", title = "Paper 001 example 2 (Fig. 7): normal force components" }
print("wrote " .. out .. "/paper001_ex2_fig7_normal.png")
local _, x = k:series("disk.x")
local _, v = k:series("disk.vx")
local a = {}
for i = 1, #t do a[i] = (10 + k:value("c.fx", t[i]) + nx[i]) / 3 end
local function window(lo_, hi_, ys)
  local xs, w = {}, {}
  for i = 1, #t do
    if t[i] >= lo_ and t[i] <= hi_ then xs[#xs + 1], w[#w + 1] = t[i], ys[i] end
  end
  return xs, w
end
for _, fg in ipairs { { "fig8_x", "x [m]", 0, 1, x }, { "fig8_v", "v [m/s]", 0, 1, v },
                      { "fig8_a", "a [m/s2]", 0, 1, a }, { "fig9_a", "a [m/s2]", 0.28, 0.4, a } } do
  local xs, ys = window(fg[3], fg[4], fg[5])
  local file = out .. "/paper001_ex2_" .. fg[1] .. ".png"
  mbd.plot { series = { { x = xs, y = ys, label = "mbd (kane)" } }, file = file, xlabel = "t [s]",
             ylabel = fg[2], title = "Paper 001 example 2 (Fig. " .. fg[1]:sub(4, 4) .. "): disk on a sine wave" }
  print("wrote " .. file)
end
k:write_csv(out .. "/paper001_ex2.csv", { "disk.x", "disk.y", "disk.vx", "c.nx", "c.ny", "c.normal",
                                          "c.friction", "c.slip", "c.sticking", "c.px", "c.py" })
print("wrote " .. out .. "/paper001_ex2.csv")
claims:finish()
