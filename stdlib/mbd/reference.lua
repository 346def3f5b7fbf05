-- The language reference (docs/reference.md) written from help()'s own data (stdlib/mbd/help.lua),
-- so the two cannot disagree: require("mbd.reference")() returns the Markdown text.
--   mbd scripts/gen_reference.lua docs/reference.md      regenerate the file
-- tests/docs/reference.lua fails when the committed file differs from this output.
local help = require "mbd.help"

-- the anchor GitHub makes of a heading: lower case, punctuation dropped, spaces as '-'
local function anchor(heading)
  return (heading:lower():gsub("[^%w%s_%-]", ""):gsub("%s", "-"))
end

-- object topics (Model, Run ...) are headed "Model (object)": no clash with "model"
local function heading(name)
  return name:match("^%u") and (name .. " (object)") or name
end

local function link(name)
  return string.format("[%s](#%s)", name, anchor(heading(name)))
end

local function cell(s)
  return (s:gsub("|", "\\|"))
end

-- help text as Markdown: lines indented by two spaces (aligned lists) become a text block
local function body(text)
  local out, block = {}, {}
  local function flush()
    if #block > 0 then
      out[#out + 1] = "```text\n" .. table.concat(block, "\n") .. "\n```"
      block = {}
    end
  end
  local para = {}
  local function flush_para()
    if #para > 0 then
      out[#out + 1] = table.concat(para, "\n")
      para = {}
    end
  end
  for line in (text .. "\n"):gmatch("(.-)\n") do
    if line:match("^  ") then
      flush_para()
      block[#block + 1] = line:sub(3)
    else
      flush()
      if line == "" then flush_para() else para[#para + 1] = line end
    end
  end
  flush()
  flush_para()
  return table.concat(out, "\n\n")
end

local function topic(name)
  local e = help.topics[name]
  local L = {}
  L[#L + 1] = "### " .. heading(name)
  L[#L + 1] = ""
  L[#L + 1] = "`" .. e.title .. "`"
  L[#L + 1] = ""
  L[#L + 1] = body(e.text)
  if e.fields then
    L[#L + 1] = ""
    L[#L + 1] = "| field | default | unit | meaning |"
    L[#L + 1] = "|---|---|---|---|"
    for _, f in ipairs(e.fields) do
      L[#L + 1] = string.format("| `%s` | %s | %s | %s |", cell(f[1]), cell(f[2]),
                                f[3] ~= "" and cell(f[3]) or "", cell(f[4]))
    end
  end
  if e.returns then
    L[#L + 1] = ""
    L[#L + 1] = "Returns " .. e.returns:gsub("\n", " "):gsub("%s+$", "")
  end
  if e.errors and #e.errors > 0 then
    L[#L + 1] = ""
    L[#L + 1] = "Errors, for example:"
    L[#L + 1] = ""
    for _, msg in ipairs(e.errors) do L[#L + 1] = "- `" .. msg .. "`" end
  end
  if e.example and e.example ~= "" then
    L[#L + 1] = ""
    local ctx = help.example_context and help.example_context[name] or "planar"
    local note
    if help.sessions and help.sessions[name] then
      note = "Example (" .. help.sessions[name] .. "):"
    elseif help.not_run and help.not_run[name] then
      note = "Example (" .. help.not_run[name] .. ", not a script):"
    elseif help.planned and help.planned[name] then
      note = string.format("Example (paper %s, not implemented yet: it stops with an error " ..
                           "until the paper lands):", help.planned[name])
    elseif ctx == "none" then
      note = "Example (runs as it is):"
    else
      note = string.format("Example (runs after the set-up [%s](#%s)):", ctx,
                           anchor("set-up " .. ctx))
    end
    L[#L + 1] = note
    L[#L + 1] = ""
    -- the marker tests/docs/snippets.lua reads: how the block runs
    if help.sessions and help.sessions[name] then
      L[#L + 1] = "<!-- doctest: session -->"
    elseif not (help.not_run and help.not_run[name]) and ctx ~= "none" then
      L[#L + 1] = "<!-- doctest: after " .. ctx .. " -->"
    end
    local shown_as_text = (help.not_run and help.not_run[name]) or (help.sessions and help.sessions[name])
    L[#L + 1] = "```" .. (shown_as_text and "text" or "lua")
    L[#L + 1] = e.example
    L[#L + 1] = "```"
  end
  if e.see and #e.see > 0 then
    local links = {}
    for i, s in ipairs(e.see) do links[i] = link(s) end
    L[#L + 1] = ""
    L[#L + 1] = "See also: " .. table.concat(links, ", ")
  end
  return table.concat(L, "\n")
end

return function()
  local L = {}
  L[#L + 1] = "# The mbd language reference"
  L[#L + 1] = ""
  L[#L + 1] = "Every name of the scripting language, its fields with their defaults and units, " ..
    "the errors it reports, and an example that runs. This page is written from the help " ..
    "the program itself shows (`help(\"simulate\")` at the REPL prints the same text): " ..
    "`mbd scripts/gen_reference.lua docs/reference.md` regenerates it from " ..
    "`stdlib/mbd/help.lua`, and a test fails when the two differ. The names are stable: " ..
    "scripts written against them keep working. The [tutorial](tutorial/README.md) " ..
    "teaches the same language by example."
  L[#L + 1] = ""
  L[#L + 1] = "## Conventions"
  L[#L + 1] = ""
  L[#L + 1] = "SI units throughout. Vectors are Lua arrays: `{x, y}` in a planar model, " ..
    "`{x, y, z}` in a spatial one. A body's frame has its origin at its centre of mass; `at` " ..
    "points are in that frame. Planar angles are absolute, in radians, counter-clockwise from " ..
    "the global +x axis, and recorded continuously (never wrapped to ±π). Euler parameters are " ..
    "`{e0, e1, e2, e3}` with e0 the scalar part. Forces, gravity, velocities and angular " ..
    "velocities are in the global frame unless a field says otherwise. Every constructor takes " ..
    "one table; an unknown key, a missing required key or a value of the wrong type or size is " ..
    "an error that names it (`revolute: unknown field 'bodyy'`)."
  L[#L + 1] = ""
  L[#L + 1] = "## Contents"
  L[#L + 1] = ""
  for _, g in ipairs(help.groups) do
    local links = {}
    for i, name in ipairs(g[2]) do links[i] = link(name) end
    L[#L + 1] = string.format("- **%s**: %s", g[1], table.concat(links, ", "))
  end
  L[#L + 1] = "- [set-ups of the examples](#set-ups-of-the-examples)"
  for _, g in ipairs(help.groups) do
    L[#L + 1] = ""
    L[#L + 1] = "## Names: " .. g[1]
    for _, name in ipairs(g[2]) do
      L[#L + 1] = ""
      L[#L + 1] = topic(name)
    end
  end
  L[#L + 1] = ""
  L[#L + 1] = "## Set-ups of the examples"
  L[#L + 1] = ""
  L[#L + 1] = "Each example above runs as it is shown after one of these set-ups (in a fresh " ..
    "state; `tests/docs/examples.lua` runs them all from the help, and `tests/docs/snippets.lua` " ..
    "runs the blocks of this page)."
  for _, ctx in ipairs(help.context_order) do
    local c = help.contexts[ctx]
    L[#L + 1] = ""
    L[#L + 1] = "### set-up " .. ctx
    L[#L + 1] = ""
    L[#L + 1] = c.text:sub(1, 1):upper() .. c.text:sub(2) .. "."
    if c.code ~= "" then
      L[#L + 1] = ""
      L[#L + 1] = "<!-- doctest: set-up " .. ctx .. " -->"
      L[#L + 1] = "```lua"
      L[#L + 1] = c.code
      L[#L + 1] = "```"
    end
  end
  return table.concat(L, "\n") .. "\n"
end
