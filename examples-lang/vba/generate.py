#!/usr/bin/env python3
"""Writes chatwire.bas, the VBA / VB6 module of chatwire, from include/chatwire.h.

    python3 generate.py            rewrites chatwire.bas beside this script
    python3 generate.py --check    exits 1 when chatwire.bas differs from what the header gives

Every function of the header gets a Declare line in two forms: `#If VBA7`
(Office 2010 and later, 32- and 64-bit: PtrSafe, LongPtr for pointers and
size_t) and the other branch (VB6 and Office before 2010, 32-bit: Long).
Text parameters are pointers (`ByVal ... As LongPtr`): pass the address of
UTF-8 bytes from Utf8Z(), never a VB String, which VB would convert to the
ANSI code page. Functions with a uint64_t parameter are left out: VB6 and
32-bit VBA have no 64-bit integer, and each has a _u32 twin that is
declared. The status codes and the other enums become Public Const. The
helpers at the end convert between VB strings and UTF-8.
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = HERE.parent.parent / "include" / "chatwire.h"
MODULE = HERE / "chatwire.bas"

# Parameter names VB reserves or that shadow a VBA function or statement.
RESERVED = {
    "access", "and", "append", "base", "binary", "call", "case", "close", "compare", "const", "count", "date",
    "dim", "do", "each", "else", "end", "error", "event", "exit", "explicit", "file", "for", "function", "get",
    "if", "index", "input", "is", "kind", "len", "let", "level", "like", "line", "lock", "loop", "me", "mod",
    "name", "new", "next", "not", "object", "on", "open", "option", "or", "output", "print", "private",
    "property", "public", "put", "random", "read", "resume", "return", "seek", "select", "set", "shared",
    "static", "step", "stop", "string", "sub", "text", "then", "time", "to", "type", "until", "value",
    "while", "width", "with", "write", "xor",
}


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def enums(header):
    """(type, [(name, value)]) for each typedef enum, in header order."""
    found = []
    for body, name in re.findall(r"typedef enum \{(.*?)\} (\w+);", header, flags=re.S):
        members = []
        for member in body.split(","):
            member = " ".join(member.split())
            if member:
                key, value = (part.strip() for part in member.split("="))
                members.append((key, int(value)))
        found.append((name, members))
    return found


def callback_types(header):
    return set(re.findall(r"typedef \w+ \((?:CHATWIRE_CALL )?\*(\w+)\)", header))


def functions(header):
    """(return type, name, [(type, name)]) for each exported function."""
    found = []
    for decl in re.findall(r"CHATWIRE_API\s+([^;{}#]*?\));", header, flags=re.S):
        decl = " ".join(decl.replace("CHATWIRE_CALL", " ").split())
        head, params = decl.split("(", 1)
        params = params[:-1].strip()
        match = re.match(r"(.*?)(\w+)$", head.strip())
        ret, name = match.group(1).strip(), match.group(2)
        parsed = []
        if params != "void":
            for param in params.split(","):
                param = param.strip().replace(" *", "* ").replace("* *", "**")
                param = re.sub(r"\s*\*\s*", "* ", param).replace("* * ", "** ")
                ptype, pname = param.rsplit(" ", 1)
                parsed.append((" ".join(ptype.split()), pname))
        found.append((" ".join(ret.replace(" *", "*").split()), name, parsed))
    return found


def vb_name(name):
    parts = name.split("_")
    camel = parts[0] + "".join(part.capitalize() for part in parts[1:])
    camel = camel + "Arg" if camel.lower() in RESERVED else camel
    # A VB identifier: a letter, then letters, digits and underscores.
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,254}", camel):
        raise SystemExit("generate.py: %r makes no VB name" % name)
    return camel


def vb_param(ctype, name, pointer, callbacks):
    """The VB parameter for a C one, or None when VB cannot take it."""
    base = ctype.replace("const ", "")
    if "uint64_t" in base:
        return None
    if base.endswith("**") or base == "size_t*":
        return "ByRef %s As %s" % (vb_name(name), pointer)
    if base in ("int*", "uint32_t*"):
        return "ByRef %s As Long" % vb_name(name)
    if base == "double*":
        return "ByRef %s As Double" % vb_name(name)
    if base.endswith("*") or base in callbacks:
        return "ByVal %s As %s" % (vb_name(name), pointer)
    if base in ("int", "uint32_t", "chatwire_status"):
        return "ByVal %s As Long" % vb_name(name)
    if base == "size_t":
        return "ByVal %s As %s" % (vb_name(name), pointer)
    if base == "double":
        return "ByVal %s As Double" % vb_name(name)
    raise SystemExit("generate.py: no VB type for parameter %s %s" % (ctype, name))


def vb_return(ctype, pointer):
    base = ctype.replace("const ", "")
    if base == "void":
        return None
    if base.endswith("*") or base == "size_t":
        return pointer
    if base in ("int", "uint32_t", "chatwire_status"):
        return "Long"
    if base == "double":
        return "Double"
    raise SystemExit("generate.py: no VB type for return type %s" % ctype)


def declares(funcs, callbacks, pointer, ptrsafe):
    lines, left_out = [], []
    for ret, name, params in funcs:
        vb_params = [vb_param(ctype, pname, pointer, callbacks) for ctype, pname in params]
        if None in vb_params or "uint64_t" in ret:
            left_out.append(name)
            continue
        returns = vb_return(ret, pointer)
        kind = "Function" if returns else "Sub"
        line = "    Public Declare %s%s %s Lib \"chatwire.dll\" (%s)" % (
            "PtrSafe " if ptrsafe else "", kind, name, ", ".join(vb_params))
        if returns:
            line += " As " + returns
        lines.append(line)
    return lines, left_out


HELPERS = r"""
' ---------------------------------------------------------------------------
' UTF-8 <-> VB strings. chatwire takes and gives UTF-8; VB strings are UTF-16.

