-- Typing into the mbd program's REPL (standard input piped), for the tests of the documentation's
-- REPL sessions.  Files repl.in, repl.out and repl.err are left in the current (scratch) folder.
--   local repl = dofile(here .. "/repl.lua")
--   local out, err = repl.type(program, {"1 + 1"})   -- what the REPL wrote on stdout and stderr
--   local ok, why = repl.session(program, text)      -- a session shown as "mbd> line" + output
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/../lua/harness.lua")
local repl = {}

-- type `lines` (a list) into the REPL of the mbd program `program`: its standard output and error
function repl.type(program, lines)
  H.write("repl.in", table.concat(lines, "\n") .. "\n")
  os.execute(H.q(program) .. " < repl.in > repl.out 2> repl.err")
  return H.read("repl.out", true), H.read("repl.err", true)
end

-- a session: the lines after the prompts (mbd> or >>) are typed, the others are the expected
-- output; true, or false and what differs
function repl.session(program, text)
  local typed, want = {}, {}
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local input = line:match("^mbd> (.*)$") or line:match("^>> (.*)$")
    if input then typed[#typed + 1] = input else want[#want + 1] = line end
  end
  local out, err = repl.type(program, typed)
  if err ~= "" then return false, "the REPL printed on standard error:\n" .. err end
  local expected = #want > 0 and table.concat(want, "\n") .. "\n" or ""
  if out ~= expected then
    return false, "the REPL printed:\n" .. out .. "expected:\n" .. expected
  end
  return true
end

return repl
