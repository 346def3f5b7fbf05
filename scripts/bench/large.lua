-- Benchmark (issue 24, item 3): one run of a long chain of chains.lua on the recursive solve of
-- relative joint coordinates, RK4 with h = 1e-3 s, to measure its peak memory from outside:
--
--   /usr/bin/time -v mbd scripts/bench/large.lua KIND N [T_END]      (KIND planar or spherical)
--
-- (scripts/bench/large.sh runs the sizes of the issue).  Prints N, the evaluations, the CPU time
-- of the run and per evaluation [s].  Not a test: run it by hand in a Release build.
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local kind, N, t_end = arg[1] or "planar", tonumber(arg[2]) or 2048, tonumber(arg[3]) or 0.01
local m = kind == "planar" and chains.planar(N) or chains.spherical(N)
local r = m:simulate { t_end = t_end, formulation = "relative", linear_solver = "recursive",
                       integrator = "rk4", step = 1e-3, output_every = t_end }
print(string.format("%s %d: %d evaluations, %.3f s, %.3g s per evaluation", kind, N, r.stats.nfev,
                    r.stats.cpu_time, r.stats.cpu_time / r.stats.nfev))
