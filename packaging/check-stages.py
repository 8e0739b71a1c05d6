#!/usr/bin/env python3
"""Checks that chatwire's stages only look down.

Reads the `edge: A -> B` lines of the import-circles tool (`--edges`) from
standard input and fails when a stage names one it must not (see
ARCHITECTURE.md, "Rules that hold everywhere"), or when more than ten files
sit directly in src/.
"""
import re
import sys

# stage -> the stages it must never name
FORBIDDEN = {
    "http": {"conversation", "stream", "structured", "client", "reply", "ffi"},
    "stream": {"http", "client", "structured", "ffi"},
    "conversation": {"http", "stream", "wire", "structured", "reply", "client", "ffi"},
    "wire": {"http", "stream", "client", "structured", "ffi"},
    "schema": {"http", "stream", "wire", "conversation", "client", "structured", "reply", "ffi"},
    "batch": {"http", "stream", "client", "structured", "ffi"},
    "config": {"http", "stream", "wire", "conversation", "client", "structured", "reply", "ffi"},
}

def stage(module):
    return module.split("::")[0]

def main():
    bad = []
    for line in sys.stdin:
        match = re.match(r"edge:\s*(\S*)\s*->\s*(\S+)", line)
        if match:
            source, target = stage(match.group(1)), stage(match.group(2))
            if target in FORBIDDEN.get(source, ()):
                bad.append(f"{match.group(1)} names {match.group(2)}")
        match = re.match(r"files directly in src/:\s*(\d+)", line)
        if match and int(match.group(1)) > 10:
            bad.append(f"{match.group(1)} files directly in src/ (at most 10)")
    for line in bad:
        print("stage rule broken:", line)
    if not bad:
        print("stages look only down")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
