#!/usr/bin/env python3
"""Lists the public and open declarations of the library's modules that have no `///` comment.

    .ci/check-doc-comments.py            # exits 1 when one is missing

A declaration counts as documented when the lines above it (attributes and blank-free) start
with `///`. Members that only implement a protocol requirement the standard library documents
(`description`, `==`, `hash(into:)`, `encode(to:)`, `init(from:)`, `makeIterator()`, ...) are
exempt: DocC shows the requirement's documentation.
"""
import os
import re
import sys

MODULES = [
    "FlaskLocking", "FluxBus", "Archive", "Substances", "Reactors", "FlaskAPI", "FlaskTools", "FlaskTesting",
    "FlaskJournalTool",
    "FlaskLiveSession",
]
DECLARATION = re.compile(
    r"^\s*(?:@[\w().:, \"]+\s+)*(?:(?:public|open)(?:\(set\))?\s+)+(?:(?:final|static|class|override|"
    r"nonisolated|convenience|required|mutating|indirect|dynamic|lazy|(?:private|internal|fileprivate|package)\(set\))\s+)*"
    r"(?P<kind>func|var|let|init|subscript|struct|class|enum|protocol|typealias|actor|case|extension)\b(?P<rest>.*)")
EXEMPT = re.compile(
    r"^(?:var description|var debugDescription|func hash\(into|static func ==|static func <|"
    r"func encode\(to|init\(from decoder|func makeIterator|func next\(|init\(stringLiteral|"
    r"var rawValue|init\?\(rawValue|init\?\(stringValue|init\?\(intValue|var stringValue|var intValue|"
    r"func makeAsyncIterator|var hashValue)")


def missing(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for index, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match or match.group("kind") == "extension":
            continue
        signature = (match.group("kind") + match.group("rest")).strip()
        if EXEMPT.match(signature):
            continue
        above = index - 1
        while above >= 0:
            text = lines[above].strip()
            if text.startswith("@") or text.startswith("//  "):
                above -= 1
            elif text.startswith(")"):  # the end of an attribute written over several lines
                while above >= 0 and not lines[above].strip().startswith("@"):
                    above -= 1
                above -= 1
            else:
                break
        while above >= 0 and lines[above].strip().startswith("// ") and not lines[above].strip().startswith("///"):
            above -= 1  # a plain comment between the doc comment and the declaration
        if above < 0 or not lines[above].strip().startswith("///"):
            found.append(f"{path}:{index + 1}: {line.strip()[:110]}")
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    report = []
    for module in MODULES:
        # The live session's module lives in a package of its own.
        sources = "FlaskLiveSession/Sources" if module == "FlaskLiveSession" else "Sources"
        for folder, _, files in os.walk(os.path.join(root, sources, module)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    report += missing(os.path.relpath(os.path.join(folder, name), root))
    for line in report:
        print(line)
    if report:
        print(f"{len(report)} public declarations without a /// comment")
        return 1
    print("ok: every public declaration has a /// comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
