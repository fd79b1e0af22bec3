#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): starts a containerd of its own under DIR, with no
# systemd, for a kubelet to run pods through its CRI, and imports the cached OCI archives into the namespace the
# CRI uses (k8s.io). containerd 1.6 knows no pinned images: the kubelet keeps them with its image GC off.
#   DIR/containerd/{config.toml,root,state,runc,opt,containerd.sock,containerd.log,containerd.pid}
# The sandbox image is localhost/meerkat-pause:v1.20.2 (scripts/node/build-pause-image.sh). The CNI network is a
# loopback-only conflist and no plugin binary: it is never called for hostNetwork pods, the only kind this node
# runs, but without a loadable config the CRI reports NetworkReady=false and the kubelet keeps the node NotReady.
# Idempotent: a running containerd for DIR is left as it is.
# Root on Debian. Usage: bash scripts/node/start-containerd.sh DIR [ARCHIVE...]
#   (without archives: every *.oci.tar in ${XDG_CACHE_HOME:-~/.cache}/meerkat/images)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:containerd
# shellcheck source=../kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kube/lib.sh"

readonly SANDBOX_IMAGE="localhost/meerkat-pause:$KUBE_VERSION"

write_config() {
  local dir=$1
  printf '%s\n' '{"cniVersion": "0.4.0", "name": "meerkat-host-network-only", "plugins": [{"type": "loopback"}]}' \
    >"$dir/cni/conf/10-host-network-only.conflist"
  cat >"$dir/config.toml" <<EOF
version = 2
root = "$dir/root"
state = "$dir/state"
# Snapshotters this machine has no use for; each only logs a failure to load.
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "$dir/containerd.sock"

[ttrpc]
  address = "$dir/containerd.sock.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$SANDBOX_IMAGE"
  # exec/attach/port-forward streams: loopback, a free port.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # root here lacks CAP_SYS_RESOURCE, so the sandbox's oom_score_adj of -998 fails in runc ("can't get final
  # child's PID from pipe: EOF"); this caps every container's at containerd's own (0).
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$dir/cni/bin"
    conf_dir = "$dir/cni/conf"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$dir/runc"
        # No systemd here: the kubelet runs with --cgroup-driver=cgroupfs.
        SystemdCgroup = false
EOF
}

is_running() {
  local dir=$1
  [[ -f "$dir/containerd.pid" ]] && kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null
}

main() {
  (($# >= 1)) || fail "usage: $0 DIR [ARCHIVE...]"
  local dir
  dir="$(realpath -m "$1")/containerd"
  shift
  ensure_packages containerd:containerd runc:runc
  mkdir -p "$dir/root" "$dir/state" "$dir/runc" "$dir/opt" "$dir/cni/bin" "$dir/cni/conf"
  if is_running "$dir"; then
    say "already running (pid $(cat "$dir/containerd.pid"))"
  else
    write_config "$dir"
    local started=$SECONDS
    setsid containerd --config "$dir/config.toml" >"$dir/containerd.log" 2>&1 </dev/null &
    echo $! >"$dir/containerd.pid"
    until ctr --address "$dir/containerd.sock" version >/dev/null 2>&1; do
      is_running "$dir" || { tail -n 20 "$dir/containerd.log" >&2 && fail 'containerd exited'; }
      ((SECONDS - started < 30)) || fail "containerd did not answer within 30 s; see $dir/containerd.log"
      sleep 0.2
    done
    say "containerd $(cat "$dir/containerd.pid") serves $dir/containerd.sock after $((SECONDS - started)) s"
  fi

  local archives=("$@")
  ((${#archives[@]} > 0)) || mapfile -t archives < <(find "$CACHE_ROOT/images" -maxdepth 1 -name '*.oci.tar' | sort)
  local archive
  for archive in "${archives[@]}"; do
    local imported=$SECONDS
    ctr --address "$dir/containerd.sock" --namespace k8s.io images import "$archive" >/dev/null
    say "imported $(basename "$archive") in $((SECONDS - imported)) s"
  done
  ctr --address "$dir/containerd.sock" --namespace k8s.io images list --quiet | sed 's/^/[node:containerd] image: /'
}

main "$@"
