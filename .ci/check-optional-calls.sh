#!/usr/bin/env bash
# Refuses a call through an optional closure whose argument is itself a call, `completion?(perform())`:
# when the closure is nil, Swift does not evaluate the argument at all, so the work it names is
# silently skipped. (`Archiver.writeNow(key:encode:)` wrote nothing without a completion this way.)
# Call first, then pass the result: `let problem = perform(); completion?(problem)`.
#
#   .ci/check-optional-calls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='[A-Za-z_][A-Za-z0-9_]*\?\((try |await )*[a-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\('
# A value made for the closure (a type's initializer, capitalized) has no effect of its own.
found=$(grep -rnE "$pattern" Sources FlaskLiveSession/Sources --include='*.swift' | grep -vE '^\S+:[0-9]+:\s*///' || true)
if [ -n "$found" ]; then
    echo "a call through an optional closure evaluates its argument only when the closure is there:"
    echo "$found"
    echo "call first, then pass the result"
    exit 1
fi
echo "ok: no call's work hangs on an optional closure"
