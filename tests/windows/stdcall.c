/*
 * The 32-bit Windows DLL as VB6, VBA, Delphi and GetProcAddress callers see
 * it: chatwire.dll is loaded at run time, its functions are found by their
 * plain names (chatwire_send, not _chatwire_send@12), and every call goes
 * through call_checked(), which pushes the arguments, calls, and measures
 * how far ESP moved: a __stdcall function pops its own arguments, so ESP
 * must be back where it was before the pushes. A DLL built with the C
 * convention (the caller pops) leaves 4 bytes per argument behind, and
 * every call fails here. Against the mock server at argv[1]
 * (tests/consumers/mock_server.py): every callback type of the header
 * (credential, log, delta, event, done), a background request, and text
 * that is not ASCII both ways.
 *
 *   stdcall BASE_URL
 *
 * Built with i686-w64-mingw32-gcc, run under 32-bit Wine (check-windows.sh).
 */
#include <chatwire.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#if !defined(__i386__)
#error "this program checks the 32-bit x86 calling convention"
#endif

static int failures = 0;
static int passes = 0;

#define CHECK(what)                                                       \
    do {                                                                  \
        if (what) {                                                       \
            passes++;                                                     \
        } else {                                                          \
            failures++;                                                   \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #what); \
        }                                                                 \
    } while (0)

/*
 * uint64_t call_through(FARPROC fn, const uint32_t *args, uint32_t count, int32_t *left);
 * Pushes args[count - 1] .. args[0] (the first argument last, as both
 * conventions do), calls fn, and stores in *left the bytes by which ESP
 * after the call is below ESP before the pushes: 0 when the callee popped
 * its arguments (__stdcall), 4 * count when it left them (__cdecl). ESP is
 * then put back, so that the program goes on either way. Returns EDX:EAX.
 * EDI keeps ESP across the call: both conventions preserve it.
 */
uint64_t call_through(FARPROC fn, const uint32_t *args, uint32_t count, int32_t *left);
__asm__(".text\n"
        ".globl _call_through\n"
        "_call_through:\n"
        "    pushl %ebp\n"
        "    movl %esp, %ebp\n"
        "    pushl %ebx\n"
        "    pushl %esi\n"
        "    pushl %edi\n"
        "    movl 12(%ebp), %esi\n" /* args */
        "    movl 16(%ebp), %ecx\n" /* count */
        "    movl %esp, %edi\n"
        "1:  testl %ecx, %ecx\n"
        "    jz 2f\n"
        "    pushl -4(%esi,%ecx,4)\n"
        "    decl %ecx\n"
        "    jmp 1b\n"
        "2:  call *8(%ebp)\n"
        "    movl %edi, %ecx\n"
        "    subl %esp, %ecx\n"
        "    movl %edi, %esp\n"
        "    movl 20(%ebp), %ebx\n"
        "    movl %ecx, (%ebx)\n"
        "    popl %edi\n"
        "    popl %esi\n"
        "    popl %ebx\n"
        "    popl %ebp\n"
        "    ret\n");

static HMODULE dll;
static int calls = 0;
static int unbalanced = 0;

/* The measure itself, first: a function of each convention, of our own. */
static int __cdecl own_cdecl(int a, int b, int c) { return a * 100 + b * 10 + c; }
static int __stdcall own_stdcall(int a, int b, int c) { return a * 100 + b * 10 + c; }

static void check_the_measure(void) {
    const uint32_t args[3] = {1, 2, 3};
    int32_t left = -1;
    CHECK((int)call_through((FARPROC)own_stdcall, args, 3, &left) == 123 && left == 0);
    left = -1;
    CHECK((int)call_through((FARPROC)own_cdecl, args, 3, &left) == 123 && left == 12);
}

/* The function named `name`, found by its plain name, or the end. */
static FARPROC find(const char *name) {
    FARPROC fn = GetProcAddress(dll, name);
    if (fn == NULL) {
        fprintf(stderr, "chatwire.dll exports no %s\n", name);
        exit(1);
    }
    return fn;
}

