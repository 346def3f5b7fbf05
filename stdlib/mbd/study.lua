-- mbd.study: helpers for reproducible studies — output folders, aligned tables, timing repeats.
--
--   local study = require "mbd.study"
--   local out = study.outdir(arg, "out/paper000")         -- arg[1] or the default, created
--   local models = study.beside(arg, "models.lua")         -- a file beside the script, run
--   study.table { title = "Table 1", header = {"method", "nfev"}, rows = {{"kane", 157}} }
--   local run, cpu = study.best_of(3, function() return m:simulate{...} end)   -- least CPU of 3
--   local row, run = study.timed(5, function(every) return m:simulate{..., output_every = every or 0.01} end, t_end)
--   local claims = study.claims(); claims:within("E1 ratio", r, 10, nil); claims:finish()
local study = {}

-- the output folder: the script's first argument, else the default; created if missing
function study.outdir(args, default)
  local dir = (args and args[1]) or default or "out"
  require("mbd").mkdir(dir)
  return dir
end

-- the values returned by the Lua file `name` beside the running script (args[0]'s folder, else
-- the current one): the models and helpers a study's scripts share
function study.beside(args, name)
  local here = (args and args[0] or ""):match("^(.*)/[^/]*$") or "."
  return dofile(here .. "/" .. name)
end

-- 1..n in a random order (math.random, Fisher-Yates): benchmark rounds visit their entries so,
-- and a drift of the machine's speed spreads over all of them
function study.shuffled(n)
  local order = {}
  for i = 1, n do order[i] = i end
  for i = #order, 2, -1 do
    local j = math.random(i)
    order[i], order[j] = order[j], order[i]
  end
  return order
end

local function cell(v, fmt)
  if type(v) == "number" then
    if fmt then return string.format(fmt, v) end
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.4g", v)
  end
  return v == nil and "-" or tostring(v)
end

