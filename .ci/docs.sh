#!/usr/bin/env bash
# Builds the DocC archive of every module a user may depend on alone, and fails on any warning
# of `docc convert --analyze` (broken links, ambiguous references, malformed articles).
#
#   .ci/docs.sh            # archives in .build/docs/<Module>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
# A build folder of its own, with the symbol-graph flags: a module's graph is written when it is
# compiled, so the folder keeps every module's latest one between runs.
scratch=.build-docs
graphs=$scratch/symbol-graphs
rm -rf .build/docs
mkdir -p "$graphs" .build/docs
# FlaskAPI brings the core four; FlaskTesting brings FlaskTools (neither is below FlaskAPI).
for target in FlaskAPI FlaskTesting; do
    swift build --scratch-path "$scratch" --target "$target" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
done
# The live session's module, in a package of its own.
swift build --package-path FlaskLiveSession --scratch-path FlaskLiveSession/.build-docs --target FlaskLiveSession \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
status=0
for module in FluxBus Archive Substances Reactors FlaskAPI FlaskTools FlaskTesting FlaskLiveSession; do
    dir=$(mktemp -d)
    cp "$graphs/$module.symbols.json" "$dir/"
    cp "$graphs/$module"@*.symbols.json "$dir/" 2>/dev/null || true
    catalog="Sources/$module/$module.docc"
    [ "$module" = FlaskLiveSession ] && catalog="FlaskLiveSession/Sources/$module/$module.docc"
    log=$(docc convert "$catalog" --additional-symbol-graph-dir "$dir" \
        --output-path ".build/docs/$module.doccarchive" --analyze 2>&1) || status=1
    rm -rf "$dir"
    warnings=$(grep -cE "^(warning|error):" <<<"$log" || true)
    if [ "$warnings" -gt 0 ]; then
        echo "FAIL: $module: $warnings warnings"
        grep -E "^(warning|error):" <<<"$log" | sort -u
        status=1
    else
        echo "ok: $module: no warnings"
    fi
done
exit $status