Private Const CP_UTF8 As Long = 65001

#If VBA7 Then
    Private Declare PtrSafe Function MultiByteToWideChar Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal utf8 As LongPtr, ByVal utf8Bytes As Long, ByVal wide As LongPtr, ByVal wideChars As Long) As Long
    Private Declare PtrSafe Function WideCharToMultiByte Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal wide As LongPtr, ByVal wideChars As Long, ByVal utf8 As LongPtr, ByVal utf8Bytes As Long, ByVal defaultChar As LongPtr, ByVal usedDefaultChar As LongPtr) As Long
    Private Declare PtrSafe Function lstrlenA Lib "kernel32" (ByVal text As LongPtr) As Long
#Else
    Private Declare Function MultiByteToWideChar Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal utf8 As Long, ByVal utf8Bytes As Long, ByVal wide As Long, ByVal wideChars As Long) As Long
    Private Declare Function WideCharToMultiByte Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal wide As Long, ByVal wideChars As Long, ByVal utf8 As Long, ByVal utf8Bytes As Long, ByVal defaultChar As Long, ByVal usedDefaultChar As Long) As Long
    Private Declare Function lstrlenA Lib "kernel32" (ByVal text As Long) As Long
#End If

#If VBA7 Then
    Private Declare PtrSafe Function LoadLibraryW Lib "kernel32" (ByVal fileName As LongPtr) As LongPtr
#Else
    Private Declare Function LoadLibraryW Lib "kernel32" (ByVal fileName As Long) As Long
#End If

' Loads chatwire.dll from its full path, once before the first chatwire call,
' so that the Declares find it wherever it is: LoadChatwire(ThisWorkbook.Path & "\chatwire.dll").
' False when Windows cannot load it (missing, or the other bitness than Office's).
Public Function LoadChatwire(ByVal fullPath As String) As Boolean
    LoadChatwire = LoadLibraryW(StrPtr(fullPath)) <> 0
End Function

' A VB string as NUL-terminated UTF-8, for a text parameter:
'   Dim question() As Byte: question = Utf8Z("Grüße")
'   status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, VarPtr(question(0)))
' Keep the array in a variable until the call returns.
Public Function Utf8Z(ByVal text As String) As Byte()
    Dim bytes() As Byte, size As Long
    size = WideCharToMultiByte(CP_UTF8, 0, StrPtr(text), Len(text), 0, 0, 0, 0)
    ReDim bytes(0 To size) ' one more, zeroed: the NUL
    If size > 0 Then WideCharToMultiByte CP_UTF8, 0, StrPtr(text), Len(text), VarPtr(bytes(0)), size, 0, 0
    Utf8Z = bytes
