#!/usr/bin/env bash
# Provides the node's binaries for the node tests (docs/adr/0019-real-node-in-tests.md): kubelet and kube-scheduler
# v1.20.2 from the same Debian source tree as scripts/kube/build-binaries.sh, plus the pod sandbox ("pause")
# program from that tree's build/pause/linux/pause.c, cached in a directory of their own beside the control plane's:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/kubernetes-v1.20.2-node/{kubelet,kube-scheduler,pause,VERSION}
# The control plane's cache directory is never touched (its build script removes it whole when it rebuilds).
# Idempotent: returns at once when the cache is complete; concurrent runs wait for each other.
# Usage: bash scripts/node/build-node-binaries.sh   (npm run node:build runs it)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:build
# shellcheck source=../kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kube/lib.sh"

readonly BINARIES=(kubelet kube-scheduler pause)
readonly CACHE_DIR="$CACHE_ROOT/kubernetes-$KUBE_VERSION-node"
# providerless leaves out the in-tree cloud providers (AWS, Azure, GCE, OpenStack, vSphere): a loopback node has
# no cloud, and they are a large share of kubelet's compile time and size.
readonly GO_TAGS=-tags=providerless

main() {
  mkdir -p "$CACHE_ROOT"
  if is_cached_in "$CACHE_DIR" "${BINARIES[@]}"; then
    say "kubelet, kube-scheduler and pause $KUBE_VERSION are cached in $CACHE_DIR"
    return 0
  fi
  exec 9>"$CACHE_DIR.lock"
  flock -n 9 || { say 'another build is running; waiting for it' && flock 9; }
  if is_cached_in "$CACHE_DIR" "${BINARIES[@]}"; then
    say "kubelet, kube-scheduler and pause $KUBE_VERSION are cached in $CACHE_DIR"
    return 0
  fi

  ensure_packages gcc:gcc libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a
  # Global, since the EXIT trap runs after main's locals are gone.
  work=$(mktemp -d "$CACHE_ROOT/.build-$KUBE_VERSION-node.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  local started=$SECONDS tree
  say "fetching the $KUBE_VERSION source through a private apt configuration"
  tree=$(prepare_tree "$work")
  say "source ready after $((SECONDS - started)) s; building ${BINARIES[*]} (15 to 25 minutes on 2 cores when cold)"

  local log="$CACHE_DIR-build.log" build_started=$SECONDS
  mkdir -p "$work/home"
  # kubelet is not in the tree's list of static binaries, so the Makefile builds it with the environment's
  # CGO_ENABLED; make_tree's 0 makes it a static pure-Go binary like the others.
  if ! make_tree "$tree" "$work/home" "$log" "cmd/kubelet cmd/kube-scheduler" "$GO_TAGS"; then
    tail -n 40 "$log" >&2
    fail "make failed; full log in $log"
  fi
  say "make took $((SECONDS - build_started)) s"
  # The upstream pause container's program: sleeps as PID 1 and reaps zombies. Static, so it runs from scratch.
  gcc -Os -Wall -Werror -static -DVERSION="$KUBE_VERSION" -o "$tree/_output/bin/pause" "$tree/build/pause/linux/pause.c"

  local out="$work/kubernetes-$KUBE_VERSION-node" binary
  mkdir "$out"
  for binary in "${BINARIES[@]}"; do cp -L "$tree/_output/bin/$binary" "$out/$binary"; done
  "$out/kubelet" --version | grep -qF "Kubernetes $KUBE_VERSION" || fail "the built kubelet does not report $KUBE_VERSION"
  write_version_file "$out" "go flags: $GO_TAGS"
  # We hold the lock and the cache is incomplete, so whatever is there is a leftover.
  rm -rf "$CACHE_DIR"
  mv -T "$out" "$CACHE_DIR"
  rm -f "$log"
  say "built and cached in $CACHE_DIR in $((SECONDS - started)) s"
}

main "$@"
