/* fork() while another thread reads the trust store: the child still builds
 * a client. A thread builds an https client with SSL_CERT_FILE naming a
 * FIFO, so its read of the trust blocks until the FIFO is written; the main
 * thread forks while it blocks, and the child builds an https client of its
 * own (with the system's trust). A lock held across the read would stay
 * held in the child, which would then wait for it forever. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define FIFO "trust.fifo"
#define ENDPOINT "https://127.0.0.1:9/v1"

static chatwire_status reader_status = CHATWIRE_OK;

/* Builds a client, reading the trust from the FIFO alone. */
static void *build_reading_the_fifo(void *unused) {
    (void)unused;
    chatwire_client *client = NULL;
    reader_status = chatwire_client_new(ENDPOINT, "sk-reader", &client);
    chatwire_client_free(client);
    return NULL;
}

static void pause_a_moment(void) {
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* The FIFO opened for writing once a reader holds it open; -1 when none
 * does within `seconds`. */
static int open_once_read(double seconds) {
    double until = now_seconds() + seconds;
    for (;;) {
        int fd = open(FIFO, O_WRONLY | O_NONBLOCK);
        if (fd >= 0 || errno != ENXIO || now_seconds() > until) {
            return fd;
        }
        pause_a_moment();
    }
}

/* The child's verdict, read from `fd`: 'y' or 'n', or 0 when none came
 * within `seconds` (the child is killed then). The child is reaped. */
static char verdict_within(pid_t child, int fd, double seconds) {
    struct pollfd ready = {fd, POLLIN, 0};
    char verdict = 0;
    if (poll(&ready, 1, (int)(seconds * 1000)) != 1 || read(fd, &verdict, 1) != 1) {
        fprintf(stderr, "the child gave no verdict within %.0f s\n", seconds);
        verdict = 0;
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    return verdict;
}

static void test_a_child_forked_while_the_trust_is_read_builds_a_client(void) {
    unlink(FIFO);
    CHECK(mkfifo(FIFO, 0600) == 0);
    CHECK(setenv("SSL_CERT_FILE", FIFO, 1) == 0);
    CHECK(unsetenv("SSL_CERT_DIR") == 0); /* else it is read too */
    pthread_t reader;
    CHECK(pthread_create(&reader, NULL, build_reading_the_fifo, NULL) == 0);
    int writer = open_once_read(30.0);
    CHECK(writer >= 0);
    if (writer < 0) {
        return; /* the thread never reached the read; exiting ends it */
    }
    int verdict[2];
    CHECK(pipe(verdict) == 0);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        unsetenv("SSL_CERT_FILE");
        chatwire_client *client = NULL;
        char built = chatwire_client_new(ENDPOINT, "sk-child", &client) == CHATWIRE_OK ? 'y' : 'n';
        chatwire_client_free(client);
        close(verdict[0]);
        CHECK(write(verdict[1], &built, 1) == 1);
        /* The reading thread's half-built client is the parent's: the child
         * ends without the exit that valgrind and LeakSanitizer check for
         * leaks, which would count it as the child's. */
        kill(getpid(), SIGKILL);
    }
    close(verdict[1]);
    CHECK(verdict_within(child, verdict[0], 30.0) == 'y');
    close(verdict[0]);
    /* The FIFO ends holding no certificate: the thread's client is refused. */
    close(writer);
    CHECK(pthread_join(reader, NULL) == 0);
    CHECK_STATUS(reader_status, CHATWIRE_ERR_CONFIG);
    unlink(FIFO);
}

int main(void) {
    test_a_child_forked_while_the_trust_is_read_builds_a_client();
    return report("fork_trust");
}
