// chatwire.hpp against a mock server: send, stream, send_json, tools,
// background requests (also in a poll loop, with take_text()), reply metadata,
// the model list, HTTP errors as exceptions, and exceptions thrown by
// callbacks, which reach the caller and leave the conversation unchanged.
// argv[1]: the mock server; argv[2]: a server where a connection never completes.
#include <poll.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "check.hpp"

namespace {

const char *const KEY = "sk-cpp-test";

/// Thrown by the tests' callbacks: it must reach the caller as itself.
struct Boom : std::runtime_error {
    explicit Boom(int at) : std::runtime_error("boom"), at(at) {}
    int at;
};

chatwire::Client make_client(const char *url) {
    chatwire::Client client(url, KEY);
    client.set_max_retries(0).set_timeout(std::chrono::seconds(10));
    return client;
}

chatwire::Conversation asking(const std::string &question) {
    chatwire::Conversation conversation("m");
    conversation.set_system("be terse").user(question);
    return conversation;
}

void send_appends_the_reply(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("turn-1");
    CHECK(client.send(conversation) == "reply one");
    CHECK(conversation.size() == 3 && conversation.content(2) == "reply one");
    conversation.user("turn-2");
    CHECK(client.send(conversation) == "reply two");
    CHECK(conversation.size() == 5);
}

void http_errors_are_exceptions(const chatwire::Client &client) {
    struct Case {
        const char *question;
        chatwire_status status;
        int http;
    };
    const Case cases[] = {
        {"auth", CHATWIRE_ERR_AUTH, 401},
        {"quota", CHATWIRE_ERR_RATE_LIMITED, 429},
        {"server", CHATWIRE_ERR_SERVER, 503},
        {"not-found", CHATWIRE_ERR_HTTP, 404},
        {"not-json", CHATWIRE_ERR_DECODE, 0},
    };
    for (const Case &each : cases) {
        chatwire::Conversation conversation = asking(each.question);
        CHECK_ERROR(client.send(conversation), each.status, each.http);
        if (each.http != 0) {
            CHECK_ERROR(client.stream(conversation, [](std::string_view) {}), each.status,
                        each.http);
        }
        CHECK(conversation.size() == 2);
    }
    chatwire::Conversation conversation = asking("auth");
    try {
        client.send(conversation);
    } catch (const chatwire::Error &error) {
        std::string what = error.what();
        CHECK(check::contains(what, "401"));
        CHECK(!check::contains(what, KEY));
    }
    chatwire::Client unreachable = make_client("http://127.0.0.1:9");
    CHECK_ERROR(unreachable.send(conversation), CHATWIRE_ERR_TRANSPORT, 0);
}

void reply_metadata(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("meta");
    chatwire::Reply reply = client.send_reply(conversation);
    CHECK(reply.content() == "meta reply");
    CHECK(reply.finish_reason() == std::optional<std::string>("stop"));
    std::optional<chatwire::Usage> usage = reply.usage();
    CHECK(usage && usage->prompt_tokens == 3 && usage->completion_tokens == 2 &&
          usage->total_tokens == 5);
    CHECK(reply.request_id() == std::optional<std::string>("req_meta"));
    CHECK(check::contains(reply.json(), "chatcmpl-1"));
    CHECK(reply.tool_call_count() == 0 && reply.tool_calls().empty());
    CHECK_ERROR(reply.tool_call(0), CHATWIRE_ERR_INVALID_ARGUMENT, 0);

    chatwire::Conversation bare = asking("no usage");
    chatwire::Reply counted_nothing = client.send_reply(bare);
    CHECK(!counted_nothing.usage() && !counted_nothing.request_id() &&
          !counted_nothing.finish_reason() && !counted_nothing.refusal());

    chatwire::Conversation refused = asking("refuse");
    chatwire::Reply refusal = client.send_reply(refused);
    CHECK(refusal.refusal() == std::optional<std::string>("I can't"));
    CHECK(refusal.content() == "I can't");

    // A reply holding U+0000 comes out whole.
    chatwire::Conversation nul = asking("nul");
    CHECK(client.send(nul) == std::string("a\0b", 3));
    CHECK(nul.content(2) == std::string("a\0b", 3));

    chatwire::Reply moved = std::move(reply);
    CHECK(!reply && moved.content() == "meta reply");
    CHECK_ERROR(reply.json(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
}

void streaming(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("stream-me");
    std::string seen;
    int calls = 0;
    std::string whole = client.stream(conversation, [&](std::string_view delta) {
        seen += delta;
        ++calls;
    });
    CHECK(calls > 1);
    CHECK(!whole.empty() && whole == seen);
    CHECK(conversation.size() == 3 && conversation.content(2) == whole);

    chatwire::Conversation again = asking("stream-me");
    chatwire::Reply reply = client.stream_reply(again, [](std::string_view) { return true; });
    CHECK(reply.content() == whole);

    // A callback returning false stops the reply.
    chatwire::Conversation stopped = asking("stream-me");
    int stop_calls = 0;
    CHECK_ERROR(client.stream(stopped,
                              [&](std::string_view) {
                                  ++stop_calls;
                                  return stop_calls < 2;
                              }),
                CHATWIRE_ERR_CANCELLED, 0);
    CHECK(stop_calls == 2 && stopped.size() == 2);
}

void a_throwing_callback_reaches_the_caller(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("stream-me");
    std::string before = conversation.to_json();
    int calls = 0;
    try {
        client.stream(conversation, [&](std::string_view) {
            if (++calls == 3) {
                throw Boom(calls);
            }
        });
        CHECK(!"the exception was lost");
    } catch (const Boom &boom) {
        CHECK(boom.at == 3);
    }
    CHECK(calls == 3);
    CHECK(conversation.size() == 2 && conversation.to_json() == before);
    // Whatever is thrown comes back as it was, not only std::exception.
    try {
        client.stream_reply(conversation, [](std::string_view) -> bool { throw 7; });
        CHECK(!"the exception was lost");
    } catch (int thrown) {
        CHECK(thrown == 7);
    }
    CHECK(conversation.to_json() == before);
}

void send_json_returns_checked_json(const chatwire::Client &client) {
    const std::string schema =
        R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]})";
    chatwire::Conversation conversation = asking("json-please");
    CHECK(client.send_json(conversation, schema) == R"({"a":1})");
    CHECK(conversation.size() == 3);
    CHECK_ERROR(client.send_json(conversation, "not a schema"), CHATWIRE_ERR_INVALID_ARGUMENT, 0);
}

