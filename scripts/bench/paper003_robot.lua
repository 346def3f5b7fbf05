-- Benchmark (paper 003): the flexible space robot of scripts/paper003/models.lua, 10 s with CVODE
-- BDF (rtol 1e-7, atol 1e-9): wall and CPU time, right-hand-side evaluations and steps, for the
-- paper's mode selection and for 3, 6, 12, 24 modes per arm — the cost's growth with the modes —
-- undamped (the paper) and with 2 % modal damping (the high modes then die out instead of setting
-- the step: the undamped 24-mode run takes minutes).
-- The share of each block of an evaluation (mass matrix, quadratic velocity vector, node poses,
-- constraints, the constraint solve, the integrator's own linear algebra) is measured by
-- scripts/bench/paper003_callgrind.sh, which runs this script for one selection.
--
--   mbd scripts/bench/paper003_robot.lua                 the table (one run each)
--   mbd scripts/bench/paper003_robot.lua N [ζ] [repeats] [max_order]
--                                                        one selection: N modes per arm or "paper",
--                                                        modal damping ζ (default 0), best of
--                                                        repeats, BDF's highest order (default 5)
-- The table adds the 12- and 24-mode runs with max_order = 2: BDF of order 3–5 is not stable
-- near the imaginary axis, where the lightly damped high modes sit (their error at 1 s against
-- an Adams run at 1e-11, 24 modes undamped: 1.7e-8 at the default order, 4.6e-7 at order 2).
--
-- Build in Release (cmake -DCMAKE_BUILD_TYPE=Release) for meaningful numbers.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper003/models.lua")

local function case(n, zeta, repeats, max_order)
  local m, info = models.robot { arms = "rotary", modes = n, damping = zeta }
  local run = study.best_of(repeats, function()
    return m:simulate { t_end = 10, formulation = "augmented", integrator = "bdf", rtol = 1e-7, atol = 1e-9, output_every = 10,
                        max_order = max_order }
  end)
  assert(run.ok, run.error)
  local st = run.stats
  return { n and tostring(n) or "paper (3 + 2)", zeta, max_order or 5,
           #info.selected[1] + #info.selected[2],
           m:info().coordinates, st.nfev, st.steps, st.wall_time * 1000, st.cpu_time * 1000,
           st.cpu_time * 1e6 / st.nfev }
end

local which = arg and arg[1]
local zeta, repeats = tonumber(arg and arg[2]) or 0, tonumber(arg and arg[3]) or 1
local max_order = tonumber(arg and arg[4])
local rows = {}
if which then
  rows[1] = case(which ~= "paper" and tonumber(which) or nil, zeta, repeats, max_order)
else
  for _, z in ipairs { 0, 0.02 } do
    for _, n in ipairs { false, 3, 6, 12, 24 } do
      rows[#rows + 1] = case(n or nil, z, repeats)
    end
    for _, n in ipairs { false, 12, 24 } do
      rows[#rows + 1] = case(n or nil, z, repeats, 2)
    end
  end
end
study.table {
  title = "Flexible space robot, 10 s, BDF rtol 1e-7 (best of " .. repeats .. ")",
  header = { "modes per arm", "damping", "max_order", "modes", "coordinates", "nfev", "steps",
             "wall [ms]", "CPU [ms]", "CPU per nfev [us]" },
  formats = { nil, "%.2f", nil, nil, nil, nil, nil, "%.1f", "%.1f", "%.1f" },
  rows = rows,
}
