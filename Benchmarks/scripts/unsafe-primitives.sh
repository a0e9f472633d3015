#!/usr/bin/env bash
# What each unsafe primitive of FlaskLocking saves, alone: the benchmark built once as it ships and
# once per primitive with that primitive replaced by its checked equivalent (the others kept), then
# instructions per dispatch of each scenario in each build (callgrind, as instructions.sh counts
# them), and what switching the primitive off adds, as a share of the shipped count.
#
#   Benchmarks/scripts/unsafe-primitives.sh [SCENARIO...]
#
# The switches (Swift compilation conditions; `FLASK_SAFE_PRIMITIVES` sets them all):
#   FLASK_SAFE_UNRETAINED    Unretained: a strong reference instead of an unretained one
#   FLASK_SAFE_MOVES         Array.forEachMovedOut: each element copied instead of moved out and back
#   FLASK_SAFE_CASTS         uncheckedCast, uncheckedUnwrap: the checked casts
#   FLASK_SAFE_STRING_WORDS  stringWords: nil, so that the mixer cache and the key table hash names
#
# Builds go to .build-primitives/<switch> (about 50 MB each). docs/performance.md, "What each unsafe
# primitive saves", has the table and the rule it serves: a primitive stays where it saves at least
# 10% of some scenario's instructions, and its definition names that scenario.
set -euo pipefail
cd "$(dirname "$0")/../.."
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(S1 S1t S2 S3 S3d S6 S7)
switches=(shipped FLASK_SAFE_UNRETAINED FLASK_SAFE_MOVES FLASK_SAFE_CASTS FLASK_SAFE_STRING_WORDS FLASK_SAFE_PRIMITIVES)
for switch in "${switches[@]}"; do
    flags=()
    [ "$switch" = shipped ] || flags=(-Xswiftc "-D$switch")
    swift build -c release --product FlaskBenchmarks --scratch-path ".build-primitives/$switch" ${flags[@]+"${flags[@]}"} \
        >/dev/null
done
printf '%-9s' scenario
for switch in "${switches[@]}"; do printf ' %16s' "${switch#FLASK_SAFE_}"; done
printf '\n'
for scenario in "${scenarios[@]}"; do
    printf '%-9s' "$scenario"
    shipped=""
    for switch in "${switches[@]}"; do
        count=$(Benchmarks/scripts/instructions.sh ".build-primitives/$switch/release/FlaskBenchmarks" "$scenario" |
            awk '{ print $2 }')
        if [ -z "$shipped" ]; then
            shipped=$count
            printf ' %16d' "$count"
        else
            printf ' %8d %+6.1f%%' "$count" "$(echo "100 * ($count - $shipped) / $shipped" | bc -l)"
        fi
    done
    printf '\n'
done
