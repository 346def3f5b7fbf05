-- Lua-level tests: the compiled-code cache runs only code mbd generated for this model.
--  - its key is exact: a change in the last bit of any model value (mass, inertia, lengths, axes,
--    spring constants, gravity) derives and compiles again;
--  - a cache folder that others can write (mode 1777, a lab's shared cache) or that another user
--    owns is not used: the run takes the tape with a warning naming the folder, and a shared object
--    planted there (with a constructor that prints) never runs, even with a matching digest;
--  - in a private folder, an object or a derived source changed after mbd wrote it (its SHA-256 no
--    longer the recorded one) or made writable by others is not loaded: it is built again.
-- Each case runs the mbd program in a child process with its own MBD_CACHE (cases: harness.lua):
--   mbd tests/lua/test_cache.lua DIR MBD   (DIR: a scratch folder; MBD: the program)
local H = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/harness.lua")
local dir = arg[1] or "."
local mbd_program = arg[2] or "mbd"

local sh, q, write = H.sh, H.q, H.write
local read = H.read
local function fresh(name, mode)
  local d = dir .. "/" .. name
  assert(sh("rm -rf " .. q(d) .. " && mkdir -p " .. q(d) .. " && chmod " .. mode .. " " .. q(d)))
  return d
end
local function ls(d)
  local p = io.popen("ls -A " .. q(d))
  local t = {}
  for n in p:lines() do t[#t + 1] = n end
  p:close()
  return t
end

-- a pendulum with a slider and a spring in relative coordinates; values from the table v
local MODEL = [[
local V = { mass = 1.25, inertia = 0.0625, length = 0.75, ax = 0.6, ay = 0.8, k = 120.5, c = 0.75,
            rest = 0.35, g = -9.81, mass2 = 0.5 }
local function run(v, code)
  local m = mbd.model { name = "k", dim = 2, gravity = {0, v.g} }
  local b = m:body { name = "b", mass = v.mass, inertia = v.inertia, pos = {v.length, 0} }
  m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-v.length, 0} }
  local c = m:body { name = "c", mass = v.mass2, inertia = 0.01,
                     pos = {v.length + 0.3 * v.ax, 0.3 * v.ay} }
  m:translational { name = "S", body1 = b, at1 = {0, 0}, body2 = c, at2 = {0, 0},
                    axis1 = {v.ax, v.ay} }
  m:spring { body1 = b, at1 = {0, 0}, body2 = c, at2 = {0, 0}, k = v.k, c = v.c, length = v.rest }
  return m:simulate { t_end = 0.2, formulation = "relative", code = code, quiet = true }
end
]]

-- run a script in the mbd program with MBD_CACHE = cache; its output (stdout and stderr)
local function child(cache, body)
  local file = dir .. "/cache_child.lua"
  write(file, MODEL .. body)
  local p = io.popen("MBD_CACHE=" .. q(cache) .. " " .. q(mbd_program) .. " " .. q(file) .. " 2>&1")
  local out = p:read("a")
  p:close()
  return out
end

local ONE = [[
local r = run(V, "compiled")
print("code", r.stats.code, "hit", r.stats.cache_hit, "x", string.format("%.15g", r:value("c.x", 0.2)))
for _, w in ipairs(r.warnings) do print("warning", w) end
]]

-- a shared object like mbd's, with a constructor that prints when it is loaded
local function plant(src_c, so)
  local c = dir .. "/cache_planted.c"
  write(c, read(src_c) .. '\n#include <stdio.h>\n__attribute__((constructor)) static void planted(void)'
        .. ' { fputs("PLANTED CODE RAN\\n", stderr); }\n')
  assert(sh("cc -shared -fPIC -O2 -o " .. q(so) .. " " .. q(c) .. " -lm"))
end

-- the .so of the model's equations in a private cache filled once (its name is the key)
local function filled()
  local d = fresh("cache_private", "700")
  child(d, ONE)
  local so
  for _, n in ipairs(ls(d)) do
    if n:match("%.so$") then
      so = n
    end
  end
  return d, assert(so, "no shared object of the model's equations in the cache")
end

local function sha256_of(path) return mbd.sha256(read(path)) end

