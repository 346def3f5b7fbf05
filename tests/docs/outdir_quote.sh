#!/bin/sh
# A lesson's output folder is a name, never a command: OUTDIR with a quote, a space and a ';' is
# made as it is (mbd.mkdir, no shell) and the lesson writes its figure and page there.
#   outdir_quote.sh MBD LESSON
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
out="it's results; touch pwned"
"$1" "$2" "$out" >log 2>&1 || { echo "FAIL: the lesson exited with status $?"; cat log; exit 1; }
n=$(ls "$out" | wc -l)
[ "$n" -ge 2 ] || { echo "FAIL: '$out' holds $n files"; ls -la; exit 1; }
[ -e pwned ] && { echo "FAIL: the folder's name ran as a command"; exit 1; }
echo "the lesson wrote $n files into '$out'"
