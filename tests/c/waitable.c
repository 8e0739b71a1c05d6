/* A background request in a program's own poll loop: the descriptor wakes
 * as text arrives (several times during a slow stream, not only at the
 * end), never spins, stops within 100 ms when the loop cancels, signals
 * only the end for a request with a delta callback, and leaves no
 * descriptor behind after many requests.
 * argv[1]: a server streaming "a", "b", "c", each piece once the loop has
 * taken the one before (the loop writes a byte into the pipe at argv[5]
 * then), so that no pause decides whether pieces arrive apart;
 * argv[2]: a server that stays silent;
 * argv[3]: a server answering every request with a short stream;
 * argv[4]: how many requests the descriptor count runs. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static chatwire_client *client_for(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

/* 1 when the descriptor polls readable within `ms` milliseconds. */
static int readable(int fd, int ms) {
    struct pollfd watch;
    watch.fd = fd;
    watch.events = POLLIN;
    watch.revents = 0;
    return poll(&watch, 1, ms) == 1 && (watch.revents & POLLIN);
}

/* What a loop saw of one request. */
struct loop_log {
    char text[256];
    int wakes_with_text;
    int empty_wakes;
};

/* Runs the loop a program would: wait, take the text, stop once done;
 * writes a byte into `taken` (unless -1) after each piece of text. */
static void run_loop(chatwire_request *request, int fd, struct loop_log *log, int taken) {
    double started = now_seconds();
    while (now_seconds() - started < 10) {
        if (!readable(fd, 5000)) {
            continue;
        }
        /* Done is read before the take: text that arrives between a take
         * and the check would otherwise be left behind. */
        int done = chatwire_request_done(request);
        char *piece = NULL;
        CHECK_STATUS(chatwire_request_take_text(request, &piece), CHATWIRE_OK);
        if (piece != NULL && piece[0] != '\0') {
            log->wakes_with_text++;
            if (strlen(log->text) + strlen(piece) < sizeof log->text) {
                strcat(log->text, piece);
            }
            if (taken >= 0) {
                CHECK(write(taken, "!", 1) == 1);
            }
        } else {
            log->empty_wakes++;
        }
        chatwire_string_free(piece);
        if (done) {
            break;
        }
    }
}

static void test_progressive_text(const char *paced_url, const char *taken_pipe) {
    int taken = open(taken_pipe, O_WRONLY);
    CHECK(taken >= 0);
    chatwire_client *client = client_for(paced_url);
    chatwire_conversation *conversation = conversation_asking("slowly please");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    int fd = chatwire_request_fd(request);
    CHECK(fd >= 0);
    CHECK(chatwire_request_fd(request) == fd);
    struct loop_log log;
    memset(&log, 0, sizeof log);
    run_loop(request, fd, &log, taken);
    close(taken);
    printf("slow stream: %d wakes with text, %d without\n", log.wakes_with_text, log.empty_wakes);
    CHECK(strcmp(log.text, "abc") == 0);
    /* Each of the three pieces woke the loop on its own. */
    CHECK(log.wakes_with_text == 3);
    /* Woken with nothing to take only at the end (done, text taken). */
    CHECK(log.empty_wakes <= 1);
    /* Done: readable for good, and nothing more to take. */
    CHECK(readable(fd, 0));
    char *rest = NULL;
    CHECK_STATUS(chatwire_request_take_text(request, &rest), CHATWIRE_OK);
    CHECK(rest != NULL && rest[0] == '\0');
    chatwire_string_free(rest);
    char *reply = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "abc") == 0);
    chatwire_string_free(reply);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), "abc") == 0);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_cancel_from_the_loop(const char *silent_url) {
    chatwire_client *client = client_for(silent_url);
    chatwire_conversation *conversation = conversation_asking("never mind");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    int fd = chatwire_request_fd(request);
    CHECK(fd >= 0);
    /* Nothing has arrived: the loop sleeps instead of spinning. */
    CHECK(!readable(fd, 200));
    double started = now_seconds();
    CHECK_STATUS(chatwire_request_cancel(request), CHATWIRE_OK);
    CHECK(readable(fd, 10000));
    double took = now_seconds() - started;
    printf("cancel from the loop took %.1f ms\n", took * 1000);
    /* Only the clock tells "at once": the target is 100 ms; a second is
     * allowed, so that only a cancel that waits for the server (which
     * holds until the test ends) fails, under valgrind or on a busy machine. */
    CHECK(took < 1.0);
    CHECK(chatwire_request_done(request) == 1);
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_ERR_CANCELLED);
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static int ignore_delta(void *userdata, const char *delta, size_t len) {
    size_t *total = (size_t *)userdata;
    (void)delta;
    *total += len;
    return 0;
}

static void test_callback_gets_the_text(const char *url) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = conversation_asking("stream please");
    chatwire_request *request = NULL;
    size_t total = 0;
    CHECK_STATUS(chatwire_send_async(client, conversation, ignore_delta, NULL, &total, &request),
                 CHATWIRE_OK);
    int fd = chatwire_request_fd(request);
    CHECK(fd >= 0);
    CHECK(readable(fd, 5000));
    /* Readable only once done: the callback had all the text. */
    CHECK(chatwire_request_done(request) == 1);
    char *piece = NULL;
    CHECK_STATUS(chatwire_request_take_text(request, &piece), CHATWIRE_OK);
    CHECK(piece != NULL && piece[0] == '\0');
    chatwire_string_free(piece);
    char *reply = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strlen(reply) == total && total > 0);
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_no_descriptor_left(const char *url, int requests) {
    chatwire_client *client = client_for(url);
    /* One request first, so that the pooled connection is open already. */
    int before = -1;
    int failures = 0;
    for (int i = 0; i <= requests; i++) {
        if (i == 1) {
            before = folder_entries("/proc/self/fd");
        }
        chatwire_conversation *conversation = conversation_asking("stream please");
        chatwire_request *request = NULL;
        CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request),
                     CHATWIRE_OK);
        int fd = chatwire_request_fd(request);
        struct loop_log log;
        memset(&log, 0, sizeof log);
        run_loop(request, fd, &log, -1);
        failures += fd < 0 || log.text[0] == '\0';
        failures += chatwire_request_wait(request, NULL) != CHATWIRE_OK;
        chatwire_request_free(request);
        chatwire_conversation_free(conversation);
    }
    int after = folder_entries("/proc/self/fd");
    printf("%d requests: %d descriptors before, %d after, %d failures\n", requests, before, after,
           failures);
    CHECK(failures == 0);
    CHECK(before > 0 && after == before);
    chatwire_client_free(client);
}

static void test_null_and_misuse(void) {
    CHECK(chatwire_request_fd(NULL) == -1);
    CHECK(last_error_mentions("request"));
    CHECK(chatwire_request_event(NULL) == NULL);
    char *text = NULL;
    CHECK_STATUS(chatwire_request_take_text(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(text == NULL);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: waitable PACED SILENT STREAM COUNT PIPE\n");
        return 2;
    }
    test_null_and_misuse();
    test_progressive_text(argv[1], argv[5]);
    test_cancel_from_the_loop(argv[2]);
    test_callback_gets_the_text(argv[3]);
    test_no_descriptor_left(argv[3], atoi(argv[4]));
    return report("waitable");
}
