-- consistency of help()'s doc table: every topic is listed in the overview, every `see` and alias
-- names a topic, every type maps to a topic, and every DSL name of DSL.md has a topic.  Each case
-- returns the list of problems it found, which must be empty (cases: tests/lua/harness.lua).
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local help = require "mbd.help"

-- a check: no problem found
local function none(problems)
  return #problems == 0, table.concat(problems, "; ")
end

-- collect the problems fn(problem) reports, problem(fmt, ...) formatting one
local function problems_of(fn)
  return function()
    local problems = {}
    fn(function(fmt, ...) problems[#problems + 1] = string.format(fmt, ...) end)
    return problems
  end
end

-- the names of the DSL, as a user would type them
local dsl = {
  "model", "body", "revolute", "translational", "fixed", "spherical", "universal", "cylindrical",
  "drive", "force", "torque", "spring", "rotational_spring", "surface", "contact", "fem.beam",
  "mbd.fem.beam", "add_mass", "modes", "fem.load", "flexible_body", "system", "holonomic",
  "nonholonomic", "initial", "simulate", "kinematics", "value", "series", "channels", "stats",
  "write_csv", "plot", "stability", "info", "sym", "formulations", "integrators", "mbd.model",
  "m:revolute", "run:value", "run.channels", "s:simulate", "mbd.sym.diff", "kane", "rk45", "rkf45",
  "mbd.rot.axis_angle", "ground", "m.ground", "energy",
  "animate", "run:animate", "explain", "m:explain", "find", "m:find", "manifest", "run.manifest",
  "last_run", "m.last_run", "mbd.pretty", "stop_when", "log_y", "require",
  "fem.from_matrices", "from_matrices", "write_matrices", "node", "geometric_stiffening",
  "rotary_inertia", "Modes", "FE",
  -- paper 002
  "relative", "m:tree", "m:export_c", "mbd.macro", "rssr:add", "code", "cut", "solver",
}

local cases = {
  { "groups list known topics; every topic is in a group, complete",
    problems_of(function(problem)
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
      end
    end), {}, true, check = none },
  { "every see names a topic", problems_of(function(problem)
      for name, e in pairs(help.topics) do
        for _, s in ipairs(e.see or {}) do
          if not help.topics[s] then
            problem("topic %s: see %s is not a topic", name, s)
          end
        end
      end
    end), {}, true, check = none },
  { "every alias and type names a topic", problems_of(function(problem)
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
    end), {}, true, check = none },
  { "every DSL name has a topic", problems_of(function(problem)
      for _, name in ipairs(dsl) do
        if not help.resolve(name) then
          problem("DSL name %s has no topic", name)
        end
      end
    end), {}, true, check = none },
  { "the help of an object names its type", problems_of(function(problem)
      for _, t in ipairs { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System",
                           "Surface", "Contact" } do
        local obj = setmetatable({}, { __name = "mbd." .. t })
        if not help.text(obj):find(t, 1, true) then
          problem("help of an mbd.%s object does not name it", t)
        end
      end
    end), {}, true, check = none },
  -- functions of the `mbd` table resolve by value when they exist
  { "an undocumented function gets no topic", function()
      local fn = function() end
      package.loaded.mbd.__help_check = fn
      local text = help.text(fn)
      package.loaded.mbd.__help_check = nil
      return text:find("^no help") ~= nil
    end, {}, true, true },
}
-- help("code") names every place the compiled-code cache may be (MBD_CACHE, XDG_CACHE_HOME,
-- ~/.cache/mbd: engine/sym/sym_emit.c mbd_sym_cache_dir)
cases[#cases + 1] = { "help(\"code\") names the cache's folders", function()
    local text, missing = help.text("code"), {}
    for _, w in ipairs { "MBD_CACHE", "XDG_CACHE_HOME", "~/.cache/mbd" } do
      if not text:find(w, 1, true) then missing[#missing + 1] = w end
    end
    return missing
  end, {}, true, check = function(missing) return none(missing) end }

H.run(cases, "help: all topics resolve")
