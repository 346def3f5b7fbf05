#!/bin/sh
# message_literals.sh ROOT: every message the engine records takes its text from a template, a
# macro of the library's private header (engine/<library>/<library>_msg.h, and output_impl.h and
# integrators_impl.h), never from a literal at the call; every error the binding raises takes it
# from interp/l_msg.h.  Every call of MBD_FAIL, SYM_FAIL, mbd_error_set, mbd_model_warn or
# mbd_system_warn in ROOT/engine/**/*.c, and of luaL_error or luaL_argerror in ROOT/interp/*.c,
# whose format (or message) argument holds a string literal is reported as FILE:LINE and the
# script exits 1 (luaL_error(L, "%s", msg) raises a message made elsewhere and is not reported).
# Exit 0 when there is none.  Comments, strings and character constants are skipped (a call
# quoted in a comment is not a call), and the arguments before the format may hold commas inside
# parentheses.
set -u
root=$1
if [ ! -d "$root/engine" ]; then
  echo "usage: message_literals.sh ROOT (with ROOT/engine)"
  exit 2
fi
root=$(cd "$root" && pwd -P)
list=$(mktemp)
out=$(mktemp)
trap 'rm -f "$list" "$out"' EXIT
(cd "$root" && find engine -name '*.c' | sort &&
  if [ -d interp ]; then find interp -name '*.c' | sort; fi) >"$list"
if [ ! -s "$list" ]; then
  echo "no C sources under engine/"
  exit 2
fi

# each file read whole and scanned as C: code, comments, strings, character constants.  Prints
# FILE:LINE for each call with a literal format, then "= <literal formats> <calls>".
(cd "$root" && xargs awk -v sq="'" '
  BEGIN {
    # the recording functions and the position (from 0) of their format argument
    fmt["MBD_FAIL"] = 2; fmt["SYM_FAIL"] = 2; fmt["mbd_error_set"] = 4
    fmt["mbd_model_warn"] = 1; fmt["mbd_system_warn"] = 1
    fmt["luaL_error"] = 1; fmt["luaL_argerror"] = 2
    bad = 0; calls = 0; n = 0
  }
  FNR == 1 && NR > 1 { scan(prev) }
  { text[FNR] = $0; n = FNR; prev = FILENAME }
  END { if (n > 0) scan(prev); print "= " bad " " calls }

  function scan(file,    src, i, len, c, d, start, word, k) {
    src = ""
    for (i = 1; i <= n; i++) src = src text[i] "\n"
    len = length(src); line = 1; i = 1
    while (i <= len) {
      c = substr(src, i, 1); d = substr(src, i, 2)
      if (d == "/*") { i = skip_block(src, i + 2, len); continue }
      if (d == "//") { while (i <= len && substr(src, i, 1) != "\n") i++; continue }
      if (c == "\"" || c == sq) { i = skip_quoted(src, i, len, c); continue }
      if (c == "\n") { line++; i++; continue }
      if (c ~ /[A-Za-z_]/) {
        start = i
        while (i <= len && substr(src, i, 1) ~ /[A-Za-z0-9_]/) i++
        word = substr(src, start, i - start)
        if (word in fmt) {
          k = i
          while (k <= len && substr(src, k, 1) ~ /[ \t\n]/) k++
          if (substr(src, k, 1) == "(") {
            calls++
            if (literal_format(src, k + 1, len, fmt[word], word == "luaL_error")) {
              print file ":" line ": " word " with a literal format (name the text in a template)"
              bad++
            }
          }
        }
        continue
      }
      i++
    }
    n = 0
  }
  # past a block comment whose text starts at i, counting its lines
  function skip_block(src, i, len) {
    while (i <= len && substr(src, i, 2) != "*/") {
      if (substr(src, i, 1) == "\n") line++
      i++
    }
    return i + 2
  }
  # past a string or character constant that opens at i with quote q
  function skip_quoted(src, i, len, q,    c) {
    for (i++; i <= len; i++) {
      c = substr(src, i, 1)
      if (c == "\\") { i++; continue }
      if (c == q || c == "\n") return i + 1
    }
    return i
  }
  # 1 when argument number want (from 0) of the call whose arguments start at i holds a string
  # literal (with pass: unless it is the whole format "%s" of a message made elsewhere); the call
  # ends at the parenthesis closing at depth 0
  function literal_format(src, i, len, want, pass,    depth, arg, c, d, k) {
    depth = 0; arg = 0
    while (i <= len) {
      c = substr(src, i, 1); d = substr(src, i, 2)
      if (d == "/*") { while (i <= len && substr(src, i, 2) != "*/") i++; i += 2; continue }
      if (d == "//") { while (i <= len && substr(src, i, 1) != "\n") i++; continue }
      if (c == "\"") {
        if (arg == want && pass && substr(src, i, 4) == "\"%s\"") {
          k = i + 4
          while (k <= len && substr(src, k, 1) ~ /[ \t\n]/) k++
          if (substr(src, k, 1) == ",") { i += 4; continue }
        }
        if (arg == want) return 1
        i = skip_quoted(src, i, len, c); continue
      }
      if (c == sq) { i = skip_quoted(src, i, len, c); continue }
      if (c == "(" || c == "[" || c == "{") depth++
      else if (c == ")" || c == "]" || c == "}") { if (depth == 0) return 0; depth-- }
      else if (c == "," && depth == 0 && ++arg > want) return 0
      i++
    }
    return 0
  }
' <"$list") >"$out"

# the counts (xargs may have run awk more than once)
bad=0
calls=0
while read -r first a b; do
  if [ "$first" = "=" ]; then
    bad=$((bad + a))
    calls=$((calls + b))
  else
    echo "$first $a $b"
  fi
done <"$out"
files=$(wc -l <"$list")
if [ "$bad" -gt 0 ]; then
  echo "$bad literal message format(s) in engine/ and interp/ ($calls calls in $files files read)"
  exit 1
fi
echo "ok: $calls calls in $files files under engine/ and interp/, every format a template"
