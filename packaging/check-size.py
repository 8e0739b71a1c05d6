#!/usr/bin/env python3
"""Counts the lines of chatwire's code, folder by folder, and checks two
rules of ARCHITECTURE.md: no file over 500 lines, and `unsafe` only in
src/ffi/ and src/sys.rs.

Tests are left out: `#[cfg(test)]` and `#[cfg(all(test, ...))]` items,
files named tests.rs and folders named tests. "all" counts every line, blank ones too (the
measure of the size goals), "lines" the lines that are not blank,
"code" those that are not comments either. The 500-line rule reads
"lines".

    python3 packaging/check-size.py [src]
"""
import collections
import os
import re
import sys

MAX_FILE_LINES = 500
# An item compiled only for tests: `#[cfg(test)]`, or `test` among the
# conditions of `#[cfg(all(...))]`.
TEST_ONLY = re.compile(r"#\[cfg\((test\)|all\((.*,\s*)?test\s*[,)])")
UNSAFE_ALLOWED = ("ffi/", "sys.rs")


def is_comment(stripped):
    return stripped.startswith("//")


def count(path):
    """(all, lines, code, unsafe line numbers) of one file, tests left out."""
    every = lines = code = 0
    unsafe = []
    depth = 0
    skip_until = None  # the depth a test module's closing brace returns to
    pending_test = False
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            stripped = line.strip()
            if skip_until is not None:
                depth += braces(stripped)
                if depth <= skip_until:
                    skip_until = None
                continue
            if TEST_ONLY.match(stripped):
                pending_test = True
                continue
            if pending_test:
                if stripped.startswith("#[") or not stripped or is_comment(stripped):
                    continue
                pending_test = False
                if stripped.startswith("mod ") and stripped.endswith(";"):
                    continue
                before = depth
                depth += braces(stripped)
                if depth > before:
                    skip_until = before
                continue
            every += 1
            if not stripped:
                continue
            depth += braces(stripped)
            lines += 1
            if is_comment(stripped):
                continue
            code += 1
            if re.search(r"\bunsafe\b", stripped.split("//")[0]):
                unsafe.append(number)
    return every, lines, code, unsafe


def braces(stripped):
    """The change of nesting depth on a line. Braces inside strings and
    comments count too: in this code base they come in pairs (JSON in raw
    strings, `{{` in formats), and a lexer would not be worth its lines."""
    return stripped.count("{") - stripped.count("}")


def is_test_path(relative):
    parts = relative.split(os.sep)
    return parts[-1] == "tests.rs" or "tests" in parts[:-1]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    per_folder = collections.defaultdict(lambda: [0, 0, 0])
    problems = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            if is_test_path(relative):
                continue
            every, lines, code, unsafe = count(path)
            top = relative.split(os.sep)[0] if os.sep in relative else "(src/)"
            for column, value in enumerate((every, lines, code)):
                per_folder[top][column] += value
            if lines > MAX_FILE_LINES:
                problems.append(f"{relative}: {lines} lines (at most {MAX_FILE_LINES})")
            if unsafe and not relative.replace(os.sep, "/").startswith(UNSAFE_ALLOWED):
                problems.append(f"{relative}: unsafe on lines {unsafe} (only ffi/ and sys.rs)")
    print(f"{'folder':14}{'all':>8}{'lines':>8}{'code':>8}")
    for top, values in sorted(per_folder.items()):
        print(f"{top:14}" + "".join(f"{value:>8}" for value in values))
    total = [sum(values[i] for values in per_folder.values()) for i in range(3)]
    print(f"{'total':14}" + "".join(f"{value:>8}" for value in total))
    for problem in problems:
        print("size rule broken:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
