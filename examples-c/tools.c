/*
 * tools: a two-turn tool loop. The model is offered a get_weather function
 * and must call it ("tool_choice": "required", one call at a time:
 * "parallel_tool_calls": false); this program runs the function and hands
 * back the result, and the model answers with it, calling nothing more
 * ("tool_choice": "none").
 *
 *   build/tools [--stream] [MODEL] ["QUESTION"]
 *
 * --stream streams both replies (the tool call arrives in fragments and is
 * assembled). Server and key: $OPENAI_BASE_URL and $OPENAI_API_KEY (or
 * ./.env). Exit status 1 when a request fails or the model calls no tool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chatwire.h"

static const char *WEATHER_SCHEMA =
    "{\"type\":\"object\","
    "\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"The city, e.g. Paris\"}},"
    "\"required\":[\"city\"]}";

/* chatwire_last_error() already names the failure, the HTTP status, the
 * server's message and the request id: print it once, after our own step. */
static int fail(const char *what) {
    fprintf(stderr, "error: %s: %s\n", what, chatwire_last_error());
    return 1;
}

/* The "function" the model may call: a made-up forecast, as JSON. */
static void get_weather(const char *arguments, char *result, size_t size) {
    char *json = NULL;
    const char *city = "somewhere";
    char name[64] = "";
    /* chatwire_extract_json reads the arguments even when the model wrote them sloppily. */
    if (chatwire_extract_json(arguments, &json) == CHATWIRE_OK) {
        const char *found = strstr(json, "\"city\":\"");
        if (found != NULL) {
            found += strlen("\"city\":\"");
            size_t length = strcspn(found, "\"");
            if (length >= sizeof name) {
                length = sizeof name - 1;
            }
            memcpy(name, found, length);
            name[length] = '\0';
            city = name;
        }
        chatwire_string_free(json);
    }
    snprintf(result, size, "{\"city\":\"%s\",\"forecast\":\"sunny\",\"temperature_c\":21}", city);
}

/* Runs the tool calls of `reply` and appends their results. */
static int answer_tool_calls(chatwire_conversation *conversation, const chatwire_reply *reply) {
    size_t calls = chatwire_reply_tool_call_count(reply);
    for (size_t i = 0; i < calls; i++) {
        const char *id = NULL, *name = NULL, *arguments = NULL;
        char result[256];
        chatwire_reply_tool_call(reply, i, &id, &name, &arguments);
        get_weather(arguments, result, sizeof result);
        printf("tool call %s(%s) -> %s\n", name, arguments, result);
        chatwire_status status = chatwire_conversation_append_tool_result(conversation, id, result);
        if (status != CHATWIRE_OK) {
            return fail("tool result");
        }
    }
    return 0;
}

/* Prints each piece of a streamed reply as it arrives. */
static int CHATWIRE_CALL print_delta(void *userdata, const char *delta, size_t len) {
    (void)userdata;
    fwrite(delta, 1, len, stdout);
    fflush(stdout);
    return 0;
}

/* One request, whole or streamed, handing out the whole reply. */
static chatwire_status ask(chatwire_client *client, chatwire_conversation *conversation, int stream,
                            chatwire_reply **reply_out) {
    if (!stream) {
        return chatwire_send_reply(client, conversation, reply_out);
    }
    chatwire_status status = chatwire_send_stream_reply(client, conversation, print_delta, NULL, reply_out);
    printf("\n");
    return status;
}

/* Turn 1: the model must call the function; turn 2: it answers with the
 * result, and may call nothing. */
static int tool_loop(chatwire_client *client, chatwire_conversation *conversation, int stream) {
    chatwire_reply *reply = NULL;
    chatwire_status status = ask(client, conversation, stream, &reply);
    if (status != CHATWIRE_OK) {
        return fail("send");
    }
    if (chatwire_reply_tool_call_count(reply) == 0) {
        printf("assistant (no tool call)> %s\n", chatwire_reply_content(reply));
        chatwire_reply_free(reply);
        return 1;
    }
    int failed = answer_tool_calls(conversation, reply);
    chatwire_reply_free(reply);
    reply = NULL;
    if (failed) {
        return failed;
    }
    if ((status = chatwire_conversation_set_option(conversation, "tool_choice", "\"none\"")) != CHATWIRE_OK) {
        return fail("tool_choice");
    }
    if ((status = ask(client, conversation, stream, &reply)) != CHATWIRE_OK) {
        return fail("send");
    }
    printf("assistant> %s\n", chatwire_reply_content(reply));
    uint64_t total = 0;
    const char *finish = chatwire_reply_finish_reason(reply);
    if (chatwire_reply_usage(reply, NULL, NULL, &total) == CHATWIRE_OK) {
        printf("(%llu tokens, finish reason %s)\n", (unsigned long long)total, finish ? finish : "?");
    }
    chatwire_reply_free(reply);
    return 0;
}

int main(int argc, char **argv) {
    int stream = argc > 1 && strcmp(argv[1], "--stream") == 0;
    argc -= stream;
    argv += stream;
    const char *model = argc > 1 ? argv[1] : getenv("CHATWIRE_MODEL");
    const char *question = argc > 2 ? argv[2] : "What is the weather in Paris right now?";
    if (model == NULL || model[0] == '\0') {
        model = "gpt-4o-mini";
    }
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    chatwire_status status = chatwire_client_new(NULL, NULL, &client);
    if (status != CHATWIRE_OK) {
        return fail("client");
    }
    int exit_code = 1;
    if ((status = chatwire_conversation_new(model, &conversation)) != CHATWIRE_OK ||
        (status = chatwire_conversation_add_tool(conversation, "get_weather",
                                                 "Current weather for a city", WEATHER_SCHEMA)) != CHATWIRE_OK ||
        (status = chatwire_conversation_set_option(conversation, "max_tokens", "200")) != CHATWIRE_OK ||
        /* The same answer every time, so that a run can be repeated. */
        (status = chatwire_conversation_set_option(conversation, "temperature", "0")) != CHATWIRE_OK ||
        (status = chatwire_conversation_set_option(conversation, "tool_choice", "\"required\"")) != CHATWIRE_OK ||
        (status = chatwire_conversation_set_option(conversation, "parallel_tool_calls", "false")) != CHATWIRE_OK ||
        (status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question)) != CHATWIRE_OK) {
        fail("conversation");
    } else {
        printf("you> %s\n", question);
        exit_code = tool_loop(client, conversation, stream);
    }
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return exit_code;
}
