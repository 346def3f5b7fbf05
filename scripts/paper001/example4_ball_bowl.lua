-- Paper 001 (Park, Yoo, Hwang 1999), example 4: a ball on a rotating curved surface (Fig. 13-15,
-- Table 4), regularized friction as in example 3.  Regenerates Fig. 14 (the locus of the ball's
-- centre) and Fig. 15 (the magnitude of the normal force, which grows as the ball moves out).
--
--   mbd scripts/paper001/example4_ball_bowl.lua [OUTDIR]     (default out/paper001)
--
-- Data (Table 4): the bodies of example 3 (body 1: 50 kg, J = (10, 10, 15); ball: 10 kg,
-- J = (1, 1, 1)), body 1 turning about n3 at omega = 2 rad/s, gravity 9.81 along -n3,
-- r2(0) = (0, 0, 0.12), identity Euler parameters, the ball at rest; friction of Fig. 11 with
-- slope beta = 1000 N·s/m.
--
-- Our choices where the paper is silent, and why:
--  * the surface: a bowl of revolution about body 1's axis, z = 0.02 + k rho² with k = 0.05 1/m,
--    the ball (radius 0.1 m, as in example 3) on its inside: its lowest point 0.02 m up puts the
--    ball's centre at the printed 0.12 m on the axis; k = 0.05 < omega²/(2 g) = 0.204 makes the
--    surface flat enough that the carried ball is flung outwards (a point mass sliding in a bowl
--    z = k rho² turning at omega escapes when omega² > 2 g k), climbing the wall: the normal force
--    grows, as the paper's Fig. 15 shows.  Its curvature radius 1/(2k) = 10 m is far above the
--    ball's 0.1 m (a single contact point);
--  * the start: on the axis (Table 4) the bowl's point under the ball does not move and, by
--    symmetry, the ball would stay there; we start it at rest 0.2 m off the axis;
--  * mu = 0.05: the paper does not print it; with more friction the ball soon rolls, and a ball
--    rolling on a turning surface keeps near its start (example 3) — the paper's ball moves out;
--  * 10 s of motion (not printed).
-- A check at t = 0: the ball is at rest and the surface turns about its own axis of symmetry, so
-- the ball's centre has no acceleration along the normal and N = m g cos(phi), phi the normal's
-- tilt at the contact point: tan(phi) = 2 k rho_c.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper001")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/models.lua")

local k, z0, mu, x0 = 0.05, 0.02, 0.05, 0.2
local m = models.ball_bowl(mu, k, z0, x0)
local runs, rows = {}, {}
for _, f in ipairs { "kane", "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  local run = m:simulate { t_end = 10, formulation = f, rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
  runs[f] = run
  rows[#rows + 1] = { f, run:value("c.normal", 0), run:value("c.normal", 10),
                      math.sqrt(run:value("ball.x", 10) ^ 2 + run:value("ball.y", 10) ^ 2),
                      run.stats.nfev, run.stats.contact_iterations }
end
local kr = runs.kane
-- the check at t = 0
local px, py = kr:value("c.px", 0), kr:value("c.py", 0)
local rho_c = math.sqrt(px * px + py * py)
local n0 = 10 * 9.81 / math.sqrt(1 + (2 * k * rho_c) ^ 2)
print(string.format("the bowl: z = %g + %g rho^2 (inside), mu = %g, the ball at rest %g m off the axis", z0, k, mu, x0))
print(string.format("t = 0: N = m g cos(phi) = %.10f N at the contact point's rho = %.6f m; mbd %.10f N",
                    n0, rho_c, kr:value("c.normal", 0)))
print()
study.table {
  title = "Fig. 14-15 - ball in a bowl turning at 2 rad/s, 10 s (CVODE Adams, rtol = 1e-8)",
  header = { "formulation", "N(0) [N]", "N(10 s) [N]", "distance from axis at 10 s [m]", "nfev",
             "N iterations" },
  formats = { nil, "%.6f", "%.6f", "%.6f" },
  rows = rows,
}
local worst = 0
for _, f in ipairs { "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  worst = math.max(worst, study.max_difference(runs[f], kr, "ball.x"), study.max_difference(runs[f], kr, "c.normal"))
end
print(string.format("largest difference of ball.x and c.normal from kane's: %.1e", worst))
-- the normal force as the ball moves out: samples every 2 s
local nrows = {}
for t = 0, 10, 2 do
  local rho = math.sqrt(kr:value("ball.x", t) ^ 2 + kr:value("ball.y", t) ^ 2)
  nrows[#nrows + 1] = { t, rho, kr:value("ball.z", t), kr:value("c.normal", t), kr:value("c.slip", t) }
end
print()
study.table {
  title = "Fig. 15 - the normal force grows as the ball moves out (kane)",
  header = { "t [s]", "distance from axis [m]", "ball z [m]", "N [N]", "slip speed [m/s]" },
  formats = { "%g", "%.5f", "%.5f", "%.5f", "%.4f" },
  rows = nrows,
}
local file = out .. "/paper001_ex4_fig14_locus.png"
mbd.plot { run = kr, x = "ball.x", y = "ball.y", file = file, equal_axes = true, xlabel = "x [m]",
           ylabel = "y [m]", title = "Paper 001 example 4 (Fig. 14): ball centre, top view" }
print("wrote " .. file)
file = out .. "/paper001_ex4_fig15_normal.png"
mbd.plot { run = kr, y = "c.normal", file = file, ylabel = "N [N]",
           title = "Paper 001 example 4 (Fig. 15): normal force" }
print("wrote " .. file)
kr:write_csv(out .. "/paper001_ex4.csv", { "ball.x", "ball.y", "ball.z", "c.normal", "c.friction", "c.slip" })
print("wrote " .. out .. "/paper001_ex4.csv")
