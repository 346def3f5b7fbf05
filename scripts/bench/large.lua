-- Benchmark (issue 24, item 3): one run of a long chain of chains.lua on the recursive solve of
-- relative joint coordinates, by classical RK4 with a fixed step, to measure its peak memory from
-- outside:
--
--   /usr/bin/time -v mbd scripts/bench/large.lua KIND N [T_END]      (KIND planar or spherical)
--
-- (scripts/bench/large.sh runs the sizes of the issue).  Prints N, the step, the evaluations, the
-- CPU time of the run and per evaluation [s].  Not a test: run it by hand in a Release build.
--
-- The planar chain steps by h = 1e-3 s.  The spherical chain starts spinning as one rigid body
-- at 0.5 rad/s about an axis across the rods (its tip at 0.5 N m/s: 2048 m/s at 4096 rods), so
-- the rods' tension grows as N² (≈ 0.25 N²/2 newton at the root: 2.1 MN at 4096) and with it the
-- frequency of the chain's stiffest mode.  RK4 with h = 1e-3 holds up to 2048 rods (energy kept to
-- 6e-12 over 0.01 s) and diverges at 4096 after 5 steps (that was the "stop" at 4096: a step past
-- RK4's stability bound, not a defect of the recursion; with h = 2.5e-4 the energy stays to 2e-14
-- over 0.006 s).  So the spherical chain steps by h = 2.5e-4 at every length.  It runs with
-- solver = "augmented": the recursion keeps each joint's Euler-parameter norm row itself, while the
-- default solver (kane) partitions the coordinates by a dense QR of Φq (rows × coordinates, N²
-- memory: 13 GB of workspace at 4096 rods, refused; the 1.18 GB peak measured before).
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local kind, N, t_end = arg[1] or "planar", tonumber(arg[2]) or 2048, tonumber(arg[3]) or 0.01
local planar = kind == "planar"
local m = planar and chains.planar(N) or chains.spherical(N)
local h = planar and 1e-3 or 2.5e-4
local r = m:simulate { t_end = t_end, formulation = "relative", linear_solver = "recursive",
                       solver = not planar and "augmented" or nil, integrator = "rk4", step = h,
                       output_every = t_end }
print(string.format("%s %d, h = %g: %d evaluations, %.3f s, %.3g s per evaluation", kind, N, h,
                    r.stats.nfev, r.stats.cpu_time, r.stats.cpu_time / r.stats.nfev))
