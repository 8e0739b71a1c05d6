/* The forms of the C API made for languages that cannot call the originals
 * cleanly (src/ffi/languages.rs): chatwire_request_wait_text() reads a
 * streamed reply in a plain loop (COBOL: no callback, no poll), and the
 * 32-bit twins of every uint64_t parameter (VB6 and 32-bit VBA have no
 * 64-bit integer) keep the originals' checks and saturate what they give.
 * argv[1]: a server streaming "a", "b", "c" 150 ms apart;
 * argv[2]: a server that stays silent;
 * argv[3]: a server answering every request with a short stream;
 * argv[4]: a server answering with usage counts, one past 32 bits;
 * argv[5]: a server answering without usage, with a text of 2 KiB. */
#include <stdlib.h>

#include "check.h"

static chatwire_client *client_for(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

/* Reads a request's text with chatwire_request_wait_text() until it gives
 * "", as a COBOL program does; returns how many pieces had text. */
static int read_all(chatwire_request *request, char *into, size_t size) {
    int pieces = 0;
    into[0] = '\0';
    for (;;) {
        char *text = NULL;
        chatwire_status status = chatwire_request_wait_text(request, &text);
        CHECK_STATUS(status, CHATWIRE_OK);
        if (status != CHATWIRE_OK) {
            return pieces;
        }
        CHECK(text != NULL);
        int end = text[0] == '\0';
        if (!end) {
            pieces++;
            if (strlen(into) + strlen(text) < size) {
                strcat(into, text);
            }
        }
        chatwire_string_free(text);
        if (end) {
            /* "" comes only once the request is done. */
            CHECK(chatwire_request_done(request) == 1);
            return pieces;
        }
    }
}

/* Text arrives piece by piece in a plain loop; the end is "", after which
 * the wait gives the reply without blocking and appends it. */
static void wait_text_streams_in_a_plain_loop(const char *paced_url) {
    chatwire_client *client = client_for(paced_url);
    chatwire_conversation *conversation = conversation_asking("slowly please");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    char text[64];
    int pieces = read_all(request, text, sizeof text);
    CHECK(strcmp(text, "abc") == 0);
    /* The pieces came apart: the loop saw the text as it arrived. */
    CHECK(pieces >= 2);
    /* After the end, the end again: "" at once. */
    char *again = NULL;
    CHECK_STATUS(chatwire_request_wait_text(request, &again), CHATWIRE_OK);
    CHECK(again != NULL && again[0] == '\0');
    chatwire_string_free(again);
    char *reply = NULL;
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "abc") == 0);
    chatwire_string_free(reply);
    CHECK(chatwire_conversation_len(conversation) == 2);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static int count_delta(void *userdata, const char *delta, size_t len) {
    (void)delta;
    *(size_t *)userdata += len;
    return 0;
}

/* With an on_delta callback the callback gets the text: the wait gives
 * only the end. */
static void wait_text_with_a_callback_waits_for_the_end(const char *stream_url) {
    chatwire_client *client = client_for(stream_url);
    chatwire_conversation *conversation = conversation_asking("hi");
    chatwire_request *request = NULL;
    size_t bytes = 0;
    CHECK_STATUS(chatwire_send_async(client, conversation, count_delta, NULL, &bytes, &request), CHATWIRE_OK);
    char *text = NULL;
    CHECK_STATUS(chatwire_request_wait_text(request, &text), CHATWIRE_OK);
    CHECK(text != NULL && text[0] == '\0');
    CHECK(chatwire_request_done(request) == 1);
    chatwire_string_free(text);
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_OK);
    CHECK(bytes == strlen("Hello there"));
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

