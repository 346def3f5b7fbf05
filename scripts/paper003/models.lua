-- The flexible space robot of paper 003 (Fig. 9–11, Tables 1–2), shared by the reproduction and the
-- benchmark.
--   local models = dofile(<this folder> .. "/models.lua")
--   local m, info = models.robot { arms = "rigid" | "lumped" | "rotary", modes = n }
--
-- Data (DIGEST.md, Tables 1–2): body 1 rigid base link, bodies 2 and 3 flexible arms (8 and 10 beam
-- elements) with lumped masses and rotary inertias at their joints, body 4 rigid payload link;
-- revolute joints 1–4, joints 2–4 locked, joint 1 driven by eq 30 (T_s = 5 s); no gravity.
--
-- Our choices (the figure and the sections are not printed):
--  * Lengths: Table 1's masses include the joints' lumped masses, and its Iyy then gives the arm
--    lengths: L²(m_beam/12 + m_joint/2) = Iyy − …  ⇒  4.00 m and 5.00 m (not DIGEST.md's 5.17 and
--    6.46 m, which ignore the joint masses).
--  * Sections: aluminium tubes (E = 70 GPa, G = 26 GPa, ρ = 2700 kg/m³) whose area gives the arm's
--    mass without the joints (30.524 and 38.156 kg) and whose polar radius of gyration gives its
--    Ixx less the joints' (Table 1 − 2 × Table 2): A = 2.826e-3 m² for both, k² = 7.98e-4 and
--    5.81e-4 m² (a thin-walled 70/37 mm and 64/23 mm tube); Iy = Iz = A k²/2, J = A k².
--  * Layout: joint 1 at the origin about the vertical z; the base link (CM at the origin) carries
--    joint 2 at 0.1 m along x; arm 2 runs horizontally along x from joint 2 (4 m), the elbow (joint
--    3) turns arm 3 upright (5 m along z), and the payload link sits on joint 4 with its CM 0.05 m
--    above it.  Joints 2 and 1 turn about z, joints 3 and 4 about y; the locked joints are revolute
--    joints held at their initial angle by drives (the brakes).  Body frames: x along each link.
--    Swinging about z, the upright arm and the payload load arm 2 sideways at up to 5 m above its
--    axis: that twists arm 2 — the torsion the paper could only simulate with rotary inertia.
--  * Modes: cantilever modes (clamped at the arm's first node) of each arm with its joint masses:
--    arm 2 the first bending in x'–y', in x'–z' and the first torsion; arm 3 the two bendings (the
--    paper's selection).  `modes = n` takes instead the n lowest elastic modes of each arm (the
--    benchmark's growth in modes).
local models = {}

-- Table 1 (mass, Ixx, Iyy, Izz) and Table 2 (joint lumps: mass, Ixx', Iyy', Izz')
models.table1 = {
  { 50, 0.0195, 0.00469, 0.0195 },
  { 45.786, 0.09668, 101.8122, 101.8209 },
  { 57.234, 0.11238, 198.8017, 198.8104 },
  { 160, 0.007822, 0.0834, 0.0832 },
}
models.table2 = {
  [2] = { 7.631, 0.03616, 0.03616, 0.02146 },
  [3] = { 9.539, 0.0451, 0.0451, 0.026828 },
}
models.length = { [2] = 4.0, [3] = 5.0 }
models.elements = { [2] = 8, [3] = 10 }
local E, G, RHO = 350e9, 130e9, 2700

-- eq 30: θ(t) = π/(2Ts)(t − Ts/(2π) sin(2πt/Ts)) for t < Ts, π/2 after; and its derivatives
local TS = 5
function models.theta(t)
  if t >= TS then return math.pi / 2, 0, 0 end
  local w = 2 * math.pi / TS
  return math.pi / (2 * TS) * (t - math.sin(w * t) / w), math.pi / (2 * TS) * (1 - math.cos(w * t)),
         math.pi / (2 * TS) * w * math.sin(w * t)
end

-- the section of arm k: area from the beam's mass, radius of gyration from its axial inertia
function models.section(k)
  local L, lump = models.length[k], models.table2[k]
  local mb = models.table1[k][1] - 2 * lump[1]
  local A = mb / (RHO * L)
  local k2 = (models.table1[k][2] - 2 * lump[2]) / mb
  return { length = L, elements = models.elements[k], E = E, G = G, rho = RHO, A = A,
           Iy = A * k2 / 2, Iz = A * k2 / 2, J = A * k2 }
end

-- the FE model of arm k with its joint lumps, and its cantilever modes
function models.arm_modes(k)
  local fe = mbd.fem.beam(models.section(k))
  local lump = models.table2[k]
  for _, node in ipairs { 1, models.elements[k] + 1 } do
    fe:add_mass { node = node, mass = lump[1], inertia = { lump[2], lump[3], lump[4] } }
  end
  return fe, fe:modes { fixed = {1}, count = 30 }
end

-- the paper's selection (arm 2: bending-y, bending-z, torsion; arm 3: the two bendings), or the n
-- lowest elastic modes; without rotary inertia a torsion mode is left out (it cannot be simulated)
local function selection(modes, k, n, rotary)
  local sel, seen = {}, {}
  for i, kind in ipairs(modes.kind) do
    if n then
      if #sel < n and (rotary or kind ~= "torsion") then sel[#sel + 1] = i end
    elseif not seen[kind] and (kind == "bending-y" or kind == "bending-z"
                               or (kind == "torsion" and k == 2 and rotary)) then
      seen[kind] = true
      sel[#sel + 1] = i
    end
  end
  return sel
end

local Y_DOWN = { math.cos(-math.pi / 4), 0, math.sin(-math.pi / 4), 0 }  -- x' up: −90° about y

-- the robot: arms = "rigid" (Table 1's bodies), "lumped" (flexible, lumped masses only) or
-- "rotary" (flexible with rotary inertias, the paper's method); modes = n for the n lowest modes;
-- damping = ζ, a modal damping ratio (none by default: the paper mentions none)
function models.robot(opts)
  local arms, n, zeta = opts.arms or "rotary", opts.modes, opts.damping or 0
  local m = mbd.model { name = "flexible space robot (paper 003)", dim = 3 }
  local T = models.table1
  local base = m:body { name = "base", mass = T[1][1], inertia = { T[1][2], T[1][3], T[1][4] } }
  local j1 = m:revolute { name = "J1", body1 = m.ground, at1 = {0, 0, 0}, body2 = base,
                          at2 = {0, 0, 0}, axis1 = {0, 0, 1}, axis2 = {0, 0, 1} }
  m:drive { joint = j1, position = function(t) return (models.theta(t)) end,
            velocity = function(t) local _, v = models.theta(t) return v end,
            acceleration = function(t) local _, _, a = models.theta(t) return a end }
  local x0, L2, L3 = 0.1, models.length[2], models.length[3]
  local info = { selected = {} }
  local arm2, arm3
  if arms == "rigid" then
    arm2 = m:body { name = "arm2", mass = T[2][1], inertia = { T[2][2], T[2][3], T[2][4] },
                    pos = { x0 + L2 / 2, 0, 0 } }
    arm3 = m:body { name = "arm3", mass = T[3][1], inertia = { T[3][2], T[3][3], T[3][4] },
                    pos = { x0 + L2, 0, L3 / 2 }, rot = Y_DOWN }
  else
    local rotary = arms == "rotary"
    local fe2, modes2 = models.arm_modes(2)
    local fe3, modes3 = models.arm_modes(3)
    local s2, s3 = selection(modes2, 2, n, rotary), selection(modes3, 3, n, rotary)
    info.selected = { s2, s3 }
    info.modes = { modes2, modes3 }
    arm2 = m:flexible_body { name = "arm2", fe = fe2, modes = modes2, select = s2, damping = zeta,
                             rotary_inertia = rotary, pos = { x0, 0, 0 } }
    arm3 = m:flexible_body { name = "arm3", fe = fe3, modes = modes3, select = s3, damping = zeta,
                             rotary_inertia = rotary, pos = { x0 + L2, 0, 0 }, rot = Y_DOWN }
  end
  local payload = m:body { name = "payload", mass = T[4][1], inertia = { T[4][2], T[4][3], T[4][4] },
                           pos = { x0 + L2, 0, L3 + 0.05 }, rot = Y_DOWN }
  -- joints 2–4: revolute, locked by drives (the brakes); on a flexible arm, at its end nodes
  local function joint(name, b1, at1, b2, at2, axis)
    local j = m:revolute { name = name, body1 = b1, at1 = at1, body2 = b2, at2 = at2,
                           axis1 = axis, axis2 = axis }
    m:drive { joint = j, position = function() return 0 end, velocity = function() return 0 end,
              acceleration = function() return 0 end }
  end
  local O = {0, 0, 0}
  if arms == "rigid" then
    joint("J2", base, { x0, 0, 0 }, arm2, { -L2 / 2, 0, 0 }, {0, 0, 1})
    joint("J3", arm2, { L2 / 2, 0, 0 }, arm3, { -L3 / 2, 0, 0 }, {0, 1, 0})
    joint("J4", arm3, { L3 / 2, 0, 0 }, payload, { -0.05, 0, 0 }, {0, 1, 0})
  else
    joint("J2", base, { x0, 0, 0 }, arm2:node(1), O, {0, 0, 1})
    joint("J3", arm2:node(models.elements[2] + 1), O, arm3:node(1), O, {0, 1, 0})
    joint("J4", arm3:node(models.elements[3] + 1), O, payload, { -0.05, 0, 0 }, {0, 1, 0})
  end
  return m, info
end

return models
