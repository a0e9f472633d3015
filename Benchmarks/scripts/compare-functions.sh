#!/usr/bin/env bash
# Compares two callgrind profiles function by function (self instructions per dispatch).
#
#   Benchmarks/scripts/compare-functions.sh BEFORE.out AFTER.out COUNT
#
# Prints the functions whose self cost per dispatch moved by more than 5 instructions, sorted by
# the change. Make the profiles with
# `valgrind --tool=callgrind --callgrind-out-file=F .build/release/FlaskBenchmarks --scenario S --count COUNT`.
set -euo pipefail
python3 - "$1" "$2" "$3" <<'PY'
import re, sys
from collections import defaultdict

def self_costs(path):
    """Self cost per function name, summed over files and objects."""
    costs = defaultdict(int)
    names = {}
    current = None
    in_call = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(2): names[m.group(1)] = m.group(2)
                current = names[m.group(1)]
                continue
            if line.startswith("calls="):
                in_call = True
                continue
            m = re.match(r"^[+-]?\d+ (\d+)", line) or re.match(r"^\* (\d+)", line)
            if m and current is not None:
                if in_call:
                    in_call = False  # the line after calls= is the inclusive cost of the call
                else:
                    costs[current] += int(m.group(1))
            elif re.match(r"c?fn=|c?fi=|c?fe=|c?ob=", line):
                m2 = re.match(r"cfn=\((\d+)\)(?: (.*))?$", line)
                if m2 and m2.group(2): names[m2.group(1)] = m2.group(2)
    return costs

before, after, count = self_costs(sys.argv[1]), self_costs(sys.argv[2]), int(sys.argv[3])
rows = []
for name in set(before) | set(after):
    b, a = before.get(name, 0) / count, after.get(name, 0) / count
    if abs(a - b) > 5: rows.append((a - b, b, a, name))
for d, b, a, name in sorted(rows):
    print(f"{b:8.0f} {a:8.0f} {d:+8.0f}  {name[:140]}")
print(f"{'':8} {'':8} {sum(after.values())/count - sum(before.values())/count:+8.0f}  TOTAL")
PY
