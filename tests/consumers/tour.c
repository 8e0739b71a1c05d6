/*
 * A program outside chatwire's tree that goes through the C API against the
 * mock server at argv[1] (mock_server.py): a send, a stream with a
 * callback, tool calls, extraction, an image file whose name is not ASCII,
 * errors, a background request, a background request watched in the
 * program's own wait (the descriptor on POSIX, the event on Windows) with
 * its text taken as it arrives, and cancelling background requests. Built
 * for every platform the dist archives serve: a fully static Linux binary
 * (musl) and a Windows program (MinGW, run under Wine in CI).
 *
 *   tour BASE_URL [STUCK_URL]
 *
 * STUCK_URL is a server that never completes a connection: a request to it
 * is cancelled while it connects.
 */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include <chatwire.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <poll.h>
#endif

static int failures = 0;
static int passes = 0;

#define CHECK(what)                                                                            \
    do {                                                                                       \
        if (what) {                                                                            \
            passes++;                                                                          \
        } else {                                                                               \
            failures++;                                                                        \
            fprintf(stderr, "%s:%d: failed: %s (last error: %s, HTTP %d)\n", __FILE__, __LINE__, \
                    #what, chatwire_last_error(), chatwire_last_http_status());                 \
        }                                                                                      \
    } while (0)

static void pause_ms(unsigned ms) {
#ifdef _WIN32
    Sleep(ms);
#else
    struct timespec pause = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    nanosleep(&pause, NULL);
#endif
}

static chatwire_conversation *asking(const char *model, const char *question) {
    chatwire_conversation *conversation = NULL;
    if (chatwire_conversation_new(model, &conversation) != CHATWIRE_OK ||
        chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question) != CHATWIRE_OK) {
        fprintf(stderr, "setup failed: %s\n", chatwire_last_error());
        exit(1);
    }
    return conversation;
}

static void check_send(chatwire_client *client) {
    chatwire_conversation *conversation = asking("tour-model", "ping");
    char *reply = NULL;
    CHECK(chatwire_send(client, conversation, &reply) == CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "pong: ping") == 0);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
    printf("ok: send\n");
}

struct collected {
    char text[256];
    size_t used;
    int calls;
};

static int CHATWIRE_CALL collect(void *userdata, const char *delta, size_t len) {
    struct collected *so_far = userdata;
    if (so_far->used + len >= sizeof so_far->text || delta[len] != '\0') {
        return 1;
    }
    memcpy(so_far->text + so_far->used, delta, len + 1);
    so_far->used += len;
    so_far->calls++;
    return 0;
}

static void check_stream(chatwire_client *client) {
    chatwire_conversation *conversation = asking("tour-model", "stream me");
    struct collected so_far = {{0}, 0, 0};
    char *reply = NULL;
    CHECK(chatwire_send_stream(client, conversation, collect, &so_far, &reply) == CHATWIRE_OK);
    CHECK(so_far.calls == 3);
    CHECK(strcmp(so_far.text, "pong: stream me") == 0);
    CHECK(reply != NULL && strcmp(reply, so_far.text) == 0);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
    printf("ok: stream (%d deltas)\n", so_far.calls);
}

static void check_tools(chatwire_client *client) {
    chatwire_conversation *conversation = asking("tour-model", "weather in Paris?");
    chatwire_reply *reply = NULL;
    const char *id = NULL, *name = NULL, *arguments = NULL;
    char *json = NULL, *answer = NULL;
    CHECK(chatwire_conversation_add_tool(
              conversation, "weather", "Today's weather in a city",
              "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}") == CHATWIRE_OK);
    CHECK(chatwire_send_reply(client, conversation, &reply) == CHATWIRE_OK);
    CHECK(chatwire_reply_tool_call_count(reply) == 1);
    CHECK(chatwire_reply_tool_call(reply, 0, &id, &name, &arguments) == CHATWIRE_OK);
    CHECK(id != NULL && strcmp(id, "call_1") == 0);
    CHECK(name != NULL && strcmp(name, "weather") == 0);
    CHECK(arguments != NULL && chatwire_extract_json(arguments, &json) == CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "Paris") != NULL);
    CHECK(chatwire_conversation_append_tool_result(conversation, "call_1", "sunny") == CHATWIRE_OK);
    CHECK(chatwire_send(client, conversation, &answer) == CHATWIRE_OK);
    CHECK(answer != NULL && strcmp(answer, "tool said: sunny") == 0);
    chatwire_string_free(answer);
    chatwire_string_free(json);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    printf("ok: tools\n");
}

