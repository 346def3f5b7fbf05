#!/bin/sh
# checks of the mbd program's command line and REPL, driven by arguments and piped input:
#   check.sh MBD CASE      (MBD the program, CASE one of the cases below; exit 0 when it passes)
# Each case runs mbd in a fresh temporary folder and compares standard output, standard error
# and the exit status with exact expectations.
set -u
MBD=$1
CASE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
# no history file, whatever the caller's HOME
HOME=$T
export HOME
unset MBD_TRACEBACK
fail=0
TAB=$(printf '\t')

# run mbd with the arguments, standard input from the file `in`; sets rc, fills out and err
: >in
run() {
  "$MBD" "$@" <in >out 2>err
  rc=$?
}

# the expectations; each failure is described and the case fails
bad() {
  echo "FAIL [$CASE]: $*"
  fail=1
}
show() {
  echo "--- $1:"
  cat "$1"
}
want_rc() {
  [ "$rc" -eq "$1" ] || bad "exit status $rc, expected $1"
}
want_file() { # want_file FILE LINE... : FILE holds exactly these lines
  f=$1
  shift
  printf '%s\n' "$@" >want
  if ! cmp -s want "$f"; then
    bad "$f differs from the expected text"
    diff -u want "$f"
  fi
}
want_out() { want_file out "$@"; }
want_err() { want_file err "$@"; }
want_no_out() { [ -s out ] && { bad "unexpected standard output"; show out; }; }
want_no_err() { [ -s err ] && { bad "unexpected standard error"; show err; }; }
want_contains() { # want_contains FILE TEXT : a line of FILE contains TEXT
  grep -qF -- "$2" "$1" || { bad "$1 does not contain '$2'"; show "$1"; }
}
want_first_line() { # want_first_line FILE TEXT : the first line of FILE is exactly TEXT
  [ "$(head -n 1 "$1")" = "$2" ] || { bad "first line of $1 is not '$2'"; show "$1"; }
}
# wait until `out` holds a line "ready" (the Lua code is running)
wait_ready() {
  i=0
  while ! grep -q '^ready$' out 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 300 ] && { bad "the program never became ready"; return 1; }
    sleep 0.1
  done
  sleep 0.2
}

case $CASE in

# --- options
version)
  run --version
  want_rc 0
  want_no_err
  [ "$(wc -l <out)" -eq 1 ] || bad "--version prints one line"
  grep -qE '^mbd [0-9]+\.[0-9]+\.[0-9]+ \(Lua 5\.4\.[0-9]+\)$' out || { bad "bad version line"; show out; }
  ;;
help_option)
  run --help
  want_rc 0
  want_no_err
  want_first_line out "usage: mbd [options] [FILE.lua [ARGS...]]"
  want_contains out "mbd -e 'CODE'"
  want_contains out "mbd -i FILE.lua"
  want_contains out "mbd --version"
  ;;
unknown_option)
  run -x
  want_rc 1
  want_no_out
  want_first_line err "mbd: unrecognized option '-x'"
  want_contains err "usage: mbd"
  ;;
e_missing_code)
  run -e
  want_rc 1
  want_no_out
  want_first_line err "mbd: '-e' needs an argument"
  ;;

# --- -e
e_print)
  run -e 'print(1+1)'
  want_rc 0
  want_no_err
  want_out 2
  ;;
e_repeated)
  run -e 'x = 20' -e 'print(x + 22)' -e 'print(type(mbd), type(help))'
  want_rc 0
  want_no_err
  want_out 42 "table${TAB}table"
  ;;
e_error)
  run -e 'error("oops")' -e 'print("not reached")'
  want_rc 1
  want_no_out
  want_err "(command line):1: oops"
  ;;

# --- scripts
script_args)
  printf 'print(arg[0], #arg, arg[1], arg[2])\nprint(...)\n' >args.lua
  run args.lua "a b" c
  want_rc 0
  want_no_err
  want_out "args.lua${TAB}2${TAB}a b${TAB}c" "a b${TAB}c"
  ;;
script_e_then_script)
  printf 'print(x)\n' >x.lua
  run -e 'x = "set by -e"' x.lua
  want_rc 0
  want_no_err
  want_out "set by -e"
  ;;
script_error)
  printf 'local x = 1\nprint("before")\nerror("boom")\nprint("after")\n' >error.lua
  run error.lua
  want_rc 1
  want_out before
  want_err "error.lua:3: boom"
  ;;
script_error_level2)
  printf 'local function check(v)\n  if not v then error("check failed", 2) end\nend\n\ncheck(false)\n' >lvl.lua
  run lvl.lua
  want_rc 1
  want_err "lvl.lua:5: check failed"
  ;;
script_error_no_position)
  printf '\nerror("plain", 0)\n' >nopos.lua
  run nopos.lua
  want_rc 1
  want_err "nopos.lua:2: plain"
  ;;