/* A 32-bit argument from a pointer or an integer. */
#define P(x) ((uint32_t)(uintptr_t)(x))

/* Calls the function called `name` with `count` 32-bit arguments (a
 * uint64_t takes two, low half first) and checks the stack. */
static uint64_t call(const char *name, uint32_t count, ...) {
    uint32_t args[8];
    uint32_t index;
    int32_t left = -1;
    uint64_t result;
    va_list list;
    va_start(list, count);
    for (index = 0; index < count && index < 8; index++) {
        args[index] = va_arg(list, uint32_t);
    }
    va_end(list);
    result = call_through(find(name), args, count, &left);
    calls++;
    if (left != 0) {
        failures++;
        unbalanced++;
        fprintf(stderr, "%s(%u arguments) left %ld bytes on the stack: not __stdcall\n", name,
                (unsigned)count, (long)left);
    }
    return result;
}

/* For the functions that return a chatwire_status, an int or a pointer. */
#define STATUS(...) ((int)call(__VA_ARGS__))
#define POINTER(...) ((const char *)(uintptr_t)(uint32_t)call(__VA_ARGS__))

/* Not ASCII both ways: é, a CJK character, and one outside the BMP (4
 * bytes in UTF-8). The mock server answers "pong: " and the question. */
static const char question[] = "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x99\x82?";
static const char answer[] = "pong: caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x99\x82?";

/* What the callbacks saw; the background request's callbacks run on its
 * worker thread, read here after chatwire_request_wait() has returned. */
struct seen {
    uint32_t magic;
    char text[256];
    size_t used;
    int deltas;
    int events;
    int done;
    int done_status;
    int log_lines;
    int credentials;
    DWORD thread;
};
#define MAGIC 0x5eed1234u

/* Every callback is CHATWIRE_CALL, as the header's typedefs say: the
 * compiler (-Werror) refuses a function of another convention for them. */
static int CHATWIRE_CALL on_delta(void *userdata, const char *delta, size_t len) {
    struct seen *seen = userdata;
    if (seen->magic != MAGIC || len > sizeof seen->text - 1 - seen->used) {
        return 1;
    }
    memcpy(seen->text + seen->used, delta, len);
    seen->used += len;
    seen->text[seen->used] = '\0';
    seen->deltas++;
    seen->thread = GetCurrentThreadId();
    return 0;
}

static int CHATWIRE_CALL on_event(void *userdata, int kind, const char *text, size_t len) {
    struct seen *seen = userdata;
    if (kind != CHATWIRE_STREAM_CONTENT) {
        return 0;
    }
    seen->events++;
    return on_delta(userdata, text, len);
}

static void CHATWIRE_CALL on_done(void *userdata, chatwire_status status) {
    struct seen *seen = userdata;
    if (seen->magic == MAGIC) {
        seen->done++;
        seen->done_status = (int)status;
    }
}

static const char key[] = "sk-consumer-test";

/* The key, from the credential callback (the client was made with a wrong
 * one, which the server refuses). */
static int CHATWIRE_CALL give_key(void *userdata, char *token, size_t capacity) {
    struct seen *seen = userdata;
    if (seen->magic != MAGIC || capacity < sizeof key) {
        return 1;
    }
    memcpy(token, key, sizeof key);
    InterlockedIncrement((LONG volatile *)&seen->credentials);
    return 0;
}

static void CHATWIRE_CALL on_line(void *userdata, int level, const char *line) {
    struct seen *seen = userdata;
    if (seen->magic == MAGIC && level >= CHATWIRE_LOG_ERROR && strstr(line, "/v1/chat/completions")) {
        InterlockedIncrement((LONG volatile *)&seen->log_lines);
    }
}

/* The callbacks as the header's types: this is where the compiler checks
 * their convention (the calls below pass them as plain 32-bit values). */
