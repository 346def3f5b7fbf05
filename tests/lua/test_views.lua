-- Lua-level tests of what users see of a run: mbd.pretty (the REPL's printer), run manifests (in
-- CSV files, figures, run.manifest), plots with a log y axis, run:animate's page data, and
-- m:explain's equations (checked against closed forms and the run's own channels).
--   mbd tests/lua/test_views.lua [OUTDIR]          (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local out = (arg and arg[1]) or os.getenv("TMPDIR") or "/tmp"
local tmp = out .. "/mbd_test_views"

-- a compound pendulum (1 kg, 1 m, pinned at one end) at angle th0, and a 1 s kane run of it
local function pendulum(th0)
  local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
  local rod = m:body { name = "rod", mass = 1, inertia = 1 / 12,
                       pos = {0.5 * math.cos(th0), 0.5 * math.sin(th0)}, angle = th0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.5, 0} }
  return m, rod
end

local function read(file)
  local f = assert(io.open(file, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- a JSON value from text (enough for the page's data: objects, arrays, strings, numbers, null)
local function json_decode(s)
  local i = 1
  local function ws() i = s:find("[^ \t\r\n]", i) or #s + 1 end
  local value
  local function str()
    local j, buf = i + 1, {}
    while true do
      local c = s:sub(j, j)
      if c == '"' then i = j + 1; return table.concat(buf) end
      if c == "\\" then
        local e = s:sub(j + 1, j + 1)
        if e == "u" then buf[#buf + 1] = utf8.char(tonumber(s:sub(j + 2, j + 5), 16)); j = j + 6
        else buf[#buf + 1] = ({ n = "\n", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" })[e]; j = j + 2 end
      else buf[#buf + 1] = c; j = j + 1 end
    end
  end
  function value()
    ws()
    local c = s:sub(i, i)
    if c == "{" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "}" then i = i + 1; return t end
      repeat
        ws(); local k = str(); ws(); assert(s:sub(i, i) == ":"); i = i + 1
        t[k] = value(); ws()
        local d = s:sub(i, i); i = i + 1
      until d == "}"
      return t
    elseif c == "[" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "]" then i = i + 1; return t end
      repeat
        t[#t + 1] = value(); ws()
        local d = s:sub(i, i); i = i + 1
      until d == "]"
      return t
    elseif c == '"' then return str()
    elseif s:sub(i, i + 3) == "null" then i = i + 4; return nil
    elseif s:sub(i, i + 3) == "true" then i = i + 4; return true
    elseif s:sub(i, i + 4) == "false" then i = i + 5; return false
    else
      local num = s:match("^-?[%d.eE+-]+", i)
      i = i + #num
      return tonumber(num)
    end
  end
  return value()
end

-- the data of an animation page
local function page_data(file)
  local html = read(file)
  local json = html:match('<script type="application/json" id="mbd%-data">(.-)</script>')
  return json_decode(json), html
end

local ok = function(okv, msg) return okv, msg end

local cases = {
  -- mbd.pretty -----------------------------------------------------------------------------------
  { "pretty: nested, keys sorted, one line when short", mbd.pretty,
    { { 1, 2, { b = 2, a = "x" } } }, true, '{ 1, 2, { a = "x", b = 2 } }' },
  { "pretty: long lists cut with a count", function()
      local t = {}
      for i = 1, 30 do t[i] = i end
      return mbd.pretty(t)
    end, {}, true, "{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, … (18 more) }" },
  { "pretty: cycles, depth, objects through tostring", function()
      local c = { deep = { a = { b = { c = { d = 1 } } } } }
      c.self = c
      local m = pendulum(0)
      return mbd.pretty(c) .. " | " .. mbd.pretty({ m })
    end, {}, true, "{ deep = { a = { b = { c = {… 1 entry} } } }, self = <cycle> } | " ..
                   "{ mbd.Model 'pendulum' (planar): 1 bodies, 1 joints, 0 drives, 0 forces }" },
  { "pretty: a wide table one entry a line", function()
      return mbd.pretty({ alpha = string.rep("a", 50), beta = string.rep("b", 50) })
    end, {}, true, '{\n  alpha = "' .. string.rep("a", 50) .. '",\n  beta = "' .. string.rep("b", 50) .. '"\n}' },

  -- manifests ------------------------------------------------------------------------------------
  { "manifest: the keys of a kane run", function()
      local r = pendulum(0):simulate { t_end = 0.5, formulation = "kane", rtol = 1e-7, atol = 1e-8 }
      local mf = r.manifest
      return { mf.program, mf.model, #mf.model_hash, mf.formulation, mf.integrator, mf.rtol,
               mf.atol, mf.position_tol, mf.t_end, mf.output_every, mf.date:match("^%d%d%d%d%-%d%d%-%d%dT") ~= nil }
    end, {}, true, { "mbd " .. mbd.version, "pendulum", 16, "kane", "adams", "1e-07", "1e-08",
                     "1e-08", "0.5", "steps (at least every 0.001)", true } },
  { "manifest: the model hash follows the model's numbers, not its runs", function()
      local a = pendulum(0):simulate { t_end = 0.1 }.manifest.model_hash
      local b = pendulum(0):simulate { t_end = 0.2, formulation = "gcp" }.manifest.model_hash
      local c = pendulum(0.1):simulate { t_end = 0.1 }.manifest.model_hash
      return a == b and a ~= c, a .. " " .. b .. " " .. c
    end, {}, true, check = ok },
  { "manifest: a system's hash follows its description, not its runs", function()
      local function sys(L, mass)
        local s = mbd.system { name = "sys", q = {"x", "y"}, mass = {mass, mass}, force = {0, -9.81} }
        s:holonomic { s.q.x^2 + s.q.y^2 - L^2 }
        s:initial { q = {L, 0}, qd = {0, 0} }
        return s
      end
      local a = sys(1, 1):simulate { t_end = 0.1 }.manifest.model_hash
      local b = sys(1, 1):simulate { t_end = 0.2, integrator = "adams" }.manifest.model_hash
      local c = sys(1.5, 1):simulate { t_end = 0.1 }.manifest.model_hash  -- another constraint
      local d = sys(1, 2):simulate { t_end = 0.1 }.manifest.model_hash    -- another mass
      return a == b and a ~= c and a ~= d and c ~= d and #a == 16, a .. " " .. b .. " " .. c .. " " .. d
    end, {}, true, check = ok },
  { "manifest: baumgarte, rk4, kinematics and systems say what they used", function()
      local m = pendulum(0)
      local r1 = m:simulate { t_end = 0.1, formulation = "baumgarte", integrator = "rk4", step = 0.01,
                              stabilization = { alpha = 3, beta = 4 } }
      local s = mbd.system { name = "sys", q = {"x"}, force = {1} }
      local r2 = s:simulate { t_end = 0.1 }
      return { r1.manifest.stabilization, r1.manifest.step, r1.manifest.rtol, r2.manifest.model,
               r2.manifest.formulation, r2.manifest.integrator }
    end, {}, true, { "alpha = 3, beta = 4", "0.01", H.NIL, "sys", "udwadia_kalaba", "rk45" } },
  { "manifest: write_csv writes it above the header", function()
      local r = pendulum(0):simulate { t_end = 0.1, formulation = "kane" }
      r:write_csv(tmp .. ".csv", { "rod.theta" })
      local lines = {}
      for l in read(tmp .. ".csv"):gmatch("[^\n]+") do lines[#lines + 1] = l end
      os.remove(tmp .. ".csv")
      local n = 0
      for _, l in ipairs(lines) do if l:sub(1, 1) == "#" then n = n + 1 end end
      return lines[1] == "# program: mbd " .. mbd.version and lines[n + 1] == "t,rod.theta" and
             n == #(function() local k = {} for key in pairs(r.manifest) do k[#k + 1] = key end return k end)(),
             table.concat(lines, "\n", 1, n + 1)
    end, {}, true, check = ok },
  { "manifest: plots carry it (PNG iTXt chunks, SVG metadata)", function()
      local r = pendulum(0):simulate { t_end = 0.2, formulation = "kane" }
      mbd.plot { run = r, y = "rod.theta", file = tmp .. ".png" }
      mbd.plot { runs = { r, r }, y = "rod.theta", file = tmp .. ".svg" }
      local png, svg = read(tmp .. ".png"), read(tmp .. ".svg")
      os.remove(tmp .. ".png"); os.remove(tmp .. ".svg")
      local h = r.manifest.model_hash
      return png:find("iTXtmbd.model_hash\0\0\0\0\0" .. h, 1, true) ~= nil and
             svg:find('<metadata id="mbd-manifest">', 1, true) ~= nil and
             svg:find("run2.model_hash: " .. h, 1, true) ~= nil and
             png:sub(1, 8) == "\137PNG\r\n\26\n", "png or svg without the manifest"
    end, {}, true, check = ok },

  -- plots with a log y axis ----------------------------------------------------------------------
  { "plot: log_y draws, and refuses data with no positive y", function()
      local r = pendulum(0):simulate { t_end = 1, formulation = "kane" }
      local f = mbd.plot { run = r, y = "energy", file = tmp .. "_log.png", log_y = false }
      local size_lin = #read(f)
      f = mbd.plot { run = r, x = "rod.theta", y = "rod.x", file = tmp .. "_log.png", log_y = true }
      local size_log = #read(f)
      os.remove(f)
      local okv, err = pcall(mbd.plot, { run = r, y = "rod.y", file = tmp .. "_log.png", log_y = true })
      return size_lin > 1000 and size_log > 1000 and not okv and err:find("log y", 1, true) ~= nil,
             tostring(err)
    end, {}, true, check = ok },

  -- run:animate ----------------------------------------------------------------------------------
  { "animate: the page holds the run (times, poses, joints, traces, shapes, manifest)", function()
      local m, rod = pendulum(0)
      local r = m:simulate { t_end = 0.5, formulation = "kane", output_every = 0.1 }
      local file = r:animate { file = tmp .. ".html", title = "a <b>", trace = { rod, { body = "rod", at = {0.5, 0} } },
                               shapes = { rod = { box = {1, 0.1, 0.1} } } }
      local d, html = page_data(file)
      os.remove(file)
      local b = d.bodies[1]
      return { d.format, d.version, d.title, d.dim, #d.t, d.t[6], b.name, b.shape.kind, b.shape.size[1],
               #b.x, b.theta[6] - r:value("rod.theta", 0.5), d.joints[1].type, d.joints[1].body1,
               d.joints[1].body2, #d.traces, d.traces[2].at[1], d.manifest.formulation, #b.points,
               html:find("a <b>", 1, true) == nil }
    end, {}, true, { "mbd-animation", 2, "a <b>", 2, 6, 0.5, "rod", "box", 1, 6, 0, "revolute", -1, 0,
                     2, 0.5, "kane", 3, true }, tol = 1e-6 },  -- 7 significant digits in the page
  { "animate: the page holds the surfaces (drawn in their body's frame) and the contacts' forces", function()
      local m = mbd.model { dim = 2, gravity = {0, -9.81} }
      local disk = m:body { name = "disk", mass = 3, inertia = 2, pos = {0, 0.2}, vel = {1, 0} }
      local floor = m:surface { name = "floor", body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
      local rim = m:surface { name = "rim", body = disk, shape = "circle", radius = 0.2 }
      m:contact { name = "c", surface1 = floor, surface2 = rim, friction = "coulomb", mu = 0.3, mu_static = 0.35 }
      local r = m:simulate { t_end = 0.2, formulation = "kane", output_every = 0.1 }
      local d = page_data(r:animate { file = tmp .. ".html" })
      os.remove(tmp .. ".html")
      local f, c, k = d.surfaces[1], d.surfaces[2], d.contacts[1]
      -- the rim: 193 points on the radius, closed; the floor: two points on y = 0, normal up
      local off = 0
      for i = 1, #c.line, 3 do off = math.max(off, math.abs(math.sqrt(c.line[i] ^ 2 + c.line[i + 1] ^ 2) - 0.2)) end
      return { f.name, f.kind, f.body, #f.line, f.line[2], f.normals[2], c.name, c.kind, c.body,
               c.closed, #c.line // 3, off, k.name, k.surface1, k.surface2, k.ny[1], #d.points }
    end, {}, true, { "floor", "line", -1, 6, 0, 1, "rim", "circle", 0, true, 193, 0, "c", 0, 1,
                     3 * 9.81, 0 }, tol = 1e-6 },
  { "animate: every = 2 keeps every other sample and the last", function()
      local r = pendulum(0):simulate { t_end = 0.5, formulation = "kane", output_every = 0.1 }
      local d = page_data(r:animate { file = tmp .. ".html", every = 2 })
      os.remove(tmp .. ".html")
      return d.t
    end, {}, true, { 0, 0.2, 0.4, 0.5 }, tol = 1e-12 },
  { "animate: a spatial model gives Euler parameters", function()
      local m = mbd.model { name = "ball", dim = 3, gravity = {0, 0, -9.81} }
      local b = m:body { name = "b", mass = 1, inertia = {1, 1, 1}, pos = {1, 0, 0} }
      m:spherical { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {-1, 0, 0} }
      local r = m:simulate { t_end = 0.2, formulation = "kane", output_every = 0.1 }
      local d = page_data(r:animate { file = tmp .. ".html" })
      os.remove(tmp .. ".html")
      local body = d.bodies[1]
      return { d.dim, #body.e0, #body.z, body.theta == nil, d.gravity[3] }
    end, {}, true, { 3, 3, 3, true, -9.81 } },
  { "animate: a missing file field", function() return pendulum(0):simulate { t_end = 0.1 }:animate {} end,
    {}, false, "animate: missing field 'file'" },
  { "animate: an unknown body in trace", function() local r = pendulum(0):simulate { t_end = 0.1 }; return r:animate { file = tmp .. ".html", trace = "nobody" } end,
    {}, false, "animate: trace: no body 'nobody' in model 'pendulum'" },
  { "animate: a bad shape", function() local r = pendulum(0):simulate { t_end = 0.1 }; return r:animate { file = tmp .. ".html", shapes = { rod = { cone = 1 } } } end,
    {}, false, "unknown field 'cone'" },
  { "animate: a system's run has no bodies", function() local r = mbd.system { q = {"x"} }:simulate { t_end = 0.1 }; return r:animate { file = tmp .. ".html" } end,
    {}, false, "animate: only runs of an mbd.model can be animated" },
  { "animate: an unwritable file", function() local r = pendulum(0):simulate { t_end = 0.1 }; return r:animate { file = "/nonexistent/x.html" } end,
    {}, false, "animate '/nonexistent/x.html': cannot open for writing: No such file or directory" },

  -- m:explain ------------------------------------------------------------------------------------
  { "explain: released horizontal, the closed forms (thetadd = -3g/2L, pin force m g / 4)", function()
      local ex = pendulum(0):explain()
      return { ex.qdd[3], ex.reactions[1].force[2], ex.reactions[1].force[1], ex.lambda[2], ex.dof,
               ex.rank, ex.partition.independent[1], ex.coordinates[3], ex.rows[2], ex.B[2][1] }
    end, {}, true, { -3 * 9.81 / 2, 9.81 / 4, 0, -9.81 / 4, 1, 2, "rod.theta", "rod.theta", "O.y", 0.5 },
    tol = 1e-12 },
  { "explain: at a run's sample, the equations are satisfied and agree with the channels", function()
      local m = pendulum(-0.3)
      local r = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-10, atol = 1e-10, output_every = 0.05 }
      local ex = m:explain { run = r, t = 0.5 }
      local worst = 0
      -- M qdd + Phi_q' lambda = Q, Phi_q qdd = gamma, Phi_q B = 0
      for i = 1, #ex.coordinates do
        local s = -ex.Q[i]
        for j = 1, #ex.coordinates do s = s + ex.M[i][j] * ex.qdd[j] end
        for k = 1, #ex.rows do s = s + ex.Phiq[k][i] * ex.lambda[k] end
        worst = math.max(worst, math.abs(s))
      end
      for k = 1, #ex.rows do
        local s, sb = -ex.gamma[k], 0
        for j = 1, #ex.coordinates do s = s + ex.Phiq[k][j] * ex.qdd[j]; sb = sb + ex.Phiq[k][j] * ex.B[j][1] end
        worst = math.max(worst, math.abs(s), math.abs(sb))
      end
      local df = math.abs(ex.reactions[1].force[1] - r:value("O.fx", 0.5)) +
                 math.abs(ex.reactions[1].force[2] - r:value("O.fy", 0.5))
      local dq = math.abs(ex.q[3] - r:value("rod.theta", 0.5)) + math.abs(ex.v[3] - r:value("rod.omega", 0.5))
      return worst < 1e-9 and df < 1e-6 and dq < 1e-9 and ex.residual < 1e-8,
             string.format("equations %.1e, reaction %.1e, state %.1e, residual %.1e", worst, df, dq, ex.residual)
    end, {}, true, check = ok },
  { "explain: a translational joint, a drive and a spatial norm row are named", function()
      local m = mbd.model { name = "slide", dim = 2, gravity = {0, -9.81} }
      local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0, 0} }
      local S = m:translational { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0}, axis1 = {1, 0} }
      m:drive { joint = S, position = function(t) return t end }
      local ex = m:explain()
      local m3 = mbd.model { name = "ball", dim = 3 }
      local c = m3:body { name = "c", mass = 1, inertia = {1, 1, 1}, pos = {1, 0, 0} }
      m3:spherical { name = "P", body1 = m3.ground, at1 = {0, 0, 0}, body2 = c, at2 = {-1, 0, 0} }
      local ex3 = m3:explain()
      return { ex.rows[1], ex.rows[2], ex.rows[3], ex.dof, ex.reactions[1].force[2], ex3.rows[4], #ex3.q, ex3.dof }
    end, {}, true, { "S.normal", "S.angle", "drive(S)", 0, 9.81, "c.norm", 7, 3 }, tol = 1e-9 },
  { "explain: its printed form names rows and columns", function()
      local text = tostring(pendulum(0):explain())
      return text:find("O.y  *", 1, true) ~= nil and text:find("rod.theta", 1, true) ~= nil and
             text:find("reaction force along y on 'rod'", 1, true) ~= nil, text
    end, {}, true, check = ok },
  -- contacts (paper 001 example 1: a disk pushed by F = 10 N along a floor, mu = 0.3, thrown
  -- with v = 10 m/s, ω = -60 rad/s, so its contact point slips backward until t* = 0.31 s, then
  -- it rolls).  Sliding: the gap row alone, friction +mu N = 8.829 N in Q, ẍ = (F + mu N)/m,
  -- θ̈ = -mu N R / J·(-1) = 0.8829; rolling: ẍ = F/(m + J/R²) = 10/53, friction m ẍ - F.
  -- Tolerance 1e-9: the closed forms are exact and the state is read back from the run's
  -- channels at rtol 1e-10 (the accelerations do not depend on it while the regime stands)
  { "explain: a sliding and a rolling contact, from the run and at the start", function()
      local m = mbd.model { name = "disk", dim = 2, gravity = {0, -9.81} }
      local d = m:body { name = "disk", mass = 3, inertia = 2, pos = {0, 0.2}, vel = {10, 0}, omega = -60 }
      m:force { body = d, at = {0, 0}, value = {10, 0} }
      local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
      local rim = m:surface { body = d, shape = "circle", radius = 0.2 }
      m:contact { name = "c", surface1 = floor, surface2 = rim, mu = 0.3, mu_static = 0.35 }
      local r = m:simulate { t_end = 1, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
      local s, k, e0 = m:explain { run = r, t = 0.1 }, m:explain { run = r, t = 0.8 }, m:explain()
      local muN = 0.3 * 3 * 9.81
      return { s.contacts[1].mode, s.rows[1], s.rows[2], s.active[2], s.qdd[1] - (10 + muN) / 3,
               s.qdd[3] - muN * 0.2 / 2, s.contacts[1].normal - 3 * 9.81, s.contacts[1].friction - muN,
               k.contacts[1].mode, k.active[2], k.qdd[1] - 10 / 53, k.contacts[1].friction - (30 / 53 - 10),
               e0.contacts[1].mode, e0.qdd[1] - (10 + muN) / 3,
               tostring(s):find("c: sliding, normal force 29.43 N", 1, true) ~= nil }
    end, {}, true, { "slip", "c.gap", "c.roll", false, 0, 0, 0, 0, "stick", true, 0, 0, "slip", 0, true },
    tol = 1e-9 },
  -- a frictional translational joint: a block thrown down a 10° incline decelerates at
  -- g (sin a - mu cos a) along it while it slides, and stands still once it sticks (t* = 1.67 s)
  { "explain: joint friction sliding and sticking", function()
      local a, mu = math.rad(10), 0.3
      local m = mbd.model { dim = 2, gravity = {0, -9.81} }
      local b = m:body { name = "block", mass = 2, inertia = 0.1, vel = {2 * math.cos(a), -2 * math.sin(a)} }
      m:translational { name = "s", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {0, 0},
                        axis1 = {math.cos(a), -math.sin(a)}, friction = { mu = mu } }
      local r = m:simulate { t_end = 2, formulation = "kane", rtol = 1e-10, atol = 1e-10 }
      local s, k = m:explain { run = r, t = 1 }, m:explain { run = r, t = 1.9 }
      local acc = 9.81 * (math.sin(a) - mu * math.cos(a))
      return { s.contacts[1].kind, s.contacts[1].mode, s.qdd[1] - acc * math.cos(a), s.qdd[2] + acc * math.sin(a),
               k.contacts[1].mode, k.qdd[1], k.qdd[2], k.rows[3] }
    end, {}, true, { "joint", "slip", 0, 0, "stick", 0, 0, "s.lock" }, tol = 1e-9 },
  -- a ball in flight (restitution given, apart from the floor): no row active, free fall
  { "explain: an open contact", function()
      local m = mbd.model { dim = 2, gravity = {0, -9.81} }
      local b = m:body { name = "ball", mass = 1, inertia = 0.004, pos = {0, 1} }
      local floor = m:surface { body = m.ground, shape = "line", at = {0, 0}, direction = {1, 0} }
      m:contact { name = "c", surface1 = floor, surface2 = m:surface { body = b, shape = "circle", radius = 0.1 },
                  restitution = 0.5 }
      local r = m:simulate { t_end = 0.3, rtol = 1e-10, atol = 1e-10, output_every = 0.01 }
      local ex = m:explain { run = r, t = 0.2 }  -- (a sample: no interpolation of the parabola)
      return { ex.contacts[1].mode, ex.active[1], ex.qdd[2], ex.contacts[1].gap, m:explain().contacts[1].mode }
    end, {}, true, { "open", false, -9.81, 0.9 - 0.5 * 9.81 * 0.04, "open" }, tol = 1e-9 },
  -- a flexible body read back from its run: a clamped beam (4 elements, 2 modes, no gravity)
  -- released from a1 = A = 0.01 swings in its first mode alone, a1 = A cos ωt with ω² = K11/M11
  -- taken from the explained initial state (Q = −K a, the lumped modal mass M11).  At two samples
  -- the run's a1, the explained rate a1_dot and acceleration against the closed form, relative to
  -- their amplitudes A, Aω, Aω²: bound 1e-5 (bdf at rtol 1e-11; seen 3.4e-7, 1.4e-7, 1.4e-6)
  { "explain: a flexible body's modal state from its run", function()
      local fe = mbd.fem.beam { length = 1, elements = 4, E = 2.1e11, G = 8.1e10, rho = 7850, A = 4e-4,
                                Iy = 1.3333e-8, Iz = 1.3333e-8, J = 2.25e-8 }
      local m = mbd.model { name = "arm", dim = 3 }
      local beam = m:flexible_body { name = "beam", fe = fe, modes = fe:modes { fixed = {1}, count = 2 },
                                     a = {0.01, 0} }
      m:fixed { name = "clamp", body1 = m.ground, at1 = {0, 0, 0}, body2 = beam:node(1) }
      local ex0 = m:explain()
      local ia
      for i, c in ipairs(ex0.coordinates) do if c == "beam.a1" then ia = i end end
      local A, w = 0.01, math.sqrt(-ex0.Q[ia] / 0.01 / ex0.M[ia][ia])
      local r = m:simulate { t_end = 0.06, integrator = "bdf", rtol = 1e-11, atol = 1e-13, output_every = 0.001 }
      local worst = 0
      for _, t in ipairs { 0.013, 0.05 } do
        local ex = m:explain { run = r, t = t }
        worst = math.max(worst, math.abs(r:value("beam.a1", t) - A * math.cos(w * t)) / A,
                         math.abs(ex.v[ia] + A * w * math.sin(w * t)) / (A * w),
                         math.abs(ex.qdd[ia] + A * w * w * math.cos(w * t)) / (A * w * w))
      end
      return worst < 1e-5, worst
    end, {}, true, check = ok },
  { "explain: t outside the run", function() local m = pendulum(0); local r = m:simulate { t_end = 1 }; return m:explain { run = r, t = 2 } end,
    {}, false, "explain: t = 2 is outside the run (0 .. 1 s)" },
  { "explain: a run of another model", function() local r = pendulum(0):simulate { t_end = 1 }; return pendulum(0):explain { run = r, t = 0 } end,
    {}, false, "explain: field 'run' is a run of another model" },
  { "explain: a run without t", function() local m = pendulum(0); local r = m:simulate { t_end = 1 }; return m:explain { run = r } end,
    {}, false, "explain: missing field 't'" },
  { "explain: an unknown field", function() return pendulum(0):explain { time = 1 } end,
    {}, false, "explain: unknown field 'time'" },
}

H.run(cases, "views: pretty, manifests, log plots, animate, explain")
