-- Lua-level tests of paper 004's DSL: mbd.system, udwadia_kalaba on models, mbd.stability,
-- symbolic drives, mbd.sweep / mbd.parallel_map and heat maps.  Run with the mbd program:
--   mbd tests/lua/test_system.lua [OUTDIR]          (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")
local out = (arg and arg[1]) or os.getenv("TMPDIR") or "/tmp"
local sym = mbd.sym

-- the paper's pendulum (example 1): y points down, g = 9.8, L = 1
local function pendulum()
  local s = mbd.system { name = "pendulum", q = { "x", "y" }, mass = { 1, 1 }, force = { 0, 9.8 } }
  s:holonomic { s.q.x ^ 2 + s.q.y ^ 2 - 1 }
  s:initial { q = { 1, 0 }, qd = { 0, 4 } }
  return s
end

-- a compound pendulum as a rigid body (mass 1, J = 0.2, CM at L = 0.8 from the pin) and the same
-- as an mbd.system in (x, y, th) with the pin's two rows as holonomic constraints
local L, J, th0 = 0.8, 0.2, 0.3
local function rigid()
  local m = mbd.model { name = "rigid", dim = 2, gravity = { 0, -9.81 } }
  local b = m:body { name = "b", mass = 1, inertia = J, pos = { L * math.cos(th0), L * math.sin(th0) },
                     angle = th0 }
  m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0 }, body2 = b, at2 = { -L, 0 } }
  return m
end
local function as_system()
  local s = mbd.system { q = { "x", "y", "th" }, mass = { 1, 1, J }, force = { 0, -9.81, 0 } }
  local x, y, th = s.q.x, s.q.y, s.q.th
  s:holonomic { x - L * sym.cos(th), y - L * sym.sin(th) }
  s:initial { q = { L * math.cos(th0), L * math.sin(th0), th0 }, qd = { 0, 0, 0 } }
  return s
end

-- the rigid pendulum and the system agree (both rk45 at 1e-10: global errors ~1e-9 over 3 s;
-- tolerance 1e-7), and so do UK and augmented on the rigid model
local function agree()
  local s = as_system()
  local rs = s:simulate { t_end = 3, output_every = 0.01 }
  local m = rigid()
  local ra = m:simulate { t_end = 3, formulation = "augmented", integrator = "rk45", rtol = 1e-10,
                          atol = 1e-10, output_every = 0.01 }
  local ru = m:simulate { t_end = 3, formulation = "udwadia_kalaba", integrator = "rk45", rtol = 1e-10,
                          atol = 1e-10, output_every = 0.01,
                          stabilization = { S = { { 5, 0 }, { 0, 5 } }, T = { { 25, 0 }, { 0, 25 } } } }
  local worst = 0
  for _, t in ipairs { 0.5, 1.5, 3 } do
    worst = math.max(worst, math.abs(rs:value("th", t) - ra:value("b.theta", t)),
                     math.abs(ru:value("b.theta", t) - ra:value("b.theta", t)),
                     math.abs(ru:value("O.fx", t) - ra:value("O.fx", t)) / 10)
  end
  return worst < 1e-7
end

-- E1, E2 of a known error history (see tests/engine/test_system.c): h = 2e^-t - e^-2t
local function closed_form()
  local s = mbd.system { q = { "x" } }
  s:holonomic { s.q.x - sym.sin(sym.t) }
  s:initial { q = { 1 }, qd = { 1 } }
  local r = s:simulate { t_end = 10, stabilization = { alpha = 3, beta = 2 } }
  return { r.E1[1] / math.sqrt((2 - 4 / 3 + 0.25) / 10), r.E2[1] / math.sqrt((2 - 8 / 3 + 1) / 10) }
end

