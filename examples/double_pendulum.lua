-- The double pendulum of paper 000 (Park, Yoo, Hwang, Bae 1997), example 1, solved four ways.
--
-- Two links, each 2 m long with the centre of mass in the middle (a = b = 1 m); link 1 is pinned
-- to the ground at the origin, link 2 to the end of link 1.  A constant torque of 10 N·m drives
-- link 1 and a constant force (8, 7) N pulls the free end of link 2.  No gravity.
--
--   mbd examples/double_pendulum.lua [OUTDIR]      (OUTDIR defaults to "out")
--
-- It prints the model, then runs the same mechanism with each formulation of the paper and
-- prints their figures of merit side by side, and plots θ2(t) for all of them (paper 000 Fig. 3).
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local m = mbd.model { name = "double pendulum", dim = 2 }   -- planar, no gravity

-- Absolute angles from the global x axis (DSL.md).  Poses are the centres of mass; a joint
-- point `at` is given in each body's own frame, whose x axis runs along the link.
local th1, th2 = 0.5236, 0.7854
local link1 = m:body { name = "link1", mass = 5, inertia = 10,
                       pos = {math.cos(th1), math.sin(th1)}, angle = th1 }
local link2 = m:body { name = "link2", mass = 7, inertia = 20,
                       pos = {2 * math.cos(th1) + math.cos(th2), 2 * math.sin(th1) + math.sin(th2)},
                       angle = th2 }

m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = link1, at2 = {-1, 0} }
m:revolute { name = "A", body1 = link1, at1 = {1, 0}, body2 = link2, at2 = {-1, 0} }

m:torque { body = link1, value = 10 }                       -- M¹ = 10 N·m
m:force  { body = link2, at = {1, 0}, value = {8, 7} }      -- F^P at the free end of link 2

print(m:info())
print()

-- The same mechanism, four formulations, one integrator (CVODE Adams, like the paper's DE code).
local runs = {}
print(string.format("%-10s %8s %8s %10s %12s %12s", "method", "nfev", "steps", "cpu [ms]",
                    "theta2(10)", "max |Phi|"))
for _, f in ipairs { "kane", "gcp", "baumgarte", "augmented" } do
  local run = m:simulate { t_end = 10, formulation = f, integrator = "adams",
                           rtol = 1e-6, atol = 1e-6, position_tol = 1e-8,
                           stabilization = { alpha = 5, beta = 5 }, output_every = 0.02 }
  local s = run.stats
  print(string.format("%-10s %8d %8d %10.2f %12.6f %12.2e", f, s.nfev, s.steps,
                      1000 * s.cpu_time, run:value("link2.theta", 10), s.max_position_violation))
  runs[#runs + 1] = run
end

-- kane and gcp keep the constraints to the Newton tolerance; augmented drifts, baumgarte damps it.
local file = out .. "/double_pendulum_theta2.png"
mbd.plot { runs = runs, labels = { "kane", "gcp", "baumgarte", "augmented" },
           y = "link2.theta", file = file, ylabel = "theta2 [rad]",
           title = "Double pendulum (paper 000, Fig. 3): theta2 by four formulations" }
mbd.plot { runs = { runs[3], runs[4] }, labels = { "baumgarte", "augmented" }, y = "violation",
           file = out .. "/double_pendulum_violation.png", ylabel = "max |Phi| [m]",
           title = "Constraint violation without and with Baumgarte stabilization" }
print()
print("wrote " .. file .. " and " .. out .. "/double_pendulum_violation.png")

-- left in globals for `mbd -i examples/double_pendulum.lua`: model (the model), runs (one run per formulation, in the order printed)
_G.model, _G.runs = m, runs
