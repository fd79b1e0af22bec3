#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): stops what scripts/node/start-scheduler.sh,
# start-kubelet.sh and start-containerd.sh started under DIR and leaves nothing behind: the kubelet, every container and sandbox
# (the shims outlive containerd, so their tasks are killed through it first), containerd itself, any shim still
# serving DIR's socket, every mount under DIR (volumes, overlay rootfs, shm), the pods' log dirs in /var/log/pods,
# the empty cgroups the containers used, and the fixed paths under /var/lib/kubelet and /run/containerd when
# empty. Then removes DIR. Idempotent. Root.
# Usage: bash scripts/node/stop-node.sh DIR
set -euo pipefail
shopt -s inherit_errexit

say() { printf '[node:stop] %s\n' "$*"; }

stop_pid_file() {
  local pid_file=$1 name=$2
  [[ -f $pid_file ]] || return 0
  local pid waited=0
  pid=$(cat "$pid_file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null && ((waited < 150)); do sleep 0.1 && waited=$((waited + 1)); done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    say "stopped $name ($pid)"
  fi
  rm -f "$pid_file"
}

# Pod log dirs are /var/log/pods/<namespace>_<name>_<uid>, a path the kubelet v1.20 does not let us move.
remove_pod_logs() {
  local root=$1 uid
  [[ -d "$root/pods" ]] || return 0
  for uid in $(ls "$root/pods"); do
    rm -rf /var/log/pods/*_"$uid"
  done
  find /var/log/containers -xtype l -delete 2>/dev/null || true
}

kill_tasks() {
  local socket=$1 id
  [[ -S $socket ]] || return 0
  local ctr=(ctr --address "$socket" --namespace k8s.io)
  for id in $("${ctr[@]}" tasks list --quiet 2>/dev/null); do
    "${ctr[@]}" tasks kill --signal SIGKILL "$id" >/dev/null 2>&1 || true
  done
  sleep 1
  for id in $("${ctr[@]}" tasks list --quiet 2>/dev/null); do
    "${ctr[@]}" tasks delete --force "$id" >/dev/null 2>&1 || true
  done
  for id in $("${ctr[@]}" containers list --quiet 2>/dev/null); do
    "${ctr[@]}" containers delete "$id" >/dev/null 2>&1 || true
  done
}

# A shim whose -address is DIR's socket, found by its exact command line, never by name alone.
kill_leftover_shims() {
  local socket=$1 proc
  for proc in /proc/[0-9]*; do
    tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -qF -- "-address $socket " || continue
    kill -KILL "${proc#/proc/}" 2>/dev/null && say "killed leftover shim ${proc#/proc/}"
  done
}

unmount_under() {
  local dir=$1 mount_point
  # Deepest first, so a mount inside another comes off before it.
  while IFS= read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
  done < <(awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts | sort -r)
}

remove_empty_cgroups() {
  local group
  for group in /sys/fs/cgroup/*/k8s.io; do
    [[ -d $group ]] && find "$group" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

# Paths kubelet v1.20 and containerd 1.6 use whatever their flags say: the device-plugin socket, and the shims'
# socket and fifo dirs, so one node per machine at a time: a second one would lose its device-plugin socket.
remove_fixed_paths() {
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock /var/lib/kubelet/device-plugins/DEPRECATION
  rmdir /var/log/pods /var/log/containers /var/lib/kubelet/device-plugins /var/lib/kubelet /run/containerd/s /run/containerd/fifo \
    /run/containerd/runc/k8s.io /run/containerd/runc /run/containerd 2>/dev/null || true
}

main() {
  (($# == 1)) || { echo "usage: $0 DIR" >&2 && exit 1; }
  local dir
  dir=$(realpath -m "$1")
  local socket="$dir/containerd/containerd.sock"
  stop_pid_file "$dir/scheduler/scheduler.pid" kube-scheduler
  stop_pid_file "$dir/kubelet/kubelet.pid" kubelet
  kill_tasks "$socket"
  stop_pid_file "$dir/containerd/containerd.pid" containerd
  kill_leftover_shims "$socket"
  unmount_under "$dir"
  remove_pod_logs "$dir/kubelet/root"
  remove_empty_cgroups
  remove_fixed_paths
  rm -rf "$dir"
  local left
  left=$(awk -v dir="$dir/" 'index($2, dir) == 1' /proc/self/mounts | wc -l)
  say "removed $dir; mounts left under it: $left"
}

main "$@"
