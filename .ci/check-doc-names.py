#!/usr/bin/env python3
"""Every file, type and function the guides name in code font exists.

Reads README.md and docs/*.md (not docs/history, which records what was), takes each inline code
span outside fenced blocks, and checks the ones that name something of this repository against
what git tracks (what CI's fresh clone holds):

- a path (`Sources/Archive/...`, `docs/x.md`) or a file name (`Package.swift`): tracked, from the
  repository's root or from the guide's folder;
- a type (`FluxMixReport`, `MixJournal.Document`): declared (`struct`, `class`, `enum`,
  `protocol`, `actor`, `typealias`) in the sources, tests, samples or benchmarks, each member
  after a dot declared somewhere; a capitalized word alone may also be a target's or a file's
  stem, or a word of the code (a test's name);
- a function (`travel(to:on:)`, `Flask.apply(_:)`, `stored()`) or an initializer
  (`FileArchiveStore(directory:)`): a declaration of that name whose labels hold the ones written,
  in order (a guide may leave out defaulted ones); written with its type
  (`LiveSession.travel(to:on:)`), one in a file that declares or extends that type.

Names of the platform and of other libraries are listed in EXTERNAL below. Exits 1, listing each
name that is missing and where, when any is.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(ROOT)

CODE_DIRS = ["Sources", "Tests", "Samples", "Benchmarks", "FlaskLiveSession/Sources", "FlaskLiveSession/Tests"]
PATH_ROOTS = ("Sources/", "Tests/", "docs/", "Benchmarks/", "Samples/", "FlaskLiveSession/", ".ci/", "history/")

# The platform's and other libraries' names that the guides mention.
EXTERNAL = set("""
Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float Bool String Substring Character
Array Dictionary Set Optional Result Never Void Any AnyObject Error Codable Encodable Decodable Equatable Hashable
Sendable Identifiable Comparable Collection Sequence RandomAccessCollection MutableCollection CodingKey Encoder Decoder
Data Date URL UUID JSONEncoder JSONDecoder JSONSerialization PropertyListEncoder UserDefaults FileManager FileHandle
NSObject NSLock NSRecursiveLock Thread DispatchQueue DispatchSemaphore DispatchGroup DispatchTime OperationQueue
ProcessInfo Bundle NotificationCenter Notification Timer RunLoop URLSession URLRequest Task TaskGroup
AsyncStream AsyncSequence AsyncThrowingStream CheckedContinuation UnsafeContinuation MainActor Actor
Mutex Atomic ManagedBuffer ObjectIdentifier KeyPath WritableKeyPath StaticString Duration ContinuousClock Clock
SuspendingClock InstantProtocol DurationProtocol ObservableObject Published Observable ObservationRegistrar
View State Binding StateObject ObservedObject EnvironmentObject Environment SwiftUI UIKit AppKit Combine
XCTest XCTestCase XCTestExpectation Testing Foundation Dispatch Glibc Darwin Synchronization Observation
POSIXError CocoaError DecodingError EncodingError CancellationError SystemRandomNumberGenerator
Store Reducer Effect ReducerProtocol StoreOf ViewStore TestStore Dependency DependencyValues
StoreSubscriber StoreType Action DispatchFunction Middleware
Fluxor Feature Reducers Effects Selector
FlyingFox HTTPServer HTTPRequest HTTPResponse HTTPHeader WebSocketHTTPHandler Hummingbird Logger LogEvent
ServiceGroup Service ServiceLifecycle NIO EventLoop ByteBuffer
ReSwift SwiftFlux FluxFramework ClassyFlux Redux TCA
LockedValue Issue CaseIterable RangeReplaceableCollection Span SendableMetatype InferIsolatedConformances UIViewController
DOMContentLoaded Host LSSupportsOpeningDocumentsInPlace UIFileSharingEnabled NIOLoopBound TreeDictionary
""".split())

# Names the guides give as what was (decisions.md tells how a name came to be).
FORMER = {"MemoryArchiveStore"}

FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
TYPE_DECL = re.compile(r"\b(?:struct|class|enum|protocol|actor|typealias|associatedtype)\s+([A-Za-z_][A-Za-z0-9_]*)")
NAME_DECL = re.compile(
    r"\b(?:func|var|let|case|struct|class|enum|protocol|actor|typealias|associatedtype)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?")
CASE_LIST = re.compile(r"^\s*(?:(?:public|package|internal|indirect)\s+)*case\s+(.+)$")
MACRO = re.compile(r"^\s*(?:public\s+)?macro\s+([A-Za-z_][A-Za-z0-9_]*)")


def labels_of(parameters):
    """The argument labels of a parameter list's text: `_ x: Int, to y: Int = 0` is `_`, `to`."""
    depth, part, parts = 0, "", []
    for character in parameters.replace("->", " "):
        if character in "([<{":
            depth += 1
        elif character in ")]>}":
            depth -= 1
        if character == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += character
    if part.strip():
        parts.append(part)
    labels = []
    for part in parts:
        head = part.split(":")[0].strip()
        words = [w for w in re.split(r"\s+", head) if w and not w.startswith("@") and w not in ("inout", "borrowing", "consuming", "isolated")]
        if not words:
            continue
        labels.append(words[0].strip("`"))
    return labels


