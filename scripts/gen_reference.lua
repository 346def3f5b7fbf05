-- Write the language reference from help()'s data (stdlib/mbd/help.lua, rendered by
-- stdlib/mbd/reference.lua):
--   mbd scripts/gen_reference.lua docs/reference.md
-- Run it after changing a help topic; tests/docs/reference.lua fails while the file is stale.
local file = arg and arg[1]
assert(file, "usage: mbd scripts/gen_reference.lua docs/reference.md")
local text = require("mbd.reference")()
local f = assert(io.open(file, "w"))
f:write(text)
f:close()
print(string.format("wrote %s (%d lines)", file, select(2, text:gsub("\n", "\n"))))
