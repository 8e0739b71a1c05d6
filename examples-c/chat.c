/*
 * chat: a multi-turn chat on stdin and stdout.
 *
 *   build/chat [--budget TOKENS] [--history FILE] [MODEL]
 *
 * The server and key come from $OPENAI_BASE_URL and $OPENAI_API_KEY (or
 * ./.env); the model from the argument, else $CHATWIRE_MODEL, else
 * gpt-4o-mini. Commands:
 *   /system TEXT   set or replace the system message
 *   /save FILE     write the conversation to FILE as JSON
 *   /load FILE     read a conversation saved with /save
 *   /history       show the conversation so far
 *   /quit          leave (end of input works too)
 * When stdin is not a terminal, each input line is echoed, so a scripted
 * session reads like a transcript.
 *
 * --budget TOKENS keeps each send within that many prompt tokens by
 * dropping the oldest exchanges (chatwire_conversation_set_token_budget());
 * --history FILE loads the chat from FILE at start, if it exists, and saves
 * it there after each turn, so a chat survives a restart.
 *
 * Replies are streamed: the text appears as the model writes it. The send
 * runs in the background (chatwire_send_async) while this thread watches for
 * Ctrl-C, which stops the current reply without leaving the program; Ctrl-C
 * at the prompt leaves, as /quit does. When stdin is not a terminal (a
 * script), Ctrl-C ends the program at once, as it would any other.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chatwire.h"

static const char *ROLE_NAMES[] = {"system", "user", "assistant"};

/* chatwire_last_error() already names the failure, the HTTP status, the
 * server's message and the request id: print it once, after our own step. */
static void report_error(const char *what) {
    fflush(stdout); /* keep the transcript in order when both go to one place */
    fprintf(stderr, "error: %s: %s\n", what, chatwire_last_error());
}

/* Reads a whole file into a NUL-terminated buffer the caller frees. */
static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char *text = (char *)malloc(capacity);
    size_t got;
    while (text != NULL && (got = fread(text + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size - 1 == 0) {
            char *bigger = (char *)realloc(text, capacity * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            capacity *= 2;
        }
    }
    if (text != NULL) {
        text[size] = '\0';
    }
    fclose(file);
    return text;
}

static void save(const chatwire_conversation *conversation, const char *path) {
    char *json = NULL;
    chatwire_status status = chatwire_conversation_to_json(conversation, &json);
    if (status != CHATWIRE_OK) {
        report_error("save");
        return;
    }
    FILE *file = fopen(path, "wb");
    if (file == NULL || fputs(json, file) < 0 || fclose(file) != 0) {
        perror(path);
    } else {
        printf("saved %zu messages to %s\n", chatwire_conversation_len(conversation), path);
    }
    chatwire_string_free(json);
}

/* Replaces *conversation with the one in `path`; keeps it on failure. */
static void load(chatwire_conversation **conversation, const char *path) {
    char *json = read_file(path);
    if (json == NULL) {
        perror(path);
        return;
    }
    chatwire_conversation *loaded = NULL;
    chatwire_status status = chatwire_conversation_from_json(json, &loaded);
    free(json);
    if (status != CHATWIRE_OK) {
        report_error("load");
        return;
    }
    chatwire_conversation_free(*conversation);
    *conversation = loaded;
    printf("loaded %zu messages from %s\n", chatwire_conversation_len(loaded), path);
}

static void history(const chatwire_conversation *conversation) {
    size_t len = chatwire_conversation_len(conversation);
    for (size_t i = 0; i < len; i++) {
        int role = chatwire_conversation_role(conversation, i);
        printf("[%s] %s\n", role >= 0 && role <= 2 ? ROLE_NAMES[role] : "?",
               chatwire_conversation_content(conversation, i));
    }
}

static volatile sig_atomic_t interrupted = 0;

static void on_interrupt(int signal_number) {
    (void)signal_number;
    interrupted = 1;
}

/* Runs on the request's worker thread: print the text as it arrives. */
static int CHATWIRE_CALL print_delta(void *userdata, const char *delta, size_t len) {
    (void)userdata;
    fwrite(delta, 1, len, stdout);
    fflush(stdout);
    return 0;
}

/* Ctrl-C sets a flag, and interrupts a read of the next line (no
 * SA_RESTART), so that the main loop sees it wherever it waits. */
static void catch_interrupts(void) {
    struct sigaction stop;
    memset(&stop, 0, sizeof stop);
    stop.sa_handler = on_interrupt;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, NULL);
}

