-- Helpers of the MBS benchmark library scripts (examples/benchmarks/A0*.lua): Jacobi's elliptic
-- sine for the pendulum's closed form, error measures against a reference, the result table.
local B = {}

-- the folder of the calling script (to dofile a sibling)
function B.dir()
  return (arg and arg[0] and arg[0]:match("^(.*)[/\\]")) or "."
end

-- sn(u | m) and K(m) by the arithmetic-geometric mean (Abramowitz & Stegun 16.4 and 17.6):
-- a₀ = 1, b₀ = √(1 − m), c₀ = √m; aₙ₊₁ = (aₙ + bₙ)/2, bₙ₊₁ = √(aₙbₙ), cₙ₊₁ = (aₙ − bₙ)/2 until
-- cₙ vanishes; φ_N = 2^N a_N u, φₙ₋₁ = (φₙ + asin(cₙ/aₙ sin φₙ))/2; sn = sin φ₀; K = π/(2 a_N)
function B.sn(u, m)
  local a, b, c = { 1 }, { math.sqrt(1 - m) }, { math.sqrt(m) }
  local n = 1
  while math.abs(c[n]) > 1e-17 and n < 40 do
    a[n + 1] = (a[n] + b[n]) / 2
    b[n + 1] = math.sqrt(a[n] * b[n])
    c[n + 1] = (a[n] - b[n]) / 2
    n = n + 1
  end
  local phi = 2 ^ (n - 1) * a[n] * u
  for k = n, 2, -1 do
    phi = (phi + math.asin(c[k] / a[k] * math.sin(phi))) / 2
  end
  return math.sin(phi), math.pi / (2 * a[n])
end

-- the largest |value − reference| over a run's samples at the given times (interpolated by the
-- run between its samples); ref(t) returns the reference values in the order of channels
function B.max_error(run, channels, times, ref)
  local worst = 0
  for _, t in ipairs(times) do
    local r = ref(t)
    for i, ch in ipairs(channels) do
      worst = math.max(worst, math.abs(run:value(ch, t) - r[i]))
    end
  end
  return worst
end

-- the largest |E(t) − E(0)| over the samples (energy channel)
function B.energy_drift(run, extra)
  local t, E = run:series("energy")
  local d = 0
  for i = 1, #t do
    d = math.max(d, math.abs(E[i] + (extra and extra(t[i]) or 0) - E[1]))
  end
  return d
end

-- the output steps of the library's error measure: n intervals over [0, T]
function B.grid(T, n)
  local g = {}
  for i = 0, n do g[#g + 1] = T * i / n end
  return g
end

-- the methods a benchmark compares: formulations, "formulation/integrator" for another
-- integrator than the base's (the short run: kane and gcp)
function B.methods(short)
  return short and { "kane", "gcp" }
    or { "kane", "gcp", "udwadia_kalaba", "augmented", "baumgarte", "kane/adams" }
end

-- run method f (a formulation, or "formulation/integrator"; options over base) with pcall: the
-- run and nil, or nil and the message
function B.try(m, base, f)
  local o = {}
  for k, v in pairs(base) do o[k] = v end
  local form, integ = f:match("^(.-)/(.*)$")
  o.formulation = form or f
  if integ and integ ~= "" then o.integrator = integ end
  local ok, r = pcall(m.simulate, m, o)
  if ok then return r end
  return nil, tostring(r)
end

-- a method that stopped: its row, and the start of its message printed
function B.stopped(rows, f, err)
  rows[#rows + 1] = { f = f .. " (stopped)" }
  print(f .. ": " .. err:sub(1, 200))
end

-- the result table, in the library's style: one row per formulation
function B.table(title, rows, cols)
  print(title)
  local head = {}
  for i, c in ipairs(cols) do head[i] = string.format(c.fmt_h or "%12s", c.name) end
  print(table.concat(head, " "))
  for _, r in ipairs(rows) do
    local line = {}
    for i, c in ipairs(cols) do
      local v = r[c.key]
      line[i] = v == nil and string.format(c.fmt_h or "%12s", "-") or string.format(c.fmt, v)
    end
    print(table.concat(line, " "))
  end
end

-- exit status 1 when a check failed (the short ctest versions), with the reason
function B.check(ok, what)
  if not ok then
    io.stderr:write("benchmark check failed: " .. what .. "\n")
    os.exit(1)
  end
end

return B
