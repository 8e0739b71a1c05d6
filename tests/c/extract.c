/* Extraction from C.
 *
 *   extract corpus FILE.txt...   for each reply file, one line:
 *                                  NAME<TAB>OK<TAB>compact-json
 *                                  NAME<TAB>NO_JSON<TAB>last error
 *                                  NAME<TAB>ERROR<TAB>status: last error
 *                                (tests/c_extract.rs compares them with the corpus)
 *   extract checks CORPUS_DIR    chatwire_extract_ingredients(), the ingredient
 *                                list, the prompt helpers, the recorded
 *                                llama.cpp reply; prints "extract: N passed, M failed"
 */
#include <stdlib.h>

#include "check.h"

static const char *BAD_UTF8 = "caf\xc3 \xff";

/* A sentinel that a failed call must leave in an out-parameter. */
static char SENTINEL_TEXT[] = "untouched";

/* Reads a whole file into a NUL-terminated buffer the caller frees; NULL on failure. */
static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char *text = (char *)malloc(capacity);
    while (text != NULL) {
        size += fread(text + size, 1, capacity - size - 1, file);
        if (size < capacity - 1) {
            break;
        }
        char *bigger = (char *)realloc(text, capacity * 2);
        if (bigger == NULL) {
            free(text);
            text = NULL;
        } else {
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

/* "dir/name.txt" -> "name" (printed with its length, nothing is copied). */
static void print_case_name(const char *path) {
    const char *name = strrchr(path, '/');
    name = name == NULL ? path : name + 1;
    size_t len = strlen(name);
    if (len > 4 && strcmp(name + len - 4, ".txt") == 0) {
        len -= 4;
    }
    printf("%.*s", (int)len, name);
}

static int run_corpus(int count, char **paths) {
    int unreadable = 0;
    for (int i = 0; i < count; i++) {
        char *text = read_file(paths[i]);
        print_case_name(paths[i]);
        if (text == NULL) {
            printf("\tUNREADABLE\n");
            unreadable++;
            continue;
        }
        char *json = NULL;
        chatwire_status status = chatwire_extract_json(text, &json);
        if (status == CHATWIRE_OK) {
            printf("\tOK\t%s\n", json);
        } else if (status == CHATWIRE_ERR_NO_JSON) {
            printf("\tNO_JSON\t%s\n", chatwire_last_error());
        } else {
            printf("\tERROR\t%s: %s\n", chatwire_status_str(status), chatwire_last_error());
        }
        chatwire_string_free(json);
        free(text);
    }
    return unreadable == 0 ? 0 : 1;
}

/* Extracts the normalised ingredient JSON and compares it with `expected`. */
static void check_ingredients_json(const char *reply, const char *expected) {
    char *json = NULL;
    CHECK_STATUS(chatwire_extract_ingredients(reply, &json), CHATWIRE_OK);
    CHECK(json != NULL && strcmp(json, expected) == 0);
    if (json != NULL && strcmp(json, expected) != 0) {
        fprintf(stderr, "  got:      %s\n  expected: %s\n", json, expected);
    }
    chatwire_string_free(json);
}

static void test_ingredients_json_fractions(void) {
    check_ingredients_json("Here you go:\n"
                           "```json\n"
                           "[\n"
                           "{\"ingredient\": \"flour\", \"quantity\": 1 1/2, \"unit\": \"cup\"},\n"
                           "{\"ingredient\": \"butter\", \"quantity\": \xc2\xbd, \"unit\": \"cup\"},\n"
                           "{\"ingredient\": \"sugar\", \"quantity\": 1/4, \"unit\": \"cup\"},\n"
                           "{\"ingredient\": \"milk\", \"quantity\": \"3/4\", \"unit\": \"cup\"},\n"
                           "{\"ingredient\": \"oil\", \"quantity\": 2\xc2\xbd, \"unit\": \"tbsp\"},\n"
                           "]\n"
                           "```\n"
                           "Enjoy!",
                           "[{\"ingredient\":\"flour\",\"quantity\":1.5,\"unit\":\"cup\"},"
                           "{\"ingredient\":\"butter\",\"quantity\":0.5,\"unit\":\"cup\"},"
                           "{\"ingredient\":\"sugar\",\"quantity\":0.25,\"unit\":\"cup\"},"
                           "{\"ingredient\":\"milk\",\"quantity\":0.75,\"unit\":\"cup\"},"
                           "{\"ingredient\":\"oil\",\"quantity\":2.5,\"unit\":\"tbsp\"}]");
}

static void test_ingredients_json_unit_null(void) {
    check_ingredients_json("[{\"ingredient\": \"egg\", \"quantity\": 3, \"unit\": null},\n"
                           " {\"ingredient\": \" salt \", \"quantity\": 1, \"unit\": \"\"},\n"
                           " {\"ingredient\": \"lemon\", \"quantity\": 1, \"unit\": \"none\"},\n"
                           " {\"ingredient\": \"pepper\", \"quantity\": 1}]",
                           "[{\"ingredient\":\"egg\",\"quantity\":3.0,\"unit\":null},"
                           "{\"ingredient\":\"salt\",\"quantity\":1.0,\"unit\":null},"
                           "{\"ingredient\":\"lemon\",\"quantity\":1.0,\"unit\":null},"
                           "{\"ingredient\":\"pepper\",\"quantity\":1.0,\"unit\":null}]");
}

static void test_ingredients_json_lenient_shapes(void) {
    /* Other key names, quantities in words, the list inside an object. */
    check_ingredients_json("{\"recipe\": \"pancakes\", \"Ingredients\": [\n"
                           "  {\"Name\": \"flour\", \"amount\": \"2 cups\"},\n"
                           "  {\"item\": \"salt\", \"qty\": \"a pinch\", \"units\": null},\n"
                           "  \"not an item\"\n"
                           "]}",
                           "[{\"ingredient\":\"flour\",\"quantity\":2.0,\"unit\":\"cups\"},"
                           "{\"ingredient\":\"salt\",\"quantity\":0.0,\"unit\":\"a pinch\"}]");
    check_ingredients_json("```json\n[]\n```", "[]");
    /* The normalised form reads back as itself. */
    const char *normalised = "[{\"ingredient\":\"flour\",\"quantity\":1.5,\"unit\":\"cup\"},"
                             "{\"ingredient\":\"egg\",\"quantity\":3.0,\"unit\":null}]";
    check_ingredients_json(normalised, normalised);
    /* Non-ASCII names come back as UTF-8, quotes escaped. */
    check_ingredients_json("[{\"ingredient\": \"cr\xc3\xa8me \\\"fra\xc3\xae" "che\\\"\", \"quantity\": 0.5, \"unit\": \"cup\"}]",
                           "[{\"ingredient\":\"cr\xc3\xa8me \\\"fra\xc3\xae" "che\\\"\",\"quantity\":0.5,\"unit\":\"cup\"}]");
}

static void test_ingredients_no_json(void) {
    const char *replies[] = {
        "I don't know.",
        "",
        "```json\n{\"note\": \"nothing here\"}\n```",
        "[{\"ingredient\": 5}, {\"quantity\": 2}]",
        "[1, 2, 3]",
    };
    for (size_t i = 0; i < sizeof replies / sizeof replies[0]; i++) {
        char *json = SENTINEL_TEXT;
        chatwire_ingredients *list = (chatwire_ingredients *)SENTINEL_TEXT;
        CHECK_STATUS(chatwire_extract_ingredients(replies[i], &json), CHATWIRE_ERR_NO_JSON);
        CHECK(json == SENTINEL_TEXT);
        CHECK(chatwire_last_error()[0] != '\0');
        CHECK_STATUS(chatwire_extract_ingredient_list(replies[i], &list), CHATWIRE_ERR_NO_JSON);
        CHECK(list == (chatwire_ingredients *)SENTINEL_TEXT);
    }
    char *json = NULL;
    CHECK_STATUS(chatwire_extract_ingredients("{\"note\": \"x\"}", &json), CHATWIRE_ERR_NO_JSON);
    CHECK(last_error_mentions("no ingredient list"));
    CHECK_STATUS(chatwire_extract_ingredients("[{\"ingredient\": 5}]", &json), CHATWIRE_ERR_NO_JSON);
    CHECK(last_error_mentions("not a string"));
    CHECK(json == NULL);
}

static void test_null_arguments_and_bad_utf8(void) {
    char *text = SENTINEL_TEXT;
    chatwire_ingredients *list = NULL;

    CHECK_STATUS(chatwire_extract_ingredients(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("text"));
    CHECK_STATUS(chatwire_extract_ingredients("[]", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("json_out"));
    CHECK_STATUS(chatwire_extract_ingredients(BAD_UTF8, &text), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(last_error_mentions("text"));

    CHECK_STATUS(chatwire_extract_ingredient_list(NULL, &list), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_extract_ingredient_list("[]", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("list_out"));
    CHECK_STATUS(chatwire_extract_ingredient_list(BAD_UTF8, &list), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(list == NULL);

    CHECK_STATUS(chatwire_ingredients_prompt(NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_ingredients_prompt("x", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("prompt_out"));
    CHECK_STATUS(chatwire_ingredients_prompt(BAD_UTF8, &text), CHATWIRE_ERR_INVALID_UTF8);

    CHECK_STATUS(chatwire_json_prompt(NULL, "[]", "t", &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("instruction"));
    CHECK_STATUS(chatwire_json_prompt("i", NULL, "t", &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("example_json"));
    CHECK_STATUS(chatwire_json_prompt("i", "[]", NULL, &text), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_json_prompt("i", "[]", "t", NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_json_prompt("i", BAD_UTF8, "t", &text), CHATWIRE_ERR_INVALID_UTF8);
    CHECK(last_error_mentions("example_json"));
    CHECK(text == SENTINEL_TEXT);

    /* Accessors and free take NULL without harm. */
    CHECK(chatwire_ingredients_len(NULL) == 0);
    CHECK(chatwire_ingredients_name(NULL, 0) == NULL);
    CHECK(chatwire_ingredients_quantity(NULL, 0) == 0.0);
    CHECK(chatwire_ingredients_unit(NULL, 0) == NULL);
    chatwire_ingredients_free(NULL);
}

static void test_ingredient_list(void) {
    chatwire_ingredients *list = NULL;
    CHECK_STATUS(chatwire_extract_ingredient_list(
                     "Sure!\n```json\n"
                     "[{\"ingredient\": \"flour\", \"quantity\": 1 1/2, \"unit\": \"cup\"},\n"
                     " {\"ingredient\": \"egg\", \"quantity\": 3, \"unit\": null},\n"
                     " {\"ingredient\": \"butter\", \"quantity\": \xc2\xbd, \"unit\": \"cup\"}]\n```",
                     &list),
                 CHATWIRE_OK);
    CHECK(chatwire_last_error()[0] == '\0');
    CHECK(chatwire_ingredients_len(list) == 3);
    CHECK(strcmp(chatwire_ingredients_name(list, 0), "flour") == 0);
    CHECK(chatwire_ingredients_quantity(list, 0) == 1.5);
    CHECK(strcmp(chatwire_ingredients_unit(list, 0), "cup") == 0);
    CHECK(strcmp(chatwire_ingredients_name(list, 1), "egg") == 0);
    CHECK(chatwire_ingredients_quantity(list, 1) == 3.0);
    CHECK(chatwire_ingredients_unit(list, 1) == NULL);
    CHECK(strcmp(chatwire_ingredients_name(list, 2), "butter") == 0);
    CHECK(chatwire_ingredients_quantity(list, 2) == 0.5);
    /* The same through an out-parameter, for languages that cannot receive
     * a double (GnuCOBOL); written only on success. */
    double quantity = -1.0;
    CHECK_STATUS(chatwire_ingredients_quantity_out(list, 0, &quantity), CHATWIRE_OK);
    CHECK(quantity == 1.5);
    CHECK_STATUS(chatwire_ingredients_quantity_out(list, 2, &quantity), CHATWIRE_OK);
    CHECK(quantity == 0.5);
    quantity = -1.0;
    CHECK_STATUS(chatwire_ingredients_quantity_out(list, 3, &quantity), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("index 3"));
    CHECK_STATUS(chatwire_ingredients_quantity_out(list, 0, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(last_error_mentions("quantity_out"));
    CHECK_STATUS(chatwire_ingredients_quantity_out(NULL, 0, &quantity), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(quantity == -1.0);
    /* Borrowed strings stay put while the list lives. */
    const char *first = chatwire_ingredients_name(list, 0);
    CHECK(first == chatwire_ingredients_name(list, 0));

    CHECK(chatwire_ingredients_name(list, 3) == NULL);
    CHECK(last_error_mentions("index 3"));
    CHECK(chatwire_ingredients_quantity(list, 3) == 0.0);
    CHECK(chatwire_ingredients_unit(list, (size_t)-1) == NULL);
    chatwire_ingredients_free(list);

    list = NULL;
    CHECK_STATUS(chatwire_extract_ingredient_list("[]", &list), CHATWIRE_OK);
    CHECK(list != NULL);
    CHECK(chatwire_ingredients_len(list) == 0);
    CHECK(chatwire_ingredients_name(list, 0) == NULL);
    chatwire_ingredients_free(list);
}

static void test_ingredients_prompt(void) {
    const char *recipe = "Mix 2 cups of flour with 3 eggs and \xc2\xbd cup of milk.";
    char *prompt = NULL;
    CHECK_STATUS(chatwire_ingredients_prompt(recipe, &prompt), CHATWIRE_OK);
    if (prompt == NULL) {
        return;
    }
    CHECK(strstr(prompt, "```json\n[\n{\"ingredient\": ") != NULL);
    CHECK(strstr(prompt, "\"quantity\"") != NULL);
    CHECK(strstr(prompt, "\"unit\"") != NULL);
    CHECK(strstr(prompt, recipe) != NULL);
    const char *tail = "Text:\nMix 2 cups of flour with 3 eggs and \xc2\xbd cup of milk.\n";
    size_t len = strlen(prompt), tail_len = strlen(tail);
    CHECK(len > tail_len && strcmp(prompt + len - tail_len, tail) == 0);

    /* The example in the prompt is itself a list the extractor reads. */
    chatwire_ingredients *list = NULL;
    CHECK_STATUS(chatwire_extract_ingredient_list(prompt, &list), CHATWIRE_OK);
    CHECK(chatwire_ingredients_len(list) == 3);
    chatwire_ingredients_free(list);
    chatwire_string_free(prompt);
}

static void test_json_prompt(void) {
    char *prompt = NULL;
    CHECK_STATUS(chatwire_json_prompt("  List the people named in the text below.\n",
                                      "[{\"name\": \"Ada\"}]", "Ada met Grace.", &prompt),
                 CHATWIRE_OK);
    if (prompt == NULL) {
        return;
    }
    CHECK(strncmp(prompt, "List the people", 15) == 0);
    CHECK(strstr(prompt, "```json\n[{\"name\": \"Ada\"}]\n```") != NULL);
    const char *tail = "Text:\nAda met Grace.\n";
    size_t len = strlen(prompt), tail_len = strlen(tail);
    CHECK(len > tail_len && strcmp(prompt + len - tail_len, tail) == 0);
    chatwire_string_free(prompt);
}

/* Every prefix of `text` (a reply cut off anywhere, also inside a UTF-8
 * sequence) gives an answer: never a crash, never a caught panic. */
static void check_every_prefix(char *text) {
    size_t len = strlen(text);
    for (size_t cut = 0; cut <= len; cut++) {
        char saved = text[cut];
        text[cut] = '\0';
        char *json = NULL;
        chatwire_status status = chatwire_extract_ingredients(text, &json);
        CHECK(status == CHATWIRE_OK || status == CHATWIRE_ERR_NO_JSON ||
              status == CHATWIRE_ERR_INVALID_UTF8);
        chatwire_string_free(json);
        json = NULL;
        status = chatwire_extract_json(text, &json);
        CHECK(status == CHATWIRE_OK || status == CHATWIRE_ERR_NO_JSON ||
              status == CHATWIRE_ERR_INVALID_UTF8);
        chatwire_string_free(json);
        text[cut] = saved;
    }
}

/* SmolLM2-135M asked for ingredients, recorded from llama.cpp: JSON, but its
 * "ingredient" is an object, so there is no usable ingredient. */
static void test_recorded_llamacpp_reply(const char *corpus_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/recorded_llamacpp_smollm2_ingredients.txt", corpus_dir);
    char *reply = read_file(path);
    CHECK(reply != NULL);
    if (reply == NULL) {
        return;
    }
    char *json = NULL;
    CHECK_STATUS(chatwire_extract_json(reply, &json), CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "\"unit_type_type_type_type\":\"baking powder\"") != NULL);
    chatwire_string_free(json);

    json = NULL;
    CHECK_STATUS(chatwire_extract_ingredients(reply, &json), CHATWIRE_ERR_NO_JSON);
    CHECK(last_error_mentions("item 0 has an \"ingredient\" that is an object, not a string"));
    CHECK(json == NULL);
    chatwire_ingredients *list = NULL;
    CHECK_STATUS(chatwire_extract_ingredient_list(reply, &list), CHATWIRE_ERR_NO_JSON);
    CHECK(list == NULL);

    check_every_prefix(reply);
    free(reply);
}

static void test_prefixes_of_a_reply_with_fractions(void) {
    char reply[] = "```json\n[{\"ingredient\": \"butter\", \"quantity\": 1\xc2\xbd, \"unit\": \"cup\"},\n"
                   "{'ingredient': 'sugar', 'quantity': 1 1/4, 'unit': 'cup',},]\n```";
    check_every_prefix(reply);
}

static int run_checks(const char *corpus_dir) {
    test_ingredients_json_fractions();
    test_ingredients_json_unit_null();
    test_ingredients_json_lenient_shapes();
    test_ingredients_no_json();
    test_null_arguments_and_bad_utf8();
    test_ingredient_list();
    test_ingredients_prompt();
    test_json_prompt();
    test_recorded_llamacpp_reply(corpus_dir);
    test_prefixes_of_a_reply_with_fractions();
    return report("extract");
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "corpus") == 0) {
        return run_corpus(argc - 2, argv + 2);
    }
    if (argc == 3 && strcmp(argv[1], "checks") == 0) {
        return run_checks(argv[2]);
    }
    fprintf(stderr, "usage: %s corpus FILE.txt... | checks CORPUS_DIR\n", argv[0]);
    return 2;
}
