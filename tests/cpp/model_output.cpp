// chatwire.hpp hands out what the model wrote byte for byte, even when it
// holds the key or the value of a header the client sets: send, send_reply
// (every choice, tool-call arguments), stream (deltas, returned text and
// history equal), a background request and send_json; an error that echoes
// the secrets shows none of them.
// argv[1]: the server of tests/common/model_output.rs; argv[2]: the key.
#include <string>

#include "check.hpp"

namespace {

const std::string TITLE = "my app";

chatwire::Conversation asking(const char *model) {
    chatwire::Conversation conversation(model);
    conversation.user("Say hello.");
    return conversation;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s URL KEY\n", argv[0]);
        return 2;
    }
    const std::string key = argv[2];
    const std::string text = "Welcome to " + TITLE + "! Your key is " + key + ".";
    const std::string arguments = "{\"key\":\"" + key + "\",\"title\":\"" + TITLE + "\"}";
    try {
        chatwire::Client client(argv[1], key.c_str());
        client.set_header("X-Title", TITLE).set_max_retries(0);

        chatwire::Conversation conversation = asking("text");
        CHECK(client.send(conversation) == text);
        CHECK(conversation.content(1) == text);

        conversation = asking("text");
        chatwire::Reply reply = client.send_reply(conversation);
        CHECK(reply.content() == text);

        conversation = asking("tool");
        reply = client.send_reply(conversation);
        CHECK(reply.tool_call_count() == 1 && reply.tool_call(0).arguments == arguments);

        conversation = asking("text");
        std::string seen;
        std::string whole = client.stream(conversation, [&](std::string_view delta) { seen += delta; });
        CHECK(seen == text && whole == text && conversation.content(1) == text);

        conversation = asking("text");
        chatwire::Request request = client.send_async(conversation);
        CHECK(request.wait() == text && conversation.content(1) == text);

        conversation = asking("json");
        CHECK(client.send_json(conversation, "{\"type\":\"object\"}") == arguments);

        conversation = asking("error");
        try {
            client.send(conversation);
            CHECK(false);
        } catch (const chatwire::Error &error) {
            std::string what = error.what();
            CHECK(what.find(key) == std::string::npos && what.find(TITLE) == std::string::npos);
            CHECK(what.find("[redacted]") != std::string::npos);
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "unexpected: %s\n", error.what());
        CHECK(false);
    }
    return check::report("model_output");
}
