#!/usr/bin/env bash
# Refuses a call through an optional whose argument is itself a call, `completion?(perform())`:
# when the optional is nil, Swift does not evaluate the argument at all, so the work it names is
# silently skipped. (`Archiver.writeNow(key:encode:)` wrote nothing without a completion this way.)
# Call first, then pass the result: `let problem = perform(); completion?(problem)`.
#
# Caught: an optional closure or an optional chain's method (`completion?(…)`, `delegate?.done(…)`),
# with a call among its arguments (after other arguments, a label, `try`, `try?`, `await` or `!`),
# its own parentheses or a trailing closure. Not caught: an argument on a line of its own.
# Comments are skipped; a line that must stay as it is says so with `// optional-call: ok` and why.
#
#   .ci/check-optional-calls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='[A-Za-z_)]\?(\.[A-Za-z_][A-Za-z0-9_]*)?\(([^()]*,[[:space:]]*)?([A-Za-z_][A-Za-z0-9_]*:[[:space:]]*)?(try[?!]?[[:space:]]+|await[[:space:]]+|!)*[a-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*[[:space:]]*[({]'
found=$(grep -rnE "$pattern" Sources FlaskLiveSession/Sources --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' | grep -v 'optional-call: ok' || true)
if [ -n "$found" ]; then
    echo "a call through an optional evaluates its arguments only when the optional is there:"
    echo "$found"
    echo "call first, then pass the result (or mark the line '// optional-call: ok' with the reason)"
    exit 1
fi
echo "ok: no call's work hangs on an optional"
