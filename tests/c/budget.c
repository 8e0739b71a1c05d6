/* Token budgets, removing messages and appending tool calls from C.
 * argv[1]: a mock server answering every request with "ok"; argv[2]: one
 * whose context window holds 14 messages, refusing more with the
 * context-length error, answering "{}" otherwise. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* A 400-character message: about 100 tokens at 4 bytes a token. */
static void long_text(char *buffer, int turn) {
    memset(buffer, 'a' + turn % 26, 400);
    buffer[400] = '\0';
}

static chatwire_conversation *long_chat(int turns) {
    chatwire_conversation *conversation = NULL;
    char text[401];
    int turn;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "be brief"), CHATWIRE_OK);
    for (turn = 0; turn < turns; turn++) {
        long_text(text, turn);
        CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, text), CHATWIRE_OK);
        CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, text), CHATWIRE_OK);
    }
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "last"), CHATWIRE_OK);
    return conversation;
}

static void test_budget(chatwire_client *client) {
    chatwire_conversation *conversation = long_chat(10);
    size_t before = chatwire_conversation_len(conversation);
    char *reply = NULL;
    CHECK_STATUS(chatwire_conversation_set_token_budget(NULL, 10), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_conversation_last_dropped(NULL) == 0);
    CHECK_STATUS(chatwire_conversation_set_token_budget(conversation, 800), CHATWIRE_OK);
    CHECK(chatwire_conversation_last_dropped(conversation) == 0);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "ok") == 0);
    chatwire_string_free(reply);
    size_t dropped = chatwire_conversation_last_dropped(conversation);
    CHECK(dropped >= 2 && dropped % 2 == 0);
    CHECK(chatwire_conversation_len(conversation) == before - dropped + 1);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_SYSTEM);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_USER);
    /* The kept messages read as before, the last at its new index. */
    CHECK(strcmp(chatwire_conversation_content(conversation, 0), "be brief") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, before - dropped - 1), "last") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, before - dropped), "ok") == 0);

    /* A last exchange over the budget alone: refused, nothing changed. */
    char *huge = (char *)malloc(20001);
    memset(huge, 'x', 20000);
    huge[20000] = '\0';
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, huge), CHATWIRE_OK);
    size_t len = chatwire_conversation_len(conversation);
    reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_CONTEXT_LENGTH);
    CHECK(reply == NULL);
    CHECK(last_error_mentions("token budget of 800"));
    CHECK(chatwire_conversation_len(conversation) == len);
    CHECK(strstr(chatwire_status_str(CHATWIRE_ERR_CONTEXT_LENGTH), "context") != NULL);
    free(huge);

    /* No budget: everything is sent again. */
    CHECK_STATUS(chatwire_conversation_set_token_budget(conversation, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    chatwire_string_free(reply);
    CHECK(chatwire_conversation_last_dropped(conversation) == 0);
    CHECK(chatwire_conversation_len(conversation) == len + 1);
    chatwire_conversation_free(conversation);
}

/* A way to send a conversation and append the reply. */
typedef chatwire_status (*send_and_append)(chatwire_client *, chatwire_conversation *);

static chatwire_status plain_send(chatwire_client *client, chatwire_conversation *conversation) {
    char *reply = NULL;
    chatwire_status status = chatwire_send(client, conversation, &reply);
    chatwire_string_free(reply);
    return status;
}

static chatwire_status background_send(chatwire_client *client, chatwire_conversation *conversation) {
    chatwire_request *request = NULL;
    chatwire_status status = chatwire_send_async(client, conversation, NULL, NULL, NULL, &request);
    if (status == CHATWIRE_OK) {
        status = chatwire_request_wait(request, NULL);
    }
    chatwire_request_free(request);
    return status;
}

static chatwire_status json_send(chatwire_client *client, chatwire_conversation *conversation) {
    char *json = NULL;
    chatwire_status status = chatwire_send_json(client, conversation, "{\"type\":\"object\"}", &json);
    chatwire_string_free(json);
    return status;
}

/* The plain send's context-length retry on each road: the budget's trim
 * leaves out 6 messages, the server still refuses the 16 sent, the retry
 * leaves out 4 more; the conversation drops those 10, and the next send
 * fits the server's window at once (the test counts the refusals). */
static void test_a_retrys_drop_is_kept(chatwire_client *client, const char *road, send_and_append send) {
    chatwire_conversation *conversation = long_chat(10);
    size_t full = chatwire_conversation_len(conversation);
    /* About 100 under the estimate of its 2,091 tokens. */
    CHECK_STATUS(chatwire_conversation_set_token_budget(conversation, 1991), CHATWIRE_OK);
    CHECK_STATUS(send(client, conversation), CHATWIRE_OK);
    size_t dropped = chatwire_conversation_last_dropped(conversation);
    size_t len = chatwire_conversation_len(conversation);
    if (dropped != 10 || len != full - 10 + 1) {
        fprintf(stderr, "%s: %zu dropped, %zu messages left of %zu\n", road, dropped, len, full);
    }
    CHECK(dropped == 10 && len == full - 10 + 1);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_SYSTEM);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "next"), CHATWIRE_OK);
    CHECK_STATUS(send(client, conversation), CHATWIRE_OK);
    CHECK(chatwire_conversation_last_dropped(conversation) == 0);
    chatwire_conversation_free(conversation);
}

