-- Paper 004 (Eun, Chung 1997), example 1: the simple pendulum under the Udwadia–Kalaba equation
-- with the stabilization f̈ + α ḟ + β f = 0.  Regenerates Fig. 2–3 (E1 and E2 over α, β = 2..40,
-- minima located), Fig. 4 (f(t) for α = β = 0 and 40) and Fig. 5 (α = 40 with β = 40, 800, 1000),
-- and checks what we claim about them: the script ends with exit status 1 when a claim fails.
--
--   mbd scripts/paper004/example1_pendulum.lua [OUTDIR] [quick]     (default out/paper004)
--
-- "quick" replaces the 39 × 39 sweeps (about five minutes on two cores) by two neighbourhoods,
-- around the paper's E2 point and its E1 corner; the test suite runs it so.
--
-- Data (DIGEST.md): m = 1, L = 1, g = 9.8 along +y, f = x² + y² − 1, x = 1, y = 0, ẋ = 0, ẏ = 4;
-- 20 s, "RK45 (ode45) with tolerance 1e-10".
--
-- The integrator.  One scalar "tolerance" is MATLAB 4's ode45(F, t0, tf, y0, tol): Fehlberg's
-- 4(5) pair with a max-norm test against tol·max(‖y‖∞, 1) (integrator = "rkf45", rtol = atol =
-- tol).  The constraint errors E1, E2 are of the size of the local errors (1e-12..1e-9), so their
-- landscape over α, β is shaped by that step control.  With it the paper's figures come out:
-- E2 is least at (12–13, 2) and the paper's (14, 4) ranks within the best ten of the 1521 points
-- at tolerances 1e-9, 1e-10 and 1e-11; E1's (40, 40) ranks within the best twenty, a few percent
-- above the least (the least itself lies at α = 16, β = 34..38, a shallow valley).  Beside it, MATLAB 5's ode45 method (Dormand–Prince 5(4), our rk45 with
-- SUNDIALS' error control) puts E2's minimum elsewhere ((3, 2), (14, 4) ranking 489th): the
-- landscape is the integrator's.  At the five points an independent review computed with its
-- own MATLAB-4 ode45 clone (Python), rkf45 gives its E1, E2 to the printed digits (checked).
--
-- Other choices:
--  * Stabilization: S = α, T = β on the true f (s:simulate's alpha, beta).  The paper's eq 15
--    writes ḟ as xẋ + yẏ (half the derivative) with β/2; multiplied out it is the same
--    f̈ + αḟ + βf = 0, so the coefficients are the paper's own.
--  * E2: the paper's eq 18 takes the RMS of its ḟ = xẋ + yẏ, half of ours (run.E2 is the RMS of
--    the true ḟ); the tables print E2/2 next to the paper's.  Minima do not depend on the factor.
--  * E1, E2 integrate f², ḟ² over the integrator's accepted steps (see engine/system/system_run.c)
--    — MATLAB 4's ode45 returned exactly those points.
--  * "Critical damping" in Fig. 5: for f̈ + αḟ + βf = 0 it is β = α²/4 = 400 at α = 40; the paper's
--    800 is critical for its stiffness β/2 reading, so its "critical" run is underdamped here
--    (damping ratio printed).  We add β = 400 to Fig. 5.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper004")
local quick = arg and arg[2] == "quick"
local claims = study.claims()
local models = study.beside(arg, "models.lua")

local s = models.pendulum()
local NAME = { rkf45 = "rkf45 (MATLAB 4 ode45)", rk45 = "rk45 (Dormand-Prince)" }
local function run(integrator, tol, alpha, beta)
  return s:simulate { t_end = 20, integrator = integrator, rtol = tol, atol = tol, output_every = 0.01,
                      stabilization = { alpha = alpha, beta = beta } }
end

-- Fig. 2–3: E1, E2 over a grid of α, β (both cores); the rank of a point (1 = least)
local function landscape(integrator, tol, alphas, betas, csv)
  return mbd.sweep {
    params = { alpha = alphas, beta = betas }, order = { "alpha", "beta" },
    fn = function(p)
      local r = run(integrator, tol, p.alpha, p.beta)
      return { E1 = r.E1[1], E2 = r.E2[1], E2_paper = r.E2[1] / 2, steps = r.stats.steps }
    end,
    csv = csv,
  }
