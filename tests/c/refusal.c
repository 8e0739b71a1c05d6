/* Where a refusal goes (docs/c-api.md, "Where a refusal goes"): the same
 * checks on two servers, one that streams the refusal and one that ignores
 * "stream": true and answers whole. A delta callback and
 * chatwire_request_wait_text() get its text, an event callback gets it as
 * CHATWIRE_STREAM_REFUSAL pieces and never as content, and the reply hands
 * it out with chatwire_reply_refusal().
 * argv[1]: the streaming server; argv[2]: the server that answers whole. */
#include <stdlib.h>

#include "check.h"

static const char REFUSAL[] = "I can't help with that.";

struct pieces {
    char text[256];
    size_t used;
    int other_kinds; /* pieces of an event callback that were not REFUSAL */
};

static void keep(struct pieces *p, const char *text, size_t len) {
    CHECK(text[len] == '\0');
    if (p->used + len < sizeof p->text) {
        memcpy(p->text + p->used, text, len);
        p->used += len;
        p->text[p->used] = '\0';
    }
}

static int CHATWIRE_CALL on_delta(void *userdata, const char *delta, size_t len) {
    keep((struct pieces *)userdata, delta, len);
    return 0;
}

static int CHATWIRE_CALL on_event(void *userdata, int kind, const char *text, size_t len) {
    struct pieces *p = (struct pieces *)userdata;
    if (kind != CHATWIRE_STREAM_REFUSAL) {
        p->other_kinds++;
    }
    keep(p, text, len);
    return 0;
}

static chatwire_client *client_for(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, "sk-c-test", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    return client;
}

/* The text a caller got is the refusal; the reply keeps it apart, and as
 * the text it stands in for. Frees the reply. */
static void check_and_free(const struct pieces *p, chatwire_reply *reply) {
    CHECK(strcmp(p->text, REFUSAL) == 0);
    CHECK(reply != NULL);
    if (reply == NULL) {
        return;
    }
    const char *refusal = chatwire_reply_refusal(reply);
    CHECK(refusal != NULL && strcmp(refusal, REFUSAL) == 0);
    CHECK(chatwire_reply_refusal_len(reply) == strlen(REFUSAL));
    CHECK(strcmp(chatwire_reply_content(reply), REFUSAL) == 0);
    chatwire_reply_free(reply);
}

static void text_callback_gets_it(chatwire_client *client) {
    chatwire_conversation *conversation = conversation_asking("help me");
    struct pieces p;
    memset(&p, 0, sizeof p);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_stream_reply(client, conversation, on_delta, &p, &reply),
                 CHATWIRE_OK);
    check_and_free(&p, reply);
    chatwire_conversation_free(conversation);
}

static void events_get_it_as_refusal(chatwire_client *client) {
    chatwire_conversation *conversation = conversation_asking("help me");
    struct pieces p;
    memset(&p, 0, sizeof p);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_stream_events(client, conversation, on_event, &p, &reply),
                 CHATWIRE_OK);
    CHECK(p.other_kinds == 0);
    check_and_free(&p, reply);
    chatwire_conversation_free(conversation);
}

static void wait_text_gets_it(chatwire_client *client) {
    chatwire_conversation *conversation = conversation_asking("help me");
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request),
                 CHATWIRE_OK);
    struct pieces p;
    memset(&p, 0, sizeof p);
    for (int round = 0; round < 100; round++) {
        char *text = NULL;
        chatwire_status status = chatwire_request_wait_text(request, &text);
        CHECK_STATUS(status, CHATWIRE_OK);
        int end = status != CHATWIRE_OK || text[0] == '\0';
        if (status == CHATWIRE_OK) {
            keep(&p, text, strlen(text));
        }
        chatwire_string_free(text);
        if (end) {
            break;
        }
    }
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_request_wait_reply(request, &reply), CHATWIRE_OK);
    check_and_free(&p, reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
}

static void background_callback_gets_it(chatwire_client *client) {
    chatwire_conversation *conversation = conversation_asking("help me");
    struct pieces p;
    memset(&p, 0, sizeof p);
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, on_delta, NULL, &p, &request),
                 CHATWIRE_OK);
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_request_wait_reply(request, &reply), CHATWIRE_OK);
    check_and_free(&p, reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
}

/* Every road, on the server at `url`. */
static void every_road(const char *url) {
    chatwire_client *client = client_for(url);
    text_callback_gets_it(client);
    events_get_it_as_refusal(client);
    wait_text_gets_it(client);
    background_callback_gets_it(client);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: refusal STREAMING_URL WHOLE_URL\n");
        return 2;
    }
    every_road(argv[1]);
    every_road(argv[2]);
    return report("refusal");
}
