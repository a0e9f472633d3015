#!/usr/bin/env bash
# Counts the public and open declarations of each module in Sources, and their total: the size of
# the API each module shows its users (issue #40 holds Substances to at most 170).
#
#   Benchmarks/scripts/public-declarations.sh
#
# A line counts when it declares something `public` or `open` (a func, var, let, init, subscript,
# type, typealias, actor or enum case), with the regular expression of .ci/check-doc-comments.py;
# extensions do not count, their members do. Columns: every public declaration ("public", the
# figure the issue counted), those behind `@_spi(FlaskInternals)` (out of reach without that
# import), the deprecated ones (and the unavailable ones: spellings refused with advice, such as
# `mixing: a, b`), and what is left: the canonical API. The total counts products only.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import os
import re

DECLARATION = re.compile(
    r"^\s*(?:@[\w().:, \"]+\s+)*(?:(?:public|open)(?:\(set\))?\s+)+(?:(?:final|static|class|override|"
    r"nonisolated|convenience|required|mutating|indirect|dynamic|lazy|(?:private|internal|fileprivate|package)\(set\))\s+)*"
    r"(?P<kind>func|var|let|init|subscript|struct|class|enum|protocol|typealias|actor|case|extension)\b")

# Products a user may depend on (Package.swift); the other modules' public declarations are seams
# between this package's own modules, out of a user's reach.
with open("Package.swift", encoding="utf-8") as manifest:
    products = set(re.findall(r'\.library\(name: "(\w+)"', manifest.read()))

print(f"{'module':<18} {'public':>7} {'spi':>5} {'deprecated':>11} {'canonical':>10}")
totals = [0, 0, 0, 0]
for module in sorted(os.listdir("Sources")):
    public = spi = deprecated = 0
    for folder, _, files in os.walk(os.path.join("Sources", module)):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as source:
                attributes = []  # the attribute lines right above the current line
                deprecated_scope = 0  # depth inside a deprecated type (its members are too)
                for line in source:
                    stripped = line.strip()
                    match = DECLARATION.match(line)
                    if match and match.group("kind") != "extension":
                        public += 1
                        context = " ".join(attributes) + " " + stripped
                        if "@_spi(" in context:
                            spi += 1
                        elif ("deprecated" in context or "unavailable" in context) and "@available" in context:
                            deprecated += 1
                    if stripped.startswith("@") and not match:
                        attributes.append(stripped)
                    elif not stripped.startswith("///"):
                        attributes = []
    canonical = public - spi - deprecated
    shown = module if module in products else f"({module})"
    print(f"{shown:<18} {public:>7} {spi:>5} {deprecated:>11} {canonical:>10}")
    if module in products:
        totals = [a + b for a, b in zip(totals, [public, spi, deprecated, canonical])]
print(f"{'products':<18} {totals[0]:>7} {totals[1]:>5} {totals[2]:>11} {totals[3]:>10}")
print("(a module in parentheses is no product: its public declarations are seams between this package's modules)")
PY
