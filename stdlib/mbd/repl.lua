-- mbd.repl: what the REPL keeps from one entry to the next, and what Tab completes.
--
-- Session variables.  At a Lua prompt each entry is a chunk of its own, so `local m = ...` would
-- be gone on the next line.  The REPL keeps them: every chunk it runs has the session's
-- environment as its _ENV, and a top-level `local` statement of an entry is rewritten, before it
-- is compiled, into an assignment to session variables:
--   local a, b = f()          ->  _ENV("a", "b") a, b = f()
--   local x                   ->  _ENV("x") x = nil
--   local function g() end    ->  _ENV("g") function g() end
--   local k <const> = 5       ->  _ENV("k<const>") k = 5      (a later k = 6 is an error)
-- Calling the environment declares the names; the assignment that follows stores their values in
-- the session, where the entries after it find them.  The right-hand side is evaluated before the
-- values are stored, as for a local (`local x = x + 1` reads the previous x).  Reads look in the
-- session first, then in the globals; assignments to a name not declared in the session go to
-- the globals, as usual.  Left as they are (real locals of their entry): `local x <close>` (it is
-- closed when the entry ends), `local _ENV` (and the rest of that entry is not rewritten), and
-- every `local` inside a function, a loop or a block.  Only a statement-initial `local` at the
-- chunk's outer level is touched: the rewrite reads Lua's tokens (strings, long strings and
-- comments are skipped), counts the blocks opened by function/if/do/repeat and closed by
-- end/until, and keeps every line break, so error messages give the line that was typed.
-- Differences from a chunk's own locals, all at the outer level of one entry: a function defined
-- before `local x` in the same entry sees the session's x once it is declared; a session
-- variable set to nil reads as the global of the same name, if there is one.
--
-- Completion.  M.complete(word) lists what a word at the prompt can become: a global or session
-- name ("mbd.mo" -> "mbd.model"), a field of a table or of a DSL object ("run.st" ->
-- "run.stats"), a method after ':' ("m:re" -> "m:revolute", from the object's metatable; for the
-- DSL objects the methods are the table their __index function looks in, and their fields are
-- found by asking the object for each field name the help mentions).
local M = {}

-- the session --------------------------------------------------------------------------------------

