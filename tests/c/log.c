/* Log lines from C, against a mock server (argv[1]) that answers 503 to
 * requests carrying X-Gateway-Key and a reply to the others: the callback
 * gets one line per attempt with its level, and no line holds the key, a
 * header value or proxy credentials. */
#include <stdlib.h>

#include "check.h"

struct seen {
    int lines, errors, warnings, infos, leaks;
    char last[1024];
};

static const char *const SECRETS[] = {"sk-c-log-secret", "gateway-s3cret", "pr0xy-s3cret"};

static void on_line(void *userdata, int level, const char *line) {
    struct seen *seen = (struct seen *)userdata;
    seen->lines++;
    seen->errors += level == CHATWIRE_LOG_ERROR;
    seen->warnings += level == CHATWIRE_LOG_WARN;
    seen->infos += level == CHATWIRE_LOG_INFO;
    for (size_t i = 0; i < sizeof SECRETS / sizeof SECRETS[0]; i++) {
        seen->leaks += strstr(line, SECRETS[i]) != NULL;
    }
    snprintf(seen->last, sizeof seen->last, "%s", line);
}

static chatwire_status send_once(chatwire_client *client) {
    chatwire_conversation *conversation = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-mini", &conversation), CHATWIRE_OK);
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "Hi"), CHATWIRE_OK);
    chatwire_status status = chatwire_send(client, conversation, &reply);
    chatwire_string_free(reply);
    chatwire_conversation_free(conversation);
    return status;
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(chatwire_set_log_callback(on_line, CHATWIRE_LOG_DEBUG, &seen), CHATWIRE_OK);
    CHECK_STATUS(chatwire_set_log_callback(on_line, 9, &seen), CHATWIRE_ERR_INVALID_ARGUMENT);

    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(argc == 2 ? argv[1] : "", "sk-c-log-secret", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 1), CHATWIRE_OK);

    /* A proxy with credentials, logged at debug level without them; then none. */
    CHECK_STATUS(chatwire_client_set_proxy(client, "http://chat:pr0xy-s3cret@127.0.0.1:9"), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_proxy(client, ""), CHATWIRE_OK);
    CHECK(seen.lines >= 1);

    /* Two attempts that fail: a warning (retried), then an error. */
    CHECK_STATUS(chatwire_client_set_header(client, "X-Gateway-Key", "gateway-s3cret"), CHATWIRE_OK);
    CHECK_STATUS(send_once(client), CHATWIRE_ERR_SERVER);
    CHECK(seen.warnings == 1 && seen.errors == 1);
    CHECK(strstr(seen.last, "status 503") != NULL && strstr(seen.last, "attempt 2") != NULL);

    /* One that succeeds: an info line with the method, URL, status and sizes. */
    CHECK_STATUS(chatwire_client_set_header(client, "X-Gateway-Key", NULL), CHATWIRE_OK);
    CHECK_STATUS(send_once(client), CHATWIRE_OK);
    CHECK(seen.infos == 1);
    CHECK(strncmp(seen.last, "POST http://", 12) == 0);
    CHECK(strstr(seen.last, "/v1/chat/completions: status 200, sent ") != NULL);
    CHECK(strstr(seen.last, "attempt 1") != NULL);
    CHECK(seen.leaks == 0);

    /* Removed: no more calls. */
    CHECK_STATUS(chatwire_set_log_callback(NULL, CHATWIRE_LOG_OFF, NULL), CHATWIRE_OK);
    int before = seen.lines;
    CHECK_STATUS(send_once(client), CHATWIRE_OK);
    CHECK(seen.lines == before);

    chatwire_client_free(client);
    return report("log");
}
