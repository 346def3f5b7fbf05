-- Lua-level tests: deep symbolic expressions print, differentiate and substitute without
-- recursion on the C stack (tostring of sin(sin(...)) 10⁵ deep overflowed it; diff of a 2·10⁴
-- deep chain took a minute and 650 MB).  Run by lua_runner (the sym binding alone).
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local sym = mbd.sym
local t, x = sym.t, sym.var("x")

-- f_N = sin(sin(...sin(x)...)), N levels
local function chain(N, v)
  local e = v or x
  for _ = 1, N do e = sym.sin(e) end
  return e
end

-- d f_N / dx = Π_{k=0}^{N-1} cos(f_k(x)), evaluated numerically (the closed form of the chain rule)
local function chain_slope(N, x0)
  local u, p = x0, 1
  for _ = 1, N do p = p * math.cos(u); u = math.sin(u) end
  return p
end

local N = 100000

local cases = {
  {"tostring of a chain 10^5 deep", function()
     local s = tostring(chain(N))
     return {#s, s:sub(1, 8), s:sub(-3)}
   end, {}, true, {5 * N + 1, "sin(sin(", ")))"}},
  {"the value of a chain 10^5 deep", function() return sym.eval(chain(N), {x = 1}) end, {}, true,
   -- the same recursion in plain Lua: both evaluate sin N times in the same order (bit-equal)
   (function() local u = 1 for _ = 1, N do u = math.sin(u) end return u end)()},
  -- the derivative is one product of N cosines (linear size, built without a deep C recursion);
  -- its value against the chain rule evaluated in Lua: the product of 10^5 factors in a
  -- different order differs by a few ulps per factor, so 1e-9 relative
  {"diff of a chain 10^5 deep", function()
     return sym.eval(sym.diff(chain(N), x), {x = 0.7}) / chain_slope(N, 0.7)
   end, {}, true, 1, tol = 1e-9},
  {"diff of a chain, shallow: the printed form", function() return sym.diff(chain(3), x) end, {},
   true, "cos(x)*cos(sin(x))*cos(sin(sin(x)))"},
  -- a shared inner chain: its derivative serves both users
  {"diff of a chain used twice", function()
     local g = chain(4)
     local e = g * g + sym.cos(g)
     local v = sym.eval(sym.diff(e, x), {x = 0.3})
     local gv = sym.eval(g, {x = 0.3})
     return v / ((2 * gv - math.sin(gv)) * chain_slope(4, 0.3))
   end, {}, true, 1, tol = 1e-14},  -- 4 levels: a few roundings
  {"subs in a chain 10^5 deep", function()
     return sym.eval(sym.subs(chain(N), {[x] = 2 * t}), {t = 0.5})
   end, {}, true, (function() local u = 1 for _ = 1, N do u = math.sin(u) end return u end)()},
  -- deep chains through sums, powers, exp, log and sqrt, with closed forms:
  --   e_{k+1} = sqrt(e_k² + c)      gives e_N = sqrt(x² + N c),      de_N/dx = x / e_N
  --   e_{k+1} = log(exp(e_k) + c)   gives e_N = log(exp(x) + N c),   de_N/dx = exp(x) / exp(e_N)
  {"diff through sqrt and powers, 20000 deep", function()
     local e = x
     for _ = 1, 20000 do e = sym.sqrt(e^2 + 1e-4) end
     return sym.eval(sym.diff(e, x), {x = 1}) * math.sqrt(1 + 20000 * 1e-4)
   end, {}, true, 1, tol = 1e-11},  -- 2·10⁴ roundings of relative size 1e-16 each
  -- a chain through products and sums: e_{k+1} = 1.0001 sin(e_k) + 1e-4, its derivative by
  -- forward accumulation in Lua (u' ← 1.0001 cos(u) u')
  {"diff through products and sums, 20000 deep", function()
     local e = x
     for _ = 1, 20000 do e = 1.0001 * sym.sin(e) + 1e-4 end
     local u, du = 0.4, 1
     for _ = 1, 20000 do u, du = 1.0001 * math.sin(u) + 1e-4, 1.0001 * math.cos(u) * du end
     return sym.eval(sym.diff(e, x), {x = 0.4}) / du
   end, {}, true, 1, tol = 1e-11},  -- as above
}

H.run(cases, "sym_deep")
