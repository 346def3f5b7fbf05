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
local not_yet = {}  -- names of the DSL whose implementation has not landed (none today)
help.not_yet = not_yet

-- the overview -----------------------------------------------------------------------------------

-- the overview's example: a script, and lines to type at the prompt one by one (the REPL keeps
-- their locals); tests/docs/examples.lua runs it both ways
help.overview_example = [[
local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
local link = m:body { name = "link", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = link, at2 = {-0.5, 0} }
local run = m:simulate { t_end = 2, formulation = "kane", integrator = "adams" }
print(run:value("link.theta", 1.0))
run:write_csv("pendulum.csv")]]

local overview = [[
Build a model, add bodies, joints, forces, then simulate and read the channels (in a script, or
line by line at the prompt):

]] .. ("  " .. help.overview_example:gsub("\n", "\n  ")) .. [[


help(x) describes a DSL object (help(m), help(run)), a function (help(mbd.model)) or a topic
(help("revolute"), help("simulate")). SI units throughout; vectors are Lua arrays.]]

-- models, bodies ---------------------------------------------------------------------------------

topics.model = {
  title = "mbd.model { name = ..., dim = 2 | 3, gravity = {...} }  -> Model",
  text = [[
Creates an empty model. dim = 2 for a planar model (vectors {x, y}), 3 for a spatial one
({x, y, z}). gravity is a global vector (default none). m.ground is the fixed body.
Every constructor takes one table; an unknown key, a missing required key or a value of the
wrong type or size is an error that names it ("revolute: unknown field 'bodyy'").  Joints,
springs and forces require their points (at1/at2, at; {0, 0} or {0, 0, 0} for a centre of
mass): none is taken as the centre of mass silently; a flexible body's node is its own point.
Names (of the model, bodies, joints, springs, surfaces, contacts) are UTF-8 text without '.'
(channels are "<name>.<field>"): a name in another encoding is refused where it is given.]],
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
coincide. Every joint, spring and force needs its points (at1 and at2, or at): a missing one is
an error, never the centre of mass by default; {0, 0} ({0, 0, 0} spatial) is the centre of mass,
and a flexible body's node arm:node(k) is its own point (no at). Planar: relative rotation is free. Spatial: also axis1 (body1 frame) and axis2 (body2
frame) stay aligned, leaving rotation about them.
Channels: <joint>.angle (relative angle), <joint>.fx .fy .fz (reaction force on body2, global).
friction = { mu, radius } (planar and spatial) adds Coulomb friction from the joint's reaction
force F (paper 001): a torque mu |F| radius against the relative rotation, and a lock while it
holds (stick and slip are events, as for contacts); channels <joint>.friction (torque on body2)
and <joint>.sticking.  Spatial: the reaction moment that keeps the axes aligned adds no friction.]],
  example = [[m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }
-- with Coulomb friction in the pin:
-- m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0},
--              friction = { mu = 0.2, radius = 0.01 } }]],
  see = { "Joint", "drive", "rotational_spring", "channels" },
}

