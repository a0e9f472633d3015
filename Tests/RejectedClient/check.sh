#!/usr/bin/env bash
# Builds each target of this package, which must fail, and checks the compiler's reason.
#   Tests/RejectedClient/check.sh [--scratch-path DIR]
set -uo pipefail
cd "$(dirname "$0")"
scratch=${2:-.build}
expect() {  # target, expected message
    local log
    log=$(swift build --scratch-path "$scratch" --target "$1" 2>&1)
    local status=$?
    if [ $status -eq 0 ]; then
        echo "FAIL: $1 compiled; it must be refused ($2)"
        return 1
    fi
    if ! grep -qF "$2" <<<"$log"; then
        echo "FAIL: $1 was refused, but not with \"$2\":"
        grep -E "error:" <<<"$log" | sort -u | head -5
        return 1
    fi
    echo "ok: $1 refused: $2"
}
failed=0
# Build the library first, so that a failure of it is not mistaken for the expected refusal.
swift build --scratch-path "$scratch" --target FlaskAPI >/dev/null 2>&1 || { echo "FAIL: FlaskAPI does not build"; exit 1; }
expect NonSendableOwner "type 'Screen' does not conform to the 'Sendable' protocol" || failed=1
expect NonSendableFlaskReactor "sending 'self' risks causing data races" || failed=1
expect ReactionLeavesHandler "capture of 'reaction' with non-Sendable type 'FlaskReaction'" || failed=1
expect ChainShared "capture of 'chain' with non-Sendable type 'ChainReaction'" || failed=1
# A substance made without a subclass: its bodies are @Sendable, so state they keep is checked.
expect DefinedMixerKeepsState "capture of 'cache' with non-Sendable type 'Cache' in a '@Sendable' closure" || failed=1
expect BusConfinedShared "sending 'tally' risks causing data races" || failed=1
# A LockedValue of a non-Sendable value is not Sendable: the task that captures it is refused.
expect LockedValueLeak "sending value of non-Sendable type '() async -> ()' risks causing data races" || failed=1
# Not a race, a misspelling: substances listed where an array is taken are refused with advice.
expect SubstancesNotInArray "pass several substances as an array: mixing: [a, b]" || failed=1
expect SubstancesNotInArray "pass the substances as an array: mixing: [a, b]" || failed=1
exit $failed
