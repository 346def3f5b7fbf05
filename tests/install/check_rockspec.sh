#!/bin/sh
# check_rockspec.sh SRC: the rockspec builds and installs mbd with LuaRocks, from a copy of the
# source tree (build folders, node_modules and .git left out) into a scratch rocks tree, and
# stock lua5.4 then runs require "mbd" with the tree's paths (luarocks path) and no source tree.
# Exits 77 (ctest: skipped) when luarocks or lua5.4 is missing (scripts/setup.sh --deps
# installs them).
set -u
src=$1
. "$(dirname "$0")/scratch.sh"
need luarocks lua5.4
scratch
mkdir "$work/src"
(cd "$src" && tar --exclude='./build*' --exclude='./out' --exclude=node_modules --exclude=.git \
  -cf - .) | (cd "$work/src" && tar xf -)
cd "$work/src" || exit 1
if ! CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) luarocks --lua-version 5.4 make --tree "$work/tree" \
     mbd-dev-1.rockspec >"$work/log" 2>&1; then
  cat "$work/log"
  echo "FAIL: luarocks make"
  exit 1
fi
cd "$work" && rm -rf "$work/src"
eval "$(luarocks --lua-version 5.4 path --tree "$work/tree")"
out=$(lua5.4 -e '
  local mbd = require "mbd"
  local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
  local b = m:body { name = "b", mass = 1, inertia = 1 / 12, pos = {0.5, 0} }
  m:revolute { body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
  local r = m:simulate { t_end = 0.5, formulation = "kane" }
  print(mbd.version, package.searchpath("mbd.help", package.path))
  print(string.format("%.6f", r:value("b.theta", 0.5)), help.text("simulate"):find("t_end") ~= nil)' 2>&1)
echo "$out"
echo "$out" | grep -q "$work/tree/share/lua/5.4/mbd/help.lua" || { echo "FAIL: the stdlib"; exit 1; }
echo "$out" | grep -q "^-1.661138	true$" || { echo "FAIL: the run"; exit 1; }
echo "ok: rockspec"
