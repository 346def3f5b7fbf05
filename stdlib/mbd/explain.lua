-- The printed form of m:explain's result (interp/l_explain.c builds the tables, this module
-- writes them as a compact report): require("mbd.explain")(ex) sets ex.text and makes
-- tostring(ex) (and print(ex), and the REPL) show it.  The tables stay as they are:
--   ex.coordinates[j], ex.rows[i]            names of the columns and rows
--   ex.q, ex.v, ex.qdd, ex.Q                 per coordinate;  ex.M[i][j]
--   ex.Phi, ex.Phit, ex.gamma, ex.lambda     per constraint row;  ex.Phiq[i][j]
--   ex.active[i], ex.meaning[i], ex.lambda_is[i]
--   ex.rank, ex.pivot_ratio                  rank of the active rows of Phi_q, and min/max |R_kk|
--                                            of its QR (near 0 close to a singular configuration)
--   ex.partition.dependent / .independent     coordinate names;  ex.B[i][k] (n × dof)
--   ex.reactions[k] = {joint, body, force, torque [, effort]}
-- s:explain's result (interp/l_system.c, ex.system set: the system's name) is written as paper
-- 004's equation 5 term by term:
--   ex.coordinates[j], ex.q, ex.qd, ex.F, ex.a (= M⁻¹F), ex.qdd, ex.Qc (= M (qdd − a)), ex.M
--   ex.constraints[k] = {text, kind}, ex.A[k][j], ex.b, ex.resid (= b − A a), ex.value, ex.rate,
--   ex.acc (= A qdd − b)
-- Matrices wider than MAXCOL columns are cut in the text (the tables hold them whole).

local MAXCOL = 10

local function num(x)
  if x == 0 then return "0" end
  if x ~= x then return "nan" end
  local s = string.format("%.4g", x)
  return s
end

local function pad(s, w) return s .. string.rep(" ", w - utf8.len(s)) end
local function lpad(s, w) return string.rep(" ", w - utf8.len(s)) .. s end

