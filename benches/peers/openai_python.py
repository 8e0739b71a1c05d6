"""openai-python on chatwire's benchmark server.

    python3 openai_python.py URL SENDS

Makes SENDS sequential sends with the synchronous client after 200 to warm
up, and prints sequential_per_s, p50_us and p99_us, one "name value" per
line, for benches/speed.rs to read.
"""

import sys
import time

import openai


def main() -> None:
    url, sends = sys.argv[1], int(sys.argv[2])
    client = openai.OpenAI(base_url=url + "/v1", api_key="sk-bench", max_retries=0)
    messages = [{"role": "user", "content": "ping"}]

    def send() -> None:
        reply = client.chat.completions.create(model="m", messages=messages)
        assert reply.choices

    for _ in range(200):
        send()
    samples = []
    started = time.perf_counter()
    for _ in range(sends):
        one = time.perf_counter()
        send()
        samples.append(time.perf_counter() - one)
    elapsed = time.perf_counter() - started
    samples.sort()
    print(f"sequential_per_s {sends / elapsed}")
    print(f"p50_us {samples[len(samples) // 2] * 1e6}")
    print(f"p99_us {samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1e6}")


if __name__ == "__main__":
    main()
