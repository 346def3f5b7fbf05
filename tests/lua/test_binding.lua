-- Lua-level tests of the binding's object access (STYLE.md 11): __index looks a method up in the
-- type's method table first, then the fields computed from the object.  For a model, m.<key> is
--   1. a method (m:info, m:body, m:find ...), 2. a field (ground, last_run, name, dim),
--   3. a body by name, then a joint by name;
-- so a body named like a method or a field is not m.<name> but is still reached by m:find(name).
-- Run with the mbd program:  mbd tests/lua/test_binding.lua   (cases: see harness.lua)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")

-- a pendulum whose body is named "info" (a method), a second body "name" (a field) and whose
-- joint is named "simulate" (a method); the crank and the joint "O" have ordinary names
local function clash()
  local m = mbd.model { name = "clash", gravity = {0, -9.81} }
  local info = m:body { name = "info", mass = 1, inertia = 0.1, pos = {0.5, 0} }
  local name = m:body { name = "name", mass = 1, inertia = 0.1, pos = {1.5, 0} }
  local crank = m:body { name = "crank", mass = 1, inertia = 0.1, pos = {2.5, 0} }
  m:revolute { name = "simulate", body1 = m.ground, at1 = {0, 0}, body2 = info, at2 = {-0.5, 0} }
  m:revolute { name = "O", body1 = info, at1 = {0.5, 0}, body2 = name, at2 = {-0.5, 0} }
  m:revolute { name = "P", body1 = name, at1 = {0.5, 0}, body2 = crank, at2 = {-0.5, 0} }
  return m, info, name, crank
end

local cases = {
  -- methods win over bodies and joints of the same name
  {"m.info is the method, not the body", function()
     local m = clash()
     return {type(m.info), m:info().bodies, type(m.simulate)}
   end, {}, true, {"function", 3, "function"}},
  {"a field wins over a body of the same name", function()
     local m = clash()
     return {m.name, m.dim}
   end, {}, true, {"clash", 2}},
  {"m:find reaches a body named like a method", function()
     local m, info = clash()
     local b = m:find("info")
     return {tostring(b), b.name, b.index, b.index == info.index}
   end, {}, true, {"mbd.Body 'info' of model 'clash'", "info", 1, true}},
  {"m:find reaches a body named like a field", function()
     local m = clash()
     return {m:find("name").name, m:find("name").index}
   end, {}, true, {"name", 2}},
  {"m:find reaches a joint named like a method", function()
     local m = clash()
     local j = m:find("simulate")
     return {tostring(j), j.type, j.index}
   end, {}, true, {"mbd.Joint revolute 'simulate' of model 'clash'", "revolute", 0}},
  {"a body found by m:find works in constructors", function()
     local m = clash()
     m:torque { body = m:find("info"), value = 1 }
     return m:simulate { t_end = 0.05 }.ok
   end, {}, true, true},
  {"m:find of an unknown name is nil", function() return clash():find("nothing") == nil end, {},
   true, true},
  {"m:find needs a string", function() local m = clash(); return m:find({}) end, {}, false,
   "bad argument #1 to 'find' (string expected, got table)"},

  -- bodies and joints with other names are m.<name>
  {"m.<body> and m.<joint>", function()
     local m, _, _, crank = clash()
     return {m.crank.index == crank.index, m.crank.model == m, m.O.name, m.O.type, m.nothing == nil}
   end, {}, true, {true, true, "O", "revolute", true}},
  {"m.ground and m.last_run", function()
     local m = clash()
     local before = m.last_run
     local run = m:simulate { t_end = 0.05 }
     return {m.ground.name, m.ground.index, before == nil, m.last_run == run}
   end, {}, true, {"ground", 0, true, true}},

  -- the method table: one function per method, shared by every model
  {"methods are the same functions on every model", function()
     local a, b = mbd.model {}, mbd.model { dim = 3 }
     return {a.body == b.body, a.simulate == b.simulate, a.surface == b.surface}
   end, {}, true, {true, true, true}},
  {"a constructor method checks its table", function() mbd.model {}:surface {} end, {},
   false, "surface: missing field 'body'"},

  -- runs and systems: methods, then fields
  {"run methods and fields", function()
     local m = clash()
     local r = m:simulate { t_end = 0.1, output_every = 0.05 }
     return {type(r.value), type(r.series), type(r.write_csv), r.samples, r.ok, r.formulation,
             r.nothing == nil}
   end, {}, true, {"function", "function", "function", 3, true, "kane", true}},  -- the default
  {"system methods and fields", function()
     local s = mbd.system { name = "free", q = {"x"}, mass = 1, force = {0} }
     return {type(s.simulate), type(s.initial), s.name, s.nconstraint, #s.names, s.nothing == nil}
   end, {}, true, {"function", "function", "free", 0, 1, true}},
}

H.run(cases, "binding")
