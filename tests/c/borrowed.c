/* The edge of the rule for a conversation's borrowed texts (docs/c-api.md,
 * "Ownership"): chatwire_conversation_content() and
 * chatwire_conversation_reasoning() are borrowed until the conversation
 * changes or is freed. Every call that does not change it keeps them valid
 * (reads, refused edits, a failed send, a background request until its first
 * wait, a second wait), and a call that changes it reads a borrowed text
 * passed in before it lets it go. Run under AddressSanitizer, which sees any
 * read of a text that went too soon. argv[1] answers every request with
 * "reply", streamed; argv[2] refuses every request with 400. */
#include "check.h"

/* The texts borrowed at one moment, and what each must read. */
typedef struct {
    const char *system, *question, *answer, *thought, *last;
} borrowed;

static borrowed borrow(const chatwire_conversation *conversation) {
    borrowed texts;
    texts.system = chatwire_conversation_content(conversation, 0);
    texts.question = chatwire_conversation_content(conversation, 1);
    texts.answer = chatwire_conversation_content(conversation, 2);
    texts.thought = chatwire_conversation_reasoning(conversation, 2);
    texts.last = chatwire_conversation_content(conversation, 3);
    return texts;
}

/* Reads every text borrowed in `texts` (under ASan, a read of freed memory
 * stops the program here). */
static void still_valid(borrowed texts, int line) {
    int whole = texts.system != NULL && strcmp(texts.system, "be brief") == 0 &&
                texts.question != NULL && strcmp(texts.question, "q1") == 0 &&
                texts.answer != NULL && strcmp(texts.answer, "a1") == 0 &&
                texts.thought != NULL && strcmp(texts.thought, "thought") == 0 &&
                texts.last != NULL && strcmp(texts.last, "q2") == 0;
    if (!whole) {
        fprintf(stderr, "borrowed.c:%d: a borrowed text changed\n", line);
    }
    CHECK(whole);
}

static chatwire_conversation *four_messages(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_from_json(
                     "{\"model\":\"m\",\"messages\":["
                     "{\"role\":\"system\",\"content\":\"be brief\"},"
                     "{\"role\":\"user\",\"content\":\"q1\"},"
                     "{\"role\":\"assistant\",\"content\":\"a1\",\"reasoning_content\":\"thought\"},"
                     "{\"role\":\"user\",\"content\":\"q2\"}]}",
                     &conversation),
                 CHATWIRE_OK);
    return conversation;
}

/* Reads, and lending again, change nothing: the same pointers, still valid. */
static void test_reads_keep_them(void) {
    chatwire_conversation *conversation = four_messages();
    borrowed texts = borrow(conversation);
    still_valid(texts, __LINE__);
    CHECK(chatwire_conversation_len(conversation) == 4);
    CHECK(chatwire_conversation_role(conversation, 2) == CHATWIRE_ROLE_ASSISTANT);
    CHECK(chatwire_conversation_content_len(conversation, 1) == 2);
    CHECK(chatwire_conversation_reasoning_len(conversation, 2) == 7);
    CHECK(chatwire_conversation_reasoning(conversation, 1) == NULL);
    CHECK(chatwire_conversation_content(conversation, 4) == NULL);
    CHECK(chatwire_conversation_reasoning(conversation, 4) == NULL);
    CHECK(chatwire_conversation_last_dropped(conversation) == 0);
    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    chatwire_string_free(json);
    CHECK(chatwire_conversation_content(conversation, 0) == texts.system);
    CHECK(chatwire_conversation_content(conversation, 3) == texts.last);
    CHECK(chatwire_conversation_reasoning(conversation, 2) == texts.thought);
    still_valid(texts, __LINE__);
    chatwire_conversation_free(conversation);
}

/* A refused call changes nothing, so what was borrowed stays. */
static void test_refusals_keep_them(chatwire_client *refusing) {
    chatwire_conversation *conversation = four_messages();
    borrowed texts = borrow(conversation);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "q3"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_append(conversation, 99, "q3"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_truncate(conversation, 5), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 1, 1), CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_remove(conversation, 3, 2), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append_tool_result(conversation, "none", "x"),
                 CHATWIRE_ERR_INVALID_CONVERSATION);
    CHECK_STATUS(chatwire_conversation_append_tool_calls(conversation, "", "[]"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append_user_file(conversation, "", "/nonexistent/file.pdf"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "5"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_add_tool(conversation, "no spaces", NULL, NULL), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_set_reasoning_replay(conversation, 7), CHATWIRE_ERR_INVALID_ARGUMENT);
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(refusing, conversation, &reply), CHATWIRE_ERR_HTTP);
    CHECK(reply == NULL);
    CHECK(chatwire_conversation_len(conversation) == 4);
    CHECK(chatwire_conversation_content(conversation, 1) == texts.question);
    still_valid(texts, __LINE__);
    chatwire_conversation_free(conversation);
}

/* A call that changes the conversation copies a borrowed text passed to it
 * before it lets that text go; after it, texts are borrowed again. */
static void test_a_change_reads_what_it_is_given(void) {
    chatwire_conversation *conversation = four_messages();
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT,
                                              chatwire_conversation_content(conversation, 1)),
                 CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER,
                                              chatwire_conversation_reasoning(conversation, 2)),
                 CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_system(conversation, chatwire_conversation_content(conversation, 0)),
                 CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 6);
    CHECK(strcmp(chatwire_conversation_content(conversation, 0), "be brief") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, 4), "q1") == 0);
    CHECK(strcmp(chatwire_conversation_content(conversation, 5), "thought") == 0);
    chatwire_conversation_free(conversation);
}

/* A background request does not change the conversation until its first
 * wait appends the reply; a second wait appends nothing and changes nothing. */
static void test_waits(chatwire_client *answering) {
    chatwire_conversation *conversation = four_messages();
    borrowed texts = borrow(conversation);
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(answering, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    still_valid(texts, __LINE__);
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 5);
    const char *reply = chatwire_conversation_content(conversation, 4);
    CHECK(reply != NULL && strcmp(reply, "reply") == 0);
    char *again = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &again), CHATWIRE_OK);
    CHECK(again != NULL && strcmp(again, "reply") == 0);
    chatwire_string_free(again);
    CHECK(chatwire_conversation_len(conversation) == 5);
    CHECK(reply != NULL && strcmp(reply, "reply") == 0);
    CHECK(chatwire_conversation_content(conversation, 4) == reply);
    chatwire_request_free(request);
    CHECK(reply != NULL && strcmp(reply, "reply") == 0);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s ANSWERING_URL REFUSING_URL\n", argv[0]);
        return 2;
    }
    chatwire_client *answering = NULL;
    chatwire_client *refusing = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &answering), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_new(argv[2], "sk-c-test", &refusing), CHATWIRE_OK);
    test_reads_keep_them();
    test_refusals_keep_them(refusing);
    test_a_change_reads_what_it_is_given();
    test_waits(answering);
    chatwire_client_free(answering);
    chatwire_client_free(refusing);
    return report("borrowed");
}
