-- Benchmark (issue 9): generated code for relative joint coordinates (paper 002).  Ratios measured
-- in one run on one machine, with the counts that do not depend on the machine (evaluations,
-- steps, derived DAG size).  Not a test: run it by hand.
--
--   mbd scripts/bench/paper002.lua [part]     parts: rscr, pendulum, macro, first (all by default)
--
--   rscr      RSCR dynamics at equal accuracy: for each method the loosest tolerance of 1e-4 ..
--             1e-11 whose output angle at 2 s is within 1e-6 rad of a reference (Cartesian kane at
--             1e-12), and its CPU time (least of 7, one sample) — compiled relative against
--             Cartesian augmented (target ≥ 5×) and against the tape (target ≥ 2×).
--   pendulum  paper 000's double pendulum over 10 s at rtol = atol = 1e-7 (error ≤ 1e-6 rad
--             against a tight run): compiled relative against the hand-written 2-DOF right-hand
--             side integrated by the same CVODE settings (scripts/bench/double_pendulum_hand.c,
--             built as bench_double_pendulum beside the mbd program; target: within 2×).
--   macro     derivation time of the composite RSSR with k = 1 .. 16 copies, derived as macro
--             copies (each shape once) and as the same mechanism written without the macro.
--   first     time to the first result of the composite RSSR (derive + compile + run), cold and
--             with a warm cache: scripts/bench/paper002_first.sh runs this part in fresh mbd
--             processes (a cold cache needs a fresh MBD_CACHE).
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local P = dofile(here .. "/../paper002/models.lua")
local part = arg and arg[1]

local function best(n, fn)
  local r, cpu = study.best_of(n, fn)
  return r, cpu
end

