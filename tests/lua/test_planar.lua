-- Lua-level tests of the planar DSL (DSL.md "Models, bodies, joints", "Forces", "Running"):
-- every name works as written and gives real numbers checked against closed forms, and every bad
-- input raises one clear message naming the object and the line of the user's call.
-- Run with the mbd program:  mbd tests/lua/test_planar.lua   (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

local pi, sin, cos, sqrt, exp = math.pi, math.sin, math.cos, math.sqrt, math.exp
local tmp = os.tmpname()  -- a scratch name; files below are tmp .. ".csv" etc.
os.remove(tmp)

-- a rod pinned at one end to the ground at the origin, hanging at angle th (CM at d from the pin)
local function pendulum(th, gravity)
  local m = mbd.model { name = "pendulum", gravity = gravity or {0, -9.81} }
  local rod = m:body { name = "rod", mass = 1.5, inertia = 0.18, pos = {0.6 * cos(th), 0.6 * sin(th)},
                       angle = th }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
  return m, rod, O
end

-- paper 000 example 1: torque 10 N·m on link 1, force (8, 7) N at link 2's free end, no gravity
local function paper000()
  local t1, t2 = 0.5236, 0.7854
  local m = mbd.model { name = "double pendulum" }
  local l1 = m:body { name = "link1", mass = 5, inertia = 10, pos = {cos(t1), sin(t1)}, angle = t1 }
  local l2 = m:body { name = "link2", mass = 7, inertia = 20,
                      pos = {2 * cos(t1) + cos(t2), 2 * sin(t1) + sin(t2)}, angle = t2 }
  m:revolute { name = "A", body1 = m.ground, at1 = {0, 0}, body2 = l1, at2 = {-1, 0} }
  m:revolute { name = "B", body1 = l1, at1 = {1, 0}, body2 = l2, at2 = {-1, 0} }
  m:torque { body = l1, value = 10 }
  m:force { body = l2, at = {1, 0}, value = {8, 7} }
  return m
end
-- θ2(10 s) of that model from an independent minimal-coordinate RK4 integration (h = 1e-3,
-- tests/engine/test_model.c): every formulation must reproduce it
local THETA2_10 = 0.342850804

-- a free body released at (1, 2), angle 0.3, with velocity (1, 5) and ω = 2 under gravity
local function free_body()
  local m = mbd.model { name = "free", gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 2, inertia = 0.1, pos = {1, 2}, angle = 0.3, vel = {1, 5},
                     omega = 2 }
  return m, b
end

-- slider-crank r = 0.15, l = 0.5 driven at ω = 2π from θ0 = 0.3; x(θ) = r cos θ + √(l² − r² sin² θ)
local R, L, TH0, W = 0.15, 0.5, 0.3, 2 * pi
local function slider_x(th) return R * cos(th) + sqrt(L * L - R * R * sin(th) ^ 2) end
local function slider_crank(position)
  local m = mbd.model { name = "slider crank" }
  local A = {R * cos(TH0), R * sin(TH0)}
  local x = slider_x(TH0)
  local crank = m:body { name = "crank", mass = 2, inertia = 0.015, pos = {A[1] / 2, A[2] / 2},
                         angle = TH0 }
  local rod = m:body { name = "rod", mass = 3, inertia = 0.07, pos = {(A[1] + x) / 2, A[2] / 2},
                       angle = math.atan(-A[2], x - A[1]) }
  local slider = m:body { name = "slider", mass = 4, inertia = 0.01, pos = {x, 0} }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-R / 2, 0} }
  m:revolute { name = "A", body1 = crank, at1 = {R / 2, 0}, body2 = rod, at2 = {-L / 2, 0} }
  m:revolute { name = "B", body1 = rod, at1 = {L / 2, 0}, body2 = slider, at2 = {0, 0} }
  m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0},
                    axis1 = {1, 0} }
  m:drive { joint = O, position = position or function(t) return TH0 + W * t end }
  return m, slider
end

