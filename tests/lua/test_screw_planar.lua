-- The screw and planar joints against closed forms, in every formulation, with the relative
-- formulation's numeric, tape and compiled code and Cartesian compiled code, each scene turned by
-- random rotations (the closed forms are written in the scene's own axes); a loop closed through
-- a screw that the relative formulation cuts, numeric and compiled, against Cartesian kane; a
-- screw driven by its angle; rotational springs on both joints' angles; the joints' coordinates
-- in m:tree(); the messages of bad input.
-- Run with the mbd program:  mbd tests/lua/test_screw_planar.lua
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
math.randomseed(7)
local sin, cos, sqrt, pi, abs = math.sin, math.cos, math.sqrt, math.pi, math.abs
local G = 9.81

-- a random rotation (Euler parameters) and its matrix's action on a vector
local function random_rot()
  local a = { math.random() - 0.5, math.random() - 0.5, math.random() - 0.5 }
  local n = sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2)
  local th = (2 * math.random() - 1) * pi
  return { cos(th / 2), sin(th / 2) * a[1] / n, sin(th / 2) * a[2] / n, sin(th / 2) * a[3] / n }
end
local function turn(p, v) return mbd.rot.rotate(p, v) end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

local ROTS = { { 1, 0, 0, 0 }, random_rot(), random_rot(), random_rot() }
-- every formulation (numeric), and the generated code of the relative and a Cartesian one
local RUNS = { { "augmented" }, { "baumgarte" }, { "gcp" }, { "kane" }, { "udwadia_kalaba" },
               { "relative" }, { "relative", "tape" }, { "relative", "compiled" },
               { "kane", "compiled" } }
-- the integration tolerance of the closed-form runs (rtol = atol); the largest error measured at
-- 1 s, the angle's weighted by TOL_POS/TOL_ANG, was 5.7e-9 (gcp and kane, a turned scene), the
-- relative formulation's about 3e-15 (its motion is a polynomial Adams integrates exactly): the
-- tolerances leave a factor of 17
local RTOL = 1e-10
local TOL_ANG, TOL_POS = 1e-6, 1e-7

-- a nut of mass m on a screw of pitch p (per turn) along the axis a = R z from the ground, under
-- gravity g = (0, 0, −G): with λ = p/2π, (I + m λ²) θ̈ = m λ (g·a), from rest
local M, I3, PITCH = 2, 0.05, 0.1
local function screw_model(p)
  local m = mbd.model { name = "screw", dim = 3, gravity = { 0, 0, -G } }
  local nut = m:body { name = "nut", mass = M, inertia = { 0.03, 0.04, I3 }, pos = { 0.1, 0.2, 0.3 },
                       rot = p }
  m:screw { name = "S", body1 = m.ground, at1 = { 0.1, 0.2, 0.3 }, body2 = nut, at2 = { 0, 0, 0 },
            axis1 = turn(p, { 0, 0, 1 }), axis2 = { 0, 0, 1 }, pitch = PITCH }
  return m, nut
end
local function screw_expected(p, t)
  local a, lam = turn(p, { 0, 0, 1 }), PITCH / (2 * pi)
  local acc = M * lam * (-G * a[3]) / (I3 + M * lam * lam)
  local th = 0.5 * acc * t * t
  return th, lam * th, { 0.1 + a[1] * lam * th, 0.2 + a[2] * lam * th, 0.3 + a[3] * lam * th }
end