static void check_extraction(void) {
    char *json = NULL;
    CHECK(chatwire_extract_json("Sure! Here it is:\n```json\n{'name': 'tea', 'cups': 2,}\n```",
                                &json) == CHATWIRE_OK);
    CHECK(json != NULL && json[0] == '{' && strstr(json, "\"tea\"") != NULL &&
          strstr(json, "\"cups\"") != NULL && strchr(json, '\'') == NULL);
    chatwire_string_free(json);
    json = NULL;
    CHECK(chatwire_extract_json("no data here", &json) == CHATWIRE_ERR_NO_JSON);
    CHECK(json == NULL);
    printf("ok: extraction\n");
}

/* The smallest PNG: the signature and an IHDR chunk are enough for chatwire
 * to tell the type. */
static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I',
                                    'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15,
                                    0xc4, 0x89};

/* An image file named "bild-\u00e9\u4e2d.png" in UTF-8, as chatwire takes
 * paths: on Windows the program creates it under its UTF-16 name, so that
 * chatwire finds it only if it converts the name correctly. */
static void check_image_path(void) {
    const char *utf8_name = "bild-\xc3\xa9\xe4\xb8\xad.png";
#ifdef _WIN32
    FILE *file = _wfopen(L"bild-\u00e9\u4e2d.png", L"wb");
#else
    FILE *file = fopen(utf8_name, "wb");
#endif
    chatwire_conversation *conversation = NULL;
    char *json = NULL;
    CHECK(file != NULL);
    if (file == NULL) {
        return;
    }
    CHECK(fwrite(png, 1, sizeof png, file) == sizeof png);
    fclose(file);
    CHECK(chatwire_conversation_new("tour-model", &conversation) == CHATWIRE_OK);
    CHECK(chatwire_conversation_append_user_image(conversation, "what is this?", utf8_name) ==
          CHATWIRE_OK);
    CHECK(chatwire_conversation_to_json(conversation, &json) == CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "data:image/png;base64,iVBORw0KGgo") != NULL);
    CHECK(chatwire_conversation_append_user_image(conversation, "", "no-such-\xc3\xa9.png") ==
          CHATWIRE_ERR_INVALID_ARGUMENT);
    chatwire_string_free(json);
    chatwire_conversation_free(conversation);
#ifdef _WIN32
    _wremove(L"bild-\u00e9\u4e2d.png");
#else
    remove(utf8_name);
#endif
    printf("ok: image file with a UTF-8 name\n");
}

static void check_errors(const char *base_url) {
    chatwire_client *wrong_key = NULL;
    chatwire_conversation *conversation = asking("tour-model", "ping");
    char *reply = NULL;
    CHECK(chatwire_client_new(base_url, "sk-not-this-one-0000", &wrong_key) == CHATWIRE_OK);
    CHECK(chatwire_send(wrong_key, conversation, &reply) == CHATWIRE_ERR_AUTH);
    CHECK(chatwire_last_http_status() == 401);
    CHECK(strstr(chatwire_last_error(), "wrong key") != NULL);
    CHECK(reply == NULL);
    CHECK(chatwire_conversation_len(conversation) == 1);
    CHECK(chatwire_send(NULL, conversation, &reply) == CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_conversation_append(conversation, 42, "x") == CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(chatwire_status_str(CHATWIRE_ERR_CANCELLED), "") != 0);
    chatwire_conversation_free(conversation);
    chatwire_client_free(wrong_key);
    printf("ok: errors\n");
}

static volatile int done_status = -1;

static void CHATWIRE_CALL on_done(void *userdata, chatwire_status status) {
    (void)userdata;
    done_status = (int)status;
}

static void check_async(chatwire_client *client) {
    chatwire_conversation *conversation = asking("tour-model", "later");
    chatwire_request *request = NULL;
    char *reply = NULL;
    done_status = -1;
    CHECK(chatwire_send_async(client, conversation, NULL, on_done, NULL, &request) == CHATWIRE_OK);
    CHECK(chatwire_request_wait(request, &reply) == CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "pong: later") == 0);
    CHECK(done_status == CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    printf("ok: background request\n");
}

