-- mbd.study: helpers for reproducible studies — output folders, aligned tables, timing repeats.
--
--   local study = require "mbd.study"
--   local out = study.outdir(arg, "out/paper000")         -- arg[1] or the default, created
--   study.table { title = "Table 1", header = {"method", "nfev"}, rows = {{"kane", 157}} }
--   local run, cpu = study.best_of(3, function() return m:simulate{...} end)   -- least CPU of 3
--   local run, cpu = study.timed(5, function(every) return m:simulate{..., output_every = every or 0.01} end, t_end)
local study = {}

-- the output folder: the script's first argument, else the default; created if missing
function study.outdir(args, default)
  local dir = (args and args[1]) or default or "out"
  os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
  return dir
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

-- time a simulation apart from its recording: fn(every) must run the simulation sampling its
-- channels every `every` seconds.  It is timed n times with every = t_end (one sample at the end:
-- recording a sample costs a full evaluation, which would otherwise weigh on the CPU times of the
-- formulations that do position analyses), keeping the least CPU, then run once with every = nil
-- (the script's own sampling) for tables and figures.  Returns that run and the CPU time.
function study.timed(n, fn, t_end)
  local _, cpu = study.best_of(n, function() return fn(t_end) end)
  return fn(nil), cpu
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
