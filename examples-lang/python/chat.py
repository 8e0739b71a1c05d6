#!/usr/bin/env python3
"""chatwire from Python, through ctypes (no compiler, no package).

    CHATWIRE_LIB=/path/to/libchatwire.so OPENAI_API_KEY=... python3 chat.py BASE_URL [MODEL]

A system message and a question whose reply is streamed through a callback,
a second turn, an error read through chatwire_last_error(), and everything
freed. docs/languages.md explains each step.
"""

import ctypes
import ctypes.util
import os
import sys

# On 32-bit Windows every chatwire function and callback is __stdcall
# (CHATWIRE_CALL): WinDLL and WINFUNCTYPE. Everywhere else, the C convention.
STDCALL = sys.platform == "win32" and ctypes.sizeof(ctypes.c_void_p) == 4
Library = ctypes.WinDLL if STDCALL else ctypes.CDLL
FUNCTYPE = ctypes.WINFUNCTYPE if STDCALL else ctypes.CFUNCTYPE

path = os.environ.get("CHATWIRE_LIB") or ctypes.util.find_library("chatwire")
if not path:
    sys.exit("libchatwire not found: set CHATWIRE_LIB to its path")
lib = Library(path)

c_char_p, c_void_p, c_int, c_size_t = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
# int (*)(void *userdata, const char *delta, size_t len)
DELTA_CALLBACK = FUNCTYPE(c_int, c_void_p, ctypes.POINTER(ctypes.c_char), c_size_t)


def declare(name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = argtypes
    return function


# Strings handed out (char *) are declared c_void_p, not c_char_p: ctypes
# would copy a c_char_p into bytes and lose the pointer that
# chatwire_string_free needs. Borrowed ones (const char *) may be c_char_p.
chatwire_version = declare("chatwire_version", c_char_p)
chatwire_last_error = declare("chatwire_last_error", c_char_p)
chatwire_status_str = declare("chatwire_status_str", c_char_p, c_int)
chatwire_client_new = declare("chatwire_client_new", c_int, c_char_p, c_char_p, ctypes.POINTER(c_void_p))
chatwire_client_free = declare("chatwire_client_free", None, c_void_p)
chatwire_conversation_new = declare("chatwire_conversation_new", c_int, c_char_p, ctypes.POINTER(c_void_p))
chatwire_conversation_set_system = declare("chatwire_conversation_set_system", c_int, c_void_p, c_char_p)
chatwire_conversation_append = declare("chatwire_conversation_append", c_int, c_void_p, c_int, c_char_p)
chatwire_conversation_len = declare("chatwire_conversation_len", c_size_t, c_void_p)
chatwire_conversation_free = declare("chatwire_conversation_free", None, c_void_p)
chatwire_send = declare("chatwire_send", c_int, c_void_p, c_void_p, ctypes.POINTER(c_void_p))
chatwire_send_stream = declare(
    "chatwire_send_stream", c_int, c_void_p, c_void_p, DELTA_CALLBACK, c_void_p, ctypes.POINTER(c_void_p)
)
chatwire_string_free = declare("chatwire_string_free", None, c_void_p)

CHATWIRE_OK = 0
CHATWIRE_ROLE_USER = 1


class ChatwireError(Exception):
    """A failed call: its status and chatwire_last_error(), read at once
    (the text lasts only until the next chatwire call on this thread)."""

    def __init__(self, status):
        self.status = status
        super().__init__("%d %s" % (status, chatwire_last_error().decode()))


def check(status):
    if status != CHATWIRE_OK:
        raise ChatwireError(status)


def take_string(pointer):
    """Copies a string chatwire handed out into a str, then frees it."""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8")
    finally:
        chatwire_string_free(pointer)


def main():
    base_url = sys.argv[1].encode()
    model = (sys.argv[2] if len(sys.argv) > 2 else "mock").encode()
    print("version:", chatwire_version().decode())

    client, conversation = c_void_p(), c_void_p()
    # NULL key: $OPENAI_API_KEY, else ./.env.
    check(chatwire_client_new(base_url, None, ctypes.byref(client)))
    try:
        check(chatwire_conversation_new(model, ctypes.byref(conversation)))
        check(chatwire_conversation_set_system(conversation, "Answer in one line.".encode()))
        check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Grüße! What is 2 + 2?".encode()))

        pieces = []

        def on_delta(_userdata, delta, length):
            # Exceptions cannot cross into C: catch them and stop the reply.
            try:
                pieces.append(ctypes.string_at(delta, length).decode("utf-8"))
                return 0
            except Exception:  # noqa: BLE001
                return 1

        # The ctypes callback object must outlive the call: kept in a name.
        callback = DELTA_CALLBACK(on_delta)
        reply = c_void_p()
        check(chatwire_send_stream(client, conversation, callback, None, ctypes.byref(reply)))
        print("stream:", "".join(pieces))
        print("pieces:", len(pieces))
        print("reply:", take_string(reply))

        check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And 3 + 3? Ça va?".encode()))
        check(chatwire_send(client, conversation, ctypes.byref(reply)))
        print("second:", take_string(reply))
        print("messages:", chatwire_conversation_len(conversation))

        # The last message is the assistant's: sending again is refused.
        try:
            check(chatwire_send(client, conversation, ctypes.byref(reply)))
            print("error: none")
        except ChatwireError as error:
            print("error:", error)
    finally:
        chatwire_conversation_free(conversation)
        chatwire_client_free(client)
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
