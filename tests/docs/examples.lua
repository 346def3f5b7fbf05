-- Every example of help() (and so of docs/reference.md) runs as it is shown, after its set-up
-- (help.contexts), each in a fresh state; the examples of papers not implemented yet
-- (help.planned) must stop with an error — when one runs, its paper has arrived: take it out of
-- help.planned.  Run by mbd in a scratch folder (the examples write files).
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local help = require "mbd.help"

local names = {}
for name in pairs(help.topics) do names[#names + 1] = name end
table.sort(names)

-- run code in a fresh environment (globals of the set-up and of the example live there; print
-- goes nowhere): true, or false and the error
local function run_example(name)
  local env = setmetatable({ print = function() end }, { __index = _G })
  local ctx = help.example_context[name] or "planar"
  local setup = assert(help.contexts[ctx], "unknown set-up " .. ctx).code
  local f, err = load(setup, "=set-up " .. ctx, "t", env)
  if not f then return false, err end
  local ok, msg = pcall(f)
  if not ok then return false, "set-up " .. ctx .. ": " .. tostring(msg) end
  f, err = load(help.topics[name].example, "=example of " .. name, "t", env)
  if not f then return false, err end
  -- help(x) in an example writes with io.write: into /dev/null
  io.output("/dev/null")
  local res = table.pack(pcall(f))
  io.output(io.stdout)
  return table.unpack(res, 1, res.n)
end

local cases = {}
for _, name in ipairs(names) do
  if help.topics[name].example and not help.not_run[name] then
    local planned = help.planned[name]
    cases[#cases + 1] = { "example of " .. name .. (planned and " (paper " .. planned .. ": planned)" or ""),
      function()
        local ok, msg = run_example(name)
        if planned then
          if ok then return false, "it runs: paper " .. planned .. " has arrived; take '" .. name ..
                                   "' out of help.planned" end
          return true
        end
        return ok, tostring(msg)
      end, {}, true, check = function(ok, msg) return ok, msg end }
  end
end
-- the set-ups themselves are complete: each one named, with a text
cases[#cases + 1] = { "every set-up an example names exists", function()
    for name, ctx in pairs(help.example_context) do
      if not help.contexts[ctx] then return false, name .. ": " .. ctx end
    end
    for _, ctx in ipairs(help.context_order) do
      if not help.contexts[ctx] then return false, "context_order: " .. ctx end
    end
    return true
  end, {}, true, check = function(ok, msg) return ok, msg end }

H.run(cases, "docs: every example of help() and docs/reference.md runs")
