#!/usr/bin/env python3
"""A stand-in for an OpenAI-compatible service, for the consumer programs.

Answers POST /v1/chat/completions with a chat completion whose text is
"pong: " and the last user message, after checking the key and the body.
Listens on a free loopback port and prints it on the first line of stdout;
stops by itself after --lifetime seconds (120 by default).
"""

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_KEY = "sk-consumer-test"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # quiet: the tests print what matters
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            return self.reply(404, {"error": {"message": "no such path: " + self.path}})
        if self.headers.get("Authorization") != "Bearer " + API_KEY:
            return self.reply(401, {"error": {"message": "wrong key"}})
        try:
            request = json.loads(raw)
            question = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as err:
            return self.reply(400, {"error": {"message": "bad request: %s" % err}})
        self.reply(
            200,
            {
                "id": "chatcmpl-consumer",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", "mock"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "pong: " + question},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
            },
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=120.0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
