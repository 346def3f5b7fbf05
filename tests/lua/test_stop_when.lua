-- Lua-level tests of stop_when (DSL "Running"): a root function of the state ends a run exactly
-- where it crosses zero; run.stop_time tells where.  Run with the mbd program (cases: harness.lua).
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

-- a compound pendulum (uniform rod, pivot at one end) released at rest th0 from the vertical
local mass, L, g = 1.5, 1.2, 9.81
local function pendulum(th0)
  local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -g} }
  local th = -math.pi / 2 + th0
  local rod = m:body { name = "rod", mass = mass, inertia = mass * L ^ 2 / 12,
                       pos = {L / 2 * math.cos(th), L / 2 * math.sin(th)}, angle = th }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-L / 2, 0} }
  return m
end

-- its exact quarter period: T/4 with T = T0 / agm(1, cos(th0/2)), T0 = 2π √(I_O / (m g d))
local function quarter(th0)
  local a, b = 1, math.cos(th0 / 2)
  for _ = 1, 40 do a, b = (a + b) / 2, math.sqrt(a * b) end
  local IO = mass * L ^ 2 / 3
  return 2 * math.pi * math.sqrt(IO / (mass * g * L / 2)) / a / 4
end

local function vertical(t, s) return s:get("rod.theta") + math.pi / 2 end

local cases = {
  -- the root is located on the integrator's dense output: its error is the trajectory's, about
  -- 1e-12 s with rtol = atol = 1e-12 (the C tests measure 3e-12 s for kane + adams); 1e-10 s
  {"stop_when ends the run at the vertical, a quarter period", function()
     local run = pendulum(1.2):simulate { t_end = 2, formulation = "kane", rtol = 1e-12,
                                          atol = 1e-12, position_tol = 1e-12,
                                          output_every = 0.01, stop_when = vertical }
     return run.stop_time
   end, {}, true, quarter(1.2), tol = 1e-10},
  -- the last sample is the stop itself, and the rod is vertical there (the angle's error at the
  -- root is the root's error times ω ≈ 4 rad/s: 1e-10 rad)
  {"the last sample is taken at the stop", function()
     local run = pendulum(1.2):simulate { t_end = 2, rtol = 1e-12, atol = 1e-12,
                                          output_every = 0.01, stop_when = vertical }
     local t, th = run:series("rod.theta")
     return {t[#t] == run.stop_time, th[#th] + math.pi / 2, #t}
   end, {}, true, {true, 0, 51}, tol = 1e-10},
  {"no crossing: the run reaches t_end and stop_time is nil", function()
     local run = pendulum(0.3):simulate { t_end = 0.05, stop_when = vertical }
     return {run.stop_time == nil, run:value("rod.theta", 0.05) > -math.pi / 2}
   end, {}, true, {true, true}},
  {"stop_when must be a function",
   function() return pendulum(0.3):simulate { t_end = 1, stop_when = 3 } end,
   {}, false, "simulate: field 'stop_when' expects a function, got number"},
  {"stop_when must return a number",
   function() return pendulum(0.3):simulate { t_end = 1, stop_when = function() end } end,
   {}, false, "the function must return a number, got nil at t = 0"},
  {"an error inside stop_when stops the run naming it",
   function() return pendulum(0.3):simulate { t_end = 1, stop_when = function() error("boom") end } end,
   {}, false, "stop_when ("},
}

H.run(cases, "stop_when")
