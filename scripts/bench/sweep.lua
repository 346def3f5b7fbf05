-- Benchmark: the 41 x 41 sweep of paper 004 example 3 (disk and plate, gamma1, gamma2 = 0..2 step
-- 0.05, rk45 at 1e-10 over 20 s: 1681 runs) with 1 worker and with every core, printing the wall
-- times and the speed-up.  Build in Release for meaningful numbers.
--
--   mbd scripts/bench/sweep.lua [MAXWORKERS]
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper004/models.lua")
local s = models.disk_plate()
local function fn(p)
  local r = s:simulate { t_end = 20, integrator = "rk45", rtol = 1e-10, atol = 1e-10, output_every = 0.01,
                         stabilization = { gamma = { p.gamma1, p.gamma2 } } }
  return { E1 = r.E1[1], E2 = r.E1[2] }
end
local cores = mbd.ncores()
local maxw = tonumber(arg and arg[1]) or cores
local counts = { 1 }
local w = 2
while w < maxw do counts[#counts + 1] = w; w = w * 2 end
if maxw > 1 then counts[#counts + 1] = maxw end
print(string.format("paper 004 example 3 sweep, 41 x 41 = 1681 runs; %d cores online", cores))
print("workers   wall [s]   runs/s   speed-up   efficiency")
local t1, ref
for _, k in ipairs(counts) do
  local res = mbd.sweep {
    params = { gamma1 = { from = 0, to = 2, step = 0.05 }, gamma2 = { from = 0, to = 2, step = 0.05 } },
    order = { "gamma1", "gamma2" }, fn = fn, workers = k, progress = false,
  }
  assert(res.failed == 0, "failed points")
  -- every worker count must give the same numbers (each point is computed the same way)
  if ref then
    for i, p in ipairs(res.points) do assert(p.E1 == ref.points[i].E1, "results differ between runs") end
  else
    ref = res
  end
  t1 = t1 or res.time
  print(string.format("%7d   %8.2f   %6.1f   %8.2f   %9.0f%%", k, res.time, #res.points / res.time,
                      t1 / res.time, 100 * t1 / res.time / k))
end
