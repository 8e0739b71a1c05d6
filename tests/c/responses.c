/* Every send function over both APIs, against a mock server (argv[1]) that
 * answers /v1/chat/completions and /v1/responses, whole or streamed: the
 * same conversation and the same reply accessors over either, one
 * conversation sent over both turn by turn, a refused API value, and an
 * option the Responses API lacks refused before anything is sent. */
#include <stdlib.h>

#include "check.h"

static const char *server = NULL;

/* What the whole replies of both APIs say, and the start of each stream. */
static const char *const WHOLE = "{\"city\":\"Paris\"}";
static const char *const STREAMED[2] = {"Yo, welcome to the Nexus.", "The capital of France is Paris."};

/* The pieces of a stream, joined. */
struct joined {
    char text[512];
    size_t len;
};

static int CHATWIRE_CALL join(void *userdata, const char *delta, size_t len) {
    struct joined *joined = (struct joined *)userdata;
    if (joined->len + len < sizeof joined->text) {
        memcpy(joined->text + joined->len, delta, len);
        joined->len += len;
        joined->text[joined->len] = '\0';
    }
    return 0;
}

static int CHATWIRE_CALL join_content(void *userdata, int kind, const char *text, size_t len) {
    return kind == CHATWIRE_STREAM_CONTENT ? join(userdata, text, len) : 0;
}

static int starts_with(const char *text, const char *start) {
    return text != NULL && strncmp(text, start, strlen(start)) == 0;
}

/* Asks the next question of a conversation whose last message is an answer. */
static void ask(chatwire_conversation *conversation) {
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And?"), CHATWIRE_OK);
}

static chatwire_client *client_for(int api) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(server, "sk-c-responses", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_api(client, api), CHATWIRE_OK);
    return client;
}

static void test_every_send(int api) {
    chatwire_client *client = client_for(api);
    chatwire_conversation *conversation = conversation_asking("Where?");
    chatwire_reply *reply = NULL;
    chatwire_request *request = NULL;
    char *text = NULL;
    struct joined joined;

    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_OK);
    CHECK(text != NULL && strcmp(text, WHOLE) == 0);
    chatwire_string_free(text);
    text = NULL;

    ask(conversation);
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(chatwire_reply_content(reply), WHOLE) == 0);
    CHECK(reply != NULL && strcmp(chatwire_reply_finish_reason(reply), "stop") == 0);
    chatwire_reply_free(reply);
    reply = NULL;

    ask(conversation);
    memset(&joined, 0, sizeof joined);
    CHECK_STATUS(chatwire_send_stream(client, conversation, join, &joined, &text), CHATWIRE_OK);
    CHECK(starts_with(joined.text, STREAMED[api]));
    CHECK(text != NULL && strcmp(text, joined.text) == 0);
    chatwire_string_free(text);
    text = NULL;

    ask(conversation);
    memset(&joined, 0, sizeof joined);
    CHECK_STATUS(chatwire_send_stream_reply(client, conversation, join, &joined, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(chatwire_reply_content(reply), joined.text) == 0);
    chatwire_reply_free(reply);
    reply = NULL;

    ask(conversation);
    memset(&joined, 0, sizeof joined);
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, join_content, &joined, &reply),
                 CHATWIRE_OK);
    CHECK(starts_with(joined.text, STREAMED[api]));
    chatwire_reply_free(reply);
    reply = NULL;

    ask(conversation);
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait(request, &text), CHATWIRE_OK);
    CHECK(starts_with(text, STREAMED[api]));
    chatwire_string_free(text);
    text = NULL;
    chatwire_request_free(request);

    ask(conversation);
    CHECK_STATUS(chatwire_send_json(client, conversation,
                                    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                                    "\"required\":[\"city\"]}",
                                    &text),
                 CHATWIRE_OK);
    CHECK(text != NULL && strstr(text, "Paris") != NULL);
    chatwire_string_free(text);

    /* Seven questions, each with its answer. */
    CHECK(chatwire_conversation_len(conversation) == 14);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_one_conversation_over_both(void) {
    chatwire_client *chat = client_for(CHATWIRE_API_CHAT_COMPLETIONS);
    chatwire_client *responses = client_for(CHATWIRE_API_RESPONSES);
    chatwire_conversation *conversation = conversation_asking("Where?");
    char *text = NULL;
    CHECK_STATUS(chatwire_send(chat, conversation, &text), CHATWIRE_OK);
    chatwire_string_free(text);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And then?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(responses, conversation, &text), CHATWIRE_OK);
    chatwire_string_free(text);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Once more?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(chat, conversation, &text), CHATWIRE_OK);
    chatwire_string_free(text);
    CHECK(chatwire_conversation_len(conversation) == 6);
    chatwire_conversation_free(conversation);
    chatwire_client_free(chat);
    chatwire_client_free(responses);
}

static void test_refusals(void) {
    chatwire_client *client = client_for(CHATWIRE_API_RESPONSES);
    chatwire_conversation *conversation = conversation_asking("Two answers?");
    char *text = NULL;
    /* An API value that names none: refused, the API as it was. */
    CHECK_STATUS(chatwire_client_set_api(client, 2), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("chatwire_api"));
    CHECK_STATUS(chatwire_client_set_api(NULL, CHATWIRE_API_RESPONSES), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "n", "2"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(text == NULL);
    CHECK(last_error_mentions("Responses API"));
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: responses SERVER_URL\n");
        return 2;
    }
    server = argv[1];
    test_every_send(CHATWIRE_API_CHAT_COMPLETIONS);
    test_every_send(CHATWIRE_API_RESPONSES);
    test_one_conversation_over_both();
    test_refusals();
    printf("responses: %d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}
