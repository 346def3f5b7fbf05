-- The comparator of expected output (compare.lua) can fail: fed the flagship table's expected file
-- and perturbed outputs (a number changed in the 4th digit, a count beyond its tolerance, a missing
-- line, a changed word, ...), it reports a mismatch naming the line; the faithful output and
-- changed timings pass.  Run with the mbd program (cases: tests/lua/harness.lua):
--   mbd tests/studies/test_compare.lua
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local C = dofile(here .. "/compare.lua")

local function read(file) return H.read(file, true) end

local write = H.write

local NAME = "double_pendulum.out"
local EXPECTED_FILE = here .. "/expected/" .. NAME
local EXPECTED = read(EXPECTED_FILE)

-- the lines of a text
local function lines(text)
  local out = {}
  for l in text:gmatch("([^\n]*)\n") do out[#out + 1] = l end
  local last = text:match("([^\n]+)$")
  if last then out[#out + 1] = last end
  return out
end

-- the output the expected file describes: its output lines with the marks resolved (a timing
-- "~" printed as 1.23, each "±tolerance" dropped)
local function faithful(expected)
  local out = {}
  for _, l in ipairs(lines(expected)) do
    if l:sub(1, 1) ~= "#" then
      l = l:gsub("^\\", ""):gsub("\194\177[^%s]*", ""):gsub("~", "1.23")
      out[#out + 1] = l
    end
  end
  return table.concat(out, "\n") .. "\n"
end
local OUTPUT = faithful(EXPECTED)

-- where a line starting with `start` is: its line in the expected file and in the output
local function where(start)
  local output_line = 0
  for i, l in ipairs(lines(EXPECTED)) do
    if l:sub(1, 1) ~= "#" then
      output_line = output_line + 1
      if l:sub(1, #start) == start then return i, output_line end
    end
  end
  error("no line starts with " .. start)
end

-- the output with the first `old` replaced by `new` (plain text)
local function perturbed(old, new)
  local s, e = OUTPUT:find(old, 1, true)
  assert(s, "no '" .. old .. "' in the output")
  return OUTPUT:sub(1, s - 1) .. new .. OUTPUT:sub(e + 1)
end

-- compare a perturbed output; the result: the list of mismatches
local function compare(actual, expected, name)
  return C.compare(expected or EXPECTED, actual, name or NAME)
end

-- a check: no mismatch
local function matches(problems)
  return #problems == 0, table.concat(problems, "\n")
end

-- a check: a first mismatch on the line of the expected file that starts with `start`, naming
-- that line and containing each text of `...`
local function reports(start, ...)
  local texts = { ... }
  return function(problems)
    if #problems == 0 then return false, "no mismatch reported" end
    local file_line, output_line = where(start)
    local head = ("%s:%d: output line %d: "):format(NAME, file_line, output_line)
    if problems[1]:sub(1, #head) ~= head then
      return false, ("'%s' does not start with '%s'"):format(problems[1], head)
    end
    for _, t in ipairs(texts) do
      if not problems[1]:find(t, 1, true) then
        return false, ("'%s' lacks '%s'"):format(problems[1], t)
      end
    end
    return true
  end
end

-- a small expected file and what it must accept or report
local function small(body) return "# compare: rtol=1e-4 atol=0\n" .. body end

-- run `mbd compare.lua EXPECTED ACTUAL` as ctest runs it; returns the exit status and the output
local function cli(actual)
  local mbd = arg and arg[-1]
  if not mbd then error("run by the mbd program: arg[-1] names it") end
  local file = os.tmpname()
  write(file, actual)
  local q = H.q
  local p = io.popen(table.concat({ q(mbd), q(here .. "/compare.lua"), q(EXPECTED_FILE), q(file) },
                                  " ") .. " 2>&1")
  local out = p:read("a")
  local _, _, status = p:close()
  os.remove(file)
  return status, out
end

local kane_line = select(2, where("kane"))

local cases = {
  -- what must pass
  { "the faithful output matches", compare, { OUTPUT }, true, check = matches },
  { "timings are free (~)", compare, { perturbed("1.23", "987.65") }, true, check = matches },
  { "a count within its 10%", compare, { perturbed("158", "170") }, true, check = matches },
  { "an error measure within its bound", compare, { perturbed("9.48e-09", "5.1e-08") }, true,
    check = matches },
  { "more or fewer blanks between fields", compare,
    { perturbed("kane            158", "kane 158") }, true, check = matches },

  -- what must fail, naming the line
  { "a result changed in the 4th digit", compare, { perturbed("0.342852", "0.342952") }, true,
    check = reports("kane", "item 5: got 0.342952, expected 0.342852") },
  { "a count beyond its 10%", compare, { perturbed("158", "176") }, true,
    check = reports("kane", "got 176, expected 158") },
  { "an error measure beyond its bound", compare, { perturbed("9.48e-09", "2.0e-07") }, true,
    check = reports("kane", "got 2.0e-07, expected 9.48e-09") },
  { "a missing line", compare, { (OUTPUT:gsub("\ngcp [^\n]*", "", 1)) }, true,
    check = reports("gcp", "got 'baumgarte', expected 'gcp'") },
  { "a changed word", compare, { perturbed("revolute O", "prismatic O") }, true,
    check = reports("  joints:", "got '(prismatic', expected '(revolute'") },
  { "a word for a number", compare, { perturbed("0.342852", "nan") }, true,
    check = reports("kane", "got 'nan', expected a number") },
  { "a field missing", compare, { perturbed("     0.342852", "") }, true,
    check = reports("kane", "items, expected") },
  { "an extra line at the end", compare, { OUTPUT .. "one more\n" }, true,
    check = function(p)
      return #p == 1 and p[1]:find("extra line", 1, true) ~= nil and p[1]:find("one more", 1, true)
             ~= nil, table.concat(p, "\n")
    end },
  { "the mismatch shows both lines", compare, { perturbed("0.342852", "0.342952") }, true,
    check = function(p)
      return p[1]:find("\n  expected: kane", 1, true) ~= nil
             and p[1]:find("\n  got:      kane", 1, true) ~= nil, p[1]
    end },

  -- the rules on a small file: the last printed digit, integers, "# next:", escapes
  { "one unit in the last printed digit passes", compare, { "x 3.7e-03\n", small("x 3.6e-03\n") },
    true, check = matches },
  { "two units fail", compare, { "x 3.8e-03\n", small("x 3.6e-03\n"), "small.out" }, true,
    check = function(p) return #p == 1 and p[1]:find("small.out:2: output line 1: ", 1, true) == 1,
                               table.concat(p, "\n") end },
  { "an integer has no last-digit allowance", compare, { "n 159\n", small("n 158\n") }, true,
    check = function(p) return #p == 1, "integers must differ" end },
  { "# next: sets the next line's tolerance only", compare,
    { "n 105\nn 105\n", small("# next: rtol=0.1\nn 100\nn 100\n"), "small.out" }, true,
    check = function(p) return #p == 1 and p[1]:find("small.out:4: output line 2: ", 1, true) == 1,
                               table.concat(p, "\n") end },
  { "an escaped # line is output", compare, { "# not a comment\n", small("\\# not a comment\n") },
    true, check = matches },
  { "~ matches a number only", compare, { "cpu fast ms\n", small("cpu ~ ms\n") }, true,
    check = function(p) return #p == 1 and p[1]:find("expected a number", 1, true) ~= nil,
                               table.concat(p, "\n") end },

  -- a malformed expected file is an error, not a pass (no script position: the file is named)
  { "no tolerance header", compare, { "x 1\n", "x 1\n", "bad.out" }, false,
    "bad.out:1: the first line must state the tolerance", line = false },
  { "a header without atol", compare, { "x 1\n", "# compare: rtol=1e-4\nx 1\n", "bad.out" }, false,
    "bad.out:1: the header must give both rtol and atol", line = false },
  { "an unknown tolerance key", compare, { "x 1\n", small("# next: reltol=1\nx 1\n"), "bad.out" },
    false, "bad.out:2: unknown tolerance 'reltol'", line = false },
  { "a ± without a number", compare, { "x 1\n", small("x 1\194\177%\n") }, false,
    "must be followed by a number", line = false },

  -- the program as ctest runs it: exit status 1 and the line named; 0 when it matches
  { "mbd compare.lua: a mismatch exits 1 naming the line", cli,
    { perturbed("0.342852", "0.342952") }, true,
    check = function(status, out)
      local file_line = where("kane")
      local head = ("%s:%d: output line %d: "):format(NAME, file_line, kane_line)
      return status == 1 and out:find(head, 1, true) ~= nil, ("status %s: %s"):format(status, out)
    end },
  { "mbd compare.lua: a match exits 0", cli, { OUTPUT }, true,
    check = function(status, out) return status == 0, ("status %s: %s"):format(status, out) end },
}

H.run(cases, "compare.lua")
