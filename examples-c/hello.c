/* The README's C example: one question, the reply printed as it arrives. */
#include <stdio.h>
#include "chatwire.h"

/* Called with each piece of the reply (whole UTF-8 characters). */
static int CHATWIRE_CALL print_delta(void *userdata, const char *delta, size_t len) {
    (void)userdata;
    fwrite(delta, 1, len, stdout);
    fflush(stdout); /* stdout is line-buffered: show each piece now */
    return 0;       /* non-zero stops the reply */
}

int main(void) {
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    /* NULL, NULL: $OPENAI_BASE_URL and $OPENAI_API_KEY, else ./.env */
    chatwire_status status = chatwire_client_new(NULL, NULL, &client);
    if (status == CHATWIRE_OK) {
        status = chatwire_conversation_new("gpt-4o-mini", &conversation);
    }
    if (status == CHATWIRE_OK) {
        status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Name three colours.");
    }
    if (status == CHATWIRE_OK) {
        status = chatwire_send_stream(client, conversation, print_delta, NULL, &reply);
    }
    if (status == CHATWIRE_OK) {
        printf("\n");
        chatwire_string_free(reply); /* the reply is in the conversation too */
    } else {
        /* one line: what failed, the HTTP status, the server's message */
        fprintf(stderr, "\nchatwire: %s\n", chatwire_last_error());
    }
    chatwire_conversation_free(conversation); /* NULL is fine */
    chatwire_client_free(client);
    return status == CHATWIRE_OK ? 0 : 1;
}
