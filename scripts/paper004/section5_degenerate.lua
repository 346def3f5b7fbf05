-- Paper 004 (Eun, Chung 1997), section 5: the choice of constraint.  Written as a square,
-- f² = (x² + y² − L²)² = 0, the pendulum's constraint differentiates to A = 0, b = 0 on the
-- constraint (eq 38–39): A q̈ = b reads 0 = 0 and the method cannot determine the motion.  mbd
-- rejects such a constraint with a message that says why and gives the unsquared form; a form
-- that is not a power at the top but still vanishes to first order (f²·(1 + x²)) is caught at the
-- start of the run, where A and b are evaluated on the initial state.  The script checks both
-- refusals and the unsquared run: it ends with exit status 1 when a claim fails.
--
--   mbd scripts/paper004/section5_degenerate.lua
local study = require "mbd.study"
local claims = study.claims()

-- the message of the refusal, or nil when fn ran
local function attempt(what, fn)
  local ok, err = pcall(fn)
  print(what)
  print(ok and "  accepted" or ("  rejected: " .. tostring(err):gsub("^[^:]*:%d+: ", "")))
  print()
  return not ok and tostring(err) or nil
end

local function pendulum()
  local s = mbd.system { name = "pendulum", q = { "x", "y" }, mass = { 1, 1 }, force = { 0, 9.8 } }
  return s, s.q.x, s.q.y
end

local a = attempt("f^2 = (x^2 + y^2 - 1)^2 = 0 (paper eq 38):", function()
  local s, x, y = pendulum()
  s:holonomic { (x ^ 2 + y ^ 2 - 1) ^ 2 }
end)
local b = attempt("f^2 (1 + x^2) = 0, a product that vanishes to first order too:", function()
  local s, x, y = pendulum()
  s:holonomic { (x ^ 2 + y ^ 2 - 1) ^ 2 * (1 + x ^ 2) }
  s:initial { q = { 1, 0 }, qd = { 0, 4 } }
  s:simulate { t_end = 20 }
end)
local s, x, y = pendulum()
s:holonomic { x ^ 2 + y ^ 2 - 1 }
s:initial { q = { 1, 0 }, qd = { 0, 4 } }
local r = s:simulate { t_end = 20, integrator = "rkf45", rtol = 1e-10, atol = 1e-10 }
print(string.format("the unsquared f = x^2 + y^2 - 1 runs (rkf45, tol 1e-10): E1 = %.3e over 20 s", r.E1[1]))
-- the paper: the squared form must be avoided; both are refused, saying why
local why = "vanish where the constraint holds"
claims:holds("section 5: (x^2 + y^2 - 1)^2 refused, the unsquared form given",
             a ~= nil and a:find(why, 1, true) ~= nil and a:find("write it unsquared: x^2 + y^2 - 1", 1, true) ~= nil)
claims:holds("section 5: (x^2 + y^2 - 1)^2 (1 + x^2) refused at the start of the run",
             b ~= nil and b:find(why, 1, true) ~= nil)
-- and the unsquared constraint holds to the integration error (E1 = 1.9e-8 unstabilized, the
-- size of Fig. 4's; 1e-6 would mean a wrong equation)
claims:within("section 5: E1 of the unsquared constraint", r.E1[1], 0, 1e-6)
claims:finish()
