#!/bin/sh
# run_fuzz.sh FUZZER FUZZDIR EXAMPLES CORPUS SECONDS: a fuzzing run of SECONDS seconds of FUZZER,
# its corpus in CORPUS (created; the seeds of FUZZDIR/seeds, its regressions and the examples
# copied in first), the dictionary FUZZDIR/mbd.dict.  Exit status 0 when nothing was found;
# otherwise libFuzzer's (the crashing input is left as CORPUS/../crash-*, to be turned into a
# regression test in FUZZDIR/regressions).
fuzzer=$1
dir=$2
examples=$3
corpus=$4
seconds=$5
mkdir -p "$corpus"
cp "$dir"/seeds/*.lua "$dir"/regressions/*.lua "$examples"/*.lua "$corpus"/ 2>/dev/null
cd "$(dirname "$corpus")" || exit 1
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -max_len=4096 \
  -close_fd_mask=1 -dict="$dir/mbd.dict" -print_final_stats=1 "$corpus"
