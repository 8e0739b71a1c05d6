/*
 * TLS on Windows, under Wine: whose certificates chatwire trusts.
 *
 *   tls BASE_URL none|ca-file|store
 *
 * none:    the server's CA is trusted nowhere: CHATWIRE_ERR_TLS.
 * ca-file: the CA is in a file whose UTF-8 name is not ASCII, set with
 *          chatwire_client_set_ca_file(): the send succeeds.
 * store:   the CA (ca.der, in the current folder) is added to the user's
 *          trusted roots in the Windows certificate store first: the send
 *          succeeds with no CA file. Only for a throwaway Wine prefix: on
 *          Windows this changes what the user trusts.
 */
#include <chatwire.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <wincrypt.h>

static chatwire_status send_once(const char *base_url, const char *ca_file) {
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    chatwire_status status = chatwire_client_new(base_url, "sk-consumer-test", &client);
    if (status == CHATWIRE_OK && ca_file != NULL) {
        status = chatwire_client_set_ca_file(client, ca_file);
    }
    if (status == CHATWIRE_OK) {
        status = chatwire_conversation_new("tls-model", &conversation);
    }
    if (status == CHATWIRE_OK) {
        status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "secure");
    }
    if (status == CHATWIRE_OK) {
        status = chatwire_send(client, conversation, &reply);
    }
    printf("%s: %s\n", chatwire_status_str(status),
           status == CHATWIRE_OK ? (reply != NULL ? reply : "") : chatwire_last_error());
    if (status == CHATWIRE_OK && (reply == NULL || strcmp(reply, "pong: secure") != 0)) {
        status = CHATWIRE_ERR_DECODE;
    }
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return status;
}

static int trust_in_store(void) {
    unsigned char der[8192];
    size_t len;
    FILE *file = fopen("ca.der", "rb");
    HCERTSTORE store;
    BOOL added;
    if (file == NULL) {
        return 0;
    }
    len = fread(der, 1, sizeof der, file);
    fclose(file);
    store = CertOpenStore(CERT_STORE_PROV_SYSTEM_W, 0, 0, CERT_SYSTEM_STORE_CURRENT_USER, L"ROOT");
    if (store == NULL) {
        return 0;
    }
    added = CertAddEncodedCertificateToStore(store, X509_ASN_ENCODING, der, (DWORD)len,
                                             CERT_STORE_ADD_REPLACE_EXISTING, NULL);
    CertCloseStore(store, 0);
    return added;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc != 3) {
        fprintf(stderr, "usage: %s BASE_URL none|ca-file|store\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[2], "none") == 0) {
        return send_once(argv[1], NULL) == CHATWIRE_ERR_TLS ? 0 : 1;
    }
    if (strcmp(argv[2], "ca-file") == 0) {
        /* "ca-\u00e9\u4e2d.pem" */
        return send_once(argv[1], "ca-\xc3\xa9\xe4\xb8\xad.pem") == CHATWIRE_OK ? 0 : 1;
    }
    if (strcmp(argv[2], "store") == 0) {
        if (!trust_in_store()) {
            fprintf(stderr, "could not add ca.der to the store\n");
            return 1;
        }
        return send_once(argv[1], NULL) == CHATWIRE_OK ? 0 : 1;
    }
    return 2;
}
