-- the writers and their failure paths: a file of each kind whole, then with the disk "full" after
-- a few bytes (fuzz_disk), inside the fuzzer's scratch folder
local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "b", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
local r = m:simulate { t_end = 0.2, formulation = "kane", output_every = 0.01 }
for _, limit in ipairs { -1, 0, 7, 100, 5000 } do
  fuzz_disk(limit)
  pcall(r.write_csv, r, "run.csv", {"b.x"})
  pcall(mbd.plot, { run = r, y = {"b.x"}, file = "fig.png" })
  pcall(mbd.plot, { run = r, y = {"b.x"}, file = "fig.svg" })
  pcall(r.animate, r, { file = "page.html" })
  pcall(mbd.write_file, "text.txt", string.rep("x", 300))
  pcall(mbd.check_writable, "text.txt")
end
fuzz_disk(-1)