topics.translational = {
  title = "m:translational { name, body1, at1, body2, at2, axis1 [, axis2] }  -> Joint",
  text = [[
A prismatic (sliding) joint: at2 of body2 moves along the line through at1 of body1 with direction
axis1 (body1 frame); relative rotation is locked. Spatial: axis1 and axis2 (body2 frame) give the
sliding direction on each body.
Channels: <joint>.displacement, <joint>.fx .fy .fz.
friction = { mu } (planar and spatial) adds Coulomb friction mu |F_n| against the sliding, F_n
the reaction force's part normal to the axis (its moment is not counted), with a lock while it
holds (stick and slip are events); channels <joint>.friction (force on body2 along the axis) and
<joint>.sticking.]],
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

topics.screw = {
  title = "m:screw { name, body1, at1, body2, at2, axis1, axis2, pitch }  -> Joint",
  text = [[
Spatial models: a cylindrical joint whose slide follows its turn: body2 advances `pitch` along
axis1 for each turn about it (right-handed for a positive pitch; the advance counts from the
poses given). One degree of freedom; channels <name>.angle and <name>.displacement; a drive
prescribes the angle, a rotational spring acts on it.]],
  example = [[m:screw { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = rod, at2 = {0, 0, 0},
          axis1 = {0, 0, 1}, axis2 = {1, 0, 0}, pitch = 0.005 }   -- 5 mm per turn]],
  see = { "Joint", "cylindrical", "drive" },
}

topics.planar = {
  title = "m:planar { name, body1, at1, body2, at2, axis1, axis2, ref1 }  -> Joint",
  text = [[
Spatial models: body2 slides and turns in body1's plane through at1 normal to axis1 (axis2, the
normal in body2's frame, stays along it). Three degrees of freedom; channels <name>.x and
<name>.y (the displacement of at2 from at1 in the plane: x along ref1, y along axis1 × ref1) and
<name>.angle (about axis1, zero in the poses given); a rotational spring acts on the angle.
ref1 (body1's frame; its part in the plane counts) is optional: without it mbd picks a direction
in the plane from axis1's numbers, so x and y then depend on how the scene is turned.]],
  example = [[m:planar { name = "P", body1 = m.ground, at1 = {0, 0, 0}, body2 = rod, at2 = {0, 0, 0},
           axis1 = {0, 0, 1}, axis2 = {1, 0, 0}, ref1 = {1, 0, 0} }]],
  see = { "Joint", "cylindrical", "rotational_spring" },
}

topics.drive = {
  title = "m:drive { joint = J, position = function(t) ... end | <sym of mbd.sym.t> }  -> Drive",
  text = [[
Prescribes a joint's relative coordinate (angle of a revolute or a screw, displacement of a
translational or a cylindrical) as a function of time. A symbolic expression of mbd.sym.t gives exact velocity and acceleration.
A model whose every degree of freedom is driven can be run with m:kinematics.]],
  example = [[m:drive { joint = O, position = function(t) return 2*math.pi*t end }
-- or, with exact velocity and acceleration: m:drive { joint = O, position = 2*math.pi*mbd.sym.t }]],
  see = { "Drive", "kinematics", "sym" },
}

-- forces -----------------------------------------------------------------------------------------

topics.force = {
  title = "m:force { body, at, value }  -> Force",
  text = [[
A force at the point `at` of body (body frame); value is a global-frame vector, or a
function(t, state) returning one (state:get("link1.theta") reads a channel).  `at` is required:
{0, 0} ({0, 0, 0} spatial) for the centre of mass; a flexible body's node arm:node(k) takes none.]],
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
length (m). Its potential is part of the `energy` channel.  Both points are required ({0, 0} for
a centre of mass; a flexible body's node takes none).]],
  example = [[m:spring { body1 = slider, at1 = {0, 0}, body2 = m.ground, at2 = {2, 0}, k = 200, c = 5, length = 0.6 }]],
  see = { "Force", "rotational_spring" },
}

topics.rotational_spring = {
  title = "m:rotational_spring { joint, k, c, angle }  -> Force",
  text = [[
A torsional spring-damper on a joint's relative angle (revolute, cylindrical, screw, planar):
stiffness k (N m/rad), damping c (N m s/rad), free angle (rad).]],
  example = [[m:rotational_spring { joint = O, k = 100, c = 0, angle = 0.524 }]],
  see = { "Force", "revolute", "spring" },
}

-- contact (paper 001) ----------------------------------------------------------------------------

topics.surface = {
  title = "m:surface { name, body, shape, ... }  -> Surface",
  text = [[
A surface (planar: a curve) fixed in a body, for contacts (paper 001). Its normal points out of
the body's material; inner = true turns it over (the body lies on the other side: a ring, a bowl).
  planar:  "line" {at, direction, range}: at + u direction, normal to the left of direction
           "circle" {radius, at}: centre at (default the body's origin), u the angle
           "sine" {amplitude, wavelength, at, range}: at + (u, A sin(2 pi u / wavelength))
           "curve" {x, y, param, range, u0}: x(u), y(u) symbolic in the variable param (default u);
                   normal to the left of increasing u
  spatial: "plane" {at, normal}
           "sphere" {radius, at}
           "revolution" {profile, at}: about the body's z axis, radius profile(z) (symbolic in z)
           "implicit" {f}: f(x, y, z) = 0 symbolic, normal along grad f
           "parametric" {x, y, z, params, range, u0}: symbolic in params (default u, v)
range = {lo, hi} (spatial {{lo, hi}, {lo, hi}}) bounds the parameters: the run stops exactly where
the contact point leaves it.  Symbolic shapes get exact first and second derivatives.]],
  example = [[local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
local rim   = m:surface { body = disk, shape = "circle", radius = 0.2 }
local u = mbd.sym.var("u")
local track = m:surface { body = m.ground, shape = "curve", x = u, y = 0.1 * u^2, range = {-2, 2} }
-- spatial: a bowl of revolution, its profile a symbolic function of z
-- local bowl = m:surface { body = dish, shape = "revolution", profile = mbd.sym.sqrt(z / 0.5), inner = true }]],
  see = { "Surface", "contact", "sym" },
}

topics.contact = {
  title = "m:contact { name, surface1, surface2, friction, mu, mu_static, slope, restitution }  -> Contact",
  text = [[
Keeps two surfaces touching at one point (paper 001): the contact point's surface parameters are
solved at every step (points coincide, normals opposite), no penetration is a constraint, and
friction acts at the contact point:
  friction = "coulomb" (the default when mu is given): sticks (rolls without slip) while the
             friction force stays within mu_static N, slips with mu N against the slip otherwise;
             each switch is found exactly by the integrator's root finding (run.events)
  friction = "regularized": force min(slope * slip speed, mu N) against the slip (slope in N s/m)
  friction = "none" (the default without mu)
The normal force N comes from the contact's multiplier; a sliding contact's friction depends on
it, which the formulations solve by a fixed-point iteration (run.stats.contact_iterations).
restitution = e lets the contact open where N falls to zero (without it the run stops there) and
close again by Newton's impact law; a contact with a restitution whose surfaces start apart flies.
A contact without one must start closed: surfaces apart by more than 1e-6 of the model's size
are refused at assembly, naming the gap (they are not moved onto each other).
With mu > 0 an impact's tangential impulse is Coulomb's: the one that stops the slip when it is
within mu_static times the normal impulse, else mu times it against the slip.
Channels: <contact>.normal (N), .nx .ny .nz (normal force on surface2's body), .friction,
.fx .fy .fz (friction force on surface2's body), .slip, .sticking (1 or 0), .gap, the contact
point .px .py .pz, and the surface parameters .u1 (.v1) / .x1 .y1 .z1 and .u2 ... of each surface.]],
  example = [[m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35,
            friction = "coulomb" }
local run = m:simulate { t_end = 1, formulation = "kane" }
print(run:value("c.normal", 0.5), run.events[1].kind, run.events[1].t)]],
  see = { "Contact", "surface", "channels", "events" },
}

topics.events = {
  title = "run.events  -> list of {t, contact, kind}",
  text = [[
The contact events of a run (and of joints with friction: contact = the joint's name) in time
order: kind = "stick" (a slip stopped: rolling without slip from then on), "slip" (static friction gave way, or a stopped slip turned back), "separate" (the
normal force reached zero and the contact opened) or "impact" (an open contact closed again).
Each is located by the integrator's root finding, then the integrator restarts with the new
constraints.  run.stats counts them: stick_events, slip_events, separations, impacts.]],
  example = [[for _, e in ipairs(run.events) do print(e.t, e.contact, e.kind) end]],
  see = { "contact", "Run", "stats" },
}

-- flexible bodies (paper 003) --------------------------------------------------------------------

topics["fem.beam"] = {
  title = "mbd.fem.beam { length, elements, E, G, rho, A, Iy, Iz, J [, rotary, x0] }  -> FE",
  text = [[
A 3D Euler-Bernoulli beam finite-element model along the body's x axis (paper 003): `elements`
12-DOF elements (axial, torsion, two bendings; nodes 1 .. elements+1 from x0 along +x), Young's
modulus E, shear modulus G, density rho, section area A, second moments Iy, Iz, torsion constant J
(SI). Consistent mass; rotary = true adds the section's rotary inertia (Rayleigh beam).
  fe:add_mass { node, mass, inertia = {Ixx, Iyy, Izz} }   a lumped mass (tip disk, sphere)
  fe:modes { fixed = {nodes}, count = n }                 modal analysis (dsygvd): an mbd.Modes
                                                          with modes.frequency[i] (Hz) and
                                                          modes.kind[i] ("bending-y", "bending-z",
                                                          "torsion", "axial", "rigid")
  fe:write_matrices { mass = "M.mtx", stiffness = "K.mtx", nodes = "nodes.csv" }
  fe.nodes, fe.mass (the lumped total)
Add masses before computing the modes: the modes carry the lumped nodal masses of that moment.]],
  example = [[local fe = mbd.fem.beam { length = 1, elements = 8, E = 210e9, G = 80.8e9, rho = 7850,
                          A = 4e-4, Iy = 1.333e-8, Iz = 1.333e-8, J = 2.25e-8 }
fe:add_mass { node = 9, mass = 5, inertia = {0.1, 0.05, 0.05} }
local modes = fe:modes { fixed = {1}, count = 6 }
print(modes.frequency[1], modes.kind[1])]],
  see = { "Modes", "flexible_body", "fem.load", "fem.from_matrices" },
}

topics["fem.load"] = {
  title = "mbd.fem.load(file)  -> Modes",
  text = [[
Reads a mode file: the nodes with their lumped masses and rotary inertias, the clamped nodes, beam
elements, and each mode's frequency, kind and shape (the format is in docs/papers/003-flexible.md; modes:save
writes it). Modes from another FE program (CalculiX, Code_Aster, ANSYS) converted to this format
serve m:flexible_body { modes = ... } without an fe.]],
  example = [[local modes = mbd.fem.load("arm.modes")
local arm = m:flexible_body { name = "arm", modes = modes, select = {1, 2} }]],
  see = { "Modes", "fem.from_matrices", "flexible_body" },
}

topics["fem.from_matrices"] = {
  title = "mbd.fem.from_matrices { mass, stiffness, nodes }  -> FE",
  text = [[
An FE model from the consistent mass and stiffness matrices of another FE program (Matrix Market
files, coordinate or array, general or symmetric; 6 DOF per node in the order ux uy uz rx ry rz)
and its node table (CSV lines "node,x,y,z"). fe:modes and m:flexible_body then work as for a
beam; the lumped masses come from the mass matrix (row sums; rotational diagonal x HRZ factor).
Dense: up to a few thousand DOF.]],
  example = [[local fe = mbd.fem.from_matrices { mass = "M.mtx", stiffness = "K.mtx", nodes = "nodes.csv" }
local modes = fe:modes { fixed = {1}, count = 6 }]],
  see = { "fem.beam", "fem.load", "FE" },
}

topics.flexible_body = {
  title = "m:flexible_body { name, fe, modes, select, rotary_inertia, damping, pos, ... }  -> Body",
  text = [[
A flexible body in a floating frame with modal coordinates (paper 003): the FE nodes as lumped
masses with rotary inertias, deformed by the selected modes (numbers into `modes`; default: every
elastic mode). Its frame is the FE model's (node positions are in it), placed by pos and rot
(spatial) or angle (planar), with vel and omega as for m:body.
  fe                     the FE model the modes came from (optional; leave out for mbd.fem.load)
  rotary_inertia = true  false drops the nodal rotary inertias: a torsion mode then has a singular
                         modal mass and is refused, naming the mode (the paper's point)
  damping = 0            modal damping ratio: a number for all selected modes or one per mode
  geometric_stiffening = false   adds the stiffness of the centrifugal axial load of a beam
                         clamped at one node (no spurious softening of a spinning beam)
  a, adot                initial modal coordinates and rates, one per selected mode
A modal coordinate a<k> is in metres: mode k scaled to a largest nodal translation of 1 (a pure
torsion mode: its largest rotation, 1 rad). arm:node(k) is a body usable in joints, forces and
springs (the joint or force acts at the deformed node); arm.nodes, arm.modes count them. In a
planar model only in-plane modes (bending-y, axial) can be selected. Stiff modes: use bdf.
Channels: <flexbody>.a1 .. (modal coordinates), .a1_dot .. (their rates), <flexbody>.node<N>.x
.y .z (nodal positions), .e0 .. .e3, .vx .. , .wx .., .rx .ry .rz (nodal small rotations, body
axes; planar .rz).]],
  example = [[local arm = m:flexible_body { name = "arm", fe = fe, modes = modes, select = {1, 2, 3},
                              rotary_inertia = true, damping = 0.0, pos = {0, 0, 0} }
m:fixed { body1 = hub, at1 = {0, 0, 0}, body2 = arm:node(1) }
m:force { body = arm:node(9), value = {0, 0, -10} }]],
  see = { "fem.beam", "fem.load", "Modes", "channels" },
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
A model simulated again keeps its assembly while it stands: nothing added since, the same
position_tol, and every drive function giving the same values at t = 0 (changed, it is
assembled again from the poses you gave).
  t_end            end time (s)
  formulation      kane (default, see below) | augmented | baumgarte | gcp | udwadia_kalaba |
                   relative
  integrator       adams (default) | rk45 | bdf | rkf45 | rk4 (rk4 takes step = h, whatever
                   the sampling)
  rtol, atol       integrator tolerances (default 1e-6 each; rtol below 1)
  max_order        adams (1–12) and bdf (1–5): the highest order CVODE may use.  BDF above
                   order 2 is unstable near the imaginary axis: lightly damped fast modes
                   (flexible bodies, stiff springs) hold its step down; max_order = 2 steps
                   over them (help("integrators"))
  position_tol     Newton tolerance of the position analyses (default 1e-8)
  max_newton       Newton iterations of the position analyses (default 25)
  stabilization    { alpha = , beta = } for baumgarte and udwadia_kalaba; S = {{..}}, T = {{..}},
                   L = {{..}} matrices also accepted
  output_every     sampling interval of the recorded channels (default: every t_end/500 and at
                   the integrator's accepted steps, thinned to at most 10000 samples, so that
                   the samples follow the motion; sampling never changes the motion: samples
                   are taken on a copy of the integrator's state).  Each sample evaluates the
                   whole state, reactions included: on a small model the default's samples cost
                   more than the integration (the double pendulum over 10 s: 582 samples,
                   1.0 ms; with output_every = 2.5, 0.09 ms), so a study that reads a few
                   instants runs faster with a coarser output_every
The defaults keep the answer.  The default formulation is kane: its position and velocity
analyses hold the constraints to position_tol at every step, and on closed loops it takes the
fewest evaluations (augmented without stabilization lets a pendulum leave its pin by 12 % of its
length over 1000 s at rtol 1e-6).  Where kane does not serve, the run uses baumgarte and says so
in a note (run.note): a model with no degree of freedom left (nothing to integrate), redundant
constraint rows (the kept rows can lie flat while the mechanism moves on, where kane stops).
A flexible body's modal coordinates stay independent wherever the rigid coordinates can be the
dependent ones, so that the integrator's error test sees the vibration itself.
run.formulation names what ran.  The default samples follow the steps because a fixed t_end/500
aliases a long run (every 2 s for a 2 s period).  Defaults that still lose accuracy say so:
augmented and baumgarte warn when the constraints drift beyond position_tol, default samples
thinned far beyond the integrator's steps (a run of very many steps) warn of aliasing; rtol
above 1e-2 is too loose to mean anything and warns, with every formulation.
Nothing is changed silently: when assembly moves a body farther than 1e-6 of the model's size
(its largest position or joint point) from the position it was given, or turns it more than
1e-6 rad (an angle given in degrees, a disk placed above the surface it touches), the run
(m:simulate, m:kinematics) warns once naming the body and the distance or angle, and keeps it in
run.warnings.  Every formulation passes singular configurations (a parallelogram flat on its
ground line) on the motion's branch: kane and gcp in their partition, udwadia_kalaba by its
projection, augmented and baumgarte by a passage in the independent coordinates of a partition
(run.stats.singular_passages; not for models with contacts or more than 300 coordinates, which
warn after passing near one).  Baumgarte's alpha = beta = 5 by default.
  stop_when        function(t, state) -> number: the run ends exactly where it crosses zero
                   (the integrator's root finding); the last sample is taken there and
                   run.stop_time tells when (models)
  cut, solver      formulation "relative": the joints to cut, the solution on the joint
                   coordinates (help("relative"))
  linear_solver    auto (default) | dense | sparse | recursive: how the accelerations are
                   solved; sparse for augmented, baumgarte, gcp and kane (auto takes it from 20
                   unknowns), recursive for relative (the articulated-body recursion, O(n));
                   help("linear_solver"); run.stats.linear_solver says which ran
  quiet            true: the run's warnings stay in run.warnings and are not printed (for
                   studies that look at them themselves); default false
A failure (singular configuration, failed assembly, diverged Newton, NaN) stops the run with a
message, keeping what was recorded.]],
  example = [[local run = m:simulate { t_end = 10, formulation = "kane", integrator = "adams",
                           rtol = 1e-6, atol = 1e-6, output_every = 0.01 }
-- stop where the pendulum passes the vertical
local r2 = m:simulate { t_end = 10, stop_when = function(t, s)
  return s:get("link1.theta") + math.pi / 2 end }
print(r2.stop_time)]],
  see = { "Run", "formulations", "integrators", "kinematics", "stats", "linear_solver" },
}

topics.linear_solver = {
  title = "m:simulate { ..., linear_solver = \"auto\" | \"dense\" | \"sparse\" | \"recursive\" }",
  text = [[
How the Cartesian formulations solve their linear systems: the leading matrix [M Phi_q'; Phi_q 0]
(augmented, baumgarte, gcp; kane's accelerations in the sparse solve; udwadia_kalaba's
pseudo-inverse on planar rigid bodies away from singular configurations), and gcp's and kane's
dependent block Phi_qd (position and velocity analyses).
  dense    LAPACK's LU of the full matrices: O(n^3) per evaluation, the fastest for small models
  sparse   KLU (SuiteSparse) on the block-diagonal M and the sparse Phi_q (a joint's rows touch
           its two bodies only): the symbolic analysis once at the start and again only when the
           active rows change (a contact's switch, rows re-selected), a refactorization per
           evaluation — O(n) for chains and trees of bodies
  recursive  formulation "relative" only: the articulated-body recursion on the spanning tree,
           O(n), the cut-joint rows added through Phi_q Mbar^-1 Phi_q' (help("relative"))
  auto     (default) dense below 20 unknowns (coordinates plus constraint rows) or when more than
           half the leading matrix is filled, sparse from there; relative: recursive for large
           trees with code = "numeric", dense otherwise
run.stats.linear_solver says which ran ("dense" or "sparse"), run.stats.symbolic_analyses how
often the sparse patterns were analysed; print(run) shows "(sparse)".  Both give the same motion
to rounding (the pivots near singular configurations are watched the same way).  Large models
are assembled with sparse position and velocity analyses too (from 400 unknowns).
Not written for udwadia_kalaba on spatial or flexible bodies, with contacts or joint friction
(its pseudo-inverse stays the SVD there), formulation "relative" and generated code (joint
coordinates make Phi_q dense), nor gcp and kane on models with contacts or joint friction: "auto"
runs dense there and "sparse" is refused with the reason.  A contact's switch and Gauss's
principle near singular configurations (gcp; udwadia_kalaba nearer than 1e-6 in sigma_min/sigma_1)
run densely for that moment.]],
  errors = {
    "simulate: unknown linear_solver 'banded' (auto, dense, sparse, recursive)",
    "simulate: linear_solver 'sparse' is not written for formulation udwadia_kalaba on model " ..
      "'disk' (its sparse form is written for planar rigid bodies without contacts or joint " ..
      "friction, every row active); use linear_solver 'dense' or 'auto'",
  },
  example = [[local run = m:simulate { t_end = 2, formulation = "baumgarte", linear_solver = "sparse" }
print(run.stats.linear_solver, run.stats.symbolic_analyses, run.stats.cpu_time)]],
  see = { "simulate", "formulations", "stats" },
}

topics.kinematics = {
  title = "m:kinematics { t_end, steps, formulation, cut, code }  -> Run",
  text = [[
Kinematic analysis of a fully driven mechanism (no degree of freedom left free): position,
velocity and acceleration analyses at `steps` equal intervals up to t_end. Returns the same run
object as simulate. formulation = "relative" does the analyses on the joint coordinates of a
spanning tree (paper 002; cut as in help("relative")), code = "tape" | "compiled" on generated
equations (help("code")).]],
  example = [[-- the crank turns once a second from where it stands (pi/4)
m:drive { joint = O, position = function(t) return math.pi/4 + 2*math.pi*t end }
local k = m:kinematics { t_end = 2, steps = 720 }
print(k:value("slider.x", 0.5), k:value("O.effort", 0.5))]],
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
                  (paper 002; help("relative"): cut, solver)]],
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
  rk45   explicit Dormand-Prince 5(4) (SUNDIALS ARKODE), MATLAB 5+ ode45's method; rtol, atol
  bdf    variable-order BDF (SUNDIALS CVODE), for stiff models such as flexible bodies.
         Orders 3-5 are unstable near the imaginary axis: with lightly damped fast modes
         (undamped flexible modes, stiff springs) give max_order = 2 (A-stable); the flexible
         robot of paper 003 with 24 modes per arm then takes about a tenth of the steps
  rk4    classical fixed-step Runge-Kutta, for teaching: steps of exactly step = h from the
         start (the last one lands on t_end); samples between steps come from the step's cubic
         Hermite interpolant, so output_every never changes the run
  rkf45  Runge-Kutta-Fehlberg 4(5) with MATLAB 4 ode45's control (the ode45 of 1987-1995, one
         "tol"): the fifth-order solution carried on; a step is accepted when
         max_i |error_i| <= max(rtol max_i |y_i|, atol) (MATLAB 4: tol max(max_i |y_i|, 1): give
         rtol = atol = tol); then h = min(hmax, 0.8 h (tau/error)^(1/5)); hmax = t_end/16 unless
         max_step is given, first step hmax/8 unless step is given.  Paper 004's figures were
         made with it (scripts/paper004/example1_pendulum.lua).
Which is fastest depends on the model.  On a small smooth one the light step of rkf45 wins: the
double pendulum over 10 s within 1e-6 rad, compiled relative coordinates, took 0.037 ms with
rkf45 at 5e-7 against 0.097 ms with adams at 1e-7 and 0.13 ms with rk45 or bdf
(scripts/bench/small.lua in the source tree, one machine).  Adams takes fewer evaluations (174
against 289), so it wins where an evaluation is costly (Cartesian formulations, large models);
bdf is for stiff models.  One tolerance does not buy the same error from each: on that model
rkf45 at 5e-7 and adams at 1e-7 both kept the angles within 1e-6 rad (7.0e-7 and 5.6e-7), so
check the setting you pick against a tighter run.]],
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
             a cylindrical or screw joint has both .angle and .displacement, a planar joint
             .x .y .angle
  contacts   <contact>.normal .nx .ny .nz .friction .fx .fy .fz .slip .sticking .gap, point
             <contact>.px .py .pz, surface parameters <contact>.u1 .v1 .x1 .. and .u2 ..
  flexible   <flexbody>.a1 .. (modal coordinates), .a1_dot .. (their rates),
             <flexbody>.node<N>.x .y .z (nodal positions; a node has every channel of a body,
             and .rx .ry .rz, its small rotation)
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
repartitions, lu_factorizations; singular configurations: singular_evaluations (accelerations
by Gauss's principle, a minimum-norm solve, where the leading matrix was nearly singular, or
interpolated across the window where Phi_q's smallest singular value is below 1e-3 of its
largest: there round-off grows as 1/sigma^3), singular_passages (augmented, baumgarte: passages
in partitioned coordinates); contacts:
contact_iterations (fixed-point iterations on the normal
forces), stick_events, slip_events, separations, impacts; with generated code (help("code")):
code, derive_time, compile_time (s), cache_hit; linear_solver ("dense", "sparse" or
"recursive": which ran, help("linear_solver")) and symbolic_analyses (the sparse solve's analyses
of its patterns).  Counts are the integration's work (the samples' evaluations are not counted):
sample_evaluations are those of the samples and root functions, on a copy of the state, and
samples_reused how many of them were kept from the evaluation just before at the same state (a
step's sample after the root functions there).
An equilibrium (m:equilibrium) has iterations, residual (N or N m), residual_coordinate, stable
and min_omega2 (help("equilibrium")).]],
  example = [[print(run.stats.nfev, run.stats.avg_step, run.stats.max_position_violation)]],
  see = { "Run", "simulate" },
}

topics.mkdir = {
  title = "mbd.mkdir(path)  -> path",
  text = [[
Creates the folder path and the folders above it that are missing, as mkdir -p does, without a
shell: a quote, a space or a ';' in the name is a character of the name, never a command.  New
folders get the mode 0755 less the umask; a folder that exists already (or a link to one) is
fine.  Returns path, so one line names and makes an output folder.  An error names the path and
the part of it that could not be made.  The writers of files (write_csv, plot, animate) do not
create folders: make them first (m:export_c makes its dir).]],
  example = [[local out = mbd.mkdir(arg and arg[1] or "out/it's mine")
run:write_csv(out .. "/run.csv")]],
  errors = { "mkdir 'out/x': cannot create the folder 'out': Permission denied",
             "mkdir 'notes.txt/x': 'notes.txt' exists and is not a folder" },
  see = { "write_csv", "plot", "animate" },
}

topics.write_csv = {
  title = "run:write_csv(file [, {channels}])",
  text = [[
Writes the recorded samples to a CSV file: a time column and one column per channel (all
channels when the list is omitted); NaN is written "nan".  Every writer of mbd (CSV, PNG and SVG
figures, the animate page, export_c, modes and matrix files, the sweep's CSV, mbd.write_file)
writes whole or not at all: into a temporary sibling "<file>.part-<pid>-XXXXXX", flushed to the
disk and renamed onto the name only when every byte was written, so a full disk, an error or a
Ctrl-C never leaves a half-written file and what was there stays until the new file is whole.
A symbolic link is written through: the file it names is replaced, the link stays a link.
Anything that is not a regular file (a FIFO, /dev/stdout, a device) is written directly and
never replaced.  A folder, a missing folder or a file you may not write is an error that names
the file and the reason.  mbd.write_file(file, text) writes a string the same way (true, or nil
and the message); mbd.check_writable(file) says whether a write could start (touching nothing);
mbd.sha256(text) gives the SHA-256 of a string in hexadecimal.]],
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
contour lines, log = true colours by log10(z); zlabel names the colour bar.
series = { {x = {..}, y = {..}, label = ".."}, ... } in place of run/runs plots numbers computed in
the script (an acceleration from recorded forces, a locus in a moving frame).]],
  example = [[mbd.plot { run = run, y = {"link2.theta"}, file = "theta2.png", title = "double pendulum" }
mbd.plot { run = run, y = "energy", file = "energy.svg", width = 600, height = 400, log_y = true }
mbd.plot { run = run, x = "link2.x", y = "link2.y", file = "locus.png", equal_axes = true,
           xlabel = "x [m]", ylabel = "y [m]" }
mbd.plot { kind = "heatmap", x = {1, 2, 3}, y = {1, 2}, z = {{1, 2, 3}, {4, 5, 6}}, file = "map.png",
           contours = 4, zlabel = "z" }]],
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

topics.equilibrium = {
  title = "m:equilibrium { formulation, tol, max_iterations, fixed = {joints}, cut, quiet }  -> Run",
  text = [[
The static equilibrium of the model: where it rests under its gravity, springs (at their free
lengths and angles), constant forces and torques, forces given as functions (at t = 0, zero
velocities) and drives held at t = 0.  The generalized forces on the independent coordinates of
a partition (Kane's generalized active forces, r = B^T Q: paper 000 eq 40, B the null space of
Phi_q as kane and gcp use it) vanish there.  Newton's method finds it from the model's pose, on
its assembly branch: a full Newton step where the potential is convex or the equilibrium is near
(then it converges to it, stable or not), otherwise a step downhill in the potential (measured in
the kinetic energy's metric, so the path is the same in every frame and units); each step moves a
body by at most a quarter of the model's size or a quarter radian, with a line search.
The result is an mbd.Run of one sample at t = 0 (eq:value("O.angle", 0), eq:write_csv,
m:explain{run = eq}, m:linearize{at = eq}); eq.stats holds iterations, residual (the largest
generalized force left, N or N m), residual_coordinate (where), stable (true when the reduced
stiffness K is positive definite: every eigenvalue of K x = w^2 M x, with M the reduced mass, is
positive) and min_omega2 (the least of them, 1/s^2).  fixed = {joints} holds the listed joints'
relative coordinates (revolute, translational, cylindrical) at their starting values during the
search.  formulation chooses the coordinates it runs in: the Cartesian ones (kane, the default;
gcp, augmented, baumgarte, udwadia_kalaba run the same partition) or relative (joint
coordinates; cut as for simulate).  Errors: a neutral direction (a free motion: nothing restores
it; named), no equilibrium (a force along such a direction; or no convergence: the residual and
its coordinate; the last iterate is kept in model.last_run), a singular configuration, no degree
of freedom.]],
  example = [[local eq = m:equilibrium {}
print(eq:value("O.angle", 0), eq.stats.iterations, eq.stats.residual, eq.stats.stable)
local lin = m:linearize { at = eq }]],
  see = { "linearize", "Linear", "explain", "stats" },
}

topics.linearize = {
  title = "m:linearize { at = run, t, formulation, method, inputs, outputs, steady, cut, quiet }  -> Linear",
  text = [[
The linearization of the model about a state: x = (independent coordinates, their rates),
x' = A x + B u, y = C x + D u, x, u and y the deviations from the operating point.  The state is
the model's initial state when at is absent, the sample of a run at t (a run of one sample, an
equilibrium, needs no t); it is made consistent by the position and velocity analyses.  The
independent coordinates are a partition's (kane's and gcp's, QR with column pivoting of Phi_q),
lengths made dependent before angles and modal coordinates: they are named in lin.coordinates
("rod.theta", "beam.a1"; formulation = "relative": joint coordinates, "O.angle").
  A      the Jacobian of the formulation's right-hand side (every formulation that solves the
         constrained equations gives the same A at consistent states; the Cartesian ones in the
         same coordinates): method = "differences" (default: central differences with
         Richardson's extrapolation, steps eps^(1/5) of each coordinate's scale — the model's
         size for lengths, 1 rad for angles — and 1e-3 of the velocity's scale, where the
         equations are quadratic and a difference exact) or "analytic" (exact derivatives of the
         generated equations of paper 002, eliminated through Phi_q as SymPy's Linearizer does:
         rigid bodies, no forces given as functions; with a Cartesian formulation every joint is
         cut, so rotational springs need formulation = "relative")
  B      inputs = { {joint = J [, coordinate = "angle" | "displacement"]}, {torque = body
         [, direction = {..}]}, {force = body, at = {..}, direction = {..}} [, name = ".."] }: a
         unit generalized force each (a joint's torque or force along its coordinate; a torque
         on a body, spatial about a global direction; a force at a body point along a global
         direction)
  C, D   outputs = {channel names}: any channel (positions, angles, velocities, reactions,
         energy); D from the reactions' response to the inputs
  steady = { {axis = {..}, at = {..}}, {body = b, axis = {..}} }: the symmetries of a steady
         motion — the whole model turning about a fixed axis through a point, an axisymmetric
         body spinning about its own axis (body frame).  Their rates are fitted from the state
         (lin.rates) and the linearization is taken in the frame that moves with them, where the
         steady motion is an equilibrium: a conical pendulum, a top's steady precession (two
         symmetries: its nutation), a sleeping top (its spin: precession and nutation).
About a state that is neither an equilibrium nor a steady motion of the given symmetries, A is
the Jacobian along the motion: lin.equilibrium is false, lin.stable nil, and a warning says it.
Errors: no degree of freedom, a singular configuration (Phi_q's smallest QR pivot below 1e-7 of
its largest), contacts or joint friction, an output that is no channel, a bad input.]],
  example = [[local lin = m:linearize {}
print(lin)
print(lin.frequencies[1], lin.damping[1], lin.coordinates[1])
local l2 = m:linearize { inputs = { {joint = O} }, outputs = {"O.angle", "O.fy"} }
print(l2.B[2][1], l2.D[2][1])]],
  see = { "Linear", "equilibrium", "explain", "animate" },
}

topics.Linear = {
  title = "Linear  (m:linearize)",
  text = [[
A linearization.  Fields:
  A, B, C, D            tables of rows: x' = A x + B u, y = C x + D u
  M, K, Cv              the reduced mass B^T M B, stiffness -M A_vq and velocity matrix (damping
                        and gyroscopic terms) -M A_vv, with A = [0 I; A_vq A_vv]:
                        M q'' + Cv q' + K q = M B_v u
  coordinates, states   the independent coordinates; the states (coordinates, then "<name>_dot")
  inputs, outputs       their names
  eigenvalues           {re, im} pairs, ascending |lambda|
  frequencies, damping  of the oscillatory modes, ascending: |lambda| / 2 pi (Hz: the undamped
                        natural frequency) and -Re lambda / |lambda|
  modes                 each {index, kind = "oscillatory" | "real" | "rigid", eigenvalue,
                        frequency, damping, shape (over the coordinates, its largest entry 1),
                        shape_im, bodies = {name = {x, y, z, rx, ry, rz}} (each body's motion:
                        centre of mass, small rotation, global), participation = {kinetic,
                        potential (shares per coordinate), bodies (kinetic shares per body, in the
                        order of lin.bodies)}}; oscillatory modes first (by frequency), then real
                        ones (decaying or diverging), then rigid ones (free motions: eigenvalues
                        within 1e-4 of the largest |lambda|)
  bodies                the bodies of participation.bodies
  equilibrium, stable   whether the state is an equilibrium (or the steady motion); stable: every
                        Re lambda <= 0 to round-off and no free motion (about a steady motion its
                        symmetries' own zero modes are allowed); nil when not an equilibrium
  residual              |x'| at the state relative to the system's own rates
  t, x0, xdot0, rates, formulation, method, warnings
print(lin) names, for each mode, the coordinates that hold most of its energy (the mean of the
kinetic and potential shares) and the bodies that hold most of its kinetic energy, and writes the
linearized equations term by term for up to 6 coordinates.
lin:write(file [, format]) writes the packed matrix [A B; C D] as Matrix Market (.mtx, the
default: "array real general" with comment lines naming the states, inputs and outputs) or CSV
(.csv or format = "csv": rows and columns named).
lin:animate { mode = k, file, amplitude, cycles, steps, title, trace, shapes, every } writes the
page of run:animate for mode k: the operating point plus amplitude Re(shape e^(i w t)) over
cycles periods (2), steps samples a period (40), each state made consistent; amplitude defaults
to a tenth of the largest coordinate's scale.]],
  example = [[local lin = m:linearize {}
print(#lin.A, lin.modes[1].kind, lin.modes[1].participation.kinetic[1])
lin:write("lin.mtx")
lin:write("lin.csv")
lin:animate { mode = 1, file = "mode1.html" }]],
  see = { "linearize", "equilibrium", "animate" },
}

topics.sweep = {
  title = "mbd.sweep { params = {...}, fn = function(p) ... end, workers, csv, order, resume }  -> result",
  text = [[
Runs fn over a grid of parameters on all cores (forked worker processes, mbd.parallel_map) with a
progress bar on a terminal. A parameter is a list of values or { from =, to =, n = | step = };
order = {names} fixes the axes (the first varies fastest; default sorted names). fn(p) gets one
point (p.alpha, ...) and returns a number or a table of numbers; an error in fn is kept in that
point's .error and the others go on. Result: res.points (parameters and results per point),
res.axes, res.order, res:grid(key) (a matrix for mbd.plot heatmaps), res:min(key), res:max(key),
res.failed, res.time, res.workers; csv = "file" writes one row per point (NaN as "nan").
Nothing computed is lost: with csv, the destination is checked before the first point (a missing
folder stops the sweep before it computes anything); each point is appended to a checkpoint
"<csv>.partial" as soon as it is done; at the end the CSV is written whole or not at all and the
checkpoint removed.  A sweep interrupted (Ctrl-C, a crash, a killed job) leaves the checkpoint:
the same sweep run again (the same parameter names and values) takes the points it holds and
computes only the others (res.resumed counts them; resume = false starts afresh; a checkpoint of
another sweep stops it with a message).  A CSV that cannot be written at the end (a full disk)
does not lose the sweep: the results are returned, res.write_error says why and a warning names
the checkpoint that keeps them.  Under mpirun there is no checkpoint (rank 0 writes the CSV).
The results are held in memory (about 200 bytes a point: 1e6 points take 200 MB); a grid whose
points would not fit mbd.memory_limit() stops before it starts, with its size in the message.

Over MPI, beyond one machine: started under mpirun (OpenMPI; `mpirun -np 16 mbd study.lua`, a
hostfile for several machines), every rank runs the whole script and the sweep shares its points
among the ranks instead of forking workers (workers is not used; res.workers is the number of
ranks). Every rank gets every point's result, so the script goes on the same on all of them; rank
0 writes the CSV (the same bytes as a local sweep's) and only rank 0's standard output is shown.
mbd.mpi_rank() and mbd.mpi_size() tell a script where it runs (0 and 1 outside mpirun). Without
mpirun, or in a program built without MPI (libopenmpi-dev absent), sweeps stay on local worker
processes. As root, OpenMPI wants mpirun --allow-run-as-root.  OpenMPI's TCP transport listens on
every network interface while the sweep runs; on one machine keep it to the loopback with
mpirun --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo (across machines, name the
cluster's interface instead of lo).]],
  example = [[local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }
s:holonomic { s.q.x^2 + s.q.y^2 - 1 }
s:initial { q = {1, 0}, qd = {0, 4} }
local res = mbd.sweep {
  params = { alpha = { from = 2, to = 40, n = 3 }, beta = { 2, 40 } },   -- the paper: 39 x 39
  fn = function(p)
    local r = s:simulate { t_end = 2, stabilization = { alpha = p.alpha, beta = p.beta } }
    return { E1 = r.E1[1], E2 = r.E2[1] }
  end, csv = "sweep.csv", progress = false }
print(res:min("E1").alpha, res:min("E1").beta)
mbd.plot { kind = "heatmap", x = res.axes.alpha, y = res.axes.beta, z = res:grid("E1"),
           log = true, file = "E1.png" }]],
  see = { "parallel_map", "plot", "system" },
}

topics.parallel_map = {
  title = "mbd.parallel_map(n, fn [, workers [, progress [, on_result]]])  -> results",
  text = [[
fn(i) for i = 1..n in forked worker processes (default: one per core, mbd.ncores()); each worker
takes a strided share of the indices. results[i] is fn's number or flat table of numbers, or the
error message (a string) when fn(i) raised. Changes fn makes to Lua state stay in the worker.
on_result(i, result), when given, is called in the calling process as each result arrives (the
sweep's checkpoint); an error in it stops its calls, not the map, and is the second result.
Under mpirun the ranks share the indices instead, each in its own process, and every rank gets
all results (see sweep).
mbd.wall_clock() gives monotonic seconds for timing.
mbd.memory_limit() is the size in bytes one large structure may take: a quarter of the memory,
or the environment's MBD_MAX_WORKSPACE_GB when lower.  A run's dense workspaces, its recorder
(samples × channels), the symbolic expressions and a sweep's or a map's results are checked
against it before they are allocated: what would not fit stops with a message that names its
size, instead of an out-of-memory kill.]],
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
m:revolute, m:translational, m:fixed, m:spherical, m:universal, m:cylindrical, m:screw,
m:planar, m:drive,
m:force, m:torque, m:spring, m:rotational_spring, m:surface, m:contact, m:info,
m:simulate, m:kinematics, m:explain, m:equilibrium, m:linearize, m:find, m:tree (the spanning
tree of formulation = "relative"), m:export_c (its equations as a standalone C program). Fields
also: m.last_run,
m.name, m.dim.]],
  example = [[local m = mbd.model { dim = 2 }
m:info()]],
  see = { "model", "body", "simulate" },
}

topics.Body = {
  title = "Body  (m:body, m.ground)",
  text = [[
A body of a model: used as body/body1/body2 in joints, forces and surfaces. Its recorded
channels are <name>.x .y .theta ... (see help("channels")). Fields: name, index, model; a
flexible body also has arm:node(k) (the body of node k), arm.nodes and arm.modes.]],
  example = [[local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0, 0} }
m:torque { body = b, value = 1 }]],
  see = { "body", "ground", "flexible_body" },
}

topics.Joint = {
  title = "Joint  (m:revolute, m:translational, m:fixed, m:spherical, m:universal, m:cylindrical, m:screw, m:planar)",
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
  run.stop_time (where stop_when ended it, else nil)   run.events (contact switches)
  run.warnings (a list of texts: what made a successful run inaccurate — constraints drifted,
    default samples thinned far beyond the steps, a singular configuration passed closely; also
    shown on stderr unless the run was given quiet = true)
  run.note (the default formulation's fallback and why, nil when kane ran or one was chosen;
    shown on stderr as "mbd: note:" unless quiet = true)
  run.manifest   run.model
  run.ok, run.error (the message of a failed run), run.formulation, run.integrator, run.t_end,
  run.samples (the number of samples)
  run:animate { file = "x.html" }   mbd.plot { run = run, ... }
  for mbd.system runs also run.E1[i], run.E2[i].]],
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
s:nonholonomic, s:initial, s:simulate, s:explain (every term of the Udwadia-Kalaba equation at the
start or at a sample of a run).]],
  example = [[local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }]],
  see = { "system", "holonomic", "nonholonomic", "initial", "simulate" },
}

