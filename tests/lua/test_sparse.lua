-- Lua-level tests of the linear solver of the Cartesian formulations (simulate's linear_solver):
-- the option and its refusals, run.stats.linear_solver and print(run), the automatic choice, and
-- dense and sparse runs agreeing where the sparse form steps aside for a moment (contact events)
-- or reaches through pose Jacobians (flexible bodies' nodes), and near singular configurations.
--   mbd tests/lua/test_sparse.lua          (cases: see harness.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/harness.lua")
local C = dofile(here .. "/singular_chain.lua")
local robot = dofile(here .. "/../../scripts/paper003/models.lua")

-- a planar chain of n links hanging from the origin, released 0.3 rad from the vertical
local function chain(n)
  local m = mbd.model { name = n .. "-link chain", dim = 2, gravity = {0, -9.81} }
  local a, prev, x, y, at = -math.pi / 2 + 0.3, m.ground, 0, 0, {0, 0}
  for i = 1, n do
    local b = m:body { name = "l" .. i, mass = 1, inertia = 1 / 12,
                       pos = {x + 0.5 * math.cos(a), y + 0.5 * math.sin(a)}, angle = a }
    m:revolute { name = "j" .. i, body1 = prev, at1 = at, body2 = b, at2 = {-0.5, 0} }
    x, y, prev, at = x + math.cos(a), y + math.sin(a), b, {0.5, 0}
  end
  return m
end

-- paper 001's disk on a line: it slips, then rolls from t = 0.31 s (an event: the rolling row
-- becomes active)
local function disk()
  local m = mbd.model { name = "disk", dim = 2, gravity = {0, -9.81} }
  local d = m:body { name = "disk", mass = 3, inertia = 2, pos = {0, 0.2}, vel = {10, 0}, omega = -60 }
  m:force { body = d, at = {0, 0}, value = {10, 0} }
  local floor = m:surface { name = "floor", body = m.ground, shape = "line", at = {0, 0},
                            direction = {1, 0} }
  local rim = m:surface { name = "rim", body = d, shape = "circle", radius = 0.2 }
  m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35 }
  return m
end

-- the largest difference of the two runs' channels (those listed) at their last sample
local function differ(a, b, channels)
  local worst = 0
  for _, ch in ipairs(channels) do
    worst = math.max(worst, math.abs(a:value(ch, a.t_end) - b:value(ch, b.t_end)))
  end
  return worst
end

local function both(m, opts, channels)
  local r = {}
  for _, ls in ipairs { "dense", "sparse" } do
    local o = { linear_solver = ls }
    for k, v in pairs(opts) do o[k] = v end
    r[ls] = m:simulate(o)
  end
  return r.dense, r.sparse, differ(r.dense, r.sparse, channels)
end

local cases = {
  -- the option
  {"an unknown linear solver", function() chain(2):simulate { t_end = 0.1, linear_solver = "banded" } end,
   {}, false, "simulate: unknown linear_solver 'banded' (auto, dense, sparse, recursive)"},
  {"linear_solver expects a string", function() chain(2):simulate { t_end = 0.1, linear_solver = 1 } end,
   {}, false, "linear_solver"},
  -- the automatic choice and what the run reports
  {"auto: a double pendulum runs dense, a 12-link chain sparse", function()
     local a = chain(2):simulate { t_end = 0.2, formulation = "augmented" }
     local b = chain(12):simulate { t_end = 0.2, formulation = "augmented" }
     return { a.stats.linear_solver, b.stats.linear_solver, b.stats.symbolic_analyses,
              tostring(a):match("%(sparse%)") == nil, tostring(b):match("^mbd.Run augmented %+ adams %(sparse%)") ~= nil }
   end, {}, true, { "dense", "sparse", 1, true, true }},
  {"the override both ways", function()
     local a = chain(2):simulate { t_end = 0.2, linear_solver = "sparse", formulation = "kane" }
     local b = chain(12):simulate { t_end = 0.2, linear_solver = "dense", formulation = "gcp" }
     return { a.stats.linear_solver, b.stats.linear_solver }
   end, {}, true, { "sparse", "dense" }},
  -- where the sparse solve is not written: refused with the reason
  {"udwadia_kalaba with a contact refuses sparse", function()
     disk():simulate { t_end = 0.1, formulation = "udwadia_kalaba", linear_solver = "sparse" } end,
   {}, false, "linear_solver 'sparse' is not written for formulation udwadia_kalaba", line = 1},
  {"relative refuses sparse", function()
     chain(12):simulate { t_end = 0.1, formulation = "relative", linear_solver = "sparse" } end,
   {}, false, "formulation 'relative' solves with linear_solver 'dense' or 'recursive', not 'sparse'", line = 1},
  {"gcp with a contact refuses sparse", function()
     disk():simulate { t_end = 0.1, formulation = "gcp", linear_solver = "sparse" } end,
   {}, false, "formulation gcp on model 'disk' with contacts or joint friction", line = 1},
  {"auto where sparse is not written: dense", function()
     return disk():simulate { t_end = 0.1, formulation = "kane" }.stats.linear_solver
   end, {}, true, "dense"},
  -- a contact's switch (the rolling row becomes active at 0.31 s): the sparse form steps aside for
  -- the event and analyses the new rows after it; the same event time and state (measured: equal
  -- to the last bit, the leading matrix being 4×4, then 5×5; the bounds of 1e-9 allow for other
  -- pivot orders, far below the tolerance's own error)
  {"a contact event: dense and sparse agree", function()
     local d, s, diff = both(disk(), { t_end = 0.6, formulation = "augmented", rtol = 1e-10, atol = 1e-10,
                                       position_tol = 1e-12, output_every = 0.6 },
                             { "disk.x", "disk.vx", "disk.theta", "disk.omega", "c.normal" })
     return { #d.events, #s.events, math.abs(d.events[1].t - s.events[1].t) < 1e-9, diff < 1e-9,
              s.stats.linear_solver, s.stats.symbolic_analyses }
   end, {}, true, { 1, 1, true, true, "sparse", 2 }},
  -- flexible bodies: the rows of a joint on a node reach its arm's whole block (the pose
  -- Jacobian), the arm's block of M is full.  Measured: 3e-15 apart after 1 s; bound 1e-9 as above
  {"a flexible robot: dense and sparse agree", function()
     local m = robot.robot { arms = "lumped" }
     local _, s, diff = both(m, { t_end = 1, formulation = "augmented", rtol = 1e-8, atol = 1e-8,
                                  output_every = 1 },
                             { "payload.x", "payload.y", "payload.z", "arm2.a1", "arm3.a2" })
     return { diff < 1e-9, s.stats.linear_solver }
   end, {}, true, { true, "sparse" }},
  -- singular configurations (the parallelogram chain of test_singular.lua, its flat configuration
  -- at t = 0.28 s and 0.85 s): with the sparse solve augmented passes them in partitioned
  -- coordinates as with the dense one, and gcp passes all 13 configurations on its branch (its
  -- Gauss's principle dense).  Bounds of test_singular.lua (measured here, rtol 1e-9: augmented
  -- 1.6e-7, 3e-11, 1e-6; gcp 1.8e-6, 2e-10, 4e-6)
  {"sparse augmented passes every flat configuration", function()
     local r = C.build(4):simulate { t_end = 10, formulation = "augmented", rtol = 1e-9, atol = 1e-9,
                                     position_tol = 1e-10, output_every = 0.05, linear_solver = "sparse" }
     local err, spread, drift, n = C.measure(r, 4)
     return { err < 7e-4, spread < 3e-8, drift < 2e-3, n, r.stats.singular_passages, r.stats.linear_solver }
   end, {}, true, { true, true, true, 13, 13, "sparse" }},
  {"sparse gcp passes every flat configuration", function()
     local r = C.build(4):simulate { t_end = 10, formulation = "gcp", rtol = 1e-9, atol = 1e-9,
                                     position_tol = 1e-10, output_every = 0.05, linear_solver = "sparse" }
     local err, spread, drift, n = C.measure(r, 4)
     -- bounds of test_singular.lua (measured here 1.8e-6, 2e-10, 4e-6)
     return { err < 7e-4, spread < 3e-8, drift < 2e-3, n, r.stats.linear_solver }
   end, {}, true, { true, true, true, 13, "sparse" }},
  -- udwadia_kalaba: its sparse form (the leading matrix's LU, the SVD only nearer singular than
  -- 1e-6) through the 13 flat configurations, against its dense SVD form on the same model: on
  -- the branch within test_singular.lua's bounds, and θ0 of the two within 1e-6 rad of each other
  -- at every sample (measured 7.7e-8 with equal evaluation counts: each evaluation's v̇ agrees to
  -- 1e-12 relative and the integration at rtol 1e-8 carries it; a lost branch or a jump at a pass
  -- is 1 rad)
  {"sparse udwadia_kalaba passes every flat configuration as the dense one", function()
     local o = { t_end = 10, formulation = "udwadia_kalaba", rtol = 1e-8, atol = 1e-8,
                 position_tol = 1e-10, output_every = 0.05 }
     o.linear_solver = "sparse"
     local s = C.build(4):simulate(o)
     o.linear_solver = "dense"
     local d = C.build(4):simulate(o)
     local t, ts = s:series("c0.theta")
     local _, td = d:series("c0.theta")
     local diff = 0
     for i = 1, #t do diff = math.max(diff, math.abs(ts[i] - td[i])) end
     local err, spread, drift, n = C.measure(s, 4)
     print(string.format("  dense vs sparse udwadia_kalaba: max |Δθ0| %.2e, nfev %d / %d", diff,
                         s.stats.nfev, d.stats.nfev))
     return { err < 7e-4, spread < 3e-8, drift < 2e-3, n, diff < 1e-6, s.stats.linear_solver,
              d.stats.linear_solver }
   end, {}, true, { true, true, true, 13, true, "sparse", "dense" }},
  -- a model past 400 coordinates and rows is assembled in the sparse form, and its rank test
  -- settles an open chain by a bound from each row's neighbours (assemble.c, rank_local): every
  -- row kept, as the Gram–Schmidt test keeps them
  {"a large open chain keeps every row", function()
     local i = chain(200):info()
     return { i.constraints, i.rank, i.dof, i.redundant }
   end, {}, true, { 400, 400, 200, 0 }},
  -- a joint declared twice, last: the bound fails on its rows (they repeat j1's), the test runs
  -- and names the copy
  {"a large chain's duplicated joint is named", function()
     local m = chain(200)
     m:revolute { name = "j1b", body1 = m.ground, at1 = {0, 0}, body2 = m:find("l1"),
                  at2 = {-0.5, 0} }
     local i = m:info()
     return { i.constraints, i.rank, i.redundant, i.warnings[1] }
   end, {}, true, { 402, 400, 2, "revolute 'j1b' (equation 1) is redundant (rank test of the "
                                    .. "constraint Jacobian): removed" }},
  -- the recursive solve keeps the Cartesian rows sparse at its samples (no rows × coordinates
  -- array): the reactions and violations there agree with the dense solve on joint coordinates
  -- (the same equations integrated two ways at rtol 1e-10: 1e-9 of j1's 1346 N, seen 4.1e-8 N;
  -- the violations are round-off, below 1e-12 m and m/s: seen 2.8e-14, 1.4e-17)
  {"the recursive run's samples from sparse rows", function()
     local m = chain(150)
     local function run(ls)
       return m:simulate { t_end = 0.05, formulation = "relative", linear_solver = ls,
                           output_every = 0.025, rtol = 1e-10, atol = 1e-10 }
     end
     local rec, dense = run("recursive"), run("dense")
     local e = 0
     for _, ch in ipairs { "j1.fx", "j1.fy", "j75.fx", "j150.fy" } do
       e = math.max(e, math.abs(rec:value(ch, 0.05) - dense:value(ch, 0.05)))
     end
     return { rec.stats.linear_solver, e < 1e-9 * 1346, rec.stats.max_position_violation < 1e-12,
              rec.stats.max_velocity_violation < 1e-12 }
   end, {}, true, { "recursive", true, true, true }},
}

H.run(cases, "sparse")
