#!/usr/bin/env bash
# Keeps unsafe code confined (issue #41): lists the source files that hold any of the constructs
# below, and fails when more than MAX files do (docs/architecture.md lists them and says why each).
#
#   .ci/check-unsafe-code.sh            # the files and their counts; exit 1 past the limit
#
# The constructs: @unchecked Sendable, @exclusivity(unchecked), nonisolated(unsafe),
# unowned(unsafe), _withUnsafeGuaranteedRef, unsafeDowncast, unsafeBitCast, unsafelyUnwrapped, Unmanaged, the
# unsafe pointer types and the `withUnsafe...` calls that lend them. Each of these files names its
# invariants once and checks them in debug builds. A file that uses the package's own unsafe
# wrappers (FlaskLocking's Unretained, the unchecked casts, UncheckedSendable, WeakReference,
# forEachMovedOut, stringWords) relies on unsafe code too, and counts.
set -euo pipefail
cd "$(dirname "$0")/.."
# 26 on 2026-11-29, issue #55's cap (19 hold unsafe code, 7 more use the wrappers): 35 that morning,
# before the uses that did not need a file of their own moved beside the invariants they rely on.
MAX=26
pattern='@unchecked Sendable|@exclusivity\(unchecked\)|nonisolated\(unsafe\)|unowned\(unsafe\)|_withUnsafeGuaranteedRef|unsafeDowncast|unsafeBitCast|unsafelyUnwrapped|Unmanaged|Unsafe(Mutable)?(Raw)?(Buffer)?Pointer|withUnsafe(Mutable)?(Bytes|Pointer|BufferPointer)|withUnsafeTemporaryAllocation'
wrappers='Unretained[<(]|uncheckedCast\(|uncheckedUnwrap\(|UncheckedSendable|WeakReference|forEachMovedOut|stringWords\('
pattern="$pattern|$wrappers"
files=$(grep -rlE "$pattern" Sources --include='*.swift' | sort || true)
count=0
for file in $files; do
    count=$((count + 1))
    printf '%4d  %s\n' "$(grep -cE "$pattern" "$file")" "$file"
done
echo "$count files hold or use unsafe code (at most $MAX)"
[ "$count" -le "$MAX" ]