end
local function at(res, a, b)
  for _, p in ipairs(res.points) do
    if p.alpha == a and p.beta == b then return p end
  end
end
local function rank(res, key, v)
  local k = 1
  for _, p in ipairs(res.points) do
    if p[key] < v then k = k + 1 end
  end
  return k
end
local function xy(p) return string.format("(%g, %g)", p.alpha, p.beta) end

local FULL = { from = 2, to = 40, n = 39 }
local sweeps = quick and {
  { "rkf45", 1e-10, { from = 10, to = 17, n = 8 }, { from = 2, to = 6, n = 5 }, "E2 neighbourhood" },
  { "rkf45", 1e-10, { from = 34, to = 40, n = 7 }, { from = 34, to = 40, n = 7 }, "E1 corner" },
} or {
  { "rkf45", 1e-10, FULL, FULL, "39 x 39" }, { "rkf45", 1e-9, FULL, FULL, "39 x 39" },
  { "rkf45", 1e-11, FULL, FULL, "39 x 39" }, { "rk45", 1e-10, FULL, FULL, "39 x 39" },
}
local rows, maps = {}, {}
for _, sw in ipairs(sweeps) do
  local integ, tol = sw[1], sw[2]
  local res = landscape(integ, tol, sw[3], sw[4],
                        string.format("%s/paper004_ex1_sweep_%s_%g%s.csv", out, integ, tol, quick and "_quick" or ""))
  if res.failed > 0 then error(string.format("%d runs of the sweep failed", res.failed)) end
  local e1, e2 = res:min("E1"), res:min("E2")
  local p40, p144 = at(res, 40, 40), at(res, 14, 4)
  rows[#rows + 1] = { NAME[integ], string.format("%g", tol), sw[5], xy(e1), p40 and rank(res, "E1", p40.E1) or "-",
                      p40 and string.format("%.3f", p40.E1 / e1.E1) or "-", xy(e2),
                      p144 and rank(res, "E2", p144.E2) or "-", p144 and string.format("%.3f", p144.E2 / e2.E2) or "-",
                      #res.points }
  maps[#maps + 1] = { integ = integ, tol = tol, res = res, what = sw[5] }
end
study.table {
  title = "Fig. 2-3 - least E1 and E2 over alpha, beta (paper: E1 least at (40, 40), E2 at (14, 4)); "
          .. "rank 1 = least, value / least",
  header = { "integrator", "tol", "grid", "E1 least", "rank (40,40)", "E1(40,40)/least", "E2 least",
             "rank (14,4)", "E2(14,4)/least", "points" },
  rows = rows,
}
for _, mp in ipairs(maps) do
  local res, tag = mp.res, string.format("%s %g", mp.integ, mp.tol)
  local e1, e2 = res:min("E1"), res:min("E2")
  local p40, p144 = at(res, 40, 40), at(res, 14, 4)
  if mp.integ == "rkf45" and p144 then
    -- the paper's E2 point: the least E2 at α 12–14, β 2–3, and (14, 4) within 8% of it (measured
    -- 4.6% .. 4.9% at the three tolerances)
    claims:holds(string.format("Fig. 3, %s (%s): E2 least at alpha 12 to 14, beta 2 to 3", tag, mp.what),
                 e2.alpha >= 12 and e2.alpha <= 14 and e2.beta <= 3, xy(e2))
    claims:within(string.format("Fig. 3, %s (%s): E2(14, 4) / least", tag, mp.what), p144.E2 / e2.E2, 1, 1.08)
    if not quick then
      claims:within(string.format("Fig. 3, %s: rank of (14, 4) of %d", tag, #res.points), rank(res, "E2", p144.E2), 1, 10)
    end
  end
  if p40 then
    -- the paper's E1 point: within 10% of the least, among the best 25 of 1521 (the landscape is
    -- flat towards alpha = 40; measured 0.3% .. 7.6% above the least, ranks 2 .. 19)
    claims:within(string.format("Fig. 2, %s (%s): E1(40, 40) / least", tag, mp.what), p40.E1 / e1.E1, 1, 1.1)
    if not quick then
      claims:within(string.format("Fig. 2, %s: rank of (40, 40) of %d", tag, #res.points), rank(res, "E1", p40.E1), 1, 25)
    end
  end
  if mp.integ == "rk45" and p144 then
    -- Dormand-Prince does not give the paper's E2 point: its least E2 lies at small alpha, and
    -- (14, 4) is about three times it (measured 3.0)
    claims:within(string.format("Fig. 3, %s: E2(14, 4) / least (not the paper's landscape)", tag),
                  p144.E2 / e2.E2, 1.5, 4)
    claims:within(string.format("Fig. 3, %s: alpha of the least E2", tag), e2.alpha, 2, 6)
  end
  -- heat maps of the full grids: Fig. 2 (E1) and Fig. 3 (E2), integrator and tolerance in the title
  if not quick and mp.tol == 1e-10 then
    for _, key in ipairs { "E1", "E2_paper" } do
      local fig = key == "E1" and 2 or 3
      local file = string.format("%s/paper004_fig%d_%s_%s.png", out, fig, key == "E1" and "E1" or "E2", mp.integ)
      mbd.plot { kind = "heatmap", x = res.axes.alpha, y = res.axes.beta, z = res:grid(key), file = file,
                 log = true, contours = 8, xlabel = "alpha", ylabel = "beta", zlabel = key == "E1" and "E1" or "E2",
                 title = string.format("Paper 004 Fig. %d: %s, %s, tol %g", fig,
                                       key == "E1" and "E1" or "E2 (paper's scale)", NAME[mp.integ], mp.tol) }
      print("wrote " .. file)
    end
  end
end

-- the paper's points, with rkf45 against an independent MATLAB-4 ode45 clone (the review's, at
-- tol 1e-10, printed to three digits: E1, E2 of the true f-dot)
local clone = { { 0, 0, 1.95e-8, 2.33e-9 }, { 2, 2, 1.54e-10, 3.31e-10 }, { 3, 2, 1.94e-10, 2.33e-10 },
                { 14, 4, 1.01e-10, 7.35e-11 }, { 40, 32, 4.71e-12, 1.26e-10 }, { 40, 40, 4.64e-12, 1.26e-10 } }
local prow, worst, E2pt = {}, 0, { rkf45 = {}, rk45 = {} }
for _, c in ipairs(clone) do
  local a, b = run("rkf45", 1e-10, c[1], c[2]), run("rk45", 1e-10, c[1], c[2])
  worst = math.max(worst, math.abs(a.E1[1] / c[3] - 1), math.abs(a.E2[1] / c[4] - 1))
  prow[#prow + 1] = { string.format("(%g, %g)", c[1], c[2]), a.E1[1], c[3], a.E2[1], c[4], b.E1[1], b.E2[1] }
  E2pt.rkf45[c[1] .. "," .. c[2]], E2pt.rk45[c[1] .. "," .. c[2]] = a.E2[1], b.E2[1]
end
study.table {
  title = "E1, E2 (of the true f-dot) at tol 1e-10: rkf45, an independent MATLAB-4 ode45 clone, rk45",
  header = { "(alpha, beta)", "rkf45 E1", "clone E1", "rkf45 E2", "clone E2", "rk45 E1", "rk45 E2" },
  rows = prow, formats = { nil, "%.3e", "%.2e", "%.3e", "%.2e", "%.3e", "%.3e" },
}
-- three printed digits: 0.5% of rounding, 2% allowed
claims:within("rkf45 against the MATLAB-4 clone at six points: largest relative difference of E1, E2", worst, 0, 0.02)
-- the two landscapes at two points: E2(14, 4) below E2(3, 2) with rkf45 (measured 0.32), three
-- times above it with rk45 (measured 3.0)
claims:within("Fig. 3, rkf45 1e-10: E2(14, 4) / E2(3, 2)", E2pt.rkf45["14,4"] / E2pt.rkf45["3,2"], nil, 0.5)
claims:within("Fig. 3, rk45 1e-10: E2(14, 4) / E2(3, 2)", E2pt.rk45["14,4"] / E2pt.rk45["3,2"], 2, nil)

-- Fig. 4: f(t) without and with stabilization, by both integrators
local f4 = {}
for _, integ in ipairs { "rkf45", "rk45" } do
  local r0, r40 = run(integ, 1e-10, 0, 0), run(integ, 1e-10, 40, 40)
  f4[integ] = { r0, r40 }
end
local rows4 = {}
for _, integ in ipairs { "rkf45", "rk45" } do
  for k, ab in ipairs { 0, 40 } do
    local r = f4[integ][k]
    rows4[#rows4 + 1] = { NAME[integ], ab, r.E1[1], r.E2[1] / 2, r.stats.max_position_violation,
                          r:value("constraint1", 20) }
  end
end
study.table {
  title = "Fig. 4 - constraint error f(t) = x^2 + y^2 - 1, tol 1e-10",
  header = { "integrator", "alpha = beta", "E1", "E2 (paper's)", "max |f|", "f(20 s)" },
  rows = rows4, formats = { nil, nil, "%.3e", "%.3e", "%.3e", "%.3e" },
}
for _, integ in ipairs { "rkf45", "rk45" } do
  -- the drift of f without stabilization is held down by orders of magnitude (measured 4200 and
  -- 500 times); at least 100 times
  claims:within(string.format("Fig. 4, %s: E1(0, 0) / E1(40, 40)", integ), f4[integ][1].E1[1] / f4[integ][2].E1[1],
                100, nil)
end
mbd.plot { runs = f4.rkf45, labels = { "alpha = beta = 0", "alpha = beta = 40" }, y = "constraint1",
           file = out .. "/paper004_fig4_f.png", ylabel = "f = x^2 + y^2 - 1",
           title = "Paper 004 Fig. 4: f for alpha = beta = 0, 40; rkf45, tol 1e-10" }
mbd.plot { run = f4.rkf45[2], y = "constraint1", file = out .. "/paper004_fig4b_f40.png", ylabel = "f",
           title = "Paper 004 Fig. 4(b): f for alpha = beta = 40; rkf45, tol 1e-10" }
f4.rkf45[2]:write_csv(out .. "/paper004_fig4_ab40.csv", { "x", "y", "constraint1", "constraint1_dot" })
f4.rkf45[1]:write_csv(out .. "/paper004_fig4_ab0.csv", { "x", "y", "constraint1", "constraint1_dot" })

-- Fig. 5: alpha = 40 with beta = 40 (overdamped), 400 (critical here), 800 (the paper's critical),
-- 1000 (underdamped), by both integrators
local rows5, runs5, labels5, e5 = {}, {}, {}, {}
for _, integ in ipairs { "rkf45", "rk45" } do
  local e = {}
  e5[integ] = e
  for _, beta in ipairs { 40, 400, 800, 1000 } do
    local r = run(integ, 1e-10, 40, beta)
    local zeta = 40 / (2 * math.sqrt(beta))
    e[beta] = r.E1[1]
    rows5[#rows5 + 1] = { NAME[integ], beta, string.format("%.2f", zeta),
                          zeta > 1.001 and "over" or (zeta > 0.999 and "critical" or "under"),
                          beta == 40 and "over" or beta == 800 and "critical" or beta == 1000 and "under" or "-",
                          r.E1[1], r.E2[1] / 2, r.stats.steps }
    if integ == "rkf45" then
      runs5[#runs5 + 1] = r
      labels5[#labels5 + 1] = "beta = " .. beta
    end
  end
end
study.table {
  title = "Fig. 5 - alpha = 40: damping of f'' + alpha f' + beta f = 0 and the errors, tol 1e-10",
  header = { "integrator", "beta", "zeta", "mbd damping", "paper's label", "E1", "E2 (paper's)", "steps" },
  rows = rows5, formats = { nil, nil, nil, nil, nil, "%.3e", "%.3e" },
}
for _, integ in ipairs { "rkf45", "rk45" } do
  -- of the paper's three runs the overdamped beta = 40 has the least E1 (measured margins 1.9
  -- times for both integrators)
  local e = e5[integ]
  claims:within(string.format("Fig. 5, %s: min(E1(800), E1(1000)) / E1(40) (overdamped least)", integ),
                math.min(e[800], e[1000]) / e[40], 1.2, nil)
end
mbd.plot { runs = runs5, labels = labels5, y = "constraint1", file = out .. "/paper004_fig5_f.png",
           ylabel = "f", title = "Paper 004 Fig. 5: alpha = 40, beta = 40 .. 1000; rkf45, tol 1e-10" }
print("wrote " .. out .. "/paper004_fig4_f.png, paper004_fig5_f.png and CSV files")
claims:finish()
