-- Lesson 6 (docs/tutorial/06-contact.md): contact between body surfaces — a disk thrown spinning
-- backwards onto a straight line slips, then rolls (paper 001, example 1).
--
--   mbd examples/tutorial/06_contact.lua [OUTDIR]   (default out/tutorial)
--   mbd -i examples/tutorial/06_contact.lua         then: m, disk, run
--
-- The disk (3 kg, J = 2 kg m², radius 0.2 m) is pushed by 10 N along the line, moves at 10 m/s and
-- spins at -60 rad/s: its contact point slips backwards at 10 - 0.2·60 = -2 m/s.  Kinetic friction
-- mu N (mu = 0.3, N = m g) pushes it forward and brakes the spin until the slip speed reaches zero;
-- from then on it rolls, held by static friction (mu_s = 0.35).  With constant forces the slip speed
-- changes linearly, so the switch has a closed form:
--   t* = 2 / ((F + mu N)/m + mu N R²/J)
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local mass, J, R, F, g, mu = 3, 2, 0.2, 10, 9.81, 0.3
m = mbd.model { name = "disk on a line", dim = 2, gravity = {0, -g} }
disk = m:body { name = "disk", mass = mass, inertia = J, pos = {0, R}, vel = {10, 0},
                omega = -60 }
m:force { body = disk, at = {0, 0}, value = {F, 0} }
-- two surfaces, one in each body, and the contact between them
local floor = m:surface { name = "floor", body = m.ground, shape = "line", at = {0, 0},
                          direction = {1, 0} }
local rim = m:surface { name = "rim", body = disk, shape = "circle", radius = R }
m:contact { name = "c", surface1 = floor, surface2 = rim, friction = "coulomb", mu = mu,
            mu_static = 0.35 }

run = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-10, atol = 1e-10,
                   position_tol = 1e-12, output_every = 0.005 }

-- the normal force and the switch, against the closed forms
local N = mass * g
local tstar = 2 / ((F + mu * N) / mass + mu * N * R * R / J)
print(string.format("normal force %.6f N (m g = %.6f N)", run:value("c.normal", 0.5), N))
for _, e in ipairs(run.events) do
  print(string.format("event '%s' at t = %.9f s (closed form %.9f s)", e.kind, e.t, tstar))
end
print(string.format("slip speed at 0.1 s %.4f m/s, sticking after the switch: %s",
                    run:value("c.slip", 0.1), tostring(run:value("c.sticking", 0.5) == 1)))
-- rolling: x' = -R theta' from the switch on
print(string.format("rolling at 0.8 s: x' + R theta' = %.1e m/s",
                    run:value("disk.vx", 0.8) + R * run:value("disk.omega", 0.8)))
-- the equations at two instants (m:explain): sliding, the gap row alone and friction μN in Q;
-- rolling, the rolling row too and friction a multiplier
for _, t in ipairs { 0.1, 0.8 } do
  local ex = m:explain { run = run, t = t }
  local rows = {}
  for i, r in ipairs(ex.rows) do
    if ex.active[i] then rows[#rows + 1] = r end
  end
  print(string.format("t = %.1f s: %s, active rows %s, x'' = %.6f m/s^2, friction %.4f N", t,
                      ex.contacts[1].mode, table.concat(rows, " "), ex.qdd[1], ex.contacts[1].friction))
end
print(string.format("%d contact events, %d fixed-point iterations on N in %d evaluations",
                    #run.events, run.stats.contact_iterations, run.stats.nfev))

mbd.plot { run = run, y = {"disk.vx", "c.slip"}, file = out .. "/06_contact.png",
           title = "Disk on a line: slip, then rolling" }
run:animate { file = out .. "/06_contact.html" }
print("wrote " .. out .. "/06_contact.png and 06_contact.html")
