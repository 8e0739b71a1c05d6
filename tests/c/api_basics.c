/* Every function of the C API that needs no server: NULL arguments, invalid
 * UTF-8, roles out of range, ordering, indexed reads, the JSON round trip,
 * status strings, the last error, extraction, and configuration errors. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static const char *BAD_UTF8 = "caf\xc3 \xff";

static void test_version_and_status_strings(void) {
    CHECK(strncmp(chatwire_version(), "chatwire ", 9) == 0);
    CHECK(strcmp(chatwire_status_str(CHATWIRE_OK), "ok") == 0);
    CHECK(strstr(chatwire_status_str(CHATWIRE_ERR_AUTH), "credentials") != NULL);
    CHECK(strcmp(chatwire_status_str(-1), "unknown chatwire_status") == 0);
    CHECK(strcmp(chatwire_status_str(9999), "unknown chatwire_status") == 0);
    for (int status = CHATWIRE_OK; status <= CHATWIRE_ERR_UNAVAILABLE; status++) {
        CHECK(chatwire_status_str(status) != NULL);
        CHECK(strcmp(chatwire_status_str(status), "unknown chatwire_status") != 0);
    }
}

static void test_null_arguments(void) {
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *text = NULL;

    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", "k", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client_out"));
    CHECK(chatwire_last_http_status() == 0);
    CHECK_STATUS(chatwire_client_set_timeout_ms(NULL, 10), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_max_retries(NULL, 1), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_new(NULL, &conversation), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("model"));
    CHECK(conversation == NULL);
    CHECK_STATUS(chatwire_conversation_new("m", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_system(NULL, "s"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append(NULL, CHATWIRE_ROLE_USER, "u"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_conversation_len(NULL) == 0);
    CHECK(chatwire_conversation_role(NULL, 0) == -1);
    CHECK(chatwire_conversation_content(NULL, 0) == NULL);
    CHECK_STATUS(chatwire_conversation_to_json(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_from_json(NULL, &conversation), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_from_json("{}", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send(NULL, NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_extract_json(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_extract_json("{}", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(text == NULL);

    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", "k", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_to_json(conversation, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_send(client, NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("conversation"));
    CHECK_STATUS(chatwire_send(NULL, conversation, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client"));
    /* A NULL handle is reported first, whatever the other arguments are. */
    CHECK_STATUS(chatwire_send(NULL, conversation, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client"));
    CHECK_STATUS(chatwire_send_stream(NULL, conversation, NULL, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client"));
    CHECK_STATUS(chatwire_send_stream_events(client, NULL, NULL, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("conversation"));
    CHECK_STATUS(chatwire_send_json(client, NULL, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("conversation"));
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("reply_out"));
    CHECK(chatwire_conversation_len(conversation) == 1);

    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    chatwire_client_free(NULL);
    chatwire_conversation_free(NULL);
    chatwire_string_free(NULL);
}

static void test_invalid_utf8(void) {
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *text = NULL;

    CHECK_STATUS(chatwire_client_new(BAD_UTF8, "k", &client), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(last_error_mentions("base_url"));
    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", BAD_UTF8, &client), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(client == NULL);
    CHECK_STATUS(chatwire_conversation_new(BAD_UTF8, &conversation), CHATWIRE_ERR_INVALID_UTF8);
    CHECK_STATUS(chatwire_conversation_from_json(BAD_UTF8, &conversation), CHATWIRE_ERR_INVALID_UTF8);
    CHECK_STATUS(chatwire_extract_json(BAD_UTF8, &text), CHATWIRE_ERR_INVALID_UTF8);

    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, BAD_UTF8), CHATWIRE_ERR_INVALID_UTF8);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, BAD_UTF8), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(last_error_mentions("content"));
    CHECK(chatwire_conversation_len(conversation) == 0);
    chatwire_conversation_free(conversation);
}

static void test_roles_and_ordering(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);

    CHECK_STATUS(chatwire_conversation_append(conversation, 4, "x"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("role 4"));
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_TOOL, "x"), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(last_error_mentions("chatwire_conversation_append_tool_result") || last_error_mentions("id of the call"));
    CHECK_STATUS(chatwire_conversation_append(conversation, -1, "x"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append(conversation, 1 << 30, "x"), CHATWIRE_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, "a"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(last_error_mentions("expected a system or a user message"));
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_SYSTEM, "s"), CHATWIRE_OK);
    CHECK(strcmp(chatwire_last_error(), "") == 0);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_SYSTEM, "s2"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u2"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(last_error_mentions("expected an assistant message after a user message"));
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, "a1"), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 3);

    /* Indexed reads; a borrowed text stays valid while only reads follow. */
    const char *first_user = chatwire_conversation_content(conversation, 1);
    CHECK(first_user != NULL && strcmp(first_user, "u1") == 0);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_SYSTEM);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_USER);
    CHECK(chatwire_conversation_role(conversation, 2) == CHATWIRE_ROLE_ASSISTANT);
    CHECK(chatwire_conversation_role(conversation, 3) == -1);
    CHECK(chatwire_conversation_role(conversation, SIZE_MAX) == -1);
    CHECK(chatwire_conversation_content(conversation, 3) == NULL);
    CHECK(last_error_mentions("index 3"));
    CHECK(strcmp(first_user, "u1") == 0);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u3"), CHATWIRE_OK);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), "u1") == 0);

    /* truncate takes turns back. */
    CHECK_STATUS(chatwire_conversation_truncate(conversation, 5), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_truncate(NULL, 0), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_truncate(conversation, 3), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 3);
    CHECK(chatwire_conversation_content(conversation, 3) == NULL);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u3 again"), CHATWIRE_OK);
    CHECK(strcmp(chatwire_conversation_content(conversation, 3), "u3 again") == 0);

    /* set_system replaces the one system message in place; the other
     * messages keep their places. */
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "new system"), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 4);
    CHECK(strcmp(chatwire_conversation_content(conversation, 0), "new system") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), "u1") == 0);
    chatwire_conversation_free(conversation);

    /* ... and inserts one at the start when there is none. */
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "u"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "s"), CHATWIRE_OK);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_SYSTEM);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_USER);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), "u") == 0);
    CHECK_STATUS(chatwire_conversation_new("", &conversation), CHATWIRE_ERR_INVALID_ARGUMENT);
    chatwire_conversation_free(conversation);
}

