-- The page of run:animate in a real browser (Debian's headless Chromium):
--   mbd test_viewer.lua PNG_PROBE WORKDIR
-- A compound pendulum swings from the horizontal; its page must load with no error, show the
-- pendulum's box where the run says it is (pixel position of its centroid at t = 0 and at t_end,
-- through an exact orthographic view), and the two screenshots must differ.  A spatial top's page
-- must load with no error too.  The pages of lessons 6 and 7 (run by their own scripts) are drawn
-- as the models declare them: the disk is round (its silhouette's area against π r² within 2 %),
-- centred where the run puts it, on a drawn floor line, with the normal force's arrow above the
-- contact point; the flexible pendulum's beam starts at the pin and its tip is where the run puts
-- node 9 (3 px, 1 cm).  Exits 77 (ctest: skipped) with a message when chromium is not
-- installed: `bash scripts/setup.sh --deps` installs it.
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local probe, work = arg[1], arg[2]
assert(probe and work, "usage: mbd test_viewer.lua PNG_PROBE WORKDIR")
os.execute("mkdir -p '" .. work .. "'")

local function sh(cmd)
  local f = assert(io.popen(cmd .. " 2>&1"))
  local out = f:read("a")
  local ok, _, code = f:close()
  return out, ok and 0 or code
end

local chromium = sh("command -v chromium || command -v chromium-browser"):match("^(%S+)")
if not chromium then
  print("SKIP: chromium not found; the viewer test needs Debian's chromium (bash scripts/setup.sh --deps)")
  os.exit(77)
end

-- Chromium headless with software WebGL, no network, a fresh profile per call
local calls = 0
local function browse(url, what, size)
  calls = calls + 1
  local profile = string.format("%s/profile%d", work, calls)
  local flags = table.concat({
    "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader", "--disable-quic", "--no-first-run", "--disable-sync",
    "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
    "--enable-logging=stderr", "--v=0", "--user-data-dir=" .. profile,
    "--window-size=" .. (size or "800,600"), what }, " ")
  local out, code = sh(string.format("timeout 60 %s %s '%s'", chromium, flags, url))
  os.execute("rm -rf '" .. profile .. "'")
  return out, code
end

-- the page's report: status and errors (data-mbd-*), and the console's uncaught exceptions
local function load_report(file)
  local out = browse("file://" .. file .. "#t=0", "--dump-dom")
  local status = out:match('data%-mbd%-status="([^"]*)"')
  local errs = out:match('data%-mbd%-errors="([^"]*)"')
  local uncaught = {}
  for line in out:gmatch("[^\n]+") do
    if line:find("CONSOLE") and (line:find("Uncaught") or line:find("Error")) then
      uncaught[#uncaught + 1] = line
    end
  end
  return status, errs, uncaught
end

-- the pendulum: a 1 m rod pinned at the origin, released horizontal
local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
local rod = m:body { name = "rod", mass = 1, inertia = 1 / 12, pos = {0.5, 0}, angle = 0 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.5, 0} }
local run = m:simulate { t_end = 0.5, formulation = "kane", output_every = 0.01 }
local page = work .. "/pendulum.html"
run:animate { file = page, shapes = { rod = { box = {1, 0.1, 0.1} } }, trace = "rod" }

-- the view: x -1.5 .. 1.5, y -1.5 .. 0.5 in a 900 x 600 window (same aspect: 3 / 2)
local W, Hh, X0, X1, Y0, Y1 = 900, 600, -1.5, 1.5, -1.5, 0.5
local function expected_pixel(t)
  local x, y = run:value("rod.x", t), run:value("rod.y", t)
  return (x - X0) / (X1 - X0) * W, (Y1 - y) / (Y1 - Y0) * Hh
end
local function shot(t, name)
  local file = work .. "/" .. name .. ".png"
  os.remove(file)
  local hash = string.format("#t=%s&ui=0&highlight=rod&view=%g,%g,%g,%g", t, X0, X1, Y0, Y1)
  browse("file://" .. page .. hash, "--screenshot=" .. file, W .. "," .. Hh)
  return file
end
-- the magenta pixels of the highlighted body: their count and centroid
local function centroid(file, colour)
  local out = sh(string.format("'%s' centroid '%s' %s 40", probe, file, colour or "ff00ff"))
  local n, cx, cy = out:match("^(%d+) (%S+) (%S+)")
  return tonumber(n), tonumber(cx), tonumber(cy), out
end

local s0, s1
local cases = {
  { "the pendulum's page loads: status ready, no error", function()
      local status, errs, uncaught = load_report(page)
      if status ~= "ready" then return false, "status " .. tostring(status) end
      if errs ~= "[]" then return false, "errors " .. tostring(errs) end
      if #uncaught > 0 then return false, table.concat(uncaught, "\n") end
      return true
    end, {}, true, check = function(ok, msg) return ok, msg end },
  { "t = 0: the rod's centroid is where the run puts it (2 px)", function()
      s0 = shot(0, "t0")
      local n, cx, cy, raw = centroid(s0)
      local ex, ey = expected_pixel(0)
      if not n or n < 500 then return false, "magenta pixels: " .. raw end
      return math.abs(cx - ex) <= 2 and math.abs(cy - ey) <= 2,
             string.format("centroid (%.1f, %.1f), run (%.1f, %.1f)", cx, cy, ex, ey)
    end, {}, true, check = function(ok, msg) return ok, msg end },
  { "t_end: the rod has moved, and is where the run puts it (2 px)", function()
      s1 = shot("end", "tend")
      local n, cx, cy, raw = centroid(s1)
      local ex, ey = expected_pixel(run.t_end)
      local x0, y0 = expected_pixel(0)
      if not n or n < 500 then return false, "magenta pixels: " .. raw end
      if math.abs(ex - x0) + math.abs(ey - y0) < 50 then return false, "the rod barely moved" end
      return math.abs(cx - ex) <= 2 and math.abs(cy - ey) <= 2,
             string.format("centroid (%.1f, %.1f), run (%.1f, %.1f)", cx, cy, ex, ey)
    end, {}, true, check = function(ok, msg) return ok, msg end },
  { "the screenshots at t = 0 and t_end differ", function()
      local out = sh(string.format("'%s' diff '%s' '%s' 8", probe, s0, s1))
      local n = tonumber(out:match("^(%d+)"))
      return n ~= nil and n > 2000, "differing pixels: " .. out
    end, {}, true, check = function(ok, msg) return ok, msg end },
}

-- a spatial model's page: a top on a ball joint, with a trace and a given cylinder
local top = mbd.model { name = "top", dim = 3, gravity = {0, 0, -9.81} }
local rot = mbd.rot.axis_angle({1, 0, 0}, 0.5)
local e3 = mbd.rot.rotate(rot, {0, 0, 1})
local body = top:body { name = "top", mass = 0.5, inertia = {2e-4, 2e-4, 3e-4},
                        pos = {0.04 * e3[1], 0.04 * e3[2], 0.04 * e3[3]}, rot = rot,
                        omega = {300 * e3[1], 300 * e3[2], 300 * e3[3]} }
top:spherical { name = "tip", body1 = top.ground, at1 = {0, 0, 0}, body2 = body, at2 = {0, 0, -0.04} }
local trun = top:simulate { t_end = 0.5, formulation = "kane" }
local tpage = work .. "/top.html"
trun:animate { file = tpage, trace = { { body = body, at = {0, 0, 0.03} } },
               shapes = { top = { cylinder = {0.03, 0.02} } } }
cases[#cases + 1] = { "a spatial page loads: status ready, no error", function()
    local status, errs, uncaught = load_report(tpage)
    if status ~= "ready" then return false, "status " .. tostring(status) end
    if errs ~= "[]" then return false, "errors " .. tostring(errs) end
    if #uncaught > 0 then return false, table.concat(uncaught, "\n") end
    return true
  end, {}, true, check = function(ok, msg) return ok, msg end }

-- the measures of the lessons' pages are printed (ctest -V shows them)
local function measured(ok, msg)
  print("  " .. tostring(msg))
  return ok, msg
end

-- the lessons' own scripts, their pages written into work
local root = here .. "/../.."
local function lesson(script)
  local saved = arg
  arg = { [1] = work }
  local out = io.output()
  io.output(work .. "/lesson.log")  -- the lessons' printed lines are not the test's
  dofile(root .. "/examples/tutorial/" .. script)
  io.output():close()
  io.output(out)
  arg = saved
  return _G.run  -- the lesson's global (a local run above is the pendulum's)
