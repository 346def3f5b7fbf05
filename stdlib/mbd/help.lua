-- help(x): documentation of the mbd scripting language at the REPL and in scripts.
--
--   help()                 overview: how to build a model, and the list of topics
--   help("revolute")       a topic (also "m:revolute", "mbd.model", "run:value", "fem.beam")
--   help(mbd.model)        the topic of a DSL function (looked up in `mbd` and in the DSL metatables)
--   help(m), help(run)     the doc of a DSL object, by its metatable's __name ("mbd.Model", "mbd.Run")
--
-- The documentation is data, in four tables below:
--   topics[name]  = { title = "how it is called", text = "what it does", example = "one example",
--                     see = { "other", "topics" } }
--   types["mbd.Body"] = "Body"             the topic that documents objects with that __name
--   aliases["joint"] = "Joint"             other spellings of a topic
--   groups = { { "heading", { topic names } }, ... }   the overview's topic list, in order
-- To document a new DSL name, add its entry to `topics` and its name to one of `groups` (a test checks
-- that every topic is listed and every `see` exists). At run time, help.add(name, entry [, group])
-- does the same from another module.
--
-- The module returns `help`, a callable table: help(x) prints, help.text(x) returns the text.

local help = {}

local topics = {}
local types = {}
local aliases = {}
local groups = {}

help.topics, help.types, help.aliases, help.groups = topics, types, aliases, groups

-- DSL names documented in DSL.md but not implemented yet: the overview marks them with "*" and
-- their topics say so (remove a name here when it is implemented)
local not_yet = { surface = true, contact = true, ["fem.beam"] = true, ["fem.load"] = true,
                  flexible_body = true, Surface = true, Contact = true }
help.not_yet = not_yet

-- the overview -----------------------------------------------------------------------------------

local overview = [[
Build a model, add bodies, joints, forces, then simulate and read the channels:

  local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
  local link = m:body { name = "link", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = link, at2 = {-0.5, 0} }
  local run = m:simulate { t_end = 2, formulation = "kane", integrator = "adams" }
  print(run:value("link.theta", 1.0))
  run:write_csv("pendulum.csv")

help(x) describes a DSL object (help(m), help(run)), a function (help(mbd.model)) or a topic
(help("revolute"), help("simulate")). SI units throughout; vectors are Lua arrays.]]

-- models, bodies ---------------------------------------------------------------------------------

topics.model = {
  title = "mbd.model { name = ..., dim = 2 | 3, gravity = {...} }  -> Model",
  text = [[
Creates an empty model. dim = 2 for a planar model (vectors {x, y}), 3 for a spatial one
({x, y, z}). gravity is a global vector (default none). m.ground is the fixed body.
Every constructor takes one table; an unknown key, a missing required key or a value of the
wrong type or size is an error that names it ("revolute: unknown field 'bodyy'").]],
  example = [[local m = mbd.model { name = "slider crank", dim = 2, gravity = {0, -9.81} }]],
  see = { "Model", "body", "ground", "info", "simulate" },
}

topics.ground = {
  title = "m.ground  -> Body",
  text = [[
The model's fixed body, with its frame at the global origin. Use it as body1/body2 of joints,
springs and surfaces.]],
  example = [[m:revolute { body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }]],
  see = { "model", "body" },
}

topics.body = {
  title = "m:body { name, mass, inertia, pos, angle | rot, vel, omega }  -> Body",
  text = [[
Adds a rigid body. Its frame has its origin at the centre of mass; `at` points of joints and
forces are in that frame. pos and angle/rot are the initial pose (an estimate: assembly corrects
it), vel and omega the initial velocities (estimates).
  planar:  inertia = Izz (number); angle in radians, counter-clockwise from global +x;
           vel = {vx, vy}; omega = number.
  spatial: inertia = {Ixx, Iyy, Izz} (principal, body frame) or {Ixx, Iyy, Izz, Ixy, Iyz, Izx};
           rot = {e0, e1, e2, e3} Euler parameters (e0 scalar) or mbd.rot.axis_angle(axis, angle);
           omega = {wx, wy, wz} in the global frame.
Channels: <body>.x .y .z .theta .e0 .. .e3 .vx .vy .vz .omega (planar) .wx .wy .wz]],
  example = [[local crank = m:body { name = "crank", mass = 2, inertia = 0.015,
                       pos = {0.106, 0.106}, angle = math.pi/4 }]],
  see = { "Body", "ground", "revolute", "rot", "channels" },
}

topics.info = {
  title = "m:info()",
  text = [[
Describes the model: bodies, joints, coordinates, constraints and degrees of freedom.]],
  example = [[print(m:info())   -- a table {bodies, joints, coordinates, constraints, rank, dof,
                  -- redundant, moved, channels, warnings, text}; tostring gives the text
local dof = m:info().dof]],
  see = { "model", "Model" },
}

topics.rot = {
  title = "mbd.rot.axis_angle(axis, angle)  -> {e0, e1, e2, e3}",
  text = [[
Euler parameters (e0 scalar) of a rotation by angle (radians) about axis (a global vector), for the
rot = key of a spatial body.  Rotations are active and right-handed.  Also:
  mbd.rot.euler_zyx(yaw, pitch, roll)  R = Rz(yaw) Ry(pitch) Rx(roll)
  mbd.rot.from_axes(x, y)              the frame whose body x axis is x and body y axis lies along y
  mbd.rot.compose(p, q)                q first, then p: A(p∘q) = A(p) A(q)
  mbd.rot.rotate(p, v)                 A(p) v, a body-frame vector seen in the global frame]],
  example = [[m:body { name = "b", mass = 1, inertia = {1, 1, 1}, pos = {0, 0, 0},
         rot = mbd.rot.axis_angle({0, 0, 1}, math.pi/2) }]],
  see = { "body" },
}