static void test_json_round_trip(void) {
    chatwire_conversation *conversation = NULL;
    chatwire_conversation *copy = NULL;
    char *json = NULL;
    char *again = NULL;

    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "Be \"terse\".\n"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "caf\xc3\xa9 \xf0\x9f\x98\x80"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, ""), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    CHECK(json != NULL && strncmp(json, "{\"model\":\"gpt-4o-mini\",\"messages\":[", 35) == 0);

    CHECK_STATUS(chatwire_conversation_from_json(json, &copy), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(copy) == 3);
    CHECK(strcmp(chatwire_conversation_content(copy, 1), "caf\xc3\xa9 \xf0\x9f\x98\x80") == 0);
    CHECK(strcmp(chatwire_conversation_content(copy, 2), "") == 0);
    CHECK_STATUS(chatwire_conversation_to_json(copy, &again), CHATWIRE_OK);
    CHECK(again != NULL && json != NULL && strcmp(json, again) == 0);

    /* Options travel with the conversation. */
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "max_tokens", "16"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "stop", "[\"\\n\\n\"]"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "stop", NULL), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "warm"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("not JSON"));
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "model", "\"x\""), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "stream", "true"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, NULL, "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(NULL, "seed", "1"), CHATWIRE_ERR_NULL_ARGUMENT);
    char *with_options = NULL;
    chatwire_conversation *reloaded = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &with_options), CHATWIRE_OK);
    CHECK(with_options != NULL && strstr(with_options, "\"max_tokens\":16") != NULL);
    CHECK(with_options != NULL && strstr(with_options, "stop") == NULL);
    CHECK_STATUS(chatwire_conversation_from_json(with_options, &reloaded), CHATWIRE_OK);
    chatwire_string_free(with_options);
    chatwire_conversation_free(reloaded);

    chatwire_conversation *broken = NULL;
    CHECK_STATUS(chatwire_conversation_from_json("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":\"x\"}]}", &broken),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_from_json("{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}", &broken),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_from_json("not json", &broken), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("not a conversation"));
    CHECK(broken == NULL);
    /* What append refuses (NULL text), from_json refuses too. */
    CHECK_STATUS(chatwire_conversation_from_json("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":null}]}", &broken),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("content"));
    CHECK(broken == NULL);

    /* Text holding U+0000 comes back whole: the _len accessor says how long. */
    chatwire_conversation *with_nul = NULL;
    CHECK_STATUS(chatwire_conversation_from_json("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"ab\\u0000cd\"}]}", &with_nul),
                 CHATWIRE_OK);
    CHECK(chatwire_conversation_content_len(with_nul, 0) == 5);
    CHECK(with_nul != NULL && memcmp(chatwire_conversation_content(with_nul, 0), "ab\0cd", 6) == 0);
    CHECK(chatwire_conversation_content_len(with_nul, 1) == 0);
    CHECK(chatwire_conversation_content_len(NULL, 0) == 0);
    chatwire_conversation_free(with_nul);

    chatwire_string_free(json);
    chatwire_string_free(again);
    chatwire_conversation_free(copy);
    chatwire_conversation_free(conversation);
}

