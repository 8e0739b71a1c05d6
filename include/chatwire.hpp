/*
 * chatwire for C++: a header-only C++17 layer over the C API of chatwire.h.
 *
 *     chatwire::Client client("http://127.0.0.1:8080", nullptr);   // nullptr: as in C
 *     chatwire::Conversation conversation("gpt-4o-mini");
 *     conversation.set_system("You are terse.");
 *     conversation.user("Name three colours.");
 *     std::string reply = client.send(conversation);
 *     std::string whole = client.stream(conversation, [](std::string_view delta) {
 *         std::cout << delta << std::flush;
 *     });
 *
 * - Every failure throws chatwire::Error (a std::runtime_error) carrying the
 *   chatwire_status, the HTTP status (0 when none) and the detail that
 *   chatwire_last_error() gave, as what(). A failed send leaves the
 *   conversation as it was, as in C.
 * - Client, Conversation, Reply and Request own their C handle: move-only,
 *   freed by their destructor. A moved-from object may be destroyed or
 *   assigned to; any other use throws chatwire::Error with
 *   CHATWIRE_ERR_NULL_ARGUMENT. `explicit operator bool` tells whether an
 *   object still holds its handle; get() gives the C handle, for C functions
 *   this layer does not wrap yet.
 * - No exception crosses into chatwire's C code. An exception thrown by a
 *   callback (a streaming lambda, a tool handler) stops the reply; the
 *   conversation is left as it was, and the exception is rethrown, as it
 *   was thrown, on the caller's thread once the C call has returned (for a
 *   background request: by wait()).
 * - Threads: a Client may be shared by several threads (its sending members
 *   are const); a Conversation must not be used by two threads at once.
 * - Text going in is UTF-8 without NUL bytes (a NUL would cut it short in
 *   C): a std::string holding one throws CHATWIRE_ERR_INVALID_ARGUMENT.
 *   Text coming out is a std::string owned by the caller, which keeps any
 *   U+0000 a reply holds.
 */
#ifndef CHATWIRE_HPP
#define CHATWIRE_HPP

/* MSVC keeps __cplusplus at 199711L unless /Zc:__cplusplus; _MSVC_LANG is right. */
#if defined(_MSVC_LANG)
#  if _MSVC_LANG < 201703L
#    error "chatwire.hpp needs C++17 or later (/std:c++17); chatwire.h is the C API"
#  endif
#elif !defined(__cplusplus) || __cplusplus < 201703L
#  error "chatwire.hpp needs C++17 or later (-std=c++17); chatwire.h is the C API"
#endif

#include "chatwire.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chatwire {

/// A chatwire failure: the status of the C call, the HTTP status of the
/// answer that caused it (0 when there was none) and, as what(), the
/// one-line detail of chatwire_last_error() (or the status's fixed text).
class Error : public std::runtime_error {
public:
    Error(chatwire_status status, int http_status, const std::string &detail)
        : std::runtime_error(detail.empty() ? std::string(chatwire_status_str(status)) : detail),
          status_(status), http_status_(http_status) {}

    /// The chatwire_status of the failure (CHATWIRE_ERR_AUTH, ...).
    chatwire_status status() const noexcept { return status_; }
    /// The HTTP status of the failure (401, 429, ...), or 0.
    int http_status() const noexcept { return http_status_; }

private:
    chatwire_status status_;
    int http_status_;
};

/// Token counts of a request, as the server reported them.
struct Usage {
    std::uint64_t prompt_tokens = 0;
    std::uint64_t completion_tokens = 0;
    std::uint64_t total_tokens = 0;
};

/// One tool call of a reply: its id (quoted by the result), the function's
/// name and its arguments as the model wrote them (JSON text, unchecked),
/// and its type: "function", or "custom" for a free-form tool (see
/// Conversation::add_custom_tool()), whose free-text input is `arguments`.
struct ToolCall {
    std::string id;
    std::string name;
    std::string arguments;
    std::string type = "function";
};

/// One model a server offers (Client::models()): its id (the name a
/// Conversation takes), who owns it when the server said, and the server's
/// whole object as JSON text (its "created" and every other field).
struct Model {
    std::string id;
    std::optional<std::string> owned_by;
    std::string json;
};

/// One message of a conversation.
struct Message {
    chatwire_role role;
    std::string content;
};

