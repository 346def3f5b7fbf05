-- The mechanism of an example in examples/, for the reproductions, benchmarks and tests that run it
-- in other ways: the example is run up to its first print (each example builds its model, then prints
-- m:info() before any study), with its figures' folder made nowhere, and the last model it built
-- is returned.  The examples stay standalone files a user can copy.
--   local example_model = dofile(<scripts folder> .. "/example_model.lua")
--   local m = example_model("fourbar")          -- examples/fourbar.lua's four-bar
--   local m = example_model("spatial_slider_crank", 2)   -- the second model the example builds:
--                                               -- run up to the first print after it is made
local examples = (debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/../examples/"

local STOP = {}   -- raised by the example's first print

return function(name, nth)
  nth = nth or 1
  local last, made = nil, 0
  local env_mbd = setmetatable({
    model = function(spec)
      last = mbd.model(spec)
      made = made + 1
      return last
    end,
    mkdir = function() end,
  }, { __index = mbd })
  -- prints before the nth model is made are swallowed (the studies between run as written)
  local function stop() if made >= nth then error(STOP, 0) end end
  local env = setmetatable({ mbd = env_mbd, arg = {}, print = stop }, { __index = _G })
  env._G = env
  local chunk = assert(loadfile(examples .. name .. ".lua", "t", env))
  local ok, err = pcall(chunk)
  if ok or err ~= STOP then
    error(("examples/%s.lua: %s"):format(name, ok and "printed nothing" or tostring(err)), 2)
  end
  return last
end
