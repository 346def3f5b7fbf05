-- Paper 002 (Lee, Yoon 1993), section 4: macro elements.  The composite RSSR mechanism (Fig. 10):
-- four RSSR sub-mechanisms chained, the first crank turned once at constant speed; the loci of
-- the three output links in the X–Y plane (Fig. 11); and the timing (macro elements 3.05 s vs
-- DADS 20.98 s).
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
-- Why the numbers differ from the paper's:
--  * The paper's program connects precomputed sub-mechanisms; mbd derives the RSSR's equations
--    once for each distinct copy (the first, which owns its crank, and the other three, which
--    share one derivation), evaluates them per copy and joins them by the model's equations (the
--    ball joints between copies).  The derivation time and the compiler's are printed apart (~:
--    machine timings; the first run compiles, later runs load the cached code).
--  * "DADS" is mbd's Cartesian augmented formulation.  CPU times are of the integration alone
--    (least of 3 runs recording one sample), CVODE Adams at rtol = atol = 1e-8.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper002")
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local P = dofile(here .. "/models.lua")

local m, copies = P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi })
print(m:info())
print()
print(m:tree())
print()

local methods = {
  { "Cartesian augmented", { formulation = "augmented" } },
  { "relative numeric", { formulation = "relative" } },
  { "relative tape", { formulation = "relative", code = "tape" } },
  { "relative compiled", { formulation = "relative", code = "compiled" } },
  { "relative kane compiled", { formulation = "relative", solver = "kane", code = "compiled",
                                position_tol = 1e-10 } },
}
local ref = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-11, atol = 1e-11,
                         position_tol = 1e-12, output_every = 0.005 }
local loci = { "s2.rocker", "s3.rocker", "s4.rocker" }
local rows, cpu0, compiled = {}, nil, nil
for _, meth in ipairs(methods) do
  local opts = { t_end = 1, rtol = 1e-8, atol = 1e-8 }
  for k, v in pairs(meth[2]) do opts[k] = v end
  local row, run = study.timed(3, function(every)
    opts.output_every = every or 0.005
    return m:simulate(opts)
  end, 1)
  local cpu = row.stats.cpu_time
  cpu0 = cpu0 or cpu
  local err = 0
  for _, b in ipairs(loci) do
    err = math.max(err, study.max_difference(run, ref, b .. ".x"),
                   study.max_difference(run, ref, b .. ".y"))
  end
  rows[#rows + 1] = { meth[1], cpu * 1000, string.format("%.2f", cpu / cpu0), run.stats.nfev,
                      run.stats.derive_time * 1000, run.stats.compile_time * 1000, err }
  if meth[1] == "relative compiled" then compiled = run end
end
study.table {
  title = "Composite RSSR, the first crank turned once in 1 s (paper: macro elements 3.05 s, "
          .. "DADS 20.98 s, ratio 0.15)",
  header = { "mbd", "CPU [ms]", "ratio", "nfev", "derive [ms]", "compile [ms]", "loci error" },
  formats = { nil, "%.2f", nil, nil, "%.1f", "%.1f", "%.1e" },
  rows = rows,
}
print()
-- the loci (Fig. 11): each output link's path in the X–Y plane, and its extent
rows = {}
for _, b in ipairs(loci) do
  local _, x = compiled:series(b .. ".x")
  local _, y = compiled:series(b .. ".y")
  local lo = { math.huge, math.huge }
  local hi = { -math.huge, -math.huge }
  for i = 1, #x do
    lo[1], hi[1] = math.min(lo[1], x[i]), math.max(hi[1], x[i])
    lo[2], hi[2] = math.min(lo[2], y[i]), math.max(hi[2], y[i])
  end
  rows[#rows + 1] = { b, lo[1], hi[1], lo[2], hi[2], compiled:value(b .. ".x", 0.5),
                      compiled:value(b .. ".y", 0.5) }
end
study.table {
  title = "Fig. 11 — loci of the output links' centres in the X–Y plane over one turn",
  header = { "link", "x min", "x max", "y min", "y max", "x(0.5 s)", "y(0.5 s)" },
  formats = { nil, "%.5f", "%.5f", "%.5f", "%.5f", "%.5f", "%.5f" },
  rows = rows,
}
local runs, labels = {}, {}
mbd.plot { run = compiled, x = "s2.rocker.x", y = { "s2.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s2.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 2 (X–Y)" }
mbd.plot { run = compiled, x = "s3.rocker.x", y = { "s3.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s3.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 3 (X–Y)" }
mbd.plot { run = compiled, x = "s4.rocker.x", y = { "s4.rocker.y" }, equal_axes = true,
           file = out .. "/composite_rssr_loci_s4.png",
           title = "Composite RSSR (paper 002 Fig. 11): locus of output link 4 (X–Y)" }
print()
print("wrote " .. out .. "/composite_rssr_loci_s2.png, _s3.png and _s4.png")
