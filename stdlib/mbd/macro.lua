-- mbd.macro: macro elements (paper 002, section 4).  A sub-mechanism is defined once by a build
-- function and placed many times; each placement is a copy whose bodies and joints are called
-- "<copy>.<name>".  The relative formulation keeps each copy's joints in its spanning tree, cuts
-- the joints between copies, and derives the equations of a macro once for all its copies
-- (code = "tape" | "compiled").
--
--   local rssr = mbd.macro { name = "rssr", build = function(m, p)
--     local crank = m:body { name = "crank", mass = 1, inertia = {...}, pos = p.at {0.05, 0, 0} }
--     m:revolute { name = "R1", body1 = m.ground, at1 = p.at {0, 0, 0}, axis1 = p.dir {0, 0, 1},
--                  body2 = crank, at2 = {-0.05, 0, 0}, axis2 = {0, 0, 1} }
--     ...
--     return { input = crank, output = rocker }            -- its ports
--   end }
--   local s1 = rssr:add(m, { name = "s1", origin = {0, 0, 0} })   -- s1.input, s1.output, s1.crank
--
-- build(m, p) receives a stand-in for the model (its methods name what they make "<copy>.<name>";
-- m.ground is the model's ground) and the placement table p: the fields given to add, and
--   p.origin, p.rot        the copy's frame (default: the global frame)
--   p.at(x)                a point of the copy's frame in global coordinates
--   p.dir(x)               a direction of the copy's frame in global coordinates
--   p.rotation(r)          a body orientation given in the copy's frame, global (spatial: Euler
--                          parameters; planar: an angle)
-- Written in the copy's frame, a macro's copies are the same sub-mechanism wherever they are
-- placed, which is what lets their equations be derived once.  The engine checks it: a copy whose
-- bodies and joints differ from the first copy of its macro gets its own derivation.
local macro = {}

local Macro = {}
Macro.__index = Macro
Macro.__name = "mbd.Macro"

local function fail(msg, level) error(msg, (level or 1) + 1) end

-- rotate a vector by Euler parameters (e0, e1, e2, e3)
local function rotate(p, x)
  local e0, e1, e2, e3 = p[1], p[2], p[3], p[4]
  local A = {
    {e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)},
    {2 * (e2 * e1 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)},
    {2 * (e3 * e1 - e0 * e2), 2 * (e3 * e2 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3},
  }
  return {A[1][1] * x[1] + A[1][2] * x[2] + A[1][3] * x[3],
          A[2][1] * x[1] + A[2][2] * x[2] + A[2][3] * x[3],
          A[3][1] * x[1] + A[3][2] * x[2] + A[3][3] * x[3]}
end

local function compose(a, b)
  return {a[1] * b[1] - a[2] * b[2] - a[3] * b[3] - a[4] * b[4],
          a[1] * b[2] + a[2] * b[1] + a[3] * b[4] - a[4] * b[3],
          a[1] * b[3] - a[2] * b[4] + a[3] * b[1] + a[4] * b[2],
          a[1] * b[4] + a[2] * b[3] - a[3] * b[2] + a[4] * b[1]}
end

local function numbers(v, n)
  if type(v) ~= "table" or #v ~= n then return false end
  for i = 1, n do
    if type(v[i]) ~= "number" then return false end
  end
  return true
end

-- the message of an error raised in this file, without this file's position (the caller's line
-- is put back by error(msg, level))
local function strip(msg)
  if type(msg) ~= "string" then return msg end
  return (msg:gsub("^[^\n]-macro%.lua:%d+: ", ""))
end

-- mbd.macro { name = "...", build = function(m, p) ... end } -> Macro
function macro.new(spec)
  if type(spec) ~= "table" then fail("mbd.macro: expects a table {name = ..., build = ...}", 2) end
  for k in pairs(spec) do
    if k ~= "name" and k ~= "build" then
      fail("mbd.macro: unknown field '" .. tostring(k) .. "'", 2)
    end
  end
  if type(spec.name) ~= "string" or spec.name == "" then
    fail("mbd.macro: field 'name' expects a string", 2)
  end
  if type(spec.build) ~= "function" then
    fail("mbd.macro: field 'build' expects a function(m, p)", 2)
  end
  return setmetatable({ name = spec.name, build = spec.build, copies = 0 }, Macro)