-- joints -----------------------------------------------------------------------------------------

topics.revolute = {
  title = "m:revolute { name, body1, at1, body2, at2 [, axis1, axis2] }  -> Joint",
  text = [[
A pin joint: the point at1 of body1 and the point at2 of body2 (each in its body's frame)
coincide. Planar: relative rotation is free. Spatial: also axis1 (body1 frame) and axis2 (body2
frame) stay aligned, leaving rotation about them.
Channels: <joint>.angle (relative angle), <joint>.fx .fy .fz (reaction force on body2, global).]],
  example = [[m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }]],
  see = { "Joint", "drive", "rotational_spring", "channels" },
}

topics.translational = {
  title = "m:translational { name, body1, at1, body2, at2, axis1 [, axis2] }  -> Joint",
  text = [[
A prismatic (sliding) joint: at2 of body2 moves along the line through at1 of body1 with direction
axis1 (body1 frame); relative rotation is locked. Spatial: axis1 and axis2 (body2 frame) give the
sliding direction on each body.
Channels: <joint>.displacement, <joint>.fx .fy .fz.]],
  example = [[m:translational { name = "s", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0},
                 axis1 = {1, 0} }]],
  see = { "Joint", "drive", "revolute" },
}

topics.fixed = {
  title = "m:fixed { name, body1, at1, body2, at2 }  -> Joint",
  text = [[
Welds body2 to body1 (planar or spatial): the points coincide and the relative orientation keeps
its initial value.]],
  example = [[m:fixed { name = "weld", body1 = m.ground, at1 = {0, 0}, body2 = base, at2 = {0, 0} }]],
  see = { "Joint" },
}

topics.spherical = {
  title = "m:spherical { name, body1, at1, body2, at2 }  -> Joint",
  text = [[
A ball joint (spatial models): the points at1 and at2 coincide; relative rotation is free.]],
  example = [[m:spherical { name = "S", body1 = link2, at1 = {3, 0, 0}, body2 = link3, at2 = {-3, 0, 0} }]],
  see = { "Joint", "universal" },
}

topics.universal = {
  title = "m:universal { name, body1, at1, body2, at2, axis1, axis2 }  -> Joint",
  text = [[
A Hooke joint (spatial models): the points coincide and axis1 (on body1) stays perpendicular to
axis2 (on body2).]],
  example = [[m:universal { name = "U", body1 = link1, at1 = {0, 1, 0}, body2 = link2, at2 = {-3, 0, 0},
               axis1 = {0, 0, 1}, axis2 = {0, 1, 0} }]],
  see = { "Joint", "spherical" },
}

topics.cylindrical = {
  title = "m:cylindrical { name, body1, at1, body2, at2, axis1, axis2 }  -> Joint",
  text = [[
Spatial models: body2 slides along and turns about the common line of axis1 (through at1, body1
frame) and axis2 (through at2, body2 frame).]],
  example = [[m:cylindrical { name = "C", body1 = m.ground, at1 = {0, 0, 0}, body2 = rod, at2 = {0, 0, 0},
                 axis1 = {0, 0, 1}, axis2 = {1, 0, 0} }]],
  see = { "Joint", "translational", "revolute" },
}

topics.drive = {
  title = "m:drive { joint = J, position = function(t) ... end | <sym of mbd.sym.t> }  -> Drive",
  text = [[
Prescribes a joint's relative coordinate (angle of a revolute, displacement of a translational)
as a function of time. A symbolic expression of mbd.sym.t gives exact velocity and acceleration.
A model whose every degree of freedom is driven can be run with m:kinematics.]],
  example = [[m:drive { joint = O, position = function(t) return 2*math.pi*t end }
m:drive { joint = O, position = 2*math.pi*mbd.sym.t }]],
  see = { "Drive", "kinematics", "sym" },
}

-- forces -----------------------------------------------------------------------------------------

topics.force = {
  title = "m:force { body, at, value }  -> Force",
  text = [[
A force at the point `at` of body (body frame); value is a global-frame vector, or a
function(t, state) returning one (state:get("link1.theta") reads a channel).]],
  example = [[m:force { body = link2, at = {1, 0}, value = {8, 7} }
m:force { body = link2, at = {1, 0}, value = function(t, state) return {0, -10*t} end }]],
  see = { "Force", "torque", "spring" },
}

topics.torque = {
  title = "m:torque { body, value }  -> Force",
  text = [[
A torque on body: a number in a planar model, {tx, ty, tz} (global frame) in a spatial one, or a
function(t, state) returning the same shape.]],
  example = [[m:torque { body = link1, value = 10 }]],
  see = { "Force", "force" },
}

topics.spring = {
  title = "m:spring { body1, at1, body2, at2, k, c, length }  -> Force",
  text = [[
A translational spring-damper between two body points: stiffness k (N/m), damping c (N s/m), free
length (m). Its potential is part of the `energy` channel.]],
  example = [[m:spring { body1 = slider, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0}, k = 200, c = 5, length = 0.6 }]],
  see = { "Force", "rotational_spring" },
}

topics.rotational_spring = {
  title = "m:rotational_spring { joint, k, c, angle }  -> Force",
  text = [[
A torsional spring-damper on a revolute joint's relative angle: stiffness k (N m/rad), damping c
(N m s/rad), free angle (rad).]],
  example = [[m:rotational_spring { joint = O, k = 100, c = 0, angle = 0.524 }]],
  see = { "Force", "revolute", "spring" },
}