-- a puck on a planar joint in the plane through the origin normal to n = R z, sliding from v0 (in
-- the plane) and spinning at w0 about n: r = v0 t + ½ a t² with a the in-plane part of gravity,
-- its angle w0 t
-- (x along ref1 = R x when it is given, y along R y; without ref1 only x² + y² is the scene's)
local W0 = 2
local function planar_model(p, with_ref)
  local m = mbd.model { name = "puck", dim = 3, gravity = { 0, 0, -G } }
  local n, v0 = turn(p, { 0, 0, 1 }), turn(p, { 0.3, -0.2, 0 })
  m:body { name = "puck", mass = 1.5, inertia = { 0.02, 0.03, 0.04 }, pos = { 0, 0, 0 }, rot = p,
           vel = v0, omega = { W0 * n[1], W0 * n[2], W0 * n[3] } }
  m:planar { name = "P", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = m.puck, at2 = { 0, 0, 0 },
             axis1 = n, axis2 = { 0, 0, 1 }, ref1 = with_ref and turn(p, { 1, 0.5 * n[1], 0 }) or nil }
  return m
end
local function planar_expected(p, t)
  local n, v0 = turn(p, { 0, 0, 1 }), turn(p, { 0.3, -0.2, 0 })
  local gn = -G * n[3]
  local r = {}
  for i = 1, 3 do
    local a = (i == 3 and -G or 0) - gn * n[i]
    r[i] = v0[i] * t + 0.5 * a * t * t
  end
  return r, W0 * t
end

local cases = {}
local function case(c) cases[#cases + 1] = c end
local function within(tol) return function(err)
    if err <= tol then return true end
    return false, ("error %.3g > %.3g"):format(err, tol)
  end end

for k, p in ipairs(ROTS) do
  for _, rc in ipairs(RUNS) do
    -- the compiled runs once (each rotation is another model: another compilation)
    if rc[2] ~= "compiled" or k == 2 then
      local what = ("%s%s, rotation %d"):format(rc[1], rc[2] and (" " .. rc[2]) or "", k)
      case { "screw closed form: " .. what, function()
          local r = screw_model(p):simulate { t_end = 1, formulation = rc[1], code = rc[2], rtol = RTOL,
                                              atol = RTOL, quiet = true }
          local th, s, pos = screw_expected(p, 1)
          local e = abs(r:value("S.angle", 1) - th) * TOL_POS / TOL_ANG
          e = math.max(e, abs(r:value("S.displacement", 1) - s))
          for i, c in ipairs { "x", "y", "z" } do e = math.max(e, abs(r:value("nut." .. c, 1) - pos[i])) end
          return e
        end, {}, true, check = within(TOL_POS) }
      case { "planar closed form: " .. what, function()
          local with_ref = k % 2 == 0
          local r = planar_model(p, with_ref):simulate { t_end = 1, formulation = rc[1], code = rc[2],
                                                         rtol = RTOL, atol = RTOL, quiet = true }
          local pos, ang = planar_expected(p, 1)
          local e = abs(r:value("P.angle", 1) - ang) * TOL_POS / TOL_ANG
          for i, c in ipairs { "x", "y", "z" } do e = math.max(e, abs(r:value("puck." .. c, 1) - pos[i])) end
          -- the joint's in-plane coordinates span the displacement: x² + y² = |r|², and with ref1
          -- (its part in the plane is R x: the 0.5 n₁ added along z is dropped) x = r·R x
          local x, y = r:value("P.x", 1), r:value("P.y", 1)
          e = math.max(e, abs(sqrt(x * x + y * y) - sqrt(dot(pos, pos))))
          if with_ref then
            local n = turn(p, { 0, 0, 1 })
            local ref = turn(p, { 1, 0.5 * n[1], 0 })
            local c = dot(ref, n)
            local f = { ref[1] - c * n[1], ref[2] - c * n[2], ref[3] - c * n[3] }
            local nf = sqrt(dot(f, f))
            local g = { n[2] * f[3] - n[3] * f[2], n[3] * f[1] - n[1] * f[3], n[1] * f[2] - n[2] * f[1] }
            e = math.max(e, abs(x - dot(pos, f) / nf), abs(y - dot(pos, g) / nf))
          end
          return e
        end, {}, true, check = within(TOL_POS) }
    end
  end
end

-- a loop through a screw: a crank about z at the origin drives, through a rod on two spherical
-- joints, a nut on a screw along z at (1, 0, 0) (pitch 0.05 per turn); the relative
-- formulation told to cut the screw closes the loop with the screw's rows (the compiled code
-- counts the nut's turns from its memo); every run against Cartesian kane at 1e-12.  The
-- differences measured (positions in m, angles in rad, at 0.25, 0.5 and 1 s) were at most
-- 2.7e-8, the global error of a run at 1e-10; the tolerance is 1e-6
local function loop_model()
  local m = mbd.model { name = "loop", dim = 3, gravity = { 0, 0, -G } }
  local crank = m:body { name = "crank", mass = 1, inertia = { 0.001, 0.004, 0.004 }, pos = { 0.05, 0, 0 },
                         omega = { 0, 0, 3 } }
  m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = crank, at2 = { -0.05, 0, 0 },
               axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 } }
  local nut = m:body { name = "nut", mass = 2, inertia = { 0.03, 0.04, 0.05 }, pos = { 1, 0, 0 } }
  m:screw { name = "S", body1 = m.ground, at1 = { 1, 0, 0 }, body2 = nut, at2 = { 0, 0, 0 },
            axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = 0.05 }
  local rod = m:body { name = "rod", mass = 0.5, inertia = { 0.0005, 0.03, 0.03 }, pos = { 0.55, 0.05, 0 } }
  m:spherical { name = "SA", body1 = crank, at1 = { 0.05, 0, 0 }, body2 = rod, at2 = { -0.45, -0.05, 0 } }
  m:spherical { name = "SB", body1 = rod, at1 = { 0.45, 0.05, 0 }, body2 = nut, at2 = { 0, 0.1, 0 } }
  return m
