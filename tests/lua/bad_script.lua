-- a script that fails at a known line: `mbd bad_script.lua` must exit with status 1 and print
-- "bad_script.lua:6: revolute 'J': bodies are the same ('b')" on standard error (CMakeLists.txt)
local m = mbd.model { name = "bad" }
local b = m:body { name = "b", mass = 1, inertia = 0.1 }
print("before the error")
m:revolute { name = "J", body1 = b, body2 = b }
print("never printed")
