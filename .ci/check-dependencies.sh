#!/usr/bin/env bash
# Keeps the dependency direction of the design: a lower module never imports a higher one.
#
#   FlaskLocking  <- FluxBus, Archive  <- Substances  <- Reactors  <- FlaskAPI
#                                         Substances  <- FlaskTools <- FlaskTesting (and Reactors)
#
# The tools (FlaskTools) and the test support (FlaskTesting) are built on the core, and no core
# module imports them; FlaskAPI re-exports the core four only. FlaskTesting uses FlaskTools' journal
# values to show a probe's values with their secrets redacted. The flask-journal tool
# (FlaskJournalTool) reads journals with FlaskTools alone.
#
# Each module may import the toolchain's modules and the project modules listed for it, no other.
set -euo pipefail
cd "$(dirname "$0")/.."
project="FlaskLocking FluxBus Archive Substances Reactors FlaskAPI FlaskTools FlaskTesting FlaskJournalTool"
declare -A allowed=(
    [FlaskLocking]=""
    [FluxBus]="FlaskLocking"
    [Archive]="FlaskLocking"
    [Substances]="FlaskLocking FluxBus Archive"
    [Reactors]="FlaskLocking FluxBus Substances"
    [FlaskAPI]="FluxBus Archive Substances Reactors"
    [FlaskTools]="FlaskLocking FluxBus Archive Substances"
    [FlaskTesting]="FlaskLocking FluxBus Archive Substances Reactors FlaskTools"
    [FlaskJournalTool]="FlaskTools"
)
status=0
for module in $project; do
    while IFS= read -r line; do
        file=${line%%:*}
        imported=$(sed -E 's/.*import[[:space:]]+([A-Za-z_]+).*/\1/' <<<"${line#*:}")
        for candidate in $project; do
            [ "$imported" = "$candidate" ] || continue
            [ "$imported" = "$module" ] && continue
            if ! grep -qw "$imported" <<<"${allowed[$module]}"; then
                echo "FAIL: $file imports $imported, which $module may not depend on"
                status=1
            fi
        done
    done < <(grep -rEH '^[[:space:]]*(@[_A-Za-z]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+[A-Za-z_]+' "Sources/$module" --include='*.swift' || true)
done
[ $status -eq 0 ] && echo "ok: every module imports only the modules below it"
exit $status