namespace detail {

/// Throws the calling thread's last chatwire failure unless `status` is OK.
inline void check(chatwire_status status) {
    if (status != CHATWIRE_OK) {
        throw Error(status, chatwire_last_http_status(), chatwire_last_error());
    }
}

/// The error every member of a moved-from object throws.
[[noreturn]] inline void moved_from(const char *type) {
    throw Error(CHATWIRE_ERR_NULL_ARGUMENT, 0,
                std::string("this chatwire::") + type + " was moved from");
}

/// `text` as C needs it: NUL-terminated, so a NUL inside would cut it short.
inline const char *c_text(const std::string &text) {
    if (text.find('\0') != std::string::npos) {
        throw Error(CHATWIRE_ERR_INVALID_ARGUMENT, 0, "a text given to chatwire holds a NUL byte");
    }
    return text.c_str();
}

/// A borrowed C string as a std::string; NULL gives nothing.
inline std::optional<std::string> maybe(const char *text) {
    if (text == nullptr) {
        return std::nullopt;
    }
    return std::string(text);
}

struct StringFree {
    void operator()(char *text) const noexcept { chatwire_string_free(text); }
};

/// Takes a string chatwire handed out: copied, then freed.
inline std::string take(char *text) {
    std::unique_ptr<char, StringFree> owned(text);
    return owned ? std::string(owned.get()) : std::string();
}

struct ClientFree {
    void operator()(chatwire_client *client) const noexcept { chatwire_client_free(client); }
};
struct ConversationFree {
    void operator()(chatwire_conversation *conversation) const noexcept {
        chatwire_conversation_free(conversation);
    }
};
struct ReplyFree {
    void operator()(chatwire_reply *reply) const noexcept { chatwire_reply_free(reply); }
};
struct RequestFree {
    void operator()(chatwire_request *request) const noexcept { chatwire_request_free(request); }
};
struct ModelsFree {
    void operator()(chatwire_models *models) const noexcept { chatwire_models_free(models); }
};
struct BatchFree {
    void operator()(chatwire_batch *batch) const noexcept { chatwire_batch_free(batch); }
};

/// Calls a user's callable and tells whether to go on: a callable that
/// returns void always goes on, one that returns a bool goes on on true.
template <class F, class... Args>
bool go_on(F &f, Args &&...args) {
    if constexpr (std::is_void_v<std::invoke_result_t<F &, Args...>>) {
        f(std::forward<Args>(args)...);
        return true;
    } else {
        return static_cast<bool>(f(std::forward<Args>(args)...));
    }
}

/// What a callback shares with the code that waits for the C call: the
/// user's callable and the exception it threw, if any.
template <class F>
struct DeltaSink {
    F &on_delta;
    std::exception_ptr error;
};

/// The C callback behind a streaming callable: nothing thrown leaves it;
/// an exception is kept and stops the reply (non-zero), as `false` does.
/// CHATWIRE_CALL: the callbacks' convention (__stdcall on 32-bit Windows).
template <class F>
int CHATWIRE_CALL delta_trampoline(void *userdata, const char *delta, std::size_t len) noexcept {
    auto *sink = static_cast<DeltaSink<F> *>(userdata);
    try {
        return go_on(sink->on_delta, std::string_view(delta, len)) ? 0 : 1;
    } catch (...) {
        sink->error = std::current_exception();
        return 1;
    }
}

/// Rethrows what a callback threw during a C call; else throws the call's
/// own failure, if any.
inline void finish(chatwire_status status, const std::exception_ptr &error) {
    if (error) {
        std::rethrow_exception(error);
    }
    check(status);
}

/// The callbacks of a background request, which live on the heap as long
/// as the request: the worker thread calls them.
struct AsyncState {
    virtual ~AsyncState() = default;
    /// Written by the worker thread before the request finishes; read after
    /// chatwire_request_wait() has returned, which orders the two.
    std::exception_ptr error;
};

template <class OnDelta, class OnDone>
struct AsyncCallbacks final : AsyncState {
    AsyncCallbacks(OnDelta delta, OnDone done)
        : on_delta(std::move(delta)), on_done(std::move(done)) {}
    OnDelta on_delta;
    OnDone on_done;

    static int CHATWIRE_CALL delta(void *userdata, const char *text, std::size_t len) noexcept {
        auto *self = static_cast<AsyncCallbacks *>(userdata);
        try {
            return go_on(self->on_delta, std::string_view(text, len)) ? 0 : 1;
        } catch (...) {
            self->error = std::current_exception();
            return 1;
        }
    }

    static void CHATWIRE_CALL done(void *userdata, chatwire_status status) noexcept {
        auto *self = static_cast<AsyncCallbacks *>(userdata);
        try {
            self->on_done(status);
        } catch (...) {
            // The first exception wins: a delta's comes before the end.
            if (!self->error) {
                self->error = std::current_exception();
            }
        }
    }
};

/// The absent callback of a background request.
struct NoCallback {
    void operator()(chatwire_status) const noexcept {}
};

}  // namespace detail

/// A reply with its metadata (chatwire_reply). Every accessor copies: the
/// strings stay valid after the Reply is gone.
class Reply {
public:
    /// Takes ownership of a chatwire_reply (NULL gives an empty Reply).
    explicit Reply(chatwire_reply *reply) noexcept : reply_(reply) {}

