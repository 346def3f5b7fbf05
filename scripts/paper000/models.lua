-- The mechanisms of paper 000, shared by the reproductions and the benchmarks.
--   local models = dofile(<this folder> .. "/models.lua")
--   models.double_pendulum(), models.fourbar(l0, theta1, omega1)
local models = {}

-- example 1: links 2 m long (a = b = 1 m), m = 5, 7, J = 10, 20, torque 10 N·m on link 1,
-- force (8, 7) N at link 2's free end, θ1 = 0.5236, θ2 = 0.7854, at rest, no gravity
function models.double_pendulum()
  local m = mbd.model { name = "double pendulum (paper 000 ex. 1)", dim = 2 }
  local th1, th2 = 0.5236, 0.7854
  local l1 = m:body { name = "link1", mass = 5, inertia = 10,
                      pos = {math.cos(th1), math.sin(th1)}, angle = th1 }
  local l2 = m:body { name = "link2", mass = 7, inertia = 20,
                      pos = {2 * math.cos(th1) + math.cos(th2), 2 * math.sin(th1) + math.sin(th2)},
                      angle = th2 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = l1, at2 = {-1, 0} }
  m:revolute { name = "A", body1 = l1, at1 = {1, 0}, body2 = l2, at2 = {-1, 0} }
  m:torque { body = l1, value = 10 }
  m:force { body = l2, at = {1, 0}, value = {8, 7} }
  return m
end

-- example 2: four-bar with ground pivots (0, 0) and (l0, 0), links 2 m long, m = 5, 7, 9,
-- J = 10, 20, 25, rotational spring K = 100 at 0.524 rad on link 1, force (80, 70) N at the
-- coupler's CM; assembled with the coupler above the ground line; link 1 turning at w (rad/s)
function models.fourbar(l0, th1, w)
  w = w or 0
  local m = mbd.model { name = string.format("four-bar l0 = %g (paper 000 ex. 2)", l0), dim = 2 }
  local A = {2 * math.cos(th1), 2 * math.sin(th1)}
  local D = {l0, 0}
  local dx, dy = D[1] - A[1], D[2] - A[2]
  local d = math.sqrt(dx * dx + dy * dy)
  local h = math.sqrt(math.max(0, 4 - d * d / 4))   -- the coupler and link 3 are both 2 m
  local mx, my = A[1] + dx / 2, A[2] + dy / 2
  local B = {mx - h * dy / d, my + h * dx / d}
  local B2 = {mx + h * dy / d, my - h * dx / d}
  if B2[2] > B[2] then B = B2 end                     -- the coupler above the ground line
  -- initial velocities: link 1 turning at w; the velocity analysis makes the others consistent
  local vA = {-2 * w * math.sin(th1), 2 * w * math.cos(th1)}
  local function link(name, mass, J, p, q, v, om)
    return m:body { name = name, mass = mass, inertia = J,
                    pos = {(p[1] + q[1]) / 2, (p[2] + q[2]) / 2},
                    angle = math.atan(q[2] - p[2], q[1] - p[1]), vel = v, omega = om }
  end
  local l1 = link("link1", 5, 10, {0, 0}, A, {vA[1] / 2, vA[2] / 2}, w)
  local l2 = link("link2", 7, 20, A, B, vA, 0)
  local l3 = link("link3", 9, 25, D, B, {vA[1] / 2, vA[2] / 2}, w)
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = l1, at2 = {-1, 0} }
  m:revolute { name = "A", body1 = l1, at1 = {1, 0}, body2 = l2, at2 = {-1, 0} }
  m:revolute { name = "B", body1 = l2, at1 = {1, 0}, body2 = l3, at2 = {1, 0} }
  m:revolute { name = "D", body1 = m.ground, at1 = D, body2 = l3, at2 = {-1, 0} }
  m:rotational_spring { joint = O, k = 100, angle = 0.524 }
  m:force { body = l2, at = {0, 0}, value = {80, 70} }
  return m
end

-- example 3: the spatial four-bar (revolute – universal – spherical – revolute), m = 2, 1, 1;
-- J1 = (4, 2, 2), J2 = (12.4, 0.01, 12.4), J3 = (4.54, 0.01, 4.54); r = 2, b1 = b2 = 6,
-- c1 = c2 = 1; rotational spring-damper K = 1, C = 5 at joint 1; gravity 9.81 along −y.
-- The figure is not in the text; the geometry (as examples/spatial_fourbar.lua documents): link 1
-- a disk of radius r turning about the global x axis at the origin, the universal joint on its
-- rim straight above the origin, link 3 turning about the global z axis at C = (b1, c1, c2),
-- link 2 (length b1) from A to B, link 3 (length b2) from B to C, CMs at the links' middles.
-- J2 as printed (12.4, 0.01, 2) violates the triangle inequality; read J2zz = 12.4.
-- The model is examples/spatial_fourbar.lua's, built by the example itself.
local example_model = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".")
                             .. "/../example_model.lua")
function models.spatial_fourbar() return example_model("spatial_fourbar") end

return models
