-- Paper 002 (Lee, Yoon 1993), section 2.5: kinematic analysis of the RSCR mechanism (Fig. 4, 6)
-- and of the RSST spatial slider-crank (Fig. 5, 7), the input link driven through two turns; the
-- output link's angle and displacement, and the timing comparison (DADS 26.2 s, the numeric
-- relative-coordinate program KAP3 8.6 s, the symbolic program 4.8 s for the RSCR; DADS 13.3 s,
-- symbolic 1.2 s for the RSST).
--
--   mbd scripts/paper002/kinematics.lua [OUTDIR]     (default out/paper002)
--
-- Dimensions are not printed (the figures are drawings): scripts/paper002/models.lua gives the
-- ones chosen — each mechanism assembles through whole turns and has a closed-form position
-- analysis, which the runs are checked against.
--
-- Why the numbers differ from the paper's:
--  * The RSCR is fully driven: m:kinematics{formulation = "relative"} runs the paper's analyses
--    (Newton–Raphson on the joint coordinates, then velocities and accelerations) at 720 steps
--    per run.  Its rows are evaluated numerically, on the tape of the symbolic derivation, or by
--    the compiled C of the same derivation; each output is written back as the Cartesian state
--    and the reactions follow by inverse dynamics.  "DADS" here is mbd's own Cartesian analysis.
--  * The RSST's rod spins freely about its axis (two ball joints): no kinematic analysis exists
--    without a driver for that spin.  The paper does not say how it handled it; here the crank is
--    driven and the spin integrated, which leaves the slider's motion purely kinematic.  With the
--    paper's stabilization (α = 199.94, β = 282.8: eigenvalues −200 ± 200i) the stabilized
--    equations are stiff for an Adams method, which then takes about 8 times the steps of
--    Cartesian augmented (without stabilization: its constraints drift, see the slider error);
--    the last row solves the same coordinates by Kane's method instead (mbd's addition).
--  * CPU times are of a 2020s machine: compare the ratios.  The RSCR's are of 720 outputs (the
--    analysis is done at each); the RSST's are of the integration alone (study.timed: one sample),
--    its table and figure of a run recorded at 720 outputs.  The compiled runs exclude the
--    derivation and the compiler (with a warm cache the compiler does not run at all).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper002")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local P = dofile(here .. "/models.lua")

-- RSCR: two turns of the crank in 2 s, checked against the closed form
local m, phi0 = P.rscr_model { drive = mbd.sym.t * 2 * math.pi }
print(m:tree())
print()
local function rscr_errors(k)
  local t, phi = k:series("R2.angle")
  local _, slide = k:series("C.displacement")
  local e_phi, e_s, prev = 0, 0, phi0
  for i = 1, #t do
    local want, x = P.rscr_closed(2 * math.pi * t[i], prev)
    prev = want
    e_phi = math.max(e_phi, math.abs(phi[i] - (want - phi0)))
    e_s = math.max(e_s, math.abs(slide[i] + x))
  end
  return e_phi, e_s
end
local rows, runs = {}, {}
local variants = {
  { "DADS", "Cartesian (mbd)", {} },
  { "KAP3 (numeric relative)", "relative, numeric", { formulation = "relative" } },
  { "symbolic", "relative, tape", { formulation = "relative", code = "tape" } },
  { "symbolic", "relative, compiled", { formulation = "relative", code = "compiled" } },
}
local paper_rscr = { 26.2, 8.6, 4.8, 4.8 }
local cpu_dads
for i, v in ipairs(variants) do
  local opts = { t_end = 2, steps = 720 }
  for key, val in pairs(v[3]) do opts[key] = val end
  local k = study.best_of(5, function() return m:kinematics(opts) end)
  local ep, es = rscr_errors(k)
  cpu_dads = cpu_dads or k.stats.cpu_time
  rows[#rows + 1] = { v[1], paper_rscr[i], string.format("%.2f", paper_rscr[i] / 26.2), v[2],
                      k.stats.cpu_time * 1000, string.format("%.2f", k.stats.cpu_time / cpu_dads),
                      k.stats.newton_iterations, ep, es }
  runs[#runs + 1] = k
end
study.table {
  title = "RSCR kinematics, two turns in 720 steps: paper vs mbd (closed form: see models.lua)",
  header = { "paper program", "paper [s]", "ratio", "mbd", "CPU [ms]", "ratio",
             "Newton iterations", "output angle error", "slide error" },
  formats = { nil, "%.1f", nil, nil, "%.2f", nil, nil, "%.1e", "%.1e" },
  rows = rows,
}
print()
mbd.plot { run = runs[4], x = "R1.angle", y = { "R2.angle" }, file = out .. "/rscr_output_angle.png",
           title = "RSCR kinematics (paper 002 Fig. 6a): output angle over two crank turns",
           xlabel = "crank angle [rad]", ylabel = "rad" }
mbd.plot { run = runs[4], x = "R1.angle", y = { "C.displacement" },
           file = out .. "/rscr_output_slide.png",
           title = "RSCR kinematics (paper 002 Fig. 6b): coupler slide along the output link",
           xlabel = "crank angle [rad]", ylabel = "m" }

-- RSST: the crank driven two turns, the rod's spin integrated; the slider against s(φ)
local rsst = P.rsst_model { drive = mbd.sym.t * 2 * math.pi }
print(rsst:tree())
print()
rows = {}
local runs2 = {}
local paper_rsst = { 13.3, nil, 1.2, 1.2 }
local cases = {
  { "DADS", "Cartesian augmented (mbd)", { formulation = "augmented" } },
  { "-", "relative, numeric", { formulation = "relative" } },
  { "symbolic", "relative, tape", { formulation = "relative", code = "tape" } },
  { "symbolic", "relative, compiled", { formulation = "relative", code = "compiled" } },
  { "-", "relative kane, compiled", { formulation = "relative", solver = "kane",
                                      code = "compiled" } },
}
cpu_dads = nil
for i, v in ipairs(cases) do
  local opts = { t_end = 2, rtol = 1e-8, atol = 1e-8 }
  for key, val in pairs(v[3]) do opts[key] = val end
  local row, r = study.timed(5, function(every)
    opts.output_every = every or 2 / 720
    return rsst:simulate(opts)
  end, 2)
  local cpu = row.stats.cpu_time
  local t, x = r:series("slider.x")
  local e = 0
  for j = 1, #t do e = math.max(e, math.abs(x[j] - P.rsst_s(2 * math.pi * t[j]))) end
  cpu_dads = cpu_dads or cpu
  rows[#rows + 1] = { v[1], paper_rsst[i] or "-",
                      paper_rsst[i] and string.format("%.2f", paper_rsst[i] / 13.3) or "-", v[2],
                      cpu * 1000, string.format("%.2f", cpu / cpu_dads),
                      r.stats.nfev, e }
  runs2[#runs2 + 1] = r
end
study.table {
  title = "RSST kinematics, two turns (crank driven, rod spin integrated, rtol = 1e-8): paper vs mbd",
  header = { "paper program", "paper [s]", "ratio", "mbd", "CPU [ms]", "ratio", "nfev",
             "slider error" },
  formats = { nil, "%.1f", nil, nil, "%.2f", nil, nil, "%.1e" },
  rows = rows,
}
mbd.plot { run = runs2[4], x = "R.angle", y = { "slider.x" }, file = out .. "/rsst_slider.png",
           title = "RSST kinematics (paper 002 Fig. 7): slider position over two crank turns",
           xlabel = "crank angle [rad]", ylabel = "m" }
print()
print("wrote " .. out .. "/rscr_output_angle.png, rscr_output_slide.png and rsst_slider.png")