SIGNATURE = re.compile(
    r"\b(?:(?:func|case)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?|(init|subscript))\s*[?!]?\s*(?:<[^(]*>)?\s*\(")


def signatures(text):
    """Each function's, initializer's and subscript's name and argument labels in `text`."""
    found = []
    for match in SIGNATURE.finditer(text):
        name = match.group(1) or match.group(2)
        start = match.end()
        depth, index = 1, start
        while index < len(text) and depth:
            if text[index] == "(":
                depth += 1
            elif text[index] == ")":
                depth -= 1
            index += 1
        found.append((name, labels_of(text[start:index - 1])))
    return found


def declarations():
    types, names = set(), set()
    global SIGNATURES
    SIGNATURES = {}
    for top in CODE_DIRS:
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if not d.startswith(".build")]
            for name in files:
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as source:
                    text = source.read()
                    # The types a function of this file may belong to: those it declares or extends.
                    owners = set(TYPE_DECL.findall(text)) | set(
                        re.findall(r"\bextension\s+([A-Za-z_][A-Za-z0-9_]*)", text))
                    for function, labels in signatures(text):
                        SIGNATURES.setdefault(function, []).append((labels, owners))
                    for line in text.splitlines():
                        types.update(TYPE_DECL.findall(line))
                        names.update(NAME_DECL.findall(line))
                        cases = CASE_LIST.match(line)
                        if cases:
                            for part in cases.group(1).split(","):
                                word = re.match(r"\s*`?([A-Za-z_][A-Za-z0-9_]*)", part)
                                if word:
                                    names.add(word.group(1))
                        macro = MACRO.match(line)
                        if macro:
                            names.add(macro.group(1))
                        if re.search(r"\binit\s*[(<?!]", line):
                            names.add("init")
                        if re.search(r"\bsubscript\s*[(<]", line):
                            names.add("subscript")
    return types, names | types


