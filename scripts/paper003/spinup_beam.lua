-- Beyond paper 003: the spin-up beam of Kane, Ryan and Banerjee (1987), the classic test of
-- geometric stiffening.  A cantilever on a hub is spun up to Ω_s in T_s seconds; linear floating-
-- frame modal equations (paper 003's) soften the in-plane bending by the centrifugal term −Ω²M and,
-- once Ω exceeds the first bending frequency, their tip deflection grows without bound; with the
-- stiffness of the centrifugal tension (geometric_stiffening = true) it stays small and settles.
--
--   mbd scripts/paper003/spinup_beam.lua [OUTDIR]          (default out/paper003)
--
-- Data of the usual form of this test (we did not have the 1987 paper's table at hand): L = 10 m,
-- ρA = 1.2 kg/m (ρ = 3000 kg/m³, A = 4e-4 m²), EI = 14 000 N·m² (E = 70 GPa, I = 2e-7 m⁴); hub
-- radius 0 (the beam's root on the axis); Ω(t) = Ω_s/T_s (t − T_s/(2π) sin(2πt/T_s)) for t < T_s,
-- Ω_s after; T_s = 15 s, Ω_s = 6 rad/s.  Our model: 10 beam elements, the first four in-plane
-- bending modes (clamped root), the hub a driven revolute at the beam frame's origin; BDF, 30 s.
-- First bending frequency ω1 = 3.8 rad/s: at Ω_s = 6 rad/s the linear model's in-plane stiffness
-- ω1² − Ω² is negative.  What we claim is checked (exit status 1 when a claim fails): the FE
-- frequency against the Euler–Bernoulli closed form, the linear model's divergence, the stiffened
-- model's settling.
local study = require "mbd.study"
local out = study.outdir(arg, "out/paper003")
local claims = study.claims()
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local models = dofile(here .. "/models.lua")

local L, TS, WS = 10, 15, 6
local function spin(t)
  if t >= TS then return WS * (t - TS / 2), WS, 0 end
  local w = 2 * math.pi / TS
  return WS / TS * (t * t / 2 + (math.cos(w * t) - 1) / (w * w)), WS / TS * (t - math.sin(w * t) / w),
         WS / TS * (1 - math.cos(w * t))
end

local fe = mbd.fem.beam { length = L, elements = 10, E = 7e10, G = 2.6e10, rho = 3000, A = 4e-4,
                          Iy = 2e-7, Iz = 2e-7, J = 4e-7 }
local modes = fe:modes { fixed = {1}, count = 16 }
local sel = {}
for i, k in ipairs(modes.kind) do
  if k == "bending-y" and #sel < 4 then sel[#sel + 1] = i end
end

local function run(stiffening)
  local m = mbd.model { name = "spin-up beam", dim = 3 }
  local beam = m:flexible_body { name = "beam", fe = fe, modes = modes, select = sel,
                                 geometric_stiffening = stiffening }
  local hub = m:revolute { name = "hub", body1 = m.ground, at1 = {0, 0, 0}, body2 = beam,
                           at2 = {0, 0, 0}, axis1 = {0, 0, 1}, axis2 = {0, 0, 1} }
  m:drive { joint = hub, position = function(t) return (spin(t)) end,
            velocity = function(t) local _, v = spin(t) return v end,
            acceleration = function(t) local _, _, a = spin(t) return a end }
  -- the tip's deflection across the beam, in the beam's frame; the run stops past 2 m
  local function deflection(t, s)
    local th = s:get("hub.angle")
    return -math.sin(th) * s:get("beam.node11.x") + math.cos(th) * s:get("beam.node11.y")
  end
  return m:simulate { t_end = 30, formulation = "augmented", integrator = "bdf", rtol = 1e-8, atol = 1e-10,
                      output_every = 0.05,
                      stop_when = function(t, s) return 2 - math.abs(deflection(t, s)) end }, deflection
end

local w1 = 2 * math.pi * modes.frequency[sel[1]]
local w1cf = 2 * math.pi * models.bending_closed_form(7e10 * 2e-7, 3000 * 4e-4, L, 0, 0)
print(string.format("spin-up to %g rad/s in %g s: first bending frequency %.4f rad/s (FE), %.4f rad/s "
                    .. "(closed form)", WS, TS, w1, w1cf))
-- Hermite cubics on 10 elements: 9e-7 (measured, O(h⁴)); bound 1e-5
claims:near("first bending, FE / closed form - 1", w1 / w1cf - 1, 0, { atol = 1e-5 })
local rows, runs = {}, {}
for _, stiff in ipairs { false, true } do
  local r = run(stiff)
  runs[#runs + 1] = r
  local t, th = r:series("hub.angle")
  local _, x = r:series("beam.node11.x")
  local _, y = r:series("beam.node11.y")
  local worst, last = 0, 0
  for i = 1, #t do
    local d = -math.sin(th[i]) * x[i] + math.cos(th[i]) * y[i]
    worst = math.max(worst, math.abs(d))
    last = d
  end
  rows[#rows + 1] = { stiff and "yes" or "no", r.stop_time and string.format("%.3f", r.stop_time)
                      or "-", worst, last, r.stats.nfev }
end
study.table {
  title = "Tip deflection across the beam (beam frame) during and after the spin-up",
  header = { "geometric stiffening", "|deflection| > 2 m at t [s]", "largest [m]", "at the end [m]",
             "nfev" },
  formats = { nil, nil, "%.4f", "%.5f", nil },
  rows = rows,
}
local stop = runs[1].stop_time
claims:holds("linear modes: the tip deflection passes 2 m during the spin-up (the run stops)",
             stop ~= nil and stop < TS, stop and string.format("at %.3f s, Omega = %.3f rad/s", stop,
                                                               select(2, spin(stop))) or "no stop")
claims:holds("geometric stiffening: the run reaches 30 s (deflection below 2 m throughout)",
             runs[2].stop_time == nil and runs[2].ok, string.format("largest %.4f m", rows[2][3]))
-- after the spin-up the stiffened beam settles near its steady deflection, zero for this hub
-- (no damping: what is left is the vibration excited by the spin-up, 3 mm; bound 1 cm)
claims:within("geometric stiffening: |deflection| at 30 s [m]", math.abs(rows[2][4]), 0, 0.01)
local fig = out .. "/paper003_spinup_beam.png"
mbd.plot { runs = runs, labels = { "linear (no stiffening)", "geometric stiffening" },
           y = "beam.a1", file = fig, ylabel = "first modal coordinate [m]",
           title = "Spin-up beam (Kane, Ryan, Banerjee 1987)" }
print("wrote " .. fig)
claims:finish()
