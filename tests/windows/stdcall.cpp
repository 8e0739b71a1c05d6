// chatwire.hpp on 32-bit Windows, where the C callbacks it hands to
// chatwire must be __stdcall (CHATWIRE_CALL): a send, a stream on this
// thread and one on the worker thread with its end, text that is not ASCII
// both ways, and a failure as an exception. Against the mock server at
// argv[1] (tests/consumers/mock_server.py); built with i686-w64-mingw32-g++,
// linked to chatwire.dll through its import library, run under 32-bit Wine.
//
//   stdcall_cpp BASE_URL
#include <chatwire.hpp>

#include <windows.h>

#include <iostream>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const char *what) {
    if (!ok) {
        ++failures;
        std::cerr << "failed: " << what << '\n';
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: stdcall_cpp BASE_URL\n";
        return 2;
    }
    const std::string question = "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x99\x82?";
    const std::string answer = "pong: " + question;
    try {
        chatwire::Client client(argv[1], "sk-consumer-test");
        chatwire::Conversation conversation("stdcall-cpp-model");
        conversation.user(question);
        expect(client.send(conversation) == answer, "send");

        conversation.user(question);
        std::string streamed;
        std::string whole = client.stream(conversation, [&](std::string_view delta) {
            streamed += delta;
        });
        expect(whole == answer && streamed == answer, "stream");

        conversation.user(question);
        std::string in_background;
        // GetCurrentThreadId: MinGW's win32 thread model has no std::thread ids.
        DWORD worker = GetCurrentThreadId();
        int ends = 0;
        chatwire_status end = CHATWIRE_ERR_CANCELLED;
        chatwire::Request request = client.stream_async(
            conversation,
            [&](std::string_view delta) {
                in_background += delta;
                worker = GetCurrentThreadId();
            },
            [&](chatwire_status status) {
                ++ends;
                end = status;
            });
        expect(request.wait() == answer, "stream_async: the reply");
        expect(in_background == answer, "stream_async: the deltas");
        expect(worker != GetCurrentThreadId(), "stream_async: on the worker thread");
        expect(ends == 1 && end == CHATWIRE_OK, "stream_async: the end, once");
        expect(conversation.size() == 6, "the history");

        try {
            conversation.user("\xff not UTF-8");
            expect(false, "invalid UTF-8 throws");
        } catch (const chatwire::Error &error) {
            expect(error.status() == CHATWIRE_ERR_INVALID_UTF8, "invalid UTF-8: the status");
        }
    } catch (const chatwire::Error &error) {
        std::cerr << "chatwire failed: " << error.what() << '\n';
        return 1;
    }
    std::cout << "stdcall_cpp: " << (failures == 0 ? "ok" : "FAILED") << '\n';
    return failures == 0 ? 0 : 1;
}
