-- consistency of help()'s doc table: every topic is listed in the overview, every `see` and alias
-- names a topic, every type maps to a topic, and every DSL name of DSL.md has a topic.
local help = require "mbd.help"
local problems = {}
local function problem(fmt, ...)
  problems[#problems + 1] = string.format(fmt, ...)
end

local listed = {}
for _, g in ipairs(help.groups) do
  for _, name in ipairs(g[2]) do
    listed[name] = true
    if not help.topics[name] then
      problem("group %s lists unknown topic %s", g[1], name)
    end
  end
end
for name, e in pairs(help.topics) do
  if not listed[name] then
    problem("topic %s is in no group", name)
  end
  for _, field in ipairs { "title", "text", "example" } do
    if type(e[field]) ~= "string" or e[field] == "" then
      if not (name == "help" and field == "example") then
        problem("topic %s has no %s", name, field)
      end
    end
  end
  for _, s in ipairs(e.see or {}) do
    if not help.topics[s] then
      problem("topic %s: see %s is not a topic", name, s)
    end
  end
end
for alias, name in pairs(help.aliases) do
  if not help.topics[name] then
    problem("alias %s names unknown topic %s", alias, name)
  end
end
for tname, name in pairs(help.types) do
  if not help.topics[name] then
    problem("type %s names unknown topic %s", tname, name)
  end
end

-- the names of the DSL, as a user would type them
local dsl = {
  "model", "body", "revolute", "translational", "fixed", "spherical", "universal", "cylindrical",
  "drive", "force", "torque", "spring", "rotational_spring", "surface", "contact", "fem.beam",
  "mbd.fem.beam", "add_mass", "modes", "fem.load", "flexible_body", "system", "holonomic",
  "nonholonomic", "initial", "simulate", "kinematics", "value", "series", "channels", "stats",
  "write_csv", "plot", "stability", "info", "sym", "formulations", "integrators", "mbd.model",
  "m:revolute", "run:value", "run.channels", "s:simulate", "mbd.sym.diff", "kane", "rk45",
  "mbd.rot.axis_angle", "ground", "m.ground", "energy",
}
for _, name in ipairs(dsl) do
  if not help.resolve(name) then
    problem("DSL name %s has no topic", name)
  end
end
for _, t in ipairs { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System", "Surface",
                     "Contact" } do
  local obj = setmetatable({}, { __name = "mbd." .. t })
  if not help.text(obj):find(t, 1, true) then
    problem("help of an mbd.%s object does not name it", t)
  end
end

-- functions of the `mbd` table resolve by value when they exist
local fn = function() end
package.loaded.mbd.__help_check = fn
if help.text(fn):find("^no help") == nil then
  problem("an undocumented function got a topic")
end
package.loaded.mbd.__help_check = nil

if #problems > 0 then
  io.stderr:write(table.concat(problems, "\n"), "\n")
  os.exit(1)
end
print("help: all topics resolve")
