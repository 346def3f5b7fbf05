#!/bin/sh
# A lesson's "Try" typed at the prompt of `mbd -i LESSON` does what the page says.
#   lesson_try.sh MBD LESSON INPUT EXPECTED...   INPUT: the lines typed (printf format); each
#                                                EXPECTED is a line the REPL must print
set -u
mbd=$1
lesson=$2
input=$3
shift 3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
# shellcheck disable=SC2059
printf "$input" | "$mbd" -i "$lesson" figures >stdout 2>stderr
fail=0
for want in "$@"; do
  grep -qxF -- "$want" stdout || { echo "FAIL: no line '$want'"; fail=1; }
done
# standard error holds nothing but the LeakSanitizer's report of its suppressions (sanitizer
# builds: fontconfig, loaded by the plot)
grep -v -e '^-*$' -e '^Suppressions used:' -e '^ *count  *bytes template' \
  -e '^ *[0-9][0-9]*  *[0-9][0-9]*  *[^ ]*$' stderr >stderr.left
if [ -s stderr.left ]; then
  echo "FAIL: standard error:"
  cat stderr
  fail=1
fi
[ $fail -eq 0 ] || { echo "--- standard output:"; cat stdout; exit 1; }
echo "the lesson's Try printed what the page says"