void tools_loop(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("weather?");
    conversation.add_tool("get_weather", "The weather in a city",
                          R"({"type":"object","properties":{"city":{"type":"string"}}})");
    std::vector<std::string> asked;
    chatwire::Reply reply = client.run_tools(conversation, [&](const chatwire::ToolCall &call) {
        asked.push_back(call.name + " " + call.arguments);
        return std::string("22C");
    });
    CHECK(reply.content() == "sunny, 22C");
    CHECK(asked.size() == 1 && asked[0] == R"(get_weather {"city":"Paris"})");
    // The question, the call, its result and the answer.
    CHECK(conversation.size() == 5 && conversation.role(3) == CHATWIRE_ROLE_TOOL);

    chatwire::Conversation failing = asking("weather?");
    failing.add_tool("get_weather", "", "");
    std::string before = failing.to_json();
    CHECK_THROWS_AS(client.run_tools(failing,
                                     [](const chatwire::ToolCall &call) -> std::string {
                                         throw Boom(static_cast<int>(call.id.size()));
                                     }),
                    Boom);
    CHECK(failing.to_json() == before);

    // The model calls a tool again and again: the rounds run out.
    CHECK_ERROR(client.run_tools(failing, [](const chatwire::ToolCall &) { return std::string(); },
                                 0),
                CHATWIRE_ERR_INVALID_REPLY, 0);
    CHECK(failing.to_json() == before);

    chatwire::Reply calls = client.send_reply(failing);
    CHECK(calls.tool_call_count() == 1 && calls.finish_reason() == std::optional<std::string>("tool_calls"));
    chatwire::ToolCall call = calls.tool_call(0);
    CHECK(call.id == "call_1" && call.name == "get_weather" && call.arguments == R"({"city":"Paris"})");
}