script_error_object)
  printf 'error(setmetatable({}, {__tostring = function() return "an object" end}))\n' >obj.lua
  run obj.lua
  want_rc 1
  want_err "obj.lua:1: an object"
  ;;
script_syntax_error)
  printf 'x = 1\ny = = 2\n' >syntax.lua
  run syntax.lua
  want_rc 1
  want_no_out
  [ "$(wc -l <err)" -eq 1 ] || bad "a syntax error is one line"
  grep -q '^syntax\.lua:2: ' err || { bad "no 'syntax.lua:2: ' message"; show err; }
  ;;
script_traceback)
  printf 'local x = 1\nerror("boom")\n' >error.lua
  MBD_TRACEBACK=1
  export MBD_TRACEBACK
  run error.lua
  want_rc 1
  want_first_line err "error.lua:2: boom"
  want_contains err "stack traceback:"
  ;;
missing_file)
  run nofile.lua
  want_rc 1
  want_no_out
  grep -q '^mbd: cannot open nofile\.lua' err || { bad "no 'cannot open' message"; show err; }
  ;;
stdin_script)
  printf 'print(arg[0], arg[1], ...)\nprint(1 + 1)\n' >in
  run - a
  want_rc 0
  want_no_err
  want_out "-${TAB}a${TAB}a" 2
  ;;
script_exit_code)
  printf 'os.exit(3)\n' >exit.lua
  run exit.lua
  want_rc 3
  ;;

# --- the REPL, piped: no banner, no prompts
repl_empty)
  run
  want_rc 0
  want_no_out
  want_no_err
  ;;
repl_expression)
  printf '1+2\n= 4\n"text"\n' >in
  run
  want_rc 0
  want_no_err
  want_out 3 4 text
  ;;
repl_several_results)
  printf '1, "a", nil, true\nreturn 2, 3\n= select(2, "a", "b", "c")\nlocal function f() return 4, 5 end\nf()\n' >in
  run
  want_rc 0
  want_no_err
  want_out "1${TAB}a${TAB}nil${TAB}true" "2${TAB}3" "b${TAB}c" "4${TAB}5"
  ;;
repl_statement)
  printf 'x = 10\nlocal y = 5\nx\nprint(y)\n' >in
  run
  want_rc 0
  want_no_err
  want_out 10 5
  ;;
repl_locals)
  # help()'s example typed line by line: each line is an entry, its locals stay for the next;
  # a local inside a block stays in the block; an error keeps the line typed
  printf '%s\n' 'local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }' \
    'local link = m:body { name = "link", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }' \
    'm:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = link, at2 = {-0.5, 0} }' \
    'local run = m:simulate { t_end = 2, formulation = "kane", integrator = "adams" }' \
    'print(run:value("link.theta", 0) == 0, link.name, m.name)' \
    'local function twice(x)' '  return 2 * x' 'end' 'twice(21)' \
    'do local hidden = 1 end' 'hidden' \
    'local a,' '  b = 1,' '  nil + 1' 'print("after")' >in
  run
  want_rc 0
  want_out "mbd.Joint revolute 'O' of model 'pendulum'" "true${TAB}link${TAB}pendulum" 42 nil after
  want_err "stdin:3: attempt to perform arithmetic on a nil value"
  ;;
repl_local_const)
  printf 'local k <const> = 5\nk = 6\nk\nlocal k = 7\nk\n' >in
  run
  want_rc 0
  want_out 5 7
  want_err "stdin:1: attempt to assign to const variable 'k'"
  ;;
repl_multiline)
  printf 'function f()\n return 5\nend\nf()\nt = {\n  a = 1,\n  b = 2,\n}\nt.a + t.b\n' >in
  run
  want_rc 0
  want_no_err
  want_out 5 3
  ;;
repl_tostring)
  printf 'setmetatable({}, {__tostring = function() return "<summary>" end})\n' >in
  run
  want_rc 0
  want_no_err
  want_out "<summary>"
  ;;
repl_error_continues)
  printf 'error("x")\nprint("after")\nnil + 1\n= 7\n' >in
  run
  want_rc 0
  want_out after 7
  [ "$(wc -l <err)" -eq 2 ] || { bad "two error lines expected"; show err; }
  want_first_line err "stdin:1: x"
  want_contains err "attempt to perform arithmetic on a nil value"
  ;;
repl_syntax_error)
  printf 'x = = 1\nprint("ok")\n' >in
  run
  want_rc 0
  want_out ok
  grep -q '^stdin:1: ' err || { bad "no 'stdin:1:' message"; show err; }
  ;;
repl_eof_inside_entry)
  printf 'print("first")\nfor i = 1, 2 do\n' >in
  run
  want_rc 0
  want_out first
  want_contains err "<eof>"
  ;;
repl_tostring_error)
  printf 'setmetatable({}, {__tostring = function() error("bad tostring") end})\nprint("next")\n' >in
  run
  want_rc 0
  want_out next
  want_contains err "bad tostring"
  ;;
