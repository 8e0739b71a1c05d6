/* Fire and forget: a request freed from inside its own on_done callback,
 * and from inside its own on_delta callback, is released cleanly (no
 * self-join, no panic, nothing leaked under AddressSanitizer or valgrind);
 * waiting from inside its own callback is refused.
 * argv[1]: a server answering every request with a short stream. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

/* What a callback needs: the request (known only once chatwire_send_async
 * has returned, hence the lock) and what it saw. */
struct shared {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    chatwire_request *request;
    int freed;
    int done_calls;
    int deltas_after_free;
    chatwire_status done_status;
    chatwire_status wait_status;
};

static chatwire_request *request_of(struct shared *s) {
    pthread_mutex_lock(&s->lock);
    while (s->request == NULL) {
        pthread_cond_wait(&s->changed, &s->lock);
    }
    chatwire_request *request = s->request;
    pthread_mutex_unlock(&s->lock);
    return request;
}

static void mark(struct shared *s, int freed, chatwire_status status) {
    pthread_mutex_lock(&s->lock);
    s->done_calls++;
    s->done_status = status;
    if (freed) {
        s->freed = 1;
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void free_on_done(void *userdata, chatwire_status status) {
    struct shared *s = (struct shared *)userdata;
    chatwire_request *request = request_of(s);
    s->wait_status = chatwire_request_wait(request, NULL);
    chatwire_request_free(request);
    mark(s, 1, status);
}

static int free_on_delta(void *userdata, const char *delta, size_t len) {
    struct shared *s = (struct shared *)userdata;
    (void)delta;
    (void)len;
    pthread_mutex_lock(&s->lock);
    int already = s->freed;
    pthread_mutex_unlock(&s->lock);
    if (already) {
        s->deltas_after_free++;
        return 0;
    }
    chatwire_request_free(request_of(s));
    pthread_mutex_lock(&s->lock);
    s->freed = 1;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

static void count_done(void *userdata, chatwire_status status) {
    mark((struct shared *)userdata, 0, status);
}

/* Waits up to ten seconds for on_done. */
static void wait_for_done(struct shared *s) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&s->lock);
    while (s->done_calls == 0) {
        if (pthread_cond_timedwait(&s->changed, &s->lock, &deadline) != 0) {
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

static void start(chatwire_client *client, chatwire_conversation *conversation,
                  chatwire_delta_callback on_delta, chatwire_done_callback on_done,
                  struct shared *s) {
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, on_delta, on_done, s, &request),
                 CHATWIRE_OK);
    pthread_mutex_lock(&s->lock);
    s->request = request;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void init(struct shared *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
}

static void destroy(struct shared *s) {
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
}

static void sleep_ms(long ms) {
    struct timespec pause;
    pause.tv_sec = 0;
    pause.tv_nsec = ms * 1000 * 1000;
    nanosleep(&pause, NULL);
}

static chatwire_conversation *question(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "stream please"),
                 CHATWIRE_OK);
    return conversation;
}

static void test_free_on_done(chatwire_client *client) {
    for (int round = 0; round < 20; round++) {
        struct shared s;
        init(&s);
        chatwire_conversation *conversation = question();
        start(client, conversation, NULL, free_on_done, &s);
        wait_for_done(&s);
        CHECK(s.freed == 1);
        CHECK(s.done_status == CHATWIRE_OK);
        CHECK(s.wait_status == CHATWIRE_ERR_INVALID_ARGUMENT);
        /* The reply was never waited for: the conversation is as it was,
         * and free again once the done callback has returned (it was
         * signalled from inside the callback, so that may take a moment). */
        size_t len = 0;
        for (int tries = 0; tries < 10000 && len == 0; tries++) {
            len = chatwire_conversation_len(conversation);
            if (len == 0) {
                sleep_ms(1);
            }
        }
        CHECK(len == 1);
        chatwire_conversation_free(conversation);
        destroy(&s);
    }
}

static void test_free_on_delta(chatwire_client *client) {
    struct shared s;
    init(&s);
    chatwire_conversation *conversation = question();
    start(client, conversation, free_on_delta, count_done, &s);
    wait_for_done(&s);
    CHECK(s.freed == 1);
    CHECK(s.done_calls == 1);
    CHECK(s.deltas_after_free == 0);
    /* Freed from on_delta: cancelled, as chatwire_request_free() says. */
    CHECK(s.done_status == CHATWIRE_ERR_CANCELLED);
    chatwire_conversation_free(conversation);
    destroy(&s);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: free_in_callback URL\n");
        return 2;
    }
    chatwire_client *client = NULL;
    int threads_before = folder_entries("/proc/self/task");
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    test_free_on_done(client);
    test_free_on_delta(client);
    /* The workers end right after their callbacks: wait until they have
     * (ten seconds at most) before the client goes, so that a leak check
     * sees them gone. */
    int threads = folder_entries("/proc/self/task");
    for (int tries = 0; tries < 10000 && threads != threads_before; tries++) {
        sleep_ms(1);
        threads = folder_entries("/proc/self/task");
    }
    CHECK(threads == threads_before);
    chatwire_client_free(client);
    return report("free_in_callback");
}
