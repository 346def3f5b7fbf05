-- Benchmark (issue 14, the growth goal): why the planar chain's run grows faster than N from
-- 128 to 1024 links, whatever the linear algebra.  The time of a run is (evaluations) × (cost of
-- one); chain.lua and recursive.lua show the cost of one evaluation growing as N^0.9–1.0 (sparse
-- and recursive solves, O(N)); this script measures the other factor, the steps an integrator
-- needs to keep the error within 1e-6, with three integrator families:
--   adams — CVODE Adams, orders 1–12 (its step is also bounded by the highest frequency ω_max
--           of the chain: its stability region hugs the imaginary axis),
--   rk45  — ARKODE's Dormand–Prince 5(4) (a wider stretch of the imaginary axis per evaluation),
--   bdf   — CVODE BDF with Newton iterations on the exact (difference-quotient) Jacobian
--           (stiffly stable: no bound from ω_max when the fast modes carry no error; the step is
--           then set by accuracy alone),
-- and the chain's highest frequency ω_max, from the eigenvalues of its linearisation about the
-- hanging position (mbd.stability on λ² + M⁻¹K, M and K written out below; mbd.stability takes
-- up to 64 coordinates, so ω_max is printed for 8 … 64 links).
--
--   mbd scripts/bench/chain_steps.lua [NMAX [BDF_MAX]]   (Release build; NMAX 1024, BDF_MAX 256:
--                                                        bdf's Jacobian is dense, O(N³) a setup)
--
-- The chain is chain.lua's (links 1 m, 1 kg, J = 1/12, CM in the middle, hanging from the
-- origin, released at 0.3 rad from the vertical), in joint coordinates (formulation relative:
-- the motion is the Cartesian one, to 1e-8).  Error: the largest difference of the links'
-- angles and the tip's x, y at t = 2 s from relative + adams at rtol = atol = 1e-11.  Each
-- integrator takes the loosest rtol = atol of 1e-5 … 1e-10 within 1e-6; "steps at 1e-3" is
-- Adams' step count at a tolerance far looser than the error needs: where it is not below the
-- accurate count, Adams' step is set by stability (ω_max), not by accuracy.
--
-- Measured here (one run, a shared 2-core machine, Release; bdf up to 512 links):
--   ω_max = 22.8, 36.3, 55.0, 81.1 rad/s at 8, 16, 32, 64 links (3.2 √(gN) and rising to it)
--   N     adams tol steps nfev cpu[s]  at 1e-3  rk45 tol steps nfev cpu[s] µs/eval  bdf tol steps
--   128   1e-8      963  1915 0.0645   267      1e-6     253  1521 0.0465  30.6    1e-7    1280
--   256   1e-7     1062  2119 0.1395   486      1e-6     378  2271 0.1084  47.7    1e-8    2277
--   512   1e-8     1623  3236 0.5883   626      1e-6     446  2679 0.2814  105     1e-8    2228
--   1024  1e-8     2227  4454 1.2988   914      1e-6     536  3219 0.7398  230     1e-8    3097*
--   (* bdf at 1024 links measured apart, one run at 1e-8 (the bound needs it at 512): error
--   5.5e-7, 109 911 evaluations with its difference-quotient Jacobians, 605 s)
--   128 -> 1024: adams CPU N^1.44 (evaluations N^0.41), rk45 CPU N^1.33 (evaluations N^0.36, CPU
--   per evaluation N^0.97).  Also tried at 128 and 1024 links (same bound): ARKODE's Verner 6(5)
--   and Fehlberg 8(7) pairs need 9 859 and 10 767 evaluations at 1024 links (rk45: 3 219) — their
--   steps are held by stability too; BDF with GMRES instead of the dense Newton matrix took 3 891
--   steps at 512 links.
-- Reading: if bdf's steps stayed flat while adams' grew, a stiff integrator with an O(N) Newton
-- solve would give the N^1.0 run the issue asks for.  They do not: bdf needs more steps than
-- adams at every size (3097 against 2227 at 1024 links) and its count grows as N^0.42 from 128
-- to 1024 (adams N^0.40), because the motion
-- itself has content up to ω_max ∝ √N (the release sends a wave down the chain from the pivot)
-- and the angles and the tip must be right to 1e-6.  rk45 needs the fewest evaluations of the
-- three, and they grow too.  With an O(N) evaluation (the recursive solve's time per evaluation
-- is printed) the run grows as N^1.3–1.5 whichever integrator runs it.
local study = require "mbd.study"
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local nmax = tonumber(arg and arg[1]) or 1024
local bdf_max = tonumber(arg and arg[2]) or 256

local chain = chains.planar