repl_help)
  printf 'help()\nhelp("revolute")\nhelp("no such topic")\n' >in
  run
  want_rc 0
  want_no_err
  want_contains out "Topics"
  want_contains out "m:revolute {"
  want_contains out 'no help for "no such topic"'
  ;;
repl_help_object)
  printf 'help(setmetatable({}, {__name = "mbd.Body"}))\n' >in
  run
  want_rc 0
  want_no_err
  want_first_line out "Body  (m:body, m.ground)"
  ;;
repl_help_dsl)
  printf 'help(mbd.model)\nm = mbd.model { dim = 2 }\nhelp(m)\nhelp(m.revolute)\n' >in
  run
  want_rc 0
  want_no_err
  want_first_line out "mbd.model { name = ..., dim = 2 | 3, gravity = {...} }  -> Model"
  want_contains out "Model  (mbd.model)"
  want_contains out "m:revolute { name, body1, at1, body2, at2 [, axis1, axis2] }  -> Joint"
  ;;
help_topics)
  run "$HERE/help_check.lua"
  want_rc 0
  want_no_err
  want_out "help: all topics resolve" "7 passed, 0 failed"
  ;;
interactive_script)
  printf 'x = 42\nlocal hidden = 1\nprint("script ran")\n' >globals.lua
  printf 'x\nhidden\n' >in
  run -i globals.lua
  want_rc 0
  want_no_err
  want_out "script ran" 42 nil
  ;;
interactive_script_error)
  printf 'error("stop")\n' >bad.lua
  printf 'print("repl")\n' >in
  run -i bad.lua
  want_rc 1
  want_no_out
  want_err "bad.lua:1: stop"
  ;;

# --- Ctrl-C: SIGINT interrupts running Lua code
interrupt_script)
  "$MBD" -e 'io.write("ready\n") io.flush() while true do end' <in >out 2>err &
  pid=$!
  wait_ready && kill -INT $pid
  wait $pid
  rc=$?
  want_rc 1
  want_out ready
  want_err "(command line):1: interrupted!"
  ;;
interrupt_repl)
  mkfifo fifo
  "$MBD" <fifo >out 2>err &
  pid=$!
  exec 3>fifo
  printf '%s\n' 'io.write("ready\n") io.flush() while true do end' >&3
  wait_ready && kill -INT $pid
  printf '%s\n' 'print("after")' >&3
  exec 3>&-
  wait $pid
  rc=$?
  want_rc 0
  want_out ready after
  want_err "stdin:1: interrupted!"
  ;;

run_quiet)
  # a pendulum integrated by augmented at a loose tolerance drifts far beyond position_tol
  # (0.005 against 1e-8): the run warns at the script's line; quiet = true keeps the same
  # warning in run.warnings and prints nothing
  cat >w.lua <<'EOF'
local quiet = ...
local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "link", mass = 1, inertia = 1 / 12, pos = {0.5, 0} }
m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
local r = m:simulate { t_end = 5, formulation = "augmented", rtol = 1e-3, atol = 1e-3,
                       quiet = quiet == "quiet" }
print(#r.warnings, r.warnings[1]:match("^the constraints drifted") ~= nil)
EOF
  run w.lua loud
  want_rc 0
  want_out "1${TAB}true"
  want_contains err "mbd: warning: w.lua:5: the constraints drifted by up to 0.005"
  [ "$(wc -l <err)" -eq 1 ] || { bad "one warning, one line"; show err; }
  run w.lua quiet
  want_rc 0
  want_out "1${TAB}true"
  want_no_err
  # the default formulation's fallback is a note at the script's line (a fully driven pendulum:
  # kane has nothing to integrate, baumgarte runs, at rtol 1e-9 within position_tol: no drift
  # warning, 2.6e-9 of 1e-8); quiet keeps it in run.note
  cat >n.lua <<'EOF'
local quiet = ...
local m = mbd.model { name = "p", dim = 2, gravity = {0, -9.81} }
local b = m:body { name = "link", mass = 1, inertia = 1 / 12, pos = {0.5, 0} }
local O = m:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = b, at2 = {-0.5, 0} }
m:drive { joint = O, position = function(t) return t end }
local r = m:simulate { t_end = 1, rtol = 1e-9, atol = 1e-9, quiet = quiet == "quiet" }
print(r.formulation, r.note:match("^formulation baumgarte %(the default where kane does not serve") ~= nil)
EOF
  run n.lua loud
  want_rc 0
  want_out "baumgarte${TAB}true"
  want_contains err "mbd: note: n.lua:6: formulation baumgarte (the default where kane does not serve: model 'p' has no degree of freedom left"
  [ "$(wc -l <err)" -eq 1 ] || { bad "one note, one line"; show err; }
  run n.lua quiet
  want_rc 0
  want_out "baumgarte${TAB}true"
  want_no_err
  ;;

*)
  bad "unknown case"
  ;;
esac
exit $fail