    /// The reply's text, whole (also past a U+0000); "" when the model only called tools.
    std::string content() const {
        return std::string(chatwire_reply_content(live()), chatwire_reply_content_len(live()));
    }
    /// Why the model stopped ("stop", "length", "tool_calls", ...), when the server said.
    std::optional<std::string> finish_reason() const {
        const char *reason = chatwire_reply_finish_reason(live());
        if (reason == nullptr) {
            return std::nullopt;
        }
        return std::string(reason, chatwire_reply_finish_reason_len(live()));
    }
    /// The model's refusal, whole (also past a U+0000), when it refused;
    /// content() holds it too when the model sent no content.
    std::optional<std::string> refusal() const {
        const char *refusal = chatwire_reply_refusal(live());
        if (refusal == nullptr) {
            return std::nullopt;
        }
        return std::string(refusal, chatwire_reply_refusal_len(live()));
    }
    /// The token counts, when the server reported them.
    std::optional<Usage> usage() const {
        Usage usage;
        chatwire_status status = chatwire_reply_usage(live(), &usage.prompt_tokens,
                                                      &usage.completion_tokens, &usage.total_tokens);
        if (status == CHATWIRE_ERR_UNAVAILABLE) {
            return std::nullopt;
        }
        detail::check(status);
        return usage;
    }
    /// The request id the server or a gateway sent, to quote when asking for help.
    std::optional<std::string> request_id() const {
        return detail::maybe(chatwire_reply_request_id(live()));
    }
    /// The response body as received (see chatwire_reply_json(): the one raw text).
    std::string json() const { return std::string(chatwire_reply_json(live())); }

    /// How many tools the model called.
    std::size_t tool_call_count() const { return chatwire_reply_tool_call_count(live()); }
    /// Tool call `index`, each text whole (also past a U+0000); out of
    /// range throws CHATWIRE_ERR_INVALID_ARGUMENT.
    ToolCall tool_call(std::size_t index) const {
        const char *id = nullptr;
        const char *name = nullptr;
        const char *arguments = nullptr;
        std::size_t id_len = 0;
        std::size_t name_len = 0;
        std::size_t arguments_len = 0;
        detail::check(chatwire_reply_tool_call(live(), index, &id, &name, &arguments));
        detail::check(chatwire_reply_tool_call_len(live(), index, &id_len, &name_len, &arguments_len));
        return ToolCall{std::string(id, id_len), std::string(name, name_len),
                        std::string(arguments, arguments_len),
                        detail::maybe(chatwire_reply_tool_call_type(live(), index)).value_or("function")};
    }
    /// Every tool call, in order.
    std::vector<ToolCall> tool_calls() const {
        std::vector<ToolCall> calls;
        std::size_t count = tool_call_count();
        calls.reserve(count);
        for (std::size_t index = 0; index < count; ++index) {
            calls.push_back(tool_call(index));
        }
        return calls;
    }

    /// The C handle, still owned by this Reply.
    chatwire_reply *get() const noexcept { return reply_.get(); }
    explicit operator bool() const noexcept { return reply_ != nullptr; }

private:
    const chatwire_reply *live() const {
        if (!reply_) {
            detail::moved_from("Reply");
        }
        return reply_.get();
    }

    std::unique_ptr<chatwire_reply, detail::ReplyFree> reply_;
};

/// A model name and the messages so far (chatwire_conversation). Must not
/// be used by two threads at once; may move between threads.
class Conversation {
public:
    /// An empty conversation for `model`, e.g. "gpt-4o-mini".
    explicit Conversation(const std::string &model) {
        chatwire_conversation *conversation = nullptr;
        detail::check(chatwire_conversation_new(detail::c_text(model), &conversation));
        conversation_.reset(conversation);
    }

    /// Reads what to_json() wrote (the request shape), checking the ordering.
    static Conversation from_json(const std::string &json) {
        chatwire_conversation *conversation = nullptr;
        detail::check(chatwire_conversation_from_json(detail::c_text(json), &conversation));
        return Conversation(conversation);
    }

    /// Takes ownership of a chatwire_conversation made in C.
    static Conversation adopt(chatwire_conversation *conversation) noexcept {
        return Conversation(conversation);
    }

    /// Puts the system message at the start, or replaces the one there.
    Conversation &set_system(const std::string &text) {
        detail::check(chatwire_conversation_set_system(live(), detail::c_text(text)));
        return *this;
    }
    /// Appends a user message; a message that breaks the ordering throws
    /// CHATWIRE_ERR_INVALID_CONVERSATION and changes nothing.
    Conversation &user(const std::string &text) { return append(CHATWIRE_ROLE_USER, text); }
    /// Appends an assistant message (a reply kept from elsewhere).
    Conversation &assistant(const std::string &text) {
        return append(CHATWIRE_ROLE_ASSISTANT, text);
    }
    /// Appends a message of any role but CHATWIRE_ROLE_TOOL (see append_tool_result()).
    Conversation &append(chatwire_role role, const std::string &text) {
        detail::check(chatwire_conversation_append(live(), role, detail::c_text(text)));
        return *this;
    }
    /// Appends a user message with text (may be "") and one image: an
    /// http(s) or data: URL, or a local PNG, JPEG, GIF or WebP file.
    Conversation &user_image(const std::string &text, const std::string &image) {
        detail::check(chatwire_conversation_append_user_image(live(), detail::c_text(text),
                                                              detail::c_text(image)));
        return *this;
    }
    /// Appends a user message with text (may be "") and one local file: a
    /// PDF, or a WAV or MP3 recording, told by its bytes (at most 20 MiB).
    Conversation &user_file(const std::string &text, const std::string &file) {
        detail::check(chatwire_conversation_append_user_file(live(), detail::c_text(text),
                                                             detail::c_text(file)));
        return *this;
    }