static const chatwire_log_callback log_callback = on_line;
static const chatwire_credential_callback credential_callback = give_key;
static const chatwire_delta_callback delta_callback = on_delta;
static const chatwire_event_callback event_callback = on_event;
static const chatwire_done_callback done_callback = on_done;

static void reset(struct seen *seen) {
    memset(seen, 0, sizeof *seen);
    seen->magic = MAGIC;
}

int main(int argc, char **argv) {
    static struct seen seen, log_seen, key_seen;
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    chatwire_request *request = NULL;
    chatwire_reply *reply = NULL;
    char *text = NULL;
    const char *version;
    int status;

    if (argc != 2) {
        fprintf(stderr, "usage: stdcall BASE_URL\n");
        return 2;
    }
    check_the_measure();
    dll = LoadLibraryA("chatwire.dll");
    if (dll == NULL) {
        fprintf(stderr, "cannot load chatwire.dll (error %lu)\n", (unsigned long)GetLastError());
        return 1;
    }
    /* The decorated names are not there: Declare and GetProcAddress use the plain ones. */
    CHECK(GetProcAddress(dll, "_chatwire_send@12") == NULL);
    CHECK(GetProcAddress(dll, "chatwire_send@12") == NULL);

    /* No arguments: nothing to pop either way, but the names must resolve. */
    version = POINTER("chatwire_version", 0);
    CHECK(version != NULL && strstr(version, CHATWIRE_VERSION_STRING) != NULL);
    CHECK((uint32_t)call("chatwire_version_number", 0) == CHATWIRE_VERSION_NUMBER);
    CHECK(strlen(POINTER("chatwire_status_str", 1, (uint32_t)CHATWIRE_ERR_INVALID_UTF8)) > 0);

    reset(&log_seen);
    reset(&key_seen);
    CHECK(STATUS("chatwire_set_log_callback", 3, P(log_callback), (uint32_t)CHATWIRE_LOG_INFO,
                 P(&log_seen)) == CHATWIRE_OK);

    CHECK(STATUS("chatwire_client_new", 3, P(argv[1]), P("sk-wrong"), P(&client)) == CHATWIRE_OK);
    CHECK(client != NULL);
    if (client == NULL) {
        return 1;
    }
    /* A uint64_t argument: three slots, 12 bytes to pop. */
    CHECK(STATUS("chatwire_client_set_timeout_ms", 3, P(client), (uint32_t)60000, (uint32_t)0) ==
          CHATWIRE_OK);
    CHECK(STATUS("chatwire_client_set_credential_callback", 3, P(client), P(credential_callback),
                 P(&key_seen)) == CHATWIRE_OK);

    CHECK(STATUS("chatwire_conversation_new", 2, P("stdcall-model"), P(&conversation)) ==
          CHATWIRE_OK);
    CHECK(STATUS("chatwire_conversation_set_system", 2, P(conversation),
                 P("R\xc3\xa9ponds bri\xc3\xa8vement.")) == CHATWIRE_OK);
    CHECK(STATUS("chatwire_conversation_append", 3, P(conversation), (uint32_t)CHATWIRE_ROLE_USER,
                 P(question)) == CHATWIRE_OK);

    /* A send: the reply, byte for byte, and in the history. */
    status = STATUS("chatwire_send", 3, P(client), P(conversation), P(&text));
    CHECK(status == CHATWIRE_OK);
    if (status != CHATWIRE_OK) {
        fprintf(stderr, "send: %s\n", POINTER("chatwire_last_error", 0));
    }
    CHECK(text != NULL && strcmp(text, answer) == 0);
    call("chatwire_string_free", 1, P(text));
    text = NULL;
    CHECK((size_t)call("chatwire_conversation_len", 1, P(conversation)) == 3);
    CHECK(strcmp(POINTER("chatwire_conversation_content", 2, P(conversation), (uint32_t)2), answer) ==
          0);
    printf("ok: send, not ASCII both ways\n");

    /* A stream: the delta callback, on this thread. */
    CHECK(STATUS("chatwire_conversation_append", 3, P(conversation), (uint32_t)CHATWIRE_ROLE_USER,
                 P(question)) == CHATWIRE_OK);
    reset(&seen);
    CHECK(STATUS("chatwire_send_stream", 5, P(client), P(conversation), P(delta_callback), P(&seen),
                 P(&text)) == CHATWIRE_OK);
    CHECK(seen.deltas >= 2 && strcmp(seen.text, answer) == 0);
    CHECK(seen.thread == GetCurrentThreadId());
    CHECK(text != NULL && strcmp(text, answer) == 0);
    call("chatwire_string_free", 1, P(text));
    text = NULL;
    printf("ok: stream, %d deltas\n", seen.deltas);

    /* The event callback, with a reply handle back. */
    CHECK(STATUS("chatwire_conversation_append", 3, P(conversation), (uint32_t)CHATWIRE_ROLE_USER,
                 P(question)) == CHATWIRE_OK);
    reset(&seen);
    CHECK(STATUS("chatwire_send_stream_events", 5, P(client), P(conversation), P(event_callback),
                 P(&seen), P(&reply)) == CHATWIRE_OK);
    CHECK(seen.events >= 2 && strcmp(seen.text, answer) == 0);
    CHECK(reply != NULL && strcmp(POINTER("chatwire_reply_content", 1, P(reply)), answer) == 0);
    call("chatwire_reply_free", 1, P(reply));
    printf("ok: events, %d of them\n", seen.events);

    /* A background request: the delta and done callbacks on its worker thread. */
    CHECK(STATUS("chatwire_conversation_append", 3, P(conversation), (uint32_t)CHATWIRE_ROLE_USER,
                 P(question)) == CHATWIRE_OK);
    reset(&seen);
    CHECK(STATUS("chatwire_send_async", 6, P(client), P(conversation), P(delta_callback), P(done_callback),
                 P(&seen), P(&request)) == CHATWIRE_OK);
    CHECK(request != NULL);
    CHECK(STATUS("chatwire_request_wait", 2, P(request), P(&text)) == CHATWIRE_OK);
    CHECK(text != NULL && strcmp(text, answer) == 0);
    CHECK(seen.done == 1 && seen.done_status == CHATWIRE_OK);
    CHECK(seen.deltas >= 2 && strcmp(seen.text, answer) == 0);
    CHECK(seen.thread != 0 && seen.thread != GetCurrentThreadId());
    CHECK(call("chatwire_request_done", 1, P(request)) != 0);
    call("chatwire_string_free", 1, P(text));
    call("chatwire_request_free", 1, P(request));
    CHECK((size_t)call("chatwire_conversation_len", 1, P(conversation)) == 9);
    printf("ok: background request, %d deltas on another thread, done once\n", seen.deltas);

    /* The credential and log callbacks ran for every request: 4 so far. */
    CHECK(key_seen.credentials >= 4);
    CHECK(log_seen.log_lines >= 4);
    printf("ok: credential callback %d times, log callback %d lines\n", key_seen.credentials,
           log_seen.log_lines);

    /* An error, read back through the plain names. */
    CHECK(STATUS("chatwire_conversation_append", 3, P(conversation), (uint32_t)CHATWIRE_ROLE_USER,
                 P("\xff not UTF-8")) == CHATWIRE_ERR_INVALID_UTF8);
    CHECK(strlen(POINTER("chatwire_last_error", 0)) > 0);
    CHECK((int)call("chatwire_last_http_status", 0) == 0);
    printf("ok: an error: %s\n", POINTER("chatwire_last_error", 0));

    CHECK(STATUS("chatwire_set_log_callback", 3, P(NULL), (uint32_t)CHATWIRE_LOG_OFF, P(NULL)) ==
          CHATWIRE_OK);
    call("chatwire_conversation_free", 1, P(conversation));
    call("chatwire_client_free", 1, P(client));
    printf("stdcall: %d calls, %d left the stack unbalanced; %d passed, %d failed\n", calls, unbalanced,
           passes, failures);
    return failures == 0 ? 0 : 1;
}
