-- Lua-level tests: a model or a system refuses changes while it runs, and a run started from
-- inside its own run (a force function calling m:simulate) runs on its own data.  These were
-- crashes (a heap use after free: the running model's data freed under the run).
-- Run with the mbd program:  mbd tests/lua/test_running.lua   (cases: see harness.lua)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")

-- a pendulum of length 1 m (CM 0.5 m from the pin) and a force function doing `act` at its k-th
-- call
local function pendulum(act, k)
  local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
  local calls = 0
  m:force { body = b, at = {0, 0}, value = function(t, s)
    calls = calls + 1
    if calls == (k or 3) then act(m, b, O, s) end
    return {0, 0}
  end }
  return m, b
end

local RUNNING = "model 'p' is running: "

local cases = {
  {"a body added from a force function", function()
     pendulum(function(m) m:body { name = "c", mass = 1, inertia = 1, pos = {3, 0} } end)
       :simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a body is not allowed during its run", line = false},
  {"a force added from a force function", function()
     pendulum(function(m, b) m:force { body = b, at = {0, 0}, value = {0, 1} } end)
       :simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a force or torque is not allowed", line = false},
  {"a joint added from a force function", function()
     pendulum(function(m, b) m:revolute { body1 = m.ground, at1 = {1, 0}, body2 = b, at2 = {0.5, 0} } end)
       :simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a joint is not allowed", line = false},
  {"a drive added from a force function", function()
     pendulum(function(m, b, O) m:drive { joint = O, position = 0 } end):simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a drive is not allowed", line = false},
  {"a spring added from a force function", function()
     pendulum(function(m, b) m:spring { body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0},
                                        k = 1, length = 1 } end):simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a spring is not allowed", line = false},
  {"a rotational spring added from a force function", function()
     pendulum(function(m, b, O) m:rotational_spring { joint = O, k = 1 } end):simulate { t_end = 1 }
   end, {}, false, RUNNING .. "adding a rotational spring is not allowed", line = false},
  -- the refused change leaves the model as it was: it runs again, and can change after the run
  {"the model after a refused change", function()
     local m = pendulum(function(m) m:body { name = "c", mass = 1, inertia = 1, pos = {3, 0} } end)
     pcall(m.simulate, m, { t_end = 1 })
     local ok = m:simulate { t_end = 0.1 }.ok
     m:body { name = "c", mass = 1, inertia = 1, pos = {3, 0} }
     return {ok, m:info().bodies, m:info().dof}
   end, {}, true, {true, 2, 4}},
  -- a nested run of the same model: its own data; the outer run goes on unchanged, and the
  -- State object of the outer call still reads the outer state after the inner run
  {"a run nested in its own run", function()
     local inner, info, before, after
     local m = pendulum(function(m, b, O, s)
       before = s:get("b.x")
       inner = m:simulate { t_end = 0.1, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
       info = m:info().dof
       after = s:get("b.x")
     end, 10)
     local outer = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
     -- the same model run alone (its force is zero): the nested run changes nothing
     local alone = pendulum(function() end, -1):simulate { t_end = 1, formulation = "kane",
                                                           rtol = 1e-10, atol = 1e-10 }
     return {inner.ok, info, before == after,
             -- bit-identical: the nested run shares no data with the outer one
             outer:value("b.theta", 1) == alone:value("b.theta", 1),
             -- the inner run starts from the assembled state like any run (θ(0) = 0)
             inner:value("b.theta", 0)}
   end, {}, true, {true, 1, true, true, 0}},
  -- runs of one model keep its assembly while it stands: a drive function that now gives another
  -- value at t = 0 is followed (the crank starts where the drive says), and two runs of the
  -- unchanged model give the same numbers to the bit
  {"a drive function changed between runs", function()
     local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
     local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
     local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
     local a0 = 0.3
     m:drive { joint = O, position = function(t) return a0 + 2 * t end }
     local k1 = m:kinematics { t_end = 1, steps = 10 }
     local k2 = m:kinematics { t_end = 1, steps = 10 }
     a0 = -0.4
     local k3 = m:kinematics { t_end = 1, steps = 10 }
     -- (assembly's Newton to 1e-10, the run's default: 1e-9 rad)
     return {math.abs(k1:value("b.theta", 0) - 0.3) < 1e-9,
             k1:value("b.y", 1) == k2:value("b.y", 1),
             math.abs(k3:value("b.theta", 0) + 0.4) < 1e-9}
   end, {}, true, {true, true, true}},
  {"a model simulated again", function()
     local m = pendulum(function() end, -1)
     local r1 = m:simulate { t_end = 1, formulation = "gcp" }
     local r2 = m:simulate { t_end = 1, formulation = "gcp" }
     local r3 = m:simulate { t_end = 1, formulation = "augmented" }
     return {r1:value("b.theta", 1) == r2:value("b.theta", 1),
             math.abs(r1:value("b.theta", 1) - r3:value("b.theta", 1)) < 1e-4,
             r1.stats.sample_evaluations >= 500}
   end, {}, true, {true, true, true}},
  -- a system refuses changes during its run, too
  {"a constraint added to a running system", function()
     local s
     local calls = 0
     s = mbd.system { name = "sys", q = {"x", "y"}, mass = {1, 1}, force = function()
       calls = calls + 1
       if calls == 3 then s:holonomic { s.q.x - s.q.y } end
       return {0, -9.8}
     end }
     s:holonomic { s.q.x^2 + s.q.y^2 - 1 }
     s:initial { q = {1, 0}, qd = {0, 0} }
     s:simulate { t_end = 1 }
   end, {}, false, "system 'sys' is running: adding a constraint is not allowed", line = false},
}

H.run(cases, "running")
