-- Plots label their axes with the channels and their units, taken from each channel's kind (rad,
-- m, m/s, rad/s, N, N m, J, s); the labels are read back from SVG figures (PLplot writes each
-- character as a numeric entity).
--   mbd tests/lua/test_plot_units.lua DIR      (DIR: a scratch folder)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local dir = arg and arg[1] or "."

-- the texts of an SVG figure, in order
local function texts(file)
  local f = assert(io.open(file, "rb"))
  local svg = f:read("a"):gsub("\n", "")
  f:close()
  local out = {}
  for t in svg:gmatch("<tspan[^>]*>([^<]*)") do
    out[#out + 1] = t:gsub("&#x(%x+);", function(h) return utf8.char(tonumber(h, 16)) end)
  end
  return out
end
local function has(list, s)
  for _, t in ipairs(list) do if t == s then return true end end
  return false
end

-- a pendulum on a slide: a translational joint with a drive, a revolute joint, a spring
local m = mbd.model { name = "units", dim = 2, gravity = {0, -9.81} }
local cart = m:body { name = "cart", mass = 2, inertia = 0.1, pos = {0, 0} }
local rod = m:body { name = "rod", mass = 1, inertia = 0.1, pos = {0.5, 0} }
local S = m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = cart, at2 = {0, 0},
                            axis1 = {1, 0} }
m:revolute { name = "O", body1 = cart, at1 = {0, 0}, body2 = rod, at2 = {-0.5, 0} }
m:drive { joint = S, position = 0.1 * mbd.sym.t }
local run = m:simulate { t_end = 0.5, formulation = "kane", output_every = 0.01 }

local function labels(spec)
  spec.run, spec.file = run, dir .. "/units.svg"
  mbd.plot(spec)
  return texts(spec.file)
end

local cases = {
  { "one channel: its name and unit; time in s", function()
      local t = labels { y = "rod.theta" }
      return { has(t, "rod.theta [rad]"), has(t, "t [s]") }
    end, {}, true, { true, true } },
  { "channels of one unit share it", function()
      return has(labels { y = {"O.fx", "O.fy"} }, "O.fx, O.fy [N]")
    end, {}, true, true },
  { "channels of several units carry each theirs", function()
      return has(labels { y = {"rod.x", "O.angle"} }, "rod.x [m], O.angle [rad]")
    end, {}, true, true },
  { "velocities, angular velocities, energy", function()
      local a = labels { y = {"rod.vx"} }
      local b = labels { y = {"rod.omega"} }
      local c = labels { y = {"energy"} }
      return { has(a, "rod.vx [m/s]"), has(b, "rod.omega [rad/s]"), has(c, "energy [J]") }
    end, {}, true, { true, true, true } },
  { "a drive's effort along a slide is a force; a joint coordinate a length", function()
      return { has(labels { y = "S.effort" }, "S.effort [N]"),
               has(labels { y = "S.displacement" }, "S.displacement [m]") }
    end, {}, true, { true, true } },
  { "a channel against another: both axes carry units", function()
      local t = labels { y = "rod.y", x = "rod.x" }
      return { has(t, "rod.y [m]"), has(t, "rod.x [m]") }
    end, {}, true, { true, true } },
  { "a channel without a unit is its name", function()
      return has(labels { y = "violation" }, "violation")
    end, {}, true, true },
  { "labels given are kept", function()
      local t = labels { y = "rod.theta", ylabel = "angle", xlabel = "time" }
      return { has(t, "angle"), has(t, "time") }
    end, {}, true, { true, true } },
  { "contact forces, slip, the contact point; sticking without a unit", function()
      local mc = mbd.model { name = "disk", dim = 2, gravity = {0, -9.81} }
      local disk = mc:body { name = "disk", mass = 3, inertia = 0.06, pos = {0, 0.2}, vel = {1, 0} }
      local floor = mc:surface { name = "floor", body = mc.ground, shape = "line", at = {0, 0},
                                 direction = {1, 0} }
      local rim = mc:surface { name = "rim", body = disk, shape = "circle", radius = 0.2 }
      mc:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3 }
      local r = mc:simulate { t_end = 0.1, formulation = "kane" }
      mbd.plot { run = r, y = {"c.normal", "c.friction"}, file = dir .. "/units_c.svg" }
      local a = texts(dir .. "/units_c.svg")
      mbd.plot { run = r, y = {"c.slip", "c.px", "c.sticking"}, file = dir .. "/units_c.svg" }
      local b = texts(dir .. "/units_c.svg")
      return { has(a, "c.normal, c.friction [N]"), has(b, "c.slip [m/s], c.px [m], c.sticking") }
    end, {}, true, { true, true } },
  { "spatial: Euler parameters without a unit, reaction torques in N m; modal coordinates in m",
    function()
      local fe = mbd.fem.beam { length = 1, elements = 2, E = 210e9, G = 80.8e9, rho = 7850,
                                A = 4e-4, Iy = 1.333e-8, Iz = 1.333e-8, J = 2.25e-8 }
      local modes = fe:modes { fixed = {1}, count = 2 }
      local ms = mbd.model { name = "arm", dim = 3, gravity = {0, 0, -9.81} }
      local arm = ms:flexible_body { name = "arm", fe = fe, modes = modes }
      ms:fixed { name = "clamp", body1 = ms.ground, at1 = {0, 0, 0}, body2 = arm:node(1) }
      local r = ms:simulate { t_end = 0.01, integrator = "bdf" }
      mbd.plot { run = r, y = {"arm.e0", "clamp.tx", "arm.a1"}, file = dir .. "/units_s.svg" }
      return has(texts(dir .. "/units_s.svg"), "arm.e0, clamp.tx [N m], arm.a1 [m]")
    end, {}, true, true },
}
H.run(cases, "plots: axis labels with units")