/* Sends in the background and waits, cancelling on Ctrl-C. */
static chatwire_status stream_reply(chatwire_client *client, chatwire_conversation *conversation) {
    chatwire_request *request = NULL;
    chatwire_status status = chatwire_send_async(client, conversation, print_delta, NULL, NULL, &request);
    if (status != CHATWIRE_OK) {
        return status;
    }
    interrupted = 0;
    while (!chatwire_request_done(request)) {
        if (interrupted) {
            chatwire_request_cancel(request);
            interrupted = 0;
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    status = chatwire_request_wait(request, NULL);
    chatwire_request_free(request);
    return status;
}

/* Appends the question and streams the answer; on failure takes the question
 * back, so the user can simply ask again. */
static void ask(chatwire_client *client, chatwire_conversation *conversation, const char *question) {
    size_t before = chatwire_conversation_len(conversation);
    chatwire_status status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question);
    if (status != CHATWIRE_OK) {
        report_error("append");
        return;
    }
    printf("assistant> ");
    fflush(stdout);
    status = stream_reply(client, conversation);
    printf("\n");
    if (status == CHATWIRE_ERR_CANCELLED) {
        printf("[stopped; the question was taken back]\n");
    } else if (status != CHATWIRE_OK) {
        report_error("send");
    }
    if (status != CHATWIRE_OK) {
        chatwire_conversation_truncate(conversation, before);
    }
}

/* Long conversations: the options and what they do between turns. */
struct session {
    const char *model;
    unsigned long long budget; /* 0: none */
    const char *history;       /* NULL: none */
    size_t saved_len;
};

/* Reads --budget and --history; returns 0 on a bad option. */
static int parse_options(int argc, char **argv, struct session *session) {
    int i;
    for (i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            session->budget = strtoull(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0') {
                fprintf(stderr, "--budget takes a number of tokens, not %s\n", argv[i]);
                return 0;
            }
        } else if (strcmp(argv[i], "--history") == 0 && i + 1 < argc) {
            session->history = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: chat [--budget TOKENS] [--history FILE] [MODEL]\n");
            return 0;
        } else {
            session->model = argv[i];
        }
    }
    return 1;
}

/* Loads the history file, if there is one, and sets the budget. */
static void open_session(chatwire_conversation **conversation, struct session *session) {
    FILE *file = session->history != NULL ? fopen(session->history, "rb") : NULL;
    if (file != NULL) {
        fclose(file);
        load(conversation, session->history);
    }
    session->saved_len = chatwire_conversation_len(*conversation);
    chatwire_conversation_set_token_budget(*conversation, session->budget);
}

/* After each input line: says what the budget dropped, saves the history
 * when the conversation changed, and keeps the budget on a loaded one. */
static void after_turn(chatwire_conversation *conversation, struct session *session) {
    size_t len = chatwire_conversation_len(conversation);
    size_t dropped = chatwire_conversation_last_dropped(conversation);
    chatwire_conversation_set_token_budget(conversation, session->budget);
    if (len == session->saved_len) {
        return;
    }
    if (dropped > 0) {
        printf("[%zu old messages dropped to stay within %llu tokens]\n", dropped, session->budget);
    }
    session->saved_len = len;
    if (session->history != NULL) {
        char *json = NULL;
        FILE *file = NULL;
        if (chatwire_conversation_to_json(conversation, &json) != CHATWIRE_OK ||
            (file = fopen(session->history, "wb")) == NULL || fputs(json, file) < 0) {
            perror(session->history);
        }
        if (file != NULL && fclose(file) != 0) {
            perror(session->history);
        }
        chatwire_string_free(json);
    }
}

/* Handles one input line; returns 0 to quit. */
static int handle(chatwire_client *client, chatwire_conversation **conversation, char *line) {
    if (strcmp(line, "/quit") == 0) {
        return 0;
    } else if (strncmp(line, "/system ", 8) == 0) {
        chatwire_status status = chatwire_conversation_set_system(*conversation, line + 8);
        if (status != CHATWIRE_OK) {
            report_error("system");
        }
    } else if (strncmp(line, "/save ", 6) == 0) {
        save(*conversation, line + 6);
    } else if (strncmp(line, "/load ", 6) == 0) {
        load(conversation, line + 6);
    } else if (strcmp(line, "/history") == 0) {
        history(*conversation);
    } else if (line[0] == '/') {
        printf("commands: /system TEXT, /save FILE, /load FILE, /history, /quit\n");
    } else if (line[0] != '\0') {
        ask(client, *conversation, line);
    }
    return 1;
}

int main(int argc, char **argv) {
    struct session session = {NULL, 0, NULL, 0};
    if (!parse_options(argc, argv, &session)) {
        return 2;
    }
    const char *model = session.model != NULL ? session.model : getenv("CHATWIRE_MODEL");
    if (model == NULL || model[0] == '\0') {
        model = "gpt-4o-mini";
    }
    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    chatwire_status status = chatwire_client_new(NULL, NULL, &client);
    if (status != CHATWIRE_OK) {
        report_error("client");
        return 1;
    }
    status = chatwire_conversation_new(model, &conversation);
    if (status != CHATWIRE_OK) {
        report_error("conversation");
        chatwire_client_free(client);
        return 1;
    }

    open_session(&conversation, &session);
    int interactive = isatty(STDIN_FILENO);
    if (interactive) {
        catch_interrupts();
        printf("%s, model %s. Ctrl-C stops a reply; /quit or Ctrl-D leaves.\n", chatwire_version(), model);
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    for (;;) {
        if (interactive) {
            printf("you> ");
            fflush(stdout);
        }
        interrupted = 0;
        if ((length = getline(&line, &capacity, stdin)) < 0) {
            /* end of input, or Ctrl-C at the prompt (it interrupts the read): leave */
            if (interactive) {
                printf("\n");
            }
            break;
        }
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
            line[--length] = '\0';
        }
        if (!interactive) {
            printf("you> %s\n", line);
        }
        if (!handle(client, &conversation, line)) {
            break;
        }
        after_turn(conversation, &session);
        fflush(stdout);
    }
    free(line);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    return 0;
}
