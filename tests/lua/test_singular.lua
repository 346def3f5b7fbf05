-- Lua-level tests: singular configurations.  A chain of four parallelogram windows
-- (singular_chain.lua) passes its flat configuration 13 times in 10 s; every formulation must
-- follow the independent one-coordinate solution through every pass, conserve energy and stay on
-- the parallelogram branch — on every OpenBLAS kernel (the branch may not hang on round-off).
-- augmented and baumgarte pass in the independent coordinates of a partition (run.stats.
-- singular_passages); a mechanism locked at a constructed singular pose stops with a message
-- decided with a margin; a tolerance tighter than rounding allows there stops with a message
-- instead of creeping for hours.
-- Run with the mbd program:  mbd tests/lua/test_singular.lua   (cases: see harness.lua)
local dir = arg[0]:match("^(.*)[/\\]") or "."
local H = dofile(dir .. "/harness.lua")
local C = dofile(dir .. "/singular_chain.lua")

local N = 4
-- rtol = atol = 1e-8, position_tol = 1e-10: two decades above the tolerance where rounding at the
-- flat configuration stops every formulation (1e-10: "the integration stalled"), so that passing
-- does not hang on the kernel's round-off
local function run(f, opts)
  local m = C.build(N)
  local o = { t_end = 10, formulation = f, rtol = 1e-8, atol = 1e-8, position_tol = 1e-10,
              output_every = 0.05 }
  for k, v in pairs(opts or {}) do o[k] = v end
  return m:simulate(o)
end

-- one formulation through the 13 passes: θ0 against the one-coordinate reference, the spread of
-- the crank angles (0 on the parallelogram branch; the other branches at the flat configuration
-- differ by π), the energy drift (E0 = 50.755 J), the number of passes.  Measured at rtol 1e-8
-- under the Haswell, Sandybridge, Nehalem and Prescott kernels (largest of the four): θ0 error
-- 1.7e-5 (kane, gcp), 6.6e-5 (udwadia_kalaba), 6.5e-6 (augmented), 4.6e-5 (baumgarte); spread
-- 2.1e-9; energy drift 1.7e-4 J (udwadia_kalaba).  Bounds of ten times that, far below what a
-- lost branch or a jump at a pass gives (1 rad, 1 J: the defects this test guards against)
local function passes(f, opts)
  local r = run(f, opts)
  local err, spread, drift, n = C.measure(r, N)
  return { err < 7e-4, spread < 3e-8, drift < 2e-3, n }
end

local cases = {}
for _, f in ipairs { "kane", "gcp", "udwadia_kalaba", "augmented", "baumgarte" } do
  cases[#cases + 1] = { f .. " passes every flat configuration", passes,
                        { f, { stabilization = { alpha = 5, beta = 5 } } }, true, { true, true, true, 13 } }
end
-- relative coordinates with its defaults (kane on the joint coordinates, the recursive solve: 13
-- bodies): measured θ0 error 4.5e-5, spread 3.5e-9, drift 9.9e-5 J on the four kernels; the
-- bounds above
cases[#cases + 1] = { "relative passes every flat configuration", function()
  local err, spread, drift, n = C.measure(run("relative"), N)
  return { err < 7e-4, spread < 3e-8, drift < 2e-3, n }
end, {}, true, { true, true, true, 13 } }
-- and with the paper's baumgarte gains α = 199.94, β = 282.8 (the default before issue 24).  Its
-- stiff gains cost accuracy: measured θ0 error 4.3e-4, drift 3.2e-3 J; bounds ten times that
cases[#cases + 1] = { "relative with the paper's gains passes every flat configuration", function()
  local err, spread, drift, n = C.measure(run("relative", { solver = "baumgarte" }), N)
  return { err < 5e-3, spread < 3e-8, drift < 4e-2, n }
end, {}, true, { true, true, true, 13 } }
-- and with gcp on the joint coordinates (dense): measured 2.0e-5 rad, 4.9e-5 J
cases[#cases + 1] = { "relative with gcp passes every flat configuration", function()
  local err, spread, drift, n = C.measure(run("relative", { solver = "gcp", linear_solver = "dense" }), N)
  return { err < 7e-4, spread < 3e-8, drift < 2e-3, n }
end, {}, true, { true, true, true, 13 } }
-- augmented and baumgarte make one passage per flat configuration
cases[#cases + 1] = { "augmented and baumgarte pass in partitioned coordinates", function()
  return { run("augmented").stats.singular_passages, run("baumgarte").stats.singular_passages }
end, {}, true, { 13, 13 } }
-- the sampling does not steer the integration: the same trajectory with output_every 0.1
cases[#cases + 1] = { "kane: output_every does not change the motion", function()
  return run("kane", { output_every = 0.1 }):value("c0.theta", 10) - run("kane"):value("c0.theta", 10)
end, {}, true, 0, tol = 0 }
cases[#cases + 1] = { "augmented: output_every does not change the motion", function()
  return run("augmented", { output_every = 0.1 }):value("c0.theta", 10) - run("augmented"):value("c0.theta", 10)
end, {}, true, 0, tol = 0 }
-- with stabilization, filtered along vanishing singular values, udwadia_kalaba passes too
cases[#cases + 1] = { "udwadia_kalaba with stabilization", function()
  local err, spread, drift = C.measure(run("udwadia_kalaba", { stabilization = { alpha = 10, beta = 100 } }), N)
  return { err < 7e-4, spread < 3e-8, drift < 2e-3 }   -- bounds as above
end, {}, true, { true, true, true } }

