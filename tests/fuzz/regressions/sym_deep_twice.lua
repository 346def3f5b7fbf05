-- found by a fuzzing run as a timeout (11 s of wall time, libFuzzer's limit 10 s) while the
-- 2-core machine ran other builds at a load of 8.5; it takes 1.0 s of CPU (2.6 s of wall time at
-- that load): not a hang.  Kept as a guard on the cost of building a 1e5-deep chain a second time
-- (every node found by hash-consing) after printing and differentiating it, then an error.
local e = mbd.sym.t
for _ = 1, 100000 do e = mbd.sym.sin(e) end
print(#tostring(e), #tostring(mbd.sym.diff(e, mbd.sym.t)))

local e = mbd.sym.t
for _ = 1, 100000 do e = mbd.sym.sin(e) end
print(#tostring(e), #tostring(mbd.sym.diff(e, mb.ys.dmt)))
