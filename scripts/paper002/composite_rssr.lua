-- Paper 002 (Lee, Yoon 1993), section 4: macro elements.  The composite RSSR mechanism (Fig. 10):
-- four RSSR sub-mechanisms chained, the first crank turned once at constant speed; the loci of
-- the three output links in the X–Y plane (Fig. 11); and the timing (macro elements 3.05 s vs
-- DADS 20.98 s).  Checks what it claims: the script ends with exit status 1 when a claim fails.
--
--   mbd scripts/paper002/composite_rssr.lua [OUTDIR]     (default out/paper002)
--
-- The mechanism (models.lua; its dimensions are not printed): the RSSR is one macro element,
-- mbd.macro "rssr", placed four times.  Each copy's rocker is the next copy's crank: copy i+1's
-- frame sits at copy i's rocker pivot with its z axis along that pivot's axis, and its crank ball
-- sits on copy i's rocker arm.  So the first crank drives the whole chain, and every coupler
-- spins freely about its own axis (four idle freedoms the run integrates: they move no link's
-- pivot-fixed point).  The "three output links" are copies 2–4's rockers (copy 1's rocker is
-- copy 2's crank); their loci are the paths of their centres of mass.  No gravity.
--
-- Independent check (plain Lua below): an RSSR's rocker angle has a closed form.  With the crank
-- ball P = a (cos θ, sin θ, 0) and the rocker's R = (d + c cos ψ, 0, h − c sin ψ), |P − R| = b
-- reads A cos ψ − B sin ψ = K with A = 2c(d − a cos θ), B = 2hc,
-- K = b² − a² − c² − d² − h² + 2ad cos θ, so ψ = acos(K/√(A² + B²)) − atan2(B, A) on the assembled
-- (upper) branch.  Copy i+1's crank angle is copy i's rocker angle, so the chain is
-- ψ_{i+1} = ψ(ψ_i), and each rocker's centre follows from the copies' frames (each at the previous
-- rocker's pivot, turned −90° about its x axis).
--
-- Why the numbers differ from the paper's:
--  * The paper's program connects precomputed sub-mechanisms; mbd derives the RSSR's equations
--    once for each distinct copy (the first, which owns its crank, and the other three, which
--    share one derivation), evaluates them per copy and joins them by the model's equations (the
--    ball joints between copies).  The derivation time and the compiler's are printed apart (~:
--    machine timings; the first run compiles, later runs load the cached code).
--  * The timing table runs each configuration at equal accuracy (accuracy.lua: the loosest
--    tolerance at which every recorded coordinate stays within 1e-6 of a Cartesian kane run at
--    1e-12), with the rows of dynamics.lua.  "DADS" is mbd's Cartesian augmented formulation.
--    With the paper's Baumgarte gains the relative coordinates take about five times Cartesian
--    augmented's evaluations (stiff for Adams), so the paper's ratio (0.15) is not reproduced with
--    them; without the stabilization they take about Cartesian's.  CPU times are of the
--    integration alone (least of 3 runs recording one sample), printed, not checked; the CPU ratios
--    are measured in interleaved rounds by scripts/bench/paper002.lua, which the README quotes.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper002")
local P = study.beside(arg, "models.lua")
local A = study.beside(arg, "accuracy.lua")
local claims = study.claims()

local m = P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi })
print(m:info())
print()
print(m:tree())
print()

-- the chained closed form ---------------------------------------------------------------------
local g = P.rssr
local function psi_of(theta)
  local Ac, Bc = 2 * g.c * (g.d - g.a * math.cos(theta)), 2 * g.h * g.c
  local K = g.b ^ 2 - g.a ^ 2 - g.c ^ 2 - g.d ^ 2 - g.h ^ 2 + 2 * g.a * g.d * math.cos(theta)
  return math.acos(K / math.sqrt(Ac * Ac + Bc * Bc)) - math.atan(Bc, Ac)
end
local function mat_vec(R, v)
  return { R[1][1] * v[1] + R[1][2] * v[2] + R[1][3] * v[3],
           R[2][1] * v[1] + R[2][2] * v[2] + R[2][3] * v[3],
           R[3][1] * v[1] + R[3][2] * v[2] + R[3][3] * v[3] }
end
local function mat_mul(R, S)
  local C = {}
  for i = 1, 3 do
    C[i] = {}
    for j = 1, 3 do C[i][j] = R[i][1] * S[1][j] + R[i][2] * S[2][j] + R[i][3] * S[3][j] end
  end
  return C
