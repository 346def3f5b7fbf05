-- Paper 003's models, shared by the reproductions and the benchmark: the cantilever of Fig. 4 with
-- the closed forms of its frequencies, the frequencies a flexible body swings at with lumped masses
-- (paper 003 sect. 3), and the flexible space robot of Fig. 9–11 (Tables 1–2).
--   local models = dofile(<this folder> .. "/models.lua")
--   local fe = models.cantilever(models.tips.disk, 8)
--   local m, info = models.robot { arms = "rigid" | "lumped" | "rotary", modes = n,
--                                  material = "beryllium" | "aluminium" }
--
-- The cantilever (Fig. 4; nothing of it is printed in the paper): steel, 2 m, a solid 0.1 m square
-- section, clamped at node 1; tip bodies of 100 kg (example1_cantilever.lua says why).
--
-- The robot.  Data (DIGEST.md, Tables 1–2): body 1 rigid base link, bodies 2 and 3 flexible arms
-- (8 and 10 beam elements) with lumped masses and rotary inertias at their joints, body 4 rigid
-- payload link; revolute joints 1–4, joints 2–4 locked, joint 1 driven by eq 30 (T_s = 5 s); no
-- gravity.  Our choices (the figure and the sections are not printed):
--  * Lengths (models.derived_length): Table 1's arm masses and inertias include the joint lumps of
--    Table 2 at the arm's ends, so its Iyy is the slender beam's m_b L²/12 plus the lumps'
--    2 (m_j (L/2)² + Iyy'_j), with m_b = m − 2 m_j:
--      L² = (Iyy − 2 Iyy'_j) / (m_b/12 + m_j/2)   ⇒   3.9999 m and 4.9998 m: we use 4 and 5 m.
--    (√(12 Iyy/m) of the whole body, 5.17 and 6.46 m, ignores the lumps.)
--  * Sections: tubes whose area gives the arm's mass without the joints (30.524 and 38.156 kg)
--    and whose polar radius of gyration gives its Ixx less the joints' (Table 1 − 2 × Table 2):
--    A = m_b/(ρL), k² = 7.98e-4 and 5.81e-4 m²; Iy = Iz = A k²/2, J = A k² (thin-walled tubes).
--  * Material: beryllium, E = 287 GPa, G = 132 GPa, ρ = 1850 kg/m³ (handbook values).  With the
--    masses and inertias fixed by Tables 1–2, the material enters the arms' dynamics only through
--    E/ρ and G/ρ.  Aluminium's (E = 70 GPa, G = 26 GPa, ρ = 2700; steel's are nearly the same)
--    make the arms so soft (first bendings 2.5 and 1.4 Hz) that under eq 30 they deflect by up to
--    17 % of their length and arm 2 twists by 0.35 rad: far outside the small deformations the
--    paper's equations assume (its sect. 2.2, assumptions 1 and 3).  example2_space_robot.lua runs
--    that robot and prints the numbers.  Beryllium, a metal of space structures with 6 times
--    aluminium's E/ρ and 7 times its G/ρ, keeps them near 1 % and 0.02 rad.
--    `material = "aluminium"` builds the soft robot.
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

-- the cantilever of Fig. 4: steel, 2 m, 0.1 m square (torsion constant 0.1406 a⁴), tip bodies of
-- 100 kg and radius 0.5 m: a disk standing in the x–z plane (its axis along y: m r²/4, m r²/2,
-- m r²/4) and a sphere (2 m r²/5 about every axis)
models.beam = { length = 2, elements = 8, E = 210e9, G = 80.8e9, rho = 7850, A = 0.01,
                Iy = 8.333e-6, Iz = 8.333e-6, J = 1.406e-5 }
models.tips = {
  disk = { mass = 100, inertia = {6.25, 12.5, 6.25} },
  sphere = { mass = 100, inertia = {10, 10, 10} },
}

-- the cantilever's FE model with `elements` elements (default 8) and a tip body (or none) at its
-- last node
function models.cantilever(tip, elements)
  local spec = {}
  for k, v in pairs(models.beam) do spec[k] = v end
  spec.elements = elements or models.beam.elements
  local fe = mbd.fem.beam(spec)
  if tip then
    fe:add_mass { node = spec.elements + 1, mass = tip.mass, inertia = tip.inertia }
  end
  return fe
end

-- the first root of f above lo: a scan by `step`, then bisection to the last bit
local function first_root(f, lo, step)
  local a, fa = lo, f(lo)
  while a < 100 do
    local b = a + step
    local fb = f(b)
    if (fa > 0) ~= (fb > 0) then
      for _ = 1, 200 do
        local c = (a + b) / 2
        if c == a or c == b then break end
        local fc = f(c)
        if (fc > 0) == (fa > 0) then a, fa = c, fc else b = c end
      end
      return (a + b) / 2
    end
    a, fa = b, fb
  end
  error("first_root: no root below 100", 2)
end

-- closed form: the first bending frequency [Hz] of a clamped Euler–Bernoulli beam (EI, ρA, L)
-- with a tip mass M and a tip rotary inertia J about the bending axis.  The shape
-- W = A (cos − cosh)(λx/L) + B (sin − sinh)(λx/L) is clamped at x = 0; at the tip the moment turns
-- the inertia, EI W'' = J ω² W', and the shear force moves the mass, EI W‴ = −M ω² W.  With
-- ω² = EI λ⁴/(ρA L⁴), μ = M/(ρAL) and j = J/(ρAL³) the two rows read c'' − jλ³ c' = 0 and
-- c‴ + μλ c = 0 (c the two functions, derivatives in λx/L); λ is the first root of their
-- determinant (bare beam: 2 (1 + cos λ cosh λ)).  Returns the frequency and λ.
function models.bending_closed_form(EI, rhoA, L, M, J)
  local mu, j = M / (rhoA * L), J / (rhoA * L ^ 3)
  local function det(l)
    local c, s, ch, sh = math.cos(l), math.sin(l), math.cosh(l), math.sinh(l)
    local c1, d1, dd1, ddd1 = c - ch, -s - sh, -c - ch, s - sh
    local c2, d2, dd2, ddd2 = s - sh, c - ch, -s - sh, -c - ch
    return (dd1 - j * l ^ 3 * d1) * (ddd2 + mu * l * c2) - (dd2 - j * l ^ 3 * d2) * (ddd1 + mu * l * c1)
  end
  local l = first_root(det, 1e-3, 1e-3)
  return l * l * math.sqrt(EI / (rhoA * L ^ 4)) / (2 * math.pi), l
end

-- closed form: the first torsion frequency [Hz] of a clamped shaft (GJ, ρIp, L) with a tip
-- inertia Jt about its axis: θ = sin kx with GJ θ'(L) = Jt ω² θ(L) gives kL tan kL = ρIp L / Jt
-- (kL = π/2 without a tip) and ω = k √(GJ/(ρIp)).  Returns the frequency and kL.
function models.torsion_closed_form(GJ, rhoIp, L, Jt)
  local kL = math.pi / 2
  if Jt > 0 then
    local r = rhoIp * L / Jt
    kL = first_root(function(x) return x * math.sin(x) - r * math.cos(x) end, 1e-9, 1e-3)
  end
  return kL / L * math.sqrt(GJ / rhoIp) / (2 * math.pi), kL
end

-- the cantilever's closed forms with a tip body (or none): its first bending in x–z (deflection
-- w, rotation about y: the tip's Jyy) and its first torsion (the tip's Jxx); the FE model's
-- torsional mass uses the polar moment Iy + Iz
function models.cantilever_closed_forms(tip)
  local b = models.beam
  local M, Jy, Jx = tip and tip.mass or 0, tip and tip.inertia[2] or 0, tip and tip.inertia[1] or 0
  return (models.bending_closed_form(b.E * b.Iy, b.rho * b.A, b.length, M, Jy)),
         (models.torsion_closed_form(b.G * b.J, b.rho * (b.Iy + b.Iz), b.length, Jx))
