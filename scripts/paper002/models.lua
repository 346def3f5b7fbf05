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

return M
