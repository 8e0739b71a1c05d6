/* fork() while a background request holds the client's only place in flight
 * (max_in_flight 1): the child's own background request must still run, as
 * the parent's request does not run in the child.
 * argv[1]: a server that answers every question with the question itself,
 * but holds the question "hold" unanswered; argv[2]: a named pipe the test
 * writes to once the server holds that question. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Far longer than a request to a local server takes: the bound that makes a
 * child whose request never starts fail instead of hang. */
#define PATIENCE_MS 10000

static chatwire_client *client = NULL;

/* Blocks until the test writes to the pipe at `path`; 1 when it did. */
static int hear(const char *path) {
    char byte = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return 0;
    }
    int heard = read(fd, &byte, 1) == 1;
    close(fd);
    return heard;
}

/* 1 once the request is done, 0 when it is not within PATIENCE_MS. Its
 * descriptor is readable while text waits to be taken, and once it is done. */
static int done_in_time(chatwire_request *request) {
    struct pollfd watch = {chatwire_request_fd(request), POLLIN, 0};
    double deadline = now_seconds() + PATIENCE_MS / 1000.0;
    while (watch.fd >= 0 && chatwire_request_done(request) == 0) {
        int left = (int)((deadline - now_seconds()) * 1000);
        if (left <= 0 || poll(&watch, 1, left) != 1) {
            return 0;
        }
        if (chatwire_request_done(request) == 0) {
            /* Text before the end: taken, so the descriptor waits again. */
            char *text = NULL;
            CHECK_STATUS(chatwire_request_take_text(request, &text), CHATWIRE_OK);
            chatwire_string_free(text);
        }
    }
    return chatwire_request_done(request) == 1;
}

/* The child: one background request on the parent's client; 0 when it
 * brought its answer within PATIENCE_MS. */
static int child_sends_in_the_background(void) {
    chatwire_conversation *conversation = conversation_asking("child");
    chatwire_request *request = NULL;
    char *reply = NULL;
    CHECK_STATUS(chatwire_send_async(client, conversation, NULL, NULL, NULL, &request), CHATWIRE_OK);
    CHECK(done_in_time(request));
    if (chatwire_request_done(request) == 1) {
        CHECK_STATUS(chatwire_request_wait(request, &reply), CHATWIRE_OK);
        CHECK(reply != NULL && strcmp(reply, "child") == 0);
    } else {
        fprintf(stderr, "child: the background request did not finish within %d ms\n", PATIENCE_MS);
    }
    chatwire_string_free(reply);
    /* Cancels a request that still waits: the cancel ends its wait. */
    chatwire_request_free(request);
    chatwire_conversation_free(conversation);
    return checks_failed == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: fork_in_flight BASE_URL HELD_PIPE\n");
        return 2;
    }
    CHECK_STATUS(chatwire_client_new(argv[1], "sk-fork", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_in_flight(client, 1), CHATWIRE_OK);
    chatwire_conversation *held = conversation_asking("hold");
    chatwire_request *holding = NULL;
    CHECK_STATUS(chatwire_send_async(client, held, NULL, NULL, NULL, &holding), CHATWIRE_OK);
    /* The server has the question: the request holds the only place. */
    CHECK(hear(argv[2]));
    int verdict[2];
    CHECK(pipe(verdict) == 0);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        char passed = child_sends_in_the_background() == 0 ? 'y' : 'n';
        chatwire_client_free(client);
        fflush(NULL);
        close(verdict[0]);
        CHECK(write(verdict[1], &passed, 1) == 1);
        /* The parent's request is the parent's to free, and the child must
         * leave it alone: the child ends without the exit that valgrind and
         * LeakSanitizer check for leaks, which would count it. */
        kill(getpid(), SIGKILL);
    }
    close(verdict[1]);
    char passed = 0;
    CHECK(read(verdict[0], &passed, 1) == 1 && passed == 'y');
    close(verdict[0]);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(chatwire_request_done(holding) == 0);
    CHECK_STATUS(chatwire_request_cancel(holding), CHATWIRE_OK);
    CHECK_STATUS(chatwire_request_wait(holding, NULL), CHATWIRE_ERR_CANCELLED);
    chatwire_request_free(holding);
    chatwire_conversation_free(held);
    chatwire_client_free(client);
    return report("fork_in_flight");
}
