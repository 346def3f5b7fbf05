-- The spatial four-bar of paper 000 (example 3): revolute - universal - spherical - revolute.
--
--   mbd examples/spatial_fourbar.lua [OUTDIR]
--
-- Paper data: masses 2, 1, 1 kg; inertias J1 = (4, 2, 2), J2 = (12.4, 0.01, 2), J3 = (4.54, 0.01,
-- 4.54) kg·m² (body frames, each link's long axis is its body y axis); r = 2 m, b1 = b2 = 6 m,
-- c1 = c2 = 1 m; a rotational spring-damper at joint 1 (K = 1 N·m/rad, C = 5 N·m·s/rad, free angle
-- 0); gravity 9.81 m/s² along -y; released at rest; 10 s.
--
-- What the paper leaves out, chosen here (papers/DIGEST.md):
--   * the figure: link 1 is a disk of radius r = 2 turning about the global x axis at the origin O
--     (its J1xx = 4 = m r²/2 is the disk's polar moment); the universal joint A sits on its rim,
--     straight above O at the start.  Link 3 turns about the global z axis at C = (b1, c1, c2) =
--     (6, 1, 1).  Link 2 (length b1) joins A to B, link 3 (length b2) joins B to C; the centres of
--     mass are at the middles of links 2 and 3.  The rocker angle at the start is where |AB| = b1.
--   * J2 as printed violates the triangle inequality (0.01 + 2 < 12.4): no rigid body has those
--     moments, and mbd refuses them.  We read J2zz = 12.4, a slender link like link 3.
--   * the universal joint's cross: one arm along link 1's axis (x), the other across link 2.
local out = arg and arg[1] or "out"
mbd.mkdir(out)

local r, b1, b2, c1, c2 = 2, 6, 6, 1, 1
local m = mbd.model { name = "spatial four-bar", dim = 3, gravity = {0, -9.81, 0} }

-- geometry of the start: A on the disk's rim, C the rocker's pivot, B where both links meet
local A, C = {0, r, 0}, {b1, c1, c2}
local function sub(a, b) return {a[1] - b[1], a[2] - b[2], a[3] - b[3]} end
local function mid(a, b) return {(a[1] + b[1]) / 2, (a[2] + b[2]) / 2, (a[3] + b[3]) / 2} end
local function cross(a, b)
  return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]}
end
local function norm(a) return math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2) end
-- B = C + b2 (cos ψ, sin ψ, 0): bisection on |B - A| = b1 for ψ between 90° and 180°
local function B_of(psi) return {C[1] + b2 * math.cos(psi), C[2] + b2 * math.sin(psi), C[3]} end
local lo, hi = math.pi / 2, math.pi
for _ = 1, 60 do
  local psi = (lo + hi) / 2
  if norm(sub(B_of(psi), A)) > b1 then lo = psi else hi = psi end
end
local B = B_of((lo + hi) / 2)

-- bodies: each link's body y axis runs along it (first joint to second)
local u2, u3 = sub(B, A), sub(B, C)
local disk = m:body { name = "link1", mass = 2, inertia = {4, 2, 2}, pos = {0, 0, 0} }
local link2 = m:body { name = "link2", mass = 1, inertia = {12.4, 0.01, 12.4}, pos = mid(A, B),
                       rot = mbd.rot.from_axes(cross({1, 0, 0}, u2), u2) }
local link3 = m:body { name = "link3", mass = 1, inertia = {4.54, 0.01, 4.54}, pos = mid(C, B),
                       rot = mbd.rot.from_axes({0, 0, 1}, u3) }

-- joints: the disk's pivot, the universal joint (cross arms: link 1's x and link 2's x), the
-- ball joint, the rocker's pivot (link 3's body x is the global z axis)
local J1 = m:revolute { name = "J1", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {1, 0, 0},
                        body2 = disk, at2 = {0, 0, 0}, axis2 = {1, 0, 0} }
m:universal { name = "J2", body1 = disk, at1 = {0, r, 0}, axis1 = {1, 0, 0},
              body2 = link2, at2 = {0, -b1 / 2, 0}, axis2 = {1, 0, 0} }
m:spherical { name = "J3", body1 = link2, at1 = {0, b1 / 2, 0}, body2 = link3, at2 = {0, b2 / 2, 0} }
m:revolute { name = "J4", body1 = link3, at1 = {0, -b2 / 2, 0}, axis1 = {1, 0, 0},
             body2 = m.ground, at2 = C, axis2 = {0, 0, 1} }
m:rotational_spring { joint = J1, k = 1, c = 5, angle = 0 }

print(m:info())   -- 21 coordinates, 20 constraints (17 joint equations + 3 norms), 1 dof
print()

-- the paper's Table 3 compares CPU time and function evaluations of the formulations at an
-- integration tolerance of 1e-5; a reference run at 1e-10 (where all four agree to 1e-9) shows
-- what each one's answer is worth at that tolerance
local ref = m:simulate { t_end = 10, formulation = "augmented", rtol = 1e-10, atol = 1e-10,
                         output_every = 0.02 }
local theta_ref = ref:value("J1.angle", 10)
print(string.format("reference (augmented, tolerance 1e-10): J1.angle(10) = %.6f rad", theta_ref))
print()
print(string.format("%-10s %6s %9s %12s %10s %10s", "method", "nfev", "cpu (ms)", "J1.angle(10)",
                    "error", "max |Phi|"))
local runs, names = {}, {}
for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane" } do
  local ok, run = pcall(m.simulate, m, { t_end = 10, formulation = f, rtol = 1e-5, atol = 1e-5,
                                         position_tol = 1e-5, output_every = 0.02 })
  if ok then
    local th = run:value("J1.angle", 10)
    print(string.format("%-10s %6d %9.1f %12.6f %10.1e %10.1e", f, run.stats.nfev,
                        1000 * run.stats.cpu_time, th, math.abs(th - theta_ref),
                        run.stats.max_position_violation))
    runs[#runs + 1], names[#names + 1] = run, f
  else
    print(string.format("%-10s (not available: %s)", f, run))
  end
end
runs[#runs + 1], names[#names + 1] = ref, "reference"

mbd.plot { runs = runs, labels = names, y = "J1.angle", file = out .. "/spatial_fourbar.png",
           title = "Spatial four-bar (paper 000 ex. 3): angle of joint 1", ylabel = "rad" }
print("wrote " .. out .. "/spatial_fourbar.png")

-- left in globals for `mbd -i examples/spatial_fourbar.lua`: model (the model), run (the reference run), runs
_G.model, _G.run, _G.runs = m, ref, runs
