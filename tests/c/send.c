/* chatwire_send against a mock server (argv[1]) that answers by the last
 * user message: a two-turn conversation, then every kind of failure, each
 * leaving the conversation exactly as it was. argv[2] is a closed port. */
#include <stdlib.h>

#include "check.h"

static chatwire_client *client = NULL;

static char *to_json(const chatwire_conversation *conversation) {
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    return json;
}

static void test_two_turns(void) {
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "You are terse."), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "turn-1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "reply one") == 0);
    CHECK(strcmp(chatwire_last_error(), "") == 0);
    CHECK(chatwire_last_http_status() == 0);
    chatwire_string_free(reply);
    reply = NULL;

    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(last_error_mentions("last message must be a user message"));
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "turn-2"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "reply two") == 0);
    chatwire_string_free(reply);

    CHECK(chatwire_conversation_len(conversation) == 5);
    CHECK(chatwire_conversation_role(conversation, 2) == CHATWIRE_ROLE_ASSISTANT);
    CHECK(strcmp(chatwire_conversation_content(conversation, 2), "reply one") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, 4), "reply two") == 0);
    chatwire_conversation_free(conversation);
}

/* Sends `question`, expects `status` and `http_status`, and checks that the
 * conversation and the out-parameter are untouched and that the last error
 * mentions `detail`. */
static void expect_failure(chatwire_client *with, const char *question, chatwire_status status,
                           int http_status, const char *detail) {
    chatwire_conversation *conversation = NULL;
    char sentinel = 0;
    char *reply = &sentinel;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question), CHATWIRE_OK);
    char *before = to_json(conversation);

    CHECK_STATUS(chatwire_send(with, conversation, &reply), status);
    CHECK(chatwire_last_http_status() == http_status);
    if (!last_error_mentions(detail)) {
        fprintf(stderr, "%s: last error %s does not mention %s\n", question, chatwire_last_error(), detail);
        checks_failed++;
    }
    CHECK(strstr(chatwire_last_error(), "sk-c-test") == NULL);
    CHECK(reply == &sentinel);

    char *after = to_json(conversation);
    CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_string_free(before);
    chatwire_string_free(after);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: send BASE_URL CLOSED_PORT_URL\n");
        return 2;
    }
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);

    test_two_turns();
    expect_failure(client, "auth", CHATWIRE_ERR_AUTH, 401, "Invalid API Key");
    expect_failure(client, "forbidden", CHATWIRE_ERR_AUTH, 403, "HTTP 403");
    expect_failure(client, "bad-request", CHATWIRE_ERR_HTTP, 400, "Expected 'messages' to be an array");
    expect_failure(client, "not-found", CHATWIRE_ERR_HTTP, 404, "model not found");
    expect_failure(client, "unprocessable", CHATWIRE_ERR_HTTP, 422, "HTTP 422");
    expect_failure(client, "quota", CHATWIRE_ERR_RATE_LIMITED, 429, "insufficient_quota");
    expect_failure(client, "server", CHATWIRE_ERR_SERVER, 503, "HTTP 503");
    expect_failure(client, "not-json", CHATWIRE_ERR_DECODE, 0, "<html>");
    expect_failure(client, "truncated", CHATWIRE_ERR_DECODE, 0, "not a chat completion");
    expect_failure(client, "no-choices", CHATWIRE_ERR_DECODE, 0, "no choices");

    /* Retries: the mock answers 500 twice, then succeeds. */
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_client_set_max_retries(client, 2), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "flaky"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "third time lucky") == 0);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);

    /* A server slower than the timeout. */
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, 300), CHATWIRE_OK);
    expect_failure(client, "slow", CHATWIRE_ERR_TIMEOUT, 0, "timed out");

    /* Nobody listening. */
    chatwire_client *closed = NULL;
    CHECK_STATUS(chatwire_client_new(argv[2], "sk-c-test", &closed), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(closed, 0), CHATWIRE_OK);
    expect_failure(closed, "anyone", CHATWIRE_ERR_TRANSPORT, 0, "transport error");
    chatwire_client_free(closed);

    chatwire_client_free(client);
    return report("send");
}