-- contact (paper 001) ----------------------------------------------------------------------------

topics.surface = {
  title = "m:surface { body, shape, ... }  -> Surface",
  text = [[
A surface (planar: a curve) fixed in a body, for contacts.
  planar:  shape = "line" {at, direction}, "circle" {radius}, "sine" {amplitude, wavelength, at},
           "curve" {x = <sym of u>, y = <sym of u>}
  spatial: shape = "plane" {at, normal}, "sphere" {radius},
           "revolution" {profile = <sym radius of the axial coordinate>}, "implicit" {f = <sym of x, y, z>}]],
  example = [[local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
local rim   = m:surface { body = disk, shape = "circle", radius = 0.2 }]],
  see = { "Surface", "contact", "sym" },
}

topics.contact = {
  title = "m:contact { name, surface1, surface2, mu, mu_static, friction [, slope] }  -> Contact",
  text = [[
Keeps two surfaces touching (paper 001) with friction: friction = "coulomb" (kinetic mu, static
mu_static: the contact sticks while the friction force stays below mu_static N) or "regularized"
(force grows with slip speed at `slope` N s/m up to mu N).
Channels: <contact>.normal .friction .slip .sticking, contact point <contact>.px .py .pz.]],
  example = [[m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35,
            friction = "coulomb" }]],
  see = { "Contact", "surface", "channels" },
}

-- flexible bodies (paper 003) --------------------------------------------------------------------

topics["fem.beam"] = {
  title = "mbd.fem.beam { length, elements, E, G, rho, A, Iy, Iz, J }  -> beam FE model",
  text = [[
A 3D beam finite-element model along the body's x axis: `elements` beam elements (nodes numbered
1 .. elements+1), Young's modulus E, shear modulus G, density rho, section area A, second moments
Iy, Iz and torsion constant J (SI).
  fe:add_mass { node, mass, inertia = {Ixx, Iyy, Izz} }   a lumped mass (tip disk, sphere)
  fe:modes { fixed = {nodes}, count = n }                 modal analysis: modes.frequency[i] (Hz),
                                                          modes.kind[i] ("bending-y", "bending-z",
                                                          "torsion", "axial")]],
  example = [[local fe = mbd.fem.beam { length = 1, elements = 8, E = 210e9, G = 80.8e9, rho = 7850,
                          A = 4e-4, Iy = 1.333e-8, Iz = 1.333e-8, J = 2.25e-8 }
fe:add_mass { node = 9, mass = 5, inertia = {0.1, 0.05, 0.05} }
local modes = fe:modes { fixed = {1}, count = 6 }
print(modes.frequency[1], modes.kind[1])]],
  see = { "flexible_body", "fem.load" },
}

topics["fem.load"] = {
  title = "mbd.fem.load(file)  -> modes",
  text = [[
Reads modes computed by another FE program (the file format is described in the docs), for the
modes = key of m:flexible_body.]],
  example = [[local modes = mbd.fem.load("arm.modes")]],
  see = { "fem.beam", "flexible_body" },
}

topics.flexible_body = {
  title = "m:flexible_body { name, fe, modes, select, rotary_inertia, damping, pos }  -> Body",
  text = [[
A flexible body in a floating frame (paper 003): lumped nodal masses and rotary inertias from the
FE model `fe`, deformation from the selected modes (indices into `modes`). rotary_inertia = false
drops the nodal rotary inertias (then torsion modes cannot be simulated); damping is modal.
arm:node(N) is a point usable as body/at in joints and forces.
Channels: <flexbody>.a1 .. (modal coordinates), <flexbody>.node<N>.x .y .z (nodal positions).]],
  example = [[local arm = m:flexible_body { name = "arm", fe = fe, modes = modes, select = {1, 2, 3},
                              rotary_inertia = true, damping = 0.0, pos = {0, 0, 0} }]],
  see = { "fem.beam", "fem.load", "channels" },
}

-- coordinate-level systems (paper 004) -----------------------------------------------------------

topics.system = {
  title = "mbd.system { q = {names}, mass = {...}, force = ... }  -> System",
  text = [[
A system written directly in generalized coordinates (paper 004): coordinate names q, the mass
(a number, a diagonal list or a full symmetric positive definite matrix), and the applied force
as a list of numbers, a list of symbolic expressions of s.q, s.qd and mbd.sym.t, or a
function(t, q, qd) returning a list. s.q.<name> and s.qd.<name> are the symbolic coordinates and velocities for
constraints. Run it with s:simulate (formulation "udwadia_kalaba").
The motion is the Udwadia-Kalaba equation with the Moore-Penrose inverse (redundant constraints
are fine). s:simulate defaults to rk45 with rtol = atol = 1e-10 (the paper's); stabilization =
{ alpha = , beta = } (numbers or lists per holonomic constraint: S = diag(alpha), T = diag(beta)
in f'' + S f' + T f = 0), { gamma = } for the nonholonomic ones (R' + L R = 0), or full matrices
S = {{..}}, T = {{..}}, L = {{..}}.
Channels: each coordinate by name, <name>_dot, constraint<i>, constraint<i>_dot; run.E1[i] and
run.E2[i] are the RMS over the run of constraint i and of its time derivative.]],
  example = [[local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }
local x, y = s.q.x, s.q.y
s:holonomic { x^2 + y^2 - 1 }
s:initial { q = {1, 0}, qd = {0, 4} }
local run = s:simulate { t_end = 20, formulation = "udwadia_kalaba", integrator = "rk45",
                         stabilization = { alpha = 14, beta = 4 } }]],
  see = { "System", "holonomic", "nonholonomic", "initial", "stability" },
}

