-- Paper 003 (Kim 1996), example 1: the cantilever of Fig. 4 — bare, with a disk at the tip, with a
-- sphere at the tip — and its torsional and bending responses with and without rotary inertia
-- (Fig. 5–8).
--
--   mbd scripts/paper003/example1_cantilever.lua [OUTDIR]          (default out/paper003)
--
-- Data (DIGEST.md): 8 three-dimensional beam elements; (a) bare, (b) a disk, (c) a sphere at the
-- tip as mass elements; the sphere's rotary inertia 0, 50, 200 in Fig. 8.  Nothing else printed.
--
-- Our choices, and why the numbers are not the paper's:
--  * The beam (not printed): steel, 2 m, a solid 0.1 m × 0.1 m square section (A = 0.01 m²,
--    Iy = Iz = 8.333e-6 m⁴, torsion constant J = 0.1406 a⁴ = 1.406e-5 m⁴), E = 210 GPa,
--    G = 80.8 GPa, ρ = 7850 kg/m³ (157 kg); clamped at node 1 (x = 0), the tip is node 9.
--  * The tip bodies (not printed): 100 kg each, radius 0.5 m.  The disk stands in the x–z plane
--    (its axis along y): Jxx = Jzz = m r²/4 = 6.25, Jyy = m r²/2 = 12.5 kg·m²; the sphere has
--    2 m r²/5 = 10 kg·m² about every axis — the largest x-inertia, as the paper says.  Fig. 8's
--    0, 50, 200 are read as the sphere's rotary inertia in kg·m² about every axis.
--  * The loads (not printed): a step at t = 0 held constant, a tip torque of 1000 N·m about x
--    (torsion) or a tip force of 1000 N along z (bending); no damping.  Responses: the tip's twist
--    (arm.node9.rx) and deflection (arm.node9.z).
--  * Modes: computed by mbd's beam model (the paper used ANSYS), consistent mass with the tip
--    body; a flexible body takes the first two bending modes in x–z (deflection along z), and
--    under the torque also the first torsion mode.  Lumping (paper 003 sect. 3): nodal masses are row sums, rotary
--    inertias the rotational diagonal with the HRZ factor (our reading of Yeh & Dopker).
--  * The paper's figures are curves without numbers: we print the frequencies and amplitudes of
--    the responses and check each of the paper's observations in words and numbers.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper003")
local pi = math.pi

local BEAM = { length = 2, elements = 8, E = 210e9, G = 80.8e9, rho = 7850, A = 0.01,
               Iy = 8.333e-6, Iz = 8.333e-6, J = 1.406e-5 }
local TIPS = {
  bare = nil,
  disk = { mass = 100, inertia = {6.25, 12.5, 6.25} },
  sphere = { mass = 100, inertia = {10, 10, 10} },
}