-- a symbolic drive gives exact derivatives: a crank driven by th = 0.5 + 2t + 0.1 sin 3t; its
-- angular velocity at t = 1 must be 2 + 0.3 cos 3 (kinematics solves with it: 1e-9)
local function sym_drive()
  local m = mbd.model { name = "crank", dim = 2 }
  local c = m:body { name = "c", mass = 1, inertia = 0.1, pos = { 0.5 * math.cos(0.5), 0.5 * math.sin(0.5) },
                     angle = 0.5 }
  local O = m:revolute { name = "O", body1 = m.ground, at1 = { 0, 0 }, body2 = c, at2 = { -0.5, 0 } }
  local t = sym.t
  m:drive { joint = O, position = 0.5 + 2 * t + 0.1 * sym.sin(3 * t) }
  local k = m:kinematics { t_end = 2, steps = 20 }
  return k:value("c.omega", 1.0) - (2 + 0.3 * math.cos(3))
end

local function sweep_small()
  local s = pendulum()
  local res = mbd.sweep {
    params = { alpha = { 0, 10 }, beta = { from = 0, to = 10, n = 2 } },
    fn = function(p)
      if p.alpha == 10 and p.beta == 0 then error("boom") end
      local r = s:simulate { t_end = 1, stabilization = { alpha = p.alpha, beta = p.beta } }
      return { E1 = r.E1[1], E2 = r.E2[1] }
    end,
    workers = 2, csv = out .. "/mbd_test_sweep.csv", progress = false,
  }
  local f = io.open(out .. "/mbd_test_sweep.csv")
  local header = f:read("l")
  f:close()
  local g = res:grid("E1")
  return { #res.points, res.failed, res.points[2].error:find("boom") and 1 or 0,
           header == "alpha,beta,E1,E2,error" and 1 or 0, #g, #g[1],
           res:min("E1").alpha == res.points[res.points[1].E1 < res.points[4].E1 and 1 or 4].alpha and 1 or 0 }
end

local function heatmap()
  local file = out .. "/mbd_test_heatmap.png"
  os.remove(file)
  mbd.plot { kind = "heatmap", x = { 1, 2, 3 }, y = { 1, 2 }, z = { { 1, 2, 3 }, { 4, 5, 6 } }, file = file,
             contours = 3, log = true, title = "test" }
  local f = io.open(file, "rb")
  local size = f:seek("end")
  f:close()
  return size > 1000
end

