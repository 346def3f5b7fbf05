-- Lua-level tests: sizes a user can reach by mistake either run in bounded memory or stop before
-- they start with a message that says what is too large — never an out-of-memory kill (issue
-- 12, "Fuzzing and hostile input").  ctest runs this script with MBD_MAX_WORKSPACE_GB=1, so the
-- limits do not depend on the machine's memory; `sym_cap` runs the symbolic context's own limit
-- with MBD_MAX_WORKSPACE_GB=0.01 (the context takes its limit when the interpreter starts).
--   a 10 000-body model    refused by its dense workspaces' size (16.8 GB), m:info() still works
--   a recorder too large   refused by samples × channels (a tiny output_every)
--   a sum of 1e5 terms     built, printed, differentiated and evaluated in a second or two and
--                          about 100 MB (building it term by term took minutes and gigabytes:
--                          every step copied the whole flattened sum)
--   a sweep of 1e6 points  runs (about 200 MB); 1e8 points, or an axis of 1e9 values, are refused
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local sym = mbd.sym

-- the peak resident memory of this process so far, MB (nil where /proc is not there)
local function peak_mb()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  local kb = s:match("VmHWM:%s*(%d+)")
  return kb and tonumber(kb) / 1024
end

-- a planar chain of n links of 1 m
local function chain(n)
  local m = mbd.model { name = "chain", dim = 2, gravity = { 0, -9.81 } }
  local prev, at = m.ground, { 0, 0 }
  for i = 1, n do
    local b = m:body { name = "b" .. i, mass = 1, inertia = 0.1, pos = { i - 0.5, 0 }, angle = 0 }
    m:revolute { name = "j" .. i, body1 = prev, at1 = at, body2 = b, at2 = { -0.5, 0 } }
    prev, at = b, { 0.5, 0 }
  end
  return m
end

if arg and arg[1] == "sym_cap" then
  -- the context stops growing at the limit (10 MB here) with the sizes in the message: the sum
  -- of 1e5 terms needs more
  H.run({
    {"a symbolic context past its limit", function()
       local x, e = sym.var("x"), 0
       for i = 1, 100000 do e = e + sym.sin(i * x) end
     end, {}, false, "more than the 0.01 GB allowed (a quarter of the memory, or "
                     .. "MBD_MAX_WORKSPACE_GB)", line = 2},
  }, "limits: the symbolic context")
  return
end

local big = chain(10000)
local pendulum = chain(1)
local N = 100000
local x = sym.var("x")
local sum -- the sum of sin(i x), i = 1..N, built term by term
local cpu, mem = {}, {}