topics.FE = {
  title = "FE  (mbd.fem.beam, mbd.fem.from_matrices)",
  text = [[
A finite-element model of a flexible body: nodes with 6 DOF, consistent mass and stiffness.
Methods: fe:add_mass, fe:modes, fe:write_matrices. Fields: fe.nodes, fe.mass.]],
  example = [[local modes = fe:modes { fixed = {1}, count = 6 }]],
  see = { "fem.beam", "fem.from_matrices", "Modes" },
}

topics.Modes = {
  title = "Modes  (fe:modes, mbd.fem.load)",
  text = [[
The modes of an FE model with its nodes' lumped masses and rotary inertias. Fields:
modes.count, modes.frequency[i] (Hz), modes.kind[i], modes.nodes, modes.fixed. Methods:
modes:save(file) (the mode file mbd.fem.load reads), modes:shape(i) (per node {ux, uy, uz, rx, ry,
rz}, mass-normalized), modes:node(k) ({pos, mass, inertia}: the lumped node). tostring lists the
frequencies.]],
  example = [[local modes = fe:modes { fixed = {1}, count = 6 }
print(modes)
modes:save("arm.modes")]],
  see = { "fem.beam", "fem.load", "flexible_body" },
}

topics.Surface = {
  title = "Surface  (m:surface)",
  text = [[
A surface or curve fixed in a body, used by m:contact: surface.name, surface.body, surface.index.]],
  example = [[local rim = m:surface { body = disk, shape = "circle", radius = 0.2 }
print(rim.name, rim.body.name)]],
  see = { "surface", "contact" },
}

