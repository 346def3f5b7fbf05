#!/bin/sh
# check_install.sh KIND BUILD LUA_CDIR LUA_DIR DOCDIR VERSION: an installation of mbd works where it
# was put, with nothing from the source tree.
#   KIND = install   cmake --install BUILD --prefix <scratch>
#   KIND = deb       cpack -G DEB in BUILD, then dpkg-deb -x into <scratch> (files under usr/)
# LUA_CDIR, LUA_DIR, DOCDIR are the install's folders relative to the prefix.  Checked: the
# program runs a simulation, finds the installed stdlib (help, mbd.pretty) and writes an
# animation page and a CSV with its manifest; stock lua5.4 loads the module with require "mbd"
# and runs the same; the documentation is installed.  Exits 77 (ctest: skipped) when lua5.4 or,
# for deb, dpkg-deb is missing (bash scripts/setup.sh --deps installs them).
set -u
kind=$1 build=$2 cdir=$3 ldir=$4 docdir=$5 version=$6
. "$(dirname "$0")/scratch.sh"
need lua5.4 $([ "$kind" = deb ] && echo dpkg-deb)
scratch
fail=0
bad() {
  echo "FAIL [$kind]: $*"
  fail=1
}

# the installation
if [ "$kind" = install ]; then
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
else
  (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") >"$work/log" 2>&1 ||
    { cat "$work/log"; exit 1; }
  deb=$(ls "$work"/pkg/mbd_*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || { cat "$work/log"; echo "no .deb made"; exit 1; }
  info=$(dpkg-deb -I "$deb")
  echo "$info" | grep -q "Package: mbd" || bad "package name: $info"
  echo "$info" | grep -q "Version: $version" || bad "package version: $info"
  echo "$info" | grep -q "Depends:.*liblua5.4" || bad "no dependency on liblua5.4: $info"
  dpkg-deb -x "$deb" "$work/root"
  prefix=$work/root/usr
fi

# the files where they belong
for f in bin/mbd "$cdir/mbd.so" "$ldir/mbd/help.lua" "$ldir/mbd/pretty.lua" \
         "$docdir/README.md" "$docdir/docs/reference.md" "$docdir/docs/tutorial/README.md" \
         "$docdir/examples/double_pendulum.lua"; do
  [ -e "$prefix/$f" ] || bad "missing $f"
done

# a script both ways: a pendulum, its page and its CSV; prints what it found
cat >"$work/check.lua" <<'LUA'
local out = ...
local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }
local rod = m:body { name = "rod", mass = 1, inertia = 1 / 12, pos = {0.5, 0} }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = rod, at2 = {-0.5, 0} }
local run = m:simulate { t_end = 0.5, formulation = "kane" }
run:animate { file = out .. ".html" }
run:write_csv(out .. ".csv", { "rod.theta" })
local f = assert(io.open(out .. ".html")); local page = f:read("a"); f:close()
f = assert(io.open(out .. ".csv")); local csv = f:read("a"); f:close()
print("version " .. mbd.version)
print("stdlib " .. package.searchpath("mbd.help", package.path))
print("help " .. tostring(help.text("simulate"):find("t_end") ~= nil))
print("pretty " .. mbd.pretty({ 1, 2 }))
print("page " .. tostring(page:find('"format":"mbd-animation"', 1, true) ~= nil))
print("manifest " .. tostring(csv:find("# program: mbd " .. mbd.version, 1, true) ~= nil))
print(string.format("theta %.6f", run:value("rod.theta", 0.5)))
LUA
expect() { # expect FILE WHAT: the lines the check prints
  grep -qx "version $version" "$1" || bad "$2: version"
  grep -qx "stdlib $prefix/$ldir/mbd/help.lua" "$1" ||
    bad "$2: the stdlib is not the installed one: $(grep stdlib "$1")"
  grep -qx "help true" "$1" || bad "$2: help"
  grep -qx "pretty { 1, 2 }" "$1" || bad "$2: mbd.pretty"
  grep -qx "page true" "$1" || bad "$2: run:animate"
  grep -qx "manifest true" "$1" || bad "$2: manifest"
  grep -q "^theta -" "$1" || bad "$2: the simulation"
}
"$prefix/bin/mbd" "$work/check.lua" "$work/prog" >"$work/prog.out" 2>&1
cat "$work/prog.out"
expect "$work/prog.out" "the program"

# stock lua5.4 with require "mbd"; an ASan/UBSan build needs their runtimes loaded first
preload=""
if ldd "$prefix/$cdir/mbd.so" | grep -q libasan; then
  preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
LUA_CPATH="$prefix/$cdir/?.so;;" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
  lua5.4 -e 'mbd = require "mbd"' "$work/check.lua" "$work/mod" \
  >"$work/mod.out" 2>&1
cat "$work/mod.out"
expect "$work/mod.out" "require \"mbd\" in lua5.4"
[ "$(grep theta "$work/prog.out")" = "$(grep theta "$work/mod.out")" ] ||
  bad "the program and the module disagree"
[ $fail -eq 0 ] && echo "ok: $kind"
exit $fail
