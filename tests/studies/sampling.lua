-- Recording never steers the integration (issue: "a solution depends on how often it is
-- recorded"): for every formulation and every integrator, the same settings sampled at three
-- output intervals give the same run — steps, evaluations, rejected steps, Newton iterations,
-- re-partitions, and the final state of every channel, to the last bit.  The mechanism is the
-- one where the dependence was found: paper 000's spatial four-bar at eps_int = eps_pos = 1e-3
-- (kane and gcp re-partition twice in 10 s), sampled every 0.1, 0.02 and 0.002 s, and by the
-- models' default (every t_end/500 and at the accepted steps, thinned: recorded from inside the
-- step callback, before a re-partition).  A run that
-- fails must fail the same way (same message, same counts).  The coordinate-level systems of
-- paper 004 (their own driver) are checked the same way, with their error measures E1 and E2.
--
-- rk4 too: it takes steps of exactly `step` from the start of each segment whatever the outputs
-- (an output inside a step comes from the cubic Hermite interpolant of the step's ends), so its
-- runs agree to the bit as well.
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local p000 = dofile(here .. "/../../scripts/paper000/models.lua")
local p004 = dofile(here .. "/../../scripts/paper004/models.lua")

local FORMULATIONS = { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" }
local INTEGRATORS = { "adams", "bdf", "rk45", "rk4", "rkf45" }
local EVERY = { 0.1, 0.02, 0.002 }
local RK4_STEP = 0.002

-- what a run (or a failure) leaves: the counts, the message, and the last sample of each channel
local function record(ok, run, err, model)
  local r = { ok = ok, samples = 0, final = {} }
  if not ok then
    -- the failure's text without the sampled time it was kept to, which depends on sampling
    r.message = tostring(err):gsub(" %(the run up to t = [^)]*%)", "")
    run = model and model.last_run
  end
  if run then
    local st = run.stats
    r.counts = { st.steps, st.nfev, st.rejected, st.newton_iterations or 0, st.repartitions or 0 }
    if ok then
      for _, c in ipairs(run.channels) do
        local t, v = run:series(c)
        r.final[c] = v[#v]
        r.samples = #t
      end
      if run.E1 then
        for i = 1, #run.E1 do
          r.final["E1[" .. i .. "]"] = run.E1[i]
          r.final["E2[" .. i .. "]"] = run.E2[i]
        end
      end
    end
  end
  return r
end

-- nil when b is a, else the first difference (final values within rtol, atol; all else exactly)
local function differ(a, b, rtol, atol)
  if a.ok ~= b.ok then return "one run failed, the other did not: " .. tostring(a.message or b.message) end
  if a.message ~= b.message then return ("messages differ: '%s' / '%s'"):format(a.message, b.message) end
  local names = { "steps", "nfev", "rejected", "newton", "repartitions" }
  for i = 1, 5 do
    if (a.counts or {})[i] ~= (b.counts or {})[i] then
      return ("%s %s / %s"):format(names[i], tostring((a.counts or {})[i]), tostring((b.counts or {})[i]))
    end
  end
  for c, v in pairs(a.final) do
    local w = b.final[c]
    if w == nil or math.abs(v - w) > rtol * math.max(math.abs(v), math.abs(w)) + atol then
      return ("%s at the end: %.17g / %.17g"):format(c, v, tostring(w))
    end
  end
  return nil
end

-- the three samplings of one setting (and the default one, nil, for models); check: identical,
-- and really sampled differently
local function three(simulate, default_too)
  local out = {}
  for k, every in ipairs(EVERY) do out[k] = simulate(every) end
  if default_too then out[#out + 1] = simulate(nil) end
  return out
end

local function same(rtol, atol)
  return function(runs)
    for k = 2, #runs do
      local d = differ(runs[1], runs[k], rtol, atol)
      if d then return false, ("output_every %g vs %s: %s"):format(EVERY[1], tostring(EVERY[k] or "default"), d) end
    end
    -- not vacuous: the samplings did differ (101, 501, 5001 samples over 10 s) unless it failed
    if runs[1].ok and not (runs[1].samples < runs[2].samples and runs[2].samples < runs[3].samples) then
      return false, "the samplings did not differ"
    end
    return true
  end
end

local cases = {}
local fourbar = p000.spatial_fourbar()
for _, f in ipairs(FORMULATIONS) do
  for _, ig in ipairs(INTEGRATORS) do
    cases[#cases + 1] = {
      ("spatial four-bar, %s, %s"):format(f, ig),
      function()
        return three(function(every)
          local ok, run = pcall(fourbar.simulate, fourbar, {
            t_end = 10, formulation = f, integrator = ig, rtol = 1e-3, atol = 1e-3, position_tol = 1e-3,
            stabilization = { alpha = 5, beta = 5 }, step = ig == "rk4" and RK4_STEP or nil,
            output_every = every })
          return record(ok, ok and run or nil, run, fourbar)
        end, true)
      end, {}, true, check = same(0, 0) }
  end
end

-- paper 004's systems: the pendulum (holonomic, stabilized) and the disk on the plate
-- (nonholonomic), 10 s at tolerance 1e-8
local systems = { pendulum = { p004.pendulum(), { alpha = 14, beta = 4 } },
                  ["disk and plate"] = { p004.disk_plate(), { gamma = { 0.5, 1.8 } } } }
for _, name in ipairs { "pendulum", "disk and plate" } do
  local s, stab = systems[name][1], systems[name][2]
  for _, ig in ipairs(INTEGRATORS) do
    cases[#cases + 1] = {
      ("system %s, %s"):format(name, ig),
      function()
        return three(function(every)
          local ok, run = pcall(s.simulate, s, { t_end = 10, integrator = ig, rtol = 1e-8, atol = 1e-8,
                                                 stabilization = stab, step = ig == "rk4" and RK4_STEP or nil,
                                                 output_every = every })
          return record(ok, ok and run or nil, run, nil)
        end)
      end, {}, true, check = same(0, 0) }
  end
end

H.run(cases, "recording never steers the integration: every formulation and integrator, three samplings")