    /// Offers a function to the model; `parameters_schema_json` is a JSON
    /// Schema object for its arguments ("" means no arguments).
    Conversation &add_tool(const std::string &name, const std::string &description,
                           const std::string &parameters_schema_json) {
        const char *schema =
            parameters_schema_json.empty() ? nullptr : detail::c_text(parameters_schema_json);
        detail::check(chatwire_conversation_add_tool(live(), detail::c_text(name),
                                                     detail::c_text(description), schema));
        return *this;
    }
    /// Offers a free-form tool ("type": "custom"): the model calls it with
    /// free text (a ToolCall of type "custom"). `format_json` "" means
    /// unconstrained text, else the format object, e.g.
    /// {"type":"grammar","grammar":{"syntax":"lark","definition":"..."}}.
    Conversation &add_custom_tool(const std::string &name, const std::string &description,
                                  const std::string &format_json = "") {
        const char *format = format_json.empty() ? nullptr : detail::c_text(format_json);
        detail::check(chatwire_conversation_add_custom_tool(live(), detail::c_text(name),
                                                            detail::c_text(description), format));
        return *this;
    }
    /// Appends a tool's result for the call with id `tool_call_id`.
    Conversation &append_tool_result(const std::string &tool_call_id, const std::string &content) {
        detail::check(chatwire_conversation_append_tool_result(live(), detail::c_text(tool_call_id),
                                                               detail::c_text(content)));
        return *this;
    }

    /// Sets a top-level request field, its value as JSON text ("64",
    /// "0.2", "\"auto\""); a value the official schema rejects throws
    /// CHATWIRE_ERR_INVALID_ARGUMENT.
    Conversation &set_option(const std::string &name, const std::string &json_value) {
        detail::check(chatwire_conversation_set_option(live(), detail::c_text(name),
                                                       detail::c_text(json_value)));
        return *this;
    }
    /// Like set_option(), sent as given (a server's own form of a field).
    Conversation &set_option_unchecked(const std::string &name, const std::string &json_value) {
        detail::check(chatwire_conversation_set_option_unchecked(live(), detail::c_text(name),
                                                                 detail::c_text(json_value)));
        return *this;
    }
    /// Removes a request field set by set_option().
    Conversation &remove_option(const std::string &name) {
        detail::check(chatwire_conversation_set_option(live(), detail::c_text(name), nullptr));
        return *this;
    }

    /// Keeps the first `len` messages (`len` beyond size() throws).
    Conversation &truncate(std::size_t len) {
        detail::check(chatwire_conversation_truncate(live(), len));
        return *this;
    }

    /// The number of messages, the system message included.
    std::size_t size() const { return chatwire_conversation_len(live()); }
    bool empty() const { return size() == 0; }
    /// The role of message `index`; out of range throws std::out_of_range.
    chatwire_role role(std::size_t index) const {
        int role = chatwire_conversation_role(live(), index);
        if (role < 0) {
            throw std::out_of_range("chatwire::Conversation::role: no message at this index");
        }
        return static_cast<chatwire_role>(role);
    }
    /// The text of message `index`, whole; out of range throws std::out_of_range.
    std::string content(std::size_t index) const {
        const char *text = chatwire_conversation_content(live(), index);
        if (text == nullptr) {
            throw std::out_of_range("chatwire::Conversation::content: no message at this index");
        }
        return std::string(text, chatwire_conversation_content_len(live(), index));
    }
    /// Every message, copied.
    std::vector<Message> messages() const {
        std::vector<Message> all;
        std::size_t count = size();
        all.reserve(count);
        for (std::size_t index = 0; index < count; ++index) {
            all.push_back(Message{role(index), content(index)});
        }
        return all;
    }

    /// The conversation as JSON, the request shape (with tools and options).
    std::string to_json() const {
        char *json = nullptr;
        detail::check(chatwire_conversation_to_json(live(), &json));
        return detail::take(json);
    }

    /// The C handle, still owned by this Conversation.
    chatwire_conversation *get() const noexcept { return conversation_.get(); }
    explicit operator bool() const noexcept { return conversation_ != nullptr; }

private:
    explicit Conversation(chatwire_conversation *conversation) noexcept
        : conversation_(conversation) {}

    chatwire_conversation *live() const {
        if (!conversation_) {
            detail::moved_from("Conversation");
        }
        return conversation_.get();
    }

    std::unique_ptr<chatwire_conversation, detail::ConversationFree> conversation_;
};

/// A send running on chatwire's worker thread (chatwire_request). The
/// conversation it was started with must outlive it and stay untouched
/// until wait() has returned or the Request is destroyed. Destroying a
/// running Request cancels it and waits for it (its reply is not appended).
class Request {
public:
    /// Whether it has finished; never blocks.
    bool done() const { return chatwire_request_done(live()) != 0; }

    /// Waits for the end and returns the reply, appended to the conversation.
    /// Throws what a callback threw, else the send's failure. Waiting again
    /// gives the same result, without appending twice.
    std::string wait() {
        char *text = nullptr;
        chatwire_status status = chatwire_request_wait(live(), &text);
        std::string reply = detail::take(text);
        detail::finish(status, state_ ? state_->error : nullptr);
        return reply;
    }
    /// Like wait(), with the reply's metadata.
    Reply wait_reply() {
        chatwire_reply *reply = nullptr;
        chatwire_status status = chatwire_request_wait_reply(live(), &reply);
        Reply owned(reply);
        detail::finish(status, state_ ? state_->error : nullptr);
        return owned;
    }
    /// Stops it if it is still running (it then ends with CHATWIRE_ERR_CANCELLED).
    void cancel() { detail::check(chatwire_request_cancel(live())); }

