-- A tiny runner for Lua-level tests (STYLE.md 17).  A test script loads it with
--   local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")
-- and calls H.run(cases, title) with cases of the form {name, fn, args, ok, expected}:
--   ok = true:  fn(table.unpack(args)) must succeed.  expected is
--     a number   the first result within 1e-12·(1 + |expected|), or within case.tol when given;
--     a string or boolean: the first result equals it;
--     a table    compared entry by entry (numbers as above);
--     a function called with all the results: it returns true, or false and a message.
--   ok = false: fn must raise an error whose message contains expected (plain text) and starts
--     with "<script>:<line>: ", the line of the user's call: by default the line where fn is
--     defined (write the failing call on that line), or that line + case.line when given
--     (case.line = false skips the position check, for errors that have no script position).
-- The last line printed is "N passed, M failed"; the script exits with status 1 on a failure.
local H = {}

local function near(a, b, tol)
  return type(a) == "number" and math.abs(a - b) <= (tol or 1e-12 * (1 + math.abs(b)))
end

-- compare a result with an expected value; nil when equal, else a message
local function compare(got, expected, tol)
  if type(expected) == "number" then
    if not near(got, expected, tol) then
      return ("got %s, expected %.17g"):format(tostring(got), expected)
    end
  elseif type(expected) == "table" then
    if type(got) ~= "table" then return "got " .. type(got) .. ", expected a table" end
    for k, v in pairs(expected) do
      local m = compare(got[k], v, tol)
      if m then return "[" .. tostring(k) .. "] " .. m end
    end
  elseif got ~= expected then
    return ("got %s, expected %s"):format(tostring(got), tostring(expected))
  end
  return nil
end

-- the check of one case: nil when it passed, else a message
local function check(case)
  local name, fn, args, ok, expected = case[1], case[2], case[3] or {}, case[4], case[5]
  local res = table.pack(pcall(fn, table.unpack(args)))
  if ok then
    if not res[1] then return "raised: " .. tostring(res[2]) end
    if type(expected) == "function" then
      local good, msg = expected(table.unpack(res, 2, res.n))
      if not good then return msg or "check failed" end
      return nil
    end
    return compare(res[2], expected, case.tol)
  end
  if res[1] then return "no error raised (expected '" .. tostring(expected) .. "')" end
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
  local passed, failed = 0, 0
  for _, case in ipairs(cases) do
    local ok, msg = pcall(check, case)
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

return H
