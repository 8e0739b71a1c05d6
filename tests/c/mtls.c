/* Mutual TLS from C: a server that requires a client certificate accepts
 * one set with chatwire_client_set_client_certificate(), refuses a client
 * without one with CHATWIRE_ERR_TLS in words that say so, and wrong files
 * are refused where they are set, naming the file and never the key;
 * setters that rebuild the connection pool keep the trust already read.
 * argv: SERVER_URL KEY CA_FILE CERT_FILE KEY_FILE KEY_LINE, where KEY_LINE
 * is a line of the key's PEM text that must never show. */
#include <stdlib.h>

#include "check.h"

static void send_once(chatwire_client *client, chatwire_status expected, const char *answer) {
    chatwire_conversation *conversation = conversation_asking("hello");
    char *reply = NULL;
    CHECK_STATUS(chatwire_send(client, conversation, &reply), expected);
    if (answer != NULL) {
        CHECK(reply != NULL && strcmp(reply, answer) == 0);
    }
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
}

/* Copies the file `from` to `to`; 0 on success. */
static int copy_file(const char *from, const char *to) {
    char buffer[4096];
    size_t got;
    int failed = 0;
    FILE *in = fopen(from, "rb");
    FILE *out = in != NULL ? fopen(to, "wb") : NULL;
    if (out == NULL) {
        if (in != NULL) {
            fclose(in);
        }
        return -1;
    }
    while ((got = fread(buffer, 1, sizeof buffer, in)) > 0) {
        if (fwrite(buffer, 1, got, out) != got) {
            failed = 1;
        }
    }
    fclose(in);
    return fclose(out) != 0 || failed ? -1 : 0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: mtls SERVER_URL KEY CA_FILE CERT_FILE KEY_FILE KEY_LINE\n");
        return 2;
    }
    const char *cert = argv[4];
    const char *key = argv[5];
    const char *key_line = argv[6];
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argv[1], argv[2], &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_ca_file(client, argv[3]), CHATWIRE_OK);

    /* No certificate: the server's refusal says one was required. */
    send_once(client, CHATWIRE_ERR_TLS, NULL);
    CHECK(last_error_mentions("requires a client certificate"));

    /* Wrong files: refused now, naming the file, never showing the key. */
    CHECK_STATUS(chatwire_client_set_client_certificate(client, "no-such-cert.pem", key),
                 CHATWIRE_ERR_CONFIG);
    CHECK(last_error_mentions("no-such-cert.pem"));
    CHECK_STATUS(chatwire_client_set_client_certificate(client, key, key), CHATWIRE_ERR_CONFIG);
    CHECK(last_error_mentions("no PEM certificate"));
    CHECK(!last_error_mentions(key_line));
    CHECK_STATUS(chatwire_client_set_client_certificate(client, cert, cert), CHATWIRE_ERR_CONFIG);
    CHECK(last_error_mentions("no PEM private key"));
    CHECK_STATUS(chatwire_client_set_client_certificate(client, NULL, key), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_client_certificate(client, cert, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_client_set_client_certificate(NULL, cert, key), CHATWIRE_ERR_NULL_ARGUMENT);
    /* The refused files changed nothing. */
    send_once(client, CHATWIRE_ERR_TLS, NULL);

    /* The certificate and its key: the server answers. */
    CHECK_STATUS(chatwire_client_set_client_certificate(client, cert, key), CHATWIRE_OK);
    send_once(client, CHATWIRE_OK, "mutual");

    /* Setters that rebuild the pool (a timeout, its size) keep the trust
     * read when the CA file was set: the file may be gone by then. */
    {
        char copy[1024];
        sprintf(copy, "%.1000s.copy", argv[3]);
        CHECK(copy_file(argv[3], copy) == 0);
        CHECK_STATUS(chatwire_client_set_ca_file(client, copy), CHATWIRE_OK);
        CHECK(remove(copy) == 0);
        CHECK_STATUS(chatwire_client_set_timeout_ms(client, 30000), CHATWIRE_OK);
        CHECK_STATUS(chatwire_client_set_max_idle_connections(client, 4), CHATWIRE_OK);
        send_once(client, CHATWIRE_OK, "mutual");
    }
    chatwire_client_free(client);
    return report("mtls");
}
