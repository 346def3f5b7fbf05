-- The case runner itself (harness.lua): malformed cases are refused before anything runs (a
-- positional tolerance, no statement of what is checked, ...), and a case that should fail does.
-- Run by lua_runner (the harness needs no mbd module), so it also shows the harness works there.
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

local function one() return 1 end
local function boom() error("boom") end

-- the message of H.check on a valid case (nil when the case passes)
local function verdict(case)
  H.validate(case)
  return H.check(case)
end

-- a check: the verdict is a failure message containing `text`
local function fails_with(text)
  return function(msg)
    return type(msg) == "string" and msg:find(text, 1, true) ~= nil,
           "verdict " .. tostring(msg) .. ", expected a failure with '" .. text .. "'"
  end
end

local cases = {
  -- malformed cases raise, positioned at the call (here: the line of each fn)
  { "a positional tolerance",
    function() H.validate({ "x", one, {}, true, 1, 1e-9 }) end, {}, false,
    "case 'x': a sixth element; write a tolerance as tol = ..." },
  { "H.run refuses it before running anything",
    function() H.run({ { "x", boom, {}, true, 1, 0 } }) end, {}, false, "a sixth element" },
  { "nothing stated",
    function() H.validate({ "x", one, {}, true }) end, {}, false,
    "states exactly one of expected (5th element), check = function or only_runs = \"why\"" },
  { "two statements",
    function() H.validate({ "x", one, {}, true, 1, check = one }) end, {}, false,
    "states exactly one of" },
  { "a function as expected",
    function() H.validate({ "x", one, {}, true, one }) end, {}, false,
    "a function as expected; write it as check = ..." },
  { "only_runs without a reason",
    function() H.validate({ "x", one, {}, true, only_runs = " " }) end, {}, false,
    "only_runs must say why the result is not compared" },
  { "an unknown key",
    function() H.validate({ "x", one, {}, true, 1, tolerance = 1 }) end, {}, false,
    "unknown key 'tolerance'" },
  { "tol with nothing numeric",
    function() H.validate({ "x", one, {}, true, "a", tol = 1 }) end, {}, false,
    "tol given but no number is expected" },
  { "line on a case that must succeed",
    function() H.validate({ "x", one, {}, true, 1, line = 1 }) end, {}, false,
    "line applies to a case that must raise" },
  { "an error case without a message",
    function() H.validate({ "x", boom, {}, false }) end, {}, false,
    "a case that must raise expects a message" },

  -- the verdicts: what passes (nil) and what fails (a message)
  { "a number within the default tolerance", verdict,
    { { "x", function() return 1 + 1e-13 end, {}, true, 1 } }, true, H.NIL },
  { "a number outside it", verdict,
    { { "x", function() return 1 + 1e-11 end, {}, true, 1 } }, true,
    check = fails_with("expected 1") },
  { "tol widens it", verdict,
    { { "x", function() return 1.05 end, {}, true, 1, tol = 0.1 } }, true, H.NIL },
  { "a table with an extra entry", verdict,
    { { "x", function() return { 1, 2 } end, {}, true, { 1 } } }, true,
    check = fails_with("[2] is not expected") },
  { "a table entry off", verdict,
    { { "x", function() return { 1, 3 } end, {}, true, { 1, 2 } } }, true,
    check = fails_with("[2] got 3") },
  { "H.NIL: nil passes", verdict,
    { { "x", function() return nil end, {}, true, H.NIL } }, true, H.NIL },
  { "H.NIL: a value fails", verdict,
    { { "x", function() return 0 end, {}, true, H.NIL } }, true,
    check = fails_with("expected nil") },
  { "a printed form", verdict,
    { { "x", function() return setmetatable({}, { __tostring = function() return "obj" end }) end,
        {}, true, "obj" } }, true, H.NIL },
  { "a string is not a number", verdict,
    { { "x", function() return 5 end, {}, true, "5" } }, true, check = fails_with("got 5") },
  { "check must return true itself", verdict,
    { { "x", one, {}, true, check = function(v) return v end } }, true,
    check = fails_with("check failed") },
  { "only_runs passes a run", verdict,
    { { "x", one, {}, true, only_runs = "a reason" } }, true, H.NIL },
  { "only_runs fails a raise", verdict,
    { { "x", boom, {}, true, only_runs = "a reason" } }, true, check = fails_with("raised:") },
  { "an error at another line fails", verdict,
    { { "x", function()
          error("late")
        end, {}, false, "late" } }, true, check = fails_with("does not start with") },
  { "an error without the expected text fails", verdict,
    { { "x", boom, {}, false, "bang" } }, true, check = fails_with("lacks 'bang'") },
  { "no error where one is expected fails", verdict,
    { { "x", one, {}, false, "boom" } }, true, check = fails_with("no error raised") },
}

H.run(cases, "harness")
