-- The mechanisms of paper 002 (Lee, Yoon 1993), shared by the reproductions in this folder, the
-- tests and the benchmark.  The paper prints no dimensions (its Fig. 4, 5 and 10 are drawings):
-- the ones here are chosen so that each mechanism assembles through whole turns of its input and
-- its closed-form kinematics is easy to state (see each function), and are written in the
-- scripts' headers.
local M = {}

-- RSCR (paper Fig. 4): revolute – spherical – cylindrical – revolute.
--   crank     turns about the global z axis at the origin; the ball joint P sits a = 1 m out
--             along it: P = (a cos θ, a sin θ, 0)
--   output    turns about the global x axis through O2 = (0, 0, z0), z0 = 2 m; its arm of length
--             r = 1.5 m carries the cylindrical joint's axis, a line parallel to x through
--             C(φ) = O2 + r (0, cos φ, sin φ)
--   coupler   slides and turns along that line; the ball P is b = 1 m off it
-- So |P_yz − C_yz(φ)| = b: the output angle is where the circle of radius r about (0, z0) meets
-- the circle of radius b about (a sin θ, 0), and the coupler slides to x = a cos θ.  With
-- r + b = 2.5 ≥ √(a² + z0²) and r − b = 0.5 ≤ z0 the circles meet at every θ: the crank turns
-- through whole turns.  Masses: slender rods (crank 1 kg, coupler 0.5 kg, output 1.5 kg).
M.rscr = { a = 1, b = 1, r = 1.5, z0 = 2 }