-- RSCR dynamics at equal accuracy ---------------------------------------------------------------
if not part or part == "rscr" then
  local m = P.rscr_model { torque = 10 }
  local ref = m:simulate { t_end = 2, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                           position_tol = 1e-12, output_every = 2 }
  local want = ref:value("R2.angle", 2)
  local methods = {
    { "Cartesian augmented", { formulation = "augmented" } },
    { "Cartesian kane", { formulation = "kane", position_tol = 1e-11 } },
    { "relative numeric (augmented)", { formulation = "relative", solver = "augmented" } },
    { "relative tape (augmented)", { formulation = "relative", solver = "augmented",
                                     code = "tape" } },
    { "relative compiled (augmented)", { formulation = "relative", solver = "augmented",
                                         code = "compiled" } },
    { "relative compiled (kane)", { formulation = "relative", solver = "kane", code = "compiled",
                                    position_tol = 1e-11 } },
    { "relative compiled (paper: baumgarte)", { formulation = "relative", code = "compiled" } },
  }
  local rows, cpu = {}, {}
  for _, meth in ipairs(methods) do
    local chosen
    for _, tol in ipairs { 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11 } do
      local opts = { t_end = 2, rtol = tol, atol = tol, output_every = 2 }
      for k, v in pairs(meth[2]) do opts[k] = v end
      local r = m:simulate(opts)
      local err = math.abs(r:value("R2.angle", 2) - want)
      if err <= 1e-6 then
        local rb, c = best(7, function() return m:simulate(opts) end)
        chosen = { tol, err, rb, c }
        break
      end
    end
    cpu[meth[1]] = chosen[4]
    rows[#rows + 1] = { meth[1], chosen[1], chosen[2], chosen[3].stats.nfev, chosen[3].stats.steps,
                        chosen[4] * 1000 }
  end
  local base = cpu["Cartesian augmented"]
  for _, r in ipairs(rows) do
    r[#r + 1] = string.format("%.2f", base / cpu[r[1]])
  end
  study.table {
    title = "RSCR dynamics, 2 s, error of the output angle at 2 s <= 1e-6 rad (equal accuracy)",
    header = { "method", "rtol", "error", "nfev", "steps", "CPU [ms]", "speed-up vs Cartesian" },
    formats = { nil, "%.0e", "%.1e", nil, nil, "%.3f" },
    rows = rows,
  }
  print(string.format("compiled relative (augmented) vs Cartesian augmented: %.2fx (target >= 5x); "
                      .. "vs tape: %.2fx (target >= 2x)",
                      base / cpu["relative compiled (augmented)"],
                      cpu["relative tape (augmented)"] / cpu["relative compiled (augmented)"]))
  print()
end

-- the double pendulum against the hand-written right-hand side ---------------------------------
if not part or part == "pendulum" then
  local models = dofile(here .. "/../paper000/models.lua")
  local m = models.double_pendulum()
  local ref = m:simulate { t_end = 10, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                           output_every = 10 }
  local want = ref:value("link2.theta", 10)
  local rows = {}
  local function add(name, opts)
    opts.t_end, opts.rtol, opts.atol, opts.output_every = 10, 1e-7, 1e-7, 10
    local r, c = best(200, function() return m:simulate(opts) end)
    rows[#rows + 1] = { name, math.abs(r:value("link2.theta", 10) - want), r.stats.nfev,
                        r.stats.steps, c * 1000, c / r.stats.nfev * 1e6 }
    return c
  end
  add("Cartesian kane", { formulation = "kane", position_tol = 1e-8 })
  add("relative numeric", { formulation = "relative", solver = "augmented" })
  add("relative tape", { formulation = "relative", solver = "augmented", code = "tape" })
  local cc = add("relative compiled", { formulation = "relative", solver = "augmented",
                                        code = "compiled" })
  -- the hand-written program: beside the mbd program in a build folder
  local exe = os.getenv("MBD_BENCH_PENDULUM") or "build/engine/codegen/bench_double_pendulum"
  local p = io.popen("'" .. exe .. "' 1e-7 2000 2>/dev/null")
  local out = p and p:read("a") or ""
  if p then p:close() end
  local hand = {}
  for k, v in out:gmatch("(%S+) (%S+)") do hand[k] = tonumber(v) end
  if hand.cpu_ms then
    rows[#rows + 1] = { "hand-written (C, CVODE)", math.abs(hand["theta2(10)"] - want), hand.rhs,
                        hand.steps, hand.cpu_ms, hand.rhs_us }
  end
  study.table {
    title = "Double pendulum (paper 000), 10 s, CVODE Adams, rtol = atol = 1e-7",
    header = { "method", "error [rad]", "nfev", "steps", "CPU [ms]", "per rhs [us]" },
    formats = { nil, "%.1e", nil, nil, "%.4f", "%.3f" },
    rows = rows,
  }
  if hand.cpu_ms then
    print(string.format("compiled relative / hand-written: %.2fx (target <= 2x)",
                        cc * 1000 / hand.cpu_ms))
  else
    print("hand-written reference not found: build bench_double_pendulum, set MBD_BENCH_PENDULUM")
  end
  print()
end

-- derivation time with macro copies ------------------------------------------------------------
if not part or part == "macro" then
  local rows = {}
  local d1m, d1f
  for _, k in ipairs { 1, 2, 4, 8, 16 } do
    local function derive(flat)
      local m = P.composite_rssr(k, { drive = mbd.sym.t * 2 * math.pi, flat = flat })
      local r = best(3, function()
        return m:simulate { t_end = 1e-3, formulation = "relative", code = "tape",
                            output_every = 1e-3 }
      end)
      return r.stats.derive_time, m
    end
    local dm, m = derive(false)
    local df = derive(true)
    d1m, d1f = d1m or dm, d1f or df
    local info = m:info()
    rows[#rows + 1] = { k, #m:tree():gsub("[^\n]", ""), dm * 1000, dm / d1m, df * 1000, df / d1f }
    local _ = info
  end
  study.table {
    title = "Composite RSSR: symbolic derivation time with k copies (tape; least of 3)",
    header = { "k", "tree lines", "macro [ms]", "macro growth", "no macro [ms]", "no-macro growth" },
    formats = { nil, nil, "%.2f", "%.2f", "%.2f", "%.2f" },
    rows = rows,
  }
  print()
end

-- time to the first result of the composite RSSR -----------------------------------------------
if part == "first" then
  local m = P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi })
  local r = m:simulate { t_end = 1, formulation = "relative", solver = "kane", code = "compiled",
                         rtol = 1e-8, atol = 1e-8, position_tol = 1e-10, output_every = 0.005 }
  print(string.format("derive %.3f s, compile %.3f s (cache hit: %s), run %.3f s, code %s",
                      r.stats.derive_time, r.stats.compile_time, tostring(r.stats.cache_hit),
                      r.stats.wall_time, r.stats.code))
end
