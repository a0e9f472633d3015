#!/usr/bin/env bash
# Instructions per dispatch, counted by callgrind (stable on a noisy machine, unlike wall time).
#
#   Benchmarks/scripts/instructions.sh [BINARY] [SCENARIO...]
#
# For each scenario: callgrind's total for `--count N` minus the total for `--count 1`, divided by
# N - 1 (producer and bus together). BINARY defaults to .build/release/FlaskBenchmarks; build it
# first with `swift build -c release --product FlaskBenchmarks`.
set -euo pipefail
binary=${1:-.build/release/FlaskBenchmarks}
shift || true
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(S1 S2 S3 S4 S5 S6 S7 S2k S3k S3d S1m S1j S1r S1s S1a)
total() {  # scenario count
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" --scenario "$1" --count "$2" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out"
    rm -f "$out"
}
for scenario in "${scenarios[@]}"; do
    case $scenario in
        S3 | S3k | S3d) count=4000 ;;
        S3x) count=400 ;;
        S1a | S1s | S1j | S1jk | S9) count=5000 ;;
        *) count=20000 ;;
    esac
    one=$(total "$scenario" 1)
    many=$(total "$scenario" "$count")
    printf '%-5s %8d\n' "$scenario" $(((many - one) / (count - 1)))
done
