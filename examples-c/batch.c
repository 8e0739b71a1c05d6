/* Questions through the provider's Batch API: a list of questions in (one a
 * line), a table of answers out, at the batch price, within 24 hours.
 *
 *   batch QUESTIONS_FILE             submit the questions, wait, print the table
 *   batch QUESTIONS_FILE BATCH_ID    resume a batch submitted earlier: wait, print
 *
 * The client comes from $OPENAI_BASE_URL and $OPENAI_API_KEY (or ./.env), the
 * model from $CHATWIRE_MODEL (gpt-4o-mini). It asks where the batch stands
 * every $CHATWIRE_BATCH_POLL_SECONDS (60) seconds, at most
 * $CHATWIRE_BATCH_POLLS times (forever when unset); a batch still running
 * then leaves the program with status 3 and the command that resumes it.
 * Request i is "q<i>": a resumed run rebuilds the conversations from the
 * same file, so it needs nothing but the batch id. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#else
#include <windows.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chatwire.h"

#define MAX_QUESTIONS 50000 /* what one OpenAI input file holds */
#define LINE_BYTES 4096

static void pause_seconds(unsigned seconds) {
#if defined(_WIN32)
    Sleep(seconds * 1000u);
#else
    sleep(seconds);
#endif
}

/* A number from the environment, or `fallback` when unset. */
static long env_number(const char *name, long fallback) {
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? strtol(value, NULL, 10) : fallback;
}

/* Reads one question a line (blank lines skipped) into `questions`; their number. */
static size_t read_questions(FILE *file, char **questions) {
    char line[LINE_BYTES];
    size_t count = 0;
    while (count < MAX_QUESTIONS && fgets(line, sizeof line, file) != NULL) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (len == 0) {
            continue;
        }
        questions[count] = (char *)malloc(len + 1);
        if (questions[count] == NULL) {
            break;
        }
        memcpy(questions[count], line, len + 1);
        count++;
    }
    return count;
}

static chatwire_conversation *asking(const char *model, const char *question) {
    chatwire_conversation *conversation = NULL;
    if (chatwire_conversation_new(model, &conversation) != CHATWIRE_OK ||
        chatwire_conversation_set_system(conversation, "Answer in one short sentence.") != CHATWIRE_OK ||
        chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, question) != CHATWIRE_OK) {
        chatwire_conversation_free(conversation);
        return NULL;
    }
    return conversation;
}

/* The batch of every question, added as a send of each would be made. */
static chatwire_status fill(chatwire_batch *batch, chatwire_client *client, const char *model,
                            char **questions, size_t count) {
    size_t i;
    for (i = 0; i < count; i++) {
        char custom_id[32];
        chatwire_conversation *conversation = asking(model, questions[i]);
        chatwire_status status;
        if (conversation == NULL) {
            return CHATWIRE_ERR_INVALID_CONVERSATION;
        }
        snprintf(custom_id, sizeof custom_id, "q%lu", (unsigned long)(i + 1));
        status = chatwire_batch_add(batch, client, custom_id, conversation);
        chatwire_conversation_free(conversation);
        if (status != CHATWIRE_OK) {
            return status;
        }
    }
    return CHATWIRE_OK;
}

static const char *state_name(int state) {
    switch (state) {
    case CHATWIRE_BATCH_VALIDATING: return "validating";
    case CHATWIRE_BATCH_IN_PROGRESS: return "in progress";
    case CHATWIRE_BATCH_FINALIZING: return "finalizing";
    case CHATWIRE_BATCH_COMPLETED: return "completed";
    case CHATWIRE_BATCH_FAILED: return "failed";
    case CHATWIRE_BATCH_EXPIRED: return "expired";
    case CHATWIRE_BATCH_CANCELLING: return "cancelling";
    default: return "cancelled";
    }
}

static int has_ended(int state) {
    return state == CHATWIRE_BATCH_COMPLETED || state == CHATWIRE_BATCH_FAILED ||
           state == CHATWIRE_BATCH_EXPIRED || state == CHATWIRE_BATCH_CANCELLED;
}

/* Waits until the batch has ended, or the polls run out (*state_out then
 * says where it stands). */