end
local print0 = print
print = function() end
local crun = lesson("06_contact.lua")
local frun = lesson("07_flexible.lua")
print = print0

-- lesson 6 at t = 0.5 s: a 2 m × 1.333 m view centred on the disk, 900 × 600 (450 px/m)
local cx, cy = crun:value("disk.x", 0.5), crun:value("disk.y", 0.5)
local CX0, CX1, CY0, CY1 = cx - 1, cx + 1, cy - 0.6, cy + 0.7333333
local function cpix(x, y) return (x - CX0) / (CX1 - CX0) * W, (CY1 - y) / (CY1 - CY0) * Hh end
local function cshot(name, extra, dx)
  local file = work .. "/" .. name .. ".png"
  os.remove(file)
  dx = dx or 0
  local hash = string.format("#t=0.5&ui=0&view=%.9g,%.9g,%.9g,%.9g%s", CX0 + dx, CX1 + dx, CY0, CY1,
                             extra)
  browse("file://" .. work .. "/06_contact.html" .. hash, "--screenshot=" .. file, W .. "," .. Hh)
  return file
end
cases[#cases + 1] = { "lesson 6: the disk is round (silhouette area / π r² within 2 %) and where the run puts it", function()
    local file = cshot("contact_disk", "&highlight=disk&forces=0")
    local n, x, y, raw = centroid(file)
    if not n or n < 100 then return false, "magenta pixels: " .. raw end
    local ppm = W / (CX1 - CX0)
    local area = math.pi * (0.2 * ppm) ^ 2
    local ex, ey = cpix(cx, cy)
    local ratio = n / area
    return math.abs(ratio - 1) < 0.02 and math.abs(x - ex) <= 1 and math.abs(y - ey) <= 1,
           string.format("area %d px / π r² %.0f px = %.4f; centroid (%.1f, %.1f), run (%.1f, %.1f)",
                         n, area, ratio, x, y, ex, ey)
  end, {}, true, check = measured }
