-- The REPL's session (stdlib/mbd/repl.lua): the rewrite of an entry's outer-level `local`
-- statements, the variables it keeps from one entry to the next, and Tab's completions.  The
-- entries are run as the REPL runs them: rewritten, compiled, with the session as _ENV.
--   mbd test_repl_session.lua
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local R = require "mbd.repl"

-- run entries one after the other in a fresh session; the results of the last one
local function session(...)
  local env = R.session()
  local entries = { ... }
  local res
  for i, src in ipairs(entries) do
    local f = load("return " .. src .. ";", "=stdin", "t", env)
    if not f then
      f = assert(load(R.rewrite(src) or src, "=stdin", "t", env))
    end
    res = table.pack(f())
    if i == #entries then return table.unpack(res, 1, res.n) end
  end
end

-- the rewrite keeps every line break: an error on line 3 of an entry is reported on line 3
local function lines(s) return select(2, s:gsub("\n", "")) end

local cases = {
  -- what is rewritten, and how
  { "local with a value", R.rewrite, { 'local m = mbd.model { name = "p" }' }, true,
    '_ENV("m") m  = mbd.model { name = "p" }' },
  { "several names", R.rewrite, { "local a, b = 1, 2" }, true, '_ENV("a", "b") a, b  = 1, 2' },
  { "a local without a value is set to nil", R.rewrite, { "local x" }, true, '_ENV("x") x = nil ' },
  { "local function", R.rewrite, { "local function f(x) local z = 1 return x end" }, true,
    '_ENV("f") function f(x) local z = 1 return x end' },
  { "a const local", R.rewrite, { "local k <const> = 5" }, true, '_ENV("k<const>") k  = 5' },
  { "a close local stays a local of its entry", R.rewrite, { "local y <close> = nil" }, true, H.NIL },
  { "local _ENV stays, and so does the rest of the entry", R.rewrite,
    { "local _ENV = {print = print} local w = 1" }, true, H.NIL },
  { "'local' in a string or a comment is text", R.rewrite,
    { 'print("local x = 1") -- local y = 2' }, true, H.NIL },
  { "'local' in long strings and long comments is text", R.rewrite,
    { '--[==[ local c ]==] local d = [[\nlocal t]] .. "\\"local"' }, true,
    '--[==[ local c ]==] _ENV("d") d  = [[\nlocal t]] .. "\\"local"' },
  { "locals inside functions stay local", R.rewrite,
    { "function g() local q = 1 end local r = 2" }, true,
    'function g() local q = 1 end _ENV("r") r  = 2' },
  { "locals inside blocks stay local", R.rewrite,
    { "for i = 1, 3 do local v = i end while false do local a end repeat local z = 1 until z " ..
      "if x then local a = 1 elseif y then local b = 2 else local c = 3 end do local d end" },
    true, H.NIL },
  { "a function inside a table constructor is a block", R.rewrite,
    { "local t = { f = function() local inner = 1 end } local after = 1" }, true,
    '_ENV("t") t  = { f = function() local inner = 1 end } _ENV("after") after  = 1' },
  { "numbers with exponents are not names", R.rewrite, { "local a = 0x1e local b = 1e-5" }, true,
    '_ENV("a") a  = 0x1e _ENV("b") b  = 1e-5' },
  { "a statement over several lines keeps its line breaks", function()
      local src = "local a,\n b\n = 1,\n 2"
      return lines(R.rewrite(src)) == lines(src)
    end, {}, true, true },
  { "no local: nothing to rewrite", R.rewrite, { "x = 1" }, true, H.NIL },

  -- what the session keeps
  { "a local stays for the next entry", session, { "local m = 41", "m + 1" }, true, 42 },
  { "and is not a global", function()
      session("local only_in_session = 1")
      return rawget(_G, "only_in_session")
    end, {}, true, H.NIL },
  { "the right-hand side reads the previous value", session,
    { "local a = 1", "local a = a + 10", "a" }, true, 11 },
  { "local x = x reads the global", function()
      _G.shadowed = "global"
      return session("local shadowed = shadowed .. ' copied'", "shadowed")
    end, {}, true, "global copied" },
  { "assigning a session variable keeps it in the session", function()
      local v = session("local s = 1", "s = 2", "s")
      return v == 2 and rawget(_G, "s") == nil
    end, {}, true, true },
  { "a name never declared is a global", function()
      session("made_global = 7")
      local v = rawget(_G, "made_global")
      _G.made_global = nil
      return v
    end, {}, true, 7 },
  { "multiple results are adjusted as for a local", session,
    { "local a, b, c = (function() return 1, 2 end)()", "a, b, c" }, true,
    check = function(a, b, c, d) return a == 1 and b == 2 and c == nil and d == nil, "got " ..
      tostring(a) .. " " .. tostring(b) .. " " .. tostring(c) end },
  { "local function recursion", session,
    { "local function fact(n) if n < 2 then return 1 end return n * fact(n - 1) end", "fact(5)" },
    true, 120 },
  { "a function keeps reading the session", session,
    { "local k = 2", "local function twice(x) return k * x end", "local k = 3", "twice(7)" },
    true, 21 },
  { "a const refuses a new value", function() return session("local c <const> = 5", "c = 6") end,
    {}, false, "attempt to assign to const variable 'c'", line = false },
  { "a const can be declared again", session, { "local c <const> = 5", "local c = 6", "c" },
    true, 6 },
  { "a close local is closed when its entry ends", function()
      local closed = false
      _G.closer = setmetatable({}, { __close = function() closed = true end })
      session("local x <close> = closer")
      _G.closer = nil
      return closed
    end, {}, true, true },
  { "a block's local does not leak", session, { "do local inner = 1 end", "inner" }, true, H.NIL },

  -- completion
  { "mbd.mod completes to mbd.model", R.complete, { "mbd.mod" }, true, { "mbd.model" } },
  { "a global", R.complete, { "pai" }, true, { "pairs" } },
  { "a session variable", function()
      session("local pendulum_model = mbd.model { dim = 2 }")
      return R.complete("pendulum_m")
    end, {}, true, { "pendulum_model" } },
  { "methods of a model after ':'", function()
      session("local m = mbd.model { dim = 2 }")
      local all = R.complete("m:")
      local set = {}
      for _, w in ipairs(all) do set[w] = true end
      return set["m:revolute"] and set["m:simulate"] and set["m:tree"] and not set["m:ground"]
    end, {}, true, true },
  { "a model's fields after '.'", function()
      session("local m = mbd.model { dim = 2 }")
      return R.complete("m.gr")
    end, {}, true, { "m.ground" } },
  { "a run's methods and fields", function()
      session("local m = mbd.model { dim = 2 }",
              "local b = m:body { name = 'b', mass = 1, inertia = 1, pos = {0, 0} }",
              "local run = m:simulate { t_end = 0.01 }")
      local w, s = R.complete("run:wr"), R.complete("run.st")
      return w[1] == "run:write_csv" and #w == 1 and s[1] == "run.stats"
    end, {}, true, true },
  { "string methods", function()
      session("local s = 'text'")
      return R.complete("s:up")
    end, {}, true, { "s:upper" } },
  { "a nested table", R.complete, { "mbd.sym.dif" }, true, { "mbd.sym.diff" } },
  { "nothing for an unknown name", R.complete, { "no_such_thing." }, true, {} },
  { "nothing for an expression", R.complete, { "(m):" }, true, {} },
}
H.run(cases, "cli: the REPL's session variables and completion")