End Function

' The UTF-8 text at a pointer chatwire gave, as a VB string: up to its NUL,
' or `length` bytes (a callback's delta and len). "" for a NULL pointer.
#If VBA7 Then
Public Function FromUtf8(ByVal pointer As LongPtr, Optional ByVal length As Long = -1) As String
#Else
Public Function FromUtf8(ByVal pointer As Long, Optional ByVal length As Long = -1) As String
#End If
    Dim chars As Long, text As String
    If pointer = 0 Then Exit Function
    If length < 0 Then length = lstrlenA(pointer)
    If length = 0 Then Exit Function
    chars = MultiByteToWideChar(CP_UTF8, 0, pointer, length, 0, 0)
    text = String$(chars, vbNullChar)
    MultiByteToWideChar CP_UTF8, 0, pointer, length, StrPtr(text), chars
    FromUtf8 = text
End Function

' A string chatwire handed out (a `char **` out-parameter), as a VB string;
' frees it with chatwire_string_free and sets the pointer to 0.
#If VBA7 Then
Public Function TakeString(ByRef pointer As LongPtr) As String
#Else
Public Function TakeString(ByRef pointer As Long) As String
#End If
    TakeString = FromUtf8(pointer)
    chatwire_string_free pointer
    pointer = 0
End Function

' chatwire_last_error() as a VB string: read it at once after the failing
' call, before any other chatwire call on this thread.
Public Function LastError() As String
    LastError = FromUtf8(chatwire_last_error())
End Function
"""


def generate():
    header = strip_comments(HEADER.read_text(encoding="utf-8"))
    callbacks = callback_types(header)
    funcs = functions(header)
    # Every declaration the header starts with CHATWIRE_API is read, or none.
    declared = len(re.findall(r"^CHATWIRE_API\b", header, flags=re.M))
    if len(funcs) != declared or declared < 50:
        raise SystemExit("generate.py: read %d of the %d functions in %s" % (len(funcs), declared, HEADER))
    out = [
        'Attribute VB_Name = "chatwire"',
        "' chatwire for VBA (Office 2010 and later, 32- and 64-bit) and VB6.",
        "' Generated from include/chatwire.h by examples-lang/vba/generate.py: do not edit;",
        "' CI checks that it matches the header. docs/languages.md explains its use.",
        "'",
        "' chatwire.dll must be found: in the program's folder (VB6) or the current one,",
        "' on the PATH, or loaded first from its full path with LoadChatwire (below).",
        "' On 32-bit Windows every function and callback is __stdcall, as Declare and",
        "' AddressOf expect.",
        "' Callbacks: AddressOf a Public Function of a standard module, its parameters",
        "' ByVal, returning Long (e.g. OnDelta(ByVal userdata As LongPtr,",
        "' ByVal delta As LongPtr, ByVal length As LongPtr) As Long).",
        "Option Explicit",
        "",
    ]
    for name, members in enums(header):
        out.append("' %s" % name)
        out.extend("Public Const %s As Long = %d" % member for member in members)
        out.append("")
    vba7, left_out = declares(funcs, callbacks, "LongPtr", True)
    vb6, _ = declares(funcs, callbacks, "Long", False)
    out.append("' Left out: they take or give uint64_t, which VB6 and 32-bit VBA lack; use the _u32 twin.")
    out.extend("'   %s" % name for name in left_out)
    out.append("")
    out.append("#If VBA7 Then")
    out.extend(vba7)
    out.append("#Else")
    out.extend(vb6)
    out.append("#End If")
    out.extend(HELPERS.rstrip("\n").split("\n"))
    # The VBA editor imports CRLF lines.
    return ("\r\n".join(out) + "\r\n").encode("utf-8")


def main():
    text = generate()
    if sys.argv[1:] == ["--check"]:
        if not MODULE.exists() or MODULE.read_bytes() != text:
            print("%s does not match include/chatwire.h: run python3 %s" % (MODULE, Path(__file__).name),
                  file=sys.stderr)
            return 1
        print("chatwire.bas matches include/chatwire.h")
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    MODULE.write_bytes(text)
    print("wrote %s" % MODULE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
