/* Files from C: chatwire_conversation_append_user_file with a PDF, a WAV and
 * an MP3 that the program writes itself, sent to a mock server (argv[1])
 * whose requests tests/c_files.rs checks against the official schema; kept
 * by to_json/from_json; and every file chatwire cannot send (unknown bytes,
 * empty, too large, missing, a directory, a FIFO without a writer,
 * /dev/zero) refused with CHATWIRE_ERR_INVALID_ARGUMENT, changing nothing.
 * The program runs in a folder of its own. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static const char TINY_PDF[] = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
                               "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
                               "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\n"
                               "trailer<</Root 1 0 R>>\n%%EOF\n";

static void write_file(const char *path, const void *bytes, size_t len) {
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    if (file == NULL) {
        return;
    }
    CHECK(fwrite(bytes, 1, len, file) == len);
    CHECK(fclose(file) == 0);
}

static void put_le(unsigned char *at, unsigned long value, int bytes) {
    for (int i = 0; i < bytes; i++) {
        at[i] = (unsigned char)(value >> (8 * i));
    }
}

/* A WAV file of eight samples of silence, 8 kHz mono 8-bit. */
static void write_wav(const char *path) {
    unsigned char wav[52];
    memcpy(wav, "RIFF", 4);
    put_le(wav + 4, sizeof wav - 8, 4);
    memcpy(wav + 8, "WAVEfmt ", 8);
    put_le(wav + 16, 16, 4);
    put_le(wav + 20, 1, 2);    /* PCM */
    put_le(wav + 22, 1, 2);    /* mono */
    put_le(wav + 24, 8000, 4); /* samples a second */
    put_le(wav + 28, 8000, 4); /* bytes a second */
    put_le(wav + 32, 1, 2);    /* block align */
    put_le(wav + 34, 8, 2);    /* bits a sample */
    memcpy(wav + 36, "data", 4);
    put_le(wav + 40, 8, 4);
    memset(wav + 44, 0x80, 8);
    write_file(path, wav, sizeof wav);
}

/* One MPEG-1 layer III frame (128 kbit/s, 44.1 kHz) of silence, no ID3 tag. */
static void write_mp3(const char *path) {
    unsigned char mp3[417] = {0xFF, 0xFB, 0x90, 0x64};
    write_file(path, mp3, sizeof mp3);
}

static void test_files_are_sent(const char *url) {
    chatwire_client *client = NULL;
    CHECK_STATUS(chatwire_client_new(url, "sk-test-4f9a1c", &client), CHATWIRE_OK);
    CHECK_STATUS(chatwire_client_set_max_retries(client, 0), CHATWIRE_OK);
    write_file("invoice.pdf", TINY_PDF, sizeof TINY_PDF - 1);
    write_wav("memo.wav");
    /* Named .txt: the kind comes from the bytes. */
    write_mp3("song.txt");

    chatwire_conversation *conversation = NULL;
    CHECK_STATUS(chatwire_conversation_new("gpt-4o-audio-preview", &conversation), CHATWIRE_OK);
    const char *files[] = {"invoice.pdf", "memo.wav", "song.txt"};
    const char *texts[] = {"Summarize this invoice.", "", "And this?"};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(chatwire_conversation_append_user_file(conversation, texts[i], files[i]),
                     CHATWIRE_OK);
        char *reply = NULL;
        CHECK_STATUS(chatwire_send(client, conversation, &reply), CHATWIRE_OK);
        CHECK(reply != NULL && strcmp(reply, "noted") == 0);
        chatwire_string_free(reply);
    }
    CHECK(chatwire_conversation_len(conversation) == 6);
    CHECK(strcmp(chatwire_conversation_content(conversation, 0), "Summarize this invoice.") == 0);

    char *json = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &json), CHATWIRE_OK);
    CHECK(json != NULL && strstr(json, "\"filename\":\"invoice.pdf\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"file_data\":\"data:application/pdf;base64,JVBERi0xLjQK") != NULL);
    CHECK(json != NULL && strstr(json, "\"format\":\"wav\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"format\":\"mp3\"") != NULL);
    chatwire_conversation *back = NULL;
    CHECK_STATUS(chatwire_conversation_from_json(json, &back), CHATWIRE_OK);
    char *again = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(back, &again), CHATWIRE_OK);
    CHECK(json != NULL && again != NULL && strcmp(json, again) == 0);
    chatwire_string_free(again);
    chatwire_string_free(json);
    chatwire_conversation_free(back);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    unlink("invoice.pdf");
    unlink("memo.wav");
    unlink("song.txt");
}

/* Each refusal names the path and why, and leaves the conversation as it was. */
static void test_refusals(void) {
    chatwire_conversation *conversation = conversation_asking("first");
    CHECK_STATUS(chatwire_conversation_append(conversation, CHATWIRE_ROLE_ASSISTANT, "ok"), CHATWIRE_OK);
    char *before = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &before), CHATWIRE_OK);

    write_file("empty.pdf", "", 0);
    write_file("notes.pdf", "plain text, named like a PDF", 28);
    write_file("pixel.mp3", "\x89PNG\r\n\x1a\n", 8);
    write_file("big.pdf", "%PDF-1.4", 8);
    /* Sparse: larger than the 20 MiB limit without writing it. */
    CHECK(truncate("big.pdf", 20 * 1024 * 1024 + 1) == 0);
    rmdir("folder.pdf");
    CHECK(mkdir("folder.pdf", 0700) == 0);
    unlink("audio.fifo");
    CHECK(mkfifo("audio.fifo", 0600) == 0);

    const char *cases[][2] = {
        {"empty.pdf", "empty"},
        {"notes.pdf", "PDF, WAV or MP3"},
        {"pixel.mp3", "PDF, WAV or MP3"},
        {"big.pdf", "more than"},
        {"no-such.pdf", "cannot read"},
        {"folder.pdf", "a directory"},
        {"audio.fifo", "not a regular file"},
        {"/dev/zero", "not a regular file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STATUS(chatwire_conversation_append_user_file(conversation, "x", cases[i][0]),
                     CHATWIRE_ERR_INVALID_ARGUMENT);
        CHECK(last_error_mentions(cases[i][0]) && last_error_mentions(cases[i][1]));
    }
    CHECK_STATUS(chatwire_conversation_append_user_file(conversation, "x", NULL),
                 CHATWIRE_ERR_NULL_ARGUMENT);
    CHECK_STATUS(chatwire_conversation_append_user_file(NULL, "x", "empty.pdf"),
                 CHATWIRE_ERR_NULL_ARGUMENT);

    char *after = NULL;
    CHECK_STATUS(chatwire_conversation_to_json(conversation, &after), CHATWIRE_OK);
    CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    chatwire_string_free(before);
    chatwire_string_free(after);
    chatwire_conversation_free(conversation);
    unlink("empty.pdf");
    unlink("notes.pdf");
    unlink("pixel.mp3");
    unlink("big.pdf");
    rmdir("folder.pdf");
    unlink("audio.fifo");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: files URL\n");
        return 2;
    }
    test_files_are_sent(argv[1]);
    test_refusals();
    return report("files");
}