static void test_extract_json(void) {
    char *json = NULL;
    CHECK_STATUS(chatwire_extract_json("Here:\n```json\n[{\"quantity\": 1/2}]\n```\nDone.", &json), CHATWIRE_OK);
    CHECK(json != NULL && strcmp(json, "[{\"quantity\":0.5}]") == 0);
    chatwire_string_free(json);
    json = NULL;
    CHECK_STATUS(chatwire_extract_json("no json here", &json), CHATWIRE_ERR_NO_JSON);
    CHECK(json == NULL);
    CHECK(strlen(chatwire_last_error()) > 0);
}

static void test_client_configuration(void) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new("ftp://example.com", "k", &client), CHATWIRE_ERR_CONFIG);
    CHECK(last_error_mentions("ftp://example.com"));
    CHECK_STATUS(chatwire_client_new("not a url", "k", &client), CHATWIRE_ERR_CONFIG);
    CHECK(client == NULL);
    /* Run with no OPENAI_API_KEY and no .env: NULL means "look it up";
     * "" means no key at all, which needs none. */
    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", NULL, &client), CHATWIRE_ERR_MISSING_API_KEY);
    CHECK(last_error_mentions("OPENAI_API_KEY"));
    CHECK(client == NULL);
    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", "", &client), CHATWIRE_OK);
    CHECK(client != NULL);
    chatwire_client_free(client);
    client = NULL;

    CHECK_STATUS(chatwire_client_new(NULL, "sk-k", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, 1500), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, UINT64_MAX), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("24 hours"));
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, 86400000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 10), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 11), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("at most 10"));
    CHECK_STATUS(chatwire_client_set_max_retries(client, UINT32_MAX), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_BODY, 1024), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_STREAM, 1023), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_HEADERS, 2u << 20), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("limit on the response headers"));
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_EVENT, UINT64_MAX), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit(client, 4, 4096), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit(client, -1, 4096), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit(NULL, CHATWIRE_LIMIT_BODY, 4096), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_idle_timeout_ms(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_idle_timeout_ms(client, 5000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_idle_timeout_ms(NULL, 5000), CHATWIRE_ERR_NULL_ARGUMENT);
    chatwire_client_free(client);
}

int main(void) {
    test_version_and_status_strings();
    test_null_arguments();
    test_invalid_utf8();
    test_roles_and_ordering();
    test_json_round_trip();
    test_extract_json();
    test_client_configuration();
    return report("api_basics");
}