-- a matrix with named rows and columns; rows may carry a mark ("*" for active rows)
local function matrix(lines, rows, cols, A, mark)
  local ncol = math.min(#cols, MAXCOL)
  local rw = 4
  for _, r in ipairs(rows) do rw = math.max(rw, utf8.len(r) + 2) end
  local cw = {}
  for j = 1, ncol do
    cw[j] = math.max(6, utf8.len(cols[j]))
    for i = 1, #rows do cw[j] = math.max(cw[j], #num(A[i][j])) end
  end
  local head = { pad("", rw + (mark and 2 or 0)) }
  for j = 1, ncol do head[#head + 1] = lpad(cols[j], cw[j]) end
  if #cols > ncol then head[#head + 1] = string.format(" … (%d more)", #cols - ncol) end
  lines[#lines + 1] = "  " .. table.concat(head, " ")
  for i, r in ipairs(rows) do
    local cells = { pad(r, rw) .. (mark and (mark[i] and "* " or "  ") or "") }
    for j = 1, ncol do cells[#cells + 1] = lpad(num(A[i][j]), cw[j]) end
    lines[#lines + 1] = "  " .. table.concat(cells, " ")
  end
end

-- a table of named columns of vectors
local function columns(lines, names, heads, vectors)
  local nw = 4
  for _, n in ipairs(names) do nw = math.max(nw, utf8.len(n) + 2) end
  local cw = {}
  for k, h in ipairs(heads) do
    cw[k] = math.max(10, utf8.len(h))
    for i = 1, #names do cw[k] = math.max(cw[k], #num(vectors[k][i] or 0)) end
  end
  local head = { pad("", nw) }
  for k, h in ipairs(heads) do head[#head + 1] = lpad(h, cw[k]) end
  lines[#lines + 1] = "  " .. table.concat(head, " ")
  for i, n in ipairs(names) do
    local cells = { pad(n, nw) }
    for k = 1, #heads do
      local v = vectors[k][i]
      cells[#cells + 1] = lpad(v == nil and "" or num(v), cw[k])
    end
    lines[#lines + 1] = "  " .. table.concat(cells, " ")
  end
end

local function is_diagonal(M)
  for i = 1, #M do
    for j = 1, #M do
      if i ~= j and M[i][j] ~= 0 then return false end
    end
  end
  return true
end

-- per-coordinate columns, M's diagonal as one more when M is diagonal, else M printed after them
local function coordinate_table(L, names, heads, vecs, M)
  if is_diagonal(M) then
    local d = {}
    for i = 1, #names do d[i] = M[i][i] end
    heads[#heads + 1], vecs[#vecs + 1] = "M", d
  end
  columns(L, names, heads, vecs)
  if not is_diagonal(M) then
    L[#L + 1] = ""
    L[#L + 1] = "mass matrix M"
    matrix(L, names, names, M)
  end
end

local function vec(v, unit)
  local parts = {}
  for i, x in ipairs(v) do parts[i] = num(x) end
  return "(" .. table.concat(parts, ", ") .. ")" .. (unit and (" " .. unit) or "")
end

local function text(ex)
  local L = {}
  local n, nrow = #ex.coordinates, #ex.rows
  local nactive = 0
  for i = 1, nrow do if ex.active[i] then nactive = nactive + 1 end end
  L[#L + 1] = string.format("explain at t = %s s: %s, %d coordinates, %d constraint rows (%d active), %d degree%s of freedom",
    num(ex.t), ex.dim == 2 and "planar" or "spatial", n, nrow, nactive, ex.dof, ex.dof == 1 and "" or "s")
  if ex.residual and ex.residual == ex.residual then
    L[#L + 1] = string.format("  the state as read: max |Phi| = %s (made consistent by position and velocity analyses)",
      num(ex.residual))
  end

  -- coordinates: q, v, the accelerations, Q and M
  L[#L + 1] = ""
  L[#L + 1] = "coordinates: velocity v, acceleration qdd (paper 000 eq 13), applied force Q" ..
              (is_diagonal(ex.M) and ", mass M (diagonal)" or "")
  coordinate_table(L, ex.coordinates, { "v", "qdd", "Q" }, { ex.v, ex.qdd, ex.Q }, ex.M)

  -- constraints: Phi_q with its rows named, then Phi, gamma, lambda per row
  L[#L + 1] = ""
  L[#L + 1] = string.format("constraint Jacobian Phi_q (rows: equations, * active; columns: " ..
    "coordinates): rank %d, smallest/largest pivot of its QR %s", ex.rank, num(ex.pivot_ratio))
  matrix(L, ex.rows, ex.coordinates, ex.Phiq, ex.active)
  L[#L + 1] = ""
  L[#L + 1] = "rows: Phi, gamma (Phi_q qdd = gamma), lambda, and what the row says"
  local nw = 4
  for _, r in ipairs(ex.rows) do nw = math.max(nw, utf8.len(r) + 2) end
  for i, r in ipairs(ex.rows) do
    L[#L + 1] = string.format("  %s %10s %10s %10s  %s", pad(r, nw), num(ex.Phi[i]), num(ex.gamma[i]),
                              num(ex.lambda[i]), ex.meaning[i])
  end

  -- the partition and the partial velocities
  L[#L + 1] = ""
  L[#L + 1] = "partition (gcp, kane: paper 000 eq 10-13): dependent " ..
              table.concat(ex.partition.dependent, " ") .. "; independent " ..
              table.concat(ex.partition.independent, " ")
  if ex.dof > 0 then
    L[#L + 1] = "partial velocities B (v = B v_i, Phi_q B = 0: eq 22-23)"
    matrix(L, ex.coordinates, ex.partition.independent, ex.B)
  end

  -- what the multipliers are physically
  L[#L + 1] = ""
  L[#L + 1] = "reactions (on body2, global; -Phi_q' lambda restricted to its coordinates)"
  for _, re in ipairs(ex.reactions) do
    local torque = type(re.torque) == "table" and vec(re.torque, "N m") or (num(re.torque) .. " N m")
    local line = string.format("  %s on '%s': force %s, torque about the joint point %s", re.joint,
                               re.body, vec(re.force, "N"), torque)
    if re.effort then line = line .. string.format(", drive effort %s", num(re.effort)) end
    L[#L + 1] = line
  end
  for i, r in ipairs(ex.rows) do
    if ex.active[i] then
      local what = ex.lambda_is[i]
      what = what:find("^no ") and what or ("-lambda is the " .. what)
      L[#L + 1] = string.format("  lambda[%s] = %s: %s", r, num(ex.lambda[i]), what)
    end
  end

  -- the linearization at this state (linearize = true): its equations term by term
  if ex.linear then
    L[#L + 1] = ""
    L[#L + 1] = "linearization (m:linearize): x = (" .. table.concat(ex.linear.coordinates, ", ") ..
                " and their rates), M q'' + Cv q' + K q = 0 about this state"
    local report = require("mbd.linear").report(ex.linear)
    for line in report:gmatch("[^\n]+") do
      if not line:find("^mbd%.Linear") then L[#L + 1] = line end
    end
  end

  -- contacts and frictional joints (paper 001): the regime that chose the active rows
  if #ex.contacts > 0 then
    L[#L + 1] = ""
    L[#L + 1] = "contacts (slip: gap row active, friction -mu N along the slip in Q; stick: " ..
                "rolling rows active too; open: no row)"
    local words = { slip = "sliding", stick = "sticking", open = "open" }
    for _, c in ipairs(ex.contacts) do
      if c.kind == "joint" then
        L[#L + 1] = string.format("  joint %s: %s, friction %s", c.name, words[c.mode], num(c.friction))
      else
        L[#L + 1] = string.format("  %s: %s, normal force %s N, friction %s N, gap %s m, slip speed %s m/s",
                                  c.name, words[c.mode], num(c.normal), num(c.friction), num(c.gap),
                                  num(c.slip))
      end
    end
  end
  return table.concat(L, "\n")
end

-- s:explain: the Udwadia–Kalaba equation at the state, term by term
local function system_text(ex)
  local L = {}
  local n, m = #ex.coordinates, #ex.constraints
  local nh = 0
  for _, c in ipairs(ex.constraints) do if c.kind == "holonomic" then nh = nh + 1 end end
  L[#L + 1] = string.format("explain at t = %s s: system '%s', %d coordinates, %d constraint%s " ..
    "(%d holonomic, %d nonholonomic), Udwadia-Kalaba (paper 004 eq 5, no stabilization)",
    num(ex.t), ex.system, n, m, m == 1 and "" or "s", nh, m - nh)
  L[#L + 1] = ""
  L[#L + 1] = "coordinates: q, qd, applied force F, free motion a = M^-1 F (eq 2), qdd (eq 5), " ..
              "constraint force Qc = M (qdd - a)" .. (is_diagonal(ex.M) and ", mass M (diagonal)" or "")
  coordinate_table(L, ex.coordinates, { "q", "qd", "F", "a", "qdd", "Qc" },
                   { ex.q, ex.qd, ex.F, ex.a, ex.qdd, ex.Qc }, ex.M)
  if m == 0 then
    L[#L + 1] = ""
    L[#L + 1] = "no constraints: qdd = a"
    return table.concat(L, "\n")
  end
  local names = {}
  for k = 1, m do names[k] = "c" .. k end
  L[#L + 1] = ""
  L[#L + 1] = "constraints: A qdd = b (holonomic h: the second derivative, eq 3; nonholonomic: the first, eq 4)"
  for k, c in ipairs(ex.constraints) do
    L[#L + 1] = string.format("  c%d %s: %s = 0", k, c.kind, c.text)
  end
  L[#L + 1] = ""
  L[#L + 1] = "the matrix A (rows: constraints, columns: coordinates)"
  matrix(L, names, ex.coordinates, ex.A)
  L[#L + 1] = ""
  L[#L + 1] = "per constraint: value (h or r), rate, b, b - A a (what the free motion misses), A qdd - b"
  columns(L, names, { "value", "rate", "b", "b - A a", "A qdd - b" },
          { ex.value, ex.rate, ex.b, ex.resid, ex.acc })
  L[#L + 1] = ""
  L[#L + 1] = "qdd = a + M^(-1/2) (A M^(-1/2))^+ (b - A a): the constraints add Qc = M (qdd - a), " ..
              "the force of Gauss's least constraint"
  return table.concat(L, "\n")
end

local mt = { __name = "mbd.Explain", __tostring = function(ex) return ex.text end }

return function(ex)
  ex.text = ex.system and system_text(ex) or text(ex)
  return setmetatable(ex, mt)
end
