-- The printed form of m:linearize's result (interp/l_linear.c builds the fields, this module
-- writes them): tostring(lin), print(lin) and the REPL show require("mbd.linear").report(fields).
--   the operating point: its time, whether it is an equilibrium (or a steady motion) and stable
--   the state x = (coordinates, their rates), the inputs and outputs
--   one line per mode: its kind, frequency, damping ratio and eigenvalue, the coordinates that
--     hold most of its energy (the mean of the kinetic and potential shares) and the bodies that
--     hold most of its kinetic energy
--   for a small model (up to 6 coordinates) the linearized equations term by term:
--     M q'' + Cv q' + K q = M B_v u   (deviations from the operating point)

local linear = {}

local SHOW_SHARE = 0.05  -- participation below this share is not named in the report
local SHOW_NAMES = 4     -- at most this many coordinates or bodies per mode
local MAX_EQUATIONS = 6  -- coordinates up to which the equations are written out

local function num(x)
  if x == 0 then return "0" end
  if x ~= x then return "nan" end
  return string.format("%.4g", x)
end

local function pad(s, w) return s .. string.rep(" ", math.max(0, w - utf8.len(s))) end
local function lpad(s, w) return string.rep(" ", math.max(0, w - utf8.len(s))) .. s end

-- "a 62%, b 30%" for the names whose share is at least SHOW_SHARE, largest first
local function leaders(names, shares)
  local idx = {}
  for i = 1, #names do
    if (shares[i] or 0) >= SHOW_SHARE then idx[#idx + 1] = i end
  end
  table.sort(idx, function(a, b)
    if shares[a] ~= shares[b] then return shares[a] > shares[b] end
    return a < b
  end)
  local parts = {}
  for k = 1, math.min(#idx, SHOW_NAMES) do
    local i = idx[k]
    parts[#parts + 1] = string.format("%s %d%%", names[i], math.floor(100 * shares[i] + 0.5))
  end
  if #idx > SHOW_NAMES then parts[#parts + 1] = "…" end
  return table.concat(parts, ", ")
end

-- the energy share of each coordinate in mode md: the mean of its kinetic and potential shares
-- (the kinetic alone where the mode has no potential energy: a rigid mode)
local function coordinate_shares(md)
  local kin, pot, s = md.participation.kinetic, md.participation.potential, {}
  local ptot = 0
  for i = 1, #pot do ptot = ptot + math.abs(pot[i]) end
  for i = 1, #kin do
    s[i] = ptot > 0 and 0.5 * (kin[i] + pot[i]) or kin[i]
  end
  return s
end

-- a real part or a damping ratio within rounding of zero (an undamped mode's: 1e-17 of |λ|)
-- printed as 0
local function clean(x, scale) return math.abs(x) <= 1e-12 * scale and 0 or x end

local function eigen_text(md)
  local mod = math.sqrt(md.eigenvalue[1] ^ 2 + md.eigenvalue[2] ^ 2)
  local re, im = clean(md.eigenvalue[1], mod), md.eigenvalue[2]
  if im > 0 then return string.format("%s ± %si", num(re), num(im)) end
  return num(re)
end

-- the linearized equations term by term: row i of M q'' + Cv q' + K q = (M B_v) u
local function equations(lines, L)
  local f, nu = #L.coordinates, #L.inputs
  local F = {}  -- M B_v: the generalized force of each input
  for i = 1, f do
    F[i] = {}
    for k = 1, nu do
      local s = 0
      for j = 1, f do s = s + L.M[i][j] * L.B[f + j][k] end
      F[i][k] = s
    end
  end
  lines[#lines + 1] = "  linearized equations (deviations from the operating point, SI units):"
  for i = 1, f do
    local terms, big = {}, 0
    for j = 1, f do
      big = math.max(big, math.abs(L.M[i][j]), math.abs(L.Cv[i][j]), math.abs(L.K[i][j]))
    end
    local function term(c, name)
      if math.abs(c) > 1e-12 * big and c ~= 0 then
        local sign = c < 0 and "- " or "+ "
        terms[#terms + 1] = sign .. num(math.abs(c)) .. " " .. name
      end
    end
    for j = 1, f do term(L.M[i][j], L.coordinates[j] .. "''") end
    for j = 1, f do term(L.Cv[i][j], L.coordinates[j] .. "'") end
    for j = 1, f do term(L.K[i][j], L.coordinates[j]) end
    local lhs = table.concat(terms, " "):gsub("^%+ ", ""):gsub("^%- ", "-")
    local rhs = {}
    for k = 1, nu do
      if F[i][k] ~= 0 then
        rhs[#rhs + 1] = (F[i][k] < 0 and "- " or "+ ") .. num(math.abs(F[i][k])) .. " " ..
          L.inputs[k]
      end
    end
    local r = #rhs > 0 and table.concat(rhs, " "):gsub("^%+ ", ""):gsub("^%- ", "-") or "0"
    lines[#lines + 1] = "    " .. (lhs ~= "" and lhs or "0") .. " = " .. r
  end
end

function linear.report(L)
  local lines = {}
  local f = #L.coordinates
  local where
  if L.equilibrium then
    where = (L.rates and "a steady motion" or "an equilibrium") ..
      (L.stable == true and ", stable" or L.stable == false and ", not stable" or "")
  else
    where = "not an equilibrium: the Jacobian along the motion"
  end
  lines[#lines + 1] = string.format("mbd.Linear at t = %s (%s); formulation %s, %s", num(L.t),
    where, L.formulation, L.method)
  lines[#lines + 1] = string.format("  x = (%s and their rates): %d states, %d inputs, %d outputs",
    table.concat(L.coordinates, ", "), #L.states, #L.inputs, #L.outputs)
  if L.rates then
    local r = {}
    for k = 1, #L.rates do r[#r + 1] = num(L.rates[k]) .. " rad/s" end
    lines[#lines + 1] = "  in the frame of the steady motion, rates " .. table.concat(r, ", ")
  end
  if #L.modes == 0 then
    lines[#lines + 1] = "  no modes"
  else
    local rows = { { "mode", "kind", "f [Hz]", "damping", "eigenvalue", "coordinates (energy)",
                     "bodies (kinetic energy)" } }
    for k, md in ipairs(L.modes) do
      rows[#rows + 1] = {
        tostring(k), md.kind,
        md.kind == "oscillatory" and num(md.frequency) or "-",
        md.kind == "rigid" and "-" or num(clean(md.damping, 1)),
        eigen_text(md),
        leaders(L.coordinates, coordinate_shares(md)),
        leaders(L.bodies, md.participation.bodies),
      }
    end
    local w = {}
    for _, r in ipairs(rows) do
      for c = 1, 5 do w[c] = math.max(w[c] or 0, utf8.len(r[c])) end
    end
    for i, r in ipairs(rows) do
      local cells = {}
      for c = 1, 5 do
        cells[c] = (c == 2 or (c == 5 and i == 1)) and pad(r[c], w[c]) or lpad(r[c], w[c])
      end
      lines[#lines + 1] = "  " .. table.concat(cells, "  ") .. "  " .. pad(r[6], 0) ..
        (r[7] ~= "" and ("  |  " .. r[7]) or "")
    end
  end
  if f <= MAX_EQUATIONS and L.M then equations(lines, L) end
  for _, w in ipairs(L.warnings or {}) do
    lines[#lines + 1] = "  warning: " .. w
  end
  return table.concat(lines, "\n")
end

return linear