cases[#cases + 1] = { "lesson 6: the floor is drawn: its band spans the view, its top edge at y = 0", function()
    local file = cshot("contact_floor", "&forces=0", 2.5)  -- beside the disk, whose rim's edge
    -- pixels could pass for the band's colour
    -- the grey band on the floor's material side; its top row: the farthest of its pixels from a
    -- point far below the view (1e6 px: the top row within 0.1 px)
    local out = sh(string.format("'%s' far '%s' b4bac4 8 %g 1e6 1", probe, file, W / 2))
    local n, dmax = out:match("^(%d+) (%S+)")
    n, dmax = tonumber(n), tonumber(dmax)
    local _, ey = cpix(0, 0)
    local top = n and 1e6 - dmax + 0.5
    return n and n > 10 * W and math.abs(top - ey) <= 2.5,  -- the floor line covers its top row
           string.format("band pixels %s, top row %.1f, floor row %.1f", tostring(n), top or 0 / 0, ey)
  end, {}, true, check = measured }
cases[#cases + 1] = { "lesson 6: the normal force's arrow stands on the contact point", function()
    local file = cshot("contact_forces", "")
    local n, x, y, raw = centroid(file, "1f8a3a")
    local px, py = cpix(crun:value("c.px", 0.5), crun:value("c.py", 0.5))
    return n and n > 50 and math.abs(x - px) <= 2 and y < py,
           string.format("green pixels %s at (%.1f, %.1f), contact point (%.1f, %.1f)",
                         tostring(n), x or 0 / 0, y or 0 / 0, px, py)
  end, {}, true, check = measured }

-- lesson 7 at t = 0.5 s: the x-z plane from -y, x -1.5 .. 1.5, z -1.5 .. 0.5 (300 px/m)
local function fpix(x, z) return (x - X0) / (X1 - X0) * W, (Y1 - z) / (Y1 - Y0) * Hh end
cases[#cases + 1] = { "lesson 7: the beam starts at the pin, its tip where the run puts node 9 (3 px)", function()
    local file = work .. "/flexible.png"
    os.remove(file)
    local hash = string.format("#t=0.5&ui=0&highlight=arm&axes=xz&view=%g,%g,%g,%g", X0, X1, Y0, Y1)
    browse("file://" .. work .. "/07_flexible.html" .. hash, "--screenshot=" .. file, W .. "," .. Hh)
    local px, py = fpix(0, 0)
    local Wend = 6  -- the far end: pixels within 6 px of the farthest one
    local out = sh(string.format("'%s' far '%s' ff00ff 40 %g %g %g", probe, file, px, py, Wend))
    local n, dmax, fx, fy, behind = out:match("^(%d+) (%S+) (%S+) (%S+) (%d+)")
    n, dmax, fx, fy, behind = tonumber(n), tonumber(dmax), tonumber(fx), tonumber(fy), tonumber(behind)
    if not n or n < 500 then return false, "magenta pixels: " .. out end
    -- the tip: the far end's centroid, moved by half its depth along the beam
    local ux, uy = fx - px, fy - py
    local l = math.sqrt(ux * ux + uy * uy)
    local tx, ty = fx + Wend / 2 * ux / l, fy + Wend / 2 * uy / l
    local ex, ey = fpix(frun:value("arm.node9.x", 0.5), frun:value("arm.node9.z", 0.5))
    local err = math.sqrt((tx - ex) ^ 2 + (ty - ey) ^ 2)
    return err <= 3 and behind == 0,
           string.format("tip (%.1f, %.1f) px, run (%.1f, %.1f) px: %.2f px = %.2f mm; %d pixels behind the pin",
                         tx, ty, ex, ey, err, 1000 * err / (W / (X1 - X0)), behind)
  end, {}, true, check = measured }

H.run(cases, "viewer: run:animate in headless Chromium")
