-- Every DSL name has both a help topic and a section of docs/reference.md: the names are found
-- by looking at the running program — the functions and tables of `mbd` (and of mbd.sym,
-- mbd.rot, mbd.fem), the methods of every DSL type (the metatables "mbd.<Type>"), and the fields
-- the types compute (listed below, as they are served by C) — so a name added to the language
-- without its help fails here.
--   mbd names.lua REFERENCE
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local help = require "mbd.help"
local file = assert(arg and arg[1], "usage: mbd names.lua docs/reference.md")
local f = assert(io.open(file))
local reference = f:read("a")
f:close()

-- the names, as a user writes them
local names = {}
local function add(n) names[#names + 1] = n end
-- (names beginning with "_" are the binding's own plumbing, not the language: mbd._copy_open)
for k, v in pairs(mbd) do
  if k:sub(1, 1) ~= "_" then add("mbd." .. k) end
  if type(v) == "table" and (k == "sym" or k == "rot" or k == "fem") then
    for k2 in pairs(v) do add("mbd." .. k .. "." .. k2) end
  end
end
-- methods of the DSL types: __index is a method table, or a closure over one (interp/l_util.c)
for tname, mt in pairs(debug.getregistry()) do
  if type(tname) == "string" and tname:match("^mbd%.%u") and type(mt) == "table" then
    local idx = rawget(mt, "__index")
    local methods = type(idx) == "table" and idx or
                    (type(idx) == "function" and select(2, debug.getupvalue(idx, 1)))
    if type(methods) == "table" then
      for k in pairs(methods) do add(tname .. ":" .. k) end
    end
  end
end
-- fields computed in C (l_model.c, l_run.c, l_objects.c)
for _, k in ipairs { "ground", "last_run", "name", "dim" } do add("m." .. k) end
for _, k in ipairs { "channels", "stats", "ok", "error", "formulation", "integrator", "t_end",
                     "stop_time", "samples", "E1", "E2", "manifest", "model" } do
  add("run." .. k)
end
for _, k in ipairs { "name", "index", "model", "type" } do add("body." .. k) end
table.sort(names)

-- the heading the reference gives a topic (stdlib/mbd/reference.lua)
local function heading(name) return name:match("^%u") and (name .. " (object)") or name end

local cases = {}
for _, name in ipairs(names) do
  local short = name:gsub("^mbd%.%u%a*:", "")   -- "mbd.Model:explain" -> "explain"
  cases[#cases + 1] = { name .. " has a help topic and a reference section", function()
      local topic = help.resolve(name) or help.resolve(short)
      if not topic then return false, "no help topic" end
      if not reference:find("\n### " .. heading(topic) .. "\n", 1, true) then
        return false, "topic " .. topic .. " has no section in " .. file
      end
      return true
    end, {}, true, check = function(ok, msg) return ok, msg end }
end
-- help(object) lists the object's methods: the topic of each DSL type names every method of its
-- metatable as "x:method" (help(m) once missed m:tree and m:export_c)
for tname, mt in pairs(debug.getregistry()) do
  local topic = type(tname) == "string" and help.types[tname]
  if topic and help.topics[topic] and type(mt) == "table" then
    local idx = rawget(mt, "__index")
    local methods = type(idx) == "table" and idx or
                    (type(idx) == "function" and select(2, debug.getupvalue(idx, 1)))
    if type(methods) == "table" and tname ~= "mbd.Sym" then
      cases[#cases + 1] = { "help(" .. tname .. ") lists its methods", function()
          local text, missing = help.text(tname), {}
          for k in pairs(methods) do
            if not text:find("%w:" .. k .. "%f[^%w_]") then missing[#missing + 1] = k end
          end
          table.sort(missing)
          return #missing == 0, "help(\"" .. topic .. "\") does not name :" ..
                                table.concat(missing, ", :")
        end, {}, true, check = function(ok, msg) return ok, msg end }
    end
  end
end
cases[#cases + 1] = { "names were found (the introspection works)", function()
    return #names > 80, #names .. " names"
  end, {}, true, check = function(ok, msg) return ok, msg end }
H.run(cases, "docs: every DSL name has help and a reference section")
