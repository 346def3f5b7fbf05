-- mbd.sweep over MPI (run by sweep_mpi.sh): a 3 × 4 sweep of a pendulum's angle at its end time
-- over rtol and t_end, one point failing on purpose (its message goes into the CSV), written to
-- the CSV named by arg[1].  arg[2]: the number of MPI ranks the run must see (1 for the local
-- run on worker processes), so a run that was not shared among the ranks fails here.
local out, ranks = arg[1], tonumber(arg[2])
assert(mbd.mpi_size() == ranks,
       string.format("expected %d MPI ranks, the program sees %d", ranks, mbd.mpi_size()))
local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "bar", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
local res = mbd.sweep {
  params = { rtol = { 1e-4, 1e-6, 1e-8 }, t = { from = 0.5, to = 2, n = 4 } },
  order = { "rtol", "t" }, progress = false, csv = out, workers = 2,
  fn = function(p)
    if p.t == 2 and p.rtol == 1e-8 then error("a point that fails on purpose") end
    local r = m:simulate { t_end = p.t, formulation = "kane", rtol = p.rtol, atol = p.rtol,
                           output_every = p.t }
    return { theta = r:value("bar.theta", p.t), nfev = r.stats.nfev }
  end,
}
-- every rank holds every point (the script goes on the same on all of them)
assert(#res.points == 12 and res.failed == 1, "every point's result on every rank")
assert(res.points[12].error:match("fails on purpose"), "the failing point's message")
assert(res.workers == (ranks > 1 and ranks or 2), "res.workers: the ranks under mpirun")
print(string.format("rank %d of %d: %d points, %d failed, best theta at rtol %g", mbd.mpi_rank(),
                    mbd.mpi_size(), #res.points, res.failed, res:min("nfev").rtol))
