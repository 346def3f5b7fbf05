-- Lua-level tests of mbd.sym: each case is {name, fn, args, ok, expected}.
--   ok = true: fn(table.unpack(args)) must succeed and return expected (strings compare with the
--   printed form of a returned expression, numbers within 1e-12 relative);
--   ok = false: it must raise an error whose message contains expected.
local sym = mbd.sym
local x, y, L = sym.var("x"), sym.var("y"), sym.var("L")

local function text(e) return tostring(e) end

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
  {"tonumber of non-constant", function() return sym.tonumber(x) end, {}, true, nil},
  {"is", function() return sym.is(x), sym.is(3) end, {}, true, true},
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
  {"bad sin", sym.sin, {"a"}, false, "mbd.Sym expected"},
  {"diff by non-variable", sym.diff, {x^2, x + 1}, false, "variable expected"},
  {"eval missing value", sym.eval, {x + y, {x = 1}}, false, "no value for variable 'y'"},
  {"eval wrong type", sym.eval, {x, {x = "one"}}, false, "value of 'x' must be a number"},
  {"subs unknown name", sym.subs, {x, {nope = 1}}, false, "unknown variable 'nope'"},
  {"subs bad key", sym.subs, {x, {[x + 1] = 1}}, false, "keys must be variables"},
  {"var index clash", sym.var, {"x", 7}, false, "already has index"},
  {"var needs a name", sym.var, {}, false, "bad argument #1"},
}

local failed = 0
for _, c in ipairs(cases) do
  local name, fn, args, ok, expected = c[1], c[2], c[3], c[4], c[5]
  local res = table.pack(pcall(fn, table.unpack(args)))
  local good, got = res[1], res[2]
  local msg
  if good ~= ok then
    msg = ok and ("raised: " .. tostring(got)) or "did not raise"
  elseif not ok then
    if not tostring(got):find(expected, 1, true) then
      msg = "error '" .. tostring(got) .. "' lacks '" .. expected .. "'"
    end
  elseif sym.is(got) then
    if text(got) ~= expected then msg = "got '" .. text(got) .. "'" end
  elseif type(expected) == "number" then
    if type(got) ~= "number" or math.abs(got - expected) > 1e-12 * (1 + math.abs(expected)) then
      msg = "got " .. tostring(got)
    end
  elseif got ~= expected then
    msg = "got " .. tostring(got)
  end
  if msg then
    failed = failed + 1
    io.stderr:write(("FAIL %s: %s (expected %s)\n"):format(name, msg, tostring(expected)))
  end
end
print(("%d of %d sym cases passed"):format(#cases - failed, #cases))
if failed > 0 then error(failed .. " sym case(s) failed", 0) end
