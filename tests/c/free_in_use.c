/* A conversation freed while a call still holds it is released when the
 * last call that holds it returns: never ignored, never pulled from under
 * the call. Run under AddressSanitizer and valgrind: a leak or a use after
 * free fails the test. argv[1]: a server answering every request with the
 * stream "Hello", " there". */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>

#include "check.h"

/* A gate the worker's first delta waits at until the main thread opens it,
 * so that the conversation is freed while the request surely runs. */
struct gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int open;
    int deltas;
    int done;
    chatwire_status done_status;
};

static void gate_init(struct gate *g) {
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->changed, NULL);
}

static void gate_destroy(struct gate *g) {
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->changed);
}

static void gate_open(struct gate *g) {
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

static int wait_at_gate(void *userdata, const char *delta, size_t len) {
    struct gate *g = (struct gate *)userdata;
    (void)delta;
    (void)len;
    pthread_mutex_lock(&g->lock);
    g->deltas++;
    while (!g->open) {
        pthread_cond_wait(&g->changed, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
    return 0;
}

static void note_done(void *userdata, chatwire_status status) {
    struct gate *g = (struct gate *)userdata;
    pthread_mutex_lock(&g->lock);
    g->done = 1;
    g->done_status = status;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

static void wait_for_done(struct gate *g) {
    pthread_mutex_lock(&g->lock);
    while (!g->done) {
        pthread_cond_wait(&g->changed, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
}

/* Freed while the request runs (its worker stopped in the middle of the
 * stream), then waited for: the reply comes whole, appended to the
 * conversation that the request still holds; freeing the request releases
 * it. */
static void test_freed_while_a_request_runs(chatwire_client *client) {
    struct gate g;
    gate_init(&g);
    chatwire_conversation *conversation = conversation_asking("stream please");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, wait_at_gate, note_done, &g, &request),
                 CHATWIRE_OK);
    chatwire_conversation_free(conversation);
    gate_open(&g);
    char *reply = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "Hello there") == 0);
    chatwire_string_free(reply);
    CHECK(g.deltas == 2);
    chatwire_request_free(request);
    gate_destroy(&g);
}

/* Freed while the request runs, and the request freed without a wait: it
 * is cancelled, and the conversation goes with it. */
static void test_freed_while_a_request_runs_never_waited(chatwire_client *client) {
    struct gate g;
    gate_init(&g);
    chatwire_conversation *conversation = conversation_asking("stream please");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, wait_at_gate, note_done, &g, &request),
                 CHATWIRE_OK);
    chatwire_conversation_free(conversation);
    gate_open(&g);
    chatwire_request_free(request);
    CHECK(g.done == 1);
    gate_destroy(&g);
}

/* Freed after the request has finished, before the wait: the wait still
 * gives the reply. */
static void test_freed_between_done_and_wait(chatwire_client *client) {
    struct gate g;
    gate_init(&g);
    gate_open(&g);
    chatwire_conversation *conversation = conversation_asking("stream please");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, note_done, &g, &request), CHATWIRE_OK);
    wait_for_done(&g);
    CHECK(g.done_status == CHATWIRE_OK);
    chatwire_conversation_free(conversation);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_request_wait_reply(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(chatwire_reply_content(reply), "Hello there") == 0);
    chatwire_reply_free(reply);
    chatwire_request_free(request);
    gate_destroy(&g);
}

/* Freed from inside a callback of its own send: the send finishes on it,
 * and it is released when the send returns. */
struct own_send {
    chatwire_conversation *conversation;
    int deltas;
};

static int free_own_conversation(void *userdata, const char *delta, size_t len) {
    struct own_send *own = (struct own_send *)userdata;
    (void)delta;
    (void)len;
    if (own->deltas++ == 0) {
        chatwire_conversation_free(own->conversation);
    }
    return 0;
}

static void test_freed_from_its_own_send(chatwire_client *client) {
    struct own_send own;
    own.conversation = conversation_asking("stream please");
    own.deltas = 0;
    char *reply = NULL;
    CHECK_STATUS(chatwire_send_stream(client, own.conversation, free_own_conversation, &own, &reply),
                 CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "Hello there") == 0);
    CHECK(own.deltas == 2);
    chatwire_string_free(reply);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: free_in_use URL\n");
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-free", &client), CHATWIRE_OK);
    test_freed_while_a_request_runs(client);
    test_freed_while_a_request_runs_never_waited(client);
    test_freed_between_done_and_wait(client);
    test_freed_from_its_own_send(client);
    chatwire_client_free(client);
    return report("free_in_use");
}
