#!/usr/bin/env bash
# The sample server keeps what it acknowledged, stopped either way:
# - gracefully (SIGTERM, as a container runtime or `kill` does): ServiceGroup shuts the server
#   down, then the flush service writes what the debounce still held;
# - killed (SIGKILL) in durable mode: every acknowledged note was on disk already.
#
#   Samples/NotesServer/check.sh [path to the NotesServer binary]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# A path given is taken from the caller's directory, before the script moves to its own.
bin=$(realpath -m "${1:-$here/.build/debug/NotesServer}")
cd "$here"
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
failed=0
fail() { echo "FAIL: $*"; failed=1; }

start() {  # extra arguments for the server
    "$bin" --port "$port" --data "$data" "$@" >>"$data/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        curl -sf "http://127.0.0.1:$port/notes" >/dev/null && return 0
        sleep 0.05
    done
    fail "the server did not start"; cat "$data/server.log"; return 1
}
post() { curl -sf -o /dev/null -X POST --data "$1" "http://127.0.0.1:$port/notes" || fail "POST $1"; }
count() { curl -sf "http://127.0.0.1:$port/notes" | sed -E 's/.*"count":([0-9]+).*/\1/'; }

# Graceful: three notes, still within the debounce, then SIGTERM.
start || exit 1
for n in 1 2 3; do post "note $n"; done
kill -TERM "$pid"; wait "$pid"; status=$?
[ "$status" -eq 0 ] || fail "SIGTERM: the server exited with $status, expected 0 (a graceful shutdown)"
start || exit 1
[ "$(count)" = 3 ] || fail "after SIGTERM the server restored $(count) notes, expected 3"
kill -TERM "$pid"; wait "$pid"

# A second server on the same data while the first lives: it stops at once, saying why.
start || exit 1
"$bin" --port $((port + 1)) --data "$data" >"$data/second.log" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "a second server on the same data exited with $status, expected 1"
grep -q "cannot start" "$data/second.log" || fail "the second server did not say why it stopped: $(cat "$data/second.log")"
kill -TERM "$pid"; wait "$pid"

# Durable: two more notes acknowledged, then SIGKILL, which no flush survives.
start --durable || exit 1
for n in 4 5; do post "note $n"; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
start || exit 1
[ "$(count)" = 5 ] || fail "after SIGKILL the durable server restored $(count) notes, expected 5"
kill -TERM "$pid"; wait "$pid"

[ $failed -eq 0 ] && echo "ok: graceful shutdown and durable acknowledgements keep every note"
rm -rf "$data"
exit $failed