/* What a program's own loop waits on for a background request: the event
 * on Windows, the descriptor elsewhere; both are checked for the other
 * platform's function refusing. */
#ifdef _WIN32
typedef HANDLE waitable;

static waitable waitable_of(chatwire_request *request) {
    HANDLE event = (HANDLE)chatwire_request_event(request);
    CHECK(event != NULL);
    CHECK(chatwire_request_event(request) == event);
    CHECK(chatwire_request_fd(request) == -1);
    return event;
}

/* 1 when the waitable is signalled within `ms` milliseconds. */
static int signalled(waitable event, unsigned ms) {
    return WaitForSingleObject(event, ms) == WAIT_OBJECT_0;
}
#else
typedef int waitable;

static waitable waitable_of(chatwire_request *request) {
    int fd = chatwire_request_fd(request);
    CHECK(fd >= 0);
    CHECK(chatwire_request_fd(request) == fd);
    CHECK(chatwire_request_event(request) == NULL);
    return fd;
}

static int signalled(waitable fd, unsigned ms) {
    struct pollfd watch;
    watch.fd = fd;
    watch.events = POLLIN;
    watch.revents = 0;
    return poll(&watch, 1, (int)ms) == 1 && (watch.revents & POLLIN) != 0;
}
#endif

/* What the loop saw of one request. */
struct watched {
    char text[256];
    int wakes_with_text;
    int empty_wakes;
    int still_signalled; /* signalled again right after the text was taken */
};

/* The loop a single-threaded program runs: wait, take the text, stop once
 * the request is done. At most 20 wake-ups: it never spins. */
static void watch(chatwire_request *request, waitable signal, struct watched *seen) {
    int round;
    for (round = 0; round < 20; round++) {
        char *piece = NULL;
        if (!signalled(signal, 5000)) {
            continue;
        }
        CHECK(chatwire_request_take_text(request, &piece) == CHATWIRE_OK);
        if (piece != NULL && piece[0] != '\0') {
            seen->wakes_with_text++;
            if (strlen(seen->text) + strlen(piece) < sizeof seen->text) {
                strcat(seen->text, piece);
            }
            /* Taken: reset until more arrives (the pieces are 300 ms apart)
             * or the request is done. */
            if (signalled(signal, 0) && !chatwire_request_done(request)) {
                seen->still_signalled++;
            }
        } else {
            seen->empty_wakes++;
        }
        chatwire_string_free(piece);
        if (chatwire_request_done(request)) {
            return;
        }
    }
}

/* A streamed background request with no callback, in the program's own
 * wait: its text taken piece by piece as the server sends it. */
static void check_waitable(chatwire_client *client) {
    chatwire_conversation *conversation = asking("paced", "slowly");
    chatwire_request *request = NULL;
    struct watched seen;
    char *rest = NULL, *reply = NULL;
    waitable signal;
    memset(&seen, 0, sizeof seen);
    CHECK(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request) == CHATWIRE_OK);
    signal = waitable_of(request);
    watch(request, signal, &seen);
    CHECK(strcmp(seen.text, "pong: slowly") == 0);
    CHECK(seen.wakes_with_text == 3);
    CHECK(seen.empty_wakes <= 1);
    CHECK(seen.still_signalled == 0);
    /* Done: signalled for good, nothing more to take. */
    CHECK(chatwire_request_done(request) == 1);
    CHECK(signalled(signal, 0));
    CHECK(signalled(signal, 0));
    CHECK(chatwire_request_take_text(request, &rest) == CHATWIRE_OK);
    CHECK(rest != NULL && rest[0] == '\0');
    CHECK(chatwire_request_wait(request, &reply) == CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "pong: slowly") == 0);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(chatwire_request_take_text(NULL, &rest) == CHATWIRE_ERR_NULL_ARGUMENT);
    chatwire_string_free(reply);
    chatwire_string_free(rest);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    printf("ok: background request in the program's own wait (%d pieces, %d empty wake-ups)\n",
           seen.wakes_with_text, seen.empty_wakes);
}

/* The forms made for other languages (docs/languages.md): a streamed
 * background request read in a plain loop, as a COBOL program reads it
 * (the wait on the descriptor, or on Windows the event, inside the
 * library), and usage counts in 32 bits, as VB6 reads them. */