    /// The text that arrived since the last call ("" when none), on the
    /// caller's thread, for a request started with send_async(); always ""
    /// for one started with stream_async(), whose callback gets the text.
    /// Taking it makes fd() (event()) quiet again until more arrives or the
    /// request is done. Never blocks.
    std::string take_text() {
        char *text = nullptr;
        detail::check(chatwire_request_take_text(live(), &text));
        return detail::take(text);
    }
#if defined(_WIN32)
    /// A manual-reset event HANDLE (as void *), signalled while text not yet
    /// taken is waiting or once the request is done, for
    /// WaitForMultipleObjects() or MsgWaitForMultipleObjects() in the
    /// program's own loop (chatwire_request_event()). Owned by the request:
    /// never close, set or reset it.
    void *event() const {
        void *event = chatwire_request_event(live());
        if (event == nullptr) {
            throw Error(CHATWIRE_ERR_SYSTEM, 0, chatwire_last_error());
        }
        return event;
    }
#else
    /// A descriptor that polls readable while text not yet taken is waiting
    /// or once the request is done (level-triggered), for poll, epoll,
    /// select, libuv or a GUI toolkit's descriptor watch
    /// (chatwire_request_fd()). Owned by the request: never read or close it.
    int fd() const {
        int fd = chatwire_request_fd(live());
        if (fd < 0) {
            throw Error(CHATWIRE_ERR_SYSTEM, 0, chatwire_last_error());
        }
        return fd;
    }
#endif

    Request(Request &&other) noexcept = default;
    Request &operator=(Request &&other) noexcept {
        if (this != &other) {
            // The running request goes before the callbacks it may still call.
            request_.reset();
            state_ = std::move(other.state_);
            request_ = std::move(other.request_);
        }
        return *this;
    }
    Request(const Request &) = delete;
    Request &operator=(const Request &) = delete;
    ~Request() { request_.reset(); }

    /// The C handle, still owned by this Request.
    chatwire_request *get() const noexcept { return request_.get(); }
    explicit operator bool() const noexcept { return request_ != nullptr; }

private:
    friend class Client;
    Request(chatwire_request *request, std::unique_ptr<detail::AsyncState> state) noexcept
        : state_(std::move(state)), request_(request) {}

    chatwire_request *live() const {
        if (!request_) {
            detail::moved_from("Request");
        }
        return request_.get();
    }

    // Declared first, destroyed last: the worker thread may call into it
    // until the request is freed.
    std::unique_ptr<detail::AsyncState> state_;
    std::unique_ptr<chatwire_request, detail::RequestFree> request_;
};

/// A connection to one chat completions endpoint (chatwire_client). The
/// setters affect the sends that start after them; the sending members are
/// const, and a Client may be used by several threads at once.
class Client {
public:
    /// `base_url` and `api_key` as chatwire_client_new() takes them:
    /// nullptr looks them up ($OPENAI_BASE_URL, $OPENAI_API_KEY, ./.env).
    explicit Client(const char *base_url = nullptr, const char *api_key = nullptr) {
        chatwire_client *client = nullptr;
        detail::check(chatwire_client_new(base_url, api_key, &client));
        client_.reset(client);
    }

    /// Takes ownership of a chatwire_client made in C.
    static Client adopt(chatwire_client *client) noexcept { return Client(client, Adopt{}); }

