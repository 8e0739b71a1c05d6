/*
 * poll: a chat on one thread, with one poll() loop for the keyboard and the
 * reply. No thread of its own and no callback: the reply's text is taken
 * with chatwire_request_take_text() whenever chatwire_request_fd() polls
 * readable, the way a program built around its own event loop does it.
 *
 *   build/poll [MODEL]
 *
 * The server and key come from $OPENAI_BASE_URL and $OPENAI_API_KEY (or
 * ./.env); the model from the argument, else $CHATWIRE_MODEL, else
 * gpt-4o-mini. Type a question and Enter; while the reply streams, Enter on
 * an empty line or Ctrl-C stops it (the question is taken back). /quit, end
 * of input, or Ctrl-C at the prompt leaves. When stdin is not a terminal
 * (a script), each line is echoed and waits for the reply before it.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chatwire.h"

/* The chat: the conversation, the reply streaming now (if any), and the
 * keyboard's bytes that are not yet a whole line. */
struct chat {
    chatwire_client *client;
    chatwire_conversation *conversation;
    chatwire_request *request;
    size_t before; /* the conversation's length before the question */
    int interactive;
    int input_closed;
    char input[4096];
    size_t used;
};

/* Ctrl-C writes a byte here, and the loop polls the other end: a signal
 * then wakes the loop like any other event, whenever it comes. */
static int interrupt_pipe[2] = {-1, -1};

static void on_interrupt(int signal_number) {
    int saved = errno;
    char byte = 1;
    (void)signal_number;
    if (write(interrupt_pipe[1], &byte, 1) < 0) {
        /* The pipe is full: a wake-up is already waiting. */
    }
    errno = saved;
}