-- ω_max of the chain linearised about hanging straight down, in the links' absolute angles φ:
-- a link k's CM is at x_k = Σ_{i<k} sin φ_i + ½ sin φ_k, so M_ij = Σ_k a_ki a_kj + δ_ij/12 with
-- a_ki = 1 (i < k), ½ (i = k), 0 (i > k); the potential −Σ g y_k gives K = diag(g (N − i + ½)).
-- M⁻¹K by Gaussian elimination, then the eigenvalues.
local function omega_max(N)
  local g = 9.81
  local M, B = {}, {}
  for i = 1, N do
    M[i], B[i] = {}, {}
    for j = 1, N do
      local hi = math.max(i, j)
      -- bodies k > hi contribute 1·1; body k = hi contributes ½·1 (i ≠ j) or ¼ (i = j)
      local s = (N - hi) + (i == j and 0.25 or 0.5)
      M[i][j] = s + (i == j and 1 / 12 or 0)
      B[i][j] = i == j and g * (N - i + 0.5) or 0
    end
  end
  -- solve M X = K (B holds K, becomes X)
  for c = 1, N do
    local p = M[c][c]
    for r = c + 1, N do
      local f = M[r][c] / p
      if f ~= 0 then
        local Mr, Mc, Br, Bc = M[r], M[c], B[r], B[c]
        for k = c, N do Mr[k] = Mr[k] - f * Mc[k] end
        for k = 1, N do Br[k] = Br[k] - f * Bc[k] end
      end
    end
  end
  for r = N, 1, -1 do
    local Br, Mr = B[r], M[r]
    for k = r + 1, N do
      local f, Bk = Mr[k], B[k]
      for c = 1, N do Br[c] = Br[c] - f * Bk[c] end
    end
    for c = 1, N do Br[c] = Br[c] / Mr[r] end
  end
  local S = {}
  for i = 1, N do
    S[i] = {}
    for j = 1, N do S[i][j] = 0 end
  end
  local st = mbd.stability { S = S, T = B }
  local w = 0
  for _, e in ipairs(st.eigenvalues) do w = math.max(w, math.abs(e.im or e[2] or 0)) end
  return w
end

local T = 2
local function values(r, N) return chains.values(r, N, T) end
local distance = chains.distance
local function run(m, integ, tol)
  return m:simulate { t_end = T, formulation = "relative", integrator = integ, rtol = tol,
                      atol = tol, output_every = T }
end
local TOLS = { 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10 }
local function loosest(m, N, ref, integ)
  for _, tol in ipairs(TOLS) do
    local r = run(m, integ, tol)
    local e = distance(values(r, N), ref)
    if e <= 1e-6 then return r, tol, e end
  end
  error(integ .. ": no tolerance down to 1e-10 within 1e-6 at N = " .. N)
end
-- the least CPU of n runs at tolerance tol (run.stats.cpu_time, the integration)
local function cpu_of(m, integ, tol, n)
  local best = math.huge
  for _ = 1, n do best = math.min(best, run(m, integ, tol).stats.cpu_time) end
  return best
end

local rows, grow = {}, {}
-- ω_max alone for the smaller chains (its growth exponent is the one to read)
local wrows = {}
for _, N in ipairs { 8, 16, 32, 64 } do
  local w = omega_max(N)
  wrows[#wrows + 1] = { N, string.format("%.2f", w), string.format("%.3f", w / math.sqrt(9.81 * N)) }
end
study.table { title = "The chain's highest frequency (linearised about hanging straight down)",
              header = { "N", "omega_max [rad/s]", "omega_max / sqrt(g N)" }, rows = wrows }
for _, N in ipairs { 32, 64, 128, 256, 512, 1024 } do
  if N > nmax then break end
  local m = chain(N)
  local ref = values(run(m, "adams", 1e-11), N)
  local ra, ta = loosest(m, N, ref, "adams")
  local ca = cpu_of(m, "adams", ta, 3)
  local rr, tr = loosest(m, N, ref, "rk45")
  local cr = cpu_of(m, "rk45", tr, 3)
  local loose = run(m, "adams", 1e-3)
  local rb, tb
  if N <= bdf_max then rb, tb = loosest(m, N, ref, "bdf") end
  rows[#rows + 1] = { N, string.format("%.0e", ta), ra.stats.steps, ra.stats.nfev,
                      string.format("%.4f", ca), loose.stats.steps, string.format("%.0e", tr),
                      rr.stats.steps, rr.stats.nfev, string.format("%.4f", cr),
                      string.format("%.1f", 1e6 * cr / rr.stats.nfev),
                      rb and string.format("%.0e", tb) or "-", rb and rb.stats.steps or "-" }
  grow[N] = { a = ra.stats.steps, af = ra.stats.nfev, ac = ca, l = loose.stats.steps,
              r = rr.stats.nfev, rc = cr, re = cr / rr.stats.nfev, b = rb and rb.stats.steps }
end
study.table { title = "Planar chain, 2 s, error <= 1e-6, relative coordinates (recursive solve): " ..
                      "steps, evaluations and CPU of three integrator families",
              header = { "N", "adams tol", "steps", "nfev", "cpu [s]", "steps at 1e-3",
                         "rk45 tol", "steps", "nfev", "cpu [s]", "us/eval", "bdf tol", "bdf steps" },
              rows = rows }
local g = {}
local Ns = { 32, 64, 128, 256, 512, 1024 }
for i = 2, #Ns do
  local a, b = Ns[i - 1], Ns[i]
  if grow[a] and grow[b] then
    local function p(key)
      if not (grow[a][key] and grow[b][key]) then return "-" end
      return string.format("%.2f", math.log(grow[b][key] / grow[a][key]) / math.log(b / a))
    end
    g[#g + 1] = { a .. " -> " .. b, p("a"), p("af"), p("ac"), p("l"), p("r"), p("rc"), p("re"), p("b") }
  end
end
study.table { title = "Growth N^p between consecutive sizes",
              header = { "links", "adams steps", "adams nfev", "adams cpu", "adams steps at 1e-3",
                         "rk45 nfev", "rk45 cpu", "rk45 cpu/eval", "bdf steps" },
              rows = g }
local function total(key)
  if not (grow[128] and grow[1024] and grow[128][key] and grow[1024][key]) then return nil end
  return math.log(grow[1024][key] / grow[128][key]) / math.log(8)
end
if total("rc") then
  print(string.format("128 -> 1024: adams cpu N^%.2f (nfev N^%.2f), rk45 cpu N^%.2f (nfev N^%.2f, " ..
                      "cpu per evaluation N^%.2f)", total("ac"), total("af"), total("rc"),
                      total("r"), total("re")))
end
