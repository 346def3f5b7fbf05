-- found by the fuzzer: a plot label with bytes that are not UTF-8 ("Bau\xff\xfegarte" in the
-- double pendulum's legend) made PLplot's cairo driver leak its text buffers (LeakSanitizer);
-- such text is now refused before drawing, with the offset of the first malformed byte
local ok, e = pcall(mbd.plot, { series = {{x = {1, 2}, y = {1, 2}, label = "Bau\xff\xfegarte"}},
                                file = "label.png" })
assert(not ok and e:find("not UTF-8 text", 1, true), e)
