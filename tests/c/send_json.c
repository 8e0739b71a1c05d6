/* chatwire_send_json against a mock server (argv[1]) that answers by the
 * question: "city" gets a wrong answer first and a right one after the
 * correction turn; "never" gets wrong answers only; "recipe" gets an
 * ingredient list. */
#include <stdlib.h>

#include "check.h"

static const char *CITY_SCHEMA =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"population\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"name\",\"population\"]}";

static chatwire_conversation *ask(const char *question) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question), CHATWIRE_OK);
    return conversation;
}

static char *to_json(const chatwire_conversation *conversation) {
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    return json;
}

static void test_corrected(chatwire_client *client) {
    chatwire_conversation *conversation = ask("city");
    char *json = NULL;
    CHECK_STATUS(chatwire_send_json(client, conversation, CITY_SCHEMA, &json), CHATWIRE_OK);
    CHECK(json != NULL && strcmp(json, "{\"name\":\"Paris\",\"population\":2102650}") == 0);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(strcmp(chatwire_conversation_content(conversation, 0), "city") == 0);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_ASSISTANT);
    CHECK(json != NULL && strcmp(chatwire_conversation_content(conversation, 1), json) == 0);
    chatwire_string_free(json);
    chatwire_conversation_free(conversation);
}

static void test_used_up(chatwire_client *client) {
    chatwire_conversation *conversation = ask("never");
    char *before = to_json(conversation);
    char sentinel = 0;
    char *json = &sentinel;
    CHECK_STATUS(chatwire_client_set_json_corrections(client, 1), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send_json(client, conversation, CITY_SCHEMA, &json),
                 CHATWIRE_ERR_INVALID_REPLY);
    CHECK(json == &sentinel);
    CHECK(last_error_mentions("at /population: expected an integer, got \"many\""));
    CHECK(last_error_mentions("last reply"));
    CHECK(chatwire_last_http_status() == 0);
    char *after = to_json(conversation);
    CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    CHECK(strcmp(chatwire_status_str(CHATWIRE_ERR_INVALID_REPLY),
                 "the reply does not match the JSON Schema") == 0);
    CHECK_STATUS(chatwire_client_set_json_corrections(client, 2), CHATWIRE_OK);
    chatwire_string_free(before);
    chatwire_string_free(after);
    chatwire_conversation_free(conversation);
}

static void test_ingredients(chatwire_client *client) {
    chatwire_conversation *conversation = ask("recipe");
    char *json = NULL;
    CHECK_STATUS(chatwire_client_set_schema_delivery(client, CHATWIRE_SCHEMA_CHECK_ONLY), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send_json(client, conversation, chatwire_ingredients_schema(), &json),
                 CHATWIRE_OK);
    CHECK(json != NULL &&
          strcmp(json, "[{\"ingredient\":\"flour\",\"quantity\":1.5,\"unit\":\"cup\"}]") == 0);
    CHECK_STATUS(chatwire_client_set_schema_delivery(client, CHATWIRE_SCHEMA_IN_PROMPT), CHATWIRE_OK);
    chatwire_string_free(json);
    chatwire_conversation_free(conversation);
}

static void test_bad_arguments(chatwire_client *client) {
    chatwire_conversation *conversation = ask("unused");
    char *json = NULL;
    CHECK_STATUS(chatwire_send_json(NULL, conversation, CITY_SCHEMA, &json), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send_json(client, NULL, CITY_SCHEMA, &json), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send_json(client, conversation, NULL, &json), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send_json(client, conversation, CITY_SCHEMA, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send_json(client, conversation, "{", &json), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("schema_json is not JSON"));
    CHECK_STATUS(chatwire_send_json(client, conversation, "{\"pattern\":\"a+\"}", &json),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("\"pattern\" is not supported"));
    CHECK_STATUS(chatwire_send_json(client, conversation, "\xff", &json), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(json == NULL);
    CHECK(chatwire_conversation_len(conversation) == 1);
    CHECK_STATUS(chatwire_client_set_json_corrections(client, 11), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_json_corrections(NULL, 1), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_schema_delivery(client, 3), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_schema_delivery(client, -1), CHATWIRE_ERR_INVALID_ARGUMENT);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: send_json URL\n");
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    test_corrected(client);
    test_used_up(client);
    test_ingredients(client);
    test_bad_arguments(client);
    chatwire_client_free(client);
    return report("send_json");
}
