/* Reasoning, every choice, usage details, headers and the odd error shapes
 * from C, against the provider test server. argv[1]: the server; argv[2]:
 * the client's key (which the server echoes in a header, handed out as
 * sent). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static chatwire_conversation *asking(const char *model, const char *question) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new(model, &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question), CHATWIRE_OK);
    return conversation;
}

struct seen {
    char content[64];
    char reasoning[64];
    int calls;
};

static void add(char *into, const char *text, size_t len) {
    size_t have = strlen(into);
    if (have + len < 64) {
        memcpy(into + have, text, len);
        into[have + len] = '\0';
    }
}

static int on_event(void *userdata, int kind, const char *text, size_t len) {
    struct seen *seen = (struct seen *)userdata;
    seen->calls++;
    if (kind == CHATWIRE_STREAM_REASONING) {
        add(seen->reasoning, text, len);
    } else if (kind == CHATWIRE_STREAM_CONTENT) {
        add(seen->content, text, len);
    }
    return 0;
}

static void test_reasoning(chatwire_client *client, const char *model, const char *reasoning,
                           const char *content) {
    chatwire_conversation *conversation = asking(model, "What is 2+2?");
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, on_event, &seen, &reply), CHATWIRE_OK);
    CHECK(strcmp(seen.reasoning, reasoning) == 0);
    CHECK(strcmp(seen.content, content) == 0);
    CHECK(strcmp(chatwire_reply_content(reply), content) == 0);
    CHECK(chatwire_reply_reasoning(reply) != NULL && strcmp(chatwire_reply_reasoning(reply), reasoning) == 0);
    CHECK(chatwire_conversation_reasoning(conversation, 0) == NULL);
    CHECK(strcmp(chatwire_conversation_reasoning(conversation, 1), reasoning) == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), content) == 0);
    CHECK(chatwire_conversation_reasoning(conversation, 9) == NULL);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
}

static void test_choices(chatwire_client *client) {
    chatwire_conversation *conversation = asking("n2", "A colour?");
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    CHECK(chatwire_reply_choice_count(reply) == 2);
    CHECK(strcmp(chatwire_reply_choice_content(reply, 0), "red") == 0);
    CHECK(strcmp(chatwire_reply_choice_content(reply, 1), "blue") == 0);
    CHECK(chatwire_reply_choice_content(reply, 2) == NULL);
    CHECK(chatwire_reply_reasoning(reply) == NULL);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
}

static void test_usage_and_headers(chatwire_client *client, const char *key) {
    chatwire_conversation *conversation = asking("openai-usage", "hi");
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    uint64_t cached = 0, reasoning = 0;
    CHECK_STATUS(chatwire_reply_usage_details(reply, &cached, &reasoning), CHATWIRE_OK);
    CHECK(cached == 1920 && reasoning == 256);
    CHECK(strcmp(chatwire_reply_header(reply, "X-RateLimit-Remaining-Requests"), "59") == 0);
    CHECK(strcmp(chatwire_reply_header(reply, "x-echo"), key) == 0);
    CHECK(chatwire_reply_header(reply, "x-missing") == NULL);
    CHECK(chatwire_reply_header(reply, NULL) == NULL);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);

    conversation = asking("n2", "no details");
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    CHECK_STATUS(chatwire_reply_usage_details(reply, &cached, NULL), CHATWIRE_ERR_UNAVAILABLE);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
}

static void test_errors_and_stream_usage(chatwire_client *client) {
    chatwire_conversation *conversation = asking("azure-filtered", "x");
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_ERR_CONTENT_FILTERED);
    CHECK(reply == NULL);
    CHECK(chatwire_last_http_status() == 400);
    chatwire_conversation_free(conversation);

    conversation = asking("tgi-error", "x");
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_ERR_SERVER);
    CHECK(last_error_mentions("top_p"));
    chatwire_conversation_free(conversation);

    CHECK_STATUS(chatwire_client_set_stream_usage(client, 2), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_stream_usage(client, 0), CHATWIRE_OK);
    conversation = asking("mistral-small", "Salut");
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, on_event, &seen, NULL), CHATWIRE_OK);
    CHECK(strcmp(seen.content, "Bonjour") == 0);
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, NULL, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    chatwire_conversation_free(conversation);
    CHECK(strcmp(chatwire_status_str(CHATWIRE_ERR_CONTENT_FILTERED), "unknown chatwire_status") != 0);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: providers SERVER_URL KEY\n");
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], argv[2], &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    test_reasoning(client, "vllm-reasoning", "Two and two.", "4");
    test_reasoning(client, "raw-think", "Hmm, 2+2.", "Four");
    test_choices(client);
    test_usage_and_headers(client, argv[2]);
    test_errors_and_stream_usage(client);
    CHECK(chatwire_reply_reasoning(NULL) == NULL);
    CHECK(chatwire_reply_choice_count(NULL) == 0);
    chatwire_client_free(client);
    return report("providers");
}
