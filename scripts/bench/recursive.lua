-- Benchmark (issue 14, item 1): the recursive solve of relative joint coordinates against the
-- dense M̄ = BᵀMB and Cartesian kane, on chains of N links, 2 s simulated, each method at the
-- loosest tolerance that keeps the error within 1e-6 rad.  Ratios measured in one run on one
-- machine, with the counts that do not depend on it (evaluations).  Not a test: run it by hand
-- in a Release build.
--
--   mbd scripts/bench/recursive.lua [planar|spatial|both] [maxN]      (both, 1024 by default)
--
-- Chains: planar — the pendulum chain of scripts/bench/planar.lua (links 1 m, 1 kg, J = 1/12,
-- CM in the middle) hanging from the origin, released at 0.3 rad from the vertical; spatial —
-- links 1 m along body x (1 kg, inertia (0.01, 1/12, 1/12)) hanging from the origin along the
-- slanted line (1, 0.3, −0.5), revolute axes alternately the links' y and z, so gravity moves the
-- chain out of every plane.  Gravity 9.81; CVODE Adams (the default integrator); rtol = atol.
--
-- Error: the largest difference of the joint angles j1.angle .. jN.angle at t = 2 s from a
-- reference (relative, recursive, rtol = atol = 1e-12; at N ≤ 32 the dense solve at 1e-12 is
-- printed beside it).  Each method takes the loosest of 1e-4 .. 1e-12 within 1e-6 rad (searched
-- from the previous N's choice).  Times: "cpu" is run.stats.cpu_time (the integration and its
-- two samples; least of 3 up to N = 32), "total" the process CPU around m:simulate (it adds the
-- assembly of the Cartesian model, which every m:simulate does first — its rank test is
-- O(rows² · coordinates) — and building the tree).  The dense solves are O(N³) per evaluation:
-- relative dense runs up to N = 256 (spatial 128), Cartesian kane up to 128 (spatial 32).  The
-- planar chain is the issue's.
local study = require "mbd.study"
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local which = arg and arg[1] or "both"
local maxN = tonumber(arg and arg[2]) or 1024
local Ns = { 8, 32, 128, 256, 512, 1024 }

local function planar_chain(N) return chains.planar(N, N .. "-link planar chain") end

local function spatial_chain(N)
  local m = mbd.model { name = N .. "-link spatial chain", dim = 3, gravity = { 0, 0, -9.81 } }
  local d = { 1, 0.3, -0.5 }
  local nd = math.sqrt(d[1] ^ 2 + d[2] ^ 2 + d[3] ^ 2)
  for k = 1, 3 do d[k] = d[k] / nd end
  -- every link's body x along d: the rotation taking (1, 0, 0) to d
  local rot = mbd.rot.axis_angle({ 0, -d[3], d[2] }, math.acos(d[1]))
  local prev, at_prev = m.ground, { 0, 0, 0 }
  for i = 1, N do
    local b = m:body { name = "l" .. i, mass = 1, inertia = { 0.01, 1 / 12, 1 / 12 },
                       pos = { (i - 0.5) * d[1], (i - 0.5) * d[2], (i - 0.5) * d[3] }, rot = rot }
    local ax = (i % 2 == 1) and { 0, 1, 0 } or { 0, 0, 1 }
    m:revolute { name = "j" .. i, body1 = prev, at1 = at_prev, body2 = b, at2 = { -0.5, 0, 0 },
                 axis1 = i == 1 and mbd.rot.rotate(rot, ax) or ax, axis2 = ax }
    prev, at_prev = b, { 0.5, 0, 0 }
  end
  return m
end

-- the largest N of each method (planar, spatial): the dense solves' O(N³) evaluations
local methods = {
  { name = "relative recursive", opts = { formulation = "relative", linear_solver = "recursive" },
    maxN = { 1024, 1024 } },
  { name = "relative dense", opts = { formulation = "relative", linear_solver = "dense" },
    maxN = { 256, 128 } },
  { name = "Cartesian kane", opts = { formulation = "kane", position_tol = 1e-11 },
    maxN = { 128, 32 } },
}

-- one run: the run and the process CPU time around it (assembly included)
local function run(m, opts, tol)
  local o = { t_end = 2, rtol = tol, atol = tol, output_every = 2 }
  for k, v in pairs(opts) do o[k] = v end
  local c0 = os.clock()
  local r = m:simulate(o)
  return r, os.clock() - c0