end
local QUARTER = { { 1, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } }     -- −90° about x: local z = previous y
-- the rockers' centres (global) of copies 1..4 with the first crank at θ
local function rocker_centres(theta)
  local origin, R = { 0, 0, 0 }, { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  local centres = {}
  for i = 1, 4 do
    local psi = psi_of(theta)
    local c = mat_vec(R, { g.d + g.c / 2 * math.cos(psi), 0, g.h - g.c / 2 * math.sin(psi) })
    centres[i] = { origin[1] + c[1], origin[2] + c[2], origin[3] + c[3] }
    local pivot = mat_vec(R, { g.d, 0, g.h })
    origin = { origin[1] + pivot[1], origin[2] + pivot[2], origin[3] + pivot[3] }
    R = mat_mul(R, QUARTER)
    theta = psi
  end
  return centres
end

-- the timing table at equal accuracy ------------------------------------------------------------
local T = 1
local methods = A.METHODS
local ref = A.reference(m, T)
local loci = { "s2.rocker", "s3.rocker", "s4.rocker" }
-- largest distance (x, y, z) of the three output links' centres from the closed form, over the
-- samples of a run
local function loci_error(run)
  local t = run:series("s2.rocker.x")
  local worst = 0
  for i = 1, #t do
    local c = rocker_centres(2 * math.pi * t[i])
    for k, b in ipairs(loci) do
      for j, ax in ipairs { "x", "y", "z" } do
        worst = math.max(worst, math.abs(run:value(b .. "." .. ax, t[i]) - c[k + 1][j]))
      end
    end
  end
  return worst
end
-- the reference against the closed form: its integration error alone (measured 4e-11)
claims:within("reference run (Cartesian kane, 1e-12): output links' centres vs the chained closed "
              .. "form [m]", loci_error(ref), 0, 1e-9)
local rows, byname, dads = {}, {}, nil
for _, meth in ipairs(methods) do
  local label, opts = meth[1], meth[2]
  local tol = A.tolerance(m, meth, byname, ref, T)
  local row = { label, "-", "-", "-", "-", "-", "-", "-", "-", "-" }
  if tol then
    local timed, sampled = study.timed(3, function(every)
      return m:simulate(A.options(opts, tol, T, every or T / A.SAMPLES))
    end, T)
    local r = { tol = tol, err = A.max_error(sampled, ref), nfev = sampled.stats.nfev,
                steps = sampled.stats.steps, cpu = timed.stats.cpu_time, run = sampled }
    byname[label] = r
    dads = dads or r
    row = { label, string.format("%.0e", tol), r.err, r.nfev, r.steps,
            string.format("%.2f", r.nfev / dads.nfev), r.cpu * 1000,
            string.format("%.2f", r.cpu / dads.cpu), sampled.stats.derive_time * 1000,
            sampled.stats.compile_time * 1000 }
  end
  rows[#rows + 1] = row
end
study.table {
  title = string.format("Composite RSSR, the first crank turned once in 1 s, every coordinate "
                        .. "within %g of the reference (paper: macro elements 3.05 s, DADS "
                        .. "20.98 s, ratio 0.15)", A.BOUND),
  header = { "mbd", "rtol", "error", "nfev", "steps", "nfev/DADS", "CPU [ms]", "CPU/DADS",
             "derive [ms]", "compile [ms]" },
  formats = { nil, nil, "%.1e", nil, nil, nil, "%.2f", nil, "%.1f", "%.1f" },
  rows = rows,
}
local function nfev(label) return byname[label] and byname[label].nfev end
local DADS, PAPER = "Cartesian augmented (DADS)", "relative, paper gains, compiled"
claims:holds("tape and compiled code take the same steps",
             nfev(PAPER) == nfev("relative, paper gains, tape"),
             string.format("%s / %s evaluations", nfev(PAPER), nfev("relative, paper gains, tape")))
-- the paper's gains: stiff for Adams (measured 4.8 to 6.2 times Cartesian augmented's evaluations
-- across OpenBLAS kernels: the stiff counts move with the round-off): why the paper's 0.15 is not
-- reproduced with them
claims:within("evaluations, paper gains / Cartesian augmented (stiff)", nfev(PAPER) / nfev(DADS), 3,
              nil)
-- without the stabilization the same coordinates take about Cartesian's evaluations (measured
-- 1.03 for solver = "augmented"; 1.3 leaves room for the ±10 % of non-stiff counts)
claims:within("evaluations, relative augmented / Cartesian augmented",
              nfev("relative augmented, compiled") / nfev(DADS), nil, 1.3)
print()

-- Fig. 11: each output link's path in the X–Y plane (the paper's method's run), its extent, and
-- the closed form's at the same instants
local fig = byname[PAPER].run
rows = {}
local t = fig:series("s2.rocker.x")
for k, b in ipairs(loci) do
  local _, x = fig:series(b .. ".x")
  local _, y = fig:series(b .. ".y")
  local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
  local clo, chi = { math.huge, math.huge }, { -math.huge, -math.huge }
  for i = 1, #x do
    lo[1], hi[1] = math.min(lo[1], x[i]), math.max(hi[1], x[i])
    lo[2], hi[2] = math.min(lo[2], y[i]), math.max(hi[2], y[i])
    local c = rocker_centres(2 * math.pi * t[i])[k + 1]
    clo[1], chi[1] = math.min(clo[1], c[1]), math.max(chi[1], c[1])
    clo[2], chi[2] = math.min(clo[2], c[2]), math.max(chi[2], c[2])
  end
  rows[#rows + 1] = { b, lo[1], hi[1], lo[2], hi[2], fig:value(b .. ".x", 0.5),
                      fig:value(b .. ".y", 0.5) }
  local worst = math.max(math.abs(lo[1] - clo[1]), math.abs(hi[1] - chi[1]),
                         math.abs(lo[2] - clo[2]), math.abs(hi[2] - chi[2]))
  -- the figure's run is within 1e-6 of the reference on every coordinate, the reference within
  -- 1e-9 of the closed form
  claims:within(string.format("Fig. 11, %s: extents vs the chained closed form [m]", b), worst, 0,
                1.001e-6)
end
study.table {
  title = "Fig. 11 — loci of the output links' centres in the X–Y plane over one turn",
  header = { "link", "x min", "x max", "y min", "y max", "x(0.5 s)", "y(0.5 s)" },
  formats = { nil, "%.5f", "%.5f", "%.5f", "%.5f", "%.5f", "%.5f" },
  rows = rows,
}
mbd.plot { run = fig, x = "s2.rocker.x", y = { "s2.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s2.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 2 (X–Y)" }
mbd.plot { run = fig, x = "s3.rocker.x", y = { "s3.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s3.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 3 (X–Y)" }
mbd.plot { run = fig, x = "s4.rocker.x", y = { "s4.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s4.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 4 (X–Y)" }
print()
print("wrote " .. out .. "/composite_rssr_loci_s2.png, _s3.png and _s4.png")
claims:finish()