-- read a CSV file into a header list and rows of numbers
local function read_csv(file)
  local f = assert(io.open(file))
  local header, rows = nil, {}
  for line in f:lines() do
    if line:sub(1, 1) == "#" then goto continue end  -- the run's manifest, above the header
    local fields = {}
    for v in line:gmatch("[^,]+") do fields[#fields + 1] = v end
    if not header then header = fields else
      for i, v in ipairs(fields) do fields[i] = tonumber(v) end
      rows[#rows + 1] = fields
    end
    ::continue::
  end
  f:close()
  return header, rows
end

local function file_size(file)
  local f = io.open(file, "rb")
  if not f then return 0 end
  local n = f:seek("end")
  f:close()
  return n
end

-- a model with a force function that fails mid-run (shared by two cases below)
local failing = mbd.model { name = "failing", gravity = {0, -9.81} }
local fb = failing:body { name = "b", mass = 1, inertia = 0.1, vel = {0, 3} }
failing:force { body = fb, at = {0, 0}, value = function(t, s)
  if t > 0.5 then error("sensor lost") end
  return {0, -0.1 * s:get("b.y")}
end }

local cases = {
  -- models, bodies, joints: names and fields as written in DSL.md
  {"model fields", function()
     local m = mbd.model { name = "slider crank", dim = 2, gravity = {0, -9.81} }
     return {m.name, m.dim, m.ground.name, m.ground.index}
   end, {}, true, {"slider crank", 2, "ground", 0}},
  {"body fields", function()
     local m = mbd.model {}
     local b = m:body { name = "crank", mass = 2, inertia = 0.015, pos = {0.106, 0.106},
                        angle = pi / 4, vel = {0, 0}, omega = 0 }
     return {b.name, b.index, tostring(m.crank) == tostring(b)}
   end, {}, true, {"crank", 1, true}},
  {"joint types", function()
     local m = mbd.model {}
     local a = m:body { name = "a", mass = 1, inertia = 1, pos = {1, 0} }
     local b = m:body { name = "b", mass = 1, inertia = 1, pos = {2, 0} }
     local c = m:body { name = "c", mass = 1, inertia = 1, pos = {3, 0} }
     local r = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = a, at2 = {-1, 0} }
     local t = m:translational { name = "s", body1 = a, at1 = {0, 0}, body2 = b, at2 = {-1, 0},
                                 axis1 = {1, 0} }
     local f = m:fixed { name = "w", body1 = b, at1 = {0.5, 0}, body2 = c, at2 = {-0.5, 0} }
     local info = m:info()
     return {r.type, t.type, f.type, r.name, m.s.name, info.dof, info.coordinates, info.constraints}
   end, {}, true, {"revolute", "translational", "fixed", "O", "s", 2, 9, 7}},

  -- drives: a function of t and a number
  {"drive with a function: slider position, velocity", function()
     local m = slider_crank()
     local k = m:kinematics { t_end = 1, steps = 100 }
     local worst = 0
     local t, x = k:series("slider.x")
     local _, vx = k:series("slider.vx")
     for i = 1, #t do
       local th = TH0 + W * t[i]
       local dx = -R * sin(th) - R * R * sin(th) * cos(th) / sqrt(L * L - R * R * sin(th) ^ 2)
       worst = math.max(worst, math.abs(x[i] - slider_x(th)), 1e-3 * math.abs(vx[i] - W * dx))
     end
     -- positions to the Newton tolerance; velocities from finite-difference drive rates
     -- (h = 1e-4·(1 + t): relative error ≈ h²ω²/6 ≈ 3e-8): both within 1e-6 (velocity × 1e-3)
     return worst < 1e-6, "worst error " .. worst
   end, {}, true, check = function(ok, msg) return ok, msg end},
  {"drive with a number holds the crank", function()
     local m = slider_crank(1.2)
     local k = m:kinematics { t_end = 1, steps = 4 }
     return {k:value("crank.theta", 0.5), k:value("slider.x", 1), k:value("crank.omega", 1)}
   end, {}, true, {1.2, slider_x(1.2), 0}, tol = 1e-9},   -- a held crank: positions by Newton
   -- (position_tol default 1e-8 on the residual): measured 1.3e-15; 1e-9 leaves room
  {"kinematics: static drive effort by virtual work", function()
     -- crank held at 1.2 rad, load −100 N along x on the slider: τ = 100·x'(θ)
     local m, slider = slider_crank(1.2)
     m:force { body = slider, at = {0, 0}, value = {-100, 0} }
     local k = m:kinematics { t_end = 1, steps = 2 }
     local th = 1.2
     local dx = -R * sin(th) - R * R * sin(th) * cos(th) / sqrt(L * L - R * R * sin(th) ^ 2)
     return k:value("O.effort", 0.5) - 100 * dx
   end, {}, true, 0, tol = 1e-9},   -- positions by Newton (position_tol default
   -- 1e-8 on the residual) and a linear solve: measured 2e-14; 1e-9 leaves room

  -- forces and torques: constant and functions of (t, state)
  {"constant force and torque on a free body", function()
     local m = mbd.model { name = "pushed" }
     local b = m:body { name = "b", mass = 2, inertia = 0.5 }
     m:force { body = b, at = {0, 0}, value = {4, -2} }
     m:torque { body = b, value = 3 }
     local r = m:simulate { t_end = 1, rtol = 1e-10, atol = 1e-10 }
     -- x = F t²/2m, θ = T t²/2J
     return {r:value("b.x", 1), r:value("b.y", 1), r:value("b.theta", 1)}
   end, {}, true, {1, -0.5, 3}, tol = 1e-8},   -- constant accelerations: CVODE integrates
   -- a quadratic almost exactly (measured 1.3e-15); 1e-8 is rtol times 100
  {"force function(t, state) with state:get: an oscillator", function()
     local m = mbd.model { name = "oscillator" }
     local b = m:body { name = "b", mass = 2, inertia = 0.1, pos = {0.1, 0} }
     m:translational { body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, axis1 = {1, 0} }
     m:force { body = b, at = {0, 0}, value = function(t, state) return {-200 * state:get("b.x"), 0} end }
     local r = m:simulate { t_end = 2, rtol = 1e-10, atol = 1e-10 }
     return r:value("b.x", 2) - 0.1 * cos(10 * 2)   -- ω = √(k/m) = 10
   end, {}, true, 0, tol = 1e-7},   -- rtol = atol = 1e-10 over 2 s:
   -- measured 8e-9; 1e-7 is the integrator's tolerance times 1000
  {"torque function returning a number", function()
     local m = mbd.model { name = "torsion" }
     local b = m:body { name = "b", mass = 1, inertia = 0.5, angle = 0.2 }
     m:revolute { body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0} }
     m:torque { body = b, value = function(t, s) return -8 * s:get("b.theta") end }
     local r = m:simulate { t_end = 1, rtol = 1e-10, atol = 1e-10 }
     return r:value("b.theta", 1) - 0.2 * cos(4 * 1)   -- ω = √(8/0.5) = 4
   end, {}, true, 0, tol = 1e-7},   -- rtol = atol = 1e-10 over 1 s:
   -- measured 5e-9; 1e-7 is the integrator's tolerance times 1000
  {"spring with damping: decaying oscillation", function()
     local m = mbd.model { name = "spring mass" }
     local b = m:body { name = "b", mass = 2, inertia = 0.05, pos = {1.5, 0} }
     m:translational { body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, axis1 = {1, 0} }
     m:spring { name = "k", body1 = b, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0}, k = 200, c = 4,
                length = 0.6 }
     local r = m:simulate { t_end = 3, rtol = 1e-10, atol = 1e-10 }
     local s, wd = 1, sqrt(99)   -- σ = c/2m, ω_d = √(k/m − σ²)
     local t = 3
     return r:value("b.x", t) - 1.4 - 0.1 * exp(-s * t) * (cos(wd * t) + s / wd * sin(wd * t))
   end, {}, true, 0, tol = 1e-6},   -- linear interpolation between samples of 6 ms: ≈ 1e-7
  {"rotational spring: torsional oscillation and energy", function()
     local m = mbd.model { name = "torsion spring" }
     local b = m:body { name = "b", mass = 1, inertia = 0.5, angle = 0.7 }
     local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0} }
     m:rotational_spring { joint = O, k = 8, c = 0, angle = 0.5 }
     local r = m:simulate { t_end = 1, rtol = 1e-10, atol = 1e-10, output_every = 0.25 }
     -- θ = 0.5 + 0.2 cos 4t; energy ½k(0.2)² = 0.16 J
     return {r:value("O.angle", 1) - 0.5 - 0.2 * cos(4), r:value("energy", 1)}
   end, {}, true, {0, 0.16}, tol = 1e-7},   -- rtol = atol = 1e-10 over 1 s:
   -- measured 4e-9; 1e-7 is the integrator's tolerance times 1000

  -- simulate: every formulation available, every integrator.  tol = 1e-6 in the four formulation
  -- cases: THETA2_10 has 9 digits and is itself an RK4 result (h = 1e-3); the runs (rtol 1e-9)
  -- measure 3e-8 .. 4e-8 from it
  {"formulation augmented", function()
     return paper000():simulate { t_end = 10, formulation = "augmented", rtol = 1e-9, atol = 1e-9 }
       :value("link2.theta", 10)
   end, {}, true, THETA2_10, tol = 1e-6},
  {"formulation baumgarte", function()
     return paper000():simulate { t_end = 10, formulation = "baumgarte", rtol = 1e-9, atol = 1e-9,
                                  stabilization = { alpha = 5, beta = 5 } }:value("link2.theta", 10)
   end, {}, true, THETA2_10, tol = 1e-6},
  {"formulation gcp", function()
     return paper000():simulate { t_end = 10, formulation = "gcp", rtol = 1e-9, atol = 1e-9,
                                  position_tol = 1e-10 }:value("link2.theta", 10)
   end, {}, true, THETA2_10, tol = 1e-6},
  {"formulation kane", function()
     return paper000():simulate { t_end = 10, formulation = "kane", rtol = 1e-9, atol = 1e-9,
                                  position_tol = 1e-10 }:value("link2.theta", 10)
   end, {}, true, THETA2_10, tol = 1e-6},
  {"integrators on a parabola", function()
     local out = {}
     for _, ig in ipairs { "adams", "rk45", "bdf", "rk4", "rkf45" } do
       local m = free_body()
       local r = m:simulate { t_end = 1, integrator = ig, step = ig == "rk4" and 0.01 or nil,
                              rtol = 1e-10, atol = 1e-10, output_every = 0.1 }
       -- y = 2 + 5t − g t²/2; x = 1 + t; θ = 0.3 + 2t (tolerance 1e-7: 1000 × the tolerance)
       local e = math.max(math.abs(r:value("b.y", 1) - (2 + 5 - 9.81 / 2)),
                          math.abs(r:value("b.x", 1) - 2), math.abs(r:value("b.theta", 1) - 2.3))
       out[#out + 1] = e < 1e-7 and r.integrator == ig
     end
     return out
   end, {}, true, {true, true, true, true, true}},

  -- runs: value, series, channels, stats, write_csv, plot
  {"run:value and run:series", function()
     local m = free_body()
     local r = m:simulate { t_end = 2, output_every = 0.5, rtol = 1e-10, atol = 1e-10 }
     local t, y = r:series("b.y")
     return {#t, #y, t[1], t[5], y[3], r:value("b.y", 0.75), r.samples}
   end, {}, true, {5, 5, 0, 2, 2 + 5 - 9.81 / 2,
                   -- between samples 0.5 and 1: the chord, not the parabola
                   0.5 * ((2 + 2.5 - 9.81 / 8) + (2 + 5 - 9.81 / 2)), 5}, tol = 1e-8},
   -- rtol = atol = 1e-10 over 2 s: the global error is ~1e-9 (measured 4e-10); 1e-8 is 10x that
  {"run.channels", function()
     local r = pendulum(-1):simulate { t_end = 0.1 }
     local set = {}
     for _, c in ipairs(r.channels) do set[c] = true end
     return {set["rod.x"], set["rod.y"], set["rod.theta"], set["rod.vx"], set["rod.vy"],
             set["rod.omega"], set["O.angle"], set["O.fx"], set["O.fy"], set["energy"],
             set["violation"], #r.channels}
   end, {}, true, {true, true, true, true, true, true, true, true, true, true, true, 11}},
  {"run.stats fields", function()
     local r = pendulum(-1):simulate { t_end = 1 }
     local s = r.stats
     local fields = {"wall_time", "cpu_time", "nfev", "steps", "rejected", "avg_step",
                     "newton_iterations", "max_position_violation", "max_velocity_violation",
                     "repartitions"}
     for _, f in ipairs(fields) do
       if type(s[f]) ~= "number" then return false, "stats." .. f .. " is " .. type(s[f]) end
     end
     if not (s.nfev > s.steps and s.steps > 0) then return false, "nfev/steps" end
     if math.abs(s.avg_step - 1 / s.steps) > 1e-12 then return false, "avg_step" end
     -- the unstabilized augmented system at the default rtol 1e-6 drifts by about 1e-5 m
     if not (s.max_position_violation > 0 and s.max_position_violation < 1e-4) then
       return false, "max_position_violation " .. s.max_position_violation
     end
     return true
   end, {}, true, check = function(ok, msg) return ok, msg end},
  {"run:write_csv all channels and a list, read back", function()
     local r = pendulum(-1):simulate { t_end = 1, output_every = 0.25 }
     r:write_csv(tmp .. ".csv")
     local header, rows = read_csv(tmp .. ".csv")
     if header[1] ~= "t" or #header ~= #r.channels + 1 or #rows ~= 5 then
       return false, "all: header " .. table.concat(header, ",") .. ", rows " .. #rows
     end
     for i, name in ipairs(r.channels) do
       if header[i + 1] ~= name then return false, "column " .. name end
       if math.abs(rows[3][i + 1] - r:value(name, 0.5)) > 1e-12 * (1 + math.abs(rows[3][i + 1])) then
         return false, "value of " .. name
       end
     end
     r:write_csv(tmp .. ".csv", {"rod.theta", "energy"})
     header, rows = read_csv(tmp .. ".csv")
     os.remove(tmp .. ".csv")
     if table.concat(header, ",") ~= "t,rod.theta,energy" then return false, "list header" end
     return math.abs(rows[5][1] - 1) < 1e-15 and math.abs(rows[5][2] - r:value("rod.theta", 1)) < 1e-12,
            "list values"
   end, {}, true, check = function(ok, msg) return ok, msg end},
  {"mbd.plot to PNG and SVG", function()
     local r = pendulum(-1):simulate { t_end = 1 }
     local sizes = {}
     for _, ext in ipairs { ".png", ".svg" } do
       local file = tmp .. ext
       local ret = mbd.plot { run = r, y = {"rod.theta"}, file = file, title = "pendulum" }
       sizes[#sizes + 1] = ret == file and file_size(file) > 1000
       if ext == ".svg" then
         local f = io.open(file)
         sizes[#sizes + 1] = f:read("a"):find("<svg", 1, true) ~= nil
         f:close()
       else
         local f = io.open(file, "rb")
         sizes[#sizes + 1] = f:read(8) == "\137PNG\r\n\26\n"
         f:close()
       end
       os.remove(file)
     end
     return sizes
   end, {}, true, {true, true, true, true}},
  {"joint channels: reaction on body2, angle θ2 − θ1, whichever side the ground is", function()
     -- a pendulum hanging at rest: the pin holds up m g = 14.715 N
     local out = {}
     for _, reversed in ipairs { false, true } do
       local m = mbd.model { name = "hanging", gravity = {0, -9.81} }
       local rod = m:body { name = "rod", mass = 1.5, inertia = 0.18, pos = {0, -0.6}, angle = -pi / 2 }
       if reversed then
         m:revolute { name = "O", body1 = rod, at1 = {-0.6, 0}, body2 = m.ground, at2 = {0, 0} }
       else
         m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
       end
       local r = m:simulate { t_end = 1 }
       out[#out + 1] = r:value("O.fy", 1)
       out[#out + 1] = r:value("O.angle", 1)
     end
     return out
   end, {}, true, {1.5 * 9.81, -pi / 2, -1.5 * 9.81, pi / 2}, tol = 1e-9},
   -- at rest: the pin force is m g to the Newton and integrator round-off (measured 2e-15);
   -- 1e-9 leaves room for other CPUs
  {"m:info() fields", function()
     local m = slider_crank()
     local i = m:info()
     return {i.bodies, i.joints, i.drives, i.forces, i.coordinates, i.constraints, i.rank, i.dof,
             i.redundant, #i.warnings, type(i.text), type(i.channels), tostring(i) == i.text}
   end, {}, true, {3, 4, 1, 0, 9, 9, 9, 0, 0, 0, "string", "table", true}},
  {"m:info() names a redundant joint", function()
     local m, rod = pendulum(-1)
     m:revolute { name = "O_again", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
     local i = m:info()
     return {i.redundant, i.dof, i.warnings[1]:find("revolute 'O_again'", 1, true) ~= nil}
   end, {}, true, {2, 1, true}},

  -- bad input: one clear message, naming the object, at the line of the user's call
  {"unknown field", function() local m, rod = pendulum(-1); m:revolute { bodyy = rod } end, {}, false,
   "revolute: unknown field 'bodyy'"},
  {"misspelt body field", function() mbd.model {}:body { mas = 1, inertia = 1 } end, {}, false,
   "body: unknown field 'mas'"},
  {"misspelt simulate field", function() pendulum(-1):simulate { tend = 1 } end, {}, false,
   "simulate: unknown field 'tend'"},
  {"missing body", function() local m = pendulum(-1); m:revolute { body1 = m.ground } end, {}, false,
   "revolute: missing field 'body2'"},
  {"missing mass", function() mbd.model {}:body { inertia = 1 } end, {}, false,
   "body 'body1': missing field 'mass'"},
  {"wrong vector size", function() local m, rod = pendulum(-1); m:revolute { name = "P", body1 = m.ground, body2 = rod, at1 = {1, 2, 3} } end, {}, false,
   "field 'at1' expects 2 numbers"},
  {"wrong vector size names the count", function() local m, rod = pendulum(-1); m:revolute { name = "P", body1 = m.ground, body2 = rod, at1 = {1, 2, 3} } end, {}, false,
   "got 3"},
  {"body instead of a joint", function() local m, rod = pendulum(-1); m:drive { joint = rod, position = 1 } end, {}, false,
   "drive: field 'joint' expects an mbd.Joint, got mbd.Body"},
  {"a body and itself", function() local m, rod = pendulum(-1); m:revolute { name = "J", body1 = rod, at1 = {0, 0}, body2 = rod, at2 = {0, 0} } end, {}, false,
   "revolute 'J': bodies are the same ('rod')"},
  {"zero mass", function() mbd.model {}:body { name = "z", mass = 0, inertia = 1 } end, {}, false,
   "body 'z': mass must be positive"},
  {"NaN in a pose", function() mbd.model {}:body { name = "n", mass = 1, inertia = 1, pos = {0 / 0, 0} } end, {}, false,
   "body 'n': field 'pos' must be finite"},
  {"zero axis", function() local m, rod = pendulum(-1); m:translational { name = "T", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {0, 0}, axis1 = {0, 0} } end, {}, false,
   "translational 'T': axis1 is zero"},
  {"drive on a fixed joint", function() local m, rod = pendulum(-1); m:drive { joint = m:fixed { name = "W", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {0, 0} }, position = 0 } end, {}, false,
   "fixed 'W': only revolute, translational"},
  {"drive twice", function() local m, _, O = pendulum(-1); m:drive { joint = O, position = 0 }; m:drive { joint = O, position = 1 } end, {}, false,
   "drive on joint 'O': the joint is already driven"},
  {"rk4 without a step", function() pendulum(-1):simulate { t_end = 1, integrator = "rk4" } end, {}, false,
   "simulate: integrator 'rk4' needs field 'step'"},
  {"unknown formulation", function() pendulum(-1):simulate { t_end = 1, formulation = "kan" } end, {}, false,
   "simulate: unknown formulation 'kan'"},
  {"integer field given a fraction", function() slider_crank():kinematics { t_end = 1, steps = 2.5 } end, {}, false,
   "kinematics: field 'steps' expects an integer, got 2.5"},
  {"kinematics of a free mechanism", function() pendulum(-1):kinematics { t_end = 1 } end, {}, false,
   "model 'pendulum' has 1 degree of freedom left"},
  {"a mechanism that cannot assemble", function()
     local m = mbd.model { name = "open loop" }
     local a = m:body { name = "a", mass = 1, inertia = 0.1, pos = {0.5, 0} }
     local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {1.5, 0} }
     m:revolute { name = "p", body1 = m.ground, at1 = {0, 0}, body2 = a, at2 = {-0.5, 0} }
     m:revolute { name = "q", body1 = a, at1 = {0.5, 0}, body2 = b, at2 = {-0.5, 0} }
     m:revolute { name = "r", body1 = b, at1 = {0.5, 0}, body2 = m.ground, at2 = {4, 0} }
     m:simulate { t_end = 1 }
   end, {}, false, "model 'open loop' cannot be assembled", line = 7},
  {"a singular configuration stops the run at its time", function()
     -- a body moving at 1 m/s onto the ground point of a spring: direction undefined at t = 1
     local m = mbd.model { name = "collide" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {-1, 0}, vel = {1, 0} }
     m:spring { name = "tie", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, k = 0, length = 0 }
     m:simulate { t_end = 2, output_every = 0.1 }
   end, {}, false, "spring 'tie': the two points coincide at t = 1", line = 5},
  {"NaN from a force function", function()
     local m = mbd.model { name = "nan" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1 }
     m:force { body = b, at = {0, 0}, value = function(t) return {t > 0.5 and 0 / 0 or 0, 0} end }
     m:simulate { t_end = 1 }
   end, {}, false, "force on body 'b': function returned", line = 4},
  {"NaN from a force function names the time", function()
     local m = mbd.model { name = "nan" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1 }
     m:force { body = b, at = {0, 0}, value = function(t) return {t > 0.5 and 0 / 0 or 0, 0} end }
     m:simulate { t_end = 1 }
   end, {}, false, "NaN at t = ", line = 4},
  {"a non-finite state stops the run", function()
     -- a finite force too large for the body: the acceleration overflows to inf
     local m = mbd.model { name = "overflow" }
     local b = m:body { name = "b", mass = 0.5, inertia = 0.1 }
     m:force { body = b, at = {0, 0}, value = function(t) return {t > 0.5 and 1e308 or 0, 0} end }
     m:simulate { t_end = 1 }
   end, {}, false, "the acceleration of b.x became inf at t = ", line = 5},
  {"force function raises", function() failing:simulate { t_end = 1, output_every = 0.01 } end, {}, false,
   "sensor lost"},
  {"the failed run is kept in last_run", function()
     local r = failing.last_run
     -- samples up to the failure (t ≤ 0.5) are kept, with the message
     local t = r:series("b.y")
     return {r.ok, r.error:find("force on body 'b'", 1, true) ~= nil, r.samples > 10,
             t[#t] <= 0.5, r:value("b.y", 0.2) > 0}
   end, {}, true, {false, true, true, true, true}},
  {"force function of the wrong shape", function()
     local m = mbd.model { name = "shape" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1 }
     m:force { body = b, at = {0, 0}, value = function() return 5 end }
     m:simulate { t_end = 1 }
   end, {}, false, "the function must return {x, y}", line = 4},
  {"torque function of the wrong shape", function()
     local m = mbd.model { name = "shape" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1 }
     m:torque { body = b, value = function() return {1, 2} end }
     m:simulate { t_end = 1 }
   end, {}, false, "the function must return a number", line = 4},
  {"state:get of an unknown channel", function()
     local m = mbd.model { name = "state" }
     local b = m:body { name = "b", mass = 1, inertia = 0.1 }
     m:force { body = b, at = {0, 0}, value = function(t, s) return {s:get("b.z"), 0} end }
     m:simulate { t_end = 1 }
   end, {}, false, "state:get: no channel 'b.z'", line = 4},
  {"run:value outside the run", function() local r = pendulum(-1):simulate { t_end = 1 }; r:value("rod.x", 2) end, {}, false,
   "is outside the recorded span"},
  {"run:value of an unknown channel", function() local r = pendulum(-1):simulate { t_end = 1 }; r:value("rod.z", 0) end, {}, false,
   "no channel 'rod.z'"},
}

H.run(cases, "planar DSL")