static int catch_interrupts(void) {
    struct sigaction stop;
    if (pipe(interrupt_pipe) != 0) {
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(interrupt_pipe[i], F_SETFL, O_NONBLOCK);
        fcntl(interrupt_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    memset(&stop, 0, sizeof stop);
    stop.sa_handler = on_interrupt;
    sigemptyset(&stop.sa_mask);
    return sigaction(SIGINT, &stop, NULL);
}

static void report_error(const char *what) {
    fflush(stdout);
    fprintf(stderr, "error: %s: %s\n", what, chatwire_last_error());
}

static void prompt(const struct chat *chat) {
    if (chat->interactive && chat->request == NULL) {
        printf("you> ");
        fflush(stdout);
    }
}

/* Asks the question: the reply streams in the background, into the loop. */
static void ask(struct chat *chat, const char *question) {
    chat->before = chatwire_conversation_len(chat->conversation);
    if (chatwire_conversation_append(chat->conversation, CHATWIRE_ROLE_USER, question) !=
        CHATWIRE_OK) {
        report_error("append");
        return;
    }
    /* No on_delta: the text waits for chatwire_request_take_text(). */
    if (chatwire_send_async(chat->client, chat->conversation, NULL, NULL, NULL, &chat->request) !=
        CHATWIRE_OK) {
        report_error("send");
        chatwire_conversation_truncate(chat->conversation, chat->before);
        chat->request = NULL;
        return;
    }
    printf("assistant> ");
    fflush(stdout);
}

/* Stops the reply; the loop hears the end from the descriptor. */
static void cancel(struct chat *chat) {
    if (chat->request != NULL) {
        chatwire_request_cancel(chat->request);
    }
}

/* The descriptor is readable: print what arrived, and collect the reply
 * once it is done. */
static void on_reply(struct chat *chat) {
    /* Done is read before the take: text that arrives between the two is
     * then taken at the next wake-up, not left behind. */
    int done = chatwire_request_done(chat->request);
    char *text = NULL;
    if (chatwire_request_take_text(chat->request, &text) == CHATWIRE_OK) {
        fputs(text, stdout);
        fflush(stdout);
    }
    chatwire_string_free(text);
    if (done != 1) {
        return;
    }
    /* Done: the wait returns at once, and appends the reply on success. */
    chatwire_status status = chatwire_request_wait(chat->request, NULL);
    chatwire_request_free(chat->request);
    chat->request = NULL;
    printf("\n");
    if (status == CHATWIRE_ERR_CANCELLED) {
        printf("[stopped; the question was taken back]\n");
    } else if (status != CHATWIRE_OK) {
        report_error("reply");
    }
    if (status != CHATWIRE_OK) {
        chatwire_conversation_truncate(chat->conversation, chat->before);
    }
    prompt(chat);
}

/* One line from the keyboard; returns 0 to leave. */
static int on_line(struct chat *chat, char *line) {
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
        line[--length] = '\0';
    }
    if (!chat->interactive) {
        printf("you> %s\n", line);
    }
    if (chat->request != NULL) {
        if (line[0] == '\0') {
            cancel(chat);
        } else {
            printf("\n[a reply is on its way: Enter on an empty line stops it]\n");
        }
        return 1;
    }
    if (strcmp(line, "/quit") == 0) {
        return 0;
    }
    if (line[0] != '\0') {
        ask(chat, line);
    }
    prompt(chat);
    return 1;
}

/* Hands on each whole line of the keyboard's bytes, one at a time while a
 * script waits for each reply; returns 0 to leave. */
static int take_lines(struct chat *chat) {
    char *end;
    while ((chat->request == NULL || chat->interactive) &&
           ((end = strchr(chat->input, '\n')) != NULL || chat->used == sizeof chat->input - 1 ||
            (chat->input_closed && chat->used > 0))) {
        /* A whole line, a line too long for the buffer, or the last one. */
        size_t taken = end != NULL ? (size_t)(end - chat->input) + 1 : chat->used;
        char line[sizeof chat->input];
        memcpy(line, chat->input, taken);
        line[taken] = '\0';
        memmove(chat->input, chat->input + taken, chat->used - taken + 1);
        chat->used -= taken;
        if (!on_line(chat, line)) {
            return 0;
        }
    }
    return 1;
}

/* stdin is readable: one read (which cannot block now), then the lines. */
static int on_input(struct chat *chat) {
    if (chat->used < sizeof chat->input - 1) {
        ssize_t got =
            read(STDIN_FILENO, chat->input + chat->used, sizeof chat->input - 1 - chat->used);
        if (got < 0 && errno != EINTR && errno != EAGAIN) {
            perror("stdin");
            chat->input_closed = 1;
        } else if (got == 0) {
            chat->input_closed = 1;
        } else if (got > 0) {
            chat->used += (size_t)got;
        }
        chat->input[chat->used] = '\0';
    }
    return take_lines(chat);
}

/* The loop: the interrupt pipe, the keyboard, and the reply's descriptor,
 * each watched only while it matters; poll ignores a negative descriptor. */
static void run(struct chat *chat) {
    for (;;) {
        int streaming = chat->request != NULL;
        /* A script's next line waits for the reply; a person may stop it. */
        int reading = !chat->input_closed && (!streaming || chat->interactive);
        struct pollfd watch[3];
        if (!streaming && chat->input_closed) {
            /* The lines left after the end of input go first. */
            if (take_lines(chat) && chat->request != NULL) {
                continue;
            }
            return;
        }
        watch[0].fd = interrupt_pipe[0];
        watch[1].fd = reading ? STDIN_FILENO : -1;
        watch[2].fd = streaming ? chatwire_request_fd(chat->request) : -1;
        for (int i = 0; i < 3; i++) {
            watch[i].events = POLLIN;
            watch[i].revents = 0;
        }
        if (poll(watch, 3, -1) < 0) {
            if (errno == EINTR) {
                continue; /* the byte in the pipe says what happened */
            }
            perror("poll");
            return;
        }
        if (watch[0].revents & POLLIN) {
            char bytes[16];
            while (read(interrupt_pipe[0], bytes, sizeof bytes) > 0) {
            }
            if (!streaming) {
                printf("\n");
                return; /* Ctrl-C at the prompt leaves */
            }
            cancel(chat);
        }
        if (streaming && (watch[2].revents & (POLLIN | POLLERR | POLLHUP))) {
            on_reply(chat);
        }
        /* POLLHUP: the other end of a pipe closed; read() then says 0. */
        if (reading && (watch[1].revents & (POLLIN | POLLHUP | POLLERR)) && !on_input(chat)) {
            return;
        }
        if (!reading && chat->request == NULL && !take_lines(chat)) {
            return; /* a script's lines that waited for the reply */
        }
    }
}

int main(int argc, char **argv) {
    const char *model = argc > 1 ? argv[1] : getenv("CHATWIRE_MODEL");
    struct chat chat;
    memset(&chat, 0, sizeof chat);
    if (model == NULL || model[0] == '\0') {
        model = "gpt-4o-mini";
    }
    if (chatwire_client_new(NULL, NULL, &chat.client) != CHATWIRE_OK) {
        report_error("client");
        return 1;
    }
    if (chatwire_conversation_new(model, &chat.conversation) != CHATWIRE_OK) {
        report_error("conversation");
        chatwire_client_free(chat.client);
        return 1;
    }
    chat.interactive = isatty(STDIN_FILENO);
    /* A script ends at Ctrl-C, as any program does. */
    if (chat.interactive && catch_interrupts() != 0) {
        perror("signals");
        chat.interactive = 0;
    }
    if (chat.interactive) {
        printf("%s, model %s. Enter on an empty line or Ctrl-C stops a reply; /quit or Ctrl-D leaves.\n",
               chatwire_version(), model);
    }
    prompt(&chat);
    run(&chat);
    /* Leaving during a reply: freeing the request cancels it. */
    chatwire_request_free(chat.request);
    chatwire_conversation_free(chat.conversation);
    chatwire_client_free(chat.client);
    return 0;
}
