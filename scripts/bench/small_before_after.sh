#!/usr/bin/env bash
# CPU times of scripts/bench/small_cases.lua's cells under two builds in one run (before: e.g. main
# built in another folder; after: this tree), with their ratio after / before.  The two builds
# alternate cell by cell (three rounds of the least of 5 runs each, the least kept), so a change
# of the machine's load hits both alike; the counts (nfev) must agree.
#   bash scripts/bench/small_before_after.sh BEFORE_MBD [AFTER_MBD]
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$1
after=${2:-build/interp/mbd}
cell() {  # least CPU [ms] and nfev of one cell under one build: "ms nfev", or "failed -"
  local out
  out=$("$1" scripts/bench/small_cases.lua "$2" "$3" "$4" 5 2>/dev/null | tail -1)
  case "$out" in *failed*) echo "failed -" ;; *) echo "$out" | awk '{print $4, $5}' ;; esac
}
printf "%-11s %-15s %-6s %6s %6s %11s %11s %6s\n" case formulation integ nfev0 nfev "before[ms]" \
  "after[ms]" ratio
for c in pendulum fourbar-I fourbar-II spatial gravity; do
  for f in augmented baumgarte gcp kane udwadia_kalaba; do
    for i in adams bdf rk45 rk4; do
      tb=inf ta=inf eb=- ea=-
      for _ in 1 2 3; do
        read -r x eb < <(cell "$before" "$c" "$f" "$i")
        [ "$x" != failed ] && tb=$(awk -v a="$tb" -v b="$x" 'BEGIN { print (b < a ? b : a) }')
        read -r y ea < <(cell "$after" "$c" "$f" "$i")
        [ "$y" != failed ] && ta=$(awk -v a="$ta" -v b="$y" 'BEGIN { print (b < a ? b : a) }')
      done
      awk -v c="$c" -v f="$f" -v i="$i" -v eb="$eb" -v ea="$ea" -v b="$tb" -v a="$ta" \
        'BEGIN { printf "%-11s %-15s %-6s %6s %6s %11s %11s %6s\n", c, f, i, eb, ea, b, a,
                 (b != "inf" && a != "inf" ? sprintf("%.2f", a / b) : "-") }'
    done
  done
done | awk '{ print } $8 != "-" && NR > 0 { s += log($8); k++; if ($8 > w) { w = $8; wc = $1 " " $2 " " $3 } }
  END { printf "geometric mean of the ratios %.2f; largest %.2f (%s)\n", exp(s / k), w, wc }'
