-- Every code block of the documentation runs as it is written (as doctest does): the Lua blocks of
-- README.md and docs/ (docs/*.md, docs/tutorial/*.md, docs/papers/*.md) run; a REPL session is
-- typed into the REPL; the lessons' printed output quoted in text blocks matches what the lesson
-- prints (its expected output, itself checked against the program on every OpenBLAS kernel).
--
-- A block runs on its own, in a fresh environment, unless the line just above its opening fence
-- is one of these markers (an HTML comment: the rendered page does not show it, so the text
-- around the block says the same to the reader):
--   <!-- doctest: continues -->        the block needs the page's blocks before it: it runs
--                                      together with them, as one chunk (their locals are its
--                                      locals), back to the last block without this marker
--   <!-- doctest: set-up NAME -->      the block is the set-up NAME (it also runs on its own)
--   <!-- doctest: after NAME -->       the block runs after the page's set-up NAME
--   <!-- doctest: session -->          a text block that is a REPL session: the lines after the
--                                      prompts "mbd> " and ">> " are typed, the others are what
--                                      mbd prints
--   <!-- doctest: output SCRIPT -->    a text block quoting what SCRIPT (a lesson, an example)
--                                      prints: each line must match a line of its expected output
--                                      (tests/docs/expected/ or tests/studies/expected/<name>.out)
--                                      under compare.lua's rules (numbers within its tolerances);
--                                      a line "..." is lines left out, a field "..." a field left
--                                      out, and a line ending in "..." the beginning of a line
--   <!-- doctest: fragment: REASON -->  a Lua block that is not a whole script (a sketch of the
--                                      shape of a call); it is not run, it is counted, and the
--                                      REASON must be given
-- Blocks in other languages (sh, text without a marker, untagged) are shell lines or output:
-- counted, not run.
--
-- Run by the mbd program in a scratch folder that holds out/tutorial/, as the lessons leave it:
--   mbd snippets.lua SOURCE_DIR           the last lines count what ran, what was skipped and why
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or "."
local H = dofile(here .. "/../lua/harness.lua")
local compare = dofile(here .. "/../studies/compare.lua")
local top = assert(arg and arg[1], "usage: mbd snippets.lua SOURCE_DIR")
local program = arg[-1]

local function read(file) return H.read(file, true) end
local q = H.q

-- the pages: README.md and the .md files of docs/, docs/tutorial/, docs/papers/
local pages = { "README.md" }
for _, folder in ipairs { "docs", "docs/tutorial", "docs/papers" } do
  local p = io.popen("ls " .. q(top .. "/" .. folder) .. " 2>/dev/null")
  for name in p:lines() do
    if name:match("%.md$") then pages[#pages + 1] = folder .. "/" .. name end
  end
  p:close()
end

-- the fenced blocks of a page: {lang, code, line (of the first code line), marker, arg}
local function blocks(text)
  local out, lines = {}, {}
  for l in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = l end
  local i = 1
  while i <= #lines do
    local fence, lang = lines[i]:match("^(```+)%s*([%w_-]*)%s*$")
    if fence then
      local marker, marg = nil, nil
      local above = lines[i - 1] or ""
      local m = above:match("^<!%-%-%s*doctest:%s*(.-)%s*%-%->%s*$")
      if m then
        marker, marg = m:match("^([%a-]+):?%s*(.*)$")
      end
      local code, j = {}, i + 1
      while j <= #lines and not lines[j]:match("^" .. fence .. "%s*$") do
        code[#code + 1] = lines[j]
        j = j + 1
      end
      out[#out + 1] = { lang = lang, code = table.concat(code, "\n"), line = i + 1,
                        marker = marker, arg = marg }
      i = j + 1
    else
      i = i + 1
    end
  end
  return out
end

-- run a list of blocks of one page as one chunk whose line numbers are the page's, after the
-- set-up blocks (run first, each its own chunk), in a fresh environment; print and io.write go
-- nowhere
local function run_blocks(page, setups, chain)
  local env = setmetatable({ print = function() end }, { __index = _G })
  io.output("/dev/null")
  local function run(list)
    local parts, line = {}, 1
    for _, b in ipairs(list) do
      parts[#parts + 1] = string.rep("\n", b.line - line) .. b.code
      line = b.line + select(2, b.code:gsub("\n", ""))
    end
    local f, err = load(table.concat(parts), "@" .. page, "t", env)
    if not f then return false, err end
    return pcall(f)
  end
  local ok, err = true, nil
  for _, s in ipairs(setups) do
    ok, err = run({ s })
    if not ok then break end
  end
  if ok then ok, err = run(chain) end
  io.output(io.stdout)
  return ok, err
end

-- a REPL session typed into the mbd program
local repl = dofile(here .. "/repl.lua")
local function run_session(text) return repl.session(program, text) end

-- the lines of a script's expected output with their tolerances (compare.lua's format): the
-- lessons' in tests/docs/expected/, the other examples' in tests/studies/expected/
local function expected_lines(script)
  local name = script:match("([^/]+)%.lua$") or "?"
  for _, folder in ipairs { "tests/docs/expected/", "tests/studies/expected/" } do
    local file = top .. "/" .. folder .. name .. ".out"
    local f = io.open(file, "rb")
    if f then
      local text = f:read("a")
      f:close()
      return compare.expected_lines(text, file)
    end
  end
  return nil, "no expected output of " .. script .. " in tests/docs/expected or tests/studies/expected"
end

-- the fields of a line (blank-separated)
local function fields(line)
  local out = {}
  for f in line:gmatch("%S+") do out[#out + 1] = f end
  return out
end

-- does the quoted line match the expected line w?  "..." as a field stands for that field of the
-- expected line; "..." ending the line for the rest of it
local function quoted_matches(text, w)
  local q, e = fields(text), fields(w.text)
  local open_end = q[#q] == "..." or (q[#q] or ""):match(",%.%.%.$")
  if open_end then
    if q[#q] == "..." then q[#q] = nil else q[#q] = q[#q]:gsub("%.%.%.$", "") end
  end
  if #q > #e or (not open_end and #q ~= #e) then return false end
  local want, got = {}, {}
  for k = 1, #q do
    local ek = e[k]
    if q[k] == "..." then
      -- the expected field, its own tolerance marks and "~" made plain
      local plain = ek == "~" and "0" or ek:gsub("\194\177.*$", "")
      want[k], got[k] = plain, plain
    else
      want[k], got[k] = ek, q[k]
    end
  end
  if open_end and #q < #e then want[#q] = want[#q]:gsub(",$", "") got[#q] = got[#q]:gsub(",$", "") end
  return compare.compare_line(table.concat(want, " "), table.concat(got, " "), w.tol) == nil
end

-- a quoted output: each line matches one of the expected lines
local function check_output(block, script)
  local want, err = expected_lines(script)
  if not want then return false, err end
  local bad = {}
  local n = block.line - 1
  for line in (block.code .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    local text = line:gsub("%s+$", "")
    if text ~= "" and not text:match("^%s*%.%.%.$") then
      local found = false
      for _, w in ipairs(want) do
        if quoted_matches(text, w) then found = true break end
      end
      if not found then bad[#bad + 1] = n .. ": " .. text end
    end
  end
  if #bad > 0 then
    return false, "lines not in what " .. script .. " prints:\n  " .. table.concat(bad, "\n  ")
  end
  return true
end

local cases = {}
local count = { lua = 0, chained = 0, after = 0, fragment = 0, session = 0, output = 0, other = 0 }
local fragments = {}
for _, page in ipairs(pages) do
  local list = blocks(read(top .. "/" .. page))
  local setups, chain = {}, {}
  for _, b in ipairs(list) do
    if b.marker == "set-up" then setups[b.arg] = b end
  end
  for _, b in ipairs(list) do
    local where = page .. ":" .. b.line
    local known = { continues = true, ["set-up"] = true, after = true, session = true,
                    output = true, fragment = true }
    if b.marker and not known[b.marker] then
      cases[#cases + 1] = { where .. ": a known marker", function()
          return false, "unknown doctest marker '" .. b.marker .. "'" end, {}, true,
        check = function(ok, msg) return ok, msg end }
    elseif b.marker == "fragment" then
      count.fragment = count.fragment + 1
      fragments[#fragments + 1] = where .. " (" .. b.arg .. ")"
      cases[#cases + 1] = { where .. ": a fragment gives its reason", function()
          return b.arg ~= "" and #b.arg >= 10, "a fragment marker needs a reason: " ..
                 "<!-- doctest: fragment: why this block is not a whole script -->" end, {}, true,
        check = function(ok, msg) return ok, msg end }
    elseif b.lang == "lua" then
      count.lua = count.lua + 1
      local run_setups, run_chain = {}, nil
      if b.marker == "continues" then
        count.chained = count.chained + 1
        chain[#chain + 1] = b
        run_chain = { table.unpack(chain) }
      else
        chain = { b }
        run_chain = { b }
      end
      if b.marker == "after" then
        count.after = count.after + 1
        run_setups = { setups[b.arg] }
      end
      cases[#cases + 1] = { where .. (b.marker and b.marker ~= "set-up" and
                                      (" (" .. b.marker .. " " .. (b.arg or "") .. ")") or ""),
        function()
          if b.marker == "after" and not setups[b.arg] then
            return false, "no block marked <!-- doctest: set-up " .. b.arg .. " --> in " .. page
          end
          if b.marker == "continues" and #run_chain == 1 then
            return false, "marked 'continues' but no Lua block comes before it"
          end
          local ok, err = run_blocks(page, run_setups, run_chain)
          return ok, tostring(err)
        end, {}, true, check = function(ok, msg) return ok, msg end }
    elseif b.marker == "session" then
      count.session = count.session + 1
      cases[#cases + 1] = { where .. " (a REPL session)", function() return run_session(b.code) end,
        {}, true, check = function(ok, msg) return ok, msg end }
    elseif b.marker == "output" then
      count.output = count.output + 1
      cases[#cases + 1] = { where .. " (the output of " .. b.arg .. ")", function()
          return check_output(b, b.arg) end, {}, true, check = function(ok, msg) return ok, msg end }
    else
      count.other = count.other + 1
    end
  end
end

-- the marker cannot hide much: fragments stay few
cases[#cases + 1] = { "fragments are few", function()
    return count.fragment <= 3 and count.fragment * 20 <= count.lua,
           count.fragment .. " fragments for " .. count.lua .. " Lua blocks"
  end, {}, true, check = function(ok, msg) return ok, msg end }

print(string.format("docs: %d Lua blocks run (%d with the blocks before them, %d after a set-up), " ..
                    "%d REPL sessions typed, %d quoted outputs checked against the lessons; %d " ..
                    "fragments not run; %d blocks of shell lines or other text not run",
                    count.lua, count.chained, count.after, count.session, count.output,
                    count.fragment, count.other))
for _, f in ipairs(fragments) do print("  fragment: " .. f) end
H.run(cases, "docs: every code block of README.md and docs/ runs as written")