    /// The whole-request timeout (each retry gets its own); default 10 minutes.
    Client &set_timeout(std::chrono::milliseconds timeout) {
        detail::check(chatwire_client_set_timeout_ms(live(), milliseconds(timeout)));
        return *this;
    }
    /// The longest silence of a streamed reply; default 60 s.
    Client &set_idle_timeout(std::chrono::milliseconds timeout) {
        detail::check(chatwire_client_set_idle_timeout_ms(live(), milliseconds(timeout)));
        return *this;
    }
    /// How many times a failed request is retried; default 2, at most 10.
    Client &set_max_retries(std::uint32_t max_retries) {
        detail::check(chatwire_client_set_max_retries(live(), max_retries));
        return *this;
    }
    /// One of the limits on what chatwire keeps of an answer, in bytes.
    Client &set_limit(chatwire_limit which, std::uint64_t bytes) {
        detail::check(chatwire_client_set_limit(live(), which, bytes));
        return *this;
    }
    /// How many idle connections are kept for later sends; default 16.
    Client &set_max_idle_connections(std::uint32_t count) {
        detail::check(chatwire_client_set_max_idle_connections(live(), count));
        return *this;
    }
    /// How many background requests of this Client run at once; more wait
    /// their turn instead of failing. Default 1024, from 1 to 65536.
    Client &set_max_in_flight(std::uint32_t count) {
        detail::check(chatwire_client_set_max_in_flight(live(), count));
        return *this;
    }
    /// The stack size, in bytes, of the worker threads of background
    /// requests started from now on, on which their callbacks run; default
    /// 256 KiB, from 64 KiB to 8 MiB. Raise it for a callback that needs a
    /// deep stack.
    Client &set_worker_stack_size(std::size_t bytes) {
        detail::check(chatwire_client_set_worker_stack_size(live(), bytes));
        return *this;
    }
    /// An extra header sent with every request, replacing one of the same name.
    Client &set_header(const std::string &name, const std::string &value) {
        detail::check(
            chatwire_client_set_header(live(), detail::c_text(name), detail::c_text(value)));
        return *this;
    }
    /// Removes an extra header (also OpenAI-Organization and OpenAI-Project).
    Client &remove_header(const std::string &name) {
        detail::check(chatwire_client_set_header(live(), detail::c_text(name), nullptr));
        return *this;
    }
    /// How many correction turns send_json() allows; default 2.
    Client &set_json_corrections(std::uint32_t corrections) {
        detail::check(chatwire_client_set_json_corrections(live(), corrections));
        return *this;
    }
    /// How send_json() tells the model about the schema.
    Client &set_schema_delivery(chatwire_schema_delivery delivery) {
        detail::check(chatwire_client_set_schema_delivery(live(), delivery));
        return *this;
    }
    /// The API requests speak: CHATWIRE_API_CHAT_COMPLETIONS (the default) or
    /// CHATWIRE_API_RESPONSES ({base}/v1/responses; docs/responses.md).
    Client &set_api(chatwire_api api) {
        detail::check(chatwire_client_set_api(live(), api));
        return *this;
    }
    /// Trusts the CA certificates of a PEM file besides the system's roots.
    Client &set_ca_file(const std::string &pem_path) {
        detail::check(chatwire_client_set_ca_file(live(), detail::c_text(pem_path)));
        return *this;
    }
    /// Shows this PEM certificate chain and its PEM private key to servers
    /// that ask for a client certificate (mutual TLS); both files are read now.
    Client &set_client_certificate(const std::string &cert_pem_file,
                                   const std::string &key_pem_file) {
        detail::check(chatwire_client_set_client_certificate(
            live(), detail::c_text(cert_pem_file), detail::c_text(key_pem_file)));
        return *this;
    }
    /// Sends through this proxy; "" means no proxy, whatever the environment says.
    Client &set_proxy(const std::string &proxy_url) {
        detail::check(chatwire_client_set_proxy(live(), detail::c_text(proxy_url)));
        return *this;
    }

    /// The models the server offers, in its order (chatwire_list_models():
    /// GET {base_url}/v1/models, or Azure's route), each text whole.
    std::vector<Model> models() const {
        chatwire_models *list = nullptr;
        detail::check(chatwire_list_models(live(), &list));
        std::unique_ptr<chatwire_models, detail::ModelsFree> owned(list);
        std::vector<Model> models;
        std::size_t count = chatwire_models_len(list);
        models.reserve(count);
        for (std::size_t index = 0; index < count; ++index) {
            char *json = nullptr;
            detail::check(chatwire_models_json(list, index, &json));
            std::optional<std::string> owned_by;
            if (const char *owner = chatwire_models_owned_by(list, index)) {
                owned_by = std::string(owner, chatwire_models_owned_by_len(list, index));
            }
            models.push_back(Model{std::string(chatwire_models_id(list, index),
                                               chatwire_models_id_len(list, index)),
                                   std::move(owned_by), detail::take(json)});
        }
        return models;
    }

    /// Sends the conversation and appends the reply, returned whole.
    std::string send(Conversation &conversation) const { return send_reply(conversation).content(); }
    /// Like send(), with the reply's metadata (tool calls, usage, ...).
    Reply send_reply(Conversation &conversation) const {
        chatwire_reply *reply = nullptr;
        detail::check(chatwire_send_reply(live(), conversation_of(conversation), &reply));
        return Reply(reply);
    }

    /// Streams the reply: `on_delta(std::string_view)` gets each piece of
    /// text as it arrives, on this thread, and may return a bool (false
    /// stops the reply: CHATWIRE_ERR_CANCELLED). Returns the whole reply,
    /// appended to the conversation. What `on_delta` throws stops the reply
    /// and is rethrown here, the conversation unchanged.
    template <class OnDelta>
    std::string stream(Conversation &conversation, OnDelta &&on_delta) const {
        return stream_reply(conversation, std::forward<OnDelta>(on_delta)).content();
    }
    /// Like stream(), with the reply's metadata.
    template <class OnDelta>
    Reply stream_reply(Conversation &conversation, OnDelta &&on_delta) const {
        detail::DeltaSink<std::remove_reference_t<OnDelta>> sink{on_delta, nullptr};
        chatwire_reply *reply = nullptr;
        chatwire_status status = chatwire_send_stream_reply(
            live(), conversation_of(conversation),
            &detail::delta_trampoline<std::remove_reference_t<OnDelta>>, &sink, &reply);
        Reply owned(reply);
        detail::finish(status, sink.error);
        return owned;
    }

