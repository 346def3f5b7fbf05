-- Lesson 5 (docs/tutorial/05-particle-on-sphere.md): equations written in coordinates, and the
-- Udwadia-Kalaba method — a particle on a sphere, the drift of an unstabilized constraint, the
-- stabilized one, and the check of its coefficients.
--
--   mbd examples/tutorial/05_particle_on_sphere.lua [OUTDIR]   (default out/tutorial)
--   mbd -i examples/tutorial/05_particle_on_sphere.lua         then: s, plain, stab
--
-- A particle (1 kg) moves under gravity on the sphere x^2 + y^2 + z^2 = R^2 (R = 1 m): a spherical
-- pendulum written directly in its Cartesian coordinates.  The free motion is a = M^-1 F; the
-- constraint, differentiated twice, is A qdd = b; the motion is
--   qdd = a + M^-1/2 (A M^-1/2)^+ (b - A a)        (paper 004 eq 5, ^+ the Moore-Penrose inverse)
-- Only the second derivative of the constraint is imposed, so round-off and truncation errors in
-- f = x^2 + y^2 + z^2 - R^2 are free to grow; f'' + alpha f' + beta f = 0 makes them decay.
-- Energy and the angular momentum about the vertical are kept by the motion: good checks.
local out = arg and arg[1] or "out/tutorial"
mbd.mkdir(out)

local g, R = 9.81, 1.0
s = mbd.system { name = "particle on a sphere", q = {"x", "y", "z"}, mass = {1, 1, 1},
                 force = {0, 0, -g} }
local x, y, z = s.q.x, s.q.y, s.q.z
s:holonomic { x ^ 2 + y ^ 2 + z ^ 2 - R ^ 2 }
-- on the equator, moving along it: the velocity is tangent to the sphere
s:initial { q = {R, 0, 0}, qd = {0, 2.5, 0} }

-- eq 5 term by term at the start (s:explain): on the equator the constraint's normal is
-- horizontal, so it takes the centripetal v²/R = 6.25 and leaves gravity alone
local ex = s:explain()
print(string.format("at the start: b - A a = %.2f, qdd = (%.2f, %.2f, %.2f), constraint force " ..
                    "Qc = (%.2f, %.2f, %.2f)", ex.resid[1], ex.qdd[1], ex.qdd[2], ex.qdd[3],
                    ex.Qc[1], ex.Qc[2], ex.Qc[3]))

-- the conserved quantities of a run: the largest change of energy and of x y' - y x'
local function drift(run)
  local _, xs = run:series("x")
  local _, ys = run:series("y")
  local _, zs = run:series("z")
  local _, vx = run:series("x_dot")
  local _, vy = run:series("y_dot")
  local _, vz = run:series("z_dot")
  local e0 = 0.5 * (vx[1] ^ 2 + vy[1] ^ 2 + vz[1] ^ 2) + g * zs[1]
  local h0 = xs[1] * vy[1] - ys[1] * vx[1]
  local de, dh = 0, 0
  for i = 1, #xs do
    de = math.max(de, math.abs(0.5 * (vx[i] ^ 2 + vy[i] ^ 2 + vz[i] ^ 2) + g * zs[i] - e0))
    dh = math.max(dh, math.abs(xs[i] * vy[i] - ys[i] * vx[i] - h0))
  end
  return de, dh
end

-- without stabilization, with a coarse tolerance so that the drift shows in 20 s
plain = s:simulate { t_end = 20, integrator = "rk45", rtol = 1e-6, atol = 1e-6 }
-- with f'' + 20 f' + 100 f = 0: first check that it makes errors decay (roots of l^2 + 20 l + 100)
local chk = mbd.stability { S = {{20}}, T = {{100}} }
print(string.format("stabilization alpha = 20, beta = 100: stable = %s, largest real part %.1f",
                    tostring(chk.stable), chk.max_real))
stab = s:simulate { t_end = 20, integrator = "rk45", rtol = 1e-6, atol = 1e-6,
                    stabilization = { alpha = 20, beta = 100 } }

for _, c in ipairs { { "unstabilized", plain }, { "stabilized  ", stab } } do
  local run = c[2]
  local de, dh = drift(run)
  print(string.format("%s: E1 = %.1e (RMS of f), E2 = %.1e (RMS of f'), |f| at 20 s %.1e; " ..
                      "energy kept to %.1e J, x y' - y x' to %.1e", c[1], run.E1[1], run.E2[1],
                      math.abs(run:value("constraint1", 20)), de, dh))
end
print(string.format("stabilization lowers E1 by more than 10 times: %s",
                    tostring(stab.E1[1] * 10 < plain.E1[1])))

-- at the paper's tolerance the plain equation keeps the sphere well too
local fine = s:simulate { t_end = 20 }
print(string.format("rk45 at 1e-10 (the paper's), unstabilized: E1 below 1e-8: %s",
                    tostring(fine.E1[1] < 1e-8)))

mbd.plot { runs = { plain, stab }, labels = { "unstabilized", "stabilized" }, y = "constraint1",
           file = out .. "/05_constraint.png", title = "Particle on a sphere: f = |q|^2 - R^2" }
mbd.plot { run = stab, x = "x", y = "y", equal_axes = true, file = out .. "/05_path.png",
           title = "Particle on a sphere, seen from above", xlabel = "x [m]", ylabel = "y [m]" }
print("wrote " .. out .. "/05_constraint.png and " .. out .. "/05_path.png")
