-- Paper 004 (Eun, Chung 1997), example 3: a disk on a moving support touching a square plate
-- (Fig. 9), two nonholonomic constraints stabilized by Ṙ + L R = 0, L = diag(γ1, γ2).
-- Regenerates Fig. 10 (E1 = RMS of f1 over γ1, γ2 = 0..2 step 0.05, its largest and least values
-- located), Fig. 11 (f1(t) for (γ1, γ2) = (0, 0), (0, 0.2), (0.5, 1.8)) and Fig. 12 (γ1 = 1 with
-- γ2 = 0, 0.5, 1, 1.5, 2), and checks what we claim about them: the script ends with exit status 1
-- when a claim fails.
--
--   mbd scripts/paper004/example3_disk_plate.lua [OUTDIR] [quick]     (default out/paper004)
--
-- "quick" replaces the two 41 × 41 sweeps (about two minutes on two cores) by 5 × 5 grids; the test
-- suite runs it so.
--
-- The paper prints neither the data nor the forcing of this example; our choices (models.lua):
-- r = 0.5 m, m = 1 kg (Jθ = m r²/2), a = 1 m, M = 2 kg (Jφ = M (2a)²/6), s(t) = sin t m, no applied
-- force (the support's motion drives the system through the constraints), start x = 0.5 m,
-- y = 0, θ = φ = 0, φ̇ = 0.2 rad/s, θ̇ = 0, ẋ = 0 and ẏ = ṡ(0) − φ̇x = 0.9 m/s so that f1 = f2 = 0.
-- Values of the same order as the figure's axes, smooth and bounded motion; any such choice would
-- do, and the located extremes depend on it: Fig. 10's points cannot be reproduced.
-- E1 and E2 of eq 34–35 are the RMS of f1 and of f2: run.E1[1] and run.E1[2] (run.E2 holds the
-- RMS of their rates).  20 s at tolerance 1e-10 by rkf45 (MATLAB 4's ode45, the paper's: see
-- example1_pendulum.lua), rk45 (Dormand–Prince) beside it.
--
-- What the figures show.  From consistent initial data f1 = f2 = 0 exactly, whatever γ1, γ2: the
-- errors plotted are the integrator's, the landscape over γ is the imprint of its step-size
-- choices.  With rkf45, Fig. 11's order comes out as the paper's — (0, 0.2) has the largest
-- error of the three, (0.5, 1.8) the least (checked); with rk45 it is reversed.  On Fig. 10's grid
-- rkf45 puts the largest E1 at (0, 0.4), the paper's (0, 0.2) 6th of 1681 (checked); the least
-- does not match (the paper's (0.5, 1.8) is 733rd).
-- Fig. 12, "f1 depends on γ2: coupling": A = [1 0 r s−y; 0 1 0 x] has rank 2 always, so the
-- Udwadia–Kalaba equation makes each Ṙ_i + γ_i R_i = 0 hold on its own: in exact arithmetic f1 ≡ 0
-- whatever γ2 is.  What γ2 changes is the integrator's error: it is part of the equations off the
-- constraint manifold, so it changes the local errors made on the whole state, of which f1's error
-- is made (E1(f1) at γ2 = 2 is 2–5 times smaller than at 0, at every tolerance).  That error and
-- its change with γ2 vanish with the tolerance (checked from 1e-6 to 1e-12): the stabilized
-- equations are not coupled, as in example 2.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper004")
local quick = arg and arg[2] == "quick"
local claims = study.claims()
local models = study.beside(arg, "models.lua")

local s = models.disk_plate()
local NAME = { rkf45 = "rkf45 (MATLAB 4 ode45)", rk45 = "rk45 (Dormand-Prince)" }
local function run(integrator, g1, g2, tol)
  return s:simulate { t_end = 20, integrator = integrator, rtol = tol or 1e-10, atol = tol or 1e-10,
                      output_every = 0.01, stabilization = { gamma = { g1, g2 } } }
end

-- Fig. 10: the sweeps on all cores
local step = quick and 0.5 or 0.05
local rows, sweeps = {}, {}
local function near(a, b) return math.abs(a - b) < 1e-9 end
for _, integ in ipairs { "rkf45", "rk45" } do
  local res = mbd.sweep {
    params = { gamma1 = { from = 0, to = 2, step = step }, gamma2 = { from = 0, to = 2, step = step } },
    order = { "gamma1", "gamma2" },
    fn = function(p)
      local r = run(integ, p.gamma1, p.gamma2)
      return { E1 = r.E1[1], E2 = r.E1[2], steps = r.stats.steps }
    end,
    csv = string.format("%s/paper004_ex3_sweep_%s%s.csv", out, integ, quick and "_quick" or ""),
  }
  if res.failed > 0 then error(string.format("%d runs of the sweep failed", res.failed)) end
  sweeps[integ] = res
  local function at(g1, g2)
    for _, p in ipairs(res.points) do
      if near(p.gamma1, g1) and near(p.gamma2, g2) then return p end
    end
  end
  local function rank(key, v, desc)
    local k = 1
    for _, p in ipairs(res.points) do
      if (desc and p[key] > v) or (not desc and p[key] < v) then k = k + 1 end
    end
    return k
  end
  local mx, mn = res:max("E1"), res:min("E1")
  local pmx, pmn = at(0, 0.2), at(0.5, 1.8)
  -- with rkf45 the paper's largest point comes out among the largest even with our data (measured
  -- 6th of 1681, the largest at (0, 0.4)); its least point does not (733rd)
  if integ == "rkf45" and pmx then
    claims:within("Fig. 10, rkf45: rank of the paper's largest point (0, 0.2), from the top", rank("E1", pmx.E1, true),
                  1, 10)
  end
  rows[#rows + 1] = { NAME[integ], "E1 largest", "(0, 0.2)", string.format("(%.2f, %.2f)", mx.gamma1, mx.gamma2),
                      string.format("%.3e", mx.E1), pmx and string.format("%d of %d (from the top)",
                      rank("E1", pmx.E1, true), #res.points) or "-" }
  rows[#rows + 1] = { NAME[integ], "E1 least", "(0.5, 1.8)", string.format("(%.2f, %.2f)", mn.gamma1, mn.gamma2),
                      string.format("%.3e", mn.E1), pmn and string.format("%d of %d", rank("E1", pmn.E1), #res.points)
                      or "-" }
  if not quick then
    for _, key in ipairs { "E1", "E2" } do
      local file = string.format("%s/paper004_fig10%s_%s.png", out, key == "E1" and "" or "b_E2", integ)
      mbd.plot { kind = "heatmap", x = res.axes.gamma1, y = res.axes.gamma2, z = res:grid(key), log = true,
                 contours = 8, file = file, xlabel = "gamma1", ylabel = "gamma2", zlabel = key,
                 title = string.format("Paper 004 Fig. 10: %s (RMS of f%d); %s, tol 1e-10",
                                       key, key == "E1" and 1 or 2, NAME[integ]) }
      print("wrote " .. file)
    end
  end
end
study.table {
  title = string.format("Fig. 10 - E1 (RMS of f1) over gamma1, gamma2 = 0 to 2 step %g, tol 1e-10 (paper vs mbd, "
                        .. "our invented data)", step),
  header = { "integrator", "measure", "paper (g1, g2)", "mbd (g1, g2)", "mbd value", "rank of paper's point" },
  rows = rows,
}
-- gamma1 = 0 leaves f1's drift undamped: over the grid, the least E1 at gamma1 = 0 is above the
-- largest at gamma1 = 2 with rkf45 (the stabilization works where it acts; measured margins 2.3
-- on the full grid, 2.4 on the quick one)
do
  local lo0, hi2 = math.huge, 0
  for _, p in ipairs(sweeps.rkf45.points) do
    if near(p.gamma1, 0) then lo0 = math.min(lo0, p.E1) end
    if near(p.gamma1, 2) then hi2 = math.max(hi2, p.E1) end
  end
  claims:within("Fig. 10, rkf45: least E1 at gamma1 = 0 / largest at gamma1 = 2", lo0 / hi2, 1.5, nil)
end

-- Fig. 11: the three choices, by both integrators
local rows11, fig11 = {}, {}
for _, integ in ipairs { "rkf45", "rk45" } do
  fig11[integ] = {}
  for _, g in ipairs { { 0, 0 }, { 0, 0.2 }, { 0.5, 1.8 } } do
    local r = run(integ, g[1], g[2])
    fig11[integ][#fig11[integ] + 1] = r
    rows11[#rows11 + 1] = { NAME[integ], string.format("(%g, %g)", g[1], g[2]), r.E1[1], r.E1[2],
                            r:value("constraint1", 20) }
  end
end
study.table { title = "Fig. 11 - f1(t) for three choices of (gamma1, gamma2), tol 1e-10",
              header = { "integrator", "(gamma1, gamma2)", "E1 (f1)", "E2 (f2)", "f1(20 s)" },
              rows = rows11, formats = { nil, nil, "%.3e", "%.3e", "%.3e" } }
do
  local e = { fig11.rkf45[1].E1[1], fig11.rkf45[2].E1[1], fig11.rkf45[3].E1[1] }
  -- the paper's order with its integrator: (0, 0.2) largest, (0.5, 1.8) least (measured 8.8e-10,
  -- 7.2e-10, 7.9e-11)
  claims:holds("Fig. 11, rkf45: E1(0, 0.2) > E1(0, 0) > E1(0.5, 1.8) (the paper's order)",
               e[2] > e[1] and e[1] > e[3], string.format("%.2e, %.2e, %.2e", e[2], e[1], e[3]))
  claims:within("Fig. 11, rkf45: E1(0, 0) / E1(0.5, 1.8)", e[1] / e[3], 3, nil)
  local f = { fig11.rk45[1].E1[1], fig11.rk45[2].E1[1], fig11.rk45[3].E1[1] }
  -- with Dormand-Prince the stabilized choice has the largest error (measured 4.2e-11 against
  -- 5.4e-12 unstabilized): the order is the integrator's
  claims:within("Fig. 11, rk45: E1(0.5, 1.8) / E1(0, 0) (reversed)", f[3] / f[1], 2, nil)
end
mbd.plot { runs = fig11.rkf45, labels = { "gamma = (0, 0)", "gamma = (0, 0.2)", "gamma = (0.5, 1.8)" },
           y = "constraint1", file = out .. "/paper004_fig11_f1.png", ylabel = "f1",
           title = "Paper 004 Fig. 11: error of f1; rkf45 (MATLAB 4 ode45), tol 1e-10" }
fig11.rkf45[3]:write_csv(out .. "/paper004_fig11_g05_18.csv")

-- Fig. 12: gamma1 = 1, gamma2 varied, at the paper's tolerance
local runs, labels, rows12 = {}, {}, {}
for _, g2 in ipairs { 0, 0.5, 1.0, 1.5, 2.0 } do
  local r = run("rkf45", 1, g2)
  runs[#runs + 1] = r
  labels[#labels + 1] = "gamma2 = " .. g2
  rows12[#rows12 + 1] = { g2, r.E1[1], r:value("constraint1", 20) }
end
study.table { title = "Fig. 12 - gamma1 = 1, gamma2 varied: E1 of f1, rkf45, tol 1e-10",
              header = { "gamma2", "E1 (f1)", "f1(20 s)" }, rows = rows12, formats = { nil, "%.3e", "%.3e" } }
mbd.plot { runs = runs, labels = labels, y = "constraint1", file = out .. "/paper004_fig12_f1.png", ylabel = "f1",
           title = "Paper 004 Fig. 12: f1, gamma1 = 1, gamma2 = 0 .. 2; rkf45, tol 1e-10" }
-- the change with gamma2 is integration error: E1(f1) for gamma2 = 0 and 2 at four tolerances
local rowsc, dE, E = {}, {}, {}
for _, tol in ipairs { 1e-6, 1e-8, 1e-10, 1e-12 } do
  local a, b = run("rkf45", 1, 0, tol), run("rkf45", 1, 2, tol)
  dE[tol], E[tol] = math.abs(a.E1[1] - b.E1[1]), a.E1[1]
  rowsc[#rowsc + 1] = { string.format("%g", tol), a.E1[1], b.E1[1], dE[tol] }
end
study.table {
  title = "Fig. 12 - E1(f1) with gamma1 = 1 and gamma2 = 0, 2, rkf45: the change is integration error",
  header = { "tol", "E1(f1), gamma2 = 0", "E1(f1), gamma2 = 2", "|difference|" },
  rows = rowsc, formats = { nil, "%.3e", "%.3e", "%.3e" },
}
-- f1's error vanishes with the tolerance (1e-6 -> 1e-12: measured 1.1e-6 of it), and so does its
-- change with gamma2 (measured 2e-6): a coupling of the stabilized equations would keep it
claims:within("Fig. 12: E1(f1) at tol 1e-12 / at 1e-6", E[1e-12] / E[1e-6], 0, 1e-4)
claims:within("Fig. 12: |E1(f1; gamma2 = 0) - E1(f1; gamma2 = 2)| at tol 1e-12 / at 1e-6", dE[1e-12] / dE[1e-6],
              0, 1e-4)
print("wrote " .. out .. "/paper004_fig11_f1.png, paper004_fig12_f1.png and CSV files")
claims:finish()