void background_requests(const chatwire::Client &client, const char *silent_url) {
    chatwire::Conversation conversation = asking("async-whole");
    chatwire::Request request = client.send_async(conversation);
    CHECK(request.wait() == "async reply");
    CHECK(request.done());
    CHECK(request.wait() == "async reply");
    CHECK(conversation.size() == 3);

    chatwire::Conversation streamed = asking("stream-me");
    std::string seen;  // written by the worker thread, read after wait()
    std::atomic<int> done_calls{0};
    chatwire::Request stream = client.stream_async(
        streamed, [&seen](std::string_view delta) { seen += delta; },
        [&done_calls](chatwire_status status) {
            if (status == CHATWIRE_OK) {
                ++done_calls;
            }
        });
    chatwire::Reply reply = stream.wait_reply();
    CHECK(!seen.empty() && reply.content() == seen && done_calls == 1);
    CHECK(streamed.size() == 3);

    // What a worker-thread callback throws comes back from wait().
    chatwire::Conversation thrown = asking("stream-me");
    chatwire::Request throwing = client.stream_async(thrown, [](std::string_view) { throw Boom(1); });
    CHECK_THROWS_AS(throwing.wait(), Boom);
    CHECK_THROWS_AS(throwing.wait(), Boom);
    CHECK(thrown.size() == 2);
    chatwire::Conversation done_throws = asking("async-whole");
    chatwire::Request after = client.stream_async(
        done_throws, [](std::string_view) {}, [](chatwire_status) { throw Boom(2); });
    CHECK_THROWS_AS(after.wait(), Boom);

    // Cancelled while it waits for the server.
    chatwire::Client silent = make_client(silent_url);
    chatwire::Conversation waiting = asking("anyone?");
    chatwire::Request hanging = silent.send_async(waiting);
    CHECK(!hanging.done());
    auto start = std::chrono::steady_clock::now();
    hanging.cancel();
    CHECK_ERROR(hanging.wait(), CHATWIRE_ERR_CANCELLED, 0);
    // Only the clock tells "at once": the target is 100 ms; two seconds are
    // allowed, so that only a cancel that waits for the silent server fails.
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    CHECK(waiting.size() == 2);

    // Moved, reassigned and destroyed while running: cancelled and freed.
    chatwire::Conversation first = asking("anyone?");
    chatwire::Conversation second = asking("anyone?");
    chatwire::Request running = silent.stream_async(first, [](std::string_view) {});
    chatwire::Request moved = std::move(running);
    CHECK(!running && moved && !moved.done());
    CHECK_ERROR(running.done(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(running.wait(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    moved = silent.stream_async(second, [](std::string_view) {});
    CHECK(moved && !moved.done());
}

/// Polls the request's descriptor as an event loop would, taking the text
/// at each wake-up, until the request is done.
std::string poll_until_done(chatwire::Request &request) {
    std::string text;
    pollfd watch{request.fd(), POLLIN, 0};
    for (int round = 0; round < 100 && !request.done(); round++) {
        if (poll(&watch, 1, 5000) == 1) {
            text += request.take_text();
        }
    }
    return text + request.take_text();
}

void waitable_requests(const chatwire::Client &client) {
    chatwire::Conversation conversation = asking("stream-me");
    chatwire::Request request = client.send_async(conversation);
    int fd = request.fd();
    CHECK(fd >= 0 && request.fd() == fd);
    std::string taken = poll_until_done(request);
    CHECK(request.done());
    CHECK(!taken.empty());
    CHECK(request.take_text().empty());
    CHECK(request.wait() == taken);
    CHECK(conversation.size() == 3);

    // A streaming callback gets the text: nothing is left to take.
    chatwire::Conversation streamed = asking("stream-me");
    std::string seen;  // written by the worker thread, read after wait()
    chatwire::Request stream =
        client.stream_async(streamed, [&seen](std::string_view delta) { seen += delta; });
    CHECK(poll_until_done(stream).empty());
    CHECK(stream.wait() == seen && !seen.empty());

    chatwire::Request moved = std::move(request);
    CHECK_ERROR(request.fd(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK_ERROR(request.take_text(), CHATWIRE_ERR_NULL_ARGUMENT, 0);
    CHECK(moved.take_text().empty());
}

}  // namespace

void models_are_listed(const chatwire::Client &client) {
    std::vector<chatwire::Model> models = client.models();
    CHECK(models.size() == 2);
    CHECK(models[0].id == "gpt-4o");
    CHECK(models[0].owned_by == std::optional<std::string>("system"));
    CHECK(models[0].json.find("\"created\":1715367049") != std::string::npos);
    CHECK(models[1].id == "local-model");
    CHECK(!models[1].owned_by.has_value());
    CHECK(models[1].json == "{\"id\":\"local-model\",\"meta\":{\"n_ctx\":2048}}");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: send MOCK_URL SILENT_URL\n");
        return 2;
    }
    chatwire::Client client = make_client(argv[1]);
    check::run("send_appends_the_reply", send_appends_the_reply, client);
    check::run("http_errors_are_exceptions", http_errors_are_exceptions, client);
    check::run("reply_metadata", reply_metadata, client);
    check::run("streaming", streaming, client);
    check::run("a_throwing_callback_reaches_the_caller", a_throwing_callback_reaches_the_caller, client);
    check::run("send_json_returns_checked_json", send_json_returns_checked_json, client);
    check::run("tools_loop", tools_loop, client);
    check::run("background_requests", background_requests, client, argv[2]);
    check::run("waitable_requests", waitable_requests, client);
    check::run("models_are_listed", models_are_listed, client);
    return check::report("send");
}
