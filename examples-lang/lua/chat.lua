-- chatwire from LuaJIT, through its FFI (no compiler, no C module).
--
--   CHATWIRE_LIB=/path/to/libchatwire.so OPENAI_API_KEY=... luajit chat.lua BASE_URL [MODEL]
--
-- A system message and a question whose reply is streamed through a
-- callback, a second turn, an error read through chatwire_last_error(), and
-- everything freed. docs/languages.md explains each step.
local ffi = require("ffi")

-- The declarations, as in include/chatwire.h. On 32-bit Windows every
-- function and callback type is __stdcall (CHATWIRE_CALL): LuaJIT's cdef
-- takes the keyword, written here only there.
local CALL = (ffi.os == "Windows" and ffi.arch == "x86") and "__stdcall" or ""
ffi.cdef((([[
typedef struct chatwire_client chatwire_client;
typedef struct chatwire_conversation chatwire_conversation;
typedef int (CALL *chatwire_delta_callback)(void *userdata, const char *delta, size_t len);
const char *CALL chatwire_version(void);
const char *CALL chatwire_last_error(void);
int CALL chatwire_client_new(const char *base_url, const char *api_key, chatwire_client **client_out);
void CALL chatwire_client_free(chatwire_client *client);
int CALL chatwire_conversation_new(const char *model, chatwire_conversation **conversation_out);
int CALL chatwire_conversation_set_system(chatwire_conversation *conversation, const char *text);
int CALL chatwire_conversation_append(chatwire_conversation *conversation, int role, const char *content);
size_t CALL chatwire_conversation_len(const chatwire_conversation *conversation);
void CALL chatwire_conversation_free(chatwire_conversation *conversation);
int CALL chatwire_send(chatwire_client *client, chatwire_conversation *conversation, char **reply_out);
int CALL chatwire_send_stream(chatwire_client *client, chatwire_conversation *conversation,
                              chatwire_delta_callback on_delta, void *userdata, char **reply_out);
void CALL chatwire_string_free(char *s);
]]):gsub("CALL", CALL)))

local lib = ffi.load(os.getenv("CHATWIRE_LIB") or "chatwire")
local CHATWIRE_OK, CHATWIRE_ROLE_USER = 0, 1

-- Raises the status with chatwire_last_error(), read at once: the text
-- lasts only until the next chatwire call on this thread.
local function check(status)
  if status ~= CHATWIRE_OK then
    error({ status = status, message = ffi.string(lib.chatwire_last_error()) }, 2)
  end
end

-- Copies a string chatwire handed out into a Lua string, then frees it.
local function take_string(pointer)
  local text = ffi.string(pointer[0])
  lib.chatwire_string_free(pointer[0])
  pointer[0] = nil
  return text
end

local base_url, model = arg[1], arg[2] or "mock"
print("version: " .. ffi.string(lib.chatwire_version()))

local client_out = ffi.new("chatwire_client *[1]")
check(lib.chatwire_client_new(base_url, nil, client_out)) -- nil key: $OPENAI_API_KEY
-- The handles are freed by the garbage collector too, should anything raise.
local client = ffi.gc(client_out[0], lib.chatwire_client_free)
local conversation_out = ffi.new("chatwire_conversation *[1]")
check(lib.chatwire_conversation_new(model, conversation_out))
local conversation = ffi.gc(conversation_out[0], lib.chatwire_conversation_free)

-- Lua strings are bytes: this source is UTF-8, so the text is too.
check(lib.chatwire_conversation_set_system(conversation, "Answer in one line."))
check(lib.chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Grüße! What is 2 + 2?"))

local pieces = {}
-- A callback made from a Lua function: it must not raise (no error may
-- cross into C), and it lives until :free(), so it outlives the call.
local on_delta = ffi.cast("chatwire_delta_callback", function(_userdata, delta, len)
  pieces[#pieces + 1] = ffi.string(delta, len)
  return 0
end)
local reply = ffi.new("char *[1]")
local status = lib.chatwire_send_stream(client, conversation, on_delta, nil, reply)
on_delta:free()
check(status)
print("stream: " .. table.concat(pieces))
print("pieces: " .. #pieces)
print("reply: " .. take_string(reply))

check(lib.chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And 3 + 3? Ça va?"))
check(lib.chatwire_send(client, conversation, reply))
print("second: " .. take_string(reply))
print("messages: " .. tonumber(lib.chatwire_conversation_len(conversation)))

-- The last message is the assistant's: sending again is refused.
local ok, failure = pcall(check, lib.chatwire_send(client, conversation, reply))
print(ok and "error: none" or ("error: " .. failure.status .. " " .. failure.message))

-- Freed now rather than by the collector at exit (ffi.gc(x, nil) first,
-- so that they are not freed twice).
lib.chatwire_conversation_free(ffi.gc(conversation, nil))
lib.chatwire_client_free(ffi.gc(client, nil))
print("done")