end
local ref
local function loop_diff(opts)
  ref = ref or loop_model():simulate { t_end = 1, formulation = "kane", rtol = 1e-12, atol = 1e-12,
                                       quiet = true }
  opts.t_end, opts.rtol, opts.atol, opts.quiet = 1, 1e-10, 1e-10, true
  local r = loop_model():simulate(opts)
  local e = 0
  for _, ch in ipairs { "nut.z", "nut.x", "rod.y", "crank.e3", "S.angle", "S.displacement" } do
    for _, t in ipairs { 0.25, 0.5, 1 } do e = math.max(e, abs(r:value(ch, t) - ref:value(ch, t))) end
  end
  return e
end
case { "loop through a cut screw, relative numeric", function()
    return loop_diff { formulation = "relative", cut = { "S" } }
  end, {}, true, check = within(1e-6) }
case { "loop through a cut screw, relative compiled", function()
    return loop_diff { formulation = "relative", cut = { "S" }, code = "compiled" }
  end, {}, true, check = within(1e-6) }
case { "loop through a screw in the tree, relative compiled", function()
    return loop_diff { formulation = "relative", cut = { "SB" }, code = "compiled" }
  end, {}, true, check = within(1e-6) }
case { "loop through a screw, Cartesian augmented", function()
    return loop_diff { formulation = "augmented" }
  end, {}, true, check = within(1e-6) }

-- a screw driven by its angle, θ = 2π t: the nut rises one pitch per second (kinematics: the
-- positions solved to the assembly tolerance 1e-10, far inside 1e-9)
case { "screw driven by its angle", function()
    local m = screw_model(ROTS[2])
    m:drive { joint = m.S, position = function(t) return 2 * pi * t end }
    local r = m:kinematics { t_end = 1.5 }
    return abs(r:value("S.displacement", 1.5) - 1.5 * PITCH)
  end, {}, true, check = within(1e-9) }

-- rotational springs on the angles (measured 9.3e-10 and 5.6e-9 rad): the screw about the equilibrium θe = m λ (g·a)/k with
-- ω² = k/(I + m λ²), from rest: θ = θe (1 − cos ωt); the puck with no gravity in its plane
-- (normal along gravity), spinning from w0: θ = (w0/ω) sin ωt, ω² = k/I
case { "rotational spring on a screw", function()
    local p = ROTS[3]
    local m = screw_model(p)
    m:rotational_spring { joint = m.S, k = 3, c = 0, angle = 0 }
    local a, lam = turn(p, { 0, 0, 1 }), PITCH / (2 * pi)
    local the, w = M * lam * (-G * a[3]) / 3, sqrt(3 / (I3 + M * lam * lam))
    local e = 0
    for _, f in ipairs { "kane", "relative" } do
      local r = m:simulate { t_end = 1, formulation = f, rtol = RTOL, atol = RTOL, quiet = true }
      e = math.max(e, abs(r:value("S.angle", 1) - the * (1 - cos(w))))
    end
    return e
  end, {}, true, check = within(TOL_ANG) }
