-- Lua-level test: a model whose dense workspaces do not fit the memory limit runs in its sparse
-- form.  ctest runs it with MBD_MAX_WORKSPACE_GB=0.05: the planar chain of 450 links (1350
-- coordinates, 900 constraints) holds 34 MB of arrays every run needs (Φq, its active copy, M)
-- and would need 118 MB with the augmented matrix and the least-squares workspace, which only
-- the dense algebra uses (mbd_data_dense in engine/model/data.c).  Before, every run reserved
-- them and the model was refused.
--   mbd tests/lua/test_limits_sparse.lua          (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

-- the benchmarks' planar chain (links 1 m, released at 0.3 rad)
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local chains = dofile(here .. "/../../scripts/bench/chains.lua")

local m = chains.planar(450)
local function run(f)
  return m:simulate { t_end = 0.3, formulation = f, rtol = 1e-9, atol = 1e-9, output_every = 0.3,
                      quiet = true }
end
-- the reference: joint coordinates, the recursive solve (no large dense array at all)
local ref = run("relative"):value("l1.theta", 0.3)

local cases = {
  -- each Cartesian formulation runs sparse; its top link's angle at 0.3 s agrees with the
  -- relative coordinates' (tolerance 1e-8 for rtol 1e-9; seen 1.4e-10)
  {"the sparse form runs without the dense workspaces", function()
     local out = {}
     for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane" } do
       local r = run(f)
       out[#out + 1] = r.stats.linear_solver
       out[#out + 1] = math.abs(r:value("l1.theta", 0.3) - ref) < 1e-8
     end
     return out
   end, {}, true, { "sparse", true, "sparse", true, "sparse", true, "sparse", true }},
  -- the dense solve asks for them and is refused with the size and the way out
  {"a dense solve says what it needs", function()
     m:simulate { t_end = 0.3, linear_solver = "dense" }
   end, {}, false, "model '450-link chain' is too large for mbd's dense linear algebra: 1350 "
                   .. "coordinates and 900 constraints need 0.118 GB for each copy of the run's "
                   .. "workspaces, more than the 0.05 GB allowed (a quarter of the memory, or "
                   .. "MBD_MAX_WORKSPACE_GB); its sparse form runs without them", line = 1},
}

H.run(cases, "limits: a large model in its sparse form")
