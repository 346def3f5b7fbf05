-- Lesson 7 (docs/tutorial/07-flexible.md): a flexible body — a steel cantilever of beam finite
-- elements, its modes against the Euler–Bernoulli closed form, its static deflection under a tip
-- load, then the same beam swinging as a pendulum with its energy conserved (paper 003).
--
--   mbd examples/tutorial/07_flexible.lua [OUTDIR]   (default out/tutorial)
--   mbd -i examples/tutorial/07_flexible.lua         then: fe, modes, m, run
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

-- a 1 m steel beam, 20 mm × 20 mm, along x: 8 elements, 9 nodes
local L, E, G, rho, b = 1, 210e9, 80.8e9, 7850, 0.02
local A, I = b * b, b ^ 4 / 12
fe = mbd.fem.beam { length = L, elements = 8, E = E, G = G, rho = rho, A = A, Iy = I, Iz = I,
                    J = 0.1406 * b ^ 4 }
modes = fe:modes { fixed = {1}, count = 4 }      -- clamped at node 1: the 4 lowest modes
print(modes)
-- the first bending frequency of a uniform cantilever: (1.8751)² / (2π) √(EI / (ρ A L⁴))
local f1 = 1.87510407 ^ 2 / (2 * math.pi) * math.sqrt(E * I / (rho * A * L ^ 4))
print(string.format("first bending: %.4f Hz (Euler-Bernoulli %.4f Hz, %.2e relative)",
                    modes.frequency[1], f1, modes.frequency[1] / f1 - 1))

-- the clamped beam under a 10 N tip load, with 20 % modal damping so it settles: the tip's
-- deflection tends to P L³ / (3 E I)
local P = 10
local mc = mbd.model { name = "cantilever", dim = 3 }
local beam = mc:flexible_body { name = "beam", fe = fe, modes = modes, select = {2, 4},
                                damping = 0.2 }
mc:fixed { name = "clamp", body1 = mc.ground, at1 = {0, 0, 0}, body2 = beam:node(1) }
mc:force { body = beam:node(9), value = {0, 0, -P} }
local settle = mc:simulate { t_end = 0.5, integrator = "bdf", rtol = 1e-8, atol = 1e-10,
                             output_every = 0.001 }
print(string.format("tip deflection %.4f mm (P L^3 / 3EI = %.4f mm)",
                    -1000 * settle:value("beam.node9.z", 0.5), 1000 * P * L ^ 3 / (3 * E * I)))

-- the beam as a pendulum: a revolute joint about y at node 1, released horizontal under gravity;
-- no damping, so the energy (kinetic + gravitational + elastic) must stay constant
m = mbd.model { name = "flexible pendulum", dim = 3, gravity = {0, 0, -9.81} }
local arm = m:flexible_body { name = "arm", fe = fe, modes = modes, select = {2, 4} }
m:revolute { name = "pin", body1 = m.ground, at1 = {0, 0, 0}, axis1 = {0, 1, 0},
             body2 = arm:node(1), axis2 = {0, 1, 0} }
run = m:simulate { t_end = 2, formulation = "kane", integrator = "adams", rtol = 1e-9,
                   atol = 1e-11, output_every = 0.002 }
local _, e = run:series("energy")
local drift = 0
for i = 2, #e do drift = math.max(drift, math.abs(e[i] - e[1])) end
print(string.format("pendulum at 0.5 s: tip z %.4f m, first bending a1 %.3e m; energy drift %.1e J",
                    run:value("arm.node9.z", 0.5), run:value("arm.a1", 0.5), drift))
-- the scale of the energies exchanged: the beam's weight falling by half its length
local scale = rho * A * L * 9.81 * L / 2
print(string.format("(drift / (m g L/2) = %.1e; %d steps, %d evaluations)", drift / scale,
                    run.stats.steps, run.stats.nfev))

mbd.plot { run = run, y = {"arm.a1", "arm.a2"}, file = out .. "/07_flexible.png",
           title = "Flexible pendulum: modal coordinates" }
run:animate { file = out .. "/07_flexible.html" }
print("wrote " .. out .. "/07_flexible.png and 07_flexible.html")
