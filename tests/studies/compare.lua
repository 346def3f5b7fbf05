-- Compare a script's printed output with its committed expected output (STYLE.md 17; the
-- SUNDIALS `.out` practice).  Run by the mbd program itself:
--   mbd compare.lua EXPECTED ACTUAL      exit 0 when they match; otherwise every mismatch (up to
--                                        10) is printed as "EXPECTED:LINE: output line N: ..."
--                                        with both lines, and the exit status is 1
-- or loaded as a module (dofile) for its function compare(expected_text, actual_text, name).
--
-- The expected file:
--   * its first line states the tolerance of numbers:   # compare: rtol=1e-4 atol=1e-12
--     followed by comment lines (starting with '#') that justify it;
--   * every other line not starting with '#' is a line of output, in order; a line of output that
--     itself starts with '#' or '\' is written with a '\' in front;
--   * "# next: rtol=R atol=A" overrides the tolerance for the next output line only (a key not
--     given keeps the header's value); any other '#' line is a comment.
-- Lines are compared item by item: a line is cut at blanks into fields (how many blanks does not
-- matter, so a column that widens does not fail), each field into items: numbers and the words
-- between them; a mismatch names the item by its place in the line.  A number is a decimal such
-- as 12, -0.945, 1e-05 or 9.45e-09 not preceded by a letter, digit or '_' (so "theta2" and "E1"
-- are words).
--   * words (the text between numbers) must be equal;
--   * a number must be within max(atol + rtol·|expected|, one unit in the last printed digit of
--     the expected) of the expected: a value printed as 3.6e-03 or 0.342852 can flip its last
--     digit on a change far below rtol, so the last digit is the finest claim it makes.  An
--     integer (no '.', no exponent) gets no such allowance: counts are compared with rtol/atol;
--   * in the expected file a number may carry its own tolerance, written right after it:
--     "158±10%" (relative) or "9.45e-09±1e-07" (absolute: for error measures, in effect a bound);
--   * "~" in the expected file matches any one number: for machine timings (CPU ms, wall time),
--     and for a number the file's header shows is not reproducible from one CPU to another (so
--     an output "~" cannot be expected literally).
-- When an output changes on purpose: run_compare.sh leaves the script's output as NAME.actual in
-- the build folder; carry the changed lines into the expected file, keeping its marks, and update
-- the header where a tolerance or its reason changes.
local M = {}

local PLUSMINUS = "\194\177"  -- "±" in UTF-8

-- the tolerance settings "rtol=R atol=A" of a header or "# next:" line, over defaults
local function settings(text, where, defaults)
  local tol = { rtol = defaults and defaults.rtol, atol = defaults and defaults.atol }
  for key, value in text:gmatch("(%a+)=(%S+)") do
    if key ~= "rtol" and key ~= "atol" then
      error(("%s: unknown tolerance '%s' (rtol or atol)"):format(where, key), 0)
    end
    tol[key] = tonumber(value) or error(("%s: %s=%s is not a number"):format(where, key, value), 0)
  end
  return tol
end

-- one unit in the last printed digit of a decimal written as text (0 for an integer)
local function last_digit_unit(text)
  local mant, exp = text:match("^[+-]?([%d%.]+)[eE]([+-]?%d+)$")
  if not mant then
    mant, exp = text:match("^[+-]?([%d%.]+)$"), 0
  end
  if not mant or not (mant:find(".", 1, true) or text:find("[eE]")) then return 0 end
  local decimals = #(mant:match("%.(%d*)$") or "")
  return 10.0 ^ (tonumber(exp) - decimals)
end

