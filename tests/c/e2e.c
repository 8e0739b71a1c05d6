/* Against a real server (argv: base URL, key, model): a two-turn
 * conversation, a streamed turn, a wrong key, and schema-valid JSON from
 * chatwire_send_json. */
#include <stdlib.h>

#include "check.h"

static int count_delta(void *userdata, const char *delta, size_t len) {
    (void)delta;
    size_t *total = (size_t *)userdata;
    *total += len;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: e2e BASE_URL API_KEY MODEL\n");
        return 2;
    }
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], argv[2], &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_new(argv[3], &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "max_tokens", "24"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "Answer briefly."), CHATWIRE_OK);

    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Name a fruit."), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, chatwire_conversation_content(conversation, 2)) == 0);
    chatwire_string_free(reply);
    reply = NULL;

    size_t streamed = 0;
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And a vegetable?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send_stream(client, conversation, count_delta, &streamed, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strlen(reply) == streamed);
    CHECK(chatwire_conversation_len(conversation) == 5);
    CHECK(chatwire_conversation_role(conversation, 4) == CHATWIRE_ROLE_ASSISTANT);
    chatwire_string_free(reply);
    reply = NULL;

    chatwire_client *wrong = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-wrong-key", &wrong), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Hello?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(wrong, conversation, &reply), CHATWIRE_ERR_AUTH);
    CHECK(chatwire_last_http_status() == 401);
    CHECK(last_error_mentions("Invalid API Key"));
    CHECK(strstr(chatwire_last_error(), "sk-wrong-key") == NULL);
    CHECK(chatwire_conversation_len(conversation) == 6);
    chatwire_client_free(wrong);

    chatwire_conversation_free(conversation);
    conversation = NULL;

    /* The schema as response_format: llama.cpp's server makes it a grammar. */
    char *json = NULL;
    CHECK_STATUS(chatwire_client_set_schema_delivery(client, CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_new(argv[3], &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "max_tokens", "200"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "0"), CHATWIRE_OK);
    /* Greedy decoding of a small model may repeat items until max_tokens. */
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "frequency_penalty", "1"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER,
                                              "List the ingredients: 2 eggs, 1 cup of flour."),
                 CHATWIRE_OK);
    CHECK_STATUS(chatwire_send_json(client, conversation, chatwire_ingredients_schema(), &json), CHATWIRE_OK);
    CHECK(json != NULL && json[0] == '[' && strstr(json, "\"ingredient\":") != NULL);
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(json != NULL && strcmp(chatwire_conversation_content(conversation, 1), json) == 0);
    chatwire_string_free(json);

    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return report("e2e");
}
