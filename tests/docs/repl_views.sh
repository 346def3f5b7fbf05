#!/bin/sh
# repl_views.sh MBD EXAMPLES: what a new user meets at the prompt.
#  - the REPL prints a table readably (mbd.pretty), nested and cut, not as "table: 0x...";
#  - `mbd -i examples/NAME.lua` leaves the example's model and runs in globals to inspect;
#  - help("simulate") shows the defaults of simulate, help("info") what m:info() returns.
# Exit 0 when all hold; each failure is printed.
set -u
mbd=$1 examples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$(printf 't = {1, 2, {a = 1, b = "x"}}\nt\nlong = {} for i = 1, 40 do long[i] = i end\nlong\n' | "$mbd" 2>/dev/null)
echo "$out" | grep -qx '{ 1, 2, { a = 1, b = "x" } }' || bad "a nested table: $out"
echo "$out" | grep -qx '{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, … (28 more) }' || bad "a long list: $out"
echo "$out" | grep -q 'table: 0x' && bad "a table printed as its address: $out"

for f in "$examples"/*.lua; do
  name=$(basename "$f" .lua)
  got=$(printf 'print(type(model) == "userdata" and "model" or "no model", type(run or runs) ~= "nil" and "runs" or "no runs")\n' |
        "$mbd" -i "$f" "$work/out" 2>/dev/null | grep -E '^(no )?model	' | tail -n 1)
  case $name in
    spinning_top) want="no model	runs" ;;
    *) want="model	runs" ;;
  esac
  [ "$got" = "$want" ] || bad "mbd -i examples/$name.lua leaves '$got', expected '$want'"
done

help=$(printf 'help("simulate")\nhelp("info")\n' | "$mbd" 2>/dev/null)
for want in '"kane" (baumgarte where kane does not serve' 'rtol' '1e-6' 't_end / 500 and the accepted steps' '1e-8' 'Returns a table: bodies, joints'; do
  echo "$help" | grep -qF -- "$want" || bad "help does not show '$want'"
done
[ $fail -eq 0 ] && echo "ok"
exit $fail
