-- The one runner of Lua-level test cases (STYLE.md 17), for scripts run by the mbd program and by
-- lua_runner (which sets no `arg`).  A test script finds it beside itself by its own source path:
--   local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
-- and calls H.run(cases, title).  A case is
--   {name, fn, args, ok, expected, tol = T, line = L, check = F, only_runs = WHY}
-- with at most five positional elements: a sixth raises an error (a tolerance is written tol = T,
-- never by position).  fn(table.unpack(args)) runs under pcall.
--   ok = true: the case states what it checks, by exactly one of
--     expected (5th)  compared with the first result:
--                       a number   within tol (absolute) when given, else within
--                                  1e-12·max(1, |expected|);
--                                  a case that gives tol says why in a comment;
--                       a string   equal; a result with a __tostring metamethod (an mbd.Sym, a
--                                  model object) is compared by its printed form;
--                       a boolean  equal;
--                       a table    the same keys, entry by entry (recursively, numbers as above);
--                       H.NIL      the first result must be nil (a nil 5th element means "none")
--     check = F       called with all the results; it returns true, or false and a message
--     only_runs = WHY the case checks only that fn does not raise; WHY (a non-empty string) says
--                     why its result is not compared.  A placeholder such as expected = "no error"
--                     is not the way: the result would be compared with it.
--   ok = false: fn must raise an error whose message contains expected (plain text) and starts
--     with "<script>:<line>: ", the line of the user's call: the line where fn is defined (write
--     the failing call on that line), or that line + line when given; line = false skips the
--     position check, for errors with no script position (a C function passed as fn, ...).
-- A malformed case (a sixth element, an unknown key, no statement or two, tol without a number to
-- apply it to, line on a case that must succeed) raises an error before any case runs.
-- FAIL lines go to standard error; the last line printed is "N passed, M failed"; the script
-- exits with status 1 when a case failed.
local H = {}

-- the expected value "the first result is nil"
H.NIL = setmetatable({}, { __tostring = function() return "nil" end })

local KEYS = { tol = true, line = true, check = true, only_runs = true }

local function has_number(v)
  if type(v) == "number" then return true end
  if type(v) == "table" and v ~= H.NIL then
    for _, x in pairs(v) do
      if has_number(x) then return true end
    end
  end
  return false
end

-- raise when a case is malformed, positioned at the caller of validate (level 1, the default)
-- or at its caller's caller (2)
function H.validate(case, index, level)
  local what = ("case %s"):format(type(case) == "table" and type(case[1]) == "string"
                                  and ("'" .. case[1] .. "'") or ("#" .. tostring(index)))
  local function bad(msg) error(what .. ": " .. msg, 2 + (level or 1)) end
  if type(case) ~= "table" then bad("is not a table") end
  for k in pairs(case) do
    if math.type(k) == "integer" then
      if k == 6 then bad("a sixth element; write a tolerance as tol = ...") end
      if k < 1 or k > 6 then bad("positional element " .. k .. "; a case has five") end
    elseif not KEYS[k] then
      bad("unknown key '" .. tostring(k) .. "' (tol, line, check, only_runs)")
    end
  end
  if type(case[1]) ~= "string" then bad("the name (1st element) must be a string") end
  if type(case[2]) ~= "function" then bad("fn (2nd element) must be a function") end
  if case[3] ~= nil and type(case[3]) ~= "table" then bad("args (3rd element) must be a table") end
  if type(case[4]) ~= "boolean" then bad("ok (4th element) must be true or false") end
  if case.tol ~= nil and not (type(case.tol) == "number" and case.tol >= 0) then
    bad("tol must be a number >= 0")
  end
  if case[4] then
    local n = (case[5] ~= nil and 1 or 0) + (case.check ~= nil and 1 or 0)
              + (case.only_runs ~= nil and 1 or 0)
    if n ~= 1 then
      bad("a case that must succeed states exactly one of expected (5th element), check = "
          .. "function or only_runs = \"why\"")
    end
    if type(case[5]) == "function" then bad("a function as expected; write it as check = ...") end
    if case.check ~= nil and type(case.check) ~= "function" then bad("check must be a function") end
    local why = case.only_runs
    if why ~= nil and not (type(why) == "string" and why:find("%S")) then
      bad("only_runs must say why the result is not compared")
    end
    if case.tol ~= nil and not has_number(case[5]) then
      bad("tol given but no number is expected")
    end
    if case.line ~= nil then bad("line applies to a case that must raise") end
  else
    if type(case[5]) ~= "string" then bad("a case that must raise expects a message (a string)") end
    if case.check ~= nil or case.only_runs ~= nil or case.tol ~= nil then
      bad("check, only_runs and tol apply to a case that must succeed")
    end
    if case.line ~= nil and case.line ~= false and math.type(case.line) ~= "integer" then
      bad("line must be an integer offset or false")
    end
  end
