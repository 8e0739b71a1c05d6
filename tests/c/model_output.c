/* What the model wrote reaches the C caller and the conversation byte for
 * byte, even when it holds the key or the value of a header the client sets:
 * chatwire_send, chatwire_send_reply (content, reasoning, every choice, tool
 * call arguments), chatwire_send_stream (deltas, returned text and history
 * equal), chatwire_send_stream_events, a background request, and
 * chatwire_send_json. An error that echoes the secrets shows none of them.
 * argv[1]: the server of tests/model_output.rs; argv[2]: the key. */
#include <stdlib.h>

#include "check.h"

#define TITLE "my app"

static const char *key;
static char text[256], reasoning[256], arguments[256], second[256];

static chatwire_client *client_for(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, key, &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_header(client, "X-Title", TITLE), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

static chatwire_conversation *asking(const char *model) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new(model, &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Say hello."), CHATWIRE_OK);
    return conversation;
}

static int same(const char *got, const char *expected) {
    return got != NULL && strcmp(got, expected) == 0;
}

/* The conversation's reply, and its JSON form, hold `expected` as sent. */
static void check_history(chatwire_conversation *conversation, const char *expected) {
    char *json = NULL;
    CHECK(same(chatwire_conversation_content(conversation, 1), expected));
    CHECK(chatwire_conversation_content_len(conversation, 1) == strlen(expected));
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, key) != NULL && strstr(json, TITLE) != NULL);
    chatwire_string_free(json);
}

static void test_send(chatwire_client *client) {
    chatwire_conversation *conversation = asking("text");
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(same(reply, text));
    CHECK(same(chatwire_conversation_reasoning(conversation, 1), reasoning));
    check_history(conversation, text);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
}

static void test_reply_object(chatwire_client *client) {
    chatwire_conversation *conversation = asking("text");
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    CHECK(same(chatwire_reply_content(reply), text));
    CHECK(same(chatwire_reply_reasoning(reply), reasoning));
    CHECK(same(chatwire_reply_choice_content(reply, 1), second));
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);

    conversation = asking("tool");
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    {
        const char *id = NULL, *name = NULL, *args = NULL;
        CHECK_STATUS(chatwire_reply_tool_call(reply, 0, &id, &name, &args), CHATWIRE_OK);
        CHECK(same(args, arguments));
    }
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
}

struct collected {
    char text[512];
    size_t len;
    char reasoning[512];
    size_t reasoning_len;
};

static void add(char *into, size_t *len, const char *piece, size_t n) {
    if (*len + n < 512) {
        memcpy(into + *len, piece, n);
        *len += n;
        into[*len] = '\0';
    }
}

static int on_delta(void *userdata, const char *delta, size_t len) {
    struct collected *seen = (struct collected *)userdata;
    add(seen->text, &seen->len, delta, len);
    return 0;
}

static int on_event(void *userdata, int kind, const char *piece, size_t len) {
    struct collected *seen = (struct collected *)userdata;
    if (kind == CHATWIRE_STREAM_REASONING) {
        add(seen->reasoning, &seen->reasoning_len, piece, len);
    } else {
        add(seen->text, &seen->len, piece, len);
    }
    return 0;
}

static void test_stream(chatwire_client *client) {
    chatwire_conversation *conversation = asking("text");
    struct collected seen;
    char *reply = NULL;
    chatwire_reply *whole = NULL;
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(chatwire_send_stream(client, conversation, on_delta, &seen, &reply), CHATWIRE_OK);
    CHECK(same(seen.text, text));
    CHECK(same(reply, text));
    check_history(conversation, text);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);

    conversation = asking("text");
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, on_event, &seen, &whole), CHATWIRE_OK);
    CHECK(same(seen.text, text) && same(seen.reasoning, reasoning));
    CHECK(same(chatwire_reply_content(whole), text));
    CHECK(same(chatwire_reply_reasoning(whole), reasoning));
    CHECK(same(chatwire_conversation_reasoning(conversation, 1), reasoning));
    chatwire_reply_free(whole);
    chatwire_conversation_free(conversation);
}

static void test_background(chatwire_client *client) {
    chatwire_conversation *conversation = asking("text");
    chatwire_request *request = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(same(reply, text));
    check_history(conversation, text);
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
}

static void test_send_json(chatwire_client *client) {
    chatwire_conversation *conversation = asking("json");
    char *json = NULL;
    CHECK_STATUS(chatwire_send_json(client, conversation,
                                    "{\"type\":\"object\",\"required\":[\"title\",\"key\"]}", &json),
                 CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, key) != NULL && strstr(json, TITLE) != NULL);
    CHECK(same(chatwire_conversation_content(conversation, 1), arguments));
    chatwire_string_free(json);
    chatwire_conversation_free(conversation);
}

static void test_error(chatwire_client *client) {
    chatwire_conversation *conversation = asking("error");
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_HTTP);
    CHECK(last_error_mentions("[redacted]"));
    CHECK(!last_error_mentions(key) && !last_error_mentions(TITLE));
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    chatwire_client *client;
    if (argc != 3) {
        fprintf(stderr, "usage: %s URL KEY\n", argv[0]);
        return 2;
    }
    key = argv[2];
    snprintf(text, sizeof text, "Welcome to %s! Your key is %s.", TITLE, key);
    snprintf(reasoning, sizeof reasoning, "They named %s and gave %s.", TITLE, key);
    snprintf(arguments, sizeof arguments, "{\"key\":\"%s\",\"title\":\"%s\"}", key, TITLE);
    snprintf(second, sizeof second, "%s / %s", key, TITLE);
    client = client_for(argv[1]);
    test_send(client);
    test_reply_object(client);
    test_stream(client);
    test_background(client);
    test_send_json(client);
    test_error(client);
    chatwire_client_free(client);
    return report("model_output");
}
