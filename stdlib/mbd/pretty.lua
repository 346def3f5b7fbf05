-- mbd.pretty(v [, opts]) -> string: a readable form of any value, for the REPL (which prints
-- tables with it) and for scripts (print(mbd.pretty(run.stats))).
--   tables     nested, keys sorted (the list part first, in order), on one line when that fits
--              in `width` characters, else one entry a line, indented; a table met again
--              inside itself prints as <cycle>
--   long lists the first `items` entries, then "… (N more)"
--   depth      below `depth` levels a table prints as {…} with its size
--   objects    values with a __tostring (models, runs, bodies) print through it, first line only
-- opts = { width = 100, items = 12 (list entries; named fields: 3 times as many), depth = 4,
--          indent = "  " }
local DEFAULTS = { width = 100, items = 12, depth = 4, indent = "  " }

local function scalar(v)
  local t = type(v)
  if t == "string" then
    return (string.format("%q", v):gsub("\\\n", "\\n"))
  elseif t == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    if v ~= v then return "nan" end
    return string.format("%.14g", v)
  end
  return nil
end

-- a value with its own printed form (metatable __tostring, or __name): one line of it
local function object(v)
  local mt = getmetatable(v)
  if type(mt) == "table" and (rawget(mt, "__tostring") or rawget(mt, "__name")) then
    local ok, s = pcall(tostring, v)
    s = ok and tostring(s) or "<" .. type(v) .. ">"
    local first, rest = s:match("^([^\n]*)(\n?)")
    return rest ~= "" and (first .. " …") or first
  end
  return nil
end

local function key_text(k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return k end
  return "[" .. (scalar(k) or tostring(k)) .. "]"
end

local function sorted_keys(t)
  local n = #t
  local keys = {}
  for k in pairs(t) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return n, keys
end

local function format(v, o, level, seen)
  local s = scalar(v)
  if s then return s end
  if type(v) ~= "table" then return object(v) or tostring(v) end
  local obj = object(v)
  if obj then return obj end
  if seen[v] then return "<cycle>" end
  local n, keys = sorted_keys(v)
  if n + #keys == 0 then return "{}" end
  if level >= o.depth then
    return string.format("{… %d entr%s}", n + #keys, n + #keys == 1 and "y" or "ies")
  end
  seen[v] = true
  local parts = {}
  local shown = math.min(n, o.items)
  for i = 1, shown do parts[#parts + 1] = format(v[i], o, level + 1, seen) end
  if n > shown then parts[#parts + 1] = string.format("… (%d more)", n - shown) end
  -- named fields: records are read whole, up to three times as many as list entries
  for i, k in ipairs(keys) do
    if i > 3 * o.items then
      parts[#parts + 1] = string.format("… (%d more keys)", #keys - i + 1)
      break
    end
    parts[#parts + 1] = key_text(k) .. " = " .. format(v[k], o, level + 1, seen)
  end
  seen[v] = nil
  -- one line when it fits and holds no line break, else one entry a line
  local line = "{ " .. table.concat(parts, ", ") .. " }"
  if #line + #o.indent * level <= o.width and not line:find("\n") then return line end
  local pad = o.indent:rep(level + 1)
  return "{\n" .. pad .. table.concat(parts, ",\n" .. pad) .. "\n" .. o.indent:rep(level) .. "}"
end

return function(v, opts)
  local o = {}
  for k, d in pairs(DEFAULTS) do o[k] = (opts and opts[k] ~= nil) and opts[k] or d end
  return format(v, o, 0, {})
end