topics.Contact = {
  title = "Contact  (m:contact)",
  text = [[
A contact between two surfaces: contact.name, contact.index; m.<name> and m:find(name) reach it.
Channels: <name>.normal .nx .ny .nz .friction .fx .fy .fz .slip .sticking .gap .px .py .pz and
the surface parameters.]],
  example = [[local c = m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3 }
print(c.name, m.c.index)]],
  see = { "contact", "surface", "channels", "events" },
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
typed), Ctrl-D quits. History is kept in ~/.mbd_history.
Locals stay: `local m = mbd.model {...}` on one line, `m:body {...}` on the next works, as in a
script. Each entry is its own chunk, so the REPL turns an entry's top-level `local` statements
(local x = ..., local function f, local k <const> = ...) into variables of the session, read
before the globals; a const one refuses a new value. `local x <close>` stays a real local of its
entry (closed when the entry ends), and so does every local inside a function or a block.
Tab completes names: globals and session variables ("mbd.mo" -> mbd.model), fields of tables
and DSL objects ("run.st" -> run.stats), and methods after ':' ("m:" lists the model's methods).
A script run with mbd -i leaves its globals, not its locals, at the prompt.]],
  example = [[mbd> local m = mbd.model { name = "pendulum", dim = 2 }
mbd> local rod = m:body { name = "rod", mass = 1, inertia = 0.1, pos = {0.5, 0} }
mbd> m.name, rod.name
pendulum	rod
mbd> = 6 * 7
42
mbd> function f(x)
>>   return 2*x
>> end
mbd> f(21), f(0.5)
42	1.0]],
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

-- seeing runs, looking inside the equations, reproducible results ---------------------------------

