-- Lua-level tests of the relative formulation (DSL "Relative joint coordinates and generated
-- code"): formulation = "relative" with cut, solver and code, m:tree(), every channel of the
-- examples' mechanisms against Cartesian augmented, stop_when, and bad input naming the line.
-- Run with the mbd program (cases: harness.lua).
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

-- the mechanisms of examples/ (the same bodies, joints and forces): paper 000's double pendulum
-- from the reproductions' models, the others built by the examples themselves
local scripts = (debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/../../scripts"
local example_model = dofile(scripts .. "/example_model.lua")
local double_pendulum = dofile(scripts .. "/paper000/models.lua").double_pendulum
local function fourbar() return example_model("fourbar") end
local function slider_crank() return example_model("slider_crank") end

-- examples/spatial_slider_crank.lua, part 2 (free, with the spring): its second model
local function spatial_slider_crank() return example_model("spatial_slider_crank", 2) end

local function spherical_pendulum() return example_model("spherical_pendulum") end

-- examples/spinning_top.lua's top, spun 30 times slower (the reference must be tight: at the
-- example's 300 rad/s a second of motion is 50 turns)
local function spinning_top()
  local mass, l, g, I1, I3, theta, w3 = 0.5, 0.04, 9.81, 2e-4, 3e-4, math.rad(30), 10
  local m = mbd.model { name = "spinning top", dim = 3, gravity = {0, 0, -g} }
  local rot = mbd.rot.axis_angle({1, 0, 0}, theta)
  local e3 = mbd.rot.rotate(rot, {0, 0, 1})
  local W, psidot = 2, w3 - 2 * math.cos(theta)
  local w = {psidot * e3[1], psidot * e3[2], W + psidot * e3[3]}
  local r = {l * e3[1], l * e3[2], l * e3[3]}
  local v = {w[2] * r[3] - w[3] * r[2], w[3] * r[1] - w[1] * r[3], w[1] * r[2] - w[2] * r[1]}
  local top = m:body { name = "top", mass = mass, inertia = {I1, I1, I3}, pos = r, rot = rot,
                       vel = v, omega = w }
  m:spherical { name = "tip", body1 = m.ground, at1 = {0, 0, 0}, body2 = top, at2 = {0, 0, -l} }
  return m
end

-- a branched planar tree of pins, two of them with the parent as body2 (σ = −1), the points off
-- the bodies' axes, gravity askew, a torque, a force and a spring: the recursive solve runs it as
-- the pin sweeps of relative_aba.c (joint-point coordinates)
local function pin_tree()
  local m = mbd.model { name = "pin tree", dim = 2, gravity = {0.3, -9.81} }
  local a = m:body { name = "a", mass = 2, inertia = 0.3, pos = {0.5, 0} }
  local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {1.4, -0.2} }
  local c = m:body { name = "c", mass = 1.5, inertia = 0.2, pos = {0.4, -0.7} }
  local e = m:body { name = "e", mass = 0.7, inertia = 0.05, pos = {2.1, -0.7} }
  m:revolute { name = "j0", body1 = m.ground, at1 = {0, 0}, body2 = a, at2 = {-0.5, 0} }
  m:revolute { name = "j1", body1 = b, at1 = {-0.4, 0.2}, body2 = a, at2 = {0.5, 0} }
  m:revolute { name = "j2", body1 = a, at1 = {0.1, 0.3}, body2 = c, at2 = {0.2, 1.0} }
  m:revolute { name = "j3", body1 = e, at1 = {-0.3, 0.3}, body2 = b, at2 = {0.4, -0.2} }
  m:torque { body = c, value = 2 }
  m:force { body = b, at = {0.3, 0.1}, value = {1, -2} }
  m:spring { name = "k", body1 = e, at1 = {0.2, 0}, body2 = m.ground, at2 = {2, 0}, k = 20,
             length = 0.3 }
  return m
end

-- relative (each solver) against Cartesian augmented, rtol = atol = 1e-12 over 0.5 s.  Each
-- run's global error is ~1e-9 on O(1) positions (the augmented run's drift off its constraints
-- included), so positions, angles and the energy agree within 1e-8 (relative to max(1, |x|)).
-- Velocities are position errors times the mechanisms' rates (the spatial slider-crank's spring
-- and crank: up to ~50 rad/s), 1e-7; reactions come from accelerations, 1e-6.
local function agrees(make, solver, linear_solver)
  return function()
    local m = make()
    local opts = { t_end = 0.5, rtol = 1e-12, atol = 1e-12, position_tol = 1e-12,
                   output_every = 0.05 }
    local ref = m:simulate(opts)
    opts.formulation, opts.solver, opts.linear_solver = "relative", solver, linear_solver
    local run = m:simulate(opts)
    if run.stats.linear_solver ~= linear_solver then
      return false, "ran with linear_solver " .. tostring(run.stats.linear_solver)
    end
    local bound = { pos = 1e-8, vel = 1e-7, force = 1e-6 }
    for _, ch in ipairs(ref.channels) do
      local field = ch:match("%.(%w+)$") or ch
      local kind = (field:match("^f[xyz]$") or field:match("^t[xyz]$") or field == "effort")
                   and "force" or (field:match("^v[xyz]$") or field:match("^w[xyz]$")
                   or field == "omega") and "vel" or "pos"
      if ch ~= "violation" then
        local t, xa = run:series(ch)
        local _, xb = ref:series(ch)
        for i = 1, #t do
          local d = math.abs(xa[i] - xb[i]) / math.max(1, math.abs(xb[i]))
          if not (d <= bound[kind]) then
            return false, string.format("%s at t = %g: %.12g vs %.12g", ch, t[i], xa[i], xb[i])
          end
        end
      end
    end
    return run.formulation == "relative" and #run.channels == #ref.channels,
           "formulation or channels differ"
  end