/* A cancelled request ends the loop with "", and the wait says why. */
static void wait_text_ends_on_cancel(const char *silent_url) {
    chatwire_client *client = client_for(silent_url);
    chatwire_conversation *conversation = conversation_asking("anyone?");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_cancel(request), CHATWIRE_OK);
    char text[16];
    CHECK(read_all(request, text, sizeof text) == 0);
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_ERR_CANCELLED);
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void wait_text_refuses_null(const char *stream_url) {
    char *text = (char *)"untouched";
    CHECK_STATUS(chatwire_request_wait_text(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("request"));
    CHECK(strcmp(text, "untouched") == 0);

    chatwire_client *client = client_for(stream_url);
    chatwire_conversation *conversation = conversation_asking("hi");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait_text(request, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("text_out"));
    CHECK_STATUS(chatwire_request_wait(request, NULL), CHATWIRE_OK);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

/* The 32-bit setters check as the originals do, and reach the same setting. */
static void u32_setters_keep_the_originals_checks(const char *long_url) {
    chatwire_client *client = client_for(long_url);
    CHECK_STATUS(chatwire_client_set_timeout_ms_u32(client, 30000), CHATWIRE_OK);
    CHECK(strcmp(chatwire_last_error(), "") == 0);
    CHECK_STATUS(chatwire_client_set_timeout_ms_u32(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_timeout_ms_u32(client, 86400001u), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_idle_timeout_ms_u32(client, 5000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_idle_timeout_ms_u32(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit_u32(client, CHATWIRE_LIMIT_BODY, 4096), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_limit_u32(client, CHATWIRE_LIMIT_BODY, 10), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_limit_u32(client, 99, 4096), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("chatwire_limit"));
    CHECK_STATUS(chatwire_client_set_timeout_ms_u32(NULL, 1000), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("client"));

    chatwire_conversation *conversation = conversation_asking("hi");
    CHECK_STATUS(chatwire_conversation_set_token_budget_u32(conversation, 100000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_set_token_budget_u32(NULL, 1), CHATWIRE_ERR_NULL_ARGUMENT);
    /* The limit set through the twin is the one a send keeps to: a body of
     * more than 2 KiB is taken under the default, refused under 1024 bytes. */
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strlen(reply) == 2100);
    chatwire_string_free(reply);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "again"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_limit_u32(client, CHATWIRE_LIMIT_BODY, 1024), CHATWIRE_OK);
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_TOO_LARGE);
    CHECK(chatwire_conversation_len(conversation) == 3);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

/* The 32-bit usage counts: the same numbers, one saturated, NULL outputs
 * skipped, nothing written when the server sent none. */
static void u32_usage_narrows(const char *usage_url, const char *no_usage_url) {
    chatwire_client *client = client_for(usage_url);
    chatwire_conversation *conversation = conversation_asking("count");
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    uint32_t prompt = 1, completion = 1, total = 1, cached = 1, reasoning = 1;
    CHECK_STATUS(chatwire_reply_usage_u32(reply, &prompt, &completion, &total), CHATWIRE_OK);
    CHECK(prompt == 12);
    CHECK(completion == 7);
    CHECK(total == UINT32_MAX); /* 5000000019 does not fit */
    CHECK_STATUS(chatwire_reply_usage_u32(reply, NULL, &completion, NULL), CHATWIRE_OK);
    CHECK_STATUS(chatwire_reply_usage_details_u32(reply, &cached, &reasoning), CHATWIRE_OK);
    CHECK(cached == 4);
    CHECK(reasoning == 3);
    CHECK_STATUS(chatwire_reply_usage_u32(NULL, &prompt, NULL, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);

    client = client_for(no_usage_url);
    conversation = conversation_asking("count");
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    prompt = 1;
    cached = 1;
    CHECK_STATUS(chatwire_reply_usage_u32(reply, &prompt, NULL, NULL), CHATWIRE_ERR_UNAVAILABLE);
    CHECK_STATUS(chatwire_reply_usage_details_u32(reply, &cached, NULL), CHATWIRE_ERR_UNAVAILABLE);
    CHECK(prompt == 1 && cached == 1);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: languages PACED_URL SILENT_URL STREAM_URL USAGE_URL NO_USAGE_URL\n");
        return 2;
    }
    wait_text_streams_in_a_plain_loop(argv[1]);
    wait_text_with_a_callback_waits_for_the_end(argv[3]);
    wait_text_ends_on_cancel(argv[2]);
    wait_text_refuses_null(argv[3]);
    u32_setters_keep_the_originals_checks(argv[5]);
    u32_usage_narrows(argv[4], argv[5]);
    return report("languages");
}