local cases = {
  { "a change in the last bit of each model value derives and compiles again", function()
      local d = fresh("cache_key", "700")
      local out = child(d, [[
print("base", run(V, "compiled").stats.cache_hit, run(V, "compiled").stats.cache_hit)
for _, name in ipairs { "mass", "inertia", "length", "ax", "ay", "k", "c", "rest", "g", "mass2" } do
  local v = {}
  for k, x in pairs(V) do v[k] = x end
  v[name] = V[name] * (1 + 2^-52)
  assert(v[name] ~= V[name])
  local r = run(v, "compiled")
  print("value", name, r.stats.code, r.stats.cache_hit)
end
]])
      local rederived = 0
      for _, code, hit in out:gmatch("value%s+(%S+)%s+(%S+)%s+(%S+)") do
        if code == "compiled" and hit == "false" then rederived = rederived + 1 end
      end
      local first, second = out:match("base%s+(%S+)%s+(%S+)")
      return { first, second, rederived }
    end, {}, true, {"false", "true", 10} },

  { "a world-writable cache folder is not used and its planted object does not run", function()
      local priv, so = filled()
      local shared = fresh("cache_shared", "1777")
      -- the attacker's object under the right name, with a digest that matches it
      plant(priv .. "/" .. so:gsub("%.so$", ".c"), shared .. "/" .. so)
      write(shared .. "/" .. so .. ".sha256", sha256_of(shared .. "/" .. so))
      sh("cp " .. q(priv) .. "/rel-*.c " .. q(shared))
      local out = child(shared, ONE)
      return { out:find("PLANTED", 1, true) == nil, out:match("code\t(%S+)"),
               out:find("cache folder '" .. shared .. "' not used: writable by others (mode 1777)",
                        1, true) ~= nil }
    end, {}, true, {true, "tape", true} },

  { "a cache folder owned by another user is not used", function()
      local other
      if sh("test \"$(id -u)\" -eq 0") then
        other = fresh("cache_other", "700")
        assert(sh("chown 12345 " .. q(other)))
      else
        other = "/usr"   -- root's, which a normal user's mbd must not use (nor write)
      end
      local out = child(other, ONE)
      return { out:match("code\t(%S+)"), out:find("not used: owned by uid", 1, true) ~= nil }
    end, {}, true, {"tape", true} },

  { "a replaced object in a private cache is built again, not run", function()
      local priv, so = filled()
      plant(priv .. "/" .. so:gsub("%.so$", ".c"), priv .. "/" .. so)   -- the digest file is kept
      assert(sh("chmod 700 " .. q(priv .. "/" .. so)))
      local out = child(priv, ONE)
      local again = child(priv, ONE)
      local code, hit = out:match("code\t(%S+)\thit\t(%S+)")
      return { out:find("PLANTED", 1, true) == nil, code, hit, again:match("hit\t(%S+)"),
               again:find("PLANTED", 1, true) == nil }
    end, {}, true, {true, "compiled", "false", "true", true} },

  { "an object others can write is built again", function()
      local priv, so = filled()
      assert(sh("chmod 777 " .. q(priv .. "/" .. so)))
      local out = child(priv, ONE)
      return { out:match("hit\t(%S+)"), (io.popen("stat -c %a " .. q(priv .. "/" .. so)):read("l")) }
    end, {}, true, {"false", "700"} },

  { "a changed derived source is derived again: the equations stay the model's", function()
      local priv = filled()
      local base = child(priv, ONE):match("\tx\t(%S+)")
      -- change a weight (mass times gravity) inside the kept source (its digest line no longer matches)
      local changed = 0
      for _, n in ipairs(ls(priv)) do
        if n:match("^rel%-.*%.c$") then
          local p = priv .. "/" .. n
          local text, k = read(p):gsub("12%.262500000000001", "1.0")
          write(p, text)
          changed = changed + k
          assert(sh("chmod 600 " .. q(p)))
        end
      end
      local out = child(priv, ONE)
      return { changed > 0, out:match("\tx\t(%S+)") == base, out:match("code\t(%S+)") }
    end, {}, true, {true, true, "compiled"} },
}

H.run(cases, "cache")
