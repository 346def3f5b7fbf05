-- Equal accuracy for paper 002's timing tables, shared by the reproductions in this folder and by
-- scripts/bench/paper002.lua.
--
-- The paper compares CPU times of programs that solve the same problem; an integrator's cost
-- depends on its tolerance, and one tolerance buys different accuracies in different coordinates
-- and formulations.  So each configuration runs at the loosest tolerance that reaches one stated
-- accuracy, measured on every output:
--   * the outputs are all the recorded coordinates: every body's position x, y, z and Euler
--     parameters e0..e3, every joint's angle and displacement (velocities and reactions follow
--     from these);
--   * the error is the largest absolute difference over the run (m, rad, or Euler-parameter
--     units), sampled 200 times, from a reference: Cartesian kane at rtol = atol = 1e-12;
--   * the ladder of tolerances (rtol = atol) runs in half decades from 1e-11 to 1e-4; the chosen
--     rung is the loosest from which every tighter rung keeps the error within the bound (so a
--     loose rung that lands within it by luck is not taken).
local A = {}

A.BOUND = 1e-6
A.LADDER = { 1e-11, 3e-11, 1e-10, 3e-10, 1e-9, 3e-9, 1e-8, 3e-8, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5,
             3e-5, 1e-4 }                                    -- tightest first
A.SAMPLES = 200

-- the recorded coordinates of a run (channel names)
function A.coordinates(run)
  local out = {}
  for _, c in ipairs(run.channels) do
    if c:match("%.[xyz]$") or c:match("%.e[0-3]$") or c:match("%.angle$")
       or c:match("%.displacement$") then
      out[#out + 1] = c
    end
  end
  return out
end

-- the largest |run - ref| over the coordinates and the samples of run, and the channel where it is
function A.max_error(run, ref, chans)
  local worst, where = 0, "-"
  for _, c in ipairs(chans or A.coordinates(ref)) do
    local t, v = run:series(c)
    for i = 1, #t do
      local d = math.abs(v[i] - ref:value(c, t[i]))
      if d > worst then worst, where = d, c end
    end
  end
  return worst, where
end

-- the reference run of a model (Cartesian kane, rtol = atol = 1e-12)
function A.reference(m, t_end)
  return m:simulate { t_end = t_end, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                      position_tol = 1e-12, output_every = t_end / A.SAMPLES }
end

-- the options of a run of configuration `opts` at tolerance tol, sampled `every` seconds
function A.options(opts, tol, t_end, every)
  local o = { t_end = t_end, rtol = tol, atol = tol, output_every = every, quiet = true }
  for k, v in pairs(opts) do o[k] = v end
  -- kane's position analysis (at every evaluation) ten times tighter than the integration, or
  -- its default 1e-8 (kane is the relative formulation's default solver)
  if o.formulation == "kane" or o.solver == "kane" or (o.formulation == "relative" and not o.solver) then
    o.position_tol = o.position_tol or math.min(1e-8, tol / 10)
  end
  return o
end

-- the loosest rung of the ladder for configuration opts (a table of m:simulate options) within
-- bound of ref; returns {tol =, err =, where =, nfev =, steps =, run = (sampled)} or nil when even
-- the tightest rung misses the bound
function A.loosest(m, opts, ref, t_end, bound)
  bound = bound or A.BOUND
  local chans = A.coordinates(ref)
  local chosen
  for _, tol in ipairs(A.LADDER) do
    local r = m:simulate(A.options(opts, tol, t_end, t_end / A.SAMPLES))
    if not r.ok then break end
    local err, where = A.max_error(r, ref, chans)
    if err > bound then break end
    chosen = { tol = tol, err = err, where = where, nfev = r.stats.nfev, steps = r.stats.steps,
               run = r }
  end
  return chosen
end

-- the configurations of the timing tables, in their order: {label, m:simulate options}; a row
-- with `as` takes the tolerance of the row it names (the tape evaluates the compiled equations)
A.METHODS = {
  { "Cartesian augmented (DADS)", { formulation = "augmented" } },
  { "Cartesian kane", { formulation = "kane" } },
  { "relative, paper gains, numeric", { formulation = "relative", solver = "baumgarte" } },
  { "relative, paper gains, compiled", { formulation = "relative", solver = "baumgarte",
                                         code = "compiled" } },
  { "relative, paper gains, tape", { formulation = "relative", solver = "baumgarte",
                                     code = "tape" },
    as = "relative, paper gains, compiled" },
  { "relative augmented, compiled", { formulation = "relative", solver = "augmented",
                                      code = "compiled" } },
  { "relative kane, compiled", { formulation = "relative", solver = "kane", code = "compiled" } },
}

-- the tolerance of the configuration meth (a row of A.METHODS) on model m: that of the row it
-- names in `as` (byname[label].tol, nil when that row found none), else the loosest rung within
-- the bound of ref over t_end (nil when none is)
function A.tolerance(m, meth, byname, ref, t_end)
  if meth.as then
    return byname[meth.as] and byname[meth.as].tol
  end
  local pick = A.loosest(m, meth[2], ref, t_end)
  return pick and pick.tol
end

return A