static chatwire_status wait_for(chatwire_client *client, chatwire_batch *batch, int *state_out) {
    long polls = env_number("CHATWIRE_BATCH_POLLS", -1);
    long seconds = env_number("CHATWIRE_BATCH_POLL_SECONDS", 60);
    for (;;) {
        uint64_t completed = 0, failed = 0, total = 0;
        chatwire_status status = chatwire_batch_refresh(client, batch, state_out);
        if (status != CHATWIRE_OK) {
            return status;
        }
        (void)chatwire_batch_counts(batch, &completed, &failed, &total);
        fprintf(stderr, "batch %s: %s, %lu of %lu done, %lu failed\n", chatwire_batch_id(batch),
                state_name(*state_out), (unsigned long)completed, (unsigned long)total,
                (unsigned long)failed);
        if (has_ended(*state_out) || (polls > 0 && --polls == 0)) {
            return CHATWIRE_OK;
        }
        pause_seconds(seconds > 0 ? (unsigned)seconds : 0u);
    }
}

/* One row a question: its answer, or why it has none. */
static void print_table(const chatwire_batch *batch, const char *model, char **questions, size_t count) {
    size_t i;
    printf("%-4s  %-40s  %s\n", "#", "question", "answer");
    for (i = 0; i < count; i++) {
        char custom_id[32];
        chatwire_conversation *conversation = asking(model, questions[i]);
        chatwire_reply *reply = NULL;
        chatwire_status status;
        snprintf(custom_id, sizeof custom_id, "q%lu", (unsigned long)(i + 1));
        status = chatwire_batch_apply(batch, custom_id, conversation, &reply);
        if (status == CHATWIRE_OK) {
            const char *answer = chatwire_reply_content(reply);
            printf("%-4lu  %-40.40s  %s\n", (unsigned long)(i + 1), questions[i], answer);
        } else {
            printf("%-4lu  %-40.40s  (%s: %s)\n", (unsigned long)(i + 1), questions[i],
                   chatwire_status_str(status), chatwire_last_error());
        }
        chatwire_reply_free(reply);
        chatwire_conversation_free(conversation);
    }
}

int main(int argc, char **argv) {
    const char *model = getenv("CHATWIRE_MODEL") != NULL ? getenv("CHATWIRE_MODEL") : "gpt-4o-mini";
    char **questions = NULL;
    size_t count = 0, i;
    FILE *file;
    chatwire_client *client = NULL;
    chatwire_batch *batch = NULL;
    chatwire_status status;
    int state = -1, code = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s QUESTIONS_FILE [BATCH_ID]\n", argv[0]);
        return 2;
    }
    file = fopen(argv[1], "r");
    questions = (char **)calloc(MAX_QUESTIONS, sizeof *questions);
    if (file == NULL || questions == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        if (file != NULL) {
            fclose(file);
        }
        free(questions);
        return 2;
    }
    count = read_questions(file, questions);
    fclose(file);

    status = chatwire_client_new(NULL, NULL, &client);
    if (status == CHATWIRE_OK && argc == 3) {
        status = chatwire_batch_open(argv[2], &batch);
    } else if (status == CHATWIRE_OK) {
        status = chatwire_batch_new(&batch);
        if (status == CHATWIRE_OK) {
            status = fill(batch, client, model, questions, count);
        }
        if (status == CHATWIRE_OK) {
            status = chatwire_batch_submit(client, batch);
        }
        if (status == CHATWIRE_OK) {
            fprintf(stderr, "submitted %lu questions as batch %s\n", (unsigned long)count,
                    chatwire_batch_id(batch));
        }
    }
    if (status == CHATWIRE_OK) {
        status = wait_for(client, batch, &state);
    }
    if (status == CHATWIRE_OK && !has_ended(state)) {
        fprintf(stderr, "still %s; resume with: %s %s %s\n", state_name(state), argv[0], argv[1],
                chatwire_batch_id(batch));
        code = 3;
    } else if (status == CHATWIRE_OK && state == CHATWIRE_BATCH_FAILED) {
        char *errors = NULL;
        if (chatwire_batch_errors(batch, &errors) == CHATWIRE_OK) {
            fprintf(stderr, "the provider refused the input file:\n%s\n", errors);
        }
        chatwire_string_free(errors);
    } else if (status == CHATWIRE_OK) {
        status = chatwire_batch_fetch_results(client, batch);
        if (status == CHATWIRE_OK) {
            print_table(batch, model, questions, count);
            code = 0;
        }
    }
    if (status != CHATWIRE_OK) {
        fprintf(stderr, "chatwire: %s\n", chatwire_last_error());
    }
    chatwire_batch_free(batch);
    chatwire_client_free(client);
    for (i = 0; i < count; i++) {
        free(questions[i]);
    }
    free(questions);
    return code;
}
