-- Lua-level tests: result files are written whole or not at all.  CSV and figures go to a
-- temporary sibling renamed onto the final name when complete; a failed write names the path and
-- the reason and leaves what was there before.  A symbolic link is written through (the file it
-- names is updated, the link stays); a FIFO is written directly and stays a FIFO; a folder is
-- refused.  mbd.sweep checks its CSV's destination before computing, keeps every point in a
-- checkpoint, goes on from it after an interruption, and returns its results when the CSV cannot
-- be written.  Run with the mbd program:
--   mbd tests/lua/test_files.lua DIR MBD   (DIR: a scratch folder; MBD: the program, for the
--                                            runs that must die or see another environment)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")
local dir = arg[1] or "."
local mbd_program = arg[2] or "mbd"

local function pendulum_run()
  local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
  return m:simulate { t_end = 0.1, formulation = "kane", output_every = 0.01 }
end

local read = H.read

-- the names in dir starting with prefix (ls: no lfs in the mbd program)
local function leftovers(prefix)
  local p = io.popen("ls -a '" .. dir .. "'")
  local n = 0
  for name in p:lines() do
    if name:sub(1, #prefix) == prefix and name:find(".part-", 1, true) then n = n + 1 end
  end
  p:close()
  return n
end

local cases = {
  {"write_csv writes the whole file, no temporary left", function()
     local path = dir .. "/files_ok.csv"
     pendulum_run():write_csv(path, {"b.x"})
     local text = read(path)
     local lines = 0   -- the data lines: the manifest's "# key: value" lines aside
     for line in text:gmatch("[^\n]*\n") do
       if line:sub(1, 1) ~= "#" then lines = lines + 1 end
     end
     return { lines, leftovers("files_ok.csv") }   -- header + 11 samples (t = 0 .. 0.1)
   end, {}, true, {12, 0}},
  -- the final name is a directory: refused before writing; the message names the path and the
  -- reason, no temporary sibling is left
  {"a failed write names the path and leaves nothing", function()
     local path = dir .. "/files_dir.csv"
     mbd.mkdir(path)
     local ok, e = pcall(pendulum_run().write_csv, pendulum_run(), path, {"b.x"})
     return { ok, e:match("csv '.-files_dir%.csv': cannot open for writing: Is a directory")
                  ~= nil, leftovers("files_dir.csv") }
   end, {}, true, {false, true, 0}},
  -- a write into a folder that does not exist: nothing is created, the reason is named
  {"a file in a missing folder", function()
     local ok, e = pcall(pendulum_run().write_csv, pendulum_run(), dir .. "/no/such/x.csv")
     return { ok, e:match("cannot open for writing: No such file or directory") ~= nil }
   end, {}, true, {false, true}},
  -- a figure: the final file appears whole, the temporary does not stay
  {"plot writes the whole figure, no temporary left", function()
     local path = dir .. "/files_fig.png"
     mbd.plot { run = pendulum_run(), y = {"b.x"}, file = path }
     local png = read(path)
     return { png:sub(2, 4), leftovers("files_fig.png") }
   end, {}, true, {"PNG", 0}},
}


-- shell helpers (no lfs in the mbd program)
local sh, q, write = H.sh, H.q, H.write
local function is_link(path) return sh("test -L " .. q(path)) end
local function is_fifo(path) return sh("test -p " .. q(path)) end

-- each writer of a run or a model, given a file name (write_csv, plot png/svg, heat map, animate,
-- write_file, sweep)
local writers = {
  { "csv", ".csv", function(path) pendulum_run():write_csv(path, {"b.x"}) end, "b.x" },
  { "png", ".png", function(path) mbd.plot { run = pendulum_run(), y = {"b.x"}, file = path } end,
    "PNG" },
  { "svg", ".svg", function(path) mbd.plot { run = pendulum_run(), y = {"b.x"}, file = path } end,
    "</svg>" },
  { "html", ".html", function(path) pendulum_run():animate { file = path } end, "</html>" },
  { "write_file", ".txt", function(path) assert(mbd.write_file(path, "text\n")) end, "text" },
  { "sweep", ".csv", function(path)
      mbd.sweep { params = { a = {1, 2} }, fn = function(p) return p.a end, workers = 1,
                  progress = false, csv = path }
    end, "a,value,error" },
}

for _, w in ipairs(writers) do
  local kind, ext, fn, mark = w[1], w[2], w[3], w[4]
  -- a link: the file it names gets the new contents, the link stays a link, nothing is left over
  cases[#cases + 1] = { kind .. ": a symbolic link is written through to its target", function()
      local target, link = dir .. "/files_target_" .. kind .. ext, dir .. "/files_link_" .. kind .. ext
      write(target, "old\n")
      os.remove(link)
      assert(sh("ln -s " .. q("files_target_" .. kind .. ext) .. " " .. q(link)))
      fn(link)
      local text = read(target)
      return { is_link(link), text:find(mark, 1, true) ~= nil, leftovers("files_target_" .. kind),
               leftovers("files_link_" .. kind) }
    end, {}, true, {true, true, 0, 0} }
  -- a link to a missing file creates that file
  cases[#cases + 1] = { kind .. ": a link to a missing file creates it", function()
      local target, link = dir .. "/files_new_" .. kind .. ext, dir .. "/files_dangling_" .. kind .. ext
      os.remove(target)
      os.remove(link)
      assert(sh("ln -s " .. q("files_new_" .. kind .. ext) .. " " .. q(link)))
      fn(link)
      return { is_link(link), (read(target) or ""):find(mark, 1, true) ~= nil }
    end, {}, true, {true, true} }
  -- a FIFO: written directly (a reader gets the whole file), still a FIFO afterwards
  cases[#cases + 1] = { kind .. ": a FIFO is written directly and stays a FIFO", function()
      local fifo = dir .. "/files_fifo_" .. kind .. ext
      local got = dir .. "/files_fifo_" .. kind .. ".got"
      os.remove(fifo)
      os.remove(got)
      assert(sh("mkfifo " .. q(fifo)))
      assert(sh("timeout 20 cat " .. q(fifo) .. " > " .. q(got) .. " &"))
      fn(fifo)
      -- the reader ends when the writer closes; give it up to 10 s to finish writing its copy
      local text
      for _ = 1, 200 do
        text = read(got) or ""
        if text:find(mark, 1, true) then break end
        sh("sleep 0.05")
      end
      return { is_fifo(fifo), text:find(mark, 1, true) ~= nil }
    end, {}, true, {true, true} }
end

-- NaN is written "nan" (printf's "-nan" for a NaN with its sign bit is not read back by every tool)
cases[#cases + 1] = { "sweep and write_csv write NaN as nan", function()
    local path = dir .. "/files_nan.csv"
    mbd.sweep { params = { a = {1} }, fn = function() return { x = 0 / 0, y = -(0 / 0) } end,
                workers = 1, progress = false, csv = path }
    local text = read(path)
    return { text:find("-nan", 1, true) == nil, select(2, text:gsub(",nan", "")) }
  end, {}, true, {true, 2} }

-- a sweep into a folder that does not exist stops before its first point
cases[#cases + 1] = { "sweep: an unwritable csv stops before computing any point", function()
    local calls = 0
    local ok, e = pcall(mbd.sweep, { params = { a = {1, 2, 3} }, workers = 1, progress = false,
      fn = function(p) calls = calls + 1; return p.a end, csv = dir .. "/no/such/folder/s.csv" })
    return { ok, calls, e:find("checked before computing any point", 1, true) ~= nil }
  end, {}, true, {false, 0, true} }

-- the script of a sweep run in another process: fn dies at the point a = die (os.exit: a crash,
-- a killed job), or never when die is nil; it prints the number of fn calls it made
local function sweep_script(path, die)
  return string.format([[
local calls = 0
local res = mbd.sweep { params = { a = { from = 1, to = 6, n = 6 }, b = {10, 20} }, workers = 1,
  progress = false, csv = %q,
  fn = function(p)
    calls = calls + 1
    if p.a == %s then os.exit(3) end
    return { s = p.a + p.b, n = 0 / 0 }
  end }
print("calls", calls, "resumed", res.resumed, "points", #res.points,
      "write_error", res.write_error ~= nil)
]], path, die and tostring(die) or "nil")
end

local function run_child(script, env)
  local file = dir .. "/files_child.lua"
  write(file, script)
  local p = io.popen((env or "") .. " " .. q(mbd_program) .. " " .. q(file) .. " 2>&1")
  local out = p:read("a")
  p:close()
  return out
end

-- an interrupted sweep keeps its points in the checkpoint; the same sweep again computes only
-- the others and writes the whole CSV, then removes the checkpoint
cases[#cases + 1] = { "sweep: an interrupted sweep resumes from its checkpoint", function()
    local path = dir .. "/files_resume.csv"
    os.remove(path)
    os.remove(path .. ".partial")
    run_child(sweep_script(path, 4))          -- dies at the 4th point: 3 points kept
    local kept = read(path .. ".partial") ~= nil and read(path) == nil
    local out = run_child(sweep_script(path, nil))
    local calls, resumed = out:match("calls%s+(%d+)%s+resumed%s+(%d+)")
    local text = read(path) or ""
    return { kept, tonumber(calls), tonumber(resumed), select(2, text:gsub("\n", "")),
             read(path .. ".partial") == nil }
  end, {}, true, {true, 9, 3, 13, true} }

-- a checkpoint of another sweep is not taken, nor overwritten: the sweep stops before computing
cases[#cases + 1] = { "sweep: the checkpoint of another sweep stops it before computing", function()
    local path = dir .. "/files_other.csv"
    write(path .. ".partial", "# mbd sweep checkpoint, version 1\n# sweep 0123\n")
    local calls = 0
    local ok, e = pcall(mbd.sweep, { params = { a = {1, 2} }, workers = 1, progress = false,
      fn = function(p) calls = calls + 1; return p.a end, csv = path })
    local before = calls
    local ok2 = pcall(mbd.sweep, { params = { a = {1, 2} }, workers = 1, progress = false,
      fn = function(p) calls = calls + 1; return p.a end, csv = path, resume = false })
    return { ok, before, e:find("checkpoint of another sweep", 1, true) ~= nil, ok2, calls,
             read(path .. ".partial") == nil }
  end, {}, true, {false, 0, true, true, 2, true} }

-- a CSV that cannot be written at the end (a full disk, injected): the sweep returns all its
-- results, says why in res.write_error, leaves no partial CSV and keeps the checkpoint
cases[#cases + 1] = { "sweep: a failed write returns the results and keeps the checkpoint", function()
    local path = dir .. "/files_full.csv"
    os.remove(path .. ".partial")
    write(path, "old\n")
    local out = run_child(sweep_script(path, nil), "MBD_TEST_WRITE_LIMIT=100")
    local calls, points = out:match("calls%s+(%d+).-points%s+(%d+)")
    return { tonumber(calls), tonumber(points), out:find("write_error%s+true") ~= nil,
             out:find("No space left on device", 1, true) ~= nil, read(path),
             read(path .. ".partial") ~= nil, leftovers("files_full.csv") }
  end, {}, true, {12, 12, true, true, "old\n", true, 0} }

-- mbd.mkdir: folders and their parents without a shell (a quote in the name is a character)
local function is_dir(path)
  local f = io.open(path .. "/.")
  if f then f:close() end
  return f ~= nil
end
local function mode_of(path)
  local p = io.popen("stat -c %a '" .. path:gsub("'", "'\\''") .. "'")
  local m = p:read("l")
  p:close()
  return m
end
cases[#cases + 1] = { "mkdir makes the folder and its parents, returns the path", function()
    local path = dir .. "/mk/it's a \"name\"; touch pwned/sub"
    return { mbd.mkdir(path) == path, is_dir(path), is_dir(dir .. "/mk"),
             io.open(dir .. "/mk/pwned") == nil }
  end, {}, true, {true, true, true, true}}
cases[#cases + 1] = { "mkdir of an existing folder, with slashes doubled and trailing", function()
    mbd.mkdir(dir .. "/mk2")
    return { mbd.mkdir(dir .. "/mk2") ~= nil, mbd.mkdir(dir .. "//mk2//x/") ~= nil,
             is_dir(dir .. "/mk2/x") }
  end, {}, true, {true, true, true}}
cases[#cases + 1] = { "mkdir: mode 0755 less the umask", function()
    mbd.mkdir(dir .. "/mk3/a")
    local p = io.popen("umask")
    local u = tonumber(p:read("l"), 8)
    p:close()
    local want = string.format("%o", 493 & ~u)   -- 493 = 0755
    return { mode_of(dir .. "/mk3") == want, mode_of(dir .. "/mk3/a") == want }
  end, {}, true, {true, true}}
cases[#cases + 1] = { "mkdir under a file names the part that is not a folder", function()
    mbd.write_file(dir .. "/mk_file", "x")
    mbd.mkdir(dir .. "/mk_file/sub")
  end, {}, false, "mk_file/sub': '" .. dir .. "/mk_file' exists and is not a folder", line = 2}
cases[#cases + 1] = { "mkdir of an empty path", function() mbd.mkdir("") end, {}, false,
  "mkdir: the path is empty"}
H.run(cases, "files")
