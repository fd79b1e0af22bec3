#!/usr/bin/env bash
# Provides every Kubernetes v1.20.2 program the tests run (see docs/testing.md), with one `make` over one source tree
# and one Go build cache: the packages the four programs share (client-go, apimachinery, apiserver) compile once.
# No prebuilt Kubernetes binary can be had here, but Debian carries the v1.20.2 source tree with its vendored
# dependencies, so this builds it offline with Debian's Go and caches the result outside the repository:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/kubernetes-v1.20.2/{kube-apiserver,kube-controller-manager,VERSION}
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/kubernetes-v1.20.2-node/{kubelet,kube-scheduler,pause,VERSION}
# plus etcd and openssl from Debian. Idempotent: returns at once when both directories are complete; concurrent
# runs wait for each other.
# Usage: npm run kube:build   (or: bash scripts/kube/build-binaries.sh)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=kube:build
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly CONTROL_PLANE=(kube-apiserver kube-controller-manager)
readonly NODE=(kubelet kube-scheduler pause)
readonly CACHE_DIR="$CACHE_ROOT/kubernetes-$KUBE_VERSION"
readonly NODE_CACHE_DIR="$CACHE_ROOT/kubernetes-$KUBE_VERSION-node"
# providerless leaves out the in-tree cloud providers (AWS, Azure, GCE, OpenStack, vSphere): a loopback cluster has
# no cloud, and they are a large share of the compile time and size (docs/adr/0030-cold-provisioning.md).
readonly GO_TAGS=-tags=providerless

all_cached() { is_cached_in "$CACHE_DIR" "${CONTROL_PLANE[@]}" && is_cached_in "$NODE_CACHE_DIR" "${NODE[@]}"; }

# Moves the built programs of TREE into DIR (VERSION last, so a cut-off copy is never taken for a cache).
install_into() {
  local tree=$1 dir=$2 work=$3 binary
  shift 3
  local out="$work/$(basename "$dir")"
  mkdir "$out"
  for binary in "$@"; do cp -L "$tree/_output/bin/$binary" "$out/$binary"; done
  write_version_file "$out" "go flags: $GO_TAGS"
  # We hold the lock and the cache is incomplete, so whatever is there is a leftover.
  rm -rf "$dir"
  mv -T "$out" "$dir"
}

main() {
  mkdir -p "$CACHE_ROOT"
  # etcd and openssl are needed to start the cluster, so they are provided along with the cached build.
  ensure_packages etcd-server:etcd openssl:openssl
  if all_cached; then
    say "$KUBE_VERSION binaries are cached in $CACHE_DIR and $NODE_CACHE_DIR"
    return 0
  fi

  exec 9>"$CACHE_ROOT/kubernetes-$KUBE_VERSION.lock"
  flock -n 9 || { say 'another build is running; waiting for it' && flock 9; }
  if all_cached; then
    say "$KUBE_VERSION binaries are cached in $CACHE_DIR and $NODE_CACHE_DIR"
    return 0
  fi
  ensure_packages gcc:gcc libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a

  # Inside the cache root, so the finished directories are renamed into place on the same file system.
  # Global, since the EXIT trap runs after main's locals are gone.
  work=$(mktemp -d "$CACHE_ROOT/.build-$KUBE_VERSION.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  local started=$SECONDS tree
  say "fetching the $KUBE_VERSION source through a private apt configuration"
  tree=$(prepare_tree "$work")
  say "source ready after $((SECONDS - started)) s"

  say "building kube-apiserver, kube-controller-manager, kubelet and kube-scheduler (about 20 minutes on 2 cores)"
  local log="$CACHE_ROOT/kubernetes-$KUBE_VERSION-build.log" build_started=$SECONDS
  mkdir -p "$work/home"
  if ! make_tree "$tree" "$work/home" "$log" \
    "cmd/kube-apiserver cmd/kube-controller-manager cmd/kubelet cmd/kube-scheduler" "$GO_TAGS"; then
    tail -n 40 "$log" >&2
    fail "make failed; full log in $log"
  fi
  say "make took $((SECONDS - build_started)) s"
  # The upstream pause container's program: sleeps as PID 1 and reaps zombies. Static, so it runs from scratch.
  gcc -Os -Wall -Werror -static -DVERSION="$KUBE_VERSION" -o "$tree/_output/bin/pause" "$tree/build/pause/linux/pause.c"

  local binary
  for binary in kube-apiserver kubelet; do
    "$tree/_output/bin/$binary" --version | grep -qF "Kubernetes $KUBE_VERSION" ||
      fail "the built $binary does not report $KUBE_VERSION"
  done
  install_into "$tree" "$CACHE_DIR" "$work" "${CONTROL_PLANE[@]}"
  install_into "$tree" "$NODE_CACHE_DIR" "$work" "${NODE[@]}"
  rm -f "$log"
  say "built and cached in $CACHE_DIR and $NODE_CACHE_DIR in $((SECONDS - started)) s"
}

main "$@"
