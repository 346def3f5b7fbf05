-- mbd.sweep: run a function over a grid of parameters on all cores, with a progress bar.
--
--   local res = mbd.sweep {
--     params = { alpha = { from = 2, to = 40, n = 39 },        -- n evenly spaced values
--                beta  = { from = 0, to = 2, step = 0.05 },    -- or a step
--                gamma = { 0, 40, 800 } },                     -- or the values themselves
--     order = { "alpha", "beta" },   -- axis order (the first varies fastest); default: sorted names
--     fn = function(p) ... return { E1 = ..., E2 = ... } end,  -- p.alpha, p.beta: one grid point
--     workers = nil,                 -- processes; nil = all cores (mbd.ncores())
--     csv = "sweep.csv",             -- optional: one row per point, parameters then results
--     resume = true,                 -- go on from the checkpoint of an interrupted run (default)
--     progress = true,               -- progress bar on stderr when it is a terminal
--   }
--   res.points[k]      {alpha = .., beta = .., E1 = .., E2 = ..} (or .error = "message")
--   res.axes.alpha     the values of one parameter; res.order the parameter names
--   res:grid("E1")     2-D sweeps: matrix z[j][i] at (axes[order[1]][i], axes[order[2]][j]),
--                      ready for mbd.plot { kind = "heatmap", x = .., y = .., z = res:grid("E1") }
--   res:min("E1"), res:max("E1")   the point with the least / largest finite value
--   res.failed         number of points whose fn raised an error
--   res.time           wall time of the sweep (s); res.workers the processes used
--   res.write_error    set when the CSV could not be written: the message (the results are
--                      returned all the same, and kept in the checkpoint)
--   res.resumed        the number of points taken from a checkpoint
--
-- Nothing computed is lost: with csv, the destination is checked before the first point (a
-- missing folder or a forbidden file stops the sweep before it computes anything); every point
-- is appended to a checkpoint "<csv>.partial" as soon as it is done; the CSV is written at the
-- end, whole or not at all (mbd.write_file), and the checkpoint removed.  An interrupted sweep
-- (Ctrl-C, a crash, a killed job) leaves the checkpoint; the same sweep run again (the same
-- parameter names and values) takes its points from it and computes only the others
-- (resume = false starts afresh; a checkpoint of another sweep stops with a message).  A write
-- that fails (a full disk) is reported on stderr and in res.write_error, and the results are
-- returned.  NaN is written "nan".  Under mpirun there is no checkpoint (rank 0 writes the CSV).
--
-- fn runs in forked worker processes (mbd.parallel_map): build models before the sweep and only
-- read upvalues inside fn; what fn changes in Lua state is not seen by the caller.  A point whose
-- fn raises an error keeps its message in .error; the others go on.
--
-- Under mpirun (`mpirun -np 8 mbd study.lua`) every rank runs the script and the points are
-- shared among the ranks instead (workers is not used; res.workers is the number of ranks); each
-- rank gets every point's result, so the script goes on the same on all of them, and rank 0
-- alone writes the CSV (the same bytes as a local sweep's).
local sweep = {}

-- the memory a point takes in the caller at least (its table of parameters and one result, the
-- map's slot): 1e6 points measured 212 MB in all; a sweep that cannot fit stops before it starts
local POINT_BYTES = 200
local function gb(bytes)
  return string.format(bytes >= 1e11 and "%.0f GB" or "%.3g GB", bytes / 1e9)
end
local function limit_text(bytes, what)
  return string.format("%s%s, more than the %s allowed (a quarter of the memory, or "
                       .. "MBD_MAX_WORKSPACE_GB)", gb(bytes), what, gb(mbd.memory_limit()))
end
local function too_many(name, n)
  local limit = mbd.memory_limit()
  if limit > 0 and n * POINT_BYTES > limit then
    error(string.format("sweep: parameter '%s' has %.0f values: its points alone need at least %s",
                        name, n, limit_text(n * POINT_BYTES, "")), 4)
  end
end

local function values_of(name, spec)
  if type(spec) ~= "table" then
    error(string.format("sweep: parameter '%s' expects a list or {from =, to =, n = | step =}",
                        name), 3)
  end
  if spec.from ~= nil or spec.to ~= nil then
    local a, b = spec.from, spec.to
    if type(a) ~= "number" or type(b) ~= "number" then
      error(string.format("sweep: parameter '%s' needs numbers from and to", name), 3)
    end
    local v = {}
    if spec.n then
      local n = math.tointeger(spec.n)
      if not n or n < 1 then error(string.format("sweep: parameter '%s': n must be a positive integer", name), 3) end
      too_many(name, n)
      for i = 1, n do v[i] = n == 1 and a or a + (b - a) * (i - 1) / (n - 1) end
    elseif spec.step then
      local h = spec.step
      if not (h > 0) then error(string.format("sweep: parameter '%s': step must be positive", name), 3) end
      local n = math.floor((b - a) / h + 1e-9) + 1
      if not (n >= 1) then
        error(string.format("sweep: parameter '%s': no value from %g to %g", name, a, b), 3)
      end
      too_many(name, n)
      -- values a + k h, computed from k (no accumulated round-off)
      for i = 1, n do v[i] = a + (i - 1) * h end
    else
      error(string.format("sweep: parameter '%s' needs n or step", name), 3)
    end
    return v
  end
  if #spec == 0 then error(string.format("sweep: parameter '%s' has no values", name), 3) end
  for i, x in ipairs(spec) do
    if type(x) ~= "number" then
      error(string.format("sweep: parameter '%s': value %d is not a number", name, i), 3)
    end
  end
  return spec
end

local Result = {}
Result.__index = Result

function Result:grid(key)
  if #self.order ~= 2 then error("sweep: grid() needs a sweep over two parameters", 2) end
  local nx = #self.axes[self.order[1]]
  local z = {}
  for k, p in ipairs(self.points) do
    local i, j = (k - 1) % nx + 1, (k - 1) // nx + 1
    z[j] = z[j] or {}
    local v = p[key]
    z[j][i] = type(v) == "number" and v or (0 / 0)
  end
  return z
end

local function extreme(self, key, better)
  local best
  for _, p in ipairs(self.points) do
    local v = p[key]
    if type(v) == "number" and v == v and (not best or better(v, best[key])) then best = p end
  end
  return best
end

function Result:min(key) return extreme(self, key, function(a, b) return a < b end) end
function Result:max(key) return extreme(self, key, function(a, b) return a > b end) end

-- a number as the CSV writers write it: %.17g, and "nan" for every NaN (printf writes a NaN
-- with its sign bit as "-nan")
local function num(v)
  if v ~= v then return "nan" end
  return string.format("%.17g", v)
end

local function quote(s)
  return '"' .. tostring(s):gsub('"', '""'):gsub("\n", " ") .. '"'
end

local function csv_text(res)
  local keys, seen = {}, {}
  for _, name in ipairs(res.order) do seen[name] = true end
  for _, p in ipairs(res.points) do
    for k in pairs(p) do
      if not seen[k] and k ~= "error" and type(k) == "string" then seen[k] = true; keys[#keys + 1] = k end
    end
  end
  table.sort(keys)
  local cols = {}
  for _, n in ipairs(res.order) do cols[#cols + 1] = n end
  for _, k in ipairs(keys) do cols[#cols + 1] = k end
  local out = { table.concat(cols, ","), ",error\n" }
  for _, p in ipairs(res.points) do
    local row = {}
    for c, k in ipairs(cols) do
      local v = p[k]
      row[c] = type(v) == "number" and num(v) or ""
    end
    local e = p.error and quote(p.error) or ""
    out[#out + 1] = table.concat(row, ",") .. "," .. e .. "\n"
  end
  return table.concat(out)
end

local function warn(msg)
  io.stderr:write("mbd: warning: sweep: ", msg, "\n")
end

-- the checkpoint: "# " comment lines (the sweep's digest among them), the header
-- "point,key,value", then for each finished point its rows and a closing row "<point>,,".
-- Keys are quoted strings or bare integers, values numbers (%.17g, nan, inf) or quoted text.
local CHECK_VERSION = "# mbd sweep checkpoint, version 1"

-- the sweep's identity: parameter names and every value, exactly (%a)
local function digest(order, axes)
  local parts = {}
  for _, name in ipairs(order) do
    parts[#parts + 1] = name
    for _, v in ipairs(axes[name]) do parts[#parts + 1] = string.format("%a", v) end
    parts[#parts + 1] = ";"
  end
  return mbd.sha256(table.concat(parts, "\n"))
end

local function point_rows(k, r)
  local fields = {}
  if type(r) == "table" then
    for key, v in pairs(r) do fields[#fields + 1] = { key, v } end
  elseif type(r) == "number" then
    fields[1] = { "value", r }
  else
    fields[1] = { "error", tostring(r) }
  end
  table.sort(fields, function(a, b)
    local ta, tb = type(a[1]), type(b[1])
    if ta ~= tb then return ta == "number" end
    return a[1] < b[1]
  end)
  local out = {}
  for _, f in ipairs(fields) do
    local key = type(f[1]) == "string" and quote(f[1]) or string.format("%d", f[1])
    local v = f[2]
    out[#out + 1] = string.format("%d,%s,%s\n", k, key, type(v) == "number" and num(v) or quote(v))
  end
  out[#out + 1] = string.format("%d,,\n", k)
  return table.concat(out)
end

-- one CSV field from position i of line: the value (string, with quoted = true when it was
-- quoted) and the position after its comma
local function field(line, i)
  if line:sub(i, i) == '"' then
    local j, parts = i + 1, {}
    while true do
      local q = line:find('"', j, true)
      if not q then return nil end
      parts[#parts + 1] = line:sub(j, q - 1)
      if line:sub(q + 1, q + 1) == '"' then
        parts[#parts + 1] = '"'
        j = q + 2
      else
        return table.concat(parts), q + 2, true
      end
    end
  end
  local c = line:find(",", i, true)
  if c then return line:sub(i, c - 1), c + 1, false end
  return line:sub(i), #line + 2, false
end

local function number_of(text)
  if text == "nan" or text == "-nan" then return 0 / 0 end
  if text == "inf" then return math.huge end
  if text == "-inf" then return -math.huge end
  return tonumber(text)
end

-- the complete points of a checkpoint: raw[k] as parallel_map gives them; nil and a message
-- when the file is not a checkpoint of this sweep
local function read_checkpoint(path, sum)
  local f = io.open(path, "r")
  if not f then return {} , 0 end
  local first = f:read("l")
  local second = f:read("l")
  if first ~= CHECK_VERSION or second ~= "# sweep " .. sum then
    f:close()
    return nil, first == CHECK_VERSION and "it is the checkpoint of another sweep (other parameters)"
                or "it is not a checkpoint of mbd.sweep"
  end
  local raw, n, pending, pk = {}, 0, {}, nil
  for line in f:lines() do
    if line:sub(1, 1) ~= "#" and line ~= "point,key,value" and line ~= "" then
      local kt, i = field(line, 1)
      local k = math.tointeger(tonumber(kt))
      local key, j, quoted = field(line, i or 1)
      local vt, _, vquoted = field(line, j or 1)
      if k and key == "" and not quoted then
        -- a point's closing row: its fields are complete
        if pk == k then
          if pending.error ~= nil and next(pending, next(pending)) == nil then
            raw[k] = tostring(pending.error)
          else
            raw[k] = pending
          end
          n = n + 1
        end
        pending, pk = {}, nil
      elseif k and key then
        if pk ~= k then pending, pk = {}, k end
        local kk = quoted and key or math.tointeger(tonumber(key))
        local v = vquoted and vt or number_of(vt)
        if kk ~= nil and v ~= nil then pending[kk] = v end
      end
    end
  end
  f:close()
  return raw, n
end

function sweep.run(t)
  if type(t) ~= "table" then error("sweep: expects a table {params = ..., fn = ...}", 2) end
  local allowed = { params = true, order = true, fn = true, workers = true, csv = true, progress = true,
                    resume = true }
  for k in pairs(t) do
    if not allowed[k] then
      error("sweep: unknown field '" .. tostring(k) .. "' (fields: csv, fn, order, params, progress, "
            .. "resume, workers)", 2)
    end
  end
  if t.csv ~= nil and type(t.csv) ~= "string" then
    error("sweep: field 'csv' expects a file name", 2)
  end
  if type(t.fn) ~= "function" then error("sweep: field 'fn' expects a function(p)", 2) end
  if type(t.params) ~= "table" or next(t.params) == nil then
    error("sweep: field 'params' expects a table of parameter names and values", 2)
  end
  local order = t.order
  if order == nil then
    order = {}
    for k in pairs(t.params) do order[#order + 1] = k end
    table.sort(order)
  end
  local axes, sizes, total = {}, {}, 1
  for d, name in ipairs(order) do
    if t.params[name] == nil then error("sweep: order names '" .. tostring(name) .. "', which is not in params", 2) end
    axes[name] = values_of(name, t.params[name])
    sizes[d] = #axes[name]
    total = total * sizes[d]
  end
  for k in pairs(t.params) do
    if not axes[k] then error("sweep: parameter '" .. tostring(k) .. "' is missing from order", 2) end
  end
  local limit = mbd.memory_limit()
  if limit > 0 and total * POINT_BYTES > limit then
    local dims = {}
    for d, name in ipairs(order) do dims[d] = string.format("%d %s", sizes[d], name) end
    error(string.format("sweep: %.0f points (%s) need at least %s: sweep a coarser grid, or "
                        .. "split it into sweeps that each write a csv", total,
                        table.concat(dims, " × "), limit_text(total * POINT_BYTES,
                                                                " for their results")), 2)
  end
  -- point k (1-based): the first parameter varies fastest
  local function point(k)
    local p, r = {}, k - 1
    for d, name in ipairs(order) do
      p[name] = axes[name][r % sizes[d] + 1]
      r = r // sizes[d]
    end
    return p
  end
  local fn = t.fn
  local workers = t.workers or mbd.ncores()
  local ranks = mbd.mpi_size and mbd.mpi_size() or 1
  if ranks > 1 then workers = ranks end   -- under mpirun: the ranks share the points
  local writer = t.csv and (ranks == 1 or mbd.mpi_rank() == 0)

  -- the destination before the first point: a sweep that could not keep its results does not
  -- start; then the checkpoint of an interrupted run of this sweep, if there is one
  local raw, resumed, check, checkfile = {}, 0, nil, nil
  if writer then
    local ok, msg = mbd.check_writable(t.csv, "sweep")
    if not ok then error(msg .. " (checked before computing any point)", 2) end
    if ranks == 1 and not mbd.file_is_stream(t.csv) then
      checkfile = t.csv .. ".partial"
      local sum = digest(order, axes)
      if t.resume == false then
        os.remove(checkfile)
      else
        local got, n = read_checkpoint(checkfile, sum)
        if not got then
          error(string.format("sweep: '%s' is in the way: %s; remove it, or give resume = false "
                              .. "to start afresh", checkfile, n), 2)
        end
        raw, resumed = got, n
      end
      local f, e = io.open(checkfile, resumed > 0 and "a" or "w")
      if not f then
        error(string.format("sweep '%s': cannot write the checkpoint '%s': %s (checked before "
                            .. "computing any point)", t.csv, checkfile, tostring(e)), 2)
      end
      if resumed == 0 then
        f:write(CHECK_VERSION, "\n# sweep ", sum, "\n# each finished point: its rows, then "
                .. "\"<point>,,\"; a run of the same sweep goes on from here\npoint,key,value\n")
      end
      local ok2, e2 = f:flush()
      if not ok2 then
        f:close()
        error(string.format("sweep '%s': cannot write the checkpoint '%s': %s (checked before "
                            .. "computing any point)", t.csv, checkfile, tostring(e2)), 2)
      end
      check = f
      if resumed > 0 then
        warn(string.format("resuming from '%s': %d of %d points already computed", checkfile,
                           resumed, total))
      end
    end
  end

  -- the points still to compute; each is appended to the checkpoint as soon as it is done
  local todo = {}
  for k = 1, total do
    if raw[k] == nil then todo[#todo + 1] = k end
  end
  local check_error
  local function keep(j, r)
    local k = todo[j]
    raw[k] = r
    if check and not check_error then
      local ok, e = check:write(point_rows(k, r))
      if ok then ok, e = check:flush() end
      if not ok then
        check_error = tostring(e)
        warn(string.format("cannot append to the checkpoint '%s': %s (the sweep goes on; its "
                           .. "results stay in memory)", checkfile, check_error))
      end
    end
  end
  local t0 = os.time()
  local clock0 = mbd.wall_clock and mbd.wall_clock() or nil
  local okmap, got = pcall(mbd.parallel_map, #todo, function(j) return fn(point(todo[j])) end,
                           workers, t.progress ~= false, keep)
  if check then check:close() end
  if not okmap then
    if checkfile and not check_error then
      error(string.format("%s (the points computed so far are kept in '%s': run the same sweep "
                          .. "again to go on)", tostring(got), checkfile), 2)
    end
    error(got, 2)
  end
  for j, k in ipairs(todo) do raw[k] = got[j] end
  local res = setmetatable({ points = {}, axes = axes, order = order, failed = 0,
                             workers = math.min(workers, total), resumed = resumed },
                           Result)
  for k = 1, total do
    local p, r = point(k), raw[k]
    if type(r) == "table" then
      for key, v in pairs(r) do p[key] = v end
    elseif type(r) == "number" then
      p.value = r
    else
      p.error = tostring(r)
      res.failed = res.failed + 1
    end
    res.points[k] = p
  end
  res.time = clock0 and (mbd.wall_clock() - clock0) or os.difftime(os.time(), t0)

  -- the CSV whole or not at all; a failed write returns the results and says where they are
  if writer then
    local ok, msg = mbd.write_file(t.csv, csv_text(res), "sweep")
    if ok then
      if checkfile then os.remove(checkfile) end
    else
      res.write_error = msg
      local kept = (checkfile and not check_error) and string.format("; they are kept in '%s'",
                                                                     checkfile) or ""
      warn(string.format("%s: the results are returned%s", msg, kept))
    end
  end
  return res
end

return setmetatable(sweep, { __call = function(_, t) return sweep.run(t) end })
