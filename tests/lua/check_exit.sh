#!/bin/sh
# check_exit.sh MBD SCRIPT PATTERN: running the script must exit with status 1, with PATTERN
# (plain text) in the first line of standard error and nothing printed after the failing line
mbd=$1
script=$2
pattern=$3
out=$(mktemp)
err=$("$mbd" "$script" 2>&1 >"$out")
status=$?
stdout=$(cat "$out")
rm -f "$out"
if [ "$status" -ne 1 ]; then
  echo "exit status $status, expected 1; standard error:"
  echo "$err"
  exit 1
fi
first=$(printf '%s\n' "$err" | head -n 1)
case "$first" in
  *"$pattern"*) ;;
  *)
    echo "standard error does not start with a line containing '$pattern':"
    echo "$err"
    exit 1
    ;;
esac
if [ "$stdout" != "before the error" ]; then
  echo "standard output '$stdout', expected 'before the error'"
  exit 1
fi
echo "ok: $first"
