-- The structure drawn from the code itself: who calls whom (symbols from `nm` on the object files
-- of a build) and who includes whom (the sources' #include "..." lines), for the engine's rooms
-- (engine/<room>/) and the interpreter (interp/), and the circles in it.
--
--   lua5.4 scripts/structure.lua BUILD [--dot FILE] [--max-circles N] [--root SRC]
--
-- Prints the rooms, the arrows between rooms (calls and includes, with one example each), the
-- circles between rooms and the circles between files (strongly connected components of more
-- than one file in the call graph; include circles among headers too), each with the edges that
-- close it. With --dot it also writes the room drawing in Graphviz's language. Exits 1 when there
-- are more circles (between rooms plus between files) than --max-circles (default: no limit), so
-- a test can hold the count where it is and lower it as circles go.
--
-- Assumptions: the build is CMake's (objects at BUILD/<folder>/CMakeFiles/<target>.dir/<file>.o
-- for the source <folder>/<file>, targets named mbd or mbd_*; other targets — benchmarks, tests —
-- are left out), or objects at BUILD/<folder>/<file>.o; the sources are below SRC (default: the
-- tree this script is in); an include names a header of the includer's own folder, a
-- public header (engine/include/mbd/), or a header whose file name is unique in the tree.
local build, dotfile, max_circles, root = nil, nil, nil, nil
do
  local i = 1
  while i <= #arg do
    if arg[i] == "--dot" then dotfile = arg[i + 1]; i = i + 2
    elseif arg[i] == "--max-circles" then max_circles = tonumber(arg[i + 1]); i = i + 2
    elseif arg[i] == "--root" then root = arg[i + 1]; i = i + 2
    else build = arg[i]; i = i + 1 end
  end
end
if not build then
  io.stderr:write("usage: lua5.4 scripts/structure.lua BUILD [--dot FILE] [--max-circles N]\n")
  os.exit(2)
end
root = root or arg[0]:match("^(.*)/scripts/[^/]*$") or "."

