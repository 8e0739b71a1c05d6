/* The providers of 2026 set up from C as docs/providers.md says, against
 * the provider test server (tests/common/providers/recent.rs, which cites
 * each provider's page or issue): Z.ai by its whole URL, Azure's v1 route
 * with the key as api-key, DashScope's thinking through a stream,
 * Perplexity's alternation and sources, and a field Cerebras refuses.
 * argv[1]: the server; argv[2]: the key it expects. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static const char *server;
static const char *key;

static chatwire_client *at_url(const char *path) {
    char url[256];
    snprintf(url, sizeof url, "%s%s", server, path);
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(NULL, key, &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_endpoint_url(client, url), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

static chatwire_client *at_base(const char *path) {
    char base[256];
    snprintf(base, sizeof base, "%s%s", server, path);
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(base, key, &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

static void test_zai(void) {
    chatwire_client *client = at_url("/api/paas/v4/chat/completions");
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("glm-4.6", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "What is 101 times 3?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "thinking", "{\"type\":\"enabled\"}"), CHATWIRE_OK);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(chatwire_reply_content(reply), "303") == 0);
    CHECK(reply != NULL && chatwire_reply_reasoning(reply) != NULL &&
          strcmp(chatwire_reply_reasoning(reply), "101 times 3 is 303.") == 0);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_azure_v1(void) {
    chatwire_client *client = at_base("/openai/v1");
    CHECK_STATUS(chatwire_client_set_auth(client, CHATWIRE_AUTH_API_KEY), CHATWIRE_OK);
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("my-gpt-4o-deployment", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "hi"), CHATWIRE_OK);
    char *text = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_OK);
    CHECK(text != NULL && strcmp(text, "hello from my-gpt-4o-deployment") == 0);
    chatwire_string_free(text);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

struct seen {
    char content[64];
    char reasoning[64];
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
    add(kind == CHATWIRE_STREAM_REASONING ? seen->reasoning : seen->content, text, len);
    return 0;
}

static void test_dashscope(void) {
    chatwire_client *client = at_base("/compatible-mode/v1");
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("qwen-plus", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "101 times 3?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "enable_thinking", "true"), CHATWIRE_OK);
    /* Thinking without a stream: DashScope's 400, nothing appended. */
    char *text = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_ERR_HTTP);
    CHECK(text == NULL && last_error_mentions("enable_thinking"));
    CHECK(chatwire_conversation_len(conversation) == 1);
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, on_event, &seen, &reply), CHATWIRE_OK);
    CHECK(strcmp(seen.reasoning, "101 times 3 is 303.") == 0);
    CHECK(strcmp(seen.content, "303") == 0);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_perplexity(void) {
    chatwire_client *client = at_url("/chat/completions");
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("sonar", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, "Be precise."), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "How many stars?"), CHATWIRE_OK);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    const char *json = reply == NULL ? NULL : chatwire_reply_json(reply);
    CHECK(json != NULL && strstr(json, "\"citations\":[\"https://example.org/milky-way\"]") != NULL);
    CHECK(json != NULL && strstr(json, "\"search_results\"") != NULL);
    chatwire_reply_free(reply);
    /* Two user messages in a row are refused before anything is sent. */
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Hello?"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(chatwire_conversation_len(conversation) == 4);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_cerebras(void) {
    chatwire_client *client = at_base("");
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("llama-3.3-70b", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "hi"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "presence_penalty", "0.5"), CHATWIRE_OK);
    char *text = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_ERR_HTTP);
    CHECK(last_error_mentions("presence_penalty") && chatwire_last_http_status() == 400);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "presence_penalty", NULL), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &text), CHATWIRE_OK);
    CHECK(text != NULL && strcmp(text, "hello from llama-3.3-70b") == 0);
    chatwire_string_free(text);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: providers_recent SERVER KEY\n");
        return 2;
    }
    server = argv[1];
    key = argv[2];
    test_zai();
    test_azure_v1();
    test_dashscope();
    test_perplexity();
    test_cerebras();
    return report("providers_recent");
}