topics.animate = {
  title = "run:animate { file, title, trace, shapes, every }  -> file",
  text = [[
Writes one self-contained HTML page (three.js inside; no network needed) that replays the run in
3-D, drawn as the model declares it: every surface (m:surface: line, circle, sine, curve, plane,
sphere, revolution; implicit and parametric ones as meshes sampled once), a closed curve around a
body filled with a spoke; each contact's point with its normal (green) and friction (orange)
forces as arrows (the "forces" box; the scale, newtons per metre, is on the page); a flexible
body as its beam, the centreline through its nodes interpolated element by element with Hermite
cubics; joints, springs and traced points. The surfaces' names are listed under the title.
Open it in any browser: play/pause (space), a time slider, the speed, and the camera under the
mouse (drag: rotate, right-drag: pan, wheel: zoom). A planar model is seen from +z; a spatial one
obliquely, "up" against gravity.
A body with no surface and no given shape is drawn from what it carries: the box spanning its
joint, spring and force points, or without such points the box of the same mass and inertia
(planar: a square plate). shapes = {} sets a shape per body.
After '#' in the page's address: t=<s> or t=end (show that time, paused), speed=<factor>,
view=x0,x1,y0,y1 (an exact view of that rectangle of the x-y plane; with axes=xz of the x-z
plane from -y), highlight=<body>, forces=0, beam=deflection (beams coloured by deflection), ui=0.
The data format inside the page: docs/viewer.md.  lin:animate { mode = k, ... } writes the same
page for a mode of a linearization (help("Linear")).]],
  example = [[run:animate { file = "pendulum.html" }
run:animate { file = "slider.html", title = "slider-crank", trace = { "rod", { body = crank, at = {0.15, 0} } },
              shapes = { slider = { box = {0.1, 0.05, 0.05} } }, every = 2 }]],
  see = { "Run", "channels", "explain" },
}

topics.explain = {
  title = "m:explain { run = run, t = ... }  |  m:explain()  |  s:explain { run, t }  -> explanation",
  text = [[
The equations of motion at one instant, printed compactly and returned as Lua tables: the
coordinates with their velocities v, accelerations qdd and applied forces Q; the mass matrix M;
the constraint Jacobian Phi_q with its rows named after the joints ("O.x", "S.normal",
"drive(O)", "top.norm") and its columns after the coordinates ("crank.theta"); Phi, gamma
(Phi_q qdd = gamma) and the multipliers lambda per row with what each row says; the partition
into dependent and independent coordinates that gcp and kane use (paper 000 eq 10-13) and the
partial velocity matrix B (v = B v_i, eq 22-23); and the reaction of every joint on its body2
(force, and torque about the joint point), with what -lambda of each row is physically.
The state at t is read from the run's channels (interpolated between samples), then made
consistent by position and velocity analyses (ex.residual: max |Phi| before). Without a run:
the assembled initial state. The accelerations and multipliers are those of the augmented
system (paper 000 eq 13), whatever formulation made the run.
Contacts and joint friction (paper 001): each contact's regime at t (from the run's channels
<c>.sticking and <c>.gap; without a run as a run starts) chooses its active rows — "c.gap"
while closed, "c.roll" while it sticks, none while open; "j.lock" while a frictional joint
sticks — and a sliding contact's friction -mu N along its slip enters Q at the normal force it
gives (the same fixed point as a run).  ex.contacts lists them: {name, kind ("contact" or
"joint"), mode ("slip", "stick", "open"), normal, friction, gap, slip}.  A flexible body's
modal coordinates and rates are read from its channels <flexbody>.a1 .., .a1_dot ...
Fields of the result: t, dim, dof, residual, coordinates, rows, meaning, lambda_is, active, q, v,
qdd, Q, M, Phi, Phiq, Phit, gamma, lambda, B, partition {dependent, independent}, reactions
{joint, body, force, torque [, effort]}, contacts, text (tostring(ex) gives it).
A run of one sample (an equilibrium) needs no t.  linearize = true adds ex.linear, the
linearization at that state (m:linearize), and the report its modes and the linearized equations
M q'' + Cv q' + K q = 0 term by term.
An mbd.system's s:explain { run = run, t = ... } (or s:explain(): the initial state) writes paper
004's equation 5 term by term at that state (read from the run's channels <name>, <name>_dot):
the applied force F, the free motion a = M^-1 F, each constraint with its row of A, b, b - A a
(what the free motion misses) and A qdd - b, the acceleration qdd and the constraint force
Qc = M (qdd - a) that Gauss's principle adds.  No stabilization enters (a run with S, T moves a
little differently where its constraints have drifted).  Fields: system, t, coordinates,
constraints {text, kind}, q, qd, M, F, a, A, b, resid, qdd, Qc, value, rate, acc, text.]],
  example = [[local ex = m:explain { run = run, t = 0.5 }
print(ex)                                 -- the report
print(ex.Phiq[1][3], ex.rows[1], ex.coordinates[3])
print(ex.partition.independent[1], ex.reactions[1].force[2])]],
  see = { "simulate", "Run", "formulations", "channels" },
}

topics.manifest = {
  title = "run.manifest  -> table",
  text = [[
How the run was made, for reproducible results: program (mbd version), lua, model (its name),
model_hash (16 hex digits: a hash of the model's bodies, joints, forces and numbers, or of a
system's coordinates, masses, forces, constraints and initial state; a Lua function counts by
its presence), formulation, integrator, rtol, atol (or step for rk4), max_order (when given),
position_tol (gcp, kane, kinematics), stabilization (baumgarte, udwadia_kalaba), t_end,
output_every, stop_when, date (UTC, ISO 8601). run:write_csv writes it above the header as
comment lines "# key: value"; mbd.plot puts it in the figure's metadata (PNG text chunks
"mbd.<key>", an SVG <metadata> element); run:animate shows it on the page.]],
  example = [[for k, v in pairs(run.manifest) do print(k, v) end
print(run.manifest.model_hash, run.manifest.formulation)]],
  see = { "Run", "write_csv", "plot" },
}

topics.pretty = {
  title = "mbd.pretty(value [, { width, items, depth, indent }])  -> string",
  text = [[
A readable form of any value: tables nested and indented, keys sorted (the list part first),
long lists cut after `items` entries with a count of the rest, tables deeper than `depth` shown
as their size, objects (models, runs) by their own tostring. The REPL prints tables with it.
Defaults: width = 100, items = 12, depth = 4, indent = "  ".]],
  example = [[print(mbd.pretty(run.stats))
print(mbd.pretty({ 1, 2, { a = 1 } }, { width = 40 }))]],
  see = { "repl", "stats" },
}

topics.find = {
  title = "m:find(name)  -> Body | Joint | nil",
  text = [[
The body (else the joint) of that name, or nil. m.<name> reaches bodies and joints too, unless
the name is also a method's or a field's (m.info is the method): m:find reaches every one.]],
  example = [[print(m:find("crank"), m:find("O"), m:find("nothing"))]],
  see = { "Model", "body" },
}

topics.last_run = {
  title = "m.last_run, s.last_run  -> Run",
  text = [[
The model's (or system's) last run, kept also when the run failed mid-way: the error names the
time, and last_run holds what was recorded up to it. run.model is the model or system that made
a run.]],
  example = [[local ok, err = pcall(m.simulate, m, { t_end = 1, formulation = "kane" })
print(ok, m.last_run, m.last_run.model == m)]],
  see = { "Run", "simulate" },
}

topics.module = {
  title = "require \"mbd\"  (the Lua module)",
  text = [[
mbd is also a Lua C module for a stock Lua 5.4 interpreter: require "mbd" returns the mbd table
(and sets the globals mbd and help, as the program does). An installation puts the module in
Lua's C folder (<prefix>/lib/lua/5.4/mbd.so) and the stdlib in its Lua folder
(<prefix>/share/lua/5.4/mbd/), where Debian's lua5.4 looks for /usr and /usr/local; from
elsewhere set LUA_CPATH (and LUA_PATH) or use `luarocks path`. Installing:
  cmake --install build [--prefix DIR]                   the program, the module, stdlib, docs
  cd build && cpack -G DEB                               a Debian package mbd_<version>_<arch>.deb
  luarocks --lua-version 5.4 make mbd-dev-1.rockspec     into a LuaRocks tree]],
  example = [[-- in a shell:  lua5.4 -e 'local mbd = require "mbd"; print(mbd.version)'
local mbd = require "mbd"
print(mbd.version)]],
  see = { "cli", "repl" },
}

-- fields, defaults, units and errors of the DSL's constructors -----------------------------------
-- Each field is { name, default ("required" when it must be given), unit, what it is }; help(x)
-- prints them under the topic and the reference (docs/reference.md) shows them as tables.

local function F(name, default, unit, what) return { name, default, unit, what } end
-- the errors every constructor shares, as they read for constructor c
local function ctor_errors(c, key, vec)
  return { string.format("%s: unknown field '%sx' (fields: ...)", c, key),
           string.format("%s: missing field '%s'", c, key),
           string.format("%s: field '%s' expects 2 numbers, got 3 (%s 'J'; the model is planar, " ..
                         "dim = 2: {x, y})", c, vec, c) }
end

topics.model.fields = {
  F("name", "\"model\"", "", "the model's name, in messages, m:info() and the run manifest"),
  F("dim", "2", "", "2: planar (vectors {x, y}); 3: spatial ({x, y, z})"),
  F("gravity", "none", "m/s²", "gravity vector, global frame"),
}
topics.model.errors = { "model: field 'dim' must be 2 or 3, got 4", "model: unknown field 'gravty' (fields: name, dim, gravity)" }

topics.body.fields = {
  F("name", "\"body<N>\"", "", "unique among bodies; channels are <name>.x ..."),
  F("mass", "required", "kg", "positive"),
  F("inertia", "required", "kg·m²", "about the CM: planar Izz; spatial {Ixx, Iyy, Izz} or {Ixx, Iyy, Izz, Ixy, Iyz, Izx} (body frame)"),
  F("pos", "origin", "m", "initial position of the CM (an estimate: assembly corrects it)"),
  F("angle", "0", "rad", "planar: initial angle, counter-clockwise from global +x"),
  F("rot", "{1, 0, 0, 0}", "", "spatial: initial Euler parameters {e0, e1, e2, e3} (normalized with a warning)"),
  F("vel", "zero", "m/s", "initial velocity of the CM (an estimate: the velocity analysis corrects it)"),
  F("omega", "0", "rad/s", "initial angular velocity: planar a number, spatial {wx, wy, wz} global"),
}
topics.body.errors = ctor_errors("body", "mass", "pos")
topics.body.errors[4] = "body 'b': mass must be positive, got 0"

