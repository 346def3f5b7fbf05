-- Lua-level tests of contacts (paper 001): m:surface, m:contact, their objects, channels, events
-- and statistics, and bad input that must raise a clear message naming the object and the script
-- line.  Run with the mbd program:
--   mbd tests/lua/test_contact.lua          (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

-- paper 001's disk on a line (example 1), or a variant: the model, the disk, the contact
local function disk(opts)
  opts = opts or {}
  local m = mbd.model { name = "disk", dim = 2, gravity = {0, -9.81} }
  local d = m:body { name = "disk", mass = 3, inertia = 2, pos = {0, 0.2}, vel = opts.vel or {10, 0},
                     omega = opts.omega or -60 }
  if opts.push ~= false then m:force { body = d, at = {0, 0}, value = {10, 0} } end
  local floor = m:surface { name = "floor", body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
  local rim = m:surface { name = "rim", body = d, shape = "circle", radius = 0.2 }
  local c = m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35,
                        restitution = opts.restitution }
  return m, d, c, floor, rim
end

local function spatial()
  local m = mbd.model { name = "ball", dim = 3, gravity = {0, 0, -9.81} }
  local b = m:body { name = "ball", mass = 2, inertia = {0.008, 0.008, 0.008}, pos = {0, 0, 0.1} }
  return m, b
end

-- slip to roll at t* = 2 / ((F + mu N)/m + mu N R²/J) (paper 001 example 1's closed form)
local tstar = 2 / ((10 + 0.3 * 29.43) / 3 + 0.3 * 29.43 * 0.04 / 2)

local cases = {
  -- a working contact: its objects, channels, events and statistics
  {"surface and contact objects", function()
     local m, d, c, floor, rim = disk()
     return {tostring(floor), rim.name, rim.body.name, c.name, tostring(c), m.c.name, m:find("c").index}
   end, {}, true, {"mbd.Surface 'floor' on body 'ground' of model 'disk'", "rim", "disk", "c",
                   "mbd.Contact 'c' of model 'disk'", "c", 0}},
  {"contact channels", function()
     local m = disk()
     local run = m:simulate { t_end = 0.1 }
     local have = {}
     for _, ch in ipairs(run.channels) do have[ch] = true end
     local want = {"c.normal", "c.nx", "c.ny", "c.friction", "c.fx", "c.fy", "c.slip", "c.sticking",
                   "c.gap", "c.px", "c.py", "c.u1", "c.u2"}
     for _, ch in ipairs(want) do if not have[ch] then return "missing " .. ch end end
     return have["c.nz"] == nil and have["c.pz"] == nil
   end, {}, true, true},
  -- the event located to 1e-9 s of the closed form (rtol 1e-10: between switches the motion is
  -- a polynomial of degree two, integrated to round-off)
  {"slip to roll: run.events and run.stats", function()
     local m = disk()
     local run = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
     local e = run.events[1]
     return {#run.events, e.contact, e.kind, e.t, run.stats.stick_events, run.stats.slip_events,
             run.stats.separations, run.stats.impacts, run.stats.contact_iterations > 0}
   end, {}, true, {1, "c", "stick", tstar, 1, 0, 0, 0, true}, tol = 1e-9},
  {"normal force 29.43 N, friction mu N then the rolling closed form", function()
     local m = disk()
     local run = m:simulate { t_end = 1, formulation = "gcp", rtol = 1e-10, atol = 1e-10 }
     return {run:value("c.normal", 0.5), run:value("c.friction", 0.1), run:value("c.friction", 0.8),
             run:value("c.sticking", 0.1), run:value("c.sticking", 0.8)}
   end, {}, true, {29.43, 0.3 * 29.43, -10 * 50 / 53, 0, 1}, tol = 1e-9},
  {"m:info counts the contact's rows", function()
     local m = disk()
     local i = m:info()
     return {i.constraints, i.rank, i.redundant, i.dof}
   end, {}, true, {2, 1, 0, 2}},
  {"a spatial contact: sphere on a plane", function()
     local m, b = spatial()
     m:contact { name = "c", surface1 = m:surface { body = m.ground, shape = "plane", normal = {0, 0, 1} },
                 surface2 = m:surface { body = b, shape = "sphere", radius = 0.1 } }
     local run = m:simulate { t_end = 0.2 }
     return {run:value("c.normal", 0.1), run:value("c.pz", 0.1), run:value("c.z2", 0.1)}
   end, {}, true, {2 * 9.81, 0, -0.1}, tol = 1e-8},
  {"symbolic shapes build: curve, parametric, implicit, revolution", function()
     local u, v, z = mbd.sym.var("u"), mbd.sym.var("v"), mbd.sym.var("z")
     local x, y = mbd.sym.var("x"), mbd.sym.var("y")
     local m2 = mbd.model { dim = 2 }
     local s1 = m2:surface { body = m2.ground, shape = "curve", x = u, y = 0.1 * u ^ 2, range = {-1, 1} }
     local m3, b = spatial()
     local s2 = m3:surface { body = m3.ground, shape = "parametric", x = u, y = v, z = 0.1 * u * v }
     local s3 = m3:surface { body = b, shape = "implicit", f = x ^ 2 + y ^ 2 + z ^ 2 - 0.01 }
     local s4 = m3:surface { body = m3.ground, shape = "revolution", profile = mbd.sym.sqrt(z / 0.5), inner = true }
     return {s1.index, s2.index, s3.index, s4.index}
   end, {}, true, {0, 0, 1, 2}},

  -- bad input: each names what is wrong, at the user's line
  {"unknown field", function() local m = disk(); m:surface { body = m.ground, shape = "circle", radiuss = 1 } end,
   {}, false, "surface: unknown field 'radiuss'"},
  {"a field the shape does not take", function()
     local m = disk()
     m:surface { name = "s", body = m.ground, shape = "circle", radius = 1, direction = {1, 0} }
   end, {}, false, "surface: field 'direction' is not used by shape 'circle' (surface 's')", line = 2},
  {"unknown shape", function() local m = disk(); m:surface { body = m.ground, shape = "blob" } end, {}, false,
   "surface: unknown shape 'blob' (planar: line, circle, sine, curve; spatial: plane, sphere"},
  {"a spatial shape in a planar model", function()
     local m = disk()
     m:surface { name = "p", body = m.ground, shape = "plane", normal = {0, 0, 1} }
   end, {}, false, "surface 'p': shape 'plane' is spatial, the model is planar (dim = 2)", line = 2},
  {"missing direction", function() local m = disk(); m:surface { body = m.ground, shape = "line" } end, {},
   false, "surface: missing field 'direction'"},
  {"zero radius", function() local m = disk(); m:surface { name = "r0", body = m.ground, shape = "circle", radius = 0 } end,
   {}, false, "surface 'r0': radius must be positive, got 0"},
  {"a curve of two variables", function()
     local m = disk()
     m:surface { body = m.ground, shape = "curve", x = mbd.sym.var("a"), y = mbd.sym.var("b") }
   end, {}, false, "the expressions use several variables: name the parameter with 'param'", line = 2},
  {"param must be a variable", function()
     local m = disk()
     m:surface { body = m.ground, shape = "curve", x = mbd.sym.var("u"), y = 0, param = 2 * mbd.sym.var("u") }
   end, {}, false, "field 'param' expects a symbolic variable (mbd.sym.var)", line = 2},
  {"an implicit surface of another variable", function()
     local m = spatial()
     m:surface { name = "f", body = m.ground, shape = "implicit", f = mbd.sym.var("w") ^ 2 - 1 }
   end, {}, false, "surface 'f': f depends on 'w', which is not a parameter (x, y, z)", line = 2},
  {"contact without surface2", function() local m, _, _, floor = disk(); m:contact { surface1 = floor } end, {},
   false, "contact: missing field 'surface2'"},
  {"contact with a body for a surface", function()
     local m, d, _, floor = disk()
     m:contact { surface1 = floor, surface2 = d }
   end, {}, false, "contact: field 'surface2' expects an mbd.Surface, got mbd.Body", line = 2},
  {"surfaces of one body", function()
     local m, d, _, _, rim = disk()
     local rim2 = m:surface { body = d, shape = "circle", radius = 0.1 }
     m:contact { name = "k", surface1 = rim, surface2 = rim2 }
   end, {}, false, "contact 'k': both surfaces are on body 'disk'", line = 3},
  {"a surface of another model", function()
     local _, _, _, floor = disk()
     local m2, _, _, _, rim2 = disk()
     m2:contact { surface1 = floor, surface2 = rim2 }
   end, {}, false, "contact: field 'surface1' is a surface of another model", line = 3},
  {"unknown friction", function()
     local m, _, _, floor, rim = disk()
     m:contact { surface1 = floor, surface2 = rim, friction = "sticky", mu = 1 }
   end, {}, false, "contact: unknown friction 'sticky' (coulomb, regularized, none)", line = 2},
  {"regularized without slope", function()
     local m, _, _, floor, rim = disk()
     m:contact { surface1 = floor, surface2 = rim, friction = "regularized", mu = 1 }
   end, {}, false, "contact: friction 'regularized' needs field 'slope' (N·s/m)", line = 2},
  {"mu_static below mu", function()
     local m, _, _, floor, rim = disk()
     m:contact { name = "k", surface1 = floor, surface2 = rim, mu = 0.5, mu_static = 0.2 }
   end, {}, false, "contact 'k': mu must be finite and not negative and mu_static at least mu", line = 2},
  {"restitution above 1", function()
     local m, _, _, floor, rim = disk()
     m:contact { name = "k", surface1 = floor, surface2 = rim, restitution = 2 }
   end, {}, false, "contact 'k': restitution must be in [0, 1], got 2", line = 2},

  -- run-time stops name the contact and the time, at the line of m:simulate
  {"the normal force falls to zero", function()
     local m = mbd.model { dim = 2, gravity = {0, -9.81} }
     local d = m:body { name = "d", mass = 1, inertia = 0.1, pos = {0, 0.2} }
     m:force { body = d, at = {0, 0}, value = function(t) return {0, 20 * t} end }
     m:contact { name = "c", surface1 = m:surface { body = m.ground, shape = "line", direction = {1, 0} },
                 surface2 = m:surface { body = d, shape = "circle", radius = 0.2 } }
     m:simulate { t_end = 1 }
   end, {}, false, "contact 'c': the normal force fell to zero at t = 0.4905", line = 6},
  {"the contact point leaves a ranged surface", function()
     local m = mbd.model { dim = 2, gravity = {0, -9.81} }
     local d = m:body { name = "d", mass = 1, inertia = 0.02, pos = {0, 0.2}, vel = {1, 0}, omega = -5 }
     m:contact { name = "c", surface1 = m:surface { name = "short", body = m.ground, shape = "line",
                                                    direction = {1, 0}, range = {-1, 0.5} },
                 surface2 = m:surface { body = d, shape = "circle", radius = 0.2 } }
     m:simulate { t_end = 1 }
   end, {}, false, "contact 'c': at t = 0.5 the contact point left surface 'short': u = 0.5 is outside {-1, 0.5}",
   line = 6},

  -- many contacts: 30 balls dropped on one floor from heights h_i = 0.2 + 0.01 i (restitution
  -- 0.5) — 90 root functions (there was a limit of 63).  Impact k of ball i at
  -- t_1 = √(2h/g), t_k = t_{k-1} + 2 e^{k-1} v_1 / g; the balls whose bounces accumulate
  -- (t_∞ = t_1 + 2 v_1/g) before 0.69 s rest at 0.7 s.  Tolerance: each impact restarts the
  -- integrator and is located on its interpolant at rtol 1e-10; seen over the 78 first, second
  -- and third impacts: 1.3e-9, 8.4e-9, 2.8e-8 s; bound 1e-7 s
  {"30 bouncing balls: every impact time", function()
     local N, g, e = 30, 9.81, 0.5
     local m = mbd.model { name = "balls", dim = 2, gravity = {0, -g} }
     local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
     for i = 1, N do
       local b = m:body { name = "b" .. i, mass = 1, inertia = 0.005, pos = {i, 0.3 + 0.01 * i} }
       local rim = m:surface { body = b, shape = "circle", radius = 0.1 }
       m:contact { name = "c" .. i, surface1 = floor, surface2 = rim, mu = 0.3, restitution = e }
     end
     local run = m:simulate { t_end = 0.7, formulation = "kane", rtol = 1e-10, atol = 1e-10,
                              output_every = 0.01 }
     local seen, worst, checked, resting, want_resting = {}, 0, 0, 0, 0
     for _, ev in ipairs(run.events) do
       local i = tonumber(ev.contact:sub(2))
       if ev.kind == "impact" then
         seen[i] = (seen[i] or 0) + 1
         local h = 0.2 + 0.01 * i
         local t, v = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
         for _ = 2, seen[i] do v = e * v; t = t + 2 * v / g end
         if seen[i] <= 3 then worst, checked = math.max(worst, math.abs(ev.t - t)), checked + 1 end
       end
     end
     for i = 1, N do
       local h = 0.2 + 0.01 * i
       if math.sqrt(2 * h / g) + 2 * math.sqrt(2 * g * h) / g < 0.69 then
         want_resting = want_resting + 1
         resting = resting + run:value("c" .. i .. ".sticking", 0.7)
       end
     end
     return {worst < 1e-7, checked, resting, want_resting}
   end, {}, true, {true, 78, 5, 5}},
  -- impacts with friction: a uniform disk (r = 0.1 m, m = 2 kg, J = m r²/2) dropped 0.5 m onto
  -- the floor with a sideways speed vx and no spin, restitution 0.5.  P_n = m (1 + e) v_y; the
  -- impulse that stops the slip, P_t = −m vx / 3, is taken when |P_t| ≤ mu P_n (then
  -- vx' = 2 vx / 3, ω' = −2 vx / (3 r)), else P_t = −mu P_n (vx' = vx − mu P_n / m,
  -- ω' = 2 P_t / (m r)); mu = 0 leaves vx and ω alone.  Read 0.01 s after the impact, in flight
  -- (vx, ω constant there).  Tolerance 1e-9: the jump is one linear solve (seen 6e-13)
  {"impacts with friction: sticking, sliding and frictionless impulses", function()
     local function drop(vx, mu)
       local m = mbd.model { dim = 2, gravity = {0, -9.81} }
       local b = m:body { name = "disk", mass = 2, inertia = 0.01, pos = {0, 0.6}, vel = {vx, 0} }
       local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
       m:contact { name = "c", surface1 = floor, restitution = 0.5, mu = mu,
                   surface2 = m:surface { body = b, shape = "circle", radius = 0.1 } }
       local run = m:simulate { t_end = 0.5, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
       local t = run.events[1].t + 0.01
       return run:value("disk.vx", t), run:value("disk.omega", t), run.events[1].kind
     end
     local pn = 2 * 1.5 * math.sqrt(2 * 9.81 * 0.5)
     local vs, ws = drop(1, 0.3)      -- |P_t| = 2/3 <= 0.3 P_n: sticks
     local vd, wd = drop(5, 0.1)      -- 10/3 > 0.1 P_n: slides
     local v0, w0, kind = drop(1, 0)
     return { vs - 2 / 3, ws + 2 / 0.3, vd - (5 - 0.1 * pn / 2), wd + 2 * 0.1 * pn / (2 * 0.1),
              v0 - 1, w0, kind }
   end, {}, true, { 0, 0, 0, 0, 0, 0, "impact" }, tol = 1e-9},
  -- joint friction: a block thrown down a 10° incline on a translational joint stops at
  -- t* = v0 / (g (mu cos a - sin a)) (tolerance: the event on the interpolant, 1e-9 s)
  {"joint friction: the slider stops", function()
     local a, mu = math.rad(10), 0.3
     local m = mbd.model { dim = 2, gravity = {0, -9.81} }
     local b = m:body { name = "block", mass = 2, inertia = 0.1, vel = {2 * math.cos(a), -2 * math.sin(a)} }
     m:translational { name = "s", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, axis1 = {math.cos(a), -math.sin(a)},
                       friction = { mu = mu } }
     local run = m:simulate { t_end = 2, rtol = 1e-10, atol = 1e-10 }
     return {run.events[1].contact, run.events[1].kind, run.events[1].t, run:value("s.sticking", 1.9)}
   end, {}, true, {"s", "stick", 2 / (9.81 * (0.3 * math.cos(math.rad(10)) - math.sin(math.rad(10)))), 1},
   tol = 1e-9},
  -- spatial joint friction: a wheel on a frictional horizontal axle (CM on the axis: reaction
  -- m g) loses spin at mu r m g / J and sticks at t* = ω0 J / (mu r m g); tolerance 2e-8 s: the
  -- spin is integrated through Euler parameters at rtol 1e-10 (errors of that size in ω over 4 s,
  -- divided by ω' = 0.49 rad/s²; seen 2.8e-9 augmented, 7.6e-9 kane)
  {"spatial revolute friction: the wheel stops", function()
     local mu, r, mass, J, w0 = 0.1, 0.05, 2, 0.2, 2
     local m = mbd.model { dim = 3, gravity = {0, 0, -9.81} }
     local w = m:body { name = "wheel", mass = mass, inertia = {0.1, J, 0.1}, omega = {0, w0, 0} }
     m:revolute { name = "axle", body1 = m.ground, at1 = {0, 0, 0}, body2 = w, at2 = {0, 0, 0},
                  axis1 = {0, 1, 0}, axis2 = {0, 1, 0}, friction = { mu = mu, radius = r } }
     local out = {}
     for _, f in ipairs { "augmented", "kane" } do
       local run = m:simulate { t_end = 6, formulation = f, rtol = 1e-10, atol = 1e-10 }
       local ts = w0 * J / (mu * r * mass * 9.81)
       out[#out + 1] = math.abs(run.events[1].t - ts) < 2e-8 and run.events[1].kind == "stick"
                       and #run.events == 1 and run:value("axle.sticking", 5) == 1
       out[#out + 1] = run:value("axle.friction", 1) + mu * r * mass * 9.81  -- -mu r m g on body2
     end
     return out
   end, {}, true, {true, 0, true, 0}, tol = 1e-9},
  -- a block thrown down a 10° incline whose axis leaves the xz plane (30° about z), on a
  -- frictional spatial translational joint: the planar case's stop t* = v0 / (g (mu cos a -
  -- sin a)) (tolerance 1e-9 s: between switches the motion is polynomial; seen 4e-14)
  {"spatial translational friction: the block stops", function()
     local a, b, mu, v0 = math.rad(10), math.rad(30), 0.3, 2
     local ax = { math.cos(a) * math.cos(b), math.cos(a) * math.sin(b), -math.sin(a) }
     local m = mbd.model { dim = 3, gravity = {0, 0, -9.81} }
     local blk = m:body { name = "block", mass = 2, inertia = {0.1, 0.1, 0.1},
                          vel = { v0 * ax[1], v0 * ax[2], v0 * ax[3] } }
     m:translational { name = "s", body1 = m.ground, at1 = {0, 0, 0}, body2 = blk, at2 = {0, 0, 0},
                       axis1 = ax, axis2 = ax, friction = { mu = mu } }
     local run = m:simulate { t_end = 2, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
     return { run.events[1].kind, run.events[1].t, run:value("s.friction", 0.5), run:value("s.sticking", 1.9) }
   end, {}, true, { "stick", 2 / (9.81 * (0.3 * math.cos(math.rad(10)) - math.sin(math.rad(10)))),
                    -0.3 * 2 * 9.81 * math.cos(math.rad(10)), 1 }, tol = 1e-9},
  {"joint friction on a fixed joint", function()
     local m = mbd.model { dim = 2 }
     local b = m:body { name = "b", mass = 1, inertia = 1 }
     m:fixed { name = "F", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, friction = { mu = 0.1 } }
   end, {}, false, "fixed 'F': friction is for revolute and translational joints", line = 3},
  {"revolute friction without its radius", function()
     local m = mbd.model { dim = 2 }
     local b = m:body { name = "b", mass = 1, inertia = 1 }
     m:revolute { name = "R", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, friction = { mu = 0.1 } }
   end, {}, false, "friction: missing field 'radius'", line = 3},
  {"translational friction with a radius", function()
     local m = mbd.model { dim = 2 }
     local b = m:body { name = "b", mass = 1, inertia = 1 }
     m:translational { name = "T", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, axis1 = {1, 0}, friction = { mu = 0.1, radius = 1 } }
   end, {}, false, "translational 'T': friction field 'radius' is for revolute joints", line = 3},

  -- mbd.plot of numbers computed in a script
  {"plot series: bad series", function() mbd.plot { series = {{x = {1, 2}, y = {1}}}, file = "x.png" } end, {},
   false, "plot: series[1] needs lists x and y of the same length"},
  -- text that is not UTF-8 is refused before drawing (PLplot's cairo driver drew nothing for it
  -- and leaked its text buffers: found by the fuzzer); the offset is the first malformed byte
  {"plot: a label that is not UTF-8", function()
     mbd.plot { series = {{x = {1, 2}, y = {1, 2}, label = "Bau\xff\xfegarte"}}, file = "x.png" }
   end, {}, false, "plot 'x.png': the label of series 1 is not UTF-8 text (a malformed byte at offset 3)",
   line = 1},
  {"heatmap: a title that is not UTF-8", function()
     mbd.plot { kind = "heatmap", x = {1, 2}, y = {1, 2}, z = {{1, 2}, {3, 4}}, file = "x.png",
                title = "\xc3" }
   end, {}, false, "plot 'x.png': the title is not UTF-8 text (a malformed byte at offset 0)", line = 1},
}

-- relative coordinates and generated code do not take contacts yet: a clear refusal, not a crash
cases[#cases + 1] = {"generated code refuses a contact",
  function() local m = disk() return m:simulate { t_end = 0.1, formulation = "kane", code = "tape" } end,
  {}, false, "does not handle contacts (model 'disk')"}

-- a contact that starts apart is not closed by assembly (a disk 0.8 m above its floor was moved
-- onto it at t = 0): without restitution the run is refused, naming the gap; with one it starts
-- open and closes by an impact after the free fall, at t = sqrt(2·0.8/g)
local function above(e)
  local m = mbd.model { name = "above", dim = 2, gravity = {0, -9.81} }
  local d = m:body { name = "disk", mass = 1, inertia = 0.005, pos = {0, 0.9}, angle = 0 }
  local f = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
  local r = m:surface { body = d, shape = "circle", radius = 0.1 }
  m:contact { name = "c", surface1 = f, surface2 = r, mu = 0.3, mu_static = 0.3, restitution = e }
  return m
end
cases[#cases + 1] = {"a contact that starts apart without restitution is refused",
  function() above(nil):simulate { t_end = 1 } end, {}, false, "contact 'c' starts 0.8 m apart"}
-- the impact time against the free fall's (bound 1e-7 s: the root finding at default tolerances,
-- measured 1e-10)
cases[#cases + 1] = {"a contact that starts apart with restitution falls open first",
  function()
    local r = above(0.5):simulate { t_end = 0.5 }
    return r.events[1].t
  end, {}, true, math.sqrt(2 * 0.8 / 9.81), tol = 1e-7}

-- Newton at the rounding floor of its rows: a disk sliding down a line turned by 30°, the scene
-- S from the origin, position_tol below what rows of that size can meet (a contact's gap is
-- solved to 1e-13 of the bodies' distance from the origin, 2e-9 m at 10 km).  The position
-- analyses stop at the floor and the run warns once, instead of stopping for 1.01e-12 against
-- 1e-12; the disk slides at the closed-form g (sin α − μ cos α) from 2 m/s: s(1) = 2 + a/2
-- (bound 1e-5 m: the default rtol 1e-6 over 1 s, ten times the measured 1e-7)
for _, c in ipairs { {1e2, 1e-14}, {1e4, 1e-12} } do
  for _, f in ipairs { "kane", "gcp" } do
    cases[#cases + 1] = {("%s: the position analysis at its rounding floor %g m away"):format(f, c[1]),
      function()
        local S, a, mu = c[1], math.rad(30), 0.1
        local m = mbd.model { name = "far", dim = 2, gravity = {0, -9.81} }
        local d = m:body { name = "disk", mass = 1, inertia = 0.005, angle = 0,
                           pos = {S + 0.1 * math.sin(a), S + 0.1 * math.cos(a)},
                           vel = {2 * math.cos(a), -2 * math.sin(a)} }
        local l = m:surface { body = m.ground, shape = "line", at = {S, S}, direction = {math.cos(a), -math.sin(a)} }
        local r = m:surface { body = d, shape = "circle", radius = 0.1 }
        m:contact { name = "c", surface1 = l, surface2 = r, mu = mu, mu_static = mu }
        local run = m:simulate { t_end = 1, formulation = f, position_tol = c[2], quiet = true }
        local acc = 9.81 * (math.sin(a) - mu * math.cos(a))
        local s = (run:value("disk.x", 1) - S - 0.1 * math.sin(a)) / math.cos(a)
        local warned = table.concat(run.warnings, "\n"):match("rounding floor of the constraints") ~= nil
        return { math.abs(s - (2 + acc / 2)) < 1e-5, warned }
      end, {}, true, {true, true}}
  end
end

-- two straight lines (two planes) cannot touch at one point: the message says so, not "concave
-- with curvature radius inf m"
local function flat_pair(dim)
  local m = mbd.model { name = "flat", dim = dim }
  local b = m:body { name = "b", mass = 1, inertia = dim == 2 and 0.1 or {1, 1, 1},
                     pos = dim == 2 and {0, 0} or {0, 0, 0} }
  local f, g
  if dim == 2 then
    f = m:surface { name = "f", body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
    g = m:surface { name = "g", body = b, shape = "line", at = {0, 0}, direction = {-1, 0} }
  else
    f = m:surface { name = "f", body = m.ground, shape = "plane", at = {0, 0, 0}, normal = {0, 0, 1} }
    g = m:surface { name = "g", body = b, shape = "plane", at = {0, 0, 0}, normal = {0, 0, -1} }
  end
  m:contact { name = "c", surface1 = f, surface2 = g, mu = 0.3 }
  return m
end
cases[#cases + 1] = {"line against line: two straight lines cannot touch at one point",
  function() flat_pair(2):simulate { t_end = 0.1 } end, {}, false,
  "surfaces 'f' and 'g' are both straight there: two straight lines cannot touch at a single point"}
cases[#cases + 1] = {"plane against plane: two planes cannot touch at one point",
  function() flat_pair(3):simulate { t_end = 0.1 } end, {}, false,
  "surfaces 'f' and 'g' are both flat there: two planes cannot touch at a single point"}

H.run(cases, "contact")
