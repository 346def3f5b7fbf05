-- Lua-level tests of mbd.sym, run by lua_runner (the sym binding alone; no `arg`, so the harness
-- is found from this file's own path).  Cases: see harness.lua; an expression returned where a
-- string is expected is compared by its printed form.
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local sym = mbd.sym
local x, y, L = sym.var("x"), sym.var("y"), sym.var("L")

local cases = {
  -- building with operators, numbers on either side
  {"circle", function() return x^2 + y^2 - L^2 end, {}, true, "x^2 + y^2 - L^2"},
  {"number left", function() return 2 * x + 1 end, {}, true, "2*x + 1"},
  {"number right", function() return 1 - x / 2 end, {}, true, "-0.5*x + 1"},
  {"unary minus", function() return -x end, {}, true, "-x"},
  {"quotient", function() return x * y / L end, {}, true, "x*y/L"},
  {"power of sum", function() return (x + 1)^3 end, {}, true, "(x + 1)^3"},
  {"functions", function() return sym.sin(x) * sym.cos(y) + sym.exp(x) end, {}, true,
   "sin(x)*cos(y) + exp(x)"},
  {"atan2", sym.atan2, {y, x}, true, "atan2(y, x)"},
  {"ifelse", sym.ifelse, {x - 1, y, 0}, true, "ifelse(x - 1, y, 0)"},
  {"const", sym.const, {2.5}, true, "2.5"},
  {"concat", function() return "f = " .. (x + y) end, {}, true, "f = x + y"},
  -- simplification and identity
  {"x - x", function() return x - x end, {}, true, "0"},
  {"x / x", function() return x / x end, {}, true, "1"},
  {"x * 0", function() return x * 0 end, {}, true, "0"},
  {"like terms", function() return 2*x + 3*x end, {}, true, "5*x"},
  {"same node", function() return (x + y) == (y + x) end, {}, true, true},
  {"eq", function() return sym.eq(x * x, x^2) end, {}, true, true},
  {"eq number", function() return sym.eq(x - x, 0) end, {}, true, true},
  {"tonumber", function() return sym.tonumber(sym.sin(sym.const(0)) + 2) end, {}, true, 2},
  {"tonumber of non-constant", function() return sym.tonumber(x) end, {}, true, H.NIL},
  {"is", function() return {sym.is(x), sym.is(3)} end, {}, true, {true, false}},
  -- calculus
  {"diff sin(x^2)", function() return sym.diff(sym.sin(x^2), x) end, {}, true, "2*x*cos(x^2)"},
  {"diff circle", function() return sym.diff(x^2 + y^2 - L^2, y) end, {}, true, "2*y"},
  {"diff method", function() return (x * y):diff(y) end, {}, true, "x"},
  {"diff of time", function() return sym.diff(sym.sin(2 * sym.t), sym.t) end, {}, true,
   "2*cos(2*t)"},
  {"subs", function() return sym.subs(x^2 + y, {[x] = y + 1}) end, {}, true, "y + (y + 1)^2"},
  {"subs by name", function() return sym.subs(x * y, {x = 2, y = 3}) end, {}, true, "6"},
  {"subs swap", function() return sym.subs(x - y, {[x] = y, [y] = x}) end, {}, true, "y - x"},
  {"eval", function() return sym.eval(x^2 + y^2, {x = 3, y = 4}) end, {}, true, 25},
  {"eval method", function() return (sym.sqrt(x)):eval {x = 2} end, {}, true, math.sqrt(2)},
  {"eval constant", function() return sym.eval(sym.const(7)) end, {}, true, 7},
  {"eval ifelse", function() return sym.eval(sym.ifelse(x, 1, 2), {x = -1}) end, {}, true, 2},
  {"vars", function()
     local v = sym.vars(L * x + y)
     return #v == 3 and v[1] == x and v[2] == y and v[3] == L
   end, {}, true, true},
  {"time variable", function() return sym.t == sym.var("t") end, {}, true, true},
  -- errors name the function and the problem
  {"bad operand", function() return x + {} end, {}, false, "mbd.Sym expected, got table"},
  -- each call written in a Lua function, so the message must also name this script's line
  {"bad sin", function() return sym.sin("a") end, {}, false, "mbd.Sym expected"},
  {"diff by non-variable", function() return sym.diff(x^2, x + 1) end, {}, false,
   "variable expected"},
  {"eval missing value", function() return sym.eval(x + y, {x = 1}) end, {}, false,
   "no value for variable 'y'"},
  {"eval wrong type", function() return sym.eval(x, {x = "one"}) end, {}, false,
   "value of 'x' must be a number"},
  {"subs unknown name", function() return sym.subs(x, {nope = 1}) end, {}, false,
   "unknown variable 'nope'"},
  {"subs bad key", function() return sym.subs(x, {[x + 1] = 1}) end, {}, false,
   "keys must be variables"},
  {"var index clash", function() return sym.var("x", 7) end, {}, false, "already has index"},
  {"var needs a name", function() return sym.var() end, {}, false, "bad argument #1"},
}

H.run(cases, "sym")
