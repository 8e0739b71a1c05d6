/* Hostile servers from C: limits end a send with CHATWIRE_ERR_TOO_LARGE and
 * tell a stream's callbacks how it ended, redirects that change the request
 * are refused, no secret comes back in an error, and a reply is what the
 * server wrote.
 * argv[1]: a gzip bomb; argv[2]: an endless stream; argv[3]: a 302 to
 * argv[4]; argv[5]: an error that echoes the secrets; argv[6]: a reply that
 * echoes them (with a U+0000 in its text). Also: image paths that are not
 * regular files are refused at once. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define KEY "sk-test-4f9a1c"
#define TOKEN "gw-\"tok\\en-77"

static chatwire_client *client_for(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, KEY, &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_header(client, "X-Gateway-Key", TOKEN), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_BODY, 1u << 20), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_limit(client, CHATWIRE_LIMIT_STREAM, 1u << 20), CHATWIRE_OK);
    return client;
}

static chatwire_conversation *question(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "hi"), CHATWIRE_OK);
    return conversation;
}

/* No form of a secret in `text` (NULL counts as clean). */
static int clean(const char *text) {
    return text == NULL || (strstr(text, KEY) == NULL && strstr(text, "sk-test-") == NULL &&
                            strstr(text, TOKEN) == NULL && strstr(text, "tok\\\\en") == NULL);
}

struct counted {
    int deltas;
    int done_calls;
    chatwire_status done_status;
};

static int count(void *userdata, const char *delta, size_t len) {
    (void)delta;
    (void)len;
    ((struct counted *)userdata)->deltas++;
    return 0;
}

static void done(void *userdata, chatwire_status status) {
    struct counted *c = (struct counted *)userdata;
    c->done_calls++;
    c->done_status = status;
}

static void test_bomb(const char *url) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = question();
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_TOO_LARGE);
    CHECK(last_error_mentions("body"));
    CHECK(reply == NULL);
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_endless_stream(const char *url) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = question();
    struct counted c = {0, 0, CHATWIRE_OK};
    char *reply = NULL;
    CHECK_STATUS(chatwire_send_stream(client, conversation, count, &c, &reply), CHATWIRE_ERR_TOO_LARGE);
    CHECK(c.deltas > 0);
    CHECK(last_error_mentions("streamed reply"));
    CHECK(chatwire_conversation_len(conversation) == 1);

    /* In the background, the done callback says how it ended. */
    struct counted b = {0, 0, CHATWIRE_OK};
    chatwire_request *request = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, count, done, &b, &request), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_ERR_TOO_LARGE);
    CHECK(b.deltas > 0);
    CHECK(b.done_calls == 1 && b.done_status == CHATWIRE_ERR_TOO_LARGE);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_redirect(const char *url, const char *target) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = question();
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_HTTP);
    CHECK(chatwire_last_http_status() == 302);
    CHECK(last_error_mentions(target));
    CHECK(chatwire_conversation_len(conversation) == 1);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_echoed_error(const char *url) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = question();
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_HTTP);
    CHECK(last_error_mentions("[redacted]"));
    CHECK(clean(chatwire_last_error()));
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

static void test_echoed_reply(const char *url) {
    chatwire_client *client = client_for(url);
    chatwire_conversation *conversation = question();
    chatwire_reply *reply = NULL;
    CHECK_STATUS(chatwire_send_reply(client, conversation, &reply), CHATWIRE_OK);
    const char *content = chatwire_reply_content(reply);
    size_t len = chatwire_reply_content_len(reply);
    /* The text goes on past its U+0000, as the server wrote it: what the
     * model wrote is the caller's, secrets and all (only the texts chatwire
     * composes are cleaned). */
    CHECK(content != NULL && len > strlen(content));
    CHECK(content != NULL && strstr(content, KEY) != NULL);
    CHECK(content != NULL && strcmp(content + strlen(content) + 1, "after") == 0);
    CHECK(strcmp(chatwire_reply_finish_reason(reply), TOKEN) == 0);
    const char *id = NULL, *name = NULL, *arguments = NULL;
    CHECK_STATUS(chatwire_reply_tool_call(reply, 0, &id, &name, &arguments), CHATWIRE_OK);
    CHECK(strcmp(name, TOKEN) == 0 && strstr(arguments, KEY) != NULL);
    CHECK(strstr(chatwire_reply_json(reply), KEY) != NULL);
    /* The conversation holds the same text, all of it. */
    CHECK(chatwire_conversation_content_len(conversation, 1) == len);
    CHECK(strcmp(chatwire_conversation_content(conversation, 1), content) == 0);
    chatwire_reply_free(reply);

    /* A char * handed out ends at the first U+0000, as documented. */
    chatwire_conversation *again = question();
    char *text = NULL;
    CHECK_STATUS(chatwire_send(client, again, &text), CHATWIRE_OK);
    CHECK(text != NULL && strlen(text) == strlen(chatwire_conversation_content(again, 1)));
    CHECK(chatwire_conversation_content_len(again, 1) > strlen(text == NULL ? "" : text));
    chatwire_string_free(text);
    chatwire_conversation_free(again);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
}

/* A FIFO with no writer must not block, /dev/zero must not be read. */
static void test_image_paths(void) {
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append_user_image(conversation, "look", "/dev/zero"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("/dev/zero") && last_error_mentions("not a regular file"));
    unlink("image.fifo");
    CHECK(mkfifo("image.fifo", 0600) == 0);
    CHECK_STATUS(chatwire_conversation_append_user_image(conversation, "look", "image.fifo"), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("image.fifo") && last_error_mentions("not a regular file"));
    unlink("image.fifo");
    CHECK(chatwire_conversation_len(conversation) == 0);
    chatwire_conversation_free(conversation);
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: hostile BOMB STREAM REDIRECT TARGET ECHO_ERROR ECHO_REPLY\n");
        return 2;
    }
    test_bomb(argv[1]);
    test_endless_stream(argv[2]);
    test_redirect(argv[3], argv[4]);
    test_echoed_error(argv[5]);
    test_echoed_reply(argv[6]);
    test_image_paths();
    return report("hostile");
}
