-- The DSL contract (../shared/DSL.md): every implemented name used exactly as the contract writes
-- it, so a rename or a changed shape fails here first.  Values are checked where the contract
-- states them (channel names, stats fields, shapes); the physics is tested elsewhere.
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local out = os.tmpname()
os.remove(out)

-- "Models, bodies, joints" (planar), as written in DSL.md
local function slider_crank()
  local m = mbd.model { name = "slider crank", dim = 2, gravity = {0, -9.81} }
  local crank = m:body { name = "crank", mass = 2, inertia = 0.015,
                         pos = {0.106, 0.106}, angle = math.pi/4,
                         vel = {0, 0}, omega = 0 }
  local rod = m:body { name = "rod", mass = 1, inertia = 0.05, pos = {0.6, 0.1}, angle = -0.2 }
  local slider = m:body { name = "slider", mass = 1, inertia = 0.001, pos = {0.95, 0} }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }
  m:revolute { name = "A", body1 = crank, at1 = {0.15, 0}, body2 = rod, at2 = {-0.35, 0} }
  m:revolute { name = "B", body1 = rod, at1 = {0.35, 0}, body2 = slider, at2 = {0, 0} }
  m:translational { name = "s", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0}, axis1 = {1, 0} }
  return m, O, crank, rod, slider
end