end

local cases = {}
for _, ex in ipairs {
  {"double pendulum", double_pendulum}, {"four-bar", fourbar}, {"slider-crank", slider_crank},
  {"spatial slider-crank", spatial_slider_crank}, {"spherical pendulum", spherical_pendulum},
  {"spinning top", spinning_top}, {"tree of pins", pin_tree} } do
  for _, solver in ipairs { "baumgarte", "kane" } do
    for _, ls in ipairs { "dense", "recursive" } do
      cases[#cases + 1] = {ex[1] .. ": relative (" .. solver .. ", " .. ls .. ") = augmented",
                           agrees(ex[2], solver, ls), {}, true,
                           check = function(ok, why) return ok, why end}
    end
  end
end

-- m:export_c writes a program that builds with make and prints the joints' coordinates: they
-- must be the numbers of the same run in mbd.  The program repeats the run with the same
-- equations and CVODE settings but its own LU (LAPACK's in mbd): round-off differences that move
-- a few step-size choices (1065 steps against 1056 on the spatial slider-crank) and then carry
-- through the integration.  Measured at rtol = atol = 1e-11 over 0.5 s: 5e-10 rad (four-bar),
-- 8e-9 rad (the spatial slider-crank with its stiff spring); bound 1e-7 rad.
local function exported(make, solver)
  return function()
    local dir = os.tmpname()
    os.remove(dir)
    local m = make()
    m:export_c { dir = dir, t_end = 0.5, rtol = 1e-11, atol = 1e-11, output_every = 0.05,
                 solver = solver }
    local run = m:simulate { t_end = 0.5, rtol = 1e-11, atol = 1e-11, output_every = 0.05,
                             formulation = "relative", solver = solver }
    if not os.execute("make -s -C '" .. dir .. "' >/dev/null 2>&1") then
      return false, "make failed in " .. dir
    end
    local p = io.popen("'" .. dir .. "/model' 2>/dev/null")
    local header = p:read("l")
    local names = {}
    for w in header:gmatch("%S+") do names[#names + 1] = w end
    local worst, where, rows = 0, "", 0
    for line in p:lines() do
      local vals = {}
      for w in line:gmatch("%S+") do vals[#vals + 1] = tonumber(w) end
      for i = 2, #names do
        local d = math.abs(vals[i] - run:value(names[i], vals[1]))
        if d > worst then worst, where = d, names[i] .. " at t = " .. vals[1] end
      end
      rows = rows + 1
    end
    p:close()
    os.execute("rm -rf '" .. dir .. "'")
    if rows ~= 11 or #names < 2 then return false, "rows " .. rows .. ", names " .. #names end
    return worst <= 1e-7, string.format("%.3g at %s", worst, where)
  end
end

-- macro elements: a spatial double pendulum (a ball joint to the ground, a revolute between the
-- links) placed twice, turned and moved, joined by a spring; and the same mechanism written by
-- hand (names "s1_a" for "s1.a")
local pend = mbd.macro { name = "pend", build = function(m, p)
  local a = m:body { name = "a", mass = 1, inertia = {0.1, 0.02, 0.1}, pos = p.at {0.5, 0, 0},
                     rot = p.rotation(), omega = p.dir {0, 0, 1} }
  local b = m:body { name = "b", mass = 2, inertia = {0.2, 0.05, 0.2}, pos = p.at {1.5, 0, 0},
                     rot = p.rotation() }
  m:spherical { name = "O", body1 = m.ground, at1 = p.at {0, 0, 0}, body2 = a, at2 = {-0.5, 0, 0} }
  m:revolute { name = "A", body1 = a, at1 = {0.5, 0, 0}, axis1 = {0, 1, 0}, body2 = b,
               at2 = {-0.5, 0, 0}, axis2 = {0, 1, 0} }
  return { input = a, output = b }
end }
local places = { {name = "s1", origin = {0, 0, 0}, rot = mbd.rot.axis_angle({0, 1, 0}, 0.4)},
                 {name = "s2", origin = {3, 0, 0}, rot = mbd.rot.axis_angle({1, 0, 1}, -0.6)} }
local function pendulums(by_hand)
  local m = mbd.model { name = "pendulums", dim = 3, gravity = {0, 0, -9.81} }
  local ends = {}
  for i, p in ipairs(places) do
    if by_hand then
      local function at(x) local r = mbd.rot.rotate(p.rot, x)
        return {p.origin[1] + r[1], p.origin[2] + r[2], p.origin[3] + r[3]} end
      local a = m:body { name = p.name .. "_a", mass = 1, inertia = {0.1, 0.02, 0.1},
                         pos = at {0.5, 0, 0}, rot = p.rot,
                         omega = mbd.rot.rotate(p.rot, {0, 0, 1}) }
      local b = m:body { name = p.name .. "_b", mass = 2, inertia = {0.2, 0.05, 0.2},
                         pos = at {1.5, 0, 0}, rot = p.rot }
      m:spherical { name = p.name .. "_O", body1 = m.ground, at1 = at {0, 0, 0}, body2 = a,
                    at2 = {-0.5, 0, 0} }
      m:revolute { name = p.name .. "_A", body1 = a, at1 = {0.5, 0, 0}, axis1 = {0, 1, 0},
                   body2 = b, at2 = {-0.5, 0, 0}, axis2 = {0, 1, 0} }
      ends[i] = {a, b}
    else
      local c = pend:add(m, p)
      ends[i] = {c.input, c.output}
    end
  end
  m:spring { name = "k", body1 = ends[1][2], at1 = {0.5, 0, 0}, body2 = ends[2][1],
             at2 = {0, 0, 0}, k = 40, c = 0.5, length = 2 }
  return m
end

-- the macro's run (numeric and on the tape: the shape's equations derived once) against the
-- hand-written one: the same mechanism, whose copies the two scripts place through differently
-- rounded transforms; the spring-coupled pendulums carry that round-off through the integration
-- (rtol 1e-10 over 1 s: measured 4e-9 on a velocity of 0.9 m/s); bound 1e-7 on every channel but
-- the violation and the reactions, 1e-6 on the reactions (acceleration level: measured 1.6e-7 on
-- s2.A.fz with numeric code; kane puts both scripts' reactions within 1e-12 of each other and
-- 1.2e-7 of relative's); a wrong shape, a wrong placement moves them by whole percents
local function same_as_by_hand(code)
  return function()
    local opts = { t_end = 1, rtol = 1e-10, atol = 1e-10, output_every = 0.1,
                   formulation = "relative" }
    local hand = pendulums(true):simulate(opts)
    opts.code = code
    local mac = pendulums(false):simulate(opts)
    for _, ch in ipairs(mac.channels) do
      if ch ~= "violation" then
        local hch = ch:gsub("^(s%d)%.", "%1_")
        local t, x = mac:series(ch)
        local _, y = hand:series(hch)
        for i = 1, #t do
          local tol = ch:match("%.[ft][xyz]$") and 1e-6 or 1e-7
          if not (math.abs(x[i] - y[i]) <= tol * math.max(1, math.abs(y[i]))) then
            return false, string.format("%s at t = %g: %.12g vs %.12g", ch, t[i], x[i], y[i])
          end
        end
      end
    end
    return #mac.channels == #hand.channels and mac.stats.code == code, "channels or code differ"
  end
end

-- the RSCR of paper 002 (scripts/paper002/models.lua) driven through two turns: its kinematic
-- analysis on the joint coordinates against the closed form of its output angle and slide.  The
-- analysis converges each step to position_tol 1e-10; the measured error is 3e-13 rad (bound
-- 1e-10: a wrong joint or tree is off by 1e-2 or more)
local P002 = dofile(scripts .. "/paper002/models.lua")
local function rscr_closed_form(code)
  return function()
    local m, phi0 = P002.rscr_model { drive = mbd.sym.t * 2 * math.pi }
    local k = m:kinematics { t_end = 2, steps = 360, formulation = "relative", code = code }
    local t, phi = k:series("R2.angle")
    local _, slide = k:series("C.displacement")
    local worst, prev = 0, phi0
    for i = 1, #t do
      local want, x = P002.rscr_closed(2 * math.pi * t[i], prev)
      prev = want
      worst = math.max(worst, math.abs(phi[i] - (want - phi0)), math.abs(slide[i] + x))
    end
    return worst <= 1e-10 and #t == 361 and k:value("R1.angle", 2) > 12.56,
           string.format("error %.3g over %d samples", worst, #t)
  end
end

-- paper 002's composite RSSR (four RSSR copies, the first crank driven one turn in 1 s) with the
-- default solver (kane on the joint coordinates) against Cartesian kane, both at rtol = atol =
-- 1e-11, position_tol 1e-12: on the default tree (the driven crank turns fast relative to the
-- first coupler at the start, so s1.S1 is cut and the coupler hangs from its rocker: no
-- re-partition) and on the tree cutting s1.S2 (the coupler from the crank: its Euler parameters
-- turn a whole turn, two re-partitions, each restarting the integrator).  Measured: positions and
-- Euler parameters within 3.4e-11 and 6.1e-11 of each other, linear and angular velocities within
-- 3.5e-10 and 2.3e-9 (rates up to ~40 rad/s times the position error).  Bounds 1e-9 and 1e-7:
-- sixteen and forty times the larger measured, while a wrong tree, partition or restart state is
-- off by 1e-4 or more
local function composite_agrees(cut)
  return function()
  local m = P002.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi })
  local opts = { t_end = 1, rtol = 1e-11, atol = 1e-11, position_tol = 1e-12,
                 output_every = 0.01, formulation = "kane" }
  local ref = m:simulate(opts)
  opts.formulation = "relative"
  opts.cut = cut
  local run = m:simulate(opts)
  local pos, vel = 0, 0
  for _, ch in ipairs(ref.channels) do
    local isp = ch:match("%.[xyz]$") or ch:match("%.e[0-3]$") or ch:match("%.angle$")
    local isv = ch:match("%.v[xyz]$") or ch:match("%.w[xyz]$")
    if isp or isv then
      local t, xb = ref:series(ch)
      local t2, xa = run:series(ch)
      if #t2 ~= #t then
        return false, ch .. ": " .. #t2 .. " samples against " .. #t
      end
      for i = 1, #t do
        local d = math.abs(xa[i] - xb[i])
        if isp then pos = math.max(pos, d) else vel = math.max(vel, d) end
      end
    end
  end
  return run.formulation == "relative" and pos <= 1e-9 and vel <= 1e-7,
         string.format("positions %.3g, velocities %.3g, re-partitions %d", pos, vel,
                       run.stats.repartitions)
  end
end

local more = {
  {"composite RSSR: relative (default kane) = Cartesian kane", composite_agrees(nil), {}, true,
   check = function(ok, why) return ok, why end},
  {"composite RSSR: relative, the tree cutting s1.S2 = Cartesian kane", composite_agrees {"s1.S2"},
   {}, true, check = function(ok, why) return ok, why end},
  {"RSCR kinematics (relative) matches the closed form through two turns",
   rscr_closed_form("numeric"), {}, true, check = function(ok, why) return ok, why end},
  {"RSCR kinematics (relative, tape) matches the closed form through two turns",
   rscr_closed_form("tape"), {}, true, check = function(ok, why) return ok, why end},
  {"macro copies move as the mechanism written by hand (numeric)", same_as_by_hand("numeric"),
   {}, true, check = function(ok, why) return ok, why end},
  {"macro copies move as the mechanism written by hand (tape)", same_as_by_hand("tape"),
   {}, true, check = function(ok, why) return ok, why end},
  {"a copy's objects are named <copy>.<name>", function()
     local m = pendulums(false)
     return {m:find("s1.a") ~= nil, m:find("s2.A") ~= nil, m:find("a") == nil}
   end, {}, true, {true, true, true}},
  -- (the failing calls are not tail calls: Lua drops a tail caller's line)
  {"mbd.macro needs a build function", function() local x = mbd.macro { name = "x" }; return x end,
   {}, false, "mbd.macro: field 'build' expects a function(m, p)"},
  {"mbd.macro refuses unknown fields",
   function() local x = mbd.macro { name = "x", build = print, biuld = 1 }; return x end, {}, false,
   "mbd.macro: unknown field 'biuld'"},
  {"a copy's name has no '.'", function()
     local m = mbd.model { dim = 3 }
     local c = pend:add(m, { name = "a.b" }); return c
   end, {}, false, "macro 'pend': add needs a name without '.'", line = 2},
  {"two copies with one name", function()
     local m = mbd.model { dim = 3 }
     pend:add(m, { name = "s" })
     local c = pend:add(m, { name = "s" }); return c
   end, {}, false, "macro copy 's': a copy of that name exists", line = 3},
  {"an error in build names the build's line", function()
     local bad = mbd.macro { name = "bad", build = function(m, p)
       m:body { name = "x", mass = -1, inertia = {1, 1, 1} }
     end }
     local c = bad:add(mbd.model { dim = 3 }, { name = "c" }); return c
   end, {}, false, "body 'c.x': mass must be positive", line = 2},
  {"export_c of the four-bar (baumgarte) builds and prints mbd's numbers",
   exported(fourbar, "baumgarte"), {}, true, check = function(ok, why) return ok, why end},
  {"export_c of the spatial slider-crank (augmented) builds and prints mbd's numbers",
   exported(spatial_slider_crank, "augmented"), {}, true,
   check = function(ok, why) return ok, why end},
  {"export_c refuses a drive",
   function()
     local m = fourbar()
     m:drive { joint = m:find("O"), position = function(t) return t end }
     return m:export_c { dir = "unused" }
   end, {}, false, "export_c: the drive on joint 'O' is a function the exported program", line = 3},
  {"export_c needs dir", function() return fourbar():export_c {} end, {}, false,
   "export_c: missing field 'dir'"},
  -- the tree of the four-bar: three revolutes, the last declared cut (2 rows), 1 dof
  {"m:tree() of the four-bar", function()
     local t = fourbar():tree()
     return {t:match("cut joints: revolute 'C' %(2 rows%)") ~= nil,
             t:match("coordinates: 3") ~= nil, t:match("degrees of freedom: 1") ~= nil}
   end, {}, true, {true, true, true}},
  {"m:tree{cut} obeys the cut", function()
     local t = fourbar():tree { cut = {"A"} }
     return t:match("cut joints: revolute 'A'") ~= nil
   end, {}, true, true},
  -- the tree's order among joints adding as many coordinates: the composite RSSR's drive turns
  -- the first crank at 2π rad/s, s1.S1 (crank–coupler) turns more than twice as fast as s1.S2
  -- (coupler–rocker) at the start, so s1.S1 is cut, not the last declared (issue 24)
  {"the composite RSSR's tree cuts the fast-turning s1.S1", function()
     local t = P002.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi }):tree()
     return {t:match("cut joints: spherical 's1.S1' %(3 rows%), spherical 's2.S1'") ~= nil,
             t:match("spherical 's1.S2' %-> s1.coupler") ~= nil}
   end, {}, true, {true, true}},
  -- ... and undriven at rest (every speed 0) the declaration order alone: the last declared is cut
  {"the composite RSSR at rest cuts the last declared s1.S2", function()
     local t = P002.composite_rssr(4, {}):tree()
     return t:match("cut joints: spherical 's1.S2' %(3 rows%)") ~= nil
   end, {}, true, true},
  {"the spatial slider-crank cuts its spherical joint", function()
     return spatial_slider_crank():tree():match("cut joints: spherical 'P' %(3 rows%)") ~= nil
   end, {}, true, true},
  -- the spherical pendulum in relative coordinates: four Euler parameters and their norm
  {"a spherical tree joint has four coordinates and a norm", function()
     local t = spherical_pendulum():tree()
     return {t:match("%[pivot.e0 pivot.e1 pivot.e2 pivot.e3%] %+ norm") ~= nil,
             t:match("degrees of freedom: 3") ~= nil}
   end, {}, true, {true, true}},
  -- stop_when reads the Cartesian channels of a relative run: the root is found to the
  -- trajectory's error (1e-10 s at rtol 1e-12, as test_stop_when.lua's kane case)
  {"stop_when with relative coordinates", function()
     local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
     local th = -math.pi / 2 + 1.2
     local rod = m:body { name = "rod", mass = 1.5, inertia = 1.5 * 1.44 / 12,
                          pos = {0.6 * math.cos(th), 0.6 * math.sin(th)}, angle = th }
     m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
     local opts = { t_end = 2, rtol = 1e-12, atol = 1e-12, output_every = 0.01,
                    stop_when = function(t, s) return s:get("rod.theta") + math.pi / 2 end }
     local a = m:simulate(opts)
     opts.formulation = "relative"
     local b = m:simulate(opts)
     return b.stop_time - a.stop_time
   end, {}, true, 0, tol = 1e-10},
  -- bad input, named at the user's line
  {"an unknown cut joint",
   function() return fourbar():simulate { t_end = 1, formulation = "relative", cut = {"X"} } end,
   {}, false, "simulate: cut joint 'X' is not a joint of model 'four-bar'"},
  {"cut must be a list of names",
   function() return fourbar():simulate { t_end = 1, formulation = "relative", cut = "C" } end,
   {}, false, "simulate: field 'cut' expects a list of joint names, got string"},
  {"an unknown solver",
   function() return fourbar():simulate { t_end = 1, formulation = "relative", solver = "x" } end,
   {}, false, "simulate: unknown solver 'x' (augmented, baumgarte, gcp, kane)"},
  {"solver without formulation relative",
   function() return fourbar():simulate { t_end = 1, formulation = "kane", solver = "kane" } end,
   {}, false, "simulate: fields cut and solver are for formulation 'relative'"},
  {"an unknown code",
   function() return fourbar():simulate { t_end = 1, formulation = "relative", code = "x" } end,
   {}, false, "simulate: unknown code 'x' (numeric, tape, compiled)"},
  {"m:tree with an unknown cut",
   function() return fourbar():tree { cut = {"X"} } end,
   {}, false, "relative: cut joint 'X' is not a joint of model 'four-bar'"},
  -- linear_solver: the recursive solve chosen by size (auto), asked for, reported
  {"linear_solver: auto takes dense for the four-bar, recursive for a 12-link chain", function()
     local a = fourbar():simulate { t_end = 0.1, formulation = "relative" }
     local m = mbd.model { name = "chain", dim = 2, gravity = {0, -9.81} }
     local prev, at = m.ground, {0, 0}
     for i = 1, 12 do
       local b = m:body { name = "l" .. i, mass = 1, inertia = 0.1, pos = {i - 0.5, 0} }
       m:revolute { name = "j" .. i, body1 = prev, at1 = at, body2 = b, at2 = {-0.5, 0} }
       prev, at = b, {0.5, 0}
     end
     local b = m:simulate { t_end = 0.1, formulation = "relative" }
     local c = m:simulate { t_end = 0.1, formulation = "relative", linear_solver = "dense" }
     local k = m:simulate { t_end = 0.1, formulation = "kane" }
     return {a.stats.linear_solver, b.stats.linear_solver, c.stats.linear_solver,
             k.stats.linear_solver == "sparse",   -- (kane, Cartesian: auto is sparse there)
             tostring(b):match("relative %+ adams %(recursive%)") ~= nil,
             tostring(c):match("%(recursive%)") == nil}
   end, {}, true, {"dense", "recursive", "dense", true, true, true}},
  -- a recursive tree of Euler-parameter norms past 300 coordinates keeps them out of the dense Φq
  -- (tree_impl.h: norms_implicit): the recursion reads them from q, the partition (kane, the
  -- default) writes them once it asks for the dense algebra; the same motion as the dense solve
  {"80 rods on spherical joints: recursive augmented, recursive kane, dense kane agree", function()
     local m = mbd.model { name = "rods", dim = 3, gravity = {0, 0, -9.81} }
     local a = 0.3
     local dir = {math.sin(a), 0, -math.cos(a)}
     local rot = mbd.rot.from_axes(dir, {0, 1, 0})
     local prev, at = m.ground, {0, 0, 0}
     for i = 1, 80 do
       local c = i - 0.5
       local b = m:body { name = "l" .. i, mass = 1, inertia = {0.001, 1 / 12, 1 / 12}, rot = rot,
                          pos = {c * dir[1], c * dir[2], c * dir[3]}, vel = {0, 0.5 * c, 0} }
       m:spherical { name = "j" .. i, body1 = prev, at1 = at, body2 = b, at2 = {-0.5, 0, 0} }
       prev, at = b, {0.5, 0, 0}
     end
     local o = { t_end = 0.005, integrator = "rk4", step = 2.5e-4, output_every = 0.005,
                 formulation = "relative" }
     local function tip(extra)
       local oo = {}
       for k, v in pairs(o) do oo[k] = v end
       for k, v in pairs(extra) do oo[k] = v end
       local r = m:simulate(oo)
       return {r:value("l80.x", 0.005), r:value("l80.y", 0.005), r:value("l80.z", 0.005)}
     end
     local ra = tip { linear_solver = "recursive", solver = "augmented" }
     local rk = tip { linear_solver = "recursive" }
     local dk = tip { linear_solver = "dense" }
     local e1, e2 = 0, 0
     for i = 1, 3 do
       e1 = math.max(e1, math.abs(ra[i] - dk[i]))
       e2 = math.max(e2, math.abs(rk[i] - dk[i]))
     end
     return {e1 < 1e-8, e2 < 1e-8}
   end, {}, true, {true, true}},
  {"an unknown linear_solver",
   function() return fourbar():simulate { t_end = 1, formulation = "relative",
                                          linear_solver = "x" } end,
   {}, false, "simulate: unknown linear_solver 'x' (auto, dense, sparse, recursive)"},
  {"linear_solver recursive without formulation relative",
   function() return fourbar():simulate { t_end = 1, formulation = "kane",
                                          linear_solver = "recursive" } end,
   {}, false, "simulate: linear_solver 'recursive' is for formulation 'relative'"},
  {"linear_solver recursive needs code numeric",
   function() return fourbar():simulate { t_end = 1, formulation = "relative", code = "tape",
                                          linear_solver = "recursive" } end,
   {}, false, "simulate: linear_solver 'recursive' runs on code 'numeric'"},
  {"relative does not solve sparse",
   function() return fourbar():simulate { t_end = 1, formulation = "relative",
                                          linear_solver = "sparse" } end,
   {}, false, "simulate: formulation 'relative' solves with linear_solver 'dense' or 'recursive'"},
}
for _, c in ipairs(more) do cases[#cases + 1] = c end

H.run(cases, "relative")