-- a fresh session: its environment (the _ENV of the REPL's chunks) and the table of its variables
function M.session()
  local declared = {}       -- name -> "var" | "const" | "const-pending" (its first value not given)
  local vars = setmetatable({}, { __index = _G })
  local env = setmetatable({}, {
    __index = vars,
    __newindex = function(_, k, v)
      local d = declared[k]
      if d == nil then
        _G[k] = v
      elseif d == "const" then
        error(string.format("attempt to assign to const variable '%s'", tostring(k)), 2)
      else
        if d == "const-pending" then declared[k] = "const" end
        rawset(vars, k, v)
      end
    end,
    -- _ENV("a", "b<const>"): declare the names of a rewritten `local` statement
    __call = function(_, ...)
      for i = 1, select("#", ...) do
        local spec = select(i, ...)
        local name, attrib = spec:match("^([%a_][%w_]*)<(%a+)>$")
        if name then
          declared[name] = "const-pending"
        else
          declared[spec] = "var"
        end
      end
    end,
    __name = "mbd.repl session",
  })
  M.vars = vars
  return env, vars
end

-- the tokens of Lua source -------------------------------------------------------------------------

-- the next token of src at or after i: kind ("name", "string", "number", "op", "eof"), its text,
-- its first and last positions.  Comments and blanks are skipped.  Unfinished strings and long
-- brackets end at the end of the text (the compiler reports them, not this reader).
local function next_token(src, i)
  while true do
    local s = src:find("[^ \t\r\n\f\v]", i)
    if not s then return "eof", "", #src + 1, #src end
    i = s
    if src:sub(i, i + 1) == "--" then
      local eq = src:match("^%[(=*)%[", i + 2)
      if eq then
        local _, e = src:find("]" .. eq .. "]", i + 4 + #eq, true)
        i = (e or #src) + 1
      else
        local e = src:find("\n", i, true)
        i = (e or #src) + 1
      end
    else
      break
    end
  end
  local c = src:sub(i, i)
  if c:match("[%a_]") then
    local e = select(2, src:find("^[%w_]*", i + 1))
    return "name", src:sub(i, e), i, e
  end
  if c:match("%d") or (c == "." and src:sub(i + 1, i + 1):match("%d")) then
    local e = i
    while true do
      local d = src:sub(e + 1, e + 1)
      if d:match("[%w_.]") then
        e = e + 1
      elseif (d == "+" or d == "-") and src:sub(e, e):match("[eEpP]") then
        e = e + 1
      else
        break
      end
    end
    return "number", src:sub(i, e), i, e
  end
  if c == '"' or c == "'" then
    local e = i + 1
    while e <= #src do
      local d = src:sub(e, e)
      if d == "\\" then
        e = e + 2
      elseif d == c or d == "\n" then
        break
      else
        e = e + 1
      end
    end
    return "string", src:sub(i, e), i, math.min(e, #src)
  end
  if c == "[" then
    local eq = src:match("^%[(=*)%[", i)
    if eq then
      local _, e = src:find("]" .. eq .. "]", i + 2 + #eq, true)
      e = e or #src
      return "string", src:sub(i, e), i, e
    end
  end
  for _, op in ipairs { "...", "..", "::", "==", "~=", "<=", ">=", "<<", ">>", "//" } do
    if src:sub(i, i + #op - 1) == op then return "op", op, i, i + #op - 1 end
  end
  return "op", c, i, i
end
M.next_token = next_token

local opens = { ["function"] = true, ["if"] = true, ["do"] = true, ["repeat"] = true }
local closes = { ["end"] = true, ["until"] = true }

-- the line breaks in src between positions a and b, as a string of "\n"
local function breaks(src, a, b)
  return (src:sub(a, b):gsub("[^\n]", ""))
end

-- M.rewrite(src): src with its outer-level `local` statements turned into session variables (see
-- the top of this file), or nil when it has none to turn
function M.rewrite(src)
  local out, from, changed = {}, 1, false
  local depth, i = 0, 1
  while true do
    local kind, text, s, e = next_token(src, i)
    if kind == "eof" then break end
    i = e + 1
    if kind == "name" then
      if opens[text] then
        depth = depth + 1
      elseif closes[text] then
        depth = math.max(depth - 1, 0)
      elseif text == "local" and depth == 0 then
        local k2, t2, s2, e2 = next_token(src, i)
        if k2 == "name" and t2 == "function" then
          -- local function f: declare f, keep `function f ...` (its body is counted from here)
          local k3, t3 = next_token(src, e2 + 1)
          if k3 == "name" then
            out[#out + 1] = src:sub(from, s - 1)
            out[#out + 1] = string.format('_ENV(%q)', t3) .. breaks(src, s, s2 - 1) .. " "
            from, changed = s2, true
          end
        else
          -- local NAME [<attrib>] {, NAME [<attrib>]} [= explist]
          local names, specs, keep = {}, {}, false
          local j, last = i, e
          while true do
            local kn, tn, _, en = next_token(src, j)
            if kn ~= "name" then keep = true; break end
            names[#names + 1] = tn
            local spec = tn
            j, last = en + 1, en
            local ka, ta, _, ea = next_token(src, j)
            if ka == "op" and ta == "<" then
              local _, tattr, _, eattr = next_token(src, ea + 1)
              local _, tgt, _, egt = next_token(src, eattr + 1)
              if tattr ~= "const" or tgt ~= ">" then keep = true; break end
              spec = tn .. "<const>"
              j, last = egt + 1, egt
              ka, ta, _, ea = next_token(src, j)
            end
            specs[#specs + 1] = string.format("%q", spec)
            if tn == "_ENV" then keep = true; break end
            if ka == "op" and ta == "," then
              j = ea + 1
            else
              break
            end
          end
          if keep then
            -- `local x <close>`, `local _ENV` or something the compiler will refuse: as it is;
            -- after a local _ENV the calls to the session's _ENV would reach the new one
            if names[#names] == "_ENV" then break end
          else
            local ka, ta = next_token(src, last + 1)
            out[#out + 1] = src:sub(from, s - 1)
            out[#out + 1] = "_ENV(" .. table.concat(specs, ", ") .. ") " ..
                            table.concat(names, ", ") .. breaks(src, s, last)
            if not (ka == "op" and ta == "=") then
              out[#out + 1] = " = nil"
            end
            out[#out + 1] = " "
            from, changed, i = last + 1, true, last + 1
          end
        end
      end
    end
  end
  if not changed then return nil end
  out[#out + 1] = src:sub(from)
  return table.concat(out)
end

-- completion ---------------------------------------------------------------------------------------

local keywords = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                   "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                   "true", "until", "while" }

-- the names the help mentions after a '.' or ':' (fields and methods of the DSL's objects), asked
-- of an object whose fields come from an __index function
local field_words
local function documented_fields()
  if field_words then return field_words end
  field_words = {}
  local ok, help = pcall(require, "mbd.help")
  if not ok or type(help) ~= "table" or type(help.topics) ~= "table" then return field_words end
  local seen = {}
  local function scan(s)
    if type(s) ~= "string" then return end
    for w in s:gmatch("[%w_%]%)][.:]([%a_][%w_]*)") do
      if not seen[w] then seen[w] = true; field_words[#field_words + 1] = w end
    end
  end
  for name, t in pairs(help.topics) do
    scan(name); scan(t.title); scan(t.text); scan(t.example); scan(t.returns)
    for _, f in ipairs(t.fields or {}) do scan(f[1]); scan(f[4]) end
  end
  for name in pairs(help.topics) do
    if name:match("^[%a_][%w_]*$") and not seen[name] then
      seen[name] = true; field_words[#field_words + 1] = name
    end
  end
  return field_words
end

local function is_name(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

-- add to out the names of v's fields starting with prefix (methods: only those that are
-- functions), through tables, metatables' __index tables and the DSL's __index functions
local function fields_of(v, prefix, methods, out, seen)
  seen = seen or {}
  if v == nil or seen[v] then return end
  seen[v] = true
  local function add(k, val)
    if is_name(k) and k:sub(1, #prefix) == prefix and (not methods or type(val) == "function"
        or (type(val) == "table" and debug.getmetatable(val) and debug.getmetatable(val).__call)) then
      out[k] = true
    end
  end
  if type(v) == "table" then
    for k, val in next, v do add(k, val) end
  end
  local mt = debug.getmetatable(v)
  if type(mt) ~= "table" then return end
  local index = rawget(mt, "__index")
  if type(index) == "table" then
    fields_of(index, prefix, methods, out, seen)
  elseif type(index) == "function" then
    -- the DSL's __index (interp/l_util.c lx_set_index): its first upvalue holds the methods
    local _, up = debug.getupvalue(index, 1)
    if type(up) == "table" then
      for k, val in next, up do add(k, val) end
    end
    if not methods then
      -- fields served by the function: the values it keeps with the object, and the field names
      -- the help mentions, each asked of the object
      if type(v) == "userdata" then
        local uv = debug.getuservalue(v, 1)
        if type(uv) == "table" then
          for k, val in next, uv do add(k, val) end
        end
      end
      for _, w in ipairs(documented_fields()) do
        if w:sub(1, #prefix) == prefix and not out[w] then
          local ok, val = pcall(function() return v[w] end)
          if ok and val ~= nil then out[w] = true end
        end
      end
    end
  end
end

-- M.complete(word [, env]): the sorted completions of a word typed at the prompt, each the whole
-- word ("mbd.model"); env is where names are read (default the last session, else _G)
function M.complete(word, env)
  env = env or M.vars or _G
  local out = {}
  local path, sep, prefix = word:match("^([%a_][%w_%.]*)([%.:])([%a_]?[%w_]*)$")
  if path then
    if path:find("%.%.") or path:sub(-1) == "." then return {} end
    local ok, v = pcall(function()
      local v = env
      for name in path:gmatch("[^.]+") do
        v = v[name]
        if v == nil then return nil end
      end
      return v
    end)
    if not ok or v == nil then return {} end
    if type(v) == "string" then v = string end
    fields_of(v, prefix, sep == ":", out)
  elseif word:match("^[%a_]?[%w_]*$") then
    prefix, path, sep = word, "", ""
    fields_of(M.vars or {}, prefix, false, out)
    fields_of(_G, prefix, false, out)
    for _, k in ipairs(keywords) do
      if k:sub(1, #prefix) == prefix then out[k] = true end
    end
  else
    return {}
  end
  local list = {}
  for k in pairs(out) do list[#list + 1] = path .. sep .. k end
  table.sort(list)
  return list
end

return M
