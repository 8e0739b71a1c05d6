// Free-form tools and Gemini 3's thought signatures from C++, against the
// provider test server (tests/common/providers_2026.rs cites its sources
// and refuses with 400 what each provider refuses). argv[1]: the server;
// argv[2]: the client's key.
#include <string>
#include <vector>

#include "check.hpp"

namespace {

void custom_tool_loop(const chatwire::Client &client) {
    chatwire::Conversation conversation("gpt-5-custom");
    conversation.user("How many rows?");
    CHECK_ERROR(conversation.add_custom_tool("run_sql", "Runs SQL", "{\"type\":\"json\"}"),
                CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    conversation.add_custom_tool(
        "run_sql", "Runs one SQL query",
        "{\"type\":\"grammar\",\"grammar\":{\"syntax\":\"lark\",\"definition\":\"start: /SELECT [0-9]+;/\"}}");
    std::vector<chatwire::ToolCall> seen;
    chatwire::Reply reply = client.run_tools(conversation, [&](const chatwire::ToolCall &call) {
        seen.push_back(call);
        return std::string("1");
    });
    CHECK(reply.content() == "One row.");
    CHECK(seen.size() == 1);
    if (!seen.empty()) {
        CHECK(seen[0].type == "custom");
        CHECK(seen[0].name == "run_sql");
        CHECK(seen[0].arguments == "SELECT 1;");
    }
}

void gemini_tool_loop(const chatwire::Client &client) {
    chatwire::Conversation conversation("gemini-3-pro-preview");
    conversation.user("What time is it?");
    conversation.add_tool("get_time", "The time now", "");
    // Refused on the second round unless each signature comes back.
    chatwire::Reply reply = client.run_tools(conversation, [](const chatwire::ToolCall &call) {
        CHECK(call.type == "function");
        return std::string("12:00");
    });
    CHECK(reply.content() == "It is noon.");
    CHECK(check::contains(conversation.to_json(), "thought_signature"));
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: providers_2026 SERVER_URL KEY\n");
        return 2;
    }
    chatwire::Client client(argv[1], argv[2]);
    client.set_max_retries(0);
    check::run("custom_tool_loop", custom_tool_loop, client);
    check::run("gemini_tool_loop", gemini_tool_loop, client);
    return check::report("providers_2026");
}
