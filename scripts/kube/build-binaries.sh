#!/usr/bin/env bash
# Provides kube-apiserver and kube-controller-manager v1.20.2 (and etcd) for the Kubernetes tests, see docs/testing.md.
# No prebuilt Kubernetes binary can be had here, but Debian carries the v1.20.2 source tree with its vendored
# dependencies, so this builds it offline with Debian's Go and caches the result outside the repository:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/kubernetes-v1.20.2/{kube-apiserver,kube-controller-manager,VERSION}
# Idempotent: returns at once when the cache is complete; concurrent runs wait for each other.
# Usage: npm run kube:build   (or: bash scripts/kube/build-binaries.sh)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=kube:build
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly BINARIES=(kube-apiserver kube-controller-manager)
readonly CACHE_DIR="$CACHE_ROOT/kubernetes-$KUBE_VERSION"

main() {
  mkdir -p "$CACHE_ROOT"
  # etcd and openssl are needed to start the cluster, so they are provided along with the cached build.
  ensure_packages etcd-server:etcd openssl:openssl
  if is_cached_in "$CACHE_DIR" "${BINARIES[@]}"; then
    say "$KUBE_VERSION binaries are cached in $CACHE_DIR"
    return 0
  fi

  exec 9>"$CACHE_ROOT/kubernetes-$KUBE_VERSION.lock"
  flock -n 9 || { say 'another build is running; waiting for it' && flock 9; }
  if is_cached_in "$CACHE_DIR" "${BINARIES[@]}"; then
    say "$KUBE_VERSION binaries are cached in $CACHE_DIR"
    return 0
  fi

  # Inside the cache root, so the finished directory is renamed into place on the same file system.
  # Global, since the EXIT trap runs after main's locals are gone.
  work=$(mktemp -d "$CACHE_ROOT/.build-$KUBE_VERSION.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  local started=$SECONDS tree
  say "fetching the $KUBE_VERSION source through a private apt configuration"
  tree=$(prepare_tree "$work")

  say "building ${BINARIES[*]} (about 9 minutes on 2 cores when cold)"
  local log="$CACHE_ROOT/kubernetes-$KUBE_VERSION-build.log"
  mkdir -p "$work/home"
  if ! make_tree "$tree" "$work/home" "$log" "cmd/kube-apiserver cmd/kube-controller-manager" ""; then
    tail -n 40 "$log" >&2
    fail "make failed; full log in $log"
  fi

  local out="$work/kubernetes-$KUBE_VERSION" binary
  mkdir "$out"
  for binary in "${BINARIES[@]}"; do cp -L "$tree/_output/bin/$binary" "$out/$binary"; done
  "$out/kube-apiserver" --version | grep -qF "Kubernetes $KUBE_VERSION" ||
    fail "the built kube-apiserver does not report $KUBE_VERSION"
  write_version_file "$out"
  # We hold the lock and the cache is incomplete, so whatever is there is a leftover.
  rm -rf "$CACHE_DIR"
  mv -T "$out" "$CACHE_DIR"
  rm -f "$log"
  say "built and cached in $CACHE_DIR in $((SECONDS - started)) s"
}

main "$@"
