-- The mechanism of an example in examples/, for the reproductions, benchmarks and tests that run it
-- in other ways: the example is run up to its first print (each example builds its model, then prints
-- m:info() before any study), with its figures' folder made nowhere, and the last model it built
-- is returned.  The examples stay standalone files a user can copy.
--   local example_model = dofile(<scripts folder> .. "/example_model.lua")
--   local m = example_model("fourbar")          -- examples/fourbar.lua's four-bar
local examples = (debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/../examples/"

local STOP = {}   -- raised by the example's first print

return function(name)
  local last
  local env_mbd = setmetatable({
    model = function(spec)
      last = mbd.model(spec)
      return last
    end,
    mkdir = function() end,
  }, { __index = mbd })
  local env = setmetatable({ mbd = env_mbd, arg = {}, print = function() error(STOP, 0) end },
                           { __index = _G })
  env._G = env
  local chunk = assert(loadfile(examples .. name .. ".lua", "t", env))
  local ok, err = pcall(chunk)
  if ok or err ~= STOP then
    error(("examples/%s.lua: %s"):format(name, ok and "printed nothing" or tostring(err)), 2)
  end
  return last
end
