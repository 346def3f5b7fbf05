-- Every example of help() (and so of docs/reference.md) runs as it is shown, after its set-up
-- (help.contexts), each in a fresh state; the examples of papers not implemented yet
-- (help.planned) must stop with an error — when one runs, its paper has arrived: take it out of
-- help.planned.  Examples that are REPL sessions (help.sessions) are typed into the mbd program's
-- REPL, and what it prints must be the session's other lines.  The overview's example (help())
-- runs as a script and typed line by line at the prompt, as a newcomer does.  Run by mbd in a
-- scratch folder (the examples write files); the last lines count what ran.
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

-- the mbd program running this script; its REPL typed into (repl.lua)
local program = arg and arg[-1]

local repl = dofile(here .. "/repl.lua")
local function type_into_repl(lines) return repl.type(program, lines) end
local function run_session(text) return repl.session(program, text) end

local cases = {}
local ran, sessions = 0, 0
for _, name in ipairs(names) do
  if help.sessions[name] and help.topics[name].example then
    sessions = sessions + 1
    cases[#cases + 1] = { "example of " .. name .. " (a REPL session)", function()
        return run_session(help.topics[name].example)
      end, {}, true, check = function(ok, msg) return ok, msg end }
  elseif help.topics[name].example and not help.not_run[name] then
    ran = ran + 1
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
-- the overview's example, as a script and typed line by line (each line its own entry: the
-- REPL keeps the locals of one line for the next)
cases[#cases + 1] = { "the overview's example (help()) runs as a script", function()
    local env = setmetatable({ print = function() end }, { __index = _G })
    local f = assert(load(help.overview_example, "=overview example", "t", env))
    return pcall(f)
  end, {}, true, check = function(ok, msg) return ok, tostring(msg) end }
cases[#cases + 1] = { "the overview's example (help()) typed line by line at the prompt", function()
    local lines = {}
    for l in help.overview_example:gmatch("[^\n]+") do lines[#lines + 1] = l end
    local out, err = type_into_repl(lines)
    if err ~= "" then return false, "the REPL printed on standard error:\n" .. err end
    -- the script's print, the pendulum's angle at t = 1 s, among what the REPL shows of the
    -- expressions typed (the joint, the run)
    return out:find("\n%-?[%d.]+\n") ~= nil, "printed " .. out
  end, {}, true, check = function(ok, msg) return ok, msg end }
-- no example is left out without saying why
cases[#cases + 1] = { "examples not run give a reason", function()
    for name, why in pairs(help.not_run) do
      if type(why) ~= "string" or why == "" then return false, name .. " has no reason" end
    end
    return true
  end, {}, true, check = function(ok, msg) return ok, msg end }

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

local not_run = 0
for _ in pairs(help.not_run) do not_run = not_run + 1 end
print(string.format("help examples: %d run as scripts, %d as REPL sessions, the overview's twice; " ..
                    "%d not run", ran, sessions, not_run))
H.run(cases, "docs: every example of help() and docs/reference.md runs")
