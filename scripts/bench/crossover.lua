-- Benchmark (issue 14): where linear_solver = "auto" turns from the dense to the sparse solve of
-- the Cartesian formulations (engine/formulations/linear_solver.c, SPARSE_MIN_ORDER).  For planar and
-- spatial chains of growing size, each of augmented, baumgarte, gcp and kane is run with
-- linear_solver = "dense" and "sparse" (same tolerance: both take the same steps, the counts are
-- checked) and the CPU per right-hand-side evaluation of each is printed with their ratio and the
-- leading matrix's order n + m (the size auto looks at).
--
--   mbd scripts/bench/crossover.lua [REPEATS]      (Release build; REPEATS 5)
--
-- Models: the planar pendulum chain of chain.lua (links 1 m, 1 kg, J = 1/12, released at 0.3 rad)
-- of 1 … 8 links, 5 s; the spatial chain of spatial.lua (rods 1 m, spherical joints, a sideways
-- push) of 1 … 4 rods, 2 s; rtol = atol = 1e-8 (position_tol 1e-6), CVODE Adams.  Times:
-- run.stats.cpu_time (the integration) divided by run.stats.nfev, least of REPEATS, dense and
-- sparse alternated so that both see the same load.
--
-- Measured here (one run, 5 repeats, a shared 2-core machine, after the small-model work of issue
-- 14), dense/sparse CPU per evaluation over the four formulations: planar n + m = 5: 0.82–0.92,
-- 10: 0.87–0.97, 15: 0.96–1.01, 20: 1.13–1.78, 25: 1.12–1.73, 40: 1.95–2.41; spatial 11:
-- 0.95–0.97, 22: 1.08–1.44, 44: 1.65–1.75.  The two solves cross between 15 and 20 unknowns, so
-- auto keeps SPARSE_MIN_ORDER = 20 (kane, whose partition keeps the dense solve's small share,
-- gains least).  Evaluation counts agree except where kane's or gcp's partition chose other
-- columns (planar 6: kane 1032 dense, 937 sparse).
local study = require "mbd.study"
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local repeats = tonumber(arg and arg[1]) or 5

local function planar(N) return chains.planar(N, N .. "-link planar chain") end

local function spatial(N) return chains.spherical(N, N .. "-rod spatial chain") end

local function per_eval(m, form, solver, t_end)
  return m:simulate { t_end = t_end, formulation = form, rtol = 1e-8, atol = 1e-8,
                      position_tol = 1e-6, output_every = t_end, linear_solver = solver,
                      quiet = true }  -- (augmented's drift warnings: the timing is the point)
end

local rows = {}
local cases = {}
for N = 1, 8 do cases[#cases + 1] = { "planar", N, planar(N), 5, 3 * N + 2 * N } end
for N = 1, 4 do cases[#cases + 1] = { "spatial", N, spatial(N), 2, 7 * N + 3 * N + N } end
for _, c in ipairs(cases) do
  local kind, N, m, t_end, order = table.unpack(c)
  for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane" } do
    local best = {}
    local nfev = {}
    for _ = 1, repeats do
      for _, s in ipairs { "dense", "sparse" } do
        local r = per_eval(m, f, s, t_end)
        assert(r.stats.linear_solver == s)
        local us = 1e6 * r.stats.cpu_time / r.stats.nfev
        best[s] = math.min(best[s] or math.huge, us)
        nfev[s] = r.stats.nfev
      end
    end
    rows[#rows + 1] = { kind, N, order, f, nfev.dense, nfev.sparse,
                        string.format("%.2f", best.dense), string.format("%.2f", best.sparse),
                        string.format("%.2f", best.dense / best.sparse) }
  end
end
study.table { title = "CPU per evaluation, dense and sparse solve (auto: sparse from n + m = 20)",
              header = { "chain", "N", "n+m", "formulation", "nfev dense", "nfev sparse",
                         "dense [us]", "sparse [us]", "dense/sparse" },
              rows = rows }