static const char *CALLS =
    "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{}\"}},"
    "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"time\",\"arguments\":{\"tz\":\"UTC\"}}}]";

static void test_tool_calls_and_remove(void) {
    chatwire_conversation *conversation = NULL;
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "s"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "q1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, "", "not json"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, "", "[]"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, NULL, CALLS), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, "", CALLS), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "too soon"), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, "c2", "noon"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, "c1", "sunny"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, "a1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "q2"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    CHECK(strstr(json, "\"tool_calls\"") != NULL && strstr(json, "\"c2\"") != NULL);
    chatwire_string_free(json);
    CHECK(chatwire_conversation_len(conversation) == 7);

    /* A refused remove changes nothing: borrowed texts stay valid. */
    const char *q2 = chatwire_conversation_content(conversation, 6);
    const char *sunny = chatwire_conversation_content(conversation, 4);
    /* Parting a call from its results, or breaking the order: refused, nothing removed. */
    CHECK_STATUS(chatwire_conversation_remove(conversation, 2, 1), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(last_error_mentions("tool call"));
    CHECK_STATUS(chatwire_conversation_remove(conversation, 3, 1), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 1, 2), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 1, 1), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 6, 5), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_remove(NULL, 0, 1), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_conversation_len(conversation) == 7);
    CHECK(strcmp(sunny, "sunny") == 0 && strcmp(q2, "q2") == 0);
    /* The call with its results: one exchange, removed whole. */
    CHECK_STATUS(chatwire_conversation_remove(conversation, 1, 5), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), "q2") == 0);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 0, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 0, 1), CHATWIRE_OK);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_USER);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    chatwire_client *client = NULL;
    chatwire_client *windowed = NULL;
    if (argc < 3) {
        fprintf(stderr, "usage: budget MOCK_URL WINDOWED_MOCK_URL\n");
        return 2;
    }
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    test_budget(client);
    test_tool_calls_and_remove();
    CHECK_STATUS(chatwire_client_new(argv[2], "sk-c-test", &windowed), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(windowed, 0), CHATWIRE_OK);
    test_a_retrys_drop_is_kept(windowed, "chatwire_send", plain_send);
    test_a_retrys_drop_is_kept(windowed, "chatwire_send_async", background_send);
    test_a_retrys_drop_is_kept(windowed, "chatwire_send_json", json_send);
    chatwire_client_free(windowed);
    chatwire_client_free(client);
    printf("budget: %d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}