local function joint_fields(axes)
  local f = {
    F("name", "\"<type><N>\"", "", "unique among joints; channels are <name>.angle ..."),
    F("body1", "required", "", "a body of the model (m.ground included)"),
    F("at1", "required", "m", "the joint point in body1's frame ({0, 0} or {0, 0, 0}: its centre of mass); not with a flexible body's node arm:node(k)"),
    F("body2", "required", "", "the other body (reactions are reported on it)"),
    F("at2", "required", "m", "the joint point in body2's frame; not with a node"),
  }
  if axes then
    f[#f + 1] = F("axis1", axes, "", "the joint axis in body1's frame")
    f[#f + 1] = F("axis2", axes == "required" and "required" or "spatial: required", "",
                  "the joint axis in body2's frame (spatial)")
  end
  return f
end
local function joint_errors(c)
  local e = ctor_errors(c, "body1", "at1")
  e[#e + 1] = c .. " 'J': missing field 'at2' (a point in the body's frame; {0, 0} for its centre of mass)"
  e[#e + 1] = c .. " 'J': bodies are the same ('b')"
  e[#e + 1] = "a model that cannot be assembled: the message names the joint with the largest residual"
  return e
end
topics.revolute.fields = joint_fields("spatial: required")
topics.translational.fields = joint_fields("required")
topics.fixed.fields = joint_fields()
topics.spherical.fields = joint_fields()
topics.universal.fields = joint_fields("required")
topics.cylindrical.fields = joint_fields("required")
topics.screw.fields = joint_fields("required")
topics.screw.fields[#topics.screw.fields + 1] = F("pitch", "required", "m", "the advance along axis1 per turn (negative: left-handed)")
topics.planar.fields = joint_fields("required")
topics.planar.fields[#topics.planar.fields + 1] = F("ref1", "picked from axis1", "", "the direction of the x coordinate in body1's frame (its part ⟂ axis1)")
for _, j in ipairs { "revolute", "translational", "fixed", "spherical", "universal", "cylindrical", "screw", "planar" } do
  topics[j].errors = joint_errors(j)
end

topics.drive.fields = {
  F("joint", "required", "", "a revolute or screw (angle), translational or cylindrical (displacement) joint"),
  F("position", "required", "rad or m", "function(t) or a symbolic expression of mbd.sym.t"),
  F("velocity", "central difference", "rad/s or m/s", "function(t): the exact derivative (not with a symbolic position)"),
  F("acceleration", "difference of velocity", "rad/s² or m/s²", "function(t): the exact second derivative (needs velocity)"),
}
topics.drive.errors = { "drive: field 'acceleration' needs field 'velocity' too",
  "drive: a symbolic position gives its own velocity and acceleration; remove fields 'velocity' and 'acceleration'" }

topics.force.fields = {
  F("body", "required", "", "the body it acts on (not the ground)"),
  F("at", "required", "m", "application point in the body's frame ({0, 0} or {0, 0, 0}: its centre of mass); not with a flexible body's node"),
  F("value", "required", "N", "global-frame vector, or function(t, state) returning one"),
}
topics.force.errors = { "force: field 'body' is the ground, which takes no force",
  "force on body 'link2': missing field 'at' (a point in the body's frame; {0, 0} for its centre of mass)",
  "force on body 'link2' (script.lua:12): the function returned ... (the run stops with the message)" }
topics.torque.fields = {
  F("body", "required", "", "the body it acts on (not the ground)"),
  F("value", "required", "N·m", "planar: a number; spatial: {tx, ty, tz} global; or function(t, state)"),
}
topics.torque.errors = { "torque on body 'b': field 'value' expects 3 numbers {tx, ty, tz} (global) in a spatial model, got a number" }
topics.spring.fields = {
  F("name", "\"spring\"", "", "for messages"),
  F("body1", "required", "", "first body"), F("at1", "required", "m", "attachment point, body1 frame ({0, 0} or {0, 0, 0}: the centre of mass; not with a node)"),
  F("body2", "required", "", "second body"), F("at2", "required", "m", "attachment point, body2 frame"),
  F("k", "required", "N/m", "stiffness"), F("c", "0", "N·s/m", "damping"),
  F("length", "required", "m", "free length"),
}
topics.rotational_spring.fields = {
  F("joint", "required", "", "a revolute joint (spatial: also a cylindrical, screw or planar)"),
  F("k", "required", "N·m/rad", "stiffness"), F("c", "0", "N·m·s/rad", "damping"),
  F("angle", "0", "rad", "free angle of the joint's relative angle"),
}

topics.simulate.fields = {
  F("t_end", "required", "s", "end time (the run starts at t = 0)"),
  F("formulation", "\"kane\" (baumgarte where kane does not serve, said in run.note; mbd.system: udwadia_kalaba)", "",
    "augmented | baumgarte | gcp | kane | udwadia_kalaba | relative"),
  F("integrator", "\"adams\"", "", "adams | rk45 | bdf | rkf45 | rk4 (mbd.system: rk45)"),
  F("rtol", "1e-6", "", "relative tolerance of the integrator (mbd.system: 1e-10)"),
  F("atol", "1e-6", "", "absolute tolerance of the integrator (mbd.system: 1e-10)"),
  F("step", "auto (rk4: required)", "s", "rk4: the fixed step; others: the first step"),
  F("max_step", "unlimited", "s", "largest step of the integrator"),
  F("max_order", "adams 12, bdf 5", "", "highest order CVODE may choose (adams 1–12, bdf 1–5)"),
  F("position_tol", "1e-8", "m or rad", "Newton tolerance of the position analyses (gcp, kane)"),
  F("max_newton", "25", "", "Newton iterations per analysis"),
  F("stabilization", "baumgarte: {alpha = 5, beta = 5}; udwadia_kalaba: none", "1/s",
    "baumgarte: gamma - 2 alpha Phidot - beta^2 Phi; udwadia_kalaba: S = alpha I, T = beta I, or S, T (L) matrices"),
  F("output_every", "t_end / 500 and the accepted steps (at most 10000; mbd.system: t_end / 500)", "s",
    "sampling interval of the channels (never changes the motion)"),
  F("stop_when", "none", "", "function(t, state) -> number: the run ends where it crosses zero (models)"),
  F("linear_solver", "\"auto\"", "", "auto | dense | sparse | recursive (help(\"linear_solver\"))"),
  F("quiet", "false", "", "true: the run's warnings are kept in run.warnings and not printed"),
}
topics.simulate.errors = { "simulate: missing field 't_end'",
  "simulate: unknown formulation 'kain' (augmented, baumgarte, gcp, kane, udwadia_kalaba, relative)",
  "simulate: unknown integrator 'euler' (adams, rk45, bdf, rk4)",
  "simulate: integrator 'rk4' needs field 'step' (the fixed step h)",
  "simulate: rtol and atol must be positive",
  "simulate: unknown linear_solver 'fast' (auto, dense, sparse, recursive)",
  "simulate: linear_solver 'recursive' is for formulation 'relative' (joint coordinates on a spanning tree)",
  "<what failed> at t = ... (the run up to t = ... is kept in model.last_run)" }
topics.kinematics.fields = {
  F("t_end", "required", "s", "end time"),
  F("steps", "100", "", "number of equal intervals: outputs at t_end k / steps"),
  F("position_tol", "1e-10", "m or rad", "Newton tolerance of the position analyses"),
  F("max_newton", "50", "", "Newton iterations per analysis"),
  F("quiet", "false", "", "true: the run's warnings are kept in run.warnings and not printed"),
}
topics.kinematics.errors = { "kinematics: model 'm' has 1 degree of freedom left; kinematic analysis needs a fully driven mechanism (add drives, or use simulate)" }

topics.info.returns = [[
a table: bodies, joints, drives, forces (counts); once assembled also coordinates, constraints,
rank, dof, redundant (rows set aside by the rank test), moved (largest change assembly made to a
given pose), channels (names); else error (why it cannot be assembled); warnings (list); text
(the summary tostring and print show).]]
topics.info.example = [[print(m:info())
local info = m:info()
print(info.dof, info.coordinates, info.constraints, #info.channels)]]

topics.plot.fields = {
  F("run / runs", "required", "", "one run, or a list of runs to overlay"),
  F("y", "required", "", "a channel name or a list of them"),
  F("x", "\"t\"", "", "the time, or a channel (a locus y against x)"),
  F("file", "required", "", "output file: .png or .svg"),
  F("title", "none", "", "the figure's title"),
  F("labels", "channel (formulation)", "", "legend text per run"),
  F("xlabel", "\"t [s]\" or the x channel and its unit", "", "x axis label"),
  F("ylabel", "the channels and their units", "", "y axis label: \"crank.theta [rad]\", \"O.fx, O.fy [N]\", \"rod.x [m], O.angle [rad]\" (units from each channel's kind: m, rad, m/s, rad/s, N, N m, J; none for Euler parameters, sticking, violation)"),
  F("width", "800", "px", "figure width"), F("height", "600", "px", "figure height"),
  F("equal_axes", "false", "", "the same scale on both axes (loci)"),
  F("log_y", "false", "", "a logarithmic y axis (points with y <= 0 are left out)"),
}
topics.plot.errors = { "plot: missing field 'file' (a .png or .svg path)",
  "plot: no channel 'x' in run 1 (run.channels lists them)",
  "plot 'f.jpg': unknown extension (use .png or .svg)" }
topics.write_csv.fields = {
  F("file", "required", "", "the CSV file (first argument)"),
  F("channels", "all", "", "a list of channel names (second argument); the first column is t"),
}
topics.write_csv.text = topics.write_csv.text .. [[

Above the header, the run's manifest as comment lines "# key: value" (readers such as numpy's
loadtxt and pandas' read_csv(comment = "#") skip them). Numbers are written with 17
significant digits, so they read back exactly.]]
topics.write_csv.errors = { "run:write_csv: no channel 'x'",
  "csv 'out/x.csv': cannot open for writing: No such file or directory" }
topics.animate.fields = {
  F("file", "required", "", "the .html page to write"),
  F("title", "the model's name", "", "the page's title"),
  F("trace", "none", "", "points whose path is drawn: a body (its CM), a body's name, or {body = b, at = {..}}; or a list of them"),
  F("shapes", "from points and inertia", "m", "per body name: {box = {lx, ly, lz}}, {sphere = r} or {cylinder = {r, h}, axis = {..}}, centred at the CM"),
  F("every", "1", "", "keep every n-th sample (smaller pages for long runs; the last sample is always kept)"),
}
topics.animate.errors = { "animate: missing field 'file' (the .html page to write)",
  "animate: only runs of an mbd.model can be animated (this run has no bodies to draw)",
  "animate: trace: no body 'x' in model 'm'",
  "animate: shapes['crank']: give box = {lx, ly, lz}, sphere = r or cylinder = {r, h}" }
topics.explain.fields = {
  F("run", "none: the assembled initial state", "", "a run of this model"),
  F("t", "required with run (not with a run of one sample)", "s", "the instant, inside the run"),
  F("linearize", "false", "", "models: also the linearization at that state, its equations term by term (ex.linear)"),
}
topics.explain.errors = { "explain: missing field 't' (the time of the run to explain)",
  "explain: t = 9 is outside the run (0 .. 5 s)", "explain: field 'run' is a run of another model" }
topics.equilibrium.fields = {
  F("formulation", "\"kane\"", "", "the coordinates of the search: kane | gcp | augmented | baumgarte | udwadia_kalaba (Cartesian) | relative (joint)"),
  F("tol", "1e-10", "", "the last Newton step, relative to the scales (the model's size, 1 rad)"),
  F("max_iterations", "100", "", "Newton iterations"),
  F("fixed", "none", "", "joints (objects or names) whose relative coordinates are held"),
  F("cut", "automatic", "", "formulation relative: the joints to cut"),
  F("quiet", "false", "", "true: the run's warnings are kept in run.warnings and not printed"),
}
topics.equilibrium.errors = {
  "equilibrium: model 'pendulum' has a neutral direction along 'rod.theta': nothing restores it (a free motion, a rigid-body mode); hold it by a joint or a spring, or list a joint in fixed = {...}",
  "equilibrium: model 'free' has no equilibrium: a generalized force -9.81 acts along 'b.y', a direction nothing restores (the motion accelerates forever)",
  "equilibrium: no equilibrium found after 100 iterations: a generalized force 0.1693 is left on 'coupler.theta' (the iteration limit was reached); ... (the last iterate is kept in model.last_run)",
  "equilibrium: fixed joint 'F' (fixed) has no relative coordinate to hold (revolute, translational or cylindrical)" }
topics.linearize.fields = {
  F("at", "the initial state", "", "a run of this model (or an equilibrium)"),
  F("t", "the run's only sample", "s", "the instant of the run"),
  F("formulation", "\"kane\"", "", "augmented | baumgarte | gcp | kane | udwadia_kalaba | relative"),
  F("method", "\"differences\"", "", "differences | analytic"),
  F("inputs", "none", "", "list of {joint = J}, {torque = body}, {force = body, at, direction}"),
  F("outputs", "none", "", "list of channel names"),
  F("steady", "none", "", "symmetries of a steady motion: {axis, at} (the model turns), {body, axis} (a body spins)"),
  F("cut", "automatic", "", "formulation relative: the joints to cut"),
  F("quiet", "false", "", "true: warnings are kept in lin.warnings and not printed"),
}
topics.linearize.errors = {
  "linearize: model 'driven' has no degree of freedom left (its joints and drives fix every coordinate)",
  "linearize: singular configuration at t = 0.5: the constraint Jacobian has lost rank (pivot ratio 1e-16), the independent coordinates are not defined there",
  "linearize: output 'O.agnle' is not a channel of model 'pendulum'",
  "linearize: input 1: a force needs field 'direction' (global)",
  "linearize: method 'analytic' needs generated equations: a rotational spring acts on a cut joint's angle (every joint is cut in Cartesian coordinates: use formulation 'relative')",
  "linearize: missing field 't' (the time of the run to linearize about; a run of one sample, an equilibrium, needs none)" }
topics.system.fields = {
  F("q", "required", "", "list of coordinate names"),
  F("mass", "identity", "kg", "a number, a diagonal list or a full symmetric positive definite matrix"),
  F("force", "zero", "N", "a list of numbers or symbolic expressions, or function(t, q, qd) returning a list"),
}

-- the set-ups the examples run in ---------------------------------------------------------------
-- Every topic's example is a script that runs as it is after one of these set-ups (the test
-- tests/docs/examples.lua runs them all; the reference shows the set-up of each).  A topic runs
-- in "planar" unless example_context names another; "planned" topics document names whose paper
-- is not implemented yet: their examples must stop with "not implemented yet".

help.contexts = {}
help.context_order = { "none", "cli", "planar_empty", "planar_bodies", "slider_crank", "planar", "pendulum", "spatial",
                       "system", "contact", "beam" }
help.contexts.none = { text = "nothing: the example makes what it uses", code = "" }
help.contexts.cli = { text = "a script started as mbd sweep.lua 0.1 0.2", code = [[
arg = { [0] = "sweep.lua", "0.1", "0.2" }]] }
help.contexts.planar_empty = { text = "an empty planar model m with gravity", code = [[
m = mbd.model { name = "example", dim = 2, gravity = {0, -9.81} }]] }
help.contexts.planar_bodies = { text = "a planar model m with gravity and its bodies crank, rod, " ..
  "slider, base, link1, link2 (no joints)", code = [[
m = mbd.model { name = "example", dim = 2, gravity = {0, -9.81} }
crank = m:body { name = "crank", mass = 2, inertia = 0.015, pos = {0.106066, 0.106066}, angle = math.pi / 4 }
rod = m:body { name = "rod", mass = 1.5, inertia = 0.08, pos = {0.597813, 0.106066}, angle = -0.268375 }
slider = m:body { name = "slider", mass = 1, inertia = 0.001, pos = {0.983494, 0} }
base = m:body { name = "base", mass = 1, inertia = 0.1, pos = {0, 3} }
link1 = m:body { name = "link1", mass = 5, inertia = 10, pos = {0.866025, 2.5}, angle = -0.523599 }
link2 = m:body { name = "link2", mass = 7, inertia = 20, pos = {2.598076, 1.5}, angle = -0.523599 }]] }
help.contexts.slider_crank = { text = "a planar model m holding a slider-crank: bodies crank, " ..
  "rod, slider; joints O (crank to ground), A, B, S (the slide)", code = [[
m = mbd.model { name = "example", dim = 2, gravity = {0, -9.81} }
crank = m:body { name = "crank", mass = 2, inertia = 0.015, pos = {0.106066, 0.106066}, angle = math.pi / 4 }
rod = m:body { name = "rod", mass = 1.5, inertia = 0.08, pos = {0.597813, 0.106066}, angle = -0.268375 }
slider = m:body { name = "slider", mass = 1, inertia = 0.001, pos = {0.983494, 0} }
O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }
A = m:revolute { name = "A", body1 = crank, at1 = {0.15, 0}, body2 = rod, at2 = {-0.4, 0} }
B = m:revolute { name = "B", body1 = rod, at1 = {0.4, 0}, body2 = slider, at2 = {0, 0} }
S = m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0}, axis1 = {1, 0} }]] }
help.contexts.planar = { text = "a planar model m holding a slider-crank (bodies crank, rod, " ..
  "slider; joints O, A, B, S) and a double pendulum (bodies link1, link2, base welded to the " ..
  "ground; joints P1, P2), and run, a 10 s kane run of m", code = [[
m = mbd.model { name = "example", dim = 2, gravity = {0, -9.81} }
crank = m:body { name = "crank", mass = 2, inertia = 0.015, pos = {0.106066, 0.106066}, angle = math.pi / 4 }
rod = m:body { name = "rod", mass = 1.5, inertia = 0.08, pos = {0.597813, 0.106066}, angle = -0.268375 }
slider = m:body { name = "slider", mass = 1, inertia = 0.001, pos = {0.983494, 0} }
O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = crank, at2 = {-0.15, 0} }
A = m:revolute { name = "A", body1 = crank, at1 = {0.15, 0}, body2 = rod, at2 = {-0.4, 0} }
B = m:revolute { name = "B", body1 = rod, at1 = {0.4, 0}, body2 = slider, at2 = {0, 0} }
S = m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = slider, at2 = {0, 0}, axis1 = {1, 0} }
base = m:body { name = "base", mass = 1, inertia = 0.1, pos = {0, 3} }
m:fixed { name = "weld0", body1 = m.ground, at1 = {0, 3}, body2 = base, at2 = {0, 0} }
link1 = m:body { name = "link1", mass = 5, inertia = 10, pos = {0.866025, 2.5}, angle = -0.523599 }
link2 = m:body { name = "link2", mass = 7, inertia = 20, pos = {2.598076, 1.5}, angle = -0.523599 }
P1 = m:revolute { name = "P1", body1 = base, at1 = {0, 0}, body2 = link1, at2 = {-1, 0} }
P2 = m:revolute { name = "P2", body1 = link1, at1 = {1, 0}, body2 = link2, at2 = {-1, 0} }
run = m:simulate { t_end = 10, formulation = "kane" }]] }
help.contexts.spatial = { text = "an empty spatial model m with gravity along -z, and its " ..
  "bodies link1, link2, link3, rod (no joints)", code = [[
m = mbd.model { name = "example", dim = 3, gravity = {0, 0, -9.81} }
link1 = m:body { name = "link1", mass = 2, inertia = {4, 2, 2}, pos = {0, 1, 0} }
link2 = m:body { name = "link2", mass = 1, inertia = {0.01, 12.4, 12.4}, pos = {3, 2, 0} }
link3 = m:body { name = "link3", mass = 1, inertia = {4.54, 0.01, 4.54}, pos = {6, 1, 0} }
rod = m:body { name = "rod", mass = 1, inertia = {1, 1, 1}, pos = {0, 0, 0} }]] }
help.contexts.contact = { text = "a planar model m with gravity, a disk (radius 0.2 m) resting " ..
  "on the ground, and the surfaces floor (the ground's x axis) and rim (the disk's edge)", code = [[
m = mbd.model { name = "example", dim = 2, gravity = {0, -9.81} }
disk = m:body { name = "disk", mass = 3, inertia = 0.06, pos = {0, 0.2}, vel = {1, 0} }
floor = m:surface { name = "floor", body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
rim = m:surface { name = "rim", body = disk, shape = "circle", radius = 0.2 }]] }
help.contexts.beam = { text = "a spatial model m with gravity along -z and a body hub; fe, an " ..
  "8-element steel beam of 1 m with a 5 kg tip mass, and modes, its first 6 clamped modes " ..
  "(also saved as arm.modes, and fe's matrices as M.mtx, K.mtx, nodes.csv)", code = [[
m = mbd.model { name = "example", dim = 3, gravity = {0, 0, -9.81} }
hub = m:body { name = "hub", mass = 10, inertia = {1, 1, 1}, pos = {0, 0, 0} }
fe = mbd.fem.beam { length = 1, elements = 8, E = 210e9, G = 80.8e9, rho = 7850,
                    A = 4e-4, Iy = 1.333e-8, Iz = 1.333e-8, J = 2.25e-8 }
fe:add_mass { node = 9, mass = 5, inertia = {0.1, 0.05, 0.05} }
modes = fe:modes { fixed = {1}, count = 6 }
modes:save("arm.modes")
fe:write_matrices { mass = "M.mtx", stiffness = "K.mtx", nodes = "nodes.csv" }]] }
help.contexts.pendulum = { text = "a planar model m holding a rod pendulum (body rod, joint O) " ..
  "with a rotational spring and damper at its pin", code = [[
m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
rod = m:body { name = "rod", mass = 2, inertia = 0.24, pos = {0.6, 0}, angle = 0 }
O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.6, 0} }
m:rotational_spring { joint = O, k = 30, c = 0.4, angle = 0 }]] }
help.contexts.system = { text = "a coordinate-level system s (a particle on a circle of radius 1)",
  code = [[
s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, 9.8} }]] }

