#!/usr/bin/env bash
# Run the whole test suite: a Debug build with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/) and a Release build (build/), both with warnings as errors, each through ctest;
# the Release ctest again under two other OpenBLAS kernels (another CPU's round-off: Debian's
# OpenBLAS picks its kernel by CPU at run time, OPENBLAS_CORETYPE forces one that every x86-64
# CPU can run); then the fuzzer (build-fuzz/, clang): its regressions and a 50 s run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
for cfg in "build-asan Debug ON" "build Release OFF"; do
  set -- $cfg
  echo "== $2 build in $1 (sanitizers $3) =="
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE="$2" -DMBD_SANITIZE="$3" -DMBD_WERROR=ON >/dev/null
  cmake --build "$1" -j"$jobs"
  ctest --test-dir "$1" --output-on-failure -j"$jobs"
done
# the same Release tests with another CPU's round-off (x86-64 only: the kernels are x86's), but
# those labelled kernel_free (packaging, source checks, the browser's pixels: no kernel changes them)
if [ "$(uname -m)" = x86_64 ]; then
  for kernel in Prescott Sandybridge; do
    echo "== Release build under the OpenBLAS kernel $kernel =="
    OPENBLAS_CORETYPE=$kernel ctest --test-dir build --output-on-failure -j"$jobs" -LE kernel_free
  done
fi
# the fuzzer (tests/fuzz/README.md): its regressions, then a 50 s run from the seeds
echo "== fuzzing build in build-fuzz (clang, libFuzzer, sanitizers) =="
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DMBD_FUZZ=ON -DMBD_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_script
ctest --test-dir build-fuzz --output-on-failure -R '^fuzz\.'
