-- Benchmark (issue 10, paper 001): what contacts cost.
--  1. paper 001's disk on a line (example 1), 1 s with its switch from slip to rolling at 0.31 s,
--     per formulation: wall and CPU time, right-hand-side evaluations, steps, the normal force's
--     fixed-point iterations and LU factorizations — against a plain rigid-body run of the same
--     size: the same disk, force and initial state on a horizontal translational joint (3
--     coordinates, the contact's 1 + 1 rows replaced by the joint's 2).
--  2. the ball on a rotating plate (example 3, regularized friction mu = 0.2, the ball 0.1 m off
--     the axis), 10 s, per formulation — against the same two bodies with the ball held on the
--     plate by a spherical joint at its lowest point (14 coordinates, the plate's drive kept).
--
--   mbd scripts/bench/contact.lua          (build in Release: cmake -DCMAKE_BUILD_TYPE=Release)
--
-- Times are the least of 5 repeats of a run recording only its last sample; ratios are contact /
-- plain, measured in the same run of this script ("cpu/nfev ratio": the cost of one evaluation,
-- contact over plain).  The counts (nfev, steps, fixed-point iterations, LU factorizations,
-- events) do not depend on the machine.  CVODE Adams, rtol = atol = 1e-8.
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/../paper001/models.lua")

local forms = { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" }

local function plain_disk()
  local m = mbd.model { name = "disk on a rail", dim = 2, gravity = { 0, -9.81 } }
  local d = m:body { name = "disk", mass = 3, inertia = 2, pos = { 0, 0.2 }, vel = { 10, 0 }, omega = -60 }
  m:force { body = d, at = { 0, 0 }, value = { 10, 0 } }
  m:translational { name = "rail", body1 = m.ground, at1 = { 0, 0.2 }, body2 = d, at2 = { 0, 0 },
                    axis1 = { 1, 0 } }
  return m
end

local function plain_ball()
  local m = mbd.model { name = "ball held on a plate", dim = 3, gravity = { 0, 0, -9.81 } }
  local plate = m:body { name = "plate", mass = 50, inertia = { 10, 10, 15 }, omega = { 0, 0, 3 } }
  local ball = m:body { name = "ball", mass = 10, inertia = { 1, 1, 1 }, pos = { 0.1, 0, 0.1 } }
  local axis = m:revolute { name = "axis", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = plate,
                            at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 } }
  m:drive { joint = axis, position = 3 * mbd.sym.t }
  m:spherical { name = "hold", body1 = plate, at1 = { 0.1, 0, 0 }, body2 = ball, at2 = { 0, 0, -0.1 } }
  return m
end

-- the least wall and CPU times of 5 runs recording only their last sample, and one such run
local function timed(m, f, t_end)
  local run, wall, cpu
  for _ = 1, 5 do
    run = m:simulate { t_end = t_end, formulation = f, rtol = 1e-8, atol = 1e-8, output_every = t_end }
    wall = math.min(wall or math.huge, run.stats.wall_time)
    cpu = math.min(cpu or math.huge, run.stats.cpu_time)
  end
  return run, wall, cpu
end

local function case(title, contact, plain, t_end)
  local rows = {}
  for _, f in ipairs(forms) do
    local rc, wc, cc = timed(contact, f, t_end)
    local rp, wp, cp = timed(plain, f, t_end)
    rows[#rows + 1] = { f, wc * 1000, wp * 1000, wc / wp, rc.stats.nfev, rp.stats.nfev,
                        (cc / rc.stats.nfev) / (cp / rp.stats.nfev), rc.stats.steps,
                        rc.stats.contact_iterations, rc.stats.lu_factorizations, #rc.events }
  end
  study.table {
    title = title,
    header = { "formulation", "wall [ms]", "plain wall [ms]", "ratio", "nfev", "plain nfev",
               "cpu/nfev ratio", "steps", "N iterations", "LU", "events" },
    formats = { nil, "%.3f", "%.3f", "%.2f", nil, nil, "%.2f" },
    rows = rows,
  }
end

case("Disk on a line (paper 001 example 1), 1 s, slip then rolling: contact vs a disk on a rail",
     models.disk_line(), plain_disk(), 1)
case("Ball on a rotating plate (example 3, regularized mu = 0.2), 10 s: contact vs a ball held by a spherical joint",
     models.ball_plate(0.2, 0.1), plain_ball(), 10)
