/* chatwire_conversation_set_reasoning_replay: a Kimi model served under
 * another name gets its earlier tool-call turns with their reasoning once
 * the replay is set to CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS. The mock
 * server (argv[1]) answers "replayed" to a request whose messages carry a
 * "reasoning_content" and "plain" to one without. */
#include "check.h"

static const char *CALLS =
    "[{\"id\":\"call_old\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}}]";

/* Asks `question` and returns whether the reply was `expected`. */
static int answer_is(chatwire_client *client, chatwire_conversation *conversation, const char *question,
                     const char *expected) {
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question), CHATWIRE_OK);
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    int same = reply != NULL && strcmp(reply, expected) == 0;
    if (!same) {
        fprintf(stderr, "asked %s: got %s, expected %s\n", question, reply ? reply : "(none)", expected);
    }
    chatwire_string_free(reply);
    return same;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BASE_URL\n", argv[0]);
        return 2;
    }
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    /* A gateway's name for Kimi: the default rule cannot tell. */
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("gateway/k2-thinking", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "What time is it?"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, "", CALLS), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, "call_old", "11:00"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, "It was eleven."),
                 CHATWIRE_OK);

    CHECK(answer_is(client, conversation, "And now?", "plain"));
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS),
                 CHATWIRE_OK);
    CHECK(strcmp(chatwire_last_error(), "") == 0);
    CHECK(answer_is(client, conversation, "And now?", "replayed"));
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, CHATWIRE_REASONING_REPLAY_CURRENT_LOOP),
                 CHATWIRE_OK);
    CHECK(answer_is(client, conversation, "And now?", "plain"));

    /* Checked as every enum going in is; a refused value changes nothing. */
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS),
                 CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, 3), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("chatwire_reasoning_replay"));
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, -1), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(answer_is(client, conversation, "And now?", "replayed"));
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, CHATWIRE_REASONING_REPLAY_AUTO),
                 CHATWIRE_OK);
    CHECK(answer_is(client, conversation, "And now?", "plain"));
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(NULL, CHATWIRE_REASONING_REPLAY_AUTO),
                 CHATWIRE_ERR_NULL_ARGUMENT);

    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return report("reasoning_replay");
}