end

local function near(a, b, tol)
  return type(a) == "number" and math.abs(a - b) <= (tol or 1e-12 * math.max(1, math.abs(b)))
end

local function show(v)
  if type(v) == "number" then return ("%.17g"):format(v) end
  if type(v) == "string" then return ("'%s'"):format(v) end
  return tostring(v)
end

-- compare a result with an expected value; nil when equal, else a message
local function compare(got, expected, tol)
  if expected == H.NIL then
    if got ~= nil then return "got " .. show(got) .. ", expected nil" end
  elseif type(expected) == "number" then
    if not near(got, expected, tol) then
      return ("got %s, expected %s"):format(show(got), show(expected))
    end
  elseif type(expected) == "table" then
    if type(got) ~= "table" then return "got " .. type(got) .. ", expected a table" end
    for k, v in pairs(expected) do
      local m = compare(got[k], v, tol)
      if m then return "[" .. tostring(k) .. "] " .. m end
    end
    for k in pairs(got) do
      if expected[k] == nil then return "[" .. tostring(k) .. "] is not expected" end
    end
  elseif type(expected) == "string" and type(got) ~= "string" then
    local mt = getmetatable(got)
    if not (type(mt) == "table" and mt.__tostring) then
      return ("got %s, expected %s"):format(show(got), show(expected))
    end
    if tostring(got) ~= expected then
      return ("got %s printed as '%s', expected '%s'"):format(type(got), tostring(got), expected)
    end
  elseif got ~= expected then
    return ("got %s, expected %s"):format(show(got), show(expected))
  end
  return nil
end

-- the check of one (valid) case: nil when it passed, else a message
function H.check(case)
  local fn, args, ok, expected = case[2], case[3] or {}, case[4], case[5]
  local res = table.pack(pcall(fn, table.unpack(args)))
  if ok then
    if not res[1] then return "raised: " .. tostring(res[2]) end
    if case.check then
      local good, msg = case.check(table.unpack(res, 2, res.n))
      if good ~= true then return msg or "check failed" end
      return nil
    end
    if case.only_runs then return nil end
    return compare(res[2], expected, case.tol)
  end
  if res[1] then return "no error raised (expected '" .. expected .. "')" end
  local msg = tostring(res[2])
  if not msg:find(expected, 1, true) then
    return ("error '%s' lacks '%s'"):format(msg, expected)
  end
  if case.line ~= false then
    local info = debug.getinfo(fn, "S")
    local where = ("%s:%d: "):format(info.short_src, info.linedefined + (case.line or 0))
    if msg:sub(1, #where) ~= where then
      return ("error '%s' does not start with '%s'"):format(msg, where)
    end
  end
  return nil
end

function H.run(cases, title)
  for i, case in ipairs(cases) do H.validate(case, i, 2) end
  local passed, failed = 0, 0
  for _, case in ipairs(cases) do
    local ok, msg = pcall(H.check, case)
    if ok and msg == nil then
      passed = passed + 1
    else
      failed = failed + 1
      io.stderr:write(("FAIL %s: %s\n"):format(case[1], tostring(msg)))
    end
  end
  if title then print(title) end
  print(("%d passed, %d failed"):format(passed, failed))
  io.stdout:flush()
  if failed > 0 then os.exit(1, true) end
end

-- file helpers for the tests that write files (no lfs in the mbd program): a shell command's
-- success, a word (or number) quoted for the shell, a file written whole, a file's contents (nil
-- when it cannot be read; with must, an error naming the file instead)
function H.sh(cmd) return os.execute(cmd) == true end
function H.q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end
function H.read(path, must)
  local f, err = io.open(path, "rb")
  if not f then
    if must then error(err, 2) end
    return nil
  end
  local s = f:read("a")
  f:close()
  return s
end

return H
