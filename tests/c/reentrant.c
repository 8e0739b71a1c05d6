/* Callbacks that call back into chatwire. argv[1] is a server that answers
 * a whole request with "pong" and a streamed one with a few deltas.
 *
 * Inside a send's callbacks, every call on the conversation being sent is
 * refused with CHATWIRE_ERR_INVALID_CONVERSATION and changes nothing, while
 * calls on another conversation work; after the send the history is
 * [user, assistant]. (Freeing it from a callback is not refused: it is
 * released when the send returns; tests/c/free_in_use.c.) */
#include <stdlib.h>

#include "check.h"

static chatwire_client *client = NULL;

/* What the callbacks saw, checked on the main thread afterwards. */
struct seen {
    chatwire_conversation *conversation;
    chatwire_conversation *other;
    int deltas;
    chatwire_status send;
    int send_says_in_use;
    int reply_untouched;
    chatwire_status append;
    chatwire_status to_json;
    size_t len;
    chatwire_status again_async;
    chatwire_status other_send;
    chatwire_status done_send;
    int done_calls;
};

/* On the first delta: every kind of call on the conversation being sent,
 * then a send on another one. */
static int call_back(void *userdata, const char *delta, size_t len) {
    struct seen *seen = (struct seen *)userdata;
    (void)delta;
    (void)len;
    if (seen->deltas++ > 0) {
        return 0;
    }
    char sentinel = 0;
    char *reply = &sentinel;
    seen->send = chatwire_send(client, seen->conversation, &reply);
    seen->send_says_in_use = last_error_mentions("in use");
    seen->reply_untouched = reply == &sentinel;
    seen->append = chatwire_conversation_append(seen->conversation, CHATWIRE_ROLE_USER, "again");
    char *json = NULL;
    seen->to_json = chatwire_conversation_to_json(seen->conversation, &json);
    chatwire_string_free(json);
    seen->len = chatwire_conversation_len(seen->conversation);
    chatwire_request *again = NULL;
    seen->again_async = chatwire_send_async(client, seen->conversation, NULL, NULL, NULL, &again);
    chatwire_request_free(again);
    char *other_reply = NULL;
    seen->other_send = chatwire_send(client, seen->other, &other_reply);
    chatwire_string_free(other_reply);
    return 0;
}

static void on_done(void *userdata, chatwire_status status) {
    struct seen *seen = (struct seen *)userdata;
    (void)status;
    char *reply = NULL;
    seen->done_send = chatwire_send(client, seen->conversation, &reply);
    chatwire_string_free(reply);
    seen->done_calls++;
}

/* What every test checks after the outer send. */
static void check_refused_inside(const struct seen *seen) {
    CHECK(seen->deltas > 0);
    CHECK(seen->send == CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(seen->send_says_in_use);
    CHECK(seen->reply_untouched);
    CHECK(seen->append == CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(seen->to_json == CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(seen->len == 0);
    CHECK(seen->again_async == CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK(seen->other_send == CHATWIRE_OK);
    CHECK(chatwire_conversation_len(seen->other) == 2);
}

static void check_history(chatwire_conversation *conversation) {
    CHECK(chatwire_conversation_len(conversation) == 2);
    CHECK(chatwire_conversation_role(conversation, 0) == CHATWIRE_ROLE_USER);
    CHECK(chatwire_conversation_role(conversation, 1) == CHATWIRE_ROLE_ASSISTANT);
    /* It still loads: a history with two assistant messages would not. */
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    chatwire_conversation *loaded = NULL;
    CHECK_STATUS(chatwire_conversation_from_json(json, &loaded), CHATWIRE_OK);
    chatwire_conversation_free(loaded);
    chatwire_string_free(json);
}

/* Nothing seen yet; the conversation to send and another one. */
static struct seen two_questions(void) {
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    seen.conversation = conversation_asking("outer");
    seen.other = conversation_asking("other");
    return seen;
}

static void test_a_send_from_a_delta_callback_is_refused(void) {
    struct seen seen = two_questions();
    char *reply = NULL;
    CHECK_STATUS(chatwire_send_stream(client, seen.conversation, call_back, &seen, &reply), CHATWIRE_OK);
    chatwire_string_free(reply);
    check_refused_inside(&seen);
    check_history(seen.conversation);
    /* Once the send has returned, the conversation is free again. */
    CHECK_STATUS(chatwire_conversation_append(seen.conversation, CHATWIRE_ROLE_USER, "next"), CHATWIRE_OK);
    chatwire_conversation_free(seen.conversation);
    chatwire_conversation_free(seen.other);
}

static void test_a_send_from_a_background_requests_callbacks_is_refused(void) {
    struct seen seen = two_questions();
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, seen.conversation, call_back, on_done, &seen, &request),
                 CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_OK);
    chatwire_request_free(request);
    check_refused_inside(&seen);
    CHECK(seen.done_calls == 1);
    CHECK(seen.done_send == CHATWIRE_ERR_INVALID_CONVERSATION);
    check_history(seen.conversation);
    chatwire_conversation_free(seen.conversation);
    chatwire_conversation_free(seen.other);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reentrant BASE_URL\n");
        return 2;
    }
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-reentrant", &client), CHATWIRE_OK);
    test_a_send_from_a_delta_callback_is_refused();
    test_a_send_from_a_background_requests_callbacks_is_refused();
    chatwire_client_free(client);
    return report("reentrant");
}
