-- found before the fuzzer (review reproducers): printing and differentiating a deep expression
local e = mbd.sym.t
for _ = 1, 100000 do e = mbd.sym.sin(e) end
print(#tostring(e), #tostring(mbd.sym.diff(e, mbd.sym.t)))