-- print an aligned table: header = {names}, rows = {{values}}, formats = {"%.3f", ...} optional
function study.table(t)
  if type(t) ~= "table" or type(t.header) ~= "table" or type(t.rows) ~= "table" then
    error("study.table: expects {header = {...}, rows = {{...}}}", 2)
  end
  local fmts = t.formats or {}
  local text, width = {}, {}
  for j, h in ipairs(t.header) do width[j] = #h end
  for i, row in ipairs(t.rows) do
    text[i] = {}
    for j = 1, #t.header do
      text[i][j] = cell(row[j], fmts[j])
      width[j] = math.max(width[j], utf8.len(text[i][j]) or #text[i][j])
    end
  end
  local function line(cells)
    local parts = {}
    for j, c in ipairs(cells) do
      local pad = width[j] - (utf8.len(c) or #c)
      parts[j] = j == 1 and (c .. string.rep(" ", pad)) or (string.rep(" ", pad) .. c)
    end
    return table.concat(parts, "  ")
  end
  if t.title then print(t.title) end
  print(line(t.header))
  local rule = {}
  for j = 1, #t.header do rule[j] = string.rep("-", width[j]) end
  print(table.concat(rule, "  "))
  for i = 1, #text do print(line(text[i])) end
  print()
end

-- run fn() n times and keep the result with the least CPU time (run.stats.cpu_time): CPU times
-- of runs this short vary by tens of percent from one repeat to the next
function study.best_of(n, fn)
  local best, cpu
  for _ = 1, n do
    local r = fn()
    local c = r.stats.cpu_time
    if not cpu or c < cpu then best, cpu = r, c end
  end
  return best, cpu
end

-- a table row and its figures from the same computation.  fn(every) must run the simulation
-- sampling its channels every `every` seconds (every = nil: the script's own sampling).  The row
-- is the least-CPU run of n with every = t_end (one sample at the end: each sample costs an
-- evaluation, which would weigh on the CPU times of the formulations that do position analyses);
-- its statistics and CPU time make the row.  Then fn(nil) is run once for tables of sampled values
-- and figures.  Recording does not steer the integration, so both take the same steps: an error is
-- raised if steps, evaluations or rejected steps differ.  Returns the row's run and the sampled run.
function study.timed(n, fn, t_end)
  local row = study.best_of(n, function() return fn(t_end) end)
  local sampled = fn(nil)
  for _, k in ipairs { "steps", "nfev", "rejected" } do
    if row.stats[k] ~= sampled.stats[k] then
      error(string.format("study.timed: %s %d with one sample, %d when sampled: recording steered "
                          .. "the integration", k, row.stats[k], sampled.stats[k]), 2)
    end
  end
  return row, sampled
end

-- claims: what a reproduction states, each checked with a stated tolerance.  Every check prints
-- one line, "[ok]" or "[FAIL]", the value and what it had to satisfy; finish() prints the tally and
-- ends the script with exit status 1 when a claim failed (a reproduction that no longer holds fails
-- its test, not only its reader's eye).
--   local claims = study.claims()
--   claims:near("Fig. 3: GCP - KANE [rad]", d, 0, { atol = 1e-9 })   -- |v - e| <= atol + rtol |e|
--   claims:within("Fig. 3: CS - KANE [rad]", d, 2e-6, 2e-4)          -- lo <= v <= hi
--   claims:holds("KANE and GCP take the same steps", a == b, a .. " / " .. b)
--   claims:finish()
local Claims = {}
Claims.__index = Claims

function study.claims()
  return setmetatable({ n = 0, failed = {} }, Claims)
end

local function show(v)
  if type(v) == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.3g", v)
  end
  return tostring(v)
end

-- record one claim: ok, its name and what was seen
function Claims:holds(name, ok, seen)
  if type(name) ~= "string" then error("claims: a claim needs a name", 2) end
  self.n = self.n + 1
  if not ok then self.failed[#self.failed + 1] = name end
  print(string.format("%s %s%s", ok and "[ok]  " or "[FAIL]", name, seen and (": " .. seen) or ""))
  return ok
end

-- |value - expected| <= atol + rtol |expected| (tol = {rtol =, atol =}, either may be omitted)
function Claims:near(name, value, expected, tol)
  local rtol, atol = tol and tol.rtol or 0, tol and tol.atol or 0
  local ok = type(value) == "number" and math.abs(value - expected) <= atol + rtol * math.abs(expected)
  local spec = rtol > 0 and string.format("%s within %g%%", show(expected), 100 * rtol)
               or string.format("%s within %s", show(expected), show(atol))
  if rtol > 0 and atol > 0 then spec = spec .. " + " .. show(atol) end
  return self:holds(name, ok, string.format("%s (%s)", show(value), spec))
end

-- lo <= value <= hi (either bound may be nil)
function Claims:within(name, value, lo, hi)
  local ok = type(value) == "number" and (lo == nil or value >= lo) and (hi == nil or value <= hi)
  local spec = lo and hi and string.format("in [%s, %s]", show(lo), show(hi))
               or lo and ">= " .. show(lo) or "<= " .. show(hi)
  return self:holds(name, ok, string.format("%s (%s)", show(value), spec))
end

-- the tally; exit status 1 when a claim failed
function Claims:finish()
  if #self.failed == 0 then
    print(string.format("claims: all %d hold", self.n))
    return true
  end
  print(string.format("claims: %d of %d FAIL: %s", #self.failed, self.n, table.concat(self.failed, "; ")))
  io.stdout:flush()
  os.exit(1, true)
end

-- largest |a(t) - b(t)| of a channel between two runs, on the samples of a
function study.max_difference(a, b, channel)
  local t, va = a:series(channel)
  local worst = 0
  for i = 1, #t do
    worst = math.max(worst, math.abs(va[i] - b:value(channel, t[i])))
  end
  return worst
end

return study
