#!/bin/sh
# The REPL on a real terminal (tmux): help()'s example typed line by line keeps its locals, and Tab
# completes a name of mbd ("mbd.mod"), a method of a run ("run:wr") and lists a model's methods
# ("m:" and Tab twice).
#   terminal.sh MBD        exit 0 when it passes, 77 (skipped) without tmux
# tmux runs on a socket of its own in a temporary folder (never the user's server); each step waits
# for the screen to show what it expects, for at most 20 s.
set -u
MBD=$1
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed: skipped"; exit 77; }
T=$(mktemp -d)
SOCK="$T/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
cleanup() {
  tm kill-server 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
screen() { tm capture-pane -t repl -p -S -200; }
# wait_for TEXT: until a line of the screen contains TEXT (fixed string); 1 after 20 s
wait_for() {
  i=0
  while [ $i -lt 200 ]; do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
typeline() {
  tm send-keys -t repl -l "$1"
  tm send-keys -t repl Enter
}

# a session of mbd in a terminal of 160 x 50, with a history file of its own
HOME=$T tm -f /dev/null new-session -d -s repl -x 160 -y 50 "env HOME='$T' '$MBD'" ||
  { echo "FAIL: tmux could not start"; exit 1; }
wait_for "mbd>" || { bad "no prompt"; screen; exit 1; }

# help()'s example, each line an entry
typeline 'local m = mbd.model { name = "pendulum", dim = 2, gravity = {0, -9.81} }'
typeline 'local link = m:body { name = "link", mass = 1, inertia = 0.1, pos = {0.5, 0}, angle = 0 }'
typeline 'm:revolute { name = "O", body1 = m.ground, at1 = {0, 0}, body2 = link, at2 = {-0.5, 0} }'
typeline 'local run = m:simulate { t_end = 2, formulation = "kane", integrator = "adams" }'
typeline 'print("theta at 1 s", run:value("link.theta", 1.0))'
wait_for "theta at 1 s" || bad "help()'s example did not run line by line"
screen | grep -q "attempt to index a nil value" && bad "a local was lost between lines"

# Tab completes mbd.mod into mbd.model; the rest of the line is typed after it
tm send-keys -t repl -l 'mbd.mod'
tm send-keys -t repl Tab
wait_for "mbd> mbd.model" || bad "Tab did not complete mbd.mod"
typeline ' { name = "completed", dim = 2 }'
wait_for "mbd.Model 'completed'" || bad "the completed mbd.model did not run"

# a method of a run: run:wr -> run:write_csv
tm send-keys -t repl -l 'run:wr'
tm send-keys -t repl Tab
wait_for "mbd> run:write_csv" || bad "Tab did not complete run:wr"
typeline '("theta.csv", {"link.theta"})'
typeline 'print("written: " .. tostring(io.open("theta.csv") ~= nil))'
wait_for "written: true" || bad "run:write_csv did not write"

# m: and Tab twice lists the model's methods
tm send-keys -t repl -l 'm:'
tm send-keys -t repl Tab
tm send-keys -t repl Tab
wait_for "m:revolute" || bad "Tab Tab after m: did not list the methods"
screen | grep -qF "m:simulate" || bad "the list of m: has no m:simulate"
tm send-keys -t repl C-u
typeline 'print("still " .. m.name)'
wait_for "still pendulum" || bad "the session did not go on after the list"

# Ctrl-D ends the program (the screen is kept for a failure's report)
screen >"$T/screen.txt"
tm send-keys -t repl C-d
i=0
while tm has-session -t repl 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
tm has-session -t repl 2>/dev/null && bad "Ctrl-D did not end the REPL"

if [ $fail -ne 0 ]; then
  echo "--- the screen:"
  cat "$T/screen.txt"
  exit 1
fi
echo "terminal: locals kept, mbd.mod, run:wr and m: completed"