end

local function angles_at_end(r, N)
  local a = {}
  for i = 1, N do a[i] = r:value("j" .. i .. ".angle", 2) end
  return a
end

local function error_of(r, ref)
  local worst = 0
  for i, v in ipairs(angles_at_end(r, #ref)) do worst = math.max(worst, math.abs(v - ref[i])) end
  return worst
end

-- the loosest tolerance of the ladder within 1e-6 rad, searched from guess: its run, total CPU
local ladder = { 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12 }
local function equal_accuracy(m, opts, ref, guess)
  local k = 1
  while ladder[k] > guess * 1.0001 and k < #ladder do k = k + 1 end
  local tried, best = {}, nil
  local function try(i)
    if not tried[i] then
      local r, total = run(m, opts, ladder[i])
      tried[i] = { tol = ladder[i], run = r, total = total, err = error_of(r, ref) }
    end
    return tried[i]
  end
  if try(k).err <= 1e-6 then
    best = tried[k]
    while k > 1 and try(k - 1).err <= 1e-6 do
      k = k - 1
      best = tried[k]
    end
  else
    while k < #ladder do
      k = k + 1
      if try(k).err <= 1e-6 then
        best = tried[k]
        break
      end
    end
  end
  return best
end

local peers = "peers on the same planar chains and bound: scripts/bench/peers.lua"

for _, kind in ipairs(which == "both" and { "planar", "spatial" } or { which }) do
  local make = kind == "planar" and planar_chain or spatial_chain
  local rows, rec = {}, {}
  for _, meth in ipairs(methods) do meth.guess = 1e-7 end
  for _, N in ipairs(Ns) do
    if N > maxN then break end
    local m = make(N)
    local refrun = run(m, { formulation = "relative", linear_solver = "recursive" }, 1e-12)
    local ref = angles_at_end(refrun, N)
    local note = ""
    if N <= 32 then
      local dense = run(m, { formulation = "relative", linear_solver = "dense" }, 1e-12)
      note = string.format("reference vs dense at 1e-12: %.1e", error_of(dense, ref))
    end
    for _, meth in ipairs(methods) do
      if N <= meth.maxN[kind == "planar" and 1 or 2] then
        local b = equal_accuracy(m, meth.opts, ref, meth.guess)
        if b then
          meth.guess = b.tol
          local r, cpu = b.run, b.run.stats.cpu_time
          if N <= 32 then
            local o = {}
            for k2, v in pairs(meth.opts) do o[k2] = v end
            r, cpu = study.best_of(3, function() return (run(m, o, b.tol)) end)
          end
          rows[#rows + 1] = { N, meth.name, r.stats.linear_solver or "dense", b.tol, b.err,
                              r.stats.nfev, cpu, b.total, 1e6 * cpu / r.stats.nfev }
          if meth.name == "relative recursive" then rec[N] = cpu end
        else
          rows[#rows + 1] = { N, meth.name, "-", "none", "-", "-", "-", "-", "-" }
        end
      end
    end
    if note ~= "" then print(kind .. " N = " .. N .. ": " .. note) end
    io.stdout:flush()
  end
  study.table { title = "Chain of N links (" .. kind .. "), 2 s, error ≤ 1e-6 rad at t = 2 s",
                header = { "N", "method", "solve", "tol", "error", "nfev", "cpu [s]", "total [s]",
                           "us/rhs" },
                formats = { nil, nil, nil, "%.0e", "%.1e", nil, "%.4f", "%.3f", "%.1f" },
                rows = rows }
  local g = {}
  local prev
  for _, N in ipairs(Ns) do
    if rec[N] then
      if prev then
        g[#g + 1] = { prev .. " → " .. N, rec[N] / rec[prev],
                      math.log(rec[N] / rec[prev]) / math.log(N / prev) }
      end
      prev = N
    end
  end
  if rec[128] and rec[1024] then
    g[#g + 1] = { "128 → 1024", rec[1024] / rec[128], math.log(rec[1024] / rec[128]) / math.log(8) }
  end
  study.table { title = "Growth of the recursive solve's cpu (" .. kind .. "): ratio and exponent",
                header = { "N", "ratio", "exponent" }, formats = { nil, "%.2f", "%.2f" }, rows = g }
end
print(peers)
