/* Request options and extra headers from C, against a mock server
 * (argv[1]) that answers "traced" to requests carrying X-Trace-Id: run-7
 * and the options set below, and "untraced" to requests without the header. */
#include <stdlib.h>

#include "check.h"

static char *to_json(const chatwire_conversation *conversation) {
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    return json;
}

static void test_option_checks(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "0.5"), CHATWIRE_OK);
    char *before = to_json(conversation);

    /* Values the schema rejects: refused, the conversation unchanged. */
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "5"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("temperature must be a number from 0 to 2"));
    CHECK(last_error_mentions("not 5"));
    CHECK(chatwire_last_http_status() == 0);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "stop", "[\"1\",\"2\",\"3\",\"4\",\"5\"]"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("stop must be"));
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "response_format", "{\"type\":\"yaml\"}"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("response_format.type"));
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "max_tokens", "null"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "seed", "1.5"), CHATWIRE_ERR_INVALID_ARGUMENT);
    char *after = to_json(conversation);
    CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    chatwire_string_free(before);
    chatwire_string_free(after);

    /* Accepted: in range, null where the schema allows it, extensions. */
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "null"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "2"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "top_k", "\"anything\""), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "response_format",
                                                  "{\"type\":\"json_schema\",\"json_schema\":"
                                                  "{\"name\":\"answer\",\"schema\":{\"type\":\"object\"}}}"),
                 CHATWIRE_OK);
    CHECK(strcmp(chatwire_last_error(), "") == 0);

    /* NULL and invalid UTF-8 arguments. */
    CHECK_STATUS(chatwire_conversation_set_option(NULL, "temperature", "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, NULL, "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("name"));
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "top_\xff", "1"), CHATWIRE_ERR_INVALID_UTF8);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "top_k", NULL), CHATWIRE_OK);
    chatwire_conversation_free(conversation);
}

/* A server's own form of a checked field: refused by set_option, sent as
 * given by set_option_unchecked, kept by the JSON form both ways. */
static void test_unchecked_options(void) {
    static const char *const bias = "[[15043,-1.0]]";
    chatwire_conversation *conversation = NULL;
    chatwire_conversation *copy = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "logit_bias", bias),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(conversation, "logit_bias", bias), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(conversation, "stream", "true"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(conversation, "seed", "{"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(NULL, "seed", "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(conversation, NULL, "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    char *json = to_json(conversation);
    CHECK(json != NULL && strcmp(json, "{\"model\":\"m\",\"messages\":[],\"logit_bias\":[[15043,-1.0]]}") == 0);
    CHECK_STATUS(chatwire_conversation_from_json(json, &copy), CHATWIRE_OK);
    char *again = to_json(copy);
    CHECK(json != NULL && again != NULL && strcmp(json, again) == 0);
    CHECK_STATUS(chatwire_conversation_set_option_unchecked(conversation, "logit_bias", NULL), CHATWIRE_OK);
    chatwire_string_free(json);
    chatwire_string_free(again);
    chatwire_conversation_free(copy);
    chatwire_conversation_free(conversation);
}

static void test_header_refusals(chatwire_client *client) {
    static const char *const own[] = {"Authorization", "content-type", "Content-Length", "Host"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        CHECK_STATUS(chatwire_client_set_header(client, own[i], "x"), CHATWIRE_ERR_INVALID_ARGUMENT);
        CHECK(last_error_mentions(own[i]));
    }
    CHECK_STATUS(chatwire_client_set_header(client, "bad name", "x"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("header name"));
    CHECK_STATUS(chatwire_client_set_header(client, "X-Key", "hunter2\r\nX-Injected: 1"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("X-Key"));
    CHECK(!last_error_mentions("hunter2"));
    CHECK_STATUS(chatwire_client_set_header(NULL, "X-Key", "x"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client"));
    CHECK_STATUS(chatwire_client_set_header(client, NULL, "x"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("name"));
    CHECK_STATUS(chatwire_client_set_header(client, "X-Key", "\xff"), CHATWIRE_ERR_INVALID_UTF8);
    /* Removing a header that is not set is fine. */
    CHECK_STATUS(chatwire_client_set_header(client, "X-Not-Set", NULL), CHATWIRE_OK);
}

/* Sends one question and checks the reply. */
static void expect_reply(chatwire_client *client, const char *expected) {
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "0.25"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "top_k", "40"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "hello"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    if (reply == NULL || strcmp(reply, expected) != 0) {
        fprintf(stderr, "expected reply %s, got %s\n", expected, reply ? reply : "(null)");
        checks_failed++;
    }
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: options BASE_URL\n");
        return 2;
    }
    test_option_checks();
    test_unchecked_options();

    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    test_header_refusals(client);

    expect_reply(client, "untraced");
    CHECK_STATUS(chatwire_client_set_header(client, "X-Trace-Id", "run-1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_header(client, "x-trace-id", "run-7"), CHATWIRE_OK);
    expect_reply(client, "traced");
    expect_reply(client, "traced");
    CHECK_STATUS(chatwire_client_set_header(client, "X-Trace-Id", NULL), CHATWIRE_OK);
    expect_reply(client, "untraced");

    chatwire_client_free(client);
    return report("options");
}