end

-- the frequencies [Hz] a flexible body swings at when clamped as its modes were computed: the
-- selected mode shapes (of the consistent mass) moving the lumped nodal masses and, when `rotary`,
-- the lumped rotary inertias.  Ritz on those shapes: K_ij = ω_i² δ_ij (mass-normalized shapes),
-- M_ij = Σ_k m_k u_ik·u_jk + Σ_k Θ_ikᵀ J_k Θ_jk — the modal block of the flexible body's mass
-- matrix (paper 003 eq 17).  Returns the sorted frequencies, or nil and a message when that modal
-- mass is singular (the engine refuses such a body).
function models.lumped_frequencies(modes, sel, rotary)
  local n, shapes, nodes = #sel, {}, {}
  for a, i in ipairs(sel) do shapes[a] = modes:shape(i) end
  for k = 1, modes.nodes do nodes[k] = modes:node(k) end
  local M, w2 = {}, {}
  for a = 1, n do
    M[a] = {}
    w2[a] = (2 * math.pi * modes.frequency[sel[a]]) ^ 2
    for b = 1, n do
      local s = 0
      for k, node in ipairs(nodes) do
        local u, v = shapes[a][k], shapes[b][k]
        s = s + node.mass * (u[1] * v[1] + u[2] * v[2] + u[3] * v[3])
        if rotary then
          for d = 1, 3 do s = s + node.inertia[d] * u[3 + d] * v[3 + d] end
        end
      end
      M[a][b] = s
    end
  end
  -- M = L Lᵀ (Cholesky); a pivot below 1e-10 of the consistent modal mass (1: the shapes are
  -- mass-normalized) is singular — a pure torsion mode without rotary inertia has exactly zero
  local Lc = {}
  for a = 1, n do
    Lc[a] = {}
    for b = 1, a do
      local s = M[a][b]
      for c = 1, b - 1 do s = s - Lc[a][c] * Lc[b][c] end
      if a == b then
        if not (s > 1e-10) then
          return nil, string.format("mode %d has a singular modal mass", sel[a])
        end
        Lc[a][a] = math.sqrt(s)
      else
        Lc[a][b] = s / Lc[b][b]
      end
    end
  end
  -- C = L⁻¹ K L⁻ᵀ, then Jacobi rotations until it is diagonal: its diagonal holds the ω²
  local Li, C = {}, {}
  for a = 1, n do
    Li[a] = {}
    for b = 1, n do
      local s = a == b and 1 or 0
      for c = 1, a - 1 do s = s - Lc[a][c] * Li[c][b] end
      Li[a][b] = s / Lc[a][a]
    end
  end
  for a = 1, n do
    C[a] = {}
    for b = 1, n do
      local s = 0
      for c = 1, n do s = s + Li[a][c] * w2[c] * Li[b][c] end
      C[a][b] = s
    end
  end
  for _ = 1, 50 do
    local off, scale = 0, 0
    for a = 1, n do
      scale = math.max(scale, math.abs(C[a][a]))
      for b = a + 1, n do off = math.max(off, math.abs(C[a][b])) end
    end
    if off <= 1e-16 * scale then break end
    for p = 1, n - 1 do
      for q = p + 1, n do
        if C[p][q] ~= 0 then
          local th = (C[q][q] - C[p][p]) / (2 * C[p][q])
          local t = (th >= 0 and 1 or -1) / (math.abs(th) + math.sqrt(th * th + 1))
          local c = 1 / math.sqrt(t * t + 1)
          local s = t * c
          for r = 1, n do
            C[r][p], C[r][q] = c * C[r][p] - s * C[r][q], s * C[r][p] + c * C[r][q]
          end
          for r = 1, n do
            C[p][r], C[q][r] = c * C[p][r] - s * C[q][r], s * C[p][r] + c * C[q][r]
          end
        end
      end
    end
  end
  local f = {}
  for a = 1, n do f[a] = math.sqrt(math.max(C[a][a], 0)) / (2 * math.pi) end
  table.sort(f)
  return f