help.example_context = {
  model = "none", Model = "none", ground = "planar_bodies", body = "planar_empty",
  rot = "spatial", revolute = "planar_bodies", translational = "planar_bodies",
  fixed = "planar_bodies", spherical = "spatial", universal = "spatial", cylindrical = "spatial",
  screw = "spatial", planar = "spatial",
  drive = "slider_crank", Drive = "slider_crank", Joint = "planar_bodies", Body = "planar_empty",
  kinematics = "slider_crank", sym = "slider_crank",
  holonomic = "system", nonholonomic = "system", initial = "system", system = "none",
  System = "none", Sym = "none", stability = "none", sweep = "none",
  parallel_map = "none", cli = "cli", repl = "none", help = "none", module = "none",
  pretty = "planar", ["fem.beam"] = "none", ["fem.load"] = "beam", flexible_body = "beam",
  ["fem.from_matrices"] = "beam", FE = "beam", Modes = "beam",
  tree = "slider_crank", export_c = "slider_crank", macro = "planar_empty",
  relative = "slider_crank", code = "slider_crank",
  surface = "contact", contact = "contact", Surface = "contact", Contact = "contact",
  equilibrium = "pendulum", linearize = "pendulum", Linear = "pendulum",
}
-- the papers not implemented yet: their examples must stop with an error (the implemented part of
-- the DSL says "not implemented yet"; names it does not have yet fail as Lua does)
help.planned = {}
-- examples that are REPL sessions: after the prompts "mbd> " and ">> " the lines typed, the other
-- lines what mbd prints (tests/docs/examples.lua types the lines into the REPL and compares)
help.sessions = { repl = "a REPL session: the lines after mbd> and >> are typed, the others are " ..
                         "what mbd prints" }
-- examples shown but not run: none (a reason each, were there any)
help.not_run = {}

-- relative joint coordinates (paper 002) ---------------------------------------------------------

topics.relative = {
  title = "m:simulate { formulation = \"relative\", cut = {...}, solver = \"...\", ... }",
  text = [[
Relative joint coordinates (paper 002): the joint graph becomes a spanning tree rooted at the
ground, each joint's own coordinates are the state, and the joints left out of the tree (cut
joints) close the loops as constraint equations.
  coordinates   revolute: its angle; translational: its displacement; cylindrical: both;
                universal: two angles; spherical: four Euler parameters of the relative rotation
                with their norm as a constraint (no singular angles); fixed: none.  A body with
                no path to the ground floats (x y z e0..e3, or x y theta).  The coordinates are
                zero at the assembled state: a joint's angle channel is its value there plus
                the coordinate.
  cut           the joints to cut, by name; by default the tree keeps the joints with the fewest
                coordinates (a spherical joint is cut before a revolute one), the loop-closing
                joint declared last among equals
  solver        kane (default: Kane's partial velocities on the joint coordinates; the cut
                joints' and drives' rows met by a position and velocity analysis at every
                evaluation, no stiff gains), baumgarte (the paper's stabilization, alpha =
                199.94, beta = 282.8 unless stabilization = {alpha, beta} is given: ask for it
                to reproduce the paper), augmented or gcp
  linear_solver how the accelerations are found, whatever the solver:
                dense      the paper's M = B^T M B (n x n) with the cut joints' rows in the
                           augmented matrix: O(n^2) to O(n^3) work per evaluation
                recursive  an articulated-body recursion on the tree (Featherstone's ABA, in
                           the bodies' pose coordinates): O(n) per evaluation, the cut joints'
                           and drives' rows added through the tree's response to their forces
                           (an m x m system); the same accelerations and reactions
                auto       (default) recursive from 8 moving bodies on, dense below
                The recursive solve runs on code = "numeric" (generated code forms M densely:
                auto takes dense there).  run.stats.linear_solver says which ran.
Every channel of the Cartesian formulations is recorded (poses, velocities, joint angles,
reactions of every joint, energy, violation), so a script switches formulation without other
changes.  m:tree() shows the tree.]],
  example = [[local run = m:simulate { t_end = 2, formulation = "relative", solver = "kane" }
print(m:tree())
local r2 = m:simulate { t_end = 2, formulation = "relative", cut = {"B"} }
local r3 = m:simulate { t_end = 2, formulation = "relative", linear_solver = "recursive" }
print(r3.stats.linear_solver)]],
  see = { "tree", "simulate", "formulations" },
}

