-- Lua-level tests: a full disk leaves no partial file from any writer.  Every writer (write_csv,
-- plot PNG and SVG, the heat map, animate, export_c, modes:save, write_matrices, write_file,
-- mbd.sweep) is pointed at a file that already holds "old": each must fail naming the file and
-- "No space left on device", leave the old contents as they were and no temporary beside them;
-- the sweep returns its results instead (or refuses before computing when its checkpoint cannot
-- be written).  Run by full_disk.sh, which makes the full disk:
--   mbd test_full_disk.lua DIR prepare          the old files
--   mbd test_full_disk.lua DIR check            after DIR was filled (a small tmpfs, as root) or
--                                               with MBD_TEST_WRITE_LIMIT=1000 (writes fail after
--                                               1000 bytes, as on a disk that fills meanwhile)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")
local dir, mode = arg[1], arg[2]

local names = { "run.csv", "fig.png", "fig.svg", "heat.png", "page.html", "exp/equations.c",
                "beam.modes", "M.mtx", "text.txt", "sweep.csv" }

local read = H.read

if mode == "prepare" then
  mbd.mkdir(dir .. "/exp")
  for _, n in ipairs(names) do
    local f = assert(io.open(dir .. "/" .. n, "w"))
    f:write("old\n")
    f:close()
  end
  print("prepared")
  return
end

local function pendulum(t_end)
  local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
  return m, m:simulate { t_end = t_end, formulation = "kane", output_every = 0.01 }
end

-- the names in dir (and dir/exp) holding ".part-": temporaries left behind
local function leftovers()
  local p = io.popen("ls -a '" .. dir .. "' '" .. dir .. "/exp'")
  local n = 0
  for name in p:lines() do
    if name:find(".part-", 1, true) then n = n + 1 end
  end
  p:close()
  return n
end

local m, run = pendulum(20)   -- 2001 samples: every file is larger than 1000 bytes
local fe = mbd.fem.beam { length = 1, elements = 4, E = 210e9, G = 80.8e9, rho = 7850, A = 4e-4,
                          Iy = 1.333e-8, Iz = 1.333e-8, J = 2.25e-8 }
local writers = {
  { "run.csv", function(p) run:write_csv(p) end },
  { "fig.png", function(p) mbd.plot { run = run, y = {"b.x", "b.y"}, file = p } end },
  { "fig.svg", function(p) mbd.plot { run = run, y = {"b.x", "b.y"}, file = p } end },
  { "heat.png", function(p)
      mbd.plot { kind = "heatmap", x = {1, 2, 3}, y = {1, 2}, z = {{1, 2, 3}, {4, 5, 6}}, file = p }
    end },
  { "page.html", function(p) run:animate { file = p } end },
  { "exp/equations.c", function() m:export_c { dir = dir .. "/exp" } end },
  { "beam.modes", function(p) fe:modes { fixed = {1}, count = 4 }:save(p) end },
  { "M.mtx", function(p)
      fe:write_matrices { mass = p, stiffness = dir .. "/K.mtx", nodes = dir .. "/n.csv" }
    end },
  { "text.txt", function(p)
      local ok, e = mbd.write_file(p, string.rep("0123456789\n", 500))
      if not ok then error(e) end
    end },
}

local cases = {}
for _, w in ipairs(writers) do
  local name, fn = w[1], w[2]
  cases[#cases + 1] = { name .. ": the write fails, the old file stays whole", function()
      local path = dir .. "/" .. name
      local ok, e = pcall(fn, path)
      return { ok, tostring(e):find("No space left on device", 1, true) ~= nil, read(path) }
    end, {}, true, {false, true, "old\n"} }
end

-- the sweep: every point computed and returned with the reason the CSV is missing, or (when
-- even its checkpoint cannot be started) a refusal before the first point
cases[#cases + 1] = { "sweep.csv: the results are returned, the old file stays whole", function()
    local path = dir .. "/sweep.csv"
    local calls = 0
    local ok, res = pcall(mbd.sweep, { params = { a = { from = 1, to = 100, n = 100 } },
      workers = 1, progress = false, csv = path,
      fn = function(p) calls = calls + 1; return { x = p.a, y = p.a ^ 2 } end })
    local kept
    if ok then
      kept = #res.points == 100 and res.points[100].y == 1e4 and calls == 100
             and res.write_error:find("No space left on device", 1, true) ~= nil
    else
      kept = calls == 0 and res:find("checked before computing any point", 1, true) ~= nil
    end
    return { kept, read(path) }
  end, {}, true, {true, "old\n"} }

cases[#cases + 1] = { "no temporary file is left", function() return leftovers() end, {}, true, 0 }

H.run(cases, "full disk (" .. tostring(arg[3]) .. ")")