end

-- the robot: Table 1 (mass, Ixx, Iyy, Izz) and Table 2 (joint lumps: mass, Ixx', Iyy', Izz')
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

-- arm k's length from Table 1 with Table 2's joint lumps taken out: Table 1's Iyy (axis = 3, the
-- default) or Izz (axis = 4) is the slender beam's m_b L²/12 plus the lumps at its ends,
-- 2 (m_j (L/2)² + I'_j).  Returns L and the beam's own mass m_b.
function models.derived_length(k, axis)
  local T, lump, ax = models.table1[k], models.table2[k], axis or 3
  local mb = T[1] - 2 * lump[1]
  return math.sqrt((T[ax] - 2 * lump[ax]) / (mb / 12 + lump[1] / 2)), mb
end

-- the lengths used: the derived 3.9999 and 4.9998 m, rounded
models.length = { [2] = 4.0, [3] = 5.0 }
models.elements = { [2] = 8, [3] = 10 }

-- the arms' material (header: why beryllium)
models.materials = {
  beryllium = { name = "beryllium", E = 287e9, G = 132e9, rho = 1850 },
  aluminium = { name = "aluminium", E = 70e9, G = 26e9, rho = 2700 },
}
models.material = "beryllium"

-- eq 30: θ(t) = π/(2Ts)(t − Ts/(2π) sin(2πt/Ts)) for t < Ts, π/2 after; and its derivatives
local TS = 5
function models.theta(t)
  if t >= TS then return math.pi / 2, 0, 0 end
  local w = 2 * math.pi / TS
  return math.pi / (2 * TS) * (t - math.sin(w * t) / w), math.pi / (2 * TS) * (1 - math.cos(w * t)),
         math.pi / (2 * TS) * w * math.sin(w * t)
end

-- the section of arm k in a material (a name of models.materials; default models.material): area
-- from the beam's mass, radius of gyration from its axial inertia
function models.section(k, material)
  local mat = models.materials[material or models.material]
  local L, lump = models.length[k], models.table2[k]
  local mb = models.table1[k][1] - 2 * lump[1]
  local A = mb / (mat.rho * L)
  local k2 = (models.table1[k][2] - 2 * lump[2]) / mb
  return { length = L, elements = models.elements[k], E = mat.E, G = mat.G, rho = mat.rho, A = A,
           Iy = A * k2 / 2, Iz = A * k2 / 2, J = A * k2 }
end

-- the FE model of arm k with its joint lumps, and its cantilever modes
function models.arm_modes(k, material)
  local fe = mbd.fem.beam(models.section(k, material))
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
-- damping = ζ, a modal damping ratio (none by default: the paper mentions none); material = a
-- name of models.materials (default models.material, beryllium)
function models.robot(opts)
  local arms, n, zeta = opts.arms or "rotary", opts.modes, opts.damping or 0
  local material = opts.material or models.material
  if not models.materials[material] then
    error("models.robot: unknown material '" .. tostring(material) .. "'", 2)
  end
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
    local fe2, modes2 = models.arm_modes(2, material)
    local fe3, modes3 = models.arm_modes(3, material)
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
