-- Benchmark: paper 002's timing claims (relative coordinates with symbolically generated code
-- against Cartesian "DADS"), the generated code against a hand-written program, and the macro
-- elements' derivation time.  CPU ratios are measured on one machine in one run, in interleaved
-- rounds, beside the counts that do not depend on the machine (evaluations, steps).  Not a test
-- (CPU times depend on the machine and its load): run it by hand on an idle machine; it checks
-- its own claims (exit status 1 when one fails).  The README's paper-002 figures are its output.
--
--   mbd scripts/bench/paper002.lua [part [rounds]]     parts: table, pendulum, macro (all by
--                                                      default), first; rounds default 7
--
--   table     paper 002's timing table at equal accuracy, per mechanism: RSCR kinematics (720
--             analyses), RSST kinematics (crank driven two turns, the rod's spin integrated),
--             RSCR, RSST and RSSR dynamics (a constant torque, 2 s), the composite RSSR (the first
--             crank turned once).  Each configuration runs at the loosest tolerance at which every
--             recorded coordinate stays within 1e-6 of a reference (scripts/paper002/accuracy.lua);
--             the RSCR's kinematic analyses all converge to 1e-10 (Newton).  Configurations:
--             Cartesian augmented ("DADS") and kane; relative coordinates with the paper's
--             Baumgarte gains (α = 199.94, β = 282.8), numeric (the paper's KAP3), on the tape
--             and compiled (the paper's symbolic program); relative with solver = "augmented"
--             and "kane", compiled (mbd's settings; the better is "best").  CPU: in each round
--             every configuration runs 3 times (least kept), the configurations in a rotated
--             order; a configuration's ratio to DADS is taken round by round and the median over
--             the rounds reported with its range.  Verdict of a ratio (its median): "reproduced"
--             when at most the paper's, "in direction" when below 1 (faster than DADS, not as much
--             as the paper says), "not" otherwise.  The summary also gives the best relative
--             setting against the better Cartesian formulation (augmented or kane, round by
--             round).
--   pendulum  paper 000's double pendulum over 10 s at rtol = atol = 1e-7 (error ≤ 1e-6 rad
--             against a tight run): compiled relative against the hand-written 2-DOF right-hand
--             side integrated by the same CVODE settings (scripts/bench/double_pendulum_hand.c,
--             built as bench_double_pendulum beside the mbd program), in interleaved rounds.
--   macro     derivation time of the composite RSSR with k = 1 .. 16 copies, derived as macro
--             copies (each shape once) and as the same mechanism written without the macro.
--   first     time to the first result of the composite RSSR (derive + compile + run), cold and
--             with a warm cache: scripts/bench/paper002_first.sh runs this part in fresh mbd
--             processes (a cold cache needs a fresh MBD_CACHE).
-- Instruction counts of the same runs (repeatable on any machine): scripts/bench/paper002_callgrind.sh.
local study = require "mbd.study"
local P = study.beside(arg, "../paper002/models.lua")
local A = study.beside(arg, "../paper002/accuracy.lua")
local part = arg and arg[1]
if part == "all" then part = nil end
local ROUNDS = tonumber(arg and arg[2]) or 7
local claims = study.claims()

local function median(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) / 2] or (s[n / 2] + s[n / 2 + 1]) / 2
end
local function range(xs)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(xs) do lo, hi = math.min(lo, x), math.max(hi, x) end
  return lo, hi
end

-- interleaved rounds: fns[i]() runs configuration i once and returns its CPU time; in each round
-- every configuration runs k times (least kept), starting from a rotated place; returns cpu[i][r]
local function rounds(fns, k, nrounds)
  local cpu = {}
  for i = 1, #fns do cpu[i] = {} end
  for r = 1, nrounds do
    for j = 0, #fns - 1 do
      local i = (j + r - 1) % #fns + 1
      local best = math.huge
      for _ = 1, k do best = math.min(best, fns[i]()) end
      cpu[i][r] = best
    end
  end
  return cpu
end
-- per-round ratios cpu[i][r] / cpu[base][r]
local function ratios(cpu, i, base)
  local out = {}
  for r = 1, #cpu[i] do out[r] = cpu[i][r] / cpu[base][r] end
  return out
end

local function verdict(rs, paper)
  local med = median(rs)
  if paper and med <= paper then return "reproduced" end
  return med < 1 and "in direction" or "not"
end

-- paper 002's timing table ----------------------------------------------------------------------
local summary = {}
if not part or part == "table" then
  local DADS = "Cartesian augmented (DADS)"
  local methods = A.METHODS
  -- the paper's ratio of each row to DADS (symbolic for every generated-code row)
  local function paper_of(label, p)
    if label == DADS then return 1 end
    if label:match("numeric") then return p.numeric end
    if label:match("^relative") then return p.symbolic end
  end
  local mechanisms = {
    { name = "RSCR kinematics", kin = true, paper = { numeric = 8.6 / 26.2, symbolic = 4.8 / 26.2 },
      m = P.rscr_model { drive = mbd.sym.t * 2 * math.pi }, T = 2 },
    { name = "RSST kinematics", paper = { symbolic = 1.2 / 13.3 },
      m = P.rsst_model { drive = mbd.sym.t * 2 * math.pi }, T = 2 },
    { name = "RSCR dynamics", paper = { symbolic = 5.6 / 19.4 }, m = P.rscr_model { torque = 10 },
      T = 2 },
    { name = "RSST dynamics", paper = { symbolic = 2.4 / 14.4 }, m = P.rsst_model { torque = 0.1 },
      T = 2 },
    { name = "RSSR dynamics", paper = { symbolic = 4.9 / 16.5 }, m = P.rssr_model { torque = 10 },
      T = 2 },
    { name = "composite RSSR", paper = { symbolic = 3.05 / 20.98 },
      m = P.composite_rssr(4, { drive = mbd.sym.t * 2 * math.pi }), T = 1 },
  }
  for _, mech in ipairs(mechanisms) do
    local m, T = mech.m, mech.T
    local rows, fns, picks = {}, {}, {}
    if mech.kin then
      -- every analysis converges to the Newton tolerance: no ladder
      local kin = {
        { DADS, {} },
        { "relative, paper gains, numeric", { formulation = "relative" } },
        { "relative, paper gains, compiled", { formulation = "relative", code = "compiled" } },
        { "relative, paper gains, tape", { formulation = "relative", code = "tape" } },
      }
      for i, v in ipairs(kin) do
        local opts = { t_end = T, steps = 720, quiet = true }
        for key, val in pairs(v[2]) do opts[key] = val end
        local k = m:kinematics(opts)
        picks[i] = { label = v[1], tol = "-", err = "-", nfev = k.stats.newton_iterations,
                     steps = 720 }
        fns[i] = function() return m:kinematics(opts).stats.cpu_time end
      end
    else
      local ref = A.reference(m, T)
      local byname = {}
      for _, meth in ipairs(methods) do
        local label, opts = meth[1], meth[2]
        local tol = A.tolerance(m, meth, byname, ref, T)
        if tol then
          local sampled = m:simulate(A.options(opts, tol, T, T / A.SAMPLES))
          local p = { label = label, tol = string.format("%.0e", tol), err = A.max_error(sampled, ref),
                      nfev = sampled.stats.nfev, steps = sampled.stats.steps }
          byname[label] = { tol = tol }
          picks[#picks + 1] = p
          fns[#fns + 1] = function()
            local r = m:simulate(A.options(opts, tol, T, T))
            -- recording one sample does not steer the run (study.timed's check)
            assert(r.stats.nfev == p.nfev, label .. ": the timed run took other steps")
            return r.stats.cpu_time
          end
        else
          print(string.format("%s, %s: not within %g at rtol 1e-11", mech.name, label, A.BOUND))
        end
      end
    end
    local cpu = rounds(fns, 3, ROUNDS)
    local s = { paper = mech.paper, rows = {}, cpu = {} }
    for i, p in ipairs(picks) do
      local rs = ratios(cpu, i, 1)
      local lo, hi = range(rs)
      local pr = paper_of(p.label, mech.paper)
      s.cpu[p.label] = cpu[i]
      s.rows[p.label] = { ratio = median(rs), lo = lo, hi = hi, nfev = p.nfev,
                          verdict = i > 1 and p.label:match("^relative") and verdict(rs, pr) or "" }
      rows[#rows + 1] = { p.label, p.tol, p.err, p.nfev, p.steps, median(cpu[i]) * 1000,
                          string.format("%.2f", median(rs)),
                          string.format("%.2f-%.2f", lo, hi),
                          pr and string.format("%.2f", pr) or "-", s.rows[p.label].verdict }
    end
    summary[mech.name] = s
    study.table {
      title = string.format("%s: equal accuracy (%s), CPU median of %d interleaved rounds",
                            mech.name, mech.kin and "Newton to 1e-10, 720 analyses"
                            or string.format("every coordinate within %g", A.BOUND), ROUNDS),
      header = { "configuration", "rtol", "error", mech.kin and "Newton it." or "nfev", "steps",
                 "CPU [ms]", "CPU/DADS", "range", "paper", "verdict" },
      formats = { nil, nil, "%.1e", nil, nil, "%.3f" },
      rows = rows,
    }
  end

  -- the summary: the paper's ratio, mbd's with the paper's gains and with the best setting
  local rows = {}
  for _, name in ipairs { "RSCR kinematics", "RSST kinematics", "RSCR dynamics", "RSST dynamics",
                          "RSSR dynamics", "composite RSSR" } do
    local s = summary[name]
    local pg = s.rows["relative, paper gains, compiled"]
    local aug, kane = s.rows["relative augmented, compiled"], s.rows["relative kane, compiled"]
    local best, which = pg, "paper gains (kinematic analysis)"
    if aug and kane then
      best, which = aug, "augmented"
      if kane.ratio < aug.ratio then best, which = kane, "kane" end
    end
    s.best, s.best_name = best, which
    local dads = s.rows[DADS]
    -- the best setting against the better Cartesian formulation, round by round
    local vs_cart = "-"
    if s.cpu["Cartesian kane"] and best ~= pg then
      local bc, ca, ck = {}, s.cpu[DADS], s.cpu["Cartesian kane"]
      local mine = s.cpu["relative " .. which .. ", compiled"]
      for r = 1, #ca do bc[r] = mine[r] / math.min(ca[r], ck[r]) end
      local lo, hi = range(bc)
      s.best_cart = { ratio = median(bc), lo = lo, hi = hi }
      vs_cart = string.format("%.2f (%.2f-%.2f)", median(bc), lo, hi)
    end
    rows[#rows + 1] = { name, string.format("%.2f", s.paper.symbolic),
                        string.format("%.2f (%.2f-%.2f)", pg.ratio, pg.lo, pg.hi), pg.verdict,
                        string.format("%.2f", pg.nfev / dads.nfev),
                        string.format("%.2f (%.2f-%.2f)", best.ratio, best.lo, best.hi), which,
                        best.verdict, vs_cart }
  end
  study.table {
    title = "Paper 002's timing claims: CPU of relative coordinates with compiled generated code / "
            .. "Cartesian augmented (DADS), at equal accuracy (median of rounds, range)",
    header = { "mechanism", "paper", "paper gains", "verdict", "nfev/DADS", "best setting",
               "best", "verdict", "best / better Cartesian" },
    rows = rows,
  }
  -- symbolic vs numeric (the paper: KAP3 8.6 s, symbolic 4.8 s on the RSCR's kinematics, 0.56)
  rows = {}
  for _, name in ipairs { "RSCR kinematics", "RSST kinematics", "RSCR dynamics", "RSST dynamics",
                          "RSSR dynamics", "composite RSSR" } do
    local s = summary[name].rows
    local num = s["relative, paper gains, numeric"]
    local c, t = s["relative, paper gains, compiled"], s["relative, paper gains, tape"]
    -- ratios of medians of the per-round ratios to DADS (the same rounds)
    rows[#rows + 1] = { name, string.format("%.2f", c.ratio / num.ratio),
                        string.format("%.2f", t.ratio / num.ratio),
                        string.format("%.2f", t.ratio / c.ratio),
                        string.format("%.2f", c.nfev / num.nfev) }
    summary[name].compiled_numeric = c.ratio / num.ratio
    summary[name].tape_numeric = t.ratio / num.ratio
  end
  study.table {
    title = "Symbolic vs numeric relative coordinates, paper gains (paper, RSCR kinematics: "
            .. "4.8 / 8.6 = 0.56)",
    header = { "mechanism", "compiled/numeric CPU", "tape/numeric CPU", "tape/compiled CPU",
               "compiled/numeric nfev" },
    rows = rows,
  }

  -- what the README states (medians of the rounds; the bounds leave room for a loaded machine)
  local S = summary
  local function med(name, label) return S[name].rows[label].ratio end
  local PG, NUM = "relative, paper gains, compiled", "relative, paper gains, numeric"
  local TAPE = "relative, paper gains, tape"
  -- reproduced: the RSCR's kinematic analyses (compiled and numeric) and the RSST's dynamics
  claims:within("RSCR kinematics: compiled relative / Cartesian (paper 0.18)",
                med("RSCR kinematics", PG), nil, 0.18)
  claims:within("RSCR kinematics: numeric relative / Cartesian (paper 0.33)",
                med("RSCR kinematics", NUM), nil, 0.33)
  claims:within("RSST dynamics: paper gains, compiled relative / DADS (paper 0.17)",
                med("RSST dynamics", PG), nil, 0.17)
  -- in direction only: faster than DADS, not by the paper's factor
  claims:within("RSCR dynamics: paper gains, compiled relative / DADS (paper 0.29)",
                med("RSCR dynamics", PG), 0.29, 1)
  claims:within("RSSR dynamics: paper gains, compiled relative / DADS (paper 0.30)",
                med("RSSR dynamics", PG), 0.3, 1)
  -- not reproduced with the paper's gains: stiff for Adams (more evaluations than DADS)
  claims:within("RSST kinematics: paper gains, compiled relative / DADS (paper 0.09)",
                med("RSST kinematics", PG), 1, nil)
  claims:within("composite RSSR: paper gains, compiled relative / DADS (paper 0.15)",
                med("composite RSSR", PG), 1, nil)
  -- mbd's best relative setting: faster than DADS on every mechanism, by the paper's factor on
  -- the RSCR's and the RSST's dynamics
  for _, name in ipairs { "RSST kinematics", "RSSR dynamics", "composite RSSR" } do
    claims:within(name .. ": best relative setting / DADS", S[name].best.ratio, nil, 1)
  end
  claims:within("RSCR dynamics: best relative setting / DADS (paper 0.29)",
                S["RSCR dynamics"].best.ratio, nil, 0.29)
  claims:within("RSST dynamics: best relative setting / DADS (paper 0.17)",
                S["RSST dynamics"].best.ratio, nil, 0.17)
  -- symbolic vs numeric (paper 0.56): the compiled code is faster than the numeric program on
  -- every dynamic run, by less than the paper's factor
  for _, name in ipairs { "RSCR dynamics", "RSST dynamics", "RSSR dynamics", "composite RSSR" } do
    claims:within(name .. ": compiled / numeric relative (paper 0.56)", S[name].compiled_numeric,
                  nil, 1)
  end
  -- the tape: about the numeric program's time on the RSCR, 1.5 times or more on the macro
  -- element's RSSR and the composite RSSR
  claims:within("RSCR dynamics: tape / numeric relative", S["RSCR dynamics"].tape_numeric, nil, 1.1)
  for _, name in ipairs { "RSSR dynamics", "composite RSSR" } do
    claims:within(name .. ": tape / numeric relative", S[name].tape_numeric, 1.5, nil)
  end
  print()
end

-- the double pendulum against the hand-written right-hand side ---------------------------------
if not part or part == "pendulum" then
  local models = study.beside(arg, "../paper000/models.lua")
  local m = models.double_pendulum()
  local ref = m:simulate { t_end = 10, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                           output_every = 10 }
  local want = ref:value("link2.theta", 10)
  local exe = os.getenv("MBD_BENCH_PENDULUM") or "build/engine/codegen/bench_double_pendulum"
  local function hand()
    local p = io.popen("'" .. exe .. "' 1e-7 200 2>/dev/null")
    local text = p and p:read("a") or ""
    if p then p:close() end
    local h = {}
    for k, v in text:gmatch("(%S+) (%S+)") do h[k] = tonumber(v) end
    return h
  end
  local configs = {
    { "Cartesian kane", { formulation = "kane", position_tol = 1e-8 } },
    { "relative numeric", { formulation = "relative", solver = "augmented" } },
    { "relative tape", { formulation = "relative", solver = "augmented", code = "tape" } },
    { "relative compiled", { formulation = "relative", solver = "augmented", code = "compiled" } },
  }
  local fns, info = {}, {}
  for i, c in ipairs(configs) do
    local opts = { t_end = 10, rtol = 1e-7, atol = 1e-7, output_every = 10 }
    for k, v in pairs(c[2]) do opts[k] = v end
    local r = m:simulate(opts)
    info[i] = { c[1], math.abs(r:value("link2.theta", 10) - want), r.stats.nfev, r.stats.steps }
    fns[i] = function() return m:simulate(opts).stats.cpu_time end
  end
  local h0 = hand()
  if h0.cpu_ms then
    info[#info + 1] = { "hand-written (C, CVODE)", math.abs(h0["theta2(10)"] - want), h0.rhs,
                        h0.steps }
    -- the hand-written program times its own integrations (least of 200): one call per round
    fns[#fns + 1] = function() return hand().cpu_ms / 1000 end
  end
  -- mbd's runs 20 times per round (they are a millisecond or less), the program once
  local cpu = {}
  for i = 1, #fns do cpu[i] = {} end
  for r = 1, ROUNDS do
    for j = 0, #fns - 1 do
      local i = (j + r - 1) % #fns + 1
      local best = math.huge
      for _ = 1, (h0.cpu_ms and i == #fns) and 1 or 20 do best = math.min(best, fns[i]()) end
      cpu[i][r] = best
    end
  end
  local rows = {}
  for i, v in ipairs(info) do
    local c = median(cpu[i])
    rows[i] = { v[1], v[2], v[3], v[4], c * 1000, c / v[3] * 1e6 }
  end
  study.table {
    title = string.format("Double pendulum (paper 000), 10 s, CVODE Adams, rtol = atol = 1e-7; "
                          .. "CPU median of %d interleaved rounds", ROUNDS),
    header = { "method", "error [rad]", "nfev", "steps", "CPU [ms]", "per rhs [us]" },
    formats = { nil, "%.1e", nil, nil, "%.4f", "%.3f" },
    rows = rows,
  }
  if h0.cpu_ms then
    local rs = ratios(cpu, 4, #fns)
    local lo, hi = range(rs)
    print(string.format("compiled relative / hand-written: %.2f (rounds %.2f-%.2f; target <= 2)",
                        median(rs), lo, hi))
    claims:within("double pendulum: compiled relative / hand-written C (target 2)", median(rs), nil,
                  2)
  else
    print("hand-written reference not found: build bench_double_pendulum, set MBD_BENCH_PENDULUM")
  end
  print()
end

-- derivation time with macro copies ------------------------------------------------------------
if not part or part == "macro" then
  local rows = {}
  local d1m, d1f
  local at16 = {}
  for _, k in ipairs { 1, 2, 4, 8, 16 } do
    local mm = P.composite_rssr(k, { drive = mbd.sym.t * 2 * math.pi })
    local mf = P.composite_rssr(k, { drive = mbd.sym.t * 2 * math.pi, flat = true })
    local function derive(model)
      return model:simulate { t_end = 1e-3, formulation = "relative", code = "tape",
                              output_every = 1e-3 }.stats.derive_time
    end
    -- interleaved: macro and flat alternately, the least of ROUNDS each
    local dm, df = math.huge, math.huge
    for _ = 1, ROUNDS do
      dm = math.min(dm, derive(mm))
      df = math.min(df, derive(mf))
    end
    d1m, d1f = d1m or dm, d1f or df
    rows[#rows + 1] = { k, #mm:tree():gsub("[^\n]", ""), dm * 1000, dm / d1m, df * 1000, df / d1f,
                        df / dm }
    at16 = { dm = dm, df = df, gm = dm / d1m, gf = df / d1f }
  end
  study.table {
    title = string.format("Composite RSSR: symbolic derivation time with k copies (tape; least of "
                          .. "%d, macro and flat interleaved)", ROUNDS),
    header = { "k", "tree lines", "macro [ms]", "macro growth", "no macro [ms]", "no-macro growth",
               "no macro / macro" },
    formats = { nil, nil, "%.2f", "%.2f", "%.2f", "%.2f", "%.2f" },
    rows = rows,
  }
  -- section 4: each shape derived once — at 16 copies the mechanism written without the macro
  -- takes longer to derive (measured 1.5 to 2.1 times, wall times of tens of milliseconds; the
  -- joints between copies are derived per copy either way)
  claims:within("macro: derivation at 16 copies, no macro / macro", at16.df / at16.dm, 1.2, nil)
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
  return
end
claims:finish()
