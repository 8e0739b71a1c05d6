/* One client shared by four threads that send at once, each with its own
 * conversation, while the main thread changes the client's settings (its
 * pool size too, which gives the client a new pool). */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

#define THREADS 4
#define TURNS 3

struct worker {
    chatwire_client *client;
    int index;
    int failures;
};

static void *run_worker(void *arg) {
    struct worker *worker = (struct worker *)arg;
    chatwire_conversation *conversation = NULL;
    char question[32];
    if (chatwire_conversation_new("gpt-4o-mini", &conversation) != CHATWIRE_OK) {
        worker->failures++;
        return NULL;
    }
    for (int turn = 0; turn < TURNS; turn++) {
        char *reply = NULL;
        snprintf(question, sizeof question, "thread %d turn %d", worker->index, turn);
        if (chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question) != CHATWIRE_OK ||
            chatwire_send(worker->client, conversation, &reply) != CHATWIRE_OK) {
            fprintf(stderr, "thread %d: %s\n", worker->index, chatwire_last_error());
            worker->failures++;
            break;
        }
        if (strcmp(reply, "pong") != 0) {
            worker->failures++;
        }
        chatwire_string_free(reply);
    }
    if (chatwire_conversation_len(conversation) != 2 * TURNS) {
        worker->failures++;
    }
    chatwire_conversation_free(conversation);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: threads BASE_URL\n");
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_idle_connections(client, THREADS), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_idle_connections(client, 5000), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_max_idle_connections(NULL, 4), CHATWIRE_ERR_NULL_ARGUMENT);

    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i].client = client;
        workers[i].index = i;
        workers[i].failures = 0;
        CHECK(pthread_create(&threads[i], NULL, run_worker, &workers[i]) == 0);
    }
    for (int i = 0; i < 20; i++) {
        CHECK_STATUS(chatwire_client_set_timeout_ms(client, 10000 + (uint64_t)i), CHATWIRE_OK);
        CHECK_STATUS(chatwire_client_set_max_retries(client, 2), CHATWIRE_OK);
        /* A new pool while the other threads send on the old one. */
        CHECK_STATUS(chatwire_client_set_max_idle_connections(client, THREADS + (uint32_t)(i % 2)),
                     CHATWIRE_OK);
    }
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK(workers[i].failures == 0);
    }
    chatwire_client_free(client);
    return report("threads");
}
