#!/usr/bin/env bash
# Counts the public and open declarations of each module in Sources, and their total: the size of
# the API each module shows its users (issue #40 holds Substances to at most 170).
#
#   Benchmarks/scripts/public-declarations.sh
#
# A line counts when it declares something `public` or `open` (a func, var, let, init, subscript,
# type, typealias, actor or enum case), with the regular expression of .ci/check-doc-comments.py;
# extensions do not count, their members do.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import os
import re

DECLARATION = re.compile(
    r"^\s*(?:@[\w().:, \"]+\s+)*(?:(?:public|open)(?:\(set\))?\s+)+(?:(?:final|static|class|override|"
    r"nonisolated|convenience|required|mutating|indirect|dynamic|lazy|(?:private|internal|fileprivate|package)\(set\))\s+)*"
    r"(?P<kind>func|var|let|init|subscript|struct|class|enum|protocol|typealias|actor|case|extension)\b")

total = 0
for module in sorted(os.listdir("Sources")):
    count = 0
    for folder, _, files in os.walk(os.path.join("Sources", module)):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as source:
                for line in source:
                    match = DECLARATION.match(line)
                    if match and match.group("kind") != "extension":
                        count += 1
    total += count
    print(f"{module:<18} {count:>5}")
print(f"{'total':<18} {total:>5}")
PY
