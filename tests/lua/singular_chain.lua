-- The MBS benchmark library's A02 mechanism (a chain of N parallelogram windows) with its
-- one-coordinate reference, from examples/benchmarks/n_four_bar.lua, and what the tests measure on
-- it.  It passes the flat configuration (cranks horizontal, every link on the ground line, Φq
-- loses N ranks) twice per swing.  Used by test_singular.lua, test_sparse.lua and
-- scripts/bench/udwadia_kalaba.lua.
local M = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".")
                 .. "/../../examples/benchmarks/n_four_bar.lua")

-- over the run's samples: the largest |θ0 − θ_ref|, the largest spread of the crank angles (0 on
-- the parallelogram branch), the largest |E − E(0)| and the number of flat passes
function M.measure(run, N)
  local t, th0 = run:series("c0.theta")
  local _, E = run:series("energy")
  local ref = M.reference(N, t)
  local err, spread, drift, passes = 0, 0, 0, 0
  local others = {}
  for i = 1, N do others[i] = select(2, run:series("c" .. i .. ".theta")) end
  for k = 1, #t do
    err = math.max(err, math.abs(th0[k] - ref[k][1]))
    for i = 1, N do spread = math.max(spread, math.abs(others[i][k] - th0[k])) end
    drift = math.max(drift, math.abs(E[k] - E[1]))
    if k > 1 and math.floor(th0[k] / math.pi) ~= math.floor(th0[k - 1] / math.pi) then
      passes = passes + 1
    end
  end
  return err, spread, drift, passes
end

return M
