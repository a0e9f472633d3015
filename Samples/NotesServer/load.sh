#!/usr/bin/env bash
# Requests a second of the sample server, with and without durable acknowledgements: the median of
# three runs of `wrk -t2 -c16 -d10s` each, against a release build on 127.0.0.1 (by hand, not in
# CI: it takes a minute and its figures move with the machine).
#
#   Samples/NotesServer/load.sh        # needs wrk (Debian: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release >/dev/null
bin=.build/release/NotesServer
script=$(mktemp)
printf 'wrk.method = "POST"\nwrk.body = "a note"\n' >"$script"
for mode in plain durable; do
    rates=()
    for run in 1 2 3; do
        data=$(mktemp -d)
        port=$((20000 + RANDOM % 20000))
        log=$(mktemp)
        if [ "$mode" = durable ]; then "$bin" --port "$port" --data "$data" --durable >"$log" 2>&1 &
        else "$bin" --port "$port" --data "$data" >"$log" 2>&1 &
        fi
        pid=$!
        until curl -sf "http://127.0.0.1:$port/notes" >/dev/null; do sleep 0.05; done
        rate=$(wrk -t2 -c16 -d10s -s "$script" "http://127.0.0.1:$port/notes" | awk '/Requests\/sec/ { print $2 }')
        rates+=("$rate")
        kill -TERM "$pid"; wait "$pid" || true
        # The durable server says how many acknowledgements each write (each fsync) answered.
        grep '^durable:' "$log" || true
        rm -rf "$data" "$log"
    done
    median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n 2p)
    echo "$mode: ${rates[*]} requests/s; median $median"
done