case { "rotational spring on a planar joint", function()
    local m = mbd.model { name = "puck", dim = 3, gravity = { 0, 0, -G } }
    m:body { name = "puck", mass = 1.5, inertia = { 0.02, 0.03, 0.04 }, omega = { 0, 0, W0 } }
    m:planar { name = "P", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = m.puck, at2 = { 0, 0, 0 },
               axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 } }
    m:rotational_spring { joint = m.P, k = 0.5, c = 0, angle = 0 }
    local w, e = sqrt(0.5 / 0.04), 0
    for _, f in ipairs { "augmented", "relative" } do
      local r = m:simulate { t_end = 1, formulation = f, rtol = RTOL, atol = RTOL, quiet = true }
      e = math.max(e, abs(r:value("P.angle", 1) - W0 / w * sin(w)))
    end
    return e
  end, {}, true, check = within(TOL_ANG) }

-- the tree's coordinates: one angle for the screw, x, y and the angle for the planar joint
case { "m:tree() names the joints' coordinates", function()
    local m = planar_model(ROTS[1])
    local nut = m:body { name = "nut", mass = 1, inertia = { 1, 1, 1 }, pos = { 0, 0, 2 } }
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0, 2 }, body2 = nut, at2 = { 0, 0, 0 },
              axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = 0.1 }
    local s = tostring(m:tree())
    return s:find("P.x", 1, true) ~= nil and s:find("P.y", 1, true) ~= nil and
           s:find("P.angle", 1, true) ~= nil and s:find("S.angle", 1, true) ~= nil and
           s:find("S.displacement", 1, true) == nil
  end, {}, true, true }

-- bad input
local function spatial()
  local m = mbd.model { name = "bad", dim = 3 }
  return m, m:body { name = "b", mass = 1, inertia = { 1, 1, 1 } }
end
case { "screw without its pitch", function()
    local m, b = spatial()
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 } }
  end, {}, false, "screw 'S': missing field 'pitch' (the advance along axis1 per turn", line = 2 }
case { "screw with a pitch that is not a number", function()
    local m, b = spatial()
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = "fine" }
  end, {}, false, "field 'pitch' expects a number, got string", line = 2 }
case { "screw with an infinite pitch", function()
    local m, b = spatial()
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = math.huge }
  end, {}, false, "screw 'S': pitch must be a finite number, got inf", line = 2 }
case { "a pitch on another joint", function()
    local m, b = spatial()
    m:cylindrical { name = "C", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = 1 }
  end, {}, false, "cylindrical: unknown field 'pitch'", line = 2 }
case { "screw in a planar model", function()
    local m = mbd.model { name = "flat", dim = 2 }
    local b = m:body { name = "b", mass = 1, inertia = 1 }
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0 }, body2 = b, at2 = { 0, 0 }, axis1 = { 1, 0 }, pitch = 0.1 }
  end, {}, false, "screw 'S': not a planar joint", line = 3 }
case { "planar joint in a planar model", function()
    local m = mbd.model { name = "flat", dim = 2 }
    local b = m:body { name = "b", mass = 1, inertia = 1 }
    m:planar { name = "P", body1 = m.ground, at1 = { 0, 0 }, body2 = b, at2 = { 0, 0 }, axis1 = { 1, 0 } }
  end, {}, false, "planar 'P': not a planar joint", line = 3 }
case { "planar joint without its axes", function()
    local m, b = spatial()
    m:planar { name = "P", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 } }
  end, {}, false, "planar 'P': missing field 'axis1'", line = 2 }
case { "planar joint with ref1 along its axis", function()
    local m, b = spatial()
    m:planar { name = "P", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, ref1 = { 0, 0, 2 } }
  end, {}, false, "planar 'P': ref1 must be a finite direction not along axis1", line = 2 }
case { "ref1 on another joint", function()
    local m, b = spatial()
    m:screw { name = "S", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, pitch = 1, ref1 = { 1, 0, 0 } }
  end, {}, false, "screw: unknown field 'ref1'", line = 2 }
case { "friction on a planar joint", function()
    local m, b = spatial()
    m:planar { name = "P", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = b, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 }, axis2 = { 0, 0, 1 }, friction = { mu = 0.1 } }
  end, {}, false, "planar: unknown field 'friction'", line = 2 }

H.run(cases, "screw and planar joints")
