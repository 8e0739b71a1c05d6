/* What servers of 2026 send and want back, from C, against the provider
 * test server (tests/common/providers_2026.rs cites its sources and refuses
 * with 400 what each provider refuses): Gemini 3's thought signatures kept
 * through a tool loop and a JSON round trip, Kimi's reasoning on every
 * tool-call turn, Mistral's thinking chunks, free-form tools and their
 * calls. argv[1]: the server; argv[2]: the client's key. */
#include <stdlib.h>

#include "check.h"

static chatwire_conversation *asking(const char *model, const char *question) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new(model, &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_add_tool(conversation, "get_time", "The time now", NULL), CHATWIRE_OK);
    return conversation;
}

static int quiet(void *userdata, const char *delta, size_t len) {
    (void)userdata;
    (void)delta;
    (void)len;
    return 0;
}

/* Sends whole or streamed; the reply for the caller to free. */
static chatwire_reply *send_one(chatwire_client *client, chatwire_conversation *conversation, int streamed) {
    chatwire_reply *reply = NULL;
    if (streamed) {
        CHECK_STATUS(chatwire_send_stream_reply(client, conversation, quiet, NULL, &reply), CHATWIRE_OK);
    } else {
        CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    }
    return reply;
}

/* Answers every call of `reply`; false when it made none. */
static int answer_calls(chatwire_conversation *conversation, const chatwire_reply *reply) {
    size_t count = chatwire_reply_tool_call_count(reply), index;
    for (index = 0; index < count; index++) {
        const char *id = NULL;
        CHECK_STATUS(chatwire_reply_tool_call(reply, index, &id, NULL, NULL), CHATWIRE_OK);
        CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, id, "12:00"), CHATWIRE_OK);
    }
    return count > 0;
}

static void test_gemini(chatwire_client *client, int streamed) {
    chatwire_conversation *conversation = asking("gemini-3-pro-preview", "What time is it?");
    chatwire_reply *reply = send_one(client, conversation, streamed);
    if (reply == NULL) {
        chatwire_conversation_free(conversation);
        return;
    }
    CHECK(chatwire_reply_tool_call_count(reply) == 2);
    CHECK(strcmp(chatwire_reply_tool_call_type(reply, 0), "function") == 0);
    CHECK(chatwire_reply_tool_call_type(reply, 2) == NULL);
    CHECK(strstr(chatwire_reply_json(reply), "thought_signature") != NULL);
    CHECK(answer_calls(conversation, reply));
    chatwire_reply_free(reply);

    /* Saved and loaded between the steps: the signatures travel with it. */
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "\"extra_content\":{\"google\":{\"thought_signature\"") != NULL);
    chatwire_conversation *loaded = NULL;
    CHECK_STATUS(chatwire_conversation_from_json(json, &loaded), CHATWIRE_OK);
    chatwire_string_free(json);
    chatwire_conversation_free(conversation);
    if (loaded == NULL) {
        return;
    }
    /* Gemini refuses this step unless each signature comes back. */
    reply = send_one(client, loaded, streamed);
    if (reply != NULL) {
        CHECK(strcmp(chatwire_reply_content(reply), "It is noon.") == 0);
        chatwire_reply_free(reply);
    }
    chatwire_conversation_free(loaded);
}

static void test_kimi(chatwire_client *client, int streamed) {
    chatwire_conversation *conversation = asking("kimi-k2.5", "What time is it?");
    int turn;
    for (turn = 0; turn < 2; turn++) {
        chatwire_reply *reply = send_one(client, conversation, streamed);
        if (reply == NULL) {
            break;
        }
        CHECK(strcmp(chatwire_reply_reasoning(reply), turn == 0 ? "Turn 1: I need the time." : "Turn 2: I need the time.") == 0);
        CHECK(answer_calls(conversation, reply));
        chatwire_reply_free(reply);
        /* From the second turn on, Kimi refuses unless the first turn's
         * calling message carries its reasoning. */
        reply = send_one(client, conversation, streamed);
        if (reply == NULL) {
            break;
        }
        CHECK(strcmp(chatwire_reply_content(reply), "It is noon.") == 0);
        chatwire_reply_free(reply);
        CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "And now?"), CHATWIRE_OK);
    }
    CHECK(strcmp(chatwire_conversation_reasoning(conversation, 1), "Turn 1: I need the time.") == 0);
    chatwire_conversation_free(conversation);
}

static void test_mistral(chatwire_client *client, int streamed) {
    chatwire_conversation *conversation = asking("magistral-medium-latest", "What is 2+2?");
    chatwire_reply *reply = send_one(client, conversation, streamed);
    if (reply != NULL) {
        CHECK(strcmp(chatwire_reply_content(reply), "4") == 0);
        CHECK(strcmp(chatwire_reply_reasoning(reply), "Two and two make four.") == 0);
        CHECK(strcmp(chatwire_conversation_content(conversation, 1), "4") == 0);
        chatwire_reply_free(reply);
    }
    chatwire_conversation_free(conversation);
}

static void test_custom(chatwire_client *client, int streamed) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-5-custom", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "How many rows?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_add_custom_tool(conversation, "run_sql", "Runs one SQL query",
                                                       "{\"type\":\"grammar\",\"grammar\":{\"syntax\":\"ebnf\",\"definition\":\"x\"}}"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("lark"));
    CHECK_STATUS(chatwire_conversation_add_custom_tool(conversation, "run_sql", NULL, "{"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_add_custom_tool(NULL, "run_sql", NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_add_custom_tool(conversation, NULL, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_add_custom_tool(conversation, "run_sql", "Runs one SQL query",
                                                       "{\"type\":\"grammar\",\"grammar\":{\"syntax\":\"lark\",\"definition\":\"start: /SELECT [0-9]+;/\"}}"),
                 CHATWIRE_OK);
    chatwire_reply *reply = send_one(client, conversation, streamed);
    if (reply != NULL) {
        const char *id = NULL, *name = NULL, *input = NULL;
        CHECK(strcmp(chatwire_reply_tool_call_type(reply, 0), "custom") == 0);
        CHECK_STATUS(chatwire_reply_tool_call(reply, 0, &id, &name, &input), CHATWIRE_OK);
        CHECK(strcmp(name, "run_sql") == 0 && strcmp(input, "SELECT 1;") == 0);
        CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, id, "1"), CHATWIRE_OK);
        chatwire_reply_free(reply);
        /* Refused unless the custom call and its result come back. */
        reply = send_one(client, conversation, streamed);
        if (reply != NULL) {
            CHECK(strcmp(chatwire_reply_content(reply), "One row.") == 0);
            CHECK(chatwire_reply_tool_call_type(reply, 0) == NULL);
            chatwire_reply_free(reply);
        }
    }
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    int streamed;
    if (argc != 3) {
        fprintf(stderr, "usage: providers_2026 SERVER_URL KEY\n");
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], argv[2], &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    for (streamed = 0; streamed < 2; streamed++) {
        test_gemini(client, streamed);
        test_kimi(client, streamed);
        test_mistral(client, streamed);
        test_custom(client, streamed);
    }
    CHECK(chatwire_reply_tool_call_type(NULL, 0) == NULL);
    chatwire_client_free(client);
    return report("providers_2026");
}
