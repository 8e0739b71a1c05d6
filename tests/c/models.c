/* The server's model list from C, against a mock server (argv[1]) that
 * lists two models at /v1/models (the second without owned_by), refuses the
 * key at /denied/v1/models, and lists at /openai/models for Azure's classic
 * route: each accessor, out of range and NULL arguments, the statuses of a
 * refused key and of an endpoint URL that names no list. */
#include <stdlib.h>

#include "check.h"

static const char *server = NULL;

/* True when `text` is not NULL and is `want`. */
static int is(const char *text, const char *want) {
    return text != NULL && strcmp(text, want) == 0;
}

static void test_list(void) {
    chatwire_client *client = NULL;
    chatwire_models *models = NULL;
    chatwire_conversation *conversation = NULL;
    char *json = NULL;
    CHECK_STATUS(chatwire_client_new(server, "sk-c-models", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_list_models(client, &models), CHATWIRE_OK);
    CHECK(chatwire_models_len(models) == 2);

    CHECK(is(chatwire_models_id(models, 0), "gpt-4o"));
    CHECK(chatwire_models_id_len(models, 0) == 6);
    CHECK(is(chatwire_models_owned_by(models, 0), "system"));
    CHECK(is(chatwire_models_id(models, 1), "local-model"));
    /* Not given: NULL, and no failure. */
    CHECK(chatwire_models_owned_by(models, 1) == NULL);
    CHECK(chatwire_last_error()[0] == '\0');
    CHECK(chatwire_models_owned_by_len(models, 1) == 0);

    /* The server's whole object, its other fields included. */
    CHECK_STATUS(chatwire_models_json(models, 0, &json), CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "\"created\":1715367049") != NULL);
    CHECK(json != NULL && strstr(json, "\"object\":\"model\"") != NULL);
    chatwire_string_free(json);
    json = NULL;
    CHECK_STATUS(chatwire_models_json(models, 1, &json), CHATWIRE_OK);
    CHECK(is(json, "{\"id\":\"local-model\",\"meta\":{\"n_ctx\":2048}}"));
    chatwire_string_free(json);
    json = NULL;

    /* An id names the model of a conversation. */
    CHECK_STATUS(chatwire_conversation_new(chatwire_models_id(models, 1), &conversation), CHATWIRE_OK);
    chatwire_conversation_free(conversation);

    /* Out of range: NULL, 0 or CHATWIRE_ERR_INVALID_ARGUMENT, and the last error says so. */
    CHECK(chatwire_models_id(models, 2) == NULL);
    CHECK(last_error_mentions("index"));
    CHECK(chatwire_models_owned_by(models, 2) == NULL);
    CHECK(last_error_mentions("index"));
    CHECK(chatwire_models_id_len(models, (size_t)-1) == 0);
    CHECK_STATUS(chatwire_models_json(models, 2, &json), CHATWIRE_ERR_INVALID_ARGUMENT);
    CHECK(json == NULL);

    /* NULL arguments. */
    CHECK_STATUS(chatwire_list_models(NULL, &models), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_list_models(client, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(chatwire_models_len(NULL) == 0);
    CHECK(last_error_mentions("is NULL"));
    CHECK(chatwire_models_id(NULL, 0) == NULL);
    CHECK(chatwire_models_owned_by(NULL, 0) == NULL);
    CHECK_STATUS(chatwire_models_json(NULL, 0, &json), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_models_json(models, 0, NULL), CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK(json == NULL);
    chatwire_models_free(NULL);

    chatwire_models_free(models);
    chatwire_client_free(client);
}

static void test_failures(void) {
    chatwire_client *client = NULL;
    chatwire_models *models = NULL;
    char url[512];

    /* A refused key: CHATWIRE_ERR_AUTH with the status, and nothing written. */
    snprintf(url, sizeof url, "%s/denied", server);
    CHECK_STATUS(chatwire_client_new(url, "sk-c-denied", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_list_models(client, &models), CHATWIRE_ERR_AUTH);
    CHECK(chatwire_last_http_status() == 401);
    CHECK(last_error_mentions("key not accepted"));
    CHECK(!last_error_mentions("sk-c-denied"));
    CHECK(models == NULL);

    /* An endpoint URL that does not end in /chat/completions names no list. */
    snprintf(url, sizeof url, "%s/gateway/chat", server);
    CHECK_STATUS(chatwire_client_set_endpoint_url(client, url), CHATWIRE_OK);
    CHECK_STATUS(chatwire_list_models(client, &models), CHATWIRE_ERR_CONFIG);
    CHECK(last_error_mentions("/chat/completions"));
    CHECK(models == NULL);
    chatwire_client_free(client);
}

static void test_azure(void) {
    chatwire_client *client = NULL;
    chatwire_models *models = NULL;
    CHECK_STATUS(chatwire_client_new_azure(server, "dep", "2024-10-21", "azure-c-key", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_list_models(client, &models), CHATWIRE_OK);
    CHECK(chatwire_models_len(models) == 1);
    CHECK(is(chatwire_models_id(models, 0), "gpt-4o-2024-08-06"));
    CHECK(chatwire_models_owned_by(models, 0) == NULL);
    chatwire_models_free(models);
    chatwire_client_free(client);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SERVER_URL\n", argv[0]);
        return 2;
    }
    server = argv[1];
    test_list();
    test_failures();
    test_azure();
    return report("models");
}
