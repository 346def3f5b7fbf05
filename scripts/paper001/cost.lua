-- Paper 001's efficiency claim (its conclusion: the reduced equations (28), iterated for the
-- normal force, cost less than Haug's full augmented system): the cases and the equal-accuracy
-- measure shared by scripts/bench/paper001.lua, which finds each formulation's loosest tolerance
-- and times it, and the example scripts, which check its counts (evaluations, steps: they do not
-- depend on the machine; CPU times and instruction counts are the benchmark's).
--
-- Equal accuracy: a formulation's run is compared with a reference (kane at rtol = atol = 1e-12,
-- position_tol = 1e-12), both sampled every 0.01 s; its error is the largest over the samples and
-- the case's channels of |y - y_ref| / max|y_ref| (the channel's largest magnitude): positions,
-- velocities and the contact's normal and friction forces, and of the event times |t - t_ref| /
-- t_end (a run with other events than the reference's has an infinite error).  BOUND = 1e-6.
local dir = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local models = dofile(dir .. "/models.lua")
local study = require "mbd.study"

local cost = { BOUND = 1e-6 }

cost.cases = {
  { name = "ex1", title = "disk on a line", t_end = 1, model = models.disk_line,
    channels = { "disk.x", "disk.y", "disk.vx", "disk.omega", "c.normal", "c.friction" } },
  { name = "ex2", title = "disk on a sine wave", t_end = 1,
    model = function() return (models.disk_sine(7)) end,
    channels = { "disk.x", "disk.y", "disk.vx", "disk.vy", "disk.omega", "c.normal", "c.friction" } },
  { name = "ex3", title = "ball on a plate, mu = 0.2", t_end = 5,
    model = function() return models.ball_plate(0.2, 0.1) end,
    channels = { "ball.x", "ball.y", "ball.vx", "ball.vy", "c.normal", "c.friction" } },
  { name = "ex4", title = "ball in a bowl, mu = 0.05", t_end = 10,
    model = function() return models.ball_bowl(0.05, 0.05, 0.02, 0.2) end,
    channels = { "ball.x", "ball.y", "ball.z", "ball.vx", "ball.vy", "c.normal", "c.friction" } },
}

function cost.case(name)
  for _, c in ipairs(cost.cases) do
    if c.name == name then return c end
  end
  error("unknown case " .. tostring(name) .. " (ex1 .. ex4)", 2)
end

-- CVODE Adams at rtol = atol = rtol; position_tol 1e-10 (kane's Newton tolerance on the dependent
-- positions; augmented uses it only for its drift warning)
function cost.simulate(m, t_end, form, rtol, every, ptol)
  return m:simulate { t_end = t_end, formulation = form, integrator = "adams", rtol = rtol, atol = rtol,
                      position_tol = ptol or 1e-10, output_every = every }
end

function cost.reference(c, m)
  return cost.simulate(m, c.t_end, "kane", 1e-12, 0.01, 1e-12)
end

-- the error of a run against the reference, and where it is largest
function cost.error_of(run, ref, c)
  local worst, where = 0, nil
  for _, ch in ipairs(c.channels) do
    local _, v = ref:series(ch)
    local scale = 0
    for i = 1, #v do scale = math.max(scale, math.abs(v[i])) end
    local e = study.max_difference(run, ref, ch) / scale
    if e > worst then worst, where = e, ch end
  end
  if #run.events ~= #ref.events then return math.huge, "events" end
  for i, ev in ipairs(ref.events) do
    local e = math.abs(run.events[i].t - ev.t) / c.t_end
    if e > worst then worst, where = e, "event " .. i end
  end
  return worst, where
end

-- the ladder's rung k: rtol = 10^(-k/2)
function cost.rung(k) return 10 ^ (-k / 2) end

-- the equal-accuracy tolerances scripts/bench/paper001.lua finds (the loosest rung, k = 8 .. 22,
-- whose error and every tighter rung's are within BOUND), per case
cost.rtols = {
  ex1 = { kane = cost.rung(11), augmented = cost.rung(11) },
  ex2 = { kane = cost.rung(14), augmented = cost.rung(16) },
  ex3 = { kane = cost.rung(18), augmented = cost.rung(19) },
  ex4 = { kane = cost.rung(19), augmented = cost.rung(20) },
}

-- in an example script: kane and augmented at their equal-accuracy tolerances against the
-- reference; prints their counts and claims that both are within BOUND and that the ratio of
-- evaluations kane / augmented lies in [lo, hi] (why: the caller's comment)
function cost.check(claims, name, lo, hi, note)
  local c = cost.case(name)
  local m = c.model()
  local ref = cost.reference(c, m)
  local rows, runs = {}, {}
  for _, f in ipairs { "kane", "augmented" } do
    local rtol = cost.rtols[name][f]
    local run = cost.simulate(m, c.t_end, f, rtol, 0.01)
    local e, where = cost.error_of(run, ref, c)
    runs[f] = { run = run, err = e }
    local s = run.stats
    rows[#rows + 1] = { f, string.format("%.3g", rtol), e, where, s.nfev, s.steps, s.newton_iterations,
                        s.contact_iterations, s.lu_factorizations }
  end
  study.table {
    title = string.format("Efficiency (paper's conclusion): kane (eq 28) vs augmented at equal accuracy "
                          .. "(error <= %g against kane at 1e-12; scripts/bench/paper001.lua)", cost.BOUND),
    header = { "formulation", "rtol", "error", "worst", "nfev", "steps", "Newton its", "N its", "LU" },
    formats = { nil, nil, "%.1e" },
    rows = rows,
  }
  for _, f in ipairs { "kane", "augmented" } do
    claims:within(string.format("efficiency: %s's error at rtol %.3g (equal accuracy)", f, cost.rtols[name][f]),
                  runs[f].err, 0, cost.BOUND)
  end
  local ratio = runs.kane.run.stats.nfev / runs.augmented.run.stats.nfev
  claims:within("efficiency: evaluations kane / augmented at equal accuracy" .. (note or ""), ratio, lo, hi)
  return runs, ratio
end

return cost
