-- Paper 001 (Park, Yoo, Hwang 1999): the four examples' mechanisms, shared by the study scripts.
-- Data from the paper's Tables 1-4 (DIGEST.md 001); the values it does not print are arguments
-- here, and each script states and justifies its choice.
local models = {}

-- Examples 1 and 2: the disk (m = 3 kg, J = 2 kg·m², radius 0.2 m) under gravity 9.81 along -y,
-- pushed by F_D = 10 N along +x at its centre, mu = 0.3, mu_s = 0.35; r(0) = (0, 0.2),
-- theta(0) = 0, rdot(0) = (10, vy0), thetadot(0) = -60 rad/s.  ground(m) adds the ground curve
-- (a surface of m.ground) and returns it.
local function disk_on(name, vy0, ground)
  local m = mbd.model { name = name, dim = 2, gravity = { 0, -9.81 } }
  local disk = m:body { name = "disk", mass = 3, inertia = 2, pos = { 0, 0.2 }, angle = 0,
                        vel = { 10, vy0 }, omega = -60 }
  m:force { body = disk, at = { 0, 0 }, value = { 10, 0 } }
  local rim = m:surface { name = "rim", body = disk, shape = "circle", radius = 0.2 }
  m:contact { name = "c", surface1 = ground(m), surface2 = rim, friction = "coulomb", mu = 0.3,
              mu_static = 0.35 }
  return m
end

-- example 1: the straight line y = 0
function models.disk_line()
  return disk_on("disk on a line", 0, function(m)
    return m:surface { name = "floor", body = m.ground, shape = "line", at = { 0, 0 },
                       direction = { 1, 0 } }
  end)
end

-- example 2: the sine y = A sin(2 pi x / lambda) with slope 2 pi A / lambda = 0.025 at x = 0,
-- the direction of the printed initial velocity (10, 0.25)
function models.disk_sine(lambda)
  local A = 0.025 * lambda / (2 * math.pi)
  return disk_on("disk on a sine wave", 0.25, function(m)
    return m:surface { name = "wave", body = m.ground, shape = "sine", amplitude = A,
                       wavelength = lambda }
  end), A
end

-- Examples 3 and 4: body 1 (m = 50 kg, J = (10, 10, 15)) turns about n3 at a constant rate omega
-- (a driven revolute joint; the body is named bname), the ball (m = 10 kg, J = (1, 1, 1), radius 0.1 m) touches it, gravity
-- 9.81 along -n3, regularized friction with slope beta = 1000 N·s/m up to mu N.  The ball starts
-- at rest at (x0, 0, z0); surface(m, body1) adds body 1's surface.  opts (optional, beyond the
-- paper): coulomb = true for Coulomb friction with mu_s = mu instead; inertia = the ball's J (one
-- number, about every axis) instead of 1.
local function ball_on(name, bname, omega, x0, z0, mu, surface, opts)
  opts = opts or {}
  local m = mbd.model { name = name, dim = 3, gravity = { 0, 0, -9.81 } }
  local body1 = m:body { name = bname, mass = 50, inertia = { 10, 10, 15 },
                         omega = { 0, 0, omega } }
  local J = opts.inertia or 1
  local ball = m:body { name = "ball", mass = 10, inertia = { J, J, J }, pos = { x0, 0, z0 } }
  local axis = m:revolute { name = "axis", body1 = m.ground, at1 = { 0, 0, 0 }, body2 = body1, at2 = { 0, 0, 0 }, axis1 = { 0, 0, 1 },
                            axis2 = { 0, 0, 1 } }
  m:drive { joint = axis, position = omega * mbd.sym.t }
  local skin = m:surface { name = "skin", body = ball, shape = "sphere", radius = 0.1 }
  if opts.coulomb then
    m:contact { name = "c", surface1 = surface(m, body1), surface2 = skin, friction = "coulomb", mu = mu,
                mu_static = mu }
  else
    m:contact { name = "c", surface1 = surface(m, body1), surface2 = skin, friction = "regularized",
                mu = mu, slope = 1000 }
  end
  return m
end

-- example 3: the flat top of the plate, omega = 3 rad/s
function models.ball_plate(mu, x0, opts)
  return ball_on("ball on a rotating plate", "plate", 3, x0, 0.1, mu, function(m, plate)
    return m:surface { name = "top", body = plate, shape = "plane", at = { 0, 0, 0 },
                       normal = { 0, 0, 1 } }
  end, opts)
end

-- example 4: the bowl z = z0 + k rho² (a surface of revolution about body 1's axis, the ball on
-- its inside: inner = true), omega = 2 rad/s
function models.ball_bowl(mu, k, z0, x0)
  local z = mbd.sym.var("z")
  return ball_on("ball on a rotating bowl", "bowl", 2, x0, z0 + 0.1 + k * x0 * x0, mu,
                 function(m, bowl)
    return m:surface { name = "bowl", body = bowl, shape = "revolution",
                       profile = mbd.sym.sqrt((z - z0) / k), inner = true }
  end)
end

return models
