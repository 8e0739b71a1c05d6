/*
 * A cancel while a request connects, on Windows (under Wine): socket2 waits
 * for a TCP connect in WSAPoll, and a cancel from another thread must end
 * that wait at once, not when the connect timeout (10 s) runs out.
 *
 *   cancel_connect STUCK_URL
 *
 * STUCK_URL is where a connect is never accepted (the mock server's port
 * whose queue is full). With no retries, a request still running half a
 * second in is still connecting: it is cancelled then, and must end
 * CHATWIRE_ERR_CANCELLED within a second.
 */
#include <chatwire.h>
#include <stdio.h>
#include <windows.h>

int main(int argc, char **argv) {
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    chatwire_request *request = NULL;
    char *reply = NULL;
    if (argc != 2) {
        fprintf(stderr, "usage: %s STUCK_URL\n", argv[0]);
        return 2;
    }
    if (chatwire_client_new(argv[1], "sk-consumer-test", &client) != CHATWIRE_OK ||
        chatwire_client_set_max_retries(client, 0) != CHATWIRE_OK ||
        chatwire_conversation_new("tour-model", &conversation) != CHATWIRE_OK ||
        chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "never mind") != CHATWIRE_OK ||
        chatwire_send_async(client, conversation, NULL, NULL, NULL, &request) != CHATWIRE_OK) {
        fprintf(stderr, "setup failed: %s\n", chatwire_last_error());
        return 1;
    }
    Sleep(500);
    int connecting = chatwire_request_done(request) == 0;
    ULONGLONG started = GetTickCount64();
    chatwire_status cancelled = chatwire_request_cancel(request);
    chatwire_status status = chatwire_request_wait(request, &reply);
    unsigned waited = (unsigned)(GetTickCount64() - started);
    int ok = connecting && cancelled == CHATWIRE_OK && status == CHATWIRE_ERR_CANCELLED &&
             reply == NULL && waited < 1000;
    printf("cancel_connect: %s, %s %u ms after the cancel%s\n", ok ? "ok" : "FAILED",
           chatwire_status_str(status), waited,
           connecting ? "" : " (it had ended before: not stuck in its connect)");
    chatwire_string_free(reply);
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return ok ? 0 : 1;
}