local cases = {
  -- s:explain: a particle on the unit circle (the pendulum as a system, y up, g = 9.81) at
  -- θ = 0.3 from the bottom moving at ω = 2: A = 2 qᵀ, b = −2 ω², a = (0, −g), b − A a =
  -- −2(ω² + g cos θ), and eq 5 gives q̈ = −ω² q − g sin θ t̂ with the constraint force
  -- Qc = −(ω² + g cos θ) q, the string's tension (tolerance 1e-12: one 1×2 pseudo-inverse)
  {"s:explain: the pendulum's terms of eq 5 against the closed forms", function()
     local g, th, w = 9.81, 0.3, 2
     local s = mbd.system { name = "circle", q = { "x", "y" }, mass = { 1, 1 }, force = { 0, -g } }
     s:holonomic { s.q.x ^ 2 + s.q.y ^ 2 - 1 }
     local q = { math.sin(th), -math.cos(th) }
     s:initial { q = q, qd = { w * math.cos(th), w * math.sin(th) } }
     local ex = s:explain()
     local T = w * w + g * math.cos(th)
     return { ex.A[1][1] - 2 * q[1], ex.A[1][2] - 2 * q[2], ex.b[1] + 2 * w * w, ex.a[2] + g,
              ex.resid[1] + 2 * T, ex.qdd[1] - (-w * w * q[1] - g * math.sin(th) * math.cos(th)),
              ex.qdd[2] - (-w * w * q[2] - g * math.sin(th) * math.sin(th)),
              ex.Qc[1] + T * q[1], ex.Qc[2] + T * q[2], ex.acc[1], ex.constraints[1].kind,
              tostring(ex):find("x^2 + y^2 - 1 = 0", 1, true) ~= nil }
   end, {}, true, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "holonomic", true }, tol = 1e-12},
  -- from a run: the state read back from the channels x, y, x_dot, y_dot at t; the tension
  -- follows from energy, T = v²/L + g cos θ with v² = v0² − 2 g (y − y0) (rk45 at 1e-10, a
  -- sampled state: 1e-6 relative)
  {"s:explain at a run's sample: the tension from energy conservation", function()
     local g, th, w = 9.81, 0.3, 2
     local s = mbd.system { name = "circle", q = { "x", "y" }, mass = { 1, 1 }, force = { 0, -g } }
     s:holonomic { s.q.x ^ 2 + s.q.y ^ 2 - 1 }
     s:initial { q = { math.sin(th), -math.cos(th) }, qd = { w * math.cos(th), w * math.sin(th) } }
     local r = s:simulate { t_end = 1, output_every = 0.01 }
     local ex = s:explain { run = r, t = 0.5 }
     local y = ex.q[2]
     local v2 = w * w - 2 * g * (y + math.cos(th))
     local T = v2 + g * (-y)       -- cos θ = −y on the unit circle
     local qc = math.sqrt(ex.Qc[1] ^ 2 + ex.Qc[2] ^ 2)
     return math.abs(qc - T) / T < 1e-6, string.format("|Qc| %.9g, T %.9g", qc, T)
   end, {}, true, check = function(ok, msg) return ok, msg end},
  {"s:explain of another system's run", function()
     local r = pendulum():simulate { t_end = 0.1 }
     return pendulum():explain { run = r, t = 0 }
   end, {}, false, "explain: field 'run' is a run of another system", line = 2},
  -- systems
  { "pendulum channels", function()
      local r = pendulum():simulate { t_end = 0.5 }
      return table.concat(r.channels, " ")
    end, {}, true, "x y x_dot y_dot constraint1 constraint1_dot" },
  { "system vs rigid model, UK vs augmented", agree, {}, true, true },
  -- measured ratios ~1 + 1e-9 (Hermite-corrected trapezoid over accepted steps); tol 1e-7 is
  -- 100 times that
  { "E1, E2 closed form", closed_form, {}, true, { 1, 1 }, tol = 1e-7 },
  { "stabilized pendulum holds the constraint", function()
      local r = pendulum():simulate { t_end = 20, stabilization = { alpha = 40, beta = 40 } }
      return r.E1[1] < 1e-9 and r.stats.max_position_violation < 1e-8
    end, {}, true, true },
  { "symbolic force", function()
      local s = mbd.system { q = { "x" }, force = { -4 * mbd.sym.var("x") } }
      s:initial { q = { 1 }, qd = { 0 } }
      return s:simulate { t_end = math.pi / 2, output_every = math.pi / 2 }:value("x", math.pi / 2)
    end, {}, true, -1, tol = 1e-8 },   -- the default rtol 1e-6 over a quarter period: measured
    -- 1.7e-11; 1e-8 leaves room for another step sequence
  { "function force", function()
      local s = mbd.system { q = { "x" }, mass = 2, force = function(t, q, qd) return { -8 * q[1] } end }
      s:initial { q = { 1 }, qd = { 0 } }
      return s:simulate { t_end = math.pi / 2, output_every = math.pi / 2 }:value("x", math.pi / 2)
    end, {}, true, -1, tol = 1e-8 },   -- the default rtol 1e-6 over a quarter period: measured
    -- 1.7e-11; 1e-8 leaves room for another step sequence
  { "squared constraint rejected", function()
      local s = mbd.system { q = { "x", "y" } }
      s:holonomic { (s.q.x ^ 2 + s.q.y ^ 2 - 1) ^ 2 }
    end, {}, false, "write it unsquared: x^2 + y^2 - 1", line = 2 },
  { "formulation other than UK", function() pendulum():simulate { t_end = 1, formulation = "kane" } end,
    {}, false, "runs with formulation 'udwadia_kalaba' only" },
  { "holonomic with a velocity", function()
      local s = mbd.system { q = { "x" } }
      s:holonomic { s.qd.x }
    end, {}, false, "use s:nonholonomic", line = 2 },
  { "alpha of the wrong size", function()
      pendulum():simulate { t_end = 1, stabilization = { alpha = { 1, 2 } } }
    end, {}, false, "expects 1 rows, got 2", line = 1 },
  { "gamma without nonholonomic constraints", function()
      pendulum():simulate { t_end = 1, stabilization = { gamma = 1 } }
    end, {}, false, "needs nonholonomic constraints", line = 1 },
  -- a spinning body falling freely: only its Euler-parameter norm constrains it; UK handles the
  -- singular Euler-parameter mass block by augmentation.  y(1) = −g/2 exactly; tol 1e-7 is the
  -- integrator's tolerance (rtol = atol = 1e-10 over 1 s) times 1000 (measured 4e-15)
  { "UK on a spatial model", function()
      local m = mbd.model { dim = 3, gravity = { 0, -9.81, 0 } }
      m:body { name = "b", mass = 1, inertia = { 1, 2, 3 }, omega = { 1, 2, 3 } }
      local r = m:simulate { t_end = 1, formulation = "udwadia_kalaba", rtol = 1e-10, atol = 1e-10 }
      local e = 0
      for _, c in ipairs { "e0", "e1", "e2", "e3" } do e = e + r:value("b." .. c, 1) ^ 2 end
      return { r:value("b.y", 1), e }
    end, {}, true, { -4.905, 1 }, tol = 1e-7 },

  -- stability (hand-checked, see tests/engine/test_system.c)
  { "stable S, T", function()
      local st = mbd.stability { S = { { 2, 0 }, { 0, 2 } }, T = { { 1, 0 }, { 0, 1 } } }
      return { st.stable and 1 or 0, #st.eigenvalues, st.max_real }
    -- tol 1e-7: max_real comes from LAPACK dgeev, and a double root (-1 here) is in general
    -- found only to about sqrt(eps) ~ 1e-8 (measured here: exact)
    end, {}, true, { 1, 4, -1 }, tol = 1e-7 },
  { "negative entry unstable", function()
      local st = mbd.stability { S = { -1, 2 }, T = { 1, 1 } }
      return { st.stable and 1 or 0, st.max_real }
    end, {}, true, { 0, 0.5 } },
  { "coupled stable", function()
      return mbd.stability { S = { { 3, 1 }, { 1, 3 } }, T = { { 2, 0 }, { 0, 2 } } }.max_real
    end, {}, true, -2 + math.sqrt(2) },
  { "first order unstable", function()
      return mbd.stability { L = { { 1, 3 }, { 3, 1 } } }.stable
    end, {}, true, false },
  { "stability needs fields", function() mbd.stability {} end, {}, false, "missing fields S and T" },

  -- drives, sweeps, plots
  -- tol 1e-9: the velocity analysis solves with the exact drive rate; what remains is the
  -- Newton solve of the positions (position_tol default 1e-8 on the residual) and round-off
  -- (measured 4e-16)
  { "symbolic drive exact", sym_drive, {}, true, 0, tol = 1e-9 },
  -- counts and flags: exact
  { "sweep: points, errors, csv, grid, min", sweep_small, {}, true, { 4, 1, 1, 1, 2, 2, 1 },
    tol = 0 },
  { "parallel_map error point", function()
      local r = mbd.parallel_map(5, function(i) if i == 3 then error("bad point") end return i * i end, 2, false)
      return { r[1], r[5], type(r[3]) == "string" and r[3]:find("bad point") and 1 or 0 }
    end, {}, true, { 1, 25, 1 }, tol = 0 },   -- squares of integers and a flag: exact
  { "heatmap", heatmap, {}, true, true },
  { "heatmap bad z", function()
      mbd.plot { kind = "heatmap", x = { 1, 2 }, y = { 1 }, z = { 1 }, file = out .. "/x.png" }
    end, {}, false, "field 'z' expects 2 numbers", line = 1 },
}

H.run(cases, "systems, stability, sweeps")
