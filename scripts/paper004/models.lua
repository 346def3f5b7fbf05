-- Paper 004 (Eun, Chung 1997): the three example systems as mbd.system, shared by the
-- reproduction scripts and the sweep benchmark.  Data from papers/DIGEST.md; what the paper omits
-- (example 3) is chosen here and documented in example3_disk_plate.lua.
local sym = mbd.sym
local models = {}

-- example 1: simple pendulum, m = 1, L = 1, g = 9.8 along +y (y points down), f = x² + y² − L²,
-- x = 1, y = 0, ẋ = 0, ẏ = 4
function models.pendulum()
  local s = mbd.system { name = "pendulum", q = { "x", "y" }, mass = { 1, 1 }, force = { 0, 9.8 } }
  local x, y = s.q.x, s.q.y
  s:holonomic { x ^ 2 + y ^ 2 - 1 }
  s:initial { q = { 1, 0 }, qd = { 0, 4 } }
  return s
end

-- example 2: two particles and three massless rods, m1 = 1, m2 = 4, g = 9.8 along +y; lengths as
-- DIGEST.md fixes them: |OA| = l2 = 3, |OB| = l3 = 5, |AB| = l1 = 4
function models.two_particles()
  local m1, m2, g = 1, 4, 9.8
  local s = mbd.system { name = "two particles", q = { "x1", "y1", "z1", "x2", "y2", "z2" },
                         mass = { m1, m1, m1, m2, m2, m2 }, force = { 0, m1 * g, 0, 0, m2 * g, 0 } }
  local q = s.q
  local l1, l2, l3 = 4, 3, 5
  s:holonomic {
    q.x1 ^ 2 + q.y1 ^ 2 + q.z1 ^ 2 - l2 ^ 2,                                   -- f1: O–A
    q.x2 ^ 2 + q.y2 ^ 2 + q.z2 ^ 2 - l3 ^ 2,                                   -- f2: O–B
    (q.x2 - q.x1) ^ 2 + (q.y2 - q.y1) ^ 2 + (q.z2 - q.z1) ^ 2 - l1 ^ 2,        -- f3: A–B
  }
  local r13 = math.sqrt(13)
  s:initial { q = { -6 / r13, r13 - 4 / r13, 0, 6 / r13, r13 + 4 / r13, 0 }, qd = { 0, 0, 0, 0, 0, 0 } }
  return s
end

-- example 3: disk (radius r, mass m) on a support moved by s(t), touching a square plate (side 2a,
-- mass M); q = (x, y, θ, φ): plate centre, disk angle, plate angle.
--   f1 = ẋ + r θ̇ − φ̇ (y − s) = 0,  f2 = ẏ − ṡ + φ̇ x = 0    (eq 31–32, misprint fixed by DIGEST.md)
-- Our choices (the paper prints none): r = 0.5 m, m = 1 kg (Jθ = m r²/2), a = 1 m, M = 2 kg
-- (Jφ = M (2a)²/6), s(t) = sin t m, no applied force (the motion is driven through s), start
-- x = 0.5, y = 0, θ = φ = 0 with φ̇ = 0.2, θ̇ = 0 and ẋ, ẏ from f1 = f2 = 0 (ẋ = 0, ẏ = ṡ(0) − φ̇x = 0.9).
local example3 = { r = 0.5, m = 1, a = 1, M = 2 }
function models.disk_plate()
  local p = example3
  local s = mbd.system { name = "disk and plate", q = { "x", "y", "th", "phi" },
                         mass = { p.M, p.M, p.m * p.r ^ 2 / 2, p.M * (2 * p.a) ^ 2 / 6 } }
  local q, qd, t = s.q, s.qd, sym.t
  local st = sym.sin(t)
  local sdot = sym.diff(st, t)
  s:nonholonomic {
    qd.x + p.r * qd.th - qd.phi * (q.y - st),
    qd.y - sdot + qd.phi * q.x,
  }
  s:initial { q = { 0.5, 0, 0, 0 }, qd = { 0, 0.9, 0, 0.2 } }
  return s
end
models.example3 = example3

return models
