-- Paper 002 (Lee, Yoon 1993), section 3.2: dynamic analysis of the RSCR, RSST and RSSR mechanisms
-- under a constant torque on the input link for 2 s (Fig. 9: the RSCR's output), and the timing
-- comparison (symbolic relative-coordinate program vs DADS: RSCR 5.6 s vs 19.4 s, RSST 2.4 s vs
-- 14.4 s, RSSR 4.9 s vs 16.5 s).
--
--   mbd scripts/paper002/dynamics.lua [OUTDIR]     (default out/paper002)
--
-- The mechanisms and their dimensions: scripts/paper002/models.lua (not printed in the paper).
-- Torques (not printed): 10 N·m on the RSCR's and the RSSR's 1 m cranks, 0.1 N·m on the RSST's
-- 8 cm crank; no gravity (none is mentioned); released at rest.
--
-- Why the numbers differ from the paper's:
--  * "DADS" is mbd's Cartesian formulations; "symbolic" is formulation = "relative" with the
--    equations derived symbolically and compiled (code = "compiled"), "tape" the same equations
--    evaluated in process, "numeric" the relative formulation without derivation.  All run with
--    CVODE Adams at rtol = atol = 1e-8 (the paper's DE tolerance is not printed).
--  * The paper's formulation is the augmented system with Baumgarte's stabilization at
--    α = 199.94, β = 282.8 (section 3.2).  Those gains put the constraint errors' eigenvalues at
--    −200 ± 200i: the stabilized equations are stiff for an Adams method, which takes several
--    times the steps of the unstabilized Cartesian augmented run.  The rows "relative kane"
--    solve the same joint coordinates by Kane's method (mbd's addition), which needs no
--    stabilization.
--  * CPU times are of the integration alone (study.timed: least of 5 runs recording one sample),
--    of a 2020s machine: compare the ratios to Cartesian augmented.  The error column is the
--    output's largest difference over the run from a reference (Cartesian kane, rtol 1e-12).
--    The derivation and the compiler are not in the CPU times (with a warm cache the compiler
--    does not run: scripts/bench/paper002.lua measures both).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper002")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local P = dofile(here .. "/models.lua")

local mechanisms = {
  { "RSCR", P.rscr_model { torque = 10 }, "R2.angle", 5.6, 19.4 },
  { "RSST", P.rsst_model { torque = 0.1 }, "slider.x", 2.4, 14.4 },
  { "RSSR", P.rssr_model { torque = 10 }, "s1.R2.angle", 4.9, 16.5 },
}
local methods = {
  { "Cartesian augmented", { formulation = "augmented" } },
  { "Cartesian kane", { formulation = "kane", position_tol = 1e-10 } },
  { "relative numeric", { formulation = "relative" } },
  { "relative tape", { formulation = "relative", code = "tape" } },
  { "relative compiled", { formulation = "relative", code = "compiled" } },
  { "relative kane compiled", { formulation = "relative", solver = "kane", code = "compiled",
                                position_tol = 1e-10 } },
}

local fig9
for _, mech in ipairs(mechanisms) do
  local name, m, channel = mech[1], mech[2], mech[3]
  local ref = m:simulate { t_end = 2, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                           position_tol = 1e-12, output_every = 0.01 }
  local rows, cpu0 = {}, nil
  for _, meth in ipairs(methods) do
    local opts = { t_end = 2, rtol = 1e-8, atol = 1e-8 }
    for k, v in pairs(meth[2]) do opts[k] = v end
    local row, run = study.timed(5, function(every)
      opts.output_every = every or 0.01
      return m:simulate(opts)
    end, 2)
    local cpu = row.stats.cpu_time
    cpu0 = cpu0 or cpu
    rows[#rows + 1] = { meth[1], cpu * 1000, string.format("%.2f", cpu / cpu0), run.stats.nfev,
                        run.stats.steps, run:value(channel, 2),
                        study.max_difference(run, ref, channel) }
    if name == "RSCR" and meth[1] == "relative compiled" then fig9 = run end
  end
  study.table {
    title = string.format("%s under a constant torque, 2 s (paper: symbolic %.1f s, DADS %.1f s, "
                          .. "ratio %.2f); output %s", name, mech[4], mech[5], mech[4] / mech[5],
                          channel),
    header = { "mbd", "CPU [ms]", "ratio", "nfev", "steps", "output at 2 s", "error" },
    formats = { nil, "%.2f", nil, nil, nil, "%.6f", "%.1e" },
    rows = rows,
  }
  print()
end
mbd.plot { run = fig9, y = { "R2.angle", "C.displacement" }, file = out .. "/rscr_dynamics.png",
           title = "RSCR under a constant torque (paper 002 Fig. 9): output angle and slide" }
print("wrote " .. out .. "/rscr_dynamics.png")
