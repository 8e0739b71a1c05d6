#!/usr/bin/env python3
"""Checks that a Windows DLL needs nothing that Windows 7 SP1 lacks.

    check-win7.py DLL|EXE...            the audit (make dist-windows runs it on
                                        the win7 DLLs): fails if a DLL imports
                                        a function that
                                        packaging/win7-missing-imports.txt says
                                        Windows 7 lacks, or a DLL it lacks whole,
                                        or if its PE header asks for a Windows
                                        later than 6.1
    check-win7.py --list DLL...         prints every function each DLL imports
    check-win7.py --covers WIN10 WIN7   the list against what Rust's standard
                                        library does differently for win7:
                                        fails if the Windows 10 DLL imports a
                                        function that the win7 DLL (the same
                                        code for the win7 target) does not and
                                        the list does not say whether Windows 7
                                        has it

The imports and the header are read with objdump -p (OBJDUMP, by default
x86_64-w64-mingw32-objdump, which reads 32-bit DLLs too).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, "win7-missing-imports.txt")
# The list as the repository names it, in messages.
LIST_NAME = "packaging/win7-missing-imports.txt"
OBJDUMP = os.environ.get("OBJDUMP", "x86_64-w64-mingw32-objdump")
# Windows 7 and Server 2008 R2 are Windows NT 6.1.
WINDOWS_7 = (6, 1)


def read_list():
    """(lacks, has) from the list: the functions Windows 7 lacks, with "DLL!*"
    for each DLL it lacks whole, and the functions it has."""
    lacks, has = set(), set()
    with open(LIST, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 3 or words[0] not in ("lacks", "has"):
                sys.exit("%s:%d: expected `lacks DLL FUNCTION`, `lacks DLL *` or `has DLL FUNCTION`" % (LIST, number))
            kind, dll, function = words[0], words[1].lower(), words[2]
            if kind == "has":
                has.add(function)
            else:
                lacks.add(dll + "!*" if function == "*" else function)
    return lacks, has


def objdump(dll):
    try:
        return subprocess.run([OBJDUMP, "-p", dll], check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("%s is missing (Debian: binutils-mingw-w64-x86-64)" % OBJDUMP)
    except subprocess.CalledProcessError as error:
        sys.exit("%s -p %s: %s" % (OBJDUMP, dll, error.stderr.strip()))


def imports(dump):
    """[(DLL, function)] from objdump's import tables, the DLL in lower case.

    Each table starts with `DLL Name: X.dll`, then a `vma: Hint/Ord
    Member-Name` heading, then one line per function (`hex  hint  name`,
    or `hex  <none>  ordinal` for an import by number), then a blank line."""
    found, dll = [], None
    for line in dump.splitlines():
        named = re.match(r"\s*DLL Name: (\S+)", line)
        if named:
            dll = named.group(1).lower()
        elif not line.strip():
            dll = None
        elif dll and not line.lstrip().startswith("vma:"):
            fields = line.split()
            if len(fields) >= 3 and re.fullmatch(r"[0-9a-fA-F]+", fields[0]):
                found.append((dll, fields[2]))
    return found


def versions(dump):
    """{"OSystem": (major, minor), "Subsystem": (major, minor)} from the PE header."""
    header = dict(re.findall(r"^(M\w+Version)\s+(\d+)", dump, re.M))
    try:
        return {
            kind: (int(header["Major%sVersion" % kind]), int(header["Minor%sVersion" % kind]))
            for kind in ("OSystem", "Subsystem")
        }
    except KeyError as key:
        sys.exit("objdump -p shows no %s" % key)


def audit(dll, lacks):
    """The reasons `dll` would not load on Windows 7; prints what it imports."""
    dump = objdump(dll)
    found = imports(dump)
    if not found:
        # Every DLL imports from kernel32: none read is objdump's format not understood.
        sys.exit("%s: no imports read from objdump -p, cannot audit" % dll)
    problems = []
    for dll_name, function in found:
        if function in lacks or dll_name + "!*" in lacks:
            problems.append("imports %s!%s, which Windows 7 lacks" % (dll_name, function))
    for kind, version in versions(dump).items():
        if version > WINDOWS_7:
            problems.append("its PE header asks for %s version %d.%d, later than Windows 7's 6.1" % (kind, *version))
    dlls = sorted({dll_name for dll_name, _ in found})
    print("%s: %d functions from %s" % (dll, len(found), " ".join(dlls)))
    return problems


def covers(win10, win7, lacks, has):
    """The functions that the Windows 10 DLL imports and the win7 DLL does not,
    and the ones of them that the list does not name."""
    only_win10 = sorted({name for _, name in imports(objdump(win10))} - {name for _, name in imports(objdump(win7))})
    print("imported by %s and not by %s: %s" % (win10, win7, " ".join(only_win10) or "none"))
    return [name for name in only_win10 if name not in lacks and name not in has]


def main(args):
    mode = args[0] if args and args[0].startswith("--") else None
    dlls = args[1:] if mode else args
    if not dlls or mode not in (None, "--list", "--covers"):
        sys.exit(__doc__)
    if mode == "--list":
        for dll in dlls:
            for dll_name, function in imports(objdump(dll)):
                print("%s %s" % (dll_name, function))
        return 0
    lacks, has = read_list()
    if mode == "--covers":
        if len(dlls) != 2:
            sys.exit(__doc__)
        unnamed = covers(dlls[0], dlls[1], lacks, has)
        if unnamed:
            print("%s does not say whether Windows 7 has %s" % (LIST_NAME, " ".join(unnamed)),
                  file=sys.stderr)
            return 1
        print("%s names every one of them" % LIST_NAME)
        return 0
    failed = False
    for dll in dlls:
        for problem in audit(dll, lacks):
            print("%s %s" % (dll, problem), file=sys.stderr)
            failed = True
    if failed:
        return 1
    print("none of them is one Windows 7 lacks (%s), and the PE header asks for 6.1 or earlier"
          % LIST_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