-- the fields of a line: {num = value, text = ...}, {word = text}, and in an expected line also
-- {any = true} for "~" and numbers with their own tolerance {num, text, rtol, atol}
local function fields(line, expected)
  local out = {}
  for field in line:gmatch("%S+") do
    local i, word = 1, {}
    local function flush()
      if #word > 0 then
        out[#out + 1] = { word = table.concat(word) }
        word = {}
      end
    end
    while i <= #field do
      local prev = i > 1 and field:sub(i - 1, i - 1) or ""
      local s, e
      if not prev:match("[%w_]") then
        for _, p in ipairs { "^[+-]?%d+%.?%d*[eE][+-]?%d+", "^[+-]?%d+%.?%d*",
                             "^[+-]?%.%d+[eE][+-]?%d+", "^[+-]?%.%d+" } do
          s, e = field:find(p, i)
          if s then break end
        end
      end
      if expected and field:sub(i, i) == "~" then
        flush()
        out[#out + 1] = { any = true }
        i = i + 1
      elseif s then
        flush()
        local text = field:sub(s, e)
        local f = { num = tonumber(text), text = text }
        i = e + 1
        if expected and field:sub(i, i + #PLUSMINUS - 1) == PLUSMINUS then
          local spec, pct = field:match("^([%d%.eE+-]+)(%%?)", i + #PLUSMINUS)
          local v = tonumber(spec or "")
          if not v then
            error("a '" .. PLUSMINUS .. "' must be followed by a number: " .. field, 0)
          end
          if pct == "%" then f.rtol, f.atol = v / 100, 0 else f.rtol, f.atol = 0, v end
          i = i + #PLUSMINUS + #spec + #pct
        end
        out[#out + 1] = f
      else
        word[#word + 1] = field:sub(i, i)
        i = i + 1
      end
    end
    flush()
  end
  return out
end

-- nil when the actual line matches the expected one, else what differs (every field that does)
local function compare_line(exp_line, act_line, tol)
  local want, got = fields(exp_line, true), fields(act_line, false)
  local diffs = {}
  if #want ~= #got then
    diffs[1] = ("%d items, expected %d"):format(#got, #want)
  end
  for k = 1, math.min(#want, #got) do
    local w, g = want[k], got[k]
    if w.word then
      if g.word ~= w.word then
        diffs[#diffs + 1] = ("item %d: got '%s', expected '%s'"):format(k, g.word or g.text, w.word)
      end
    elseif not g.num then
      diffs[#diffs + 1] = ("item %d: got '%s', expected a number"):format(k, g.word)
    elseif w.num then
      local rtol, atol = w.rtol or tol.rtol, w.atol or tol.atol
      local allowed = math.max(atol + rtol * math.abs(w.num), last_digit_unit(w.text))
      -- the 1e-9 margin absorbs the binary representation of decimal tolerances
      if not (math.abs(g.num - w.num) <= allowed * (1 + 1e-9)) then
        diffs[#diffs + 1] = ("item %d: got %s, expected %s within %.3g")
                            :format(k, g.text, w.text, allowed)
      end
    end
    -- after an item missing or extra, the rest is shifted: the first difference tells
    if #want ~= #got and #diffs > 1 then break end
  end
  return #diffs > 0 and table.concat(diffs, "; ") or nil
end

local function lines(text)
  local out = {}
  for l in (text:gsub("\n$", "") .. "\n"):gmatch("(.-)\n") do out[#out + 1] = l end
  if text == "" then out = {} end
  return out
end

-- compare the texts; returns a list of mismatches, each "NAME:LINE: output line N: ..." followed
-- by the two lines (empty when they match).  A malformed expected text raises an error.
-- the output lines of an expected text: a list of {text, at (its line in the file), tol}
function M.expected_lines(expected_text, name)
  name = name or "expected"
  local exp_lines = lines(expected_text)
  local header = exp_lines[1] and exp_lines[1]:match("^# compare:(.*)$")
  if not header then
    error(name .. ":1: the first line must state the tolerance: # compare: rtol=R atol=A", 0)
  end
  local default = settings(header, name .. ":1", nil)
  if not (default.rtol and default.atol) then
    error(name .. ":1: the header must give both rtol and atol", 0)
  end
  -- the expected output lines, each with its line in the file and its tolerance
  local want, next_tol = {}, nil
  for i = 2, #exp_lines do
    local l = exp_lines[i]
    local directive = l:match("^# next:(.*)$")
    if directive then
      next_tol = settings(directive, name .. ":" .. i, default)
    elseif l:sub(1, 1) ~= "#" then
      if l:sub(1, 1) == "\\" then l = l:sub(2) end
      want[#want + 1] = { text = l, at = i, tol = next_tol or default }
      next_tol = nil
    end
  end
  return want, #exp_lines
end

-- nil when the line `actual` matches the expected line `expected` (with its marks) under the
-- tolerance {rtol, atol}, else what differs
M.compare_line = compare_line

function M.compare(expected_text, actual_text, name)
  name = name or "expected"
  local want, nlines = M.expected_lines(expected_text, name)
  local exp_lines = { n = nlines }
  local got = lines(actual_text)
  local problems = {}
  local function problem(at, n, what, w, g)
    if #problems >= 10 then return end
    problems[#problems + 1] = ("%s:%s: output line %d: %s\n  expected: %s\n  got:      %s")
                              :format(name, at, n, what, w or "(no line)", g or "(no line)")
  end
  for n = 1, math.max(#want, #got) do
    local w, g = want[n], got[n]
    if not w then
      problem(exp_lines.n, n, "extra line (" .. #got .. " lines printed, " .. #want .. " expected)",
              nil, g)
    elseif not g then
      problem(w.at, n, "missing (" .. #got .. " lines printed, " .. #want .. " expected)", w.text,
              nil)
    else
      local what = compare_line(w.text, g, w.tol)
      if what then problem(w.at, n, what, w.text, g) end
    end
  end
  return problems
end

local function read(file)
  local f, err = io.open(file, "rb")
  if not f then error(err, 0) end
  local text = f:read("a")
  f:close()
  return text
end

-- run as a script: mbd compare.lua EXPECTED ACTUAL
if arg and debug.getinfo(1, "S").source == "@" .. tostring(arg[0]) then
  local expected, actual = arg[1], arg[2]
  if not (expected and actual) then
    io.stderr:write("usage: mbd compare.lua EXPECTED ACTUAL\n")
    os.exit(2)
  end
  local name = expected:match("([^/\\]+)$")
  local problems = M.compare(read(expected), read(actual), name)
  if #problems > 0 then
    print(("%s: the output in %s differs from the expected output:"):format(name, actual))
    for _, p in ipairs(problems) do print(p) end
    io.stdout:flush()
    os.exit(1, true)
  end
  print(("%s: %d lines match"):format(name, #lines(read(actual))))
end

return M