    /// Asks for JSON matching a JSON Schema (JSON text) and returns it as
    /// compact JSON text, checked against the schema; parse it with the
    /// JSON library of your choice.
    std::string send_json(Conversation &conversation, const std::string &schema_json) const {
        char *json = nullptr;
        detail::check(chatwire_send_json(live(), conversation_of(conversation),
                                         detail::c_text(schema_json), &json));
        return detail::take(json);
    }

    /// Sends with tools: while the model calls tools, `handler(const
    /// ToolCall &)` answers each call (returning the result as a
    /// std::string) and the conversation is sent again, at most
    /// `max_rounds` times. Returns the reply that called no tool. On any
    /// failure (a throwing handler, a failed send, rounds used up:
    /// CHATWIRE_ERR_INVALID_REPLY) the conversation is put back as it was
    /// before the call, and the exception is rethrown.
    template <class Handler>
    Reply run_tools(Conversation &conversation, Handler &&handler, unsigned max_rounds = 8) const {
        std::size_t before = conversation.size();
        try {
            for (unsigned round = 0;; ++round) {
                Reply reply = send_reply(conversation);
                std::vector<ToolCall> calls = reply.tool_calls();
                if (calls.empty()) {
                    return reply;
                }
                if (round == max_rounds) {
                    throw Error(CHATWIRE_ERR_INVALID_REPLY, 0,
                                "the model still called tools after " +
                                    std::to_string(max_rounds) + " rounds");
                }
                for (const ToolCall &call : calls) {
                    std::string result = handler(call);
                    conversation.append_tool_result(call.id, result);
                }
            }
        } catch (...) {
            conversation.truncate(before);
            throw;
        }
    }

    /// Starts sending on a worker thread and returns at once. The reply is
    /// streamed: its text waits for Request::take_text(), signalled by
    /// Request::fd() (Request::event() on Windows), and Request::wait()
    /// gives it whole.
    Request send_async(Conversation &conversation) const {
        chatwire_request *request = nullptr;
        detail::check(chatwire_send_async(live(), conversation_of(conversation), nullptr, nullptr,
                                          nullptr, &request));
        return Request(request, nullptr);
    }
    /// Starts a streamed send on a worker thread: `on_delta` (as for
    /// stream()) and `on_done(chatwire_status)` run on that thread, so they
    /// must be safe to call from it; they are kept (moved or copied) by the
    /// Request. What they throw stops the reply and is rethrown by wait().
    template <class OnDelta, class OnDone = detail::NoCallback>
    Request stream_async(Conversation &conversation, OnDelta on_delta,
                         OnDone on_done = OnDone()) const {
        using Callbacks = detail::AsyncCallbacks<OnDelta, OnDone>;
        auto state = std::make_unique<Callbacks>(std::move(on_delta), std::move(on_done));
        chatwire_request *request = nullptr;
        detail::check(chatwire_send_async(live(), conversation_of(conversation), &Callbacks::delta,
                                          &Callbacks::done, state.get(), &request));
        return Request(request, std::move(state));
    }

    /// The C handle, still owned by this Client.
    chatwire_client *get() const noexcept { return client_.get(); }
    explicit operator bool() const noexcept { return client_ != nullptr; }

private:
    struct Adopt {};
    Client(chatwire_client *client, Adopt) noexcept : client_(client) {}

    chatwire_client *live() const {
        if (!client_) {
            detail::moved_from("Client");
        }
        return client_.get();
    }

    static chatwire_conversation *conversation_of(Conversation &conversation) {
        if (!conversation) {
            detail::moved_from("Conversation");
        }
        return conversation.get();
    }

    /// A duration in milliseconds as C takes it; a negative one becomes 0,
    /// which chatwire refuses with CHATWIRE_ERR_INVALID_ARGUMENT.
    static std::uint64_t milliseconds(std::chrono::milliseconds duration) {
        return duration.count() < 0 ? 0 : static_cast<std::uint64_t>(duration.count());
    }

    std::unique_ptr<chatwire_client, detail::ClientFree> client_;
};

/// Many conversations' requests as one job, run by the provider's Batch API
/// (chatwire_batch; docs/batches.md): add() each conversation, submit(),
/// refresh() until it has ended, fetch_results(), then apply() each result
/// to its conversation as a send's reply. One thread at a time.
class Batch {
public:
    /// The request counts of the last refresh.
    struct Counts {
        std::uint64_t completed = 0;
        std::uint64_t failed = 0;
        std::uint64_t total = 0;
    };

    /// An empty batch.
    Batch() {
        chatwire_batch *batch = nullptr;
        detail::check(chatwire_batch_new(&batch));
        batch_.reset(batch);
    }

    /// A batch submitted earlier, perhaps by another run, by its id.
    static Batch open(const std::string &batch_id) {
        chatwire_batch *batch = nullptr;
        detail::check(chatwire_batch_open(detail::c_text(batch_id), &batch));
        return Batch(batch);
    }

