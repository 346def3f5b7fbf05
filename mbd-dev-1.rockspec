-- LuaRocks: build and install mbd from a clone of its repository
--   luarocks --lua-version 5.4 make mbd-dev-1.rockspec        (in the clone's top folder)
-- installs the module (require "mbd"), its Lua stdlib and the mbd program into the rocks tree.
-- It needs the Debian packages of scripts/setup.sh (liblua5.4-dev, liblapacke-dev,
-- libopenblas-dev, libsundials-dev, libsuitesparse-dev, libedit-dev, libplplot-dev,
-- plplot-driver-cairo, cmake).
rockspec_format = "3.0"
package = "mbd"
version = "dev-1"
source = {
  url = "git+file://.",  -- `luarocks make` builds the clone it runs in and fetches nothing
}
description = {
  summary = "A multibody-dynamics workbench: a C engine driven by mechanism scripts in Lua",
  detailed = [[
mbd implements the constrained-dynamics formulations of five research papers (Lagrange
multipliers, Baumgarte stabilization, coordinate partitioning, Kane's method, Udwadia-Kalaba)
behind a Lua DSL: models, bodies, joints, forces, simulate, plots, 3-D replays in the browser.]],
  license = "see the repository",
  labels = { "physics", "simulation", "dynamics" },
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    CMAKE_INSTALL_BINDIR = "$(BINDIR)",
    MBD_INSTALL_LUA_CDIR = "$(LIBDIR)",
    MBD_INSTALL_LUA_DIR = "$(LUADIR)",
    MBD_BUILD_TESTS = "OFF",
    MBD_SOURCE_STDLIB = "OFF",
  },
}
