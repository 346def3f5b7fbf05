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
--     progress = true,               -- progress bar on stderr when it is a terminal
--   }
--   res.points[k]      {alpha = .., beta = .., E1 = .., E2 = ..} (or .error = "message")
--   res.axes.alpha     the values of one parameter; res.order the parameter names
--   res:grid("E1")     2-D sweeps: matrix z[j][i] at (axes[order[1]][i], axes[order[2]][j]),
--                      ready for mbd.plot { kind = "heatmap", x = .., y = .., z = res:grid("E1") }
--   res:min("E1"), res:max("E1")   the point with the least / largest finite value
--   res.failed         number of points whose fn raised an error
--   res.time           wall time of the sweep (s); res.workers the processes used
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

local function write_csv(file, res)
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
  local f, err = io.open(file, "w")
  if not f then error("sweep: cannot write '" .. file .. "': " .. tostring(err), 3) end
  f:write(table.concat(cols, ","), ",error\n")
  for _, p in ipairs(res.points) do
    local row = {}
    for c, k in ipairs(cols) do
      local v = p[k]
      row[c] = type(v) == "number" and string.format("%.17g", v) or ""
    end
    local e = p.error and ('"' .. tostring(p.error):gsub('"', '""'):gsub("\n", " ") .. '"') or ""
    f:write(table.concat(row, ","), ",", e, "\n")
  end
  f:close()
end

function sweep.run(t)
  if type(t) ~= "table" then error("sweep: expects a table {params = ..., fn = ...}", 2) end
  local allowed = { params = true, order = true, fn = true, workers = true, csv = true, progress = true }
  for k in pairs(t) do
    if not allowed[k] then
      error("sweep: unknown field '" .. tostring(k) .. "' (fields: csv, fn, order, params, progress, workers)", 2)
    end
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
  local t0 = os.time()
  local clock0 = mbd.wall_clock and mbd.wall_clock() or nil
  local raw = mbd.parallel_map(total, function(k) return fn(point(k)) end, workers,
                               t.progress ~= false)
  local res = setmetatable({ points = {}, axes = axes, order = order, failed = 0,
                             workers = math.min(workers, total) }, Result)
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
  if t.csv and (ranks == 1 or mbd.mpi_rank() == 0) then write_csv(t.csv, res) end
  return res
end

return setmetatable(sweep, { __call = function(_, t) return sweep.run(t) end })
