/* A host program with much static thread-local storage: glibc carves it
 * out of every new thread's stack, the background workers' too. Each
 * worker must still have the stack it was given (256 KiB by default), so
 * a send, a streamed send and one with a smaller stack all answer; without
 * that, the worker overflows its stack and the program dies. */
#include "check.h"

#ifdef __cplusplus
#define HOST_THREAD_LOCAL thread_local
#else
#define HOST_THREAD_LOCAL _Thread_local
#endif

/* Most of a worker's default stack: what is left of 256 KiB after it is
 * far less than a request needs. */
#define HOST_TLS_BYTES (224 * 1024)

static HOST_THREAD_LOCAL volatile char host_tls[HOST_TLS_BYTES];

static size_t deltas = 0;

static int CHATWIRE_CALL on_delta(void *userdata, const char *delta, size_t len) {
    (void)userdata;
    (void)delta;
    deltas += len;
    return 0;
}

/* Sends in the background and waits; 1 when `expected` came back. */
static int answered_in_background(chatwire_client *client, chatwire_delta_callback delta,
                                  const char *expected) {
    chatwire_conversation *conversation = conversation_asking("ping");
    chatwire_request *request = NULL;
    char *reply = NULL;
    int ok = chatwire_send_async(client, conversation, delta, NULL, NULL, &request) == CHATWIRE_OK &&
             chatwire_request_wait(request, &reply) == CHATWIRE_OK && strcmp(reply, expected) == 0;
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    return ok;
}

/* chatwire_send_async() streams: the server answers with three
 * one-character deltas. */
int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: static_tls BASE_URL\n");
        return 2;
    }
    /* The storage is the main thread's too: touch it, so it is there. */
    host_tls[0] = 1;
    host_tls[HOST_TLS_BYTES - 1] = host_tls[0];

    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK(answered_in_background(client, NULL, "xxx"));
    CHECK(answered_in_background(client, on_delta, "xxx"));
    CHECK(deltas == 3);
    CHECK_STATUS(chatwire_client_set_worker_stack_size(client, 128 * 1024), CHATWIRE_OK);
    CHECK(answered_in_background(client, NULL, "xxx"));
    chatwire_client_free(client);
    return report("static_tls");
}