-- the FE model with a tip body, its modes, the mode numbers taken (two bendings in x–z, and the
-- first torsion mode when `torsion`), the first bending and the first torsion mode
local function beam(tip, with_torsion)
  local fe = mbd.fem.beam(BEAM)
  if tip then
    fe:add_mass { node = 9, mass = tip.mass, inertia = tip.inertia }
  end
  local modes = fe:modes { fixed = {1}, count = 12 }
  local sel, nb = {}, 0
  local torsion, bending
  for i, k in ipairs(modes.kind) do
    if k == "bending-z" and nb < 2 then
      nb = nb + 1
      sel[#sel + 1] = i
      bending = bending or i
    elseif k == "torsion" and not torsion then
      torsion = i
      if with_torsion then
        sel[#sel + 1] = i
      end
    end
  end
  return fe, modes, sel, bending, torsion
end

-- a cantilever under a step load at its tip: "torsion" or "bending"
local function cantilever(tip, load, rotary)
  local fe, modes, sel = beam(tip, load == "torsion")
  local m = mbd.model { name = "cantilever", dim = 3 }
  local arm = m:flexible_body { name = "arm", fe = fe, modes = modes, select = sel,
                                rotary_inertia = rotary ~= false }
  m:fixed { name = "clamp", body1 = m.ground, at1 = {0, 0, 0}, body2 = arm:node(1) }
  if load == "torsion" then
    m:torque { body = arm:node(9), value = {1000, 0, 0} }
  else
    m:force { body = arm:node(9), value = {0, 0, 1000} }
  end
  return m
end

local function simulate(m, t_end)
  return m:simulate { t_end = t_end, integrator = "bdf", rtol = 1e-8, atol = 1e-12,
                      output_every = t_end / 2000 }
end

-- the response's frequency from the crossings of its mid-level, and its peak-to-peak amplitude
local function response(run, ch)
  local t, v = run:series(ch)
  local lo, hi = math.huge, -math.huge
  for i = 1, #v do lo, hi = math.min(lo, v[i]), math.max(hi, v[i]) end
  local mid, first, last, n = (lo + hi) / 2, nil, nil, 0
  for i = 2, #v do
    local a, b = v[i - 1] - mid, v[i] - mid
    if (a > 0) ~= (b > 0) then
      local tc = t[i - 1] + (t[i] - t[i - 1]) * a / (a - b)
      first = first or tc
      last = tc
      n = n + 1
    end
  end
  return (n - 1) / (2 * (last - first)), hi - lo
end

local function yes(b) return b and "holds" or "DOES NOT HOLD" end

-- Fig. 4: the three models' modes ------------------------------------------------------------------
local rows = {}
for _, name in ipairs { "bare", "disk", "sphere" } do
  local _, modes, _, b, tor = beam(TIPS[name])
  rows[#rows + 1] = { name, modes.frequency[b], modes.frequency[tor] }
end
study.table {
  title = "Fig. 4 — the cantilever models (steel 2 m, 0.1 m square, 8 elements): FE frequencies",
  header = { "model", "first bending x-z [Hz]", "first torsion [Hz]" },
  formats = { nil, "%.4f", "%.4f" },
  rows = rows,
}

-- Fig. 5: torsion ----------------------------------------------------------------------------------
local tors, rows5 = {}, {}
for _, name in ipairs { "bare", "disk", "sphere" } do
  local run = simulate(cantilever(TIPS[name], "torsion"), 0.1)
  local f, pp = response(run, "arm.node9.rx")
  tors[name] = f
  rows5[#rows5 + 1] = { name, f, pp * 1e3, run.stats.nfev }
  tors[#tors + 1] = run
end
study.table {
  title = "Fig. 5 — tip twist under a 1000 N·m step torque (with rotary inertia)",
  header = { "model", "frequency [Hz]", "twist p-p [mrad]", "nfev" },
  formats = { nil, "%.3f", "%.4f", nil },
  rows = rows5,
}
print(string.format("paper: the sphere (largest x-inertia) responds slowest: %s (sphere %.2f Hz, "
                    .. "disk %.2f Hz, bare %.1f Hz)", yes(tors.sphere < tors.disk and
                    tors.disk < tors.bare), tors.sphere, tors.disk, tors.bare))
local ok, msg = pcall(cantilever, TIPS.sphere, "torsion", false)
print("paper: without rotary inertia the torsion mode cannot be simulated: "
      .. yes(not ok and msg:find("singular modal mass", 1, true) ~= nil))
print("  mbd: " .. tostring(msg):gsub("^[^:]*:%d+: ", ""))
print()
mbd.plot { runs = { tors[1], tors[2], tors[3] }, labels = { "bare", "disk", "sphere" },
           y = "arm.node9.rx", file = out .. "/paper003_fig5_torsion.png", ylabel = "tip twist [rad]",
           title = "Paper 003 Fig. 5: torsional response of the cantilever" }

-- Fig. 6: bending of the bare beam with and without rotary inertia ------------------------------
local with = simulate(cantilever(nil, "bending", true), 0.3)
local without = simulate(cantilever(nil, "bending", false), 0.3)
local f1, pp1 = response(with, "arm.node9.z")
local f0 = response(without, "arm.node9.z")
local d6 = study.max_difference(with, without, "arm.node9.z")
print(string.format("Fig. 6 — bare beam, tip deflection under a 1000 N step: %.4f Hz with rotary "
                    .. "inertia, %.4f Hz without (%.3f %% apart); largest difference over 0.3 s "
                    .. "%.2e m = %.2f %% of the %.4e m peak-to-peak (the second mode's phase)",
                    f1, f0, 100 * (f1 / f0 - 1), d6, 100 * d6 / pp1, pp1))
print(string.format("paper: the distributed rotary inertia hardly changes bending (identical "
                    .. "curves): %s (first frequencies within 0.1 %%)",
                    yes(math.abs(f1 / f0 - 1) < 0.001)))
print()
mbd.plot { runs = { with, without }, labels = { "with rotary inertia", "without" },
           y = "arm.node9.z", file = out .. "/paper003_fig6_bending_rotary.png",
           ylabel = "tip deflection [m]", title = "Paper 003 Fig. 6: bending with and without rotary inertia" }

-- Fig. 7: bending with the disk and with the sphere --------------------------------------------
local disk = simulate(cantilever(TIPS.disk, "bending"), 1)
local sphere = simulate(cantilever(TIPS.sphere, "bending"), 1)
local fd, ppd = response(disk, "arm.node9.z")
local fs = response(sphere, "arm.node9.z")
local d7 = study.max_difference(disk, sphere, "arm.node9.z")
print(string.format("Fig. 7 — tip deflection under a 1000 N step: disk %.4f Hz, sphere %.4f Hz "
                    .. "(%.2f %% apart); largest difference over 1 s (ten periods: the phase "
                    .. "drifts) %.2e m = %.2f %% of the %.4e m peak-to-peak", fd, fs,
                    100 * (fs - fd) / fd, d7, 100 * d7 / ppd, ppd))
print(string.format("paper: disk and sphere bend nearly alike (the lumped mass matters more than "
                    .. "its rotary inertia): %s (frequencies within 2 %%)",
                    yes(math.abs(fs - fd) / fd < 0.02)))
print()
mbd.plot { runs = { disk, sphere }, labels = { "disk", "sphere" }, y = "arm.node9.z",
           file = out .. "/paper003_fig7_disk_sphere.png", ylabel = "tip deflection [m]",
           title = "Paper 003 Fig. 7: bending, tip disk vs tip sphere" }

-- Fig. 8: the sphere's rotary inertia 0, 10 (its own), 50, 200 kg·m² --------------------------
local rows8, runs8, f8 = {}, {}, {}
for _, J in ipairs { 0, 10, 50, 200 } do
  local run = simulate(cantilever({ mass = 100, inertia = {J, J, J} }, "bending"), 1)
  local f, pp = response(run, "arm.node9.z")
  f8[J] = f
  rows8[#rows8 + 1] = { J, f, 100 * (f / (f8[0] or f) - 1), pp * 1e3 }
  runs8[#runs8 + 1] = run
end
study.table {
  title = "Fig. 8 — tip sphere (100 kg) with rotary inertia J about every axis: bending response",
  header = { "J [kg m^2]", "frequency [Hz]", "change vs J = 0 [%]", "deflection p-p [mm]" },
  formats = { nil, "%.4f", "%.2f", "%.4f" },
  rows = rows8,
}
print(string.format("paper: a small rotary inertia changes bending little, 50 and 200 visibly: %s "
                    .. "(J = 10: %.2f %%; 50: %.2f %%; 200: %.2f %%)",
                    yes(math.abs(f8[10] / f8[0] - 1) < 0.02 and f8[50] / f8[0] - 1 < -0.05
                        and f8[200] < f8[50]), 100 * (f8[10] / f8[0] - 1),
                    100 * (f8[50] / f8[0] - 1), 100 * (f8[200] / f8[0] - 1)))
mbd.plot { runs = runs8, labels = { "J = 0", "J = 10", "J = 50", "J = 200" }, y = "arm.node9.z",
           file = out .. "/paper003_fig8_sphere_inertia.png", ylabel = "tip deflection [m]",
           title = "Paper 003 Fig. 8: bending with the tip sphere's rotary inertia" }
print("wrote " .. out .. "/paper003_fig5_torsion.png, fig6, fig7, fig8")