end

function Macro:__tostring()
  return string.format("macro '%s' (%d copies)", self.name, self.copies)
end

-- macro:add(m, { name = "s1", origin = {...}, rot = ..., <parameters> }) -> the copy
function Macro:add(m, p)
  if getmetatable(self) ~= Macro then fail("macro:add: call it as macro:add(m, {...})", 2) end
  if type(p) ~= "table" then fail("macro '" .. self.name .. "': add expects a table", 2) end
  local name = p.name
  if type(name) ~= "string" or name == "" or name:find(".", 1, true) then
    fail("macro '" .. self.name .. "': add needs a name without '.' (name = \"s1\")", 2)
  end
  local dim = m.dim
  local origin = p.origin or (dim == 3 and {0, 0, 0} or {0, 0})
  if not numbers(origin, dim) then
    fail(string.format("macro '%s': origin of copy '%s' expects %d numbers", self.name, name, dim), 2)
  end
  local rot = p.rot or (dim == 3 and {1, 0, 0, 0} or 0)
  if dim == 3 and not numbers(rot, 4) then
    fail(string.format("macro '%s': rot of copy '%s' expects Euler parameters {e0, e1, e2, e3}",
                       self.name, name), 2)
  elseif dim == 2 and type(rot) ~= "number" then
    fail(string.format("macro '%s': rot of copy '%s' expects an angle", self.name, name), 2)
  end
  if dim == 3 then
    local n = math.sqrt(rot[1] ^ 2 + rot[2] ^ 2 + rot[3] ^ 2 + rot[4] ^ 2)
    rot = {rot[1] / n, rot[2] / n, rot[3] / n, rot[4] / n}
  end
  -- the placement helpers
  local place = {}
  for k, v in pairs(p) do place[k] = v end
  place.origin, place.rot = origin, rot
  if dim == 3 then
    place.dir = function(x) return rotate(rot, x) end
    place.at = function(x)
      local r = rotate(rot, x)
      return {origin[1] + r[1], origin[2] + r[2], origin[3] + r[3]}
    end
    place.rotation = function(r) return compose(rot, r or {1, 0, 0, 0}) end
  else
    local c, s = math.cos(rot), math.sin(rot)
    place.dir = function(x) return {c * x[1] - s * x[2], s * x[1] + c * x[2]} end
    place.at = function(x) return {origin[1] + c * x[1] - s * x[2], origin[2] + s * x[1] + c * x[2]} end
    place.rotation = function(a) return rot + (a or 0) end
  end
  -- the stand-in model: constructors get "<copy>.<name>"
  local prefix = name .. "."
  local proxy = setmetatable({}, {
    __index = function(_, key)
      local v = m[key]
      if key == "find" then
        return function(_, n) return m:find(prefix .. n) or m:find(n) end
      end
      if type(v) == "function" then
        return function(_, t, ...)
          if type(t) == "table" and type(t.name) == "string" then
            local t2 = {}
            for k, x in pairs(t) do t2[k] = x end
            t2.name = prefix .. t.name
            t = t2
          end
          local ok, res = pcall(v, m, t, ...)
          if not ok then error(strip(res), 2) end
          return res
        end
      end
      return v
    end,
    __tostring = function() return "model '" .. tostring(m.name) .. "' (copy '" .. name .. "')" end,
  })
  local opened, index = pcall(mbd._copy_open, m, self.name, name, origin, rot)
  if not opened then error(strip(index), 2) end
  local ok, ports = pcall(self.build, proxy, place)
  mbd._copy_close(m)
  if not ok then error(ports, 0) end
  if ports ~= nil and type(ports) ~= "table" then
    fail("macro '" .. self.name .. "': build must return a table of ports (or nothing)", 2)
  end
  self.copies = self.copies + 1
  -- the copy: its ports, and its objects by their short names (s1.crank)
  local copy = { name = name, macro = self.name, index = index }
  for k, v in pairs(ports or {}) do copy[k] = v end
  return setmetatable(copy, {
    __index = function(_, key) return m:find(prefix .. tostring(key)) end,
    __tostring = function() return "copy '" .. name .. "' of macro '" .. self.name .. "'" end,
  })
end

return macro.new
