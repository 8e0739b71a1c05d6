/* chatwire_client_set_connect_timeout_ms and its _u32 twin: checked as the
 * other timeouts are, and in force. argv[1] is an address where a
 * connection is never accepted (tests/common/stuck.rs), so a send waits in
 * connect() until the connect timeout, far below the default of 10 s. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "check.h"

/* Sends once to `url` with retries off and the whole-request timeout at a
 * minute; returns the seconds the send took, which ends in a timeout. */
static double send_until_timeout(chatwire_client *client) {
    chatwire_conversation *conversation = conversation_asking("Hello?");
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_timeout_ms(client, 60000), CHATWIRE_OK);
    char *reply = NULL;
    double started = now_seconds();
    CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_ERR_TIMEOUT);
    double took = now_seconds() - started;
    CHECK(last_error_mentions("connect timeout"));
    CHECK(reply == NULL);
    chatwire_conversation_free(conversation);
    return took;
}

static void test_checks(void) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new("http://127.0.0.1:1", "sk-k", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("connect timeout"));
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, UINT64_MAX), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("24 hours"));
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, 86400001), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, 86400000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, 1), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms_u32(client, 0), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms_u32(client, UINT32_MAX), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms_u32(client, 5000), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(NULL, 5000), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms_u32(NULL, 5000), CHATWIRE_ERR_NULL_ARGUMENT);
    chatwire_client_free(client);
}

static void test_in_force(const char *stuck_url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(stuck_url, "sk-k", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms(client, 300), CHATWIRE_OK);
    double took = send_until_timeout(client);
    CHECK(last_error_mentions("300ms"));
    CHECK(took >= 0.25 && took < 5.0);
    CHECK_STATUS(chatwire_client_set_connect_timeout_ms_u32(client, 200), CHATWIRE_OK);
    took = send_until_timeout(client);
    CHECK(last_error_mentions("200ms"));
    CHECK(took >= 0.15 && took < 5.0);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s STUCK_URL\n", argv[0]);
        return 2;
    }
    test_checks();
    test_in_force(argv[1]);
    return report("connect_timeout");
}