def spans(path):
    with open(path, encoding="utf-8") as guide:
        fenced = False
        for number, line in enumerate(guide, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                for span in SPAN.findall(line):
                    yield number, span.strip()


PATH = re.compile(r"^[\w.@+-]+(/[\w.@+-]*)+$")
TYPE = re.compile(r"^([A-Z][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$")
FUNCTION = re.compile(r"^(?:([A-Z][A-Za-z0-9_]*)\.)?(?:[A-Za-z_][A-Za-z0-9_]*\.)*([a-z_][A-Za-z0-9_]*|init)\(((?:[A-Za-z_]+:)*)\)$")


def is_subsequence(short, long):
    iterator = iter(long)
    return all(any(label == candidate for candidate in iterator) for label in short)


FILE = re.compile(r"^[\w.+-]+\.(swift|md|sh|py|json|yml|yaml|html|png|txt|jsonl)$")
# What git tracks (or has staged): what a fresh clone, CI's, holds; a file left untracked here
# would let a stale name pass here and fail there.
TRACKED = set(subprocess.run(
    ["git", "ls-files", "--cached"], capture_output=True, text=True, check=True).stdout.split("\n")) - {""}
FILES = {os.path.basename(path) for path in TRACKED}
FOLDERS = set()
for path in TRACKED:
    folder = os.path.dirname(path)
    while folder and folder not in FOLDERS:
        FOLDERS.add(folder)
        folder = os.path.dirname(folder)


# Every file's and folder's stem (`UnsafeStateMemory` for its .swift file, `FlaskAPI` for its
# folder), and every word of the tracked Swift files.
STEMS = {os.path.splitext(os.path.basename(path))[0] for path in TRACKED | FOLDERS}
WORDS = set()
for path in TRACKED:
    if path.endswith(".swift"):
        with open(path, encoding="utf-8", errors="replace") as source:
            WORDS.update(re.findall(r"[A-Z][A-Za-z0-9_]+", source.read()))


def tracked(path):
    path = os.path.normpath(path)
    return path in TRACKED or path in FOLDERS

# Functions of the platform the guides name alone (`synchronize()`, UserDefaults').
EXTERNAL_FUNCTIONS = {"synchronize", "print", "precondition", "assert", "fatalError", "withObservationTracking",
                      "withCheckedContinuation", "withTaskGroup", "sleep", "fsync", "rename", "flock", "open", "kill"}


# Names that stand for a pattern, not a file.
PATTERNS = {"Type+Concern.swift"}


# `FileArchiveStore(directory:)`: a type's initializer, with the labels written.
CONSTRUCTOR = re.compile(r"^([A-Z][A-Za-z0-9_]*)\(((?:[A-Za-z_]+:)*)\)$")
# Structs whose memberwise initializer the guides use (not declared, so not checked by label).
MEMBERWISE = set()


def check(types, names):
    missing = []
    guides = ["README.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir("docs") if name.endswith(".md"))
    for guide in guides:
        here = os.path.dirname(guide)
        for number, span in spans(guide):
            where = f"{guide}:{number}"
            if PATH.match(span) and span.startswith(PATH_ROOTS) and not any(c in span for c in "*<>{}"):
                target = span.split("#")[0].rstrip("/")
                if not (tracked(target) or tracked(os.path.join(here, target))):
                    missing.append(f"{where}: no file {span}")
                continue
            made = CONSTRUCTOR.match(span)
            if made and made.group(1) not in EXTERNAL:
                owner = made.group(1)
                written = [label[:-1] for label in re.findall(r"[A-Za-z_]+:", made.group(2))]
                if owner not in types:
                    # A function named in capitals (the seed's `MixSubstances(with:payload:)`).
                    if not any(is_subsequence(written, labels) for labels, _ in SIGNATURES.get(owner, [])):
                        missing.append(f"{where}: no type or function {owner} (in {span})")
                elif owner not in MEMBERWISE and not any(
                    is_subsequence(written, labels) and owner in owners for labels, owners in SIGNATURES.get("init", [])
                ):
                    missing.append(f"{where}: no init of {owner} with the labels of {span}")
                continue
            function = FUNCTION.match(span)
            if function:
                owner, base = function.group(1), function.group(2)
                if owner and owner not in types and owner not in EXTERNAL:
                    missing.append(f"{where}: no type {owner} (in {span})")
                elif (owner or "") in EXTERNAL or base in EXTERNAL_FUNCTIONS:
                    pass
                elif base not in names:
                    missing.append(f"{where}: no function {base} (in {span})")
                elif base in SIGNATURES or base == "init":
                    # The labels written, in order, among some declaration's (a guide may leave
                    # out defaulted parameters).
                    written = [label[:-1] for label in re.findall(r"[A-Za-z_]+:", function.group(3))]
                    # Written with its type (`LiveSession.travel(to:on:)`): a declaration in a file
                    # that declares or extends that type.
                    # (`Flask.bus.lockReport()` names the bus's, whatever type that is: no scope.)
                    scope = owner if len(span.split("(")[0].split(".")) == 2 else None
                    if not any(
                        is_subsequence(written, labels) and (not scope or scope in owners)
                        for labels, owners in SIGNATURES.get(base, [])
                    ):
                        missing.append(f"{where}: no {base} with the labels of {span}")
                continue
            if FILE.match(span) and "/" not in span and span not in PATTERNS:
                if span not in FILES:
                    missing.append(f"{where}: no file named {span}")
                continue
            kind = TYPE.match(span)
            if kind and (kind.group(1) in types or kind.group(2) or len(kind.group(1)) > 3):
                head, members = kind.group(1), [m for m in kind.group(2).split(".") if m]
                if head in EXTERNAL:
                    continue
                if head not in types:
                    # A capitalized word that is no type: a module or target, a file's stem, a
                    # word the code holds (a test's name), or a name of the past.
                    known = head in STEMS or head in WORDS or head in FORMER or head.isupper()
                    if members or not known:
                        missing.append(f"{where}: no type {head} (in {span})")
                    continue
                for member in members:
                    if member not in names:
                        missing.append(f"{where}: no member {member} (in {span})")
                        break
    return missing


if __name__ == "__main__":
    types, names = declarations()
    missing = check(types, names)
    for line in missing:
        print(line)
    if missing:
        print(f"FAIL: {len(missing)} names in the guides that the repository does not have")
        sys.exit(1)
    print("ok: every file, type and function the guides name exists")
