-- Paper 000 (Park, Yoo, Hwang, Bae 1997), example 1: the double pendulum.
-- Regenerates Table 1 (CPU time, function evaluations, average step of KANE, GCP and CS for
-- t_end = 5, 10, 50 s) and Fig. 3 (θ2(t) over 10 s by the three methods).
--
--   mbd scripts/paper000/example1_double_pendulum.lua [OUTDIR]     (default out/paper000)
--
-- Data (DIGEST.md): links 2 m long, CM in the middle (a = b = 1 m); m = 5, 7 kg; J = 10, 20 kg·m²;
-- torque 10 N·m on link 1; force (8, 7) N at P, link 2's free end; θ1 = 0.5236, θ2 = 0.7854 rad,
-- at rest; no gravity; link 1 pinned to the ground at the origin; absolute angles.
--
-- Our choices where the paper is silent, and why numbers differ:
--  * ε_int and ε_pos are not printed for this example: we use rtol = atol = 1e-6 (CVODE Adams, the
--    modern form of the DE code the paper used) and ε_pos = 1e-6 for the Newton iterations.
--  * CS is Baumgarte stabilization with α = β = 5 (the paper gives "1..10 typical", no value).
--  * Function evaluations depend on the integrator's step and order control: CVODE is not DE, so
--    counts agree in size, not digit for digit.  CPU times are of a 2020s machine, not a 1997 one:
--    compare the ratios to KANE, not the seconds.  Each CPU time is the least of 5 repeats of a
--    run that records only its final sample (study.timed); the figures come from a run recorded
--    every 0.01 s.  Instruction counts: scripts/bench/paper000_callgrind.sh.
--  * The partition is chosen by QR with column pivoting (the paper: LU with full pivoting).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper000")

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/models.lua")

-- Table 1 of the paper: {t_end, method, CPU [s], nfev, average step [s]}
local paper = {
  [5] = { kane = {0.10, 96, 0.052}, gcp = {0.17, 96, 0.052}, baumgarte = {0.11, 140, 0.036} },
  [10] = { kane = {0.17, 151, 0.066}, gcp = {0.28, 152, 0.066}, baumgarte = {0.28, 283, 0.035} },
  [50] = { kane = {0.66, 625, 0.080}, gcp = {1.23, 607, 0.082}, baumgarte = {1.43, 1313, 0.038} },
}
local label = { kane = "KANE", gcp = "GCP", baumgarte = "CS" }

local m = models.double_pendulum()
local runs10 = {}
local rows = {}
for _, t_end in ipairs { 5, 10, 50 } do
  local cpu_kane
  for _, f in ipairs { "kane", "gcp", "baumgarte" } do
    local run, cpu = study.timed(5, function(every)
      return m:simulate { t_end = t_end, formulation = f, integrator = "adams", rtol = 1e-6,
                          atol = 1e-6, position_tol = 1e-6, stabilization = { alpha = 5, beta = 5 },
                          output_every = every or 0.01 }
    end, t_end)
    if f == "kane" then cpu_kane = cpu end
    local p = paper[t_end][f]
    rows[#rows + 1] = { t_end, label[f], p[1], string.format("%.2f", p[1] / paper[t_end].kane[1]),
                        p[2], p[3], cpu * 1000, string.format("%.2f", cpu / cpu_kane),
                        run.stats.nfev, run.stats.avg_step, run.stats.max_position_violation }
    if t_end == 10 then runs10[#runs10 + 1] = run end
  end
end
study.table {
  title = "Table 1 — double pendulum: paper vs mbd (CVODE Adams, rtol = atol = 1e-6, eps_pos = 1e-6)",
  header = { "t_end", "method", "paper CPU [s]", "paper ratio", "paper nfev", "paper step",
             "mbd CPU [ms]", "mbd ratio", "mbd nfev", "mbd step", "mbd max|Phi|" },
  formats = { nil, nil, "%.2f", nil, nil, "%.3f", "%.2f", nil, nil, "%.3f", "%.1e" },
  rows = rows,
}

-- Fig. 3: θ2(t) over 10 s, the three methods coincide
print(string.format("Fig. 3 — largest difference of theta2 over 10 s: GCP-KANE %.2e rad, "
                    .. "CS-KANE %.2e rad", study.max_difference(runs10[2], runs10[1], "link2.theta"),
                    study.max_difference(runs10[3], runs10[1], "link2.theta")))
local fig = out .. "/paper000_fig3_theta2.png"
mbd.plot { runs = runs10, labels = { "KANE", "GCP", "CS" }, y = "link2.theta", file = fig,
           ylabel = "theta2 [rad]", title = "Paper 000 Fig. 3: double pendulum, theta2(t)" }
runs10[1]:write_csv(out .. "/paper000_fig3_kane.csv", { "link1.theta", "link2.theta" })
print("wrote " .. fig)
