-- Benchmark (issue 22): mbd against its peers — MuJoCo, Simbody and DART — and against the
-- hand-written limit, like with like: every engine runs the same model over the same simulated
-- time, at the fastest of its settings whose error on EVERY output is within the same bound, and
-- the timings are taken in interleaved rounds.  Not a test: run it by hand in a Release build.
--
--   mbd scripts/bench/peers.lua [rounds=7] [sizes=2,8,32,128] [models=dp,fourbar,chains]
--                               [engines=mbd,limit,mujoco,simbody,dart] [cap=60] [seed=N]
--
-- The default run takes about ten minutes on a shared 2-core machine; sizes=256,512,1024 with
-- rounds=3 took an hour and a quarter there (DART and Simbody runs of seconds each, searched and
-- repeated; MuJoCo is skipped where one run would pass cap= seconds).
--
-- Models, identical for every engine (written once here, as an mbd model, as MJCF for MuJoCo and
-- as a plain planar-model file for Simbody and DART: scripts/bench/peers/planar_model.h):
--   dp        paper 000's double pendulum, 10 s (scripts/paper000/models.lua, as small.lua and
--             scripts/bench/double_pendulum_hand.c): no gravity, 10 N·m on link 1, (8, 7) N at
--             link 2's free end
--   fourbar   the four-bar of examples/fourbar.lua and small_cases.lua under gravity, 5 s (crank
--             0.4 m at 1.2 rad, coupler 1.2 m, rocker 0.8 m; here assembled exactly, the coupler's
--             far end on the circles of both, so that no engine's assembly moves it)
--   chain-v-N N links 1 m long (1 kg, J = 1/12 kg·m² about the CM in the middle), g = 9.81, 2 s,
--             hanging from the origin released 0.3 rad from the vertical (chains.lua's chain)
--   chain-h-N the same chain released horizontal at rest: a far more violent motion
-- Outputs: the absolute angle of every link at t = T/4, T/2, 3T/4 and T (every engine samples at
-- these times; the error is the largest difference over all of them, angles taken modulo 2π).
-- Reference: mbd, relative coordinates, CVODE Adams at rtol = atol = 1e-12; it is checked against
-- Cartesian kane at 1e-12 (position_tol 1e-12), printed as "ref check".
--
-- Settings: each engine scans its own — mbd every formulation with adams and rk45 on the
-- tolerances 1, 2, 5 × 10^-k (rtol = atol); the hand-written limit its tolerance; Simbody the
-- accuracy of RK-Merson, RK-Fehlberg and CPodes Adams; MuJoCo (RK4; a loop closed by a connect
-- constraint, stiffest solref/solimp) and DART (this driver's RK4 on its forward dynamics) the
-- fixed step, T / n with n a multiple of 4 on a grid of 4 per octave.  On each scale the chosen
-- setting is the loosest whose error is at most 1e-6 rad and whose next tighter setting's is too
-- (a single setting under the bound between two over it is luck: errors are not monotone in a
-- tolerance); the grid is walked from a start (the previous size's choice, else 1e-6 or 0.01 s),
-- jumping while the error is far over the bound.  Among an engine's integrators or formulations
-- the chosen one is the fastest at its setting (median of 3 repeats or more).  mbd keeps its
-- fastest Cartesian and its fastest relative configuration.
--
-- Timing: `rounds` interleaved rounds; each runs every chosen configuration once, in a fresh
-- random order, each as its own process running K repeats (K from the screening time: about
-- 0.2 s per configuration and round, 1 for a run over 0.4 s).  A round's figure is the median of
-- repeats 2..K (repeat 1 when K = 1).  CPU time is in-process: mbd's run.stats.cpu_time (the
-- integrator's set-up, steps and samples), the limit's the same span, the peers' process CPU time
-- (CLOCK_PROCESS_CPUTIME_ID) around their reset or initialization and the steps;
-- OPENBLAS_NUM_THREADS=1 for all.  Printed: median (min–max) over rounds; ratios paired round by
-- round: mbd / peer in the same round, median (min–max).  Evaluations: mbd and the limit their
-- right-hand sides (nfev), MuJoCo and DART 4 per RK4 step, Simbody its realizations.
--
-- The peers are optional Debian packages (libmujoco-dev, libsimbody-dev, libdart-dev); their
-- drivers (scripts/bench/peers/) are compiled by this script into build/bench-peers/ (or
-- $MBD_PEERS_BUILD) the first time.  A peer that is not installed is named, with no figure.
-- The limit is build/engine/codegen/bench_double_pendulum (or $MBD_BENCH_PENDULUM).
local study = require "mbd.study"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local self_path = arg and arg[0] or "scripts/bench/peers.lua"
local mbd_program = arg and arg[-1] or "mbd"

local BOUND = 1e-6        -- the error bound on every output (rad)
local NSAMPLES = 4        -- outputs at T/4, T/2, 3T/4, T

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- models ----------------------------------------------------------------------------------------
-- A description: bodies in depth-first order, each { name, parent (0 ground), at (joint in the
-- parent's frame: the parent's joint is its origin, its x axis along it), angle (absolute, t = 0),
-- mass, cm (in its frame), J (about the CM) }; loads { body, at, force } or { body, torque };
-- loops { a, at_a, b, at_b } (a point of body a on a point of body b).
local models = {}

function models.dp()
  return {
    key = "dp", title = "double pendulum (paper 000 ex. 1), 10 s", t_end = 10, gravity = { 0, 0 },
    bodies = {
      { name = "link1", parent = 0, at = { 0, 0 }, angle = 0.5236, mass = 5, cm = { 1, 0 }, J = 10 },
      { name = "link2", parent = 1, at = { 2, 0 }, angle = 0.7854, mass = 7, cm = { 1, 0 }, J = 20 },
    },
    loads = { { body = 1, torque = 10 }, { body = 2, at = { 2, 0 }, force = { 8, 7 } } },
    loops = {},
  }
end

function models.fourbar()
  -- crank O-A (0.4 m at 1.2 rad), coupler A-B (1.2 m), rocker B-C (0.8 m), C = (1, 0): B where
  -- the two circles meet, the upper one (examples/fourbar.lua's B = (1.3, 0.75) is 1.2 % off)
  local A = { 0.4 * math.cos(1.2), 0.4 * math.sin(1.2) }
  local C = { 1, 0 }
  local dx, dy = C[1] - A[1], C[2] - A[2]
  local d = math.sqrt(dx * dx + dy * dy)
  local a = (1.2 ^ 2 - 0.8 ^ 2 + d * d) / (2 * d)
  local h = math.sqrt(1.2 ^ 2 - a * a)
  local B = { A[1] + a * dx / d - h * dy / d, A[2] + a * dy / d + h * dx / d }
  local phi2 = math.atan(B[2] - A[2], B[1] - A[1])
  local phi3 = math.atan(C[2] - B[2], C[1] - B[1])   -- the rocker's frame at C, x from B to C
  return {
    key = "fourbar", title = "four-bar under gravity, 5 s", t_end = 5, gravity = { 0, -9.81 },
    bodies = {
      { name = "crank", parent = 0, at = { 0, 0 }, angle = 1.2, mass = 1, cm = { 0.2, 0 },
        J = 0.4 ^ 2 / 12 },
      { name = "coupler", parent = 1, at = { 0.4, 0 }, angle = phi2, mass = 3, cm = { 0.6, 0 },
        J = 3 * 1.2 ^ 2 / 12 },
      { name = "rocker", parent = 0, at = { 1, 0 }, angle = phi3, mass = 2, cm = { -0.4, 0 },
        J = 2 * 0.8 ^ 2 / 12 },
    },
    loads = {},
    loops = { { a = 2, at_a = { 1.2, 0 }, b = 3, at_b = { -0.8, 0 } } },
  }
end

function models.chain(N, release)
  local a = release == "v" and -math.pi / 2 + 0.3 or 0
  local bodies = {}
  for i = 1, N do
    bodies[i] = { name = "l" .. i, parent = i - 1, at = i == 1 and { 0, 0 } or { 1, 0 }, angle = a,
                  mass = 1, cm = { 0.5, 0 }, J = 1 / 12 }
  end
  return {
    key = "chain-" .. release .. "-" .. N,
    title = string.format("chain of %d links, %s, 2 s", N,
                          release == "v" and "released 0.3 rad from the vertical"
                                          or "released horizontal"),
    t_end = 2, gravity = { 0, -9.81 }, bodies = bodies, loads = {}, loops = {}, N = N,
  }
end

local function model_of(key)
  if key == "dp" then return models.dp() end
  if key == "fourbar" then return models.fourbar() end
  local rel, N = key:match("^chain%-([vh])%-(%d+)$")
  if rel then return models.chain(tonumber(N), rel) end
  error("unknown model " .. key)
end

local function rotate(angle, p)
  local c, s = math.cos(angle), math.sin(angle)
  return { c * p[1] - s * p[2], s * p[1] + c * p[2] }
end

-- world position of each body's joint (its frame's origin)
local function origins(desc)
  local o = {}
  for i, b in ipairs(desc.bodies) do
    local base, ang = { 0, 0 }, 0
    if b.parent > 0 then base, ang = o[b.parent], desc.bodies[b.parent].angle end
    local r = rotate(ang, b.at)
    o[i] = { base[1] + r[1], base[2] + r[2] }
  end
  return o
end

-- the mbd model: body frames at the CMs, so joint points are taken relative to them
local function to_mbd(desc)
  local m = mbd.model { name = desc.key, dim = 2, gravity = desc.gravity }
  local o = origins(desc)
  local B = {}
  for i, b in ipairs(desc.bodies) do
    local c = rotate(b.angle, b.cm)
    B[i] = m:body { name = b.name, mass = b.mass, inertia = b.J, angle = b.angle,
                    pos = { o[i][1] + c[1], o[i][2] + c[2] } }
  end
  local function local_point(i, p)   -- a point of body i's joint frame, in its CM frame
    local cm = desc.bodies[i].cm
    return { p[1] - cm[1], p[2] - cm[2] }
  end
  for i, b in ipairs(desc.bodies) do
    m:revolute { name = "j" .. i, body1 = b.parent > 0 and B[b.parent] or m.ground,
                 at1 = b.parent > 0 and local_point(b.parent, b.at) or b.at,
                 body2 = B[i], at2 = local_point(i, { 0, 0 }) }
  end
  for k, l in ipairs(desc.loops) do
    m:revolute { name = "loop" .. k, body1 = B[l.a], at1 = local_point(l.a, l.at_a),
                 body2 = B[l.b], at2 = local_point(l.b, l.at_b) }
  end
  for _, l in ipairs(desc.loads) do
    if l.torque then m:torque { body = B[l.body], value = l.torque } end
    if l.force then m:force { body = B[l.body], at = local_point(l.body, l.at), value = l.force } end
  end
  return m
end

local function fmt(x) return string.format("%.17g", x) end

-- the MJCF model for MuJoCo (qpos0 is the initial state: bodies placed by pos and axisangle).
-- MuJoCo's XML parser refuses elements nested deeper than about 100: every 32 levels of bodies the
-- children go to a file of their own, included in place (path.1.xml, path.2.xml, ...).
local function to_mjcf(desc, path)
  local children = {}
  for i, b in ipairs(desc.bodies) do
    children[b.parent] = children[b.parent] or {}
    table.insert(children[b.parent], i)
  end
  local order, parts = {}, 0
  local dir, base = path:match("^(.*)/([^/]*)$")
  local function write(file, lines)
    local f = assert(io.open(file, "w"))
    f:write(table.concat(lines, "\n"), "\n")
    f:close()
  end
  local function body(out, i, depth)
    local function w(s) out[#out + 1] = s end
    local b = desc.bodies[i]
    order[#order + 1] = i
    local rel = b.angle - (b.parent > 0 and desc.bodies[b.parent].angle or 0)
    local pad = string.rep("  ", depth % 32 + 2)
    w(string.format('%s<body name="%s" pos="%s %s 0" axisangle="0 0 1 %s">', pad, b.name,
                    fmt(b.at[1]), fmt(b.at[2]), fmt(rel)))
    w(string.format('%s  <joint name="j%d" type="hinge" axis="0 0 1"/>', pad, i))
    w(string.format('%s  <inertial pos="%s %s 0" mass="%s" diaginertia="%s %s %s"/>', pad,
                    fmt(b.cm[1]), fmt(b.cm[2]), fmt(b.mass), fmt(b.J), fmt(b.J), fmt(b.J)))
    if children[i] and (depth + 1) % 32 == 0 then
      parts = parts + 1
      local name = string.format("%s.%d.xml", base:gsub("%.xml$", ""), parts)
      local sub = { "<mujoco>" }
      for _, c in ipairs(children[i]) do body(sub, c, depth + 1) end
      sub[#sub + 1] = "</mujoco>"
      write(dir .. "/" .. name, sub)
      w(string.format('%s  <include file="%s"/>', pad, name))
    else
      for _, c in ipairs(children[i] or {}) do body(out, c, depth + 1) end
    end
    w(pad .. "</body>")
  end
  local out = {}
  local function w(s) out[#out + 1] = s end
  w(string.format('<mujoco model="%s">', desc.key))
  w('  <compiler angle="radian"/>')
  -- the loop's connect as stiff as MuJoCo allows: time constant 2 steps (refsafe), impedance 0.9999
  w(string.format('  <option timestep="0.01" integrator="RK4" gravity="%s %s 0" tolerance="1e-12" '
                  .. 'iterations="100">', fmt(desc.gravity[1]), fmt(desc.gravity[2])))
  w('    <flag contact="disable"/>')
  w('  </option>')
  w('  <worldbody>')
  for _, c in ipairs(children[0] or {}) do body(out, c, 0) end
  w('  </worldbody>')
  if #desc.loops > 0 then
    w('  <equality>')
    for _, l in ipairs(desc.loops) do
      w(string.format('    <connect body1="%s" body2="%s" anchor="%s %s 0" solref="1e-9 1" '
                      .. 'solimp="0.9999 0.9999 0.001 0.5 2"/>', desc.bodies[l.a].name,
                      desc.bodies[l.b].name, fmt(l.at_a[1]), fmt(l.at_a[2])))
    end
    w('  </equality>')
  end
  if #desc.loads > 0 then
    -- MuJoCo numbers bodies depth-first from 1 (the world is 0)
    local id = {}
    for k, i in ipairs(order) do id[i] = k end
    local data = {}
    for _, l in ipairs(desc.loads) do
      local at, f = l.at or { 0, 0 }, l.force or { 0, 0 }
      for _, v in ipairs { id[l.body], at[1], at[2], f[1], f[2], l.torque or 0 } do
        data[#data + 1] = fmt(v)
      end
    end
    w('  <custom>')
    w(string.format('    <numeric name="loads" data="%s"/>', table.concat(data, " ")))
    w('  </custom>')
  end
  w('</mujoco>')
  for k, i in ipairs(order) do
    assert(k == i, "to_mjcf: the bodies must be listed depth-first")
  end
  write(path, out)
end

-- the planar-model file for Simbody and DART (scripts/bench/peers/planar_model.h)
local function to_planar(desc, path)
  local out = { "# " .. desc.title, "gravity " .. fmt(desc.gravity[1]) .. " " .. fmt(desc.gravity[2]) }
  for _, b in ipairs(desc.bodies) do
    out[#out + 1] = table.concat({ "body", b.parent, fmt(b.at[1]), fmt(b.at[2]), fmt(b.angle),
                                   fmt(b.mass), fmt(b.cm[1]), fmt(b.cm[2]), fmt(b.J) }, " ")
  end
  for _, l in ipairs(desc.loads) do
    if l.torque then out[#out + 1] = table.concat({ "torque", l.body, fmt(l.torque) }, " ") end
    if l.force then
      out[#out + 1] = table.concat({ "force", l.body, fmt(l.at[1]), fmt(l.at[2]), fmt(l.force[1]),
                                     fmt(l.force[2]) }, " ")
    end
  end
  for _, l in ipairs(desc.loops) do
    out[#out + 1] = table.concat({ "loop", l.a, fmt(l.at_a[1]), fmt(l.at_a[2]), l.b, fmt(l.at_b[1]),
                                   fmt(l.at_b[2]) }, " ")
  end
  local f = assert(io.open(path, "w"))
  f:write(table.concat(out, "\n"), "\n")
  f:close()
end

-- mbd runs --------------------------------------------------------------------------------------
-- a configuration: { formulation, integrator, tol, linear_solver, code, solver }
local function mbd_opts(desc, c)
  return { t_end = desc.t_end, formulation = c.formulation, integrator = c.integrator,
           rtol = c.tol, atol = c.tol, linear_solver = c.linear_solver, code = c.code,
           solver = c.solver, position_tol = c.position_tol, output_every = desc.t_end / NSAMPLES,
           quiet = true }
end

-- K runs of one configuration: the protocol's record { evals, steps, cpu = {...}, samples }
local function mbd_run(desc, m, c, K)
  local res = { engine = "mbd " .. mbd.version, cpu = {} }
  local r
  for k = 1, K do
    r = m:simulate(mbd_opts(desc, c))
    res.cpu[k] = r.stats.cpu_time
  end
  res.evals, res.steps = r.stats.nfev, r.stats.steps
  res.linear_solver = r.stats.linear_solver
  res.samples = {}
  for s = 1, NSAMPLES do
    local t = desc.t_end * s / NSAMPLES
    local row = { t }
    for i, b in ipairs(desc.bodies) do row[i + 1] = r:value(b.name .. ".theta", t) end
    res.samples[s] = row
  end
  return res
end

local function encode(c)
  return table.concat({ c.formulation, c.integrator, fmt(c.tol), c.linear_solver or "-",
                        c.code or "-", c.solver or "-", c.position_tol and fmt(c.position_tol)
                        or "-" }, " ")
end

local function decode(words, i)
  local function opt(s) if s ~= "-" then return s end end
  return { formulation = words[i], integrator = words[i + 1], tol = tonumber(words[i + 2]),
           linear_solver = opt(words[i + 3]), code = opt(words[i + 4]), solver = opt(words[i + 5]),
           position_tol = tonumber(opt(words[i + 6]) or "") }
end

local function print_record(res)
  print("engine " .. res.engine)
  print("evals " .. res.evals)
  print("steps " .. res.steps)
  local c = {}
  for k, v in ipairs(res.cpu) do c[k] = string.format("%.9f", v) end
  print("cpu " .. table.concat(c, " "))
  for _, row in ipairs(res.samples) do
    local w = {}
    for k, v in ipairs(row) do w[k] = fmt(v) end
    print("sample " .. table.concat(w, " "))
  end
end

-- the internal mode: one mbd configuration in its own process (a round's entry)
--   mbd peers.lua one MODEL FORMULATION INTEGRATOR TOL LINEAR_SOLVER CODE SOLVER POSITION_TOL K
if arg and arg[1] == "one" then
  local desc = model_of(arg[2])
  local c = decode(arg, 3)
  local ok, res = pcall(mbd_run, desc, to_mbd(desc), c, tonumber(arg[10]) or 1)
  if not ok then
    print("error " .. tostring(res):gsub("\n", " "))
    os.exit(1)
  end
  print_record(res)
  return
end

-- arguments -------------------------------------------------------------------------------------
local opt = { rounds = "7", sizes = "2,8,32,128", models = "dp,fourbar,chains",
              engines = "mbd,limit,mujoco,simbody,dart", cap = "60" }
for _, a in ipairs(arg or {}) do
  local k, v = a:match("^(%w+)=(.*)$")
  if not k or not opt[k] and k ~= "seed" then
    error("peers.lua: unknown argument '" .. a .. "' (rounds=, sizes=, models=, engines=, cap=, seed=)")
  end
  opt[k] = v
end
local function set(s)
  local t = {}
  for w in s:gmatch("[^,]+") do t[w] = true end
  return t
end
local ROUNDS, CAP = tonumber(opt.rounds), tonumber(opt.cap)
local want_model, want_engine = set(opt.models), set(opt.engines)
local sizes = {}
for w in opt.sizes:gmatch("[^,]+") do sizes[#sizes + 1] = tonumber(w) end
local seed = tonumber(opt.seed) or os.time()
math.randomseed(seed)

-- drivers ---------------------------------------------------------------------------------------
local build = os.getenv("MBD_PEERS_BUILD") or "build/bench-peers"
os.execute("mkdir -p " .. q(build))
local src = here .. "/peers"

local function sh_ok(cmd)
  local ok = os.execute(cmd)
  return ok == true or ok == 0
end

local function capture(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  local s = p and p:read("a") or ""
  if p then p:close() end
  return (s:gsub("%s+$", ""))
end

-- compile a driver unless its binary is newer than its sources; nil and the reason when the peer
-- is not installed or does not build
local function driver(name, source, compile, present)
  local exe = build .. "/" .. name
  if not present() then return nil, "not installed" end
  local newer = sh_ok(string.format("test %s -nt %s -a %s -nt %s", q(exe), q(src .. "/" .. source),
                                    q(exe), q(src .. "/planar_model.h")))
  if not newer then
    io.write("compiling " .. exe .. " ... ")
    io.flush()
    local log = build .. "/" .. name .. ".log"
    if not sh_ok(compile .. " > " .. q(log) .. " 2>&1") then
      print("failed (see " .. log .. ")")
      return nil, "installed, but its driver does not compile (" .. log .. ")"
    end
    print("done")
  end
  return exe
end

local PEERS = {
  mujoco = { title = "MuJoCo", package = "libmujoco-dev" },
  simbody = { title = "Simbody", package = "libsimbody-dev" },
  dart = { title = "DART", package = "libdart-dev" },
}
if want_engine.mujoco then
  PEERS.mujoco.exe, PEERS.mujoco.why = driver("mujoco_bench", "mujoco_bench.c",
    string.format("cc -O2 -o %s %s -lmujoco -lm", q(build .. "/mujoco_bench"),
                  q(src .. "/mujoco_bench.c")),
    function() return sh_ok("test -f /usr/include/mujoco/mujoco.h") end)
end
if want_engine.simbody then
  PEERS.simbody.exe, PEERS.simbody.why = driver("simbody_bench", "simbody_bench.cpp",
    string.format("c++ -O2 -DPEER_VERSION='\"%s\"' -o %s %s $(pkg-config --cflags --libs simbody)",
                  capture("pkg-config --modversion simbody"), q(build .. "/simbody_bench"),
                  q(src .. "/simbody_bench.cpp")),
    function() return sh_ok("pkg-config --exists simbody") end)
end
if want_engine.dart then
  PEERS.dart.exe, PEERS.dart.why = driver("dart_bench", "dart_bench.cpp",
    string.format("c++ -O2 -DPEER_VERSION='\"%s\"' -o %s %s $(pkg-config --cflags --libs dart) "
                  .. "-std=c++17 -w", capture("pkg-config --modversion dart"),
                  q(build .. "/dart_bench"), q(src .. "/dart_bench.cpp")),
    function() return sh_ok("pkg-config --exists dart") end)
end
local limit_exe = os.getenv("MBD_BENCH_PENDULUM") or "build/engine/codegen/bench_double_pendulum"
local limit_ok = want_engine.limit and sh_ok("test -x " .. q(limit_exe))

-- run a driver's command line; its record, or nil and the message
local function run_cmd(cmd)
  local p = io.popen("OPENBLAS_NUM_THREADS=1 " .. cmd .. " 2>&1")
  local out = p:read("a")
  p:close()
  local res = { cpu = {}, samples = {} }
  for line in out:gmatch("[^\n]+") do
    local key, rest = line:match("^(%S+)%s*(.*)$")
    if key == "error" then return nil, rest end
    if key == "engine" then res.engine = rest
    elseif key == "evals" then res.evals = tonumber(rest)
    elseif key == "steps" then res.steps = tonumber(rest)
    elseif key == "cpu" then
      for w in rest:gmatch("%S+") do res.cpu[#res.cpu + 1] = tonumber(w) end
    elseif key == "sample" then
      local row = {}
      for w in rest:gmatch("%S+") do row[#row + 1] = tonumber(w) end
      res.samples[#res.samples + 1] = row
    end
  end
  if not res.evals or #res.cpu == 0 or #res.samples ~= NSAMPLES then
    return nil, "unreadable output: " .. out:sub(1, 300):gsub("\n", " | ")
  end
  return res
end

-- errors and statistics -------------------------------------------------------------------------
local function wrap(x) return (x + math.pi) % (2 * math.pi) - math.pi end

-- the largest difference over every output at every sample; math.huge if any is not a number
local function error_of(res, ref)
  local e = 0
  for s, row in ipairs(ref) do
    local got = res.samples[s]
    if not got or math.abs(got[1] - row[1]) > 1e-9 * row[1] or #got ~= #row then return math.huge end
    for i = 2, #row do
      local d = math.abs(wrap(got[i] - row[i]))
      if d ~= d then return math.huge end
      e = math.max(e, d)
    end
  end
  return e
end

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  if n == 0 then return nil end
  return n % 2 == 1 and s[(n + 1) / 2] or (s[n / 2] + s[n / 2 + 1]) / 2
end

local function minmax(t)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(t) do lo, hi = math.min(lo, v), math.max(hi, v) end
  return lo, hi
end

-- a round's figure: the median of repeats 2..K (repeat 1 alone when K = 1)
local function figure(res)
  if #res.cpu == 1 then return res.cpu[1] end
  return median { table.unpack(res.cpu, 2) }
end

local function repeats_for(cpu)
  if cpu >= 0.4 then return 1 end
  return math.min(41, 1 + math.max(2, math.ceil(0.2 / cpu)))
end

local function seconds(x)
  if x >= 1 then return string.format("%.2f s", x) end
  if x >= 1e-3 then return string.format("%.3g ms", x * 1e3) end
  return string.format("%.3g µs", x * 1e6)
end

-- grids -----------------------------------------------------------------------------------------
local TOLS = {}                    -- 1e-3, 5e-4, 2e-4, 1e-4, ... 1e-12: looser first
for k = 3, 12 do
  for _, f in ipairs { 1, 0.5, 0.2 } do TOLS[#TOLS + 1] = f * 10.0 ^ -k end
end
local function tol_index(tol)
  for i, t in ipairs(TOLS) do if t <= tol * 1.0001 then return i end end
  return #TOLS
end

local STEPS = {}                   -- numbers of steps: multiples of 4, 4 per octave, coarser first
do
  local seen = {}
  for k = 8, 80 do
    local n = 4 * math.floor(2 ^ (k / 4) + 0.5)
    if not seen[n] then
      seen[n] = true
      STEPS[#STEPS + 1] = n
    end
  end
end
local function steps_index(n)
  for i, v in ipairs(STEPS) do if v >= n then return i end end
  return #STEPS
end

-- The chosen setting of a grid (looser first): the loosest within the bound whose next tighter
-- setting is within it too (an error that dips under the bound at one setting only is luck, not
-- accuracy: errors are not monotone in a tolerance).  From `start`: if it qualifies, walk looser
-- while the looser setting is within the bound; if not, walk tighter, jumping while the error is
-- over ten times the bound (jump(i, err): one short of the index the error's expected order asks
-- for) and walking back over the settings a jump passed.  try(i) returns err, record; or nil, nil, why for a failed run (and true to stop the search:
-- no tighter setting would be run).  Returns the index, its record and error, or nil and the reason.
local function search(n, start, try, jump, cap)
  local tried = {}
  local function t(i)
    if not tried[i] then
      local err, res, why, stop = try(i)
      tried[i] = { err = err or math.huge, res = res, why = why, stop = stop }
    end
    return tried[i].err <= BOUND
  end
  -- within the bound, and so is the next tighter setting (unless that one is past the cap)
  local function qualifies(i)
    if not t(i) then return false end
    return i == n or t(i + 1) or tried[i + 1].stop
  end
  local i = math.max(1, math.min(n, start))
  if qualifies(i) then
    while i > 1 and t(i - 1) do i = i - 1 end
    return i, tried[i].res, tried[i].err
  end
  while i < n do
    if tried[i].stop then return nil, tried[i].why end
    if tried[i].res and cap and figure(tried[i].res) > cap then
      return nil, string.format("within the bound only at runs longer than %g s", cap)
    end
    local failed = i
    local j = i + 1
    if jump and tried[i].err > 10 * BOUND then j = math.max(i + 1, jump(i, tried[i].err) - 1) end
    i = math.min(n, j)
    if qualifies(i) then
      -- back over the settings the jump passed
      while i - 1 > failed and t(i - 1) do i = i - 1 end
      return i, tried[i].res, tried[i].err
    end
  end
  return nil, "no setting of the grid within the bound (last: " .. tostring(tried[i].why or
    string.format("%.1e", tried[i].err)) .. ")"
end

-- jumps by the error's order: RK4's error as h^4, a tolerance's about linearly
local function jump_steps(i, err)
  if err == math.huge then return i + 4 end
  return steps_index(STEPS[i] * (err / BOUND) ^ 0.25 * 1.05)
end
local function jump_tol(i, err)
  if err == math.huge then return i + 3 end
  return tol_index(TOLS[i] * BOUND / err)
end

-- one model: settings and screening ---------------------------------------------------------------
local scratch = build .. "/models"
os.execute("mkdir -p " .. q(scratch))

-- the mbd configurations scanned for a model (the Cartesian ones with their default solve)
local function mbd_candidates(desc)
  local c = {}
  local function add(family, label, t)
    for _, integ in ipairs { "adams", "rk45" } do
      local x = { family = family, label = label .. " " .. integ, integrator = integ }
      for k, v in pairs(t) do x[k] = v end
      c[#c + 1] = x
    end
  end
  local n = #desc.bodies
  if #desc.loops == 0 then
    if n >= 8 then add("relative", "relative recursive", { formulation = "relative",
                                                           linear_solver = "recursive" }) end
    if n <= 8 then
      add("relative", "relative", { formulation = "relative" })
      add("relative", "relative compiled", { formulation = "relative", code = "compiled" })
    end
  else
    for _, s in ipairs { "kane", "gcp", "baumgarte" } do
      add("relative", "relative " .. s, { formulation = "relative", solver = s })
    end
    add("relative", "relative compiled kane", { formulation = "relative", solver = "kane",
                                                code = "compiled" })
  end
  for _, f in ipairs { "kane", "gcp", "augmented" } do add("Cartesian", f, { formulation = f }) end
  return c
end

local previous = {}     -- previous size's choices (by engine/candidate label), to start searches

local function screen_model(desc)
  print(string.format("== %s (%s)", desc.title, desc.key))
  io.stdout:flush()
  local m = to_mbd(desc)
  local ref_opts = { formulation = "relative", integrator = "adams", tol = 1e-12,
                     linear_solver = #desc.bodies >= 8 and "recursive" or nil,
                     solver = #desc.loops > 0 and "kane" or nil, position_tol = 1e-12 }
  local ref = mbd_run(desc, m, ref_opts, 1)
  local chk = mbd_run(desc, m, { formulation = "kane", integrator = "adams", tol = 1e-12,
                                 position_tol = 1e-12 }, 1)
  local out = { desc = desc, ref = ref.samples, configs = {}, notes = {},
                ref_check = error_of(chk, ref.samples) }
  print(string.format("reference: relative, adams 1e-12 (%d evaluations); kane, adams 1e-12 "
                      .. "differs by %.1e rad", ref.evals, out.ref_check))

  local function add_config(c) out.configs[#out.configs + 1] = c end

  -- mbd: every candidate's loosest tolerance, then the fastest Cartesian and relative ones
  if want_engine.mbd then
    local best = {}
    for _, c in ipairs(mbd_candidates(desc)) do
      local key = "mbd " .. c.label
      local start = previous[key] or tol_index(1e-6)
      local i, res, err = search(#TOLS, start, function(k)
        c.tol = TOLS[k]
        local ok, r = pcall(mbd_run, desc, m, c, 1)
        if not ok then return nil, nil, tostring(r):match("[^\n]*") end
        return error_of(r, out.ref), r
      end, jump_tol)
      if i then
        previous[key] = i
        c.tol = TOLS[i]
        local K = repeats_for(figure(res))
        local timed = mbd_run(desc, m, c, math.max(3, math.min(K, 9)))
        c.screen, c.err, c.evals, c.steps = figure(timed), err, timed.evals, timed.steps
        c.solve = timed.linear_solver
        local cur = best[c.family]
        if not cur or c.screen < cur.screen then best[c.family] = c end
        print(string.format("  mbd %-28s tol %-6s err %.1e  nfev %6d  %s", c.label,
                            string.format("%.0e", c.tol), err, c.evals, seconds(c.screen)))
      else
        print(string.format("  mbd %-28s no figure: %s", c.label, res))
      end
      io.stdout:flush()
    end
    for _, family in ipairs { "relative", "Cartesian" } do
      local c = best[family]
      if c then
        local setting = string.format("%s, tol %.0e%s", c.label, c.tol,
                                      c.solve and c.solve ~= "dense" and c.formulation ~= "relative"
                                      and (", " .. c.solve) or "")
        add_config { engine = "mbd", name = "mbd " .. family, setting = setting, err = c.err,
                     evals = c.evals, steps = c.steps, screen = c.screen,
                     cmd = function(K)
                       return table.concat({ q(mbd_program), q(self_path), "one", desc.key,
                                             encode(c), K }, " ")
                     end }
      end
    end
  end

  -- the hand-written limit (the double pendulum only)
  if desc.key == "dp" and want_engine.limit then
    if not limit_ok then
      out.notes[#out.notes + 1] = "limit: " .. limit_exe .. " not built: no figure"
    else
      local function cmd(tol, K) return table.concat({ q(limit_exe), fmt(tol), K, NSAMPLES }, " ") end
      local i, res, err = search(#TOLS, tol_index(1e-6), function(k)
        local r, why = run_cmd(cmd(TOLS[k], 1))
        if not r then return nil, nil, why end
        return error_of(r, out.ref), r
      end, jump_tol)
      if i then
        local tol = TOLS[i]
        local timed = run_cmd(cmd(tol, 9))
        add_config { engine = "limit", name = "limit", setting = string.format(
                       "hand-written C, CVODE Adams, tol %.0e", tol), err = err,
                     evals = timed.evals, steps = timed.steps, screen = figure(timed),
                     cmd = function(K) return cmd(tol, K) end }
        print(string.format("  limit (hand-written)              tol %-6s err %.1e  nfev %6d  %s",
                            string.format("%.0e", tol), err, timed.evals, seconds(figure(timed))))
      else
        out.notes[#out.notes + 1] = "limit: " .. res
      end
    end
  end

  -- fixed-step peers: MuJoCo (MJCF) and DART (planar file)
  local mjcf, planar = scratch .. "/" .. desc.key .. ".xml", scratch .. "/" .. desc.key .. ".txt"
  to_mjcf(desc, mjcf)
  to_planar(desc, planar)
  for _, name in ipairs { "mujoco", "dart" } do
    local P = PEERS[name]
    if not want_engine[name] then
      -- not asked for
    elseif not P.exe then
      out.notes[#out.notes + 1] = string.format("%s %s (%s): no figure", P.title, P.why, P.package)
    elseif name == "dart" and #desc.loops > 0 then
      out.notes[#out.notes + 1] = "DART: no figure (closed loops: DART closes them only inside "
        .. "World::step's constraint solver, not in the forward dynamics this driver integrates)"
    else
      local file = name == "mujoco" and mjcf or planar
      local function cmd(n, K)
        return table.concat({ q(P.exe), q(file), fmt(desc.t_end), fmt(desc.t_end / n), NSAMPLES,
                              K }, " ")
      end
      local key = name .. " " .. desc.key:gsub("%-%d+$", "")
      local start = previous[key] or steps_index(desc.t_end / 0.01)
      -- the cost of a step, from 4 steps (a run longer than the cap is not started)
      local per_step
      do
        local h = desc.t_end / STEPS[start]
        local r = run_cmd(table.concat({ q(P.exe), q(file), fmt(4 * h), fmt(h), NSAMPLES, 1 }, " "))
        per_step = r and r.cpu[1] / 4 or 0
      end
      local i, res, err = search(#STEPS, start, function(k)
        if per_step * STEPS[k] > CAP then
          return nil, nil, string.format("within the bound only at runs longer than the cap, "
                                         .. "%g s (step %.3g: about %.0f s)", CAP,
                                         desc.t_end / STEPS[k], per_step * STEPS[k]), true
        end
        local r, why = run_cmd(cmd(STEPS[k], 1))
        if not r then return nil, nil, why end
        return error_of(r, out.ref), r
      end, jump_steps, CAP)
      if i then
        previous[key] = i
        local n = STEPS[i]
        local K = repeats_for(figure(res))
        local timed = K > 1 and run_cmd(cmd(n, math.min(K, 5))) or res
        add_config { engine = name, name = P.title, setting = string.format("RK4, step %.4g s",
                     desc.t_end / n), err = err, evals = timed.evals, steps = timed.steps,
                     screen = figure(timed), cmd = function(KK) return cmd(n, KK) end,
                     version = timed.engine }
        print(string.format("  %-32s step %.3g  err %.1e  evals %6d  %s", timed.engine,
                            desc.t_end / n, err, timed.evals, seconds(figure(timed))))
      else
        out.notes[#out.notes + 1] = P.title .. ": no figure: " .. res
        print("  " .. P.title .. ": no figure: " .. res)
      end
      io.stdout:flush()
    end
  end

  -- Simbody: its integrators at their loosest accuracy, the fastest of them
  local P = PEERS.simbody
  if want_engine.simbody and not P.exe then
    out.notes[#out.notes + 1] = string.format("Simbody %s (%s): no figure", P.why, P.package)
  elseif want_engine.simbody then
    local best
    for _, integ in ipairs { "rkm", "rkf", "cpodes-adams" } do
      local function cmd(tol, K)
        return table.concat({ q(P.exe), q(planar), fmt(desc.t_end), integ, fmt(tol), NSAMPLES, K },
                            " ")
      end
      local key = "simbody " .. integ .. " " .. desc.key:gsub("%-%d+$", "")
      local i, res, err = search(#TOLS, previous[key] or tol_index(1e-6), function(k)
        local r, why = run_cmd(cmd(TOLS[k], 1))
        if not r then return nil, nil, why end
        return error_of(r, out.ref), r
      end, jump_tol, CAP)
      if i then
        previous[key] = i
        local tol = TOLS[i]
        local K = repeats_for(figure(res))
        local timed = K > 1 and run_cmd(cmd(tol, 3)) or res
        print(string.format("  %-32s %-12s acc %-6s err %.1e  evals %6d  %s", timed.engine, integ,
                            string.format("%.0e", tol), err, timed.evals, seconds(figure(timed))))
        if not best or figure(timed) < best.screen then
          best = { engine = "simbody", name = "Simbody", setting = string.format("%s, accuracy %.0e",
                   integ, tol), err = err, evals = timed.evals, steps = timed.steps,
                   screen = figure(timed), cmd = function(KK) return cmd(tol, KK) end,
                   version = timed.engine }
        end
      else
        print("  Simbody " .. integ .. ": no figure: " .. res)
      end
      io.stdout:flush()
    end
    if best then add_config(best)
    else out.notes[#out.notes + 1] = "Simbody: no figure: no integrator within the bound" end
  end
  return out
end

-- main ------------------------------------------------------------------------------------------
local function loadavg() return capture("cut -d' ' -f1-3 /proc/loadavg") end
local started, load0 = os.date("%Y-%m-%d %H:%M"), loadavg()
print(string.format("peers.lua: %s, %s cores, load %s, mbd %s, seed %d, %d rounds", started,
                    capture("nproc"), load0, mbd.version, seed, ROUNDS))
for _, name in ipairs { "mujoco", "simbody", "dart" } do
  local P = PEERS[name]
  if want_engine[name] and not P.exe then
    print(string.format("%s %s (Debian package %s): no figure", P.title, P.why, P.package))
  end
end
if want_engine.limit and not limit_ok then
  print("the hand-written limit " .. limit_exe .. " is not built: no figure")
end

local descs = {}
if want_model.dp then descs[#descs + 1] = models.dp() end
if want_model.fourbar then descs[#descs + 1] = models.fourbar() end
if want_model.chains then
  for _, rel in ipairs { "v", "h" } do
    for _, N in ipairs(sizes) do descs[#descs + 1] = models.chain(N, rel) end
  end
end

local screened = {}
for _, desc in ipairs(descs) do screened[#screened + 1] = screen_model(desc) end

-- interleaved rounds
local entries = {}
for _, s in ipairs(screened) do
  for _, c in ipairs(s.configs) do
    c.K = repeats_for(c.screen)
    c.rounds = {}
    entries[#entries + 1] = c
  end
end
print(string.format("\ntiming: %d configurations, %d rounds", #entries, ROUNDS))
for r = 1, ROUNDS do
  for _, i in ipairs(study.shuffled(#entries)) do
    local c = entries[i]
    local res, why = run_cmd(c.cmd(c.K))
    if res then
      c.rounds[r] = figure(res)
      c.version = c.engine ~= "mbd" and c.engine ~= "limit" and res.engine or nil
      if res.evals ~= c.evals then
        c.note = string.format("evaluations %d in a round, %d when screened", res.evals, c.evals)
      end
    else
      c.note = "a round failed: " .. why
    end
  end
  io.write(string.format("round %d/%d done (load %s)\n", r, ROUNDS, loadavg()))
  io.stdout:flush()
end

-- tables
local function range(t)
  local lo, hi = minmax(t)
  return string.format("%s (%s–%s)", seconds(median(t)), seconds(lo), seconds(hi))
end
-- a / b paired round by round: median (min–max)
local function paired(a, b)
  local r = {}
  for k = 1, ROUNDS do
    if a.rounds[k] and b.rounds[k] then r[#r + 1] = a.rounds[k] / b.rounds[k] end
  end
  if #r == 0 then return "-", nil end
  local lo, hi = minmax(r)
  return string.format("%.3g (%.3g–%.3g)", median(r), lo, hi), median(r)
end

print()
print(string.format("One run, %s, %s cores, load %s at the start and %s at the end; %d rounds; "
                    .. "error bound %.0e rad on every link's absolute angle at T/4, T/2, 3T/4, T",
                    started, capture("nproc"), load0, loadavg(), ROUNDS, BOUND))
local versions = {}
for _, c in ipairs(entries) do
  if c.version and not versions[c.version] then
    versions[c.version] = true
    versions[#versions + 1] = c.version
  end
end
print("peers: " .. (#versions > 0 and table.concat(versions, ", ") or "none"))
print()
local summary = {}
for _, s in ipairs(screened) do
  local mbdc, fastest_peer, limit = {}, nil, nil
  for _, c in ipairs(s.configs) do
    if #c.rounds > 0 then
      c.median = median(c.rounds)
      if c.engine == "mbd" then mbdc[#mbdc + 1] = c
      elseif c.engine == "limit" then limit = c
      elseif not fastest_peer or c.median < fastest_peer.median then fastest_peer = c end
    end
  end
  table.sort(mbdc, function(a, b) return a.median < b.median end)
  local header = { "engine", "setting", "error", "evals", "steps", "CPU median (min–max)",
                   "per eval" }
  for _, m in ipairs(mbdc) do header[#header + 1] = m.name .. " / this" end
  local rows = {}
  for _, c in ipairs(s.configs) do
    if c.median then
      local row = { c.name, c.setting, string.format("%.1e", c.err), c.evals, c.steps,
                    range(c.rounds), seconds(c.median / c.evals) }
      for _, m in ipairs(mbdc) do row[#row + 1] = m == c and "-" or (paired(m, c)) end
      rows[#rows + 1] = row
    end
  end
  study.table { title = string.format("%s — reference check %.1e rad", s.desc.title, s.ref_check),
                header = header, rows = rows }
  for _, c in ipairs(s.configs) do
    if c.note then print("note: " .. c.name .. ": " .. c.note) end
  end
  for _, n in ipairs(s.notes) do print("note: " .. n) end
  if #s.notes > 0 then print() end
  local best = mbdc[1]
  if best then
    summary[#summary + 1] = { s.desc.key, best.setting, seconds(best.median),
                              fastest_peer and (fastest_peer.name .. ", " .. fastest_peer.setting)
                              or "-", fastest_peer and seconds(fastest_peer.median) or "-",
                              fastest_peer and (paired(best, fastest_peer)) or "-",
                              limit and (paired(best, limit)) or "-" }
  end
end
if #summary > 0 then study.table { title = "Summary: mbd's fastest configuration against the fastest peer and the "
                      .. "limit (CPU, paired ratios: median (min–max) over rounds)",
              header = { "model", "mbd fastest", "CPU", "fastest peer", "CPU", "mbd / peer",
                         "mbd / limit" },
              rows = summary } end
