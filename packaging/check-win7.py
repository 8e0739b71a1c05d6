#!/usr/bin/env python3
"""Checks that a Windows DLL needs nothing that Windows 7 SP1 lacks.

    check-win7.py DLL...            the audit (make dist-windows runs it on
                                    the win7 DLLs): fails if a DLL imports a
                                    function of packaging/win7-missing-imports.txt
                                    or a DLL listed there whole, or if its PE
                                    header asks for a Windows later than 6.1
    check-win7.py --list DLL...     prints every function each DLL imports
    check-win7.py --covers DLL...   for the Windows 10 DLLs: fails if one
                                    imports a function that MinGW-w64's headers
                                    declare only for Windows 8 or later and the
                                    list lacks; names the imports the headers do
                                    not declare, to look up by hand

The imports and the header are read with objdump -p (OBJDUMP, by default
x86_64-w64-mingw32-objdump, which reads 32-bit DLLs too); --covers compiles
with x86_64-w64-mingw32-gcc (CC).
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MISSING = os.path.join(HERE, "win7-missing-imports.txt")
OBJDUMP = os.environ.get("OBJDUMP", "x86_64-w64-mingw32-objdump")
CC = os.environ.get("CC", "x86_64-w64-mingw32-gcc")
# Windows 7 and Server 2008 R2 are Windows NT 6.1.
WINDOWS_7 = (6, 1)
# The headers that declare what the Windows 10 DLLs import (--covers).
HEADERS = ["winsock2.h", "ws2tcpip.h", "windows.h", "ntsecapi.h", "bcrypt.h", "wincrypt.h", "userenv.h"]


def read_missing():
    """{function or "DLL!*": the DLL it comes from} from the list."""
    missing = {}
    with open(MISSING, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 2:
                sys.exit("%s:%d: expected `DLL FUNCTION` or `DLL *`" % (MISSING, number))
            dll, function = line[0].lower(), line[1]
            missing[dll + "!*" if function == "*" else function] = dll
    return missing


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


def audit(dll, missing):
    """The reasons `dll` would not load on Windows 7; prints what it imports."""
    dump = objdump(dll)
    found = imports(dump)
    problems = []
    for dll_name, function in found:
        if function in missing or dll_name + "!*" in missing:
            problems.append("imports %s!%s, which Windows 7 lacks" % (dll_name, function))
    for kind, version in versions(dump).items():
        if version > WINDOWS_7:
            problems.append("its PE header asks for %s version %d.%d, later than Windows 7's 6.1" % (kind, *version))
    dlls = sorted({dll_name for dll_name, _ in found})
    print("%s: %d functions from %s" % (dll, len(found), " ".join(dlls)))
    return problems


def declared(functions, winnt):
    """The functions that MinGW-w64's headers declare for _WIN32_WINNT=winnt."""
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "probe.c")
        with open(source, "w", encoding="utf-8") as probe:
            probe.write("".join("#include <%s>\n" % header for header in HEADERS))
            probe.write("void *probe[] = {\n%s};\n" % "".join("  (void *)&%s,\n" % name for name in functions))
        flags = ["-D_WIN32_WINNT=%s" % winnt, "-DWINVER=%s" % winnt, "-fsyntax-only", "-fmax-errors=0", "-w"]
        result = subprocess.run([CC, *flags, source], capture_output=True, text=True)
    undeclared = set(re.findall(r"'(\w+)' undeclared", result.stderr))
    if result.returncode and not undeclared:
        sys.exit("%s could not compile the probe:\n%s" % (CC, result.stderr))
    return set(functions) - undeclared


def covers(dlls, missing):
    """The functions the DLLs import that need Windows 8 by the headers and the list lacks."""
    functions = sorted({function for dll in dlls for _, function in imports(objdump(dll))})
    windows_7 = declared(functions, "0x0601")
    windows_11 = declared(functions, "0x0A00")
    later = sorted(windows_11 - windows_7)
    unknown = sorted(set(functions) - windows_11)
    print("%d functions imported: %d declared for Windows 7 by MinGW-w64's headers, %d only for later versions (%s)"
          % (len(functions), len(windows_7), len(later), " ".join(later) or "none"))
    if unknown:
        print("not declared there, to look up by hand: %s" % " ".join(unknown))
    return [name for name in later if name not in missing]


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
    missing = read_missing()
    if mode == "--covers":
        lacking = covers(dlls, missing)
        if lacking:
            print("%s lacks: %s" % (os.path.relpath(MISSING), " ".join(lacking)), file=sys.stderr)
            return 1
        print("%s lists every one of them" % os.path.relpath(MISSING))
        return 0
    failed = False
    for dll in dlls:
        for problem in audit(dll, missing):
            print("%s %s" % (dll, problem), file=sys.stderr)
            failed = True
    if failed:
        return 1
    print("none of them is one Windows 7 lacks (%s), and the PE header asks for 6.1 or earlier"
          % os.path.relpath(MISSING))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
