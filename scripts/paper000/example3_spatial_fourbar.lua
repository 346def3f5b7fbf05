-- Paper 000 (Park, Yoo, Hwang, Bae 1997), example 3: the spatial four-bar (revolute – universal –
-- spherical – revolute).  Regenerates Table 3 (CPU-time rate to KANE and function evaluations of
-- KANE, GCP and CS for three pairs of integration and position tolerances, 10 s) and Fig. 8 (y2,
-- the y coordinate of link 2's CM, for ε_int = ε_pos = 1e-3), and checks what we claim about
-- them: the script ends with exit status 1 when a claim fails.
--
--   mbd scripts/paper000/example3_spatial_fourbar.lua [OUTDIR]     (default out/paper000)
--
-- Data and the geometry we chose (the paper's Fig. 7 is not in the text): see models.lua and
-- examples/spatial_fourbar.lua.  J2 as printed violates the triangle inequality; we read J2zz = 12.4.
--
-- Our choices and why numbers differ:
--  * ε_int is CVODE Adams' rtol = atol; ε_pos the Newton tolerance of GCP and KANE; CS is
--    Baumgarte with α = β = 5 (the paper prints no α, β).
--  * spatial bodies use Euler parameters (7 coordinates each, normalization rows in Φ), as the
--    paper's eq. 14–46 allow; the paper's own coordinates for this example are not printed.
--  * function evaluations depend on the integrator and on our geometry: ours are of the paper's
--    size for KANE and GCP, but CS needs about as many as KANE (paper: 2.5–3.2 times), and the CPU
--    rates are not the paper's (ours scatter around 1 from run to run): not reproduced.  A row is
--    one run, the least CPU time of 5 that record only their final sample (study.timed).
--
-- Fig. 8: the paper shows the three methods agreeing at ε_int = ε_pos = 1e-3.  Ours do not: CS is
-- 0.04 m from a 1e-10 reference, KANE and GCP 0.18 m, and KANE and GCP lose 5.6 J more than the
-- damper removes (CS 0.25 J).  Where (checked below): the loss comes in one jump at t ≈ 3.5 s, the
-- first minimum of y2.  The partition (QR with column pivoting) makes link 2's y coordinate
-- independent at t ≈ 2.8 s, when its z coordinate degrades; at 3.48 s y2 has a turning point, the
-- dependent coordinates stop being functions of it (Φ_qd singular), and the step across it is
-- controlled on [y2, ẏ2] alone, blind to the dependent coordinates' error, which
-- |Φ_qd⁻¹ Φ_qi| amplifies without bound there; the re-partition comes only after that step.
-- At ε_pos = 1e-3 the position analysis also accepts the Taylor predictor of the dependent
-- coordinates without a Newton correction, so f is not a function of y and the runs scatter with
-- ε_pos.  This is inherent to partitioned formulations with error control on the independent
-- coordinates alone at a tolerance this loose: results at 0.8–1.2 × 1e-3 range from 0.01 m to
-- 4.8 m (two fail), where CS, augmented and udwadia_kalaba stay within 0.2 m and 1 J.  Two
-- remedies, tried outside the code: one Newton correction in every position analysis makes the
-- runs at ε_int ≤ 1e-4 independent of ε_pos; error weights of [q_i, v_i] scaled by the partial
-- velocity matrix B (the dependent coordinates' errors seen to first order) bring KANE at
-- (1e-3, 1e-8) to the augmented formulation's 0.5 J; neither makes 1e-3 robust.  At ε_int = 1e-6
-- the three agree with the reference to 1e-3 m (checked): the paper's figure in kind.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper000")
local claims = study.claims()
local models = study.beside(arg, "models.lua")

-- Table 3 of the paper: {ε_int, ε_pos, {KANE rate, nfev}, {GCP rate, nfev}, {CS rate, nfev}}
local paper = {
  { 1e-5, 1e-3, { 1.00, 210 }, { 1.68, 210 }, { 3.59, 662 } },
  { 1e-3, 1e-3, { 1.00, 157 }, { 1.58, 157 }, { 2.76, 399 } },
  { 1e-3, 1e-5, { 1.00, 154 }, { 1.33, 152 }, { 1.80, 399 } },
}
local methods = { { "kane", "KANE" }, { "gcp", "GCP" }, { "baumgarte", "CS" } }

local m = models.spatial_fourbar()
local function simulate(f, eint, epos, every)
  return m:simulate { t_end = 10, formulation = f, integrator = "adams", rtol = eint, atol = eint,
                      position_tol = epos, stabilization = { alpha = 5, beta = 5 },
                      output_every = every or 0.02 }
end
local rows, fig, all = {}, nil, {}
for _, p in ipairs(paper) do
  local eint, epos = p[1], p[2]
  local cpu_kane
  local runs = {}
  for k, meth in ipairs(methods) do
    local row, sampled = study.timed(5, function(every) return simulate(meth[1], eint, epos, every) end, 10)
    local st = row.stats
    if k == 1 then cpu_kane = st.cpu_time end
    runs[k] = sampled
    rows[#rows + 1] = { string.format("%.0e", eint), string.format("%.0e", epos), meth[2],
                        string.format("%.2f", p[k + 2][1]), p[k + 2][2],
                        string.format("%.2f", st.cpu_time / cpu_kane), st.steps, st.nfev,
                        st.cpu_time * 1000, st.newton_iterations }
  end
  all[#all + 1] = runs
  if eint == 1e-3 and epos == 1e-3 then fig = runs end
end
study.table {
  title = "Table 3 — spatial four-bar, 10 s: paper vs mbd (CVODE Adams)",
  header = { "eps_int", "eps_pos", "method", "paper rate", "paper nfev", "mbd rate", "mbd steps", "mbd nfev",
             "mbd CPU [ms]", "Newton" },
  formats = { nil, nil, nil, nil, nil, nil, nil, nil, "%.2f" },
  rows = rows,
}
-- the constraint violation at the samples (every 0.02 s) of the same settings
for i, p in ipairs(paper) do
  print(string.format("max |Phi| at the samples, (%.0e, %.0e): KANE %.1e, GCP %.1e, CS %.1e", p[1], p[2],
                      all[i][1].stats.max_position_violation, all[i][2].stats.max_position_violation,
                      all[i][3].stats.max_position_violation))
end
for i, p in ipairs(paper) do
  local k, g, c = all[i][1].stats, all[i][2].stats, all[i][3].stats
  local tag = string.format("(%.0e, %.0e)", p[1], p[2])
  -- KANE and GCP integrate the same coordinates; at 1e-3 round-off of their different linear
  -- solves may move a step (measured: equal, or 198 against 200 on other OpenBLAS kernels)
  claims:near("Table 3 " .. tag .. ": GCP evaluations / KANE's (paper 1.00)", g.nfev / k.nfev, 1, { atol = 0.1 })
  -- KANE's evaluations of the paper's size: 0.7–2 times (our geometry is not the paper's)
  claims:within("Table 3 " .. tag .. ": KANE evaluations / the paper's", k.nfev / p[3][2], 0.7, 2.0)
  -- CS: the paper's 2.5–3.2 times KANE's evaluations are not reproduced (measured 0.85–0.97)
  claims:within(string.format("Table 3 %s: CS evaluations / KANE's (paper %.2f: not reproduced)", tag,
                              p[5][2] / p[3][2]), c.nfev / k.nfev, 0.5, 1.5)
end

-- the energy balance of a run: E(0) − E(t) − ∫ C ω1² dt (damper C = 5 at joint 1; trapezoid over
-- the samples), at the end and its largest change between two samples, with the time there
local function balance(r)
  local t, E = r:series("energy")
  local _, w = r:series("link1.wx")
  local diss, prev, jump, t_jump = 0, 0, 0, 0
  for i = 2, #t do
    diss = diss + 0.5 * (t[i] - t[i - 1]) * 5 * (w[i] ^ 2 + w[i - 1] ^ 2)
    local b = E[1] - E[i] - diss
    if math.abs(b - prev) > jump then jump, t_jump = math.abs(b - prev), t[i] end
    prev = b
  end
  return prev, jump, t_jump
end

-- Fig. 8: y2(t) for ε_int = ε_pos = 1e-3 by the three methods, and a tight reference
local ref = m:simulate { t_end = 10, formulation = "kane", rtol = 1e-10, atol = 1e-10,
                         position_tol = 1e-12, output_every = 0.02 }
local t_min
do
  local t, y = ref:series("link2.y")
  for i = 2, #t - 1 do
    if not t_min and y[i] < y[i - 1] and y[i] <= y[i + 1] then t_min = t[i] end
  end
end
local ref_loss = balance(ref)
print(string.format("\nreference (KANE, 1e-10): energy balance %.1e J over 10 s; y2's first minimum at t = %.2f s",
                    ref_loss, t_min))
local dist, loss, jump, t_jump = {}, {}, {}, {}
for k, meth in ipairs(methods) do
  dist[k] = study.max_difference(fig[k], ref, "link2.y")
  loss[k], jump[k], t_jump[k] = balance(fig[k])
  print(string.format("Fig. 8 — %s: largest |y2 - y2(reference)| = %.2e m; energy lost beyond the damper's "
                      .. "%.2f J, the largest part %.2f J at t = %.2f s", meth[2], dist[k], loss[k], jump[k],
                      t_jump[k]))
end
-- the reference keeps the energy balance (1e-10: measured 6e-6 J, of the trapezoid rule's size)
claims:near("Fig. 8: reference energy balance [J]", ref_loss, 0, { atol = 1e-4 })
-- at the paper's setting the three do not agree: CS is within 0.1 m and 1 J of the reference,
-- KANE and GCP lose 2–15 J (measured 5.6 J) and depart by 0.1–0.5 m (measured 0.18 m)
claims:within("Fig. 8: CS - reference [m]", dist[3], 0, 0.1)
claims:within("Fig. 8: CS energy loss [J]", math.abs(loss[3]), 0, 1)
for k = 1, 2 do
  claims:within(string.format("Fig. 8: %s - reference [m] (paper: agree; not reproduced)", methods[k][2]),
                dist[k], 0.1, 0.5)
  claims:within(string.format("Fig. 8: %s energy loss [J]", methods[k][2]), loss[k], 2, 15)
  -- where: in one jump at the first turning point of y2, the coordinate integrated there
  claims:within(string.format("Fig. 8: %s's largest energy jump [s from y2's first minimum]", methods[k][2]),
                math.abs(t_jump[k] - t_min), 0, 0.1)
end
-- converged, the three agree (the paper's figure in kind): ε_int = 1e-6, ε_pos = 1e-8
local tight = {}
for k, meth in ipairs(methods) do
  tight[k] = simulate(meth[1], 1e-6, 1e-8)
  local d, l = study.max_difference(tight[k], ref, "link2.y"), balance(tight[k])
  print(string.format("eps_int = 1e-6, eps_pos = 1e-8 — %s: |y2 - y2(reference)| = %.2e m, energy loss %.1e J",
                      meth[2], d, l))
  claims:near(string.format("at eps_int = 1e-6: %s - reference [m]", meth[2]), d, 0, { atol = 1e-3 })
  claims:near(string.format("at eps_int = 1e-6: %s energy loss [J]", meth[2]), l, 0, { atol = 0.02 })
end
local runs = { fig[1], fig[2], fig[3], ref }
mbd.plot { runs = runs, labels = { "KANE", "GCP", "CS", "reference (1e-10)" }, y = "link2.y",
           file = out .. "/paper000_fig8_y2.png", ylabel = "y2 [m]",
           title = "Paper 000 Fig. 8: spatial four-bar, y2(t), eps_int = eps_pos = 1e-3" }
mbd.plot { runs = { tight[1], tight[2], tight[3], ref }, labels = { "KANE", "GCP", "CS", "reference (1e-10)" },
           y = "link2.y", file = out .. "/paper000_fig8_y2_converged.png", ylabel = "y2 [m]",
           title = "Spatial four-bar, y2(t), eps_int = 1e-6, eps_pos = 1e-8" }
print("wrote " .. out .. "/paper000_fig8_y2.png, paper000_fig8_y2_converged.png")
claims:finish()
