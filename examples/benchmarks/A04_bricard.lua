-- MBS benchmark library, problem A04: Bricard's mechanism (González, Dopico, Cuadrado et al.
-- 2006).  Five rods of 1 m and 1 kg (square cross-section 0.1 m) and the ground close a loop of six
-- revolute joints whose axes are each perpendicular to the two links they join.  Grübler's count
-- gives no degree of freedom; the special geometry leaves one (six constraint rows are redundant:
-- the rank test sets them aside).  Gravity 9.81 N/kg along −y, released at rest, 10 s.  The
-- library's reference is the time history of a point P3; "high precision": error ≤ 1e-3.
--
-- The loop (initial position; a joint's axis in brackets):
--   O = (0,0,0) [y] rod1 (1,0,0) [z] rod2 (1,−1,0) [x] rod3 (1,−1,1) [y] rod4 (0,−1,1) [z]
--   rod5 (0,0,1) [x] ground
-- P3 is taken here as the joint between rod3 and rod4, (1, −1, 1) at the start.
--
-- Reference here: the library's data were not at hand, and no closed form exists; the reference is
-- mbd's kane at rtol = atol = 1e-12, checked by energy conservation (its drift is printed) and by
-- the other formulations converging to it.  It is a self-consistency reference, not an
-- independent one.
--
--   mbd A04_bricard.lua          the full problem (10 s)
--   mbd A04_bricard.lua short    2 s, checked (ctest)
local B = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/bench.lua")
local short = arg[1] == "short"
local T = short and 2 or 10
local g, a = 9.81, 0.1
local Iax, Itr = (a * a + a * a) / 12, (1 + a * a) / 12   -- a 1 m × 0.1 m × 0.1 m bar of 1 kg

local function build()
  local m = mbd.model { name = "A04 Bricard", dim = 3, gravity = {0, -g, 0} }
  -- each rod's body x axis along the rod (inertia {axial, transverse, transverse}); its Euler
  -- parameters kept to express the joints' global axes in its frame
  local rots = {}
  local function rod(name, centre, dir)
    local rot = mbd.rot.from_axes(dir, math.abs(dir[2]) > 0.5 and {1, 0, 0} or {0, 1, 0})
    local b = m:body { name = name, mass = 1, inertia = {Iax, Itr, Itr}, pos = centre, rot = rot }
    rots[b] = rot
    return b
  end
  -- a global direction in body b's frame: A(p)ᵀ v, with the conjugate Euler parameters
  local function local_axis(b, v)
    if b == m.ground then return v end
    local p = rots[b]
    return mbd.rot.rotate({p[1], -p[2], -p[3], -p[4]}, v)
  end
  local r1 = rod("rod1", {0.5, 0, 0}, {1, 0, 0})
  local r2 = rod("rod2", {1, -0.5, 0}, {0, -1, 0})
  local r3 = rod("rod3", {1, -1, 0.5}, {0, 0, 1})
  local r4 = rod("rod4", {0.5, -1, 1}, {-1, 0, 0})
  local r5 = rod("rod5", {0, -0.5, 1}, {0, 1, 0})
  -- a joint at a rod end (x = ±0.5 in the rod's frame) with its global axis
  local function J(name, b1, at1, b2, at2, axis)
    m:revolute { name = name, body1 = b1, at1 = at1, body2 = b2, at2 = at2,
                 axis1 = local_axis(b1, axis), axis2 = local_axis(b2, axis) }
  end
  J("J1", m.ground, {0, 0, 0}, r1, {-0.5, 0, 0}, {0, 1, 0})
  J("J2", r1, {0.5, 0, 0}, r2, {-0.5, 0, 0}, {0, 0, 1})
  J("J3", r2, {0.5, 0, 0}, r3, {-0.5, 0, 0}, {1, 0, 0})
  J("J4", r3, {0.5, 0, 0}, r4, {-0.5, 0, 0}, {0, 1, 0})
  J("J5", r4, {0.5, 0, 0}, r5, {-0.5, 0, 0}, {0, 0, 1})
  J("J6", r5, {0.5, 0, 0}, m.ground, {0, 0, 1}, {1, 0, 0})
  return m
end

-- P3: the end x = +0.5 of rod3, from its centre and Euler parameters
local function P3(run, t)
  local e = { run:value("rod3.e0", t), run:value("rod3.e1", t), run:value("rod3.e2", t),
              run:value("rod3.e3", t) }
  local d = mbd.rot.rotate(e, {0.5, 0, 0})
  return { run:value("rod3.x", t) + d[1], run:value("rod3.y", t) + d[2],
           run:value("rod3.z", t) + d[3] }
end

local times = B.grid(T, short and 100 or 500)
local every = T / (short and 100 or 500)
local refrun = build():simulate { t_end = T, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                                  position_tol = 1e-12, output_every = every }
local ref = {}
for _, t in ipairs(times) do ref[t] = P3(refrun, t) end

local base = { t_end = T, rtol = 1e-8, atol = 1e-8, position_tol = 1e-10, output_every = every }
local rows = { { f = "kane 1e-12 (reference)", err = 0, drift = B.energy_drift(refrun),
                 cpu = refrun.stats.cpu_time, nfev = refrun.stats.nfev } }
for _, f in ipairs { "kane", "gcp", "udwadia_kalaba", "augmented" } do
  local run, err = B.try(build(), base, f)
  if run then
    local worst = 0
    for _, t in ipairs(times) do
      local p = P3(run, t)
      for i = 1, 3 do worst = math.max(worst, math.abs(p[i] - ref[t][i])) end
    end
    rows[#rows + 1] = { f = f, err = worst, drift = B.energy_drift(run), cpu = run.stats.cpu_time,
                        nfev = run.stats.nfev }
  else
    B.stopped(rows, f, err)
  end
end
B.table(string.format("A04 Bricard, %g s, rtol = atol = 1e-8 (error of P3 against kane at 1e-12 "
                      .. "at %d output steps; criterion 1e-3)", T, #times - 1), rows, {
  { name = "formulation", key = "f", fmt = "%-24s", fmt_h = "%-24s" },
  { name = "max error (m)", key = "err", fmt = "%13.2e", fmt_h = "%13s" },
  { name = "energy drift (J)", key = "drift", fmt = "%16.2e", fmt_h = "%16s" },
  { name = "rhs evals", key = "nfev", fmt = "%9d", fmt_h = "%9s" },
  { name = "cpu (s)", key = "cpu", fmt = "%8.3f", fmt_h = "%8s" } })
print(string.format("P3 at t = %g s (reference): (%.6f, %.6f, %.6f) m", T, ref[T][1], ref[T][2],
                    ref[T][3]))
for _, r in ipairs(rows) do
  if r.f:match("^kane$") or r.f:match("^gcp$") or r.f:match("^udwadia_kalaba$") then
    B.check(r.err and r.err <= 1e-3, "A04 " .. r.f .. ": error above 1e-3")
  end
end
