# shellcheck shell=bash
# Sourced by the consumer checks: a work folder and the mock server.
#
#   make_work_dir              sets work to a new temporary folder; on exit,
#                              the servers started below are stopped and the
#                              folder is removed
#   start_mock_server FILE [mock_server.py options...]
#                              starts mock_server.py in the background, waits
#                              until it has written its ports into FILE, and
#                              sets port and stuck_port (where a connect
#                              never completes)

server_pids=()

make_work_dir() {
  work="$(mktemp -d)"
  trap clean_up_work EXIT
}

clean_up_work() {
  local pid
  for pid in "${server_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}

start_mock_server() {
  local file="$1"
  shift
  python3 "$(dirname "${BASH_SOURCE[0]}")/mock_server.py" "$@" > "$file" &
  server_pids+=($!)
  for _ in $(seq 100); do
    [ "$(wc -l < "$file")" -ge 2 ] && break
    sleep 0.1
  done
  port="$(sed -n 1p "$file")"
  # shellcheck disable=SC2034 # read by the caller
  stuck_port="$(sed -n 2p "$file")"
  [ -n "$port" ] || { echo "the mock server did not start" >&2; exit 1; }
}
