/* Many background requests in flight at once, with the default settings:
 * every reply right, the whole batch under a peak resident memory (64 MB
 * for 1,000 requests through the optimized library; not checked under a
 * sanitizer or valgrind), and no thread or descriptor left once every
 * request is freed.
 * argv[1]: a server that answers "re: <question>" to each request once
 * all are in at once (which the test checks: they ran side by side);
 * argv[2]: how many requests; argv[3]: the most peak resident memory (KiB)
 * allowed, 0 for no check (under a sanitizer or valgrind); argv[4], for an
 * https:// server: the file of the CA that signed its certificate. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"

/* Threads end just after their request is collected: polled until they
 * have, ten seconds at most. */
static int settled_threads(int expected) {
    int threads = folder_entries("/proc/self/task");
    for (int i = 0; i < 10000 && threads != expected; i++) {
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
        threads = folder_entries("/proc/self/task");
    }
    return threads;
}

/* This process's peak resident memory (KiB), from /proc/self/status:
 * getrusage's figure would count the parent's memory at the fork, which
 * Linux keeps across the exec. */
static long peak_kib(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long peak = -1;
    if (status == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmHWM: %ld kB", &peak) == 1) {
            break;
        }
    }
    fclose(status);
    return peak;
}

/* Each request holds a socket: make room for them all. */
static void raise_descriptor_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

/* A client of `url` that trusts the CA in `ca_file` too, if not NULL. */
static chatwire_client *new_client(const char *url, const char *ca_file) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, "sk-c-test", &client), CHATWIRE_OK);
    if (ca_file != NULL) {
        CHECK_STATUS(chatwire_client_set_ca_file(client, ca_file), CHATWIRE_OK);
    }
    return client;
}

/* What on_done_deep saw. */
struct deep_done {
    int status;
    int pages;
};

/* Fills half a MiB of its own stack: more than the default worker stack
 * holds, so it runs only on a stack made larger. */
static void on_done_deep(void *userdata, chatwire_status status) {
    struct deep_done *done = (struct deep_done *)userdata;
    volatile unsigned char deep[512 * 1024];
    for (size_t i = 0; i < sizeof deep; i += 4096) {
        deep[i] = 1;
    }
    done->pages = 0;
    for (size_t i = 0; i < sizeof deep; i += 4096) {
        done->pages += deep[i];
    }
    done->status = (int)status;
}

/* The settings for many requests: their ranges, and a callback with a
 * deep stack once the worker stack is raised. */
static void test_settings(const char *url, const char *ca_file) {
    chatwire_client *client = new_client(url, ca_file);
    CHECK_STATUS(chatwire_client_set_max_in_flight(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("in flight"));
    CHECK_STATUS(chatwire_client_set_max_in_flight(NULL, 4), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_worker_stack_size(client, 1024),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("stack"));
    CHECK_STATUS(chatwire_client_set_worker_stack_size(client, (size_t)9 << 20),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_worker_stack_size(NULL, 1 << 20), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_worker_stack_size(client, 64 * 1024), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_worker_stack_size(client, 2 << 20), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_in_flight(client, 1), CHATWIRE_OK);
    chatwire_conversation *conversation = conversation_asking("q0");
    chatwire_request *request = NULL;
    struct deep_done done = {-1, 0};
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, on_done_deep, &done, &request),
                 CHATWIRE_OK);
    char *reply = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "re: q0") == 0);
    CHECK(done.status == CHATWIRE_OK);
    CHECK(done.pages == 128);
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: many URL COUNT PEAK_KIB [CA_FILE]\n");
        return 2;
    }
    int count = atoi(argv[2]);
    long peak_allowed = atol(argv[3]);
    const char *ca_file = argc > 4 ? argv[4] : NULL;
    raise_descriptor_limit();
    chatwire_client *client = new_client(argv[1], ca_file);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    chatwire_conversation **conversations =
        (chatwire_conversation **)calloc((size_t)count, sizeof *conversations);
    chatwire_request **requests = (chatwire_request **)calloc((size_t)count, sizeof *requests);
    int threads_before = folder_entries("/proc/self/task");
    int fds_before = folder_entries("/proc/self/fd");
    long peak_before = peak_kib();
    double started = now_seconds();
    for (int i = 0; i < count; i++) {
        char question[32];
        snprintf(question, sizeof question, "q%d", i);
        CHECK_STATUS(chatwire_conversation_new("m", &conversations[i]), CHATWIRE_OK);
        CHECK_STATUS(chatwire_conversation_append(conversations[i], CHATWIRE_ROLE_USER, question),
                     CHATWIRE_OK);
        CHECK_STATUS(chatwire_send_async(client, conversations[i], NULL, NULL, NULL, &requests[i]),
                     CHATWIRE_OK);
    }
    int wrong = 0;
    for (int i = 0; i < count; i++) {
        char expected[32];
        snprintf(expected, sizeof expected, "re: q%d", i);
        char *reply = NULL;
        chatwire_status status = chatwire_request_wait(requests[i], &reply);
        if (status != CHATWIRE_OK || reply == NULL || strcmp(reply, expected) != 0) {
            if (wrong++ < 5) {
                fprintf(stderr, "request %d: status %d (%s), reply %s\n", i, (int)status,
                        chatwire_last_error(), reply == NULL ? "(none)" : reply);
            }
        }
        chatwire_string_free(reply);
    }
    double took = now_seconds() - started;
    long peak = peak_kib();
    for (int i = 0; i < count; i++) {
        chatwire_request_free(requests[i]);
        chatwire_conversation_free(conversations[i]);
    }
    chatwire_client_free(client);
    int threads_after = settled_threads(threads_before);
    int fds_after = folder_entries("/proc/self/fd");
    printf("%d in flight: %.2f s, peak resident memory %ld KiB (%ld KiB before), "
           "threads %d -> %d, descriptors %d -> %d, %d wrong\n",
           count, took, peak, peak_before, threads_before, threads_after, fds_before, fds_after,
           wrong);
    CHECK(wrong == 0);
    CHECK(threads_after == threads_before);
    CHECK(fds_after == fds_before);
    if (peak_allowed > 0) {
        CHECK(peak > 0 && peak < peak_allowed);
    }
    free(requests);
    free(conversations);
    test_settings(argv[1], ca_file);
    return report("many");
}
