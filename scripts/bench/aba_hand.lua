-- Benchmark (issue 24, item 3): the recursive solve of relative joint coordinates against the
-- hand-written articulated-body program (scripts/bench/chain_aba_hand.c) on the planar pendulum
-- chain of chains.lua, per right-hand-side evaluation, from one run.  Both integrate by RK4 with
-- the same fixed step, so they evaluate the same states; the last link's angle at the end agrees
-- to round-off (printed).  Not a test: run it by hand in a Release build.
--
--   mbd scripts/bench/aba_hand.lua [maxN [T_END]]        (2048 and 0.1 s by default)
--
-- The hand program is build/engine/codegen/bench_chain_aba (or $MBD_BENCH_ABA).  Per evaluation:
-- mbd's run.stats.cpu_time / nfev (the integration: evaluations, RK4's own vector work and the
-- samples), the program's CPU of its integration / evaluations (least of 3).  Growth: the exponent
-- log(t₂/t₁)/log(N₂/N₁) of each column's time per evaluation between 256 and the largest N.  CPU
-- time follows the machine's load: count instructions (valgrind --tool=callgrind) when it is busy.
local chains = dofile(((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/chains.lua")

local maxN = tonumber(arg and arg[1]) or 2048
local t_end = tonumber(arg and arg[2]) or 0.1
local h = 1e-3
local exe = os.getenv("MBD_BENCH_ABA") or "build/engine/codegen/bench_chain_aba"

local rows, per = {}, {}
local N = 128
while N <= maxN do
  local m = chains.planar(N)
  local best, r = math.huge, nil
  for _ = 1, (N <= 512 and 3 or 1) do
    local run = m:simulate { t_end = t_end, formulation = "relative", linear_solver = "recursive",
                             integrator = "rk4", step = h, output_every = t_end }
    if run.stats.cpu_time < best then best, r = run.stats.cpu_time, run end
  end
  local f = assert(io.popen(string.format("%s %d %.17g %.17g 3", exe, N, t_end, h)))
  local out = f:read("a")
  f:close()
  local hn, hev, hcpu, hns, _, hth = out:match("(%d+) (%d+) (%S+) (%S+) (%S+) (%S+)")
  assert(hn, "no output from " .. exe .. " (build it: cmake --build build)")
  local mns = 1e9 * best / r.stats.nfev
  local d = math.abs(r:value("l" .. N .. ".theta", t_end) - tonumber(hth))
  per[N] = { mns, tonumber(hns) }
  rows[#rows + 1] = string.format("%6d %8d %12.0f %12.0f %8.2f %12.1e", N, r.stats.nfev, mns,
                                  tonumber(hns), mns / tonumber(hns), d)
  N = N * 2
end
print(string.format("planar chain, RK4 h = %g s over %g s: time per evaluation [ns]", h, t_end))
print(string.format("%6s %8s %12s %12s %8s %12s", "N", "nfev", "mbd", "hand ABA", "ratio",
                    "|Δθ_N| [rad]"))
for _, l in ipairs(rows) do print(l) end
local top = 128
while top * 2 <= maxN do top = top * 2 end
if per[256] and top > 256 then
  local e = function(k) return math.log(per[top][k] / per[256][k]) / math.log(top / 256) end
  print(string.format("growth of the time per evaluation, 256 → %d: mbd N^%.2f, hand ABA N^%.2f",
                      top, e(1), e(2)))
end
