#!/usr/bin/env bash
# Set up mbd on a fresh Debian machine: install the Debian packages it needs (as root, or with
# sudo), build the Release configuration into build/, and run the flagship example.
#   bash scripts/setup.sh            install, build, run examples/double_pendulum.lua
#   bash scripts/setup.sh --deps     only install the packages
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config liblua5.4-dev liblapacke-dev libopenblas-dev
          libsundials-dev libsuitesparse-dev libcmocka-dev libedit-dev libplplot-dev nettle-dev
          plplot-driver-cairo libopenmpi-dev openmpi-bin libpng-dev lua5.4 luarocks chromium clang
          tmux)
# SuiteSparse (KLU, UMFPACK) for large models' sparse solves; nettle (SHA-256) for the
# compiled-code cache's names and digests.  MPI (libopenmpi-dev, and
# openmpi-bin's mpirun) lets mbd.sweep run across machines: optional for the build, which leaves
# it out when it is absent; the sweep's MPI test needs mpirun.
# The last six are for the tests: screenshots' pixels (libpng), require "mbd" from a stock Lua
# and the rockspec (lua5.4, luarocks), the animation page in a headless browser (chromium), the
# fuzzer (clang's libFuzzer), the REPL on a terminal: line editing and Tab completion (tmux)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "mbd setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
echo
echo "== flagship example: build/interp/mbd examples/double_pendulum.lua out =="
build/interp/mbd examples/double_pendulum.lua out