    /// Adds, under `custom_id`, the request a send of `conversation` through
    /// `client` would make now (the same body, byte for byte).
    Batch &add(const Client &client, const std::string &custom_id,
               const Conversation &conversation) {
        detail::check(chatwire_batch_add(live(), client.get(), detail::c_text(custom_id),
                                         conversation.get()));
        return *this;
    }
    /// How many requests were added.
    std::size_t size() const { return chatwire_batch_len(live()); }
    /// The input file (JSONL); past OpenAI's limits, CHATWIRE_ERR_TOO_LARGE.
    std::string to_jsonl() const {
        char *jsonl = nullptr;
        detail::check(chatwire_batch_to_jsonl(live(), &jsonl));
        return detail::take(jsonl);
    }
    /// Uploads the input file and creates the batch.
    void submit(const Client &client) { detail::check(chatwire_batch_submit(client.get(), live())); }
    /// The provider's id; none before submit().
    std::optional<std::string> id() const {
        const char *id = chatwire_batch_id(live());
        return id == nullptr ? std::nullopt : std::optional<std::string>(id);
    }
    /// Asks where the batch stands: one of the CHATWIRE_BATCH_* states.
    chatwire_batch_state refresh(const Client &client) {
        int state = 0;
        detail::check(chatwire_batch_refresh(client.get(), live(), &state));
        return static_cast<chatwire_batch_state>(state);
    }
    /// Whether `state` is one a batch leaves no more (completed, failed,
    /// expired, cancelled).
    static bool has_ended(chatwire_batch_state state) noexcept {
        return state == CHATWIRE_BATCH_COMPLETED || state == CHATWIRE_BATCH_FAILED ||
               state == CHATWIRE_BATCH_EXPIRED || state == CHATWIRE_BATCH_CANCELLED;
    }
    /// The request counts of the last refresh.
    Counts counts() const {
        Counts counts;
        detail::check(
            chatwire_batch_counts(live(), &counts.completed, &counts.failed, &counts.total));
        return counts;
    }
    /// Why the provider refused the input file (a failed batch), a line each.
    std::string errors() const {
        char *errors = nullptr;
        detail::check(chatwire_batch_errors(live(), &errors));
        return detail::take(errors);
    }
    /// Cancels the batch; refresh() then says cancelling, and cancelled.
    void cancel(const Client &client) { detail::check(chatwire_batch_cancel(client.get(), live())); }
    /// Downloads the results of a batch that has ended.
    void fetch_results(const Client &client) {
        detail::check(chatwire_batch_fetch_results(client.get(), live()));
    }
    /// Reads a result file got another way (vLLM's run-batch, a console).
    void read_results(const std::string &output_jsonl) {
        detail::check(chatwire_batch_read_results(live(), detail::c_text(output_jsonl)));
    }
    /// The result for `custom_id`, appended to `conversation` as a send's
    /// reply; a failed request throws the Error a send would have, one
    /// without a result CHATWIRE_ERR_UNAVAILABLE (the conversation unchanged).
    Reply apply(const std::string &custom_id, Conversation &conversation) const {
        chatwire_reply *reply = nullptr;
        detail::check(
            chatwire_batch_apply(live(), detail::c_text(custom_id), conversation.get(), &reply));
        return Reply(reply);
    }

    /// The C handle, still owned by this Batch (nullptr once moved from).
    chatwire_batch *get() const noexcept { return batch_.get(); }

private:
    explicit Batch(chatwire_batch *batch) noexcept : batch_(batch) {}

    chatwire_batch *live() const {
        if (!batch_) {
            detail::moved_from("Batch");
        }
        return batch_.get();
    }

    std::unique_ptr<chatwire_batch, detail::BatchFree> batch_;
};

/// The JSON in a model's reply (a fenced block, or bare JSON in prose),
/// repaired and compact; none throws CHATWIRE_ERR_NO_JSON.
inline std::string extract_json(const std::string &text) {
    char *json = nullptr;
    detail::check(chatwire_extract_json(detail::c_text(text), &json));
    return detail::take(json);
}

/// An ingredient list in a model's reply, as JSON text (see chatwire_extract_ingredients()).
inline std::string extract_ingredients(const std::string &text) {
    char *json = nullptr;
    detail::check(chatwire_extract_ingredients(detail::c_text(text), &json));
    return detail::take(json);
}

/// A prompt asking a model for the ingredient list of `text`.
inline std::string ingredients_prompt(const std::string &text) {
    char *prompt = nullptr;
    detail::check(chatwire_ingredients_prompt(detail::c_text(text), &prompt));
    return detail::take(prompt);
}

/// A prompt asking for JSON shaped like `example_json` (see chatwire_json_prompt()).
inline std::string json_prompt(const std::string &instruction, const std::string &example_json,
                               const std::string &text) {
    char *prompt = nullptr;
    detail::check(chatwire_json_prompt(detail::c_text(instruction), detail::c_text(example_json),
                                       detail::c_text(text), &prompt));
    return detail::take(prompt);
}

/// The library's name and version, e.g. "chatwire 0.1.0".
inline std::string version() { return chatwire_version(); }

/// The loaded library's version as MAJOR * 10000 + MINOR * 100 + PATCH,
/// to compare with CHATWIRE_VERSION_NUMBER (the header's).
inline std::uint32_t version_number() noexcept { return chatwire_version_number(); }

/// The fixed description of a status code.
inline std::string status_str(int status) { return chatwire_status_str(status); }

}  // namespace chatwire

#endif  // CHATWIRE_HPP