local cases = {
  { "require returns mbd", function() return require "mbd" == mbd end, {}, true, true },
  { "model, ground, info", function()
      local m = slider_crank()
      local i = m:info()
      return { m.ground ~= nil and 1 or 0, i.bodies, i.joints, i.coordinates, i.constraints, i.dof }
    end, {}, true, { 1, 3, 4, 9, 8, 1 } },
  { "drive and kinematics", function()
      local m, O = slider_crank()
      m:drive { joint = O, position = function(t) return 2*math.pi*t end }
      local k = m:kinematics { t_end = 2, steps = 720 }
      return { #select(1, k:series("crank.theta")), k:value("O.angle", 0.5) }
    -- t = 0.5 is a sample: the angle there is the driven one to round-off (measured: exactly
    -- pi), so the default tolerance 1e-12 relative holds
    end, {}, true, { 721, math.pi } },
  { "forces, springs, simulate with every documented key", function()
      local m, O, crank, rod, slider = slider_crank()
      m:force  { body = rod, at = {0.35, 0}, value = {8, 7} }
      m:torque { body = crank, value = 10 }
      m:force  { body = rod, at = {0, 0}, value = function(t, state)
        return {0, -0.1 * state:get("crank.theta")} end }
      m:torque { body = crank, value = function(t, state) return 0.01 * t end }
      m:spring { body1 = slider, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0}, k = 200, c = 5, length = 0.6 }
      m:rotational_spring { joint = O, k = 100, c = 0, angle = 0.524 }
      local run = m:simulate {
        t_end = 1,
        formulation = "kane",
        integrator = "adams",
        rtol = 1e-6, atol = 1e-6,
        position_tol = 1e-8,
        stabilization = { alpha = 5, beta = 5 },
        output_every = 0.01,
      }
      local t, v = run:series("crank.theta")
      local s = run.stats
      local fields = 0
      for _, k in ipairs { "wall_time", "cpu_time", "nfev", "steps", "rejected", "avg_step",
                           "newton_iterations", "max_position_violation", "max_velocity_violation",
                           "repartitions" } do
        if type(s[k]) == "number" then fields = fields + 1 end
      end
      run:write_csv(out .. ".csv", {"crank.theta", "rod.y"})
      run:write_csv(out .. "_all.csv")
      mbd.plot { run = run, y = {"crank.theta"}, file = out .. ".png", title = "theta" }
      local f = io.open(out .. ".png", "rb")
      local png = f and f:read(4) or ""
      if f then f:close() end
      os.remove(out .. ".csv"); os.remove(out .. "_all.csv"); os.remove(out .. ".png")
      return { #t, #v, fields, run:value("crank.theta", 0.5) == v[51] and 1 or 0,
               png:sub(2, 4) }
    end, {}, true, { 101, 101, 10, 1, "PNG" } },
  { "every formulation and integrator name", function()
      local n = 0
      for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" } do
        for _, ig in ipairs { "adams", "rk45", "bdf", "rk4", "rkf45" } do
          local m = slider_crank()
          m:simulate { t_end = 0.1, formulation = f, integrator = ig, step = 1e-3 }
          n = n + 1
        end
      end
      return n
    end, {}, true, 25 },
  { "planar channel names", function()
      local m = slider_crank()
      local run = m:simulate { t_end = 0.1 }
      local have = {}
      for _, c in ipairs(run.channels) do have[c] = true end
      local n = 0
      for _, c in ipairs { "crank.x", "crank.y", "crank.theta", "crank.vx", "crank.vy", "crank.omega",
                           "O.angle", "s.displacement", "O.fx", "O.fy", "energy", "violation" } do
        if have[c] then n = n + 1 end
      end
      return n
    end, {}, true, 12 },
  { "unknown key names the key", function()
      local m = slider_crank(); m:revolute { bodyy = m.ground }
    end, {}, false, "revolute: unknown field 'bodyy'", line = 1 },
  { "wrong vector size", function()
      local m, O, crank = slider_crank(); m:revolute { body1 = m.ground, body2 = crank, at1 = {0, 0, 0} }
    end, {}, false, "revolute: field 'at1' expects 2 numbers, got 3", line = 1 },

  -- contact (paper 001), as written in DSL.md
  { "contact: surfaces, contact, channels", function()
      local m = mbd.model { name = "disk", dim = 2, gravity = {0, -9.81} }
      local disk = m:body { name = "disk", mass = 3, inertia = 2, pos = {0, 0.2}, vel = {10, 0}, omega = -60 }
      local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }   -- planar
      local rim   = m:surface { body = disk, shape = "circle", radius = 0.2 }
      m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35,
                  friction = "coulomb" }
      local run = m:simulate { t_end = 0.1 }
      local have = {}
      for _, c in ipairs(run.channels) do have[c] = true end
      local n = 0
      for _, c in ipairs { "c.normal", "c.friction", "c.slip", "c.sticking", "c.px", "c.py" } do
        if have[c] then n = n + 1 end
      end
      return n
    end, {}, true, 6 },
  { "contact: regularized friction, restitution, joint friction", function()
      local m = mbd.model { dim = 2, gravity = {0, -9.81} }
      local disk = m:body { name = "disk", mass = 1, inertia = 0.02, pos = {0, 0.2} }
      local wheel = m:body { name = "wheel", mass = 1, inertia = 0.02, pos = {2, 0.2} }
      local slider = m:body { name = "slider", mass = 1, inertia = 0.02, pos = {4, 0.2} }
      local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
      m:contact { surface1 = floor, surface2 = m:surface { body = disk, shape = "circle", radius = 0.2 },
                  mu = 0.3, friction = "regularized", slope = 1000, restitution = 0.5 }
      m:revolute { body1 = m.ground, at1 = {2, 0.2}, body2 = wheel, at2 = {0, 0}, friction = { mu = 0.1, radius = 0.01 } }
      m:translational { body1 = m.ground, at1 = {4, 0.2}, body2 = slider, at2 = {0, 0}, axis1 = {1, 0}, friction = { mu = 0.1 } }
      return m:simulate { t_end = 0.1 }.ok
    end, {}, true, true },

  -- spatial, as written in DSL.md
  { "spatial bodies, joints, channels", function()
      local m = mbd.model { name = "spatial", dim = 3, gravity = {0, -9.81, 0} }
      local a = m:body { name = "a", mass = 1, inertia = {0.1, 0.2, 0.3}, pos = {1, 0, 0},
                         rot = {1, 0, 0, 0}, omega = {0, 0, 1} }
      local b = m:body { name = "b", mass = 1, inertia = {0.1, 0.2, 0.3, 0.01, 0.0, 0.0},
                         pos = {2, 0, 0}, rot = mbd.rot.axis_angle({0, 0, 1}, 0.0) }
      m:spherical { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = a, at2 = {-1, 0, 0} }
      m:revolute { name = "R", body1 = a, at1 = {0.5, 0, 0}, axis1 = {0, 0, 1}, body2 = b,
                   at2 = {-0.5, 0, 0}, axis2 = {0, 0, 1} }
      m:torque { body = b, value = {0, 0, 0.1} }
      local run = m:simulate { t_end = 0.2 }
      local have = {}
      for _, c in ipairs(run.channels) do have[c] = true end
      local n = 0
      for _, c in ipairs { "a.x", "a.y", "a.z", "a.e0", "a.e1", "a.e2", "a.e3", "a.vx", "a.vy",
                           "a.vz", "a.wx", "a.wy", "a.wz", "R.angle", "S.fx", "S.fy", "S.fz",
                           "energy", "violation" } do
        if have[c] then n = n + 1 end
      end
      return n
    end, {}, true, 19 },
  { "spatial joint types", function()
      local m = mbd.model { dim = 3 }
      local b = {}
      for i = 1, 5 do b[i] = m:body { name = "b" .. i, mass = 1, inertia = {1, 1, 1}, pos = {i, 0, 0} } end
      m:universal { body1 = m.ground, at1 = {0.5, 0, 0}, axis1 = {0, 1, 0}, body2 = b[1], at2 = {-0.5, 0, 0}, axis2 = {0, 0, 1} }
      m:cylindrical { body1 = b[1], at1 = {0.5, 0, 0}, axis1 = {1, 0, 0}, body2 = b[2], at2 = {-0.5, 0, 0}, axis2 = {1, 0, 0} }
      m:translational { body1 = b[2], at1 = {0.5, 0, 0}, axis1 = {1, 0, 0}, body2 = b[3], at2 = {-0.5, 0, 0}, axis2 = {1, 0, 0} }
      m:fixed { body1 = b[3], at1 = {0.5, 0, 0}, body2 = b[4], at2 = {-0.5, 0, 0} }
      m:spherical { body1 = b[4], at1 = {0.5, 0, 0}, body2 = b[5], at2 = {-0.5, 0, 0} }
      return m:info().joints
    end, {}, true, 5 },

  -- "Coordinate-level systems", as written in DSL.md
  { "mbd.system", function()
      local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }
      local x, y = s.q.x, s.q.y
      s:holonomic { x^2 + y^2 - 1 }
      s:initial { q = {1, 0}, qd = {0, 4} }
      local run = s:simulate { t_end = 1, integrator = "rk45", rtol = 1e-8, atol = 1e-8 }
      local have = {}
      for _, c in ipairs(run.channels) do have[c] = true end
      return { have.x and 1 or 0, have.x_dot and 1 or 0, have.constraint1 and 1 or 0,
               have.constraint1_dot and 1 or 0, type(run.E1[1]), type(run.E2[1]) }
    end, {}, true, { 1, 1, 1, 1, "number", "number" } },
  { "nonholonomic", function()
      local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 0} }
      s:nonholonomic { s.qd.x + s.q.y * s.qd.y }
      s:initial { q = {0, 1}, qd = {-1, 1} }
      return #s:simulate { t_end = 0.5 }.channels > 0
    end, {}, true, true },

  -- "Analysis helpers"
  { "stability", function()
      local a = mbd.stability { S = {{2, 0}, {0, 2}}, T = {{1, 0}, {0, 1}} }
      local b = mbd.stability { L = {{1, 0}, {0, -1}} }
      return { a.stable, b.stable }
    end, {}, true, { true, false } },
  { "sym building blocks", function()
      local t = mbd.sym.t
      local e = mbd.sym.sin(t) * mbd.sym.cos(t) + mbd.sym.sqrt(t) + mbd.sym.exp(t)
                + mbd.sym.atan2(t, 1) + mbd.sym.ifelse(t, 1, 2)
      local d = mbd.sym.diff(t ^ 2, t)
      return mbd.sym.eval(d, { t = 3 })
    end, {}, true, 6 },

  -- "Equilibrium and linearization (beyond the papers)", as written in DSL.md (a pendulum with
  -- a rotational spring-damper at its pin "O")
  { "equilibrium and linearize", function()
      local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
      local rod = m:body { name = "rod", mass = 2, inertia = 0.24, pos = {0.6, 0}, angle = 0 }
      local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
      m:rotational_spring { joint = O, k = 30, c = 0.4, angle = 0 }
      local eq = m:equilibrium { formulation = "kane", tol = 1e-12 }
      local fields = { type(eq:value("O.angle", 0)), math.type(eq.stats.iterations), type(eq.stats.stable) }
      local lin = m:linearize { at = eq }
      local run = m:simulate { t_end = 2 }
      local l2 = m:linearize { at = run, t = 1.5, quiet = true }
      local l3 = m:linearize { quiet = true }
      lin:write(out .. ".mtx")
      lin:animate { mode = 1, file = out .. ".html" }
      os.remove(out .. ".mtx")
      os.remove(out .. ".html")
      return { fields[1], fields[2], fields[3], type(tostring(lin)), #lin.A, #lin.B, #lin.C, #lin.D,
               lin.coordinates[1], #lin.eigenvalues[1], type(lin.frequencies[1]),
               type(lin.damping[1]), type(lin.modes[1]), l2.t, l3.t }
    end, {}, true, { "number", "integer", "boolean", "string", 2, 2, 0, 0, "rod.theta", 2,
                     "number", "number", "table", 1.5, 0 } },
}

H.run(cases, "DSL contract")
