-- Paper 001 (Park, Yoo, Hwang 1999), example 3: a ball on a rotating circular plate (Fig. 10-12,
-- Table 3), regularized friction (Fig. 11).  Regenerates Fig. 12: the loci of the ball's centre in
-- the plate's frame for several friction coefficients mu.
--
--   mbd scripts/paper001/example3_ball_plate.lua [OUTDIR]     (default out/paper001)
--
-- Data (Table 3): plate m1 = 50 kg, J1 = (10, 10, 15) kg·m², on a revolute joint about n3 driven
-- at omega = 3 rad/s; ball m2 = 10 kg, J2 = (1, 1, 1) kg·m²; gravity 9.81 along -n3; r1 = 0,
-- r2(0) = (0, 0, 0.1), both Euler parameters the identity, the ball at rest.  Friction: force
-- growing with the slip speed at slope beta = 1000 N·s/m up to mu N (Fig. 11).
--
-- Our choices where the paper is silent, and why:
--  * the ball's radius: 0.1 m, the height of its centre in Table 3;
--  * its start: r2(0) puts the ball on the axis, where the plate's point under it does not move:
--    no friction, and by symmetry the ball would stay there.  The loci of Fig. 12 need a start off
--    the axis: we start it 0.1 m from the axis, (0.1, 0, 0.1), at rest;
--  * mu: the paper does not print its values; we draw mu = 0.05, 0.1, 0.2, 0.3;
--  * 5 s of motion (the paper's span is not printed).
-- The loci are read from the contact point's parameters on the plate (c.u1, c.v1: the plate's
-- plane has e1 = x, e2 = y), which is the ball centre's projection in the plate frame.
-- What the paper says of Fig. 12 — the more friction, the faster the ball is carried, the more
-- centrifugal force — shows with our start as: a small mu lets the plate slide under the ball
-- for long, the ball drifts outwards on a wide spiral; a large mu makes it roll soon, and a ball
-- rolling on a turntable runs on a fixed circle in space (its velocity turns at
-- omega J/(J + m R²), a known result), which in the plate's frame is a small closed locus.
-- Regularized against Coulomb friction (mu = mu_s = 0.3): mbd also runs the exact stick/slip
-- model, with the switch to rolling located as an event, and prints how far the regularized locus
-- is from it (the price of slope 1000 N·s/m).
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper001")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/models.lua")

local function locus(run)
  local t, u = run:series("c.u1")
  local _, v = run:series("c.v1")
  local rmax = 0
  for i = 1, #t do rmax = math.max(rmax, math.sqrt(u[i] ^ 2 + v[i] ^ 2)) end
  return u, v, rmax
end

local rows, series = {}, {}
for _, mu in ipairs { 0.05, 0.1, 0.2, 0.3 } do
  local m = models.ball_plate(mu, 0.1)
  local run = m:simulate { t_end = 5, formulation = "kane", rtol = 1e-8, atol = 1e-8,
                           output_every = 0.01 }
  local u, v, rmax = locus(run)
  rows[#rows + 1] = { mu, rmax, math.sqrt(u[#u] ^ 2 + v[#v] ^ 2), run:value("c.slip", 5),
                      run:value("c.normal", 5), run.stats.nfev, run.stats.steps }
  series[#series + 1] = { x = u, y = v, label = "mu = " .. mu }
end
study.table {
  title = "Fig. 12 - ball on a plate turning at 3 rad/s, from (0.1, 0, 0.1) at rest, 5 s (kane, rtol = 1e-8)",
  header = { "mu", "max distance from axis [m]", "at 5 s [m]", "slip speed at 5 s [m/s]",
             "N at 5 s [N]", "nfev", "steps" },
  formats = { nil, "%.4f", "%.4f", "%.2e", "%.4f" },
  rows = rows,
}

-- the formulations agree (mu = 0.2, the first 2 s)
local m = models.ball_plate(0.2, 0.1)
local ref, frows = nil, {}
for _, f in ipairs { "kane", "gcp", "augmented", "baumgarte", "udwadia_kalaba" } do
  local run = m:simulate { t_end = 2, formulation = f, rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
  ref = ref or run
  local d = math.max(study.max_difference(run, ref, "c.u1"), study.max_difference(run, ref, "c.v1"))
  frows[#frows + 1] = { f, d, run:value("c.normal", 2), run.stats.nfev, run.stats.contact_iterations }
end
study.table {
  title = "mu = 0.2: the formulations over 2 s (locus difference from kane's)",
  header = { "formulation", "max locus difference [m]", "N at 2 s [N]", "nfev", "N iterations" },
  formats = { nil, "%.1e", "%.6f" },
  rows = frows,
}

-- regularized against Coulomb friction at mu = mu_s = 0.3
local mr = models.ball_plate(0.3, 0.1)
local reg = mr:simulate { t_end = 5, formulation = "kane", rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
local mc = mbd.model { name = "ball on a rotating plate, Coulomb", dim = 3, gravity = { 0, 0, -9.81 } }
local plate = mc:body { name = "plate", mass = 50, inertia = { 10, 10, 15 }, omega = { 0, 0, 3 } }
local ball = mc:body { name = "ball", mass = 10, inertia = { 1, 1, 1 }, pos = { 0.1, 0, 0.1 } }
local axis = mc:revolute { name = "axis", body1 = mc.ground, at1 = { 0, 0, 0 }, body2 = plate, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 },
                           axis2 = { 0, 0, 1 } }
mc:drive { joint = axis, position = 3 * mbd.sym.t }
mc:contact { name = "c", surface1 = mc:surface { name = "top", body = plate, shape = "plane", normal = { 0, 0, 1 } },
             surface2 = mc:surface { name = "skin", body = ball, shape = "sphere", radius = 0.1 },
             friction = "coulomb", mu = 0.3, mu_static = 0.3 }
local cou = mc:simulate { t_end = 5, formulation = "kane", rtol = 1e-8, atol = 1e-8, output_every = 0.01 }
local ev = cou.events[1]
print(string.format("mu = 0.3, Coulomb: %s at t = %.6f s (%d events); regularized locus off it by %.2e m",
                    ev.kind, ev.t, #cou.events,
                    math.max(study.max_difference(reg, cou, "c.u1"), study.max_difference(reg, cou, "c.v1"))))
series[#series + 1] = { x = select(1, locus(cou)), y = select(2, locus(cou)), label = "mu = 0.3, Coulomb" }
print()

local file = out .. "/paper001_ex3_fig12_loci.png"
mbd.plot { series = series, file = file, equal_axes = true, xlabel = "x' [m] (plate frame)",
           ylabel = "y' [m] (plate frame)", title = "Paper 001 example 3 (Fig. 12): ball centre in the plate frame" }
print("wrote " .. file)
local zoom = {}
for k = 3, #series do zoom[#zoom + 1] = series[k] end
file = out .. "/paper001_ex3_fig12_loci_large_mu.png"
mbd.plot { series = zoom, file = file, equal_axes = true, xlabel = "x' [m] (plate frame)",
           ylabel = "y' [m] (plate frame)", title = "Paper 001 example 3: the loci for mu = 0.2, 0.3" }
print("wrote " .. file)
