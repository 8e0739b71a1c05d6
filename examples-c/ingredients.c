/*
 * ingredients: asks a model for the ingredients of a recipe and prints them
 * as a table.
 *
 *   build/ingredients [RECIPE_FILE [MODEL]]
 *
 * Without RECIPE_FILE a short built-in recipe is used; "-" reads stdin. The
 * server and key come from $OPENAI_BASE_URL and $OPENAI_API_KEY (or ./.env);
 * the model from the argument, else $CHATWIRE_MODEL, else gpt-4o-mini.
 *
 * chatwire_ingredients_prompt() asks for a JSON list of
 * {"ingredient", "quantity", "unit"} objects in a fenced block;
 * chatwire_extract_ingredient_list() finds it in the reply, repairs what the
 * model got wrong (1/2, ½, trailing commas, ...) and hands back the items.
 * A reply without a usable list is asked for again, up to 3 times in all;
 * after that the last reply is printed and the exit status is 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chatwire.h"

static const char *BUILT_IN_RECIPE =
    "Pancakes. Whisk 1 1/2 cups of flour, 2 tablespoons of sugar, 1 teaspoon of "
    "baking powder and a pinch of salt. Beat in 2 eggs, 1 1/4 cups of milk and "
    "3 tablespoons of melted butter. Fry in a hot pan.";

enum { ATTEMPTS = 3 };

static void report_error(const char *what, chatwire_status status) {
    int http = chatwire_last_http_status();
    fprintf(stderr, "error: %s: %s", what, chatwire_status_str(status));
    if (http != 0) {
        fprintf(stderr, " (HTTP %d)", http);
    }
    fprintf(stderr, "\n  %s\n", chatwire_last_error());
}

/* Reads a whole stream into a NUL-terminated buffer the caller frees. */
static char *read_all(FILE *file) {
    size_t size = 0, capacity = 4096;
    char *text = (char *)malloc(capacity);
    while (text != NULL) {
        size += fread(text + size, 1, capacity - size - 1, file);
        if (size < capacity - 1) {
            text[size] = '\0';
            break;
        }
        char *bigger = (char *)realloc(text, capacity * 2);
        if (bigger == NULL) {
            free(text);
        }
        text = bigger;
        capacity *= 2;
    }
    return text;
}

/* The recipe in a file, or on stdin for "-"; the caller frees it. */
static char *read_recipe(const char *path) {
    if (strcmp(path, "-") == 0) {
        return read_all(stdin);
    }
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return NULL;
    }
    char *text = read_all(file);
    fclose(file);
    return text;
}

/* Characters, not bytes, so that "crème" lines up with "cream". */
static int display_width(const char *text) {
    int width = 0;
    for (; *text != '\0'; text++) {
        width += ((unsigned char)*text & 0xC0) != 0x80;
    }
    return width;
}

static void print_padded(const char *text, int width) {
    printf("%s%*s", text, width - display_width(text), "");
}

static void print_table(const chatwire_ingredients *list) {
    size_t count = chatwire_ingredients_len(list);
    int name_width = display_width("ingredient");
    for (size_t i = 0; i < count; i++) {
        int width = display_width(chatwire_ingredients_name(list, i));
        name_width = width > name_width ? width : name_width;
    }
    print_padded("ingredient", name_width);
    printf("  %8s  %s\n", "quantity", "unit");
    for (int i = 0; i < name_width; i++) {
        putchar('-');
    }
    printf("  --------  ----\n");
    for (size_t i = 0; i < count; i++) {
        double quantity = chatwire_ingredients_quantity(list, i);
        const char *unit = chatwire_ingredients_unit(list, i);
        print_padded(chatwire_ingredients_name(list, i), name_width);
        if (quantity == 0.0) {
            printf("  %8s", "-"); /* the recipe gives no amount ("to taste") */
        } else {
            printf("  %8g", quantity);
        }
        printf("  %s\n", unit != NULL ? unit : "-");
    }
}

/* Sends the question (the last message) and extracts the list. Small models
 * do not always keep to the format, so a reply without a list is dropped and
 * the question sent again. After a failed send `*reply_out` is NULL; else it
 * holds the last reply, which the caller frees. */
static chatwire_status ask(chatwire_client *client, chatwire_conversation *conversation,
                           char **reply_out, chatwire_ingredients **list_out) {
    size_t question_len = chatwire_conversation_len(conversation);
    chatwire_status status = CHATWIRE_ERR_NO_JSON;
    for (int attempt = 1; attempt <= ATTEMPTS && status == CHATWIRE_ERR_NO_JSON; attempt++) {
        if (attempt > 1) {
            fprintf(stderr, "no ingredient list in reply %d (%s); asking again\n", attempt - 1,
                    chatwire_last_error());
            chatwire_string_free(*reply_out);
            *reply_out = NULL;
            chatwire_conversation_truncate(conversation, question_len);
        }
        status = chatwire_send(client, conversation, reply_out);
        if (status != CHATWIRE_OK) {
            return status;
        }
        status = chatwire_extract_ingredient_list(*reply_out, list_out);
    }
    return status;
}

int main(int argc, char **argv) {
    const char *model = argc > 2 ? argv[2] : getenv("CHATWIRE_MODEL");
    if (model == NULL || model[0] == '\0') {
        model = "gpt-4o-mini";
    }
    const char *recipe = BUILT_IN_RECIPE;
    char *recipe_read = NULL;
    if (argc > 1) {
        recipe = recipe_read = read_recipe(argv[1]);
        if (recipe_read == NULL) {
            perror(argv[1]);
            return 1;
        }
    }

    chatwire_client *client = NULL;
    chatwire_conversation *conversation = NULL;
    char *prompt = NULL, *reply = NULL;
    chatwire_ingredients *list = NULL;
    int exit_code = 1;
    chatwire_status status;

    if ((status = chatwire_ingredients_prompt(recipe, &prompt)) != CHATWIRE_OK) {
        report_error("prompt", status);
    } else if ((status = chatwire_client_new(NULL, NULL, &client)) != CHATWIRE_OK) {
        report_error("client", status);
    } else if ((status = chatwire_conversation_new(model, &conversation)) != CHATWIRE_OK ||
               (status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, prompt)) !=
                   CHATWIRE_OK) {
        report_error("conversation", status);
    } else if ((status = ask(client, conversation, &reply, &list)) != CHATWIRE_OK) {
        if (reply != NULL) {
            fprintf(stderr, "The last reply of %s holds no ingredient list:\n%s\n\n", model, reply);
        }
        report_error(reply != NULL ? "extract" : "send", status);
    } else {
        printf("Ingredients (model %s):\n\n", model);
        print_table(list);
        exit_code = 0;
    }

    chatwire_ingredients_free(list);
    chatwire_string_free(reply);
    chatwire_string_free(prompt);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    free(recipe_read);
    return exit_code;
}
