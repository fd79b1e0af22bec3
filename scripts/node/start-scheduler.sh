#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): starts kube-scheduler v1.20.2 under DIR against the
# cluster KUBECONFIG names, so Deployment and Job pods get bound to the node of scripts/node/start-kubelet.sh.
# No leader election (one scheduler), health port on loopback, no insecure port. Logs to DIR/scheduler/.
# Idempotent: a running scheduler for DIR is left as it is. Usage: bash scripts/node/start-scheduler.sh DIR KUBECONFIG
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:scheduler
# shellcheck source=../kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kube/lib.sh"

readonly SCHEDULER="$CACHE_ROOT/kubernetes-$KUBE_VERSION-node/kube-scheduler"

main() {
  (($# == 2)) || fail "usage: $0 DIR KUBECONFIG"
  local dir kubeconfig
  dir="$(realpath -m "$1")/scheduler"
  kubeconfig=$(realpath "$2")
  [[ -x $SCHEDULER ]] || fail "no $SCHEDULER: run npm run provision first"
  mkdir -p "$dir"
  if [[ -f "$dir/scheduler.pid" ]] && kill -0 "$(cat "$dir/scheduler.pid")" 2>/dev/null; then
    say "already running (pid $(cat "$dir/scheduler.pid"))"
    return 0
  fi
  local port started=$SECONDS
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  setsid "$SCHEDULER" --kubeconfig="$kubeconfig" --leader-elect=false --bind-address=127.0.0.1 \
    --secure-port="$port" --port=0 --cert-dir="$dir" >"$dir/scheduler.log" 2>&1 </dev/null &
  echo $! >"$dir/scheduler.pid"
  # The health port serves a self-signed certificate; /healthz needs no credentials.
  until curl -fsSk "https://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
    kill -0 "$(cat "$dir/scheduler.pid")" 2>/dev/null || { tail -n 20 "$dir/scheduler.log" >&2 && fail 'exited'; }
    ((SECONDS - started < 60)) || fail "not healthy within 60 s; see $dir/scheduler.log"
    sleep 0.5
  done
  say "kube-scheduler $(cat "$dir/scheduler.pid") healthy after $((SECONDS - started)) s"
}

main "$@"
