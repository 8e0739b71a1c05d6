/* Batches from C against the emulated OpenAI Files and Batches API of
 * tests/common/batches.rs (argv[1], key argv[2]), whose model answers
 * "answer to <question>" and gives "rate me" a 429: adding, the input
 * file, submitting, every state to completed, the counts, fetching the
 * results, applying each (a reply, a send's status for a failure,
 * CHATWIRE_ERR_UNAVAILABLE for none), resuming by id, cancelling an ended
 * batch, and a result file read from elsewhere with a malformed line. */
#include <stdlib.h>

#include "check.h"

static const char *server = NULL;
static const char *key = NULL;

static int ended(int state) {
    return state == CHATWIRE_BATCH_COMPLETED || state == CHATWIRE_BATCH_FAILED ||
           state == CHATWIRE_BATCH_EXPIRED || state == CHATWIRE_BATCH_CANCELLED;
}

/* A conversation for model "m" asking `question`. */
static chatwire_conversation *asking(const char *question) {
    return conversation_asking(question);
}

static void test_end_to_end(void) {
    static const char *questions[] = {"q0", "q1", "rate me"};
    static const char *ids[] = {"a", "b", "c"};
    chatwire_client *client = NULL;
    chatwire_batch *batch = NULL, *resumed = NULL;
    chatwire_conversation *conversation = NULL;
    chatwire_reply *reply = NULL;
    char *jsonl = NULL, *errors = NULL;
    char id[128] = "";
    int state = -1, steps = 0, seen[10];
    uint64_t completed = 9, failed = 9, total = 9;
    uint32_t total32 = 9;
    size_t i;
    static const char line_start[] =
        "{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{";

    CHECK_STATUS(chatwire_client_new(server, key, &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_batch_new(&batch), CHATWIRE_OK);
    for (i = 0; i < 3; i++) {
        conversation = asking(questions[i]);
        CHECK_STATUS(chatwire_batch_add(batch, client, ids[i], conversation), CHATWIRE_OK);
        /* The conversation is not changed. */
        CHECK(chatwire_conversation_len(conversation) == 1);
        chatwire_conversation_free(conversation);
    }
    conversation = asking("again");
    CHECK_STATUS(chatwire_batch_add(batch, client, "a", conversation), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("\"a\""));
    chatwire_conversation_free(conversation);
    CHECK(chatwire_batch_len(batch) == 3);
    CHECK(chatwire_batch_id(batch) == NULL && chatwire_last_error()[0] == '\0');

    CHECK_STATUS(chatwire_batch_to_jsonl(batch, &jsonl), CHATWIRE_OK);
    CHECK(jsonl != NULL && strncmp(jsonl, line_start, strlen(line_start)) == 0);
    CHECK(jsonl != NULL && strstr(jsonl, "\"custom_id\":\"c\"") != NULL);
    chatwire_string_free(jsonl);

    CHECK_STATUS(chatwire_batch_submit(client, batch), CHATWIRE_OK);
    CHECK(chatwire_batch_id(batch) != NULL && strncmp(chatwire_batch_id(batch), "batch-", 6) == 0);
    if (chatwire_batch_id(batch) != NULL) {
        strncpy(id, chatwire_batch_id(batch), sizeof id - 1);
    }
    CHECK_STATUS(chatwire_batch_submit(client, batch), CHATWIRE_ERR_INVALID_ARGUMENT);

    while (!ended(state) && steps < 10) {
        CHECK_STATUS(chatwire_batch_refresh(client, batch, &state), CHATWIRE_OK);
        seen[steps++] = state;
    }
    CHECK(steps == 3 && seen[0] == CHATWIRE_BATCH_IN_PROGRESS && seen[1] == CHATWIRE_BATCH_FINALIZING &&
          seen[2] == CHATWIRE_BATCH_COMPLETED);
    CHECK_STATUS(chatwire_batch_counts(batch, &completed, &failed, &total), CHATWIRE_OK);
    CHECK(completed == 2 && failed == 1 && total == 3);
    CHECK_STATUS(chatwire_batch_counts(batch, NULL, NULL, NULL), CHATWIRE_OK);
    CHECK_STATUS(chatwire_batch_counts_u32(batch, NULL, NULL, &total32), CHATWIRE_OK);
    CHECK(total32 == 3);
    CHECK_STATUS(chatwire_batch_errors(batch, &errors), CHATWIRE_OK);
    CHECK(errors != NULL && errors[0] == '\0');
    chatwire_string_free(errors);

    CHECK_STATUS(chatwire_batch_fetch_results(client, batch), CHATWIRE_OK);
    conversation = asking("q0");
    CHECK_STATUS(chatwire_batch_apply(batch, "a", conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(chatwire_reply_content(reply), "answer to q0") == 0);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_ASSISTANT);
    chatwire_reply_free(reply);
    reply = NULL;
    chatwire_conversation_free(conversation);

    /* A failed request: the status a send gets, and the conversation as it was. */
    conversation = asking("rate me");
    CHECK_STATUS(chatwire_batch_apply(batch, "c", conversation, &reply), CHATWIRE_ERR_RATE_LIMITED);
    CHECK(chatwire_last_http_status() == 429);
    CHECK(reply == NULL);
    CHECK(chatwire_conversation_len(conversation) == 1);
    /* One without a result. */
    CHECK_STATUS(chatwire_batch_apply(batch, "zzz", conversation, NULL), CHATWIRE_ERR_UNAVAILABLE);
    CHECK(last_error_mentions("zzz"));
    chatwire_conversation_free(conversation);

    /* An ended batch cannot be cancelled: the server's 409. */
    CHECK_STATUS(chatwire_batch_cancel(client, batch), CHATWIRE_ERR_HTTP);
    CHECK(chatwire_last_http_status() == 409);

    /* Another run: only the id. */
    CHECK_STATUS(chatwire_batch_open(id, &resumed), CHATWIRE_OK);
    CHECK(resumed != NULL && strcmp(chatwire_batch_id(resumed), id) == 0);
    CHECK(chatwire_batch_len(resumed) == 0);
    CHECK_STATUS(chatwire_batch_fetch_results(client, resumed), CHATWIRE_OK);
    conversation = asking("q1");
    CHECK_STATUS(chatwire_batch_apply(resumed, "b", conversation, NULL), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_conversation_free(conversation);
    CHECK_STATUS(chatwire_batch_open("", &resumed), CHATWIRE_ERR_INVALID_ARGUMENT);

    chatwire_batch_free(resumed);
    chatwire_batch_free(batch);
    chatwire_client_free(client);
}

static void test_read_results(void) {
    /* vLLM's run-batch writes OpenAI's output objects; the second line is cut. */
    static const char *file =
        "{\"id\":\"r1\",\"custom_id\":\"x\",\"response\":{\"status_code\":200,\"request_id\":\"v1\","
        "\"body\":{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"X\"}}]}},"
        "\"error\":null}\n"
        "{\"custom_id\": \n"
        "{\"id\":\"r2\",\"custom_id\":\"y\",\"response\":{\"status_code\":400,\"request_id\":\"v2\","
        "\"body\":{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}},\"error\":null}\n";
    chatwire_batch *batch = NULL;
    chatwire_conversation *conversation = asking("x");
    CHECK_STATUS(chatwire_batch_new(&batch), CHATWIRE_OK);
    CHECK_STATUS(chatwire_batch_read_results(batch, file), CHATWIRE_ERR_DECODE);
    CHECK(last_error_mentions("line 2"));
    CHECK_STATUS(chatwire_batch_apply(batch, "y", conversation, NULL), CHATWIRE_ERR_HTTP);
    CHECK(chatwire_last_http_status() == 400);
    CHECK_STATUS(chatwire_batch_apply(batch, "x", conversation, NULL), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_conversation_free(conversation);
    chatwire_batch_free(batch);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: batch BASE_URL KEY\n");
        return 2;
    }
    server = argv[1];
    key = argv[2];
    test_end_to_end();
    test_read_results();
    printf("batch: %d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}