-- paper 000's four-bar, case I* (scripts/paper000/example2_fourbar.lua): a parallelogram swung
-- through its flat configuration six times in 10 s.  Every formulation on its branch: the
-- coupler translates (its angle moves by round-off only: measured below 1e-9 rad, where the other
-- branch turns it by radians), the lowest y2 is the independent one-coordinate model's -0.8831 m
-- (1e-3 m: the sampling's reach at the bottom), and y2 crosses 0 six times.  Relative
-- coordinates (their default, kane on the joint coordinates) make the coupler's angle the sum of
-- the crank's and the joint A's, the dependent one found by Newton on the cut joint's rows to
-- position_tol = 1e-10, which the flat configuration's weak direction amplifies: measured 2.1e-9
-- (Prescott) to 1.06e-8 (Haswell, Nehalem, Sandybridge); its bound 1e-6, a hundred times that and
-- still a million times below the other branch's turn
local P000 = dofile(dir .. "/../../scripts/paper000/models.lua")
for _, f in ipairs { "kane", "gcp", "udwadia_kalaba", "augmented", "baumgarte", "relative" } do
  local still = f == "relative" and 1e-6 or 1e-8
  cases[#cases + 1] = { f .. " passes the four-bar's singular configurations (paper 000, case I*)",
    function()
      local r = P000.fourbar(2.0, 1.047, -2):simulate { t_end = 10, formulation = f, rtol = 1e-8,
        atol = 1e-8, position_tol = 1e-10, stabilization = { alpha = 5, beta = 5 }, output_every = 0.01 }
      local t, y = r:series("link2.y")
      local _, th = r:series("link2.theta")
      local low, turn, crossings = math.huge, 0, 0
      for i = 1, #t do
        low = math.min(low, y[i])
        turn = math.max(turn, math.abs(th[i] - th[1]))
        if i > 1 and (y[i - 1] > 0) ~= (y[i] > 0) then crossings = crossings + 1 end
      end
      return { math.abs(low + 0.8831) < 1e-3, turn < still, crossings }
    end, {}, true, { true, true, 6 } }
end

-- A single window flat on its ground line (θ = 0), constructed at the singular pose: the two
-- branches cross there, the parallelogram's (cranks turning together, the coupler translating)
-- and the other one (the first crank at rest, the second crank and the coupler turning about
-- their common point).  Velocities along one branch pass; along both at once no motion meets the
-- constraints' second derivative (Φq has lost a rank and the acceleration equations miss by
-- O(1) of their scale, against a drift of O(rtol) on a passage): the run stops at once, naming
-- the mechanism as locked.  The margin (singular.c: 1e-3 of the equations' scale) is many
-- orders from both.
local function flat(w1, w2)
  local m = mbd.model { name = "flat window", dim = 2 }
  local I = 1 / 12
  local c0 = m:body { name = "c0", mass = 1, inertia = I, pos = {0.5, 0}, angle = 0,
                      vel = {0, 0.5 * w1}, omega = w1 }
  local c1 = m:body { name = "c1", mass = 1, inertia = I, pos = {1.5, 0}, angle = 0,
                      vel = {0, 0.5 * w1 + 0.5 * w2}, omega = w1 + w2 }
  local k = m:body { name = "k", mass = 1, inertia = I, pos = {1.5, 0}, angle = 0,
                     vel = {0, w1 + 0.5 * w2}, omega = w2 }
  m:revolute { name = "O0", body1 = m.ground, at1 = {0, 0}, body2 = c0, at2 = {-0.5, 0} }
  m:revolute { name = "O1", body1 = m.ground, at1 = {1, 0}, body2 = c1, at2 = {-0.5, 0} }
  m:revolute { name = "A", body1 = c0, at1 = {0.5, 0}, body2 = k, at2 = {-0.5, 0} }
  m:revolute { name = "B", body1 = c1, at1 = {0.5, 0}, body2 = k, at2 = {0.5, 0} }
  return m
end
-- (assembly keeps every row: they are dependent at the pose, not along the motion — a
-- redundant row would be removed: test_model.c's rank tests)
for _, f in ipairs { "augmented", "baumgarte" } do
  cases[#cases + 1] = { f .. ": a window locked at its flat pose stops", function()
    flat(1, 1):simulate { t_end = 0.1, formulation = f }
  end, {}, false, "the mechanism locks at t = 0", line = false }
  -- the same pose moving along the parallelogram branch alone goes on, the coupler translating:
  -- 1 s at 1 rad/s turns the cranks through 1 rad (no force; measured 1 + 3e-10, 1 + 1e-8;
  -- bound: the run's tolerance 1e-8 over 1 s, a hundred times)
  cases[#cases + 1] = { f .. ": the flat pose moving along one branch goes on", function()
    local r = flat(1, 0):simulate { t_end = 1, formulation = f, rtol = 1e-8, atol = 1e-8 }
    return { r:value("c0.theta", 1), r:value("c1.theta", 1), r:value("k.theta", 1) }
  end, {}, true, { 1, 1, 0 }, tol = 1e-6 }
end
-- partitioning needs a regular Jacobian to start from: gcp and kane say so
cases[#cases + 1] = { "gcp cannot start at a singular configuration", function()
  flat(1, 0):simulate { t_end = 0.1, formulation = "gcp" }
end, {}, false, "partitioning at t = 0: the constraint Jacobian has rank 7 < 8", line = false }

-- a tolerance below what rounding allows at the flat configuration: a stop, not hours (measured:
-- every formulation stalls at the first passage from rtol = 1e-10 on, on every kernel)
cases[#cases + 1] = { "a stalled integration stops with a message", function()
  local m = C.build(N)
  m:simulate { t_end = 1, formulation = "kane", rtol = 1e-12, atol = 1e-12, position_tol = 1e-12 }
end, {}, false, "the integration stalled at t = 0.28", line = false }

H.run(cases, "singular")
