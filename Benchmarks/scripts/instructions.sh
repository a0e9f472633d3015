#!/usr/bin/env bash
# Instructions per dispatch, counted by callgrind (stable on a noisy machine, unlike wall time).
#
#   Benchmarks/scripts/instructions.sh [BINARY] [SCENARIO...]
#   Benchmarks/scripts/instructions.sh --safe-primitives [SCENARIO...]
#
# For each scenario: callgrind's total for `--count N` minus the total for `--count 1`, divided by
# N - 1 (producer and bus together). BINARY defaults to .build/release/FlaskBenchmarks; build it
# first with `swift build -c release --product FlaskBenchmarks`.
#
# With --safe-primitives, it builds the benchmark twice (in .build-unsafe-primitives and
# .build-safe-primitives, the second with -DFLASK_SAFE_PRIMITIVES: FlaskLocking's unretained
# references, moves, unchecked element reads and casts replaced by their checked equivalents) and
# prints both counts and what the unsafe primitives save: what a new toolchain must still show for
# them to stay (docs/architecture.md, "Unsafe code, and where it lives").
set -euo pipefail
safe=false
if [ "${1:-}" = "--safe-primitives" ]; then
    safe=true
    shift
fi
if [ "$safe" = false ]; then
    binary=${1:-.build/release/FlaskBenchmarks}
    shift || true
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(S1 S2 S3 S4 S5 S6 S7 S2k S3k S3d S1m S1j S1r S1s S1a)
total() {  # binary scenario count
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1" --scenario "$2" --count "$3" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out"
    rm -f "$out"
}
count_of() {  # scenario
    # Enough dispatches that setup work whose amount depends on timing (a reactor's routes are
    # rebuilt once or twice, as its settings' updates coalesce on the bus or not) moves a row by
    # less than 1%: S3d moved 370 instructions between runs at 4,000 dispatches.
    case $1 in
        S3) echo 4000 ;;
        S3k | S3d) echo 20000 ;;
        S3x) echo 400 ;;
        S1a | S1af | S1s | S1j | S1jk | S9) echo 5000 ;;
        *) echo 20000 ;;
    esac
}
per_dispatch() {  # binary scenario
    local count one many
    count=$(count_of "$2")
    one=$(total "$1" "$2" 1)
    many=$(total "$1" "$2" "$count")
    echo $(((many - one) / (count - 1)))
}
if [ "$safe" = true ]; then
    swift build -c release --product FlaskBenchmarks --scratch-path .build-unsafe-primitives >/dev/null
    swift build -c release --product FlaskBenchmarks --scratch-path .build-safe-primitives \
        -Xswiftc -DFLASK_SAFE_PRIMITIVES >/dev/null
    printf '%-5s %8s %8s %8s\n' scenario unsafe safe saved
    for scenario in "${scenarios[@]}"; do
        fast=$(per_dispatch .build-unsafe-primitives/release/FlaskBenchmarks "$scenario")
        slow=$(per_dispatch .build-safe-primitives/release/FlaskBenchmarks "$scenario")
        printf '%-5s %8d %8d %8d\n' "$scenario" "$fast" "$slow" $((slow - fast))
    done
    exit 0
fi
for scenario in "${scenarios[@]}"; do
    printf '%-5s %8d\n' "$scenario" "$(per_dispatch "$binary" "$scenario")"
done
