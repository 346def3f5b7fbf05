-- Lua-level tests: result files are written whole or not at all.  CSV and figures go to a
-- temporary sibling renamed onto the final name when complete; a failed write names the path and
-- the reason and leaves what was there before.  Run with the mbd program:
--   mbd tests/lua/test_files.lua DIR   (DIR: a scratch folder; cases: see harness.lua)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")
local dir = arg[1] or "."

local function pendulum_run()
  local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
  return m:simulate { t_end = 0.1, formulation = "kane", output_every = 0.01 }
end

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

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
  -- the final name is a directory: the finished file cannot replace it; the message names the
  -- path and the reason, the temporary sibling is removed
  {"a failed write names the path and leaves nothing", function()
     local path = dir .. "/files_dir.csv"
     os.execute("mkdir -p '" .. path .. "'")
     local ok, e = pcall(pendulum_run().write_csv, pendulum_run(), path, {"b.x"})
     return { ok, e:match("csv '.-files_dir%.csv': cannot replace it with the finished file: ")
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

H.run(cases, "files")
