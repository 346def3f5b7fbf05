-- a script that fails at a known line: `mbd bad_script.lua` must exit with status 1 and print
-- "bad_script.lua:6: revolute 'J': bodies are the same ('b')" on standard error (CMakeLists.txt)
local m = mbd.model { name = "bad" }
local b = m:body { name = "b", mass = 1, inertia = 0.1 }
print("before the error")
m:revolute { name = "J", body1 = b, at1 = {0, 0}, body2 = b, at2 = {0, 0} }
print("never printed")
