-- docs/reference.md is what stdlib/mbd/reference.lua writes from help()'s data, so help() and the
-- reference say the same.  On a difference: the first differing line, and how to regenerate.
--   mbd reference.lua REFERENCE
local file = assert(arg and arg[1], "usage: mbd reference.lua docs/reference.md")
local f = assert(io.open(file))
local committed = f:read("a")
f:close()
local fresh = require("mbd.reference")()
if committed == fresh then
  print("docs/reference.md is the help's reference")
  os.exit(0)
end
local function lines(s)
  local t = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  return t
end
local a, b = lines(committed), lines(fresh)
for i = 1, math.max(#a, #b) do
  if a[i] ~= b[i] then
    print(string.format("%s:%d differs from the help:\n  file: %s\n  help: %s", file, i,
                        tostring(a[i]), tostring(b[i])))
    break
  end
end
print("regenerate it: build/interp/mbd scripts/gen_reference.lua docs/reference.md")
os.exit(1)
