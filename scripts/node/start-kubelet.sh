#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): starts kubelet v1.20.2 under DIR, registered as node
# `meerkat-node` at 127.0.0.1 with the cluster that KUBECONFIG names, running pods through the containerd that
# scripts/node/start-containerd.sh started under the same DIR. Its KubeletConfiguration (DIR/kubelet/config.yaml)
# holds what this machine needs: cgroup v1 without systemd (cgroupfs driver, no QoS or node-allocatable cgroups),
# no swap check, eviction thresholds that a shared disk does not trip, image GC off (imported images cannot be
# pulled again), no iptables, every port on loopback. Logs to DIR/kubelet/kubelet.log. Idempotent: a running kubelet for DIR is left as it is.
# Then it fixes up the Node object (see patch_node). KUBECONFIG must be a token kubeconfig such as the one
# test/kube/start-cluster.ts writes (server, certificate-authority-data, token).
# Root on Debian. Usage: bash scripts/node/start-kubelet.sh DIR KUBECONFIG
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:kubelet
# shellcheck source=../kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kube/lib.sh"

readonly KUBELET="$CACHE_ROOT/kubernetes-$KUBE_VERSION-node/kubelet"
readonly SANDBOX_IMAGE="localhost/meerkat-pause:$KUBE_VERSION"
readonly NODE_NAME=meerkat-node

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

kubeconfig_field() { sed -n "s/^ *$2: *//p" "$1" | head -n1; }

# Two things a real cluster's other parts would do, done once after registration:
# - kubelet v1.20 refuses a loopback --node-ip ("nodeIP can't be loopback address") and then reports no address,
#   so hostNetwork pods get no podIP, probes have no host and the apiserver cannot reach the kubelet for logs.
#   An InternalIP written into the status stays: the kubelet's address setter fails before it would overwrite it.
#   No Hostname address, or the apiserver would resolve the node name through DNS.
# - the kubelet registers with the node.kubernetes.io/not-ready:NoSchedule taint, which only the node lifecycle
#   controller removes; the test control plane runs without it, so once the node is Ready the taint is replaced by
#   meerkat.dev/node-tests=true:NoSchedule (NODE_TAINT in test/node/start-node.ts): only pods that tolerate it run
#   here, so the pods of the `*.kube.test.ts` files, whose status those tests write themselves, stay unscheduled.
patch_node() {
  local kubeconfig=$1 dir=$2 server token node_url
  server=$(kubeconfig_field "$kubeconfig" server)
  token=$(kubeconfig_field "$kubeconfig" token)
  kubeconfig_field "$kubeconfig" certificate-authority-data | base64 -d >"$dir/apiserver-ca.crt"
  node_url="$server/api/v1/nodes/$NODE_NAME"
  local api=(curl -fsS --cacert "$dir/apiserver-ca.crt" -H @- -o /dev/null)
  local auth="Authorization: Bearer $token" started=$SECONDS
  until printf '%s\n' "$auth" | "${api[@]}" "$node_url"; do
    ((SECONDS - started < 60)) || fail "node $NODE_NAME not registered within 60 s"
    sleep 1
  done
  printf '%s\nContent-Type: application/merge-patch+json\n' "$auth" | "${api[@]}" -X PATCH "$node_url/status" \
    -d '{"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}]}}'
  until printf '%s\n' "$auth" | curl -fsS --cacert "$dir/apiserver-ca.crt" -H @- "$node_url" |
    python3 -c 'import json, sys; n = json.load(sys.stdin)
sys.exit(0 if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"]["conditions"]) else 1)'; do
    ((SECONDS - started < 90)) || fail "node $NODE_NAME not Ready within 90 s; see $dir/kubelet.log"
    sleep 1
  done
  printf '%s\nContent-Type: application/merge-patch+json\n' "$auth" | "${api[@]}" -X PATCH "$node_url" \
    -d '{"spec":{"taints":[{"key":"meerkat.dev/node-tests","value":"true","effect":"NoSchedule"}]}}'
  say "node $NODE_NAME Ready at 127.0.0.1, tainted for the node tests only, after $((SECONDS - started)) s"
}

# The kubelet's settings (v1.20's KubeletConfiguration v1beta1) at PATH, serving on loopback ports PORT and HEALTHZ.
write_config() {
  cat >"$1" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $2
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $3
# The kubelet's own API (logs, exec) answers on loopback only; the apiserver has no client certificate for it.
authentication:
  anonymous: { enabled: true }
  webhook: { enabled: false }
authorization:
  mode: AlwaysAllow
# cgroup v1, no systemd: cgroupfs, and no kubepods/QoS hierarchy or node-allocatable enforcement to set up.
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
# A shared disk and busy memory must not evict the test's pods.
evictionHard:
  memory.available: 1Mi
  nodefs.available: 1%
  imagefs.available: 1%
  nodefs.inodesFree: 1%
# Imported images cannot be pulled back, so image GC never runs.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
makeIPTablesUtilChains: false
serializeImagePulls: false
resolvConf: /etc/resolv.conf
runtimeRequestTimeout: 5m
EOF
}

main() {
  (($# == 2)) || fail "usage: $0 DIR KUBECONFIG"
  local base dir kubeconfig
  base=$(realpath -m "$1")
  dir="$base/kubelet"
  kubeconfig=$(realpath "$2")
  [[ -x $KUBELET ]] || fail "no $KUBELET: run npm run provision first"
  local socket="$base/containerd/containerd.sock"
  [[ -S $socket ]] || fail "no containerd socket at $socket: run scripts/node/start-containerd.sh $1 first"
  mkdir -p "$dir/root" "$dir/pki" "$dir/volume-plugins"
  if [[ -f "$dir/kubelet.pid" ]] && kill -0 "$(cat "$dir/kubelet.pid")" 2>/dev/null; then
    say "already running (pid $(cat "$dir/kubelet.pid"))"
    patch_node "$kubeconfig" "$dir"
    return 0
  fi

  local port healthz_port
  port=$(free_port)
  healthz_port=$(free_port)
  write_config "$dir/config.yaml" "$port" "$healthz_port"
  # Only what KubeletConfiguration v1beta1 of v1.20 has no field for stays a flag.
  local flags=(
    --config="$dir/config.yaml"
    --kubeconfig="$kubeconfig"
    --root-dir="$dir/root"
    --cert-dir="$dir/pki"
    --volume-plugin-dir="$dir/volume-plugins"
    --hostname-override="$NODE_NAME"
    --node-ip=127.0.0.1
    --container-runtime=remote
    --container-runtime-endpoint="unix://$socket"
    # cAdvisor reads container stats from containerd directly, at /run/containerd/containerd.sock unless told.
    --containerd="$socket"
    --pod-infra-container-image="$SANDBOX_IMAGE"
    --v=2
  )
  local started=$SECONDS
  setsid "$KUBELET" "${flags[@]}" >"$dir/kubelet.log" 2>&1 </dev/null &
  echo $! >"$dir/kubelet.pid"
  until curl -fsS "http://127.0.0.1:$healthz_port/healthz" >/dev/null 2>&1; do
    kill -0 "$(cat "$dir/kubelet.pid")" 2>/dev/null || { tail -n 30 "$dir/kubelet.log" >&2 && fail 'kubelet exited'; }
    ((SECONDS - started < 60)) || fail "kubelet not healthy within 60 s; see $dir/kubelet.log"
    sleep 0.5
  done
  say "kubelet $(cat "$dir/kubelet.pid") healthy after $((SECONDS - started)) s (API 127.0.0.1:$port)"
  patch_node "$kubeconfig" "$dir"
}

main "$@"