topics.holonomic = {
  title = "s:holonomic { expr, ... }",
  text = [[
Adds constraints expr = 0 on the coordinates of an mbd.system (symbolic expressions of s.q.* and
mbd.sym.t). A constraint written as a square (f^2 = 0) differentiates to nothing and is rejected.]],
  example = [[s:holonomic { s.q.x^2 + s.q.y^2 - 1 }]],
  see = { "system", "nonholonomic", "sym" },
}

topics.nonholonomic = {
  title = "s:nonholonomic { expr, ... }",
  text = [[
Adds velocity constraints expr = 0, linear in the velocities s.qd.*.]],
  example = [[s:nonholonomic { s.qd.x + s.q.y * s.qd.y }]],
  see = { "system", "holonomic", "stability" },
}

topics.initial = {
  title = "s:initial { q = {...}, qd = {...} }",
  text = [[
The initial coordinates and velocities of an mbd.system, in the order of its q names.]],
  example = [[s:initial { q = {1, 0}, qd = {0, 4} }]],
  see = { "system" },
}

-- running ----------------------------------------------------------------------------------------

topics.simulate = {
  title = "m:simulate { t_end, formulation, integrator, ... }  -> Run   (also s:simulate)",
  text = [[
Assembles the model (initial position and velocity analysis) and integrates it from t = 0.
  t_end            end time (s)
  formulation      augmented (default) | baumgarte | gcp | kane | udwadia_kalaba
                   (relative: paper 002, not implemented yet)
  integrator       adams (default) | rk45 | bdf | rk4 (rk4 takes step = h, whatever the sampling)
  rtol, atol       integrator tolerances (default 1e-6 each; rtol below 1)
  position_tol     Newton tolerance of the position analyses (default 1e-8)
  max_newton       Newton iterations of the position analyses (default 25)
  stabilization    { alpha = , beta = } for baumgarte and udwadia_kalaba; S = {{..}}, T = {{..}},
                   L = {{..}} matrices also accepted
  output_every     sampling interval of the recorded channels (default t_end/500; it never
                   changes the motion: samples are taken on a copy of the integrator's state)
Defaults that lose accuracy say so: augmented and baumgarte warn when the constraints drift
beyond position_tol, and default samples far coarser than the integrator's steps warn of
aliasing.  kane, gcp and udwadia_kalaba pass singular configurations (augmented and baumgarte
stop there, or warn after passing near one).  Baumgarte's alpha = beta = 5 by default.
  stop_when        function(t, state) -> number: the run ends exactly where it crosses zero
                   (the integrator's root finding); the last sample is taken there and
                   run.stop_time tells when (models)
A failure (singular configuration, failed assembly, diverged Newton, NaN) stops the run with a
message, keeping what was recorded.]],
  example = [[local run = m:simulate { t_end = 10, formulation = "kane", integrator = "adams",
                           rtol = 1e-6, atol = 1e-6, output_every = 0.01 }
-- stop where the pendulum passes the vertical
local r2 = m:simulate { t_end = 10, stop_when = function(t, s)
  return s:get("link.theta") + math.pi / 2 end }
print(r2.stop_time)]],
  see = { "Run", "formulations", "integrators", "kinematics", "stats" },
}

topics.kinematics = {
  title = "m:kinematics { t_end, steps }  -> Run",
  text = [[
Kinematic analysis of a fully driven mechanism (no degree of freedom left free): position,
velocity and acceleration analyses at `steps` equal intervals up to t_end. Returns the same run
object as simulate.]],
  example = [[local k = m:kinematics { t_end = 2, steps = 720 }
print(k:value("slider.x", 0.5))]],
  see = { "drive", "Run", "simulate" },
}

topics.formulations = {
  title = "formulation = \"...\"  (m:simulate)",
  text = [[
  augmented       the augmented system [M Phi_q'; Phi_q 0][qdd; lambda] = [Q; gamma]
  baumgarte       augmented with Baumgarte stabilization gamma - 2 alpha Phidot - beta^2 Phi
                  (paper 000 eq 5-9)
  gcp             generalized coordinate partitioning: integrate the independent coordinates,
                  position and velocity analyses for the others (paper 000 eq 10-13)
  kane            Kane's reduced equations [B'M; Phi_q] qdd = [B'Q; gamma] (paper 000 eq 14-46)
  udwadia_kalaba  generalized-inverse method with the Moore-Penrose inverse over all constraint
                  rows (redundant ones too), stabilization Phi'' + S Phi' + T Phi = 0 with
                  S = alpha I, T = beta I (none unless given) or S, T matrices; planar models
                  and mbd.system (paper 004)
  relative        relative joint coordinates on a spanning tree, cut joints as constraints
                  (paper 002)]],
  example = [[for _, f in ipairs { "baumgarte", "gcp", "kane" } do
  local run = m:simulate { t_end = 5, formulation = f, integrator = "adams" }
  print(f, run.stats.nfev, run.stats.cpu_time)
end]],
  see = { "simulate", "integrators", "stability" },
}

topics.integrators = {
  title = "integrator = \"...\"  (m:simulate)",
  text = [[
  adams  variable-order Adams (SUNDIALS CVODE), the modern form of the DE code; rtol, atol
  rk45   explicit Dormand-Prince 5(4) (SUNDIALS ARKODE), MATLAB ode45's method; rtol, atol
  bdf    variable-order BDF (SUNDIALS CVODE), for stiff models such as flexible bodies
  rk4    classical fixed-step Runge-Kutta, for teaching: step = h]],
  example = [[local run = m:simulate { t_end = 1, formulation = "kane", integrator = "rk4", step = 1e-3 }]],
  see = { "simulate", "formulations", "stats" },
}

-- results ----------------------------------------------------------------------------------------

topics.value = {
  title = "run:value(channel, t)  -> number",
  text = [[
The value of a channel at time t, interpolated between the recorded samples.]],
  example = [[print(run:value("link2.theta", 5.0))]],
  see = { "Run", "series", "channels" },
}

topics.series = {
  title = "run:series(channel)  -> times, values",
  text = [[
The recorded samples of a channel as two arrays of equal length.]],
  example = [[local t, th = run:series("link2.theta")
for i = 1, #t do print(t[i], th[i]) end]],
  see = { "Run", "value", "write_csv" },
}

topics.channels = {
  title = "run.channels  -> list of channel names",
  text = [[
The names of the recorded channels:
  bodies     <body>.x .y .z .theta .e0 .. .e3 .vx .vy .vz .omega (planar) .wx .wy .wz
  joints     <joint>.angle | .displacement, <joint>.fx .fy .fz (reaction force on body2, global);
             spatial: <joint>.tx .ty .tz (reaction torque on body2 about its joint point, global),
             a cylindrical joint has both .angle and .displacement
  contacts   <contact>.normal .friction .slip .sticking, point <contact>.px .py .pz
  flexible   <flexbody>.a1 .. (modal coordinates), <flexbody>.node<N>.x .y .z
  model      energy (kinetic + gravitational + spring), violation
  systems    each coordinate by name, <name>_dot, constraint<i>, constraint<i>_dot
Planar angles are absolute and continuous (never wrapped to +-pi).  A spatial joint's angle is
measured about axis1 from the pose the user gave (zero there) and is continuous too.]],
  example = [[for _, name in ipairs(run.channels) do print(name) end]],
  see = { "Run", "value", "series" },
}

topics.stats = {
  title = "run.stats  -> table",
  text = [[
Statistics of the run: wall_time, cpu_time (s), nfev (right-hand-side evaluations), steps,
rejected, avg_step, newton_iterations, max_position_violation, max_velocity_violation,
repartitions.  Counts are the integration's work (the samples' evaluations are not counted).]],
  example = [[print(run.stats.nfev, run.stats.avg_step, run.stats.max_position_violation)]],
  see = { "Run", "simulate" },
}

topics.write_csv = {
  title = "run:write_csv(file [, {channels}])",
  text = [[
Writes the recorded samples to a CSV file: a time column and one column per channel (all
channels when the list is omitted).  The file is written to a temporary name and renamed when
complete: an error or a Ctrl-C never leaves a half-written file under its name.]],
  example = [[run:write_csv("out.csv", {"link2.theta", "link2.y"})]],
  see = { "Run", "series", "plot" },
}

topics.plot = {
  title = "mbd.plot { run, y = {channels}, file, title }  |  mbd.plot { kind = \"heatmap\", x, y, z, file }",
  text = [[
Plots channels of a run against time into a PNG or SVG file (by the file's extension); runs =
{r1, r2} and labels = {..} overlay several runs, x = "<channel>" plots against a channel.
kind = "heatmap" draws z over a grid: x and y increasing lists, z a matrix z[j][i] at (x[i], y[j])
(as res:grid(key) of mbd.sweep gives it) or a flat list with x fastest; contours = n draws n
contour lines, log = true colours by log10(z); zlabel names the colour bar.]],
  example = [[mbd.plot { run = run, y = {"link2.theta"}, file = "theta2.png", title = "double pendulum" }
mbd.plot { kind = "heatmap", x = res.axes.alpha, y = res.axes.beta, z = res:grid("E1"),
           log = true, contours = 8, file = "E1.png" }]],
  see = { "Run", "write_csv" },
}

-- analysis ---------------------------------------------------------------------------------------

topics.stability = {
  title = "mbd.stability { S = {{..}}, T = {{..}} } | { L = {{..}} }  -> {eigenvalues, stable, max_real}",
  text = [[
Checks constraint stabilization coefficients (paper 004 eq 28, 37): the eigenvalues of
lambda^2 I + lambda S + T (holonomic) or of lambda I + L (nonholonomic), and whether all have
a negative real part.  Matrices as {{..}, ..}, a list is a diagonal.  Returns
{ eigenvalues = {{re, im}, ...}, stable = true|false, max_real = largest real part }.
s:simulate warns when its stabilization has an eigenvalue with a positive real part.]],
  example = [[mbd.stability { S = {{10, 0}, {0, 10}}, T = {{100, 0}, {0, 100}} }]],
  see = { "system", "formulations" },
}

topics.sweep = {
  title = "mbd.sweep { params = {...}, fn = function(p) ... end, workers, csv, order }  -> result",
  text = [[
Runs fn over a grid of parameters on all cores (forked worker processes, mbd.parallel_map) with a
progress bar on a terminal. A parameter is a list of values or { from =, to =, n = | step = };
order = {names} fixes the axes (the first varies fastest; default sorted names). fn(p) gets one
point (p.alpha, ...) and returns a number or a table of numbers; an error in fn is kept in that
point's .error and the others go on. Result: res.points (parameters and results per point),
res.axes, res.order, res:grid(key) (a matrix for mbd.plot heatmaps), res:min(key), res:max(key),
res.failed, res.time, res.workers; csv = "file" writes one row per point.]],
  example = [[local res = mbd.sweep {
  params = { alpha = { from = 2, to = 40, n = 39 }, beta = { from = 2, to = 40, n = 39 } },
  fn = function(p)
    local r = s:simulate { t_end = 20, stabilization = { alpha = p.alpha, beta = p.beta } }
    return { E1 = r.E1[1], E2 = r.E2[1] }
  end, csv = "sweep.csv" }
print(res:min("E1").alpha, res:min("E1").beta)]],
  see = { "parallel_map", "plot", "system" },
}

topics.parallel_map = {
  title = "mbd.parallel_map(n, fn [, workers [, progress]])  -> results",
  text = [[
fn(i) for i = 1..n in forked worker processes (default: one per core, mbd.ncores()); each worker
takes a strided share of the indices. results[i] is fn's number or flat table of numbers, or the
error message (a string) when fn(i) raised. Changes fn makes to Lua state stay in the worker.
mbd.wall_clock() gives monotonic seconds for timing.]],
  example = [[local r = mbd.parallel_map(8, function(i) return i * i end)
print(r[3], mbd.ncores())]],
  see = { "sweep" },
}

topics.sym = {
  title = "mbd.sym: symbolic expressions",
  text = [[
Symbolic values: Lua operators (+ - * / ^, unary -) on them build expressions.
  mbd.sym.t                                the time
  mbd.sym.sin cos sqrt exp atan2 ifelse    functions
  mbd.sym.diff(e, v)                       derivative of e with respect to v
Used by drives (exact derivatives), surfaces, and the constraints of mbd.system.]],
  example = [[local t = mbd.sym.t
m:drive { joint = O, position = 0.5 * mbd.sym.sin(2*math.pi*t) }
print(mbd.sym.diff(t^2, t))]],
  see = { "Sym", "drive", "holonomic", "surface" },
}

-- objects (metatables "mbd.<Type>") ----------------------------------------------------------------

topics.Model = {
  title = "Model  (mbd.model)",
  text = [[
A mechanism under construction. Fields: m.ground. Methods: m:body, m:flexible_body,
m:revolute, m:translational, m:fixed, m:spherical, m:universal, m:cylindrical, m:drive,
m:force, m:torque, m:spring, m:rotational_spring, m:surface, m:contact, m:info,
m:simulate, m:kinematics.]],
  example = [[local m = mbd.model { dim = 2 }
m:info()]],
  see = { "model", "body", "simulate" },
}

topics.Body = {
  title = "Body  (m:body, m.ground)",
  text = [[
A rigid body of a model: used as body/body1/body2 in joints, forces and surfaces. Its recorded
channels are <name>.x .y .theta ... (see help("channels")).]],
  example = [[local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0, 0} }
m:torque { body = b, value = 1 }]],
  see = { "body", "ground", "flexible_body" },
}

topics.Joint = {
  title = "Joint  (m:revolute, m:translational, m:fixed, m:spherical, m:universal, m:cylindrical)",
  text = [[
A joint between two bodies. Drive it with m:drive { joint = J, ... }; a revolute joint takes a
m:rotational_spring. Channels: <joint>.angle or .displacement, <joint>.fx .fy .fz.]],
  example = [[local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }
m:drive { joint = O, position = function(t) return t end }]],
  see = { "revolute", "translational", "drive" },
}

topics.Force = {
  title = "Force  (m:force, m:torque, m:spring, m:rotational_spring)",
  text = [[
An applied force element of a model; its work enters the run's channels (springs: `energy`).]],
  example = [[m:force { body = link2, at = {1, 0}, value = {8, 7} }]],
  see = { "force", "torque", "spring", "rotational_spring" },
}

topics.Drive = {
  title = "Drive  (m:drive)",
  text = [[
A prescribed motion of a joint's relative coordinate.]],
  example = [[m:drive { joint = O, position = function(t) return 2*math.pi*t end }]],
  see = { "drive", "kinematics" },
}

topics.Run = {
  title = "Run  (m:simulate, m:kinematics, s:simulate)",
  text = [[
The result of a run: channels sampled on a time grid.
  run:value(ch, t)   run:series(ch)   run.channels   run.stats   run:write_csv(file [, list])
  run.stop_time (where stop_when ended it, else nil)
  run.warnings (a list of texts: what made a successful run inaccurate — constraints drifted,
    coarse default samples, a singular configuration passed closely; also shown on stderr)
  mbd.plot { run = run, ... }; for mbd.system runs also run.E1[i], run.E2[i].]],
  example = [[print(run:value("link2.theta", 5.0), run.stats.nfev)]],
  see = { "value", "series", "channels", "stats", "write_csv", "plot" },
}

topics.Sym = {
  title = "Sym  (a symbolic expression)",
  text = [[
A symbolic expression built from mbd.sym.t, system coordinates and the mbd.sym functions with Lua
operators; tostring shows it.]],
  example = [[local e = mbd.sym.sin(mbd.sym.t)^2
print(e, mbd.sym.diff(e, mbd.sym.t))]],
  see = { "sym" },
}

topics.System = {
  title = "System  (mbd.system)",
  text = [[
A coordinate-level system (paper 004). Fields: s.q.<name>, s.qd.<name>. Methods: s:holonomic,
s:nonholonomic, s:initial, s:simulate.]],
  example = [[local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }]],
  see = { "system", "holonomic", "nonholonomic", "initial", "simulate" },
}

topics.Surface = {
  title = "Surface  (m:surface)",
  text = [[
A surface or curve fixed in a body, used by m:contact.]],
  example = [[local rim = m:surface { body = disk, shape = "circle", radius = 0.2 }]],
  see = { "surface", "contact" },
}

topics.Contact = {
  title = "Contact  (m:contact)",
  text = [[
A contact between two surfaces with friction. Channels: <name>.normal .friction .slip .sticking
.px .py .pz.]],
  example = [[m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35,
            friction = "coulomb" }]],
  see = { "contact", "surface", "channels" },
}

-- the program --------------------------------------------------------------------------------------

topics.cli = {
  title = "the mbd command line",
  text = [[
  mbd                      interactive REPL
  mbd FILE.lua [ARGS...]   run a script; arg[0] is FILE.lua, arg[1..] (and ...) are ARGS;
                           exit status 0, or 1 with "FILE.lua:LINE: message"
  mbd -                    run a script read from standard input
  mbd -e 'CODE'            run CODE (may be repeated)
  mbd -i FILE.lua          run FILE, then stay in the REPL with its globals
  mbd --version | --help
MBD_TRACEBACK=1 adds a traceback to error messages.]],
  example = [[-- mbd sweep.lua 0.1 0.2   ->   arg[1] == "0.1", arg[2] == "0.2"
local h = tonumber(arg[1])]],
  see = { "repl" },
}

topics.repl = {
  title = "the REPL",
  text = [[
Type an expression to print its value (several values are tab-separated; a leading = works too)
or a statement to run it; an unfinished statement continues on the next line (prompt >>).
Errors are printed and the REPL goes on. Ctrl-C stops running code (or drops the line being
typed), Ctrl-D quits. History is kept in ~/.mbd_history.]],
  example = [[mbd> m = mbd.model { dim = 2 }
mbd> = m
mbd> function f(x)
>>   return 2*x
>> end
mbd> f(21)
42]],
  see = { "cli" },
}

topics.help = {
  title = "help(x)",
  text = [[
help() prints the overview; help("topic") a topic; help(object) the doc of a DSL object;
help(function) the topic of a DSL function. help.text(x) returns the text instead of printing.]],
  example = [[help("simulate")
help(mbd.model)]],
  see = {},
}

-- groups of the overview -------------------------------------------------------------------------

groups[#groups + 1] = { "models", { "model", "ground", "body", "info", "rot" } }
groups[#groups + 1] = { "joints", { "revolute", "translational", "fixed", "spherical", "universal",
                                    "cylindrical", "drive" } }
groups[#groups + 1] = { "forces", { "force", "torque", "spring", "rotational_spring" } }
groups[#groups + 1] = { "contact", { "surface", "contact" } }
groups[#groups + 1] = { "flexible", { "fem.beam", "fem.load", "flexible_body" } }
groups[#groups + 1] = { "systems", { "system", "holonomic", "nonholonomic", "initial" } }
groups[#groups + 1] = { "running", { "simulate", "kinematics", "formulations", "integrators" } }
groups[#groups + 1] = { "results", { "value", "series", "channels", "stats", "write_csv", "plot" } }
groups[#groups + 1] = { "analysis", { "stability", "sym", "sweep", "parallel_map" } }
groups[#groups + 1] = { "objects", { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System",
                                     "Surface", "Contact" } }
groups[#groups + 1] = { "program", { "cli", "repl", "help" } }

-- object types and other spellings ---------------------------------------------------------------

for _, t in ipairs { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System", "Surface",
                     "Contact" } do
  types["mbd." .. t] = t
end
types["mbd.FlexibleBody"] = "flexible_body"
types["mbd.Beam"] = "fem.beam"
types["mbd.Modes"] = "fem.beam"

aliases["joint"] = "Joint"
aliases["joints"] = "Joint"
aliases["run"] = "Run"
aliases["add_mass"] = "fem.beam"
aliases["modes"] = "fem.beam"
aliases["beam"] = "fem.beam"
aliases["fem"] = "fem.beam"
aliases["load"] = "fem.load"
aliases["node"] = "flexible_body"
aliases["axis_angle"] = "rot"
aliases["formulation"] = "formulations"
aliases["integrator"] = "integrators"
aliases["channel"] = "channels"
aliases["energy"] = "channels"
aliases["violation"] = "channels"
aliases["e1"] = "system"
aliases["e2"] = "system"
aliases["diff"] = "sym"
aliases["ifelse"] = "sym"
aliases["t"] = "sym"
aliases["prismatic"] = "translational"
aliases["pin"] = "revolute"
aliases["ball"] = "spherical"
aliases["hooke"] = "universal"
aliases["command line"] = "cli"
aliases["arg"] = "cli"
aliases["units"] = "model"
for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba", "relative" } do
  aliases[f] = "formulations"
end
for _, i in ipairs { "adams", "rk45", "bdf", "rk4" } do
  aliases[i] = "integrators"
end

-- lookup -----------------------------------------------------------------------------------------

-- the topic name for a string: exact, then lower case, then without "mbd." / "m:" style prefixes
local function resolve(name)
  local function find(n)
    if topics[n] then
      return n
    end
    if aliases[n] then
      return aliases[n]
    end
    local lower = n:lower()
    if topics[lower] then
      return lower
    end
    return aliases[lower]
  end
  name = name:gsub("^%s+", ""):gsub("%s+$", ""):gsub("%(%)$", "")
  local found = find(name) or find((name:gsub("^mbd%.", "")))
  if found then
    return found
  end
  local last = name:match("[:.]([^:.]+)$") -- "run:value" -> "value", "mbd.sym.diff" -> "diff"
  return last and find(last)
end

-- name every function reachable from `mbd` and from the DSL metatables (for help(mbd.model))
local function function_names()
  local names = {}
  local mbd = package.loaded.mbd
  local seen = {}
  local function walk(t, prefix, depth)
    if seen[t] or depth > 3 then
      return
    end
    seen[t] = true
    for k, v in pairs(t) do
      if type(k) == "string" then
        if type(v) == "function" and names[v] == nil then
          names[v] = prefix .. k
        elseif type(v) == "table" then
          walk(v, prefix .. k .. ".", depth + 1)
        end
      end
    end
  end
  if type(mbd) == "table" then
    walk(mbd, "", 1)
  end
  -- methods of DSL objects: the registry holds their metatables by name (luaL_newmetatable)
  local registry = debug.getregistry()
  for name, mt in pairs(registry) do
    if type(name) == "string" and name:match("^mbd%.") and type(mt) == "table" then
      walk(mt, "", 3)
      if type(mt.__index) == "table" then
        walk(mt.__index, "", 3)
      end
    end
  end
  -- methods served by an __index function: ask the DSL objects held in globals for each
  -- documented name (m.revolute, run.value)
  local candidates = {}
  for name in pairs(topics) do
    candidates[#candidates + 1] = name
  end
  for name in pairs(aliases) do
    candidates[#candidates + 1] = name
  end
  for _, obj in pairs(_G) do
    local mt = debug.getmetatable(obj)
    local tname = type(mt) == "table" and rawget(mt, "__name")
    if type(tname) == "string" and tname:match("^mbd%.") and type(rawget(mt, "__index")) == "function" then
      for _, name in ipairs(candidates) do
        local ok, v = pcall(function() return obj[name] end)
        if ok and type(v) == "function" and names[v] == nil then
          names[v] = name
        end
      end
    end
  end
  return names
end

local function topic_list()
  local lines, any = {}, false
  for _, g in ipairs(groups) do
    local names = {}
    for i, n in ipairs(g[2]) do
      names[i] = not_yet[n] and (n .. "*") or n
      any = any or not_yet[n] ~= nil
    end
    lines[#lines + 1] = string.format("  %-10s %s", g[1], table.concat(names, " "))
  end
  if any then
    lines[#lines + 1] = "  (* not implemented yet)"
  end
  return table.concat(lines, "\n")
end

local function indent(s)
  return "  " .. s:gsub("\n", "\n  ")
end

local function format_topic(name)
  local e = topics[name]
  local parts = { e.title, "", e.text }
  if not_yet[name] then
    table.insert(parts, 2, "(not implemented yet: calling it stops with a message saying so)")
  end
  if e.example and e.example ~= "" then
    parts[#parts + 1] = ""
    parts[#parts + 1] = "Example:"
    parts[#parts + 1] = indent(e.example)
  end
  if e.see and #e.see > 0 then
    parts[#parts + 1] = ""
    parts[#parts + 1] = "See also: " .. table.concat(e.see, ", ")
  end
  return table.concat(parts, "\n")
end

local function format_overview()
  local version = type(package.loaded.mbd) == "table" and package.loaded.mbd.version
  local head = "mbd " .. (version and tostring(version) .. " " or "") .. "\u{2014} multibody dynamics in Lua"
  return head .. "\n\n" .. overview .. "\n\nTopics (help(\"name\")):\n" .. topic_list()
end

local function unknown(what)
  return "no help for " .. what .. ". Topics (help(\"name\")):\n" .. topic_list()
end

-- the help text for x (n is the number of arguments given to help)
local function text(n, x)
  if n == 0 or x == package.loaded.mbd then
    return format_overview()
  end
  if x == help then
    return format_topic("help")
  end
  local tx = type(x)
  if tx == "nil" then
    return unknown("nil (is the name misspelt?)")
  end
  if tx == "string" then
    local name = resolve(x)
    if name then
      return format_topic(name)
    end
    -- a heading of the overview ("joints", "running"): its topics
    for _, g in ipairs(groups) do
      if g[1] == x then
        local names = {}
        for i, n in ipairs(g[2]) do names[i] = not_yet[n] and (n .. "*") or n end
        return string.format("%s: %s\n(help(\"name\") for each%s)", x, table.concat(names, " "),
                             table.concat(names, " "):find("*", 1, true)
                               and "; * not implemented yet" or "")
      end
    end
    return unknown(string.format("%q", x))
  end
  if tx == "function" then
    local fname = function_names()[x]
    local name = fname and resolve(fname)
    if name then
      return format_topic(name)
    end
    return unknown(fname and ("'" .. fname .. "'") or "this function")
  end
  local mt = debug.getmetatable(x)
  local tname = type(mt) == "table" and rawget(mt, "__name")
  if type(tname) == "string" then
    local name = types[tname] or (tname:match("^mbd%.") and resolve(tname))
    if name then
      return format_topic(name)
    end
    return unknown("objects of type " .. tname)
  end
  return unknown("a " .. tx .. " value")
end

-- help.add(name, entry [, group]): document a topic from another module
function help.add(name, entry, group)
  assert(type(name) == "string" and type(entry) == "table" and type(entry.title) == "string"
         and type(entry.text) == "string", "help.add(name, {title = ..., text = ..., example = ...})")
  topics[name] = entry
  if group then
    for _, g in ipairs(groups) do
      if g[1] == group then
        table.insert(g[2], name)
        return
      end
    end
    groups[#groups + 1] = { group, { name } }
  end
end

-- help.text(x): the text help(x) prints
function help.text(...)
  return text(select("#", ...), ...)
end

help.resolve = resolve

setmetatable(help, {
  __call = function(_, ...)
    io.write(text(select("#", ...), ...), "\n")
  end,
  __tostring = function()
    return "help: call help() for an overview, help(\"topic\") or help(object)"
  end,
})

_G.help = help
return help
