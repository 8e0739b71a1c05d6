// chatwire.hpp without a server: conversations, client settings, errors as
// exceptions, moved-from handles, extraction and the version.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "check.hpp"

namespace {

void version_matches_the_header() {
    CHECK(chatwire::version().rfind("chatwire ", 0) == 0);
    CHECK(chatwire::version_number() == CHATWIRE_VERSION_NUMBER);
    CHECK(chatwire::status_str(CHATWIRE_ERR_AUTH) == chatwire_status_str(CHATWIRE_ERR_AUTH));
}

void conversation_keeps_its_messages() {
    chatwire::Conversation conversation("m");
    CHECK(conversation.empty());
    conversation.set_system("be terse").user("hello").assistant("hi").user("again");
    CHECK(conversation.size() == 4);
    CHECK(conversation.role(0) == CHATWIRE_ROLE_SYSTEM);
    CHECK(conversation.role(2) == CHATWIRE_ROLE_ASSISTANT);
    CHECK(conversation.content(3) == "again");
    auto messages = conversation.messages();
    CHECK(messages.size() == 4 && messages[1].role == CHATWIRE_ROLE_USER &&
          messages[1].content == "hello");
    CHECK_THROWS_AS(conversation.role(4), std::out_of_range);
    CHECK_THROWS_AS(conversation.content(99), std::out_of_range);

    conversation.set_system("be kind");
    CHECK(conversation.content(0) == "be kind" && conversation.size() == 4);
    conversation.truncate(2);
    CHECK(conversation.size() == 2);
    CHECK_ERROR(conversation.truncate(3), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
}

void ordering_errors_change_nothing() {
    chatwire::Conversation conversation("m");
    conversation.user("one");
    CHECK_ERROR(conversation.user("two"), CHATWIRE_ERR_INVALID_CONVERSATION, 0);
    CHECK(conversation.size() == 1);
    try {
        conversation.user("three");
    } catch (const chatwire::Error &error) {
        // what() is the detail chatwire_last_error() gave, not only the status.
        CHECK(std::strlen(error.what()) > 0);
        CHECK(std::string(error.what()) != chatwire_status_str(CHATWIRE_ERR_INVALID_CONVERSATION));
    }
    CHECK_ERROR(conversation.append(CHATWIRE_ROLE_TOOL, "x"), CHATWIRE_ERR_INVALID_CONVERSATION, 0);
    CHECK_ERROR(conversation.append(static_cast<chatwire_role>(42), "x"),
                CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK(conversation.size() == 1);
}

void text_with_a_nul_is_refused() {
    chatwire::Conversation conversation("m");
    CHECK_ERROR(conversation.user(std::string("a\0b", 3)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK(conversation.empty());
    CHECK_ERROR(chatwire::Conversation(std::string("m\0", 2)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
}

void json_round_trip_keeps_tools_and_options() {
    chatwire::Conversation conversation("gpt-4o-mini");
    conversation.set_system("s").user("u");
    conversation.set_option("max_tokens", "64").set_option("temperature", "0.2");
    conversation.set_option_unchecked("logit_bias", "[[15043,-1.0]]");
    conversation.add_tool("get_weather", "The weather in a city",
                          R"({"type":"object","properties":{"city":{"type":"string"}}})");
    conversation.add_tool("now", "", "");
    std::string json = conversation.to_json();
    CHECK(check::contains(json, R"("max_tokens":64)"));
    CHECK(check::contains(json, "get_weather") && check::contains(json, "logit_bias"));
    chatwire::Conversation copy = chatwire::Conversation::from_json(json);
    CHECK(copy.to_json() == json);
    CHECK(copy.size() == 2 && copy.content(1) == "u");

    conversation.remove_option("max_tokens");
    CHECK(!check::contains(conversation.to_json(), "max_tokens"));
    CHECK_ERROR(conversation.set_option("temperature", "5"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(conversation.set_option("stream", "true"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(conversation.set_option("seed", "not json"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(conversation.add_tool("bad name!", "", ""), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(chatwire::Conversation::from_json("{"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(chatwire::Conversation::from_json(
                    R"({"model":"m","messages":[{"role":"assistant","content":"a"}]})"),
                CHATWIRE_ERR_INVALID_CONVERSATION, 0);
}

void images_and_tool_results() {
    chatwire::Conversation conversation("m");
    CHECK_ERROR(conversation.user_image("look", "no-such-file.png"), CHATWIRE_ERR_INVALID_ARGUMENT,
                0);
    CHECK(conversation.empty());
    conversation.user_image("look", "https://example.com/cat.png");
    CHECK(conversation.size() == 1 && conversation.role(0) == CHATWIRE_ROLE_USER);
    CHECK(check::contains(conversation.to_json(), "https://example.com/cat.png"));
    CHECK_ERROR(conversation.append_tool_result("call_1", "22C"),
                CHATWIRE_ERR_INVALID_CONVERSATION, 0);
}

// Files are told by their bytes; the program runs in a folder of its own.
void files_are_told_by_their_bytes() {
    std::ofstream("memo.pdf", std::ios::binary) << "%PDF-1.4\n%%EOF\n";
    std::ofstream("notes.pdf", std::ios::binary) << "plain text, named like a PDF";
    chatwire::Conversation conversation("m");
    CHECK_ERROR(conversation.user_file("read", "notes.pdf"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(conversation.user_file("read", "."), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK(conversation.empty());
    conversation.user_file("read", "memo.pdf");
    CHECK(conversation.size() == 1 && conversation.content(0) == "read");
    CHECK(check::contains(conversation.to_json(), R"("type":"file")"));
    CHECK(check::contains(conversation.to_json(), R"("filename":"memo.pdf")"));
    CHECK(chatwire::Conversation::from_json(conversation.to_json()).to_json() ==
          conversation.to_json());
    std::remove("memo.pdf");
    std::remove("notes.pdf");
}

void client_settings_are_checked() {
    CHECK_ERROR(chatwire::Client(nullptr, nullptr), CHATWIRE_ERR_MISSING_API_KEY, 0);
    CHECK_ERROR(chatwire::Client("ftp://example.com", "sk-x"), CHATWIRE_ERR_CONFIG, 0);
    chatwire::Client client("http://127.0.0.1:9", "sk-x");
    client.set_timeout(std::chrono::seconds(30))
        .set_idle_timeout(std::chrono::milliseconds(1500))
        .set_max_retries(0)
        .set_limit(CHATWIRE_LIMIT_BODY, 1 << 20)
        .set_max_idle_connections(4)
        .set_max_in_flight(8)
        .set_worker_stack_size(512 * 1024)
        .set_header("X-Trace", "abc")
        .remove_header("X-Trace")
        .remove_header("X-Never-Set")
        .set_json_corrections(1)
        .set_schema_delivery(CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT)
        .set_api(CHATWIRE_API_RESPONSES)
        .set_api(CHATWIRE_API_CHAT_COMPLETIONS)
        .set_proxy("");
    CHECK_ERROR(client.set_timeout(std::chrono::milliseconds(0)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_timeout(std::chrono::milliseconds(-5)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_idle_timeout(std::chrono::hours(25)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_max_retries(11), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_limit(CHATWIRE_LIMIT_BODY, 10), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_limit(static_cast<chatwire_limit>(9), 4096),
                CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_max_idle_connections(5000), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_max_in_flight(0), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_max_in_flight(70000), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_worker_stack_size(4096), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_worker_stack_size(std::size_t(9) << 20), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_header("Authorization", "x"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_header("X-Bad", "a\nb"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_json_corrections(11), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_schema_delivery(static_cast<chatwire_schema_delivery>(7)),
                CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_api(static_cast<chatwire_api>(5)), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
    CHECK_ERROR(client.set_ca_file("no-such-ca.pem"), CHATWIRE_ERR_CONFIG, 0);
    CHECK_ERROR(client.set_client_certificate("no-such-cert.pem", "no-such-key.pem"),
                CHATWIRE_ERR_CONFIG, 0);
    CHECK_ERROR(client.set_proxy("http://[::1"), CHATWIRE_ERR_CONFIG, 0);

    // Nothing is sent for a conversation that cannot be sent.
    chatwire::Conversation conversation("m");
    CHECK_ERROR(client.send(conversation), CHATWIRE_ERR_INVALID_CONVERSATION, 0);
    CHECK_ERROR(client.send_async(conversation), CHATWIRE_ERR_INVALID_CONVERSATION, 0);
}

void moved_from_handles_are_safe_and_refused() {
    chatwire::Client client("http://127.0.0.1:9", "sk-x");
    chatwire::Client other = std::move(client);
    CHECK(!client && other);
    CHECK_ERROR(client.set_max_retries(1), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    chatwire::Conversation conversation("m");
    conversation.user("hi");
    CHECK_ERROR(client.send(conversation), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK(client.get() == nullptr);
    client = std::move(other);
    CHECK(client && !other);
    client.set_max_retries(1);

    chatwire::Conversation moved = std::move(conversation);
    CHECK(!conversation && moved.size() == 1);
    CHECK_ERROR(conversation.size(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(conversation.user("x"), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(conversation.to_json(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(client.send(conversation), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(client.stream(conversation, [](std::string_view) {}), CHATWIRE_ERR_NULL_ARGUMENT,
                0);
    conversation = chatwire::Conversation("m2");
    CHECK(conversation && conversation.empty());
    chatwire::Conversation &same = moved;
    moved = std::move(same);  // a self-move leaves it whole
    CHECK(moved.size() == 1);

    chatwire::Reply reply(nullptr);
    CHECK(!reply);
    CHECK_ERROR(reply.content(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(reply.tool_calls(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
}

void adopted_c_handles_are_freed() {
    chatwire_conversation *raw = nullptr;
    CHECK(chatwire_conversation_new("m", &raw) == CHATWIRE_OK);
    chatwire::Conversation conversation = chatwire::Conversation::adopt(raw);
    CHECK(conversation.get() == raw);
    chatwire_client *raw_client = nullptr;
    CHECK(chatwire_client_new("http://127.0.0.1:9", "sk-x", &raw_client) == CHATWIRE_OK);
    chatwire::Client client = chatwire::Client::adopt(raw_client);
    CHECK(client.get() == raw_client);
}

void extraction() {
    CHECK(chatwire::extract_json("Here: ```json\n{\"a\": 1/2,}\n```") == R"({"a":0.5})");
    CHECK_ERROR(chatwire::extract_json("no json here"), CHATWIRE_ERR_NO_JSON, 0);
    CHECK(check::contains(chatwire::extract_ingredients(R"([{"name":"flour","quantity":2,"unit":"cup"}])"),
                          "flour"));
    CHECK(check::contains(chatwire::ingredients_prompt("2 cups flour"), "2 cups flour"));
    CHECK(check::contains(chatwire::json_prompt("List them.", R"({"a":1})", "text here"),
                          "text here"));
}

}  // namespace

int main() {
    check::run("version_matches_the_header", version_matches_the_header);
    check::run("conversation_keeps_its_messages", conversation_keeps_its_messages);
    check::run("ordering_errors_change_nothing", ordering_errors_change_nothing);
    check::run("text_with_a_nul_is_refused", text_with_a_nul_is_refused);
    check::run("json_round_trip_keeps_tools_and_options", json_round_trip_keeps_tools_and_options);
    check::run("images_and_tool_results", images_and_tool_results);
    check::run("files_are_told_by_their_bytes", files_are_told_by_their_bytes);
    check::run("client_settings_are_checked", client_settings_are_checked);
    check::run("moved_from_handles_are_safe_and_refused", moved_from_handles_are_safe_and_refused);
    check::run("adopted_c_handles_are_freed", adopted_c_handles_are_freed);
    check::run("extraction", extraction);
    return check::report("offline");
}