static void check_language_forms(chatwire_client *client) {
    chatwire_conversation *conversation = asking("paced", "in a loop");
    chatwire_request *request = NULL;
    chatwire_reply *whole = NULL;
    char text[64] = "", *piece = NULL, *reply = NULL;
    int pieces = 0, ended = 0;
    uint32_t prompt = 0, completion = 0, total = 0;
    CHECK(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request) == CHATWIRE_OK);
    while (!ended && chatwire_request_wait_text(request, &piece) == CHATWIRE_OK) {
        ended = piece[0] == '\0';
        if (!ended && strlen(text) + strlen(piece) < sizeof text) {
            strcat(text, piece);
            pieces++;
        }
        chatwire_string_free(piece);
    }
    CHECK(ended);
    CHECK(strcmp(text, "pong: in a loop") == 0);
    /* The pieces are 300 ms apart: each wait gives one. */
    CHECK(pieces == 3);
    CHECK(chatwire_request_done(request) == 1);
    CHECK(chatwire_request_wait(request, &reply) == CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "pong: in a loop") == 0);
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);

    conversation = asking("tour-model", "count");
    CHECK(chatwire_send_reply(client, conversation, &whole) == CHATWIRE_OK);
    CHECK(chatwire_reply_usage_u32(whole, &prompt, &completion, &total) == CHATWIRE_OK);
    CHECK(prompt == 3 && completion == 2 && total == 5);
    chatwire_reply_free(whole);
    chatwire_conversation_free(conversation);
    printf("ok: a streamed reply in a plain loop (%d pieces), usage in 32 bits\n", pieces);
}

/* Starts a background request to `model`, cancels it once the server holds
 * it (`what` it is doing then), and checks that the wait ends promptly with
 * CHATWIRE_ERR_CANCELLED. */
static void check_cancel(chatwire_client *client, const char *model, const char *what) {
    chatwire_conversation *conversation = asking(model, "never mind");
    chatwire_request *request = NULL;
    char *reply = NULL;
    time_t started;
    double waited;
    done_status = -1;
    CHECK(chatwire_send_async(client, conversation, NULL, on_done, NULL, &request) == CHATWIRE_OK);
    pause_ms(300);
    CHECK(chatwire_request_done(request) == 0);
    started = time(NULL);
    CHECK(chatwire_request_cancel(request) == CHATWIRE_OK);
    CHECK(chatwire_request_wait(request, &reply) == CHATWIRE_ERR_CANCELLED);
    waited = difftime(time(NULL), started);
    /* Only the clock tells "promptly" (the target is 100 ms); whole
     * seconds are all time() gives, so two are allowed: only a cancel that
     * waits for the server fails. */
    CHECK(waited <= 2.0);
    CHECK(reply == NULL);
    CHECK(done_status == CHATWIRE_ERR_CANCELLED);
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    printf("ok: cancel a background request %s (%.0f s)\n", what, waited);
}

int main(int argc, char **argv) {
    chatwire_client *client = NULL;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s BASE_URL [STUCK_URL]\n", argv[0]);
        return 2;
    }
    /* Each line as it happens, also into a pipe: a hang shows where it is. */
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("%s\n", chatwire_version());
    if (chatwire_client_new(argv[1], "sk-consumer-test", &client) != CHATWIRE_OK ||
        chatwire_client_set_timeout_ms(client, 30000) != CHATWIRE_OK ||
        chatwire_client_set_max_retries(client, 0) != CHATWIRE_OK) {
        fprintf(stderr, "setup failed: %s\n", chatwire_last_error());
        return 1;
    }
    check_send(client);
    check_stream(client);
    check_tools(client);
    check_extraction();
    check_image_path();
    check_errors(argv[1]);
    check_async(client);
    check_waitable(client);
    check_language_forms(client);
    check_cancel(client, "trickle", "while the server trickles");
    check_cancel(client, "silent", "while the server is silent");
    if (argc == 3) {
        chatwire_client *stuck = NULL;
        CHECK(chatwire_client_new(argv[2], "sk-consumer-test", &stuck) == CHATWIRE_OK);
        check_cancel(stuck, "tour-model", "while it connects");
        chatwire_client_free(stuck);
    }
    chatwire_client_free(client);
    printf("tour: %d checks passed, %d failed\n", passes, failures);
    return failures == 0 ? 0 : 1;
}