-- the output angle φ(θ) of the RSCR (the branch continued from phi_prev), and the coupler's slide
function M.rscr_closed(theta, phi_prev)
  local g = M.rscr
  -- circle 1: centre (0, z0), radius r (the cylinder's line); circle 2: centre (a sin θ, 0),
  -- radius b (the ball); points of circle 1: (r cos φ, z0 + r sin φ)
  local cy, cz = g.a * math.sin(theta), 0
  local dy, dz = cy - 0, cz - g.z0
  local d = math.sqrt(dy * dy + dz * dz)
  local l = (g.r * g.r - g.b * g.b + d * d) / (2 * d)
  local h = math.sqrt(math.max(0, g.r * g.r - l * l))
  local my, mz = l * dy / d, g.z0 + l * dz / d
  local best, phi = math.huge, nil
  for _, s in ipairs { 1, -1 } do
    local y, z = my + s * h * (-dz) / d, mz + s * h * dy / d
    local p = math.atan(z - g.z0, y)
    if phi_prev then p = p + 2 * math.pi * math.floor((phi_prev - p) / (2 * math.pi) + 0.5) end
    local dist = phi_prev and math.abs(p - phi_prev) or (math.cos(p) > 0 and 0 or 1)
    if dist < best then best, phi = dist, p end
  end
  return phi, g.a * math.cos(theta)
end

function M.rscr_model(opts)
  opts = opts or {}
  local g = M.rscr
  local m = mbd.model { name = "RSCR", dim = 3, gravity = opts.gravity or {0, 0, 0} }
  local phi0 = M.rscr_closed(0)
  local C = {0, g.r * math.cos(phi0), g.z0 + g.r * math.sin(phi0)}
  local P = {g.a, 0, 0}
  local F = {g.a, C[2], C[3]}                                    -- the coupler's foot on the line
  local u = {(P[1] - F[1]) / g.b, (P[2] - F[2]) / g.b, (P[3] - F[3]) / g.b}
  local w = {0, (C[2] - 0) / g.r, (C[3] - g.z0) / g.r}            -- the output arm's direction
  local crank = m:body { name = "crank", mass = 1, inertia = {1e-3, 1 / 12, 1 / 12},
                         pos = {g.a / 2, 0, 0}, omega = {0, 0, opts.omega or 0},
                         vel = {0, (opts.omega or 0) * g.a / 2, 0} }
  local coupler = m:body { name = "coupler", mass = 0.5, inertia = {0.5 / 12, 1e-3, 0.5 / 12},
                           pos = {(P[1] + F[1]) / 2, (P[2] + F[2]) / 2, (P[3] + F[3]) / 2},
                           rot = mbd.rot.from_axes({1, 0, 0}, u) }
  local output = m:body { name = "output", mass = 1.5, inertia = {1.5 * g.r ^ 2 / 12, 1e-3,
                                                                  1.5 * g.r ^ 2 / 12},
                          pos = {0, C[2] / 2, (g.z0 + C[3]) / 2},
                          rot = mbd.rot.from_axes({1, 0, 0}, w) }
  local R1 = m:revolute { name = "R1", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {0, 0, 1},
                          body2 = crank, at2 = {-g.a / 2, 0, 0}, axis2 = {0, 0, 1} }
  m:spherical { name = "S", body1 = crank, at1 = {g.a / 2, 0, 0}, body2 = coupler,
                at2 = {0, g.b / 2, 0} }
  m:cylindrical { name = "C", body1 = coupler, at1 = {0, -g.b / 2, 0}, axis1 = {1, 0, 0},
                  body2 = output, at2 = {0, g.r / 2, 0}, axis2 = {1, 0, 0} }
  m:revolute { name = "R2", body1 = m.ground, at1 = {0, 0, g.z0}, axis1 = {1, 0, 0},
               body2 = output, at2 = {0, -g.r / 2, 0}, axis2 = {1, 0, 0} }
  if opts.drive then
    m:drive { joint = R1, position = opts.drive }
  end
  if opts.torque then
    m:torque { body = crank, value = {0, 0, opts.torque} }
  end
  return m, phi0
end

-- RSST, the spatial slider-crank (paper Fig. 5; Sandor & Erdman's): revolute – spherical –
-- spherical – translational.  The crank turns about the global x axis at the origin, its ball at
-- radius r = 0.08 m: P(φ) = (0, r cos φ, r sin φ); the slider runs along the line through
-- (0, y0, z0) = (0, 0.1, 0.05) parallel to x; the rod l = 0.3 m long joins the balls.  So
--   s(φ) = √(l² − (y0 − r cos φ)² − (z0 − r sin φ)²)
-- is the slider's x, and the rod spins freely about its own axis (an idle freedom: the
-- kinematic run integrates it, with the crank driven).  Masses: crank 0.5 kg, rod 0.8 kg (spin
-- inertia 1e-4 kg·m²), slider 1 kg.
M.rsst = { r = 0.08, l = 0.3, y0 = 0.1, z0 = 0.05 }

function M.rsst_s(phi)
  local g = M.rsst
  return math.sqrt(g.l ^ 2 - (g.y0 - g.r * math.cos(phi)) ^ 2 - (g.z0 - g.r * math.sin(phi)) ^ 2)
end

function M.rsst_model(opts)
  opts = opts or {}
  local g = M.rsst
  local m = mbd.model { name = "RSST", dim = 3, gravity = opts.gravity or {0, 0, 0} }
  local P, S = {0, g.r, 0}, {M.rsst_s(0), g.y0, g.z0}
  local u = {S[1] - P[1], S[2] - P[2], S[3] - P[3]}
  local crank = m:body { name = "crank", mass = 0.5, inertia = {1e-3, 2e-4, 1e-3},
                         pos = {0, g.r / 2, 0} }
  local rod = m:body { name = "rod", mass = 0.8, inertia = {1e-4, 6e-3, 6e-3},
                       pos = {(P[1] + S[1]) / 2, (P[2] + S[2]) / 2, (P[3] + S[3]) / 2},
                       rot = mbd.rot.from_axes(u, {-u[2], u[1], 0}) }
  local slider = m:body { name = "slider", mass = 1.0, inertia = {1e-3, 1e-3, 1e-3}, pos = S }
  local R = m:revolute { name = "R", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {1, 0, 0},
                         body2 = crank, at2 = {0, -g.r / 2, 0}, axis2 = {1, 0, 0} }
  m:spherical { name = "S1", body1 = crank, at1 = {0, g.r / 2, 0}, body2 = rod,
                at2 = {-g.l / 2, 0, 0} }
  m:spherical { name = "S2", body1 = rod, at1 = {g.l / 2, 0, 0}, body2 = slider, at2 = {0, 0, 0} }
  m:translational { name = "T", body1 = m.ground, at1 = {0, g.y0, g.z0}, axis1 = {1, 0, 0},
                    body2 = slider, at2 = {0, 0, 0}, axis2 = {1, 0, 0} }
  if opts.drive then m:drive { joint = R, position = opts.drive } end
  if opts.torque then m:torque { body = crank, value = {opts.torque, 0, 0} } end
  return m
end

-- RSSR (paper section 3.2 and Fig. 10): revolute – spherical – spherical – revolute, in its own
-- frame (the macro element of the composite mechanism).
--   crank     turns about the frame's z axis at the origin; its ball joint at radius a = 1 m:
--             P(θ) = (a cos θ, a sin θ, 0)
--   rocker    turns about the frame's y axis through O_r = (d, 0, h) = (3, 0, 0.5) m; its ball
--             joint at c = 1.5 m along its arm: R(ψ) = O_r + c (cos ψ, 0, −sin ψ)
--   coupler   b = 3 m between the balls (it spins freely about its own axis: an idle freedom)
-- |P(θ) − R(ψ)| = b has a solution at every θ: the crank turns whole turns while the rocker swings
-- between about 52° and 135°.  Slender rods: crank 1 kg, coupler 2 kg, rocker 1.5 kg.
M.rssr = { a = 1, d = 3, h = 0.5, c = 1.5, b = 3 }

-- the rocker angle ψ(θ) on the branch continued from psi_prev (default: the upper branch)
function M.rssr_psi(theta, psi_prev)
  local g = M.rssr
  local P = {g.a * math.cos(theta), g.a * math.sin(theta), 0}
  local function f(psi)
    local R = {g.d + g.c * math.cos(psi), 0, g.h - g.c * math.sin(psi)}
    return (P[1] - R[1]) ^ 2 + (P[2] - R[2]) ^ 2 + (P[3] - R[3]) ^ 2 - g.b ^ 2
  end
  -- roots by a scan and bisection; the one nearest psi_prev
  local best, root = math.huge, nil
  local N = 720
  for i = 0, N - 1 do
    local p0, p1 = -math.pi + 2 * math.pi * i / N, -math.pi + 2 * math.pi * (i + 1) / N
    if f(p0) * f(p1) <= 0 then
      for _ = 1, 60 do
        local pm = (p0 + p1) / 2
        if f(p0) * f(pm) <= 0 then p1 = pm else p0 = pm end
      end
      local r = (p0 + p1) / 2
      local dist = psi_prev and math.abs(r - psi_prev) or -r
      if dist < best then best, root = dist, r end
    end
  end
  return root
end

-- the RSSR as a macro element: p.theta is the crank's angle at the start (in the copy's frame);
-- with p.input (a body of another copy) and p.input_tip (a point of that body) the copy takes
-- that body as its crank instead of making one (the composite mechanism's chain)
M.rssr_macro = mbd.macro { name = "rssr", build = function(m, p)
  local g = M.rssr
  local theta = p.theta or 0
  local psi = M.rssr_psi(theta, p.psi)
  local P = {g.a * math.cos(theta), g.a * math.sin(theta), 0}
  local Or = {g.d, 0, g.h}
  local R = {g.d + g.c * math.cos(psi), 0, g.h - g.c * math.sin(psi)}
  local crank, tip = p.input, p.input_tip
  if not crank then
    crank = m:body { name = "crank", mass = 1, inertia = {1e-3, g.a ^ 2 / 12, g.a ^ 2 / 12},
                     pos = p.at {P[1] / 2, P[2] / 2, 0},
                     rot = p.rotation(mbd.rot.axis_angle({0, 0, 1}, theta)) }
    m:revolute { name = "R1", body1 = m.ground, at1 = p.at {0, 0, 0}, axis1 = p.dir {0, 0, 1},
                 body2 = crank, at2 = {-g.a / 2, 0, 0}, axis2 = {0, 0, 1} }
    tip = {g.a / 2, 0, 0}
  end
  local u = {R[1] - P[1], R[2] - P[2], R[3] - P[3]}
  local across = math.abs(u[3]) < 0.9 * g.b and {0, 0, 1} or {0, 1, 0}
  local coupler = m:body { name = "coupler", mass = 2, inertia = {1e-3, 2 * g.b ^ 2 / 12,
                                                                  2 * g.b ^ 2 / 12},
                           pos = p.at {(P[1] + R[1]) / 2, (P[2] + R[2]) / 2, (P[3] + R[3]) / 2},
                           rot = p.rotation(mbd.rot.from_axes(u, across)) }
  local rocker = m:body { name = "rocker", mass = 1.5, inertia = {1e-3, 1.5 * g.c ^ 2 / 12,
                                                                  1.5 * g.c ^ 2 / 12},
                          pos = p.at {(Or[1] + R[1]) / 2, 0, (Or[3] + R[3]) / 2},
                          rot = p.rotation(mbd.rot.axis_angle({0, 1, 0}, psi)) }
  m:revolute { name = "R2", body1 = m.ground, at1 = p.at(Or), axis1 = p.dir {0, 1, 0},
               body2 = rocker, at2 = {-g.c / 2, 0, 0}, axis2 = {0, 1, 0} }
  m:spherical { name = "S1", body1 = crank, at1 = tip, body2 = coupler, at2 = {-g.b / 2, 0, 0} }
  m:spherical { name = "S2", body1 = coupler, at1 = {g.b / 2, 0, 0}, body2 = rocker,
                at2 = {g.c / 2, 0, 0} }
  return { input = crank, output = rocker, psi = psi }
end }

-- the same mechanism as a macro's copy, written without the macro (no copy: names "<copy>_<name>"):
-- the build function run on a stand-in model, with the placement helpers of mbd.macro
function M.flat_add(macro, m, p)
  local dim = m.dim
  local origin, rot = p.origin or {0, 0, 0}, p.rot or {1, 0, 0, 0}
  local place = {}
  for k, v in pairs(p) do place[k] = v end
  place.origin, place.rot = origin, rot
  place.dir = function(x) return mbd.rot.rotate(rot, x) end
  place.at = function(x)
    local r = mbd.rot.rotate(rot, x)
    return {origin[1] + r[1], origin[2] + r[2], origin[3] + r[3]}
  end
  place.rotation = function(r) return mbd.rot.compose(rot, r or {1, 0, 0, 0}) end
  assert(dim == 3, "flat_add: spatial macros only")
  local prefix = p.name .. "_"
  local proxy = setmetatable({}, { __index = function(_, key)
    local v = m[key]
    if type(v) == "function" then
      return function(_, t)
        local t2 = {}
        for k, x in pairs(t) do t2[k] = x end
        if t2.name then t2.name = prefix .. t2.name end
        return v(m, t2)
      end
    end
    return v
  end })
  local ports = macro.build(proxy, place)
  local copy = { name = p.name }
  for k, v in pairs(ports or {}) do copy[k] = v end
  return setmetatable(copy, { __index = function(_, key) return m:find(prefix .. key) end })
end

-- a single RSSR (the paper's RSSR dynamics: a constant torque on the crank)
function M.rssr_model(opts)
  opts = opts or {}
  local m = mbd.model { name = "RSSR", dim = 3, gravity = opts.gravity or {0, 0, 0} }
  local s = M.rssr_macro:add(m, { name = "s1" })
  if opts.torque then m:torque { body = s.input, value = {0, 0, opts.torque} } end
  if opts.drive then m:drive { joint = s.R1, position = opts.drive } end
  return m, s
end

-- the composite RSSR (paper Fig. 10): k RSSR copies chained, each one's rocker the next one's
-- crank (opts.flat: the same bodies and joints without macro copies, for comparisons).  Copy i+1's frame sits at copy i's rocker pivot with its z axis along that pivot's axis
-- (copy i's y axis); its crank ball sits on copy i's rocker arm at radius a.
function M.composite_rssr(k, opts)
  opts = opts or {}
  local g = M.rssr
  local m = mbd.model { name = "composite RSSR", dim = 3, gravity = opts.gravity or {0, 0, 0} }
  local quarter = mbd.rot.axis_angle({1, 0, 0}, -math.pi / 2)   -- local z → previous y
  local copies = {}
  local origin, rot = {0, 0, 0}, {1, 0, 0, 0}
  for i = 1, k do
    local p = { name = "s" .. i, origin = origin, rot = rot }
    if i > 1 then
      local prev = copies[i - 1]
      p.input, p.input_tip, p.theta = prev.output, {g.a - g.c / 2, 0, 0}, prev.psi
    end
    copies[i] = opts.flat and M.flat_add(M.rssr_macro, m, p) or M.rssr_macro:add(m, p)
    -- the next frame: at this copy's rocker pivot, turned a quarter about its x axis
    local Or = mbd.rot.rotate(rot, {g.d, 0, g.h})
    origin = {origin[1] + Or[1], origin[2] + Or[2], origin[3] + Or[3]}
    rot = mbd.rot.compose(rot, quarter)
  end
  if opts.drive then m:drive { joint = copies[1].R1, position = opts.drive } end
  if opts.torque then m:torque { body = copies[1].input, value = {0, 0, opts.torque} } end
  return m, copies
end

return M
