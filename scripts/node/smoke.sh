#!/usr/bin/env bash
# A manual smoke run of the node (docs/adr/0019-real-node-in-tests.md): the whole node, once, end to end. Starts
# the test control plane (scripts/node/start-control-plane.ts), containerd with the cached images, the kubelet and
# the scheduler under a fresh temp dir, runs a Job of localhost/meerkat:dev (`meerkat --version`, hostNetwork,
# non-root, read-only root filesystem) to completion, prints its log and the timings, then stops and removes
# everything, also on failure. Needs `npm run provision`.
# Root on Debian. Usage: bash scripts/node/smoke.sh
set -euo pipefail
shopt -s inherit_errexit

readonly SCRIPTS_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
readonly REPO_DIR=$(realpath "$SCRIPTS_DIR/../..")

say() { printf '[node:smoke] %s\n' "$*"; }

api() {
  local method=$1 path=$2
  shift 2
  printf 'Authorization: Bearer %s\n' "$token" |
    curl -fsS --cacert "$ca" -H @- -H 'Content-Type: application/json' -X "$method" "$server$path" "$@"
}

json_field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

stop_all() {
  bash "$SCRIPTS_DIR/stop-node.sh" "$dir" || true
  if [[ -n ${control_plane_pid:-} ]]; then
    kill -TERM "$control_plane_pid" 2>/dev/null || true
    wait "$control_plane_pid" 2>/dev/null || true
  fi
}

main() {
  dir=$(mktemp -d /tmp/meerkat-node-XXXXXX)
  trap stop_all EXIT
  local started=$SECONDS
  (cd "$REPO_DIR" && exec node_modules/.bin/tsx scripts/node/start-control-plane.ts "$dir/cluster.json") &
  control_plane_pid=$!
  until [[ -s "$dir/cluster.json" ]]; do
    kill -0 "$control_plane_pid" 2>/dev/null || { say 'the control plane did not start' && exit 1; }
    sleep 0.5
  done
  server=$(json_field "['serverUrl']" <"$dir/cluster.json")
  token=$(json_field "['adminToken']" <"$dir/cluster.json")
  ca=$(json_field "['caCertPath']" <"$dir/cluster.json")
  local kubeconfig
  kubeconfig=$(json_field "['kubeconfigPath']" <"$dir/cluster.json")
  bash "$SCRIPTS_DIR/start-containerd.sh" "$dir"
  bash "$SCRIPTS_DIR/start-kubelet.sh" "$dir" "$kubeconfig"
  bash "$SCRIPTS_DIR/start-scheduler.sh" "$dir" "$kubeconfig"
  say "node up $((SECONDS - started)) s after start"

  local applied=$SECONDS
  api POST /apis/batch/v1/namespaces/default/jobs -o /dev/null -d '{
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "meerkat-version"},
    "spec": {"backoffLimit": 0, "template": {"spec": {
      "hostNetwork": true, "restartPolicy": "Never", "automountServiceAccountToken": false,
      "securityContext": {"runAsNonRoot": true},
      "containers": [{"name": "meerkat", "image": "localhost/meerkat:dev", "imagePullPolicy": "Never",
        "args": ["--version"], "securityContext": {"readOnlyRootFilesystem": true,
        "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}}}'
  local succeeded=None
  until [[ $succeeded == 1 ]]; do
    ((SECONDS - applied < 120)) || { say 'the Job did not succeed within 120 s' && exit 1; }
    sleep 1
    succeeded=$(api GET /apis/batch/v1/namespaces/default/jobs/meerkat-version | json_field "['status'].get('succeeded')")
  done
  local pod
  pod=$(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dmeerkat-version' |
    json_field "['items'][0]['metadata']['name']")
  say "Job succeeded $((SECONDS - applied)) s after apply; its log: $(api GET "/api/v1/namespaces/default/pods/$pod/log")"
}

main "$@"
