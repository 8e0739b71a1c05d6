/* A text that chatwire handed out, passed back in: chatwire_last_error()
 * as the text of a message and as the value of a header, against a mock
 * server (argv[1]) that answers "logged" only to a request carrying the
 * error text in X-Last-Error. Each call reads its arguments before it
 * replaces the last error. Run under AddressSanitizer too. */
#include <stdlib.h>

#include "check.h"

/* Fails on purpose; the last error then says why. */
static void fail_an_option(chatwire_conversation *conversation) {
    CHECK_STATUS(chatwire_conversation_set_option(conversation, "temperature", "5"),
                 CHATWIRE_ERR_INVALID_ARGUMENT);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BASE_URL\n", argv[0]);
        return 2;
    }
    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("m", &conversation), CHATWIRE_OK);
    fail_an_option(conversation);
    char *expected = NULL;
    {
        const char *error = chatwire_last_error();
        expected = (char *)malloc(strlen(error) + 1);
        if (expected == NULL) {
            return 2;
        }
        strcpy(expected, error);
    }
    CHECK(strstr(expected, "temperature") != NULL);

    /* Into a message: the text appended is the error's. */
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, chatwire_last_error()),
                 CHATWIRE_OK);
    CHECK(chatwire_conversation_len(conversation) == 1);
    const char *content = chatwire_conversation_content(conversation, 0);
    CHECK(content != NULL && strcmp(content, expected) == 0);
    CHECK(chatwire_conversation_content_len(conversation, 0) == strlen(expected));
    CHECK(strcmp(chatwire_last_error(), "") == 0);

    /* Read beside a call that succeeds: the text is still the error's,
     * whichever is evaluated first, and the last error is "" after it. */
    fail_an_option(conversation);
    {
        const char *error = chatwire_last_error();
        size_t len = chatwire_conversation_len(conversation);
        CHECK(len == 1);
        CHECK(strcmp(error, expected) == 0);
        CHECK(strcmp(chatwire_last_error(), "") == 0);
        CHECK(chatwire_last_http_status() == 0);
    }

    /* Into a header, which the server checks. */
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-c-test", &client), CHATWIRE_OK);
    fail_an_option(conversation);
    CHECK_STATUS(chatwire_client_set_header(client, "X-Last-Error", chatwire_last_error()), CHATWIRE_OK);
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
    CHECK(reply != NULL && strcmp(reply, "logged") == 0);
    chatwire_string_free(reply);

    free(expected);
    chatwire_client_free(client);
    chatwire_conversation_free(conversation);
    return report("last_error_in");
}
