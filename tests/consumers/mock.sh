# shellcheck shell=bash
# Sourced by the consumer checks: starts the mock server.
#
#   start_mock_server FILE [mock_server.py options...]
#
# Starts mock_server.py in the background, waits until it has written its
# ports into FILE, and sets server_pid, port and stuck_port (where a
# connect never completes); the caller stops it.
start_mock_server() {
  local file="$1"
  shift
  python3 "$(dirname "${BASH_SOURCE[0]}")/mock_server.py" "$@" > "$file" &
  # shellcheck disable=SC2034 # read by the caller
  server_pid=$!
  for _ in $(seq 100); do
    [ "$(wc -l < "$file")" -ge 2 ] && break
    sleep 0.1
  done
  port="$(sed -n 1p "$file")"
  # shellcheck disable=SC2034
  stuck_port="$(sed -n 2p "$file")"
  [ -n "$port" ] || { echo "the mock server did not start" >&2; exit 1; }
}