topics.code = {
  title = "m:simulate { ..., code = \"numeric\" | \"tape\" | \"compiled\" }  (also m:kinematics)",
  text = [[
How the equations of a run are evaluated (paper 002):
  numeric    the stages of the engine (the default)
  tape       derived symbolically (M, g, Phi, Phi_q, gamma of the model), evaluated in process
  compiled   the same expressions emitted as C, compiled by the system compiler (env CC, else cc)
             into a shared object, cached (env MBD_CACHE, else $XDG_CACHE_HOME/mbd, else
             ~/.cache/mbd) under the SHA-256 of the source, the compiler and its flags; the
             derived source is kept under the SHA-256 of every model value in exact form, so an
             unchanged model loads its code without deriving and a change in the last digit of a
             mass, length, axis, spring constant or gravity derives and compiles again.  No
             compiler, a failed compile or an unusable cache: a warning, and the tape runs
             instead (never a failed run).
What the cache trusts: compiled code is loaded into mbd and runs with your rights, so the cache
is used only when nobody else can write it, as ssh asks of ~/.ssh: the folder must be yours and
writable by nobody else (not a shared mode 1777 folder), and every folder above it yours or
root's and writable by nobody else unless sticky (/tmp); otherwise the run warns and takes the
tape.  Files are made 0600 (sources, digests) and 0700 (shared objects).  A cached object is
loaded only when it is yours, nobody else can write it and its SHA-256 is the one mbd recorded
when it built it (<key>.so.sha256); a kept source only when its digest line matches it; anything
else is derived and compiled again.  Scripts themselves are trusted code: they can call
os.execute, io.open and require, so run only scripts you trust (mbd is not a sandbox).
With formulation = "relative" the equations are those of the joint coordinates; any other
formulation runs on its Cartesian coordinates.  Forces given as functions stay numeric.
run.stats.code says what ran; derive_time and compile_time (s) and cache_hit how it was made.]],
  example = [[local run = m:simulate { t_end = 2, formulation = "relative", code = "compiled" }
print(run.stats.code, run.stats.derive_time, run.stats.compile_time, run.stats.cache_hit)]],
  see = { "relative", "export_c", "stats" },
}

topics.export_c = {
  title = "m:export_c { dir, t_end, rtol, atol, output_every, solver, stabilization, cut }  -> dir",
  text = [[
Writes a standalone C program of the model's equations in relative joint coordinates (paper 002):
dir/equations.c (the derived equations), dir/model.h (sizes, the assembled start, the rows kept),
dir/main.c (a CVODE Adams driver integrating as m:simulate{formulation = "relative"} with the same
options) and dir/Makefile.  `make -C dir && dir/model` builds it against SUNDIALS alone and prints
the joints' angles and displacements at the output times: the numbers of that run in mbd.
Defaults: t_end = 1, rtol = atol = 1e-6, output_every = t_end/500, solver "baumgarte" with the
paper's gains (or "augmented").  Drives, forces given as functions and springs on a cut joint's
angle cannot be exported (an error names them).]],
  example = [[m:export_c { dir = "out/rscr", t_end = 2, rtol = 1e-8, atol = 1e-8 }
os.execute("make -s -C out/rscr && out/rscr/model > out/rscr/angles.txt")   -- the angles at each output time]],
  see = { "code", "relative" },
}

topics.macro = {
  title = "mbd.macro { name, build = function(m, p) ... end }  -> Macro;  macro:add(m, {name, ...})",
  text = [[
A macro element (paper 002, section 4): a sub-mechanism defined once and placed many times.
build(m, p) makes its bodies, joints and forces on m (a stand-in for the model: what it makes is
named "<copy>.<name>"; m.ground is the model's ground) and returns its ports, a table of bodies or
values.  macro:add(m, p) places a copy: p.name (required, without '.'), p.origin and p.rot (the
copy's frame: a position, and Euler parameters or a planar angle; default the global frame), and
any parameters of your own.  build gets p with p.at(x) (a point of the copy's frame, global),
p.dir(x) (a direction) and p.rotation(r) (an orientation given in the copy's frame).
add returns the copy: its ports (s1.input) and its objects by short name (s1.crank).
Built in its frame, every copy of a macro is one shape: with formulation = "relative" and code =
"tape" or "compiled" its equations are derived once and evaluated per copy (the joints between
copies are cut and joined by the model's equations).]],
  example = [[local pend = mbd.macro { name = "pend", build = function(m, p)
  local a = m:body { name = "a", mass = 1, inertia = 0.1, pos = p.at {0.5, 0}, angle = p.rotation(0) }
  m:revolute { name = "O", body1 = m.ground, at1 = p.at {0, 0}, body2 = a, at2 = {-0.5, 0} }
  return { output = a }
end }
local s1 = pend:add(m, { name = "s1", origin = {0, 0} })
local s2 = pend:add(m, { name = "s2", origin = {2, 0}, rot = 0.3 })]],
  see = { "relative", "code" },
}

topics.tree = {
  title = "m:tree { cut = {...} }  -> string",
  text = [[
The spanning tree formulation = "relative" uses: each tree joint under its parent body with its
coordinates, the cut joints with their constraint rows, the constraint count and the degrees of
freedom.  cut (optional) names joints to cut, as in m:simulate.]],
  example = [[print(m:tree())
print(m:tree { cut = {"A"} })]],
  see = { "relative", "info" },
}

-- groups of the overview -------------------------------------------------------------------------

groups[#groups + 1] = { "models", { "model", "ground", "body", "info", "find", "rot" } }
groups[#groups + 1] = { "joints", { "revolute", "translational", "fixed", "spherical", "universal",
                                    "cylindrical", "screw", "planar", "drive" } }
groups[#groups + 1] = { "forces", { "force", "torque", "spring", "rotational_spring" } }
groups[#groups + 1] = { "contact", { "surface", "contact", "events" } }
groups[#groups + 1] = { "flexible", { "fem.beam", "fem.load", "fem.from_matrices",
                                       "flexible_body" } }
groups[#groups + 1] = { "relative coordinates", { "relative", "tree", "code", "export_c", "macro" } }
groups[#groups + 1] = { "systems", { "system", "holonomic", "nonholonomic", "initial" } }
groups[#groups + 1] = { "running", { "simulate", "kinematics", "formulations", "integrators",
                                     "linear_solver" } }
groups[#groups + 1] = { "results", { "value", "series", "channels", "stats", "write_csv", "mkdir",
                                     "plot", "animate", "manifest", "last_run" } }
groups[#groups + 1] = { "analysis", { "explain", "equilibrium", "linearize", "stability", "sym",
                                      "sweep", "parallel_map" } }
groups[#groups + 1] = { "objects", { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System",
                                     "Surface", "Contact", "FE", "Modes", "Linear" } }
groups[#groups + 1] = { "program", { "cli", "repl", "help", "pretty", "module" } }

-- object types and other spellings ---------------------------------------------------------------

for _, t in ipairs { "Model", "Body", "Joint", "Force", "Drive", "Run", "Sym", "System", "Surface",
                     "Contact" } do
  types["mbd." .. t] = t
end
types["mbd.FlexibleBody"] = "flexible_body"
types["mbd.Beam"] = "fem.beam"
types["mbd.FE"] = "FE"
types["mbd.Modes"] = "Modes"
types["mbd.Linear"] = "Linear"

aliases["joint"] = "Joint"
aliases["joints"] = "Joint"
aliases["run"] = "Run"
aliases["add_mass"] = "fem.beam"
aliases["modes"] = "Modes"
aliases["save"] = "Modes"
aliases["shape"] = "Modes"
aliases["beam"] = "fem.beam"
aliases["fem"] = "fem.beam"
aliases["load"] = "fem.load"
aliases["from_matrices"] = "fem.from_matrices"
aliases["write_matrices"] = "FE"
aliases["geometric_stiffening"] = "flexible_body"
aliases["rotary_inertia"] = "flexible_body"
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
aliases["cut"] = "relative"
aliases["solver"] = "relative"
aliases["sparse"] = "linear_solver"
aliases["dense"] = "linear_solver"
aliases["klu"] = "linear_solver"
aliases["symbolic_analyses"] = "stats"
aliases["recursive"] = "linear_solver"
aliases["compiled"] = "code"
aliases["tape"] = "code"
aliases["add"] = "macro"
aliases["macros"] = "macro"
aliases["derive_time"] = "stats"
aliases["cache_hit"] = "stats"
aliases["ball"] = "spherical"
aliases["hooke"] = "universal"
aliases["command line"] = "cli"
aliases["arg"] = "cli"
aliases["units"] = "model"
aliases["log_y"] = "plot"
aliases["page"] = "animate"
aliases["viewer"] = "animate"
aliases["html"] = "animate"
aliases["lambda"] = "explain"
aliases["partition"] = "explain"
aliases["install"] = "module"
aliases["rockspec"] = "module"
aliases["require"] = "module"
aliases["cpack"] = "module"
aliases["from_matrices"] = "fem.load"
aliases["cut"] = "relative"
aliases["compiled"] = "code"
aliases["reproducible"] = "manifest"
aliases["write"] = "Linear"
aliases["frequencies"] = "Linear"
aliases["eigenvalues"] = "Linear"
aliases["linearization"] = "linearize"
aliases["linear"] = "linearize"
aliases["equilibria"] = "equilibrium"
aliases["steady"] = "linearize"
aliases["participation"] = "Linear"
for _, f in ipairs { "sin", "cos", "tan", "exp", "log", "sqrt", "atan2", "abs", "sign", "subs",
                     "eval", "vars", "var", "const", "tonumber", "eq", "is" } do
  aliases[f] = "sym"
end
aliases["get"] = "force"       -- state:get("link1.theta") inside force, torque, stop_when functions
aliases["state"] = "force"
for _, f in ipairs { "compose", "euler_zyx", "from_axes", "rotate" } do
  aliases[f] = "rot"
end
aliases["ncores"] = "parallel_map"
aliases["wall_clock"] = "parallel_map"
aliases["write_file"] = "write_csv"
aliases["check_writable"] = "write_csv"
aliases["file_is_stream"] = "write_csv"
aliases["sha256"] = "write_csv"
aliases["memory_limit"] = "parallel_map"
aliases["mpi_rank"] = "sweep"
aliases["mpi_size"] = "sweep"
aliases["version"] = "cli"
aliases["ok"] = "Run"
aliases["error"] = "Run"
aliases["samples"] = "Run"
aliases["stop_time"] = "simulate"
aliases["stop_when"] = "simulate"
aliases["t_end"] = "simulate"
aliases["index"] = "Body"
aliases["type"] = "Joint"
aliases["dim"] = "model"
aliases["name"] = "model"

for _, f in ipairs { "augmented", "baumgarte", "gcp", "kane", "udwadia_kalaba" } do
  aliases[f] = "formulations"
end
for _, i in ipairs { "adams", "rk45", "bdf", "rk4", "rkf45" } do
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
  -- (and in the REPL's session variables: `local m = ...` typed at the prompt, stdlib/mbd/repl.lua)
  local objects = {}
  for _, obj in pairs(_G) do objects[#objects + 1] = obj end
  local repl = package.loaded["mbd.repl"]
  if type(repl) == "table" and type(repl.vars) == "table" then
    for _, obj in next, repl.vars do objects[#objects + 1] = obj end
  end
  for _, obj in ipairs(objects) do
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

-- the fields of a topic, one a line: "name  default [unit] — what", wrapped at 100 columns
local function format_fields(fields)
  local w = 4
  for _, f in ipairs(fields) do w = math.max(w, utf8.len(f[1])) end
  local lines = {}
  for _, f in ipairs(fields) do
    local text = f[2] .. (f[3] ~= "" and (" [" .. f[3] .. "]") or "") .. " \u{2014} " .. f[4]
    local pad = string.rep(" ", w + 4)
    local line = "  " .. f[1] .. string.rep(" ", w - utf8.len(f[1]) + 2)
    for word in text:gmatch("%S+") do
      if utf8.len(line) + 1 + utf8.len(word) > 100 and utf8.len(line) > #pad then
        lines[#lines + 1] = line
        line = pad .. word
      else
        line = line .. (line:sub(-1) == " " and "" or " ") .. word
      end
    end
    lines[#lines + 1] = line
  end
  return table.concat(lines, "\n")
end

local function format_topic(name)
  local e = topics[name]
  local parts = { e.title, "", e.text }
  if e.fields then
    parts[#parts + 1] = ""
    parts[#parts + 1] = "Fields (name  default [unit] \u{2014} what):"
    parts[#parts + 1] = format_fields(e.fields)
  end
  if e.returns then
    parts[#parts + 1] = ""
    parts[#parts + 1] = "Returns " .. e.returns
  end
  if e.errors and #e.errors > 0 then
    parts[#parts + 1] = ""
    parts[#parts + 1] = "Errors (examples):"
    for _, msg in ipairs(e.errors) do parts[#parts + 1] = "  " .. msg end
  end
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
