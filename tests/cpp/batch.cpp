// chatwire::Batch against the emulated Files and Batches API of
// tests/common/batches.rs (argv[1], key argv[2]): add, submit, refresh to
// the end, counts, fetch, apply (a reply, a send's Error, none), resume by id.
#include "check.hpp"

namespace {

chatwire::Conversation asking(const std::string &question) {
    chatwire::Conversation conversation("m");
    conversation.append(CHATWIRE_ROLE_USER, question);
    return conversation;
}

void end_to_end(const char *url, const char *key) {
    chatwire::Client client(url, key);
    chatwire::Batch batch;
    batch.add(client, "a", asking("q0")).add(client, "b", asking("rate me"));
    CHECK(batch.size() == 2);
    CHECK(!batch.id());
    CHECK(check::contains(batch.to_jsonl(), "\"custom_id\":\"b\""));
    CHECK_ERROR(batch.add(client, "a", asking("again")), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    batch.submit(client);
    CHECK(batch.id() && batch.id()->rfind("batch-", 0) == 0);
    chatwire_batch_state state = CHATWIRE_BATCH_VALIDATING;
    for (int step = 0; step < 10 && !chatwire::Batch::has_ended(state); ++step) {
        state = batch.refresh(client);
    }
    CHECK(state == CHATWIRE_BATCH_COMPLETED);
    chatwire::Batch::Counts counts = batch.counts();
    CHECK(counts.completed == 1 && counts.failed == 1 && counts.total == 2);
    CHECK(batch.errors().empty());
    batch.fetch_results(client);
    chatwire::Conversation conversation = asking("q0");
    chatwire::Reply reply = batch.apply("a", conversation);
    CHECK(reply.content() == "answer to q0");
    CHECK(conversation.size() == 2);
    chatwire::Conversation refused = asking("rate me");
    CHECK_ERROR(batch.apply("b", refused), CHATWIRE_ERR_RATE_LIMITED, 429);
    CHECK(refused.size() == 1);
    CHECK_ERROR(batch.apply("none", refused), CHATWIRE_ERR_UNAVAILABLE, 0);

    chatwire::Batch resumed = chatwire::Batch::open(*batch.id());
    resumed.fetch_results(client);
    chatwire::Conversation again = asking("q0");
    CHECK(resumed.apply("a", again).content() == "answer to q0");
    CHECK_ERROR(chatwire::Batch::open(""), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: batch BASE_URL KEY\n");
        return 2;
    }
    check::run("end_to_end", end_to_end, argv[1], argv[2]);
    return check::report("batch");
}
