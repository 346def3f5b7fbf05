-- Lua-level tests of spatial models (dim = 3): mbd.rot, and bad input that must raise a clear
-- message naming the object and the script line.  Run with the mbd program:
--   mbd tests/lua/test_spatial_errors.lua          (cases: see harness.lua)
local H = dofile((debug.getinfo(1, "S").source:match("^@(.*)[/\\]") or ".") .. "/harness.lua")

local rot = mbd.rot
local s2 = math.sqrt(0.5)

-- a fresh spatial model with one body "b" for each case
local function model()
  local m = mbd.model { name = "bad", dim = 3 }
  local b = m:body { name = "b", mass = 1, inertia = {1, 1, 1}, pos = {1, 0, 0} }
  return m, b
end

local cases = {
  -- rotations
  {"axis_angle z 90", rot.axis_angle, {{0, 0, 2}, math.pi / 2}, true, {s2, 0, 0, s2}},
  {"axis_angle zero angle", rot.axis_angle, {{1, 2, 3}, 0}, true, {1, 0, 0, 0}},
  {"rotate x about z", rot.rotate, {rot.axis_angle({0, 0, 1}, math.pi / 2), {1, 0, 0}}, true,
   {0, 1, 0}},
  {"euler_zyx yaw only", rot.euler_zyx, {math.pi / 2, 0, 0}, true, {s2, 0, 0, s2}},
  {"compose two quarter turns", function()
     local q = rot.axis_angle({1, 0, 0}, math.pi / 2)
     return rot.compose(q, q)
   end, {}, true, {0, 1, 0, 0}},
  {"from_axes quarter turn about z", rot.from_axes, {{0, 1, 0}, {-1, 0, 0}}, true, {s2, 0, 0, s2}},
  {"from_axes y made perpendicular", function()
     local p = rot.from_axes({0, 0, 2}, {1, 0, 1})
     return rot.rotate(p, {0, 1, 0})
   end, {}, true, {1, 0, 0}},
  -- each call written in a Lua function, so the message must also name this script's line
  {"from_axes parallel", function() return rot.from_axes({1, 0, 0}, {2, 0, 0}) end, {}, false,
   "parallel to the x axis"},
  {"axis_angle zero axis", function() return rot.axis_angle({0, 0, 0}, 1) end, {}, false,
   "mbd.rot.axis_angle: the axis is zero"},
  {"axis_angle 2-vector", function() return rot.axis_angle({0, 1}, 1) end, {}, false,
   "argument 1 (axis) expects 3 numbers"},

  -- a 2-vector in a 3-D model
  {"body pos 2-vector", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = {1, 1, 1}, pos = {1, 2} }
   end, {}, false, "body: field 'pos' expects 3 numbers, got 2 (body 'c'; the model is spatial",
   line = 2},
  {"joint at 2-vector", function()
     local m, b = model()
     m:spherical { name = "S", body1 = m.ground, at1 = {0, 0}, body2 = b }
   end, {}, false, "spherical: field 'at1' expects 3 numbers, got 2 (spherical 'S'", line = 2},
  {"force value 2-vector", function()
     local m, b = model()
     m:force { body = b, at = {0, 0, 0}, value = {1, 2} }
   end, {}, false, "force: field 'value' expects 3 numbers, got 2 (force on body 'b'", line = 2},
  {"torque as a number", function()
     local m, b = model()
     m:torque { body = b, value = 3 }
   end, {}, false, "torque on body 'b': field 'value' expects 3 numbers {tx, ty, tz}", line = 2},
  {"gravity 2-vector", function() mbd.model { dim = 3, gravity = {0, -9.81} } end, {}, false,
   "model: field 'gravity' expects 3 numbers"},

  -- axes
  {"zero axis", function()
     local m, b = model()
     m:revolute { name = "R", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {0, 0, 0},
                  axis1 = {0, 0, 1}, axis2 = {0, 0, 0} }
   end, {}, false, "revolute 'R': axis2 is zero", line = 2},
  {"missing axis2", function()
     local m, b = model()
     m:cylindrical { name = "C", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {0, 0, 0},
                     axis1 = {0, 0, 1} }
   end, {}, false, "cylindrical 'C': missing field 'axis2'", line = 2},
  {"universal not crossed", function()
     local m, b = model()
     m:universal { name = "U", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {0, 0, 0},
                   axis1 = {0, 0, 1}, axis2 = {0, 1, 1} }
   end, {}, false, "universal 'U': axis1 and axis2 must be perpendicular", line = 2},
  {"universal crossed", function()
     local m, b = model()
     return m:universal { name = "U", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {0, 0, 0},
                   axis1 = {0, 0, 1},
                          axis2 = {0, 1, 0} }.name
   end, {}, true, "U"},

  -- inertia
  {"inertia not positive definite", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = {1, 1, 1, 2, 0, 0} }
   end, {}, false, "body 'c': inertia tensor is not positive definite", line = 2},
  {"inertia triangle", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = {1, 1, 3} }
   end, {}, false, "body 'c': inertia violates the triangle inequality", line = 2},
  {"inertia triangle with products", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = {1.5, 1.5, 1.2, 1.2, 0, 0} }
   end, {}, false, "principal moments {0.3, 1.2, 2.7}", line = 2},
  {"inertia 4 numbers", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = {1, 1, 1, 0} }
   end, {}, false, "body 'c': field 'inertia' expects 3 numbers {Ixx, Iyy, Izz} or 6", line = 2},
  {"planar inertia in spatial", function()
     local m = model()
     m:body { name = "c", mass = 1, inertia = 2 }
   end, {}, false, "body 'c': field 'inertia' expects 3 numbers", line = 2},

  -- drives and springs on joints without that coordinate
  {"drive on spherical", function()
     local m, b = model()
     local S = m:spherical { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {-1, 0, 0} }
     m:drive { joint = S, position = 0 }
   end, {}, false, "drive on spherical 'S'", line = 3},
  {"rotational spring on universal", function()
     local m, b = model()
     local U = m:universal { name = "U", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {-1, 0, 0},
                             axis1 = {0, 0, 1}, axis2 = {0, 1, 0} }
     m:rotational_spring { joint = U, k = 1 }
   end, {}, false, "rotational_spring on universal 'U'", line = 4},

  -- a spatial run records the spatial channels
  {"spatial channels", function()
     local m, b = model()
     m:spherical { name = "S", body1 = m.ground, at1 = {0, 0, 0}, body2 = b, at2 = {-1, 0, 0} }
     local run = m:simulate { t_end = 0.01 }
     local want = {"b.z", "b.e0", "b.e3", "b.vz", "b.wx", "b.wz", "S.fz", "S.tx", "energy",
                   "violation"}
     local have = {}
     for _, c in ipairs(run.channels) do have[c] = true end
     for _, c in ipairs(want) do
       if not have[c] then return "missing " .. c end
     end
     return "ok"
   end, {}, true, "ok"},
}

H.run(cases, "spatial models: rotations and bad input")