local cases = {
  -- 30 000 coordinates and 20 000 constraints: 16.8 GB of dense arrays every run holds (Φq, its
  -- active copy, M; a dense solve would add 41.6 GB), refused at once
  {"a 10 000-body model is refused by size", function()
     big:simulate { t_end = 0.01, formulation = "kane" }
   end, {}, false, "model 'chain' is too large for mbd's dense linear algebra: 30000 coordinates "
                   .. "and 20000 constraints need 16.8 GB for each copy of the run's workspaces, "
                   .. "more than the 1 GB allowed", line = 1},
  -- so is its relative-coordinate run with the dense solve; the recursive solve (the default for
  -- this open chain) keeps nothing of size N² and runs it (8 s here: scripts/bench/large.sh)
  {"so is its relative-coordinate run on the dense solve", function()
     big:simulate { t_end = 0.01, formulation = "relative", linear_solver = "dense" }
   end, {}, false, "is too large for mbd's dense linear algebra", line = 1},
  {"m:info() of a 10 000-body model", function()
     return tostring(big:info()):match("bodies: 10000") ~= nil
   end, {}, true, true},
  -- 1e6 + 2 samples of the chain's 10 channels: 88 MB is allowed; 1e-7 makes 1e7 + 2 too many
  {"a recorder past the limit", function()
     chain(100):simulate { t_end = 1, output_every = 1e-6 }
   end, {}, false, "simulate: 1000002 samples of 902 channels need 7.22 GB to record, more than "
                   .. "the 1 GB allowed (a quarter of the memory, or MBD_MAX_WORKSPACE_GB): sample "
                   .. "less often (a larger output_every)", line = 1},
  {"a grid past the sample count", function()
     pendulum:simulate { t_end = 10, output_every = 1e-9 }
   end, {}, false, "simulate: output_every 1e-09 gives too many samples (at most 10000000)", line = 1},
  {"kinematics with too many steps", function()
     local m = mbd.model { dim = 2 }
     local b = m:body { name = "b", mass = 1, inertia = 1, pos = { 1, 0 } }
     local O = m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0 }, body2 = b, at2 = { -1, 0 } }
     m:drive { joint = O, position = function(t) return t end }
     m:kinematics { t_end = 1, steps = 2000000000 }
   end, {}, false, "kinematics: steps = 2000000000 is too many (at most 10000000)", line = 5},
  -- the sum of 1e5 terms, built term by term: linear time and memory
  {"a sum of 1e5 terms, built term by term", function()
     local c0, m0 = os.clock(), peak_mb()
     local e = 0
     for i = 1, N do e = e + sym.sin(i * x) end
     sum = e
     cpu.build, mem.build = os.clock() - c0, m0 and peak_mb() - m0
     local direct = 0
     for i = 1, N do direct = direct + math.sin(i * 0.3) end
     return sym.eval(e, { x = 0.3 }) - direct
   end, {}, true, 0, tol = 1e-9},  -- 1e5 terms of size 1, summed in another order
  {"its derivative", function()
     local direct = 0
     for i = 1, N do direct = direct + i * math.cos(i * 0.3) end
     return sym.eval(sym.diff(sum, x), { x = 0.3 }) / direct
   end, {}, true, 1, tol = 1e-9},
  {"its printed form (cut at 1 MB)", function() return #tostring(sum) > 100000 end, {}, true, true},
  {"in bounded time and memory", function()
     -- measured: 0.7 s and 100 MB in Release; the quadratic construction ran past 5 minutes and
     -- 4 GB.  Bounds with room for a sanitizer build
     return cpu.build < 30 and (mem.build == nil or mem.build < 1500)
   end, {}, true, true},
  -- past 256 operands a sum (product) keeps its older part whole instead of copying it into
  -- every new one; the identities that flattening gave hold still
  {"a long sum and product keep their identities", function()
     local s, p = 0, 1
     for i = 1, 700 do s = s + sym.cos(i * x); p = p * (x + i / 700) end
     return { tostring(s - s), tostring((s + x) - s), tostring(3 * s - 2 * s) == tostring(s),
              tostring(-(-s)) == tostring(s), tostring(p / p), tostring(p ^ 3 * p ^ -3),
              tostring((p * x) / (x * p)), tostring(2 * (s + 1) - 2 * s) }
   end, {}, true, { "0", "x", true, true, "1", "1", "1", "2" }},
  -- a sweep of 1e6 points runs; its memory is about 200 bytes a point
  {"a sweep of 1e6 points", function()
     local m0 = peak_mb()
     local res = mbd.sweep { params = { a = { from = 0, to = 1, n = 1000 },
                                        b = { from = 0, to = 1, n = 1000 } },
                             fn = function(p) return p.a * p.b end, progress = false }
     local grew = m0 and peak_mb() - m0 or 0
     return { n = #res.points, failed = res.failed, last = res.points[#res.points].value,
              bounded = grew < 1000 }
   end, {}, true, { n = 1000000, failed = 0, last = 1, bounded = true }},
  {"a sweep of 1e8 points is refused", function()
     mbd.sweep { params = { a = { from = 0, to = 1, n = 10000 }, b = { from = 0, to = 1, n = 10000 } },
                 fn = function(p) return p.a end }
   end, {}, false, "sweep: 100000000 points (10000 a × 10000 b) need at least 20 GB for their "
                   .. "results, more than the 1 GB allowed", line = 1},
  {"an axis of 1e9 values is refused before it is built", function()
     mbd.sweep { params = { a = { from = 0, to = 1, n = 1e9 } }, fn = function(p) return p.a end }
   end, {}, false, "sweep: parameter 'a' has 1000000000 values: its points alone need at least "
                   .. "200 GB", line = 1},
  {"parallel_map of 1e9 points is refused", function()
     mbd.parallel_map(1e9, function(i) return i end)
   end, {}, false, "parallel_map: 1000000000 points need at least 64 GB for their results", line = 1},
  {"mbd.memory_limit() follows MBD_MAX_WORKSPACE_GB", function() return mbd.memory_limit() end,
   {}, true, 1e9},
}
H.run(cases, "limits: sizes that stop early or stay bounded")