local function lines(cmd)
  local p = assert(io.popen(cmd))
  local t = {}
  for l in p:lines() do t[#t + 1] = l end
  p:close()
  return t
end

local function room_of(path) -- engine/model/rows.c -> model; interp/l_run.c -> interp
  local r = path:match("^engine/include/") and "include" or path:match("^engine/([^/]+)/")
  return r or path:match("^([^/]+)/")
end

-- objects of the engine's libraries and of the interpreter (benchmarks and tests left out)
local defined, undefined, files, objects = {}, {}, {}, {}
for _, o in ipairs(lines("cd '" .. build .. "' && find engine interp -name '*.o' 2>/dev/null | sort")) do
  local folder, target, file = o:match("^(.-)/CMakeFiles/([^/]+)%.dir/(.+)%.o$")
  if not folder or target == "mbd" or target:match("^mbd_[%w_]+$") then
    local src = folder and (folder .. "/" .. file) or o:gsub("%.o$", "")
    files[#files + 1] = src
    undefined[src] = {}
    objects[#objects + 1] = o
    objects[o] = src
  end
end
-- one nm for all the objects (an nm each is slow: each loads the LTO plugin)
if #objects > 0 then
  local quoted = {}
  for i, o in ipairs(objects) do quoted[i] = "'" .. o .. "'" end
  for _, l in ipairs(lines("cd '" .. build .. "' && nm -g -A " .. table.concat(quoted, " "))) do
    local o, kind, sym = l:match("^(.-):%x*%s+(%a)%s+(%S+)$")
    local src = o and objects[o]
    if src and kind == "U" then undefined[src][sym] = true
    elseif src then defined[sym] = defined[sym] or src end
  end
end

-- the call graph between files, and between rooms
local calls, why = {}, {}
for _, f in ipairs(files) do
  calls[f] = {}
  for sym in pairs(undefined[f]) do
    local g = defined[sym]
    if g and g ~= f then
      calls[f][g] = true
      why[f .. ">" .. g] = why[f .. ">" .. g] or sym
    end
  end
end

-- includes: sources and headers of engine/ and interp/
local headers_by_name, sources = {}, {}
for _, p in ipairs(lines("cd '" .. root .. "' && find engine interp -name '*.[ch]' 2>/dev/null | sort")) do
  sources[#sources + 1] = p
  if p:match("%.h$") then
    local n = p:match("([^/]+)$")
    headers_by_name[n] = headers_by_name[n] or {}
    table.insert(headers_by_name[n], p)
  end
end
local function resolve(from, name)
  local dir = from:match("^(.*)/[^/]+$")
  local cands = {dir .. "/" .. name, "engine/include/" .. name}
  for _, c in ipairs(cands) do
    local f = io.open(root .. "/" .. c)
    if f then f:close(); return c end
  end
  local base = name:match("([^/]+)$")
  local h = headers_by_name[base]
  if h and #h == 1 then return h[1] end
  return nil
end
local includes = {}
for _, p in ipairs(sources) do
  includes[p] = {}
  for l in io.lines(root .. "/" .. p) do
    local name = l:match('^%s*#%s*include%s*"([^"]+)"')
    if name then
      local h = resolve(p, name)
      if h and h ~= p then includes[p][h] = true end
    end
  end
end

-- strongly connected components (Tarjan) of a graph {node = {node = true}}
local function sccs(nodes, edges)
  local index, low, onstack, stack, out, n = {}, {}, {}, {}, {}, 0
  local function visit(v)
    n = n + 1; index[v] = n; low[v] = n
    stack[#stack + 1] = v; onstack[v] = true
    local succ = {}
    for w in pairs(edges[v] or {}) do succ[#succ + 1] = w end
    table.sort(succ)
    for _, w in ipairs(succ) do
      if not index[w] then visit(w); low[v] = math.min(low[v], low[w])
      elseif onstack[w] then low[v] = math.min(low[v], index[w]) end
    end
    if low[v] == index[v] then
      local comp = {}
      repeat
        local w = table.remove(stack); onstack[w] = nil; comp[#comp + 1] = w
      until w == v
      if #comp > 1 then table.sort(comp); out[#out + 1] = comp end
    end
  end
  table.sort(nodes)
  for _, v in ipairs(nodes) do if not index[v] then visit(v) end end
  table.sort(out, function(a, b) return a[1] < b[1] end)
  return out
end

-- rooms: arrows from calls and includes
local rooms, room_edges, room_why = {}, {}, {}
local function arrow(a, b, what)
  local ra, rb = room_of(a), room_of(b)
  rooms[ra] = true; rooms[rb] = true
  if ra == rb or rb == "include" then return end -- the public headers are everyone's
  room_edges[ra] = room_edges[ra] or {}
  room_edges[ra][rb] = true
  room_why[ra .. ">" .. rb] = room_why[ra .. ">" .. rb] or (a .. " " .. what .. " " .. b)
end
for f, gs in pairs(calls) do for g in pairs(gs) do arrow(f, g, "calls " .. why[f .. ">" .. g] .. " of") end end
for p, hs in pairs(includes) do for h in pairs(hs) do arrow(p, h, "includes") end end
local room_list = {}
for r in pairs(rooms) do room_list[#room_list + 1] = r end
table.sort(room_list)

local narrows = 0
print("rooms: " .. #room_list .. " (" .. table.concat(room_list, ", ") .. ")")
print("arrows between rooms (calls and includes):")
for _, r in ipairs(room_list) do
  local to = {}
  for s in pairs(room_edges[r] or {}) do to[#to + 1] = s end
  table.sort(to)
  for _, s in ipairs(to) do
    narrows = narrows + 1
    print(string.format("  %s -> %s   (%s)", r, s, room_why[r .. ">" .. s]))
  end
end

local function report(title, comps, edges, explain)
  print(title .. ": " .. #comps)
  for _, c in ipairs(comps) do
    local inside = {}
    for _, v in ipairs(c) do inside[v] = true end
    print("  " .. table.concat(c, " <-> "))
    for _, v in ipairs(c) do
      local to = {}
      for w in pairs(edges[v] or {}) do if inside[w] then to[#to + 1] = w end end
      table.sort(to)
      for _, w in ipairs(to) do print("      " .. v .. " -> " .. w .. explain(v, w)) end
    end
  end
  return #comps
end
local total = 0
total = total + report("circles between rooms", sccs(room_list, room_edges), room_edges,
  function(a, b) return "   (" .. room_why[a .. ">" .. b] .. ")" end)
total = total + report("circles between files (calls)", sccs(files, calls), calls,
  function(a, b) return "   (" .. why[a .. ">" .. b] .. ")" end)
total = total + report("circles between headers (includes)", sccs(sources, includes), includes,
  function() return "" end)
print(string.format("%d files, %d rooms, %d arrows between rooms, %d circles", #files,
  #room_list, narrows, total))

if dotfile then
  local f = assert(io.open(dotfile, "w"))
  f:write("digraph mbd {\n  rankdir=TB; node [shape=box];\n")
  for _, r in ipairs(room_list) do
    local to = {}
    for s in pairs(room_edges[r] or {}) do to[#to + 1] = s end
    table.sort(to)
    for _, s in ipairs(to) do f:write(string.format('  "%s" -> "%s";\n', r, s)) end
  end
  f:write("}\n")
  f:close()
end
if max_circles and total > max_circles then
  print(string.format("more circles (%d) than allowed (%d)", total, max_circles))
  os.exit(1)
end
